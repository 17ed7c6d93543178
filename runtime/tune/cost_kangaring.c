// SPDX-License-Identifier: MIT
/*
 * KangaRing: a ring over the device primaries with the secondaries folded
 * in and copied down, as kangaring.c runs it (no reference formula).
 */
#include "cost.h"

#include <math.h>
#include <stdlib.h>

/* Slices i < @P with @lo <= @t - i <= @hi: how many are at that stage at time @t. */
static uint32_t at_stage(int64_t t, uint32_t P, int64_t lo, int64_t hi)
{
	int64_t a = t - hi > 0 ? t - hi : 0, b = t - lo < (int64_t)P - 1 ? t - lo : (int64_t)P - 1;

	return b >= a ? (uint32_t)(b - a + 1) : 0;
}

/*
 * The transfer part of a ring hop carrying @k slices: the links' average
 * (a slice meets each once), unless the slowest link holds the ring up
 * (sliced_avg()).
 */
static double ring_x(struct tune_cost hop, double xa, uint32_t k)
{
	return fmax(k * xa, k * hop.xfer_us - hop.lat_us);
}

/*
 * A primary's ring sends (@ring µs) and its copies down (@down): beside each
 * other on other engines with tiers, one after the other through the ideal
 * setting's one port.
 */
static double port_or_beside(const struct tune_topo *t, double ring, double down)
{
	return t->ideal ? ring + down : fmax(ring, down);
}

/*
 * KangaRing with tiers, as kangaring.c runs it: in time steps, each a
 * primary's sends then its receives, so a step is one ring hop over the
 * device primaries (slice b, the ring's α) and, reducing, the folds of the
 * slices in their reduce-scatter stage: per slice R - 1 receive-reduces
 * from the secondaries, each credited only once the one before has landed
 * (two semaphore hand-offs, α_dev and the slice on the secondary's
 * engine).  The final pieces go down to the secondaries on other engines,
 * beside the ring; the last ones are the tail.  Slice i is at stage
 * t - i at time t: AllReduce folds at 0..g-1 (ring receives from 1),
 * all-gathers at g..2g-2, goes down at g..2g-1; ReduceScatter folds the
 * same and goes down at g; AllGather gathers the secondaries' blocks at 0,
 * hops at 1..g-1, goes down at 2..g.
 */
static struct tune_cost kangaring_tiered(const struct tune_topo *t, uint8_t coll, uint32_t n,
					 double M, uint32_t P)
{
	uint32_t R = t->ranks_per_device, g = n / R;
	struct tune_topo ring_t = *t;
	struct tune_cost c = { 0, 0 }, hop = { 0, 0 }, one;
	double xa = 0;
	double b = M / g / P, fold_lat, fold_x, down_x;
	int64_t last;

	ring_t.ranks_per_device = 1;
	if (g > 1)
		hop = tune_step_ring_avg(&ring_t, b, 1, 1, &xa);
	one = tune_step_local(t, b, 1);
	fold_lat = (R - 1) * (one.lat_us + t->sem_us + 2 * t->insn_us);
	fold_x = (R - 1) * one.xfer_us;
	/* ideal: a primary's copies to its R - 1 secondaries go through its one port */
	down_x = (t->ideal ? R - 1 : 1) * one.xfer_us;
	if (coll == CS_ALLGATHER) {
		/* the secondaries' blocks reach the primary side by side */
		tune_add(&c, tune_step_local(t, M / n, R - 1), 1);
		for (int64_t s = 1; s <= (int64_t)g + P - 1; s++) {
			uint32_t hops = at_stage(s, P, 1, g - 1), down = at_stage(s, P, 2, g);

			c.lat_us += hops ? hop.lat_us : down ? one.lat_us : 0;
			c.xfer_us += port_or_beside(t, ring_x(hop, xa, hops), down * down_x);
		}
		return c;
	}
	last = coll == CS_ALLREDUCE ? 2 * (int64_t)g + P - 2 : (int64_t)g + P - 1;
	for (int64_t s = 0; s <= last; s++) {
		uint32_t folds = at_stage(s, P, 0, g - 1), rings = at_stage(s, P, 1, g - 1);
		uint32_t down = at_stage(s, P, g, coll == CS_ALLREDUCE ? 2 * g - 1 : g);

		if (coll == CS_ALLREDUCE)
			rings += at_stage(s, P, g, 2 * g - 2);
		c.lat_us += rings ? hop.lat_us : down ? one.lat_us : 0;
		c.lat_us += folds ? fold_lat : 0;
		c.xfer_us += port_or_beside(t, ring_x(hop, xa, rings) + folds * fold_x, down * down_x);
	}
	return c;
}

/*
 * KangaRing AllGather in the ideal setting, as kangaring.c runs it through a
 * primary's one port, which takes its sends in program order (the order the
 * CC core starts them): at time 1 its ring hop and its own super-block down
 * ((R - 1)² blocks: each secondary gets the others'), then per time step
 * the ring hops and the copies down of what the last hop brought.  Every
 * primary runs alike, so the hop a primary receives lands when its own
 * matching send does.  A send waits for its data to have landed (the
 * secondaries' blocks at α + M/(n·BW)); the collective ends with the last
 * arrival.
 */
static struct tune_cost kangaring_gather_ideal(const struct tune_topo *t, uint32_t n, double M,
					       uint32_t P)
{
	uint32_t R = t->ranks_per_device, g = n / R;
	double a = t->alpha_us[0], xc = tune_step_local(t, M / n, 1).xfer_us;
	double xs = tune_step_local(t, M / g / P, 1).xfer_us, in = a + xc, port = 0, end = in;
	double *landed = calloc(2 * (size_t)P, sizeof(*landed)), *next;
	struct tune_cost c;

	if (!landed)
		return kangaring_tiered(t, CS_ALLGATHER, n, M, P);
	next = landed + P;
	for (int64_t s = 1; s <= (int64_t)g + P; s++) {
		for (uint32_t i = 0; i < P; i++) {
			int64_t h = s - 1 - i;

			if (h < 0 || h + 2 > g)
				continue;
			port = fmax(port, h ? landed[i] : in) + xs;
			next[i] = port + a;
			end = fmax(end, next[i]);
		}
		if (s == 1) {
			port = fmax(port, in) + (double)(R - 1) * (R - 1) * xc;
			end = fmax(end, port + a);
		}
		for (uint32_t i = 0; i < P; i++) {
			int64_t h = s - 2 - i;

			if (h < 0 || h + 2 > g)
				continue;
			port = fmax(port, landed[i]) + (R - 1) * xs;
			end = fmax(end, port + a);
		}
		for (uint32_t i = 0; i < P; i++) {
			if (s - 1 - (int64_t)i >= 0 && s - 1 - (int64_t)i + 2 <= g)
				landed[i] = next[i];
		}
	}
	free(landed);
	c.xfer_us = xc + (double)(R - 1) * (R - 1) * xc + (g - 1) * P * xs * R;
	c.xfer_us = fmin(c.xfer_us, end);
	c.lat_us = end - c.xfer_us;
	return c;
}

/* Bytes of [@lo, @hi) within [@a, @b). */
static double overlap(double lo, double hi, double a, double b)
{
	return fmax(0, fmin(hi, b) - fmax(lo, a));
}

/*
 * KangaRing AllReduce and ReduceScatter in the ideal setting, as kangaring.c
 * runs them and lower.c lowers them.  A CC core goes through its program
 * in order and a receive is passed only once it has landed; a primary's
 * port books its sends in that order: per time step its ring sends, its
 * copies down, then its receives (the ring hop, then the folds).  A fold's
 * credit is granted when the primary's core has passed the receive before
 * it (credits from one peer are granted in receive order, so the first
 * folds too); a secondary sends it (its own port) once credited and past
 * its own receives so far.  Every device runs alike, so what a primary
 * receives lands when its own matching send does.
 */
static struct tune_cost kangaring_reduce_ideal(const struct tune_topo *t, uint8_t coll,
					       uint32_t n, double M, uint32_t P)
{
	uint32_t R = t->ranks_per_device, g = n / R;
	bool ar = coll == CS_ALLREDUCE;
	double a = t->alpha_us[0], bw_us = tune_step_local(t, 1, 1).xfer_us;
	double S = M / g, xs = S / P * bw_us, port = 0, core = 0, end = 0, work = 0;
	double *rs_hop = calloc(2 * (size_t)P + 2 * R, sizeof(*rs_hop)), *ag_hop, *sp, *sgate;
	struct tune_cost c;

	if (!rs_hop)
		return kangaring_tiered(t, coll, n, M, P);
	ag_hop = rs_hop + P;	/* landing of slice i's latest all-gather hop */
	sp = ag_hop + P;	/* each secondary's port */
	sgate = sp + R;		/* when each secondary has passed its receives so far */
	for (int64_t s = 0; s <= 2 * (int64_t)g + P; s++) {
		/* ring sends: reduce-scatter hop s - 1 - i, all-gather hop s - g - i */
		for (uint32_t i = 0; i < P; i++) {
			int64_t m = s - 1 - i;

			if (m < 0 || m + 2 > g)
				continue;
			port = fmax(port, core) + xs;
			work += xs;
			rs_hop[i] = port + a;
		}
		for (uint32_t i = 0; i < P && ar; i++) {
			int64_t m = s - g - i;

			if (m < 0 || m + 2 > g)
				continue;
			port = fmax(port, core) + xs;
			work += xs;
			ag_hop[i] = port + a;
			end = fmax(end, ag_hop[i]);
		}
		/* final pieces down (ReduceScatter: each secondary's part of the slice) */
		for (uint32_t i = 0; i < P; i++) {
			int64_t m = s - g - i;
			double lo = S * i / P, hi = S * (i + 1) / P;

			if (m < 0 || m >= (ar ? g : 1))
				continue;
			for (uint32_t j = 1; j < R; j++) {
				double x = ar ? xs : overlap(lo, hi, S * j / R, S * (j + 1) / R) * bw_us;

				if (x <= 0)
					continue;
				port = fmax(port, core) + x;
				work += x;
				end = fmax(end, port + a);
				sgate[j] = fmax(sgate[j], port + a);
			}
		}
		/* receives: the ring hop (from stage 1), then each secondary's fold */
		for (uint32_t i = 0; i < P; i++) {
			int64_t m = s - i;

			if (m < 0 || m >= g)
				continue;
			if (m)
				core = fmax(core, rs_hop[i]);
			for (uint32_t j = 1; j < R; j++) {
				sp[j] = fmax(fmax(sp[j], sgate[j]), core) + xs;
				core = fmax(core, sp[j] + a);
			}
		}
		for (uint32_t i = 0; i < P && ar; i++) {
			int64_t m = s - g - i;

			if (m >= 0 && m + 2 <= g)
				core = fmax(core, ag_hop[i]);
		}
		end = fmax(end, core);
	}
	free(rs_hop);
	c.xfer_us = fmin(work, end);
	c.lat_us = end - c.xfer_us;
	return c;
}

static struct tune_cost kangaring(const struct algo *a, const struct tune_topo *t, uint8_t coll,
				  uint32_t n, double M, uint32_t P, uint32_t es)
{
	struct tune_cost c;

	if (t->ranks_per_device < 2)	/* no pairs: kangaring.c runs the plain ring */
		return cost_ring_phase(t, coll, n, M, P, 1);
	if (t->ideal && coll == CS_ALLGATHER)
		return kangaring_gather_ideal(t, n, M, P);
	/*
	 * Sliced, the folds a primary credits and its copies down take turns
	 * at its port in an order kangaring_reduce_ideal() does not follow:
	 * walk the schedule (a primary's steps per slice: its ring's 2(g - 1)
	 * hops, R - 1 folds and copies down per stage)
	 */
	if (t->ideal && P > 1 &&
	    !cost_walked(t, a, coll, n, M, P, es,
		    2 * (n / t->ranks_per_device + t->ranks_per_device) + 4, &c))
		return c;
	if (t->ideal)
		return kangaring_reduce_ideal(t, coll, n, M, P);
	return kangaring_tiered(t, coll, n, M, P);
}

double cost_kangaring(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	return tune_total(kangaring(a, t, c->coll, c->nranks, c->bytes, slices_of(c),
				    elem_size_of(c)));
}
