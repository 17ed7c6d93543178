// SPDX-License-Identifier: GPL-2.0
/*
 * The rules of the ring, semaphore and job ioctls, shared by the kernel
 * driver and the sim backend (see ccm_uapi.h).  Checks run in the order
 * the uAPI documents: the argument's own fields first, then what its
 * handles name, then the state of those objects.
 */
#include "ccm_uapi.h"

static int pad_nonzero(const char *what, u32 value, struct ccm_err *err)
{
	return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_PAD, 0, "%s must be zero, got %u", what,
			  value);
}

static int flags_unknown(u32 flags, u32 allowed, const char *names, struct ccm_err *err)
{
	return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_FLAGS, allowed,
			  "unknown flags 0x%x (allowed 0x%x%s)", flags, allowed, names);
}

int ccm_uapi_no_handle(u32 reason, u32 handle, struct ccm_err *err)
{
	return ccm_reject(err, -ENOENT, reason, 0, "no %s with handle %u in this context",
			  reason == DRM_CCORE_REASON_RING_HANDLE ? "ring" : "program", handle);
}

int ccm_uapi_ring_create(const struct drm_ccore_ring_create *a, struct ccm_err *err)
{
	if (a->pad || a->pad2)
		return pad_nonzero(a->pad ? "pad" : "pad2", a->pad ? a->pad : a->pad2, err);
	if (a->flags & ~DRM_CCORE_RING_F_COMPUTE)
		return flags_unknown(a->flags, DRM_CCORE_RING_F_COMPUTE, " COMPUTE", err);
	return 0;
}

void ccm_uapi_ring_init(struct ccm_uapi_ring *r, const struct drm_ccore_ring_create *a)
{
	*r = (struct ccm_uapi_ring){
		.core = a->core, .engine = a->engine, .ring = a->ring,
		.index_stride = a->index_stride, .index_count = a->index_count,
	};
}

int ccm_uapi_ring_destroy(const struct drm_ccore_ring_destroy *a, const struct ccm_uapi_ring *r,
			  struct ccm_err *err)
{
	if (a->pad)
		return pad_nonzero("pad", a->pad, err);
	if (!r)
		return ccm_uapi_no_handle(DRM_CCORE_REASON_RING_HANDLE, a->handle, err);
	/* a loaded program would START whoever claims it next */
	if (r->programs)
		return ccm_reject(err, -EBUSY, DRM_CCORE_REASON_RING_PROGRAMS, 0,
				  "ring %u (core %u engine %u ring %u) is started or waited for by %u loaded programs; free them first",
				  a->handle, r->core, r->engine, r->ring, r->programs);
	return 0;
}

int ccm_uapi_ring_submit(const struct ccm_config *cfg, const struct drm_ccore_ring_submit *a,
			 struct ccm_err *err)
{
	if (a->flags & ~DRM_CCORE_SUBMIT_F_START)
		return flags_unknown(a->flags, DRM_CCORE_SUBMIT_F_START, " START", err);
	if (!a->count || a->count > CCM_UAPI_SUBMIT_MAX)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_DESC_COUNT, CCM_UAPI_SUBMIT_MAX,
				  "count is %u; expected 1..%u descriptors", a->count,
				  CCM_UAPI_SUBMIT_MAX);
	/* no ring has room for more (as a full ring): nothing larger is read */
	if (a->count > cfg->max_ring_size)
		return ccm_reject(err, -ENOSPC, DRM_CCORE_REASON_RING_FULL, cfg->max_ring_size,
				  "%u descriptors; rings hold at most %u", a->count,
				  cfg->max_ring_size);
	return 0;
}

void ccm_uapi_ring_stats(struct drm_ccore_ring_stats *a, const struct ccm_ring_stats *st)
{
	a->packet_size = st->packet_size;
	a->bytes = st->bytes;
	a->packets = st->packets;
	a->started = st->started;
	a->completed = st->completed;
	a->errors = st->errors;
}

void ccm_uapi_ring_verify_ctx(const struct ccm_uapi_ring *r, struct ccm_verify_ctx *v)
{
	v->core = r->core;
	v->index_stride = r->index_stride;
	v->index_count = r->index_count;
}

int ccm_uapi_verify_failed(int rc, u32 invalid, u32 not_owned, struct ccm_err *err)
{
	if (err->reason == DRM_CCORE_REASON_NONE && err->index != CCM_NO_INDEX)
		err->reason = rc == -EACCES ? not_owned : invalid;
	return rc;
}

int ccm_uapi_sem_alloc(const struct drm_ccore_sem_alloc *a, struct ccm_err *err)
{
	return a->pad ? pad_nonzero("pad", a->pad, err) : 0;
}

int ccm_uapi_sem_free(const struct drm_ccore_sem_free *a, const struct ccm_uapi_sem_block *own,
		      struct ccm_err *err)
{
	if (a->pad)
		return pad_nonzero("pad", a->pad, err);
	if (own && own->pins)
		return ccm_reject(err, -EBUSY, DRM_CCORE_REASON_SEM_PINNED, 0,
				  "semaphore block 0x%08x (%u semaphores) is named by %u loaded programs or written rings; free or destroy them first",
				  a->first, own->count, own->pins);
	return 0;
}

int ccm_uapi_sem_access(const struct drm_ccore_sem_access *a, struct ccm_err *err)
{
	if (a->pad)
		return pad_nonzero("pad", a->pad, err);
	if (a->op > DRM_CCORE_SEM_ADD)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_SEM_OP, DRM_CCORE_SEM_ADD,
				  "unknown op %u (0 READ, 1 SET, 2 ADD)", a->op);
	return 0;
}

int ccm_uapi_sem_usable(u32 ref, bool valid, bool usable, struct ccm_err *err)
{
	if (!valid)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_SEM_INVALID, 0,
				  "semaphore 0x%08x does not exist (device %u core %u index %u)",
				  ref, DRM_CCORE_SEM_REF_DEV(ref), DRM_CCORE_SEM_REF_CORE(ref),
				  DRM_CCORE_SEM_REF_IDX(ref));
	if (!usable)
		return ccm_reject(err, -EACCES, DRM_CCORE_REASON_SEM_NOT_USABLE, 0,
				  "semaphore 0x%08x was not allocated or imported by this context",
				  ref);
	return 0;
}

int ccm_uapi_sem_export(const struct drm_ccore_sem_export *a,
			const struct ccm_uapi_sem_block *own, struct ccm_err *err)
{
	if (a->flags)
		return flags_unknown(a->flags, 0, ", none", err);
	if (a->pad)
		return pad_nonzero("pad", a->pad, err);
	if (!own)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_SEM_NOT_BLOCK, 0,
				  "semaphore 0x%08x is not the first of a block this context allocated",
				  a->first);
	return 0;
}

int ccm_uapi_sem_import(const struct drm_ccore_sem_import *a, bool open, bool sem,
			bool same_fabric, struct ccm_err *err)
{
	if (a->flags)
		return flags_unknown(a->flags, 0, ", none", err);
	if (!open)
		return ccm_reject(err, -EBADF, DRM_CCORE_REASON_FD_BAD, 0,
				  "fd %d is not an open file descriptor", a->fd);
	if (!sem)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_FD_NOT_SEM, 0,
				  "fd %d is a dma-buf or another file, not an exported semaphore block (SEM_EXPORT)",
				  a->fd);
	if (!same_fabric)
		return ccm_reject(err, -EXDEV, DRM_CCORE_REASON_FD_OTHER_FABRIC, 0,
				  "fd %d names semaphores of another fabric", a->fd);
	return 0;
}

int ccm_uapi_cc_core(const struct ccm_config *cfg, u32 cc, struct ccm_err *err)
{
	u32 n = cfg->cores * cfg->cc_cores;

	if (cc >= n)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_CC_CORE, n,
				  "CC core %u does not exist (0..%u)", cc, n - 1);
	return 0;
}

int ccm_uapi_program_load(const struct ccm_config *cfg, const struct drm_ccore_program_load *a,
			  struct ccm_err *err)
{
	int rc = ccm_uapi_cc_core(cfg, a->cc_core, err);

	if (rc)
		return rc;
	if (!a->count || a->count > cfg->max_program_size)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_INSN_COUNT, cfg->max_program_size,
				  "count %u: %s (1..%u instructions)", a->count,
				  a->count ? "more than the CC core's memory holds" :
				  "the program has no instructions", cfg->max_program_size);
	return 0;
}

int ccm_uapi_program_free(const struct drm_ccore_program_free *a, bool found, u32 pending,
			  struct ccm_err *err)
{
	if (a->pad)
		return pad_nonzero("pad", a->pad, err);
	if (!found)
		return ccm_uapi_no_handle(DRM_CCORE_REASON_PROGRAM_HANDLE, a->handle, err);
	if (pending)
		return ccm_reject(err, -EBUSY, DRM_CCORE_REASON_PROGRAM_BUSY, 0,
				  "program %u still has %u jobs queued or running", a->handle,
				  pending);
	return 0;
}

int ccm_uapi_submit(const struct drm_ccore_submit *a, struct ccm_err *err)
{
	if (a->pad)
		return pad_nonzero("pad", a->pad, err);
	if (a->flags & ~DRM_CCORE_JOB_F_TRIGGER)
		return flags_unknown(a->flags, DRM_CCORE_JOB_F_TRIGGER, " TRIGGER", err);
	if (a->timeout_ms > CCM_UAPI_TIMEOUT_MAX_MS)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_TIMEOUT, CCM_UAPI_TIMEOUT_MAX_MS,
				  "timeout_ms %u out of range (1..%u ms, 0 = the default)",
				  a->timeout_ms, CCM_UAPI_TIMEOUT_MAX_MS);
	return 0;
}

int ccm_uapi_jobs_full(int errno_neg, u32 limit, struct ccm_err *err)
{
	return ccm_reject(err, errno_neg, DRM_CCORE_REASON_JOBS_FULL, limit,
			  "%u jobs unfinished, the most a context may have", limit);
}

int ccm_uapi_job_wait(const struct drm_ccore_job_wait *a, bool found, u32 history,
		      struct ccm_err *err)
{
	if (a->pad)
		return pad_nonzero("pad", a->pad, err);
	if (!found)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_JOB_UNKNOWN, history,
				  "job %llu is unknown or too old (the last %u are kept)",
				  (unsigned long long)a->job, history);
	return 0;
}

int ccm_uapi_cc_trigger(const struct ccm_config *cfg, const struct drm_ccore_cc_trigger *a,
			struct ccm_err *err)
{
	int rc = ccm_uapi_cc_core(cfg, a->cc_core, err);

	if (rc)
		return rc;
	if (!a->count || a->count > CCM_UAPI_TRIGGER_MAX)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_TRIGGER_COUNT,
				  CCM_UAPI_TRIGGER_MAX, "count %u out of range (1..%u)", a->count,
				  CCM_UAPI_TRIGGER_MAX);
	return 0;
}
