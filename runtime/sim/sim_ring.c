// SPDX-License-Identifier: MIT
/*
 * DMA rings on the sim backend.  Submission validates and translates every
 * descriptor before writing any (ccm_desc_translate is the security
 * boundary) and keeps the memory the descriptors reach alive, and the
 * semaphore blocks they signal or write pinned, for as long as the ring
 * exists.  A ring a loaded program starts or waits for cannot be destroyed.
 */
#include "sim.h"

#include <stdlib.h>

bool sim_ring_owned(void *owner, u32 dev, u32 core, u32 engine, u32 ring)
{
	struct sim_ctx *c = owner;

	return ccm_ring_owner(c->sys->f, dev, core, engine, ring) == c;
}

int sim_ring_create(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_ring_create *a = arg;
	struct ccm_fabric *f = c->sys->f;
	struct ccm_err err = { 0 };
	struct sim_ring *r;
	u32 psize = a->packet_size;
	int rc;

	rc = ccm_uapi_ring_create(a, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_RING_CREATE, rc, &err);
	rc = sim_core_mine(c, DRM_IOCTL_CCORE_RING_CREATE, a->core);
	if (rc)
		return rc;
	if (!psize)
		psize = a->flags & DRM_CCORE_RING_F_COMPUTE ? ccm_device_dma_packetization(f, c->dev)
							    : ccm_device_cc_packet_size(f, c->dev);
	r = calloc(1, sizeof(*r));
	if (!r)
		return ccore_error(-ENOMEM, "RING_CREATE: out of memory");
	rc = ccm_ring_claim(f, c->dev, a->core, a->engine, a->ring, a->size, psize,
			    a->index_stride, a->index_count, c, &err);
	if (rc) {
		free(r);
		return sim_fail(DRM_IOCTL_CCORE_RING_CREATE, rc, &err);
	}
	ccm_uapi_ring_init(&r->u, a);
	rc = sim_handle_add(&c->rings, r, &a->handle);
	if (rc) {
		ccm_ring_release(f, c->dev, a->core, a->engine, a->ring, NULL);
		free(r);
		return ccore_error(rc, "RING_CREATE: out of memory");
	}
	return 0;
}

static struct sim_ring *ring_get(struct sim_ctx *c, unsigned long req, u32 handle)
{
	struct sim_ring *r = sim_handle_get(&c->rings, handle);
	struct ccm_err err;

	if (!r)
		sim_fail(req, ccm_uapi_no_handle(DRM_CCORE_REASON_RING_HANDLE, handle, &err), &err);
	return r;
}

static void ring_free(struct sim_ctx *c, struct sim_ring *r)
{
	u32 i;

	for (i = 0; i < r->mems.count; i++)
		sim_mem_put(c->sys, r->mems.items[i]);
	sim_set_fini(&r->mems);
	sim_sem_unpin_all(&r->sems);
	free(r);
}

int sim_ring_destroy(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_ring_destroy *a = arg;
	struct ccm_err err = { 0 };
	struct sim_ring *r = sim_handle_get(&c->rings, a->handle);
	int rc;

	rc = ccm_uapi_ring_destroy(a, r ? &r->u : NULL, &err) ?:
	     ccm_ring_release(c->sys->f, c->dev, r->u.core, r->u.engine, r->u.ring, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_RING_DESTROY, rc, &err);
	sim_handle_remove(&c->rings, a->handle);
	ring_free(c, r);
	return 0;
}

/* The context's ring @core/@engine/@ring, or NULL. */
struct sim_ring *sim_ring_find(struct sim_ctx *c, u32 core, u32 engine, u32 ring)
{
	struct sim_ring *r;
	u32 h;

	/* the handle table itself: a loaded program names several rings, a
	 * plan of many ranks loads many programs */
	for (h = 0; h < c->rings.cap; h++) {
		r = c->rings.slot[h];
		if (r && ccm_uapi_ring_is(&r->u, core, engine, ring))
			return r;
	}
	return NULL;
}

/* Remember that @r reaches the memory behind [va, va + len). */
static int ring_ref(struct sim_ctx *c, struct sim_ring *r, u64 va, u64 len)
{
	const struct ccm_vm_map *m = ccm_vm_find(&c->vm, va, len);
	/* another host's memory (sim_remote.c) is not found: no buffer here to hold */
	struct sim_mem *mem = m && m->bo ? ((struct sim_bo *)m->bo)->mem : NULL;
	int rc = mem ? sim_set_add(&r->mems, mem) : 0;

	if (rc > 0)
		sim_mem_get(c->sys, mem);
	return rc < 0 ? rc : 0;
}

/* What a checked descriptor reaches stays until the ring goes. */
int sim_ring_refs(struct sim_ctx *c, struct sim_ring *r, const struct drm_ccore_desc *d)
{
	int rc = 0;

	if (d->flags & DRM_CCORE_DESC_F_SIGNAL)
		rc = sim_sem_pin(c, &r->sems, d->signal_sem);
	if (d->op == DRM_CCORE_DESC_SEM_WRITE)
		return rc ?: sim_sem_pin(c, &r->sems, (u32)d->dst);
	return rc ?: ring_ref(c, r, d->dst, d->len) ?: ring_ref(c, r, d->src0, d->len) ?:
	       ring_ref(c, r, d->src1, d->len);
}

int sim_ring_submit(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_ring_submit *a = arg;
	const struct drm_ccore_desc *in = (const void *)(uintptr_t)a->descs;
	struct ccm_verify_ctx v = {
		.f = c->sys->f, .dev = c->dev, .vm = &c->vm,
		.sem_owned = sim_sem_usable, .owner = c,
	};
	struct ccm_err err = { .index = CCM_NO_INDEX };
	struct ccm_hwdesc *hw;
	struct sim_ring *r;
	u32 i;
	int rc = 0;

	a->bad_index = CCM_NO_INDEX;
	rc = ccm_uapi_ring_submit(ccm_fabric_config(c->sys->f), a, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_RING_SUBMIT, rc, &err);
	r = ring_get(c, DRM_IOCTL_CCORE_RING_SUBMIT, a->handle);
	if (!r)
		return -ENOENT;
	if (!in)
		return ccore_error(-EFAULT, "RING_SUBMIT: descs pointer is NULL");
	ccm_uapi_ring_verify_ctx(&r->u, &v);
	hw = calloc(a->count, sizeof(*hw));
	if (!hw)
		return ccore_error(-ENOMEM, "RING_SUBMIT: out of memory for %u descriptors",
				   a->count);
	for (i = 0; i < a->count && !rc; i++)
		rc = ccm_desc_translate(&v, &in[i], i, &hw[i], &err);
	if (rc)
		ccm_uapi_verify_failed(rc, DRM_CCORE_REASON_DESC_INVALID, DRM_CCORE_REASON_DESC_SEM,
				       &err);
	/* Take the references before the descriptors can run. */
	for (i = 0; i < a->count && !rc; i++)
		rc = sim_ring_refs(c, r, &in[i]);
	if (rc == -ENOMEM)
		rc = ccm_fail(&err, rc, CCM_NO_INDEX, "out of memory");
	if (!rc)
		rc = ccm_ring_write(c->sys->f, c->dev, r->u.core, r->u.engine, r->u.ring, hw,
				    a->count, &err);
	if (!rc && (a->flags & DRM_CCORE_SUBMIT_F_START))
		rc = ccm_ring_start(c->sys->f, c->dev, r->u.core, r->u.engine, r->u.ring,
				    a->count, &err);
	free(hw);
	if (rc) {
		a->bad_index = err.index;
		return sim_fail(DRM_IOCTL_CCORE_RING_SUBMIT, rc, &err);
	}
	return 0;
}

int sim_ring_stats(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_ring_stats *a = arg;
	struct ccm_ring_stats st;
	struct sim_ring *r = ring_get(c, DRM_IOCTL_CCORE_RING_STATS, a->handle);

	if (!r)
		return -ENOENT;
	ccm_ring_stats(c->sys->f, c->dev, r->u.core, r->u.engine, r->u.ring, &st);
	ccm_uapi_ring_stats(a, &st);
	return 0;
}

void sim_ring_fini(struct sim_ctx *c)
{
	struct sim_ring *r;
	u32 h;

	for (h = 1; h <= c->rings.cap; h++) {
		r = sim_handle_remove(&c->rings, h);
		if (!r)
			continue;
		ring_free(c, r);
	}
	sim_handles_fini(&c->rings);
}
