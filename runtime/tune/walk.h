/* SPDX-License-Identifier: MIT */
/*
 * Pricing a schedule by running it: the schedule lowered as the runtime
 * lowers it (lower_images()), each rank's CC program and DMA rings run on
 * a model of the ideal fabric of the timed device model (one tier, α per
 * transfer, one port per rank that takes a rank's sends in the order its
 * program starts them, a rank's own copies and reductions free).  For
 * algorithms whose time depends on how their slices take turns at a port
 * and wait for credits (pipelined DBT, KangaRing with several ranks per
 * device), where a closed form would have to restate the lowering.
 */
#ifndef CCORE_TUNE_WALK_H
#define CCORE_TUNE_WALK_H

#include "sched/cs.h"

/* The most schedule steps tune_walk_ideal() walks (beyond: -E2BIG). */
#define TUNE_WALK_MAX_STEPS (1u << 20)

/*
 * The ideal fabric's time, in µs, from every rank starting @s at once to
 * the last one done, lowered for @engines DMA engines per rank and
 * @elem_size-byte elements, at @alpha_us per transfer and @bw_gbps per
 * port: 0 and *@us, or -E2BIG (more than TUNE_WALK_MAX_STEPS steps),
 * -ENOMEM, or -EINVAL (an instruction the walk does not model, or
 * programs that wait for each other for ever).
 */
int tune_walk_ideal(const struct cs_sched *s, uint32_t engines, uint32_t elem_size,
		    double alpha_us, double bw_gbps, double *us);

#endif
