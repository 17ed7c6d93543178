// SPDX-License-Identifier: MIT
/*
 * Printing an executable as its text description, which
 * ccore_exe_parse_text() reads back into the same executable (and so
 * ccore_exe_save() into the same bytes).  Consecutive ranks with the same
 * instructions share one "rank A-B" block.
 */
#include "exec/exe.h"
#include "ccore_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
	char *s;
	size_t len, cap;
	int oom;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->s + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n >= o->cap - o->len) {
		size_t cap = (o->cap + (size_t)n + 1) * 2;
		char *s = realloc(o->s, cap);

		if (!s) {
			o->oom = 1;
			return;
		}
		o->s = s;
		o->cap = cap;
		va_start(ap, fmt);
		n = vsnprintf(o->s + o->len, o->cap - o->len, fmt, ap);
		va_end(ap);
	}
	if (n > 0)
		o->len += (size_t)n;
}

/* @v with the largest exact K, M or G suffix. */
static const char *size_str(uint64_t v, char *buf, size_t size)
{
	static const char suffix[] = "GMK";
	static const unsigned int shift[] = { 30, 20, 10 };

	for (int i = 0; i < 3; i++) {
		if (v && !(v & ((1ull << shift[i]) - 1))) {
			snprintf(buf, size, "%llu%c", (unsigned long long)(v >> shift[i]), suffix[i]);
			return buf;
		}
	}
	snprintf(buf, size, "%llu", (unsigned long long)v);
	return buf;
}

static const char *ref_str(const struct ccore_exe *exe, uint32_t t, uint64_t off, char *buf,
			   size_t size)
{
	char n[32];

	if (off)
		snprintf(buf, size, "%s+%s", exe->tensors[t].name, size_str(off, n, sizeof(n)));
	else
		snprintf(buf, size, "%s", exe->tensors[t].name);
	return buf;
}

static void print_tensor(struct out *o, const struct ccore_exe_tensor *t)
{
	char b[32];

	put(o, "tensor %s %s", t->name, size_str(t->bytes, b, sizeof(b)));
	if (t->init != CCORE_EXE_INIT_ZERO)
		put(o, " init=%s dtype=%s", ccore_exe_init_name(t->init),
		    ccore_dtype_name((enum ccore_dtype)t->dtype));
	if (t->redop)
		put(o, " redop=%s", ccore_redop_name((enum ccore_redop)t->redop));
	put(o, "\n");
}

static int is_all(const struct ccore_exe *exe, const struct ccore_exe_coll *c)
{
	if (c->group_count != 1 || c->group_size != exe->nranks)
		return 0;
	for (uint32_t r = 0; r < exe->nranks; r++)
		if (c->ranks[r] != r)
			return 0;
	return 1;
}

static void print_coll(struct out *o, const struct ccore_exe *exe, const struct ccore_exe_coll *c)
{
	char b[32], rs[CCORE_EXE_NAME_MAX + 32], rr[CCORE_EXE_NAME_MAX + 32];

	put(o, "collective %s %s dtype=%s count=%s", c->name, ccore_exe_op_name(c->op),
	    ccore_dtype_name((enum ccore_dtype)c->dtype), size_str(c->count, b, sizeof(b)));
	if (c->redop)
		put(o, " redop=%s", ccore_redop_name((enum ccore_redop)c->redop));
	if (c->op == ccore_op_broadcast || c->op == ccore_op_reduce || c->op == ccore_op_sendrecv)
		put(o, " root=%u", c->root);
	put(o, " stream=%u send=%s recv=%s groups=", c->stream,
	    ref_str(exe, c->send, c->send_offset, rs, sizeof(rs)),
	    ref_str(exe, c->recv, c->recv_offset, rr, sizeof(rr)));
	if (is_all(exe, c)) {
		put(o, "all\n");
		return;
	}
	put(o, "{");
	for (uint32_t g = 0; g < c->group_count; g++) {
		put(o, "%s{", g ? "," : "");
		for (uint32_t i = 0; i < c->group_size; i++)
			put(o, "%s%u", i ? "," : "", c->ranks[(uint64_t)g * c->group_size + i]);
		put(o, "}");
	}
	put(o, "}\n");
}

static void print_insn(struct out *o, const struct ccore_exe *exe, const struct ccore_exe_insn *in)
{
	static const struct { const char *unit; uint64_t scale; } units[] = {
		{ "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 }, { "ns", 1 },
	};
	char b[32], rs[CCORE_EXE_NAME_MAX + 32], rd[CCORE_EXE_NAME_MAX + 32];

	switch (in->op) {
	case CCORE_EXE_COMPUTE:
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			if (in->duration_ns % units[i].scale == 0) {
				put(o, "  compute %llu%s\n",
				    (unsigned long long)(in->duration_ns / units[i].scale), units[i].unit);
				break;
			}
		}
		break;
	case CCORE_EXE_DMA:
		put(o, "  dma %s %s %s\n", ref_str(exe, in->src, in->src_offset, rs, sizeof(rs)),
		    ref_str(exe, in->dst, in->dst_offset, rd, sizeof(rd)),
		    size_str(in->bytes, b, sizeof(b)));
		break;
	default:
		put(o, "  %s %s\n", ccore_exe_insn_name(in->op), exe->colls[in->coll].name);
		break;
	}
}

static int same_insn(const struct ccore_exe_insn *a, const struct ccore_exe_insn *b)
{
	if (a->op != b->op)
		return 0;
	switch (a->op) {
	case CCORE_EXE_COMPUTE:
		return a->duration_ns == b->duration_ns;
	case CCORE_EXE_DMA:
		return a->src == b->src && a->dst == b->dst && a->src_offset == b->src_offset &&
		       a->dst_offset == b->dst_offset && a->bytes == b->bytes;
	default:
		return a->coll == b->coll;
	}
}

static int same_stream(const struct ccore_exe_rank *a, const struct ccore_exe_rank *b)
{
	if (a->ninsns != b->ninsns)
		return 0;
	for (uint32_t k = 0; k < a->ninsns; k++)
		if (!same_insn(&a->insns[k], &b->insns[k]))
			return 0;
	return 1;
}

int ccore_exe_print_text(const struct ccore_exe *exe, char **text)
{
	struct out o = { 0 };

	*text = NULL;
	o.cap = 4096;
	o.s = malloc(o.cap);
	if (!o.s)
		return ccore_error(-ENOMEM, "print: out of memory");
	put(&o, "# ccore executable, format %u.%u: %u ranks, %u tensors, %u collectives\n",
	    CCORE_EXE_VERSION_MAJOR, CCORE_EXE_VERSION_MINOR, exe->nranks, exe->ntensors,
	    exe->ncolls);
	put(&o, "topology nodes=%u devices=%u ranks-per-device=%u\n", exe->topo.nodes,
	    exe->topo.devices_per_node, exe->topo.ranks_per_device);
	if (exe->ntensors)
		put(&o, "\n");
	for (uint32_t i = 0; i < exe->ntensors; i++)
		print_tensor(&o, &exe->tensors[i]);
	if (exe->ncolls)
		put(&o, "\n");
	for (uint32_t i = 0; i < exe->ncolls; i++)
		print_coll(&o, exe, &exe->colls[i]);
	for (uint32_t r = 0, end; r < exe->nranks; r = end) {
		for (end = r + 1; end < exe->nranks; end++)
			if (!same_stream(&exe->ranks[r], &exe->ranks[end]))
				break;
		if (!exe->ranks[r].ninsns)
			continue;
		if (end - r == exe->nranks)
			put(&o, "\nrank all\n");
		else if (end - r > 1)
			put(&o, "\nrank %u-%u\n", r, end - 1);
		else
			put(&o, "\nrank %u\n", r);
		for (uint32_t k = 0; k < exe->ranks[r].ninsns; k++)
			print_insn(&o, exe, &exe->ranks[r].insns[k]);
	}
	if (o.oom) {
		free(o.s);
		return ccore_error(-ENOMEM, "print: out of memory");
	}
	*text = o.s;
	return 0;
}
