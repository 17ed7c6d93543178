// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs: the packet-size knobs, device facts and per-ring counters of each
 * device, on its accel minor (/sys/class/accel/accelN/).  One value per
 * file, in plain units (bytes, counts).
 *
 * The files are the accel minor's own attribute groups (its kdev->groups),
 * set between allocating the drm_device and registering it: device_add()
 * creates them before it sends the "add" uevent, so udev never sees the
 * device without them.  (drm_dev_register() offers no groups of its own,
 * and the DRM core leaves an accel minor's kdev->groups unset.  Creating
 * them after registration, as sysfs_create_groups() would, races with
 * udev.)  device_del() at unplug removes them and waits for readers and
 * writers still inside a callback, so a callback always sees a live
 * device; the attribute memory goes with the drm_device.
 */
#include <linux/device.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>

#include "ccore_drv.h"

enum ccore_ring_counter {
	CCORE_RING_BYTES,
	CCORE_RING_PACKETS,
	CCORE_RING_ERRORS,
	CCORE_RING_COUNTERS,
};

static const char * const ccore_ring_counter_names[CCORE_RING_COUNTERS] = {
	[CCORE_RING_BYTES] = "bytes",
	[CCORE_RING_PACKETS] = "packets",
	[CCORE_RING_ERRORS] = "errors",
};

/* "c255e255r255_packets" at most; the model's limits are far lower */
#define CCORE_RING_ATTR_NAME 24

/**
 * struct ccore_ring_attr - one counter of one ring, rings/c<C>e<E>r<R>_<what>
 * @attr: the sysfs attribute
 * @core: logical core
 * @engine: DMA engine of @core
 * @ring: ring of @engine
 * @counter: which counter (enum ccore_ring_counter)
 * @name: the file name
 */
struct ccore_ring_attr {
	struct device_attribute attr;
	u8 core, engine, ring;
	enum ccore_ring_counter counter;
	char name[CCORE_RING_ATTR_NAME];
};

/**
 * struct ccore_sysfs - a device's sysfs files
 * @ring_attrs: every ring's counters, cores * engines * rings * counters
 * @ring_list: NULL-terminated pointers to @ring_attrs, for @rings
 * @rings: the "rings" subdirectory
 * @groups: the device group and @rings, NULL-terminated
 */
struct ccore_sysfs {
	struct ccore_ring_attr *ring_attrs;
	struct attribute **ring_list;
	struct attribute_group rings;
	const struct attribute_group *groups[3];
};

/* The accel minor's driver data is its drm_minor. */
static struct ccore_device *kdev_to_cdev(struct device *kdev)
{
	struct drm_minor *minor = dev_get_drvdata(kdev);

	return to_ccore_device(minor->dev);
}

static ssize_t packet_size_show(struct device *kdev, char *buf, bool compute)
{
	struct ccore_device *cdev = kdev_to_cdev(kdev);
	struct ccore_hw *hw = cdev->hw;

	return sysfs_emit(buf, "%u\n", hw->ops->packet_size(hw, cdev->index, compute));
}

/* The rules are the hardware's; its message says what is allowed. */
static ssize_t packet_size_store(struct device *kdev, const char *buf, size_t count,
				 bool compute, const char *name)
{
	struct ccore_device *cdev = kdev_to_cdev(kdev);
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	u32 bytes;
	int rc;

	if (kstrtou32(buf, 10, &bytes)) {
		dev_info_ratelimited(kdev, "%s: expected a size in bytes, a power of two from %u to %u\n",
				     name, compute ? hw->cfg.dma_packetization_size :
				     hw->cfg.min_packet_size, hw->cfg.max_packet_size);
		return -EINVAL;
	}
	mutex_lock(&hw->lock);
	rc = hw->ops->set_packet_size(hw, cdev->index, compute, bytes, &err);
	mutex_unlock(&hw->lock);
	if (rc) {
		dev_info_ratelimited(kdev, "%s: %s\n", name, err.msg);
		return rc;
	}
	return count;
}

static ssize_t cc_dma_packet_size_show(struct device *kdev, struct device_attribute *attr,
				       char *buf)
{
	return packet_size_show(kdev, buf, false);
}

static ssize_t cc_dma_packet_size_store(struct device *kdev, struct device_attribute *attr,
					const char *buf, size_t count)
{
	return packet_size_store(kdev, buf, count, false, attr->attr.name);
}
static DEVICE_ATTR_RW(cc_dma_packet_size);

static ssize_t dma_packetization_size_show(struct device *kdev, struct device_attribute *attr,
					   char *buf)
{
	return packet_size_show(kdev, buf, true);
}

static ssize_t dma_packetization_size_store(struct device *kdev, struct device_attribute *attr,
					    const char *buf, size_t count)
{
	return packet_size_store(kdev, buf, count, true, attr->attr.name);
}
static DEVICE_ATTR_RW(dma_packetization_size);

static ssize_t device_index_show(struct device *kdev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", kdev_to_cdev(kdev)->index);
}
static DEVICE_ATTR_RO(device_index);

static ssize_t num_devices_show(struct device *kdev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", kdev_to_cdev(kdev)->hw->num_devices);
}
static DEVICE_ATTR_RO(num_devices);

static ssize_t fabric_id_show(struct device *kdev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", kdev_to_cdev(kdev)->hw->id);
}
static DEVICE_ATTR_RO(fabric_id);

static ssize_t cores_show(struct device *kdev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", kdev_to_cdev(kdev)->hw->cfg.cores);
}
static DEVICE_ATTR_RO(cores);

static ssize_t cc_cores_show(struct device *kdev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", kdev_to_cdev(kdev)->hw->cfg.cc_cores);
}
static DEVICE_ATTR_RO(cc_cores);

static ssize_t memory_used_show(struct device *kdev, struct device_attribute *attr, char *buf)
{
	struct ccore_device *cdev = kdev_to_cdev(kdev);
	struct ccore_hw *hw = cdev->hw;

	return sysfs_emit(buf, "%llu\n", hw->ops->mem_used(hw, cdev->index));
}
static DEVICE_ATTR_RO(memory_used);

static ssize_t counter_show(char *buf, atomic64_t *counter)
{
	return sysfs_emit(buf, "%llu\n", (u64)atomic64_read(counter));
}

static ssize_t job_timeouts_show(struct device *kdev, struct device_attribute *attr, char *buf)
{
	return counter_show(buf, &kdev_to_cdev(kdev)->job_timeouts);
}
static DEVICE_ATTR_RO(job_timeouts);

static ssize_t dma_errors_show(struct device *kdev, struct device_attribute *attr, char *buf)
{
	return counter_show(buf, &kdev_to_cdev(kdev)->dma_errors);
}
static DEVICE_ATTR_RO(dma_errors);

static ssize_t recoveries_show(struct device *kdev, struct device_attribute *attr, char *buf)
{
	return counter_show(buf, &kdev_to_cdev(kdev)->recoveries);
}
static DEVICE_ATTR_RO(recoveries);

static struct attribute *ccore_dev_attrs[] = {
	&dev_attr_cc_dma_packet_size.attr,
	&dev_attr_dma_packetization_size.attr,
	&dev_attr_device_index.attr,
	&dev_attr_num_devices.attr,
	&dev_attr_fabric_id.attr,
	&dev_attr_cores.attr,
	&dev_attr_cc_cores.attr,
	&dev_attr_memory_used.attr,
	&dev_attr_job_timeouts.attr,
	&dev_attr_dma_errors.attr,
	&dev_attr_recoveries.attr,
	NULL,
};

static const struct attribute_group ccore_dev_group = {
	.attrs = ccore_dev_attrs,
};

/* Ring counters are the hardware's, read without the lock. */
static ssize_t ring_counter_show(struct device *kdev, struct device_attribute *attr, char *buf)
{
	struct ccore_ring_attr *ra = container_of(attr, struct ccore_ring_attr, attr);
	struct ccore_device *cdev = kdev_to_cdev(kdev);
	struct ccore_hw *hw = cdev->hw;
	struct ccm_ring_stats st = {};
	u64 value;

	hw->ops->ring_stats(hw, cdev->index, ra->core, ra->engine, ra->ring, &st);
	switch (ra->counter) {
	case CCORE_RING_BYTES:
		value = st.bytes;
		break;
	case CCORE_RING_PACKETS:
		value = st.packets;
		break;
	default:
		value = st.errors;
		break;
	}
	return sysfs_emit(buf, "%llu\n", value);
}

static void ccore_sysfs_free(struct ccore_sysfs *s)
{
	kvfree(s->ring_list);
	kvfree(s->ring_attrs);
	kfree(s);
}

static struct ccore_sysfs *ccore_sysfs_alloc(const struct ccm_config *cfg)
{
	u32 n = cfg->cores * cfg->engines * cfg->rings * CCORE_RING_COUNTERS;
	u32 core, engine, ring, i = 0;
	enum ccore_ring_counter c;
	struct ccore_sysfs *s;

	/* the names are built from u8 indices */
	BUILD_BUG_ON(CCM_MAX_CORES > 256 || CCM_MAX_ENGINES > 256 || CCM_MAX_RINGS > 256);
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->ring_attrs = kvcalloc(n, sizeof(*s->ring_attrs), GFP_KERNEL);
	s->ring_list = kvcalloc(n + 1, sizeof(*s->ring_list), GFP_KERNEL);
	if (!s->ring_attrs || !s->ring_list) {
		ccore_sysfs_free(s);
		return NULL;
	}
	for (core = 0; core < cfg->cores; core++) {
		for (engine = 0; engine < cfg->engines; engine++) {
			for (ring = 0; ring < cfg->rings; ring++) {
				for (c = 0; c < CCORE_RING_COUNTERS; c++) {
					struct ccore_ring_attr *ra = &s->ring_attrs[i];

					ra->core = core;
					ra->engine = engine;
					ra->ring = ring;
					ra->counter = c;
					snprintf(ra->name, sizeof(ra->name), "c%ue%ur%u_%s",
						 ra->core, ra->engine, ra->ring,
						 ccore_ring_counter_names[c]);
					sysfs_attr_init(&ra->attr.attr);
					ra->attr.attr.name = ra->name;
					ra->attr.attr.mode = 0444;
					ra->attr.show = ring_counter_show;
					s->ring_list[i++] = &ra->attr.attr;
				}
			}
		}
	}
	s->rings.name = "rings";
	s->rings.attrs = s->ring_list;
	s->groups[0] = &ccore_dev_group;
	s->groups[1] = &s->rings;
	return s;
}

static void ccore_sysfs_release(struct drm_device *drm, void *s)
{
	ccore_sysfs_free(s);
}

/**
 * ccore_sysfs_init() - give a device's accel minor its sysfs files
 * @cdev: the device, allocated, not yet registered
 *
 * Return: 0 or a negative errno.
 */
int ccore_sysfs_init(struct ccore_device *cdev)
{
	struct device *kdev = cdev->drm.accel->kdev;
	struct ccore_sysfs *s;
	int rc;

	if (WARN_ON(device_is_registered(kdev)))
		return -EBUSY;
	s = ccore_sysfs_alloc(&cdev->hw->cfg);
	if (!s)
		return -ENOMEM;
	rc = drmm_add_action_or_reset(&cdev->drm, ccore_sysfs_release, s);
	if (rc)
		return rc;
	kdev->groups = s->groups;
	return 0;
}
