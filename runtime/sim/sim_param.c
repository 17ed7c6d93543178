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
	case DRM_CCORE_PARAM_DEVICES_PER_NODE: v = cfg->devices_per_node; break;
	case DRM_CCORE_PARAM_TOPOLOGY: v = cfg->topology; break;
	case DRM_CCORE_PARAM_TORUS_X:
		v = cfg->topology == DRM_CCORE_TOPO_TORUS ? cfg->torus_x : cfg->devices_per_node;
		break;
	case DRM_CCORE_PARAM_TORUS_Y:
		v = cfg->topology == DRM_CCORE_TOPO_TORUS ? cfg->torus_y : 1;
		break;
	case DRM_CCORE_PARAM_NUM_CORES: v = cfg->cores; break;
	case DRM_CCORE_PARAM_CC_CORES_PER_CORE: v = cfg->cc_cores; break;
	case DRM_CCORE_PARAM_ENGINES_PER_CORE: v = cfg->engines; break;
	case DRM_CCORE_PARAM_RINGS_PER_ENGINE: v = cfg->rings; break;
	case DRM_CCORE_PARAM_SEMS_PER_CORE: v = cfg->sems; break;
	case DRM_CCORE_PARAM_HBM_SIZE: v = cfg->hbm_size; break;
	case DRM_CCORE_PARAM_MIN_PACKET_SIZE: v = cfg->min_packet_size; break;
	case DRM_CCORE_PARAM_MAX_PACKET_SIZE: v = cfg->max_packet_size; break;
	case DRM_CCORE_PARAM_MAX_RING_SIZE: v = cfg->max_ring_size; break;
	case DRM_CCORE_PARAM_MAX_PROGRAM_SIZE: v = cfg->max_program_size; break;
	case DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE: v = ccm_device_cc_packet_size(f, c->dev); break;
	case DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE:
		v = ccm_device_dma_packetization(f, c->dev);
		break;
	case DRM_CCORE_PARAM_ISA_VERSION: v = 1; break;
	case DRM_CCORE_PARAM_FIRMWARE_SIZE: v = c->sys->fw_size; break;
	default:
		return ccore_error(-EINVAL, "GET_PARAM: unknown param %u (0..%u)", a->param,
				   DRM_CCORE_PARAM_FIRMWARE_SIZE);
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
