// SPDX-License-Identifier: GPL-2.0
/*
 * Semaphores at large rank counts: a communicator used to take 2N + 1
 * semaphores per rank and stream from a bank of 256, so two streams at 64
 * ranks, a split beside its parent or nested splits failed with -ENOSPC.
 * Here, at 64 and 128 ranks (functional model, every element checked) and
 * 256 and 1024 (timed model with virtual buffers: the plans build and run):
 * both streams of a communicator at once, a split beside its parent, three
 * levels of nested splits and several communicators on the same devices,
 * each running a small AllReduce; a rank's semaphores do not grow with N;
 * and a bank too small says what to change.
 */
#include "timed_world.h"
#include "ccore_verifiable.h"
#include "comm.h"

#include <stdlib.h>
#include <string.h>

/* a multiple of every N here: ring plans in loop form, programs that stay small */
#define COUNT 1024
#define LEVELS 4	/* the world and 3 levels of splits under it */

struct level {
	struct ccore_comm *c[TIMED_WORLD_MAX];
};

static struct level levels[LEVELS], siblings[2];
static struct ccore_stream *second[TIMED_WORLD_MAX];

/* Every rank of the communicators @c (the world's ranks 0..n-1, in order). */
static void post_all(struct timed_world *w, struct ccore_comm **c, struct ccore_stream **s,
		     bool check)
{
	int n = w->n;

	for (int r = 0; r < n && check; r++)
		ccore_verifiable_fill(ccore_mem_host(w->c[r], w->sb[r]), COUNT, ccore_f32,
				      ccore_sum, ccore_comm_rank(c[r]), 0);
	for (int r = 0; r < n; r++)
		if (ccore_all_reduce(w->sb[r], w->rb[r], COUNT, ccore_f32, ccore_sum, c[r],
				     s ? s[r] : NULL))
			FAIL("AllReduce on rank %d of %d: %s", r, ccore_comm_count(c[r]),
			     ccore_last_error());
	for (int r = 0; r < n; r++)
		if (ccore_stream_sync(s ? s[r] : ccore_comm_stream(c[r])))
			FAIL("sync of rank %d: %s", r, ccore_last_error());
	for (int r = 0; r < n && check; r++) {
		long bad = ccore_verifiable_check_reduced(ccore_mem_host(w->c[r], w->rb[r]), COUNT,
							  ccore_f32, ccore_sum,
							  ccore_comm_count(c[r]), 0);

		if (bad)
			FAIL("rank %d of a communicator of %d: %ld elements wrong", r,
			     ccore_comm_count(c[r]), bad);
	}
}

/*
 * Split each communicator of @parent (indexed by world rank, every rank in
 * one) into @groups by the rank's place in it; @out by world rank.
 */
static void split(struct timed_world *w, struct ccore_comm **parent, int groups,
		  struct ccore_comm **out)
{
	struct ccore_comm **part = malloc(w->n * sizeof(*part));
	struct ccore_comm **sub = malloc(w->n * sizeof(*sub));
	int *color = malloc(w->n * sizeof(*color)), *key = malloc(w->n * sizeof(*key));
	int *world = malloc(w->n * sizeof(*world));
	bool *done = calloc(w->n, sizeof(*done));

	ASSERT_TRUE(part && sub && color && key && world && done);
	for (int r0 = 0; r0 < w->n; r0++) {
		int m;

		if (done[r0])
			continue;
		m = ccore_comm_count(parent[r0]);
		/* the world ranks of r0's communicator, by their rank in it */
		for (int r = r0; r < w->n; r++)
			if (parent[r]->q == parent[r0]->q) {
				int k = ccore_comm_rank(parent[r]);

				part[k] = parent[r];
				world[k] = r;
				color[k] = k % groups;
				key[k] = k;
				done[r] = true;
			}
		if (ccore_comm_split(part, m, color, key, sub))
			FAIL("split of %d ranks into %d: %s", m, groups, ccore_last_error());
		for (int k = 0; k < m; k++)
			out[world[k]] = sub[k];
	}
	free(part);
	free(sub);
	free(color);
	free(key);
	free(world);
	free(done);
}

static void destroy(struct timed_world *w, struct ccore_comm **c)
{
	for (int r = 0; r < w->n; r++)
		ASSERT_EQ(ccore_comm_destroy(c[r]), 0);
}

/*
 * Everything at once on @n ranks: the world on both its streams (the
 * most CCORE_STREAMS allows), a split of all of it beside it, three levels
 * of nested splits, and two more communicators of every rank; an
 * AllReduce on each, all still alive.
 */
static void all_at_once(const struct ccore_topology *t, const char *sim, bool check,
			const char *algo)
{
	struct timed_world w;
	uint32_t log2n = 0, most;

	setenv("CCORE_STREAMS", "2", 1);
	setenv("CCORE_ALGO", algo, 1);
	timed_world_open(&w, t, sim, COUNT * 4);
	for (int r = 0; r < w.n; r++)
		if (ccore_stream_create(w.c[r], 1, &second[r]))
			FAIL("stream 1 of rank %d: %s", r, ccore_last_error());
	post_all(&w, w.c, NULL, check);
	post_all(&w, w.c, second, check);
	/* beside the parent: the same ranks, a communicator of their own */
	split(&w, w.c, 1, levels[0].c);
	post_all(&w, levels[0].c, NULL, check);
	/* nested: halves of it, quarters of those, eighths */
	for (int l = 1; l < LEVELS; l++) {
		split(&w, levels[l - 1].c, 2, levels[l].c);
		post_all(&w, levels[l].c, NULL, check);
	}
	for (int k = 0; k < 2; k++) {
		split(&w, w.c, 1, siblings[k].c);
		post_all(&w, siblings[k].c, NULL, check);
	}
	/* and every one of them again, all alive at once, with other peers
	 * (at 1024 ranks the first round was recursive halving already) */
	setenv("CCORE_ALGO", "rdh", 1);
	for (int l = 0; l < LEVELS && strcmp(algo, "rdh"); l++)
		post_all(&w, levels[l].c, NULL, check);
	for (int k = 0; k < 2 && strcmp(algo, "rdh"); k++)
		post_all(&w, siblings[k].c, NULL, check);
	post_all(&w, w.c, second, check);
	unsetenv("CCORE_ALGO");
	/* a rank's semaphores on a stream follow its peers, not N: a ring's
	 * L and two pairs (and its own in loop form), recursive halving's L
	 * and about log2(N) pairs; it was 2N + 1 */
	while ((1 << (log2n + 1)) <= w.n)
		log2n++;
	most = strcmp(algo, "ring") ? 1 + 2 * (log2n + 2) : 7;
	ASSERT_LE(w.c[0]->q->pools[0].held, most);
	for (int k = 0; k < 2; k++)
		destroy(&w, siblings[k].c);
	for (int l = LEVELS; l-- > 0;)
		destroy(&w, levels[l].c);
	for (int r = 0; r < w.n; r++)
		ASSERT_EQ(ccore_stream_destroy(second[r]), 0);
	timed_world_close(&w);
	unsetenv("CCORE_STREAMS");
}

TEST(sems_64_ranks)
{
	all_at_once(&(struct ccore_topology){ 1, 16, 4 }, "", true, "ring");
}

TEST(sems_128_ranks)
{
	all_at_once(&(struct ccore_topology){ 2, 16, 4 }, "", true, "ring");
}

TEST(sems_256_ranks_timed)
{
	all_at_once(&(struct ccore_topology){ 4, 16, 4 }, "timed=1,virtual=1", false, "ring");
}

/* a 1024-hop ring takes the timed model seconds: recursive halving */
TEST(sems_1024_ranks_timed)
{
	all_at_once(&(struct ccore_topology){ 8, 16, 8 }, "timed=1,virtual=1", false, "rdh");
}

/*
 * An all-to-all talks to every peer: 2N - 1 semaphores a rank and stream
 * (the default bank holds them at 1024 ranks on both streams; there its
 * program outgrows CC-core memory, so 512 here).
 */
TEST(alltoall_512_ranks_both_streams_timed)
{
	struct timed_world w;

	setenv("CCORE_STREAMS", "2", 1);
	setenv("CCORE_ALGO", "pairwise", 1);
	timed_world_open(&w, &(struct ccore_topology){ 4, 16, 8 }, "timed=1,virtual=1", 512 * 4);
	for (int r = 0; r < w.n; r++)
		ASSERT_EQ(ccore_stream_create(w.c[r], 1, &second[r]), 0);
	for (int k = 0; k < 2; k++) {
		for (int r = 0; r < w.n; r++)
			if (ccore_all_to_all(w.sb[r], w.rb[r], 1, ccore_f32, w.c[r],
					     k ? second[r] : NULL))
				FAIL("AllToAll on rank %d: %s", r, ccore_last_error());
		for (int r = 0; r < w.n; r++)
			ASSERT_EQ(ccore_stream_sync(k ? second[r] : ccore_comm_stream(w.c[r])), 0);
	}
	ASSERT_LE(w.c[0]->q->pools[0].held, 2 * 512 + 3);
	for (int r = 0; r < w.n; r++)
		ASSERT_EQ(ccore_stream_destroy(second[r]), 0);
	timed_world_close(&w);
	unsetenv("CCORE_STREAMS");
	unsetenv("CCORE_ALGO");
}

/* A bank too small for what is asked: the error names the knobs to change. */
TEST(too_few_semaphores_say_what_to_change)
{
	struct ccore_topology t = { 1, 2, 4 };
	struct timed_world w;

	/* a ring fits in 8 a rank (L and two peers; loop form its own pair too) */
	setenv("CCORE_ALGO", "ring", 1);
	timed_world_open(&w, &t, "sems=8", COUNT * 4);
	post_all(&w, w.c, NULL, true);
	unsetenv("CCORE_ALGO");
	/* an all-to-all of 8 ranks needs 15 */
	for (int r = 0; r < w.n; r++) {
		int rc = ccore_all_to_all(w.sb[r], w.rb[r], 64, ccore_f32, w.c[r], NULL);

		if (r < w.n - 1) {
			ASSERT_EQ(rc, 0);	/* posted: it runs once all have */
			continue;
		}
		ASSERT_EQ(rc, -ENOSPC);
		ASSERT_STR_CONTAINS(ccore_last_error(), "no 2 free semaphores on core");
		ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_SIM=sems=");
		ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_STREAMS");
	}
	timed_world_close(&w);
}
