// SPDX-License-Identifier: GPL-2.0
/* GET_PARAM and SET_PARAM: the device's shape, costs and packet-size knobs. */
#include <linux/capability.h>

#include "ccore_drv.h"

static int get_param(struct ccore_device *cdev, u32 param, u64 *value)
{
	const struct ccm_config *cfg = &cdev->hw->cfg;
	struct ccore_hw *hw = cdev->hw;

	switch (param) {
	case DRM_CCORE_PARAM_DEVICE_INDEX:
		*value = cdev->index;
		break;
	case DRM_CCORE_PARAM_NUM_DEVICES:
		*value = hw->num_devices;
		break;
	case DRM_CCORE_PARAM_NODE_INDEX:
		*value = cdev->index / cfg->devices_per_node;
		break;
	case DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE:
		*value = hw->ops->packet_size(hw, cdev->index, false);
		break;
	case DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE:
		*value = hw->ops->packet_size(hw, cdev->index, true);
		break;
	case DRM_CCORE_PARAM_FIRMWARE_SIZE:
		*value = hw->fw_size;
		break;
	default:
		/* the rest follows from the fabric's configuration */
		if (!ccm_config_param(cfg, param, value))
			break;
		drm_dbg_driver(&cdev->drm, "GET_PARAM: unknown param %u (0..%u)\n", param,
			       DRM_CCORE_PARAM_SEM_NS);
		return -EINVAL;
	}
	return 0;
}

int ccore_ioctl_get_param(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_ccore_param_args *a = data;

	if (a->pad)
		return -EINVAL;
	return get_param(to_ccore_device(drm), a->param, &a->value);
}

int ccore_ioctl_set_param(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct drm_ccore_param_args *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_err err = {};
	bool compute;
	int rc;

	if (a->pad || a->value > U32_MAX)
		return -EINVAL;
	if (a->param == DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE)
		compute = false;
	else if (a->param == DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE)
		compute = true;
	else
		return -EINVAL;
	/*
	 * Both knobs are the device's: they set the packet size of every
	 * ring any file creates afterwards without one of its own, so they
	 * take what writing the root-only sysfs files takes.  A file picks
	 * its own rings' packet size at RING_CREATE, unprivileged.
	 */
	if (!capable(CAP_SYS_ADMIN)) {
		drm_dbg_driver(drm, "SET_PARAM: the device's packet sizes need CAP_SYS_ADMIN\n");
		return -EPERM;
	}
	mutex_lock(&hw->lock);
	rc = hw->ops->set_packet_size(hw, cdev->index, compute, a->value, &err);
	mutex_unlock(&hw->lock);
	return rc ? ccore_reject(file, "SET_PARAM", rc, &err) : 0;
}
