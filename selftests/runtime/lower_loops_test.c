// SPDX-License-Identifier: GPL-2.0
/*
 * The one lowering's loop form (runtime/lower/lower_loops.c) against the
 * old path, which built loop-form programs straight from geometry
 * (runtime/algos/ring_loop.c, hier_loop.c, gone since): ring AllReduce
 * rolled into repeats (ring_gen_rolled()) and hierarchical AllReduce
 * (hier_gen_rolled()) lower, rank by rank, to the very programs and rings
 * the old path built -- every instruction, every descriptor, every ring's
 * index stride and count -- for every rank count, slicing, layout and
 * engine count: each test's images hash to the fingerprint the old
 * path's hashed to when both were compared image by image (commit
 * "hierarchical AllReduce's loop form is its rolled schedule").  A
 * schedule that is not in loop form is refused, not mislowered, and the
 * rolled hierarchical schedule verifies.
 */
#include "ccore_test.h"
#include "algos/algo.h"
#include "lower/lower.h"

#include <errno.h>
#include <string.h>

/* Addresses and semaphores that say whose they are; in place (@arg set) SEND is RECV. */
static uint64_t peer_va(void *arg, uint32_t r, uint32_t q, uint32_t buf)
{
	if (arg && buf == CS_SEND)
		buf = CS_RECV;
	return (uint64_t)(r + 1) << 44 | (uint64_t)(q + 1) << 28 | (uint64_t)buf << 24;
}

/* The user too: it decides who may signal the semaphore (sems_allow()). */
static uint32_t sem(void *arg, uint32_t r, uint32_t peer, enum lower_sem_kind kind, uint32_t user)
{
	(void)arg;
	return ((r * 64 + peer) * 4 + (uint32_t)kind + 1) | user << 16;
}

struct ctx {
	struct lower_rank lr[64];
	struct lower_ctx c;
};

static void ctx_init(struct ctx *x, uint32_t n, uint32_t engines, bool in_place)
{
	memset(x, 0, sizeof(*x));
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t b = 0; b < CS_NBUF; b++)
			x->lr[r].va[b] = peer_va(in_place ? x : NULL, r, r, b) + 0x1000;
	x->c = (struct lower_ctx){
		.nranks = n, .ranks = x->lr, .peer_va = peer_va, .arg = in_place ? x : NULL,
		.elem_size = 4,
		.dtype = DRM_CCORE_DTYPE_F32, .redop = DRM_CCORE_REDOP_SUM, .engines = engines,
		.sem = sem,
	};
}

/* What the old path built, hashed (image_hash()): ring's and hierarchical's. */
#define RING_OLD_PATH 0x2a882d43931426f8ull
#define HIER_OLD_PATH 0x864d1cc88c597fddull

/* FNV-1a over @n bytes: a fingerprint of every image a test builds. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t image_hash(uint64_t h, const struct lower_image *im)
{
	h = fnv(h, im->insns, im->ninsns * sizeof(*im->insns));
	for (uint32_t w = 0; w < LOWER_RINGS; w++)
		for (uint32_t e = 0; e < LOWER_MAX_ENGINES; e++) {
			const struct lower_ring_image *ri = &im->ring[w][e];

			h = fnv(h, &ri->nd, sizeof(ri->nd));
			h = fnv(h, &ri->index_stride, sizeof(ri->index_stride));
			h = fnv(h, &ri->index_count, sizeof(ri->index_count));
			h = fnv(h, ri->desc, ri->nd * sizeof(*ri->desc));
		}
	return h;
}

#define FNV_BASIS 0xcbf29ce484222325ull

/* What every rank of @s lowers to, counted and hashed into @f; @what names the schedule. */
struct fingerprint {
	unsigned int images;
	uint64_t insns, hash;
};

/* Rank @r of @s lowered, its streams indexed as lower_schedule() indexes them. */
static int lower_rank(const struct cs_sched *s, const struct lower_ctx *c, uint32_t r,
		      struct lower_image *im)
{
	struct cs_streams ix;
	int rc = cs_streams_init(s, &ix);

	if (rc)
		return rc;
	rc = lower_loops_image(s, &ix, c, r, im);
	cs_streams_free(&ix);
	return rc;
}

/*
 * Every rank of @s lowered as lower_schedule() lowers them, into one image
 * rank after rank; with @drop, every rank's streams dropped after each
 * rank (cs_streams_drop()), so that each is built again when asked for,
 * and a lazy schedule's ranks too (cs_rank_drop()), so that each is made
 * again, into a dropped one's arrays.
 */
static void lower_every_rank(const struct cs_sched *s, uint32_t engines, const char *what,
			     struct fingerprint *f, bool drop)
{
	struct lower_image got = { 0 };
	struct cs_streams ix;
	struct ctx x;

	ASSERT_TRUE(s && !cs_unusable(s));
	ASSERT_EQ(cs_streams_init(s, &ix), 0);
	ctx_init(&x, s->shape.nranks, engines, s->shape.in_place);
	for (uint32_t r = 0; r < s->shape.nranks; r++) {
		int rc = lower_loops_image(s, &ix, &x.c, r, &got);

		if (rc)
			FAIL("%s %s engines %u rank %u: lower_loops_image: %d", what,
			     s->shape.in_place ? "in place" : "out of place", engines, r, rc);
		f->insns += got.ninsns;
		f->hash = image_hash(f->hash, &got);
		f->images++;
		for (uint32_t q = 0; drop && q < s->shape.nranks; q++) {
			if (ix.rank[q].built)
				cs_streams_drop(&ix, q);
			cs_rank_drop(s, q);
		}
	}
	lower_image_free(&got);
	cs_streams_free(&ix);
}

static void assert_fingerprint(const struct fingerprint *f, uint64_t old, const char *who)
{
	ccore_test_log("%u rank images (%llu instructions), fingerprint %#llx", f->images,
		       (unsigned long long)f->insns, (unsigned long long)f->hash);
	if (f->hash != old)
		FAIL("%s images differ from the old path's: fingerprint %#llx, theirs %#llx", who,
		     (unsigned long long)f->hash, (unsigned long long)old);
}

TEST(ring_allreduce_lowers_as_the_old_loop_form)
{
	static const uint32_t ranks[] = { 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 33, 64 };
	static const uint32_t slicings[] = { 1, 2, 3, 7 };
	static const uint32_t engines[] = { 2, 4, 16 };
	struct fingerprint f = { .hash = FNV_BASIS }, dropped = { .hash = FNV_BASIS };

	for (size_t a = 0; a < sizeof(ranks) / sizeof(ranks[0]); a++)
		for (size_t b = 0; b < sizeof(slicings) / sizeof(slicings[0]); b++)
			for (uint64_t per = 1; per <= 64; per *= 8)
				for (int ip = 0; ip < 2; ip++)
					for (size_t g = 0; g < sizeof(engines) / sizeof(engines[0]); g++) {
						uint32_t n = ranks[a];
						struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = n,
								       .count = per * n, .in_place = ip };
						struct algo_opts o = { .slices = slicings[b], .channels = 1 };
						struct cs_sched *s = ring_gen_rolled(&sh, &o);
						char what[96];

						snprintf(what, sizeof(what), "N=%u count %llu slices %u", n,
							 (unsigned long long)sh.count, o.slices);
						lower_every_rank(s, engines[g], what, &f, false);
						lower_every_rank(s, engines[g], what, &dropped, true);
						cs_free(s);
					}
	assert_fingerprint(&f, RING_OLD_PATH, "ring's");
	assert_fingerprint(&dropped, RING_OLD_PATH, "ring's, streams built again,");
}

/* Ring's plain schedule (no repeats), and a rolled one with a local step, are not loop form. */
TEST(what_is_not_loop_form_is_refused)
{
	struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = 4, .count = 64 };
	struct algo_opts o = { .slices = 2, .channels = 1 };
	struct cs_sched *s = algo_find("ring", CS_ALLREDUCE)->gen(&sh, &o);
	struct lower_image im = { 0 };
	struct ctx x;

	ctx_init(&x, 4, 4, false);
	ASSERT_EQ(lower_rank(s, &x.c, 0, &im), -EOPNOTSUPP);
	cs_free(s);
	s = ring_gen_rolled(&sh, &o);
	/* a receive that becomes a local reduce: a local step in a repeat */
	s->ranks[1].steps[s->ranks[1].reps[2].first].op = CS_REDUCE;
	ASSERT_EQ(lower_rank(s, &x.c, 1, &im), -EOPNOTSUPP);
	cs_free(s);
}

/*
 * Markers grant a peer's credits in the order their anchors complete, so
 * two all-gather receives whose anchors are swapped (slice 1's credit
 * behind slice 0's send and the reverse) cannot be marked: refused, where
 * as they were the same rank lowers.
 */
TEST(anchors_out_of_receive_order_are_refused)
{
	struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = 6, .count = 6 * 8 };
	struct algo_opts o = { .slices = 2, .channels = 1 };
	struct cs_sched *s = ring_gen_rolled(&sh, &o);
	struct cs_rank *rk = &s->ranks[2];
	struct lower_image im = { 0 };
	struct ctx x;
	uint32_t u = 0;

	ctx_init(&x, 6, 4, false);
	ASSERT_EQ(lower_rank(s, &x.c, 2, &im), 0);
	lower_image_free(&im);
	/* the first receive with a dependency: slice 0 of an all-gather body */
	while (!rk->steps[u].ndeps || rk->steps[u + 2].op == CS_SEND_OP)
		u++;
	ASSERT_EQ(rk->steps[u + 2].ndeps, 1);
	{
		uint32_t a = rk->steps[u].deps[0];

		rk->steps[u].deps[0] = rk->steps[u + 2].deps[0];
		rk->steps[u + 2].deps[0] = a;
	}
	ASSERT_EQ(lower_rank(s, &x.c, 2, &im), -EOPNOTSUPP);
	cs_free(s);
}

/*
 * Hierarchical AllReduce rolled (hier_gen_rolled()) lowers, rank by rank,
 * to the very image hier_loop.c builds from geometry: its three phases'
 * credits granted between them, rings drained, lanes per engine.
 */
TEST(hier_allreduce_lowers_as_the_old_loop_form)
{
	static const uint32_t groups[][2] = { { 2, 2 }, { 3, 2 }, { 2, 3 }, { 4, 2 }, { 4, 4 },
					      { 5, 3 }, { 8, 2 }, { 2, 8 }, { 4, 16 }, { 8, 8 } };
	static const uint32_t slicings[] = { 1, 2, 3 };
	static const uint32_t engines[] = { 2, 3, 4, 16 };
	struct fingerprint f = { .hash = FNV_BASIS }, dropped = { .hash = FNV_BASIS };
	struct fingerprint lazy = { .hash = FNV_BASIS };

	for (size_t a = 0; a < sizeof(groups) / sizeof(groups[0]); a++)
		for (size_t b = 0; b < sizeof(slicings) / sizeof(slicings[0]); b++)
			for (uint64_t per = 1; per <= 8; per *= 8)
				for (int ip = 0; ip < 2; ip++)
					for (size_t g = 0; g < sizeof(engines) / sizeof(engines[0]); g++) {
						uint32_t G = groups[a][0], n = G * groups[a][1];
						struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = n,
								       .count = per * n, .in_place = ip };
						struct algo_opts o = { .slices = slicings[b], .channels = 1,
								       .ranks_per_node = G };
						struct cs_sched *s = hier_gen_rolled(&sh, &o);
						char what[96];

						ASSERT_TRUE(s && cs_has_repeats(s));
						snprintf(what, sizeof(what), "G=%u N=%u count %llu slices %u", G, n,
							 (unsigned long long)sh.count, o.slices);
						lower_every_rank(s, engines[g], what, &f, false);
						lower_every_rank(s, engines[g], what, &dropped, true);
						cs_free(s);
						/* made rank by rank as read, ranks dropped and made again */
						o.lazy = true;
						s = hier_gen_rolled(&sh, &o);
						ASSERT_TRUE(s && s->lazy && cs_has_repeats(s));
						lower_every_rank(s, engines[g], what, &lazy, true);
						cs_free(s);
					}
	assert_fingerprint(&f, HIER_OLD_PATH, "hierarchical");
	assert_fingerprint(&dropped, HIER_OLD_PATH, "hierarchical, streams built again,");
	assert_fingerprint(&lazy, HIER_OLD_PATH, "hierarchical, made lazily,");
}

/* A lazy schedule's ranks are the eager one's, made again after a drop, and whole for readers. */
TEST(a_lazy_schedule_is_the_eager_one)
{
	struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = 24, .count = 24 * 8 };
	struct algo_opts o = { .slices = 3, .channels = 1, .ranks_per_node = 4 };
	struct cs_sched *eager = hier_gen_rolled(&sh, &o), *lazy;
	char err[512];

	o.lazy = true;
	lazy = hier_gen_rolled(&sh, &o);
	ASSERT_TRUE(eager && !eager->lazy && lazy && lazy->lazy);
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t r = 0; r < sh.nranks; r++) {
			/* backwards the second time: dropped arrays go to other ranks */
			uint32_t q = pass ? sh.nranks - 1 - r : r;
			const struct cs_rank *a = &eager->ranks[q], *b = cs_rank_get(lazy, q);

			ASSERT_EQ(b->n, a->n);
			ASSERT_EQ(b->nreps, a->nreps);
			ASSERT_EQ(memcmp(b->steps, a->steps, a->n * sizeof(*a->steps)), 0);
			ASSERT_EQ(memcmp(b->reps, a->reps, a->nreps * sizeof(*a->reps)), 0);
			cs_rank_drop(lazy, q);
			ASSERT_EQ(lazy->ranks[q].n, 0u);
		}
	/* the verifier reads every rank: it makes them */
	ASSERT_EQ(cs_verify(lazy, err, sizeof(err)), 0);
	for (uint32_t r = 0; r < sh.nranks; r++)
		ASSERT_EQ(lazy->ranks[r].n, eager->ranks[r].n);
	cs_free(eager);
	cs_free(lazy);
}

/* The rolled hierarchical schedule verifies (CCORE_VERIFY checks it so): rolled and written out. */
TEST(hier_rolled_verifies)
{
	static const uint32_t groups[][2] = { { 2, 2 }, { 3, 2 }, { 4, 3 }, { 5, 2 }, { 8, 4 } };
	char err[512];

	for (size_t a = 0; a < sizeof(groups) / sizeof(groups[0]); a++)
		for (uint32_t slices = 1; slices <= 3; slices++)
			for (int ip = 0; ip < 2; ip++) {
				uint32_t G = groups[a][0], n = G * groups[a][1];
				struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = n,
						       .count = 2 * n, .in_place = ip };
				struct algo_opts o = { .slices = slices, .channels = 1,
						       .ranks_per_node = G };
				struct cs_sched *s = hier_gen_rolled(&sh, &o);

				ASSERT_TRUE(s && cs_has_repeats(s));
				if (cs_verify(s, err, sizeof(err)))
					FAIL("G=%u N=%u slices %u %s: %s", G, n, slices,
					     ip ? "in place" : "out of place", err);
				cs_free(s);
			}
}
