/* SPDX-License-Identifier: MIT */
/*
 * What the cost functions of runtime/tune/cost_*.c share (formula.c's
 * overview says what each prices and from which reference): the step
 * helpers, the schedule walk, one transfer's cost, the rounds of
 * transfers, and the ring and PAT phases hier composes.
 */
#ifndef CCORE_TUNE_COST_H
#define CCORE_TUNE_COST_H

#include "formula.h"
#include "algos/algo.h"
#include "algos/algo_cost.h"
#include "sched/cs.h"

static inline uint32_t log2up(uint32_t n)
{
	uint32_t l = 0;

	while ((1ull << l) < n)
		l++;
	return l;
}

/*
 * A rank's own copy or reduction of @bytes: with tiers a local transfer;
 * none in the ideal setting (the α-β model counts the wire only, and the
 * timed model's ideal setting charges a rank's own work nothing).
 */
static inline double local_us(const struct tune_topo *t, double bytes)
{
	return t->ideal ? 0 : tune_total(tune_step_local(t, bytes, 1));
}

/* A call's slices and element size, their defaults for 0. */
static inline uint32_t slices_of(const struct tune_call *c)
{
	return c->slices ? c->slices : 1;
}

static inline uint32_t elem_size_of(const struct tune_call *c)
{
	return c->elem_size ? c->elem_size : 4;
}

/*
 * @a's own schedule for the call run on the ideal fabric (formula.c): 0
 * and @out, or -1 if it is too large to walk or cannot be built.
 */
int cost_walked(const struct tune_topo *t, const struct algo *a, uint8_t coll, uint32_t n,
		double M, uint32_t P, uint32_t es, uint32_t steps_per_rank, struct tune_cost *out);
/* One transfer of @bytes alone from rank @a to rank @b (formula.c). */
struct tune_cost cost_lone(const struct tune_topo *t, uint32_t a, uint32_t b, double bytes);
/* Ring AG/RS/AR over @n ranks, @ch channels (cost_ring.c). */
struct tune_cost cost_ring_phase(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
				 uint32_t P, uint32_t ch);
/* PAT AG/RS over @n ranks for @call's staging buffer (cost_pat.c). */
struct tune_cost cost_pat_phase(const struct tune_topo *t, const struct tune_call *call,
				uint8_t coll, uint32_t n, double M, uint32_t P);

/*
 * Rounds where every rank sends to r + d and receives from r - d, its next
 * send coming after that receive in its program (pairwise AllToAll, PAT).
 * A rank passes a receive when its sender has passed its previous one
 * (and finished the local step the send waits for) and the message has
 * crossed: α of its route, its bytes at their share of the round's links.
 * A longest path through the rounds: each rank waits only for its own
 * sender, not for the round's slowest route.
 */
#define ROUNDS_WORK (1u << 18)	/* rank-rounds: beyond, each round at its slowest */
#define ROUNDS_SHIFTS 16	/* shifts whose shares are kept (PAT's distances) */

struct rounds {
	const struct tune_topo *t;
	uint32_t n, next;
	uint32_t shift[ROUNDS_SHIFTS];	/* 0: none */
	double *T, *Tn, *x;
	double *port;			/* ideal: when each rank's one port is free */
	double *unit, *lat;		/* per kept shift and rank: µs per byte, α */
	uint32_t *from, *to;
};

/* The rounds of @n ranks, up to @rounds of them: 0, or -1 if too many or out of memory. */
int rounds_open(struct rounds *w, const struct tune_topo *t, uint32_t n, uint64_t rounds);
/* rounds_step(), rounds_pairs(): a round (cost_rounds.c says how each is priced). */
int rounds_step(struct rounds *w, uint32_t d, double bytes, double local_us);
int rounds_pairs(struct rounds *w, uint32_t k, const uint32_t *from, const uint32_t *to,
		 const double *bytes, const double *local, const bool *credited);
/* When the last rank is done; frees @w. */
struct tune_cost rounds_close(struct rounds *w);

#endif
