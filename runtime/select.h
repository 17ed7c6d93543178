/* SPDX-License-Identifier: MIT */
/*
 * Choosing an algorithm: CCORE_ALGO, else the interim default rule.
 *
 * CCORE_ALGO (NCCL-like): clauses separated by ';'; a clause is an optional
 * "collective:" prefix and a comma-separated list of algorithm names,
 * optionally starting with '^' to exclude them instead.  A clause for a
 * collective overrides one without prefix.  Example: "ring,rdh;allreduce:^mesh".
 */
#ifndef CCORE_SELECT_H
#define CCORE_SELECT_H

#include "algos/algo.h"

/* Parse and check $CCORE_ALGO; -EINVAL with a message naming the problem. */
int select_init(void);
/* Pick the algorithm; -ENOENT with the reasons if none can serve. */
int select_algo(const struct cs_shape *sh, uint64_t bytes, const struct algo_opts *o,
		const struct algo **out);

#endif
