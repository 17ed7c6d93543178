// SPDX-License-Identifier: GPL-2.0
/*
 * Ring AllReduce in loop form (ring_gen_rolled(), lower_loops.c): the results are
 * right for every rank count, slice count (empty slices included), buffer
 * layout, dtype and operator, over repeated runs of one cached plan; the
 * shapes it does not take go through the schedule; and on the timed model
 * it takes the time the lowered schedule takes, with a program and rings
 * whose size does not grow with N.
 */
#include "ccore_test.h"
#include "timed_world.h"
#include "ccore.h"

#include <stdbool.h>
#include <stdint.h>

/* A world on the functional sim: transfers both inside devices and across them. */
static void open_world(struct timed_world *w, uint32_t n, size_t bytes)
{
	struct ccore_topology t = { 1, n % 2 ? n : 2, n % 2 ? 1 : n / 2 };

	timed_world_open(w, &t, "", bytes);
}

/* Exact in every dtype used here: small integers. */
static int64_t input(uint32_t r, uint64_t i, uint32_t iter)
{
	return (int64_t)((r * 7 + i * 3 + iter * 5) % 23) - 11;
}

static int64_t expected(uint32_t n, uint64_t i, uint32_t iter, enum ccore_redop op)
{
	int64_t v = input(0, i, iter);

	for (uint32_t r = 1; r < n; r++) {
		int64_t x = input(r, i, iter);

		v = op == ccore_sum ? v + x : op == ccore_max ? (x > v ? x : v) : (x < v ? x : v);
	}
	return v;
}

static void put_elem(void *p, enum ccore_dtype dt, uint64_t i, int64_t v)
{
	if (dt == ccore_f32)
		((float *)p)[i] = (float)v;
	else
		((int32_t *)p)[i] = (int32_t)v;
}

static int64_t get_elem(const void *p, enum ccore_dtype dt, uint64_t i)
{
	return dt == ccore_f32 ? (int64_t)((const float *)p)[i] : ((const int32_t *)p)[i];
}

struct case_ {
	const char *algo;
	uint32_t n, slices;
	uint64_t count;
	enum ccore_dtype dt;
	enum ccore_redop op;
	bool in_place;
};

/* Runs @x @iters times on the same buffers; returns ccore_plan_timing.loops. */
static uint32_t run_case(struct timed_world *w, const struct case_ *x, uint32_t iters)
{
	uint32_t n = (uint32_t)w->n;
	struct ccore_plan_timing pt;
	char slices[16];
	int rc = 0;

	snprintf(slices, sizeof(slices), "%u", x->slices);
	setenv("CCORE_ALGO", x->algo ? x->algo : "ring", 1);
	setenv("CCORE_SLICES", slices, 1);
	for (uint32_t it = 0; it < iters; it++) {
		for (uint32_t r = 0; r < n; r++) {
			void *s = ccore_mem_host(w->c[r], x->in_place ? w->rb[r] : w->sb[r]);

			memset(ccore_mem_host(w->c[r], w->rb[r]), 0x5c, x->count * 4 + 64);
			for (uint64_t i = 0; i < x->count; i++)
				put_elem(s, x->dt, i, input(r, i, it));
		}
		rc = ccore_group_start();
		for (uint32_t r = 0; r < n && !rc; r++)
			rc = ccore_all_reduce(x->in_place ? w->rb[r] : w->sb[r], w->rb[r], x->count,
					      x->dt, x->op, w->c[r], NULL);
		rc = rc ?: ccore_group_end();
		for (uint32_t r = 0; r < n && !rc; r++)
			rc = ccore_stream_sync(ccore_comm_stream(w->c[r]));
		if (rc)
			FAIL("N=%u slices %u count %llu: %s", x->n, x->slices,
			     (unsigned long long)x->count, ccore_last_error());
		for (uint32_t r = 0; r < n; r++) {
			const void *o = ccore_mem_host(w->c[r], w->rb[r]);

			for (uint64_t i = 0; i < x->count; i++)
				if (get_elem(o, x->dt, i) != expected(n, i, it, x->op))
					FAIL("N=%u slices %u count %llu %s, run %u: rank %u element %llu is %lld, expected %lld",
					     x->n, x->slices, (unsigned long long)x->count,
					     x->in_place ? "in place" : "out of place", it, r,
					     (unsigned long long)i, (long long)get_elem(o, x->dt, i),
					     (long long)expected(n, i, it, x->op));
			/* nothing past the result */
			if (((const uint8_t *)o)[x->count * 4] != 0x5c)
				FAIL("N=%u: rank %u wrote past its %llu elements", x->n, r,
				     (unsigned long long)x->count);
		}
	}
	unsetenv("CCORE_ALGO");
	unsetenv("CCORE_SLICES");
	if (ccore_comm_plan_timing(w->c[0], &pt))
		FAIL("plan timing: %s", ccore_last_error());
	return pt.loops;
}

TEST(every_rank_count_slicing_and_layout)
{
	static const uint32_t ranks[] = { 2, 3, 4, 5, 8 };
	static const uint32_t slicings[] = { 1, 2, 3, 7 };
	unsigned int runs = 0;

	for (size_t a = 0; a < sizeof(ranks) / sizeof(ranks[0]); a++) {
		struct timed_world w;

		open_world(&w, ranks[a], 1 << 16);
		for (size_t b = 0; b < sizeof(slicings) / sizeof(slicings[0]); b++)
			for (int ip = 0; ip < 2; ip++) {
				/* 5 per block: 7 slices leave two empty */
				struct case_ x = { NULL, ranks[a], slicings[b], 5ull * ranks[a],
						   ccore_f32, ccore_sum, ip };

				ASSERT_EQ(run_case(&w, &x, 3), 1);
				x.count = 1000ull * ranks[a];
				ASSERT_EQ(run_case(&w, &x, 2), 1);
				runs += 5;
			}
		timed_world_close(&w);
	}
	ccore_test_log("%u AllReduce runs in loop form, every element checked", runs);
}

TEST(every_operator_and_integer_dtype)
{
	static const enum ccore_redop ops[] = { ccore_sum, ccore_max, ccore_min };
	struct timed_world w;

	open_world(&w, 4, 1 << 16);
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		for (int dt = 0; dt < 2; dt++) {
			struct case_ x = { NULL, 4, 2, 4 * 300, dt ? ccore_i32 : ccore_f32, ops[k],
					   k == 1 };

			ASSERT_EQ(run_case(&w, &x, 2), 1);
		}
	timed_world_close(&w);
}

/*
 * What the loop form does not take runs from the schedule, as right; under
 * CCORE_VERIFY the loop form stays, its schedule of repeats verified.
 */
TEST(other_shapes_go_through_the_schedule)
{
	struct timed_world w;
	struct case_ uneven = { NULL, 5, 2, 5 * 100 + 3, ccore_f32, ccore_sum, false };
	struct case_ even = { NULL, 5, 2, 5 * 100, ccore_i32, ccore_max, true };

	open_world(&w, 5, 1 << 16);
	ASSERT_EQ(run_case(&w, &uneven, 2), 0);
	setenv("CCORE_VERIFY", "1", 1);
	ASSERT_EQ(run_case(&w, &even, 2), 1);
	unsetenv("CCORE_VERIFY");
	even.count += 5;	/* a new plan: the last one is cached */
	ASSERT_EQ(run_case(&w, &even, 1), 1);
	even.count += 5;
	setenv("CCORE_LOOPS", "0", 1);
	ASSERT_EQ(run_case(&w, &even, 1), 0);
	unsetenv("CCORE_LOOPS");
	timed_world_close(&w);
}

/*
 * Hierarchical AllReduce in loop form (hier_gen_rolled()), forced with
 * CCORE_LOOPS=1 at sizes where auto keeps the schedule: nodes of 2, 3 and
 * 4 ranks (a reduce-scatter of one fixed ring, of two), 2 and 3 nodes,
 * slices that leave some empty, both layouts; a count with a leftover
 * goes through the schedule.
 */
TEST(hierarchical_in_loop_form)
{
	static const struct ccore_topology topos[] = { { 2, 1, 2 }, { 3, 1, 3 }, { 2, 2, 2 } };
	unsigned int runs = 0;

	for (size_t a = 0; a < sizeof(topos) / sizeof(topos[0]); a++) {
		uint32_t g = topos[a].devices_per_node * topos[a].ranks_per_device;
		struct timed_world w;

		timed_world_open(&w, &topos[a], "", 1 << 16);
		for (uint32_t sl = 1; sl <= 5; sl += 2)
			for (int ip = 0; ip < 2; ip++) {
				/* parts of 2 elements per node: 5 slices leave three empty */
				struct case_ x = { "hier", w.n, sl, (uint64_t)g * topos[a].nodes * 2,
						   ccore_f32, ccore_sum, ip };

				setenv("CCORE_LOOPS", "1", 1);
				ASSERT_EQ(run_case(&w, &x, 2), 1);
				x.count = (uint64_t)g * topos[a].nodes * 100;
				x.op = ccore_max;
				ASSERT_EQ(run_case(&w, &x, 2), 1);
				unsetenv("CCORE_LOOPS");
				/* auto: a schedule this small is cheap to plan */
				x.count += (uint64_t)g * topos[a].nodes;
				ASSERT_EQ(run_case(&w, &x, 1), 0);
				runs += 5;
			}
		setenv("CCORE_LOOPS", "1", 1);
		{
			struct case_ left = { "hier", w.n, 2, (uint64_t)g * 50 + 1, ccore_f32,
					      ccore_sum, false };

			ASSERT_EQ(run_case(&w, &left, 1), 0);
		}
		unsetenv("CCORE_LOOPS");
		timed_world_close(&w);
	}
	ccore_test_log("%u hierarchical AllReduce runs, every element checked", runs);
}

TEST(bad_loops_value_is_an_error)
{
	struct ccore_topology t = { 1, 1, 2 };
	struct ccore_comm *c[2];

	setenv("CCORE_LOOPS", "yes", 1);
	ASSERT_NE(ccore_comm_init_all(&t, c), 0);
	ASSERT_STR_CONTAINS(ccore_last_error(),
			    "CCORE_LOOPS=yes: expected 0 (lower every collective from its schedule), 1 (loop form wherever it fits) or auto");
	unsetenv("CCORE_LOOPS");
}

/* --- timed model ------------------------------------------------------------ */

static double timed_us(struct timed_world *w, size_t bytes, bool schedule,
		       struct ccore_plan_timing *pt)
{
	uint64_t t0 = timed_world_now_ps(w);
	int rc;

	setenv("CCORE_LOOPS", schedule ? "0" : "1", 1);
	rc = ccore_group_start();
	for (int r = 0; r < w->n && !rc; r++)
		rc = ccore_all_reduce(w->sb[r], w->rb[r], bytes / 4, ccore_f32, ccore_sum,
				      w->c[r], NULL);
	rc = rc ?: ccore_group_end();
	for (int r = 0; r < w->n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->c[r]));
	unsetenv("CCORE_LOOPS");
	if (rc || ccore_comm_plan_timing(w->c[0], pt))
		FAIL("timed AllReduce: %s", ccore_last_error());
	return (double)(timed_world_now_ps(w) - t0) / 1e6;
}

/* The same AllReduce on two fresh fabrics, from the schedule and in loop form. */
static void timed_pair(const char *algo, const struct ccore_topology *t, size_t bytes,
		       uint32_t slices, double *t_sched, double *t_loop,
		       struct ccore_plan_timing *sp, struct ccore_plan_timing *lp, int *n)
{
	struct timed_world w;
	char sl[16];

	snprintf(sl, sizeof(sl), "%u", slices);
	setenv("CCORE_ALGO", algo, 1);
	setenv("CCORE_SLICES", sl, 1);
	timed_world_open(&w, t, "timed=1,virtual=1", bytes);
	*t_sched = timed_us(&w, bytes, true, sp);
	timed_world_close(&w);
	timed_world_open(&w, t, "timed=1,virtual=1", bytes);
	*t_loop = timed_us(&w, bytes, false, lp);
	*n = w.n;
	timed_world_close(&w);
	unsetenv("CCORE_ALGO");
	unsetenv("CCORE_SLICES");
	ccore_test_log("%s N=%d %zu bytes, %u slices: schedule %.3f us (%llu instructions, %llu descriptors), loop form %.3f us (%llu, %llu)",
		       algo, *n, bytes, slices, *t_sched, (unsigned long long)sp->insns,
		       (unsigned long long)sp->descs, *t_loop, (unsigned long long)lp->insns,
		       (unsigned long long)lp->descs);
	ASSERT_EQ(sp->loops, 0);
	ASSERT_EQ(lp->loops, 1);
}

struct timed_case {
	struct ccore_topology t;
	size_t bytes;
	uint32_t slices;
};

/*
 * @algo's @n cases from the schedule and in loop form: the loop form no
 * more than @slower (a fraction) slower, nor @faster faster.
 */
static void timed_cases(const char *algo, const struct timed_case *c, size_t n, double slower,
			double faster, bool small_programs)
{
	for (size_t k = 0; k < n; k++) {
		struct ccore_plan_timing lp, sp;
		double t_loop, t_sched;
		int ranks;

		timed_pair(algo, &c[k].t, c[k].bytes, c[k].slices, &t_sched, &t_loop, &sp, &lp,
			   &ranks);
		if (t_loop > t_sched * (1 + slower) || t_loop < t_sched * (1 - faster))
			FAIL("%s N=%d: loop form %.3f us, schedule %.3f us (%+.3f%%)", algo, ranks,
			     t_loop, t_sched, (t_loop / t_sched - 1) * 100);
		if (!small_programs)
			continue;
		ASSERT_LE(lp.insns, (uint64_t)ranks * (64 + 32 * c[k].slices));
		ASSERT_LE(lp.descs, (uint64_t)ranks * 3 * 4 * 2 * c[k].slices);
		ASSERT_GT(sp.descs, (uint64_t)ranks * 2 * (ranks - 1) * c[k].slices);
	}
}

/*
 * Ring: the loop form takes the schedule's time (its per-phase counters
 * let puts of different rings land in any order, so nothing waits that
 * the schedule's program does not); its program and rings stay a few
 * dozen entries per rank while the schedule's grow with N.
 */
TEST(timed_like_the_schedule_with_programs_that_do_not_grow)
{
	static const struct timed_case cases[] = {
		{ { 2, 4, 2 }, 4u << 20, 1 },
		{ { 2, 4, 4 }, 8u << 20, 4 },
		{ { 4, 4, 4 }, 1u << 20, 2 },
	};

	timed_cases("ring", cases, sizeof(cases) / sizeof(cases[0]), 0.001, 0.001, true);
}

/*
 * Hierarchical: the loop form runs its phases one after the other where
 * the schedule overlaps them slice by slice at the seams, so it may take
 * a little longer -- at most 5% here, the tuner's margin.
 */
TEST(timed_hierarchical_close_to_the_schedule)
{
	static const struct timed_case cases[] = {
		{ { 4, 4, 4 }, 64u << 20, 2 },
		{ { 2, 4, 4 }, 8u << 20, 1 },
	};

	timed_cases("hier", cases, sizeof(cases) / sizeof(cases[0]), 0.05, 0.001, false);
}
