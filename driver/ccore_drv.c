// SPDX-License-Identifier: GPL-2.0
/*
 * ccore: the DRM accel driver.  Registers one accel device per device of a
 * fabric, routes the uAPI to the per-concern files and releases everything
 * a file created when it is closed.
 */
#include <linux/compat.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <drm/drm_accel.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_prime.h>

#include "ccore_drv.h"
#include "ccore_sim.h"

/*
 * Every registered device of every fabric, in order of registration, for
 * the netlink family's dumps.  A device leaves the list before it is
 * unplugged, and the lock is held while a walker looks at a device, so
 * what a walker sees is registered and alive.  The generation changes
 * with every addition and removal: a dump spanning several messages sees
 * whether the list changed under it.
 */
static LIST_HEAD(ccore_devices);
static DEFINE_MUTEX(ccore_devices_lock);	/* the list, the ids, the generation */
static u64 ccore_devices_last_id;
static u32 ccore_devices_gen = 1;

/**
 * ccore_devices_walk() - call @fn on every registered device from @pos on
 * @pos: in: the registry id to start from; out: that of the device @fn
 *       stopped at, if it did
 * @gen: if not NULL, set to the registry's generation before the walk
 * @fn: called with the registry lock held; non-zero stops the walk
 * @arg: passed to @fn
 *
 * The registry lock is taken before any hw->lock: @fn may take hw->lock,
 * and nothing holding hw->lock may add or remove a device.
 *
 * Return: what @fn returned when it stopped the walk, or 0.
 */
int ccore_devices_walk(u64 *pos, u32 *gen,
		       int (*fn)(struct ccore_device *cdev, void *arg), void *arg)
{
	struct ccore_device *cdev;
	int rc = 0;

	mutex_lock(&ccore_devices_lock);
	if (gen)
		*gen = ccore_devices_gen;
	list_for_each_entry(cdev, &ccore_devices, registry) {
		if (cdev->registry_id < *pos)
			continue;
		rc = fn(cdev, arg);
		if (rc) {
			*pos = cdev->registry_id;
			break;
		}
	}
	mutex_unlock(&ccore_devices_lock);
	return rc;
}

static void ccore_registry_add(struct ccore_device *cdev)
{
	mutex_lock(&ccore_devices_lock);
	cdev->registry_id = ++ccore_devices_last_id;
	list_add_tail(&cdev->registry, &ccore_devices);
	ccore_devices_gen++;
	mutex_unlock(&ccore_devices_lock);
}

static void ccore_registry_del(struct ccore_device *cdev)
{
	mutex_lock(&ccore_devices_lock);
	list_del(&cdev->registry);
	ccore_devices_gen++;
	mutex_unlock(&ccore_devices_lock);
}

/*
 * Models' error texts name the bad field; userspace sees only the errno,
 * so the text goes to the debug log (drm.debug=0x2).
 */
int ccore_fail(struct ccore_device *cdev, const char *ioctl, int rc,
	       const struct ccm_err *err)
{
	drm_dbg_driver(&cdev->drm, "%s: %s (%d)\n", ioctl, err->msg, rc);
	return rc;
}

static int ccore_open(struct drm_device *drm, struct drm_file *file)
{
	struct ccore_file *cfile;

	cfile = kzalloc(sizeof(*cfile), GFP_KERNEL);
	if (!cfile)
		return -ENOMEM;
	kref_init(&cfile->kref);
	/*
	 * The file's state outlives the file (semaphore exports, pins of
	 * other files): its device must too, removed or not.
	 */
	drm_dev_get(drm);
	cfile->cdev = to_ccore_device(drm);
	ccm_vm_init(&cfile->vm);
	xa_init_flags(&cfile->rings, XA_FLAGS_ALLOC1);
	xa_init_flags(&cfile->programs, XA_FLAGS_ALLOC1);
	xa_init(&cfile->jobs);
	INIT_LIST_HEAD(&cfile->active);
	spin_lock_init(&cfile->active_lock);
	init_waitqueue_head(&cfile->active_done);
	INIT_LIST_HEAD(&cfile->grants);
	INIT_LIST_HEAD(&cfile->sem_blocks);
	spin_lock_init(&cfile->last_lock);
	cfile->next_job = 1;
	file->driver_priv = cfile;
	return 0;
}

static void ccore_file_release(struct kref *kref)
{
	struct ccore_file *cfile = container_of(kref, struct ccore_file, kref);

	struct drm_device *drm = &cfile->cdev->drm;

	ccm_vm_fini(&cfile->vm);
	kfree(cfile);
	drm_dev_put(drm);
}

void ccore_file_put(struct ccore_file *cfile)
{
	kref_put(&cfile->kref, ccore_file_release);
}

/*
 * Jobs first (their CC cores are reset, so nothing runs on the file's
 * behalf any more), then rings (drained before their memory goes), then
 * semaphores.  Buffer objects go with their handles, by the DRM core.
 */
static void ccore_postclose(struct drm_device *drm, struct drm_file *file)
{
	struct ccore_file *cfile = file->driver_priv;
	bool had_jobs;

	cfile->closing = true;
	/* first: no job or ring may wait on a proxy that is gone */
	ccore_nic_fini(cfile);
	ccore_compute_fini(cfile);
	ccore_jobs_fini(cfile);
	ccore_rings_fini(cfile);
	ccore_sems_fini(cfile);
	had_jobs = cfile->next_job > 1;
	ccore_file_put(cfile);
	/*
	 * Its job fences, if nothing else holds them, are now freed by RCU,
	 * each putting the module: once a process has exited the module
	 * unloads at once.
	 */
	if (had_jobs)
		rcu_barrier();
}

static const struct drm_ioctl_desc ccore_ioctls[] = {
	DRM_IOCTL_DEF_DRV(CCORE_GET_PARAM, ccore_ioctl_get_param, 0),
	DRM_IOCTL_DEF_DRV(CCORE_SET_PARAM, ccore_ioctl_set_param, 0),
	DRM_IOCTL_DEF_DRV(CCORE_BO_CREATE, ccore_ioctl_bo_create, 0),
	DRM_IOCTL_DEF_DRV(CCORE_BO_MMAP_OFFSET, ccore_ioctl_bo_mmap_offset, 0),
	DRM_IOCTL_DEF_DRV(CCORE_BO_INFO, ccore_ioctl_bo_info, 0),
	DRM_IOCTL_DEF_DRV(CCORE_RING_CREATE, ccore_ioctl_ring_create, 0),
	DRM_IOCTL_DEF_DRV(CCORE_RING_DESTROY, ccore_ioctl_ring_destroy, 0),
	DRM_IOCTL_DEF_DRV(CCORE_RING_SUBMIT, ccore_ioctl_ring_submit, 0),
	DRM_IOCTL_DEF_DRV(CCORE_RING_STATS, ccore_ioctl_ring_stats, 0),
	DRM_IOCTL_DEF_DRV(CCORE_SEM_ALLOC, ccore_ioctl_sem_alloc, 0),
	DRM_IOCTL_DEF_DRV(CCORE_SEM_FREE, ccore_ioctl_sem_free, 0),
	DRM_IOCTL_DEF_DRV(CCORE_SEM_ACCESS, ccore_ioctl_sem_access, 0),
	DRM_IOCTL_DEF_DRV(CCORE_SEM_WAIT, ccore_ioctl_sem_wait, 0),
	DRM_IOCTL_DEF_DRV(CCORE_PROGRAM_LOAD, ccore_ioctl_program_load, 0),
	DRM_IOCTL_DEF_DRV(CCORE_PROGRAM_FREE, ccore_ioctl_program_free, 0),
	DRM_IOCTL_DEF_DRV(CCORE_SUBMIT, ccore_ioctl_submit, 0),
	DRM_IOCTL_DEF_DRV(CCORE_JOB_WAIT, ccore_ioctl_job_wait, 0),
	DRM_IOCTL_DEF_DRV(CCORE_CC_TRIGGER, ccore_ioctl_cc_trigger, 0),
	DRM_IOCTL_DEF_DRV(CCORE_SEM_EXPORT, ccore_ioctl_sem_export, 0),
	DRM_IOCTL_DEF_DRV(CCORE_SEM_IMPORT, ccore_ioctl_sem_import, 0),
	DRM_IOCTL_DEF_DRV(CCORE_COMPUTE_SUBMIT, ccore_ioctl_compute_submit, 0),
	DRM_IOCTL_DEF_DRV(CCORE_COMPUTE_WAIT, ccore_ioctl_compute_wait, 0),
	DRM_IOCTL_DEF_DRV(CCORE_GET_LAST_ERROR, ccore_ioctl_get_last_error, 0),
	DRM_IOCTL_DEF_DRV(CCORE_NIC_REMOTE_MAP, ccore_ioctl_nic_remote_map, 0),
	DRM_IOCTL_DEF_DRV(CCORE_NIC_REMOTE_SEMS, ccore_ioctl_nic_remote_sems, 0),
	DRM_IOCTL_DEF_DRV(CCORE_NIC_TAKE, ccore_ioctl_nic_take, 0),
	DRM_IOCTL_DEF_DRV(CCORE_NIC_DONE, ccore_ioctl_nic_done, 0),
	DRM_IOCTL_DEF_DRV(CCORE_NIC_DELIVER, ccore_ioctl_nic_deliver, 0),
};

/*
 * The DRM core's own ioctls an accel file has use for.  The rest serve
 * display and legacy drivers and assume a master or a primary node an
 * accel file does not have (GET_MAGIC and GET_UNIQUE dereference NULL).
 */
static const unsigned int ccore_core_ioctls[] = {
	DRM_IOCTL_VERSION,
	DRM_IOCTL_GET_CAP,
	DRM_IOCTL_GEM_CLOSE,
	DRM_IOCTL_PRIME_HANDLE_TO_FD,
	DRM_IOCTL_PRIME_FD_TO_HANDLE,
	DRM_IOCTL_SYNCOBJ_CREATE,
	DRM_IOCTL_SYNCOBJ_DESTROY,
	DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD,
	DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE,
	DRM_IOCTL_SYNCOBJ_TRANSFER,
	DRM_IOCTL_SYNCOBJ_WAIT,
	DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT,
	DRM_IOCTL_SYNCOBJ_EVENTFD,
	DRM_IOCTL_SYNCOBJ_RESET,
	DRM_IOCTL_SYNCOBJ_SIGNAL,
	DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL,
	DRM_IOCTL_SYNCOBJ_QUERY,
};

/*
 * Syncobj arrays a call may name: the core allocates per handle without
 * a bound of its own, and warns when a count asks for more than the page
 * allocator can give.
 */
#define CCORE_SYNCOBJ_ARRAY_MAX 4096

/* Where the syncobj ioctls keep count_handles, or 0 for those without. */
static size_t syncobj_count_offset(unsigned int nr)
{
	switch (nr) {
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_WAIT):
		return offsetof(struct drm_syncobj_wait, count_handles);
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT):
		return offsetof(struct drm_syncobj_timeline_wait, count_handles);
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_RESET):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_SIGNAL):
		return offsetof(struct drm_syncobj_array, count_handles);
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL):
	case DRM_IOCTL_NR(DRM_IOCTL_SYNCOBJ_QUERY):
		return offsetof(struct drm_syncobj_timeline_array, count_handles);
	}
	return 0;
}

static long ccore_core_ioctl_check(struct drm_device *drm, unsigned int cmd, unsigned long arg)
{
	unsigned int nr = DRM_IOCTL_NR(cmd), i;
	size_t off;
	u32 count;

	for (i = 0; i < ARRAY_SIZE(ccore_core_ioctls); i++)
		if (DRM_IOCTL_NR(ccore_core_ioctls[i]) == nr)
			break;
	if (i == ARRAY_SIZE(ccore_core_ioctls)) {
		drm_dbg_driver(drm, "DRM core ioctl 0x%02x is not for accel devices\n", nr);
		return -ENOTTY;
	}
	off = syncobj_count_offset(nr);
	if (!off || _IOC_SIZE(cmd) <= off)
		return 0;
	/*
	 * The core copies _IOC_SIZE(cmd) bytes and zeroes the rest: a size
	 * ending inside count_handles still gives it the bytes before the
	 * end, so read exactly those.
	 */
	count = 0;
	if (copy_from_user(&count, (void __user *)(arg + off),
			   min_t(size_t, _IOC_SIZE(cmd) - off, sizeof(count))))
		return -EFAULT;
	if (count > CCORE_SYNCOBJ_ARRAY_MAX) {
		drm_dbg_driver(drm, "syncobj ioctl 0x%02x: %u handles, at most %u\n", nr, count,
			       CCORE_SYNCOBJ_ARRAY_MAX);
		return -EINVAL;
	}
	return 0;
}

/*
 * The DRM core answers an unknown driver ioctl with -EINVAL; ours says
 * -ENOTTY, as any other character device would.  Of the core's own
 * ioctls only those an accel file needs pass (ccore_core_ioctls).
 */
static long ccore_ioctl_check(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct drm_file *file = filp->private_data;
	unsigned int nr = DRM_IOCTL_NR(cmd);

	if (_IOC_TYPE(cmd) != DRM_IOCTL_BASE)
		return -ENOTTY;
	if (nr >= DRM_COMMAND_BASE && nr < DRM_COMMAND_END)
		return nr - DRM_COMMAND_BASE < ARRAY_SIZE(ccore_ioctls) ? 0 : -ENOTTY;
	return ccore_core_ioctl_check(file->minor->dev, cmd, arg);
}

static long ccore_unlocked_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	long rc = ccore_ioctl_check(filp, cmd, arg) ?: drm_ioctl(filp, cmd, arg);

	ccore_last_error_end(filp, cmd, rc);
	return rc;
}

#ifdef CONFIG_COMPAT
/* 32-bit callers pass the same checks, then the core's translation */
static long ccore_compat_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	long rc = ccore_ioctl_check(filp, cmd, (unsigned long)compat_ptr(arg)) ?:
		  drm_compat_ioctl(filp, cmd, arg);

	ccore_last_error_end(filp, cmd, rc);
	return rc;
}
#else
#define ccore_compat_ioctl NULL
#endif

/*
 * fdinfo: the DRM core's drm-driver and drm-client-id, then the memory of
 * the file's buffers (drm-total-memory, drm-resident-memory, ...), as
 * accelerator top tools read them (Documentation/gpu/drm-usage-stats.rst).
 */
static void ccore_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	drm_show_memory_stats(p, file);
}

/*
 * The accel defaults (DRM_ACCEL_FOPS, so whatever newer kernels add to them
 * comes along), but for three entries: the ioctl entry runs ccore's checks
 * first (ccore_ioctl_check()), poll() also reports the file's NIC queue
 * (ccore_nic.c), and fdinfo shows the file's memory, which 6.12's
 * DRM_ACCEL_FOPS does not ask drm_show_fdinfo() for.  Overriding
 * an initializer is what -Woverride-init (W=1, sparse) warns about: here
 * it is the point, so Kbuild turns it off for this file.
 */
static const struct file_operations ccore_fops = {
	.owner = THIS_MODULE,
	DRM_ACCEL_FOPS,
	.unlocked_ioctl = ccore_unlocked_ioctl,
	.compat_ioctl = ccore_compat_ioctl,
	.poll = ccore_nic_poll,
	.show_fdinfo = drm_show_fdinfo,
};

/*
 * No .date: 6.14 removed it from struct drm_driver (DRM_IOCTL_VERSION then
 * reports "0"), and the module builds for kernels after 6.12.
 */
static const struct drm_driver ccore_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_COMPUTE_ACCEL | DRIVER_SYNCOBJ,
	.open = ccore_open,
	.postclose = ccore_postclose,
	.gem_create_object = ccore_gem_create_object,
	.gem_prime_import = ccore_gem_prime_import,
	.show_fdinfo = ccore_show_fdinfo,
	.ioctls = ccore_ioctls,
	.num_ioctls = ARRAY_SIZE(ccore_ioctls),
	.fops = &ccore_fops,
	.name = CCORE_DRIVER_NAME,
	.desc = "Collective-communication cores",
	.major = 1,
	.minor = 0,
};

/* The fabric outlives every drm_device on it: open files still release
 * their resources through it after the device is unplugged.
 */
static void ccore_hw_release(struct drm_device *drm, void *hw)
{
	struct ccore_hw *h = hw;

	h->ops->put(h);
}

/**
 * ccore_device_add() - register device @index of fabric @hw
 * @hw: the fabric
 * @parent: the bus device the accel device hangs off
 * @index: device index within the fabric
 * @out: the new device
 *
 * Return: 0 or a negative errno.
 */
int ccore_device_add(struct ccore_hw *hw, struct device *parent, u32 index,
		     struct ccore_device **out)
{
	struct ccore_device *cdev;
	int rc;

	cdev = devm_drm_dev_alloc(parent, &ccore_drm_driver, struct ccore_device, drm);
	if (IS_ERR(cdev))
		return PTR_ERR(cdev);
	hw->ops->get(hw);
	rc = drmm_add_action_or_reset(&cdev->drm, ccore_hw_release, hw);
	if (rc)
		return rc;
	cdev->hw = hw;
	cdev->index = index;
	cdev->fence_context = dma_fence_context_alloc(ccore_hw_num_cc(hw));
	atomic64_set(&cdev->fence_seqno, 0);
	/* before registering: the files exist when udev hears of the device */
	rc = ccore_sysfs_init(cdev);
	if (rc)
		return rc;
	rc = drm_dev_register(&cdev->drm, 0);
	if (rc)
		return rc;
	ccore_debugfs_init(cdev);
	ccore_registry_add(cdev);
	*out = cdev;
	return 0;
}

/* Unplug: open files keep the drm_device alive; their ioctls now fail
 * with -ENODEV and their release still frees what they own.
 */
void ccore_device_remove(struct ccore_device *cdev)
{
	ccore_registry_del(cdev);
	ccore_debugfs_fini(cdev);
	/* removes the sysfs files, waiting for callbacks inside them */
	drm_dev_unplug(&cdev->drm);
}

static int __init ccore_init(void)
{
	int rc;

	rc = ccore_jobs_init();
	if (rc)
		return rc;
	rc = ccore_genl_init();
	if (rc)
		goto err_jobs;
	ccore_debugfs_module_init();
	rc = ccore_sim_init();
	if (rc)
		goto err_debugfs;
	return 0;

err_debugfs:
	ccore_debugfs_module_exit();
	ccore_genl_fini();
err_jobs:
	ccore_jobs_exit();
	return rc;
}

static void __exit ccore_exit(void)
{
	ccore_sim_exit();
	ccore_debugfs_module_exit();
	ccore_genl_fini();
	ccore_jobs_exit();
}

module_init(ccore_init);
module_exit(ccore_exit);

MODULE_DESCRIPTION("DRM accel driver for collective-communication cores, with simulated devices");
MODULE_LICENSE("GPL");
MODULE_FIRMWARE("ccore/dispatcher.bin");
