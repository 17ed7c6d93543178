// SPDX-License-Identifier: MIT
/* GET_PARAM / SET_PARAM on the sim backend. */
#include "sim.h"

static int get_param(struct sim_ctx *c, struct drm_ccore_param_args *a)
{
	const struct ccm_config *cfg = ccm_fabric_config(c->sys->f);
	struct ccm_fabric *f = c->sys->f;
	u64 v;

	switch (a->param) {
	case DRM_CCORE_PARAM_DEVICE_INDEX: v = c->dev; break;
	case DRM_CCORE_PARAM_NUM_DEVICES: v = ccm_fabric_num_devices(f); break;
	case DRM_CCORE_PARAM_NODE_INDEX: v = c->dev / cfg->devices_per_node; break;
	case DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE: v = ccm_device_cc_packet_size(f, c->dev); break;
	case DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE:
		v = ccm_device_dma_packetization(f, c->dev);
		break;
	case DRM_CCORE_PARAM_FIRMWARE_SIZE: v = c->sys->sh->fw_size; break;
	default:
		/* the rest follows from the fabric's configuration, as in the driver */
		if (!ccm_config_param(cfg, a->param, &v))
			break;
		return ccore_error(-EINVAL, "GET_PARAM: unknown param %u (0..%u)", a->param,
				   DRM_CCORE_PARAM_SEM_NS);
	}
	a->value = v;
	return 0;
}

static int set_param(struct sim_ctx *c, struct drm_ccore_param_args *a)
{
	struct ccm_err err = { 0 };
	int rc;

	if (a->value > 0xffffffffull)
		return ccore_error(-EINVAL, "SET_PARAM: value %llu too large",
				   (unsigned long long)a->value);
	switch (a->param) {
	case DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE:
		rc = ccm_device_set_cc_packet_size(c->sys->f, c->dev, (u32)a->value, &err);
		break;
	case DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE:
		rc = ccm_device_set_dma_packetization(c->sys->f, c->dev, (u32)a->value, &err);
		break;
	default:
		return ccore_error(-EINVAL,
				   "SET_PARAM: param %u is read-only (writable: %u CC_DMA_PACKET_SIZE, %u DMA_PACKETIZATION_SIZE)",
				   a->param, DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE,
				   DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE);
	}
	return rc ? sim_fail(DRM_IOCTL_CCORE_SET_PARAM, rc, &err) : 0;
}

int sim_param_ioctl(struct sim_ctx *c, unsigned long req, void *arg)
{
	struct drm_ccore_param_args *a = arg;

	if (a->pad)
		return ccore_error(-EINVAL, "%s: pad must be zero", ccore_ioctl_name(req));
	return req == DRM_IOCTL_CCORE_GET_PARAM ? get_param(c, a) : set_param(c, a);
}
