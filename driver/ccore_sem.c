// SPDX-License-Identifier: GPL-2.0
/*
 * Semaphores.  A file allocates blocks from a core's bank; it may read,
 * write and wait on what it allocated or imported.  A block is shared by
 * exporting it as a file descriptor that another file (of any device of the
 * same fabric) imports; the grant names that allocation and ends with it.
 *
 * Programs and rings are checked when loaded or written, and run later: so
 * every block they refer to is pinned until they go.  A pinned block
 * cannot be freed (-EBUSY), and one whose owner closes stays allocated
 * until its last pin goes: the semaphores a loaded program or a written
 * descriptor names are never handed to someone else meanwhile.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "ccore_drv.h"

struct ccore_sem_export {
	struct ccore_file *owner;	/* kref held */
	u32 first, count;
	u64 serial;
};

static atomic64_t sem_serial = ATOMIC64_INIT(0);

/* The block @ref belongs to, or NULL; called with hw->lock held. */
static struct ccore_sem_block *sem_block_of(struct ccore_hw *hw, u32 ref)
{
	struct ccore_file *holder = hw->ops->sem_owner(hw, ref);
	struct ccore_sem_block *b;

	if (!holder)
		return NULL;
	list_for_each_entry(b, &holder->sem_blocks, link)
		if (ccm_uapi_sem_in(&b->u, ref))
			return b;
	return NULL;
}

/* Has @cfile imported allocation @serial of @owner?  hw->lock held. */
static bool sem_granted(struct ccore_file *cfile, struct ccore_file *owner, u64 serial)
{
	struct ccore_sem_grant *g;

	list_for_each_entry(g, &cfile->grants, link)
		if (g->owner == owner && g->serial == serial)
			return true;
	return false;
}

/* Called with hw->lock held (or from the verifier, which holds it). */
bool ccore_sem_usable(void *owner, u32 ref)
{
	struct ccore_file *cfile = owner;
	struct ccore_sem_block *b = sem_block_of(cfile->cdev->hw, ref);

	if (!b)
		return false;
	return b->u.owner == cfile || sem_granted(cfile, ccore_sem_block_owner(b), b->u.serial);
}

static void sem_block_free_entry(struct ccore_sem_block *b)
{
	list_del(&b->link);
	kfree(b);
}

static void sem_block_free(struct ccore_hw *hw, struct ccore_sem_block *b)
{
	hw->ops->sem_free(hw, b->u.first, b->u.owner, NULL);
	sem_block_free_entry(b);
}

/**
 * ccore_sem_pin() - pin the block of semaphore @ref for a program or ring
 * @hw: the fabric
 * @pins: the program's or ring's pins; a block already there is not pinned
 *	twice
 * @ref: a semaphore the caller may use (checked by the verifier)
 *
 * Called with hw->lock held.  Return: 0 or -ENOMEM.
 */
int ccore_sem_pin(struct ccore_hw *hw, struct ccore_sem_pins *pins, u32 ref)
{
	struct ccore_sem_block *b = sem_block_of(hw, ref);
	struct ccore_sem_block **blocks;
	u32 i;

	if (!b)
		return 0;
	for (i = 0; i < pins->count; i++)
		if (pins->blocks[i] == b)
			return 0;
	blocks = krealloc_array(pins->blocks, pins->count + 1, sizeof(*blocks), GFP_KERNEL);
	if (!blocks)
		return -ENOMEM;
	pins->blocks = blocks;
	pins->blocks[pins->count++] = b;
	b->u.pins++;
	kref_get(&ccore_sem_block_owner(b)->kref);
	return 0;
}

/* Called with hw->lock held; a closed owner's block goes with its last pin. */
void ccore_sem_unpin_all(struct ccore_hw *hw, struct ccore_sem_pins *pins)
{
	struct ccore_sem_block *b;
	struct ccore_file *owner;
	u32 i;

	for (i = 0; i < pins->count; i++) {
		b = pins->blocks[i];
		owner = ccore_sem_block_owner(b);
		if (!--b->u.pins && owner->closing)
			sem_block_free(hw, b);
		ccore_file_put(owner);
	}
	kfree(pins->blocks);
	pins->blocks = NULL;
	pins->count = 0;
}

static int sem_check(struct ccore_file *cfile, u32 ref, struct ccm_err *err)
{
	struct ccore_hw *hw = cfile->cdev->hw;
	bool valid = hw->ops->sem_valid(hw, ref);

	return ccm_uapi_sem_usable(ref, valid, valid && ccore_sem_usable(cfile, ref), err);
}

int ccore_ioctl_sem_alloc(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct drm_ccore_sem_alloc *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccore_file *cfile = file->driver_priv;
	struct ccore_sem_block *b;
	struct ccm_err err = {};
	int rc;

	rc = ccm_uapi_sem_alloc(a, &err);
	if (rc)
		return ccore_reject(file, "SEM_ALLOC", rc, &err);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	mutex_lock(&hw->lock);
	rc = hw->ops->sem_alloc(hw, cdev->index, a->core, a->count, cfile, &a->first, &err);
	if (!rc) {
		b->u = (struct ccm_uapi_sem_block){
			.owner = cfile, .first = a->first, .count = a->count,
			.serial = atomic64_inc_return(&sem_serial),
		};
		list_add_tail(&b->link, &cfile->sem_blocks);
		b = NULL;
	}
	mutex_unlock(&hw->lock);
	kfree(b);
	return rc ? ccore_reject(file, "SEM_ALLOC", rc, &err) : 0;
}

/* The block of @cfile that starts at @first; called with hw->lock held. */
static struct ccore_sem_block *own_block(struct ccore_file *cfile, u32 first)
{
	struct ccore_sem_block *b;

	list_for_each_entry(b, &cfile->sem_blocks, link)
		if (b->u.first == first)
			return b;
	return NULL;
}

int ccore_ioctl_sem_free(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct drm_ccore_sem_free *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccore_sem_block *b;
	struct ccm_err err = {};
	int rc;

	mutex_lock(&hw->lock);
	b = own_block(file->driver_priv, a->first);
	/* not a block of ours: the hardware says why */
	rc = ccm_uapi_sem_free(a, b ? &b->u : NULL, &err) ?:
	     hw->ops->sem_free(hw, a->first, file->driver_priv, &err);
	if (!rc && b)
		sem_block_free_entry(b);
	mutex_unlock(&hw->lock);
	return rc ? ccore_reject(file, "SEM_FREE", rc, &err) : 0;
}

int ccore_ioctl_sem_access(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct drm_ccore_sem_access *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	int rc;

	rc = ccm_uapi_sem_access(a, &err);
	if (rc)
		return ccore_reject(file, "SEM_ACCESS", rc, &err);
	mutex_lock(&hw->lock);
	rc = sem_check(file->driver_priv, a->sem, &err);
	if (!rc) {
		hw->ops->sem_write(hw, a->sem, a->op, a->value);
		a->value = hw->ops->sem_read(hw, a->sem);
	}
	mutex_unlock(&hw->lock);
	if (rc)
		return ccore_reject(file, "SEM_ACCESS", rc, &err);
	if (a->op != DRM_CCORE_SEM_READ)
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
	struct ccm_err err = {};
	int rc;

	mutex_lock(&hw->lock);
	rc = sem_check(file->driver_priv, a->sem, &err);
	mutex_unlock(&hw->lock);
	if (rc)
		return ccore_reject(file, "SEM_WAIT", rc, &err);
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
	struct ccore_sem_block *b;
	struct ccore_sem_export *e;
	struct ccm_err err = {};
	int rc;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	mutex_lock(&hw->lock);
	b = own_block(cfile, a->first);
	rc = ccm_uapi_sem_export(a, b ? &b->u : NULL, &err);
	if (!rc) {
		e->count = b->u.count;
		e->serial = b->u.serial;
	}
	mutex_unlock(&hw->lock);
	if (rc) {
		kfree(e);
		return ccore_reject(file, "SEM_EXPORT", rc, &err);
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
	struct ccm_err err = {};
	struct file *f;
	int rc = 0;

	f = a->flags ? NULL : fget(a->fd);
	e = f && f->f_op == &ccore_sem_export_fops ? f->private_data : NULL;
	rc = ccm_uapi_sem_import(a, !!f, !!e, e && e->owner->cdev->hw == cdev->hw, &err);
	if (rc) {
		if (f)
			fput(f);
		return ccore_reject(file, "SEM_IMPORT", rc, &err);
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
	g->serial = e->serial;
	fput(f);
	a->first = g->first;
	a->count = g->count;
	mutex_lock(&cdev->hw->lock);
	/*
	 * Importing the same allocation again grants nothing new: the list
	 * (walked by every check) must not grow with repeated imports.
	 */
	if (sem_granted(cfile, g->owner, g->serial)) {
		mutex_unlock(&cdev->hw->lock);
		ccore_file_put(g->owner);
		kfree(g);
		return rc;
	}
	list_add_tail(&g->link, &cfile->grants);
	mutex_unlock(&cdev->hw->lock);
	return rc;
}

void ccore_sems_fini(struct ccore_file *cfile)
{
	struct ccore_hw *hw = cfile->cdev->hw;
	struct ccore_sem_block *b, *btmp;
	struct ccore_sem_grant *g, *tmp;

	/* the file's own pins went with its programs and rings */
	mutex_lock(&hw->lock);
	list_for_each_entry_safe(b, btmp, &cfile->sem_blocks, link)
		if (!b->u.pins)
			sem_block_free(hw, b);
	list_for_each_entry_safe(g, tmp, &cfile->grants, link) {
		list_del(&g->link);
		ccore_file_put(g->owner);
		kfree(g);
	}
	mutex_unlock(&hw->lock);
}
