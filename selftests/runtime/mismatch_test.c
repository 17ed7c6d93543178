// SPDX-License-Identifier: GPL-2.0
/*
 * Ranks that disagree: every field a collective's ranks must agree on
 * (collective, count, dtype, redop, root, in place; Send/Recv:
 * count and dtype) fails the call that completes the set with -EINVAL and
 * a message naming the field with both ranks' values.  Functional sim, 2
 * and 4 ranks, the last rank differing.
 */
#include "ccore_test.h"
#include "ccore.h"
#include "timed_world.h"
#include "coll_call.h"

#include <errno.h>
#include <stdbool.h>

#define BUF 4096
#define MAXN 4

/* @n ranks on one device (functional sim), each with a stream id 1 */
struct world {
	struct timed_world t;
	struct ccore_stream *s1[MAXN];
};

static void open_world(struct world *w, uint32_t n)
{
	timed_world_open(&w->t, &(struct ccore_topology){ 1, 1, n }, "", BUF);
	for (uint32_t r = 0; r < n; r++)
		if (ccore_stream_create(w->t.c[r], 1, &w->s1[r]))
			FAIL("stream: %s", ccore_last_error());
}

static void close_world(struct world *w)
{
	for (int r = 0; r < w->t.n; r++)
		ASSERT_EQ(ccore_stream_destroy(w->s1[r]), 0);
	timed_world_close(&w->t);
}

/* What one rank calls. */
struct call {
	enum ccore_coll_op op;
	size_t count;
	enum ccore_dtype dt;
	enum ccore_redop redop;
	int root;
	bool stream1;		/* on stream id 1, not the default */
	bool in_place;
};

static int post(const struct world *w, uint32_t r, const struct call *c)
{
	struct coll_call cc = {
		.op = c->op, .count = c->count, .dtype = c->dt, .redop = c->redop, .root = c->root,
		.in_place = c->in_place,
	};
	ccore_ptr send, recv;

	coll_call_ptrs(&cc, (int)r, w->t.sb[r], w->t.rb[r], &send, &recv);
	return coll_call_post(&cc, (int)r, w->t.n, send, recv, w->t.c[r],
			      c->stream1 ? w->s1[r] : NULL);
}

/* Ranks 0..n-2 call @same, the last @odd: that call fails naming @field. */
static void expect_mismatch(const struct world *w, struct call same, struct call odd,
			    const char *field)
{
	uint32_t last = w->t.n - 1;
	int rc;

	for (uint32_t r = 0; r < last; r++)
		ASSERT_EQ(post(w, r, &same), 0);
	rc = post(w, last, &odd);
	if (rc != -EINVAL)
		FAIL("rank %u differing in %s: returned %d, expected -EINVAL (%s)", last, field, rc,
		     ccore_last_error());
	ASSERT_STR_CONTAINS(ccore_last_error(), field);
	for (int r = 0; r < w->t.n; r++)
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w->t.c[r])), 0);
}

static void every_field(uint32_t n)
{
	const struct call base = { ccore_op_allreduce, 16, ccore_f32, ccore_sum, 0, false, false };
	char want[128];
	struct world w;
	struct call c;
	uint32_t last = n - 1;

	open_world(&w, n);
	c = base;
	c.op = ccore_op_allgather;
	c.redop = 0;
	snprintf(want, sizeof(want), "collective (rank 0: allreduce, rank %u: allgather)", last);
	expect_mismatch(&w, base, c, want);
	snprintf(want, sizeof(want), "redop (rank 0: sum, rank %u: none)", last);
	expect_mismatch(&w, base, c, want);
	c = base;
	c.count = 17;
	snprintf(want, sizeof(want), "differing: count (rank 0: 16, rank %u: 17);", last);
	expect_mismatch(&w, base, c, want);
	c = base;
	c.dt = ccore_i32;
	snprintf(want, sizeof(want), "differing: dtype (rank 0: f32, rank %u: i32);", last);
	expect_mismatch(&w, base, c, want);
	/* the redop was compared but not named */
	for (int op = ccore_prod; op <= ccore_avg; op++) {
		c = base;
		c.redop = (enum ccore_redop)op;
		snprintf(want, sizeof(want), "differing: redop (rank 0: sum, rank %u: %s);", last,
			 ccore_redop_name((enum ccore_redop)op));
		expect_mismatch(&w, base, c, want);
	}
	c = base;
	c.op = ccore_op_reduce;
	c.root = 1;
	snprintf(want, sizeof(want), "differing: root (rank 0: 0, rank %u: 1);", last);
	expect_mismatch(&w, (struct call){ .op = ccore_op_reduce, .count = 16, .dt = ccore_f32, .redop = ccore_sum }, c, want);
	/* a stream id is not a field to differ in: collectives are matched per
	 * stream id (threads_test covers a rank that posts on another one) */
	/* two fields at once: both named */
	c = base;
	c.count = 8;
	c.redop = ccore_max;
	snprintf(want, sizeof(want), "count (rank 0: 16, rank %u: 8), redop (rank 0: sum, rank %u: max)",
		 last, last);
	expect_mismatch(&w, base, c, want);
	/* in place on some ranks only: found when the set launches */
	c = base;
	c.in_place = true;
	snprintf(want, sizeof(want), "allreduce: in place differs (rank 0: out of place, send 0x%llx, recv 0x%llx; rank %u: in place, send 0x%llx, recv 0x%llx)",
		 (unsigned long long)w.t.sb[0], (unsigned long long)w.t.rb[0], last,
		 (unsigned long long)w.t.rb[last], (unsigned long long)w.t.rb[last]);
	expect_mismatch(&w, base, c, want);
	c = (struct call){ .op = ccore_op_allgather, .count = 16, .dt = ccore_f32, .in_place = true };
	expect_mismatch(&w, c, (struct call){ .op = ccore_op_allgather, .count = 16, .dt = ccore_f32 },
			"allgather: in place differs (rank 0: in place");
	ASSERT_STR_CONTAINS(ccore_last_error(), "in place is send == recv + rank x count elements");
	/* nothing disagreeing was left posted: a valid collective runs */
	timed_world_allreduce_runs(&w.t, base.count);
	close_world(&w);
}

TEST(collective_mismatches_name_the_field_on_2_ranks)
{
	every_field(2);
}

TEST(collective_mismatches_name_the_field_on_4_ranks)
{
	every_field(4);
}

TEST(send_recv_mismatches_name_the_field)
{
	struct world w;

	open_world(&w, 2);
	ASSERT_EQ(ccore_send(w.t.sb[0], 16, ccore_f32, 1, w.t.c[0], NULL), 0);
	ASSERT_EQ(ccore_recv(w.t.rb[1], 12, ccore_f32, 0, w.t.c[1], NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "send 0->1 of 16 f32 does not match the receive of 12 f32; differing: count (rank 0: 16, rank 1: 12)");
	ASSERT_EQ(ccore_recv(w.t.rb[0], 16, ccore_u8, 1, w.t.c[0], NULL), 0);
	ASSERT_EQ(ccore_send(w.t.sb[1], 16, ccore_i8, 0, w.t.c[1], NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "differing: dtype (rank 1: i8, rank 0: u8)");
	/* the pair was dropped: a matching pair runs */
	ASSERT_EQ(ccore_send(w.t.sb[0], 16, ccore_f32, 1, w.t.c[0], NULL), 0);
	ASSERT_EQ(ccore_recv(w.t.rb[1], 16, ccore_f32, 0, w.t.c[1], NULL), 0);
	for (uint32_t r = 0; r < 2; r++)
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w.t.c[r])), 0);
	close_world(&w);
}
