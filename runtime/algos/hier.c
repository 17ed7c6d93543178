// SPDX-License-Identifier: MIT
/*
 * Hierarchical AllGather, ReduceScatter and AllReduce for G =
 * o->ranks_per_node ranks per node; consecutive ranks form a node, so rank
 * r is local rank i = r mod G of node r / G, and there are M = N / G nodes.
 * "Intra" runs within a node (G ranks), "inter" within a column: the M
 * ranks with the same local index, one per node.  Only columns cross nodes.
 * (Reference: internode-collectives.txt, collective-algorithms.txt §6.)
 *
 * The phases are sub-schedules made by registered generators (the intra
 * and inter algorithms are parameters: "hier" uses ring for both,
 * "hier-pat" ring within nodes and PAT between them) and embedded with
 * hier_embed.c, which maps each sub-schedule's SEND, RECV and TMP onto
 * parent buffer regions.  With c the per-rank block:
 *
 *   AllGather = inter AG, then intra AG.  Column i gathers the blocks of
 *     its members straight into their places in RECV (blocks nG + i: a
 *     map with segments of c every G*c).  Then, for each node n', an
 *     in-place intra AG of node block row n' (RECV blocks n'G .. n'G+G-1,
 *     contiguous) spreads block n'G + i to the rest of the node.
 *   ReduceScatter = intra RS, then inter RS.  For each node n', an intra
 *     RS of SEND blocks n'G .. n'G+G-1 leaves at local rank i the node's
 *     sum of block n'G + i, in TMP slot n'; the M slots, contiguous, are
 *     the SEND of the inter RS of column i, whose result lands in RECV.
 *   AllReduce = intra RS + inter AR + intra AG on the first G*k elements
 *     (k = count / G): part i is reduced within the node into RECV part i,
 *     all-reduced along the column in place, and gathered within the node
 *     in place.  The count mod G leftover elements take an intra AR and
 *     an inter AR, the wider group's second (see hier_allreduce_tail()),
 *     so transfers still only cross nodes within a column.  The leftover
 *     goes first: its second phase's receives wait for the first phase's
 *     sends to other peers, and were they a peer's last receives they
 *     would cost the main phases' all-gather receives from that peer their
 *     credit markers (lower.c): a ring drain, a hop's α, per slice.
 * In place, the sub-schedules that read and write the same parent storage
 * are embedded in place too, so their buffers alias exactly as their
 * generator assumed.
 *
 * Dependencies: each sub-schedule orders its own steps; where phases meet,
 * the embedder adds dependencies between conflicting steps that the
 * lowering could otherwise run concurrently: AllGather's intra sends of
 * the own block after the inter phase's copy of it into RECV, the inter
 * AllReduce's receive-reduces after the intra RS receives that produced
 * their input, an in-place AllReduce's intra AG receive into part j after
 * the intra RS sends that read the input there.  A receive takes such a
 * dependency only while its credit stays within the earlier phases (or
 * where its generator put it); otherwise the embedder stages it in TMP
 * and moves the data with a local step (see hier_embed.h), since a credit
 * held behind the sub-schedule's own first send deadlocks a ring.  Every
 * sub-schedule gets its own TMP region, so phases never meet in TMP.
 * Seam dependencies can leave a peer's credits out of receive order (a
 * later receive from it granted before an earlier one), which the
 * lowering's credit counters cannot express; pat_credit_order() restores
 * the order at the end.  Phases follow one another in every rank's program and each is deadlock
 * free on its own, with credits that never wait for a later phase, so the
 * composition is too.
 */
#include "algo.h"
#include "algo_cost.h"
#include "hier_embed.h"
#include "pat_credit.h"

#include <errno.h>
#include <stdlib.h>

struct hier_variant {
	const char *intra, *inter;
	bool leaders;			/* AllReduce: every count between leaders (hier-leaders) */
};

struct hier_ctx {
	struct cs_sched *s;		/* NULL: only check the sub-algorithms */
	const struct cs_shape *sh;
	const struct algo_opts *o;
	const struct hier_variant *v;
	uint32_t G, M;
	uint64_t tmp;			/* parent TMP used so far */
	uint32_t row;			/* repeated phases: which repetition */
	bool unsliced;			/* phases of one slice (AllReduce's leftover) */
	bool first_column;		/* a column phase in column 0 only (hier_allreduce_tiny()) */
	bool leaders;			/* the whole count between leaders (hier_allreduce_tiny()) */
	const char *why;		/* why a phase cannot run */
};

/* Where sub-rank @m of group @g keeps its buffers; @tbase: its TMP. */
typedef void hier_mapfn(const struct hier_ctx *c, uint32_t g, uint32_t m, uint64_t tbase,
			struct hier_map map[CS_NBUF]);

static struct hier_map hier_at(enum cs_buf buf, uint64_t off)
{
	struct hier_map m = { (uint8_t)buf, off, 0, 0 };

	return m;
}

/* Parent rank of member @m of node or column @g. */
static uint32_t hier_member(const struct hier_ctx *c, bool intra, uint32_t g, uint32_t m)
{
	return intra ? g * c->G + m : m * c->G + g;
}

/* Embed @sub into every node (@intra) or column; its TMP at @tbase. */
static int hier_embed_all(struct hier_ctx *c, bool intra, const struct cs_sched *sub,
			  hier_mapfn *fn, uint64_t tbase)
{
	uint64_t stage = tbase + sub->tmp_count, used = 0;
	uint32_t groups = intra ? c->M : c->first_column ? 1 : c->G, size = intra ? c->G : c->M;
	uint32_t *grp = malloc(size * sizeof(*grp));
	struct hier_map map[CS_NBUF];
	int rc = 0;

	if (!grp) {
		c->s->oom = true;
		return -ENOMEM;
	}
	for (uint32_t g = 0; g < groups && !rc; g++) {
		for (uint32_t m = 0; m < size; m++)
			grp[m] = hier_member(c, intra, g, m);
		for (uint32_t m = 0; m < size && !rc; m++) {
			fn(c, g, m, tbase, map);
			rc = hier_embed_rank(c->s, sub, m, grp, map, stage, &used);
		}
	}
	free(grp);
	c->tmp = stage + used;
	return rc;
}

/*
 * One phase: @coll on @count elements per rank over every node (@intra)
 * or every column, @reps times (c->row counts them), buffers placed by
 * @fn.  -1 with c->why if the sub-algorithm cannot serve it, or on failure
 * (c->s->oom if memory ran out).
 */
static int hier_phase(struct hier_ctx *c, bool intra, uint8_t coll, uint64_t count,
		      bool in_place, hier_mapfn *fn, uint32_t reps)
{
	const char *name = intra ? c->v->intra : c->v->inter;
	const struct algo *a = algo_find(name, coll);
	struct cs_shape sh = {
		.coll = coll, .nranks = intra ? c->G : c->M, .count = count, .in_place = in_place,
	};
	struct algo_opts o = *c->o;
	struct cs_sched *sub;
	int rc = 0;

	o.ranks_per_node = 0;
	if (c->unsliced)
		o.slices = 1;
	if (!a) {
		c->why = intra ? "the intra-node algorithm does not serve a phase" :
				 "the inter-node algorithm does not serve a phase";
		return -1;
	}
	c->why = a->rejects(&sh, &o);
	if (c->why)
		return -1;
	if (!c->s)
		return 0;
	sub = a->gen(&sh, &o);
	if (cs_unusable(sub)) {
		c->why = sub && sub->fail ? sub->fail : "out of memory";
		c->s->oom |= !sub || sub->oom;
		cs_free(sub);
		return -1;
	}
	for (c->row = 0; c->row < reps && !rc; c->row++)
		rc = hier_embed_all(c, intra, sub, fn, c->tmp);
	cs_free(sub);
	if (rc == -ENOMEM)
		c->why = "out of memory";
	else if (rc == -E2BIG)
		c->why = "a step would wait for more than 6 (CS_MAX_DEPS) steps of earlier phases";
	else if (rc)
		c->why = "a step of a phase straddles the blocks its buffer was mapped to";
	return rc ? -1 : 0;
}

/* --- AllGather ---------------------------------------------------------------- */

static void hier_ag_inter_map(const struct hier_ctx *c, uint32_t g, uint32_t m, uint64_t tbase,
			      struct hier_map map[CS_NBUF])
{
	uint64_t k = c->sh->count;

	(void)m;
	map[CS_SEND] = hier_at(CS_SEND, 0);
	map[CS_RECV] = (struct hier_map){ CS_RECV, g * k, k, (uint64_t)c->G * k };
	map[CS_TMP] = hier_at(CS_TMP, tbase);
}

static void hier_ag_intra_map(const struct hier_ctx *c, uint32_t g, uint32_t m, uint64_t tbase,
			      struct hier_map map[CS_NBUF])
{
	uint64_t k = c->sh->count, row = (uint64_t)c->row * c->G * k;	/* node row */

	(void)g;
	map[CS_SEND] = hier_at(CS_RECV, row + m * k);	/* in place: block m of the row */
	map[CS_RECV] = hier_at(CS_RECV, row);
	map[CS_TMP] = hier_at(CS_TMP, tbase);
}

static int hier_allgather(struct hier_ctx *c)
{
	uint64_t k = c->sh->count;

	if (hier_phase(c, false, CS_ALLGATHER, k, c->sh->in_place, hier_ag_inter_map, 1))
		return -1;
	return hier_phase(c, true, CS_ALLGATHER, k, true, hier_ag_intra_map, c->M);
}

/* --- ReduceScatter ------------------------------------------------------------ */

/* TMP slot n' of the node sums (M blocks) sits at the start of TMP. */
static void hier_rs_intra_map(const struct hier_ctx *c, uint32_t g, uint32_t m, uint64_t tbase,
			      struct hier_map map[CS_NBUF])
{
	uint64_t k = c->sh->count;

	(void)g;
	(void)m;
	map[CS_SEND] = hier_at(CS_SEND, (uint64_t)c->row * c->G * k);
	map[CS_RECV] = hier_at(CS_TMP, c->row * k);
	map[CS_TMP] = hier_at(CS_TMP, tbase);
}

static void hier_rs_inter_map(const struct hier_ctx *c, uint32_t g, uint32_t m, uint64_t tbase,
			      struct hier_map map[CS_NBUF])
{
	(void)c;
	(void)g;
	(void)m;
	map[CS_SEND] = hier_at(CS_TMP, 0);
	map[CS_RECV] = hier_at(CS_RECV, 0);
	map[CS_TMP] = hier_at(CS_TMP, tbase);
}

static int hier_reducescatter(struct hier_ctx *c)
{
	uint64_t k = c->sh->count;

	c->tmp = c->M * k;
	if (hier_phase(c, true, CS_REDUCESCATTER, k, false, hier_rs_intra_map, c->M))
		return -1;
	return hier_phase(c, false, CS_REDUCESCATTER, k, false, hier_rs_inter_map, 1);
}

/* --- AllReduce ----------------------------------------------------------------- */

/* Part i (k elements) of the first G*k, and the count mod G leftover. */
static uint64_t hier_part(const struct hier_ctx *c)
{
	return c->sh->count / c->G;
}

static void hier_ar_rs_map(const struct hier_ctx *c, uint32_t g, uint32_t m, uint64_t tbase,
			   struct hier_map map[CS_NBUF])
{
	(void)g;
	map[CS_SEND] = hier_at(CS_SEND, 0);
	map[CS_RECV] = hier_at(CS_RECV, m * hier_part(c));
	map[CS_TMP] = hier_at(CS_TMP, tbase);
}

static void hier_ar_inter_map(const struct hier_ctx *c, uint32_t g, uint32_t m, uint64_t tbase,
			      struct hier_map map[CS_NBUF])
{
	(void)m;
	map[CS_SEND] = hier_at(CS_RECV, g * hier_part(c));
	map[CS_RECV] = map[CS_SEND];
	map[CS_TMP] = hier_at(CS_TMP, tbase);
}

static void hier_ar_ag_map(const struct hier_ctx *c, uint32_t g, uint32_t m, uint64_t tbase,
			   struct hier_map map[CS_NBUF])
{
	(void)g;
	map[CS_SEND] = hier_at(CS_RECV, m * hier_part(c));
	map[CS_RECV] = hier_at(CS_RECV, 0);
	map[CS_TMP] = hier_at(CS_TMP, tbase);
}

/* The leftover's first phase reads SEND and writes RECV, ... */
static void hier_tail_first_map(const struct hier_ctx *c, uint32_t g, uint32_t m, uint64_t tbase,
				struct hier_map map[CS_NBUF])
{
	uint64_t main = c->leaders ? 0 : hier_part(c) * c->G;

	(void)g;
	(void)m;
	map[CS_SEND] = hier_at(CS_SEND, main);
	map[CS_RECV] = hier_at(CS_RECV, main);
	map[CS_TMP] = hier_at(CS_TMP, tbase);
}

/* ... its second works in place on RECV. */
static void hier_tail_second_map(const struct hier_ctx *c, uint32_t g, uint32_t m, uint64_t tbase,
				 struct hier_map map[CS_NBUF])
{
	uint64_t main = c->leaders ? 0 : hier_part(c) * c->G;

	(void)g;
	(void)m;
	map[CS_SEND] = hier_at(CS_RECV, main);
	map[CS_RECV] = map[CS_SEND];
	map[CS_TMP] = hier_at(CS_TMP, tbase);
}

/*
 * The leftover (fewer than G elements): an AllReduce within each node and
 * one along each column, the wider group's second.  A ring cuts the
 * leftover into chunks of about tail / size elements; the second phase's
 * steps each meet every step of the first that touched their elements, and
 * a step waits for at most CS_MAX_DEPS of those.  With the wider group
 * second its chunks are the finer ones (at most one element within a node,
 * as tail < G), so each overlaps one or two of the first phase's chunks;
 * the other way round a step of the column AllReduce over two nodes met
 * some G / 2 node chunks, too many from G = 12 on.  The leftover goes in
 * one slice: its chunks are an element or two, so slicing them gains
 * nothing, and a sliced first phase held the second one back by a hop's α.
 */
static int hier_allreduce_tail(struct hier_ctx *c, uint64_t tail)
{
	bool ip = c->sh->in_place, intra_first = c->G < c->M;
	int rc;

	c->unsliced = true;
	rc = hier_phase(c, intra_first, CS_ALLREDUCE, tail, ip, hier_tail_first_map, 1) ||
	     hier_phase(c, !intra_first, CS_ALLREDUCE, tail, true, hier_tail_second_map, 1) ?
	     -1 : 0;
	c->unsliced = false;
	return rc;
}

/*
 * Fewer elements than ranks per node, and every count of hier-leaders:
 * each node reduces to its local rank 0, those leaders all-reduce along
 * column 0, and each broadcasts within its node.  Only M leaders cross
 * nodes, each once (one exchange between two nodes), where the leftover's
 * phases had every column cross: across hosts every message between
 * nodes goes through a host's network proxy, and 8 bytes over 2 hosts x
 * 4 ranks took 16 such messages a call.
 */
static int hier_allreduce_tiny(struct hier_ctx *c)
{
	static const struct hier_variant few = { "binomial", "mesh_oneshot", false };
	static const struct hier_variant many = { "binomial", "rdh", false };
	const struct hier_variant *v = c->v;
	uint64_t n = c->sh->count;
	int rc;

	c->v = c->M <= HIER_LEADERS_MESH_NODES ? &few : &many;
	c->unsliced = true;
	c->leaders = true;
	rc = hier_phase(c, true, CS_REDUCE_COLL, n, c->sh->in_place, hier_tail_first_map, 1);
	c->first_column = true;
	rc = rc ?: hier_phase(c, false, CS_ALLREDUCE, n, true, hier_tail_second_map, 1);
	c->first_column = false;
	rc = rc ?: hier_phase(c, true, CS_BROADCAST, n, true, hier_tail_second_map, 1);
	c->unsliced = false;
	c->leaders = false;
	c->v = v;
	return rc;
}

static int hier_allreduce(struct hier_ctx *c)
{
	uint64_t k = hier_part(c), tail = c->sh->count - k * c->G;
	bool ip = c->sh->in_place;

	if (!k || c->v->leaders)
		return hier_allreduce_tiny(c);
	if (tail && hier_allreduce_tail(c, tail))
		return -1;
	return k && (hier_phase(c, true, CS_REDUCESCATTER, k, ip, hier_ar_rs_map, 1) ||
		     hier_phase(c, false, CS_ALLREDUCE, k, true, hier_ar_inter_map, 1) ||
		     hier_phase(c, true, CS_ALLGATHER, k, true, hier_ar_ag_map, 1)) ? -1 : 0;
}

/* --- entry points ---------------------------------------------------------------- */

const char *hier_geometry(const struct cs_shape *s, const struct algo_opts *o)
{
	uint32_t g = o->ranks_per_node;

	if (g < 2)
		return "needs ranks_per_node >= 2 (ranks per node of the hierarchy)";
	if (s->nranks % g)
		return "ranks_per_node does not divide the number of ranks";
	if (s->nranks / g < 2)
		return "needs at least two nodes (N / ranks_per_node >= 2)";
	return NULL;
}

static int hier_run(struct hier_ctx *c)
{
	switch (c->sh->coll) {
	case CS_ALLGATHER:
		return hier_allgather(c);
	case CS_REDUCESCATTER:
		return hier_reducescatter(c);
	default:
		return hier_allreduce(c);
	}
}

static void hier_init(struct hier_ctx *c, const struct cs_shape *s, const struct algo_opts *o,
		      const struct hier_variant *v)
{
	*c = (struct hier_ctx){ .sh = s, .o = o, .v = v, .G = o->ranks_per_node };
	c->M = s->nranks / c->G;
}

static const char *hier_check(const struct cs_shape *s, const struct algo_opts *o,
			      const struct hier_variant *v)
{
	const char *why = hier_geometry(s, o);
	struct hier_ctx c;

	if (why || !s->count)
		return why;
	hier_init(&c, s, o, v);
	return hier_run(&c) ? c.why : NULL;
}

static struct cs_sched *hier_build(const struct cs_shape *s, const struct algo_opts *o,
				   const struct hier_variant *v, const char *name)
{
	const char *why = hier_geometry(s, o);
	struct hier_ctx c;

	if (why) {
		c.s = cs_new(s, name);
		if (c.s)
			c.s->fail = why;
		return c.s;
	}
	hier_init(&c, s, o, v);
	c.s = cs_new(s, name);
	if (!c.s || !s->count)
		return c.s;
	if (hier_run(&c)) {
		if (!c.s->fail)
			c.s->fail = c.why;	/* plan/build.c reports it; c.s->oom: memory */
	} else {
		pat_credit_order(c.s);	/* seam deps may have put credits out of order */
	}
	if (c.s->oom) {
		cs_free(c.s);
		return NULL;
	}
	c.s->tmp_count = c.tmp;
	return c.s;
}

static const struct hier_variant hier_ring = { "ring", "ring", false };
static const struct hier_variant hier_pat = { "ring", "pat", false };

static const char *hier_ring_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	return hier_check(s, o, &hier_ring);
}

static struct cs_sched *hier_ring_gen(const struct cs_shape *s, const struct algo_opts *o)
{
	return hier_build(s, o, &hier_ring, "hier");
}

static const char *hier_pat_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	return hier_check(s, o, &hier_pat);
}

static struct cs_sched *hier_pat_gen(const struct cs_shape *s, const struct algo_opts *o)
{
	return hier_build(s, o, &hier_pat, "hier-pat");
}

const struct algo algo_hier = {
	.name = "hier",
	.colls = 1u << CS_ALLGATHER | 1u << CS_REDUCESCATTER | 1u << CS_ALLREDUCE,
	.rejects = hier_ring_rejects,
	.gen = hier_ring_gen,
	.cost = cost_hier,
	.cost_rejects = cost_rejects_hier,
	.knobs = ALGO_KNOB_SLICES,
	.loops_fit = hier_loops_fit,
	.gen_rolled = hier_gen_rolled,
};

/*
 * AllReduce between node leaders only, whatever the count: fewer, larger
 * messages between nodes than hier's every column.  Across hosts each is
 * a network message (tens of µs on small hosts), so up to some hundreds
 * of KiB this is the faster one there (the tuner prices it, select.c).
 */
static const struct hier_variant hier_leaders = { "binomial", "mesh_oneshot", true };

static const char *hier_leaders_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	return hier_check(s, o, &hier_leaders);
}

static struct cs_sched *hier_leaders_gen(const struct cs_shape *s, const struct algo_opts *o)
{
	return hier_build(s, o, &hier_leaders, "hier-leaders");
}

const struct algo algo_hier_leaders = {
	.name = "hier-leaders",
	.colls = 1u << CS_ALLREDUCE,
	.rejects = hier_leaders_rejects,
	.gen = hier_leaders_gen,
	.cost = cost_hier_leaders,
	.cost_rejects = cost_rejects_hier,
};

const struct algo algo_hier_pat = {
	.name = "hier-pat",
	.colls = 1u << CS_ALLGATHER | 1u << CS_REDUCESCATTER,
	.rejects = hier_pat_rejects,
	.gen = hier_pat_gen,
	.cost = cost_hier_pat,
	.cost_rejects = cost_rejects_hier,
	.knobs = ALGO_KNOB_SLICES,
};
