// SPDX-License-Identifier: GPL-2.0
/*
 * Compute engines: one per logical core runs one compute program at a
 * time (see the device model, model/ccm_compute.c).  A program is verified
 * before it runs; what its DMA descriptors reach stays referenced by the
 * ring that carries them.  The program's own timeout is enforced by
 * COMPUTE_WAIT (the engine is stopped, the program fails with
 * -ETIMEDOUT), and closing the file stops a program it still runs.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "ccore_drv.h"

/* A compute program runs an hour at most, as a job does. */
#define CCORE_COMPUTE_TIMEOUT_MAX_MS 3600000

/* A DMA instruction as the descriptor it becomes, for the ring's references. */
static void dma_desc(const struct drm_ccore_ce_insn *in, struct drm_ccore_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->op = DRM_CCORE_DESC_COPY;
	d->len = in->len;
	d->dst = in->dst;
	d->src0 = in->src;
	if (in->flags & DRM_CCORE_CE_F_SIGNAL) {
		d->flags = DRM_CCORE_DESC_F_SIGNAL;
		d->signal_sem = in->sem;
		d->signal_value = in->value;
	}
}

/* Called with hw->lock held. */
static int submit_locked(struct ccore_device *cdev, struct ccore_file *cfile,
			 struct drm_ccore_compute_submit *a,
			 const struct drm_ccore_ce_insn *insns, struct ccm_hwdesc *descs,
			 struct ccm_err *err)
{
	struct ccore_hw *hw = cdev->hw;
	struct ccm_verify_ctx v = {
		.dev = cdev->index, .core = a->core, .vm = &cfile->vm,
		.sem_owned = ccore_sem_usable, .ring_owned = ccore_ring_owned, .owner = cfile,
	};
	struct drm_ccore_desc d;
	struct ccore_ring *r;
	u32 ndma, i;
	int rc;

	rc = hw->ops->compute_verify(hw, &v, insns, a->count, a->dma_engine, a->dma_ring, descs,
				     &ndma, err);
	if (rc)
		return rc;
	r = ndma ? ccore_ring_find(cfile, a->core, a->dma_engine, a->dma_ring) : NULL;
	for (i = 0; r && i < a->count; i++) {
		if (insns[i].opcode != DRM_CCORE_CE_DMA)
			continue;
		dma_desc(&insns[i], &d);
		rc = ccore_ring_refs(cfile, r, &d);
		if (rc)
			return rc;
	}
	return hw->ops->compute_submit(hw, cdev->index, a->core, insns, a->count, a->dma_engine,
				       a->dma_ring, descs, ndma, cfile, err);
}

int ccore_ioctl_compute_submit(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_compute_submit *a = data;
	struct ccm_err err = { .index = CCM_NO_INDEX };
	struct ccore_hw *hw = cdev->hw;
	struct drm_ccore_ce_insn *insns;
	struct ccm_hwdesc *descs;
	u32 timeout_ms;
	int rc;

	a->bad_index = CCM_NO_INDEX;
	if (a->pad || a->flags || a->core >= hw->cfg.cores ||
	    a->timeout_ms > CCORE_COMPUTE_TIMEOUT_MAX_MS)
		return -EINVAL;
	if (!a->count || a->count > hw->cfg.max_program_size)
		return -EINVAL;
	insns = vmemdup_array_user(u64_to_user_ptr(a->insns), a->count, sizeof(*insns));
	if (IS_ERR(insns))
		return PTR_ERR(insns);
	descs = kvcalloc(a->count, sizeof(*descs), GFP_KERNEL);
	if (!descs) {
		kvfree(insns);
		return -ENOMEM;
	}
	timeout_ms = a->timeout_ms ? a->timeout_ms : hw->cfg.job_timeout_ms;
	mutex_lock(&hw->lock);
	rc = submit_locked(cdev, cfile, a, insns, descs, &err);
	if (!rc)
		WRITE_ONCE(cdev->compute_deadline[a->core],
			   ktime_get_ns() + (s64)timeout_ms * NSEC_PER_MSEC);
	mutex_unlock(&hw->lock);
	kvfree(descs);
	kvfree(insns);
	if (rc) {
		a->bad_index = err.index;
		return ccore_reject(file, "COMPUTE_SUBMIT", rc, &err);
	}
	hw->ops->kick(hw);
	return 0;
}

struct compute_wait_arg {
	struct ccore_hw *hw;
	u32 dev, core;
};

static bool compute_ended(void *p)
{
	struct compute_wait_arg *w = p;

	return w->hw->ops->compute_idle(w->hw, w->dev, w->core) || signal_pending(current);
}

int ccore_ioctl_compute_wait(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_compute_wait *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct compute_wait_arg w = { .hw = hw, .dev = cdev->index, .core = a->core };
	struct ccm_compute_info info;
	s64 own, deadline;
	int rc;

	if (a->core >= hw->cfg.cores)
		return -EINVAL;
	hw->ops->compute_info(hw, cdev->index, a->core, &info);
	if (info.owner != cfile)
		return -ENOENT;
	own = READ_ONCE(cdev->compute_deadline[a->core]);
	/* a deadline before the epoch is just past */
	deadline = min_t(s64, max_t(s64, a->timeout_ns, 0), own);
	rc = hw->ops->wait(hw, compute_ended, &w, deadline);
	/* a signal also ends the wait, with the program still running */
	if (!hw->ops->compute_idle(hw, cdev->index, a->core)) {
		if (signal_pending(current))
			return -ERESTARTSYS;
		if (deadline < own || ktime_get_ns() < own)
			return rc ?: -ETIMEDOUT;
		/* the program's own timeout: stop the engine, fail the program */
		hw->ops->compute_abort(hw, cdev->index, a->core, cfile, -ETIMEDOUT);
	}
	hw->ops->compute_info(hw, cdev->index, a->core, &info);
	a->status = info.status;
	a->insns = info.insns;
	a->busy_ns = info.busy_ns;
	a->dma_bytes = info.dma_bytes;
	a->start_ns = div_u64(info.start_ps, 1000);
	a->end_ns = div_u64(info.end_ps, 1000);
	return 0;
}

/* At close no program of the file may keep running: its rings go next. */
void ccore_compute_fini(struct ccore_file *cfile)
{
	struct ccore_device *cdev = cfile->cdev;
	struct ccore_hw *hw = cdev->hw;
	u32 core;

	for (core = 0; core < hw->cfg.cores; core++)
		hw->ops->compute_abort(hw, cdev->index, core, cfile, -ECANCELED);
}
