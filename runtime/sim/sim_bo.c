// SPDX-License-Identifier: MIT
/*
 * Buffer objects on the sim backend: device memory accounted against the
 * device's HBM size, mapped into the context's address space, shared with
 * other contexts through emulated dma-buf fds.  Memory lives until the last
 * buffer and the last ring that references it are gone.
 */
#include "sim.h"

#include <stdlib.h>

struct sim_mem *sim_mem_new(struct sim_system *s)
{
	struct ccm_arena *was = ccm_arena_current;
	struct sim_shared *sh = s->sh;
	struct sim_mem *m;

	ccm_arena_current = s->arena;
	m = ccm_zalloc(sizeof(*m));
	ccm_arena_current = was;
	if (!m)
		return NULL;
	m->refs = 1;
	m->slot_refs[s->slot] = 1;
	/* a shared system's list: what a dead process held is found there */
	if (sim_shared(s)) {
		m->next = sh->mems;
		if (sh->mems)
			sh->mems->prev = m;
		sh->mems = m;
	}
	return m;
}

void sim_mem_get(struct sim_system *s, struct sim_mem *m)
{
	m->refs++;
	m->slot_refs[s->slot]++;
}

void sim_mem_put_slot(struct sim_system *s, struct sim_mem *m, u32 slot)
{
	struct sim_shared *sh = s->sh;

	m->slot_refs[slot]--;
	if (--m->refs)
		return;
	if (!m->user) {
		ccm_device_mem_release(s->f, m->dev, m->span);
		if (!m->virt)
			ccm_big_free(m->host, m->span);
	}
	if (sim_shared(s)) {
		if (m->prev)
			m->prev->next = m->next;
		else
			sh->mems = m->next;
		if (m->next)
			m->next->prev = m->prev;
	}
	ccm_free(m);
}

void sim_mem_put(struct sim_system *s, struct sim_mem *m)
{
	sim_mem_put_slot(s, m, s->slot);
}

static int bo_install(struct sim_ctx *c, struct sim_mem *m, u32 *handle, u64 *va)
{
	struct sim_bo *bo = calloc(1, sizeof(*bo));
	int rc;

	if (!bo)
		return -ENOMEM;
	rc = ccm_vm_map(&c->vm, m->size, m->host, m->dev, bo, &bo->va);
	if (!rc) {
		rc = sim_handle_add(&c->bos, bo, handle);
		if (rc)
			ccm_vm_unmap(&c->vm, bo->va);
	}
	if (rc) {
		free(bo);
		return rc;
	}
	bo->mem = m;
	sim_mem_get(c->sys, m);
	*va = bo->va;
	return 0;
}

/* The caller's memory as a buffer: nothing allocated, nothing accounted. */
static int bo_register(struct sim_ctx *c, struct drm_ccore_bo_create *a)
{
	const struct ccm_config *cfg = ccm_fabric_config(c->sys->f);
	struct sim_mem *m;
	int rc;

	if (!a->userptr || a->userptr % CCM_VM_PAGE || !a->size || a->size % CCM_VM_PAGE)
		return ccore_error(-EINVAL, "BO_CREATE USERPTR: userptr 0x%llx and size %llu must be non-zero multiples of the %llu-byte page",
				   (unsigned long long)a->userptr, (unsigned long long)a->size,
				   (unsigned long long)CCM_VM_PAGE);
	/* as the kernel driver: no buffer is larger than the device memory */
	if (a->size > cfg->hbm_size || a->userptr + a->size < a->userptr)
		return ccore_error(-EINVAL, "BO_CREATE USERPTR: size %llu at userptr 0x%llx out of range (1..%llu bytes, not past the end of the address space)",
				   (unsigned long long)a->size, (unsigned long long)a->userptr,
				   (unsigned long long)cfg->hbm_size);
	/* another process cannot see this process's own memory */
	if (sim_shared(c->sys))
		return ccore_error(-EOPNOTSUPP, "BO_CREATE USERPTR: a shared sim fabric cannot register process memory (other processes could not reach it); create device memory instead");
	m = sim_mem_new(c->sys);
	if (!m)
		return ccore_error(-ENOMEM, "BO_CREATE: out of memory");
	m->host = (u8 *)(uintptr_t)a->userptr;
	m->size = m->span = a->size;
	m->dev = c->dev;
	m->user = true;
	rc = bo_install(c, m, &a->handle, &a->dev_addr);
	sim_mem_put(c->sys, m);	/* the buffer's reference remains, if any */
	if (rc)
		return ccore_error(rc, "BO_CREATE: out of memory");
	return 0;
}

static int bo_create(struct sim_ctx *c, struct drm_ccore_bo_create *a)
{
	const struct ccm_config *cfg = ccm_fabric_config(c->sys->f);
	struct ccm_err err = { 0 };
	struct sim_mem *m;
	int rc;

	if (a->flags & ~DRM_CCORE_BO_F_USERPTR)
		return ccore_error(-EINVAL, "BO_CREATE: unknown flags 0x%x (allowed 0x%x USERPTR)",
				   a->flags, DRM_CCORE_BO_F_USERPTR);
	if (a->flags & DRM_CCORE_BO_F_USERPTR)
		return bo_register(c, a);
	if (a->userptr)
		return ccore_error(-EINVAL, "BO_CREATE: userptr is set without the USERPTR flag");
	if (a->size == 0 || a->size > cfg->hbm_size)
		return ccore_error(-EINVAL, "BO_CREATE: size %llu out of range (1..%llu bytes)",
				   (unsigned long long)a->size, (unsigned long long)cfg->hbm_size);
	m = sim_mem_new(c->sys);
	if (!m)
		return ccore_error(-ENOMEM, "BO_CREATE: out of memory");
	m->size = a->size;
	m->span = (a->size + CCM_VM_PAGE - 1) & ~(CCM_VM_PAGE - 1);
	m->dev = c->dev;
	rc = ccm_device_mem_reserve(c->sys->f, c->dev, m->span, &err);
	if (rc) {
		m->user = true;	/* nothing reserved or allocated to give back */
		sim_mem_put(c->sys, m);
		return sim_fail(DRM_IOCTL_CCORE_BO_CREATE, rc, &err);
	}
	/* timed virtual=1: device memory is accounted, no host memory is */
	m->virt = cfg->virt;
	m->host = m->virt ? SIM_VIRT_BASE : ccm_big_zalloc(m->span);
	rc = m->host ? bo_install(c, m, &a->handle, &a->dev_addr) : -ENOMEM;
	if (!m->host)
		m->virt = true;	/* no host memory to free */
	sim_mem_put(c->sys, m);	/* the buffer's reference remains, if any */
	if (rc)
		return ccore_error(rc, "BO_CREATE: host memory for %llu bytes unavailable",
				   (unsigned long long)a->size);
	return 0;
}

static struct sim_bo *bo_get(struct sim_ctx *c, unsigned long req, u32 handle)
{
	struct sim_bo *bo = sim_handle_get(&c->bos, handle);

	if (!bo)
		ccore_error(-ENOENT, "%s: no buffer object with handle %u in this context",
			    ccore_ioctl_name(req), handle);
	return bo;
}

static int bo_close(struct sim_ctx *c, struct drm_gem_close *a)
{
	struct sim_bo *bo;

	if (a->pad)
		return ccore_error(-EINVAL, "GEM_CLOSE: pad must be zero");
	bo = sim_handle_remove(&c->bos, a->handle);
	if (!bo)
		return ccore_error(-EINVAL, "GEM_CLOSE: no buffer object with handle %u",
				   a->handle);
	sim_xtoken_drop(c, 1, a->handle);
	ccm_vm_unmap(&c->vm, bo->va);
	sim_mem_put(c->sys, bo->mem);
	free(bo);
	return 0;
}

static int prime_export(struct sim_ctx *c, struct drm_prime_handle *a)
{
	struct sim_token t = { 0 };
	struct sim_bo *bo = bo_get(c, DRM_IOCTL_PRIME_HANDLE_TO_FD, a->handle);
	int rc;

	if (!bo)
		return -ENOENT;
	if (a->flags & ~(u32)(DRM_CLOEXEC | DRM_RDWR))
		return ccore_error(-EINVAL, "PRIME_HANDLE_TO_FD: unknown flags 0x%x", a->flags);
	t.mem = bo->mem;
	rc = sim_token_new(c->sys, &t, &a->fd);
	if (rc)
		return ccore_error(rc, "PRIME_HANDLE_TO_FD: out of memory");
	sim_mem_get(c->sys, bo->mem);	/* the token keeps the memory alive */
	return 0;
}

static int prime_import(struct sim_ctx *c, struct drm_prime_handle *a)
{
	const struct sim_token *t = sim_token_get(c->sys, a->fd);
	u64 va;
	int rc;

	if (!t)
		return sim_token_bad(c->sys, "PRIME_FD_TO_HANDLE", a->fd);
	if (t->sem)
		return ccore_error(-EINVAL, "PRIME_FD_TO_HANDLE: fd %d is an exported semaphore block, not a dma-buf",
				   a->fd);
	rc = bo_install(c, t->mem, &a->handle, &va);
	return rc ? ccore_error(rc, "PRIME_FD_TO_HANDLE: out of memory") : 0;
}

int sim_bo_ioctl(struct sim_ctx *c, unsigned long req, void *arg)
{
	struct drm_ccore_bo_mmap_offset *mo = arg;
	struct drm_ccore_bo_info *info = arg;
	struct sim_bo *bo;

	switch (req) {
	case DRM_IOCTL_CCORE_BO_CREATE:
		return bo_create(c, arg);
	case DRM_IOCTL_GEM_CLOSE:
		return bo_close(c, arg);
	case DRM_IOCTL_PRIME_HANDLE_TO_FD:
		return prime_export(c, arg);
	case DRM_IOCTL_PRIME_FD_TO_HANDLE:
		return prime_import(c, arg);
	case DRM_IOCTL_CCORE_BO_MMAP_OFFSET:
		if (mo->pad)
			return ccore_error(-EINVAL, "BO_MMAP_OFFSET: pad must be zero");
		bo = bo_get(c, req, mo->handle);
		if (!bo)
			return -ENOENT;
		mo->offset = (u64)mo->handle << 32;	/* fake offset, as GEM's */
		return 0;
	default:
		bo = bo_get(c, req, info->handle);
		if (!bo)
			return -ENOENT;
		info->device_index = bo->mem->dev;
		info->size = bo->mem->size;
		info->dev_addr = bo->va;
		return 0;
	}
}

void sim_bo_fini(struct sim_ctx *c)
{
	struct sim_bo *bo;
	u32 h;

	for (h = 1; h <= c->bos.cap; h++) {
		bo = sim_handle_remove(&c->bos, h);
		if (!bo)
			continue;
		sim_mem_put(c->sys, bo->mem);
		free(bo);
	}
	sim_handles_fini(&c->bos);
}
