// SPDX-License-Identifier: GPL-2.0
/*
 * The cost model (runtime/tune/): every formula against values computed
 * by hand from the reference's closed forms in the ideal setting, the
 * topology-aware costs against the crossovers they imply, and that every
 * registered algorithm has a formula for every collective it serves.
 *
 * Ideal setting here: α = 2 µs, BW = 1 GB/s (10^3 bytes per µs), so
 * M = 8000 bytes is M/BW = 8 µs.
 *
 * Over 800 lines on purpose: one hand-computed expectation per algorithm
 * and collective, next to the closed form it comes from.
 */
#include "ccore_test.h"
#include "timed_world.h"
#include "tuner_file.h"
#include "algos/algo.h"
#include "tune/formula.h"
#include "sim/sim_costs.h"
#include "tune/tuner.h"
#include "select.h"

#include <math.h>

#define A 2.0
#define BW 1.0
/* DBT at 8 ranks, 8000 bytes, one slice, one port per rank (see below) */
#define DBT_8_1 44.0

/* Ideal single tier over n ranks laid out R per device, X nodes. */
static struct tune_topo ideal(uint32_t n, uint32_t R, uint32_t X)
{
	struct tune_topo t;

	tune_topo_ideal(&t, n, A, BW);
	t.ranks_per_device = R;
	t.nodes = X;
	t.torus_x = n / R / X;
	return t;
}

/* The registry's @algo for @coll, which must be there. */
static const struct algo *entry(const char *algo, uint8_t coll)
{
	const struct algo *a = algo_find(algo, coll);

	if (!a)
		FAIL("%s is not registered for %s", algo, cs_coll_name(coll));
	return a;
}

static double f(const char *algo, const struct tune_topo *t, uint8_t coll, double M, uint32_t P,
		uint32_t ch)
{
	struct tune_call c = { .coll = coll, .nranks = tune_topo_ranks(t), .bytes = M,
			       .slices = P, .channels = ch, .peer_dist = 1 };
	const char *why = NULL;
	double us = -1;

	if (tune_formula(entry(algo, coll), t, &c, &us, &why))
		FAIL("%s on %u ranks: not applicable: %s", algo, c.nranks, why);
	return us;
}

/* PAT's formula with a staging buffer of @buffer elements (f32) per rank. */
static double f_pat(const struct tune_topo *t, uint8_t coll, double M, uint64_t buffer)
{
	struct tune_call c = { .coll = coll, .nranks = tune_topo_ranks(t), .bytes = M,
			       .slices = 1, .channels = 1, .elem_size = 4, .pat_buffer = buffer };
	const char *why = NULL;
	double us = -1;

	if (tune_formula(entry("pat", coll), t, &c, &us, &why))
		FAIL("pat on %u ranks: not applicable: %s", c.nranks, why);
	return us;
}

#define ASSERT_US(got, want)                                                          \
	do {                                                                          \
		double g_ = (got), w_ = (want);                                       \
		if (fabs(g_ - w_) > 1e-9 * (fabs(w_) + 1))                            \
			FAIL("%s: %.6f µs, expected %.6f", #got, g_, w_);             \
	} while (0)

TEST(ring_mesh_and_oneshot_match_the_reference)
{
	struct tune_topo t4 = ideal(4, 1, 1), t8 = ideal(8, 1, 1);

	/* ring AR 2(N-1)α + 2(N-1)/N M/BW: 12 + 12 */
	ASSERT_US(f("ring", &t4, CS_ALLREDUCE, 8000, 1, 1), 24);
	/*
	 * 8 slices through each rank's one port: a slice goes on α after it
	 * is through, so S = 6 steps of X = M/N/BW take S·α + (S + P - 1)·X/P,
	 * or the port's own work S·X plus the last α when that is longer
	 */
	ASSERT_US(f("ring", &t4, CS_ALLREDUCE, 8000, 8, 1), 6 * 2 + 13 * 0.25);
	ASSERT_US(f("ring", &t4, CS_ALLREDUCE, 80000, 8, 1), 6 * 20 + 2);
	/* ring AG, RS (N-1)α + (N-1)/N M/BW: 14 + 7 */
	ASSERT_US(f("ring", &t8, CS_ALLGATHER, 8000, 1, 1), 21);
	ASSERT_US(f("ring", &t8, CS_REDUCESCATTER, 8000, 1, 1), 21);
	/* flat ring: its channels share the one port, as slices of the ring */
	ASSERT_US(f("flatring", &t4, CS_ALLREDUCE, 8000, 1, 4),
		  f("ring", &t4, CS_ALLREDUCE, 8000, 4, 1));
	/* mesh: one step per phase, optimal traffic */
	ASSERT_US(f("mesh", &t4, CS_ALLGATHER, 8000, 1, 1), 2 + 6);
	ASSERT_US(f("mesh", &t4, CS_REDUCESCATTER, 8000, 1, 1), 2 + 6);
	ASSERT_US(f("mesh", &t4, CS_ALLREDUCE, 8000, 1, 1), 4 + 12);
	/* single-step mesh: α + (N-1) M/BW */
	ASSERT_US(f("mesh_oneshot", &t4, CS_ALLREDUCE, 8000, 1, 1), 2 + 24);
	/* one rank or nothing to move: nothing to pay */
	t4 = ideal(1, 1, 1);
	ASSERT_US(f("ring", &t4, CS_ALLREDUCE, 8000, 1, 1), 0);
	ASSERT_US(f("ring", &t8, CS_ALLREDUCE, 0, 1, 1), 0);
}

TEST(rdh_matches_the_reference_and_folds_other_n)
{
	struct tune_topo t8 = ideal(8, 1, 1), t6 = ideal(6, 1, 1);

	/* power of two: AR 2 log2N α + 2(N-1)/N M/BW; AG, RS log2N α + (N-1)/N M/BW */
	ASSERT_US(f("rdh", &t8, CS_ALLREDUCE, 8000, 1, 1), 12 + 14);
	ASSERT_US(f("rdh", &t8, CS_ALLGATHER, 8000, 1, 1), 6 + 7);
	ASSERT_US(f("rdh", &t8, CS_REDUCESCATTER, 8000, 1, 1), 6 + 7);
	/*
	 * N = 6: rdh over 4 participants plus fold-in and fold-out steps
	 * (AllGather and ReduceScatter there: ideal_sweep_test's known gap)
	 */
	ASSERT_US(f("rdh", &t6, CS_ALLREDUCE, 8000, 1, 1), (8 + 12) + (2 + 8) + (2 + 8));
}

TEST(dbt_matches_the_reference)
{
	struct tune_topo t8 = ideal(8, 1, 1);

	/*
	 * P = 1: §5.2's 2 ceil(log2 N) α + ceil(log2 N) M/BW = 12 + 24 gives
	 * a rank a port per partner; through one port an interior rank's
	 * two halves to its children go one after the other (dbt.c's steps,
	 * ideal_sweep_test checks them against the timed model)
	 */
	ASSERT_US(f("dbt", &t8, CS_ALLREDUCE, 8000, 1, 1), DBT_8_1);
	/* pipelined: less, never below §5.2's floor 2Lα + M/BW */
	ASSERT_LT(f("dbt", &t8, CS_ALLREDUCE, 8000, 4, 1), DBT_8_1);
	ASSERT_GE(f("dbt", &t8, CS_ALLREDUCE, 8e6, 64, 1), 12 + 8000);
}

TEST(pat_bruck_pairwise_match_the_reference)
{
	struct tune_topo t8 = ideal(8, 1, 1), t5 = ideal(5, 1, 1), t4 = ideal(4, 1, 1);

	/*
	 * PAT with a staging buffer for its largest message (CCORE_PAT_BUFFER):
	 * ceil(log2 N) α + (N-1)/N M/BW
	 */
	ASSERT_US(f_pat(&t8, CS_ALLGATHER, 8000, 1u << 30), 6 + 7);
	ASSERT_US(f_pat(&t8, CS_REDUCESCATTER, 8000, 1u << 30), 6 + 7);
	ASSERT_US(f_pat(&t5, CS_ALLGATHER, 8000, 1u << 30), 6 + 6.4);
	/*
	 * With its default buffer of four blocks (250 f32 each here) the
	 * aggregated order would take 5 pieces of 3 messages: PAT goes linear,
	 * N - 1 messages of a block, and so does its formula.
	 */
	ASSERT_US(f("pat", &t8, CS_ALLGATHER, 8000, 1, 1), 14 + 7);
	ASSERT_US(f("pat", &t8, CS_REDUCESCATTER, 8000, 1, 1), 14 + 7);
	/* pairwise: (N-1)α + (N-1)/N M/BW */
	ASSERT_US(f("pairwise", &t4, CS_ALLTOALL, 8000, 1, 1), 6 + 6);
	/* Bruck: log2N α + log2N M/(2BW); App. B.5's N = 4 example 2α + M/BW */
	ASSERT_US(f("bruck", &t4, CS_ALLTOALL, 8000, 1, 1), 4 + 8);
	ASSERT_US(f("bruck", &t8, CS_ALLTOALL, 8000, 1, 1), 6 + 12);
	/* N = 5: rounds move slots {1,3}, {2,3}, {4} of M/5 */
	ASSERT_US(f("bruck", &t5, CS_ALLTOALL, 8000, 1, 1), 6 + 8);
}

TEST(broadcast_reduce_and_p2p_match_the_reference)
{
	struct tune_topo t8 = ideal(8, 1, 1), t4 = ideal(4, 1, 1), t2 = ideal(2, 1, 1);

	/* binomial, P = 1: ceil(log2 N)(α + M/BW) */
	ASSERT_US(f("binomial", &t8, CS_BROADCAST, 8000, 1, 1), 30);
	ASSERT_US(f("binomial", &t8, CS_REDUCE_COLL, 8000, 1, 1), 30);
	/*
	 * pipelined, App. C's (L + P - 1)(α + M/(P BW)) = 24 gives the root
	 * a port per child; through its one port the root sends each slice
	 * to its L children one after the other (tree.c's order, checked
	 * against the timed model by ideal_sweep_test)
	 */
	ASSERT_US(f("binomial", &t8, CS_BROADCAST, 8000, 4, 1), 30);
	/* chain: (N + P - 2)(α + M/(P BW)); §3.1's N = P = 4 trace: 6 steps */
	/*
	 * ... in the timed model's ideal setting a slice goes on once it has
	 * landed, and back-to-back slices overlap their α: (N-1)α +
	 * (N+P-2)·M/(P·BW) = 6 + 12 (chain.c, checked by ideal_sweep_test)
	 */
	ASSERT_US(f("chain", &t4, CS_BROADCAST, 8000, 4, 1), 6 + 6 * 2);
	ASSERT_US(f("chain", &t4, CS_REDUCE_COLL, 8000, 1, 1), 3 * 10);
	/* p2p: α + M/BW */
	ASSERT_US(f("p2p", &t2, CS_SENDRECV, 8000, 1, 1), 10);
}

TEST(kangaring_and_hierarchical_compose_their_parts)
{
	struct tune_topo k = ideal(8, 2, 1), h = ideal(8, 4, 2), t8 = ideal(8, 1, 1);
	struct tune_call c = { .coll = CS_ALLREDUCE, .nranks = 8, .bytes = 8000, .slices = 1 };
	const char *why = NULL;
	double us;

	/*
	 * its time steps (kangaring.c): a ring over 4 primaries of 2000-byte
	 * blocks (X = 2 µs, α = 2).  Reduce-scatter: the first fold (α + X),
	 * then per hop the ring send and the fold credited once the hop has
	 * landed, 3 × 2(α + X): 28.  All-gather: the port takes each of the 3
	 * hops then a copy down, a hop waiting for the one before to land; the
	 * fourth copy follows the last hop: 28 + 4(α + X) = 44
	 * (kangaring_reduce_ideal(); ideal_sweep_test checks such walks against
	 * the timed model, exact at one slice)
	 */
	ASSERT_US(f("kangaring", &k, CS_ALLREDUCE, 8000, 1, 1), 44);
	/* one rank per device: kangaring.c runs the plain ring */
	ASSERT_US(f("kangaring", &t8, CS_ALLREDUCE, 8000, 2, 1),
		  f("ring", &t8, CS_ALLREDUCE, 8000, 2, 1));
	/* 2 nodes of 4: ring RS(4) + ring AR(2, M/4) + ring AG(4) */
	ASSERT_US(f("hier", &h, CS_ALLREDUCE, 8000, 1, 1), 12 + (4 + 2) + 12);
	/* AG: inter ring AG(2, 2 blocks) then an intra AG(4) per node row */
	ASSERT_US(f("hier", &h, CS_ALLGATHER, 8000, 1, 1), 3 + 2 * 9);
	ASSERT_US(f("hier-pat", &h, CS_REDUCESCATTER, 8000, 1, 1), 2 * 9 + 3);
	/* leaders only: binomial Reduce(4) + one-shot Mesh(2) + binomial Broadcast(4), all of M */
	ASSERT_US(f("hier-leaders", &h, CS_ALLREDUCE, 8000, 1, 1), 2 * 10 + 10 + 2 * 10);
	ASSERT_EQ(tune_formula(entry("hier", CS_ALLREDUCE), &t8, &c, &us, &why), -1);
	ASSERT_STR_CONTAINS(why, "2 or more nodes");
}

TEST(every_registered_algorithm_has_a_formula)
{
	struct tune_topo t = ideal(8, 2, 2);
	unsigned int checked = 0;

	for (unsigned int i = 0; i < algo_count(); i++) {
		const struct algo *a = algo_at(i);

		if (!a->cost)
			FAIL("%s has no cost function", a->name);
		if (!a->colls)
			FAIL("%s serves no collective", a->name);
		for (uint8_t coll = 0; coll < CS_NCOLL; coll++) {
			if (!(a->colls & (1u << coll)))
				continue;
			/* the entry algo_find() gives for its name and coll is this one */
			if (algo_find(a->name, coll) != a)
				FAIL("%s is registered twice for %s", a->name, cs_coll_name(coll));
			ASSERT_GT(f(a->name, &t, coll, 1 << 20, 2, 2), 0);
			checked++;
		}
		for (unsigned int k = 0; k < i; k++)
			if (!strcmp(algo_at(k)->name, a->name) && (algo_at(k)->colls & a->colls))
				FAIL("%s has two entries for a collective", a->name);
		/* the knobs a cost depends on are the ones it has */
		if (a->knobs & ~(ALGO_KNOB_SLICES | ALGO_KNOB_CHANNELS))
			FAIL("%s: unknown knobs %#x", a->name, a->knobs);
	}
	ccore_test_log("%u (algorithm, collective) pairs", checked);
	ASSERT_GE(checked, 25);
	ASSERT_EQ(algo_at(algo_count()), NULL);
}

/*
 * A cost that depends on a knob changes with it somewhere, and one that
 * does not, nowhere: the tuner searches exactly the knobs an entry lists.
 */
TEST(registered_knobs_are_the_ones_the_cost_depends_on)
{
	struct tune_topo t;

	tune_topo_default(&t, 2, 2, 2, 2);
	for (unsigned int i = 0; i < algo_count(); i++) {
		const struct algo *a = algo_at(i);

		for (uint8_t coll = 0; coll < CS_NCOLL; coll++) {
			bool by_slices = false, by_channels = false;

			if (!(a->colls & (1u << coll)))
				continue;
			for (double M = 4096; M <= 1 << 26; M *= 64) {
				struct tune_call c = { .coll = coll, .nranks = 16, .bytes = M,
						       .slices = 1, .channels = 1, .peer_dist = 1 };
				const char *why;
				double one, more;

				if (tune_formula(a, &t, &c, &one, &why))
					continue;
				c.slices = 4;
				ASSERT_EQ(tune_formula(a, &t, &c, &more, &why), 0);
				by_slices |= more != one;
				c.slices = 1;
				c.channels = 4;
				ASSERT_EQ(tune_formula(a, &t, &c, &more, &why), 0);
				by_channels |= more != one;
			}
			if (by_slices != !!(a->knobs & ALGO_KNOB_SLICES) ||
			    by_channels != !!(a->knobs & ALGO_KNOB_CHANNELS))
				FAIL("%s %s: knobs %#x, but its cost %s with slices, %s with channels",
				     a->name, cs_coll_name(coll), a->knobs,
				     by_slices ? "changes" : "does not change",
				     by_channels ? "changes" : "does not change");
		}
	}
}

TEST(bytes_follow_the_nccl_tests_convention)
{
	ASSERT_US(tune_bytes(CS_ALLREDUCE, 8, 100, 4), 400);
	ASSERT_US(tune_bytes(CS_BROADCAST, 8, 100, 4), 400);
	ASSERT_US(tune_bytes(CS_ALLGATHER, 8, 100, 4), 3200);
	ASSERT_US(tune_bytes(CS_REDUCESCATTER, 8, 100, 4), 3200);
	ASSERT_US(tune_bytes(CS_ALLTOALL, 8, 100, 4), 3200);
}

/* --- the topology-aware costs -------------------------------------------- */

static double tf(const char *algo, const struct tune_topo *t, uint8_t coll, double M)
{
	return f(algo, t, coll, M, 1, 1);
}

/* The default device without the per-step and per-message CC overheads. */
static void bare(struct tune_topo *t, uint32_t X, uint32_t x, uint32_t y, uint32_t R)
{
	tune_topo_default(t, X, x, y, R);
	t->msg_us = 0;
	t->step_us = 0;
}

TEST(tiers_price_each_step_at_the_tier_it_crosses)
{
	struct tune_topo t;

	/* one device: α_dev, and one transfer runs at its engine's 250 GB/s */
	bare(&t, 1, 1, 1, 4);
	ASSERT_US(tf("ring", &t, CS_ALLGATHER, 4e5), 3 * (0.5 + 1e5 / 250e3));
	/* a node of 4 devices on a ring: α_node, the link's bandwidth */
	bare(&t, 1, 4, 1, 1);
	ASSERT_US(tf("ring", &t, CS_ALLGATHER, 4e5), 3 * (1.5 + 1e5 / 160e3));
	/*
	 * 2 nodes of 2 devices: the ring's links alternate node links and
	 * NICs.  A block goes round all of them but one, so the pass costs
	 * every link's α and transfer but the cheapest link's: the worst
	 * block crosses both NICs (the timed model: 40.3 µs with the CC
	 * overheads this leaves out)
	 */
	bare(&t, 2, 2, 1, 1);
	ASSERT_US(tf("ring", &t, CS_ALLGATHER, 4e5), 2 * (15 + 1e5 / 25e3) + 1.5 + 1e5 / 160e3);
	/* ... unless the NIC's transfers alone take longer: 3 blocks through it */
	ASSERT_US(tf("ring", &t, CS_ALLGATHER, 4e7), 3 * 1e7 / 25e3);
	/*
	 * both ways round (2 flat ring channels, half the bytes each way) the
	 * ranks go in lockstep at the slowest link's α, a NIC's (the timed
	 * model: 2 nodes of 2x2 devices, 1 MiB, 110 µs against the ring's 53)
	 */
	ASSERT_US(f("flatring", &t, CS_ALLGATHER, 4e5, 1, 2), 3 * (15 + 0.5e5 / 25e3));
	/*
	 * mesh on a ring of 4 devices, 2 ranks each: a rank's sends to r + i
	 * go on engine (r + i) mod 4, so they run in two phases, i = 1..4 and
	 * 5..7.  In the first, device d sends 4 blocks to d + 1 and 3 to
	 * d + 2 (2 hops, ties the positive way, as the device model routes),
	 * so link d -> d + 1 carries 4 + 3 of its own and 3 of d - 1's; in the
	 * second 1 goes to d + 2 and 4 back to d - 1.  Every transfer runs at
	 * its busiest link's share; the farthest peer is 2 hops away; the CC
	 * core issues 7 sends of 2 instructions.
	 */
	bare(&t, 1, 4, 1, 2);
	ASSERT_US(tf("mesh", &t, CS_ALLGATHER, 8e5),
		  2 * 1.5 + 7 * 2 * 0.005 + (10 + 4) * 1e5 / 160e3);
}

TEST(alpha_is_per_hop_on_the_torus)
{
	struct tune_topo t;
	struct tune_cost c;

	/* 4x4 torus, one rank per device: rank ^ 5 is device (1,1) away: 2 hops */
	bare(&t, 1, 4, 4, 1);
	c = tune_step_xor(&t, 5, 1e3, 1);
	ASSERT_US(c.lat_us, 2 * 1.5);
	/* rank ^ 2 is 2 hops along x */
	c = tune_step_xor(&t, 2, 1e3, 1);
	ASSERT_US(c.lat_us, 2 * 1.5);
	/* rank ^ 1 is one hop */
	c = tune_step_xor(&t, 1, 1e3, 1);
	ASSERT_US(c.lat_us, 1.5);
	/*
	 * a row-major ring of devices on the torus: 12 links of one hop and 4
	 * (row ends, 3 -> 4 ...) of two; a block meets all of them but one
	 * (the cheapest) in its 15 steps; both ways round the ranks go in
	 * lockstep at the slowest link's α
	 */
	c = tune_step_ring(&t, 1e3, 1, 1);
	ASSERT_US(c.lat_us, (11 * 1.5 + 4 * 3.0) / 15);
	c = tune_step_ring(&t, 1e3, 1, 2);
	ASSERT_US(c.lat_us, 3.0);
	/* the per-step and per-message overheads come from the CC latencies */
	tune_topo_default(&t, 1, 4, 4, 1);
	ASSERT_US(t.step_us, 0.05 + 0.005);
	ASSERT_US(t.msg_us, 0.05 + 2 * 0.005);
}

TEST(parameters_come_from_the_device)
{
	struct ccm_config cfg;
	struct tune_hw hw, def;
	struct tune_topo t;

	/* the model's defaults are the timed sim's */
	ccm_config_default(&cfg);
	cfg.timed = 1;
	tune_hw_from_config(&cfg, &hw);
	tune_hw_default(&def);
	for (int i = 0; i < TUNE_NTIERS; i++) {
		ASSERT_US(hw.alpha_us[i], def.alpha_us[i]);
		ASSERT_US(hw.bw_gbps[i], def.bw_gbps[i]);
	}
	ASSERT_US(hw.engine_gbps, def.engine_gbps);
	ASSERT_US(hw.sem_us, def.sem_us);
	ASSERT_US(hw.insn_us, def.insn_us);
	ASSERT_EQ(hw.engines, def.engines);
	/* a slower fabric: α 3 µs per hop, 80 GB/s links, 100 GB/s engines */
	cfg.alpha_node_ns = 3000;
	cfg.bw_node_gbps = 640;
	cfg.bw_engine_gbps = 800;
	cfg.sem_ns = 100;
	tune_hw_from_config(&cfg, &hw);
	tuner_topo(1, 4, 1, 1, &hw, &t);
	ASSERT_US(t.alpha_us[TUNE_NODE], 3.0);
	ASSERT_US(t.bw_gbps[TUNE_NODE], 80.0);
	ASSERT_US(t.engine_gbps, 100.0);
	ASSERT_US(t.step_us, 0.1 + 0.005);
	/* the functional model's time is the host's: its CC-core costs are */
	cfg.timed = 0;
	tune_hw_from_config(&cfg, &hw);
	ASSERT_US(hw.sem_us, TUNE_HOST_SEM_US);
	ASSERT_US(hw.insn_us, TUNE_HOST_INSN_US);
	ASSERT_US(hw.alpha_us[TUNE_NODE], 3.0);
	tuner_topo(1, 4, 1, 1, &hw, &t);
	t.msg_us = t.step_us = 0;
	ASSERT_US(tf("ring", &t, CS_ALLGATHER, 4e5), 3 * (3.0 + 1e5 / 80e3));
	/* an ideal timed device makes the ideal model */
	cfg.timed = 1;
	cfg.ideal = 1;
	tune_hw_from_config(&cfg, &hw);
	tuner_topo(1, 4, 1, 1, &hw, &t);
	ASSERT_TRUE(t.ideal);
	ASSERT_US(t.alpha_us[0], 3.0);
}

TEST(hierarchical_beats_flat_ring_across_nodes)
{
	for (uint32_t X = 2; X <= 64; X *= 2) {
		struct tune_topo t;

		tune_topo_default(&t, X, 4, 4, 4);
		for (double M = 1024; M <= 1 << 30; M *= 32) {
			double h = tf("hier", &t, CS_ALLREDUCE, M), r = tf("ring", &t, CS_ALLREDUCE, M);

			if (h >= r)
				FAIL("%u nodes, %.0f bytes: hier %.1f µs, ring %.1f µs", X, M, h, r);
		}
	}
}

/* --- the tuner ------------------------------------------------------------- */

static const char *fastest(const struct tune_topo *t, uint8_t coll, double M,
			   struct tune_candidate *best)
{
	struct tune_candidate cand[TUNE_MAX_CAND];
	struct tune_call c = { .coll = coll, .nranks = tune_topo_ranks(t), .bytes = M,
			       .slices = 1, .channels = 1 };
	uint32_t n = tuner_rank(t, &c, 64, cand, TUNE_MAX_CAND);

	ASSERT_GT(n, 0);
	for (uint32_t i = 1; i < n; i++)
		ASSERT_TRUE(cand[i - 1].us <= cand[i].us);
	if (best)
		*best = cand[0];
	return cand[0].algo->name;
}

TEST(tuner_takes_the_least_modelled_time)
{
	static const uint8_t colls[] = { CS_ALLREDUCE, CS_ALLGATHER, CS_REDUCESCATTER,
					 CS_ALLTOALL, CS_BROADCAST, CS_REDUCE_COLL };
	struct tune_topo t;

	tune_topo_default(&t, 2, 2, 2, 2);
	for (size_t k = 0; k < sizeof(colls); k++)
		for (double M = 1024; M <= 1 << 30; M *= 16) {
			struct tune_candidate best;

			fastest(&t, colls[k], M, &best);
			/* no algorithm, slice or channel count the model knows does better */
			for (unsigned int i = 0; i < algo_count(); i++) {
				const struct algo *a = algo_at(i);

				if (!(a->colls & (1u << colls[k])))
					continue;
				for (uint32_t s = 1; s <= 64; s *= 2)
					for (uint32_t ch = 1; ch <= 8; ch *= 2) {
						struct tune_call c = {
							.coll = colls[k], .nranks = 16, .bytes = M,
							.slices = s, .channels = ch,
						};
						const char *why;
						double us;

						if (tune_formula(a, &t, &c, &us, &why) == 0 &&
						    us < best.us * (1 - 1e-9))
							FAIL("%s %.0f bytes: %s s%u c%u %.2f µs beats %s %.2f µs",
							     cs_coll_name(colls[k]), M, a->name, s, ch,
							     us, best.algo->name, best.us);
					}
			}
		}
}

TEST(tuner_on_a_trn2_node_and_across_nodes)
{
	struct tune_topo t;
	const char *small, *mid, *mid2, *large;

	/* 16 devices in a 4x4 torus, 4 ranks each, α 1.5 µs between devices */
	tune_topo_default(&t, 1, 4, 4, 4);
	small = fastest(&t, CS_ALLREDUCE, 4096, NULL);
	mid = fastest(&t, CS_ALLREDUCE, 256 << 10, NULL);
	mid2 = fastest(&t, CS_ALLREDUCE, 1 << 20, NULL);
	large = fastest(&t, CS_ALLREDUCE, 256 << 20, NULL);
	ccore_test_log("Trn2-like node AllReduce: 4 KiB %s, 256 KiB %s, 1 MiB %s, 256 MiB %s",
		       small, mid, mid2, large);
	/*
	 * The model's answer, which the timed model agrees with (see
	 * Documentation/collectives.rst, "Tuning"): Mesh (one or two
	 * all-to-all steps of at most 4 hops) for small sizes, RDH in the
	 * middle (its halving pairs the nearest ranks first, so its big
	 * halves stay within a device), the ring family for large ones.
	 */
	ASSERT_STR_CONTAINS(small, "mesh");
	ASSERT_TRUE(!strcmp(mid, "rdh"));
	ASSERT_TRUE(!strcmp(mid2, "rdh"));
	ASSERT_TRUE(!strcmp(large, "kangaring") || !strcmp(large, "flatring") ||
		    !strcmp(large, "ring"));
	/*
	 * Across 2-64 such nodes (α 15 µs) hierarchical beats the flat ring
	 * (hierarchical_beats_flat_ring_across_nodes) and the tuner never
	 * takes the flat ring; RDH's log2 N network steps may still win the
	 * middle sizes.
	 */
	for (uint32_t X = 2; X <= 64; X *= 4) {
		tune_topo_default(&t, X, 4, 4, 4);
		for (double M = 1 << 10; M <= 1 << 30; M *= 32) {
			const char *c = fastest(&t, CS_ALLREDUCE, M, NULL);

			ccore_test_log("%u nodes, %.0f bytes: %s", X, M, c);
			ASSERT_TRUE(strcmp(c, "ring") != 0);
		}
		ASSERT_STR_CONTAINS(fastest(&t, CS_ALLREDUCE, 1 << 30, NULL), "hier");
	}
}

/* --- the tuning file, CCORE_ALGO and ccore_plan_query() --------------------- */

#include "tune/tunefile.h"
#include "ccore.h"

#include <errno.h>
#include <unistd.h>

#define HDR TUNER_FILE_HEADER

static const char *path;	/* the last tuning file written */

struct tworld {
	uint32_t n;
	struct ccore_comm *c[8];
	ccore_ptr sb[8], rb[8];
};

static int tworld_open(struct tworld *w, uint32_t devices, uint32_t rpd)
{
	struct ccore_topology t = { 1, devices, rpd };
	int rc = ccore_comm_init_all(&t, w->c);

	w->n = devices * rpd;
	for (uint32_t r = 0; !rc && r < w->n; r++)
		if (ccore_mem_alloc(w->c[r], 1 << 20, &w->sb[r]) ||
		    ccore_mem_alloc(w->c[r], 1 << 20, &w->rb[r]))
			FAIL("alloc: %s", ccore_last_error());
	return rc;
}

static void tworld_close(struct tworld *w)
{
	for (uint32_t r = 0; r < w->n; r++)
		ccore_comm_destroy(w->c[r]);
}

/* Run @op with @count on every rank of @w and wait. */
static void run_op(struct tworld *w, enum ccore_coll_op op, size_t count)
{
	for (uint32_t r = 0; r < w->n; r++)
		if (timed_post(op, w->sb[r], w->rb[r], count, w->c[r]))
			FAIL("op %d count %zu rank %u: %s", (int)op, count, r, ccore_last_error());
	for (uint32_t r = 0; r < w->n; r++)
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w->c[r])), 0);
}

TEST(tuning_file_rules_first_match_wins)
{
	struct tunefile tf;
	const struct tunefile_rule *r;
	struct ccore_plan_info info;
	struct tworld w;

	path = tuner_file_write("# rules for 4 ranks\n" HDR "\n"
				"allreduce, 0, 1K, *, 4, mesh, *, *\n"
				"allreduce,0,1K,*,*,ring,*,*\n"
				"allreduce,1025,*,1,*,flatring,4,2\n"
				"allgather,*,*,*,*,pat,*,*\n");
	ASSERT_EQ(tunefile_load(path, &tf), 0);
	ASSERT_EQ(tf.n, 4);
	r = tunefile_match(&tf, CS_ALLREDUCE, 1024, 1, 4);
	ASSERT_TRUE(r && !strcmp(r->algo, "mesh") && r->line == 4);
	r = tunefile_match(&tf, CS_ALLREDUCE, 512, 1, 8);
	ASSERT_TRUE(r && !strcmp(r->algo, "ring") && r->line == 5);
	r = tunefile_match(&tf, CS_ALLREDUCE, 1 << 20, 1, 4);
	ASSERT_TRUE(r && !strcmp(r->algo, "flatring") && r->slices == 4 && r->channels == 2);
	ASSERT_TRUE(tunefile_match(&tf, CS_ALLREDUCE, 1 << 20, 2, 4) == NULL);
	ASSERT_TRUE(tunefile_match(&tf, CS_ALLTOALL, 1, 1, 4) == NULL);
	tunefile_free(&tf);

	/* through the runtime: the rule decides, and says which line it was */
	setenv("CCORE_TUNER_FILE", path, 1);
	ASSERT_EQ(tworld_open(&w, 2, 2), 0);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 64, ccore_f32, &info), 0);
	ASSERT_STR_CONTAINS(info.algo, "mesh");
	ASSERT_STR_CONTAINS(info.source, "CCORE_TUNER_FILE");
	ASSERT_EQ(info.tuner_file_line, 4);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 4096, ccore_f32, &info), 0);
	ASSERT_STR_CONTAINS(info.algo, "flatring");
	ASSERT_EQ(info.slices, 4);
	ASSERT_EQ(info.channels, 2);
	run_op(&w, ccore_op_allreduce, 4096);
	ASSERT_STR_CONTAINS(ccore_comm_last_algo(w.c[0]), "flatring");
	/* no rule for AllToAll: the model */
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_alltoall, 64, ccore_f32, &info), 0);
	ASSERT_STR_CONTAINS(info.source, "cost model");
	tworld_close(&w);
	tuner_file_remove();
}

TEST(tuning_file_bad_lines_name_file_and_line)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "allreduce,0,1K,*,*,ring,*,*\n", ":1: the first line must be the header" },
		{ HDR "allreduce,0,1K,*,*,ring,*\n", ":2: 7 columns, expected 8" },
		{ HDR "allreduce,0,1K,*,*,ring,*,*,*\n", ":2: 9 columns, expected 8" },
		{ HDR "\nallreduc,0,1K,*,*,ring,*,*\n", ":3: column op: unknown collective 'allreduc'" },
		{ HDR "allreduce,0,1K,*,*,warp,*,*\n",
		  ":2: column algorithm: 'warp' is not a registered algorithm that serves allreduce" },
		{ HDR "alltoall,0,1K,*,*,ring,*,*\n", "'ring' is not a registered algorithm that serves alltoall" },
		{ HDR "allreduce,2K,1K,*,*,ring,*,*\n", ":2: min_bytes 2K is above max_bytes 1K" },
		{ HDR "allreduce,abc,1K,*,*,ring,*,*\n", ":2: column min_bytes: 'abc' is not a number of bytes" },
		{ HDR "allreduce,,1K,*,*,ring,*,*\n", ":2: column min_bytes: '' is not" },
		{ HDR "allreduce,1Q,*,*,*,ring,*,*\n", "column min_bytes: '1Q'" },
		/* beyond 64 bits: refused, not clamped or wrapped */
		{ HDR "allreduce,99999999999999999999,*,*,*,ring,*,*\n",
		  "column min_bytes: '99999999999999999999' is not a number of bytes" },
		{ HDR "allreduce,0,17179869185G,*,*,ring,*,*\n", "column max_bytes: '17179869185G'" },
		{ HDR "allreduce,*,*,99999999999999999999,*,ring,*,*\n", "column nodes: '99999999999999999999'" },
		{ HDR "allreduce,*,*,0,*,ring,*,*\n", ":2: column nodes: '0' is not a number from 1" },
		{ HDR "allreduce,*,*,*,x,ring,*,*\n", ":2: column ranks: 'x'" },
		{ HDR "allreduce,*,*,*,*,ring,65,*\n", ":2: column slices: '65' is not a number from 1 to 64 or *" },
		{ HDR "allreduce,*,*,*,*,ring,*,-1\n", ":2: column channels: '-1'" },
		{ "", "empty; the first line must be the header" },
	};
	struct tunefile tf;
	struct tworld w;
	char want[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path = tuner_file_write(bad[i].text);
		ASSERT_EQ(tunefile_load(path, &tf), -EINVAL);
		ASSERT_STR_CONTAINS(ccore_last_error(), bad[i].msg);
		snprintf(want, sizeof(want), "CCORE_TUNER_FILE: %s", path);
		ASSERT_STR_CONTAINS(ccore_last_error(), want);
		unlink(path);
	}
	/* several bad lines: the first is the error, each is logged */
	path = tuner_file_write(HDR "allreduce,*,*,*,*,ring,*,*\nbogus\nallreduce,*,*,*,*,ring,0,*\n");
	ASSERT_EQ(tunefile_load(path, &tf), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), ":3: 1 columns");
	ASSERT_STR_CONTAINS(ccore_last_error(), "and more bad lines");
	/* communicator init reports it, like the other knobs */
	setenv("CCORE_TUNER_FILE", path, 1);
	ASSERT_EQ(tworld_open(&w, 2, 2), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_TUNER_FILE");
	ASSERT_STR_CONTAINS(ccore_last_error(), ":3:");
	unlink(path);
	setenv("CCORE_TUNER_FILE", "/nonexistent/tune.csv", 1);
	ASSERT_EQ(tworld_open(&w, 2, 2), -ENOENT);
	ASSERT_STR_CONTAINS(ccore_last_error(), "/nonexistent/tune.csv: cannot open it");
	unsetenv("CCORE_TUNER_FILE");
}

TEST(ccore_algo_still_overrides)
{
	struct ccore_plan_info info;
	struct tworld w;

	path = tuner_file_write(HDR "allreduce,*,*,*,*,mesh,*,*\n");
	setenv("CCORE_TUNER_FILE", path, 1);
	setenv("CCORE_ALGO", "ring", 1);
	ASSERT_EQ(tworld_open(&w, 2, 2), 0);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 1000, ccore_f32, &info), 0);
	ASSERT_STR_CONTAINS(info.algo, "ring");
	ASSERT_STR_CONTAINS(info.source, "CCORE_ALGO");
	run_op(&w, ccore_op_allreduce, 1000);
	ASSERT_STR_CONTAINS(ccore_comm_last_algo(w.c[0]), "ring");
	/* an exclusion also applies to the file's choice: the model decides */
	setenv("CCORE_ALGO", "allreduce:^mesh", 1);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 1000, ccore_f32, &info), 0);
	ASSERT_TRUE(strcmp(info.algo, "mesh") != 0);
	ASSERT_STR_CONTAINS(info.source, "cost model");
	unsetenv("CCORE_ALGO");
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 1000, ccore_f32, &info), 0);
	ASSERT_STR_CONTAINS(info.algo, "mesh");
	tworld_close(&w);
	tuner_file_remove();
}

TEST(plan_query_matches_what_runs)
{
	static const enum ccore_coll_op ops[] = {
		ccore_op_allreduce, ccore_op_allgather, ccore_op_reducescatter,
		ccore_op_alltoall, ccore_op_broadcast, ccore_op_reduce,
	};
	static const size_t counts[] = { 1, 300, 4096, 30000 };
	struct ccore_plan_info info;
	struct tworld w;

	ASSERT_EQ(tworld_open(&w, 2, 4), 0);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			ASSERT_EQ(ccore_plan_query(w.c[0], ops[i], counts[k], ccore_f32, &info), 0);
			ASSERT_GT(info.ncandidates, 0);
			ASSERT_STR_CONTAINS(info.source, "cost model");
			for (uint32_t c = 1; c < info.ncandidates; c++)
				ASSERT_TRUE(info.candidates[c - 1].predicted_us <=
					    info.candidates[c].predicted_us);
			ASSERT_TRUE(info.predicted_us >= info.candidates[0].predicted_us);
			run_op(&w, ops[i], counts[k]);
			if (strcmp(info.algo, ccore_comm_last_algo(w.c[0])))
				FAIL("op %d count %zu: query says %s, %s ran", (int)ops[i], counts[k],
				     info.algo, ccore_comm_last_algo(w.c[0]));
			ccore_test_log("op %d count %zu: %s, %u slices, %.1f us", (int)ops[i],
				       counts[k], info.algo, info.slices, info.predicted_us);
		}
	ASSERT_EQ(ccore_plan_query(w.c[0], 99, 1, ccore_f32, &info), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "op 99 out of range");
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 0, ccore_f32, &info), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "count is 0");
	tworld_close(&w);
}

TEST(plan_timing_describes_the_last_plan_built)
{
	struct ccore_plan_timing t;
	struct tworld w;

	ASSERT_EQ(tworld_open(&w, 2, 4), 0);
	ASSERT_EQ(ccore_comm_plan_timing(w.c[0], &t), -ENOENT);
	ASSERT_STR_CONTAINS(ccore_last_error(), "no plan was built");
	ASSERT_EQ(ccore_comm_plan_timing(NULL, &t), -EINVAL);
	ASSERT_EQ(ccore_comm_plan_timing(w.c[0], NULL), -EINVAL);
	setenv("CCORE_ALGO", "ring", 1);
	setenv("CCORE_SLICES", "1", 1);
	/* 1001 elements: blocks of unequal size, so from the schedule */
	run_op(&w, ccore_op_allreduce, 4004);
	ASSERT_EQ(ccore_comm_plan_timing(w.c[3], &t), 0);
	ASSERT_EQ(t.plans_built, 1);
	ASSERT_EQ(t.loops, 0);
	/* Ring AllReduce: 2(N-1) sends and as many receives per rank; a
	 * descriptor per send, and a credit SEM_WRITE queued behind the send
	 * each all-gather receive depends on (lowering's credit markers) */
	ASSERT_EQ(t.steps, 8 * 4 * 7);
	ASSERT_EQ(t.descs, 8 * 3 * 7);
	ASSERT_GT(t.insns, t.descs);
	ASSERT_TRUE(t.choose_us >= 0 && t.schedule_us > 0 && t.verify_us >= 0 &&
		    t.place_us > 0 && t.lower_us > 0 && t.load_us > 0);
	/* the first collective connects the stream's semaphores; nothing to evict */
	ASSERT_TRUE(t.connect_us > 0 && t.connect_us <= t.place_us);
	ASSERT_TRUE(t.evict_us == 0);
	/* a repeat reuses the plan */
	run_op(&w, ccore_op_allreduce, 4004);
	ASSERT_EQ(ccore_comm_plan_timing(w.c[0], &t), 0);
	ASSERT_EQ(t.plans_built, 1);
	/* equal blocks: in loop form, its schedule rolled into repeats (as
	 * many steps as ring_gen_rolled() stores, fewer than written out);
	 * per rank a send and its credit marker for each of the 4 copies of
	 * the reduce-scatter ring, a send for each of the all-gather ring's,
	 * and hop 0's pair */
	run_op(&w, ccore_op_allreduce, 4000);
	ASSERT_EQ(ccore_comm_plan_timing(w.c[0], &t), 0);
	ASSERT_EQ(t.plans_built, 2);
	ASSERT_EQ(t.loops, 1);
	{
		struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = 8, .count = 1000 };
		struct algo_opts o = { .slices = 1, .channels = 1 };
		struct cs_sched *s = ring_gen_rolled(&sh, &o);
		uint64_t rolled = 0;

		for (uint32_t r = 0; r < 8; r++)
			rolled += s->ranks[r].n;
		cs_free(s);
		ASSERT_EQ(t.steps, rolled);
		ASSERT_LT(t.steps, 8 * 4 * 7);
	}
	ASSERT_EQ(t.descs, 8 * (2 + 4 * 2 + 4));
	ASSERT_TRUE(t.schedule_us > 0 && t.lower_us > 0 && t.load_us > 0);
	/* the first plan in loop form makes each rank's own pair (its phase
	 * counters); the next one has every semaphore it names already */
	ASSERT_TRUE(t.connect_us > 0);
	run_op(&w, ccore_op_allreduce, 8000);
	ASSERT_EQ(ccore_comm_plan_timing(w.c[0], &t), 0);
	ASSERT_EQ(t.plans_built, 3);
	ASSERT_EQ(t.loops, 1);
	ASSERT_TRUE(t.connect_us == 0);
	unsetenv("CCORE_ALGO");
	unsetenv("CCORE_SLICES");
	tworld_close(&w);
}

TEST(tuner_variables_are_checked)
{
	static const struct { const char *var, *val, *msg; } bad[] = {
		{ "CCORE_TUNER_ALPHA_US", "abc", "CCORE_TUNER_ALPHA_US=abc: expected one number or three" },
		{ "CCORE_TUNER_ALPHA_US", "1,2", "CCORE_TUNER_ALPHA_US=1,2" },
		{ "CCORE_TUNER_BW_GBPS", "0", "CCORE_TUNER_BW_GBPS=0: expected one number or three comma-separated numbers (intra-device,intra-node,inter-node), each > 0" },
		{ "CCORE_TUNER_MSG_US", "-1", "CCORE_TUNER_MSG_US=-1: expected a number >= 0" },
		{ "CCORE_TUNER_IDEAL", "yes", "CCORE_TUNER_IDEAL=yes: expected 0 or 1" },
		/* the network tier's, used across hosts, refused at any init */
		{ "CCORE_NET_ALPHA_US", "-1", "CCORE_NET_ALPHA_US=-1: expected the network's latency per hop in µs, a number from 0 to 1000000" },
		{ "CCORE_NET_ALPHA_US", "25us", "CCORE_NET_ALPHA_US=25us: expected" },
		{ "CCORE_NET_BW_GBPS", "0", "CCORE_NET_BW_GBPS=0: expected the network's bandwidth per NIC direction in GB/s, a number above 0 and at most 1000000" },
		{ "CCORE_NET_BW_GBPS", "nan", "CCORE_NET_BW_GBPS=nan: expected" },
		{ "CCORE_NET_MEASURE", "yes", "CCORE_NET_MEASURE=yes: expected once (the first communicator across hosts measures the network), always or off" },
		/* 2^64 + 1G: refused, not wrapped to 1G */
		{ "CCORE_PAT_BUFFER", "17179869185G", "CCORE_PAT_BUFFER=17179869185G: expected bytes from 1 to 1T" },
		{ "CCORE_PAT_BUFFER", "18446744073709551616", "CCORE_PAT_BUFFER=18446744073709551616: expected bytes" },
	};
	struct ccore_plan_info info;
	struct tworld w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(bad[i].var, bad[i].val, 1);
		ASSERT_EQ(tworld_open(&w, 2, 2), -EINVAL);
		ASSERT_STR_CONTAINS(ccore_last_error(), bad[i].msg);
		unsetenv(bad[i].var);
	}
	/* good values change the model's prices */
	setenv("CCORE_TUNER_ALPHA_US", "1,2,3", 1);
	setenv("CCORE_TUNER_BW_GBPS", "10", 1);
	ASSERT_EQ(tworld_open(&w, 2, 2), 0);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 1 << 18, ccore_f32, &info), 0);
	ASSERT_GT(info.predicted_us, (1 << 20) / 10e3);
	setenv("CCORE_TUNER_IDEAL", "1", 1);
	setenv("CCORE_ALGO", "ring", 1);
	setenv("CCORE_SLICES", "1", 1);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 1000, ccore_f32, &info), 0);
	/* the reference's ring: 2(N-1)α + 2(N-1)/N M/BW with α 1 µs, 10 GB/s */
	ASSERT_US(info.predicted_us, 6 * 1 + 1.5 * 4000 / 10e3);
	ASSERT_EQ(info.slices, 1);
	setenv("CCORE_SLICES", "65", 1);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 1000, ccore_f32, &info), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_SLICES=65: expected a number from 1 to 64");
	unsetenv("CCORE_SLICES");
	/*
	 * PAT's staging buffer (4 ranks, M = 16000 bytes): its default makes
	 * it linear, (N-1)α + (N-1)/N M/BW; one that holds the largest message
	 * gives log2(N)α + (N-1)/N M/BW
	 */
	setenv("CCORE_ALGO", "pat", 1);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allgather, 1000, ccore_f32, &info), 0);
	ASSERT_US(info.predicted_us, 3 * 1 + 0.75 * 16000 / 10e3);
	setenv("CCORE_PAT_BUFFER", "1M", 1);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allgather, 1000, ccore_f32, &info), 0);
	ASSERT_US(info.predicted_us, 2 * 1 + 0.75 * 16000 / 10e3);
	for (size_t i = 0; i < 3; i++) {
		static const char *const v[] = { "0", "2T", "1X" };

		setenv("CCORE_PAT_BUFFER", v[i], 1);
		ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allgather, 1000, ccore_f32, &info),
			  -EINVAL);
		ASSERT_STR_CONTAINS(ccore_last_error(),
				    "expected bytes from 1 to 1T (K, M, G, T suffixes)");
	}
	unsetenv("CCORE_PAT_BUFFER");
	unsetenv("CCORE_ALGO");
	unsetenv("CCORE_TUNER_IDEAL");
	unsetenv("CCORE_TUNER_ALPHA_US");
	unsetenv("CCORE_TUNER_BW_GBPS");
	tworld_close(&w);
}

/* Predicted time of @algo among @info's candidates; -1 if it is not one. */
static double candidate_us(const struct ccore_plan_info *info, const char *algo)
{
	for (uint32_t c = 0; c < info->ncandidates; c++)
		if (!strcmp(info->candidates[c].algo, algo))
			return info->candidates[c].predicted_us;
	return -1;
}

/*
 * The functional model's time is the host's: every rank's agents run on a
 * few host threads, so single-step Mesh's N(N-1) messages cost more than
 * RDH's N log2 N there, although on the timed device (critical path) it
 * is the faster of the two for 8 bytes.
 */
TEST(functional_model_is_priced_by_host_work)
{
	struct ccore_plan_info host, dev;
	struct tworld w;

	setenv("CCORE_SIM", "timed=0", 1);
	ASSERT_EQ(tworld_open(&w, 2, 4), 0);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 2, ccore_f32, &host), 0);
	tworld_close(&w);
	setenv("CCORE_SIM", "timed=1,virtual=1", 1);
	ASSERT_EQ(tworld_open(&w, 2, 4), 0);
	ASSERT_EQ(ccore_plan_query(w.c[0], ccore_op_allreduce, 2, ccore_f32, &dev), 0);
	tworld_close(&w);
	unsetenv("CCORE_SIM");
	ccore_test_log("8 B AllReduce, 8 ranks: host work rdh %.2f us, mesh_oneshot %.2f us (chose %s); device rdh %.2f us, mesh_oneshot %.2f us (chose %s)",
		       candidate_us(&host, "rdh"), candidate_us(&host, "mesh_oneshot"), host.algo,
		       candidate_us(&dev, "rdh"), candidate_us(&dev, "mesh_oneshot"), dev.algo);
	ASSERT_TRUE(candidate_us(&host, "rdh") > 0 && candidate_us(&dev, "rdh") > 0);
	ASSERT_TRUE(candidate_us(&host, "mesh_oneshot") > candidate_us(&host, "rdh"));
	ASSERT_TRUE(candidate_us(&dev, "mesh_oneshot") < candidate_us(&dev, "rdh"));
	ASSERT_TRUE(strcmp(host.algo, "mesh_oneshot"));
	/* the chosen one is priced like its candidates, and is the cheapest */
	ASSERT_TRUE(host.predicted_us == host.candidates[0].predicted_us);
}

/*
 * Across hosts the functional model's host work prices each message
 * between nodes at the network's α (select.c): on 2 hosts x 4 ranks the
 * AllReduce that crosses between the leaders only wins up to the host
 * work's limit, where RDH's and hier's every-column crossings won before.
 * The same call on one host's fabric prices arrivals alike, wherever from.
 */
TEST(host_work_prices_messages_between_hosts_at_the_network_alpha)
{
	static const uint64_t counts[] = { 4, 64, 1024, 16384 };
	struct tune_hw hw;
	struct tune_topo t;

	tune_hw_default(&hw);
	hw.host = true;
	hw.alpha_us[TUNE_NET] = 40;
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		double one_host_us = 0;

		for (int across = 0; across < 2; across++) {
			struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = 8, .count = counts[i] };
			struct algo_opts o = { .ranks_per_device = 1, .ranks_per_node = 4 };
			struct select_choice ch;

			hw.across_hosts = across;
			tune_topo_from_hw(&t, 2, 4, 1, 1, &hw);
			ASSERT_EQ(select_algo(&sh, &t, 4, &o, &ch), 0);
			ccore_test_log("%llu elements, %s: %s, %.1f us", (unsigned long long)counts[i],
				       across ? "2 hosts" : "one host", ch.algo->name, ch.us);
			if (!across) {
				one_host_us = ch.us;
				continue;
			}
			ASSERT_EQ(strcmp(ch.algo->name, "hier-leaders"), 0);
			/* its two messages between the hosts' leaders, at least */
			ASSERT_TRUE(ch.us >= one_host_us + 2 * 40 - 1);
		}
	}
}
