// SPDX-License-Identifier: MIT
/*
 * Recursive Doubling-Halving (reference: internode-collectives.txt, "RDH";
 * collective-algorithms.txt, App. B.2 and B.4).  With P = 2^p ranks,
 * ReduceScatter is recursive halving: at step k rank q pairs with
 * q ^ (P >> (k+1)), sends the half of its current window that holds the
 * partner's block, receives the partner's partial sums of its own half and
 * adds them; after p steps it holds its own block.  AllGather is recursive
 * doubling: at step k rank q swaps everything it has with q ^ (1 << k), so
 * its contiguous window doubles.  AllReduce is halving then doubling over
 * P ceil-split blocks (Rabenseifner), on bit-reversed labels: its halving
 * pairs q ^ (1 << k) at step k, nearest first (algo_rdh_participant()).
 *
 * Other N: let P be the largest power of two not above N, E = N - P.  Ranks
 * 2i+1 < 2E first hand their data to rank 2i (AllReduce, ReduceScatter: it
 * adds them; AllGather: it stores the block), the P participants (every
 * even rank below 2E, every rank from 2E on) run the power-of-two
 * algorithm, then rank 2i hands rank 2i+1 its result.  A participant's
 * "virtual block" is then its own block, or the two adjacent blocks of
 * 2i and 2i+1, so every window stays one contiguous range and halves of a
 * window may differ in size (uneven blocks are handled the same way).
 *
 * Dependencies.  A halving step adds the partner's half on arrival,
 * straight into the accumulator (a receive-reduce depending on the previous
 * step's receive): because that dependency is a receive, the credit is
 * granted right after it, before this step's own send, so the partners
 * never wait on each other; ReduceScatter's last step adds into RECV.
 * Only a folded rank's last ReduceScatter step, which splits its result
 * between RECV and its neighbour's TMP block, still lands in a TMP staging
 * area and is added by local reductions.  Local steps are unordered among themselves, so
 * each reduction and each later send depends on the previous reduction.
 * In the doubling phase of AllReduce, the receive at distance d overwrites
 * the range the halving send at distance d read (the same partner's half),
 * so it depends on that send; its credit then comes at the receive right
 * after that send.  Doubling sends depend on the step that put the rank's
 * own data into RECV (last reduction, or the AllGather copy).
 */
#include "algo.h"
#include "algo_cost.h"

#include <stdlib.h>

struct rdh {
	struct cs_sched *s;
	uint32_t n, p, extra, steps;
	uint64_t count;
	uint8_t coll;
	bool in_place;
	uint64_t stage_max;	/* staging elements of the busiest rank */
	int64_t *half_send;	/* per halving step: its send (-1: none) */
};

struct rdh_rank {
	uint32_t r, q;
	bool folded;		/* participant carrying its odd neighbour */
	bool helper;		/* odd rank below 2E: folds into r - 1 */
	int64_t fold_send;	/* helper: its send to r - 1 */
	int64_t ready;		/* step after which own data is in RECV */
	int64_t odd_done;	/* ReduceScatter: finished the neighbour's block */
	uint64_t staged;
};

/*
 * AllReduce runs on bit-reversed participant labels, so its halving pairs
 * the nearest participants first: the biggest halves take the shortest
 * routes (on a torus, stay within a device) and only the small ones go far.
 * Its blocks are internal, so any labelling gives the same result;
 * ReduceScatter and AllGather keep the natural order their layout needs.
 */
uint32_t algo_rdh_participant(uint8_t coll, uint32_t steps, uint32_t v)
{
	uint32_t q = 0;

	if (coll != CS_ALLREDUCE)
		return v;
	for (uint32_t b = 0; b < steps; b++)
		if (v & (1u << b))
			q |= 1u << (steps - 1 - b);
	return q;
}

static uint32_t participant(const struct rdh *h, uint32_t v)
{
	return algo_rdh_participant(h->coll, h->steps, v);
}

static uint32_t real_rank(const struct rdh *h, uint32_t v)
{
	uint32_t q = participant(h, v);

	return q < h->extra ? 2 * q : q + h->extra;
}

/* Element range of participants [q, q + m) in the full vector. */
static void span(const struct rdh *h, uint32_t q, uint32_t m, uint64_t *lo, uint64_t *hi)
{
	uint32_t last = q + m - 1;
	uint64_t off, len;

	if (h->coll == CS_ALLREDUCE) {
		algo_block(h->count, h->p, q, lo, &len);
		algo_block(h->count, h->p, last, &off, &len);
		*hi = off + len;
		return;
	}
	*lo = (uint64_t)real_rank(h, q) * h->count;
	*hi = (uint64_t)(real_rank(h, last) + (last < h->extra ? 2 : 1)) * h->count;
}

static void dep_on(struct rdh *h, uint32_t r, uint32_t st, int64_t on)
{
	if (on >= 0)
		cs_dep(h->s, r, st, (uint32_t)on);
}

/* --- folding the extra ranks in and out --------------------------------- */

static uint64_t input_count(const struct rdh *h)
{
	return h->coll == CS_REDUCESCATTER ? h->count * h->n : h->count;
}

static void fold_in(struct rdh *h, struct rdh_rank *x)
{
	struct cs_sched *s = h->s;
	uint32_t r = x->r;
	uint64_t c = h->count;

	if (x->helper) {
		x->fold_send = cs_send(s, r, r - 1, cs_at(CS_SEND, 0), input_count(h));
		if (h->coll == CS_ALLGATHER && !h->in_place)
			cs_copy(s, r, cs_at(CS_RECV, r * c), cs_at(CS_SEND, 0), c);
		return;
	}
	if (!x->folded)
		return;
	if (h->coll == CS_ALLGATHER)
		cs_recv(s, r, r + 1, cs_at(CS_RECV, (r + 1) * c), c);
	else	/* the halving steps add onto this: they depend on it */
		x->ready = cs_recv_reduce(s, r, r + 1,
					  cs_at(h->coll == CS_ALLREDUCE ? CS_RECV : CS_TMP, 0),
					  cs_at(CS_SEND, 0), input_count(h));
}

static void fold_out(struct rdh *h, struct rdh_rank *x)
{
	struct cs_sched *s = h->s;
	uint32_t r = x->r, st;
	uint64_t c = h->count, n = h->n;

	if (x->helper) {
		if (h->coll == CS_ALLGATHER) {
			if (r)
				cs_recv(s, r, r - 1, cs_at(CS_RECV, 0), r * c);
			if (r + 1 < n)
				cs_recv(s, r, r - 1, cs_at(CS_RECV, (r + 1) * c), (n - r - 1) * c);
			return;
		}
		st = cs_recv(s, r, r - 1, cs_at(CS_RECV, 0), c);
		/* in place, the fold send still reads it */
		if (h->in_place)
			cs_dep(s, r, st, (uint32_t)x->fold_send);
		return;
	}
	if (!x->folded)
		return;
	if (h->coll == CS_ALLREDUCE) {
		dep_on(h, r, cs_send(s, r, r + 1, cs_at(CS_RECV, 0), c), x->ready);
	} else if (h->coll == CS_REDUCESCATTER) {
		dep_on(h, r, cs_send(s, r, r + 1, cs_at(CS_TMP, (r + 1) * c), c), x->odd_done);
	} else {
		dep_on(h, r, cs_send(s, r, r + 1, cs_at(CS_RECV, 0), (r + 1) * c), x->ready);
		if (r + 2 < n)
			cs_send(s, r, r + 1, cs_at(CS_RECV, (r + 2) * c), (n - r - 2) * c);
	}
}

/* --- recursive halving --------------------------------------------------- */

/*
 * Add the staged partner data to [lo, hi) from @src into the accumulator.
 * ReduceScatter's last step writes the rank's own block to RECV and a
 * folded neighbour's block to TMP.
 */
static void add_staged(struct rdh *h, struct rdh_rank *x, bool last, enum cs_buf src,
		       uint64_t lo, uint64_t hi, struct cs_ref stage)
{
	struct cs_sched *s = h->s;
	uint32_t r = x->r, st;
	uint64_t own_end = ((uint64_t)r + 1) * h->count;

	if (h->coll == CS_ALLREDUCE || !last) {
		enum cs_buf acc = h->coll == CS_ALLREDUCE ? CS_RECV : CS_TMP;

		st = cs_reduce(s, r, cs_at(acc, lo), cs_at(src, lo), stage, hi - lo);
		dep_on(h, r, st, x->ready);
		x->ready = st;
		return;
	}
	/* lo is the rank's own block: [lo, own_end) is its result */
	st = cs_reduce(s, r, cs_at(CS_RECV, 0), cs_at(src, lo), stage, own_end - lo);
	dep_on(h, r, st, x->ready);
	if (hi > own_end) {
		stage.off += own_end - lo;
		x->odd_done = cs_reduce(s, r, cs_at(CS_TMP, own_end), cs_at(src, own_end), stage,
					hi - own_end);
		dep_on(h, r, (uint32_t)x->odd_done, x->ready);
	}
	x->ready = st;
}

static void halve(struct rdh *h, struct rdh_rank *x)
{
	struct cs_sched *s = h->s;
	enum cs_buf acc = h->coll == CS_ALLREDUCE ? CS_RECV : CS_TMP;
	uint64_t base = h->coll == CS_ALLREDUCE ? 0 : h->count * h->n;
	uint64_t klo, khi, olo, ohi;
	uint32_t q = x->q, r = x->r, st;

	for (uint32_t k = 0; k < h->steps; k++) {
		uint32_t d = h->p >> (k + 1), w = q & ~(2 * d - 1), peer = real_rank(h, q ^ d);
		enum cs_buf src = k || x->folded ? acc : CS_SEND;

		span(h, w + (q & d), d, &klo, &khi);
		span(h, w + d - (q & d), d, &olo, &ohi);
		h->half_send[k] = -1;
		if (ohi > olo) {
			st = cs_send(s, r, peer, cs_at(src, olo), ohi - olo);
			dep_on(h, r, st, x->ready);
			h->half_send[k] = st;
		}
		if (khi == klo)
			continue;
		if (h->coll != CS_ALLREDUCE && k + 1 == h->steps && !x->folded) {
			/* ReduceScatter's last step without a folded neighbour:
			 * the own block, added on arrival straight into RECV */
			st = cs_recv_reduce(s, r, peer, cs_at(CS_RECV, 0), cs_at(src, klo), khi - klo);
			dep_on(h, r, st, x->ready);
			x->ready = st;
			continue;
		}
		if (h->coll == CS_ALLREDUCE || k + 1 < h->steps) {
			/* add on arrival, straight into the accumulator: its
			 * only dependency is a receive, so the credit goes out
			 * before our own send and the partners cannot block
			 * each other */
			st = cs_recv_reduce(s, r, peer, cs_at(acc, klo), cs_at(src, klo), khi - klo);
			dep_on(h, r, st, x->ready);
			x->ready = st;
			continue;
		}
		cs_recv(s, r, peer, cs_at(CS_TMP, base + x->staged), khi - klo);
		add_staged(h, x, k + 1 == h->steps, src, klo, khi,
			   cs_at(CS_TMP, base + x->staged));
		x->staged += khi - klo;
	}
}

/* --- recursive doubling -------------------------------------------------- */

static void double_up(struct rdh *h, struct rdh_rank *x)
{
	struct cs_sched *s = h->s;
	uint32_t q = x->q, r = x->r, k = h->steps, st;
	uint64_t mlo, mhi, tlo, thi;

	for (uint32_t d = 1; d < h->p; d <<= 1) {
		uint32_t peer = real_rank(h, q ^ d);

		k--;	/* the halving step at the same distance */
		span(h, q & ~(d - 1), d, &mlo, &mhi);
		span(h, (q ^ d) & ~(d - 1), d, &tlo, &thi);
		if (mhi > mlo) {
			if (h->coll == CS_ALLGATHER && d == 1 && !x->folded) {
				cs_send(s, r, peer, cs_at(CS_SEND, 0), mhi - mlo);
			} else {
				st = cs_send(s, r, peer, cs_at(CS_RECV, mlo), mhi - mlo);
				dep_on(h, r, st, x->ready);
			}
		}
		if (thi == tlo)
			continue;
		st = cs_recv(s, r, peer, cs_at(CS_RECV, tlo), thi - tlo);
		if (h->coll == CS_ALLREDUCE)
			dep_on(h, r, st, h->half_send[k]);
	}
}

/* --- driver -------------------------------------------------------------- */

static void rdh_rank(struct rdh *h, uint32_t r)
{
	struct rdh_rank x = { .r = r, .fold_send = -1, .ready = -1, .odd_done = -1 };

	x.helper = r < 2 * h->extra && (r & 1);
	x.folded = r < 2 * h->extra && !(r & 1);
	x.q = participant(h, r < 2 * h->extra ? r / 2 : r - h->extra);
	if (h->coll == CS_ALLGATHER && !h->in_place && !x.helper)
		x.ready = cs_copy(h->s, r, cs_at(CS_RECV, r * h->count), cs_at(CS_SEND, 0),
				  h->count);
	fold_in(h, &x);
	if (!x.helper) {
		if (h->coll != CS_ALLGATHER)
			halve(h, &x);
		if (h->coll != CS_REDUCESCATTER)
			double_up(h, &x);
	}
	fold_out(h, &x);
	if (x.staged > h->stage_max)
		h->stage_max = x.staged;
}

static struct cs_sched *rdh_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	struct rdh h = {
		.n = shape->nranks, .count = shape->count, .coll = shape->coll,
		.in_place = shape->in_place, .p = 1,
	};

	(void)o;
	h.s = cs_new(shape, "rdh");
	if (!h.s || !h.count)
		return h.s;
	if (h.n == 1) {
		if (!h.in_place)
			cs_copy(h.s, 0, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), h.count);
		return h.s;
	}
	while (h.p <= h.n / 2) {
		h.p *= 2;
		h.steps++;
	}
	h.extra = h.n - h.p;
	h.half_send = calloc(h.steps, sizeof(*h.half_send));
	if (!h.half_send) {
		cs_free(h.s);
		return NULL;
	}
	for (uint32_t r = 0; r < h.n; r++)
		rdh_rank(&h, r);
	h.s->tmp_count = h.stage_max;
	if (h.coll == CS_REDUCESCATTER)
		h.s->tmp_count += h.count * h.n;
	free(h.half_send);
	return h.s;
}

static const char *rdh_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	(void)s;
	(void)o;
	return NULL;
}

const struct algo algo_rdh = {
	.name = "rdh",
	.colls = 1u << CS_ALLREDUCE | 1u << CS_ALLGATHER | 1u << CS_REDUCESCATTER,
	.rejects = rdh_rejects,
	.gen = rdh_gen,
	.cost = cost_rdh,
};
