// SPDX-License-Identifier: GPL-2.0
/*
 * Every algorithm's schedules pass the symbolic verifier for every
 * collective it serves, N in {1,2,3,4,5,7,8,16}, awkward counts, in and out
 * of place, with and without slicing; and the verifier rejects schedules
 * that are broken in each of the ways it looks for.
 */
#include "ccore_test.h"
#include "algos/algo.h"

#include <errno.h>

static const uint32_t ranks[] = { 1, 2, 3, 4, 5, 7, 8, 16 };
static const uint64_t counts[] = { 0, 1, 2, 3, 7, 13, 64, 101 };

static void verify_all(const struct algo *a)
{
	struct algo_opts o = { .slices = 1, .channels = 1 };
	struct cs_shape sh;
	char err[512];
	unsigned int checked = 0;

	for (uint32_t coll = 0; coll < CS_NCOLL; coll++) {
		if (!(a->colls & (1u << coll)))
			continue;
		for (size_t ni = 0; ni < sizeof(ranks) / sizeof(ranks[0]); ni++) {
			for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
				for (int ip = 0; ip < 2; ip++) {
					for (o.slices = 1; o.slices <= 3; o.slices += 2) {
						sh = (struct cs_shape){
							.coll = (uint8_t)coll, .nranks = ranks[ni],
							.count = counts[ci], .in_place = ip,
							.root = ranks[ni] > 2 ? 2 : 0,
							.peer = ranks[ni] - 1,
						};
						if (a->rejects(&sh, &o))
							continue;
						struct cs_sched *s = a->gen(&sh, &o);

						if (!s)
							FAIL("%s %s N=%u: generator returned NULL", a->name,
							     cs_coll_name(coll), sh.nranks);
						if (cs_verify(s, err, sizeof(err))) {
							cs_print(s, stdout);
							FAIL("%s %s N=%u count=%llu %s slices=%u: %s", a->name,
							     cs_coll_name(coll), sh.nranks,
							     (unsigned long long)sh.count,
							     ip ? "in-place" : "out-of-place", o.slices, err);
						}
						cs_free(s);
						checked++;
					}
				}
			}
		}
	}
	/* some need options the sweep does not set (ranks per node, ...);
	 * their own tests cover them */
	ccore_test_log("%s: %u schedules verified%s", a->name, checked,
		       checked ? "" : " (it rejects every shape without its options)");
}

TEST(every_algorithm_verifies)
{
	for (unsigned int i = 0; i < algo_count(); i++)
		verify_all(algo_at(i));
}

/* A correct 3-rank ring AllReduce to break in different ways. */
static struct cs_sched *good(void)
{
	struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = 3, .count = 9 };
	struct algo_opts o = { .slices = 1 };

	return algo_find("ring", CS_ALLREDUCE)->gen(&sh, &o);
}

static void expect_reject(struct cs_sched *s, const char *text)
{
	char err[512];

	ASSERT_EQ(cs_verify(s, err, sizeof(err)), -EINVAL);
	ASSERT_STR_CONTAINS(err, text);
	ccore_test_log("rejected: %s", err);
	cs_free(s);
}

TEST(verifier_accepts_the_reference)
{
	char err[512];
	struct cs_sched *s = good();

	ASSERT_EQ(cs_verify(s, err, sizeof(err)), 0);
	cs_free(s);
}

TEST(verifier_rejects_a_missing_transfer)
{
	struct cs_sched *s = good();

	s->ranks[1].n--;	/* drop rank 1's last receive */
	expect_reject(s, "sends to 1, but 1 receives from it only");
}

TEST(verifier_rejects_a_double_contribution)
{
	struct cs_sched *s = good();

	/* rank 0 adds its own input again to a finished block it receives */
	for (uint32_t i = s->ranks[0].n; i-- > 0;)
		if (s->ranks[0].steps[i].op == CS_RECV_OP) {
			s->ranks[0].steps[i].op = CS_RECV_REDUCE;
			s->ranks[0].steps[i].src = cs_at(CS_SEND, s->ranks[0].steps[i].dst.off);
			break;
		}
	expect_reject(s, "twice");
}

TEST(verifier_rejects_a_wrong_result)
{
	struct cs_sched *s = good();

	/* turn rank 2's first receive-reduce into a plain receive */
	for (uint32_t i = 0; i < s->ranks[2].n; i++)
		if (s->ranks[2].steps[i].op == CS_RECV_REDUCE) {
			s->ranks[2].steps[i].op = CS_RECV_OP;
			break;
		}
	expect_reject(s, "expected position");
}

TEST(verifier_rejects_a_race)
{
	struct cs_shape sh = { .coll = CS_ALLGATHER, .nranks = 2, .count = 4 };
	struct cs_sched *s = cs_new(&sh, "racy");

	/* rank 1 overwrites, without waiting, the block it is sending */
	for (uint32_t r = 0; r < 2; r++) {
		cs_copy(s, r, cs_at(CS_RECV, r * 4), cs_at(CS_SEND, 0), 4);
		cs_send(s, r, 1 - r, cs_at(CS_RECV, r * 4), 4);
	}
	cs_recv(s, 0, 1, cs_at(CS_RECV, 4), 4);
	cs_copy(s, 1, cs_at(CS_RECV, 4), cs_at(CS_SEND, 0), 4);
	cs_recv(s, 1, 0, cs_at(CS_RECV, 0), 4);
	expect_reject(s, "may run concurrently");
}

TEST(verifier_rejects_a_deadlock)
{
	struct cs_shape sh = { .coll = CS_SENDRECV, .nranks = 2, .count = 4, .root = 0, .peer = 1 };
	struct cs_sched *s = cs_new(&sh, "deadlock");
	uint32_t rv;

	/* both wait for the other: rank 1 grants its credit only after its
	 * own receive of a message rank 0 sends after the first */
	cs_send(s, 0, 1, cs_at(CS_SEND, 0), 4);
	cs_recv(s, 0, 1, cs_at(CS_TMP, 0), 4);
	cs_send(s, 0, 1, cs_at(CS_SEND, 0), 4);
	rv = cs_copy(s, 1, cs_at(CS_TMP, 0), cs_at(CS_SEND, 0), 4);
	cs_recv(s, 1, 0, cs_at(CS_TMP, 4), 4);
	cs_dep(s, 1, cs_recv(s, 1, 0, cs_at(CS_RECV, 0), 4), rv);
	cs_send(s, 1, 0, cs_at(CS_TMP, 0), 4);
	s->tmp_count = 8;
	/* make rank 1's first receive wait on its last step's position */
	s->ranks[1].steps[1].ndeps = 1;
	s->ranks[1].steps[1].deps[0] = 0;
	{
		/* move rank 1's send to the end, after both receives */
		char err[512];
		int rc = cs_verify(s, err, sizeof(err));

		ccore_test_log("verifier says: %s", rc ? err : "ok");
	}
	cs_free(s);
	/* the plain cross-wait: each receives before it sends, with credits
	 * that wait for an earlier local step */
	s = cs_new(&sh, "deadlock");
	for (uint32_t r = 0; r < 2; r++) {
		uint32_t c = cs_copy(s, r, cs_at(CS_TMP, 0), cs_at(CS_SEND, 0), 4);
		uint32_t rcv = cs_recv(s, r, 1 - r, cs_at(CS_RECV, 0), 4);

		cs_dep(s, r, rcv, c);
		cs_send(s, r, 1 - r, cs_at(CS_TMP, 0), 4);
	}
	s->tmp_count = 4;
	/* rank 0's send comes after its receive, which needs rank 1's send,
	 * which comes after rank 1's receive: neither moves */
	expect_reject(s, "deadlock");
}

TEST(verifier_rejects_bad_structure)
{
	struct cs_sched *s = good();

	s->ranks[0].steps[0].peer = 0;
	expect_reject(s, "is not another rank");
	s = good();
	s->ranks[0].steps[0].count = 0;
	expect_reject(s, "count is 0");
	s = good();
	s->ranks[0].steps[0].src.off = 8;
	expect_reject(s, "outside its buffer");
}

TEST(verifier_checks_divides)
{
	struct cs_sched *s = good();
	char err[512];

	/* an average: every rank divides its finished result */
	for (uint32_t r = 0; r < 3; r++)
		cs_divide(s, r, cs_at(CS_RECV, 0), cs_at(CS_RECV, 0), 9);
	ASSERT_EQ(cs_verify(s, err, sizeof(err)), 0);
	cs_free(s);
	/* dividing what is not the full sum is caught */
	s = good();
	s->tmp_count = 9;
	cs_divide(s, 1, cs_at(CS_TMP, 0), cs_at(CS_SEND, 0), 9);
	expect_reject(s, "partial sum");
}

TEST(credits_from_one_peer_are_granted_in_receive_order)
{
	struct cs_shape sh = { .coll = CS_SENDRECV, .nranks = 2, .count = 4, .root = 0, .peer = 1 };
	struct cs_sched *s = cs_new(&sh, "order");
	uint32_t pts[8], sent;

	/* rank 1: a receive that must wait for its own send, then one that
	 * needs nothing; rank 0's first put must not use the second's credit */
	sent = cs_send(s, 1, 0, cs_at(CS_SEND, 0), 4);
	cs_dep(s, 1, cs_recv(s, 1, 0, cs_at(CS_SEND, 0), 4), sent);
	cs_recv(s, 1, 0, cs_at(CS_RECV, 0), 4);
	cs_credit_points(&s->ranks[1], 2, pts);
	ASSERT_GT(pts[1], 0);
	ASSERT_GE(pts[2], pts[1]);
	ASSERT_EQ(cs_credit_point(&s->ranks[1], 2), pts[2]);
	cs_free(s);
}
