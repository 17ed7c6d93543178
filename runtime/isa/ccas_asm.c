// SPDX-License-Identifier: GPL-2.0
/*
 * The CC assembler.
 *
 * Two passes over the source: the first only records where each label is
 * (so branches may go forward), the second parses everything, reports the
 * first error in source order and emits instructions.  .equ constants are
 * defined by the second pass, so a constant must be defined above its use,
 * as in C.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ccas.h"
#include "ccas_isa.h"
#include "ccas_lex.h"
#include "ccas_sym.h"

/* Room for a quoted token in a message. */
#define CCAS_DESC_LEN 128
/* Room for a usage line such as "bge SEM, IMM, LABEL". */
#define CCAS_USAGE_LEN 64

static const char insn_usage[] =
	".insn OPCODE, REG, ENGINE, RING, SEM, IMM, TARGET";

/**
 * struct ccas_as - assembler state
 * @file: name for messages
 * @line: 1-based number of the line being assembled
 * @lx: position in that line
 * @syms: labels and constants
 * @total: instructions counted by the first pass
 * @insns: emitted instructions
 * @count: how many
 * @cap: allocated slots
 * @err: message buffer
 * @errlen: its size
 */
struct ccas_as {
	const char *file;
	unsigned long line;
	struct ccas_lex lx;
	struct ccas_symtab syms;
	size_t total;
	struct drm_ccore_insn *insns;
	size_t count, cap;
	char *err;
	size_t errlen;
};

/* Report "FILE:LINE: <expected>, got <got>" and fail. */
static int vfail(struct ccas_as *s, const char *got, const char *fmt,
		 va_list ap)
{
	int n;

	if (!s->err || !s->errlen)
		return -EINVAL;
	n = snprintf(s->err, s->errlen, "%s:%lu: ", s->file, s->line);
	if (n < 0 || (size_t)n >= s->errlen)
		return -EINVAL;
	n += vsnprintf(s->err + n, s->errlen - (size_t)n, fmt, ap);
	if (n >= 0 && (size_t)n < s->errlen)
		snprintf(s->err + n, s->errlen - (size_t)n, ", got %s", got);
	return -EINVAL;
}

/* As vfail(), @got already quoted (or "end of line"). */
static int fail_desc(struct ccas_as *s, const char *got, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail_desc(struct ccas_as *s, const char *got, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfail(s, got, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* As vfail(), naming token @t. */
static int fail_tok(struct ccas_as *s, const struct ccas_tok *t,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_tok(struct ccas_as *s, const struct ccas_tok *t,
		    const char *fmt, ...)
{
	char d[CCAS_DESC_LEN];
	va_list ap;

	ccas_tok_describe(t, d, sizeof(d));
	va_start(ap, fmt);
	vfail(s, d, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int fail_oom(struct ccas_as *s)
{
	if (s->err && s->errlen)
		snprintf(s->err, s->errlen, "%s: out of memory", s->file);
	return -ENOMEM;
}

static void next(struct ccas_as *s, struct ccas_tok *t)
{
	ccas_lex_next(&s->lx, t);
}

/* ---- names --------------------------------------------------------------- */

static bool is_label_name(const struct ccas_tok *t)
{
	if (t->kind != CCAS_TOK_IDENT || t->s[0] == '.')
		return false;
	return memchr(t->s, '.', t->len) == NULL;
}

/*
 * Register number of "r0", "r1", ... "r99999", or -1.  Numbers above 7 are
 * still registers, so "r8" reads as an out-of-range register; a leading
 * zero ("r01") is not one, so every register has a single spelling.
 */
static long reg_number(const struct ccas_tok *t)
{
	long n = 0;

	if (t->kind != CCAS_TOK_IDENT || t->len < 2 || t->len > 6 ||
	    t->s[0] != 'r' || (t->len > 2 && t->s[1] == '0'))
		return -1;
	for (size_t i = 1; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return -1;
		n = n * 10 + (t->s[i] - '0');
	}
	return n;
}

/* Names operands use as keywords; a symbol with one would be ambiguous. */
static bool is_reserved(const struct ccas_tok *t)
{
	return reg_number(t) >= 0 || ccas_tok_is(t, "trigger") ||
	       ccas_tok_is(t, "sem") || ccas_tok_is(t, "ring");
}

static int check_new_name(struct ccas_as *s, const struct ccas_tok *t,
			  const char *what)
{
	if (!is_label_name(t))
		return fail_tok(s, t, "expected %s (a letter or '_', then letters, digits or '_')",
				what);
	if (is_reserved(t))
		return fail_tok(s, t, "expected %s that is not a register or the keyword trigger, sem or ring",
				what);
	return 0;
}

/* ---- the first pass: where labels are -------------------------------------- */

/* Record the labels at the start of the current line, first definition wins. */
static int scan_labels(struct ccas_as *s, size_t index)
{
	struct ccas_tok t, colon;

	for (;;) {
		ccas_lex_peek2(&s->lx, &colon);
		if (!ccas_tok_is(&colon, ":"))
			return 0;
		next(s, &t);
		next(s, &colon);
		if (!is_label_name(&t) || is_reserved(&t) ||
		    ccas_sym_find(&s->syms, t.s, t.len))
			continue;	/* the second pass reports it */
		if (!ccas_sym_add(&s->syms, t.s, t.len, CCAS_SYM_LABEL,
				  (uint32_t)index, s->line))
			return fail_oom(s);
	}
}

static int first_pass(struct ccas_as *s, const char *src)
{
	const char *line = src;
	struct ccas_tok t;
	int ret;

	for (s->line = 1; line; s->line++) {
		line = ccas_lex_line(&s->lx, line);
		/* Past INT32_MAX the second pass fails anyway. */
		ret = scan_labels(s, s->total);
		if (ret)
			return ret;
		next(s, &t);
		if (t.kind != CCAS_TOK_EOL && !ccas_tok_is(&t, ".equ"))
			s->total++;
	}
	return 0;
}

/* ---- operands -------------------------------------------------------------- */

/* Classification of a token that should be a number. */
enum val_kind { VAL_OK, VAL_BIG, VAL_BAD, VAL_UNDEF, VAL_LABEL, VAL_NOTNUM };

static enum val_kind tok_value(struct ccas_as *s, const struct ccas_tok *t,
			       unsigned long long *v)
{
	struct ccas_sym *sym;

	if (t->kind == CCAS_TOK_NUMBER) {
		switch (ccas_tok_number(t, v)) {
		case 0:
			return VAL_OK;
		case -ERANGE:
			return VAL_BIG;
		default:
			return VAL_BAD;
		}
	}
	if (t->kind != CCAS_TOK_IDENT)
		return VAL_NOTNUM;
	/* Constants exist once defined; labels from the first pass on. */
	sym = ccas_sym_find(&s->syms, t->s, t->len);
	if (!sym)
		return VAL_UNDEF;
	if (sym->kind == CCAS_SYM_LABEL)
		return VAL_LABEL;
	*v = sym->value;
	return VAL_OK;
}

/* Report why token @t is not @what in @lo..@hi, given its classification. */
static int fail_value(struct ccas_as *s, const struct ccas_tok *t,
		      enum val_kind k, unsigned long long v, const char *what,
		      long long lo, long long hi)
{
	char d[CCAS_DESC_LEN + 32];

	switch (k) {
	case VAL_BAD:
		return fail_tok(s, t, "expected %s %lld..%lld (decimal or 0x hex)",
				what, lo, hi);
	case VAL_UNDEF:
		return fail_tok(s, t, "expected %s %lld..%lld or a .equ constant defined above",
				what, lo, hi);
	case VAL_LABEL:
		return fail_tok(s, t, "expected %s %lld..%lld, not a label (labels are only branch targets)",
				what, lo, hi);
	case VAL_OK:
		if (t->kind == CCAS_TOK_IDENT) {
			/* Show what the constant stands for. */
			ccas_tok_describe(t, d, CCAS_DESC_LEN);
			snprintf(d + strlen(d), sizeof(d) - strlen(d), " (= %llu)", v);
			return fail_desc(s, d, "expected %s %lld..%lld", what, lo, hi);
		}
		break;
	default:
		break;
	}
	return fail_tok(s, t, "expected %s %lld..%lld", what, lo, hi);
}

/* Parse a number or constant in 0..@max; @what names it ("an engine"). */
static int parse_u32(struct ccas_as *s, const char *what, uint32_t max,
		     uint32_t *out)
{
	unsigned long long v = 0;
	struct ccas_tok t;
	enum val_kind k;

	next(s, &t);
	k = tok_value(s, &t, &v);
	if (k != VAL_OK || v > max)
		return fail_value(s, &t, k, v, what, 0, max);
	*out = (uint32_t)v;
	return 0;
}

/* Expect punctuation @p; @fmt says what was expected. */
static int expect_punct(struct ccas_as *s, const char *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int expect_punct(struct ccas_as *s, const char *p, const char *fmt, ...)
{
	char d[CCAS_DESC_LEN];
	struct ccas_tok t;
	va_list ap;

	next(s, &t);
	if (t.kind == CCAS_TOK_PUNCT && ccas_tok_is(&t, p))
		return 0;
	ccas_tok_describe(&t, d, sizeof(d));
	va_start(ap, fmt);
	vfail(s, d, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* sem(DEV,CORE,IDX) after "sem" was consumed. */
static int parse_sem_ref(struct ccas_as *s, uint32_t *sem)
{
	static const char form[] = "sem(DEV,CORE,IDX)";
	uint32_t dev, core, idx;

	if (expect_punct(s, "(", "expected '(' after 'sem' in %s", form) ||
	    parse_u32(s, "a device index", 255, &dev) ||
	    expect_punct(s, ",", "expected ',' after DEV in %s", form) ||
	    parse_u32(s, "a core index", 255, &core) ||
	    expect_punct(s, ",", "expected ',' after CORE in %s", form) ||
	    parse_u32(s, "a semaphore index", 65535, &idx) ||
	    expect_punct(s, ")", "expected ')' to close %s", form))
		return -EINVAL;
	*sem = DRM_CCORE_SEM_REF(dev, core, idx);
	return 0;
}

static int parse_sem(struct ccas_as *s, struct drm_ccore_insn *in)
{
	struct ccas_tok t;

	next(s, &t);
	if (ccas_tok_is(&t, "trigger")) {
		in->sem = CCAS_SEM_TRIGGER;
		return 0;
	}
	if (ccas_tok_is(&t, "sem"))
		return parse_sem_ref(s, &in->sem);
	return fail_tok(s, &t, "expected a semaphore like sem(0,1,5) or 'trigger'");
}

static int parse_ring(struct ccas_as *s, struct drm_ccore_insn *in)
{
	static const char form[] = "ring(ENGINE,RING)";
	uint32_t engine, ring;
	struct ccas_tok t;

	next(s, &t);
	if (!ccas_tok_is(&t, "ring"))
		return fail_tok(s, &t, "expected a ring like ring(0,3)");
	if (expect_punct(s, "(", "expected '(' after 'ring' in %s", form) ||
	    parse_u32(s, "an engine", 255, &engine) ||
	    expect_punct(s, ",", "expected ',' after ENGINE in %s", form) ||
	    parse_u32(s, "a ring index", CCAS_RING_MAX, &ring) ||
	    expect_punct(s, ")", "expected ')' to close %s", form))
		return -EINVAL;
	in->engine = (__u8)engine;
	in->ring = (__u8)ring;
	return 0;
}

static int parse_reg(struct ccas_as *s, struct drm_ccore_insn *in)
{
	struct ccas_tok t;
	long r;

	next(s, &t);
	r = reg_number(&t);
	if (r < 0 || r >= DRM_CCORE_NUM_REGS)
		return fail_tok(s, &t, "expected a register r0..r%d",
				DRM_CCORE_NUM_REGS - 1);
	in->reg = (__u8)r;
	return 0;
}

/* A label operand: the branch offset from the current instruction. */
static int parse_label(struct ccas_as *s, struct drm_ccore_insn *in)
{
	struct ccas_sym *sym;
	struct ccas_tok t;

	next(s, &t);
	if (!is_label_name(&t))
		return fail_tok(s, &t, "expected a label");
	sym = ccas_sym_find(&s->syms, t.s, t.len);
	if (!sym || sym->kind != CCAS_SYM_LABEL)
		return fail_tok(s, &t, "expected a label defined in this file");
	/* A label after the last instruction would branch out of the program. */
	if (sym->value >= s->total)
		return fail_tok(s, &t, "expected a label on an instruction (branch targets must stay inside the program)");
	in->target = (__s32)((long long)sym->value - (long long)s->count);
	return 0;
}

static int parse_operand(struct ccas_as *s, unsigned int kind,
			 struct drm_ccore_insn *in)
{
	switch (kind) {
	case CCAS_OPND_SEM:
		return parse_sem(s, in);
	case CCAS_OPND_IMM:
		return parse_u32(s, "an immediate", UINT32_MAX, &in->imm);
	case CCAS_OPND_RING:
		return parse_ring(s, in);
	case CCAS_OPND_REG:
		return parse_reg(s, in);
	default:
		return parse_label(s, in);
	}
}

/* ---- lines ----------------------------------------------------------------- */

static int expect_eol(struct ccas_as *s, const char *usage, bool operands)
{
	struct ccas_tok t;

	next(s, &t);
	if (t.kind == CCAS_TOK_EOL)
		return 0;
	if (!operands)
		return fail_tok(s, &t, "expected end of line ('%s' takes no operands)",
				usage);
	return fail_tok(s, &t, "expected end of line after the operands (usage: %s)",
			usage);
}

static int emit(struct ccas_as *s, const struct drm_ccore_insn *in)
{
	if (s->count == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct drm_ccore_insn *n;

		n = realloc(s->insns, cap * sizeof(*n));
		if (!n)
			return fail_oom(s);
		s->insns = n;
		s->cap = cap;
	}
	s->insns[s->count++] = *in;
	return 0;
}

static int fail_mnemonic(struct ccas_as *s, const struct ccas_tok *t)
{
	char lower[16];

	/* "NOP" or "Jump": say that case matters. */
	if (t->len < sizeof(lower)) {
		for (size_t i = 0; i < t->len; i++)
			lower[i] = (char)(t->s[i] >= 'A' && t->s[i] <= 'Z' ?
					  t->s[i] - 'A' + 'a' : t->s[i]);
		if (ccas_opinfo_by_name(lower, t->len))
			return fail_tok(s, t, "expected an instruction mnemonic (mnemonics are lowercase)");
	}
	return fail_tok(s, t, "expected an instruction mnemonic (nop, halt, wait, acquire, set, add, start, starti, rwait, jump, bge, movi, addi, loop, call, ret, next, notify) or a directive (.equ, .insn)");
}

static int assemble_insn(struct ccas_as *s, const struct ccas_tok *mnem)
{
	const struct ccas_opinfo *op = ccas_opinfo_by_name(mnem->s, mnem->len);
	struct drm_ccore_insn in = { 0 };
	char usage[CCAS_USAGE_LEN];
	int ret;

	if (mnem->kind != CCAS_TOK_IDENT || !op)
		return fail_mnemonic(s, mnem);
	ccas_opinfo_usage(op, usage, sizeof(usage));
	in.opcode = op->opcode;
	for (unsigned int i = 0; i < op->nopnds; i++) {
		if (i) {
			ret = expect_punct(s, ",", "expected ',' and then %s (usage: %s)",
					   ccas_opnd_placeholder(op->opnds[i]),
					   usage);
			if (ret)
				return ret;
		}
		ret = parse_operand(s, op->opnds[i], &in);
		if (ret)
			return ret;
	}
	ret = expect_eol(s, op->nopnds ? usage : op->name, op->nopnds);
	return ret ? ret : emit(s, &in);
}

/* .insn's TARGET: a signed 32-bit offset, optionally negative. */
static int parse_raw_target(struct ccas_as *s, __s32 *out)
{
	unsigned long long v = 0;
	struct ccas_lex save = s->lx;
	struct ccas_tok minus, t;
	enum val_kind k;
	bool neg;

	next(s, &minus);
	neg = ccas_tok_is(&minus, "-");
	if (!neg)
		s->lx = save;
	next(s, &t);
	k = tok_value(s, &t, &v);
	if (k == VAL_OK && v <= (neg ? 2147483648ull : 2147483647ull)) {
		*out = (__s32)(neg ? -(long long)v : (long long)v);
		return 0;
	}
	/* Quote the sign too: "-2147483649" is what is out of range. */
	if (neg && t.kind != CCAS_TOK_EOL) {
		t.len += (size_t)(t.s - minus.s);
		t.s = minus.s;
	}
	return fail_value(s, &t, k, v, "a branch offset", INT32_MIN, INT32_MAX);
}

static int assemble_raw(struct ccas_as *s)
{
	static const char *const names[] = {
		"an opcode", "a register field", "an engine", "a ring field",
		"a semaphore reference", "an immediate",
	};
	static const char *const fields[] = {
		"REG", "ENGINE", "RING", "SEM", "IMM", "TARGET",
	};
	static const uint32_t max[] = {
		255, 255, 255, 255, UINT32_MAX, UINT32_MAX,
	};
	struct drm_ccore_insn in = { 0 };
	uint32_t v[6];

	for (unsigned int i = 0; i < 6; i++)
		if (parse_u32(s, names[i], max[i], &v[i]) ||
		    expect_punct(s, ",", "expected ',' and then %s (usage: %s)",
				 fields[i], insn_usage))
			return -EINVAL;
	if (parse_raw_target(s, &in.target) ||
	    expect_eol(s, insn_usage, true))
		return -EINVAL;
	in.opcode = (__u8)v[0];
	in.reg = (__u8)v[1];
	in.engine = (__u8)v[2];
	in.ring = (__u8)v[3];
	in.sem = v[4];
	in.imm = v[5];
	return emit(s, &in);
}

static int assemble_equ(struct ccas_as *s)
{
	struct ccas_sym *sym;
	struct ccas_tok name;
	uint32_t v;
	int ret;

	next(s, &name);
	ret = check_new_name(s, &name, "a constant name");
	if (ret)
		return ret;
	sym = ccas_sym_find(&s->syms, name.s, name.len);
	if (sym && sym->kind == CCAS_SYM_LABEL)
		return fail_tok(s, &name, "expected a name not used by a label (label at line %lu)",
				sym->line);
	if (sym)
		return fail_tok(s, &name, "expected a new constant name (already defined at line %lu)",
				sym->line);
	if (expect_punct(s, ",", "expected ',' and then VALUE (usage: .equ NAME, VALUE)") ||
	    parse_u32(s, "a value", UINT32_MAX, &v) ||
	    expect_eol(s, ".equ NAME, VALUE", true))
		return -EINVAL;
	sym = ccas_sym_add(&s->syms, name.s, name.len, CCAS_SYM_EQU, v, s->line);
	if (!sym)
		return fail_oom(s);
	sym->defined = true;
	return 0;
}

static int define_label(struct ccas_as *s, const struct ccas_tok *t)
{
	struct ccas_sym *sym;
	int ret = check_new_name(s, t, "a label name");

	if (ret)
		return ret;
	sym = ccas_sym_find(&s->syms, t->s, t->len);
	/* The first pass recorded the first definition of every label. */
	if (!sym || sym->kind != CCAS_SYM_LABEL || sym->defined ||
	    sym->line != s->line)
		return fail_tok(s, t, "expected a label name not used before (first defined at line %lu)",
				sym ? sym->line : s->line);
	sym->defined = true;
	return 0;
}

static int assemble_line(struct ccas_as *s)
{
	struct ccas_tok t, colon;
	int ret;

	for (;;) {
		ccas_lex_peek2(&s->lx, &colon);
		if (!ccas_tok_is(&colon, ":"))
			break;
		next(s, &t);
		next(s, &colon);
		ret = define_label(s, &t);
		if (ret)
			return ret;
	}
	next(s, &t);
	if (t.kind == CCAS_TOK_EOL)
		return 0;
	if (s->count >= INT32_MAX)
		return fail_tok(s, &t, "expected at most %d instructions", INT32_MAX);
	if (ccas_tok_is(&t, ".equ"))
		return assemble_equ(s);
	if (ccas_tok_is(&t, ".insn"))
		return assemble_raw(s);
	if (t.kind == CCAS_TOK_IDENT && t.s[0] == '.')
		return fail_tok(s, &t, "expected a directive (.equ or .insn)");
	return assemble_insn(s, &t);
}

static int second_pass(struct ccas_as *s, const char *src)
{
	const char *line = src;
	int ret;

	for (s->line = 1; line; s->line++) {
		line = ccas_lex_line(&s->lx, line);
		ret = assemble_line(s);
		if (ret)
			return ret;
	}
	return 0;
}

int ccas_assemble(const char *src, const char *filename,
		  struct drm_ccore_insn **out, size_t *count,
		  char *err, size_t errlen)
{
	struct ccas_as s = {
		.file = filename ? filename : "<input>",
		.err = err,
		.errlen = errlen,
	};
	int ret;

	if (err && errlen)
		err[0] = '\0';
	ccas_symtab_init(&s.syms);
	ret = first_pass(&s, src);
	if (!ret)
		ret = second_pass(&s, src);
	/* Callers may rely on a non-NULL array even for an empty program. */
	if (!ret && !s.insns) {
		s.insns = malloc(sizeof(*s.insns));
		if (!s.insns)
			ret = fail_oom(&s);
	}
	ccas_symtab_fini(&s.syms);
	if (ret) {
		free(s.insns);
		return ret;
	}
	*out = s.insns;
	*count = s.count;
	return 0;
}
