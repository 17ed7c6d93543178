/* SPDX-License-Identifier: MIT */
/*
 * Choosing an algorithm, its slices and channels, in this order:
 *   1. CCORE_ALGO (NCCL-like): clauses separated by ';'; a clause is an
 *      optional "collective:" prefix and a comma-separated list of
 *      algorithm names, optionally starting with '^' to exclude them
 *      instead.  A clause for a collective overrides one without prefix.
 *      An inclusive list is the order of preference: the first that can
 *      serve the call runs.  Example: "ring,rdh;allreduce:^mesh".
 *   2. The tuning file ($CCORE_TUNER_FILE, runtime/tune/tunefile.h): the
 *      first line matching the call names the algorithm (and maybe its
 *      slices and channels).
 *   3. The cost model (runtime/tune/): the algorithm with the least
 *      modelled time, among those CCORE_ALGO allows.
 * Every candidate must also pass its registry entry's rejects(); skipped
 * ones are logged at INFO with the reason.  Slices and channels not fixed
 * by the tuning file are the model's best for the algorithm chosen.
 */
#ifndef CCORE_SELECT_H
#define CCORE_SELECT_H

#include "algos/algo.h"
#include "tune/tuner.h"

struct select_choice {
	const struct algo *algo;
	uint32_t slices, channels;
	double us;			/* modelled time; < 0: no formula */
	const char *source;		/* "cost model", "CCORE_ALGO", "CCORE_TUNER_FILE" */
	uint32_t file_line;		/* CCORE_TUNER_FILE: the line that matched */
	const char *runner_up;		/* the model's next choice that can serve, or NULL */
	double runner_up_us;
	double bytes;			/* M as the model counts it */
	uint32_t ncand;			/* every algorithm with a formula, fastest first */
	struct tune_candidate cand[TUNE_MAX_CAND];
};

/*
 * Parse and check $CCORE_ALGO and the tuner's variables and file; -EINVAL
 * with a message naming the problem.
 */
int select_init(void);
/*
 * $CCORE_PAT_BUFFER (read by select_init()) as elements of @elem_size
 * bytes, 1..UINT32_MAX; 0 if it is not set (PAT's default).
 */
uint32_t select_pat_buffer(uint64_t elem_size);
/*
 * Choose for @sh on topology @t (elements of @elem_size bytes): fills @out
 * and sets @o's slices and channels.  -ENOENT with the reasons if nothing
 * can serve.
 */
int select_algo(const struct cs_shape *sh, const struct tune_topo *t, uint64_t elem_size,
		struct algo_opts *o, struct select_choice *out);

/* $CCORE_LOOPS: when plans are built in loop form instead of from their schedule. */
enum select_loops {
	SELECT_LOOPS_AUTO,	/* where the algorithm finds it pays */
	SELECT_LOOPS_ALWAYS,	/* wherever it fits */
	SELECT_LOOPS_NEVER,
};
enum select_loops select_loops(void);

#endif
