// SPDX-License-Identifier: GPL-2.0
/*
 * Why the calling thread's last ioctl failed (DRM_IOCTL_CCORE_GET_LAST_ERROR).
 *
 * A handler that rejects its argument records the rule it broke for the
 * current thread (ccore_reject()); once drm_ioctl() returns, the ioctl
 * entry completes the record of a failed call with the ioctl and its
 * errno, or records no reason if the handler named none, so a thread
 * never reads the reason of an earlier call.  Records are kept per file
 * and per thread: the threads of one process, and the processes sharing
 * a device, never see each other's.  A file keeps a fixed table of them
 * (a process making threads without end cannot grow it); a thread whose
 * slot another took reads no reason.
 */
#include <linux/hash.h>
#include <linux/sched.h>

#include "ccore_drv.h"

static struct ccore_last_error *last_slot(struct ccore_file *cfile, pid_t tid)
{
	return &cfile->last[hash_32((u32)tid, ilog2(CCORE_LAST_ERRORS))];
}

/**
 * ccore_reject() - fail an ioctl of @file for a broken uAPI rule
 * @file: the caller's file
 * @ioctl: the ioctl's name, for the debug log
 * @rc: the negative errno
 * @err: the rule broken (its reason, index and limit) and what was wrong
 *
 * Only from an ioctl handler: the reason is the calling thread's.
 *
 * Return: @rc.
 */
int ccore_reject(struct drm_file *file, const char *ioctl, int rc, const struct ccm_err *err)
{
	struct ccore_file *cfile = file->driver_priv;
	pid_t tid = task_pid_nr(current);
	struct ccore_last_error *e = last_slot(cfile, tid);

	drm_dbg_driver(&cfile->cdev->drm, "%s: %s (%d, reason %u)\n", ioctl, err->msg, rc,
		       err->reason);
	spin_lock(&cfile->last_lock);
	*e = (struct ccore_last_error){
		.tid = tid, .armed = true,
		.e = { .reason = err->reason, .index = err->index, .limit = err->limit },
	};
	spin_unlock(&cfile->last_lock);
	return rc;
}

/**
 * ccore_last_error_end() - after ioctl @cmd of @filp returned @rc
 * @filp: the device file
 * @cmd: the ioctl's request
 * @rc: what it returned
 */
void ccore_last_error_end(struct file *filp, unsigned int cmd, long rc)
{
	struct drm_file *file = filp->private_data;
	struct ccore_file *cfile = file->driver_priv;
	pid_t tid = task_pid_nr(current);
	struct ccore_last_error *e = last_slot(cfile, tid);

	if (DRM_IOCTL_NR(cmd) == DRM_IOCTL_NR(DRM_IOCTL_CCORE_GET_LAST_ERROR))
		return;
	/* a call that succeeded records nothing: most do, without the lock */
	if (rc >= 0 && !(READ_ONCE(e->armed) && READ_ONCE(e->tid) == tid))
		return;
	spin_lock(&cfile->last_lock);
	if (rc >= 0) {
		if (e->tid == tid)
			e->armed = false;
	} else {
		if (e->tid != tid || !e->armed)
			*e = (struct ccore_last_error){
				.tid = tid, .e = { .index = CCM_NO_INDEX },
			};
		e->armed = false;
		e->e.ioctl = DRM_IOCTL_NR(cmd);
		e->e.error = rc;
	}
	spin_unlock(&cfile->last_lock);
}

int ccore_ioctl_get_last_error(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_last_error *a = data;
	pid_t tid = task_pid_nr(current);
	struct ccore_last_error *e = last_slot(cfile, tid);

	if (a->flags || a->pad)
		return -EINVAL;
	*a = (struct drm_ccore_last_error){ .ioctl = ~0u, .index = CCM_NO_INDEX };
	spin_lock(&cfile->last_lock);
	if (e->tid == tid && !e->armed)
		*a = e->e;
	spin_unlock(&cfile->last_lock);
	return 0;
}
