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
 * plans (selftests/lib/dbuf_seq.h) -- double-buffered and not, the same
 * plan back to back and plans interleaved on one stream, in groups and
 * alone -- without waiting between them, then checks every element
 * against the host's model of the sequence.  The sim runs
 * its agents inline in an order drawn from a seed (CCORE_SIM workers=0):
 * with one scratch half for both images (the bug this guards against)
 * every seed tried failed.
 */
#include "ccore_test.h"
#include "ccore.h"
#include "dbuf_seq.h"
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 8

/* Each plan's buffer per rank, and the host's model of it (dbuf_seq.h). */
static ccore_ptr bufs[DBUF_SLOTS][MAX_RANKS];
static uint32_t want[DBUF_SLOTS][MAX_RANKS][DBUF_COUNT];

/* Launch plan @k on every rank, and run the model. */
static void launch(struct ccore_comm **c, uint32_t n, uint32_t k)
{
	const struct dbuf_slot *sl = &dbuf_slots[k];

	if (sl->algo)
		setenv("CCORE_ALGO", sl->algo, 1);
	else
		unsetenv("CCORE_ALGO");
	for (uint32_t r = 0; r < n; r++)
		if (ccore_all_reduce(bufs[k][r], bufs[k][r], sl->count, ccore_i32, ccore_sum, c[r],
				     ccore_comm_stream(c[r])))
			FAIL("allreduce of %llu (%s) on rank %u: %s", (unsigned long long)sl->count,
			     sl->algo ? sl->algo : "the tuner's", r, ccore_last_error());
	dbuf_model_run(want[k], n, sl->count);
}

static void run_sequence(const struct ccore_topology *topo, uint32_t seed)
{
	uint32_t n = topo->nodes * topo->devices_per_node * topo->ranks_per_device, rng = seed;
	struct ccore_comm *c[MAX_RANKS];
	unsigned long dbuf_before = plans_double_buffered;
	uint32_t launched[DBUF_SLOTS] = { 0 }, runs = 0;
	struct dbuf_pick pick;

	ASSERT_TRUE(n <= MAX_RANKS);
	if (ccore_comm_init_all(topo, c))
		FAIL("init: %s", ccore_last_error());
	for (uint32_t k = 0; k < DBUF_SLOTS; k++)
		for (uint32_t r = 0; r < n; r++) {
			uint32_t *host;

			if (ccore_mem_alloc(c[r], DBUF_COUNT * sizeof(uint32_t), &bufs[k][r]))
				FAIL("alloc: %s", ccore_last_error());
			host = ccore_mem_host(c[r], bufs[k][r]);
			for (uint32_t e = 0; e < DBUF_COUNT; e++)
				host[e] = want[k][r][e] = dbuf_initial(r, e, k);
		}
	while (runs < DBUF_RUNS && dbuf_next(&rng, launched, &pick)) {
		if (pick.grouped)
			ccore_group_start();
		for (uint32_t j = 0; j < pick.again; j++, launched[pick.slot]++, runs++)
			launch(c, n, pick.slot);
		if (pick.grouped && ccore_group_end())
			FAIL("group of %u: %s", pick.again, ccore_last_error());
	}
	for (uint32_t r = 0; r < n; r++)
		if (ccore_stream_sync(ccore_comm_stream(c[r])))
			FAIL("sync rank %u: %s", r, ccore_last_error());
	unsetenv("CCORE_ALGO");
	for (uint32_t k = 0; k < DBUF_SLOTS; k++)
		for (uint32_t r = 0; r < n; r++) {
			const struct dbuf_slot *sl = &dbuf_slots[k];
			const uint32_t *host = ccore_mem_host(c[r], bufs[k][r]);

			for (uint64_t e = 0; e < sl->count; e++)
				if (host[e] != want[k][r][e])
					FAIL("%u nodes x %u x %u, CCORE_SIM=%s, seed %u: allreduce of %llu (%s), after %u runs: rank %u element %llu is 0x%x, want 0x%x",
					     topo->nodes, topo->devices_per_node, topo->ranks_per_device,
					     getenv("CCORE_SIM"), seed, (unsigned long long)sl->count,
					     sl->algo ? sl->algo : "the tuner's", launched[k], r,
					     (unsigned long long)e, host[e], want[k][r][e]);
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
