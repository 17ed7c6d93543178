/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rules of the ring, semaphore and job ioctls: argument checks (flags,
 * reserved fields, counts and limits), handle lookups that failed, and
 * state rules (a ring started by loaded programs, a pinned semaphore
 * block, a program with jobs queued).  One implementation, called by the
 * kernel driver (driver/ccore_{ring,sem,job}.c) and by the sim backend
 * (runtime/sim/sim_{ring,sem,job}.c), so that both answer the same bad
 * input with the same errno and the same enum drm_ccore_reason.
 *
 * Each check returns 0 or the uAPI's negative errno, with @err's reason,
 * limit and message set.  What differs between the backends stays there:
 * locking, handle tables, copying from user memory, file ownership.
 */
#ifndef CCM_UAPI_H
#define CCM_UAPI_H

#include "ccm.h"
#include "ccm_verify.h"

/* The longest job timeout SUBMIT takes: a shared CC core is held an hour at most */
#define CCM_UAPI_TIMEOUT_MAX_MS 3600000u
/* The most descriptors one RING_SUBMIT may name */
#define CCM_UAPI_SUBMIT_MAX (1024u * 1024u)
/* The most triggers one CC_TRIGGER adds */
#define CCM_UAPI_TRIGGER_MAX 0xffffu

/**
 * struct ccm_uapi_ring - what both backends keep of a ring they created
 * @core: its logical core
 * @engine: its DMA engine
 * @ring: its ring of that engine
 * @index_stride: as created: descriptors are checked at every index
 * @index_count: as created
 * @programs: loaded programs that start or wait for it (it cannot go)
 */
struct ccm_uapi_ring {
	u32 core, engine, ring;
	s64 index_stride;
	u32 index_count;
	u32 programs;
};

/**
 * struct ccm_uapi_sem_block - a block of semaphores a file or context allocated
 * @owner: the file or context
 * @first: its first semaphore
 * @count: its size
 * @serial: unique per allocation: grants name the allocation, not indices
 * @pins: programs and rings (of any owner) that name it: it cannot be freed
 */
struct ccm_uapi_sem_block {
	void *owner;
	u32 first, count;
	u64 serial;
	u32 pins;
};

/* A handle that names nothing: -ENOENT with @reason (RING_HANDLE, PROGRAM_HANDLE). */
int ccm_uapi_no_handle(u32 reason, u32 handle, struct ccm_err *err);

/* --- rings --------------------------------------------------------------- */
int ccm_uapi_ring_create(const struct drm_ccore_ring_create *a, struct ccm_err *err);
void ccm_uapi_ring_init(struct ccm_uapi_ring *r, const struct drm_ccore_ring_create *a);
/* Inline: the backends' lookups test every ring of a file with it. */
static inline bool ccm_uapi_ring_is(const struct ccm_uapi_ring *r, u32 core, u32 engine, u32 ring)
{
	return r->core == core && r->engine == engine && r->ring == ring;
}

/* @r: the ring @a->handle names, or NULL */
int ccm_uapi_ring_destroy(const struct drm_ccore_ring_destroy *a, const struct ccm_uapi_ring *r,
			  struct ccm_err *err);
/* Flags and count, before anything is copied in. */
int ccm_uapi_ring_submit(const struct ccm_config *cfg, const struct drm_ccore_ring_submit *a,
			 struct ccm_err *err);
/* RING_STATS's answer from the hardware's counters. */
void ccm_uapi_ring_stats(struct drm_ccore_ring_stats *a, const struct ccm_ring_stats *st);
/* Point @v at ring @r: its core and index. */
void ccm_uapi_ring_verify_ctx(const struct ccm_uapi_ring *r, struct ccm_verify_ctx *v);
/*
 * A descriptor or instruction the verifier rejected (@rc): its reason is
 * @invalid, or @not_owned for -EACCES, unless the verifier named one.
 */
int ccm_uapi_verify_failed(int rc, u32 invalid, u32 not_owned, struct ccm_err *err);

/* --- semaphores ------------------------------------------------------------ */
static inline bool ccm_uapi_sem_in(const struct ccm_uapi_sem_block *b, u32 ref)
{
	return ref >= b->first && ref - b->first < b->count;
}

int ccm_uapi_sem_alloc(const struct drm_ccore_sem_alloc *a, struct ccm_err *err);
/* @own: the caller's block starting at @a->first, or NULL */
int ccm_uapi_sem_free(const struct drm_ccore_sem_free *a, const struct ccm_uapi_sem_block *own,
		      struct ccm_err *err);
int ccm_uapi_sem_access(const struct drm_ccore_sem_access *a, struct ccm_err *err);
/* May the caller use semaphore @ref?  @valid: it exists; @usable: it is the caller's. */
int ccm_uapi_sem_usable(u32 ref, bool valid, bool usable, struct ccm_err *err);
int ccm_uapi_sem_export(const struct drm_ccore_sem_export *a,
			const struct ccm_uapi_sem_block *own, struct ccm_err *err);
/*
 * SEM_IMPORT of fd @a->fd: @open: it is an open file; @sem: one SEM_EXPORT
 * returned; @same_fabric: of the caller's fabric.
 */
int ccm_uapi_sem_import(const struct drm_ccore_sem_import *a, bool open, bool sem,
			bool same_fabric, struct ccm_err *err);

/* --- CC programs and jobs ------------------------------------------------- */
int ccm_uapi_cc_core(const struct ccm_config *cfg, u32 cc, struct ccm_err *err);
int ccm_uapi_program_load(const struct ccm_config *cfg, const struct drm_ccore_program_load *a,
			  struct ccm_err *err);
/* @found: @a->handle names a program; @pending: its jobs queued or running */
int ccm_uapi_program_free(const struct drm_ccore_program_free *a, bool found, u32 pending,
			  struct ccm_err *err);
int ccm_uapi_submit(const struct drm_ccore_submit *a, struct ccm_err *err);
/* The caller has @limit jobs unfinished, its most: fails with @errno_neg. */
int ccm_uapi_jobs_full(int errno_neg, u32 limit, struct ccm_err *err);
/* @found: @a->job is one of the last @history jobs of the caller */
int ccm_uapi_job_wait(const struct drm_ccore_job_wait *a, bool found, u32 history,
		      struct ccm_err *err);
int ccm_uapi_cc_trigger(const struct ccm_config *cfg, const struct drm_ccore_cc_trigger *a,
			struct ccm_err *err);

#endif
