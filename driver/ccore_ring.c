// SPDX-License-Identifier: GPL-2.0
/*
 * DMA rings.  A ring belongs to the file that created it.  Submission
 * validates and translates every descriptor before writing any: a
 * descriptor may touch only memory in the file's address space (its own
 * buffers and those imported through dma-buf) and semaphores it allocated
 * or imported.  The ring keeps every buffer its descriptors reach alive
 * until it is destroyed, so memory never goes while an engine may use it.
 */
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <drm/drm_gem.h>

#include "ccore_drv.h"

bool ccore_ring_owned(void *owner, u32 dev, u32 core, u32 engine, u32 ring)
{
	struct ccore_file *cfile = owner;
	struct ccore_hw *hw = cfile->cdev->hw;

	return hw->ops->ring_owner(hw, dev, core, engine, ring) == cfile;
}

int ccore_ioctl_ring_create(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_ring_create *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	struct ccore_ring *r;
	u32 psize = a->packet_size;
	int rc;

	rc = ccm_uapi_ring_create(a, &err);
	if (rc)
		return ccore_reject(file, "RING_CREATE", rc, &err);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	mutex_lock(&hw->lock);
	if (!psize)
		psize = hw->ops->packet_size(hw, cdev->index, a->flags & DRM_CCORE_RING_F_COMPUTE);
	rc = hw->ops->ring_claim(hw, cdev->index, a->core, a->engine, a->ring, a->size, psize,
				 a->index_stride, a->index_count, cfile, &err);
	if (rc) {
		mutex_unlock(&hw->lock);
		kfree(r);
		return ccore_reject(file, "RING_CREATE", rc, &err);
	}
	ccm_uapi_ring_init(&r->u, a);
	rc = xa_alloc(&cfile->rings, &a->handle, r, xa_limit_32b, GFP_KERNEL);
	if (rc) {
		hw->ops->ring_release(hw, cdev->index, a->core, a->engine, a->ring, &err);
		kfree(r);
	}
	mutex_unlock(&hw->lock);
	return rc;
}

static void ring_free(struct ccore_ring *r)
{
	u32 i;

	for (i = 0; i < r->nbos; i++)
		drm_gem_object_put(r->bos[i]);
	kvfree(r->bos);
	kfree(r);
}

int ccore_ioctl_ring_destroy(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_ring_destroy *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	struct ccore_ring *r;
	int rc;

	mutex_lock(&hw->lock);
	r = xa_load(&cfile->rings, a->handle);
	rc = ccm_uapi_ring_destroy(a, r ? &r->u : NULL, &err) ?:
	     hw->ops->ring_release(hw, cdev->index, r->u.core, r->u.engine, r->u.ring, &err);
	if (rc) {
		rc = ccore_reject(file, "RING_DESTROY", rc, &err);
	} else {
		xa_erase(&cfile->rings, a->handle);
		ccore_sem_unpin_all(hw, &r->sems);
	}
	mutex_unlock(&hw->lock);
	if (!rc)
		ring_free(r);
	return rc;
}

/* The file's ring @core/@engine/@ring, or NULL; called with hw->lock held. */
struct ccore_ring *ccore_ring_find(struct ccore_file *cfile, u32 core, u32 engine, u32 ring)
{
	struct ccore_ring *r;
	unsigned long h;

	xa_for_each(&cfile->rings, h, r)
		if (ccm_uapi_ring_is(&r->u, core, engine, ring))
			return r;
	return NULL;
}

/* Remember that @r reaches the object behind [va, va + len). */
static int ring_ref(struct ccore_file *cfile, struct ccore_ring *r, u64 va, u64 len)
{
	const struct ccm_vm_map *m = ccm_vm_find(&cfile->vm, va, len);
	struct drm_gem_object **bos;
	u32 i;

	/* another host's memory (a remote mapping) is not found: no object here */
	if (!m || !m->bo)
		return 0;
	for (i = 0; i < r->nbos; i++)
		if (r->bos[i] == m->bo)
			return 0;
	if (r->nbos == r->cap) {
		bos = kvrealloc(r->bos, (r->cap ? r->cap * 2 : 8) * sizeof(*bos), GFP_KERNEL);
		if (!bos)
			return -ENOMEM;
		r->bos = bos;
		r->cap = r->cap ? r->cap * 2 : 8;
	}
	r->bos[r->nbos++] = m->bo;
	drm_gem_object_get(m->bo);
	return 0;
}

/* What a checked descriptor reaches stays until the ring goes. */
int ccore_ring_refs(struct ccore_file *cfile, struct ccore_ring *r,
		    const struct drm_ccore_desc *d)
{
	struct ccore_hw *hw = cfile->cdev->hw;
	int rc = 0;

	if (d->flags & DRM_CCORE_DESC_F_SIGNAL)
		rc = ccore_sem_pin(hw, &r->sems, d->signal_sem);
	if (d->op == DRM_CCORE_DESC_SEM_WRITE)
		return rc ?: ccore_sem_pin(hw, &r->sems, (u32)d->dst);
	return rc ?: ring_ref(cfile, r, d->dst, d->len) ?:
	       ring_ref(cfile, r, d->src0, d->len) ?:
	       ring_ref(cfile, r, d->src1, d->len);
}

static int ring_submit_locked(struct ccore_device *cdev, struct ccore_file *cfile,
			      struct drm_ccore_ring_submit *a, const struct drm_ccore_desc *in,
			      struct ccm_hwdesc *hwd, struct ccm_err *err)
{
	struct ccore_hw *hw = cdev->hw;
	struct ccm_verify_ctx v = {
		.dev = cdev->index, .vm = &cfile->vm,
		.sem_owned = ccore_nic_sem_usable, .owner = cfile,
	};
	struct ccore_ring *r;
	u32 i;
	int rc = 0;

	r = xa_load(&cfile->rings, a->handle);
	if (!r)
		return ccm_uapi_no_handle(DRM_CCORE_REASON_RING_HANDLE, a->handle, err);
	ccm_uapi_ring_verify_ctx(&r->u, &v);
	for (i = 0; i < a->count && !rc; i++)
		rc = hw->ops->desc_translate(hw, &v, &in[i], i, &hwd[i], err);
	if (rc)
		return ccm_uapi_verify_failed(rc, DRM_CCORE_REASON_DESC_INVALID,
					      DRM_CCORE_REASON_DESC_SEM, err);
	/* take the memory references before the descriptors can run */
	for (i = 0; i < a->count && !rc; i++)
		rc = ccore_ring_refs(cfile, r, &in[i]);
	if (!rc)
		rc = hw->ops->ring_write(hw, cdev->index, r->u.core, r->u.engine, r->u.ring, hwd,
					 a->count, err);
	if (!rc && (a->flags & DRM_CCORE_SUBMIT_F_START))
		rc = hw->ops->ring_start(hw, cdev->index, r->u.core, r->u.engine, r->u.ring,
					 a->count, err);
	return rc;
}

int ccore_ioctl_ring_submit(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_ring_submit *a = data;
	struct ccm_err err = { .index = CCM_NO_INDEX };
	struct drm_ccore_desc *in;
	struct ccm_hwdesc *hwd;
	int rc;

	a->bad_index = CCM_NO_INDEX;
	rc = ccm_uapi_ring_submit(&cdev->hw->cfg, a, &err);
	if (rc)
		return ccore_reject(file, "RING_SUBMIT", rc, &err);
	in = vmemdup_array_user(u64_to_user_ptr(a->descs), a->count, sizeof(*in));
	if (IS_ERR(in))
		return PTR_ERR(in);
	hwd = kvcalloc(a->count, sizeof(*hwd), GFP_KERNEL);
	if (!hwd) {
		kvfree(in);
		return -ENOMEM;
	}
	mutex_lock(&cdev->hw->lock);
	rc = ring_submit_locked(cdev, cfile, a, in, hwd, &err);
	mutex_unlock(&cdev->hw->lock);
	kvfree(hwd);
	kvfree(in);
	if (rc) {
		a->bad_index = err.index;
		return ccore_reject(file, "RING_SUBMIT", rc, &err);
	}
	if (a->flags & DRM_CCORE_SUBMIT_F_START)
		cdev->hw->ops->kick(cdev->hw);
	return 0;
}

int ccore_ioctl_ring_stats(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_ring_stats *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_ring_stats st;
	struct ccm_err err = {};
	struct ccore_ring *r;

	mutex_lock(&hw->lock);
	r = xa_load(&cfile->rings, a->handle);
	if (r)
		hw->ops->ring_stats(hw, cdev->index, r->u.core, r->u.engine, r->u.ring, &st);
	mutex_unlock(&hw->lock);
	if (!r) {
		ccm_uapi_no_handle(DRM_CCORE_REASON_RING_HANDLE, a->handle, &err);
		return ccore_reject(file, "RING_STATS", -ENOENT, &err);
	}
	ccm_uapi_ring_stats(a, &st);
	return 0;
}

struct ring_idle_arg {
	struct ccore_hw *hw;
	u32 dev;
	struct ccore_ring *r;
};

static bool ring_drained(void *p)
{
	struct ring_idle_arg *w = p;

	return w->hw->ops->ring_idle(w->hw, w->dev, w->r->u.core, w->r->u.engine, w->r->u.ring);
}

/*
 * How long a closing file waits for its aborted rings: an abort takes
 * effect at the next packet boundary, so this is a hardware failure.
 */
#define CCORE_RING_ABORT_NS (10 * NSEC_PER_SEC)

/*
 * Nothing the file started may keep running after close, however much it
 * started (a CC program can START a ring over and over): its rings are
 * aborted, not drained.  A ring that does not stop keeps its memory
 * references rather than free what an engine may still touch.
 */
void ccore_rings_fini(struct ccore_file *cfile)
{
	struct ccore_hw *hw = cfile->cdev->hw;
	struct ring_idle_arg w = { .hw = hw, .dev = cfile->cdev->index };
	struct ccore_ring *r;
	unsigned long h;

	xa_for_each(&cfile->rings, h, r)
		hw->ops->ring_abort(hw, w.dev, r->u.core, r->u.engine, r->u.ring);
	hw->ops->kick(hw);
	xa_for_each(&cfile->rings, h, r) {
		w.r = r;
		if (hw->ops->wait(hw, ring_drained, &w, ktime_get_ns() + CCORE_RING_ABORT_NS) &&
		    !ring_drained(&w)) {
			drm_err(&cfile->cdev->drm,
				"ring %u/%u/%u did not stop after an abort; its buffers stay\n",
				r->u.core, r->u.engine, r->u.ring);
			continue;
		}
		mutex_lock(&hw->lock);
		hw->ops->ring_release(hw, w.dev, r->u.core, r->u.engine, r->u.ring, NULL);
		ccore_sem_unpin_all(hw, &r->sems);
		mutex_unlock(&hw->lock);
		ring_free(r);
	}
	xa_destroy(&cfile->rings);
}
