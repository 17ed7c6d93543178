// SPDX-License-Identifier: GPL-2.0
/*
 * Semaphores.  A file allocates blocks from a core's bank; it may read,
 * write and wait on what it allocated or imported.  A block is shared by
 * exporting it as a file descriptor that another file (of any device of the
 * same fabric) imports; the grant lasts while the exporter still owns the
 * block.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "ccore_drv.h"

struct ccore_sem_export {
	struct ccore_file *owner;	/* kref held */
	u32 first, count;
};

/* Called with hw->lock held (or from the verifier, which holds it). */
bool ccore_sem_usable(void *owner, u32 ref)
{
	struct ccore_file *cfile = owner;
	struct ccore_hw *hw = cfile->cdev->hw;
	struct ccore_sem_grant *g;
	void *holder = hw->ops->sem_owner(hw, ref);

	if (!holder)
		return false;
	if (holder == cfile)
		return true;
	list_for_each_entry(g, &cfile->grants, link)
		if (ref >= g->first && ref - g->first < g->count && holder == g->owner)
			return true;
	return false;
}

static int sem_check(struct ccore_file *cfile, u32 ref)
{
	struct ccore_hw *hw = cfile->cdev->hw;

	if (!hw->ops->sem_valid(hw, ref))
		return -EINVAL;
	return ccore_sem_usable(cfile, ref) ? 0 : -EACCES;
}

int ccore_ioctl_sem_alloc(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct drm_ccore_sem_alloc *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	int rc;

	if (a->pad)
		return -EINVAL;
	mutex_lock(&hw->lock);
	rc = hw->ops->sem_alloc(hw, cdev->index, a->core, a->count, file->driver_priv, &a->first,
				&err);
	mutex_unlock(&hw->lock);
	return rc ? ccore_fail(cdev, "SEM_ALLOC", rc, &err) : 0;
}

int ccore_ioctl_sem_free(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct drm_ccore_sem_free *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	int rc;

	if (a->pad)
		return -EINVAL;
	mutex_lock(&hw->lock);
	rc = hw->ops->sem_free(hw, a->first, file->driver_priv, &err);
	mutex_unlock(&hw->lock);
	return rc ? ccore_fail(cdev, "SEM_FREE", rc, &err) : 0;
}

int ccore_ioctl_sem_access(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct drm_ccore_sem_access *a = data;
	struct ccore_hw *hw = cdev->hw;
	int rc;

	if (a->pad || a->op > DRM_CCORE_SEM_ADD)
		return -EINVAL;
	mutex_lock(&hw->lock);
	rc = sem_check(file->driver_priv, a->sem);
	if (!rc) {
		hw->ops->sem_write(hw, a->sem, a->op, a->value);
		a->value = hw->ops->sem_read(hw, a->sem);
	}
	mutex_unlock(&hw->lock);
	if (!rc && a->op != DRM_CCORE_SEM_READ)
		hw->ops->kick(hw);
	return rc;
}

struct sem_wait_arg {
	struct ccore_hw *hw;
	u32 sem, value;
};

static bool sem_reached(void *p)
{
	struct sem_wait_arg *w = p;

	return w->hw->ops->sem_read(w->hw, w->sem) >= w->value || signal_pending(current);
}

int ccore_ioctl_sem_wait(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct drm_ccore_sem_wait *a = data;
	struct sem_wait_arg w = { .hw = cdev->hw, .sem = a->sem, .value = a->value };
	struct ccore_hw *hw = cdev->hw;
	int rc;

	mutex_lock(&hw->lock);
	rc = sem_check(file->driver_priv, a->sem);
	mutex_unlock(&hw->lock);
	if (rc)
		return rc;
	/* a deadline before the epoch is just past: the wait must not see
	 * it wrap around into the far future
	 */
	rc = hw->ops->wait(hw, sem_reached, &w, max_t(s64, a->timeout_ns, 0));
	if (hw->ops->sem_read(hw, a->sem) >= a->value)
		return 0;
	return signal_pending(current) ? -ERESTARTSYS : rc;
}

static int sem_export_release(struct inode *inode, struct file *filp)
{
	struct ccore_sem_export *e = filp->private_data;

	ccore_file_put(e->owner);
	kfree(e);
	return 0;
}

static const struct file_operations ccore_sem_export_fops = {
	.owner = THIS_MODULE,
	.release = sem_export_release,
};

int ccore_ioctl_sem_export(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_sem_export *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccore_sem_export *e;
	int rc;

	if (a->flags || a->pad)
		return -EINVAL;
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	mutex_lock(&hw->lock);
	rc = hw->ops->sem_block(hw, a->first, cfile, &e->count) ? -EINVAL : 0;
	mutex_unlock(&hw->lock);
	if (rc) {
		kfree(e);
		return rc;
	}
	e->first = a->first;
	e->owner = cfile;
	kref_get(&cfile->kref);
	rc = anon_inode_getfd("[ccore-sem]", &ccore_sem_export_fops, e, O_RDWR | O_CLOEXEC);
	if (rc < 0) {
		ccore_file_put(cfile);
		kfree(e);
		return rc;
	}
	a->fd = rc;
	return 0;
}

int ccore_ioctl_sem_import(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_sem_import *a = data;
	struct ccore_sem_export *e;
	struct ccore_sem_grant *g;
	struct file *f;
	int rc = 0;

	if (a->flags)
		return -EINVAL;
	f = fget(a->fd);
	if (!f)
		return -EBADF;
	if (f->f_op != &ccore_sem_export_fops) {
		fput(f);
		return -EINVAL;
	}
	e = f->private_data;
	if (e->owner->cdev->hw != cdev->hw) {
		fput(f);
		return -EXDEV;
	}
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g) {
		fput(f);
		return -ENOMEM;
	}
	g->owner = e->owner;
	kref_get(&g->owner->kref);
	g->first = e->first;
	g->count = e->count;
	fput(f);
	mutex_lock(&cdev->hw->lock);
	list_add_tail(&g->link, &cfile->grants);
	mutex_unlock(&cdev->hw->lock);
	a->first = g->first;
	a->count = g->count;
	return rc;
}

void ccore_sems_fini(struct ccore_file *cfile)
{
	struct ccore_hw *hw = cfile->cdev->hw;
	struct ccore_sem_grant *g, *tmp;

	mutex_lock(&hw->lock);
	hw->ops->sem_free_owner(hw, cfile);
	list_for_each_entry_safe(g, tmp, &cfile->grants, link) {
		list_del(&g->link);
		ccore_file_put(g->owner);
		kfree(g);
	}
	mutex_unlock(&hw->lock);
}
