// SPDX-License-Identifier: MIT
/*
 * Ring AllGather, ReduceScatter and AllReduce (reference: collective-
 * algorithms.txt, "Ring").  Rank r sends to r+1 and receives from r-1; each
 * of N-1 steps moves one block.  Blocks are cut into slices, and each
 * slice's send of hop k comes in the program right after the receive of
 * hop k-1 it forwards (all sends of hop 0 first): the CC core waits for
 * receives in program order, so a slice travels on as soon as it has
 * landed while the next ones are still on their way, and the link never
 * idles for a hop's latency (an order by "time" k + i would make each
 * slice's send wait for the receive of the slice before it).
 *
 * Reduce-scatter: at step k rank r sends block (r-1-k) and receives block
 * (r-2-k), adding its own input on arrival; after N-1 steps it holds block r.
 * All-gather: at step k rank r sends block (r-k) and receives (r-1-k).
 */
#include "algo.h"
#include "algo_cost.h"

#include <stdlib.h>

struct ring_ctx {
	struct cs_sched *s;
	uint32_t n;
	uint32_t slices;
	uint64_t count;		/* elements per block (AllReduce: ceil-split) */
	/* per rank, block and slice: the step that sent it on (-1: none) */
	int64_t *last_send;
};

/* The halves of a hop, emitted apart (see the order above). */
#define HOP_SEND 1u
#define HOP_RECV 2u

static void slice_of(uint64_t len, uint32_t slices, uint32_t i, uint64_t *off, uint64_t *sl)
{
	algo_block(len, slices, i, off, sl);
}

/* Block @b of a rank's data, for AllReduce's ceil-split or fixed blocks. */
static void block_range(const struct ring_ctx *c, uint32_t b, uint64_t *off, uint64_t *len)
{
	if (c->s->shape.coll == CS_ALLREDUCE)
		algo_block(c->s->shape.count, c->n, b, off, len);
	else {
		*off = b * c->count;
		*len = c->count;
	}
}

static int64_t *last_send(struct ring_ctx *c, uint32_t r, uint32_t b, uint32_t i)
{
	return &c->last_send[((size_t)r * c->n + b) * c->slices + i];
}

/*
 * One reduce-scatter hop of slice @i: rank r sends block (r-1-k) and
 * receive-reduces block (r-2-k).  Partial sums live in @part (RECV for
 * AllReduce, TMP for ReduceScatter); the last hop lands in @final_at.
 */
static void rs_hop(struct ring_ctx *c, uint32_t r, uint32_t k, uint32_t i, enum cs_buf part,
		   unsigned int half)
{
	struct cs_sched *s = c->s;
	uint32_t n = c->n, sb = algo_mod((int64_t)r - 1 - k, n), rb = algo_mod((int64_t)r - 2 - k, n);
	uint64_t boff, blen, off, len;
	struct cs_ref src, dst;
	uint32_t st;

	block_range(c, sb, &boff, &blen);
	slice_of(blen, c->slices, i, &off, &len);
	if (len && (half & HOP_SEND)) {
		src = k == 0 ? cs_at(CS_SEND, boff + off) : cs_at(part, boff + off);
		if (k == 0 && s->shape.coll == CS_REDUCESCATTER)
			src = cs_at(CS_SEND, boff + off);
		st = cs_send(s, r, (r + 1) % n, src, len);
		*last_send(c, r, sb, i) = st;
	}
	block_range(c, rb, &boff, &blen);
	slice_of(blen, c->slices, i, &off, &len);
	if (!len || !(half & HOP_RECV))
		return;
	dst = cs_at(part, boff + off);
	if (s->shape.coll == CS_REDUCESCATTER && k == n - 2)
		dst = cs_at(CS_RECV, off);	/* rb == r: the result */
	cs_recv_reduce(s, r, (r + n - 1) % n, dst, cs_at(CS_SEND, boff + off), len);
}

/* One all-gather hop of slice @i on a rank's RECV blocks. */
static void ag_hop(struct ring_ctx *c, uint32_t r, uint32_t k, uint32_t i, bool from_send,
		   unsigned int half)
{
	struct cs_sched *s = c->s;
	uint32_t n = c->n, sb = algo_mod((int64_t)r - k, n), rb = algo_mod((int64_t)r - 1 - k, n);
	uint64_t boff, blen, off, len;
	uint32_t st;

	block_range(c, sb, &boff, &blen);
	slice_of(blen, c->slices, i, &off, &len);
	if (len && (half & HOP_SEND))
		cs_send(s, r, (r + 1) % n,
			from_send && k == 0 ? cs_at(CS_SEND, off) : cs_at(CS_RECV, boff + off), len);
	block_range(c, rb, &boff, &blen);
	slice_of(blen, c->slices, i, &off, &len);
	if (!len || !(half & HOP_RECV))
		return;
	st = cs_recv(s, r, (r + n - 1) % n, cs_at(CS_RECV, boff + off), len);
	/* the block may still be on its way out from the reduce-scatter */
	if (*last_send(c, r, rb, i) >= 0)
		cs_dep(s, r, st, (uint32_t)*last_send(c, r, rb, i));
}

/* Half of hop @h of the whole collective: AllReduce's reduce-scatter, then its all-gather. */
static void ring_hop(struct ring_ctx *c, uint32_t r, uint32_t h, uint32_t i, unsigned int half)
{
	uint8_t coll = c->s->shape.coll;

	if (coll == CS_ALLGATHER)
		ag_hop(c, r, h, i, true, half);
	else if (h < c->n - 1)
		rs_hop(c, r, h, i, coll == CS_ALLREDUCE ? CS_RECV : CS_TMP, half);
	else
		ag_hop(c, r, h - (c->n - 1), i, false, half);
}

static struct cs_sched *ring_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	struct ring_ctx c = { .n = shape->nranks, .slices = o->slices ? o->slices : 1 };
	uint32_t n = c.n, coll = shape->coll;
	uint32_t hops = coll == CS_ALLREDUCE ? 2 * (n - 1) : n - 1;

	c.s = cs_new(shape, "ring");
	c.last_send = malloc(sizeof(int64_t) * n * n * c.slices);
	if (!c.s || !c.last_send) {
		cs_free(c.s);
		free(c.last_send);
		return NULL;
	}
	for (size_t i = 0; i < (size_t)n * n * c.slices; i++)
		c.last_send[i] = -1;
	c.count = shape->count;
	if (coll == CS_REDUCESCATTER)
		c.s->tmp_count = shape->count * n;
	for (uint32_t r = 0; r < n; r++) {
		/* AllGather out of place: own block into place first */
		if (coll == CS_ALLGATHER && !shape->in_place && shape->count)
			cs_copy(c.s, r, cs_at(CS_RECV, r * shape->count), cs_at(CS_SEND, 0),
				shape->count);
		if (n == 1) {
			if (coll == CS_ALLREDUCE && !shape->in_place && shape->count)
				cs_copy(c.s, r, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), shape->count);
			if (coll == CS_REDUCESCATTER && !shape->in_place && shape->count)
				cs_copy(c.s, r, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), shape->count);
			continue;
		}
		/* hops h of both passes in a row: recv(h - 1, i) then send(h, i) */
		for (uint32_t h = 0; h <= hops; h++)
			for (uint32_t i = 0; i < c.slices; i++) {
				if (h)
					ring_hop(&c, r, h - 1, i, HOP_RECV);
				if (h < hops)
					ring_hop(&c, r, h, i, HOP_SEND);
			}
	}
	free(c.last_send);
	return c.s;
}

/*
 * Ring AllReduce rolled: ring_gen()'s schedule with its hops as repeats.
 * Body h (h = 0 .. 2N-2) is, per slice, the receive of hop h-1 and the
 * send of hop h, and both name block (r-1-h) mod N, so one body is the
 * next with every ref a block lower: a repeat runs the hops from one
 * change to the next -- of phase (hop 0 sends the input, hops 1..N-2
 * reduce and send on to be reduced, hop N-1 reduces and sends on to be
 * copied, N.. gather, 2N-2 only receives) or of block, where it wraps from
 * 0 to N-1; each body is a repeat, of one iteration where need be, so a
 * repeat's sends all meet receives of one kind.  An all-gather receive
 * waits for the reduce-scatter send of its block, N hops before: an
 * iteration of an earlier repeat, so the gather's runs also split where
 * the scatter's do (hop N waits for hop 0).  A repeat's receives meet
 * sends of one lane (rolled_lane()), so out of place hop 1, the first to
 * receive from the reduce-scatter's indexed ring, is a repeat of its own.
 * Only equal blocks roll (count a multiple of N); else ring_gen().
 */
/* Runs per rank: at most one more than rolled_rank()'s nine cuts */
#define RING_ROLLED_RUNS 10

struct rolled_ring {
	struct cs_sched *s;
	uint32_t n, r, slices;
	uint64_t blk;
	uint64_t *soff, *slen;		/* non-empty slices of a block */
	/* the rank's runs so far: first body, first template */
	uint32_t run_h[RING_ROLLED_RUNS], run_t[RING_ROLLED_RUNS], nruns;
};

static uint32_t rolled_block(const struct rolled_ring *c, uint32_t h)
{
	return algo_mod((int64_t)c->r - 1 - h, c->n);
}

/* Body @h's steps at its own block, as ring_gen() emits them. */
static void rolled_body(struct rolled_ring *c, uint32_t h)
{
	uint32_t n = c->n, r = c->r, hops = 2 * n - 2, left = (r + n - 1) % n, right = (r + 1) % n;
	uint64_t at0 = rolled_block(c, h) * c->blk;

	for (uint32_t i = 0; i < c->slices; i++) {
		uint64_t at = at0 + c->soff[i], len = c->slen[i];

		if (h && h < n) {
			cs_recv_reduce(c->s, r, left, cs_at(CS_RECV, at), cs_at(CS_SEND, at), len);
		} else if (h) {
			/* the reduce-scatter send of this block and slice, N hops before */
			uint32_t hs = h - n, k = c->nruns - 1, on;
			uint32_t st = cs_recv(c->s, r, left, cs_at(CS_RECV, at), len);

			while (c->run_h[k] > hs)
				k--;
			on = c->run_t[k] + (hs ? 2 * i + 1 : i);
			cs_dep_iter(c->s, r, st, on, (int32_t)(hs - c->run_h[k]));
		}
		if (h < hops)
			cs_send(c->s, r, right, cs_at(h ? CS_RECV : CS_SEND, at), len);
	}
}

/*
 * The lane of body @h's sends (struct cs_repeat), as the loop form has
 * always carried them: hop 0 out of place, which reads the input, written
 * out; the reduce-scatter's other sends on one indexed ring, counted on
 * A(sender); the all-gather's on another, counted on C(self).
 */
static void rolled_lane(struct rolled_ring *c, uint32_t h, uint32_t rep)
{
	bool in_place = c->s->shape.in_place;
	uint8_t fixed = in_place ? 0 : 1, main = c->n > 2 || in_place ? 1 : 0;

	if (h == 0 && !in_place)
		cs_repeat_lane(c->s, c->r, rep, 0, false, CS_COUNT_SELF_A);
	else if (h < c->n - 1)
		cs_repeat_lane(c->s, c->r, rep, fixed, true, CS_COUNT_PEER);
	else
		cs_repeat_lane(c->s, c->r, rep, (uint8_t)(fixed + main), true, CS_COUNT_SELF_C);
}

static void rolled_rank(struct rolled_ring *c)
{
	uint32_t n = c->n, r = c->r, hops = 2 * n - 2, ip = c->s->shape.in_place;
	/* out of place, hop 1 is the first to receive what the indexed ring sent */
	const uint32_t cuts[] = { 1, ip ? 1 : 2, n - 1, n, n + 1, ip ? n + 1 : n + 2, hops,
				  r, r + n };
	const uint32_t runs = RING_ROLLED_RUNS;

	cs_reserve(c->s, r, runs * 2 * c->slices, runs);
	c->nruns = 0;
	for (uint32_t h0 = 0, h1; h0 <= hops; h0 = h1) {
		uint32_t first = c->s->ranks[r].n;

		/* the run: up to the next change of phase or block */
		h1 = hops + 1;
		for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++)
			if (cuts[k] > h0 && cuts[k] < h1)
				h1 = cuts[k];
		c->run_h[c->nruns] = h0;
		c->run_t[c->nruns++] = first;
		rolled_body(c, h0);
		{
			int64_t down[CS_NBUF] = { -(int64_t)c->blk, -(int64_t)c->blk, -(int64_t)c->blk };

			rolled_lane(c, h0, cs_repeat(c->s, r, first, h1 - h0, down, 0));
		}
	}
}

struct cs_sched *ring_gen_rolled(const struct cs_shape *shape, const struct algo_opts *o)
{
	struct rolled_ring c = { .n = shape->nranks };
	uint32_t slices = o->slices ? o->slices : 1;

	if (shape->coll != CS_ALLREDUCE || c.n < 2 || shape->count < c.n || shape->count % c.n)
		return ring_gen(shape, o);
	c.s = cs_new(shape, "ring");
	c.blk = shape->count / c.n;
	c.soff = calloc(slices, sizeof(*c.soff));
	c.slen = calloc(slices, sizeof(*c.slen));
	if (!c.s || !c.soff || !c.slen) {
		cs_free(c.s);
		c.s = NULL;
		goto out;
	}
	c.slices = algo_slices(c.blk, slices, c.soff, c.slen);
	for (c.r = 0; c.r < c.n && !c.s->oom && !c.s->fail; c.r++)
		rolled_rank(&c);
out:
	free(c.soff);
	free(c.slen);
	return c.s;
}

static const char *ring_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	(void)s;
	(void)o;
	return NULL;
}

/* Loop form: AllReduce of equal blocks.  It takes the schedule's time
 * (ring_loop_test), so it always pays; its lanes are rings per rank. */
uint32_t ring_loops_fit(const struct cs_shape *s, const struct algo_opts *o, uint32_t engines,
			bool always)
{
	uint32_t n = s->nranks;

	(void)o;
	(void)engines;
	(void)always;
	if (s->coll != CS_ALLREDUCE || n < 2 || s->count < n || s->count % n)
		return 0;
	/* out of place, hop 0 reads the input: written out on a ring of its own */
	return s->in_place || n == 2 ? 2 : 3;
}

const struct algo algo_ring = {
	.name = "ring",
	.colls = 1u << CS_ALLREDUCE | 1u << CS_ALLGATHER | 1u << CS_REDUCESCATTER,
	.rejects = ring_rejects,
	.gen = ring_gen,
	.cost = cost_ring,
	.knobs = ALGO_KNOB_SLICES,
	.loops_fit = ring_loops_fit,
	.gen_rolled = ring_gen_rolled,
};
