// SPDX-License-Identifier: MIT
/*
 * The cost model's parameters from the device (see model.h): the
 * fabric's configuration, the same numbers the timed device model
 * charges.  The functional model (timed=0) charges no virtual time: its
 * time is the host's, and what a small collective costs there is the host
 * work per CC instruction and descriptor and per semaphore hand-off (an
 * agent woken), so those two are priced at what they cost on the host.
 * Both backends report these through GET_PARAM (DRM_CCORE_PARAM_ALPHA_*,
 * BW_*, ...: model/ccm_param.c answers for both), so the tuner prices the
 * device it runs on, in-process or behind the kernel driver.
 */
#include "hw.h"
#include "ccore_device.h"
#include "ccore_accel.h"

void tune_hw_from_params(tune_param_fn *get, void *arg, struct tune_hw *hw)
{
	tune_hw_default(hw);
	if (!get(arg, DRM_CCORE_PARAM_BW_NODE_GBPS))
		return;		/* a driver that does not report its costs */
	hw->alpha_us[TUNE_DEV] = (double)get(arg, DRM_CCORE_PARAM_ALPHA_DEV_NS) / 1e3;
	hw->alpha_us[TUNE_NODE] = (double)get(arg, DRM_CCORE_PARAM_ALPHA_NODE_NS) / 1e3;
	hw->alpha_us[TUNE_NET] = (double)get(arg, DRM_CCORE_PARAM_ALPHA_NET_NS) / 1e3;
	/* Gbit/s to GB/s */
	hw->bw_gbps[TUNE_DEV] = (double)get(arg, DRM_CCORE_PARAM_BW_DEV_GBPS) / 8.0;
	hw->bw_gbps[TUNE_NODE] = (double)get(arg, DRM_CCORE_PARAM_BW_NODE_GBPS) / 8.0;
	hw->bw_gbps[TUNE_NET] = (double)get(arg, DRM_CCORE_PARAM_BW_NET_GBPS) / 8.0;
	hw->engine_gbps = (double)get(arg, DRM_CCORE_PARAM_BW_ENGINE_GBPS) / 8.0;
	hw->engines = (uint32_t)get(arg, DRM_CCORE_PARAM_ENGINES_PER_CORE);
	hw->sem_us = (double)get(arg, DRM_CCORE_PARAM_SEM_NS) / 1e3;
	hw->insn_us = (double)get(arg, DRM_CCORE_PARAM_CC_INSN_NS) / 1e3;
	if (!get(arg, DRM_CCORE_PARAM_TIMED)) {
		/* measured with ccore-bench: ~60 agent steps of ~100 ns for an
		 * 8-byte AllReduce of 4 ranks; a wake takes a queue round trip */
		hw->insn_us = TUNE_HOST_INSN_US;
		hw->sem_us = TUNE_HOST_SEM_US;
		hw->host = true;
	}
	hw->ideal = get(arg, DRM_CCORE_PARAM_IDEAL);
	if (hw->ideal) {
		/* the device's single tier: every hop α_node at bw_node */
		for (int t = 0; t < TUNE_NTIERS; t++) {
			hw->alpha_us[t] = hw->alpha_us[TUNE_NODE];
			hw->bw_gbps[t] = hw->bw_gbps[TUNE_NODE];
		}
	}
}

static uint64_t device_param(void *arg, uint32_t param)
{
	uint64_t v = 0;

	return ccore_dev_param(arg, param, &v) ? 0 : v;
}

void tune_hw_from_device(struct ccore_dev *d, struct tune_hw *hw)
{
	tune_hw_from_params(device_param, d, hw);
}
