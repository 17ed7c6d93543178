// SPDX-License-Identifier: MIT
/*
 * The algorithm registry: every algorithm, once.  Its entry (struct algo,
 * in its own file) says all the runtime and the tuner know about it; the
 * order here is the order ties keep.
 */
#include "algo.h"

#include <string.h>

extern const struct algo algo_ring, algo_mesh, algo_mesh_oneshot, algo_rdh, algo_dbt,
	algo_flatring, algo_kangaring, algo_pairwise, algo_bruck, algo_binomial, algo_chain,
	algo_p2p, algo_pat, algo_hier, algo_hier_pat, algo_hier_leaders;

static const struct algo *const registry[] = {
	&algo_ring,
	&algo_mesh,
	&algo_mesh_oneshot,
	&algo_rdh,
	&algo_dbt,
	&algo_flatring,
	&algo_kangaring,
	&algo_pairwise,
	&algo_bruck,
	&algo_binomial,
	&algo_chain,
	&algo_p2p,
	&algo_pat,
	&algo_hier,
	&algo_hier_pat,
	&algo_hier_leaders,
};

unsigned int algo_count(void)
{
	return sizeof(registry) / sizeof(registry[0]);
}

const struct algo *algo_at(unsigned int i)
{
	return i < algo_count() ? registry[i] : NULL;
}

const struct algo *algo_find(const char *name, unsigned int coll)
{
	for (unsigned int i = 0; i < algo_count(); i++)
		if (!strcmp(registry[i]->name, name) && (registry[i]->colls & (1u << coll)))
			return registry[i];
	return NULL;
}
