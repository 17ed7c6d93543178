// SPDX-License-Identifier: MIT
/*
 * One thread per rank, as a single-process user drives ccore: each thread
 * posts its own rank's collectives and syncs its own stream, with no
 * barrier between iterations.  Every element of every result is checked.
 *
 * The random cases draw the collective, count, dtype, redop, root, in-place
 * or not, single call or group, send/recv, a second stream and a split
 * communicator from one seed that every thread shares; between rounds the
 * main thread changes CCORE_ALGO's order of preference, so every algorithm
 * that can serve a call gets its turn.  THREADS_TEST_ITERS sets the
 * iterations per round (default below), THREADS_TEST_SEED the seed.
 *
 * Also here: a peer that never posts makes ccore_stream_sync() fail with
 * -ETIMEDOUT naming the collective and the missing rank, and the stream
 * still completes once it posts; a launch that fails reaches every rank's
 * stream, not only the thread that launched.
 */
#include "ccore.h"
#include "ccore_test.h"
#include "ccore_verifiable.h"
#include "coll_call.h"
#include "algos/algo.h"
#include "sched/cs.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 8
#define BUF_BYTES (256u << 10)

#if defined(__SANITIZE_THREAD__)
#define DEFAULT_ITERS 600	/* ThreadSanitizer runs everything ~10x slower */
#else
#define DEFAULT_ITERS 2000
#endif

struct world {
	uint32_t n;
	struct ccore_comm *c[MAX_RANKS];
	struct ccore_comm *half[MAX_RANKS];	/* split by rank parity */
	struct ccore_stream *s1[MAX_RANKS];	/* a second stream per rank */
	ccore_ptr sb[MAX_RANKS], rb[MAX_RANKS];	/* stream 0's buffers */
	ccore_ptr sb1[MAX_RANKS], rb1[MAX_RANKS];	/* the second stream's */
};

static void world_open(struct world *w, const struct ccore_topology *t)
{
	int color[MAX_RANKS], key[MAX_RANKS];

	memset(w, 0, sizeof(*w));
	w->n = t->nodes * t->devices_per_node * t->ranks_per_device;
	if (ccore_comm_init_all(t, w->c))
		FAIL("init %ux%ux%u: %s", t->nodes, t->devices_per_node, t->ranks_per_device,
		     ccore_last_error());
	for (uint32_t r = 0; r < w->n; r++) {
		if (ccore_mem_alloc(w->c[r], BUF_BYTES, &w->sb[r]) ||
		    ccore_mem_alloc(w->c[r], BUF_BYTES, &w->rb[r]) ||
		    ccore_mem_alloc(w->c[r], BUF_BYTES, &w->sb1[r]) ||
		    ccore_mem_alloc(w->c[r], BUF_BYTES, &w->rb1[r]) ||
		    ccore_stream_create(w->c[r], 1, &w->s1[r]))
			FAIL("alloc: %s", ccore_last_error());
		color[r] = (int)(r % 2);
		key[r] = (int)r;
	}
	if (ccore_comm_split(w->c, (int)w->n, color, key, w->half))
		FAIL("split: %s", ccore_last_error());
}

static void world_close(struct world *w)
{
	for (uint32_t r = 0; r < w->n; r++) {
		ASSERT_EQ(ccore_comm_destroy(w->half[r]), 0);
		ASSERT_EQ(ccore_stream_destroy(w->s1[r]), 0);
	}
	for (uint32_t r = 0; r < w->n; r++)
		ASSERT_EQ(ccore_comm_destroy(w->c[r]), 0);
}

/* --- what an iteration does ------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

enum kind { K_SINGLE, K_GROUP, K_SENDRECV, K_STREAMS, K_SPLIT, K_KINDS };

struct call {
	uint8_t coll;
	uint64_t count;
	enum ccore_dtype dt;
	enum ccore_redop op;
	uint32_t root;
	bool in_place;
};

struct iter {
	enum kind kind;
	struct call a, b;	/* b: the group's or the second stream's */
};

static void draw_call(uint64_t *x, uint32_t n, struct call *c)
{
	static const uint64_t counts[] = { 0, 1, 2, 7, 64, 333, 1024, 4097 };
	static const uint8_t colls[] = { CS_ALLREDUCE, CS_ALLGATHER, CS_REDUCESCATTER,
					 CS_ALLTOALL, CS_BROADCAST, CS_REDUCE_COLL };

	*x = mix(*x);
	c->coll = colls[*x % 6];
	c->count = counts[(*x >> 8) % 8];
	c->dt = (enum ccore_dtype)(1 + (*x >> 16) % 10);
	c->op = (enum ccore_redop)(1 + (*x >> 24) % 5);
	c->root = (uint32_t)((*x >> 32) % n);
	c->in_place = (*x >> 40) & 1;
	/* every rank's part of the largest must fit the buffers */
	while (c->count * n * ccore_dtype_size(c->dt) > BUF_BYTES)
		c->count /= 2;
}

static void draw(uint64_t seed, uint32_t i, uint32_t n, struct iter *it)
{
	uint64_t x = mix(seed ^ ((uint64_t)i << 20));

	it->kind = (enum kind)(x % K_KINDS);
	draw_call(&x, n, &it->a);
	draw_call(&x, n, &it->b);
	if (it->kind == K_SPLIT) {
		/* on a half of the ranks: odd ranks are one fewer when n is odd */
		it->a.root %= n / 2;
		it->a.in_place = false;
	}
	if (it->kind == K_GROUP)
		it->b.in_place = it->a.in_place = false;
}

/* --- one rank's part ------------------------------------------------------------ */

struct rank_ctx {
	struct world *w;
	uint32_t r;
	uint64_t seed;
	uint32_t iters;
	uint32_t stream;	/* 2 threads per rank: 0 or 1, the stream it drives */
	bool per_stream;
	const struct call *fixed;	/* every iteration this call, alone */
	long wrong;
	char err[768];
};

/* @c as the call each rank makes (enum cs_coll is enum ccore_coll_op's order, from 0) */
static struct coll_call call_of(const struct call *c)
{
	return (struct coll_call){
		.op = (enum ccore_coll_op)(ccore_op_allreduce + c->coll), .count = c->count,
		.dtype = c->dt, .redop = c->op, .root = (int)c->root, .in_place = c->in_place,
	};
}

static void fill(struct ccore_comm *comm, const struct call *c, uint32_t r, uint32_t n,
		 ccore_ptr sb, ccore_ptr rb)
{
	struct coll_call cc = call_of(c);
	ccore_ptr s, rv;

	coll_call_ptrs(&cc, (int)r, sb, rb, &s, &rv);
	memset(ccore_mem_host(comm, rb), 0x5c, BUF_BYTES);
	coll_call_fill(&cc, (int)r, (int)n, ccore_mem_host(comm, s));
}

static int post(struct ccore_comm *comm, struct ccore_stream *st, const struct call *c,
		uint32_t r, uint32_t n, ccore_ptr sb, ccore_ptr rb)
{
	struct coll_call cc = call_of(c);
	ccore_ptr s, rv;

	coll_call_ptrs(&cc, (int)r, sb, rb, &s, &rv);
	return coll_call_post(&cc, (int)r, (int)n, s, rv, comm, st);
}

/* Wrong elements of rank @r's result of @c over @n ranks. */
static long check(struct ccore_comm *comm, const struct call *c, uint32_t r, uint32_t n,
		  ccore_ptr sb, ccore_ptr rb)
{
	struct coll_call cc = call_of(c);
	ccore_ptr s, rv;

	coll_call_ptrs(&cc, (int)r, sb, rb, &s, &rv);
	return coll_call_wrong(&cc, (int)r, (int)n, ccore_mem_host(comm, rv));
}

static bool failed(struct rank_ctx *x, const char *what, uint32_t i, int rc)
{
	if (!rc)
		return false;
	snprintf(x->err, sizeof(x->err), "rank %u iteration %u: %s: %d: %s", x->r, i, what, rc,
		 ccore_last_error());
	return true;
}

static bool wrong(struct rank_ctx *x, uint32_t i, const char *what, long bad,
		  const struct call *c)
{
	if (!bad)
		return false;
	x->wrong += bad;
	snprintf(x->err, sizeof(x->err),
		 "rank %u iteration %u (%s): %s count %llu %s %s root %u %s: %ld wrong elements",
		 x->r, i, what, cs_coll_name(c->coll), (unsigned long long)c->count,
		 ccore_dtype_name(c->dt), ccore_redop_name(c->op), c->root,
		 c->in_place ? "in place" : "out of place", bad);
	return true;
}

/* One iteration of rank x->r; false when it failed (x->err says why). */
static bool rank_iter(struct rank_ctx *x, uint32_t i)
{
	struct world *w = x->w;
	uint32_t r = x->r, n = w->n;
	struct ccore_comm *c = w->c[r];
	struct iter it;
	int rc = 0;

	draw(x->seed, i, n, &it);
	if (x->fixed) {
		it.kind = K_SINGLE;
		it.a = *x->fixed;
	}
	switch (it.kind) {
	case K_SINGLE:
		fill(c, &it.a, r, n, w->sb[r], w->rb[r]);
		rc = post(c, NULL, &it.a, r, n, w->sb[r], w->rb[r]) ?:
		     ccore_stream_sync(ccore_comm_stream(c));
		return !failed(x, "single", i, rc) &&
		       !wrong(x, i, "single", check(c, &it.a, r, n, w->sb[r], w->rb[r]), &it.a);
	case K_GROUP:
		/* two collectives in one group, on separate buffers */
		fill(c, &it.a, r, n, w->sb[r], w->rb[r]);
		fill(c, &it.b, r, n, w->sb1[r], w->rb1[r]);
		rc = ccore_group_start();
		rc = rc ?: post(c, NULL, &it.a, r, n, w->sb[r], w->rb[r]);
		rc = rc ?: post(c, NULL, &it.b, r, n, w->sb1[r], w->rb1[r]);
		rc = ccore_group_end() ?: rc;
		rc = rc ?: ccore_stream_sync(ccore_comm_stream(c));
		return !failed(x, "group", i, rc) &&
		       !wrong(x, i, "group, first", check(c, &it.a, r, n, w->sb[r], w->rb[r]), &it.a) &&
		       !wrong(x, i, "group, second", check(c, &it.b, r, n, w->sb1[r], w->rb1[r]),
			      &it.b);
	case K_SENDRECV: {
		/* a ring shift in a group: send to the next rank, receive from the previous */
		struct coll_call sr = { .op = ccore_op_sendrecv, .count = it.a.count ? it.a.count : 1,
					.dtype = it.a.dt, .redop = ccore_sum };
		long bad;

		memset(ccore_mem_host(c, w->rb[r]), 0x5c, BUF_BYTES);
		coll_call_fill(&sr, (int)r, (int)n, ccore_mem_host(c, w->sb[r]));
		rc = ccore_group_start();
		rc = rc ?: coll_call_post(&sr, (int)r, (int)n, w->sb[r], w->rb[r], c, NULL);
		rc = ccore_group_end() ?: rc;
		rc = rc ?: ccore_stream_sync(ccore_comm_stream(c));
		if (failed(x, "send/recv", i, rc))
			return false;
		bad = coll_call_wrong(&sr, (int)r, (int)n, ccore_mem_host(c, w->rb[r]));
		it.a.coll = CS_SENDRECV;
		it.a.count = sr.count;
		return !wrong(x, i, "send/recv", bad, &it.a);
	}
	case K_STREAMS:
		/* one collective on each stream, then both syncs */
		fill(c, &it.a, r, n, w->sb[r], w->rb[r]);
		fill(c, &it.b, r, n, w->sb1[r], w->rb1[r]);
		rc = post(c, w->s1[r], &it.b, r, n, w->sb1[r], w->rb1[r]) ?:
		     post(c, NULL, &it.a, r, n, w->sb[r], w->rb[r]) ?:
		     ccore_stream_sync(ccore_comm_stream(c)) ?: ccore_stream_sync(w->s1[r]);
		return !failed(x, "two streams", i, rc) &&
		       !wrong(x, i, "stream 0", check(c, &it.a, r, n, w->sb[r], w->rb[r]), &it.a) &&
		       !wrong(x, i, "stream 1", check(c, &it.b, r, n, w->sb1[r], w->rb1[r]), &it.b);
	default: {
		/* on this rank's half of the split */
		struct ccore_comm *h = w->half[r];
		uint32_t hr = (uint32_t)ccore_comm_rank(h), hn = (uint32_t)ccore_comm_count(h);

		if (hn < 2)
			return true;
		it.a.root %= hn;
		fill(h, &it.a, hr, hn, w->sb[r], w->rb[r]);
		rc = post(h, NULL, &it.a, hr, hn, w->sb[r], w->rb[r]) ?:
		     ccore_stream_sync(ccore_comm_stream(h));
		return !failed(x, "split", i, rc) &&
		       !wrong(x, i, "split", check(h, &it.a, hr, hn, w->sb[r], w->rb[r]), &it.a);
	}
	}
}

/*
 * The second pattern: two threads per rank, each driving one stream with
 * its own buffers; they share the rank's communicator.
 */
static bool stream_iter(struct rank_ctx *x, uint32_t i)
{
	struct world *w = x->w;
	uint32_t r = x->r, n = w->n;
	struct ccore_comm *c = w->c[r];
	struct ccore_stream *st = x->stream ? w->s1[r] : ccore_comm_stream(c);
	ccore_ptr sb = x->stream ? w->sb1[r] : w->sb[r], rb = x->stream ? w->rb1[r] : w->rb[r];
	struct iter it;
	int rc;

	draw(x->seed + x->stream, i, n, &it);
	fill(c, &it.a, r, n, sb, rb);
	rc = post(c, st, &it.a, r, n, sb, rb) ?: ccore_stream_sync(st);
	return !failed(x, x->stream ? "stream 1" : "stream 0", i, rc) &&
	       !wrong(x, i, "per-stream thread", check(c, &it.a, r, n, sb, rb), &it.a);
}

static void *rank_thread(void *arg)
{
	struct rank_ctx *x = arg;

	for (uint32_t i = 0; i < x->iters; i++)
		if (!(x->per_stream ? stream_iter(x, i) : rank_iter(x, i)))
			break;
	return NULL;
}

static uint32_t iters_per_round(void)
{
	const char *v = getenv("THREADS_TEST_ITERS");

	return v && *v ? (uint32_t)strtoul(v, NULL, 10) : DEFAULT_ITERS;
}

static uint64_t test_seed(void)
{
	const char *v = getenv("THREADS_TEST_SEED");

	return v && *v ? strtoull(v, NULL, 0) : 0x5eed;
}

/* Run @iters iterations on every rank at once, one thread per rank (or two). */
static void run_round(struct world *w, uint64_t seed, uint32_t iters, bool per_stream)
{
	uint32_t threads = w->n * (per_stream ? 2 : 1);
	pthread_t t[2 * MAX_RANKS];
	struct rank_ctx x[2 * MAX_RANKS];

	for (uint32_t k = 0; k < threads; k++) {
		x[k] = (struct rank_ctx){ .w = w, .r = k % w->n, .seed = seed, .iters = iters,
					  .stream = k / w->n, .per_stream = per_stream };
		ASSERT_EQ(pthread_create(&t[k], NULL, rank_thread, &x[k]), 0);
	}
	for (uint32_t k = 0; k < threads; k++)
		pthread_join(t[k], NULL);
	/* every thread's failure: the first one found may be a consequence */
	for (uint32_t k = 0; k < threads; k++)
		if (x[k].err[0])
			ccore_test_log("%s", x[k].err);
	for (uint32_t k = 0; k < threads; k++)
		if (x[k].err[0])
			FAIL("seed 0x%llx N=%u CCORE_ALGO=%s: %s", (unsigned long long)seed, w->n,
			     getenv("CCORE_ALGO"), x[k].err);
}

/* CCORE_ALGO: every algorithm, in an order drawn from @x. */
static void shuffle_algos(uint64_t x)
{
	const char *names[64];
	char list[1024] = "";
	uint32_t n = 0;

	for (unsigned int i = 0; i < algo_count() && n < 64; i++)
		names[n++] = algo_at(i)->name;
	for (uint32_t i = n; i > 1; i--) {
		const char *tmp;
		uint32_t j;

		x = mix(x);
		j = (uint32_t)(x % i);
		tmp = names[i - 1];
		names[i - 1] = names[j];
		names[j] = tmp;
	}
	for (uint32_t i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? "," : "",
			 names[i]);
	setenv("CCORE_ALGO", list, 1);
}

static void random_rounds(const struct ccore_topology *t, uint32_t rounds, bool per_stream)
{
	uint64_t seed = test_seed() ^ ((uint64_t)t->nodes << 40 | (uint64_t)t->devices_per_node << 20 |
				       t->ranks_per_device);
	uint32_t iters = iters_per_round();
	struct world w;

	world_open(&w, t);
	for (uint32_t k = 0; k < rounds; k++) {
		/* the tuner's own choice first, then shuffled preferences */
		if (k)
			shuffle_algos(mix(seed + k));
		else
			unsetenv("CCORE_ALGO");
		run_round(&w, mix(seed + 1000 + k), iters / rounds, per_stream);
	}
	unsetenv("CCORE_ALGO");
	world_close(&w);
	ccore_test_log("%u rounds of %u iterations on %u ranks, %u thread%s per rank", rounds,
		       iters / rounds, w.n, per_stream ? 2 : 1, per_stream ? "s" : "");
}

/* --- the cases -------------------------------------------------------------- */

/*
 * The reported case: 4 threads, 1x1x4, a 1024-element f32 sum AllReduce,
 * 20 iterations (sync returned early: 60 of 80 results were the rank's own
 * input).
 */
TEST(allreduce_one_thread_per_rank)
{
	static const struct call sum = { CS_ALLREDUCE, 1024, ccore_f32, ccore_sum, 0, false };
	struct ccore_topology t = { 1, 1, 4 };
	struct world w;
	struct rank_ctx x[4];
	pthread_t th[4];

	world_open(&w, &t);
	for (uint32_t r = 0; r < 4; r++) {
		x[r] = (struct rank_ctx){ .w = &w, .r = r, .seed = 1, .iters = 20, .fixed = &sum };
		ASSERT_EQ(pthread_create(&th[r], NULL, rank_thread, &x[r]), 0);
	}
	for (uint32_t r = 0; r < 4; r++)
		pthread_join(th[r], NULL);
	for (uint32_t r = 0; r < 4; r++)
		if (x[r].err[0])
			FAIL("%s", x[r].err);
	world_close(&w);
}

TEST(random_2_ranks)
{
	random_rounds(&(struct ccore_topology){ 1, 1, 2 }, 4, false);
}

TEST(random_3_ranks_3_devices)
{
	random_rounds(&(struct ccore_topology){ 1, 3, 1 }, 4, false);
}

TEST(random_4_ranks_2_nodes)
{
	random_rounds(&(struct ccore_topology){ 2, 1, 2 }, 4, false);
}

TEST(random_5_ranks)
{
	random_rounds(&(struct ccore_topology){ 1, 1, 5 }, 4, false);
}

TEST(random_8_ranks_2x2x2)
{
	random_rounds(&(struct ccore_topology){ 2, 2, 2 }, 4, false);
}

TEST(random_two_threads_per_rank)
{
	random_rounds(&(struct ccore_topology){ 1, 2, 2 }, 2, true);
}

/* --- a peer that does not post ------------------------------------------------ */

struct late {
	struct world *w;
	uint32_t r;
	int rc, query;
	char err[768];
};

static void *sync_alone(void *arg)
{
	struct late *l = arg;
	struct ccore_comm *c = l->w->c[l->r];

	l->rc = ccore_all_reduce(l->w->sb[l->r], l->w->rb[l->r], 1024, ccore_f32, ccore_sum, c,
				 NULL);
	l->query = ccore_stream_query(ccore_comm_stream(c));
	if (!l->rc)
		l->rc = ccore_stream_sync(ccore_comm_stream(c));
	snprintf(l->err, sizeof(l->err), "%s", ccore_last_error());
	return NULL;
}

TEST(peer_that_never_posts_times_out)
{
	struct ccore_topology t = { 1, 1, 3 };
	struct late l[2];
	pthread_t th[2];
	struct world w;

	setenv("CCORE_PEER_TIMEOUT_MS", "200", 1);
	world_open(&w, &t);
	for (uint32_t r = 0; r < 3; r++)
		ccore_verifiable_fill(ccore_mem_host(w.c[r], w.sb[r]), 1024, ccore_f32, ccore_sum,
				      (int)r, 0);
	/* ranks 0 and 1 post and sync; rank 2 does not post */
	for (uint32_t r = 0; r < 2; r++) {
		l[r] = (struct late){ .w = &w, .r = r };
		ASSERT_EQ(pthread_create(&th[r], NULL, sync_alone, &l[r]), 0);
	}
	for (uint32_t r = 0; r < 2; r++) {
		pthread_join(th[r], NULL);
		ASSERT_EQ(l[r].query, -EAGAIN);
		ASSERT_EQ(l[r].rc, -ETIMEDOUT);
		ASSERT_STR_CONTAINS(l[r].err, "ccore_stream_sync");
		ASSERT_STR_CONTAINS(l[r].err, "allreduce of 1024 f32");
		ASSERT_STR_CONTAINS(l[r].err, "rank 2 yet");
		ASSERT_STR_CONTAINS(l[r].err, "CCORE_PEER_TIMEOUT_MS");
	}
	/* the collective is still posted: once rank 2 posts, all complete */
	ASSERT_EQ(ccore_all_reduce(w.sb[2], w.rb[2], 1024, ccore_f32, ccore_sum, w.c[2], NULL), 0);
	for (uint32_t r = 0; r < 3; r++) {
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w.c[r])), 0);
		ASSERT_EQ(ccore_stream_query(ccore_comm_stream(w.c[r])), 0);
		ASSERT_EQ(ccore_verifiable_check_reduced(ccore_mem_host(w.c[r], w.rb[r]), 1024,
							 ccore_f32, ccore_sum, 3, 0), 0);
	}
	world_close(&w);
	unsetenv("CCORE_PEER_TIMEOUT_MS");
}

TEST(unmatched_send_times_out_naming_the_peer)
{
	struct ccore_topology t = { 1, 1, 2 };
	struct world w;
	int rc;

	setenv("CCORE_PEER_TIMEOUT_MS", "50", 1);
	world_open(&w, &t);
	ASSERT_EQ(ccore_send(w.sb[0], 16, ccore_i32, 1, w.c[0], NULL), 0);
	ASSERT_EQ(ccore_stream_query(ccore_comm_stream(w.c[0])), -EAGAIN);
	rc = ccore_stream_sync(ccore_comm_stream(w.c[0]));
	ASSERT_EQ(rc, -ETIMEDOUT);
	ASSERT_STR_CONTAINS(ccore_last_error(), "send of 16 i32 to rank 1 waits for rank 1 to post the matching ccore_recv");
	ASSERT_EQ(ccore_recv(w.rb[1], 16, ccore_i32, 0, w.c[1], NULL), 0);
	ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w.c[0])), 0);
	ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w.c[1])), 0);
	world_close(&w);
	unsetenv("CCORE_PEER_TIMEOUT_MS");
}

TEST(peer_timeout_knob_is_checked)
{
	static const char *const bad[] = { "0", "-5", "abc", "10ms", "86400001" };
	struct ccore_topology t = { 1, 1, 2 };
	struct ccore_comm *c[2];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("CCORE_PEER_TIMEOUT_MS", bad[i], 1);
		ASSERT_EQ(ccore_comm_init_all(&t, c), -EINVAL);
		ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_PEER_TIMEOUT_MS=");
		ASSERT_STR_CONTAINS(ccore_last_error(), "expected milliseconds from 1 to 86400000");
	}
	unsetenv("CCORE_PEER_TIMEOUT_MS");
}

/* A mismatch found by the last poster reaches every rank's sync. */
struct mismatch {
	struct world *w;
	uint32_t r;
	int post_rc, sync_rc;
	char err[768];
};

static void *post_mismatch(void *arg)
{
	struct mismatch *m = arg;
	struct ccore_comm *c = m->w->c[m->r];

	m->post_rc = ccore_all_reduce(m->w->sb[m->r], m->w->rb[m->r], m->r ? 64 : 32, ccore_f32,
				      ccore_sum, c, NULL);
	m->sync_rc = ccore_stream_sync(ccore_comm_stream(c));
	snprintf(m->err, sizeof(m->err), "%s", ccore_last_error());
	return NULL;
}

TEST(failed_launch_reaches_every_rank)
{
	struct ccore_topology t = { 1, 1, 2 };
	struct mismatch m[2];
	pthread_t th[2];
	struct world w;

	world_open(&w, &t);
	for (uint32_t r = 0; r < 2; r++) {
		m[r] = (struct mismatch){ .w = &w, .r = r };
		ASSERT_EQ(pthread_create(&th[r], NULL, post_mismatch, &m[r]), 0);
	}
	for (uint32_t r = 0; r < 2; r++)
		pthread_join(th[r], NULL);
	for (uint32_t r = 0; r < 2; r++) {
		/* whoever posted last got the error at once; both syncs report it */
		ASSERT_TRUE(m[r].post_rc == 0 || m[r].post_rc == -EINVAL);
		ASSERT_EQ(m[r].sync_rc, m[r].post_rc ? 0 : -EINVAL);
		ASSERT_STR_CONTAINS(m[r].err, "every rank must call the same collective");
	}
	/* reported once: the next sync is clean */
	for (uint32_t r = 0; r < 2; r++)
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w.c[r])), 0);
	world_close(&w);
}

/* A rank destroyed with a collective still waiting for its peers drops it. */
TEST(destroy_drops_what_was_not_launched)
{
	struct ccore_topology t = { 1, 1, 2 };
	struct ccore_comm *c[2];
	ccore_ptr b[2];

	setenv("CCORE_PEER_TIMEOUT_MS", "50", 1);
	ASSERT_EQ(ccore_comm_init_all(&t, c), 0);
	for (uint32_t r = 0; r < 2; r++)
		ASSERT_EQ(ccore_mem_alloc(c[r], 4096, &b[r]), 0);
	ASSERT_EQ(ccore_all_reduce(b[0], b[0], 16, ccore_i32, ccore_sum, c[0], NULL), 0);
	ASSERT_EQ(ccore_comm_destroy(c[0]), 0);
	/* rank 1's matching call now waits for a rank that is gone */
	ASSERT_EQ(ccore_all_reduce(b[1], b[1], 16, ccore_i32, ccore_sum, c[1], NULL), 0);
	ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(c[1])), -ETIMEDOUT);
	ASSERT_STR_CONTAINS(ccore_last_error(), "not posted by rank 0 yet");
	ASSERT_EQ(ccore_comm_destroy(c[1]), 0);
	unsetenv("CCORE_PEER_TIMEOUT_MS");
}

/* Collectives are matched per stream id: one posted on another waits. */
TEST(collectives_match_per_stream_id)
{
	struct ccore_topology t = { 1, 1, 2 };
	struct world w;

	setenv("CCORE_PEER_TIMEOUT_MS", "50", 1);
	world_open(&w, &t);
	ASSERT_EQ(ccore_all_reduce(w.sb[0], w.rb[0], 8, ccore_f32, ccore_sum, w.c[0], NULL), 0);
	ASSERT_EQ(ccore_all_reduce(w.sb1[1], w.rb1[1], 8, ccore_f32, ccore_sum, w.c[1], w.s1[1]), 0);
	ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w.c[0])), -ETIMEDOUT);
	ASSERT_STR_CONTAINS(ccore_last_error(), "rank 0 stream 0: allreduce of 8 f32");
	ASSERT_STR_CONTAINS(ccore_last_error(), "not posted by rank 1 yet");
	ASSERT_EQ(ccore_stream_sync(w.s1[1]), -ETIMEDOUT);
	ASSERT_STR_CONTAINS(ccore_last_error(), "rank 1 stream 1: allreduce of 8 f32");
	ASSERT_STR_CONTAINS(ccore_last_error(), "not posted by rank 0 yet");
	/* each completes once its peer posts on the same stream id */
	ASSERT_EQ(ccore_all_reduce(w.sb[1], w.rb[1], 8, ccore_f32, ccore_sum, w.c[1], NULL), 0);
	ASSERT_EQ(ccore_all_reduce(w.sb1[0], w.rb1[0], 8, ccore_f32, ccore_sum, w.c[0], w.s1[0]), 0);
	for (uint32_t r = 0; r < 2; r++) {
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w.c[r])), 0);
		ASSERT_EQ(ccore_stream_sync(w.s1[r]), 0);
	}
	world_close(&w);
	unsetenv("CCORE_PEER_TIMEOUT_MS");
}
