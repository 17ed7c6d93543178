// SPDX-License-Identifier: GPL-2.0
/*
 * The security boundary: nothing reaches a ring or a CC core's memory
 * without passing these checks.  Every rejection names the descriptor or
 * instruction index and the field, and says what is allowed.
 */
#include "ccm_verify.h"

/* --- descriptors -------------------------------------------------------- */

/*
 * An indexed ring moves [va, va + len) by up to (index_count - 1) *
 * index_stride; the ranges at the first and the last index, and the span
 * between, must be inside one buffer.  (The uAPI limits keep the product
 * inside an s64.)
 */
static const struct ccm_vm_map *find_span(const struct ccm_verify_ctx *c, u32 i,
					  const char *what, u64 va, u64 len, struct ccm_err *err)
{
	s64 ext = (s64)(c->index_count - 1) * c->index_stride;
	u64 mag = ext < 0 ? -(u64)ext : (u64)ext;
	u64 lo = ext < 0 ? va - mag : va;
	const struct ccm_vm_map *m = NULL;

	if ((ext >= 0 || va >= mag) && len <= ~0ull - mag)
		m = ccm_vm_find_any(c->vm, lo, mag + len);
	if (!m)
		ccm_fail(err, -EINVAL, i,
			 "descriptor %u: %s [0x%llx, +%llu) at indexes 0..%u (index_stride %lld) spans [0x%llx, +%llu), which is not inside one buffer this context owns or imported",
			 i, what, (unsigned long long)va, (unsigned long long)len,
			 c->index_count - 1, (long long)c->index_stride, (unsigned long long)lo,
			 (unsigned long long)(mag + len));
	return m;
}

/*
 * [va, va + len) as host bytes in *@host on device *@dev; on another host
 * (*@host NULL) its address there in *@remote, where @remote_ok (a COPY's
 * dst: only the NIC reaches it, and only by writing).
 */
static int map_range(const struct ccm_verify_ctx *c, u32 i, const char *what, u64 va,
		     u64 len, u8 **host, u16 *dev, u64 *remote, struct ccm_err *err)
{
	const struct ccm_vm_map *m;

	if (c->index_count > 1 && c->index_stride) {
		m = find_span(c, i, what, va, len, err);
		if (!m)
			return -EINVAL;
	} else {
		m = ccm_vm_find_any(c->vm, va, len);
		if (!m)
			return ccm_fail(err, -EINVAL, i,
					"descriptor %u: %s [0x%llx, +%llu) is not inside one buffer this context owns or imported",
					i, what, (unsigned long long)va, (unsigned long long)len);
	}
	*dev = (u16)m->dev;
	if (!m->host) {
		if (!remote)
			return ccm_fail(err, -EINVAL, i,
					"descriptor %u: %s is on device %u of another host; only a COPY's dst may be (the NIC writes there), so stage it in this host's memory",
					i, what, m->dev);
		*host = NULL;
		*remote = m->remote + (va - m->va);
		return 0;
	}
	*host = m->host + (va - m->va);
	return 0;
}

int ccm_verify_sem(const struct ccm_verify_ctx *c, u32 i, const char *kind,
		     const char *what, u32 ref, struct ccm_err *err)
{
	if (!ccm_sem_valid(c->f, ref))
		return ccm_fail(err, -EINVAL, i,
				"%s %u: %s 0x%08x names no semaphore (device %u core %u index %u)",
				kind, i, what, ref, DRM_CCORE_SEM_REF_DEV(ref),
				DRM_CCORE_SEM_REF_CORE(ref), DRM_CCORE_SEM_REF_IDX(ref));
	if (c->sem_owned && !c->sem_owned(c->owner, ref))
		return ccm_fail(err, -EACCES, i,
				"%s %u: %s 0x%08x is not a semaphore this context allocated",
				kind, i, what, ref);
	return 0;
}

int ccm_verify_insn_sem(const struct ccm_verify_ctx *c, u32 i, const char *what, u32 ref,
			struct ccm_err *err)
{
	int rc = ccm_verify_sem(c, i, "instruction", what, ref, err);

	if (!rc && ccm_dev_remote(c->f, DRM_CCORE_SEM_REF_DEV(ref)))
		return ccm_fail(err, -EINVAL, i,
				"instruction %u: %s 0x%08x is on device %u of another host; a program reaches another host's semaphores only through descriptors (SEM_WRITE, or a COPY's signal)",
				i, what, ref, DRM_CCORE_SEM_REF_DEV(ref));
	return rc;
}

static int desc_zero(u32 i, const char *op, const char *field, u64 v, struct ccm_err *err)
{
	if (v)
		return ccm_fail(err, -EINVAL, i, "descriptor %u: %s must be 0 for %s, got %llu",
				i, field, op, (unsigned long long)v);
	return 0;
}

static int desc_data(const struct ccm_verify_ctx *c, const struct drm_ccore_desc *d, u32 i,
		     struct ccm_hwdesc *out, struct ccm_err *err)
{
	bool reduce = d->op == DRM_CCORE_DESC_REDUCE, div = d->op == DRM_CCORE_DESC_DIV;
	const char *op = reduce ? "REDUCE" : div ? "DIV" : "COPY";
	u32 size = 1;
	u8 *p = NULL;
	int rc;

	if (d->len == 0)
		return ccm_fail(err, -EINVAL, i, "descriptor %u: len is 0; %s needs 1 or more bytes",
				i, op);
	if (d->flags & DRM_CCORE_DESC_F_SEM_SET)
		return ccm_fail(err, -EINVAL, i, "descriptor %u: flag SEM_SET is for SEM_WRITE only",
				i);
	if (div && (d->value == 0 || d->value > 0x80000000u))
		return ccm_fail(err, -EINVAL, i,
				"descriptor %u: DIV by %u; the divisor must be 1..2147483648", i,
				d->value);
	rc = div ? 0 : desc_zero(i, op, "value", d->value, err);
	if (rc)
		return rc;
	if (div) {
		size = ccm_dtype_size(d->dtype);
		if (!size)
			return ccm_fail(err, -EINVAL, i,
					"descriptor %u: unknown dtype %u (expected 1..10)", i, d->dtype);
		if (d->len % size)
			return ccm_fail(err, -EINVAL, i,
					"descriptor %u: len %llu is not a multiple of the %s size %u",
					i, (unsigned long long)d->len, ccm_dtype_name(d->dtype), size);
		rc = desc_zero(i, op, "redop", d->redop, err) ?:
		     desc_zero(i, op, "src1", d->src1, err);
		if (rc)
			return rc;
	} else if (reduce) {
		size = ccm_dtype_size(d->dtype);
		if (!size)
			return ccm_fail(err, -EINVAL, i,
					"descriptor %u: unknown dtype %u (expected 1..10)", i, d->dtype);
		if (d->redop < DRM_CCORE_REDOP_SUM || d->redop > DRM_CCORE_REDOP_MIN)
			return ccm_fail(err, -EINVAL, i,
					"descriptor %u: unknown redop %u (expected 1 sum, 2 prod, 3 max, 4 min)",
					i, d->redop);
		if (d->len % size)
			return ccm_fail(err, -EINVAL, i,
					"descriptor %u: len %llu is not a multiple of the %s size %u",
					i, (unsigned long long)d->len, ccm_dtype_name(d->dtype), size);
	} else {
		rc = desc_zero(i, op, "dtype", d->dtype, err) ?:
		     desc_zero(i, op, "redop", d->redop, err) ?:
		     desc_zero(i, op, "src1", d->src1, err);
		if (rc)
			return rc;
	}
	rc = map_range(c, i, "dst", d->dst, d->len, &out->dst, &out->dst_dev,
		       reduce || div ? NULL : &out->dst_remote, err);
	if (rc)
		return rc;
	rc = map_range(c, i, "src0", d->src0, d->len, &p, &out->src0_dev, NULL, err);
	if (rc)
		return rc;
	out->src0 = p;
	if (reduce) {
		rc = map_range(c, i, "src1", d->src1, d->len, &p, &out->src1_dev, NULL, err);
		if (rc)
			return rc;
		out->src1 = p;
	}
	return 0;
}

static int desc_sem_write(const struct ccm_verify_ctx *c, const struct drm_ccore_desc *d,
			  u32 i, struct ccm_hwdesc *out, struct ccm_err *err)
{
	const char *op = "SEM_WRITE";
	int rc;

	rc = desc_zero(i, op, "len", d->len, err) ?:
	     desc_zero(i, op, "src0", d->src0, err) ?:
	     desc_zero(i, op, "src1", d->src1, err) ?:
	     desc_zero(i, op, "dtype", d->dtype, err) ?:
	     desc_zero(i, op, "redop", d->redop, err) ?:
	     desc_zero(i, op, "dst bits 32..63", d->dst >> 32, err);
	if (rc)
		return rc;
	rc = ccm_verify_sem(c, i, "descriptor", "dst semaphore", (u32)d->dst, err);
	if (rc)
		return rc;
	out->sem_target = (u32)d->dst;
	out->dst_dev = (u16)c->dev;
	return 0;
}

/*
 * What the NIC carries (ccm_nic.c) is one message to one host: a COPY's
 * bytes with its signal there or here, or a SEM_WRITE there with its
 * signal here.
 */
static int remote_effects(const struct ccm_verify_ctx *c, const struct drm_ccore_desc *d, u32 i,
			  const struct ccm_hwdesc *out, struct ccm_err *err)
{
	bool sem_write = d->op == DRM_CCORE_DESC_SEM_WRITE;
	u32 to = sem_write ? DRM_CCORE_SEM_REF_DEV(out->sem_target) : out->dst_dev;
	bool signal = d->flags & DRM_CCORE_DESC_F_SIGNAL;
	u32 sdev = DRM_CCORE_SEM_REF_DEV(d->signal_sem);
	const struct ccm_config *cfg = ccm_fabric_config(c->f);

	if (!signal || !ccm_dev_remote(c->f, sdev))
		return 0;
	if (sem_write || !ccm_dev_remote(c->f, to) ||
	    to / cfg->devices_per_node != sdev / cfg->devices_per_node)
		return ccm_fail(err, -EINVAL, i,
				"descriptor %u: signal_sem 0x%08x is on device %u of another host; only a COPY to that host may signal there",
				i, d->signal_sem, sdev);
	return 0;
}

int ccm_desc_translate(const struct ccm_verify_ctx *c, const struct drm_ccore_desc *d,
		       u32 i, struct ccm_hwdesc *out, struct ccm_err *err)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (d->flags & ~DRM_CCORE_DESC_FLAGS)
		return ccm_fail(err, -EINVAL, i, "descriptor %u: unknown flags 0x%x (allowed 0x%x)",
				i, d->flags & ~DRM_CCORE_DESC_FLAGS, DRM_CCORE_DESC_FLAGS);
	switch (d->op) {
	case DRM_CCORE_DESC_COPY:
	case DRM_CCORE_DESC_REDUCE:
	case DRM_CCORE_DESC_DIV:
		rc = desc_data(c, d, i, out, err);
		break;
	case DRM_CCORE_DESC_SEM_WRITE:
		rc = desc_sem_write(c, d, i, out, err);
		break;
	default:
		return ccm_fail(err, -EINVAL, i,
				"descriptor %u: unknown op %u (expected 1 COPY, 2 REDUCE, 3 SEM_WRITE, 4 DIV)",
				i, d->op);
	}
	if (rc)
		return rc;
	if (d->flags & DRM_CCORE_DESC_F_SIGNAL) {
		rc = ccm_verify_sem(c, i, "descriptor", "signal_sem", d->signal_sem, err);
		if (rc)
			return rc;
	} else if (d->signal_sem || d->signal_value) {
		return ccm_fail(err, -EINVAL, i,
				"descriptor %u: signal_sem/signal_value set without the SIGNAL flag",
				i);
	}
	rc = remote_effects(c, d, i, out, err);
	if (rc)
		return rc;
	out->op = d->op;
	out->dtype = d->dtype;
	out->redop = d->redop;
	out->flags = d->flags;
	out->signal_sem = d->signal_sem;
	out->signal_value = d->signal_value;
	out->value = d->value;
	out->len = d->len;
	return 0;
}

/* --- programs ------------------------------------------------------------- */

bool ccm_insn_uses_sem(const struct drm_ccore_insn *in)
{
	switch (in->opcode) {
	case DRM_CCORE_OP_WAIT:
	case DRM_CCORE_OP_ACQUIRE:
	case DRM_CCORE_OP_SET:
	case DRM_CCORE_OP_ADD:
	case DRM_CCORE_OP_BGE:
		return in->sem != DRM_CCORE_SEM_TRIGGER;
	default:
		return false;
	}
}

bool ccm_insn_uses_ring(const struct drm_ccore_insn *in)
{
	return in->opcode == DRM_CCORE_OP_START || in->opcode == DRM_CCORE_OP_STARTI ||
	       in->opcode == DRM_CCORE_OP_RWAIT;
}

enum { F_REG = 1, F_ENGINE = 2, F_RING = 4, F_SEM = 8, F_IMM = 16, F_TARGET = 32 };

struct op_shape {
	const char *name;
	u8 fields;
};

static const struct op_shape shapes[] = {
	[DRM_CCORE_OP_NOP] = { "nop", 0 },
	[DRM_CCORE_OP_HALT] = { "halt", 0 },
	[DRM_CCORE_OP_WAIT] = { "wait", F_SEM | F_IMM },
	[DRM_CCORE_OP_ACQUIRE] = { "acquire", F_SEM | F_IMM },
	[DRM_CCORE_OP_SET] = { "set", F_SEM | F_IMM },
	[DRM_CCORE_OP_ADD] = { "add", F_SEM | F_IMM },
	[DRM_CCORE_OP_START] = { "start", F_ENGINE | F_RING | F_IMM },
	[DRM_CCORE_OP_RWAIT] = { "rwait", F_ENGINE | F_RING },
	[DRM_CCORE_OP_JUMP] = { "jump", F_TARGET },
	[DRM_CCORE_OP_BGE] = { "bge", F_SEM | F_IMM | F_TARGET },
	[DRM_CCORE_OP_MOVI] = { "movi", F_REG | F_IMM },
	[DRM_CCORE_OP_ADDI] = { "addi", F_REG | F_IMM },
	[DRM_CCORE_OP_LOOP] = { "loop", F_REG | F_TARGET },
	[DRM_CCORE_OP_CALL] = { "call", F_TARGET },
	[DRM_CCORE_OP_RET] = { "ret", 0 },
	[DRM_CCORE_OP_NEXT] = { "next", 0 },
	[DRM_CCORE_OP_NOTIFY] = { "notify", F_IMM },
	[DRM_CCORE_OP_STARTI] = { "starti", F_REG | F_ENGINE | F_RING | F_IMM },
};

int ccm_verify_unused_fields(u32 i, const char *op, u8 allowed,
			     const struct ccm_insn_field *fields, const u64 *vals, u32 n,
			     struct ccm_err *err)
{
	u32 k;

	for (k = 0; k < n; k++)
		if (!(allowed & fields[k].bit) && vals[k])
			return ccm_fail(err, -EINVAL, i,
					"instruction %u (%s): field %s must be 0, got %llu", i,
					op, fields[k].name, (unsigned long long)vals[k]);
	return 0;
}

static int unused_fields(const struct drm_ccore_insn *in, u32 i, const struct op_shape *s,
			 struct ccm_err *err)
{
	static const struct ccm_insn_field fields[] = {
		{ F_REG, "reg" }, { F_ENGINE, "engine" }, { F_RING, "ring" },
		{ F_SEM, "sem" }, { F_IMM, "imm" }, { F_TARGET, "target" },
	};
	const u64 vals[] = { in->reg, in->engine, in->ring, in->sem, in->imm, (u32)in->target };

	return ccm_verify_unused_fields(i, s->name, s->fields, fields, vals,
					CCM_ARRAY_SIZE(fields), err);
}

static int insn_sem(const struct ccm_verify_ctx *c, const struct drm_ccore_insn *in, u32 i,
		    const char *name, struct ccm_err *err)
{
	bool local = in->opcode != DRM_CCORE_OP_SET && in->opcode != DRM_CCORE_OP_ADD;

	if (in->sem == DRM_CCORE_SEM_TRIGGER || !c->f)
		return 0;
	if (local && (DRM_CCORE_SEM_REF_DEV(in->sem) != c->dev ||
		      DRM_CCORE_SEM_REF_CORE(in->sem) != c->core))
		return ccm_fail(err, -EINVAL, i,
				"instruction %u (%s): semaphore 0x%08x is not on this core (device %u core %u); %s waits on local semaphores only",
				i, name, in->sem, c->dev, c->core, name);
	return ccm_verify_insn_sem(c, i, "semaphore", in->sem, err);
}

static int insn_ring(const struct ccm_verify_ctx *c, const struct drm_ccore_insn *in, u32 i,
		     const char *name, struct ccm_err *err)
{
	const struct ccm_config *cfg;
	struct ccm_ring_stats st = { 0 };

	if (!c->f)
		return 0;
	cfg = ccm_fabric_config(c->f);
	if (in->engine >= cfg->engines || in->ring >= cfg->rings)
		return ccm_fail(err, -EINVAL, i,
				"instruction %u (%s): ring(%u,%u) out of range (engines 0..%u, rings 0..%u)",
				i, name, in->engine, in->ring, cfg->engines - 1, cfg->rings - 1);
	if (c->ring_owned && !c->ring_owned(c->owner, c->dev, c->core, in->engine, in->ring))
		return ccm_fail(err, -EACCES, i,
				"instruction %u (%s): ring(%u,%u) is not a ring this context created on core %u",
				i, name, in->engine, in->ring, c->core);
	if (in->opcode == DRM_CCORE_OP_RWAIT)
		return 0;
	if (in->imm == 0)
		return ccm_fail(err, -EINVAL, i,
				"instruction %u (%s): descriptor count is 0; expected 1 or more",
				i, name);
	/*
	 * A start costs the engine work per descriptor (the ring's lock held
	 * while it counts them): more than the ring holds would only replay
	 * it, 2^32 times at most.  The ring is the context's, and a loaded
	 * program keeps it, so its size holds while the program is loaded.
	 */
	if (ccm_ring_stats(c->f, c->dev, c->core, in->engine, in->ring, &st) || in->imm > st.size)
		return ccm_fail(err, -EINVAL, i,
				"instruction %u (%s): descriptor count %u is more than the %u slots of ring(%u,%u); expected 1..%u",
				i, name, in->imm, st.size, in->engine, in->ring, st.size);
	return 0;
}

static int insn_check(const struct ccm_verify_ctx *c, const struct drm_ccore_insn *in, u32 i,
		      u32 count, struct ccm_err *err)
{
	const struct op_shape *s;
	s64 to;
	int rc;

	if (in->opcode >= CCM_ARRAY_SIZE(shapes) || !shapes[in->opcode].name)
		return ccm_fail(err, -EINVAL, i, "instruction %u: unknown opcode 0x%02x", i,
				in->opcode);
	s = &shapes[in->opcode];
	if (in->opcode == DRM_CCORE_OP_NEXT)
		return ccm_fail(err, -EINVAL, i,
				"instruction %u: next is reserved for the resident firmware", i);
	rc = unused_fields(in, i, s, err);
	if (rc)
		return rc;
	if ((s->fields & F_REG) && in->reg >= DRM_CCORE_NUM_REGS)
		return ccm_fail(err, -EINVAL, i, "instruction %u (%s): register r%u (r0..r%u)", i,
				s->name, in->reg, DRM_CCORE_NUM_REGS - 1);
	if (s->fields & F_TARGET) {
		to = (s64)i + in->target;
		if (to < 0 || to >= count)
			return ccm_fail(err, -EINVAL, i,
					"instruction %u (%s): branch target %lld is outside the program (0..%u)",
					i, s->name, (long long)to, count - 1);
	}
	if (s->fields & F_SEM) {
		rc = insn_sem(c, in, i, s->name, err);
		if (rc)
			return rc;
	}
	if (s->fields & F_RING)
		return insn_ring(c, in, i, s->name, err);
	return 0;
}

int ccm_verify_program_size(const struct ccm_verify_ctx *c, const char *what, u32 count,
			    struct ccm_err *err)
{
	u32 max = c->f ? ccm_fabric_config(c->f)->max_program_size : 0;

	if (count == 0)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_INSN_COUNT, max,
				  "%s has no instructions", what);
	if (max && count > max)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_INSN_COUNT, max,
				  "%s of %u instructions exceeds the %u its memory holds", what,
				  count, max);
	return 0;
}

int ccm_program_verify(const struct ccm_verify_ctx *c, const struct drm_ccore_insn *insns,
		       u32 count, struct ccm_err *err)
{
	u32 i, last;
	int rc;

	rc = ccm_verify_program_size(c, "program", count, err);
	if (rc)
		return rc;
	for (i = 0; i < count; i++) {
		rc = insn_check(c, &insns[i], i, count, err);
		if (rc)
			return rc;
	}
	last = insns[count - 1].opcode;
	if (last != DRM_CCORE_OP_RET && last != DRM_CCORE_OP_HALT && last != DRM_CCORE_OP_JUMP)
		return ccm_fail(err, -EINVAL, count - 1,
				"instruction %u: program falls off its end; the last instruction must be ret, halt or jump",
				count - 1);
	return 0;
}
