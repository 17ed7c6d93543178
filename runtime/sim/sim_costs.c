// SPDX-License-Identifier: MIT
/* Sim fabrics seen from the cost model (sim_costs.h). */
#include "sim/sim_costs.h"

/* What the fabric would answer to GET_PARAM, straight from its configuration. */
static uint64_t config_param(void *arg, uint32_t param)
{
	u64 v = 0;

	return ccm_config_param(arg, param, &v) ? 0 : v;
}

void tune_hw_from_config(const struct ccm_config *c, struct tune_hw *hw)
{
	if (c)
		tune_hw_from_params(config_param, (void *)c, hw);
	else
		tune_hw_default(hw);
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
