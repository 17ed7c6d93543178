/* SPDX-License-Identifier: MIT */
/*
 * Sim fabrics seen from the cost model: the tuner's parameters straight
 * from a fabric configuration (for a tool or test that builds one before
 * any device exists), and the fabric that runs the ideal setting.
 */
#ifndef CCORE_SIM_COSTS_H
#define CCORE_SIM_COSTS_H

#include "tune/hw.h"
#include "ccm.h"

/* @c's timed-model parameters (NULL: the defaults, tune_hw_default());
 * on the functional model, the host costs instead (tune/hw.h). */
void tune_hw_from_config(const struct ccm_config *c, struct tune_hw *hw);

/*
 * The sim fabric that runs the ideal setting for a group of @n ranks
 * (1..TUNE_IDEAL_MAX_RANKS): one node of *@devices devices with
 * *@ranks_per_device ranks each.  One tier, so where ranks sit does not
 * matter, only that the model's limits hold (CCM_MAX_DEVICES devices,
 * CCM_MAX_CORES ranks per device).  Returns the fabric's ranks: @n, or
 * more when @n has no such factorisation (a prime above CCM_MAX_DEVICES),
 * then the group is the first @n of them (ccore_comm_split()).  0 if @n is
 * out of range.
 */
#define TUNE_IDEAL_MAX_RANKS 1024u
uint32_t tune_ideal_layout(uint32_t n, uint32_t *devices, uint32_t *ranks_per_device);

#endif
