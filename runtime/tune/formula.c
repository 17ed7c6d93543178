// SPDX-License-Identifier: MIT
/*
 * α-β formulas of every algorithm (see formula.h).  References are to
 * /work/shared/reference: CA = collective-algorithms.txt, IN =
 * internode-collectives.txt, PAT = pat-algorithm.txt.
 *
 * Each formula is written as the algorithm's sequence of steps, each step
 * costed by model.c; in the ideal setting a step costs α + (bytes a rank
 * sends)/BW and the sums are the reference's closed forms, quoted below
 * (n = N ranks, L = ceil(log2 N), P = slices):
 *
 *   ring AR        2(n-1)α + 2(n-1)/n·M/BW                  CA §5.1
 *   ring AG, RS    (n-1)α + (n-1)/n·M/BW                    CA §6
 *   flatring       the ring's, C channels each carrying 1/C (IN "Flat
 *                  Ring"); with tiers both link directions carry channels
 *   kangaring      ring over g = n/R device primaries: AR 2(g-1)α +
 *                  2(g-1)/g·M/BW plus one fold step α + M/(g·BW) (no
 *                  reference formula: IN names it without a trace; as
 *                  built in runtime/algos/kangaring.c, secondaries' folds
 *                  and copies run on their own engines beside the ring;
 *                  ideal: its time steps through each rank's one port, see
 *                  kangaring_gather_ideal() and kangaring_reduce_ideal())
 *   mesh AG, RS    α + (n-1)/n·M/BW; AR 2α + 2(n-1)/n·M/BW  IN "Mesh"
 *   mesh_oneshot   α + (n-1)·M/BW                           IN "Single-step Mesh"
 *   rdh AG, RS     Lα + (n-1)/n·M/BW; AR 2Lα + 2(n-1)/n·M/BW, for
 *                  power-of-two n (CA App. B.2, B.4; IN "RDH").  Other n,
 *                  as rdh.c runs it: p = 2^floor(log2 n) participants
 *                  after a fold-in step (ranks 2i+1 < 2(n-p) hand their
 *                  data to 2i: M for AR/RS, M/n for AG) and before a
 *                  fold-out step (M for AR/AG, M/n for RS): rdh(p) + 2 steps
 *   dbt AR         P = 1: 2Lα + L·M/BW (CA §5.2); P slices: App. C's
 *                  master formula with 2L steps of M/(2P):
 *                  (2L + P - 1)(α + M/(2P·BW)), but never below §5.2's
 *                  stated floor 2Lα + M/BW (the master formula alone would
 *                  reach M/(2BW): see the note in tune_dbt())
 *   pat AG, RS     Lα + (n-1)/n·M/BW                         CA App. A
 *                  when the staging buffer holds the largest message;
 *                  else the steps pat.c runs for the buffer (see cost_pat_phase())
 *   pairwise A2A   (n-1)α + (n-1)/n·M/BW                     CA §7.2
 *   bruck A2A      Lα + L·M/(2BW) for power-of-two n (CA App. B.5); other
 *                  n: round k moves the slots j < n with bit k set
 *   binomial BC/R  (L + P - 1)(α + M/(P·BW)); P = 1: L(α + M/BW)  CA §3.2,
 *                  §4.2, App. C
 *   chain BC/R     (n + P - 2)(α + M/(P·BW))                 CA §3.1, §4.1
 *   p2p            α + M/BW                                   CA §8
 *   hier           G ranks per node, X nodes (IN "Hierarchical"):
 *                  AR = ring RS(G, M) + ring AR(X, M/G) + ring AG(G, M);
 *                  AG = ring AG(X, X·M/n) + X × ring AG(G, G·M/n);
 *                  RS = X × ring RS(G, G·M/n) + ring RS(X, X·M/n)
 *                  (the intra-node AG/RS run once per node row, as hier.c
 *                  embeds them: X(G-1) intra steps, not G-1), each phase
 *                  with its tier's α and BW; the inter phase's G columns
 *                  share each device's NIC (R transfers per NIC)
 *   hier-pat       hier with PAT between nodes (AG, RS)
 *
 * Slices: the reference counts a ring-like step as α + block/BW whatever
 * the slicing (it is already pipelined with P = n).  Here the slices of a
 * step emitted in wavefront order (ring family, pairwise rounds) hide the
 * step's α behind the block's other slices (see sliced_avg()); with one slice
 * every formula is the reference's.  Chain, binomial and DBT take the
 * slices as the P of App. C's master formula, PAT as pieces run one after
 * the other.  With tiers each extra message costs msg_us and a reduction
 * on arrival (reduce_gbps) is exposed for 1/P of a block, and DBT, binomial
 * Broadcast/Reduce, pairwise AllToAll and PAT AllGather are longest paths
 * through their steps as their code runs (each function in its cost_*.c
 * file says how).
 * In the ideal setting DBT and KangaRing AllReduce/ReduceScatter with
 * P > 1, and hier AllReduce with a leftover, are their schedules run on
 * the ideal fabric (cost_walked(), walk.h): how their slices take turns at a
 * rank's port and wait for credits has no closed form here.
 *
 * This file is the core: the dispatch to the registry entry's cost(), the
 * schedule walk and one transfer's cost.  Each family's formulas are in
 * cost_<family>.c (ring, kangaring, mesh, rdh, tree, pat, alltoall, p2p,
 * hier; the rounds pairwise, PAT and RDH share in cost_rounds.c), what
 * they share in cost.h.
 */
#include "cost.h"
#include "walk.h"

/*
 * @a's own schedule for the call run on the ideal fabric (walk.h), for
 * pipelines whose slices take turns at a rank's port and wait for credits
 * in ways no closed form here follows: 0 and @out, or -1 if it is too
 * large to walk (@steps_per_rank, about, per rank and slice) or cannot be
 * built.
 */
struct walk_memo {
	const struct algo *a;
	struct cs_shape sh;
	struct algo_opts o;
	uint32_t engines, es;
	double alpha_us, bw_gbps, us;
};

/*
 * The walks done last, per thread: choosing a plan prices every slice
 * count, ranking the candidates and then the one chosen again, and a
 * repeated call repeats them all.
 */
#define WALK_MEMO 16
static _Thread_local struct walk_memo walk_memo[WALK_MEMO];
static _Thread_local unsigned int walk_memo_next;

static bool same_walk(const struct walk_memo *m, const struct walk_memo *k)
{
	return m->a == k->a && m->sh.coll == k->sh.coll && m->sh.nranks == k->sh.nranks &&
	       m->sh.count == k->sh.count && m->o.slices == k->o.slices &&
	       m->o.ranks_per_device == k->o.ranks_per_device &&
	       m->o.ranks_per_node == k->o.ranks_per_node && m->engines == k->engines &&
	       m->es == k->es && m->alpha_us == k->alpha_us && m->bw_gbps == k->bw_gbps;
}

int cost_walked(const struct tune_topo *t, const struct algo *a, uint8_t coll, uint32_t n,
		double M, uint32_t P, uint32_t es, uint32_t steps_per_rank, struct tune_cost *out)
{
	struct walk_memo k = {
		.a = a, .sh = { .coll = coll, .nranks = n, .peer = 1 },
		.o = { .slices = P, .channels = 1, .ranks_per_device = t->ranks_per_device,
		       .ranks_per_node = n / (t->nodes ? t->nodes : 1) },
		.es = es, .alpha_us = t->alpha_us[0], .bw_gbps = t->bw_gbps[0],
	};
	struct cs_sched *s;
	struct tune_hw hw;
	int rc;

	if ((uint64_t)n * P * steps_per_rank > TUNE_WALK_MAX_STEPS)
		return -1;
	k.sh.count = (uint64_t)(M / es / (coll == CS_ALLREDUCE ? 1 : n));
	if (!k.sh.count || (k.a->rejects && k.a->rejects(&k.sh, &k.o)))
		return -1;
	tune_hw_default(&hw);
	k.engines = t->engines ? t->engines : hw.engines;
	for (unsigned int i = 0; i < WALK_MEMO; i++)
		if (same_walk(&walk_memo[i], &k)) {
			*out = (struct tune_cost){ 0, walk_memo[i].us };
			return 0;
		}
	s = k.a->gen(&k.sh, &k.o);
	if (cs_unusable(s)) {
		cs_free(s);
		return -1;
	}
	rc = tune_walk_ideal(s, k.engines, es, k.alpha_us, k.bw_gbps, &k.us);
	cs_free(s);
	if (rc)
		return -1;
	walk_memo[walk_memo_next++ % WALK_MEMO] = k;
	*out = (struct tune_cost){ 0, k.us };
	return 0;
}

/* Hops inside a node from device @a to device @b (ring or torus distance). */
static uint32_t node_hops(const struct tune_topo *t, uint32_t a, uint32_t b)
{
	uint32_t X = t->torus_x, Y = t->torus_y;
	uint32_t dx = (b % X + X - a % X) % X, dy = (b / X + Y - a / X) % Y;

	return (dx < X - dx ? dx : X - dx) + (dy < Y - dy ? dy : Y - dy);
}

/* One transfer of @bytes alone from rank @a to rank @b: α of its route, its tier's rate. */
struct tune_cost cost_lone(const struct tune_topo *t, uint32_t a, uint32_t b, double bytes)
{
	uint32_t R = t->ranks_per_device, D = t->torus_x * t->torus_y;
	uint32_t da = a / R, db = b / R;
	enum tune_tier tier = da == db ? TUNE_DEV : da / D == db / D ? TUNE_NODE : TUNE_NET;
	double gbps = t->bw_gbps[tier];
	struct tune_cost c;

	if (t->engine_gbps > 0 && t->engine_gbps < gbps)
		gbps = t->engine_gbps;
	c.xfer_us = bytes / (gbps * 1e3);
	c.lat_us = t->step_us + (tier == TUNE_NODE ? tune_hop_alpha(t, node_hops(t, da % D, db % D)) :
				 t->alpha_us[tier]);
	return c;
}

double tune_bytes(uint8_t coll, uint32_t nranks, uint64_t count, uint64_t elem_size)
{
	double b = (double)count * (double)elem_size;

	if (coll == CS_ALLGATHER || coll == CS_REDUCESCATTER || coll == CS_ALLTOALL)
		b *= nranks;
	return b;
}

int tune_formula(const struct algo *a, const struct tune_topo *t, const struct tune_call *c,
		 double *us, const char **why)
{
	const char *no = NULL;

	if (!a->cost)
		no = "has no formula";
	else if (!(a->colls & (1u << c->coll)))
		no = "does not serve this collective";
	else if (tune_topo_ranks(t) != c->nranks)
		no = "the topology does not have the call's number of ranks";
	else if (a->cost_rejects)
		no = a->cost_rejects(t, c);
	if (no) {
		*why = no;
		return -1;
	}
	if (c->nranks < 2 || c->bytes <= 0) {
		*us = 0;	/* a local copy at most */
		return 0;
	}
	*us = a->cost(a, t, c);
	return 0;
}
