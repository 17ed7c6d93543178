// SPDX-License-Identifier: MIT
/*
 * Ring and flat ring (channels): their α-β cost (formula.c's overview:
 * CA §5.1, §6; IN "Flat Ring"), sliced in wavefront order as ring.c runs them.
 */
#include "cost.h"

#include <math.h>

/*
 * A step whose block goes in @P slices emitted in wavefront order (ring.c):
 * the next step's first slice leaves as soon as this step's first one has
 * landed, so of the step's α only what the other P - 1 slices' transfer
 * does not cover stays exposed: max(X, α + X/P) per step, X = block time
 * (P = 1: the reference's α + X).  On a ring whose links differ (devices,
 * a NIC between nodes) a slice's way round meets each link once: the
 * latency part takes the links' average block time @xa, the slowest
 * link's X still bounds the step: max(X, α + xa/P).  Extra slices cost
 * msg_us each.
 */
static struct tune_cost sliced_avg(const struct tune_topo *t, struct tune_cost c, uint32_t P,
				   double xa)
{
	double over = t->ideal || P < 2 ? 0 : (P - 1) * t->msg_us, a = c.lat_us - over;
	double exposed = a + xa / P - c.xfer_us;

	c.lat_us = over + (exposed > 0 ? exposed : 0);
	return c;
}

/* One ring step of @bytes in @P slices over @ch channels, reducing or not. */
static struct tune_cost ring_step(const struct tune_topo *t, double bytes, uint32_t P,
				  uint32_t ch, bool red)
{
	double xa;
	struct tune_cost c = tune_step_ring_avg(t, bytes, P * ch, ch > 1 ? 2 : 1, &xa);

	c = sliced_avg(t, c, P, xa);

	if (red)
		c.xfer_us += tune_reduce_us(t, bytes / P / ch);
	return c;
}

/*
 * The ring in the ideal setting, its blocks in @P slices (channels are
 * slices too: both directions share the rank's one port): S steps of a
 * block's X = M/n/BW.  A slice goes on once it has landed (α after it is
 * through the port) and the port sends one slice at a time, so the last
 * slice of the last step ends the longest path of slice moves (X/P each)
 * and hand-offs (X/P + α): S·α + (S + P - 1)·X/P, or the port's own work
 * S·X plus the last hop's α, whichever is longer.  One slice: S(α + X),
 * the reference's.
 */
static struct tune_cost ring_ideal(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
				   uint32_t P)
{
	double S = (coll == CS_ALLREDUCE ? 2.0 : 1.0) * (n - 1), a = t->alpha_us[0];
	double X = tune_step_local(t, M / n, 1).xfer_us;
	struct tune_cost pipe = { S * a, (S + P - 1) * X / P }, port = { a, S * X };

	return tune_total(pipe) >= tune_total(port) ? pipe : port;
}

/* Ring AG/RS/AR over @n ranks (CA §5.1, §6), @ch channels (flat ring). */
struct tune_cost cost_ring_phase(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
				 uint32_t P, uint32_t ch)
{
	struct tune_cost c = { 0, 0 };
	double b = M / n;

	if (n < 2)
		return c;
	if (t->ideal)
		return ring_ideal(t, coll, n, M, P * ch);
	if (coll != CS_ALLGATHER)	/* reduce-scatter pass */
		tune_add(&c, ring_step(t, b, P, ch, true), n - 1);
	if (coll != CS_REDUCESCATTER)	/* all-gather pass */
		tune_add(&c, ring_step(t, b, P, ch, false), n - 1);
	return c;
}

double cost_ring(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(cost_ring_phase(t, c->coll, c->nranks, c->bytes, slices_of(c), 1));
}

double cost_flatring(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(cost_ring_phase(t, c->coll, c->nranks, c->bytes, slices_of(c),
			       c->channels ? c->channels : 1));
}
