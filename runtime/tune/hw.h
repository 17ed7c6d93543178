/* SPDX-License-Identifier: MIT */
/* The cost model's parameters from a device's fabric configuration. */
#ifndef CCORE_TUNE_HW_H
#define CCORE_TUNE_HW_H

#include "model.h"

/* The functional model's host costs: a CC instruction or descriptor, a
 * semaphore hand-off (µs). */
#define TUNE_HOST_INSN_US 0.15
#define TUNE_HOST_SEM_US 0.3
/* ... and the bytes its worker threads copy or reduce per µs, all together */
#define TUNE_HOST_BYTES_PER_US 10000.0
/* ... up to this size (M as the model counts it); above, the device model */
#define TUNE_HOST_WORK_MAX_BYTES (256.0 * 1024)

/* A parameter of @arg's device, 0 where it has none (an older driver). */
typedef uint64_t tune_param_fn(void *arg, uint32_t param);
/* The device's costs as its GET_PARAMs (DRM_CCORE_PARAM_*) answer them, through @get. */
void tune_hw_from_params(tune_param_fn *get, void *arg, struct tune_hw *hw);
/* The same from what device @d reports (GET_PARAM), on any backend; the
 * defaults where its driver reports no costs. */
struct ccore_dev;
void tune_hw_from_device(struct ccore_dev *d, struct tune_hw *hw);

#endif
