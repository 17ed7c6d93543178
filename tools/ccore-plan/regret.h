/* SPDX-License-Identifier: MIT */
/*
 * ccore-plan --regret: how far the tuner's choice is from the best
 * algorithm, measured on the timed device model over a grid of
 * (collective, topology, size).
 */
#ifndef CCORE_PLAN_REGRET_H
#define CCORE_PLAN_REGRET_H

#include "tune/model.h"

/* Within this much of the best timed time a choice counts as good. */
#define REGRET_OK 0.05
/* The share of grid points that must be good. */
#define REGRET_TARGET 0.95

/*
 * Run the grid (@quick: a few points, seconds) on devices described by
 * @hw and print every point, a
 * summary and the worst points.  0 if the target is met, 1 if not, 2 if
 * a run failed.
 */
int regret_run(int quick, const struct tune_hw *hw);

#endif
