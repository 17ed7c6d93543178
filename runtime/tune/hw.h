/* SPDX-License-Identifier: MIT */
/* The cost model's parameters from a device's fabric configuration. */
#ifndef CCORE_TUNE_HW_H
#define CCORE_TUNE_HW_H

#include "model.h"
#include "ccm.h"

/* @c's timed-model parameters (NULL: the defaults, tune_hw_default()). */
void tune_hw_from_config(const struct ccm_config *c, struct tune_hw *hw);

#endif
