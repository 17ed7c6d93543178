// SPDX-License-Identifier: MIT
/*
 * KangaRing (named in internode-collectives.txt, "Hierarchical", as the
 * intra-node choice, without a trace; as built here: a ring over one
 * primary rank per device, to which the other ranks hand their data).  The
 * o->ranks_per_device (D) consecutive ranks of a device form a group: its
 * first rank is the primary, the others its secondaries.  Only the
 * primaries form the ring (G = N/D of them), so a pass has G-1 hops
 * instead of N-1 and the inter-device links carry one copy per device.
 * Every block arriving at a device is written to the primary and then to
 * each secondary ("one read and two writes" for D = 2; the IR has no
 * two-destination write, so the second write is a send from the primary).
 * D of 0 or 1 means no pairing: the plain ring.
 *
 * AllReduce: G ceil-split blocks, each sliced.  The primary runs ring
 * reduce-scatter and all-gather over the primaries; when a partial sum of
 * block b arrives it is added onto the primary's input, then each
 * secondary's block b is added by a receive-reduce from that secondary
 * (the block the primary sends first is folded the same way before the
 * ring starts).  Once a block is final the primary sends it to every
 * secondary.  ReduceScatter: the same on "super-blocks" (the D output
 * blocks of one device, contiguous), partial sums in TMP; at the end the
 * primary copies its own block out and sends each secondary its block.
 * AllGather: secondaries send their block to the primary, the ring gathers
 * super-blocks, and the primary forwards every super-block it holds.
 *
 * Dependencies and order.  Ring receives land first and need none; each
 * fold receive-reduce after one depends on the step before it (they write
 * the same accumulator), so a secondary's credit comes when the previous
 * contribution has landed.  Ring sends therefore never wait for a credit
 * (the all-gather receives of AllReduce depend on the block's last send,
 * and the hop's own receive right after it grants the credit early).  A
 * secondary's final receive overwrites, in place, what its fold send
 * read, so it depends on that send.  Each rank's program runs in time
 * steps: a primary's local steps, sends, then receives; a secondary's
 * receives, then sends.  A primary sending down at time T finds its
 * secondary at its first receive after the fold send, at time T at the
 * latest, reached without waiting on anything at T; a secondary's fold
 * send at T waits only for its primary's receives at T, which wait only on
 * ring sends.  So nothing waits in a cycle.
 */
#include "algo.h"
#include "algo_cost.h"

#include <stdlib.h>

/* with one rank per device it is the plain ring */
extern const struct algo algo_ring;

struct kring {
	struct cs_sched *s;
	uint32_t d, g, slices;	/* ranks per device, devices, slices */
	uint64_t count;
	uint8_t coll;
	bool in_place;
	/* per (block, slice) of the current rank: its ring or fold send */
	int64_t *mark;
};

static int64_t *mark(struct kring *k, uint32_t b, uint32_t i)
{
	return &k->mark[(size_t)b * k->slices + i];
}

static void dep_on(struct kring *k, uint32_t r, uint32_t st, int64_t on)
{
	if (on >= 0)
		cs_dep(k->s, r, st, (uint32_t)on);
}

/* Block @b (device-indexed, taken mod G) slice @i: AllReduce block, or the
 * super-block of device b in the full vector. */
static uint64_t piece(const struct kring *k, int64_t b, uint32_t i, uint64_t *len)
{
	uint32_t blk = algo_mod(b, k->g);
	uint64_t boff, blen, off;

	if (k->coll == CS_ALLREDUCE) {
		algo_block(k->count, k->g, blk, &boff, &blen);
	} else {
		blen = k->count * k->d;
		boff = blk * blen;
	}
	algo_block(blen, k->slices, i, &off, len);
	return boff + off;
}

/* [lo, hi) intersected with block @b of the full vector (count each). */
static bool clip(const struct kring *k, uint32_t b, uint64_t *lo, uint64_t *hi)
{
	uint64_t blo = b * k->count, bhi = blo + k->count;

	*lo = *lo > blo ? *lo : blo;
	*hi = *hi < bhi ? *hi : bhi;
	return *lo < *hi;
}

/*
 * Add every secondary's share of [off, +len) onto @acc (first from @first),
 * one receive-reduce each, after step @prev.
 */
static void fold(struct kring *k, uint32_t r, struct cs_ref acc, struct cs_ref first,
		 uint64_t len, int64_t prev)
{
	for (uint32_t j = 1; j < k->d; j++) {
		uint32_t st = cs_recv_reduce(k->s, r, r + j, acc, j == 1 ? first : acc, len);

		dep_on(k, r, st, prev);
		prev = st;
	}
}

/* --- AllReduce and ReduceScatter ------------------------------------------ */

/*
 * Timing, per slice i, for the primary of device v: it folds the block it
 * sends first (v-1) at t = i; reduce-scatter hop h sends at t = i+1+h and
 * receives (then folds) block v-2-h; block v is final at i+G-1.  For
 * AllReduce, all-gather hop h runs at i+G+h and block v-m goes down at
 * i+G+m; for ReduceScatter, block v is copied out and sent down at i+G.
 * A secondary sends each piece at the time its primary folds it.
 */
static void primary_sends(struct kring *k, uint32_t v, uint32_t t)
{
	uint32_t r = v * k->d, g = k->g, next = (v + 1) % g * k->d;
	bool ar = k->coll == CS_ALLREDUCE;
	uint64_t off, len;
	int64_t m;

	for (uint32_t i = 0; i < k->slices; i++) {
		m = (int64_t)t - 1 - i;
		off = piece(k, (int64_t)v - 1 - m, i, &len);
		if (m >= 0 && m + 2 <= g && len)
			*mark(k, algo_mod((int64_t)v - 1 - m, g), i) =
				cs_send(k->s, r, next, cs_at(ar ? CS_RECV : CS_TMP, off), len);
	}
	for (uint32_t i = 0; i < k->slices && ar; i++) {
		m = (int64_t)t - g - i;
		off = piece(k, (int64_t)v - m, i, &len);
		if (m >= 0 && m + 2 <= g && len)
			cs_send(k->s, r, next, cs_at(CS_RECV, off), len);
	}
}

/* Final pieces of block v-m to the secondaries; ReduceScatter's own block out. */
static void primary_results(struct kring *k, uint32_t v, uint32_t t)
{
	uint32_t r = v * k->d;
	bool ar = k->coll == CS_ALLREDUCE;
	uint64_t off, len, lo, hi;
	int64_t m;

	for (uint32_t i = 0; i < k->slices; i++) {
		m = (int64_t)t - k->g - i;
		if (m < 0 || m >= (ar ? k->g : 1))
			continue;
		off = piece(k, (int64_t)v - m, i, &len);
		for (uint32_t j = 1; j < k->d && ar && len; j++)
			cs_send(k->s, r, r + j, cs_at(CS_RECV, off), len);
		for (uint32_t j = 1; j < k->d && !ar; j++) {
			lo = off;
			hi = off + len;
			if (clip(k, r + j, &lo, &hi))
				cs_send(k->s, r, r + j, cs_at(CS_TMP, lo), hi - lo);
		}
	}
}

static void primary_receives(struct kring *k, uint32_t v, uint32_t t)
{
	uint32_t r = v * k->d, g = k->g, prev = (v + g - 1) % g * k->d, st;
	bool ar = k->coll == CS_ALLREDUCE;
	enum cs_buf acc = ar ? CS_RECV : CS_TMP;
	uint64_t off, len;
	int64_t m;

	for (uint32_t i = 0; i < k->slices; i++) {
		m = (int64_t)t - i;
		off = piece(k, (int64_t)v - 1 - m, i, &len);
		if (m < 0 || m >= g || !len)
			continue;
		if (m == 0) {
			fold(k, r, cs_at(acc, off), cs_at(CS_SEND, off), len, -1);
			continue;
		}
		st = cs_recv_reduce(k->s, r, prev, cs_at(acc, off), cs_at(CS_SEND, off), len);
		fold(k, r, cs_at(acc, off), cs_at(acc, off), len, st);
	}
	for (uint32_t i = 0; i < k->slices && ar; i++) {
		m = (int64_t)t - g - i;
		off = piece(k, (int64_t)v - 1 - m, i, &len);
		if (m < 0 || m + 2 > g || !len)
			continue;
		/* the block may still be on its way out from the reduce-scatter */
		st = cs_recv(k->s, r, prev, cs_at(CS_RECV, off), len);
		dep_on(k, r, st, *mark(k, algo_mod((int64_t)v - 1 - m, g), i));
	}
}

/* Time @t of the primary of device @v: local steps, sends, receives. */
static void reduce_primary(struct kring *k, uint32_t v, uint32_t t)
{
	uint32_t r = v * k->d;
	uint64_t off, len, lo, hi;

	for (uint32_t i = 0; i < k->slices && k->coll == CS_REDUCESCATTER; i++) {
		off = piece(k, v, i, &len);
		lo = off;
		hi = off + len;
		if (t == i + k->g && clip(k, r, &lo, &hi))
			cs_copy(k->s, r, cs_at(CS_RECV, lo - r * k->count), cs_at(CS_TMP, lo),
				hi - lo);
	}
	primary_sends(k, v, t);
	primary_results(k, v, t);
	primary_receives(k, v, t);
}

/* Time @t of secondary @r: results first, then this time's fold sends. */
static void reduce_secondary(struct kring *k, uint32_t r, uint32_t t)
{
	struct cs_sched *s = k->s;
	uint32_t v = r / k->d, pri = v * k->d, g = k->g;
	bool ar = k->coll == CS_ALLREDUCE;
	uint64_t off, len, lo, hi;
	int64_t m;
	uint32_t st;

	for (uint32_t i = 0; i < k->slices; i++) {
		m = (int64_t)t - g - i;
		if (m < 0 || m >= (ar ? g : 1))
			continue;
		off = piece(k, (int64_t)v - m, i, &len);
		lo = off;
		hi = off + len;
		if (ar && len)
			st = cs_recv(s, r, pri, cs_at(CS_RECV, off), len);
		else if (!ar && clip(k, r, &lo, &hi))
			st = cs_recv(s, r, pri, cs_at(CS_RECV, lo - r * k->count), hi - lo);
		else
			continue;
		/* in place, the fold send of this piece still reads it */
		if (k->in_place)
			dep_on(k, r, st, *mark(k, algo_mod((int64_t)v - m, g), i));
	}
	for (uint32_t i = 0; i < k->slices; i++) {
		m = (int64_t)t - i;
		off = piece(k, (int64_t)v - 1 - m, i, &len);
		if (m >= 0 && m < g && len)
			*mark(k, algo_mod((int64_t)v - 1 - m, g), i) =
				cs_send(s, r, pri, cs_at(CS_SEND, off), len);
	}
}

/* --- AllGather -------------------------------------------------------------- */

/*
 * Primary of device @v at time @t: secondaries' blocks arrive at t = 0,
 * hop h of slice i runs at t = 1+i+h, and what arrives at t goes down at
 * t+1 (the own super-block, minus each secondary's block, at t = 1).
 */
static void gather_sends(struct kring *k, uint32_t v, uint32_t t, int64_t copy)
{
	uint32_t r = v * k->d, g = k->g, next = (v + 1) % g * k->d;
	uint64_t c = k->count, end = (uint64_t)(r + k->d) * c, off, len, after;
	int64_t h;

	for (uint32_t i = 0; i < k->slices; i++) {
		h = (int64_t)t - 1 - i;
		off = piece(k, (int64_t)v - h, i, &len);
		if (h >= 0 && h + 2 <= g && len)
			dep_on(k, r, cs_send(k->s, r, next, cs_at(CS_RECV, off), len),
			       h ? -1 : copy);
	}
	for (uint32_t j = 1; j < k->d && t == 1; j++) {
		after = (uint64_t)(r + j + 1) * c;
		dep_on(k, r, cs_send(k->s, r, r + j, cs_at(CS_RECV, r * c), j * c), copy);
		if (after < end)
			cs_send(k->s, r, r + j, cs_at(CS_RECV, after), end - after);
	}
	for (uint32_t i = 0; i < k->slices; i++) {
		h = (int64_t)t - 2 - i;
		off = piece(k, (int64_t)v - 1 - h, i, &len);
		for (uint32_t j = 1; j < k->d && h >= 0 && h + 2 <= g && len; j++)
			cs_send(k->s, r, r + j, cs_at(CS_RECV, off), len);
	}
}

static void gather_receives(struct kring *k, uint32_t v, uint32_t t)
{
	uint32_t r = v * k->d, g = k->g, prev = (v + g - 1) % g * k->d;
	uint64_t c = k->count, off, len;
	int64_t h;

	for (uint32_t j = 1; j < k->d && t == 0; j++)
		cs_recv(k->s, r, r + j, cs_at(CS_RECV, (r + j) * c), c);
	for (uint32_t i = 0; i < k->slices; i++) {
		h = (int64_t)t - 1 - i;
		off = piece(k, (int64_t)v - 1 - h, i, &len);
		if (h >= 0 && h + 2 <= g && len)
			cs_recv(k->s, r, prev, cs_at(CS_RECV, off), len);
	}
}

static void gather_secondary(struct kring *k, uint32_t r, uint32_t t)
{
	struct cs_sched *s = k->s;
	uint32_t v = r / k->d, pri = v * k->d;
	uint64_t c = k->count, end = (uint64_t)(pri + k->d) * c, off, len;
	int64_t h;

	if (t == 1) {
		cs_recv(s, r, pri, cs_at(CS_RECV, pri * c), (r - pri) * c);
		if (r + 1 < pri + k->d)
			cs_recv(s, r, pri, cs_at(CS_RECV, (r + 1) * c), end - (r + 1) * c);
	}
	for (uint32_t i = 0; i < k->slices; i++) {
		h = (int64_t)t - 2 - i;
		off = piece(k, (int64_t)v - 1 - h, i, &len);
		if (h >= 0 && h + 2 <= k->g && len)
			cs_recv(s, r, pri, cs_at(CS_RECV, off), len);
	}
	if (t == 0)
		cs_send(s, r, pri, cs_at(CS_SEND, 0), c);
}

/* --- driver ------------------------------------------------------------------ */

static void kring_rank(struct kring *k, uint32_t r)
{
	uint32_t end = 2 * k->g + k->slices + 2;
	bool primary = r % k->d == 0;
	int64_t copy = -1;

	for (size_t i = 0; i < (size_t)k->g * k->slices; i++)
		k->mark[i] = -1;
	if (k->coll == CS_ALLGATHER && !k->in_place)
		copy = cs_copy(k->s, r, cs_at(CS_RECV, r * k->count), cs_at(CS_SEND, 0), k->count);
	for (uint32_t t = 0; t <= end; t++) {
		if (k->coll == CS_ALLGATHER && primary) {
			gather_sends(k, r / k->d, t, copy);
			gather_receives(k, r / k->d, t);
		} else if (k->coll == CS_ALLGATHER) {
			gather_secondary(k, r, t);
		} else if (primary) {
			reduce_primary(k, r / k->d, t);
		} else {
			reduce_secondary(k, r, t);
		}
	}
}

static struct cs_sched *kring_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	struct kring k = {
		.d = o->ranks_per_device, .count = shape->count, .coll = shape->coll,
		.in_place = shape->in_place, .slices = o->slices ? o->slices : 1,
	};
	struct cs_sched *s;

	if (k.d < 2) {
		/* no pairing: the plain ring */
		s = algo_ring.gen(shape, o);
		if (s)
			s->algo = "kangaring";
		return s;
	}
	s = cs_new(shape, "kangaring");
	if (!s || !k.count)
		return s;
	k.s = s;
	k.g = shape->nranks / k.d;
	k.mark = malloc((size_t)k.g * k.slices * sizeof(*k.mark));
	if (!k.mark) {
		cs_free(s);
		return NULL;
	}
	if (k.coll == CS_REDUCESCATTER)
		s->tmp_count = k.count * shape->nranks;
	for (uint32_t r = 0; r < shape->nranks; r++)
		kring_rank(&k, r);
	free(k.mark);
	return s;
}

static const char *kring_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	if (o->ranks_per_device > 1 && s->nranks % o->ranks_per_device)
		return "needs ranks_per_device to divide N";
	if (o->ranks_per_device < 2 && !(algo_ring.colls & 1u << s->coll))
		return "needs the ring algorithm when ranks_per_device is 0 or 1";
	return NULL;
}

const struct algo algo_kangaring = {
	.name = "kangaring",
	.colls = 1u << CS_ALLREDUCE | 1u << CS_ALLGATHER | 1u << CS_REDUCESCATTER,
	.rejects = kring_rejects,
	.gen = kring_gen,
	.cost = cost_kangaring,
	.knobs = ALGO_KNOB_SLICES,
};
