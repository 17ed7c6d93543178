// SPDX-License-Identifier: MIT
/*
 * Recursive halving and doubling (CA App. B.2, B.4; IN "RDH"), with the
 * fold-in and fold-out steps rdh.c adds for N not a power of two.
 */
#include "cost.h"

#include <stdlib.h>

static uint32_t pow2_below(uint32_t n)
{
	uint32_t p = 1;

	while (p * 2 <= n)
		p *= 2;
	return p;
}

/* Recursive halving / doubling over p = 2^k participants of @n ranks. */
static struct tune_cost rdh_pow2(const struct tune_topo *t, uint8_t coll, uint32_t p, double M)
{
	struct tune_cost c = { 0, 0 };
	uint32_t L = log2up(p);

	if (coll != CS_ALLGATHER)	/* halving: farthest partner first */
		for (uint32_t k = 0; k < L; k++) {
			double b = M / (2u << k);

			tune_add(&c, tune_step_xor(t, p >> (k + 1), b, 1), 1);
			c.xfer_us += tune_reduce_us(t, b);
		}
	if (coll != CS_REDUCESCATTER)	/* doubling: nearest first */
		for (uint32_t k = 0; k < L; k++)
			tune_add(&c, tune_step_xor(t, 1u << k, M * (1u << k) / p, 1), 1);
	return c;
}

static int rdh_tiered(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
		      struct tune_cost *out);

static struct tune_cost rdh(const struct tune_topo *t, uint8_t coll, uint32_t n, double M)
{
	uint32_t p = pow2_below(n);
	struct tune_cost c;

	if (!rdh_tiered(t, coll, n, M, &c))
		return c;
	c = rdh_pow2(t, coll, p, M);

	if (p != n) {	/* fold-in and fold-out steps (rdh.c) */
		tune_add(&c, tune_step_xor(t, 1, coll == CS_ALLGATHER ? M / n : M, 1), 1);
		if (coll != CS_ALLGATHER)
			c.xfer_us += tune_reduce_us(t, M);
		tune_add(&c, tune_step_xor(t, 1, coll == CS_REDUCESCATTER ? M / n : M, 1), 1);
	}
	return c;
}

/* The rank that plays RDH's virtual rank @v of @p, for each @v. */
static void rdh_ranks(uint8_t coll, uint32_t p, uint32_t extra, uint32_t *rank)
{
	for (uint32_t v = 0; v < p; v++) {
		uint32_t q = algo_rdh_participant(coll, log2up(p), v);

		rank[v] = q < extra ? 2 * q : q + extra;
	}
}

/* Bytes of participants [@q, @q + @d): blocks of M/p (AllReduce), else M/n per rank. */
static double rdh_span(uint8_t coll, uint32_t n, uint32_t p, double M, uint32_t q, uint32_t d)
{
	uint32_t extra = n - p, folded = q < extra ? (extra - q < d ? extra - q : d) : 0;

	return coll == CS_ALLREDUCE ? d * M / p : (d + folded) * M / n;
}

/*
 * RDH with tiers, as rdh.c runs it, round by round (rounds_pairs()):
 * ranks 2i + 1 < 2(n - p) fold into 2i, the p participants (rank 2q, or
 * q + n - p) halve and double with partner q ^ d, each a longest path
 * through the exchanges at their real ranks' routes (a participant that
 * carries a folded rank sends and receives its block too), then the
 * folded ranks get theirs back.  A folded rank's last ReduceScatter step
 * lands in staging and takes two local reductions before the fold-out.
 * A halving receive adds on arrival after the rank's previous receive, so
 * its sender waits for that receive's credit: a folded participant, late
 * by its fold-in, holds its partners back (its staged last step does not).
 */
static int rdh_tiered(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
		      struct tune_cost *out)
{
	uint32_t p = pow2_below(n), extra = n - p, k;
	uint32_t *from = calloc(3 * (size_t)n, sizeof(*from)), *to = from + n, *rank = to + n;
	double *by = calloc(2 * (size_t)n, sizeof(*by)), *loc = by + n;
	bool *credited = calloc(n, sizeof(*credited));
	struct rounds w;
	int rc = -1;

	if (!from || !by || !credited || rounds_open(&w, t, n, 2 * (uint64_t)log2up(p) + 2))
		goto out;
	if (extra) {	/* fold-in */
		for (k = 0; k < extra; k++) {
			from[k] = 2 * k + 1;
			to[k] = 2 * k;
			by[k] = coll == CS_ALLGATHER ? M / n : M;
		}
		if (rounds_pairs(&w, k, from, to, by, loc, NULL))
			goto fail;
	}
	/* q runs over virtual ranks: algo_rdh_participant() places them */
	rdh_ranks(coll, p, extra, rank);
	for (uint32_t d = p / 2; coll != CS_ALLGATHER && d >= 1; d /= 2) {	/* halving */
		for (uint32_t q = 0; q < p; q++) {
			from[q] = rank[q];
			to[q] = rank[q ^ d];
			by[q] = rdh_span(coll, n, p, M, (q ^ d) & ~(d - 1), d);
			credited[q] = !(coll == CS_REDUCESCATTER && d == 1 && to[q] < 2 * extra);
		}
		if (rounds_pairs(&w, p, from, to, by, loc, credited))
			goto fail;
	}
	for (uint32_t d = 1; coll != CS_REDUCESCATTER && d < p; d *= 2) {	/* doubling */
		for (uint32_t q = 0; q < p; q++) {
			from[q] = rank[q];
			to[q] = rank[q ^ d];
			by[q] = rdh_span(coll, n, p, M, q & ~(d - 1), d);
		}
		if (rounds_pairs(&w, p, from, to, by, loc, NULL))
			goto fail;
	}
	if (extra) {	/* fold-out */
		double add = local_us(t, M / n) + 2 * t->insn_us;

		for (k = 0; k < extra; k++) {
			from[k] = 2 * k;
			to[k] = 2 * k + 1;
			by[k] = coll == CS_ALLREDUCE ? M : coll == CS_REDUCESCATTER ? M / n :
			       (n - 1) * M / n;
			loc[k] = coll == CS_REDUCESCATTER ? 2 * add : 0;
		}
		if (rounds_pairs(&w, k, from, to, by, loc, NULL))
			goto fail;
	}
	*out = rounds_close(&w);
	rc = 0;
	goto out;
fail:
	rounds_close(&w);
out:
	free(from);
	free(by);
	free(credited);
	return rc;
}

double cost_rdh(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(rdh(t, c->coll, c->nranks, c->bytes));
}
