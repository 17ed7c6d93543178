// SPDX-License-Identifier: MIT
/*
 * The validation rules of Documentation/executable.rst on an executable in
 * memory: topology, names, tensors, collectives (buffers, groups, stream),
 * instructions (ranges, references), then the trigger/wait order
 * (exe_order.c).  Every check is overflow safe: sizes are bounded before
 * they are multiplied or added.
 */
#include "exec/exe.h"
#include "exec/exe_names_index.h"
#include "ccore_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DTYPE ccore_f64
#define MAX_REDOP ccore_avg

static int fail_at(uint32_t *line, uint32_t at, int rc)
{
	if (line)
		*line = at;
	return rc;
}

static int valid_name(const char *s)
{
	size_t n = strnlen(s, CCORE_EXE_NAME_MAX + 1);

	if (n == 0 || n > CCORE_EXE_NAME_MAX)
		return 0;
	if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
		return 0;
	for (size_t i = 1; i < n; i++) {
		char c = s[i];

		if (!(c == '_' || c == '.' || c == '-' || (c >= 'a' && c <= 'z') ||
		      (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

/* A printable form of a name that failed valid_name(). */
static const char *shown(const char *s, char *buf, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size && i < CCORE_EXE_NAME_MAX + 1 && s[i]; i++)
		buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	buf[i] = 0;
	return buf;
}

#define NAME_RULE "1 to 63 characters, a letter or '_' then letters, digits, '_', '.' or '-'"

static int check_topology(const struct ccore_exe *exe)
{
	const struct ccore_topology *t = &exe->topo;
	uint64_t n = (uint64_t)t->nodes * t->devices_per_node * t->ranks_per_device;

	if (!t->nodes || !t->devices_per_node || !t->ranks_per_device)
		return ccore_error(-EINVAL, "topology: nodes %u, devices per node %u and ranks per device %u must each be 1 or more",
				   t->nodes, t->devices_per_node, t->ranks_per_device);
	if (t->ranks_per_device > CCORE_EXE_MAX_RANKS_PER_DEVICE)
		return ccore_error(-EINVAL, "topology: ranks per device %u; allowed 1..%u",
				   t->ranks_per_device, CCORE_EXE_MAX_RANKS_PER_DEVICE);
	if (n > CCORE_EXE_MAX_RANKS || n != exe->nranks)
		return ccore_error(-EINVAL, "topology: %u nodes x %u devices x %u ranks per device is %llu ranks, the executable has %u; allowed 1..%u",
				   t->nodes, t->devices_per_node, t->ranks_per_device,
				   (unsigned long long)n, exe->nranks, CCORE_EXE_MAX_RANKS);
	return 0;
}

static int dtype_ok(uint32_t d)
{
	return d >= 1 && d <= MAX_DTYPE;
}

static int check_tensor(const struct ccore_exe *exe, uint32_t i, uint32_t dup, uint32_t earlier)
{
	const struct ccore_exe_tensor *t = &exe->tensors[i];
	char buf[CCORE_EXE_NAME_MAX + 2];

	if (!valid_name(t->name))
		return ccore_error(-EINVAL, "tensor %u: name '%s' is not valid: " NAME_RULE,
				   i, shown(t->name, buf, sizeof(buf)));
	if (i == dup)
		return ccore_error(-EINVAL, "tensor %u (%s): the name is already tensor %u's; names must be unique",
				   i, t->name, earlier);
	if (t->bytes == 0 || t->bytes > CCORE_EXE_MAX_TENSOR_BYTES)
		return ccore_error(-EINVAL, "tensor %u (%s): bytes %llu; allowed 1..%llu",
				   i, t->name, (unsigned long long)t->bytes,
				   (unsigned long long)CCORE_EXE_MAX_TENSOR_BYTES);
	switch (t->init) {
	case CCORE_EXE_INIT_ZERO:
		if (t->dtype || t->redop)
			return ccore_error(-EINVAL, "tensor %u (%s): init zero takes no dtype or redop (dtype %u, redop %u given; allowed 0)",
					   i, t->name, t->dtype, t->redop);
		return 0;
	case CCORE_EXE_INIT_PATTERN:
		if (t->redop < 1 || t->redop > MAX_REDOP)
			return ccore_error(-EINVAL, "tensor %u (%s): init pattern redop %u; allowed 1..%u (sum, prod, max, min, avg)",
					   i, t->name, t->redop, MAX_REDOP);
		break;
	case CCORE_EXE_INIT_INDEX:
		if (t->redop)
			return ccore_error(-EINVAL, "tensor %u (%s): init index takes no redop (%u given; allowed 0)",
					   i, t->name, t->redop);
		break;
	default:
		return ccore_error(-EINVAL, "tensor %u (%s): init %u; allowed 0 (zero), 1 (pattern), 2 (index)",
				   i, t->name, t->init);
	}
	if (!dtype_ok(t->dtype))
		return ccore_error(-EINVAL, "tensor %u (%s): init %s dtype %u; allowed 1..%u (i8 .. f64)",
				   i, t->name, ccore_exe_init_name(t->init), t->dtype, MAX_DTYPE);
	if (t->bytes % ccore_dtype_size((enum ccore_dtype)t->dtype))
		return ccore_error(-EINVAL, "tensor %u (%s): bytes %llu is not a multiple of its init dtype %s's %zu",
				   i, t->name, (unsigned long long)t->bytes,
				   ccore_dtype_name((enum ccore_dtype)t->dtype),
				   ccore_dtype_size((enum ccore_dtype)t->dtype));
	return 0;
}

/* [@off, @off + @bytes) within tensor @t; @what names the buffer. */
static int check_range(const char *label, const char *what, const struct ccore_exe_tensor *t,
		       uint64_t off, uint64_t bytes)
{
	if (off > t->bytes || bytes > t->bytes - off)
		return ccore_error(-EINVAL, "%s: %s tensor '%s' offset %llu + %llu bytes exceeds its %llu bytes",
				   label, what, t->name, (unsigned long long)off,
				   (unsigned long long)bytes, (unsigned long long)t->bytes);
	return 0;
}

static int overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return a < b + bn && b < a + an;
}

static int needs_redop(uint32_t op)
{
	return op == ccore_op_allreduce || op == ccore_op_reducescatter || op == ccore_op_reduce;
}

static int check_groups(const struct ccore_exe *exe, const struct ccore_exe_coll *c,
			const char *label, uint8_t *seen)
{
	uint64_t n = (uint64_t)c->group_count * c->group_size;
	int rc = 0;

	if (!c->group_count || !c->group_size || n > exe->nranks)
		return ccore_error(-EINVAL, "%s: %u groups of %u ranks; each is allowed 1 or more, %u ranks in all at most",
				   label, c->group_count, c->group_size, exe->nranks);
	if (c->op == ccore_op_sendrecv && c->group_size != 2)
		return ccore_error(-EINVAL, "%s: sendrecv groups have %u ranks; allowed 2 (sender and receiver)",
				   label, c->group_size);
	for (uint64_t k = 0; k < n; k++) {
		uint32_t r = c->ranks[k];

		if (r >= exe->nranks) {
			rc = ccore_error(-EINVAL, "%s: group %llu has rank %u; allowed 0..%u",
					 label, (unsigned long long)(k / c->group_size), r, exe->nranks - 1);
			break;
		}
		if (seen[r]) {
			rc = ccore_error(-EINVAL, "%s: rank %u is in its groups twice (group %llu); a rank may be in one group at most",
					 label, r, (unsigned long long)(k / c->group_size));
			break;
		}
		seen[r] = 1;
	}
	/* clear what was set, not all ranks: O(group ranks) per collective */
	for (uint64_t k = 0; k < n && c->ranks[k] < exe->nranks; k++)
		seen[c->ranks[k]] = 0;
	return rc;
}

static int check_coll(const struct ccore_exe *exe, uint32_t i, uint8_t *seen, uint32_t dup,
		      uint32_t earlier)
{
	const struct ccore_exe_coll *c = &exe->colls[i];
	char label[CCORE_EXE_NAME_MAX + 32], buf[CCORE_EXE_NAME_MAX + 2];
	uint64_t sb, rb;
	int rc;

	if (!valid_name(c->name))
		return ccore_error(-EINVAL, "collective %u: name '%s' is not valid: " NAME_RULE,
				   i, shown(c->name, buf, sizeof(buf)));
	snprintf(label, sizeof(label), "collective %u (%s)", i, c->name);
	if (i == dup)
		return ccore_error(-EINVAL, "%s: the name is already collective %u's; names must be unique",
				   label, earlier);
	if (!ccore_exe_op_name(c->op))
		return ccore_error(-EINVAL, "%s: op %u; allowed 1..7 (allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv)",
				   label, c->op);
	if (!dtype_ok(c->dtype))
		return ccore_error(-EINVAL, "%s: dtype %u; allowed 1..%u (i8 .. f64)", label, c->dtype,
				   MAX_DTYPE);
	if (needs_redop(c->op) && (c->redop < 1 || c->redop > MAX_REDOP))
		return ccore_error(-EINVAL, "%s: %s redop %u; allowed 1..%u (sum, prod, max, min, avg)",
				   label, ccore_exe_op_name(c->op), c->redop, MAX_REDOP);
	if (!needs_redop(c->op) && c->redop)
		return ccore_error(-EINVAL, "%s: %s takes no redop (%u given; allowed 0)", label,
				   ccore_exe_op_name(c->op), c->redop);
	if (c->count == 0 || c->count > CCORE_EXE_MAX_TENSOR_BYTES)
		return ccore_error(-EINVAL, "%s: count %llu; allowed 1..%llu", label,
				   (unsigned long long)c->count,
				   (unsigned long long)CCORE_EXE_MAX_TENSOR_BYTES);
	if (c->stream >= CCORE_EXE_MAX_STREAMS)
		return ccore_error(-EINVAL, "%s: stream %u; allowed 0..%u", label, c->stream,
				   CCORE_EXE_MAX_STREAMS - 1);
	rc = check_groups(exe, c, label, seen);
	if (rc)
		return rc;
	if (c->op == ccore_op_broadcast || c->op == ccore_op_reduce) {
		if (c->root >= c->group_size)
			return ccore_error(-EINVAL, "%s: root %u; allowed 0..%u (a position in each group)",
					   label, c->root, c->group_size - 1);
	} else if (c->op == ccore_op_sendrecv) {
		if (c->root > 1)
			return ccore_error(-EINVAL, "%s: root %u (the sender's position); allowed 0 or 1",
					   label, c->root);
	} else if (c->root) {
		return ccore_error(-EINVAL, "%s: %s takes no root (%u given; allowed 0)", label,
				   ccore_exe_op_name(c->op), c->root);
	}
	if (c->send >= exe->ntensors)
		return ccore_error(-EINVAL, "%s: send tensor %u does not exist (%u tensors)", label,
				   c->send, exe->ntensors);
	if (c->recv >= exe->ntensors)
		return ccore_error(-EINVAL, "%s: recv tensor %u does not exist (%u tensors)", label,
				   c->recv, exe->ntensors);
	sb = ccore_exe_send_bytes(c);
	rb = ccore_exe_recv_bytes(c);
	rc = check_range(label, "send", &exe->tensors[c->send], c->send_offset, sb);
	if (!rc)
		rc = check_range(label, "recv", &exe->tensors[c->recv], c->recv_offset, rb);
	if (rc)
		return rc;
	if (c->send == c->recv && overlap(c->send_offset, sb, c->recv_offset, rb)) {
		int same = c->send_offset == c->recv_offset && sb == rb;
		int in_place_ok = c->op == ccore_op_allreduce || c->op == ccore_op_broadcast ||
				  c->op == ccore_op_reduce || c->op == ccore_op_sendrecv;

		if (!same || !in_place_ok)
			return ccore_error(-EINVAL, "%s: send [%llu, +%llu) and recv [%llu, +%llu) of tensor '%s' overlap; allowed: disjoint, or the same range (in place) for allreduce, broadcast, reduce and sendrecv",
					   label, (unsigned long long)c->send_offset,
					   (unsigned long long)sb,
					   (unsigned long long)c->recv_offset,
					   (unsigned long long)rb, exe->tensors[c->send].name);
	}
	return 0;
}

static int check_insn(const struct ccore_exe *exe, uint32_t r, uint32_t k)
{
	const struct ccore_exe_insn *in = &exe->ranks[r].insns[k];
	const char *name = ccore_exe_insn_name(in->op);
	char label[64];
	int rc;

	if (!name)
		return ccore_error(-EINVAL, "rank %u instruction %u: op %u; allowed 1..4 (compute, dma, trigger, wait)",
				   r, k, in->op);
	snprintf(label, sizeof(label), "rank %u instruction %u (%s)", r, k, name);
	switch (in->op) {
	case CCORE_EXE_COMPUTE:
		if (in->duration_ns == 0 || in->duration_ns > CCORE_EXE_MAX_COMPUTE_NS)
			return ccore_error(-EINVAL, "%s: duration %llu ns; allowed 1..%llu ns", label,
					   (unsigned long long)in->duration_ns,
					   (unsigned long long)CCORE_EXE_MAX_COMPUTE_NS);
		return 0;
	case CCORE_EXE_DMA:
		if (in->src >= exe->ntensors || in->dst >= exe->ntensors)
			return ccore_error(-EINVAL, "%s: %s tensor %u does not exist (%u tensors)",
					   label, in->src >= exe->ntensors ? "source" : "destination",
					   in->src >= exe->ntensors ? in->src : in->dst, exe->ntensors);
		if (in->bytes == 0)
			return ccore_error(-EINVAL, "%s: bytes 0; allowed 1 or more", label);
		rc = check_range(label, "source", &exe->tensors[in->src], in->src_offset, in->bytes);
		if (!rc)
			rc = check_range(label, "destination", &exe->tensors[in->dst], in->dst_offset,
					 in->bytes);
		if (rc)
			return rc;
		if (in->src == in->dst && overlap(in->src_offset, in->bytes, in->dst_offset, in->bytes))
			return ccore_error(-EINVAL, "%s: source [%llu, +%llu) and destination [%llu, +%llu) of tensor '%s' overlap; allowed: disjoint ranges",
					   label, (unsigned long long)in->src_offset,
					   (unsigned long long)in->bytes,
					   (unsigned long long)in->dst_offset,
					   (unsigned long long)in->bytes, exe->tensors[in->src].name);
		return 0;
	default:
		/* group membership: ccore_exe_check_order() */
		if (in->coll >= exe->ncolls)
			return ccore_error(-EINVAL, "%s: collective %u does not exist (%u collectives)",
					   label, in->coll, exe->ncolls);
		return 0;
	}
}

/* The first name of @n at @first (stride @stride) that repeats an earlier one. */
static int first_dup(const char *first, size_t stride, uint32_t n, uint32_t *dup,
		     uint32_t *earlier)
{
	struct exe_name_ref *refs = exe_names_sort(first, stride, n);

	if (!refs)
		return ccore_error(-ENOMEM, "validate: out of memory");
	*dup = exe_names_first_dup(refs, n, earlier);
	free(refs);
	return 0;
}

int ccore_exe_validate(const struct ccore_exe *exe, uint32_t *line)
{
	uint32_t dup = 0, earlier = 0;
	uint8_t *seen;
	int rc;

	if (line)
		*line = 0;
	rc = check_topology(exe);
	if (!rc && exe->ntensors)
		rc = first_dup(exe->tensors[0].name, sizeof(exe->tensors[0]), exe->ntensors, &dup,
			       &earlier);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < exe->ntensors; i++) {
		rc = check_tensor(exe, i, dup, earlier);
		if (rc)
			return fail_at(line, exe->tensors[i].line, rc);
	}
	if (exe->ncolls) {
		rc = first_dup(exe->colls[0].name, sizeof(exe->colls[0]), exe->ncolls, &dup, &earlier);
		if (rc)
			return rc;
	}
	seen = calloc(exe->nranks, 1);
	if (!seen)
		return ccore_error(-ENOMEM, "validate: out of memory");
	for (uint32_t i = 0; i < exe->ncolls && !rc; i++) {
		rc = check_coll(exe, i, seen, dup, earlier);
		if (rc)
			fail_at(line, exe->colls[i].line, rc);
	}
	free(seen);
	if (rc)
		return rc;
	for (uint32_t r = 0; r < exe->nranks; r++) {
		for (uint32_t k = 0; k < exe->ranks[r].ninsns; k++) {
			rc = check_insn(exe, r, k);
			if (rc)
				return fail_at(line, exe->ranks[r].insns[k].line, rc);
		}
	}
	return ccore_exe_check_order(exe, line);
}
