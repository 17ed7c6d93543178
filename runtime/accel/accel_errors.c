// SPDX-License-Identifier: MIT
/*
 * What an errno from the ccore driver means, ioctl by ioctl.  The driver
 * returns only the errno (its own text goes to the kernel log with
 * drm.debug=0x2); the runtime's last error names the ioctl, the errno and
 * what it means there, with the values of the argument that matter.
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

static void explain(const struct accel_dev *d, char *b, size_t n, unsigned long req,
		    const void *arg, int err)
{
	const struct drm_ccore_param_args *pa = arg;
	const struct drm_ccore_bo_create *bc = arg;
	const struct drm_ccore_bo_mmap_offset *mo = arg;
	const struct drm_ccore_bo_info *bi = arg;
	const struct drm_gem_close *gc = arg;
	const struct drm_prime_handle *ph = arg;
	const struct drm_ccore_ring_create *rc = arg;
	const struct drm_ccore_ring_destroy *rd = arg;
	const struct drm_ccore_ring_submit *rs = arg;
	const struct drm_ccore_ring_stats *rst = arg;
	const struct drm_ccore_sem_alloc *sa = arg;
	const struct drm_ccore_sem_free *sf = arg;
	const struct drm_ccore_sem_access *sx = arg;
	const struct drm_ccore_sem_wait *sw = arg;
	const struct drm_ccore_sem_export *se = arg;
	const struct drm_ccore_sem_import *si = arg;
	const struct drm_ccore_program_load *pl = arg;
	const struct drm_ccore_program_free *pf = arg;
	const struct drm_ccore_submit *su = arg;
	const struct drm_ccore_job_wait *jw = arg;
	const struct drm_ccore_cc_trigger *ct = arg;
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
	case DRM_IOCTL_CCORE_RING_CREATE:
		if (err == EBUSY) {
			snprintf(b, n, "ring %u of engine %u on core %u is already claimed, by this file or another one (another process or runtime instance on the device)",
				 rc->ring, rc->engine, rc->core);
			return;
		}
		if (err == EINVAL && (rc->pad || rc->pad2)) {
			snprintf(b, n, "pad %u and pad2 %u must be zero", rc->pad, rc->pad2);
			return;
		}
		if (err == EINVAL && (rc->index_count || rc->index_stride)) {
			snprintf(b, n, "index_stride %lld index_count %u: index_count 0 (not indexed, index_stride 0) or 1..%u, |index_stride| at most %lld; or core %u engine %u ring %u size %u packet %u flags 0x%x out of range" DEBUG_HINT,
				 (long long)rc->index_stride, rc->index_count,
				 DRM_CCORE_MAX_INDEX_COUNT, (long long)DRM_CCORE_MAX_INDEX_STRIDE,
				 rc->core, rc->engine, rc->ring, rc->size, rc->packet_size,
				 rc->flags);
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "core %u engine %u ring %u size %u packet %u flags 0x%x: out of the device's range (NUM_CORES, ENGINES_PER_CORE, RINGS_PER_ENGINE, MAX_RING_SIZE; packet a power of two in MIN..MAX_PACKET_SIZE or 0)" DEBUG_HINT,
				 rc->core, rc->engine, rc->ring, rc->size, rc->packet_size, rc->flags);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_RING_DESTROY:
		if (err == ENOENT) {
			snprintf(b, n, "no ring with handle %u in this file", rd->handle);
			return;
		}
		if (err == EBUSY) {
			snprintf(b, n, "ring %u still has descriptors in flight", rd->handle);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_RING_SUBMIT:
		if (err == ENOENT) {
			snprintf(b, n, "no ring with handle %u in this file, or START on a ring with no descriptors",
				 rs->handle);
			return;
		}
		if (err == EACCES) {
			snprintf(b, n, "descriptor %d of ring %u names a semaphore this file did not allocate or import",
				 (int)rs->bad_index, rs->handle);
			return;
		}
		if (err == EINVAL) {
			if (rs->bad_index != ~0u)
				snprintf(b, n, "descriptor %u of ring %u is not valid: op, dtype, redop, flags, length, or an address outside this file's buffers and imports (on an indexed ring, at any index)" DEBUG_HINT,
					 rs->bad_index, rs->handle);
			else
				snprintf(b, n, "ring %u: count %u must be 1..2^20 and flags 0x%x only START",
					 rs->handle, rs->count, rs->flags);
			return;
		}
		if (err == ENOSPC) {
			snprintf(b, n, "ring %u has fewer free slots than the %u descriptors given",
				 rs->handle, rs->count);
			return;
		}
		if (err == EBUSY) {
			snprintf(b, n, "ring %u has descriptors in flight; write it while idle", rs->handle);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_RING_STATS:
		if (err == ENOENT) {
			snprintf(b, n, "no ring with handle %u in this file", rst->handle);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_SEM_ALLOC:
		if (err == ENOSPC) {
			snprintf(b, n, "no %u free consecutive semaphores on core %u (other files on the device hold the rest)",
				 sa->count, sa->core);
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "core %u or count %u out of range (NUM_CORES, 1..SEMS_PER_CORE) or pad not zero",
				 sa->core, sa->count);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_SEM_FREE:
		if (err == EINVAL) {
			snprintf(b, n, "semaphore 0x%08x is not the first of a block this file allocated",
				 sf->first);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_SEM_ACCESS:
	case DRM_IOCTL_CCORE_SEM_WAIT: {
		uint32_t sem = req == DRM_IOCTL_CCORE_SEM_WAIT ? sw->sem : sx->sem;

		if (err == EACCES) {
			snprintf(b, n, "semaphore 0x%08x is not yours: this file neither allocated it nor imported its block",
				 sem);
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "semaphore 0x%08x (device %u core %u index %u) does not exist%s",
				 sem, DRM_CCORE_SEM_REF_DEV(sem), DRM_CCORE_SEM_REF_CORE(sem),
				 DRM_CCORE_SEM_REF_IDX(sem),
				 req == DRM_IOCTL_CCORE_SEM_ACCESS ? ", or op is not READ, SET or ADD" : "");
			return;
		}
		if (err == ETIMEDOUT) {
			snprintf(b, n, "semaphore 0x%08x still below %u at the deadline", sw->sem, sw->value);
			return;
		}
		break;
	}
	case DRM_IOCTL_CCORE_SEM_EXPORT:
		if (err == EINVAL) {
			snprintf(b, n, "semaphore 0x%08x is not the first of a block this file allocated, or flags/pad not zero",
				 se->first);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_SEM_IMPORT:
		if (err == EBADF) {
			snprintf(b, n, "fd %d is not an open file", si->fd);
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "fd %d is not a SEM_EXPORT file descriptor, or flags not zero", si->fd);
			return;
		}
		if (err == EXDEV) {
			snprintf(b, n, "fd %d names semaphores of another fabric", si->fd);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_PROGRAM_LOAD:
		if (err == ENOSPC) {
			snprintf(b, n, "CC core %u's instruction memory has no room for %u more instructions",
				 pl->cc_core, pl->count);
			return;
		}
		if (err == EACCES) {
			snprintf(b, n, "instruction %d names a semaphore or ring this file does not own",
				 (int)pl->bad_index);
			return;
		}
		if (err == EINVAL) {
			if (pl->bad_index != ~0u)
				snprintf(b, n, "instruction %u is not valid: opcode, operands or branch target" DEBUG_HINT,
					 pl->bad_index);
			else
				snprintf(b, n, "CC core %u or count %u out of range (NUM_CORES * CC_CORES_PER_CORE, 1..MAX_PROGRAM_SIZE)" DEBUG_HINT,
					 pl->cc_core, pl->count);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_PROGRAM_FREE:
		if (err == ENOENT) {
			snprintf(b, n, "no program with handle %u in this file", pf->handle);
			return;
		}
		if (err == EBUSY) {
			snprintf(b, n, "program %u still has jobs queued or running", pf->handle);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_SUBMIT:
		if (err == ENOENT) {
			snprintf(b, n, "no program with handle %u in this file, or syncobj %u/%u does not exist",
				 su->program, su->in_syncobj, su->out_syncobj);
			return;
		}
		if (err == EINVAL) {
			snprintf(b, n, "flags 0x%x (only TRIGGER) or pad not zero, or the in_syncobj has no fence",
				 su->flags);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_JOB_WAIT:
		if (err == EINVAL) {
			snprintf(b, n, "job %llu is unknown to this file or too old (the last %u are kept)",
				 (unsigned long long)jw->job, 4096);
			return;
		}
		if (err == ETIMEDOUT) {
			snprintf(b, n, "job %llu still running at the deadline", (unsigned long long)jw->job);
			return;
		}
		break;
	case DRM_IOCTL_CCORE_CC_TRIGGER:
		if (err == EINVAL) {
			snprintf(b, n, "CC core %u out of range or count %u not 1..65535", ct->cc_core,
				 ct->count);
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
	snprintf(b, n, "%s", c ? c : "not an error this ioctl is documented to return");
}

int accel_fail(const struct accel_dev *d, unsigned long request, const void *arg, int err)
{
	char what[400];

	explain(d, what, sizeof(what), request, arg, err);
	return ccore_error(-err, "%s: %s (%s: %s) [device %u, " ACCEL_DIR "/%s]",
			   ccore_ioctl_name(request), strerror(err), errno_name(err), what,
			   d->base.index, d->node);
}
