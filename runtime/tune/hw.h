/* SPDX-License-Identifier: MIT */
/* The cost model's parameters from a device's fabric configuration. */
#ifndef CCORE_TUNE_HW_H
#define CCORE_TUNE_HW_H

#include "model.h"
#include "ccm.h"

/* The functional model's host costs: a CC instruction or descriptor, a
 * semaphore hand-off (µs). */
#define TUNE_HOST_INSN_US 0.15
#define TUNE_HOST_SEM_US 0.3
/* ... and the bytes its worker threads copy or reduce per µs, all together */
#define TUNE_HOST_BYTES_PER_US 10000.0
/* ... up to this size (M as the model counts it); above, the device model */
#define TUNE_HOST_WORK_MAX_BYTES (256.0 * 1024)

/* @c's timed-model parameters (NULL: the defaults, tune_hw_default());
 * on the functional model, the host costs above instead. */
void tune_hw_from_config(const struct ccm_config *c, struct tune_hw *hw);
/* The same from what device @d reports (GET_PARAM), on any backend; the
 * defaults where its driver reports no costs. */
struct ccore_dev;
void tune_hw_from_device(struct ccore_dev *d, struct tune_hw *hw);

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
