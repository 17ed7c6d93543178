// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: ring, semaphore and CC-core state, and fault injection.
 *
 *   /sys/kernel/debug/ccore/fabric<ID>/dev<N>/
 *	rings			claimed rings and their counters
 *	semaphores		allocated semaphores and their values
 *	cc_cores		state of every CC core
 *	inject_dma_error	write a logical core: its next descriptor fails
 *	inject_cc_hang		write a CC core: its next job hangs
 *
 * A fabric's directory lives as long as one of its devices is registered.
 * Removing a device's directory waits for the file operations still
 * running, so they always see a live device.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "ccore_drv.h"

/**
 * struct ccore_debugfs_fabric - the directory of one fabric
 * @link: in ccore_debugfs_fabrics
 * @hw: the fabric
 * @dir: fabric<ID>
 * @users: devices of @hw with a directory in @dir
 */
struct ccore_debugfs_fabric {
	struct list_head link;
	struct ccore_hw *hw;
	struct dentry *dir;
	unsigned int users;
};

static struct dentry *ccore_debugfs_root;
static LIST_HEAD(ccore_debugfs_fabrics);
static DEFINE_MUTEX(ccore_debugfs_lock);	/* the fabric list */

static int rings_show(struct seq_file *m, void *unused)
{
	struct ccore_device *cdev = m->private;
	struct ccore_hw *hw = cdev->hw;
	const struct ccm_config *cfg = &hw->cfg;
	u32 core, engine, ring;
	struct ccm_ring_stats st;
	bool claimed;

	for (core = 0; core < cfg->cores; core++) {
		for (engine = 0; engine < cfg->engines; engine++) {
			for (ring = 0; ring < cfg->rings; ring++) {
				mutex_lock(&hw->lock);
				claimed = hw->ops->ring_owner(hw, cdev->index, core, engine, ring);
				mutex_unlock(&hw->lock);
				if (!claimed)
					continue;
				hw->ops->ring_stats(hw, cdev->index, core, engine, ring, &st);
				seq_printf(m, "core=%u engine=%u ring=%u packet_size=%u size=%u written=%u bytes=%llu packets=%llu started=%llu completed=%llu errors=%llu discarded=%llu index_count=%u index_stride=%lld\n",
					   core, engine, ring, st.packet_size, st.size, st.written,
					   st.bytes, st.packets, st.started, st.completed,
					   st.errors, st.discarded, st.index_count,
					   st.index_stride);
			}
		}
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rings);

static int semaphores_show(struct seq_file *m, void *unused)
{
	struct ccore_device *cdev = m->private;
	struct ccore_hw *hw = cdev->hw;
	u32 core, idx, ref;

	for (core = 0; core < hw->cfg.cores; core++) {
		mutex_lock(&hw->lock);
		for (idx = 0; idx < hw->cfg.sems; idx++) {
			ref = DRM_CCORE_SEM_REF(cdev->index, core, idx);
			if (hw->ops->sem_owner(hw, ref))
				seq_printf(m, "core=%u idx=%u ref=0x%08x value=%u\n", core, idx,
					   ref, hw->ops->sem_read(hw, ref));
		}
		mutex_unlock(&hw->lock);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(semaphores);

static const char *cc_state_name(enum ccm_cc_state state)
{
	switch (state) {
	case CCM_CC_IDLE:
		return "idle";
	case CCM_CC_RUNNING:
		return "running";
	case CCM_CC_WAITING:
		return "waiting";
	case CCM_CC_FAULT:
		return "fault";
	}
	return "unknown";
}

static int cc_cores_show(struct seq_file *m, void *unused)
{
	struct ccore_device *cdev = m->private;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_cc_info info;
	u32 cc;

	for (cc = 0; cc < ccore_hw_num_cc(hw); cc++) {
		hw->ops->cc_info(hw, cdev->index, cc, &info);
		seq_printf(m, "cc=%u core=%u state=%s pc=%u queued=%u trigger=%u insns=%llu notifies=%llu dma_errors=%llu hangs=%llu resets=%llu fault=\"%s\"\n",
			   cc, cc / hw->cfg.cc_cores, cc_state_name(info.state), info.pc,
			   info.queued, info.trigger, info.insns, info.notifies,
			   info.dma_errors, info.hangs, info.resets, info.fault);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cc_cores);

static int compute_engines_show(struct seq_file *m, void *unused)
{
	struct ccore_device *cdev = m->private;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_compute_info info;
	u32 core;

	for (core = 0; core < hw->cfg.cores; core++) {
		hw->ops->compute_info(hw, cdev->index, core, &info);
		seq_printf(m, "core=%u state=%s pc=%u status=%d programs=%llu insns=%llu busy_ns=%llu dma_bytes=%llu fault=\"%s\"\n",
			   core, info.running ? "running" : "idle", info.pc, info.status,
			   info.programs, info.total_insns, info.total_busy_ns,
			   info.total_dma_bytes, info.fault);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(compute_engines);

/* Fault injection: one number per write; the hardware checks its range. */
static ssize_t inject_write(struct file *file, const char __user *ubuf, size_t count,
			    bool hang)
{
	struct ccore_device *cdev = file->private_data;
	struct device *kdev = cdev->drm.accel->kdev;
	const char *name = hang ? "inject_cc_hang" : "inject_dma_error";
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	u32 n;
	int rc;

	if (kstrtou32_from_user(ubuf, count, 10, &n)) {
		dev_info_ratelimited(kdev, "%s: expected a %s number (0..%u)\n", name,
				     hang ? "CC core" : "logical core",
				     (hang ? ccore_hw_num_cc(hw) : hw->cfg.cores) - 1);
		return -EINVAL;
	}
	if (hang)
		rc = hw->ops->inject_cc_hang ? hw->ops->inject_cc_hang(hw, cdev->index, n, &err) :
					       -EOPNOTSUPP;
	else
		rc = hw->ops->inject_dma_error ?
		     hw->ops->inject_dma_error(hw, cdev->index, n, &err) : -EOPNOTSUPP;
	if (rc) {
		dev_info_ratelimited(kdev, "%s: %s\n", name,
				     rc == -EOPNOTSUPP ? "not supported by this device" : err.msg);
		return rc;
	}
	dev_dbg(kdev, "%s: armed on %s %u\n", name, hang ? "CC core" : "core", n);
	return count;
}

static ssize_t inject_dma_error_write(struct file *file, const char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	return inject_write(file, ubuf, count, false);
}

static ssize_t inject_cc_hang_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	return inject_write(file, ubuf, count, true);
}

static const struct file_operations inject_dma_error_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_dma_error_write,
	.llseek = noop_llseek,
};

static const struct file_operations inject_cc_hang_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = inject_cc_hang_write,
	.llseek = noop_llseek,
};

/* Called with ccore_debugfs_lock held. */
static struct ccore_debugfs_fabric *fabric_find(struct ccore_hw *hw)
{
	struct ccore_debugfs_fabric *fd;

	list_for_each_entry(fd, &ccore_debugfs_fabrics, link)
		if (fd->hw == hw)
			return fd;
	return NULL;
}

/* The fabric's directory, created by its first device; NULL if no memory. */
static struct dentry *fabric_get(struct ccore_hw *hw)
{
	struct ccore_debugfs_fabric *fd;
	char name[24];

	mutex_lock(&ccore_debugfs_lock);
	fd = fabric_find(hw);
	if (!fd) {
		fd = kzalloc(sizeof(*fd), GFP_KERNEL);
		if (!fd)
			goto out;
		snprintf(name, sizeof(name), "fabric%u", hw->id);
		fd->hw = hw;
		fd->dir = debugfs_create_dir(name, ccore_debugfs_root);
		list_add_tail(&fd->link, &ccore_debugfs_fabrics);
	}
	fd->users++;
out:
	mutex_unlock(&ccore_debugfs_lock);
	return fd ? fd->dir : NULL;
}

/* Drop a device's hold on the fabric's directory; the last removes it. */
static void fabric_put(struct ccore_hw *hw)
{
	struct ccore_debugfs_fabric *fd;

	mutex_lock(&ccore_debugfs_lock);
	fd = fabric_find(hw);
	if (fd && !--fd->users) {
		list_del(&fd->link);
		debugfs_remove_recursive(fd->dir);
		kfree(fd);
	}
	mutex_unlock(&ccore_debugfs_lock);
}

/**
 * ccore_debugfs_init() - create a device's debugfs directory
 * @cdev: the device, registered
 *
 * debugfs is best effort: failures leave the directory out, nothing else.
 */
void ccore_debugfs_init(struct ccore_device *cdev)
{
	struct dentry *fabric, *dir;
	char name[16];

	fabric = fabric_get(cdev->hw);
	if (!fabric) {
		cdev->debugfs = NULL;
		return;
	}
	snprintf(name, sizeof(name), "dev%u", cdev->index);
	/* never NULL from here on: ccore_debugfs_fini() puts the fabric */
	dir = debugfs_create_dir(name, fabric);
	cdev->debugfs = dir;
	debugfs_create_file("rings", 0444, dir, cdev, &rings_fops);
	debugfs_create_file("semaphores", 0444, dir, cdev, &semaphores_fops);
	debugfs_create_file("cc_cores", 0444, dir, cdev, &cc_cores_fops);
	debugfs_create_file("compute_engines", 0444, dir, cdev, &compute_engines_fops);
	debugfs_create_file("inject_dma_error", 0200, dir, cdev, &inject_dma_error_fops);
	debugfs_create_file("inject_cc_hang", 0200, dir, cdev, &inject_cc_hang_fops);
}

/**
 * ccore_debugfs_fini() - remove a device's debugfs directory
 * @cdev: the device, still registered
 *
 * Waits for the file operations still running.
 */
void ccore_debugfs_fini(struct ccore_device *cdev)
{
	if (!cdev->debugfs)
		return;
	debugfs_remove_recursive(cdev->debugfs);
	cdev->debugfs = NULL;
	fabric_put(cdev->hw);
}

/* The module's root, /sys/kernel/debug/ccore/. */
void ccore_debugfs_module_init(void)
{
	ccore_debugfs_root = debugfs_create_dir(CCORE_DRIVER_NAME, NULL);
}

void ccore_debugfs_module_exit(void)
{
	debugfs_remove_recursive(ccore_debugfs_root);
	ccore_debugfs_root = NULL;
}
