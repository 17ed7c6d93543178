// SPDX-License-Identifier: MIT
/*
 * Reading the text description of an executable (Documentation/
 * executable.rst, "Text description"): one statement a line, '#' comments,
 * "FILE:LINE: " on every error with what was wrong and what is allowed.
 */
#include "exec/exe.h"
#include "ccore_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 12

struct tparse {
	const char *file;
	uint32_t line;
	struct ccore_exe *exe;
	uint8_t *in_block;	/* ranks of the current "rank" block */
	int have_block;
	char **tok;
	int ntok;
};

static int perr(const struct tparse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(const struct tparse *p, const char *fmt, ...)
{
	char small[256], *msg = small;
	va_list ap;
	int n, rc;

	/* the whole message, however long the text it quotes */
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(small) && (msg = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	rc = ccore_error(-EINVAL, "%s:%u: %s", p->file, p->line, msg ? msg : small);
	if (msg != small)
		free(msg);
	return rc;
}

/* A whole number with an optional K, M or G (binary) suffix. */
static int parse_num(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	const char *c = s;

	if (*c < '0' || *c > '9')
		return -1;
	for (; *c >= '0' && *c <= '9'; c++) {
		if (v > (UINT64_MAX - (uint64_t)(*c - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*c - '0');
	}
	if (*c == 'K')
		shift = 10;
	else if (*c == 'M')
		shift = 20;
	else if (*c == 'G')
		shift = 30;
	if (shift)
		c++;
	if (*c || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = v << shift;
	return 0;
}

static int num(const struct tparse *p, const char *what, const char *s, uint64_t max,
	       uint64_t *out)
{
	if (parse_num(s, out) || *out > max)
		return perr(p, "%s '%s': expected a whole number from 0 to %llu (K, M, G suffixes allowed)",
			    what, s, (unsigned long long)max);
	return 0;
}

static int num32(const struct tparse *p, const char *what, const char *s, uint32_t max,
		 uint32_t *out)
{
	uint64_t v;
	int rc = num(p, what, s, max, &v);

	*out = (uint32_t)v;
	return rc;
}

static int duration(const struct tparse *p, const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t scale; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
	};
	const char *u = s;
	uint64_t v = 0;

	while (*u >= '0' && *u <= '9')
		u++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (u == s || strcmp(u, units[i].unit))
			continue;
		for (const char *c = s; c < u; c++) {
			if (v > (UINT64_MAX - 9) / 10)
				goto bad;
			v = v * 10 + (uint64_t)(*c - '0');
		}
		if (v > UINT64_MAX / units[i].scale)
			goto bad;
		*ns = v * units[i].scale;
		return 0;
	}
bad:
	return perr(p, "compute '%s': expected a duration, a whole number with a unit ns, us, ms or s (e.g. 20us)",
		    s);
}

static int find_tensor(const struct tparse *p, const char *name, uint32_t *out)
{
	for (uint32_t i = 0; i < p->exe->ntensors; i++) {
		if (!strcmp(p->exe->tensors[i].name, name)) {
			*out = i;
			return 0;
		}
	}
	return perr(p, "unknown tensor '%s'; declare it with a 'tensor' line first", name);
}

static int find_coll(const struct tparse *p, const char *name, uint32_t *out)
{
	for (uint32_t i = 0; i < p->exe->ncolls; i++) {
		if (!strcmp(p->exe->colls[i].name, name)) {
			*out = i;
			return 0;
		}
	}
	return perr(p, "unknown collective '%s'; declare it with a 'collective' line first", name);
}

/* TENSOR or TENSOR+OFFSET */
static int tensor_ref(const struct tparse *p, const char *what, char *s, uint32_t *t,
		      uint64_t *off)
{
	char *plus = strchr(s, '+');

	*off = 0;
	if (plus) {
		*plus = 0;
		if (parse_num(plus + 1, off)) {
			*plus = '+';
			return perr(p, "%s '%s': expected TENSOR or TENSOR+OFFSET with a whole number of bytes",
				    what, s);
		}
	}
	return find_tensor(p, s, t);
}

static int copy_name(const struct tparse *p, const char *what, const char *s, char *name)
{
	if (strlen(s) > CCORE_EXE_NAME_MAX)
		return perr(p, "%s name '%.20s...' is %zu characters; allowed 1..%u", what, s,
			    strlen(s), CCORE_EXE_NAME_MAX);
	strcpy(name, s);
	return 0;
}

/* key=value tokens from p->tok[first]; each key of @keys at most once. */
struct kv {
	const char *keys[MAX_KEYS];
	char *val[MAX_KEYS];
};

static int parse_kv(const struct tparse *p, int first, struct kv *kv, const char *allowed)
{
	for (int i = first; i < p->ntok; i++) {
		char *eq = strchr(p->tok[i], '=');
		int k;

		if (!eq)
			return perr(p, "'%s': expected KEY=VALUE; keys: %s", p->tok[i], allowed);
		*eq = 0;
		for (k = 0; k < MAX_KEYS && kv->keys[k]; k++)
			if (!strcmp(kv->keys[k], p->tok[i]))
				break;
		if (k == MAX_KEYS || !kv->keys[k])
			return perr(p, "unknown key '%s'; allowed: %s", p->tok[i], allowed);
		if (kv->val[k])
			return perr(p, "key '%s' given twice", p->tok[i]);
		kv->val[k] = eq + 1;
	}
	return 0;
}

static int topology(struct tparse *p)
{
	struct kv kv = { .keys = { "nodes", "devices", "ranks-per-device" } };
	const char *allowed = "nodes=N devices=N ranks-per-device=N";
	struct ccore_topology t;
	uint32_t *f[] = { &t.nodes, &t.devices_per_node, &t.ranks_per_device };
	int rc;

	if (p->exe)
		return perr(p, "a second 'topology' line; there is one, first");
	rc = parse_kv(p, 1, &kv, allowed);
	for (int i = 0; i < 3 && !rc; i++) {
		if (!kv.val[i])
			return perr(p, "topology: missing %s=N; needed: %s", kv.keys[i], allowed);
		rc = num32(p, kv.keys[i], kv.val[i], CCORE_EXE_MAX_RANKS, f[i]);
	}
	if (!rc) {
		rc = ccore_exe_new(&t, &p->exe);
		if (rc)
			rc = perr(p, "%s", ccore_last_error());
	}
	if (!rc) {
		p->in_block = calloc(p->exe->nranks, 1);
		if (!p->in_block)
			rc = ccore_error(-ENOMEM, "out of memory");
	}
	return rc;
}

static int dtype_val(const struct tparse *p, const char *s, uint32_t *out)
{
	int v = ccore_dtype_parse(s);

	if (v < 0)
		return perr(p, "dtype '%s': expected one of i8 u8 i32 u32 i64 u64 f16 bf16 f32 f64", s);
	*out = (uint32_t)v;
	return 0;
}

static int redop_val(const struct tparse *p, const char *s, uint32_t *out)
{
	int v = ccore_redop_parse(s);

	if (v < 0)
		return perr(p, "redop '%s': expected one of sum prod max min avg", s);
	*out = (uint32_t)v;
	return 0;
}

static int tensor(struct tparse *p)
{
	struct kv kv = { .keys = { "init", "dtype", "redop" } };
	struct ccore_exe_tensor t = { .line = p->line };
	int rc;

	if (p->ntok < 3)
		return perr(p, "expected 'tensor NAME BYTES [init=zero|pattern|index] [dtype=T] [redop=OP]'");
	rc = copy_name(p, "tensor", p->tok[1], t.name);
	if (!rc)
		rc = num(p, "tensor bytes", p->tok[2], UINT64_MAX, &t.bytes);
	if (!rc)
		rc = parse_kv(p, 3, &kv, "init=zero|pattern|index dtype=T redop=OP");
	if (rc)
		return rc;
	if (kv.val[0]) {
		int v = ccore_exe_init_parse(kv.val[0]);

		if (v < 0)
			return perr(p, "init '%s': expected zero, pattern or index", kv.val[0]);
		t.init = (uint32_t)v;
	}
	if (kv.val[1] && (rc = dtype_val(p, kv.val[1], &t.dtype)))
		return rc;
	if (kv.val[2] && (rc = redop_val(p, kv.val[2], &t.redop)))
		return rc;
	if (ccore_exe_add_tensor(p->exe, &t))
		return perr(p, "%s", ccore_last_error());
	return 0;
}

/* {{0,1,2,3},{4,5,6,7}} or all */
static int groups(struct tparse *p, const char *s, struct ccore_exe_coll *c, uint32_t *ranks)
{
	const char *form = "expected groups=all or groups={{R,R,...},{R,...},...} with groups of equal size";
	const char *q = s;
	uint32_t n = 0, size = 0;

	if (!strcmp(s, "all")) {
		for (uint32_t r = 0; r < p->exe->nranks; r++)
			ranks[r] = r;
		c->group_count = 1;
		c->group_size = p->exe->nranks;
		return 0;
	}
	if (*q++ != '{')
		return perr(p, "groups '%s': %s", s, form);
	c->group_count = 0;
	for (;;) {
		uint32_t in_group = 0;

		if (*q++ != '{')
			return perr(p, "groups '%s': %s", s, form);
		for (;;) {
			uint64_t v = 0;

			if (*q < '0' || *q > '9')
				return perr(p, "groups '%s': %s", s, form);
			while (*q >= '0' && *q <= '9') {
				v = v * 10 + (uint64_t)(*q++ - '0');
				if (v > UINT32_MAX)
					return perr(p, "groups '%s': rank out of range (0..%u)", s,
						    p->exe->nranks - 1);
			}
			if (n == p->exe->nranks)
				return perr(p, "groups '%s': more than %u ranks in all", s,
					    p->exe->nranks);
			ranks[n++] = (uint32_t)v;
			in_group++;
			if (*q == ',') {
				q++;
				continue;
			}
			if (*q++ != '}')
				return perr(p, "groups '%s': %s", s, form);
			break;
		}
		if (c->group_count && in_group != size)
			return perr(p, "groups '%s': group %u has %u ranks, group 0 has %u; groups are of equal size",
				    s, c->group_count, in_group, size);
		size = in_group;
		c->group_count++;
		if (*q == ',') {
			q++;
			continue;
		}
		if (*q++ != '}' || *q)
			return perr(p, "groups '%s': %s", s, form);
		break;
	}
	c->group_size = size;
	return 0;
}

static int collective(struct tparse *p)
{
	enum { K_DTYPE, K_COUNT, K_REDOP, K_ROOT, K_STREAM, K_SEND, K_RECV, K_GROUPS };
	struct kv kv = { .keys = { "dtype", "count", "redop", "root", "stream", "send", "recv",
				   "groups" } };
	const char *allowed = "dtype=T count=N redop=OP root=N stream=N send=TENSOR[+OFF] recv=TENSOR[+OFF] groups=...";
	struct ccore_exe_coll c = { .line = p->line };
	uint32_t *ranks;
	int op, rc;

	if (p->ntok < 3)
		return perr(p, "expected 'collective NAME OP KEY=VALUE...'");
	rc = copy_name(p, "collective", p->tok[1], c.name);
	if (rc)
		return rc;
	op = ccore_exe_op_parse(p->tok[2]);
	if (op < 0)
		return perr(p, "collective op '%s': expected one of allreduce allgather reducescatter alltoall broadcast reduce sendrecv",
			    p->tok[2]);
	c.op = (uint32_t)op;
	rc = parse_kv(p, 3, &kv, allowed);
	if (rc)
		return rc;
	for (int k = K_DTYPE; k <= K_GROUPS; k++) {
		if (!kv.val[k] && k != K_REDOP && k != K_ROOT && k != K_STREAM)
			return perr(p, "collective '%s': missing %s=; needed: dtype, count, send, recv, groups",
				    c.name, kv.keys[k]);
	}
	if ((rc = dtype_val(p, kv.val[K_DTYPE], &c.dtype)) ||
	    (rc = num(p, "count", kv.val[K_COUNT], UINT64_MAX, &c.count)) ||
	    (kv.val[K_REDOP] && (rc = redop_val(p, kv.val[K_REDOP], &c.redop))) ||
	    (kv.val[K_ROOT] && (rc = num32(p, "root", kv.val[K_ROOT], UINT32_MAX, &c.root))) ||
	    (kv.val[K_STREAM] && (rc = num32(p, "stream", kv.val[K_STREAM], UINT32_MAX, &c.stream))) ||
	    (rc = tensor_ref(p, "send", kv.val[K_SEND], &c.send, &c.send_offset)) ||
	    (rc = tensor_ref(p, "recv", kv.val[K_RECV], &c.recv, &c.recv_offset)))
		return rc;
	ranks = malloc(sizeof(uint32_t) * p->exe->nranks);
	if (!ranks)
		return ccore_error(-ENOMEM, "out of memory");
	c.ranks = ranks;
	rc = groups(p, kv.val[K_GROUPS], &c, ranks);
	if (!rc && ccore_exe_add_coll(p->exe, &c))
		rc = perr(p, "%s", ccore_last_error());
	free(ranks);
	return rc;
}

/* rank all | rank LIST, LIST = N or N-M, comma separated */
static int rank_block(struct tparse *p)
{
	const char *form = "expected 'rank all' or 'rank LIST' with LIST like 0-3,6";
	uint32_t n = p->exe->nranks;
	char *s, *save;

	if (p->ntok != 2)
		return perr(p, "%s", form);
	memset(p->in_block, 0, n);
	p->have_block = 1;
	if (!strcmp(p->tok[1], "all")) {
		memset(p->in_block, 1, n);
		return 0;
	}
	s = p->tok[1];
	for (char *part = strtok_r(s, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(part, '-');
		uint64_t a, b;

		if (dash)
			*dash = 0;
		if (parse_num(part, &a) || (dash && parse_num(dash + 1, &b)))
			return perr(p, "%s", form);
		if (!dash)
			b = a;
		if (a > b || b >= n)
			return perr(p, "rank %llu-%llu: allowed ranks 0..%u, low to high",
				    (unsigned long long)a, (unsigned long long)b, n - 1);
		for (uint64_t r = a; r <= b; r++)
			p->in_block[r] = 1;
	}
	return 0;
}

static int instruction(struct tparse *p)
{
	struct ccore_exe_insn in = { .line = p->line };
	const char *op = p->tok[0];
	int rc;

	if (!p->have_block)
		return perr(p, "'%s' outside a rank block; start one with 'rank LIST' or 'rank all'",
			    op);
	if (!strcmp(op, "compute")) {
		if (p->ntok != 2)
			return perr(p, "expected 'compute DURATION' (e.g. compute 20us)");
		in.op = CCORE_EXE_COMPUTE;
		rc = duration(p, p->tok[1], &in.duration_ns);
	} else if (!strcmp(op, "dma")) {
		if (p->ntok != 4)
			return perr(p, "expected 'dma SRC[+OFF] DST[+OFF] BYTES'");
		in.op = CCORE_EXE_DMA;
		rc = tensor_ref(p, "dma source", p->tok[1], &in.src, &in.src_offset);
		if (!rc)
			rc = tensor_ref(p, "dma destination", p->tok[2], &in.dst, &in.dst_offset);
		if (!rc)
			rc = num(p, "dma bytes", p->tok[3], UINT64_MAX, &in.bytes);
	} else {
		if (p->ntok != 2)
			return perr(p, "expected '%s COLLECTIVE'", op);
		in.op = !strcmp(op, "trigger") ? CCORE_EXE_TRIGGER : CCORE_EXE_WAIT;
		rc = find_coll(p, p->tok[1], &in.coll);
	}
	for (uint32_t r = 0; r < p->exe->nranks && !rc; r++)
		if (p->in_block[r] && ccore_exe_add_insn(p->exe, r, &in))
			return perr(p, "%s", ccore_last_error());
	return rc;
}

static int statement(struct tparse *p)
{
	const char *kw = p->tok[0];

	if (!strcmp(kw, "topology"))
		return topology(p);
	if (!p->exe)
		return perr(p, "'%s' before 'topology'; the description starts with 'topology nodes=N devices=N ranks-per-device=N'",
			    kw);
	if (!strcmp(kw, "tensor"))
		return tensor(p);
	if (!strcmp(kw, "collective"))
		return collective(p);
	if (!strcmp(kw, "rank"))
		return rank_block(p);
	if (!strcmp(kw, "compute") || !strcmp(kw, "dma") || !strcmp(kw, "trigger") ||
	    !strcmp(kw, "wait"))
		return instruction(p);
	return perr(p, "unknown statement '%s'; allowed: topology, tensor, collective, rank, compute, dma, trigger, wait",
		    kw);
}

/* Split @line (comments cut) into p->tok. */
static void tokenize(struct tparse *p, char *line)
{
	char *hash = strchr(line, '#'), *save;

	if (hash)
		*hash = 0;
	p->ntok = 0;
	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save))
		p->tok[p->ntok++] = t;
}

int ccore_exe_parse_text(const char *file, const char *text, size_t len, struct ccore_exe **out)
{
	struct tparse p = { .file = file };
	char *copy = malloc(len + 1), *line, *next;
	uint32_t bad_line = 0;
	int rc = 0;

	*out = NULL;
	p.tok = malloc(sizeof(char *) * (len / 2 + 2));
	if (!copy || !p.tok) {
		rc = ccore_error(-ENOMEM, "%s: out of memory", file);
		goto out;
	}
	memcpy(copy, text, len);
	copy[len] = 0;
	if (strlen(copy) != len) {
		p.line = 1;
		for (size_t i = 0; i < len && text[i]; i++)
			p.line += text[i] == '\n';
		rc = perr(&p, "a NUL byte; a description is text");
		goto out;
	}
	for (line = copy; line && !rc; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		p.line++;
		tokenize(&p, line);
		if (p.ntok)
			rc = statement(&p);
	}
	if (rc)
		goto out;
	if (!p.exe) {
		rc = ccore_error(-EINVAL, "%s: no 'topology' line; the description starts with 'topology nodes=N devices=N ranks-per-device=N'",
				 file);
		goto out;
	}
	rc = ccore_exe_validate(p.exe, &bad_line);
	if (rc) {
		/* ccore_error() formats apart: it may quote the last error whole */
		if (bad_line)
			ccore_error(rc, "%s:%u: %s", file, bad_line, ccore_last_error());
		else
			ccore_error(rc, "%s: %s", file, ccore_last_error());
	}
out:
	free(copy);
	free(p.tok);
	free(p.in_block);
	if (rc)
		ccore_exe_free(p.exe);
	else
		*out = p.exe;
	return rc;
}
