// SPDX-License-Identifier: MIT
/*
 * Compute engines on the sim backend: a program is verified (the model's
 * ccm_compute_verify is the security boundary), what its DMA descriptors
 * reach is kept alive with the ring that carries them, and the model runs
 * it.  A wait that outlives the program's own timeout stops the engine and
 * the program fails with -ETIMEDOUT instead of hanging.
 */
#include "sim.h"

#include <stdlib.h>

#define SIM_COMPUTE_TIMEOUT_MAX_MS 3600000

/* A DMA instruction as the descriptor it became, for the ring's references. */
static struct drm_ccore_desc dma_desc(const struct drm_ccore_ce_insn *in)
{
	struct drm_ccore_desc d = {
		.op = DRM_CCORE_DESC_COPY, .len = in->len, .dst = in->dst, .src0 = in->src,
	};

	if (in->flags & DRM_CCORE_CE_F_SIGNAL) {
		d.flags = DRM_CCORE_DESC_F_SIGNAL;
		d.signal_sem = in->sem;
		d.signal_value = in->value;
	}
	return d;
}

static int pin_dma(struct sim_ctx *c, const struct drm_ccore_compute_submit *a,
		   const struct drm_ccore_ce_insn *insns)
{
	struct sim_ring *r = sim_ring_find(c, a->core, a->dma_engine, a->dma_ring);
	struct drm_ccore_desc d;
	u32 i;
	int rc;

	for (i = 0; r && i < a->count; i++) {
		if (insns[i].opcode != DRM_CCORE_CE_DMA)
			continue;
		d = dma_desc(&insns[i]);
		rc = sim_ring_refs(c, r, &d);
		if (rc)
			return ccore_error(rc, "COMPUTE_SUBMIT: out of memory");
	}
	return 0;
}

int sim_compute_submit(struct sim_ctx *c, struct drm_ccore_compute_submit *a)
{
	const struct ccm_config *cfg = ccm_fabric_config(c->sys->f);
	const struct drm_ccore_ce_insn *insns = (const void *)(uintptr_t)a->insns;
	struct ccm_verify_ctx v = {
		.f = c->sys->f, .dev = c->dev, .core = a->core, .vm = &c->vm,
		.sem_owned = sim_sem_usable, .ring_owned = sim_ring_owned, .owner = c,
	};
	struct ccm_err err = { .index = CCM_NO_INDEX };
	struct ccm_hwdesc *descs;
	u32 ndma = 0;
	int rc;

	a->bad_index = CCM_NO_INDEX;
	if (a->pad)
		return ccore_error(-EINVAL, "COMPUTE_SUBMIT: pad must be zero");
	if (a->flags)
		return ccore_error(-EINVAL, "COMPUTE_SUBMIT: unknown flags 0x%x (none are defined)",
				   a->flags);
	if (a->core >= cfg->cores)
		return ccore_error(-EINVAL, "COMPUTE_SUBMIT: core %u does not exist (0..%u)", a->core,
				   cfg->cores - 1);
	rc = sim_core_mine(c, DRM_IOCTL_CCORE_COMPUTE_SUBMIT, a->core);
	if (rc)
		return rc;
	if (a->timeout_ms > SIM_COMPUTE_TIMEOUT_MAX_MS)
		return ccore_error(-EINVAL, "COMPUTE_SUBMIT: timeout_ms %u out of range (1..%u ms, 0 = the default)",
				   a->timeout_ms, SIM_COMPUTE_TIMEOUT_MAX_MS);
	if (!insns)
		return ccore_error(-EFAULT, "COMPUTE_SUBMIT: insns pointer is NULL");
	if (a->count == 0 || a->count > cfg->max_program_size)
		return ccore_error(-EINVAL, "COMPUTE_SUBMIT: count %u out of range (1..%u instructions)",
				   a->count, cfg->max_program_size);
	descs = calloc(a->count, sizeof(*descs));
	if (!descs)
		return ccore_error(-ENOMEM, "COMPUTE_SUBMIT: out of memory");
	rc = ccm_compute_verify(&v, insns, a->count, a->dma_engine, a->dma_ring, descs, &ndma,
				&err);
	if (!rc && ndma)
		rc = pin_dma(c, a, insns);
	else if (rc)
		a->bad_index = err.index;
	if (!rc)
		rc = ccm_compute_submit(c->sys->f, c->dev, a->core, insns, a->count, a->dma_engine,
					a->dma_ring, descs, ndma, c, &err);
	free(descs);
	if (rc)
		return err.msg[0] ? sim_fail(DRM_IOCTL_CCORE_COMPUTE_SUBMIT, rc, &err) : rc;
	/* read by COMPUTE_WAIT without the lock */
	__atomic_store_n(&c->compute_deadline[a->core],
			 ccm_now_ns() + (s64)(a->timeout_ms ? a->timeout_ms : cfg->job_timeout_ms) *
					1000000,
			 __ATOMIC_RELAXED);
	return 0;
}

struct compute_ref {
	const struct ccm_fabric *f;
	u32 dev, core;
};

static bool compute_idle(void *p)
{
	const struct compute_ref *r = p;

	return ccm_compute_idle(r->f, r->dev, r->core);
}

int sim_compute_wait(struct sim_ctx *c, struct drm_ccore_compute_wait *a)
{
	struct ccm_fabric *f = c->sys->f;
	struct compute_ref ref = { .f = f, .dev = c->dev, .core = a->core };
	struct ccm_compute_info info;
	s64 deadline, own;
	int rc;

	if (a->core >= ccm_fabric_config(f)->cores)
		return ccore_error(-EINVAL, "COMPUTE_WAIT: core %u does not exist (0..%u)", a->core,
				   ccm_fabric_config(f)->cores - 1);
	ccm_compute_info(f, c->dev, a->core, &info);
	if (info.owner != c)
		return ccore_error(-ENOENT, "COMPUTE_WAIT: core %u's compute engine has run no program of this context",
				   a->core);
	own = __atomic_load_n(&c->compute_deadline[a->core], __ATOMIC_RELAXED);
	deadline = a->timeout_ns < own ? a->timeout_ns : own;
	rc = sim_wait(c, compute_idle, &ref, deadline, "COMPUTE_WAIT");
	if (rc == -EPIPE) {
		ccm_compute_abort(f, c->dev, a->core, c, -EPIPE);
		return rc;
	}
	if (rc && deadline == own && ccm_now_ns() >= own) {
		/* the program's own timeout: stop the engine, fail the program */
		ccm_compute_abort(f, c->dev, a->core, c, -ETIMEDOUT);
		rc = 0;
	}
	if (rc)
		return ccore_error(rc, "COMPUTE_WAIT: the program on core %u is still running at the deadline",
				   a->core);
	ccm_compute_info(f, c->dev, a->core, &info);
	a->status = info.status;
	a->insns = info.insns;
	a->busy_ns = info.busy_ns;
	a->dma_bytes = info.dma_bytes;
	a->start_ns = info.start_ps / 1000;
	a->end_ns = info.end_ps / 1000;
	return 0;
}
