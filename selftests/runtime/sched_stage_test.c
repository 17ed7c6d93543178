// SPDX-License-Identifier: GPL-2.0
/*
 * Reductions across hosts, staged (runtime/sched/cs_stage.c): for every
 * registered algorithm and collective, on 4, 6 and 8 ranks split over 2
 * and 3 hosts (and ranks of a host not contiguous), the staged schedule
 * passes the verifier (it computes what the unstaged one does), every
 * RECV_REDUCE across hosts and only those is staged, each in a TMP slot
 * of its own beyond the schedule's scratch, and nothing else changes.
 * One host, nothing needs staging.
 */
#include "ccore_test.h"
#include "algos/algo.h"
#include "lower/lower.h"

#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Every RECV_REDUCE across hosts staged, each in a slot of its own; nothing else changed. */
static void check_staged(const struct cs_sched *in, const struct cs_sched *out,
			 const uint32_t *host_of, unsigned int *staged)
{
	for (uint32_t r = 0; r < out->shape.nranks; r++) {
		const struct cs_rank *rk = &out->ranks[r];
		uint64_t next = in->tmp_count;

		ASSERT_EQ(rk->n, in->ranks[r].n);
		for (uint32_t i = 0; i < rk->n; i++) {
			const struct cs_step *st = &rk->steps[i];
			struct cs_step was = in->ranks[r].steps[i];
			bool cross = st->op == CS_RECV_REDUCE && host_of[st->peer] != host_of[r];

			if (cross != !!st->staged)
				FAIL("%s %s rank %u step %u (from %u): %s", in->algo,
				     cs_coll_name(in->shape.coll), r, i, st->peer,
				     cross ? "crosses hosts, not staged" : "staged within a host");
			if (!st->staged) {
				ASSERT_EQ(memcmp(st, &was, sizeof(was)), 0);
				continue;
			}
			(*staged)++;
			ASSERT_EQ(st->src2.buf, CS_TMP);
			ASSERT_U64_EQ(st->src2.off, next);
			next += st->count;
			ASSERT_TRUE(next <= out->tmp_count);
			was.staged = 1;
			was.src2 = st->src2;
			ASSERT_EQ(memcmp(st, &was, sizeof(was)), 0);
		}
	}
}

static void stage_and_verify(const struct algo *a, unsigned int coll, uint32_t n,
			     uint64_t count, bool in_place, const uint32_t *host_of,
			     unsigned int *schedules, unsigned int *staged)
{
	struct algo_opts o = { .slices = 2, .channels = 1, .ranks_per_node = n / 2 };
	struct cs_shape sh = { .coll = (uint8_t)coll, .nranks = n, .count = count,
			       .in_place = in_place, .root = n - 1, .peer = 1 };
	struct cs_sched *s, *st;
	char err[512];

	if (a->rejects(&sh, &o))
		return;
	s = a->gen(&sh, &o);
	if (s && cs_has_repeats(s)) {
		struct cs_sched *x = cs_expand(s);

		cs_free(s);
		s = x;
	}
	ASSERT_TRUE(s && !cs_unusable(s));
	st = cs_stage_remote(s, host_of);
	ASSERT_TRUE(st && !cs_unusable(st));
	if (cs_verify(st, err, sizeof(err)))
		FAIL("%s %s N=%u count=%llu %s: staged schedule fails: %s", a->name,
		     cs_coll_name(coll), n, (unsigned long long)count,
		     in_place ? "in place" : "out of place", err);
	ASSERT_FALSE(cs_needs_staging(st, host_of));
	check_staged(s, st, host_of, staged);
	(*schedules)++;
	cs_free(st);
	cs_free(s);
}

TEST(every_algorithm_staged_across_hosts_verifies)
{
	static const uint32_t hosts4[] = { 0, 0, 1, 1 };
	static const uint32_t hosts6[] = { 0, 0, 1, 1, 2, 2 };
	static const uint32_t hosts8[] = { 0, 1, 0, 1, 0, 1, 0, 1 };	/* interleaved */
	static const struct { uint32_t n; const uint32_t *host_of; } splits[] = {
		{ 4, hosts4 }, { 6, hosts6 }, { 8, hosts8 },
	};
	static const uint64_t counts[] = { 1, 7, 64 };
	unsigned int schedules = 0, staged = 0;

	for (unsigned int i = 0; i < algo_count(); i++) {
		const struct algo *a = algo_at(i);

		for (unsigned int coll = 0; coll < CS_NCOLL; coll++) {
			if (!(a->colls & (1u << coll)))
				continue;
			for (size_t k = 0; k < ARRAY_LEN(splits); k++)
				for (size_t c = 0; c < ARRAY_LEN(counts); c++)
					for (int ip = 0; ip < 2; ip++)
						stage_and_verify(a, coll, splits[k].n, counts[c], ip,
								 splits[k].host_of, &schedules,
								 &staged);
		}
	}
	ccore_test_log("%u schedules staged and verified, %u receives staged", schedules, staged);
	ASSERT_GT(schedules, 100);
	ASSERT_GT(staged, 100);
}

TEST(one_host_needs_no_staging)
{
	static const uint32_t one[] = { 0, 0, 0, 0 };
	static const uint32_t two[] = { 0, 0, 1, 1 };
	const struct algo *ring = algo_find("ring", CS_ALLREDUCE);
	struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = 4, .count = 64 };
	struct algo_opts o = { .slices = 1, .channels = 1 };
	struct cs_sched *s, *st;
	unsigned int staged = 0;

	ASSERT_TRUE(ring != NULL);
	s = ring->gen(&sh, &o);
	ASSERT_TRUE(s != NULL);
	ASSERT_FALSE(cs_needs_staging(s, NULL));
	ASSERT_FALSE(cs_needs_staging(s, one));
	ASSERT_TRUE(cs_needs_staging(s, two));
	st = cs_stage_remote(s, two);
	ASSERT_TRUE(st != NULL);
	ASSERT_FALSE(cs_needs_staging(st, two));
	/* ring: rank 2 receives from rank 1 (host 0), rank 0 from rank 3 (host 1) */
	for (uint32_t r = 0; r < 4; r++)
		for (uint32_t i = 0; i < st->ranks[r].n; i++)
			if (st->ranks[r].steps[i].staged) {
				ASSERT_TRUE(r == 0 || r == 2);
				staged++;
			}
	ASSERT_EQ(staged, 2 * 3);	/* 3 reduce-scatter hops each */
	ASSERT_U64_EQ(st->tmp_count, s->tmp_count + 3 * 16);
	cs_free(st);
	cs_free(s);
}

/* Semaphores that say whose they are: rank r's are r * 4096 + ... (the lowering's callbacks). */
static uint32_t sem_of(void *arg, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
		       uint32_t user)
{
	(void)arg;
	(void)user;
	return r * 4096 + peer * 4 + (uint32_t)kind + 1;
}

static uint64_t va_of(void *arg, uint32_t r, uint32_t q, uint32_t buf)
{
	(void)arg;
	(void)r;
	return (uint64_t)(q + 1) << 32 | (uint64_t)buf << 28;
}

struct lowered_check {
	const uint32_t *host_of;
	unsigned int images, remote_credits;
};

/* No instruction of rank @r names another host's semaphore; count SEM_WRITEs there. */
static int check_image(void *arg, uint32_t r, const struct lower_image *im)
{
	struct lowered_check *lc = arg;

	for (uint32_t i = 0; i < im->ninsns; i++) {
		const struct drm_ccore_insn *in = &im->insns[i];

		if ((in->opcode == DRM_CCORE_OP_ADD || in->opcode == DRM_CCORE_OP_SET ||
		     in->opcode == DRM_CCORE_OP_WAIT || in->opcode == DRM_CCORE_OP_ACQUIRE) &&
		    lc->host_of[in->sem / 4096] != lc->host_of[r])
			FAIL("rank %u instruction %u (opcode %u) names semaphore %u of rank %u, on another host",
			     r, i, in->opcode, in->sem, in->sem / 4096);
	}
	for (uint32_t w = 0; w < LOWER_RINGS; w++)
		for (uint32_t eng = 0; eng < LOWER_MAX_ENGINES; eng++)
			for (uint32_t k = 0; k < im->ring[w][eng].nd; k++) {
				const struct drm_ccore_desc *d = &im->ring[w][eng].desc[k];

				if (d->op == DRM_CCORE_DESC_SEM_WRITE &&
				    lc->host_of[(uint32_t)d->dst / 4096] != lc->host_of[r])
					lc->remote_credits++;
			}
	lc->images++;
	return 0;
}

/*
 * Lowered across hosts, a CC-core program never names another host's
 * semaphore (the NIC carries only descriptors): credits to senders there
 * go as SEM_WRITE descriptors, in the prologue and after dependencies.
 */
TEST(credits_to_another_host_are_descriptors)
{
	static const uint32_t two[] = { 0, 0, 1, 1, 0, 0, 1, 1 };
	struct lower_rank lr[8];
	struct lower_ctx c = {
		.nranks = 8, .ranks = lr, .peer_va = va_of, .elem_size = 4,
		.dtype = DRM_CCORE_DTYPE_F32, .redop = DRM_CCORE_REDOP_SUM, .engines = 4,
		.sem = sem_of, .host_of = two,
	};
	struct lowered_check lc = { .host_of = two };
	unsigned int schedules = 0;

	memset(lr, 0, sizeof(lr));
	for (uint32_t r = 0; r < 8; r++)
		for (uint32_t b = 0; b < CS_NBUF; b++)
			lr[r].va[b] = va_of(NULL, r, r, b);
	for (unsigned int i = 0; i < algo_count(); i++) {
		const struct algo *a = algo_at(i);

		for (unsigned int coll = 0; coll < CS_NCOLL; coll++) {
			struct cs_shape sh = { .coll = (uint8_t)coll, .nranks = 8, .count = 64,
					       .root = 3, .peer = 2 };
			struct algo_opts o = { .slices = 2, .channels = 1, .ranks_per_node = 4 };
			struct cs_sched *s, *st;

			if (!(a->colls & (1u << coll)) || a->rejects(&sh, &o))
				continue;
			s = a->gen(&sh, &o);
			ASSERT_TRUE(s && !cs_unusable(s));
			st = cs_stage_remote(s, two);
			ASSERT_TRUE(st != NULL);
			if (lower_images(st, &c, check_image, &lc))
				FAIL("%s %s: lowering failed: %s", a->name, cs_coll_name(coll),
				     ccore_last_error());
			schedules++;
			cs_free(st);
			cs_free(s);
		}
	}
	ccore_test_log("%u schedules, %u images, %u credits to another host as SEM_WRITE", schedules,
		       lc.images, lc.remote_credits);
	ASSERT_GT(lc.remote_credits, 100);
}
