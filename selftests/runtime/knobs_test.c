// SPDX-License-Identifier: GPL-2.0
/*
 * Every allowed knob value gives a working collective: a program that
 * does not fit CC-core memory is planned with fewer slices (or, for PAT, a
 * larger staging buffer) with a warning when the knob was the user's, and
 * a group whose fused program finds no room runs one job per collective.
 * The cases that failed (CCORE_SLICES=64 ring AllGather on 24 ranks,
 * CCORE_PAT_BUFFER=64 PAT ReduceScatter on 8, a Broadcast + AllToAll group
 * on 2x3x4 with 26 slices), then each knob at its extremes x every
 * algorithm x every collective at 8 and 24 ranks (2 nodes), every element
 * checked;
 * and values out of range name the variable.
 */
#include "timed_world.h"
#include "coll_call.h"
#include "ccore_verifiable.h"
#include "algos/algo.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const enum ccore_coll_op colls[] = {
	ccore_op_allreduce, ccore_op_allgather, ccore_op_reducescatter,
	ccore_op_alltoall, ccore_op_broadcast, ccore_op_reduce,
};

/* @op with @count elements (nccl's count) a rank, as timed_post() calls it. */
static struct coll_call call_of(enum ccore_coll_op op, size_t count)
{
	return (struct coll_call){ .op = op, .count = count, .dtype = ccore_f32, .redop = ccore_sum };
}

/* Fill every rank's inputs of @op with @count elements a rank. */
static void fill(struct timed_world *w, enum ccore_coll_op op, size_t count)
{
	struct coll_call c = call_of(op, count);

	for (int r = 0; r < w->n; r++)
		coll_call_fill(&c, r, w->n, ccore_mem_host(w->c[r], w->sb[r]));
}

static long check(struct timed_world *w, enum ccore_coll_op op, size_t count, int r)
{
	struct coll_call c = call_of(op, count);

	return coll_call_wrong(&c, r, w->n, ccore_mem_host(w->c[r], w->rb[r]));
}

/* @op of @count on every rank, run and checked; @what names the case. */
static void run(struct timed_world *w, enum ccore_coll_op op, size_t count, const char *what)
{
	fill(w, op, count);
	for (int r = 0; r < w->n; r++)
		if (timed_post(op, w->sb[r], w->rb[r], count, w->c[r]))
			FAIL("%s: rank %d: %s", what, r, ccore_last_error());
	for (int r = 0; r < w->n; r++)
		if (ccore_stream_sync(ccore_comm_stream(w->c[r])))
			FAIL("%s: sync of rank %d: %s", what, r, ccore_last_error());
	for (int r = 0; r < w->n; r++) {
		long bad = check(w, op, count, r);

		if (bad)
			FAIL("%s: rank %d has %ld elements wrong", what, r, bad);
	}
}

/*
 * @op of @count f32 elements a rank with knob @knob set to @value and
 * CCORE_ALGO=@algo, on @topo (buffers of @count elements for every rank),
 * run and checked; @what names the case.
 */
static void run_with_knob(const char *knob, const char *value, const char *algo,
			  const struct ccore_topology *topo, enum ccore_coll_op op, size_t count,
			  const char *what)
{
	struct timed_world w;
	uint32_t nranks = topo->nodes * topo->devices_per_node * topo->ranks_per_device;

	setenv(knob, value, 1);
	setenv("CCORE_ALGO", algo, 1);
	timed_world_open(&w, topo, "", count * 4 * nranks);
	run(&w, op, count, what);
	timed_world_close(&w);
	unsetenv(knob);
	unsetenv("CCORE_ALGO");
}

TEST(slices_64_ring_allgather_24_ranks)
{
	run_with_knob("CCORE_SLICES", "64", "ring", &(struct ccore_topology){ 1, 6, 4 },
		      ccore_op_allgather, 4096, "CCORE_SLICES=64 ring AllGather");
}

TEST(pat_buffer_64_reducescatter_8_ranks)
{
	run_with_knob("CCORE_PAT_BUFFER", "64", "pat", &(struct ccore_topology){ 1, 2, 4 },
		      ccore_op_reducescatter, 1000, "CCORE_PAT_BUFFER=64 PAT ReduceScatter");
}

/* The fused program has no room beside its plans': one job per collective. */
TEST(group_that_does_not_fit_runs_job_by_job)
{
	const size_t count = 1000;
	struct timed_world w;
	ccore_ptr a2a[24];

	setenv("CCORE_SLICES", "26", 1);
	unsetenv("CCORE_ALGO");
	timed_world_open(&w, &(struct ccore_topology){ 2, 3, 4 }, "", count * 4 * 24);
	for (int r = 0; r < w.n; r++) {
		ASSERT_EQ(ccore_mem_alloc(w.c[r], count * 4 * 24, &a2a[r]), 0);
		ccore_verifiable_fill(ccore_mem_host(w.c[r], w.sb[r]), count * w.n, ccore_f32,
				      ccore_sum, r, 0);
	}
	ASSERT_EQ(ccore_group_start(), 0);
	for (int r = 0; r < w.n; r++)
		ASSERT_EQ(ccore_broadcast(w.sb[r], w.rb[r], count, ccore_f32, 0, w.c[r], NULL), 0);
	for (int r = 0; r < w.n; r++)
		ASSERT_EQ(ccore_all_to_all(w.sb[r], a2a[r], count, ccore_f32, w.c[r], NULL), 0);
	if (ccore_group_end())
		FAIL("group: %s", ccore_last_error());
	for (int r = 0; r < w.n; r++) {
		const float *b = ccore_mem_host(w.c[r], a2a[r]);

		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w.c[r])), 0);
		ASSERT_EQ(ccore_verifiable_check_from(ccore_mem_host(w.c[r], w.rb[r]), count,
						      ccore_f32, ccore_sum, 0, 0), 0);
		for (int k = 0; k < w.n; k++)
			ASSERT_EQ(ccore_verifiable_check_from(b + k * count, count, ccore_f32,
							      ccore_sum, k, r * count), 0);
	}
	timed_world_close(&w);
	unsetenv("CCORE_SLICES");
}

/*
 * Each knob at its extremes, alone, x every algorithm serving each
 * collective x 8 and 24 ranks.  Knobs read at init get a world of their own.
 */
TEST(every_knob_at_its_extremes)
{
	static const char *const knobs[][2] = {
		{ "CCORE_SLICES", "1" },	{ "CCORE_SLICES", "64" },
		{ "CCORE_PAT_BUFFER", "1" },	{ "CCORE_PAT_BUFFER", "1T" },
		{ "CCORE_LOOPS", "0" },		{ "CCORE_LOOPS", "1" },
		{ "CCORE_STREAMS", "1" },	{ "CCORE_STREAMS", "2" },
		{ "CCORE_CC_DMA_PACKET_SIZE", "512" },
		{ "CCORE_DMA_PACKETIZATION_SIZE", "65536" },
	};
	static const struct {
		struct ccore_topology t;
		size_t count;
	} shapes[] = { { { 1, 2, 4 }, 1000 }, { { 2, 3, 4 }, 1000 } };
	struct ccore_plan_info info;
	char what[160];

	for (size_t k = 0; k < sizeof(knobs) / sizeof(knobs[0]); k++) {
		setenv(knobs[k][0], knobs[k][1], 1);
		for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
			struct timed_world w;

			timed_world_open(&w, &shapes[s].t, "", shapes[s].count * 4 * 24);
			for (size_t c = 0; c < sizeof(colls) / sizeof(colls[0]); c++)
				for (unsigned int a = 0; a < algo_count(); a++) {
					const struct algo *al = algo_at(a);

					if (!(al->colls & 1u << (colls[c] - ccore_op_allreduce)))
						continue;
					setenv("CCORE_ALGO", al->name, 1);
					/* shapes it does not take (hier on one node) */
					if (ccore_plan_query(w.c[0], colls[c], shapes[s].count,
							     ccore_f32, &info))
						continue;
					snprintf(what, sizeof(what), "%s=%s %s op %d on %d ranks",
						 knobs[k][0], knobs[k][1], al->name, colls[c], w.n);
					fill(&w, colls[c], shapes[s].count);
					run(&w, colls[c], shapes[s].count, what);
				}
			unsetenv("CCORE_ALGO");
			timed_world_close(&w);
		}
		unsetenv(knobs[k][0]);
	}
}

/* Out of range or garbage: the error names the variable. */
TEST(bad_knob_values_name_the_variable)
{
	static const char *const bad[][2] = {
		{ "CCORE_SLICES", "0" },	{ "CCORE_SLICES", "65" },
		{ "CCORE_SLICES", "lots" },	{ "CCORE_PAT_BUFFER", "0" },
		{ "CCORE_PAT_BUFFER", "2T" },	{ "CCORE_PAT_BUFFER", "x" },
		{ "CCORE_LOOPS", "2" },		{ "CCORE_STREAMS", "0" },
		{ "CCORE_STREAMS", "9" },	{ "CCORE_CC_DMA_PACKET_SIZE", "1" },
		{ "CCORE_DMA_PACKETIZATION_SIZE", "junk" },
	};
	struct ccore_topology t = { 1, 2, 4 };
	struct ccore_comm *c[8];

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		setenv(bad[k][0], bad[k][1], 1);
		if (ccore_comm_init_all(&t, c) != -EINVAL)
			FAIL("%s=%s was accepted", bad[k][0], bad[k][1]);
		ASSERT_STR_CONTAINS(ccore_last_error(), bad[k][0]);
		unsetenv(bad[k][0]);
	}
}

/*
 * A program that talks to every peer (pairwise AllToAll: per peer a
 * credit, a send, an arrival) grants its first credits by descriptor
 * when the ADDs would not fit; where no algorithm fits at all, the error
 * says what would.
 */
TEST(alltoall_too_large_for_cc_memory)
{
	struct timed_world w;

	setenv("CCORE_ALGO", "pairwise", 1);
	/* 24 ranks: about 100 instructions a rank, 77 with credits by descriptor */
	timed_world_open(&w, &(struct ccore_topology){ 1, 6, 4 }, "program_size=90",
			 100 * 4 * 24);
	run(&w, ccore_op_alltoall, 100, "pairwise AllToAll in 90 instructions");
	ASSERT_STR_CONTAINS(ccore_comm_last_algo(w.c[0]), "pairwise");
	timed_world_close(&w);
	/* in 64 neither pairwise nor Bruck fits */
	timed_world_open(&w, &(struct ccore_topology){ 1, 6, 4 }, "program_size=64",
			 100 * 4 * 24);
	fill(&w, ccore_op_alltoall, 100);
	for (int r = 0; r < w.n; r++) {
		int rc = timed_post(ccore_op_alltoall, w.sb[r], w.rb[r], 100, w.c[r]);

		ASSERT_EQ(rc, r == w.n - 1 ? -E2BIG : 0);
	}
	ASSERT_STR_CONTAINS(ccore_last_error(), "program_size");
	timed_world_close(&w);
	unsetenv("CCORE_ALGO");
}

/* Loop form at the most slices: its program too is cut to fit. */
TEST(loops_with_most_slices)
{
	struct timed_world w;

	setenv("CCORE_LOOPS", "1", 1);
	setenv("CCORE_SLICES", "64", 1);
	for (int a = 0; a < 2; a++) {
		setenv("CCORE_ALGO", a ? "hier" : "ring", 1);
		timed_world_open(&w, &(struct ccore_topology){ 2, 3, 4 }, "", 24 * 4096 * 4);
		run(&w, ccore_op_allreduce, 24 * 4096, a ? "hier loops" : "ring loops");
		timed_world_close(&w);
	}
	unsetenv("CCORE_ALGO");
	unsetenv("CCORE_SLICES");
	unsetenv("CCORE_LOOPS");
}

/*
 * Ring AllReduce of 314572 i64 in place (the reported case, from the
 * schedule): the tuner's slices are cut to fit, here in a CC-core memory
 * small enough that they must be.
 */
TEST(ring_allreduce_314572_i64_in_place)
{
	static const struct ccore_topology topos[] = { { 1, 2, 4 }, { 1, 6, 4 }, { 2, 3, 4 } };
	static const char *const sims[] = { "", "program_size=64" };
	const size_t count = 314572;

	setenv("CCORE_ALGO", "ring", 1);
	setenv("CCORE_LOOPS", "0", 1);
	for (size_t i = 0; i < 2 * sizeof(topos) / sizeof(topos[0]); i++) {
		struct timed_world w;

		timed_world_open(&w, &topos[i / 2], sims[i % 2], count * 8);
		for (int r = 0; r < w.n; r++)
			ccore_verifiable_fill(ccore_mem_host(w.c[r], w.sb[r]), count, ccore_i64,
					      ccore_sum, r, 0);
		for (int r = 0; r < w.n; r++)
			if (ccore_all_reduce(w.sb[r], w.sb[r], count, ccore_i64, ccore_sum, w.c[r],
					     NULL))
				FAIL("%d ranks: rank %d: %s", w.n, r, ccore_last_error());
		for (int r = 0; r < w.n; r++) {
			ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w.c[r])), 0);
			ASSERT_EQ(ccore_verifiable_check_reduced(ccore_mem_host(w.c[r], w.sb[r]),
								 count, ccore_i64, ccore_sum, w.n,
								 0), 0);
		}
		timed_world_close(&w);
	}
	unsetenv("CCORE_LOOPS");
	unsetenv("CCORE_ALGO");
}

/*
 * A call repeated with the knobs unchanged reuses its choice; any change
 * between repeats counts: set, changed, a variable added and removed
 * before it (the strings move), unset.  The memo compares where the
 * environment's strings are (plan/choose.c).
 */
TEST(a_knob_changed_between_repeats_changes_the_choice)
{
	static const struct {
		const char *set;	/* CCORE_ALGO, NULL: unset */
		const char *other;	/* another variable set, then removed */
		const char *want;	/* NULL: the tuner's own choice */
	} steps[] = {
		{ NULL, NULL, NULL },		{ "ring", NULL, "ring" },
		{ "ring", "KNOBS_TEST_OTHER", "ring" }, { "rdh", NULL, "rdh" },
		{ "rdh", "CCORE_KNOBS_TEST_UNKNOWN", "rdh" }, { "ring", NULL, "ring" },
		{ NULL, NULL, NULL },
	};
	struct ccore_topology t = { 1, 2, 2 };
	const size_t count = 64;
	struct timed_world w;
	char tuner[32] = "";

	unsetenv("CCORE_ALGO");
	timed_world_open(&w, &t, "", count * 4 * 4);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		for (int k = 0; k < 2; k++) {
			if (steps[i].set)
				setenv("CCORE_ALGO", steps[i].set, 1);
			else
				unsetenv("CCORE_ALGO");
			if (steps[i].other)
				setenv(steps[i].other, k ? "2" : "1", 1);
			run(&w, ccore_op_allreduce, count, "repeat");
			if (steps[i].other)
				unsetenv(steps[i].other);
			if (!tuner[0])
				snprintf(tuner, sizeof(tuner), "%s", ccore_comm_last_algo(w.c[0]));
			if (strcmp(ccore_comm_last_algo(w.c[0]), steps[i].want ? steps[i].want : tuner))
				FAIL("step %zu, repeat %d: %s ran, %s expected", i, k,
				     ccore_comm_last_algo(w.c[0]), steps[i].want ? steps[i].want : tuner);
		}
	}
	/* else the unset steps would prove nothing */
	ASSERT_TRUE(strcmp(tuner, "ring") && strcmp(tuner, "rdh"));
	timed_world_close(&w);
}
