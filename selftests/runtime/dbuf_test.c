// SPDX-License-Identifier: GPL-2.0
/*
 * Double-buffered scratch across hosts (runtime/plan/plan.h, the implied
 * credits of runtime/lower/lower.c): a plan whose runs alternate between
 * two halves of its scratch lets a sender on another host put without a
 * credit, up to one run ahead of its receiver.  Nodes of one fabric stand
 * for hosts here (plan_stage_nodes_for_test), so every launch runs on the
 * sim without a network.
 *
 * Each case posts a seeded sequence of in-place AllReduces of several
 * plans -- double-buffered and not, the same plan back to back and plans
 * interleaved on one stream, in groups and alone -- without waiting
 * between them, then checks every element against the host's arithmetic:
 * i32 sums wrap, and each run's result is the next run's input, so a run
 * that read the other half, or data not there yet, shows in the end.  The
 * sums start odd and a plan runs at most MAX_RUNS times, so no run's
 * result is 0 or a power's wrap-around of the one before.  The sim runs
 * its agents inline in an order drawn from a seed (CCORE_SIM workers=0):
 * with one scratch half for both images (the bug this guards against)
 * every seed tried failed.
 */
#include "ccore_test.h"
#include "ccore.h"
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 8
#define MAX_COUNT 64
#define RUNS 48		/* launches of a sequence */
#define MAX_RUNS 10	/* of one plan: n^10 times an odd sum is not 0 mod 2^32 for n <= 8 */

/* One plan of the sequence: its call, the algorithm forced (NULL: the tuner's), its buffer. */
struct slot {
	uint64_t count;
	const char *algo;
	ccore_ptr buf[MAX_RANKS];
	uint32_t want[MAX_RANKS][MAX_COUNT];	/* the host's model of each rank's buffer */
};

static struct slot slots[] = {
	{ .count = 2, .algo = "hier" }, { .count = 3 }, { .count = 2, .algo = "rdh" },
	{ .count = 64 }, { .count = 5, .algo = "ring" }, { .count = 1, .algo = "mesh_oneshot" },
};

#define NSLOTS (sizeof(slots) / sizeof(slots[0]))

static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Launch @sl on every rank, and run the model. */
static void launch(struct ccore_comm **c, uint32_t n, struct slot *sl)
{
	uint32_t sum[MAX_COUNT] = { 0 };

	if (sl->algo)
		setenv("CCORE_ALGO", sl->algo, 1);
	else
		unsetenv("CCORE_ALGO");
	for (uint32_t r = 0; r < n; r++)
		if (ccore_all_reduce(sl->buf[r], sl->buf[r], sl->count, ccore_i32, ccore_sum, c[r],
				     ccore_comm_stream(c[r])))
			FAIL("allreduce of %llu (%s) on rank %u: %s", (unsigned long long)sl->count,
			     sl->algo ? sl->algo : "the tuner's", r, ccore_last_error());
	for (uint32_t r = 0; r < n; r++)
		for (uint64_t e = 0; e < sl->count; e++)
			sum[e] += sl->want[r][e];
	for (uint32_t r = 0; r < n; r++)
		memcpy(sl->want[r], sum, sl->count * sizeof(*sum));
}

static void run_sequence(const struct ccore_topology *topo, uint32_t seed)
{
	uint32_t n = topo->nodes * topo->devices_per_node * topo->ranks_per_device, rng = seed;
	struct ccore_comm *c[MAX_RANKS];
	unsigned long dbuf_before = plans_double_buffered;
	uint32_t launched[NSLOTS] = { 0 };

	ASSERT_TRUE(n <= MAX_RANKS);
	if (ccore_comm_init_all(topo, c))
		FAIL("init: %s", ccore_last_error());
	for (size_t k = 0; k < NSLOTS; k++)
		for (uint32_t r = 0; r < n; r++) {
			uint32_t *host;

			if (ccore_mem_alloc(c[r], MAX_COUNT * sizeof(uint32_t), &slots[k].buf[r]))
				FAIL("alloc: %s", ccore_last_error());
			host = ccore_mem_host(c[r], slots[k].buf[r]);
			/* rank 0's one more makes every sum odd */
			for (uint32_t e = 0; e < MAX_COUNT; e++)
				host[e] = slots[k].want[r][e] = 2 * (131 * r + 7 * e + 1000 * k) + !r;
		}
	for (uint32_t runs = 0; runs < RUNS;) {
		size_t k = next_rand(&rng) % NSLOTS;
		uint32_t again = 1 + next_rand(&rng) % 3;	/* back to back */
		bool grouped = next_rand(&rng) % 4 == 0;

		if (launched[k] + again > MAX_RUNS)
			continue;
		if (grouped)
			ccore_group_start();
		for (uint32_t j = 0; j < again; j++, launched[k]++, runs++)
			launch(c, n, &slots[k]);
		if (grouped && ccore_group_end())
			FAIL("group of %u: %s", again, ccore_last_error());
	}
	for (uint32_t r = 0; r < n; r++)
		if (ccore_stream_sync(ccore_comm_stream(c[r])))
			FAIL("sync rank %u: %s", r, ccore_last_error());
	unsetenv("CCORE_ALGO");
	for (size_t k = 0; k < NSLOTS; k++)
		for (uint32_t r = 0; r < n; r++) {
			const uint32_t *host = ccore_mem_host(c[r], slots[k].buf[r]);

			for (uint64_t e = 0; e < slots[k].count; e++)
				if (host[e] != slots[k].want[r][e])
					FAIL("%u nodes x %u x %u, CCORE_SIM=%s, seed %u: allreduce of %llu (%s), after %u runs: rank %u element %llu is 0x%x, want 0x%x",
					     topo->nodes, topo->devices_per_node, topo->ranks_per_device,
					     getenv("CCORE_SIM"), seed, (unsigned long long)slots[k].count,
					     slots[k].algo ? slots[k].algo : "the tuner's", launched[k], r,
					     (unsigned long long)e, host[e], slots[k].want[r][e]);
		}
	ccore_test_log("%u nodes x %u devices x %u ranks, seed %u: %lu plans double-buffered",
		       topo->nodes, topo->devices_per_node, topo->ranks_per_device, seed,
		       plans_double_buffered - dbuf_before);
	ASSERT_GT(plans_double_buffered - dbuf_before, 0);
	for (uint32_t r = 0; r < n; r++)
		ccore_comm_destroy(c[r]);
}

TEST(double_buffered_plans_repeat_and_interleave_exactly)
{
	static const struct ccore_topology topos[] = { { 2, 1, 4 }, { 2, 2, 2 }, { 3, 1, 2 } };
	char sim[64];

	plan_stage_nodes_for_test = true;
	for (size_t t = 0; t < sizeof(topos) / sizeof(topos[0]); t++)
		for (uint32_t seed = 1; seed <= 8; seed++) {
			/* the last on the sim's worker threads, the others inline in a seeded order */
			snprintf(sim, sizeof(sim), seed < 8 ? "workers=0,seed=%u" : "workers=2",
				 seed);
			setenv("CCORE_SIM", sim, 1);
			run_sequence(&topos[t], seed * 2654435761u);
		}
	unsetenv("CCORE_SIM");
	plan_stage_nodes_for_test = false;
}
