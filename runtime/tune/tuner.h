/* SPDX-License-Identifier: MIT */
/*
 * The tuner: for a call (collective, N, M, topology) it ranks every
 * algorithm with a formula (formula.h) by its modelled time at its best
 * slice and channel counts.  select.c turns the ranking into a choice
 * (CCORE_ALGO first, then $CCORE_TUNER_FILE, then the model) and checks
 * each candidate with the registry's rejects().
 *
 * Parameters: the device's (tune_hw: the sim fabric's configuration, or
 * model.h's defaults), then calibrated values (tuner_calibrate(): fitted
 * to timed runs), then the environment:
 *   CCORE_TUNER_ALPHA_US    α per tier, "dev,node,net" or one value for all (µs)
 *   CCORE_TUNER_BW_GBPS     bandwidth per tier, the same way (GB/s)
 *   CCORE_TUNER_MSG_US      cost of each extra message in a step (µs, >= 0)
 *   CCORE_TUNER_REDUCE_GBPS reduction on arrival (GB/s; 0: free)
 *   CCORE_TUNER_IDEAL       1: the reference's single tier (the first α, BW)
 *   CCORE_TUNER_FILE        a tuning file (tunefile.h)
 * Across hosts the network tier's α and bandwidth are measured or given
 * first (CCORE_NET_ALPHA_US, CCORE_NET_BW_GBPS, CCORE_NET_MEASURE:
 * net_tier.h), in place of the device's; the variables above still
 * override them.
 * A bad value is an error naming the variable (at communicator init).
 */
#ifndef CCORE_TUNE_TUNER_H
#define CCORE_TUNE_TUNER_H

#include "formula.h"
#include "tunefile.h"

#define TUNE_MAX_CAND 16

struct tune_candidate {
	const struct algo *algo;
	uint32_t slices, channels;
	double us;
};

/* Parse the CCORE_TUNER_* variables and the tuning file (again if they changed). */
int tuner_init(void);
/* The tuning file in force (n == 0: none). */
const struct tunefile *tuner_file(void);
/*
 * Calibration: α and bandwidth per tier (and the per-message cost) fitted
 * to timed runs replace the device's; the environment still overrides
 * them.  NULL arrays (a negative @msg_us) leave a part as it is.
 */
void tuner_calibrate(const double alpha_us[TUNE_NTIERS], const double bw_gbps[TUNE_NTIERS],
		     double msg_us);
/*
 * The model's parameters for a group of nodes x (torus_x * torus_y) x rpd
 * ranks on a device described by @hw (NULL: model.h's defaults).
 */
void tuner_topo(uint32_t nodes, uint32_t torus_x, uint32_t torus_y, uint32_t ranks_per_device,
		const struct tune_hw *hw, struct tune_topo *t);
/*
 * The best slices (1..@max_slices) and channels (the knobs it takes) of
 * registry entry @a for @c on @t: 0 with them in c->slices, c->channels
 * and *us; -1 if its cost does not apply.
 */
int tuner_best(const struct algo *a, const struct tune_topo *t, struct tune_call *c,
	       uint32_t max_slices, double *us);
/* Every registered algorithm for c->coll with a formula, fastest first. */
uint32_t tuner_rank(const struct tune_topo *t, const struct tune_call *c, uint32_t max_slices,
		    struct tune_candidate *out, uint32_t max);

#endif
