// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of compute-engine programs, part of the security boundary
 * (ccm_verify.c has the descriptors and CC programs): every address a DMA
 * instruction names must lie inside one buffer the context owns or
 * imported, every semaphore must be one it may use, every CC core one of
 * the engine's own core.  DMA instructions are translated into the
 * descriptors their ring will hold.  Rejections name the instruction, its
 * opcode and the field, and say what is allowed.
 */
#include "ccm_verify.h"

enum { CE_SEM = 1, CE_VALUE = 2, CE_CC = 4, CE_DURATION = 8, CE_DMA = 16, CE_FLAGS = 32 };

struct ce_shape {
	const char *name;
	u8 fields;
};

static const struct ce_shape ce_shapes[] = {
	[DRM_CCORE_CE_COMPUTE] = { "compute", CE_DURATION },
	[DRM_CCORE_CE_DMA] = { "dma", CE_DMA | CE_FLAGS | CE_SEM | CE_VALUE },
	[DRM_CCORE_CE_TRIGGER] = { "trigger", CE_CC },
	[DRM_CCORE_CE_WAIT_SEM] = { "wait_sem", CE_SEM | CE_VALUE },
	[DRM_CCORE_CE_END] = { "end", 0 },
};

static int ce_unused(const struct drm_ccore_ce_insn *in, u32 i, const struct ce_shape *s,
		     struct ccm_err *err)
{
	static const struct ccm_insn_field fields[] = {
		{ CE_FLAGS, "flags" }, { CE_SEM, "sem" }, { CE_VALUE, "value" },
		{ CE_CC, "cc_core" }, { CE_DURATION, "duration_ns" }, { CE_DMA, "len" },
		{ CE_DMA, "dst" }, { CE_DMA, "src" },
	};
	const u64 vals[] = { in->flags, in->sem, in->value, in->cc_core, in->duration_ns,
			     in->len, in->dst, in->src };

	if (in->pad)
		return ccm_fail(err, -EINVAL, i, "instruction %u (%s): pad must be 0, got %u", i,
				s->name, in->pad);
	return ccm_verify_unused_fields(i, s->name, s->fields, fields, vals,
					CCM_ARRAY_SIZE(fields), err);
}

static int ce_map(const struct ccm_verify_ctx *c, u32 i, const char *what, u64 va, u64 len,
		  u8 **host, u16 *dev, struct ccm_err *err)
{
	const struct ccm_vm_map *m = ccm_vm_find(c->vm, va, len);
	const struct ccm_vm_map *far = m ? NULL : ccm_vm_find_any(c->vm, va, len);

	/* the NIC carries only descriptors: the compute engine's DMA stays here */
	if (far)
		return ccm_fail(err, -EINVAL, i,
				"instruction %u (dma): %s [0x%llx, +%llu) is on device %u of another host; a compute DMA reaches only this host's memory",
				i, what, (unsigned long long)va, (unsigned long long)len, far->dev);
	if (!m)
		return ccm_fail(err, -EINVAL, i,
				"instruction %u (dma): %s [0x%llx, +%llu) is not inside one buffer this context owns or imported",
				i, what, (unsigned long long)va, (unsigned long long)len);
	*host = m->host + (va - m->va);
	*dev = (u16)m->dev;
	return 0;
}

/* A DMA instruction becomes a COPY descriptor (signalling if asked). */
static int ce_dma(const struct ccm_verify_ctx *c, const struct drm_ccore_ce_insn *in, u32 i,
		  struct ccm_hwdesc *out, struct ccm_err *err)
{
	u8 *src = NULL;
	int rc;

	if (in->flags & ~DRM_CCORE_CE_F_SIGNAL)
		return ccm_fail(err, -EINVAL, i,
				"instruction %u (dma): unknown flags 0x%x (allowed 0x%x SIGNAL)", i,
				in->flags & ~DRM_CCORE_CE_F_SIGNAL, DRM_CCORE_CE_F_SIGNAL);
	if (in->len == 0)
		return ccm_fail(err, -EINVAL, i, "instruction %u (dma): len is 0; expected 1 or more bytes",
				i);
	if (!(in->flags & DRM_CCORE_CE_F_SIGNAL) && (in->sem || in->value))
		return ccm_fail(err, -EINVAL, i,
				"instruction %u (dma): sem/value set without the SIGNAL flag", i);
	if ((in->flags & DRM_CCORE_CE_F_SIGNAL) && c->f) {
		rc = ccm_verify_insn_sem(c, i, "signal sem", in->sem, err);
		if (rc)
			return rc;
	}
	if (!c->vm || !out)
		return 0;
	memset(out, 0, sizeof(*out));
	rc = ce_map(c, i, "dst", in->dst, in->len, &out->dst, &out->dst_dev, err) ?:
	     ce_map(c, i, "src", in->src, in->len, &src, &out->src0_dev, err);
	if (rc)
		return rc;
	out->src0 = src;
	out->op = DRM_CCORE_DESC_COPY;
	out->len = in->len;
	if (in->flags & DRM_CCORE_CE_F_SIGNAL) {
		out->flags = DRM_CCORE_DESC_F_SIGNAL;
		out->signal_sem = in->sem;
		out->signal_value = in->value;
	}
	return 0;
}

static int ce_wait_sem(const struct ccm_verify_ctx *c, const struct drm_ccore_ce_insn *in,
		       u32 i, struct ccm_err *err)
{
	if (!c->f)
		return 0;
	if (DRM_CCORE_SEM_REF_DEV(in->sem) != c->dev || DRM_CCORE_SEM_REF_CORE(in->sem) != c->core)
		return ccm_fail(err, -EINVAL, i,
				"instruction %u (wait_sem): semaphore 0x%08x is not on this core (device %u core %u); a compute engine waits on its own core's semaphores",
				i, in->sem, c->dev, c->core);
	return ccm_verify_insn_sem(c, i, "semaphore", in->sem, err);
}

static int ce_trigger(const struct ccm_verify_ctx *c, const struct drm_ccore_ce_insn *in,
		      u32 i, struct ccm_err *err)
{
	u32 per;

	if (!c->f)
		return 0;
	per = ccm_fabric_config(c->f)->cc_cores;
	if (in->cc_core / per != c->core)
		return ccm_fail(err, -EINVAL, i,
				"instruction %u (trigger): CC core %u is not one of core %u's (%u..%u); a compute engine triggers its own core's CC cores",
				i, in->cc_core, c->core, c->core * per, c->core * per + per - 1);
	return 0;
}

static int ce_check(const struct ccm_verify_ctx *c, const struct drm_ccore_ce_insn *in, u32 i,
		    struct ccm_hwdesc *desc, struct ccm_err *err)
{
	const struct ce_shape *s;
	int rc;

	if (in->opcode >= CCM_ARRAY_SIZE(ce_shapes) || !ce_shapes[in->opcode].name)
		return ccm_fail(err, -EINVAL, i,
				"instruction %u: unknown opcode %u (expected 1 compute, 2 dma, 3 trigger, 4 wait_sem, 5 end)",
				i, in->opcode);
	s = &ce_shapes[in->opcode];
	rc = ce_unused(in, i, s, err);
	if (rc)
		return rc;
	switch (in->opcode) {
	case DRM_CCORE_CE_COMPUTE:
		if (in->duration_ns == 0 || in->duration_ns > CCM_CE_MAX_DURATION_NS)
			return ccm_fail(err, -EINVAL, i,
					"instruction %u (compute): duration_ns %llu out of range (1..%llu)",
					i, (unsigned long long)in->duration_ns,
					CCM_CE_MAX_DURATION_NS);
		return 0;
	case DRM_CCORE_CE_DMA:
		return ce_dma(c, in, i, desc, err);
	case DRM_CCORE_CE_TRIGGER:
		return ce_trigger(c, in, i, err);
	case DRM_CCORE_CE_WAIT_SEM:
		return ce_wait_sem(c, in, i, err);
	default:
		return 0;
	}
}

static int ce_ring(const struct ccm_verify_ctx *c, u32 engine, u32 ring, u32 first_dma,
		   struct ccm_err *err)
{
	const struct ccm_config *cfg;

	if (!c->f)
		return 0;
	cfg = ccm_fabric_config(c->f);
	if (engine >= cfg->engines || ring >= cfg->rings)
		return ccm_fail(err, -EINVAL, first_dma,
				"instruction %u (dma): the DMA ring(%u,%u) does not exist (engines 0..%u, rings 0..%u)",
				first_dma, engine, ring, cfg->engines - 1, cfg->rings - 1);
	if (c->ring_owned && !c->ring_owned(c->owner, c->dev, c->core, engine, ring))
		return ccm_fail(err, -EACCES, first_dma,
				"instruction %u (dma): the DMA ring(%u,%u) is not a ring this context created on core %u",
				first_dma, engine, ring, c->core);
	return 0;
}

int ccm_compute_verify(const struct ccm_verify_ctx *c, const struct drm_ccore_ce_insn *insns,
		       u32 count, u32 engine, u32 ring, struct ccm_hwdesc *descs, u32 *ndma,
		       struct ccm_err *err)
{
	u32 i, n = 0, first_dma = CCM_NO_INDEX;
	int rc;

	*ndma = 0;
	rc = ccm_verify_program_size(c, "compute program", count, err);
	if (rc)
		return rc;
	for (i = 0; i < count; i++) {
		bool dma = insns[i].opcode == DRM_CCORE_CE_DMA;

		rc = ce_check(c, &insns[i], i, dma && descs ? &descs[n] : NULL, err);
		if (rc)
			return rc;
		if (dma && n++ == 0)
			first_dma = i;
	}
	if (insns[count - 1].opcode != DRM_CCORE_CE_END)
		return ccm_fail(err, -EINVAL, count - 1,
				"instruction %u: compute program falls off its end; the last instruction must be end",
				count - 1);
	if (n) {
		rc = ce_ring(c, engine, ring, first_dma, err);
		if (rc)
			return rc;
	} else if (engine || ring) {
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"dma_engine %u and dma_ring %u must be 0: the program has no dma instruction",
				engine, ring);
	}
	*ndma = n;
	return 0;
}
