// SPDX-License-Identifier: GPL-2.0
/*
 * Repeats in the schedule IR (runtime/sched/cs_repeat.c) and the
 * verifier's rolled checks (cs_verify_rolled.c): ring AllReduce rolled
 * into repeats is, written out, exactly ring's schedule, step by step,
 * for every rank count, slicing and layout; at 1024 ranks, 1 GiB and 64
 * slices (268 million steps unrolled) it verifies in well under a second;
 * a send that no receive grants a credit (a receive dropped from one
 * rank's repeat body) is named by rank, step, iteration and peer; and the
 * other faults a repeat can carry are rejected, each with what is wrong.
 */
#include "ccore_test.h"
#include "algos/algo.h"

#include <errno.h>
#include <string.h>
#include <time.h>

static struct cs_sched *rolled(uint32_t n, uint64_t count, uint32_t slices, bool in_place)
{
	struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = n, .count = count,
			       .in_place = in_place };
	struct algo_opts o = { .slices = slices, .channels = 1 };
	struct cs_sched *s = ring_gen_rolled(&sh, &o);

	if (!s || cs_unusable(s))
		FAIL("N=%u count %llu: %s", n, (unsigned long long)count, cs_unusable(s));
	return s;
}

static bool same_ref(struct cs_ref a, struct cs_ref b)
{
	return a.buf == b.buf && a.off == b.off;
}

/* Step @i of rank @r of @x (unrolled) and @g (ring's) alike, in what the op uses. */
static void assert_same_step(const struct cs_sched *x, const struct cs_sched *g, uint32_t r,
			     uint32_t i)
{
	const struct cs_step *a = &x->ranks[r].steps[i], *b = &g->ranks[r].steps[i];

	if (a->op != b->op || a->count != b->count || a->ndeps != b->ndeps ||
	    (a->op >= CS_SEND_OP && a->op <= CS_RECV_REDUCE && a->peer != b->peer) ||
	    (cs_op_writes_dst(a->op) && !same_ref(a->dst, b->dst)) ||
	    (cs_op_reads_src(a->op) && !same_ref(a->src, b->src)))
		FAIL("N=%u rank %u step %u differs from ring's: op %u/%u count %llu/%llu peer %u/%u dst %llu/%llu src %llu/%llu",
		     x->shape.nranks, r, i, a->op, b->op, (unsigned long long)a->count,
		     (unsigned long long)b->count, a->peer, b->peer,
		     (unsigned long long)a->dst.off, (unsigned long long)b->dst.off,
		     (unsigned long long)a->src.off, (unsigned long long)b->src.off);
	for (uint32_t d = 0; d < a->ndeps; d++)
		if (a->deps[d] != b->deps[d] || a->dep_iter[d] || b->dep_iter[d])
			FAIL("N=%u rank %u step %u: depends on %u, ring's on %u", x->shape.nranks,
			     r, i, a->deps[d], b->deps[d]);
}

TEST(rolled_ring_allreduce_is_ring_written_out)
{
	static const uint32_t slicings[] = { 1, 2, 3, 7 };
	const struct algo *ring = algo_find("ring", CS_ALLREDUCE);
	unsigned int shapes = 0;
	uint64_t templates = 0, steps = 0;
	char err[512];

	ASSERT_TRUE(ring != NULL);
	for (uint32_t n = 2; n <= 12; n++)
		for (size_t sl = 0; sl < sizeof(slicings) / sizeof(slicings[0]); sl++)
			for (uint64_t per = 1; per <= 13; per += 4)
				for (int ip = 0; ip < 2; ip++) {
					struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = n,
							       .count = per * n, .in_place = ip };
					struct algo_opts o = { .slices = slicings[sl], .channels = 1 };
					struct cs_sched *s = rolled(n, per * n, slicings[sl], ip);
					struct cs_sched *g = ring->gen(&sh, &o);
					struct cs_sched *x = cs_expand(s);

					ASSERT_TRUE(g && x && !cs_unusable(x));
					if (n >= 4)
						ASSERT_TRUE(cs_has_repeats(s));
					if (cs_verify(s, err, sizeof(err)))
						FAIL("N=%u count %llu slices %u: %s", n,
						     (unsigned long long)per * n, slicings[sl], err);
					for (uint32_t r = 0; r < n; r++) {
						ASSERT_EQ(x->ranks[r].n, g->ranks[r].n);
						ASSERT_U64_EQ(cs_unrolled_steps(&s->ranks[r]),
							      g->ranks[r].n);
						for (uint32_t i = 0; i < g->ranks[r].n; i++)
							assert_same_step(x, g, r, i);
						templates += s->ranks[r].n;
						steps += g->ranks[r].n;
					}
					cs_free(s);
					cs_free(g);
					cs_free(x);
					shapes++;
				}
	ccore_test_log("%u shapes: %llu templates write out to ring's %llu steps", shapes,
		       (unsigned long long)templates, (unsigned long long)steps);
}

/* Shapes it does not roll (blocks of unequal size) are ring's schedule as is. */
TEST(unequal_blocks_stay_unrolled)
{
	struct cs_sched *s = rolled(5, 5 * 7 + 2, 2, false);
	char err[512];

	ASSERT_FALSE(cs_has_repeats(s));
	ASSERT_EQ(cs_verify(s, err, sizeof(err)), 0);
	cs_free(s);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* 1 GiB of f32 over 1024 ranks in 64 slices, as ccore-bench's ring runs it. */
#define BIG_N 1024u
#define BIG_COUNT (1ull << 28)
#define BIG_SLICES 64u

TEST(a_big_ring_verifies_rolled)
{
	double t0 = now_s(), gen_s, verify_s;
	struct cs_sched *s = rolled(BIG_N, BIG_COUNT, BIG_SLICES, false);
	uint64_t steps = 0, templates = 0;
	char err[512];

	gen_s = now_s() - t0;
	for (uint32_t r = 0; r < BIG_N; r++) {
		steps += cs_unrolled_steps(&s->ranks[r]);
		templates += s->ranks[r].n;
	}
	/* per rank and slice, a send and a receive per hop */
	ASSERT_U64_EQ(steps, (uint64_t)BIG_N * BIG_SLICES * 2 * (2 * BIG_N - 2));
	ASSERT_LE(templates, (uint64_t)BIG_N * 10 * 2 * BIG_SLICES);
	t0 = now_s();
	if (cs_verify(s, err, sizeof(err)))
		FAIL("%s", err);
	verify_s = now_s() - t0;
	ccore_test_log("%llu steps rolled into %llu templates: generated in %.3f s, verified in %.3f s",
		       (unsigned long long)steps, (unsigned long long)templates, gen_s, verify_s);
	/* unrolled, generating alone took seconds (and gigabytes) */
	ASSERT_LT(verify_s, 5.0);
	cs_free(s);
}

/* Rank @r's first repeat of more than one iteration. */
static struct cs_repeat *long_repeat(const struct cs_sched *s, uint32_t r)
{
	for (uint32_t i = 0; i < s->ranks[r].nreps; i++)
		if (s->ranks[r].reps[i].times > 1)
			return &s->ranks[r].reps[i];
	FAIL("rank %u: no repeat of more than one iteration", r);
	return NULL;
}

/* The first receive in that repeat's body. */
static uint32_t first_body_recv(const struct cs_sched *s, uint32_t r, const struct cs_repeat **rp)
{
	const struct cs_rank *rk = &s->ranks[r];

	*rp = long_repeat(s, r);
	for (uint32_t t = (*rp)->first; t < (*rp)->first + (*rp)->len; t++)
		if (rk->steps[t].op == CS_RECV_REDUCE || rk->steps[t].op == CS_RECV_OP)
			return t;
	FAIL("rank %u: no receive in its repeat", r);
	return 0;
}

/*
 * A credit missing from a loop plan: one receive of a repeat body on rank
 * 5 made a local reduce, so 5 grants rank 4 one credit fewer per
 * iteration; rank 4's send that finds none is named.
 */
TEST(a_missing_credit_in_a_repeat_is_named)
{
	struct cs_sched *s = rolled(BIG_N, BIG_COUNT, BIG_SLICES, true);
	const struct cs_repeat *rp;
	uint32_t t = first_body_recv(s, 5, &rp);
	struct cs_step *st = &s->ranks[5].steps[t];
	const struct cs_rank *r4 = &s->ranks[4];
	uint32_t last = r4->n - 1;
	char err[512], want[256];

	while (r4->steps[last].op != CS_SEND_OP)
		last--;
	st->op = CS_REDUCE;
	st->src2 = st->dst;
	ASSERT_EQ(cs_verify(s, err, sizeof(err)), -EINVAL);
	ccore_test_log("%s", err);
	/* 5 receives from 4 rp->times fewer than 4 sends it, so rank 4's sends
	 * go without a credit from its (rp->times)-th last on */
	ASSERT_STR_CONTAINS(err, "rank 4 step ");
	ASSERT_STR_CONTAINS(err, "sends to 5, which grants it no credit");
	snprintf(want, sizeof(want), "5 receives from 4 only %llu times",
		 (unsigned long long)((uint64_t)BIG_SLICES * (2 * BIG_N - 2) - rp->times));
	ASSERT_STR_CONTAINS(err, want);
	cs_free(s);
}

/*
 * The same small enough to count: N = 8, one slice, out of place.  Rank
 * 1's first long repeat runs hops 2..6, so it receives 9 times from rank
 * 0, which sends 14: rank 0's 10th send, hop 9, is the first without a
 * credit -- its step 10 (hop 0 one send; hops 1, 2..6, 7, 8 and 9 a
 * receive and a send each), iteration 0 of a repeat of one.
 */
TEST(a_missing_credit_names_rank_step_iteration_and_peer)
{
	struct cs_sched *s = rolled(8, 8 * 4, 1, false);
	const struct cs_repeat *rp;
	uint32_t t = first_body_recv(s, 1, &rp);
	char err[512];

	s->ranks[1].steps[t].op = CS_REDUCE;
	s->ranks[1].steps[t].src2 = s->ranks[1].steps[t].dst;
	ASSERT_EQ(cs_verify(s, err, sizeof(err)), -EINVAL);
	ccore_test_log("%s", err);
	ASSERT_EQ(rp->times, 5);
	ASSERT_STR_CONTAINS(err, "rank 0 step 10 iteration 0 sends to 1, which grants it no credit: 1 receives from 0 only 9 times");
	cs_free(s);
}

/* A credit that waits for an iteration that never runs. */
TEST(a_dependency_on_an_iteration_that_does_not_run_is_rejected)
{
	struct cs_sched *s = rolled(8, 8 * 4, 2, false);
	struct cs_rank *rk = &s->ranks[3];
	char err[512];
	bool done = false;

	for (uint32_t t = 0; t < rk->n && !done; t++)
		if (rk->steps[t].ndeps && cs_repeat_of(rk, rk->steps[t].deps[0]) &&
		    cs_repeat_of(rk, rk->steps[t].deps[0])->times > 1) {
			rk->steps[t].dep_iter[0] += 100;
			done = true;
		}
	ASSERT_TRUE(done);
	ASSERT_EQ(cs_verify(s, err, sizeof(err)), -EINVAL);
	ccore_test_log("%s", err);
	ASSERT_STR_CONTAINS(err, "rank 3 step ");
	ASSERT_STR_CONTAINS(err, "which runs ");
	cs_free(s);
}

static void expect_reject(struct cs_sched *s, const char *text)
{
	char err[512];

	ASSERT_EQ(cs_verify(s, err, sizeof(err)), -EINVAL);
	ccore_test_log("rejected: %s", err);
	ASSERT_STR_CONTAINS(err, text);
	cs_free(s);
}

TEST(a_stride_past_the_buffer_names_the_iteration)
{
	struct cs_sched *s = rolled(1024, 1024 * 16, 2, false);

	long_repeat(s, 7)->stride[CS_RECV] *= 2;
	expect_reject(s, "rank 7 step ");
}

TEST(iterations_that_touch_the_same_elements_are_rejected)
{
	struct cs_sched *s = rolled(1024, 1024 * 16, 2, false);

	/* every iteration reduces into the same block */
	long_repeat(s, 9)->stride[CS_RECV] = 0;
	expect_reject(s, "rank 9: step ");
}

TEST(a_peer_stride_onto_itself_is_rejected)
{
	struct cs_sched *s = rolled(16, 16 * 4, 1, false);

	long_repeat(s, 2)->peer_stride = 1;
	expect_reject(s, "is not another rank");
}

TEST(bad_repeats_are_unusable)
{
	struct cs_shape sh = { .coll = CS_ALLGATHER, .nranks = 2, .count = 4 };
	struct cs_sched *s = cs_new(&sh, "test");

	cs_copy(s, 0, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), 4);
	cs_repeat(s, 0, 1, 2, NULL, 0);
	ASSERT_STR_CONTAINS(cs_unusable(s), "empty body");
	cs_free(s);
	s = cs_new(&sh, "test");
	cs_copy(s, 0, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), 4);
	cs_repeat(s, 0, 0, 1, NULL, 0);
	cs_copy(s, 0, cs_at(CS_RECV, 4), cs_at(CS_SEND, 0), 4);
	cs_repeat(s, 0, 0, 1, NULL, 0);
	ASSERT_STR_CONTAINS(cs_unusable(s), "inside the one before");
	cs_free(s);
}

/*
 * Peer strides: AllGather with every rank sending its input straight to
 * each other rank, r + 1 + k at iteration k, and receiving from r - 1 - k
 * (two repeats: the block it lands in wraps at 0).  Verified rolled and
 * written out (postcondition included); a stride that skips a peer not.
 */
static struct cs_sched *direct_allgather(uint32_t n, uint64_t c, int32_t send_stride)
{
	struct cs_shape sh = { .coll = CS_ALLGATHER, .nranks = n, .count = c };
	struct cs_sched *s = cs_new(&sh, "direct");

	for (uint32_t r = 0; r < n; r++) {
		int64_t down[CS_NBUF] = { 0, -(int64_t)c, 0 };
		uint32_t at;

		cs_copy(s, r, cs_at(CS_RECV, r * c), cs_at(CS_SEND, 0), c);
		at = cs_send(s, r, (r + 1) % n, cs_at(CS_SEND, 0), c);
		cs_repeat(s, r, at, n - 1, NULL, send_stride);
		/* from r-1-k into block r-1-k: down to block 0, then from n-1 */
		if (r) {
			at = cs_recv(s, r, r - 1, cs_at(CS_RECV, (r - 1) * c), c);
			cs_repeat(s, r, at, r, down, -1);
		}
		if (r < n - 1) {
			at = cs_recv(s, r, n - 1, cs_at(CS_RECV, (n - 1) * c), c);
			cs_repeat(s, r, at, n - 1 - r, down, -1);
		}
	}
	return s;
}

TEST(peer_strides)
{
	char err[512];

	for (uint32_t n = 2; n <= 9; n++) {
		struct cs_sched *s = direct_allgather(n, 3, 1);

		if (cs_verify(s, err, sizeof(err)))
			FAIL("N=%u: %s", n, err);
		cs_free(s);
	}
	/* by 2 over 6 ranks: to r+1, r+3, r+5 twice, never r+2 or r+4 */
	expect_reject(direct_allgather(6, 3, 2), "receives from");
}

/*
 * A fixed iteration: direct AllGather whose second run of receives (from
 * n-1 down) every one waits for the last receive of the first run, as a
 * phase's credits wait for the phase before.  Written out, each of those
 * receives depends on that one step; it verifies; naming an iteration the
 * first run does not have, or one of its own run, is rejected.
 */
static struct cs_sched *phased_allgather(uint32_t n, uint32_t r, uint32_t iter, bool own)
{
	struct cs_sched *s = direct_allgather(n, 3, 1);
	struct cs_rank *rk = &s->ranks[r];
	uint32_t first = rk->reps[1].first, second = rk->reps[2].first;

	cs_dep_fixed(s, r, second, own ? second : first, iter);
	return s;
}

TEST(a_fixed_iteration_of_another_repeat)
{
	const uint32_t n = 6, r = 2;
	struct cs_sched *s = phased_allgather(n, r, r - 1, false), *x;
	char err[512];

	ASSERT_EQ(cs_verify(s, err, sizeof(err)), 0);
	x = cs_expand(s);
	ASSERT_TRUE(x && !cs_unusable(x));
	/* copy, n-1 sends, r receives, then the n-1-r that wait for the last of them */
	for (uint32_t i = 1 + (n - 1) + r; i < x->ranks[r].n; i++) {
		ASSERT_EQ(x->ranks[r].steps[i].ndeps, 1);
		ASSERT_EQ(x->ranks[r].steps[i].deps[0], (n - 1) + r);
	}
	cs_free(x);
	cs_free(s);
	expect_reject(phased_allgather(n, r, r, false), "which runs 2 times");
	expect_reject(phased_allgather(n, r, 0, true), "not of another repeat");
	s = phased_allgather(n, r, r, false);
	x = cs_expand(s);
	ASSERT_STR_CONTAINS(cs_unusable(x), "iteration that does not exist");
	cs_free(x);
	cs_free(s);
	s = phased_allgather(n, r, 0, true);
	x = cs_expand(s);
	ASSERT_STR_CONTAINS(cs_unusable(x), "of its own");
	cs_free(x);
	cs_free(s);
}
