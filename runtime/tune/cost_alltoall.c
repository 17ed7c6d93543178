// SPDX-License-Identifier: MIT
/*
 * AllToAll: pairwise exchange (CA §7.2) and Bruck (CA App. B.5), as
 * alltoall.c runs them.
 */
#include "cost.h"

static uint32_t bruck_slots(uint32_t n, uint32_t k)
{
	uint32_t cnt = 0;

	for (uint32_t j = 1; j < n; j++)
		cnt += !!(j & (1u << k));
	return cnt;
}

/*
 * Bruck with tiers, as alltoall.c runs it: a slice's local copies form one
 * chain, each waiting for the one before (α_dev, a semaphore hand-off, its
 * bytes on the rank's engine): the rotation into W, each round's packing
 * (unless the round's slots are one run) and unpacking, the final copies
 * out of W one slot at a time; sliced, W's slots are no longer contiguous
 * and every slot is a copy of its own.  Each round's send follows its
 * packing.  Slices overlap their chains, one step apart.
 */
static struct tune_cost bruck_tiered(const struct tune_topo *t, uint32_t n, double M, uint32_t P)
{
	struct tune_cost c = { 0, 0 }, one, s;
	double b = M / n / P, copied = 2.0 * (n - 1);
	uint32_t steps = P > 1 ? 2 * (n - 1) : 2 + (n - 1);

	for (uint32_t k = 0; (1u << k) < n; k++) {
		uint32_t moved = bruck_slots(n, k), runs = 0;

		for (uint32_t a = 1u << k; a < n; a += 2u << k)
			runs++;
		s = tune_step_shift(t, 1u << k, moved * b, 1);
		c.lat_us += s.lat_us;
		c.xfer_us += P * s.xfer_us;
		steps += P > 1 ? 2 * moved : runs + (runs > 1 ? runs : 0);
		copied += (P > 1 || runs > 1 ? 2.0 : 1.0) * moved;
	}
	one = tune_step_local(t, b, 1);
	c.lat_us += (steps + P - 1) * (one.lat_us + 2 * t->insn_us);
	c.xfer_us += P * copied * one.xfer_us;
	return c;
}

/*
 * Pairwise AllToAll with tiers, as alltoall.c runs it: in round k, slice
 * after slice, a rank sends to r + k and receives from r - k.
 */
static int pairwise_tiered(const struct tune_topo *t, uint32_t n, double M, uint32_t P,
			   struct tune_cost *out)
{
	struct rounds w;

	if (rounds_open(&w, t, n, (uint64_t)(n - 1) * P))
		return -1;
	for (uint32_t k = 1; k < n; k++)
		for (uint32_t j = 0; j < P; j++)
			if (rounds_step(&w, k, M / n / P, 0)) {
				rounds_close(&w);
				return -1;
			}
	*out = rounds_close(&w);
	return 0;
}

static struct tune_cost alltoall(const struct tune_topo *t, uint32_t n, double M, uint32_t P,
				 bool bruck)
{
	struct tune_cost c = { 0, 0 }, s;

	if (bruck && !t->ideal)
		return bruck_tiered(t, n, M, P);
	if (bruck)
		for (uint32_t k = 0; (1u << k) < n; k++)
			tune_add(&c, tune_step_shift(t, 1u << k, bruck_slots(n, k) * M / n, P), 1);
	else if (!pairwise_tiered(t, n, M, P, &c))
		return c;
	else
		/*
		 * each slice's send waits for the receive of the slice before
		 * it (send, receive, send, ... in program order): P round trips
		 */
		for (uint32_t k = 1; k < n; k++) {
			s = tune_step_shift(t, k, M / n / P, 1);
			tune_add(&c, s, P);
		}
	return c;
}

double cost_pairwise(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(alltoall(t, c->nranks, c->bytes, slices_of(c), false));
}

double cost_bruck(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(alltoall(t, c->nranks, c->bytes, slices_of(c), true));
}
