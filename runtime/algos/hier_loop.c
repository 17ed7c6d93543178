// SPDX-License-Identifier: MIT
/*
 * Hierarchical AllReduce in loop form (ring_loop.h): the three ring phases
 * hier.c embeds, as segments one after the other in each rank's program.
 * For G ranks per node, M nodes and k = count / G elements per part, rank
 * r = q*G + i (local rank i of node q):
 *   1. intra-node ReduceScatter of the input into RECV part i (partial sums
 *      in TMP), around node q;
 *   2. AllReduce of part i in place, around column i (rank i of every node);
 *   3. intra-node AllGather of the parts in place, around node q.
 * Each segment grants its credits only when the one before has received
 * everything, where hier.c's schedule has seam dependencies instead: the
 * phases do not overlap at the seams, slices still pipeline within each.
 * The reduce-scatter's rings drain only before the all-gather: the column
 * phase writes part i alone, which no reduce-scatter send reads.  Only the shapes without a leftover (count a multiple of G, each
 * part a multiple of M) take this form.
 */
#include "ring_loop.h"
#include "ccore_internal.h"

#include <errno.h>

struct hier_geo {
	const struct cs_shape *s;
	uint32_t G, M;
	uint64_t k;		/* elements per part */
	uint32_t rs_rings;	/* the intra-node reduce-scatter's, from 0; the all-gather's next */
	uint32_t engines;
};

static bool hier_geo_of(const struct cs_shape *s, const struct algo_opts *o, uint32_t engines,
			struct hier_geo *g)
{
	/* two engines: the node's ring and the column's apart */
	if (s->coll != CS_ALLREDUCE || hier_geometry(s, o) || s->count % o->ranks_per_node ||
	    engines < 2 || engines > LOWER_MAX_ENGINES)
		return false;
	*g = (struct hier_geo){ .s = s, .G = o->ranks_per_node, .engines = engines };
	g->M = s->nranks / g->G;
	g->k = s->count / g->G;
	g->rs_rings = ring_seg_rings(CS_REDUCESCATTER, g->G, g->k, s->in_place);
	return g->rs_rings && ring_seg_rings(CS_ALLREDUCE, g->M, g->k, true) &&
	       ring_seg_rings(CS_ALLGATHER, g->G, g->k, true) && g->rs_rings + 1 <= LOWER_RINGS;
}

/*
 * Loop form pays once the schedule would be big: its seams overlap the
 * phases slice by slice, which the loop form's do not (1 GiB over 1024
 * ranks: 22442.6 us from the schedule, 22796.6 us in loop form), but
 * planning it takes about half a microsecond per step (0.28 s there).
 */
#define HIER_LOOP_STEPS (1u << 18)

uint32_t hier_loops_fit(const struct cs_shape *s, const struct algo_opts *o, uint32_t engines,
			bool always, uint64_t *tmp_count)
{
	uint64_t steps;
	struct hier_geo g;

	*tmp_count = 0;
	if (!hier_geo_of(s, o, engines, &g))
		return 0;
	/* per rank and slice a send and a receive per hop of each phase */
	steps = (uint64_t)s->nranks * (o->slices ? o->slices : 1) * 2 * (2 * (g.G - 1) + 2 * (g.M - 1));
	if (!always && steps < HIER_LOOP_STEPS)
		return 0;
	*tmp_count = ring_seg_tmp(CS_REDUCESCATTER, g.G, g.k);
	/* the intra-node rings on one engine, the column's two on the next */
	return g.rs_rings + 1 > 2 ? g.rs_rings + 1 : 2;
}

/* Rank @r's three segments. */
static uint32_t hier_segments(const void *arg, uint32_t r, struct ring_seg *seg)
{
	const struct hier_geo *g = arg;
	uint32_t G = g->G, M = g->M, q = r / G, i = r % G, n = g->s->nranks;
	uint32_t next = (i + 1) % G, local = (r + n) % g->engines;
	uint64_t k = g->k;

	/* engines as lower.c gives them: node-right is the first peer sent to */
	seg[0] = (struct ring_seg){
		.coll = CS_REDUCESCATTER, .in_place = g->s->in_place, .n = G, .m = i,
		.left = q * G + (i + G - 1) % G, .right = q * G + next, .count = k,
		.engine = (local + 1) % g->engines, .first_ring = 0, .drain_late = true,
		.own = { cs_at(CS_SEND, 0), cs_at(CS_RECV, i * k), cs_at(CS_TMP, 0) },
		.theirs = { cs_at(CS_SEND, 0), cs_at(CS_RECV, next * k), cs_at(CS_TMP, 0) },
		.cnt_main = RING_A_LEFT, .cnt_fixed = RING_A_SELF, .cnt_ag = RING_C_SELF,
	};
	seg[1] = (struct ring_seg){
		.coll = CS_ALLREDUCE, .in_place = true, .n = M, .m = q,
		.left = (q + M - 1) % M * G + i, .right = (q + 1) % M * G + i, .count = k,
		.engine = (local + 2) % g->engines, .first_ring = 0,
		.own = { cs_at(CS_RECV, i * k), cs_at(CS_RECV, i * k), cs_at(CS_TMP, 0) },
		.theirs = { cs_at(CS_RECV, i * k), cs_at(CS_RECV, i * k), cs_at(CS_TMP, 0) },
		.cnt_main = RING_A_LEFT, .cnt_fixed = RING_A_SELF, .cnt_ag = RING_C_SELF,
	};
	seg[2] = (struct ring_seg){
		.coll = CS_ALLGATHER, .in_place = true, .n = G, .m = i,
		.left = seg[0].left, .right = seg[0].right, .count = k,
		.engine = seg[0].engine, .first_ring = g->rs_rings,
		.own = { cs_at(CS_RECV, i * k), cs_at(CS_RECV, 0), cs_at(CS_TMP, 0) },
		.theirs = { cs_at(CS_RECV, next * k), cs_at(CS_RECV, 0), cs_at(CS_TMP, 0) },
		.cnt_main = RING_A_LEFT, .cnt_fixed = RING_A_SELF, .cnt_ag = RING_C_SELF,
	};
	return 3;
}

int hier_lower_loops(const struct cs_shape *s, const struct algo_opts *o,
		     const struct lower_ctx *c, struct lowered **out)
{
	struct hier_geo g;

	if (!hier_geo_of(s, o, c->engines, &g))
		return ccore_error(-EINVAL, "hier loops: this AllReduce does not fit the loop form");
	return ring_loop_lower(c, o->slices ? o->slices : 1, hier_segments, &g, out);
}

int hier_loop_image(const struct cs_shape *s, const struct algo_opts *o,
		    const struct lower_ctx *c, uint32_t r, struct lower_image *im)
{
	struct hier_geo g;

	if (!hier_geo_of(s, o, c->engines, &g))
		return ccore_error(-EINVAL, "hier loops: this AllReduce does not fit the loop form");
	return ring_loop_segs_image(c, o->slices ? o->slices : 1, hier_segments, &g, r, im);
}
