// SPDX-License-Identifier: MIT
/* Algorithm registry, part b (see algos.c). */
#include "algo.h"

#include <stddef.h>

extern const struct algo algo_pairwise;
extern const struct algo algo_bruck;
extern const struct algo algo_binomial;
extern const struct algo algo_chain;
extern const struct algo algo_p2p;
extern const struct algo algo_pat;
extern const struct algo algo_hier;
extern const struct algo algo_hier_pat;

const struct algo *const algo_registry_b[] = {
	&algo_pairwise,
	&algo_bruck,
	&algo_binomial,
	&algo_chain,
	&algo_p2p,
	&algo_pat,
	&algo_hier,
	&algo_hier_pat,
	NULL,
};
