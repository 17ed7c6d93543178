// SPDX-License-Identifier: MIT
/*
 * Hierarchical AllReduce rolled into repeats (cs.h): its loop form as a
 * schedule, which the one lowering (runtime/lower/lower_loops.c) emits as
 * CC-core loops.  For G ranks per node, M nodes and k = count / G
 * elements per part, rank r = q*G + i (local rank i of node q) runs three
 * ring phases one after the other:
 *   1. ReduceScatter of the input around node q into RECV part i (partial
 *      sums in TMP);
 *   2. AllReduce of part i in place around column i (rank i of every node);
 *   3. AllGather of the parts in place around node q.
 * Each phase is ring_gen_rolled()'s bodies over its group: body h is, per
 * slice, the receive of hop h-1 and the send of hop h, both of block
 * (m-1-h) mod n (AllGather: (m-h)), cut into repeats where the phase of a
 * hop or the block's wrap changes what a body lowers to.  A phase's
 * receives that no send of its own grants wait for fixed iterations: the
 * last receive of the phase before, and the last sends of each ring to be
 * drained first -- the phase before's, and the reduce-scatter's before the
 * all-gather (the column phase writes part i alone, which no
 * reduce-scatter send reads, so it does not wait for them).  The phases do
 * not overlap at the seams, where hier.c's schedule pipelines them.  Only
 * shapes without a leftover take this form (hier_loops_fit()).
 */
#include "algo.h"

#include <stdlib.h>

/*
 * Loop form pays once the schedule would be big: its seams overlap the
 * phases slice by slice, which the loop form's do not (1 GiB over 1024
 * ranks: 22442.6 us from the schedule, 22796.4 us in loop form), but
 * planning it takes about half a microsecond per step (0.28 s there).
 */
#define HIER_LOOP_STEPS (1u << 18)

/* The reduce-scatter's rings: its fixed hops' (first, last), its other hops' from 4 ranks. */
static uint32_t rs_rings(uint32_t G)
{
	return G >= 4 ? 2 : 1;
}

uint32_t hier_loops_fit(const struct cs_shape *s, const struct algo_opts *o, uint32_t engines,
			bool always)
{
	uint32_t G = o->ranks_per_node, M;
	uint64_t k, steps;

	/* two engines: the node's rings and the column's apart; no leftover:
	 * parts of count / G elements, each of M equal blocks */
	if (s->coll != CS_ALLREDUCE || hier_geometry(s, o) || s->count % G || engines < 2)
		return 0;
	M = s->nranks / G;
	k = s->count / G;
	if (!k || k < M || k % M)
		return 0;
	/* per rank and slice a send and a receive per hop of each phase */
	steps = (uint64_t)s->nranks * (o->slices ? o->slices : 1) * 2 * (2 * (G - 1) + 2 * (M - 1));
	if (!always && steps < HIER_LOOP_STEPS)
		return 0;
	/* the intra-node rings on one engine, the column's two on the next */
	return rs_rings(G) + 1 > 2 ? rs_rings(G) + 1 : 2;
}

/* A phase's kind of hop: which ring its sends go on. */
enum kind { K_FIXED, K_MAIN, K_AG, NKIND };

/* Lanes of a rank per peer it sends to (struct cs_repeat.lane: 0 .. 2). */
#define LANES 3

/* Hops where a phase's bodies change: at most ten of them. */
#define SEG_CUTS 10

/* One rank's part of one phase. */
struct seg {
	uint8_t coll;			/* CS_REDUCESCATTER, CS_ALLREDUCE, CS_ALLGATHER */
	bool in_place, drain_late;	/* drain_late: its rings drain before the next
					 * phase sending to the same peer */
	uint32_t n, m, right, left;	/* group size, place in it, neighbours (ranks) */
	uint64_t count;			/* as cs_shape.count of the group collective */
	struct cs_ref own[CS_NBUF];	/* its SEND, RECV and TMP in the rank's buffers */
	uint32_t first_ring;
};

/* What a later phase waits for: a step at a fixed iteration. */
struct anchor {
	uint32_t step, iter;
};

struct roll {
	struct cs_sched *s;
	uint32_t r;
	uint64_t *soff, *slen;
	/* the phase before's last receive; rings not drained yet and their last sends */
	struct anchor last_recv;
	bool have_recv;
	struct sent {
		bool live, late;
		uint32_t ring, right;	/* a ring is one per peer sent to (engine) */
		struct anchor last;
	} sent[3 * LANES];
	uint32_t nsent;
};

static uint32_t hops_of(const struct seg *sg)
{
	return sg->coll == CS_ALLREDUCE ? 2 * sg->n - 2 : sg->n - 1;
}

static enum kind kind_of(const struct seg *sg, uint32_t h)
{
	switch (sg->coll) {
	case CS_ALLREDUCE:
		if (h == 0 && !sg->in_place)
			return K_FIXED;
		return h < sg->n - 1 ? K_MAIN : K_AG;
	case CS_REDUCESCATTER:
		return h == 0 || h == sg->n - 2 ? K_FIXED : K_MAIN;
	default:
		return K_MAIN;
	}
}

static uint32_t block_of(const struct seg *sg, uint32_t h)
{
	return algo_mod((int64_t)sg->m - (sg->coll == CS_ALLGATHER ? 0 : 1) - h, sg->n);
}

static struct cs_ref at(struct cs_ref base, uint64_t off)
{
	return cs_at((enum cs_buf)base.buf, base.off + off);
}

/* Whether receive of hop @h is granted by a send of the phase (an AllReduce's gather). */
static bool marked(const struct seg *sg, uint32_t h)
{
	return sg->coll == CS_ALLREDUCE && h >= sg->n - 1;
}

/* Make receive @st wait for what the phase before leaves (struct roll). */
static void wait_phase_before(struct roll *c, uint32_t st)
{
	if (!c->have_recv)
		return;
	cs_dep_fixed(c->s, c->r, st, c->last_recv.step, c->last_recv.iter);
}

struct phase {
	const struct seg *sg;
	uint64_t blk;
	uint32_t nsl, which[NKIND];
	uint32_t run_h[SEG_CUTS + 1], run_t[SEG_CUTS + 1], nruns;
	/* rings to drain before this phase's credits: their last sends */
	struct anchor drain[2 * LANES];
	uint32_t ndrain;
};

/* Body @h of phase @p at its own block. */
static void body(struct roll *c, struct phase *p, uint32_t h)
{
	const struct seg *sg = p->sg;
	uint32_t hops = hops_of(sg), r = c->r;

	for (uint32_t i = 0; i < p->nsl; i++) {
		uint64_t off = block_of(sg, h) * p->blk + c->soff[i], len = c->slen[i];
		uint32_t st = ~0u;

		if (h && sg->coll == CS_ALLGATHER) {
			st = cs_recv(c->s, r, sg->left, at(sg->own[CS_RECV], off), len);
		} else if (h && !marked(sg, h - 1)) {
			bool last = sg->coll == CS_REDUCESCATTER && h - 1 == sg->n - 2;
			struct cs_ref dst = last ? at(sg->own[CS_RECV], c->soff[i]) :
					    at(sg->own[sg->coll == CS_REDUCESCATTER ? CS_TMP : CS_RECV],
					       off);

			st = cs_recv_reduce(c->s, r, sg->left, dst, at(sg->own[CS_SEND], off), len);
		} else if (h) {
			/* the reduce-scatter send of this block and slice, N hops before */
			uint32_t hs = h - sg->n, k = p->nruns - 1, on, rv;

			rv = cs_recv(c->s, r, sg->left, at(sg->own[CS_RECV], off), len);
			while (p->run_h[k] > hs)
				k--;
			on = p->run_t[k] + (hs ? 2 * i + 1 : i);
			cs_dep_iter(c->s, r, rv, on, (int32_t)(hs - p->run_h[k]));
		}
		if (st != ~0u) {
			wait_phase_before(c, st);
			for (uint32_t d = 0; d < p->ndrain; d++)
				cs_dep_fixed(c->s, r, st, p->drain[d].step, p->drain[d].iter);
		}
		if (h < hops) {
			enum cs_buf part = sg->coll == CS_REDUCESCATTER ? CS_TMP : CS_RECV;
			enum cs_buf src = sg->coll == CS_ALLGATHER ? CS_RECV : h ? part : CS_SEND;

			cs_send(c->s, r, sg->right, at(sg->own[src], off), len);
		}
	}
}

/* Body @h's lane, the repeat @rep its run is: the ring and counter of its kind of hop. */
static void lane(struct roll *c, struct phase *p, uint32_t h, uint32_t rep)
{
	const struct seg *sg = p->sg;
	uint32_t hops = hops_of(sg);
	enum kind k = kind_of(sg, h < hops ? h : hops - 1);
	static const enum cs_count count[NKIND] = { CS_COUNT_SELF_A, CS_COUNT_PEER,
						    CS_COUNT_SELF_C };
	enum cs_buf src = sg->coll == CS_REDUCESCATTER ? CS_TMP : CS_RECV;

	cs_repeat_lane(c->s, c->r, rep, (uint8_t)p->which[k], k != K_FIXED, count[k]);
	if (k != K_FIXED)
		cs_repeat_index(c->s, c->r, rep, sg->own[src].off, sg->n);
}

/* The last send so far on ring @ring of phase @sg. */
static void note_sent(struct roll *c, const struct seg *sg, uint32_t ring, struct anchor last)
{
	uint32_t j;

	for (j = 0; j < c->nsent; j++)
		if (c->sent[j].ring == ring && c->sent[j].right == sg->right && c->sent[j].live)
			break;
	if (j == c->nsent) {
		if (c->nsent == sizeof(c->sent) / sizeof(c->sent[0])) {
			c->s->fail = "hier rolled: more rings than three phases use";
			return;
		}
		c->nsent++;
	}
	c->sent[j] = (struct sent){ .live = true, .late = sg->drain_late, .ring = ring,
				    .right = sg->right, .last = last };
}

/* Rank c->r's part of phase @sg, after those before it. */
static void phase(struct roll *c, const struct seg *sg, uint32_t slices)
{
	struct phase p = { .sg = sg };
	uint32_t n = sg->n, hops = hops_of(sg), next = sg->first_ring;
	uint32_t w = algo_mod((int64_t)sg->m - (sg->coll == CS_ALLGATHER ? 0 : 1) + 1, n);
	const uint32_t cuts[SEG_CUTS] = { 1, 2, n - 2, n - 1, n, n + 1, n + 2, hops, w, w + n };
	struct cs_rank *rk = &c->s->ranks[c->r];
	bool used[NKIND] = { false };

	p.blk = sg->coll == CS_ALLREDUCE ? sg->count / n : sg->count;
	p.nsl = algo_slices(p.blk, slices, c->soff, c->slen);
	for (uint32_t h = 0; h < hops; h++)
		used[kind_of(sg, h)] = true;
	for (int k = 0; k < NKIND; k++)
		if (used[k])
			p.which[k] = next++;
	/* the rings this phase's credits wait for: the phase before's, then
	 * drain_late ones of its peer */
	for (int late = 0; late < 2; late++)
		for (uint32_t q = 0; q < LANES; q++)
			for (uint32_t j = 0; j < c->nsent; j++) {
				struct sent *x = &c->sent[j];

				if (x->ring != q || !x->live || x->late != late ||
				    (late && x->right != sg->right))
					continue;
				p.drain[p.ndrain++] = x->last;
				x->live = false;
			}
	for (uint32_t h0 = 0, h1; h0 <= hops; h0 = h1) {
		uint32_t first = rk->n, rep;
		int64_t down[CS_NBUF] = { -(int64_t)p.blk, -(int64_t)p.blk, -(int64_t)p.blk };

		h1 = hops + 1;
		for (size_t k = 0; k < SEG_CUTS; k++)
			if (cuts[k] > h0 && cuts[k] < h1)
				h1 = cuts[k];
		p.run_h[p.nruns] = h0;
		p.run_t[p.nruns++] = first;
		body(c, &p, h0);
		rep = cs_repeat(c->s, c->r, first, h1 - h0, down, 0);
		if (c->s->oom || c->s->fail)
			return;
		lane(c, &p, h0, rep);
		if (h0 < hops)
			note_sent(c, sg, p.which[kind_of(sg, h0)], (struct anchor){ rk->n - 1,
										   h1 - h0 - 1 });
	}
	c->last_recv = (struct anchor){ rk->n - 1, 0 };
	c->have_recv = true;
}

/* Rank @r's three phases (see above). */
static uint32_t hier_phases(const struct cs_shape *s, uint32_t G, uint32_t r, struct seg *sg)
{
	uint32_t M = s->nranks / G, q = r / G, i = r % G, next = (i + 1) % G;
	uint64_t k = s->count / G;

	sg[0] = (struct seg){
		.coll = CS_REDUCESCATTER, .in_place = s->in_place, .drain_late = true,
		.n = G, .m = i, .left = q * G + (i + G - 1) % G, .right = q * G + next, .count = k,
		.own = { cs_at(CS_SEND, 0), cs_at(CS_RECV, i * k), cs_at(CS_TMP, 0) },
	};
	sg[1] = (struct seg){
		.coll = CS_ALLREDUCE, .in_place = true, .n = M, .m = q,
		.left = (q + M - 1) % M * G + i, .right = (q + 1) % M * G + i, .count = k,
		.own = { cs_at(CS_RECV, i * k), cs_at(CS_RECV, i * k), cs_at(CS_TMP, 0) },
	};
	sg[2] = (struct seg){
		.coll = CS_ALLGATHER, .in_place = true, .n = G, .m = i,
		.left = sg[0].left, .right = sg[0].right, .count = k, .first_ring = rs_rings(G),
		.own = { cs_at(CS_RECV, i * k), cs_at(CS_RECV, 0), cs_at(CS_TMP, 0) },
	};
	return 3;
}

/* What makes a rank (hier_rank()): the shape's grouping and the slices' buffers. */
struct hier_maker {
	uint32_t G, slices;
	uint32_t max_n, max_nreps;	/* the largest rank made: room for the next */
	uint64_t *soff, *slen;
};

/* Rank @r's three phases (cs_lazy.fill). */
static void hier_rank(struct cs_sched *s, uint32_t r, void *arg)
{
	struct hier_maker *mk = arg;
	struct roll c = { .s = s, .r = r, .soff = mk->soff, .slen = mk->slen };
	struct seg sg[3];
	uint32_t nseg = hier_phases(&s->shape, mk->G, r, sg);

	/* ranks' schedules are about the same size: the largest's, at once
	 * (a dropped rank's arrays, reused, then fit any rank) */
	if (mk->max_n)
		cs_reserve(s, r, mk->max_n, mk->max_nreps);
	for (uint32_t g = 0; g < nseg && !s->oom && !s->fail; g++)
		phase(&c, &sg[g], mk->slices);
	if (s->ranks[r].n > mk->max_n)
		mk->max_n = s->ranks[r].n;
	if (s->ranks[r].nreps > mk->max_nreps)
		mk->max_nreps = s->ranks[r].nreps;
}

struct cs_sched *hier_gen_rolled(const struct cs_shape *s, const struct algo_opts *o)
{
	uint32_t slices = o->slices ? o->slices : 1;
	struct hier_maker *mk;
	struct cs_sched *x;

	/* what the loop form does not take, the schedule does */
	if (!hier_loops_fit(s, o, 2, true))
		return algo_find("hier", s->coll)->gen(s, o);
	x = cs_new(s, "hier");
	mk = calloc(1, sizeof(*mk) + 2 * (size_t)slices * sizeof(uint64_t));
	if (!x || !mk) {
		cs_free(x);
		free(mk);
		return NULL;
	}
	*mk = (struct hier_maker){ .G = o->ranks_per_node, .slices = slices,
				   .soff = (uint64_t *)(mk + 1) };
	mk->slen = mk->soff + slices;
	x->tmp_count = s->count;	/* the reduce-scatter's partial sums: G parts */
	x = cs_make_lazy(x, hier_rank, mk);
	/* every rank takes part: each has a reduce-scatter or a column */
	if (x && !o->lazy)
		cs_settle(x);
	return x;
}
