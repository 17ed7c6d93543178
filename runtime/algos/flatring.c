// SPDX-License-Identifier: MIT
/*
 * Flat Ring with parallel channels (reference: internode-collectives.txt,
 * "Flat Ring").  The data is cut into o->channels parts and each part runs
 * its own ring AllGather, ReduceScatter or AllReduce: the several rings
 * keep several links (or DMA engines and NICs) busy at once, each with a
 * 1/channels share.  Even channels run forward (r -> r+1), odd channels
 * backward (r -> r-1), so with two or more channels both directions of
 * every ring link carry traffic.
 *
 * Within a channel it is the plain ring (ring.c): for AllReduce each
 * channel's part is ceil-split into N blocks, for AllGather and
 * ReduceScatter each rank's block is cut into one piece per channel.  At
 * hop k the rank at ring position p sends the block of the rank at
 * position p-1-k and receive-reduces (p-2-k) for reduce-scatter, sends
 * (p-k) and receives (p-1-k) for all-gather.  Blocks are sliced and, as in
 * ring.c, each slice's send of hop k follows the receive of hop k-1 it
 * forwards, every channel in turn, so the channels' transfers run side by
 * side (the CC core waits for receives in program order: a receive
 * between two channels' sends would hold the second back) and with one
 * channel the schedule is exactly ring.c's.
 *
 * Dependencies are ring.c's: reduce-scatter receives land in fresh blocks
 * and need none; in AllReduce the all-gather receive of a block overwrites
 * what the reduce-scatter send of that block read, so it depends on that
 * send, whose next receive (the same hop's) grants its credit early.
 * Channels touch disjoint elements, so they need nothing between them.
 */
#include "algo.h"
#include "algo_cost.h"

#include <stdlib.h>

struct fring {
	struct cs_sched *s;
	uint32_t n, channels, slices;
	uint64_t count;
	uint8_t coll;
	/* per channel, block and slice: the reduce-scatter send (-1: none) */
	int64_t *last_send;
};

/* Rank at ring position @p of channel @c, and the position of rank @r. */
static uint32_t rank_at(const struct fring *f, uint32_t c, int64_t p)
{
	uint32_t q = algo_mod(p, f->n);

	return c % 2 ? (f->n - q) % f->n : q;
}

static uint32_t pos_of(const struct fring *f, uint32_t c, uint32_t r)
{
	return c % 2 ? (f->n - r) % f->n : r;
}

/* Block of rank @b in channel @c: where it lives in the full vector. */
static void block(const struct fring *f, uint32_t c, uint32_t b, uint64_t *off, uint64_t *len)
{
	uint64_t coff, clen, boff;

	if (f->coll == CS_ALLREDUCE) {
		algo_block(f->count, f->channels, c, &coff, &clen);
		algo_block(clen, f->n, b, &boff, len);
		*off = coff + boff;
	} else {
		algo_block(f->count, f->channels, c, &coff, len);
		*off = (uint64_t)b * f->count + coff;
	}
}

/* Slice @i of block @b of channel @c, as an offset into the full vector. */
static uint64_t piece(const struct fring *f, uint32_t c, uint32_t b, uint32_t i, uint64_t *len)
{
	uint64_t boff, blen, off;

	block(f, c, b, &boff, &blen);
	algo_block(blen, f->slices, i, &off, len);
	return boff + off;
}

static int64_t *last_send(struct fring *f, uint32_t c, uint32_t b, uint32_t i)
{
	return &f->last_send[((size_t)c * f->n + b) * f->slices + i];
}

/* The halves of a hop, emitted apart (see the order above). */
#define HOP_SEND 1u
#define HOP_RECV 2u

/* Reduce-scatter hop @k of slice @i on channel @c (its @half). */
static void rs_hop(struct fring *f, uint32_t r, uint32_t c, uint32_t k, uint32_t i,
		   unsigned int half)
{
	struct cs_sched *s = f->s;
	uint32_t p = pos_of(f, c, r), sb = rank_at(f, c, (int64_t)p - 1 - k);
	uint32_t rb = rank_at(f, c, (int64_t)p - 2 - k);
	enum cs_buf part = f->coll == CS_ALLREDUCE ? CS_RECV : CS_TMP;
	uint64_t off, len;
	struct cs_ref dst;

	off = piece(f, c, sb, i, &len);
	if (len && (half & HOP_SEND))
		*last_send(f, c, sb, i) = cs_send(s, r, rank_at(f, c, p + 1),
						  cs_at(k ? part : CS_SEND, off), len);
	off = piece(f, c, rb, i, &len);
	if (!len || !(half & HOP_RECV))
		return;
	dst = cs_at(part, off);
	/* the last hop brings rb == r: the result, at its offset in the block */
	if (f->coll == CS_REDUCESCATTER && k == f->n - 2)
		dst = cs_at(CS_RECV, off - (uint64_t)r * f->count);
	cs_recv_reduce(s, r, rank_at(f, c, (int64_t)p - 1), dst, cs_at(CS_SEND, off), len);
}

/* All-gather hop @k of slice @i on channel @c (its @half). */
static void ag_hop(struct fring *f, uint32_t r, uint32_t c, uint32_t k, uint32_t i,
		   unsigned int half)
{
	struct cs_sched *s = f->s;
	uint32_t p = pos_of(f, c, r), sb = rank_at(f, c, (int64_t)p - k);
	uint32_t rb = rank_at(f, c, (int64_t)p - 1 - k), st;
	uint64_t off, len;

	off = piece(f, c, sb, i, &len);
	if (len && (half & HOP_SEND)) {
		struct cs_ref src = cs_at(CS_RECV, off);

		if (f->coll == CS_ALLGATHER && k == 0)
			src = cs_at(CS_SEND, off - (uint64_t)r * f->count);
		cs_send(s, r, rank_at(f, c, p + 1), src, len);
	}
	off = piece(f, c, rb, i, &len);
	if (!len || !(half & HOP_RECV))
		return;
	st = cs_recv(s, r, rank_at(f, c, (int64_t)p - 1), cs_at(CS_RECV, off), len);
	/* the block may still be on its way out from the reduce-scatter */
	if (*last_send(f, c, rb, i) >= 0)
		cs_dep(s, r, st, (uint32_t)*last_send(f, c, rb, i));
}

/* Half of hop @h of the whole collective: AllReduce's reduce-scatter, then its all-gather. */
static void hop(struct fring *f, uint32_t r, uint32_t c, uint32_t h, uint32_t i,
		unsigned int half)
{
	if (f->coll == CS_ALLGATHER)
		ag_hop(f, r, c, h, i, half);
	else if (h < f->n - 1)
		rs_hop(f, r, c, h, i, half);
	else
		ag_hop(f, r, c, h - (f->n - 1), i, half);
}

/* Every hop of every channel's ring: recv(h - 1) then send(h), per slice and channel. */
static void passes(struct fring *f, uint32_t r)
{
	uint32_t hops = f->coll == CS_ALLREDUCE ? 2 * (f->n - 1) : f->n - 1;

	for (uint32_t h = 0; h <= hops; h++)
		for (uint32_t i = 0; i < f->slices; i++)
			for (uint32_t c = 0; c < f->channels; c++) {
				if (h)
					hop(f, r, c, h - 1, i, HOP_RECV);
				if (h < hops)
					hop(f, r, c, h, i, HOP_SEND);
			}
}

static void fring_rank(struct fring *f, uint32_t r, bool in_place)
{
	uint64_t c = f->count;

	if (f->coll == CS_ALLGATHER && !in_place)
		cs_copy(f->s, r, cs_at(CS_RECV, r * c), cs_at(CS_SEND, 0), c);
	if (f->n == 1) {
		if (f->coll != CS_ALLGATHER && !in_place)
			cs_copy(f->s, r, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), c);
		return;
	}
	passes(f, r);
}

static struct cs_sched *fring_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	struct fring f = {
		.n = shape->nranks, .count = shape->count, .coll = shape->coll,
		.channels = o->channels ? o->channels : 1,
		.slices = o->slices ? o->slices : 1,
	};
	size_t cells = (size_t)f.channels * f.n * f.slices;

	f.s = cs_new(shape, "flatring");
	if (!f.s || !f.count)
		return f.s;
	f.last_send = malloc(cells * sizeof(*f.last_send));
	if (!f.last_send) {
		cs_free(f.s);
		return NULL;
	}
	for (size_t i = 0; i < cells; i++)
		f.last_send[i] = -1;
	if (f.coll == CS_REDUCESCATTER)
		f.s->tmp_count = f.count * f.n;
	for (uint32_t r = 0; r < f.n; r++)
		fring_rank(&f, r, shape->in_place);
	free(f.last_send);
	return f.s;
}

static const char *fring_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	(void)s;
	if (o->channels > 64)
		return "needs at most 64 channels";
	return NULL;
}

const struct algo algo_flatring = {
	.name = "flatring",
	.colls = 1u << CS_ALLREDUCE | 1u << CS_ALLGATHER | 1u << CS_REDUCESCATTER,
	.rejects = fring_rejects,
	.gen = fring_gen,
	.cost = cost_flatring,
	.knobs = ALGO_KNOB_SLICES | ALGO_KNOB_CHANNELS,
};
