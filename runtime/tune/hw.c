// SPDX-License-Identifier: MIT
/*
 * The cost model's parameters from the device (see model.h): the sim
 * backend's fabric configuration, the same numbers the timed device model
 * charges.  The functional model (timed=0) charges no virtual time: its
 * time is the host's, and what a small collective costs there is the host
 * work per CC instruction and descriptor and per semaphore hand-off (an
 * agent woken), so those two are priced at what they cost on the host.  The kernel driver does not report them (no uAPI params for
 * α, bandwidths or CC-core latencies yet): there the defaults stand.
 */
#include "hw.h"

void tune_hw_from_config(const struct ccm_config *c, struct tune_hw *hw)
{
	tune_hw_default(hw);
	if (!c)
		return;
	hw->alpha_us[TUNE_DEV] = c->alpha_dev_ns / 1e3;
	hw->alpha_us[TUNE_NODE] = c->alpha_node_ns / 1e3;
	hw->alpha_us[TUNE_NET] = c->alpha_net_ns / 1e3;
	/* Gbit/s to GB/s */
	hw->bw_gbps[TUNE_DEV] = c->bw_dev_gbps / 8.0;
	hw->bw_gbps[TUNE_NODE] = c->bw_node_gbps / 8.0;
	hw->bw_gbps[TUNE_NET] = c->bw_net_gbps / 8.0;
	hw->engine_gbps = c->bw_engine_gbps / 8.0;
	hw->engines = c->engines;
	hw->sem_us = c->sem_ns / 1e3;
	hw->insn_us = c->cc_insn_ns / 1e3;
	if (!c->timed) {
		/* measured with ccore-bench: ~60 agent steps of ~100 ns for an
		 * 8-byte AllReduce of 4 ranks; a wake takes a queue round trip */
		hw->insn_us = TUNE_HOST_INSN_US;
		hw->sem_us = TUNE_HOST_SEM_US;
		hw->host = true;
	}
	hw->ideal = c->timed && c->ideal;
	if (hw->ideal) {
		/* the device's single tier: every hop α_node at bw_node */
		for (int t = 0; t < TUNE_NTIERS; t++) {
			hw->alpha_us[t] = hw->alpha_us[TUNE_NODE];
			hw->bw_gbps[t] = hw->bw_gbps[TUNE_NODE];
		}
	}
}

uint32_t tune_ideal_layout(uint32_t n, uint32_t *devices, uint32_t *ranks_per_device)
{
	uint32_t least = (n + CCM_MAX_DEVICES - 1) / CCM_MAX_DEVICES, r;

	if (n == 0 || n > TUNE_IDEAL_MAX_RANKS)
		return 0;
	/* the fewest ranks per device that divide n, else the fewest that hold it */
	for (r = least; r <= CCM_MAX_CORES && n % r; r++)
		;
	if (r > CCM_MAX_CORES)
		r = least;
	*ranks_per_device = r;
	*devices = (n + r - 1) / r;
	return *devices * r;
}
