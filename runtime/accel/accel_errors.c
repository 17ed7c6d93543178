// SPDX-License-Identifier: MIT
/*
 * Why an ioctl of the ccore driver failed.  The ring, semaphore and job
 * ioctls name the rule they rejected (enum drm_ccore_reason, read back
 * with GET_LAST_ERROR): the message gives it, with what is allowed.  For
 * the rest, and from a module older than GET_LAST_ERROR, the message says
 * what the errno means for that ioctl (the driver's own text goes to the
 * kernel log with drm.debug=0x2).
 */
#include "accel.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>

#define DEBUG_HINT "; the driver logs the exact reason with drm.debug=0x2"

static const char *errno_name(int err)
{
	const char *n = strerrorname_np(err);

	return n ? n : "errno";
}

/* Meanings that do not depend on the ioctl. */
static const char *common(int err)
{
	switch (err) {
	case ENODEV:
		return "the device is gone: its simulated fabric was removed (del_device) or the module unloaded";
	case ENOTTY:
		return "the driver does not know this ioctl: the ccore module is older than the runtime";
	case EFAULT:
		return "a pointer in the argument is not readable or writable memory of this process";
	case ENOMEM:
		return "the kernel is out of memory";
	case EINTR:
	case ERESTART:
		return "interrupted by a signal";
	case EPERM:
	case EACCES:
		return "the device file does not allow this";
	default:
		return NULL;
	}
}

/* The device's memory size, for BO_CREATE's messages (0 if unknown). */
static uint64_t hbm_size(const struct accel_dev *d)
{
	struct drm_ccore_param_args a = { .param = DRM_CCORE_PARAM_HBM_SIZE };

	return drmIoctl(d->fd, DRM_IOCTL_CCORE_GET_PARAM, &a) ? 0 : a.value;
}

/* @named: the module has GET_LAST_ERROR, which named no rule for this failure */
static void explain(const struct accel_dev *d, char *b, size_t n, unsigned long req,
		    const void *arg, int err, bool named)
{
	const struct drm_ccore_param_args *pa = arg;
	const struct drm_ccore_bo_create *bc = arg;
	const struct drm_ccore_bo_mmap_offset *mo = arg;
	const struct drm_ccore_bo_info *bi = arg;
	const struct drm_gem_close *gc = arg;
	const struct drm_prime_handle *ph = arg;
	const struct drm_ccore_sem_wait *sw = arg;
	const struct drm_ccore_job_wait *jw = arg;
	const struct drm_ccore_compute_submit *cs = arg;
	const struct drm_ccore_compute_wait *cw = arg;
	uint64_t hbm = req == DRM_IOCTL_CCORE_BO_CREATE ? hbm_size(d) : 0;
	const char *c;

	switch (req) {
	case DRM_IOCTL_CCORE_GET_PARAM:
		if (err == EINVAL) {
			snprintf(b, n, "param %u is unknown to the driver (0..%u) or pad is not zero",
				 pa->param, DRM_CCORE_PARAM_SEM_NS);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_SET_PARAM:
		if (err == EPERM) {
			snprintf(b, n, "param %u: the packet-size defaults are the device's, changing them needs CAP_SYS_ADMIN (a ring's own packet size, as CCORE_CC_DMA_PACKET_SIZE sets it, needs no privilege)",
				 pa->param);
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "param %u value %llu: only CC_DMA_PACKET_SIZE (may only be lowered) and DMA_PACKETIZATION_SIZE (may only be raised) are writable, as powers of two in MIN..MAX_PACKET_SIZE" DEBUG_HINT,
				 pa->param, (unsigned long long)pa->value);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_BO_CREATE:
		if (err == EINVAL && (bc->flags & ~DRM_CCORE_BO_F_USERPTR)) {
			snprintf(b, n, "unknown flags 0x%x (allowed 0x%x USERPTR)", bc->flags,
				 DRM_CCORE_BO_F_USERPTR);
			return;
		}
		if (err == EINVAL && bc->flags) {
			snprintf(b, n, "USERPTR: userptr 0x%llx and size %llu must be non-zero multiples of the %ld-byte page, size at most %llu bytes (HBM_SIZE)",
				 (unsigned long long)bc->userptr, (unsigned long long)bc->size,
				 sysconf(_SC_PAGESIZE), (unsigned long long)hbm);
			return;
		}
		if (err == EINVAL && bc->userptr) {
			snprintf(b, n, "userptr is set without the USERPTR flag");
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "size %llu out of range (1..%llu bytes, HBM_SIZE)",
				 (unsigned long long)bc->size, (unsigned long long)hbm);
			return;
		}
		if (err == ENOMEM) {
			snprintf(b, n, "%llu bytes: the device's memory (HBM_SIZE) is used up, or the kernel is out of memory",
				 (unsigned long long)bc->size);
			return;
		}
		if (err == EFAULT) {
			snprintf(b, n, "userptr 0x%llx..+%llu is not writable memory of this process",
				 (unsigned long long)bc->userptr, (unsigned long long)bc->size);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_BO_MMAP_OFFSET:
		if (err == ENOENT) {
			snprintf(b, n, "no buffer object with handle %u in this file", mo->handle);
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "handle %u is registered user memory or an imported buffer: only buffers BO_CREATE allocated are mapped (user memory is mapped already)",
				 mo->handle);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_BO_INFO:
		if (err == ENOENT) {
			snprintf(b, n, "no buffer object with handle %u in this file", bi->handle);
			return;
		}
		break;
	case DRM_IOCTL_GEM_CLOSE:
		if (err == EINVAL) {
			snprintf(b, n, "no buffer object with handle %u in this file", gc->handle);
			return;
		}
		break;
	case DRM_IOCTL_PRIME_HANDLE_TO_FD:
		if (err == ENOENT) {
			snprintf(b, n, "no buffer object with handle %u in this file", ph->handle);
			return;
		}
		if (err == EMFILE || err == ENFILE) {
			snprintf(b, n, "no file descriptor left for the dma-buf");
			return;
		}
		break;
	case DRM_IOCTL_PRIME_FD_TO_HANDLE:
		if (err == EXDEV) {
			snprintf(b, n, "fd %d is a buffer of another fabric: only devices of one fabric share memory",
				 ph->fd);
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "fd %d is not a dma-buf of a ccore buffer", ph->fd);
			return;
		}
		if (err == EBADF) {
			snprintf(b, n, "fd %d is not an open file", ph->fd);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_SEM_WAIT:
		if (err == ETIMEDOUT) {
			snprintf(b, n, "semaphore 0x%08x still below %u at the deadline", sw->sem, sw->value);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_JOB_WAIT:
		if (err == ETIMEDOUT) {
			snprintf(b, n, "job %llu still running at the deadline", (unsigned long long)jw->job);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_COMPUTE_SUBMIT:
		if (err == EINVAL && cs->bad_index != ~0u) {
			snprintf(b, n, "instruction %u is not valid: opcode, unused fields, duration, or a DMA range outside this file's buffers" DEBUG_HINT,
				 cs->bad_index);
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "core %u, count %u (1..MAX_PROGRAM_SIZE), timeout_ms %u (0..3600000), the DMA ring(%u,%u) (both 0 without DMA; not an indexed ring), flags or pad out of range" DEBUG_HINT,
				 cs->core, cs->count, cs->timeout_ms, cs->dma_engine, cs->dma_ring);
			return;
		}
		if (err == EACCES) {
			snprintf(b, n, "instruction %d names a semaphore or the DMA ring(%u,%u), which this file does not own",
				 (int)cs->bad_index, cs->dma_engine, cs->dma_ring);
			return;
		}
		if (err == EBUSY) {
			snprintf(b, n, "the compute engine of core %u is running a program, or its DMA ring(%u,%u) has descriptors in flight",
				 cs->core, cs->dma_engine, cs->dma_ring);
			return;
		}
		if (err == ENOSPC) {
			snprintf(b, n, "the DMA ring(%u,%u) has fewer slots than the program has DMA instructions",
				 cs->dma_engine, cs->dma_ring);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_COMPUTE_WAIT:
		if (err == ENOENT) {
			snprintf(b, n, "core %u's compute engine has run no program of this file",
				 cw->core);
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "core %u does not exist", cw->core);
			return;
		}
		if (err == ETIMEDOUT) {
			snprintf(b, n, "the program on core %u is still running at the deadline",
				 cw->core);
			return;
		}
		break;
	default:
		break;
	}
	c = common(err);
	if (!c && !named)
		c = "the ccore module is older than GET_LAST_ERROR and names no reason" DEBUG_HINT;
	snprintf(b, n, "%s", c ? c : "not an error this ioctl is documented to return");
}

/*
 * Why this thread's @request failed, as the driver records it: false from
 * a module without GET_LAST_ERROR (-ENOTTY, or -EINVAL from one that
 * predates the ccore check of unknown ioctls).
 */
static bool last_error(const struct accel_dev *d, struct drm_ccore_last_error *e)
{
	*e = (struct drm_ccore_last_error){ 0 };
	return !drmIoctl(d->fd, DRM_IOCTL_CCORE_GET_LAST_ERROR, e);
}

static bool names_rule(const struct drm_ccore_last_error *e, unsigned long request, int err)
{
	return e->reason != DRM_CCORE_REASON_NONE && e->ioctl == _IOC_NR(request) &&
	       e->error == -err;
}

/*
 * What a ring, semaphore or job request named, with the values that
 * matter: the subject of the rule it broke.  False for other requests.
 */
static bool subject(char *b, size_t n, unsigned long req, const void *arg, uint32_t index)
{
	const struct drm_ccore_ring_create *rc = arg;
	const struct drm_ccore_ring_submit *rs = arg;
	const struct drm_ccore_sem_alloc *sa = arg;
	const struct drm_ccore_sem_access *sx = arg;
	const struct drm_ccore_sem_import *si = arg;
	const struct drm_ccore_program_load *pl = arg;
	const struct drm_ccore_submit *su = arg;
	const struct drm_ccore_job_wait *jw = arg;
	const struct drm_ccore_cc_trigger *ct = arg;

	switch (req) {
	case DRM_IOCTL_CCORE_RING_CREATE:
		snprintf(b, n, "ring %u of engine %u on core %u (size %u, packet %u, flags 0x%x, index_stride %lld, index_count %u)",
			 rc->ring, rc->engine, rc->core, rc->size, rc->packet_size, rc->flags,
			 (long long)rc->index_stride, rc->index_count);
		return true;
	case DRM_IOCTL_CCORE_RING_SUBMIT:
		if (index != ~0u)
			snprintf(b, n, "descriptor %u of ring %u", index, rs->handle);
		else
			snprintf(b, n, "ring %u, %u descriptors, flags 0x%x", rs->handle, rs->count,
				 rs->flags);
		return true;
	case DRM_IOCTL_CCORE_RING_DESTROY:
	case DRM_IOCTL_CCORE_RING_STATS:
		/* both start with the handle */
		snprintf(b, n, "ring %u", *(const uint32_t *)arg);
		return true;
	case DRM_IOCTL_CCORE_SEM_ALLOC:
		snprintf(b, n, "%u semaphores on core %u", sa->count, sa->core);
		return true;
	case DRM_IOCTL_CCORE_SEM_ACCESS:
		snprintf(b, n, "semaphore 0x%08x (op %u)", sx->sem, sx->op);
		return true;
	case DRM_IOCTL_CCORE_SEM_FREE:
	case DRM_IOCTL_CCORE_SEM_WAIT:
	case DRM_IOCTL_CCORE_SEM_EXPORT:
		/* each starts with the semaphore */
		snprintf(b, n, "semaphore 0x%08x", *(const uint32_t *)arg);
		return true;
	case DRM_IOCTL_CCORE_SEM_IMPORT:
		snprintf(b, n, "fd %d", si->fd);
		return true;
	case DRM_IOCTL_CCORE_PROGRAM_LOAD:
		if (index != ~0u)
			snprintf(b, n, "instruction %u", index);
		else
			snprintf(b, n, "%u instructions on CC core %u", pl->count, pl->cc_core);
		return true;
	case DRM_IOCTL_CCORE_PROGRAM_FREE:
		snprintf(b, n, "program %u", *(const uint32_t *)arg);
		return true;
	case DRM_IOCTL_CCORE_SUBMIT:
		snprintf(b, n, "program %u (flags 0x%x, timeout_ms %u, syncobjs %u and %u)",
			 su->program, su->flags, su->timeout_ms, su->in_syncobj, su->out_syncobj);
		return true;
	case DRM_IOCTL_CCORE_JOB_WAIT:
		snprintf(b, n, "job %llu", (unsigned long long)jw->job);
		return true;
	case DRM_IOCTL_CCORE_CC_TRIGGER:
		snprintf(b, n, "CC core %u, count %u", ct->cc_core, ct->count);
		return true;
	default:
		return false;
	}
}

/* The rule @e names, if @req is a request whose argument subject() knows. */
static bool explain_reason(char *b, size_t n, unsigned long req, const void *arg,
			   const struct drm_ccore_last_error *e)
{
	char what[200], limit[40] = "";

	if (!subject(what, sizeof(what), req, arg, e->index))
		return false;
	if (e->limit)
		snprintf(limit, sizeof(limit), " (limit %llu)", (unsigned long long)e->limit);
	snprintf(b, n, "%s: reason %s: %s%s", what, ccore_reason_name(e->reason),
		 ccore_reason_text(e->reason), limit);
	return true;
}

int accel_fail(const struct accel_dev *d, unsigned long request, const void *arg, int err)
{
	struct drm_ccore_last_error e;
	bool named = last_error(d, &e);
	char what[400];

	if (!named || !names_rule(&e, request, err) ||
	    !explain_reason(what, sizeof(what), request, arg, &e))
		explain(d, what, sizeof(what), request, arg, err, named);
	return ccore_error(-err, "%s: %s (%s: %s) [device %u, " ACCEL_DIR "/%s]",
			   ccore_ioctl_name(request), strerror(err), errno_name(err), what,
			   d->base.index, d->node);
}
