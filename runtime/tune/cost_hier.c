// SPDX-License-Identifier: MIT
/*
 * Hierarchical AllGather, ReduceScatter and AllReduce (IN "Hierarchical"):
 * ring (or PAT) phases within and across nodes, each with its tier's α and
 * bandwidth, as hier.c composes them.
 */
#include "cost.h"

/*
 * The two tiers of a hierarchy: one node, and one column (a rank per
 * node); a device's R columns share its NIC, as R streams would.
 */
static void hier_topos(const struct tune_topo *t, struct tune_topo *intra, struct tune_topo *inter)
{
	*intra = *t;
	intra->nodes = 1;
	*inter = *t;
	inter->ranks_per_device = 1;
	inter->torus_x = inter->torus_y = 1;
	if (!t->ideal)
		inter->streams = (t->streams ? t->streams : 1) * t->ranks_per_device;
}

static struct tune_cost hier(const struct algo *a, const struct tune_topo *t,
			     const struct tune_call *call, uint8_t coll, uint32_t n, double M,
			     uint32_t P, bool use_pat)
{
	uint32_t X = t->nodes, G = n / X;
	struct tune_topo in, out;
	struct tune_cost c = { 0, 0 };
	double blk = M / n;

	hier_topos(t, &in, &out);
	if (coll == CS_ALLREDUCE) {
		/* hier.c: first the count mod G leftover elements, in one slice, an
		 * intra AR and an inter AR; then the main parts */
		uint32_t es = call->elem_size ? call->elem_size : 4;
		double left = (double)((uint64_t)(M / es) % G) * es, main = M - left;

		/*
		 * Ideal, with a leftover: ranks done with its two phases early
		 * start the main ones, a hop's α sooner where a part is an
		 * element or two (4 x 3 x 1, 4 elements: 38 us, not the phases'
		 * 40): walk the schedule (per rank and slice a send and a
		 * receive per hop of each phase, the leftover's too)
		 */
		if (t->ideal && left > 0 && !use_pat &&
		    !cost_walked(t, a, coll, n, M, P, es, 8 * (G + X), &c))
			return c;
		if (main > 0) {
			tune_add(&c, cost_ring_phase(&in, CS_REDUCESCATTER, G, main, P, 1), 1);
			tune_add(&c, cost_ring_phase(&out, CS_ALLREDUCE, X, main / G, P, 1), 1);
			tune_add(&c, cost_ring_phase(&in, CS_ALLGATHER, G, main, P, 1), 1);
		}
		if (left > 0) {
			tune_add(&c, cost_ring_phase(&in, CS_ALLREDUCE, G, left, 1, 1), 1);
			tune_add(&c, cost_ring_phase(&out, CS_ALLREDUCE, X, left, 1, 1), 1);
		}
		return c;
	}
	tune_add(&c, use_pat ? cost_pat_phase(&out, call, coll, X, X * blk, P) :
		     cost_ring_phase(&out, coll, X, X * blk, P, 1), 1);
	tune_add(&c, cost_ring_phase(&in, coll, G, G * blk, P, 1), X);
	return c;
}

double cost_hier(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	return tune_total(hier(a, t, c, c->coll, c->nranks, c->bytes, slices_of(c), false));
}

double cost_hier_pat(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	return tune_total(hier(a, t, c, c->coll, c->nranks, c->bytes, slices_of(c), true));
}

/*
 * hier-leaders: a binomial Reduce to each node's leader, the leaders'
 * AllReduce (one-shot Mesh up to 8 nodes, else RDH) on the whole message,
 * a binomial Broadcast back; each priced by its own algorithm's model on
 * its tier.  One column crosses the network, so it has the NIC alone.
 */
double cost_hier_leaders(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	uint32_t X = t->nodes, G = c->nranks / (X ? X : 1);
	const struct algo *tree = algo_find("binomial", CS_REDUCE_COLL);
	const struct algo *cross = algo_find(X <= HIER_LEADERS_MESH_NODES ? "mesh_oneshot" : "rdh",
					     CS_ALLREDUCE);
	struct tune_call sub = *c;
	struct tune_topo in, out;
	double us;

	(void)a;
	hier_topos(t, &in, &out);
	out.streams = t->streams ? t->streams : 1;
	sub.slices = sub.channels = 1;
	sub.nranks = G;
	sub.coll = CS_REDUCE_COLL;
	us = tree->cost(tree, &in, &sub);
	sub.coll = CS_BROADCAST;
	us += tree->cost(tree, &in, &sub);
	sub.coll = CS_ALLREDUCE;
	sub.nranks = X;
	return us + cross->cost(cross, &out, &sub);
}

const char *cost_rejects_hier(const struct tune_topo *t, const struct tune_call *c)
{
	if (t->nodes < 2 || c->nranks / t->nodes < 2)
		return "needs 2 or more nodes with 2 or more ranks each";
	return NULL;
}
