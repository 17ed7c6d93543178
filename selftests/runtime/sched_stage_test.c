// SPDX-License-Identifier: GPL-2.0
/*
 * Reductions across hosts, staged (runtime/sched/cs_stage.c): for every
 * registered algorithm and collective, on 4, 6 and 8 ranks split over 2
 * and 3 hosts (and ranks of a host not contiguous), the staged schedule
 * passes the verifier (it computes what the unstaged one does), every
 * RECV_REDUCE across hosts and only those is staged, each in a TMP slot
 * of its own beyond the schedule's scratch, and nothing else changes.
 * One host, nothing needs staging.  Lowered with double-buffered scratch,
 * the credits between hosts that lower.c implies follow its rule, the
 * rest still balance, and the odd runs' image moves only scratch.
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

/* @algo's schedule of @sh staged across hosts @host_of (NULL if it rejects the shape). */
static struct cs_sched *staged_gen(const struct algo *a, const struct cs_shape *sh,
				   const struct algo_opts *o, const uint32_t *host_of,
				   struct cs_sched **unstaged)
{
	struct cs_sched *st;

	*unstaged = NULL;
	if (!(a->colls & (1u << sh->coll)) || a->rejects(sh, o))
		return NULL;
	*unstaged = a->gen(sh, o);
	ASSERT_TRUE(*unstaged && !cs_unusable(*unstaged));
	st = cs_stage_remote(*unstaged, host_of);
	ASSERT_TRUE(st != NULL);
	return st;
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
			struct cs_sched *s, *st = staged_gen(a, &sh, &o, two, &s);

			if (!st)
				continue;
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

/* --- double-buffered scratch: credits across hosts implied ------------------ */

#define DBUF_RANKS 8
#define DBUF_HALF (1ull << 20)	/* the scratch half: below va_of()'s buffer bits */

/* What a rank's images name: credits taken and granted, by pair, and the descriptors. */
struct dbuf_check {
	const uint32_t *host_of;
	/* acquired[p][q]: rank p's ACQUIREs of its C(q); granted[p][q]: credits q gave p */
	uint64_t acquired[DBUF_RANKS][DBUF_RANKS], granted[DBUF_RANKS][DBUF_RANKS];
	struct drm_ccore_desc *desc[DBUF_RANKS];	/* the even image's, every ring */
	uint32_t nd[DBUF_RANKS];
	bool odd;
};

/* sem_of()'s semaphore @sem as (owner, peer, kind) */
static void sem_parts(uint32_t sem, uint32_t *owner, uint32_t *peer, uint32_t *kind)
{
	*owner = (sem - 1) / 4096;
	*peer = ((sem - 1) % 4096) / 4;
	*kind = (sem - 1) % 4;
}

static void count_credit(struct dbuf_check *dc, uint32_t sem, uint64_t n, bool take)
{
	uint32_t owner, peer, kind;

	sem_parts(sem, &owner, &peer, &kind);
	if (kind != LOWER_SEM_CREDIT)
		return;
	if (take)
		dc->acquired[owner][peer] += n;
	else
		dc->granted[owner][peer] += n;
}

/*
 * Sender @p's receives at @q go without credits: each must land in @q's
 * scratch needing no credit in the run, and @q must send back to @p (the
 * rule of lower.c's implicit_pair()).
 */
static void check_implied(const struct cs_sched *st, uint32_t p, uint32_t q, const char *what)
{
	const struct cs_rank *rk = &st->ranks[q];
	bool sends_back = false, receives = false;

	for (uint32_t i = 0; i < rk->n; i++) {
		const struct cs_step *x = &rk->steps[i];

		sends_back |= x->op == CS_SEND_OP && x->peer == p;
		if ((x->op != CS_RECV_OP && x->op != CS_RECV_REDUCE) || x->peer != p)
			continue;
		receives = true;
		if ((x->op == CS_RECV_OP ? x->dst.buf != CS_TMP : !x->staged) ||
		    cs_credit_point(rk, i))
			FAIL("%s: rank %u's step %u from rank %u on another host takes no credit, but lands outside its scratch or waits for its credit point %u",
			     what, q, i, p, cs_credit_point(rk, i));
	}
	if (receives && !sends_back)
		FAIL("%s: rank %u's receives from rank %u on another host take no credit, but it never sends back",
		     what, q, p);
}

/* A TMP address of the odd image is the even one's plus the half; any other is the same. */
static void same_but_scratch(uint64_t even, uint64_t odd, uint32_t r, uint32_t k)
{
	uint64_t want = even + ((even >> 28 & 0xf) == CS_TMP && even ? DBUF_HALF : 0);

	if (odd != want)
		FAIL("rank %u descriptor %u: the odd image has 0x%llx where the even has 0x%llx",
		     r, k, (unsigned long long)odd, (unsigned long long)even);
}

static int dbuf_image(void *arg, uint32_t r, const struct lower_image *im)
{
	struct dbuf_check *dc = arg;
	uint32_t k = 0;

	for (uint32_t i = 0; i < im->ninsns && !dc->odd; i++) {
		const struct drm_ccore_insn *in = &im->insns[i];

		if (in->opcode == DRM_CCORE_OP_ACQUIRE || in->opcode == DRM_CCORE_OP_ADD)
			count_credit(dc, in->sem, in->imm, in->opcode == DRM_CCORE_OP_ACQUIRE);
	}
	for (uint32_t eng = 0; eng < LOWER_MAX_ENGINES; eng++)
		for (uint32_t j = 0; j < im->ring[0][eng].nd; j++, k++) {
			const struct drm_ccore_desc *d = &im->ring[0][eng].desc[j];

			if (!dc->odd) {
				if (d->op == DRM_CCORE_DESC_SEM_WRITE)
					count_credit(dc, (uint32_t)d->dst, d->value, false);
				dc->desc[r] = realloc(dc->desc[r], (k + 1) * sizeof(*d));
				ASSERT_TRUE(dc->desc[r] != NULL);
				dc->desc[r][k] = *d;
				dc->nd[r] = k + 1;
				continue;
			}
			ASSERT_TRUE(k < dc->nd[r]);
			same_but_scratch(dc->desc[r][k].dst, d->dst, r, k);
			if (d->op != DRM_CCORE_DESC_SEM_WRITE) {
				same_but_scratch(dc->desc[r][k].src0, d->src0, r, k);
				same_but_scratch(dc->desc[r][k].src1, d->src1, r, k);
			}
		}
	if (dc->odd)
		ASSERT_EQ(k, dc->nd[r]);
	return 0;
}

/*
 * Lowered with double-buffered scratch (lower_ctx.dbuf), every schedule
 * across two hosts that lower_dbuf_helps() picks still balances its
 * credits pair by pair (what a sender ACQUIREs, its receiver grants,
 * none or all of them), some pairs across hosts take none, and the odd
 * runs' image differs from the even's in exactly its scratch addresses,
 * moved by the half.  The tiny hierarchical AllReduce sends no credit
 * between hosts at all.
 */
TEST(double_buffered_scratch_implies_credits_across_hosts)
{
	static const uint32_t two[DBUF_RANKS] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	static const uint64_t counts[] = { 2, 3, 64 };
	struct lower_rank lr[DBUF_RANKS];
	struct lower_ctx c = {
		.nranks = DBUF_RANKS, .ranks = lr, .peer_va = va_of, .elem_size = 4,
		.dtype = DRM_CCORE_DTYPE_F32, .redop = DRM_CCORE_REDOP_SUM, .engines = 4,
		.sem = sem_of, .host_of = two, .dbuf = true, .tmp_half = DBUF_HALF,
	};
	unsigned int helped = 0, implied = 0, tiny_remote = ~0u;

	memset(lr, 0, sizeof(lr));
	for (uint32_t r = 0; r < DBUF_RANKS; r++)
		for (uint32_t b = 0; b < CS_NBUF; b++)
			lr[r].va[b] = va_of(NULL, r, r, b);
	for (unsigned int i = 0; i < algo_count(); i++)
		for (unsigned int coll = 0; coll < CS_NCOLL; coll++)
			for (size_t ci = 0; ci < ARRAY_LEN(counts); ci++) {
				const struct algo *a = algo_at(i);
				struct cs_shape sh = { .coll = (uint8_t)coll, .nranks = DBUF_RANKS,
						       .count = counts[ci], .root = 3, .peer = 2 };
				struct algo_opts o = { .slices = 1, .channels = 1,
						       .ranks_per_node = 4 };
				struct dbuf_check dc = { .host_of = two };
				struct cs_sched *s, *st = staged_gen(a, &sh, &o, two, &s);
				unsigned int remote = 0;

				if (!st)
					continue;
				if (!lower_dbuf_helps(st, two))
					goto next;
				helped++;
				c.tmp_shift = 0;
				ASSERT_EQ(lower_images(st, &c, dbuf_image, &dc), 0);
				dc.odd = true;
				c.tmp_shift = DBUF_HALF;
				ASSERT_EQ(lower_images(st, &c, dbuf_image, &dc), 0);
				for (uint32_t p = 0; p < DBUF_RANKS; p++)
					for (uint32_t q = 0; q < DBUF_RANKS; q++) {
						if (dc.acquired[p][q] != dc.granted[p][q])
							FAIL("%s %s count %llu: rank %u takes %llu credits for rank %u, which grants %llu",
							     a->name, cs_coll_name(coll),
							     (unsigned long long)counts[ci], p,
							     (unsigned long long)dc.acquired[p][q], q,
							     (unsigned long long)dc.granted[p][q]);
						remote += two[p] != two[q] && dc.acquired[p][q];
						if (two[p] != two[q] && !dc.acquired[p][q])
							check_implied(st, p, q, a->name);
					}
				implied += remote == 0;
				if (!strcmp(a->name, "hier") && coll == CS_ALLREDUCE && counts[ci] == 2)
					tiny_remote = remote;
next:
				for (uint32_t r = 0; r < DBUF_RANKS; r++)
					free(dc.desc[r]);
				cs_free(st);
				cs_free(s);
			}
	ccore_test_log("%u schedules double-buffered, %u of them with no credit between hosts",
		       helped, implied);
	ASSERT_GT(helped, 10);
	ASSERT_EQ(tiny_remote, 0u);
}
