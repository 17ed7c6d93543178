// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC queue: a fabric that is one host of several (config "here")
 * hands the descriptors whose effect lands on another host to userspace.
 *
 * A file reaches another host's memory through remote mappings
 * (NIC_REMOTE_MAP) and its semaphores through granted blocks
 * (NIC_REMOTE_SEMS); a descriptor naming them parks its ring (model/
 * ccm_nic.c).  The file that owns the ring is its proxy: poll() says
 * EPOLLIN while one of its rings waits, NIC_TAKE copies the transfer out
 * (only the file's own rings: no file takes another's), and NIC_DONE lets
 * the ring go on or fails it.  On the receiving host, NIC_DELIVER writes
 * the bytes into a buffer of the delivering file and changes one of its
 * semaphores, waking the CC cores that wait on it.  A file closing with
 * transfers posted or taken fails them, so its rings stop and nothing
 * waits for a proxy that is gone.
 */
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <drm/drm_gem.h>

#include "ccore_drv.h"

/* The statuses NIC_DONE passes on: 0 or an errno */
#define CCORE_NIC_ERRNO_MAX 4095

static int pad_nonzero(const char *what, u64 value, struct ccm_err *err)
{
	return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_PAD, 0, "%s must be zero, got %llu",
			  what, value);
}

static int flags_unknown(u32 flags, u32 allowed, struct ccm_err *err)
{
	return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_FLAGS, allowed,
			  "unknown flags 0x%x (allowed 0x%x)", flags, allowed);
}

static bool here_only(struct ccore_hw *hw)
{
	return hw->cfg.here == CCM_ALL_NODES;
}

int ccore_ioctl_nic_remote_map(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_nic_remote_map *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	int rc = 0;

	if (a->flags)
		rc = flags_unknown(a->flags, 0, &err);
	else if (here_only(hw) || a->device >= hw->num_devices ||
		 !hw->ops->dev_remote(hw, a->device))
		rc = ccm_reject(&err, -EINVAL, DRM_CCORE_REASON_NIC_NOT_REMOTE, 0,
				"device %u is not on another host (fabric of %u devices, node %u here%s)",
				a->device, hw->num_devices, cdev->index / hw->cfg.devices_per_node,
				here_only(hw) ? ", which holds every node" : "");
	else if (!a->size || a->size > hw->cfg.hbm_size || a->remote + a->size < a->remote)
		rc = ccm_reject(&err, -EINVAL, DRM_CCORE_REASON_NIC_SIZE, hw->cfg.hbm_size,
				"remote range of %llu bytes at 0x%llx: expected 1..%llu bytes, not wrapping",
				a->size, a->remote, hw->cfg.hbm_size);
	if (rc)
		return ccore_reject(file, "NIC_REMOTE_MAP", rc, &err);
	mutex_lock(&hw->lock);
	if (cfile->nic.maps >= CCORE_NIC_REMOTE_MAX) {
		rc = ccm_reject(&err, -ENOSPC, DRM_CCORE_REASON_NIC_LIMIT, CCORE_NIC_REMOTE_MAX,
				"the file has %u remote mappings, the most it may have",
				CCORE_NIC_REMOTE_MAX);
	} else {
		rc = ccm_vm_map_remote(&cfile->vm, a->size, a->device, a->remote, &a->dev_addr);
		if (!rc)
			cfile->nic.maps++;
	}
	mutex_unlock(&hw->lock);
	return rc && err.reason ? ccore_reject(file, "NIC_REMOTE_MAP", rc, &err) : rc;
}

int ccore_ioctl_nic_remote_sems(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_nic_remote_sems *a = data;
	struct ccore_hw *hw = cdev->hw;
	u32 last = a->first + a->count - 1;
	struct ccm_err err = {};
	int rc = 0;

	if (!a->count || a->count > hw->cfg.sems)
		rc = ccm_reject(&err, -EINVAL, DRM_CCORE_REASON_NIC_SIZE, hw->cfg.sems,
				"count is %u; expected 1..%u semaphores", a->count, hw->cfg.sems);
	else if (here_only(hw) || !hw->ops->sem_valid(hw, a->first) ||
		 !hw->ops->sem_valid(hw, last) ||
		 !hw->ops->dev_remote(hw, DRM_CCORE_SEM_REF_DEV(a->first)) ||
		 DRM_CCORE_SEM_REF_DEV(a->first) != DRM_CCORE_SEM_REF_DEV(last) ||
		 DRM_CCORE_SEM_REF_CORE(a->first) != DRM_CCORE_SEM_REF_CORE(last))
		rc = ccm_reject(&err, -EINVAL, DRM_CCORE_REASON_NIC_NOT_REMOTE, 0,
				"semaphores 0x%08x +%u: not a block of one core of a device on another host",
				a->first, a->count);
	if (rc)
		return ccore_reject(file, "NIC_REMOTE_SEMS", rc, &err);
	mutex_lock(&hw->lock);
	if (cfile->nic.nsems >= CCORE_NIC_REMOTE_MAX) {
		rc = ccm_reject(&err, -ENOSPC, DRM_CCORE_REASON_NIC_LIMIT, CCORE_NIC_REMOTE_MAX,
				"the file has %u remote semaphore blocks, the most it may have",
				CCORE_NIC_REMOTE_MAX);
	} else if (!cfile->nic.sems) {
		cfile->nic.sems = kcalloc(CCORE_NIC_REMOTE_MAX, sizeof(*cfile->nic.sems),
					  GFP_KERNEL);
		if (!cfile->nic.sems)
			rc = -ENOMEM;
	}
	if (!rc) {
		cfile->nic.sems[cfile->nic.nsems].first = a->first;
		cfile->nic.sems[cfile->nic.nsems++].count = a->count;
	}
	mutex_unlock(&hw->lock);
	return rc && err.reason ? ccore_reject(file, "NIC_REMOTE_SEMS", rc, &err) : rc;
}

/*
 * The verifier's ownership test for descriptors: the file's own or
 * imported semaphores, and those of other hosts it was granted.  Called
 * with hw->lock held.
 */
bool ccore_nic_sem_usable(void *owner, u32 ref)
{
	struct ccore_file *cfile = owner;
	u32 i;

	if (ccore_sem_usable(owner, ref))
		return true;
	for (i = 0; i < cfile->nic.nsems; i++)
		if (ref >= cfile->nic.sems[i].first &&
		    ref - cfile->nic.sems[i].first < cfile->nic.sems[i].count)
			return true;
	return false;
}

/* One of @cfile's rings parked for the NIC and not taken; hw->lock held. */
static struct ccore_ring *nic_next(struct ccore_file *cfile, unsigned long *handle)
{
	struct ccore_hw *hw = cfile->cdev->hw;
	struct ccore_ring *r;

	xa_for_each(&cfile->rings, *handle, r)
		if (hw->ops->nic_posted(hw, cfile->cdev->index, r->u.core, r->u.engine,
					r->u.ring))
			return r;
	return NULL;
}

__poll_t ccore_nic_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct drm_file *file = filp->private_data;
	struct ccore_file *cfile = file->driver_priv;
	struct ccore_hw *hw = cfile->cdev->hw;
	__poll_t mask = drm_poll(filp, wait);
	unsigned long h;

	poll_wait(filp, &hw->nic_wq, wait);
	mutex_lock(&hw->lock);
	if (nic_next(cfile, &h))
		mask |= EPOLLIN | EPOLLRDNORM;
	mutex_unlock(&hw->lock);
	return mask;
}

/*
 * The buffer of @r behind the transfer's source bytes, referenced so that
 * they stay while they are copied out without hw->lock: a reset may drop
 * the parked descriptor and let the ring go meanwhile.
 */
static struct drm_gem_object *nic_source_bo(struct ccore_ring *r, const struct ccm_nic_xfer *x)
{
	u32 i;

	for (i = 0; i < r->nbos; i++) {
		struct ccore_bo *bo = to_ccore_bo(r->bos[i]);
		const u8 *start = bo->vaddr;

		if (x->src >= start && x->len <= r->bos[i]->size &&
		    x->src - start <= r->bos[i]->size - x->len) {
			drm_gem_object_get(r->bos[i]);
			return r->bos[i];
		}
	}
	return NULL;
}

static void nic_take_out(struct drm_ccore_nic_take *a, unsigned long handle,
			 const struct ccore_ring *r)
{
	const struct ccm_nic_xfer *x = &r->nic;

	a->ring = handle;
	a->seq = r->nic_seq;
	a->what = (x->data ? DRM_CCORE_NIC_F_DATA : 0) | (x->has_sem ? DRM_CCORE_NIC_F_SEM : 0) |
		  (x->set ? DRM_CCORE_NIC_F_SET : 0);
	a->len = x->data ? x->len : 0;
	a->to = x->data ? x->to : 0;
	a->to_device = x->data ? x->to_dev : 0;
	a->sem = x->has_sem ? x->sem : 0;
	a->value = x->has_sem ? x->value : 0;
}

int ccore_ioctl_nic_take(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_nic_take *a = data;
	struct drm_gem_object *src_bo = NULL;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_nic_xfer x = {};
	struct ccm_err err = {};
	struct ccore_ring *r;
	unsigned long h;
	int rc;

	if (a->flags)
		return ccore_reject(file, "NIC_TAKE", flags_unknown(a->flags, 0, &err), &err);
	if (a->pad)
		return ccore_reject(file, "NIC_TAKE", pad_nonzero("pad", a->pad, &err), &err);
	mutex_lock(&hw->lock);
	r = nic_next(cfile, &h);
	rc = r ? hw->ops->nic_take(hw, cdev->index, r->u.core, r->u.engine, r->u.ring,
				   a->data_size, &x) : -EAGAIN;
	if (rc == -EMSGSIZE) {
		a->len = x.len;
		rc = ccm_reject(&err, -ENOSPC, DRM_CCORE_REASON_NIC_BUFFER, x.len,
				"the next transfer has %llu bytes; the buffer holds %llu",
				x.len, a->data_size);
	} else if (rc) {
		rc = ccm_reject(&err, -EAGAIN, DRM_CCORE_REASON_NIC_NOTHING, 0,
				"no transfer of this file's rings waits for the NIC");
	} else {
		/* a take the proxy never reported went with a reset of the ring */
		r->nic = x;
		r->nic_seq++;
		r->nic_taken = true;
		nic_take_out(a, h, r);
		if (x.data)
			src_bo = nic_source_bo(r, &x);
	}
	mutex_unlock(&hw->lock);
	if (rc)
		return ccore_reject(file, "NIC_TAKE", rc, &err);
	if (!x.data)
		return 0;
	if (!src_bo || copy_to_user(u64_to_user_ptr(a->data), x.src, x.len)) {
		/* the proxy cannot carry what it cannot read: the transfer fails */
		mutex_lock(&hw->lock);
		r = xa_load(&cfile->rings, h);
		if (r && r->nic_taken && r->nic_seq == a->seq) {
			r->nic_taken = false;
			hw->ops->nic_done(hw, &r->nic, -EFAULT);
		}
		mutex_unlock(&hw->lock);
		rc = -EFAULT;
	}
	if (src_bo)
		drm_gem_object_put(src_bo);
	return rc;
}

int ccore_ioctl_nic_done(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_nic_done *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	struct ccore_ring *r;
	int rc = 0;

	if (a->pad)
		rc = pad_nonzero("pad", a->pad, &err);
	else if (a->status > 0 || a->status < -CCORE_NIC_ERRNO_MAX)
		rc = ccm_reject(&err, -EINVAL, DRM_CCORE_REASON_NIC_STATUS, 0,
				"status %d: expected 0 or a negative errno (-%d..-1)", a->status,
				CCORE_NIC_ERRNO_MAX);
	if (rc)
		return ccore_reject(file, "NIC_DONE", rc, &err);
	mutex_lock(&hw->lock);
	r = xa_load(&cfile->rings, a->ring);
	if (r && r->nic_taken && r->nic_seq == a->seq) {
		r->nic_taken = false;
		hw->ops->nic_done(hw, &r->nic, a->status);
	} else {
		rc = ccm_reject(&err, -ENOENT, DRM_CCORE_REASON_NIC_XFER, 0,
				"ring %u has no transfer %u taken and not yet done", a->ring,
				a->seq);
	}
	mutex_unlock(&hw->lock);
	if (rc)
		return ccore_reject(file, "NIC_DONE", rc, &err);
	/* the ring goes on: let it run now rather than at the next wake */
	hw->ops->kick(hw);
	return 0;
}

static int deliver_check(struct ccore_hw *hw, struct ccore_file *cfile,
			 const struct drm_ccore_nic_deliver *a, struct ccm_err *err)
{
	bool data = a->flags & DRM_CCORE_NIC_F_DATA, sem = a->flags & DRM_CCORE_NIC_F_SEM;
	bool valid;

	if (a->pad)
		return pad_nonzero("pad", a->pad, err);
	if (a->flags & ~DRM_CCORE_NIC_FLAGS || !(data || sem) ||
	    ((a->flags & DRM_CCORE_NIC_F_SET) && !sem))
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_FLAGS, DRM_CCORE_NIC_FLAGS,
				  "flags 0x%x: expected DATA (0x1), SEM (0x2) or both, SET (0x4) only with SEM",
				  a->flags);
	if (!data && (a->to || a->len || a->data))
		return pad_nonzero("to, len and data without DATA", a->to | a->len | a->data, err);
	if (!sem && (a->sem || a->value))
		return pad_nonzero("sem and value without SEM", (u64)a->sem | a->value, err);
	if (data && !a->len)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_NIC_SIZE, hw->cfg.hbm_size,
				  "len is 0; DATA carries 1..%llu bytes", hw->cfg.hbm_size);
	if (!sem)
		return 0;
	valid = hw->ops->sem_valid(hw, a->sem) &&
		!hw->ops->dev_remote(hw, DRM_CCORE_SEM_REF_DEV(a->sem));
	return ccm_uapi_sem_usable(a->sem, valid, valid && ccore_sem_usable(cfile, a->sem), err);
}

/*
 * The buffer of @cfile behind [@to, @to + @len), referenced, and where
 * those bytes are; hw->lock held.
 */
static struct drm_gem_object *deliver_target(struct ccore_file *cfile, u64 to, u64 len,
					     u8 **host, struct ccm_err *err)
{
	const struct ccm_vm_map *m = ccm_vm_find(&cfile->vm, to, len);

	if (!m || !m->bo) {
		ccm_reject(err, -EINVAL, DRM_CCORE_REASON_NIC_TARGET, 0,
			   "%llu bytes at 0x%llx are not inside one buffer of this file%s",
			   len, to, ccm_vm_find_any(&cfile->vm, to, len) ?
			   " (that is another host's memory)" : "");
		return NULL;
	}
	*host = m->host + (to - m->va);
	drm_gem_object_get(m->bo);
	return m->bo;
}

/* Bytes NIC_DELIVER copies through the kernel at once */
#define CCORE_NIC_CHUNK (64u << 10)

/*
 * copy_from_user() zero-fills what it could not copy: straight into device
 * memory, a bad pointer would write zeros the sender never sent.  So each
 * chunk goes through a bounce buffer, and lands only when it was read
 * whole: on -EFAULT the chunks before the fault have landed, no others.
 */
static int deliver_bytes(u8 *host, const void __user *src, u64 len)
{
	size_t chunk = min_t(u64, len, CCORE_NIC_CHUNK);
	u8 *bounce = kvmalloc(chunk, GFP_KERNEL);
	u64 off;
	int rc = 0;

	if (!bounce)
		return -ENOMEM;
	for (off = 0; off < len && !rc; off += chunk) {
		chunk = min_t(u64, len - off, CCORE_NIC_CHUNK);
		if (copy_from_user(bounce, src + off, chunk))
			rc = -EFAULT;
		else
			memcpy(host + off, bounce, chunk);
		if (fatal_signal_pending(current))
			rc = rc ?: -EINTR;
	}
	kvfree(bounce);
	return rc;
}

int ccore_ioctl_nic_deliver(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_nic_deliver *a = data;
	struct drm_gem_object *bo = NULL;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	u8 *host = NULL;
	int rc;

	mutex_lock(&hw->lock);
	rc = deliver_check(hw, cfile, a, &err);
	if (!rc && (a->flags & DRM_CCORE_NIC_F_DATA)) {
		bo = deliver_target(cfile, a->to, a->len, &host, &err);
		rc = bo ? 0 : -EINVAL;
	}
	mutex_unlock(&hw->lock);
	if (rc)
		return ccore_reject(file, "NIC_DELIVER", rc, &err);
	/* the buffer stays while referenced; the bytes land before the signal */
	if (bo) {
		rc = deliver_bytes(host, u64_to_user_ptr(a->data), a->len);
		drm_gem_object_put(bo);
		if (rc)
			return rc;
	}
	if (a->flags & DRM_CCORE_NIC_F_SEM) {
		rc = hw->ops->nic_arrived(hw, a->sem, a->value, a->flags & DRM_CCORE_NIC_F_SET);
		hw->ops->kick(hw);
	}
	return rc;
}

/*
 * Before the file's rings are aborted: the transfers they are parked on
 * fail (a taken one was never reported, a posted one has no proxy left),
 * so the rings can drop them and stop.
 */
void ccore_nic_fini(struct ccore_file *cfile)
{
	struct ccore_hw *hw = cfile->cdev->hw;
	struct ccore_ring *r;
	unsigned long h;

	mutex_lock(&hw->lock);
	if (!here_only(hw)) {
		xa_for_each(&cfile->rings, h, r) {
			hw->ops->nic_cancel(hw, cfile->cdev->index, r->u.core, r->u.engine,
					    r->u.ring, -ECONNABORTED);
			r->nic_taken = false;
		}
	}
	kfree(cfile->nic.sems);
	cfile->nic.sems = NULL;
	cfile->nic.nsems = 0;
	mutex_unlock(&hw->lock);
}
