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

static const char *ring_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	(void)s;
	(void)o;
	return NULL;
}

const struct algo algo_ring = {
	.name = "ring",
	.colls = 1u << CS_ALLREDUCE | 1u << CS_ALLGATHER | 1u << CS_REDUCESCATTER,
	.rejects = ring_rejects,
	.gen = ring_gen,
	.cost = cost_ring,
	.knobs = ALGO_KNOB_SLICES,
	.loops_fit = ring_loops_fit,
	.lower_loops = ring_lower_loops,
};
