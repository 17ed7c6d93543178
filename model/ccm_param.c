// SPDX-License-Identifier: GPL-2.0
/*
 * GET_PARAM's answers that follow from a fabric's configuration alone, for
 * both backends of the uAPI: the kernel driver (driver/ccore_param.c) and
 * the in-process sim (runtime/sim/sim_param.c).  What depends on the
 * device or changes at run time (its index, packet sizes, the firmware)
 * each backend answers itself.
 */
#include "ccm.h"

int ccm_config_param(const struct ccm_config *c, u32 param, u64 *value)
{
	bool torus = c->topology == DRM_CCORE_TOPO_TORUS;

	switch (param) {
	case DRM_CCORE_PARAM_DEVICES_PER_NODE:
		*value = c->devices_per_node;
		break;
	case DRM_CCORE_PARAM_TOPOLOGY:
		*value = c->topology;
		break;
	case DRM_CCORE_PARAM_TORUS_X:
		*value = torus ? c->torus_x : c->devices_per_node;
		break;
	case DRM_CCORE_PARAM_TORUS_Y:
		*value = torus ? c->torus_y : 1;
		break;
	case DRM_CCORE_PARAM_NUM_CORES:
		*value = c->cores;
		break;
	case DRM_CCORE_PARAM_CC_CORES_PER_CORE:
		*value = c->cc_cores;
		break;
	case DRM_CCORE_PARAM_ENGINES_PER_CORE:
		*value = c->engines;
		break;
	case DRM_CCORE_PARAM_RINGS_PER_ENGINE:
		*value = c->rings;
		break;
	case DRM_CCORE_PARAM_SEMS_PER_CORE:
		*value = c->sems;
		break;
	case DRM_CCORE_PARAM_HBM_SIZE:
		*value = c->hbm_size;
		break;
	case DRM_CCORE_PARAM_MIN_PACKET_SIZE:
		*value = c->min_packet_size;
		break;
	case DRM_CCORE_PARAM_MAX_PACKET_SIZE:
		*value = c->max_packet_size;
		break;
	case DRM_CCORE_PARAM_MAX_RING_SIZE:
		*value = c->max_ring_size;
		break;
	case DRM_CCORE_PARAM_MAX_PROGRAM_SIZE:
		*value = c->max_program_size;
		break;
	case DRM_CCORE_PARAM_ISA_VERSION:
		*value = 1;
		break;
	case DRM_CCORE_PARAM_TIMED:
		*value = c->timed;
		break;
	case DRM_CCORE_PARAM_VIRTUAL_MEMORY:
		*value = c->timed && c->virt;
		break;
	case DRM_CCORE_PARAM_IDEAL:
		*value = c->timed && c->ideal;
		break;
	case DRM_CCORE_PARAM_ALPHA_DEV_NS:
		*value = c->alpha_dev_ns;
		break;
	case DRM_CCORE_PARAM_ALPHA_NODE_NS:
		*value = c->alpha_node_ns;
		break;
	case DRM_CCORE_PARAM_ALPHA_NET_NS:
		*value = c->alpha_net_ns;
		break;
	case DRM_CCORE_PARAM_BW_DEV_GBPS:
		*value = c->bw_dev_gbps;
		break;
	case DRM_CCORE_PARAM_BW_NODE_GBPS:
		*value = c->bw_node_gbps;
		break;
	case DRM_CCORE_PARAM_BW_NET_GBPS:
		*value = c->bw_net_gbps;
		break;
	case DRM_CCORE_PARAM_BW_ENGINE_GBPS:
		*value = c->bw_engine_gbps;
		break;
	case DRM_CCORE_PARAM_CC_INSN_NS:
		*value = c->cc_insn_ns;
		break;
	case DRM_CCORE_PARAM_SEM_NS:
		*value = c->sem_ns;
		break;
	default:
		return -ENOENT;
	}
	return 0;
}
