// SPDX-License-Identifier: MIT
/*
 * α-β formulas of every algorithm (see formula.h).  References are to
 * /work/shared/reference: CA = collective-algorithms.txt, IN =
 * internode-collectives.txt, PAT = pat-algorithm.txt.
 *
 * Each formula is written as the algorithm's sequence of steps, each step
 * costed by model.c; in the ideal setting a step costs α + (bytes a rank
 * sends)/BW and the sums are the reference's closed forms, quoted below
 * (n = N ranks, L = ceil(log2 N), P = slices):
 *
 *   ring AR        2(n-1)α + 2(n-1)/n·M/BW                  CA §5.1
 *   ring AG, RS    (n-1)α + (n-1)/n·M/BW                    CA §6
 *   flatring       the ring's, C channels each carrying 1/C (IN "Flat
 *                  Ring"); with tiers both link directions carry channels
 *   kangaring      ring over g = n/R device primaries: AR 2(g-1)α +
 *                  2(g-1)/g·M/BW plus one fold step α + M/(g·BW) (no
 *                  reference formula: IN names it without a trace; as
 *                  built in runtime/algos/kangaring.c, secondaries' folds
 *                  and copies run on their own engines beside the ring;
 *                  ideal: its time steps through each rank's one port, see
 *                  kangaring_gather_ideal() and kangaring_reduce_ideal())
 *   mesh AG, RS    α + (n-1)/n·M/BW; AR 2α + 2(n-1)/n·M/BW  IN "Mesh"
 *   mesh_oneshot   α + (n-1)·M/BW                           IN "Single-step Mesh"
 *   rdh AG, RS     Lα + (n-1)/n·M/BW; AR 2Lα + 2(n-1)/n·M/BW, for
 *                  power-of-two n (CA App. B.2, B.4; IN "RDH").  Other n,
 *                  as rdh.c runs it: p = 2^floor(log2 n) participants
 *                  after a fold-in step (ranks 2i+1 < 2(n-p) hand their
 *                  data to 2i: M for AR/RS, M/n for AG) and before a
 *                  fold-out step (M for AR/AG, M/n for RS): rdh(p) + 2 steps
 *   dbt AR         P = 1: 2Lα + L·M/BW (CA §5.2); P slices: App. C's
 *                  master formula with 2L steps of M/(2P):
 *                  (2L + P - 1)(α + M/(2P·BW)), but never below §5.2's
 *                  stated floor 2Lα + M/BW (the master formula alone would
 *                  reach M/(2BW): see the note in tune_dbt())
 *   pat AG, RS     Lα + (n-1)/n·M/BW                         CA App. A
 *                  when the staging buffer holds the largest message;
 *                  else the steps pat.c runs for the buffer (see pat())
 *   pairwise A2A   (n-1)α + (n-1)/n·M/BW                     CA §7.2
 *   bruck A2A      Lα + L·M/(2BW) for power-of-two n (CA App. B.5); other
 *                  n: round k moves the slots j < n with bit k set
 *   binomial BC/R  (L + P - 1)(α + M/(P·BW)); P = 1: L(α + M/BW)  CA §3.2,
 *                  §4.2, App. C
 *   chain BC/R     (n + P - 2)(α + M/(P·BW))                 CA §3.1, §4.1
 *   p2p            α + M/BW                                   CA §8
 *   hier           G ranks per node, X nodes (IN "Hierarchical"):
 *                  AR = ring RS(G, M) + ring AR(X, M/G) + ring AG(G, M);
 *                  AG = ring AG(X, X·M/n) + X × ring AG(G, G·M/n);
 *                  RS = X × ring RS(G, G·M/n) + ring RS(X, X·M/n)
 *                  (the intra-node AG/RS run once per node row, as hier.c
 *                  embeds them: X(G-1) intra steps, not G-1), each phase
 *                  with its tier's α and BW; the inter phase's G columns
 *                  share each device's NIC (R transfers per NIC)
 *   hier-pat       hier with PAT between nodes (AG, RS)
 *
 * Slices: the reference counts a ring-like step as α + block/BW whatever
 * the slicing (it is already pipelined with P = n).  Here the slices of a
 * step emitted in wavefront order (ring family, pairwise rounds) hide the
 * step's α behind the block's other slices (see sliced()); with one slice
 * every formula is the reference's.  Chain, binomial and DBT take the
 * slices as the P of App. C's master formula, PAT as pieces run one after
 * the other.  With tiers each extra message costs msg_us and a reduction
 * on arrival (reduce_gbps) is exposed for 1/P of a block, and DBT, binomial
 * Broadcast/Reduce, pairwise AllToAll and PAT AllGather are longest paths
 * through their steps as their code runs (each function below says how).
 * In the ideal setting DBT and KangaRing AllReduce/ReduceScatter with
 * P > 1, and hier AllReduce with a leftover, are their schedules run on
 * the ideal fabric (walked(), walk.h): how their slices take turns at a
 * rank's port and wait for credits has no closed form here.
 */
#include "formula.h"
#include "walk.h"
#include "algos/algo.h"
#include "algos/algo_cost.h"
#include "sched/cs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint32_t log2up(uint32_t n)
{
	uint32_t l = 0;

	while ((1ull << l) < n)
		l++;
	return l;
}

static uint32_t pow2_below(uint32_t n)
{
	uint32_t p = 1;

	while (p * 2 <= n)
		p *= 2;
	return p;
}

/*
 * A rank's own copy or reduction of @bytes: with tiers a local transfer;
 * none in the ideal setting (the α-β model counts the wire only, and the
 * timed model's ideal setting charges a rank's own work nothing).
 */
static double local_us(const struct tune_topo *t, double bytes)
{
	return t->ideal ? 0 : tune_total(tune_step_local(t, bytes, 1));
}

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
static struct tune_cost ring(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
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

/*
 * @a's own schedule for the call run on the ideal fabric (walk.h), for
 * pipelines whose slices take turns at a rank's port and wait for credits
 * in ways no closed form here follows: 0 and @out, or -1 if it is too
 * large to walk (@steps_per_rank, about, per rank and slice) or cannot be
 * built.
 */
struct walk_memo {
	const struct algo *a;
	struct cs_shape sh;
	struct algo_opts o;
	uint32_t engines, es;
	double alpha_us, bw_gbps, us;
};

/*
 * The walks done last, per thread: choosing a plan prices every slice
 * count, ranking the candidates and then the one chosen again, and a
 * repeated call repeats them all.
 */
#define WALK_MEMO 16
static _Thread_local struct walk_memo walk_memo[WALK_MEMO];
static _Thread_local unsigned int walk_memo_next;

static bool same_walk(const struct walk_memo *m, const struct walk_memo *k)
{
	return m->a == k->a && m->sh.coll == k->sh.coll && m->sh.nranks == k->sh.nranks &&
	       m->sh.count == k->sh.count && m->o.slices == k->o.slices &&
	       m->o.ranks_per_device == k->o.ranks_per_device &&
	       m->o.ranks_per_node == k->o.ranks_per_node && m->engines == k->engines &&
	       m->es == k->es && m->alpha_us == k->alpha_us && m->bw_gbps == k->bw_gbps;
}

static int walked(const struct tune_topo *t, const struct algo *a, uint8_t coll, uint32_t n,
		  double M, uint32_t P, uint32_t es, uint32_t steps_per_rank, struct tune_cost *out)
{
	struct walk_memo k = {
		.a = a, .sh = { .coll = coll, .nranks = n, .peer = 1 },
		.o = { .slices = P, .channels = 1, .ranks_per_device = t->ranks_per_device,
		       .ranks_per_node = n / (t->nodes ? t->nodes : 1) },
		.es = es, .alpha_us = t->alpha_us[0], .bw_gbps = t->bw_gbps[0],
	};
	struct cs_sched *s;
	struct tune_hw hw;
	int rc;

	if ((uint64_t)n * P * steps_per_rank > TUNE_WALK_MAX_STEPS)
		return -1;
	k.sh.count = (uint64_t)(M / es / (coll == CS_ALLREDUCE ? 1 : n));
	if (!k.sh.count || (k.a->rejects && k.a->rejects(&k.sh, &k.o)))
		return -1;
	tune_hw_default(&hw);
	k.engines = t->engines ? t->engines : hw.engines;
	for (unsigned int i = 0; i < WALK_MEMO; i++)
		if (same_walk(&walk_memo[i], &k)) {
			*out = (struct tune_cost){ 0, walk_memo[i].us };
			return 0;
		}
	s = k.a->gen(&k.sh, &k.o);
	if (cs_unusable(s)) {
		cs_free(s);
		return -1;
	}
	rc = tune_walk_ideal(s, k.engines, es, k.alpha_us, k.bw_gbps, &k.us);
	cs_free(s);
	if (rc)
		return -1;
	walk_memo[walk_memo_next++ % WALK_MEMO] = k;
	*out = (struct tune_cost){ 0, k.us };
	return 0;
}

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
		return ring(t, coll, n, M, P, 1);
	if (t->ideal && coll == CS_ALLGATHER)
		return kangaring_gather_ideal(t, n, M, P);
	/*
	 * Sliced, the folds a primary credits and its copies down take turns
	 * at its port in an order kangaring_reduce_ideal() does not follow:
	 * walk the schedule (a primary's steps per slice: its ring's 2(g - 1)
	 * hops, R - 1 folds and copies down per stage)
	 */
	if (t->ideal && P > 1 &&
	    !walked(t, a, coll, n, M, P, es,
		    2 * (n / t->ranks_per_device + t->ranks_per_device) + 4, &c))
		return c;
	if (t->ideal)
		return kangaring_reduce_ideal(t, coll, n, M, P);
	return kangaring_tiered(t, coll, n, M, P);
}

/*
 * Mesh's sum of the n - 1 arrivals (mesh.c's gather_sum()): the first is
 * reduced on arrival; once all are in, the rank's local ring adds the
 * other n - 2 pairwise, ceil(log2(n - 2)) + 1 levels each waiting for the
 * one before, the n - 2 reductions one after another on its engine.
 */
static struct tune_cost mesh_sum(const struct tune_topo *t, uint32_t n, double b)
{
	struct tune_cost c = { 0, tune_reduce_us(t, (n - 1) * b) }, one;

	if (t->ideal || n < 3)
		return c;
	one = tune_step_local(t, b, 1);
	c.lat_us += (log2up(n - 2) + 1) * one.lat_us + (n - 2) * 2 * t->insn_us;
	c.xfer_us += (n - 2) * one.xfer_us;
	return c;
}

static struct tune_cost mesh(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
			     bool oneshot)
{
	struct tune_cost c = { 0, 0 }, step;
	double b = oneshot ? M : M / n;

	if (n < 2)
		return c;
	step = tune_step_mesh(t, b);	/* AllReduce's two exchanges are alike */
	if (coll != CS_ALLGATHER) {	/* scatter blocks (or everything), reduce */
		tune_add(&c, step, 1);
		tune_add(&c, mesh_sum(t, n, b), 1);
	}
	if (coll != CS_REDUCESCATTER && !oneshot)
		tune_add(&c, step, 1);
	return c;
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

/* Hops inside a node from device @a to device @b (ring or torus distance). */
static uint32_t node_hops(const struct tune_topo *t, uint32_t a, uint32_t b)
{
	uint32_t X = t->torus_x, Y = t->torus_y;
	uint32_t dx = (b % X + X - a % X) % X, dy = (b / X + Y - a / X) % Y;

	return (dx < X - dx ? dx : X - dx) + (dy < Y - dy ? dy : Y - dy);
}

/* One transfer of @bytes alone from rank @a to rank @b: α of its route, its tier's rate. */
static struct tune_cost lone(const struct tune_topo *t, uint32_t a, uint32_t b, double bytes)
{
	uint32_t R = t->ranks_per_device, D = t->torus_x * t->torus_y;
	uint32_t da = a / R, db = b / R;
	enum tune_tier tier = da == db ? TUNE_DEV : da / D == db / D ? TUNE_NODE : TUNE_NET;
	double gbps = t->bw_gbps[tier];
	struct tune_cost c;

	if (t->engine_gbps > 0 && t->engine_gbps < gbps)
		gbps = t->engine_gbps;
	c.xfer_us = bytes / (gbps * 1e3);
	c.lat_us = t->step_us + (tier == TUNE_NODE ? tune_hop_alpha(t, node_hops(t, da % D, db % D)) :
				 t->alpha_us[tier]);
	return c;
}

/* The slowest level of a tree whose edges join ranks 2^k apart. */
static struct tune_cost tree_slot(const struct tune_topo *t, uint32_t n, double bytes)
{
	struct tune_cost worst = { 0, 0 };

	for (uint32_t k = 0; (1u << k) < n; k++) {
		struct tune_cost c = tune_step_xor(t, 1u << k, bytes, 1);

		if (tune_total(c) > tune_total(worst))
			worst = c;
	}
	return worst;
}

/*
 * DBT with tiers, as dbt.c runs it: in time steps, a rank's program at
 * step t issues its sends (the up-send after the local reduction that
 * finishes its sum, if it has two children) and then waits for every
 * receive of step t.  So a send leaves when its sender is done with step
 * t - 1, and a rank is done with step t when the last of its receives
 * has landed: a longest path through the trees, step by step, each edge
 * its route's α and the slice's transfer (one after the other on the
 * sender's ring to that peer).  Slice i goes up at height + i and down at
 * the root's height + i + depth - 1; the pipeline's period is a
 * parent-child round trip, not the slowest transfer.
 */
static int dbt_tiered(const struct tune_topo *t, uint32_t n, double M, uint32_t P,
		      struct tune_cost *out)
{
	uint32_t *par = calloc(6 * (size_t)n, sizeof(*par)), *h = par + 2 * (size_t)n;
	uint32_t *d = h + 2 * (size_t)n, top[2] = { 0, 0 }, end;
	double *T = calloc(14 * (size_t)n, sizeof(*T)), *Tn = T + n, *busy = Tn + n;
	double *x = busy + 4 * (size_t)n, *lat = x + 4 * (size_t)n, done = 0, b = M / 2 / P;
	uint32_t *from = calloc(16 * (size_t)n, sizeof(*from)), *to = from + 4 * (size_t)n;
	uint32_t *edge = to + 4 * (size_t)n, *was = edge + 4 * (size_t)n, nwas = 0;
	uint8_t *kids = calloc(2 * (size_t)n, 1);
	double loc = local_us(t, b);
	int rc = -1;

	if (!par || !T || !from || !kids || algo_dbt_tree(n, 0, par, h, d) ||
	    algo_dbt_tree(n, 1, par + n, h + n, d + n))
		goto out;
	for (uint32_t w = 0; w < 2; w++)
		for (uint32_t r = 0; r < n; r++) {
			uint32_t p = par[w * n + r];

			if (p == UINT32_MAX) {
				top[w] = h[w * n + r];
				continue;
			}
			kids[w * n + p]++;
			/* α of edge 2w n + r (up from r) and (2w + 1) n + r (down to r) */
			lat[2 * w * n + r] = lone(t, r, p, b).lat_us;
			lat[(2 * w + 1) * n + r] = lone(t, p, r, b).lat_us;
		}
	end = 2 * (top[0] > top[1] ? top[0] : top[1]) + P;
	for (uint32_t s = 0; s <= end; s++) {
		uint32_t k = 0;

		/* the step's transfers: edge (2w + 1) n + r down to r, 2w n + r up from r */
		for (uint32_t w = 0; w < 2; w++)
			for (uint32_t r = 0; r < n; r++) {
				uint32_t p = par[w * n + r];
				int64_t up = (int64_t)s - h[w * n + r];
				int64_t down = (int64_t)s - top[w] - d[w * n + r] + 1;

				if (p == UINT32_MAX)
					continue;
				if (up >= 0 && up < P) {
					from[k] = r;
					to[k] = p;
					edge[k++] = 2 * w * n + r;
				}
				if (down >= 0 && down < P) {
					from[k] = p;
					to[k] = r;
					edge[k++] = (2 * w + 1) * n + r;
				}
			}
		/* the same transfers as the step before (the steady state): the same shares */
		if (k != nwas || memcmp(edge, was, k * sizeof(*edge))) {
			if (tune_flows_us(t, k, from, to, b, x))
				goto out;
			memcpy(was, edge, k * sizeof(*edge));
			nwas = k;
		}
		memcpy(Tn, T, n * sizeof(*T));
		for (uint32_t i = 0; i < k; i++) {
			uint32_t w = edge[i] / (2 * n), a = from[i];
			bool up = edge[i] % (2 * n) < n;
			/* an up-send waits for its sum; the root's sends down too */
			bool sum = kids[w * n + a] == 2 && (up || par[w * n + a] == UINT32_MAX);
			double go = T[a] + (sum ? loc : 0);

			/* ideal: a rank's sends share its one port */
			double *q = t->ideal ? &busy[a] : &busy[edge[i]];

			*q = fmax(go, *q) + x[i];
			Tn[to[i]] = fmax(Tn[to[i]], *q + lat[edge[i]]);
		}
		memcpy(T, Tn, n * sizeof(*T));
	}
	for (uint32_t r = 0; r < n; r++)
		done = fmax(done, T[r]);
	*out = (struct tune_cost){ 0, done };
	rc = 0;
out:
	free(par);
	free(T);
	free(from);
	free(kids);
	return rc;
}

static struct tune_cost dbt(const struct algo *a, const struct tune_topo *t, uint32_t n, double M,
			    uint32_t P, uint32_t es)
{
	uint32_t L = 2 * log2up(n);
	struct tune_cost slot, c = { 0, 0 }, floor = { 0, 0 };

	/*
	 * Ideal and pipelined, the two trees' slices take turns at a rank's
	 * port, its local reductions wait on a ring shared with sends, and
	 * the sends down wait for credits (dbt.c's "Order and credits"):
	 * dbt_tiered()'s step-by-step path is within a few % of that, the
	 * schedule walked is what runs (per rank and slice: two trees' up to
	 * three receives, three sends and a reduction)
	 */
	if (t->ideal && P > 1 && !walked(t, a, CS_ALLREDUCE, n, M, P, es, 14, &c))
		return c;
	if (!dbt_tiered(t, n, M, P, &c))
		return c;
	slot = tree_slot(t, n, M / (2.0 * P));
	/*
	 * App. C with L = 2 ceil(log2 N) and M/(2P) per slot, as §5.2 says,
	 * gives (L + P - 1)(α + M/(2P·BW)): right at P = 1, but its limit
	 * M/(2BW) is half §5.2's stated asymptote M/BW (an interior rank
	 * takes two children's halves per slot).  The floor keeps M/BW.
	 */
	tune_add(&c, slot, L + P - 1);
	c.xfer_us += (L / 2 + P - 1) * tune_reduce_us(t, M / P);
	floor.lat_us = L * slot.lat_us;
	floor.xfer_us = tree_slot(t, n, M).xfer_us;
	return tune_total(c) >= tune_total(floor) ? c : floor;
}

/* Chunks a PAT / Bruck round at distance 2^k moves: offsets q < n with lowbit 2^k. */
static uint32_t pat_chunks(uint32_t n, uint32_t k)
{
	uint32_t cnt = 0;

	for (uint32_t q = 1u << k; q < n; q += 2u << k)
		cnt++;
	return cnt;
}

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

static int rounds_open(struct rounds *w, const struct tune_topo *t, uint32_t n, uint64_t rounds)
{
	*w = (struct rounds){ .t = t, .n = n };
	if ((uint64_t)n * rounds > ROUNDS_WORK)
		return -1;
	w->T = calloc((4 + 2 * ROUNDS_SHIFTS) * (size_t)n, sizeof(*w->T));
	w->from = calloc(2 * (size_t)n, sizeof(*w->from));
	if (!w->T || !w->from) {
		free(w->T);
		free(w->from);
		return -1;
	}
	w->Tn = w->T + n;
	w->x = w->Tn + n;
	w->unit = w->x + n;
	w->lat = w->unit + ROUNDS_SHIFTS * (size_t)n;
	w->port = w->lat + ROUNDS_SHIFTS * (size_t)n;
	w->to = w->from + n;
	return 0;
}

/*
 * Rank @r's send of @us on the wire, ready at @ready: when it is through.
 * In the ideal setting a rank's sends share its one port, one after the
 * other (a folded RDH participant's exchange, then its fold-out).
 */
static double rounds_send(struct rounds *w, uint32_t r, double ready, double us)
{
	if (!w->t->ideal)
		return ready + us;
	w->port[r] = fmax(w->port[r], ready) + us;
	return w->port[r];
}

/* Every rank sends @bytes to r + @d, after @local_us (see above). */
static int rounds_step(struct rounds *w, uint32_t d, double bytes, double local_us)
{
	const struct tune_topo *t = w->t;
	uint32_t n = w->n, k;
	double *unit, *lat;

	for (k = 0; k < ROUNDS_SHIFTS && w->shift[k] != d; k++)
		;
	if (k == ROUNDS_SHIFTS) {	/* price this shift: its shares, its routes' α */
		k = w->next++ % ROUNDS_SHIFTS;
		for (uint32_t r = 0; r < n; r++) {
			w->from[r] = r;
			w->to[r] = (r + d) % n;
			w->lat[k * (size_t)n + r] = lone(t, r, w->to[r], 0).lat_us + 2 * t->insn_us;
		}
		if (tune_flows_us(t, n, w->from, w->to, 1, w->unit + k * (size_t)n))
			return -1;
		w->shift[k] = d;
	}
	unit = w->unit + k * (size_t)n;
	lat = w->lat + k * (size_t)n;
	for (uint32_t r = 0; r < n; r++) {
		uint32_t q = (r + d) % n;
		double through = rounds_send(w, r, w->T[r] + local_us, unit[r] * bytes);

		w->Tn[q] = fmax(w->T[q], through + lat[r]);
	}
	memcpy(w->T, w->Tn, n * sizeof(*w->T));
	return 0;
}

/*
 * One round of @k transfers @from[i] -> @to[i] of @bytes[i], all at once,
 * each leaving once its sender is done with the round before and then
 * @local[i], and (@credited[i]) once its receiver is done with the round
 * before too: that receive depends on the receiver's previous one, whose
 * completion grants the sender its credit.  A rank not receiving in the
 * round keeps its time.
 */
static int rounds_pairs(struct rounds *w, uint32_t k, const uint32_t *from, const uint32_t *to,
			const double *bytes, const double *local, const bool *credited)
{
	const struct tune_topo *t = w->t;

	if (tune_flows_us(t, k, from, to, 1, w->x))	/* per byte: linear in bytes */
		return -1;
	memcpy(w->Tn, w->T, w->n * sizeof(*w->T));
	for (uint32_t i = 0; i < k; i++) {
		double lat = lone(t, from[i], to[i], bytes[i]).lat_us + 2 * t->insn_us;

		double ready = w->T[from[i]] + local[i];
		double through;

		if (credited && credited[i])
			ready = fmax(ready, w->T[to[i]] + t->sem_us);
		through = rounds_send(w, from[i], ready, w->x[i] * bytes[i]);

		w->Tn[to[i]] = fmax(w->Tn[to[i]], through + tune_reduce_us(t, bytes[i]) + lat);
	}
	memcpy(w->T, w->Tn, w->n * sizeof(*w->T));
	return 0;
}

/* When the last rank is done; frees @w. */
static struct tune_cost rounds_close(struct rounds *w)
{
	double done = 0;

	for (uint32_t r = 0; r < w->n; r++)
		done = fmax(done, w->T[r]);
	free(w->T);
	free(w->from);
	return (struct tune_cost){ 0, done };
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
static struct tune_cost pat(const struct tune_topo *t, const struct tune_call *call, uint8_t coll,
			    uint32_t n, double M, uint32_t P)
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

/*
 * Chain Broadcast and Reduce with tiers, as chain.c runs them: a slice is
 * forwarded once it has landed, so the first one pays every hop of the
 * chain (α of the hop, its transfer, the hand-off) and the others follow
 * one period apart.  Back-to-back descriptors on a ring overlap their α,
 * so the period is the slowest hop's transfer time per slice.
 */
static struct tune_cost chain_tiered(const struct tune_topo *t, uint8_t coll, uint32_t n,
				     double M, uint32_t P)
{
	struct tune_cost c = { 0, 0 }, h;
	double period = 0;

	/* hop r -> r + 1 of rank 0's chain (Reduce goes the other way, alike) */
	for (uint32_t r = 0; r + 1 < n; r++) {
		h = lone(t, r, r + 1, M / P);
		c.lat_us += h.lat_us + (coll == CS_REDUCE_COLL ? t->sem_us : 0);
		c.xfer_us += h.xfer_us;
		period = fmax(period, h.xfer_us);
	}
	/* a forwarding rank issues an ACQUIRE, then an ACQUIRE and a START, per slice */
	c.xfer_us += (P - 1) * fmax(period, (n > 2 ? 3 : 2) * t->insn_us);
	return c;
}

/* Rank @v's children in tree.c's binomial tree rooted at 0, nearest first. */
static uint32_t binomial_kids(uint32_t v, uint32_t n, uint32_t *kid)
{
	uint64_t low = v ? (v & -v) : (uint64_t)1 << 32;
	uint32_t k = 0;

	for (uint64_t m = 1; m < low && v + m < n; m <<= 1)
		kid[k++] = (uint32_t)(v + m);
	return k;
}

/*
 * Binomial Broadcast and Reduce with tiers, as tree.c runs them (root 0),
 * slice by slice.  Broadcast: a rank's program passes the receive of a
 * slice when it lands, then starts its sends to its children, farthest
 * first, each on the ring of that child's engine (the lowering gives the
 * k-th peer engine local + 1 + k), one slice after the other on a ring;
 * out of place the root copies its input last, on its local engine.
 * Reduce: a rank receive-reduces its children's slices nearest first,
 * each after the one before (the credit for the next child is granted
 * when the previous one has landed, a hand-off away), then sends its sum
 * up; a child's program waits for that credit.  Every transfer at its
 * share of the links the tree's edges load.
 */
static int binomial_tiered(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
			   uint32_t P, struct tune_cost *out)
{
	/* the ideal setting's one port per rank: all its sends on one "ring" */
	uint32_t E = t->engines && !t->ideal ? t->engines : 1, kid[32], nk;
	double *x = calloc(5 * (size_t)n + (size_t)n * E, sizeof(*x)), *at = x + n;
	double *prog = at + n, *lat = prog + n, *lx = lat + n, *ring = lx + n, b = M / P, done = 0;
	uint32_t *from = calloc(4 * (size_t)n, sizeof(*from)), *to = from + n;
	uint32_t *lf = to + n, *lt = lf + n;
	bool bcast = coll == CS_BROADCAST;

	if (!x || !from)
		goto fail;
	/* edge v: parent -> v (Broadcast) or v -> parent (Reduce) */
	for (uint32_t v = 0; v < n; v++) {
		uint32_t p = v ? v - (v & -v) : 0;

		from[v] = bcast ? p : v;
		to[v] = bcast ? v : p;
		lat[v] = v ? lone(t, from[v], to[v], b).lat_us : 0;
	}
	/*
	 * Broadcast: a rank's sends to its children overlap; Reduce: a rank's
	 * children send one after the other, so only the edges of one level
	 * (children 2^k away) share links.
	 */
	if (bcast && tune_flows_us(t, n, from, to, b, x))
		goto fail;
	for (uint32_t m = 1; !bcast && m < n; m <<= 1) {
		uint32_t k = 0;

		for (uint32_t v = m; v < n; v += 2 * m, k++) {
			lf[k] = v;
			lt[k] = v - m;
		}
		if (tune_flows_us(t, k, lf, lt, b, lx))
			goto fail;
		for (uint32_t v = m, j = 0; v < n; v += 2 * m)
			x[v] = lx[j++];
	}
	for (uint32_t i = 0; i < P; i++) {
		if (bcast) {
			for (uint32_t v = 0; v < n; v++) {
				/* at[0] stays 0; an ACQUIRE, then an ACQUIRE and a START per send */
				prog[v] = fmax(prog[v], at[v]) + (v ? t->insn_us : 0);
				nk = binomial_kids(v, n, kid);
				for (uint32_t k = nk; k-- > 0;) {
					double *rg = &ring[v * E + (v + n + nk - k) % E];

					prog[v] += 2 * t->insn_us;
					*rg = fmax(*rg, prog[v]) + x[kid[k]];
					at[kid[k]] = *rg + lat[kid[k]];
				}
			}
			continue;
		}
		for (uint32_t v = n; v-- > 0;) {
			double pass = prog[v];

			nk = binomial_kids(v, n, kid);
			for (uint32_t k = 0; k < nk; k++) {
				uint32_t c = kid[k];
				/* the first child's credits were granted up front */
				double go = k ? fmax(prog[c], pass + t->insn_us + t->sem_us) : prog[c];
				double *rg = &ring[c * E];

				prog[c] = go;
				*rg = fmax(*rg, go) + x[c];
				pass = fmax(pass, *rg + lat[c]);
			}
			prog[v] = pass;
		}
	}
	for (uint32_t v = 0; v < n; v++)
		done = fmax(done, bcast ? at[v] : prog[v]);
	if (bcast)	/* the root's own copy, after its sends on its local engine */
		done = fmax(done, fmax(prog[0], ring[n % E]) + local_us(t, M));
	free(x);
	free(from);
	*out = (struct tune_cost){ 0, done };
	return 0;
fail:
	free(x);
	free(from);
	return -1;
}

/* Pipelined Broadcast / Reduce: binomial tree or chain (App. C). */
static struct tune_cost rooted(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
			       uint32_t P, bool chain)
{
	struct tune_cost c = { 0, 0 }, slot;
	uint32_t L = chain ? n - 1 : log2up(n);

	if (n < 2)
		return c;
	if (chain)
		return chain_tiered(t, coll, n, M, P);
	if (!binomial_tiered(t, coll, n, M, P, &c))
		return c;
	slot = chain ? tune_step_ring(t, M / P, 1, 1) : tree_slot(t, n, M / P);
	if (coll == CS_REDUCE_COLL)
		slot.xfer_us += tune_reduce_us(t, M / P);
	tune_add(&c, slot, L + P - 1);
	return c;
}

/*
 * The two tiers of a hierarchy: one node, and one column (a rank per
 * node); a device's R columns share its NIC, as R streams would.
 */
static void hier_topos(const struct tune_topo *t, struct tune_topo *intra, struct tune_topo *inter)
{
	*intra = *t;
	intra->nodes = 1;
	*inter = *t;
	inter->ranks_per_device = 1;
	inter->torus_x = inter->torus_y = 1;
	if (!t->ideal)
		inter->streams = (t->streams ? t->streams : 1) * t->ranks_per_device;
}

static struct tune_cost hier(const struct algo *a, const struct tune_topo *t,
			     const struct tune_call *call, uint8_t coll, uint32_t n, double M,
			     uint32_t P, bool use_pat)
{
	uint32_t X = t->nodes, G = n / X;
	struct tune_topo in, out;
	struct tune_cost c = { 0, 0 };
	double blk = M / n;

	hier_topos(t, &in, &out);
	if (coll == CS_ALLREDUCE) {
		/* hier.c: first the count mod G leftover elements, in one slice, an
		 * intra AR and an inter AR; then the main parts */
		uint32_t es = call->elem_size ? call->elem_size : 4;
		double left = (double)((uint64_t)(M / es) % G) * es, main = M - left;

		/*
		 * Ideal, with a leftover: ranks done with its two phases early
		 * start the main ones, a hop's α sooner where a part is an
		 * element or two (4 x 3 x 1, 4 elements: 38 us, not the phases'
		 * 40): walk the schedule (per rank and slice a send and a
		 * receive per hop of each phase, the leftover's too)
		 */
		if (t->ideal && left > 0 && !use_pat &&
		    !walked(t, a, coll, n, M, P, es, 8 * (G + X), &c))
			return c;
		if (main > 0) {
			tune_add(&c, ring(&in, CS_REDUCESCATTER, G, main, P, 1), 1);
			tune_add(&c, ring(&out, CS_ALLREDUCE, X, main / G, P, 1), 1);
			tune_add(&c, ring(&in, CS_ALLGATHER, G, main, P, 1), 1);
		}
		if (left > 0) {
			tune_add(&c, ring(&in, CS_ALLREDUCE, G, left, 1, 1), 1);
			tune_add(&c, ring(&out, CS_ALLREDUCE, X, left, 1, 1), 1);
		}
		return c;
	}
	tune_add(&c, use_pat ? pat(&out, call, coll, X, X * blk, P) :
		     ring(&out, coll, X, X * blk, P, 1), 1);
	tune_add(&c, ring(&in, coll, G, G * blk, P, 1), X);
	return c;
}

double tune_bytes(uint8_t coll, uint32_t nranks, uint64_t count, uint64_t elem_size)
{
	double b = (double)count * (double)elem_size;

	if (coll == CS_ALLGATHER || coll == CS_REDUCESCATTER || coll == CS_ALLTOALL)
		b *= nranks;
	return b;
}

/* The cost functions registry entries carry (algo_cost.h). */
static uint32_t slices_of(const struct tune_call *c)
{
	return c->slices ? c->slices : 1;
}

static uint32_t elem_size_of(const struct tune_call *c)
{
	return c->elem_size ? c->elem_size : 4;
}

double cost_ring(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(ring(t, c->coll, c->nranks, c->bytes, slices_of(c), 1));
}

double cost_flatring(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(ring(t, c->coll, c->nranks, c->bytes, slices_of(c),
			       c->channels ? c->channels : 1));
}

double cost_kangaring(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	return tune_total(kangaring(a, t, c->coll, c->nranks, c->bytes, slices_of(c),
				    elem_size_of(c)));
}

double cost_mesh(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(mesh(t, c->coll, c->nranks, c->bytes, false));
}

double cost_mesh_oneshot(const struct algo *a, const struct tune_topo *t,
			 const struct tune_call *c)
{
	(void)a;
	return tune_total(mesh(t, c->coll, c->nranks, c->bytes, true));
}

double cost_rdh(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(rdh(t, c->coll, c->nranks, c->bytes));
}

double cost_dbt(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	return tune_total(dbt(a, t, c->nranks, c->bytes, slices_of(c), elem_size_of(c)));
}

double cost_pat(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(pat(t, c, c->coll, c->nranks, c->bytes, slices_of(c)));
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

double cost_binomial(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(rooted(t, c->coll, c->nranks, c->bytes, slices_of(c), false));
}

double cost_chain(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(rooted(t, c->coll, c->nranks, c->bytes, slices_of(c), true));
}

double cost_p2p(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(tune_step_shift(t, c->peer_dist ? c->peer_dist : 1, c->bytes,
					  slices_of(c)));
}

double cost_hier(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	return tune_total(hier(a, t, c, c->coll, c->nranks, c->bytes, slices_of(c), false));
}

double cost_hier_pat(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	return tune_total(hier(a, t, c, c->coll, c->nranks, c->bytes, slices_of(c), true));
}

const char *cost_rejects_hier(const struct tune_topo *t, const struct tune_call *c)
{
	if (t->nodes < 2 || c->nranks / t->nodes < 2)
		return "needs 2 or more nodes with 2 or more ranks each";
	return NULL;
}

int tune_formula(const struct algo *a, const struct tune_topo *t, const struct tune_call *c,
		 double *us, const char **why)
{
	const char *no = NULL;

	if (!a->cost)
		no = "has no formula";
	else if (!(a->colls & (1u << c->coll)))
		no = "does not serve this collective";
	else if (tune_topo_ranks(t) != c->nranks)
		no = "the topology does not have the call's number of ranks";
	else if (a->cost_rejects)
		no = a->cost_rejects(t, c);
	if (no) {
		*why = no;
		return -1;
	}
	if (c->nranks < 2 || c->bytes <= 0) {
		*us = 0;	/* a local copy at most */
		return 0;
	}
	*us = a->cost(a, t, c);
	return 0;
}
