// SPDX-License-Identifier: MIT
/*
 * PAT AllGather and ReduceScatter (CA App. A), the messages pat.c chooses
 * for the staging buffer.
 */
#include "cost.h"

#include <stdlib.h>

/* Chunks a PAT / Bruck round at distance 2^k moves: offsets q < n with lowbit 2^k. */
static uint32_t pat_chunks(uint32_t n, uint32_t k)
{
	uint32_t cnt = 0;

	for (uint32_t q = 1u << k; q < n; q += 2u << k)
		cnt++;
	return cnt;
}

/*
 * PAT AllGather with tiers, as pat.c runs its messages, piece after
 * piece: each send comes after the receive before it (rounds_step()), and
 * messages of several chunks are packed and unpacked (a local copy before
 * each send).  (ReduceScatter's credits, granted a receive or two late,
 * couple the neighbours in ways this does not follow: it keeps each step
 * at its slowest route, which the timed model stays within about 15% of.)
 */
static int pat_tiered(const struct tune_topo *t, uint32_t n, double M,
		      const struct algo_pat_step *st, uint32_t ns, uint64_t pieces,
		      struct tune_cost *out)
{
	bool staged = false;
	struct rounds w;

	for (uint32_t k = 0; k < ns; k++)
		staged |= st[k].chunks > 1;
	if (rounds_open(&w, t, n, (uint64_t)ns * pieces))
		return -1;
	for (uint64_t p = 0; p < pieces; p++)
		for (uint32_t k = 0; k < ns; k++) {
			double b = st[k].chunks * M / n / (double)pieces;
			double local = staged ? tune_total(tune_step_local(t, b, 1)) : 0;

			if (rounds_step(&w, 1u << st[k].dim, b, local)) {
				rounds_close(&w);
				return -1;
			}
		}
	*out = rounds_close(&w);
	return 0;
}

/*
 * PAT's messages, as pat.c chooses them for the call's staging buffer
 * (algo_pat_steps()): each a step of its chunks' bytes to the rank 2^dim
 * away, for each of the pieces in turn.  With a buffer that holds the
 * largest message that is CA App. A's ceil(log2 N) aggregated rounds;
 * with less, more and smaller steps, down to N - 1 (linear).  Should
 * pat.c be unable to say, the aggregated rounds with @P pieces.
 */
struct tune_cost cost_pat_phase(const struct tune_topo *t, const struct tune_call *call,
				uint8_t coll, uint32_t n, double M, uint32_t P)
{
	uint32_t es = call->elem_size ? call->elem_size : 4, ns = 0;
	struct cs_shape sh = { .coll = coll, .nranks = n, .count = (uint64_t)(M / n / es) };
	struct algo_opts o = { .slices = P, .pat_buffer = call->pat_buffer };
	struct algo_pat_step *st = calloc(n, sizeof(*st));
	struct tune_cost c = { 0, 0 };
	uint64_t pieces = 0;

	if (st && sh.count && !algo_pat_steps(&sh, &o, st, &ns, &pieces) && ns) {
		if (!t->ideal && coll == CS_ALLGATHER && !pat_tiered(t, n, M, st, ns, pieces, &c)) {
			free(st);
			return c;
		}
		for (uint32_t k = 0; k < ns; k++) {
			double b = st[k].chunks * M / n / (double)pieces;

			tune_add(&c, tune_step_shift(t, 1u << st[k].dim, b, 1), (uint32_t)pieces);
			if (coll == CS_REDUCESCATTER)
				c.xfer_us += (double)pieces * tune_reduce_us(t, b);
		}
		free(st);
		return c;
	}
	free(st);
	for (uint32_t k = 0; (1u << k) < n; k++) {
		double b = pat_chunks(n, k) * M / n / P;

		tune_add(&c, tune_step_shift(t, 1u << k, b, 1), P);
		if (coll == CS_REDUCESCATTER)
			c.xfer_us += P * tune_reduce_us(t, b);
	}
	return c;
}

double cost_pat(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(cost_pat_phase(t, c, c->coll, c->nranks, c->bytes, slices_of(c)));
}
