// SPDX-License-Identifier: MIT
/*
 * Where a communicator's ranks sit, as the cost model sees it: ranks per
 * device and per node, and the fabric's ring or torus of devices.
 */
#include "plan.h"
#include "tune/hw.h"
#include "tune/net_tier.h"

#include <stdlib.h>

/*
 * Ranks per device and per node, if the communicator's ranks are laid out
 * in equal consecutive groups (0 otherwise): what KangaRing and the
 * hierarchical algorithms need to know.
 */
uint32_t clique_group_size(const struct clique *q, bool node)
{
	uint32_t per = q->rt->devices_per_node ? q->rt->devices_per_node : 1, g = 0;

	for (uint32_t r = 0; r < q->n; r++) {
		uint32_t a = node ? q->ranks[r].dev / per : q->ranks[r].dev;
		uint32_t b = node ? q->ranks[0].dev / per : q->ranks[0].dev;

		if (a != b)
			break;
		g++;
	}
	if (!g || q->n % g)
		return 0;
	for (uint32_t r = 0; r < q->n; r++) {
		uint32_t a = node ? q->ranks[r].dev / per : q->ranks[r].dev;
		uint32_t lead = node ? q->ranks[r - r % g].dev / per : q->ranks[r - r % g].dev;

		if (a != lead || (r % g == 0 && r &&
				  (node ? q->ranks[r - 1].dev / per : q->ranks[r - 1].dev) == a))
			return 0;
	}
	return g;
}

bool plan_stage_nodes_for_test;
unsigned long plans_staged;
unsigned long plans_double_buffered;

const uint32_t *clique_hosts(struct clique *q)
{
	uint32_t per = q->rt->devices_per_node ? q->rt->devices_per_node : 1;

	if (!plan_stage_nodes_for_test && !q->rt->across_hosts)
		return NULL;
	if (!q->hosts) {
		q->hosts = malloc(q->n * sizeof(*q->hosts));
		for (uint32_t r = 0; q->hosts && r < q->n; r++)
			q->hosts[r] = q->ranks[r].dev / per;
	}
	return q->hosts;
}

/*
 * The cost model's topology for @q's ranks: R ranks per device, G per node
 * (as clique_group_size() finds them; an irregular layout counts as flat), on the
 * fabric's ring or torus when the group spans whole nodes, else on a ring
 * of its devices; priced with the device's parameters (tune/hw.c).
 */
void clique_topo(struct clique *q, const struct algo_opts *o, struct tune_topo *t)
{
	uint32_t n = q->n, R = o->ranks_per_device ? o->ranks_per_device : 1;
	uint32_t G = o->ranks_per_node ? o->ranks_per_node : n, D;

	if (G % R)
		R = 1;
	D = G / R;
	if (!q->torus_x) {
		struct ccore_dev *d = q->rt->devs[q->ranks[0].dev].dev;
		uint64_t x = 0, y = 0;

		if (ccore_dev_param(d, DRM_CCORE_PARAM_TORUS_X, &x) ||
		    ccore_dev_param(d, DRM_CCORE_PARAM_TORUS_Y, &y) || !x || !y) {
			x = q->rt->devices_per_node ? q->rt->devices_per_node : 1;
			y = 1;
		}
		q->torus_x = (uint32_t)x;
		q->torus_y = (uint32_t)y;
		/* what the device says its hardware costs, on any backend */
		tune_hw_from_device(d, &q->hw);
		/* across hosts the network is real: its agreed figures (comm_net_tier.c) */
		if (q->rt->across_hosts)
			tune_hw_set_net(&q->hw, &q->rt->net);
	}
	if (D == q->torus_x * q->torus_y)
		tuner_topo(n / G, q->torus_x, q->torus_y, R, &q->hw, t);
	else
		tuner_topo(n / G, D, 1, R, &q->hw, t);
}
