// SPDX-License-Identifier: GPL-2.0
/*
 * The CC disassembler and one-line instruction formatter.
 *
 * The disassembler's promise is an exact round trip: whatever the bytes,
 * its text assembles back to them.  Anything the mnemonic syntax cannot
 * say (see ccas_insn_why_raw(), plus branches leaving the program) is
 * written as a raw .insn line, with the reason in a comment.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ccas.h"
#include "ccas_isa.h"

/* Longer than any line this file prints. */
#define CCAS_LINE_LEN 160
/* Column of the "; pc" comment in the disassembly. */
#define CCAS_COMMENT_COL 32

/* A growing string; @oom sticks once an allocation failed. */
struct sbuf {
	char *buf;
	size_t len, cap;
	bool oom;
};

static void sb_add(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (b->len + n + 1 > cap)
			cap *= 2;
		p = realloc(b->buf, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->buf = p;
		b->cap = cap;
	}
	memcpy(b->buf + b->len, s, n + 1);
	b->len += n;
}

/* Small immediates read best in decimal, masks and cookies in hex. */
static int fmt_imm(char *buf, size_t len, __u32 v)
{
	return snprintf(buf, len, v <= 65535 ? "%u" : "0x%x", v);
}

static int fmt_sem(char *buf, size_t len, __u32 sem)
{
	if (sem == CCAS_SEM_TRIGGER)
		return snprintf(buf, len, "trigger");
	return snprintf(buf, len, "sem(%u,%u,%u)", DRM_CCORE_SEM_REF_DEV(sem),
			DRM_CCORE_SEM_REF_CORE(sem), DRM_CCORE_SEM_REF_IDX(sem));
}

static int fmt_raw(const struct drm_ccore_insn *in, char *buf, size_t len)
{
	char imm[16];

	fmt_imm(imm, sizeof(imm), in->imm);
	return snprintf(buf, len, ".insn 0x%02x, %u, %u, %u, 0x%08x, %s, %d",
			in->opcode, in->reg, in->engine, in->ring, in->sem, imm,
			in->target);
}

static void fmt_operand(const struct drm_ccore_insn *in, unsigned int kind,
			const char *label, char *buf, size_t len)
{
	switch (kind) {
	case CCAS_OPND_SEM:
		fmt_sem(buf, len, in->sem);
		break;
	case CCAS_OPND_IMM:
		fmt_imm(buf, len, in->imm);
		break;
	case CCAS_OPND_RING:
		snprintf(buf, len, "ring(%u,%u)", in->engine, in->ring);
		break;
	case CCAS_OPND_REG:
		snprintf(buf, len, "r%u", in->reg);
		break;
	default:
		snprintf(buf, len, "%s", label);
		break;
	}
}

/*
 * Write "mnemonic operands" for an instruction ccas_insn_why_raw() accepts;
 * @label is what to print for a branch target.
 */
static int fmt_mnemonic(const struct drm_ccore_insn *in, const char *label,
			char *buf, size_t len)
{
	const struct ccas_opinfo *op = ccas_opinfo(in->opcode);
	char opnd[CCAS_MAX_OPNDS][48];
	const char *p[CCAS_MAX_OPNDS];

	for (unsigned int i = 0; i < op->nopnds; i++) {
		fmt_operand(in, op->opnds[i], label, opnd[i], sizeof(opnd[i]));
		p[i] = opnd[i];
	}
	return ccas_opinfo_format(op, p, buf, len);
}

int ccas_format_insn(const struct drm_ccore_insn *in, char *buf, size_t len)
{
	char rel[16];

	if (ccas_insn_why_raw(in))
		return fmt_raw(in, buf, len);
	snprintf(rel, sizeof(rel), ".%c%lld", in->target < 0 ? '-' : '+',
		 in->target < 0 ? -(long long)in->target : (long long)in->target);
	return fmt_mnemonic(in, rel, buf, len);
}

static bool uses_target(const struct drm_ccore_insn *in)
{
	const struct ccas_opinfo *op = ccas_opinfo(in->opcode);

	return op && (ccas_opinfo_fields(op) & CCAS_FIELD_TARGET);
}

/*
 * Destination of the branch at @i if it can be written as a label, else
 * -1.  Computed in long long: @i + @target can overflow 32 bits.
 */
static long long branch_dest(const struct drm_ccore_insn *insns, size_t count,
			     size_t i)
{
	long long dest = (long long)i + insns[i].target;

	if (dest < 0 || (unsigned long long)dest >= count)
		return -1;
	return dest;
}

/* Why insns[@i] must be raw in this program, or NULL. */
static const char *why_raw_at(const struct drm_ccore_insn *insns,
			      size_t count, size_t i)
{
	const char *why = ccas_insn_why_raw(&insns[i]);

	if (!why && uses_target(&insns[i]) && branch_dest(insns, count, i) < 0)
		why = "branch target outside the program";
	return why;
}

static void emit_line(struct sbuf *b, const struct drm_ccore_insn *insns,
		      size_t count, size_t i)
{
	const char *why = why_raw_at(insns, count, i);
	char text[CCAS_LINE_LEN], line[2 * CCAS_LINE_LEN], label[24];

	if (why) {
		fmt_raw(&insns[i], text, sizeof(text));
	} else {
		label[0] = '\0';
		if (uses_target(&insns[i]))
			snprintf(label, sizeof(label), "L%lld",
				 branch_dest(insns, count, i));
		fmt_mnemonic(&insns[i], label, text, sizeof(text));
	}
	/* The pc comment lets a reader match a verifier's bad_index. */
	snprintf(line, sizeof(line), "\t%-*s ; %zu%s%s\n", CCAS_COMMENT_COL - 1, text,
		 i, why ? ": " : "", why ? why : "");
	sb_add(b, line);
}

char *ccas_disassemble(const struct drm_ccore_insn *insns, size_t count)
{
	struct sbuf b = { 0 };
	bool *is_target;
	char label[32];

	is_target = calloc(count ? count : 1, sizeof(*is_target));
	if (!is_target)
		return NULL;
	for (size_t i = 0; i < count; i++)
		if (!why_raw_at(insns, count, i) && uses_target(&insns[i]))
			is_target[branch_dest(insns, count, i)] = true;
	sb_add(&b, "");		/* an empty program is "", not NULL */
	for (size_t i = 0; i < count; i++) {
		if (is_target[i]) {
			snprintf(label, sizeof(label), "L%zu:\n", i);
			sb_add(&b, label);
		}
		emit_line(&b, insns, count, i);
	}
	free(is_target);
	if (b.oom) {
		free(b.buf);
		return NULL;
	}
	return b.buf;
}
