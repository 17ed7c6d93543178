// SPDX-License-Identifier: GPL-2.0
/*
 * The algorithms pairwise, bruck, binomial, chain, p2p, pat, hier and
 * hier-pat with the options the shared sweep in sched_test.c leaves
 * at their defaults -- every root, many slice counts, small PAT buffers,
 * hierarchies of 2 and 4 ranks per node -- through the verifier, and one
 * structural property each that shows the schedule is the algorithm it
 * claims to be.  Last, hier end to end on simulated multi-node systems,
 * which the shared collective test (one node) never picks it for.
 */
#include "ccore_test.h"
#include "ccore_verifiable.h"
#include "coll_call.h"
#include "timed_world.h"
#include "algos/algo.h"

#include <stdlib.h>

static const uint64_t counts[] = { 0, 1, 2, 3, 7, 13, 64, 101 };
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))

static const struct algo *find(const char *name, unsigned int coll)
{
	const struct algo *a = algo_find(name, coll);

	if (!a)
		FAIL("%s is not registered for %s", name, cs_coll_name(coll));
	return a;
}

/*
 * The lowering's credits are counters per (receiver, sender), spent in
 * receive order (see runtime/algos/pat_credit.h), which the verifier does
 * not model: credit points must not decrease along one peer's receives.
 */
static void assert_credits_in_order(const struct cs_sched *s)
{
	for (uint32_t r = 0; r < s->shape.nranks; r++) {
		const struct cs_rank *rk = &s->ranks[r];

		for (uint32_t p = 0; p < s->shape.nranks; p++) {
			uint32_t last = 0;

			for (uint32_t i = 0; i < rk->n; i++) {
				uint8_t op = rk->steps[i].op;
				uint32_t q;

				if ((op != CS_RECV_OP && op != CS_RECV_REDUCE) || rk->steps[i].peer != p)
					continue;
				q = cs_credit_point(rk, i);
				if (q < last)
					FAIL("%s: rank %u step %u from %u: credit at %u, before the previous receive's at %u",
					     s->algo, r, i, p, q, last);
				last = q;
			}
		}
	}
}

/* Generate and verify; the schedule, which the caller frees. */
static struct cs_sched *check(const char *name, const struct cs_shape *sh,
			      const struct algo_opts *o)
{
	const struct algo *a = find(name, sh->coll);
	const char *why = a->rejects(sh, o);
	struct cs_sched *s;
	char err[512];

	if (why)
		FAIL("%s %s N=%u count=%llu rejects: %s", name, cs_coll_name(sh->coll), sh->nranks,
		     (unsigned long long)sh->count, why);
	s = a->gen(sh, o);
	if (!s)
		FAIL("%s %s N=%u count=%llu: generator returned NULL", name,
		     cs_coll_name(sh->coll), sh->nranks, (unsigned long long)sh->count);
	if (cs_verify(s, err, sizeof(err))) {
		cs_print(s, stdout);
		FAIL("%s %s N=%u count=%llu root=%u %s slices=%u rpn=%u pat_buffer=%u: %s", name,
		     cs_coll_name(sh->coll), sh->nranks, (unsigned long long)sh->count, sh->root,
		     sh->in_place ? "in-place" : "out-of-place", o->slices, o->ranks_per_node,
		     o->pat_buffer, err);
	}
	assert_credits_in_order(s);
	return s;
}

static uint32_t log2up(uint32_t n)
{
	uint32_t d = 0;

	while ((1u << d) < n)
		d++;
	return d;
}

static uint32_t sends_of(const struct cs_sched *s, uint32_t r)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < s->ranks[r].n; i++)
		k += s->ranks[r].steps[i].op == CS_SEND_OP;
	return k;
}

static uint32_t steps_total(const struct cs_sched *s)
{
	uint32_t k = 0;

	for (uint32_t r = 0; r < s->shape.nranks; r++)
		k += s->ranks[r].n;
	return k;
}

/* An extra check on each schedule of a sweep. */
typedef void sweep_check(const struct cs_sched *s, const struct algo_opts *o);

/*
 * Verify @name on @sh for every count up to @max, in and out of place,
 * then run @extra; shapes it rejects are skipped and counted in *@rejected
 * if that is given, else they fail.  The number verified.
 */
static unsigned int sweep_upto(const char *name, struct cs_shape sh, const struct algo_opts *o,
			       uint64_t max, sweep_check *extra, unsigned int *rejected)
{
	unsigned int k = 0;

	for (size_t ci = 0; ci < NCOUNTS && counts[ci] <= max; ci++) {
		for (int ip = 0; ip < 2; ip++) {
			struct cs_sched *s;

			sh.count = counts[ci];
			sh.in_place = ip;
			if (rejected && find(name, sh.coll)->rejects(&sh, o)) {
				(*rejected)++;
				continue;
			}
			s = check(name, &sh, o);
			if (extra)
				extra(s, o);
			cs_free(s);
			k++;
		}
	}
	return k;
}

static unsigned int sweep(const char *name, struct cs_shape sh, const struct algo_opts *o,
			  sweep_check *extra, unsigned int *rejected)
{
	return sweep_upto(name, sh, o, UINT64_MAX, extra, rejected);
}

/* --- every root, every slice count ------------------------------------------ */

TEST(binomial_and_chain_every_root)
{
	static const char *const names[] = { "binomial", "chain" };
	static const uint8_t colls[] = { CS_BROADCAST, CS_REDUCE_COLL };
	unsigned int checked = 0;

	for (int a = 0; a < 2; a++) {
		for (int c = 0; c < 2; c++) {
			for (uint32_t n = 1; n <= 8; n++) {
				for (uint32_t root = 0; root < n; root++) {
					struct cs_shape sh = {
						.coll = colls[c], .nranks = n, .root = root,
					};
					struct algo_opts o = { .channels = 1 };

					for (o.slices = 1; o.slices <= 4; o.slices++)
						checked += sweep(names[a], sh, &o, NULL, NULL);
				}
			}
		}
	}
	ccore_test_log("%u schedules verified", checked);
}

TEST(alltoall_and_p2p_slices)
{
	unsigned int checked = 0;

	for (uint32_t n = 1; n <= 9; n++) {
		struct cs_shape sh = { .coll = CS_ALLTOALL, .nranks = n };
		struct algo_opts o = { .channels = 1 };

		for (o.slices = 1; o.slices <= 4; o.slices++) {
			sh.coll = CS_ALLTOALL;
			checked += sweep("pairwise", sh, &o, NULL, NULL);
			checked += sweep("bruck", sh, &o, NULL, NULL);
			sh.coll = CS_SENDRECV;
			for (sh.root = 0; sh.root < n; sh.root++)
				for (sh.peer = 0; sh.peer < n; sh.peer++)
					checked += sweep("p2p", sh, &o, NULL, NULL);
		}
	}
	ccore_test_log("%u schedules verified", checked);
}

TEST(count_zero_has_no_steps)
{
	static const char *const names[] = { "pairwise", "bruck", "binomial", "chain", "p2p",
					     "pat", "hier", "hier-pat" };
	struct algo_opts o = { .slices = 2, .channels = 1, .ranks_per_node = 2 };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (uint32_t coll = 0; coll < CS_NCOLL; coll++) {
			struct cs_shape sh = { .coll = (uint8_t)coll, .nranks = 4, .peer = 3 };
			struct cs_sched *s;

			if (!algo_find(names[i], coll))
				continue;
			s = check(names[i], &sh, &o);
			ASSERT_EQ(steps_total(s), 0);
			cs_free(s);
		}
}

/* --- PAT ------------------------------------------------------------------------- */

/* The buffer bound of pat.c: pat_buffer, else max(4 * count, 256). */
static uint64_t pat_bound(const struct cs_shape *sh, const struct algo_opts *o)
{
	if (o->pat_buffer)
		return o->pat_buffer;
	return 4 * sh->count > 256 ? 4 * sh->count : 256;
}

static void pat_within_bound(const struct cs_sched *s, const struct algo_opts *o)
{
	ASSERT_LE(s->tmp_count, pat_bound(&s->shape, o));
}

TEST(pat_small_buffers_stay_within_bound)
{
	static const uint32_t ns[] = { 1, 2, 3, 4, 5, 7, 8, 12, 16 };
	static const uint32_t bufs[] = { 0, 3, 5, 8, 16, 40, 100 };
	unsigned int checked = 0, rejected = 0;

	for (int c = 0; c < 2; c++) {
		for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ni++) {
			for (size_t bi = 0; bi < sizeof(bufs) / sizeof(bufs[0]); bi++) {
				struct cs_shape sh = {
					.coll = c ? CS_REDUCESCATTER : CS_ALLGATHER,
					.nranks = ns[ni],
				};
				struct algo_opts o = { .channels = 1, .pat_buffer = bufs[bi] };
				/* tiny buffers and big blocks: thousands of pieces,
				 * slow to verify (N = 32 below) */
				uint64_t max = bufs[bi] && bufs[bi] < 16 ? 13 : UINT64_MAX;
				unsigned int no = 0;

				for (o.slices = 1; o.slices <= 3; o.slices += 2)
					checked += sweep_upto("pat", sh, &o, max, pat_within_bound,
							      &no);
				/* only ReduceScatter, only below its linear need */
				if (no && (!c || bufs[bi] == 0 || bufs[bi] > 5))
					FAIL("pat rejected %u shapes: %s N=%u pat_buffer=%u", no,
					     cs_coll_name(sh.coll), sh.nranks, bufs[bi]);
				rejected += no;
			}
		}
	}
	ccore_test_log("%u schedules verified within the bound, %u rejected", checked, rejected);
}

TEST(pat_tiny_buffer_many_ranks)
{
	for (int c = 0; c < 2; c++) {
		struct cs_shape sh = {
			.coll = c ? CS_REDUCESCATTER : CS_ALLGATHER, .nranks = 32, .count = 13,
		};
		struct algo_opts o = { .slices = 1, .channels = 1, .pat_buffer = 5 };
		struct cs_sched *s = check("pat", &sh, &o);

		ASSERT_LE(s->tmp_count, 5);
		cs_free(s);
	}
}

TEST(pat_rejects_a_buffer_too_small)
{
	struct cs_shape sh = { .coll = CS_REDUCESCATTER, .nranks = 16, .count = 8 };
	struct algo_opts o = { .slices = 1, .channels = 1, .pat_buffer = 1 };
	const char *why = find("pat", sh.coll)->rejects(&sh, &o);

	ASSERT_STR_CONTAINS(why, "pat_buffer");
	sh.coll = CS_ALLGATHER;		/* the linear AllGather needs no TMP */
	ASSERT_TRUE(find("pat", sh.coll)->rejects(&sh, &o) == NULL);
}

/* With room to spare PAT is the farthest-first Bruck: ceil(log2 N) sends. */
TEST(pat_is_logarithmic_with_a_large_buffer)
{
	for (uint32_t n = 2; n <= 32; n++) {
		for (int c = 0; c < 2; c++) {
			struct cs_shape sh = {
				.coll = c ? CS_REDUCESCATTER : CS_ALLGATHER, .nranks = n,
				.count = 8,
			};
			struct algo_opts o = { .slices = 1, .channels = 1, .pat_buffer = 1 << 20 };
			struct cs_sched *s = check("pat", &sh, &o);

			for (uint32_t r = 0; r < n; r++)
				ASSERT_EQ(sends_of(s, r), log2up(n));
			/* the first transfer goes farthest: half way round the ring */
			if (!c)
				ASSERT_EQ(s->ranks[0].steps[1].peer, 1u << (log2up(n) - 1));
			ASSERT_LE(s->tmp_count, o.pat_buffer);
			cs_free(s);
		}
	}
}

/* --- hier ------------------------------------------------------------------------- */

/* Transfers that cross nodes outside a column (different local index). */
static uint32_t off_column(const struct cs_sched *s, uint32_t g)
{
	uint32_t bad = 0;

	for (uint32_t r = 0; r < s->shape.nranks; r++)
		for (uint32_t i = 0; i < s->ranks[r].n; i++) {
			const struct cs_step *st = &s->ranks[r].steps[i];

			if (st->op >= CS_SEND_OP && st->peer / g != r / g && st->peer % g != r % g)
				bad++;
		}
	return bad;
}

static void hier_in_columns(const struct cs_sched *s, const struct algo_opts *o)
{
	ASSERT_EQ(off_column(s, o->ranks_per_node), 0);
}

TEST(hier_verifies_and_stays_in_columns)
{
	static const char *const names[] = { "hier", "hier-pat" };
	static const uint8_t colls[] = { CS_ALLGATHER, CS_REDUCESCATTER, CS_ALLREDUCE };
	static const uint32_t ns[] = { 4, 8, 16 }, gs[] = { 2, 4 };
	unsigned int checked = 0;

	for (int a = 0; a < 2; a++) {
		for (int c = 0; c < 3; c++) {
			if (!algo_find(names[a], colls[c]))
				continue;
			for (size_t ni = 0; ni < 3; ni++) {
				for (size_t gi = 0; gi < 2 && gs[gi] * 2 <= ns[ni]; gi++) {
					struct cs_shape sh = { .coll = colls[c], .nranks = ns[ni] };
					struct algo_opts o = {
						.channels = 1, .ranks_per_node = gs[gi],
						.pat_buffer = 16,
					};

					for (o.slices = 1; o.slices <= 3; o.slices += 2)
						checked += sweep(names[a], sh, &o, hier_in_columns,
								 NULL);
				}
			}
		}
	}
	ccore_test_log("%u schedules verified", checked);
}

/* Sends of rank @r to another node. */
static uint32_t sends_across(const struct cs_sched *s, uint32_t r, uint32_t g)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < s->ranks[r].n; i++)
		k += s->ranks[r].steps[i].op == CS_SEND_OP && s->ranks[r].steps[i].peer / g != r / g;
	return k;
}

/*
 * Fewer elements than ranks per node: only the nodes' local ranks 0 cross
 * nodes, each sending once to every other leader (mesh_oneshot between up
 * to 8 nodes; one exchange between two), where every column used to.
 * Across hosts each such send is a network message through a proxy.
 */
TEST(hier_allreduce_below_g_crosses_nodes_between_leaders_only)
{
	static const uint32_t gs[] = { 2, 4, 8 }, ms[] = { 2, 3, 5 };

	for (size_t gi = 0; gi < sizeof(gs) / sizeof(gs[0]); gi++)
		for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); mi++)
			for (uint64_t count = 1; count < gs[gi]; count += gs[gi] - 2 ?: 1)
				for (int ip = 0; ip < 2; ip++) {
					struct cs_shape sh = { .coll = CS_ALLREDUCE,
							       .nranks = gs[gi] * ms[mi],
							       .count = count, .in_place = ip };
					struct algo_opts o = { .slices = 1, .channels = 1,
							       .ranks_per_node = gs[gi] };
					struct cs_sched *s = check("hier", &sh, &o);

					for (uint32_t r = 0; r < sh.nranks; r++)
						ASSERT_EQ(sends_across(s, r, gs[gi]),
							  (r % gs[gi] ? 0u : ms[mi] - 1));
					cs_free(s);
				}
}

/*
 * Hierarchical AllReduce of every small count: below G (all of it the
 * leftover), around G and 2G, and odd ones, for nodes from 2 to 12 ranks
 * wide and 2 to 5 of them, slices 1 and 2, in and out of place.  A shape
 * hier accepts must build a schedule that verifies (two nodes of 12 ranks
 * and 11 elements once built none: a column step waited for more than
 * CS_MAX_DEPS node steps).
 */
TEST(hier_allreduce_builds_every_small_count)
{
	static const uint32_t gs[] = { 2, 3, 5, 8, 12, 16, 32 }, ms[] = { 2, 3, 5 };
	unsigned int checked = 0;

	for (size_t gi = 0; gi < sizeof(gs) / sizeof(gs[0]); gi++)
		for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); mi++) {
			uint32_t G = gs[gi], M = ms[mi];
			struct algo_opts o = { .channels = 1, .ranks_per_node = G };

			if (G * M > 64)		/* the verifier's limit */
				continue;
			for (uint64_t count = 1; count <= 2 * G + 3; count++)
				for (o.slices = 1; o.slices <= 2; o.slices++) {
					struct cs_shape sh = {
						.coll = CS_ALLREDUCE, .nranks = G * M,
						.count = count,
						.in_place = (count + o.slices) % 2,
					};
					struct cs_sched *s = check("hier", &sh, &o);

					hier_in_columns(s, &o);
					cs_free(s);
					checked++;
				}
		}
	ccore_test_log("%u schedules verified", checked);
}

/* The column check bites: a flat ring crosses nodes between columns. */
TEST(hier_column_check_catches_a_flat_ring)
{
	struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = 16, .count = 64 };
	struct algo_opts o = { .slices = 1, .channels = 1, .ranks_per_node = 4 };
	struct cs_sched *h = check("hier", &sh, &o), *f = check("ring", &sh, &o);

	ASSERT_EQ(off_column(h, 4), 0);
	ASSERT_GT(off_column(f, 4), 0);
	cs_free(h);
	cs_free(f);
}

TEST(hier_rejects_bad_geometry)
{
	const struct algo *a = find("hier", CS_ALLREDUCE);
	struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = 8, .count = 8 };
	struct algo_opts o = { .slices = 1, .channels = 1 };
	struct cs_sched *s;

	ASSERT_STR_CONTAINS(a->rejects(&sh, &o), "ranks_per_node >= 2");
	o.ranks_per_node = 3;
	ASSERT_STR_CONTAINS(a->rejects(&sh, &o), "does not divide");
	o.ranks_per_node = 8;
	ASSERT_STR_CONTAINS(a->rejects(&sh, &o), "two nodes");
	o.ranks_per_node = 4;
	ASSERT_TRUE(a->rejects(&sh, &o) == NULL);
	/* asked anyway, the generator says why it built nothing, not "out of memory" */
	o.ranks_per_node = 8;
	s = a->gen(&sh, &o);
	ASSERT_STR_CONTAINS(cs_unusable(s), "two nodes");
	cs_free(s);
	/* PAT serves no AllReduce, so hier-pat does not either */
	ASSERT_TRUE(algo_find("hier-pat", CS_ALLREDUCE) == NULL);
}

/* --- structure ------------------------------------------------------------------- */

TEST(bruck_sends_log2_times)
{
	for (uint32_t n = 1; n <= 20; n++) {
		struct cs_shape sh = { .coll = CS_ALLTOALL, .nranks = n, .count = 5 };
		struct algo_opts o = { .slices = 1, .channels = 1 };
		struct cs_sched *s = check("bruck", &sh, &o);

		for (uint32_t r = 0; r < n; r++)
			ASSERT_EQ(sends_of(s, r), log2up(n));
		cs_free(s);
	}
}

TEST(pairwise_sends_once_per_peer)
{
	for (uint32_t n = 1; n <= 9; n++) {
		for (int ip = 0; ip < 2; ip++) {
			struct cs_shape sh = { .coll = CS_ALLTOALL, .nranks = n, .count = 3,
					       .in_place = ip };
			struct algo_opts o = { .slices = 1, .channels = 1 };
			struct cs_sched *s = check("pairwise", &sh, &o);

			for (uint32_t r = 0; r < n; r++) {
				uint32_t k = 0;

				for (uint32_t i = 0; i < s->ranks[r].n; i++) {
					const struct cs_step *st = &s->ranks[r].steps[i];

					if (st->op != CS_SEND_OP)
						continue;
					k++;	/* round k goes to r + k */
					ASSERT_EQ(st->peer, (r + k) % n);
				}
				ASSERT_EQ(k, n - 1);
			}
			ASSERT_U64_EQ(s->tmp_count, ip ? n / 2 * 3 : 0);
			cs_free(s);
		}
	}
}

TEST(binomial_root_sends_log2_per_slice)
{
	for (uint32_t n = 1; n <= 16; n++) {
		for (uint32_t sl = 1; sl <= 4; sl++) {
			struct cs_shape sh = { .coll = CS_BROADCAST, .nranks = n, .count = 64,
					       .root = n / 2 };
			struct algo_opts o = { .slices = sl, .channels = 1 };
			struct cs_sched *s = check("binomial", &sh, &o);
			uint32_t depth = 0;

			ASSERT_EQ(sends_of(s, sh.root), log2up(n) * sl);
			/* and nobody receives more than once per slice */
			for (uint32_t r = 0; r < n; r++) {
				uint32_t recvs = s->ranks[r].n - sends_of(s, r);

				if (r != sh.root)
					ASSERT_EQ(recvs, sl);
				if (sends_of(s, r) / sl > depth)
					depth = sends_of(s, r) / sl;
			}
			ASSERT_EQ(depth, log2up(n));
			cs_free(s);
		}
	}
}

TEST(chain_is_a_chain)
{
	struct cs_shape sh = { .coll = CS_REDUCE_COLL, .nranks = 7, .count = 30, .root = 3 };
	struct algo_opts o = { .slices = 3, .channels = 1 };
	struct cs_sched *s = check("chain", &sh, &o);

	/* rank root+k sends only to root+k-1, three slices each */
	for (uint32_t r = 0; r < 7; r++) {
		ASSERT_EQ(sends_of(s, r), r == sh.root ? 0 : 3);
		for (uint32_t i = 0; i < s->ranks[r].n; i++)
			if (s->ranks[r].steps[i].op == CS_SEND_OP)
				ASSERT_EQ(s->ranks[r].steps[i].peer, (r + 6) % 7);
	}
	cs_free(s);
}

TEST(p2p_self_is_a_copy)
{
	struct cs_shape sh = { .coll = CS_SENDRECV, .nranks = 1, .count = 9 };
	struct algo_opts o = { .slices = 3, .channels = 1 };
	struct cs_sched *s = check("p2p", &sh, &o);

	ASSERT_EQ(s->ranks[0].n, 1);
	ASSERT_EQ(s->ranks[0].steps[0].op, CS_COPY);
	cs_free(s);
	sh.in_place = true;
	s = check("p2p", &sh, &o);
	ASSERT_EQ(s->ranks[0].n, 0);
	cs_free(s);
	sh = (struct cs_shape){ .coll = CS_SENDRECV, .nranks = 4, .count = 9, .root = 1,
				.peer = 4 };
	ASSERT_STR_CONTAINS(find("p2p", CS_SENDRECV)->rejects(&sh, &o), "peer");
}

/* --- hier end to end ------------------------------------------------------------ */

#define E2E_MAXN 16
#define E2E_BYTES ((size_t)1000 * E2E_MAXN * 4 + 64)

/* @coll (enum cs_coll, enum ccore_coll_op's order from 0) of @count f32 summed */
static struct coll_call e2e_call(uint8_t coll, uint64_t count, bool ip)
{
	return (struct coll_call){
		.op = (enum ccore_coll_op)(ccore_op_allreduce + coll), .count = count,
		.dtype = ccore_f32, .redop = ccore_sum, .in_place = ip,
	};
}

static void e2e_ptrs(const struct timed_world *w, const struct coll_call *c, int r, ccore_ptr *s,
		     ccore_ptr *rv)
{
	coll_call_ptrs(c, r, w->sb[r], w->rb[r], s, rv);
}

static long e2e_wrong(const struct timed_world *w, const struct coll_call *c)
{
	long wrong = 0;

	for (int r = 0; r < w->n; r++) {
		ccore_ptr s, rv;

		e2e_ptrs(w, c, r, &s, &rv);
		wrong += coll_call_wrong(c, r, w->n, ccore_mem_host(w->c[r], rv));
	}
	return wrong;
}

static void e2e_run(struct timed_world *w, const char *algo, uint8_t coll, uint64_t count, bool ip)
{
	struct coll_call c = e2e_call(coll, count, ip);
	ccore_ptr s, rv;
	int rc;

	for (int r = 0; r < w->n; r++) {
		e2e_ptrs(w, &c, r, &s, &rv);
		memset(ccore_mem_host(w->c[r], w->rb[r]), 0x5c, E2E_BYTES);
		coll_call_fill(&c, r, w->n, ccore_mem_host(w->c[r], s));
	}
	rc = ccore_group_start();
	for (int r = 0; r < w->n && !rc; r++) {
		e2e_ptrs(w, &c, r, &s, &rv);
		rc = coll_call_post(&c, r, w->n, s, rv, w->c[r], NULL);
	}
	rc = rc ?: ccore_group_end();
	for (int r = 0; r < w->n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->c[r]));
	if (rc)
		FAIL("%s %s N=%d count=%llu: %d: %s", algo, cs_coll_name(coll), w->n,
		     (unsigned long long)count, rc, ccore_last_error());
	if (strcmp(ccore_comm_last_algo(w->c[0]), algo))
		FAIL("%s %s N=%d: ran %s instead", algo, cs_coll_name(coll), w->n,
		     ccore_comm_last_algo(w->c[0]));
	if (e2e_wrong(w, &c))
		FAIL("%s %s N=%d count=%llu %s: %ld wrong elements", algo, cs_coll_name(coll), w->n,
		     (unsigned long long)count, ip ? "in-place" : "out-of-place", e2e_wrong(w, &c));
}

TEST(hier_end_to_end_on_multi_node_systems)
{
	static const uint32_t shapes[][2] = { { 2, 2 }, { 2, 4 }, { 4, 2 }, { 4, 4 } };
	static const uint64_t ecounts[] = { 1, 13, 1000 };
	static const uint8_t colls[] = { CS_ALLREDUCE, CS_ALLGATHER, CS_REDUCESCATTER };
	const char *backend = getenv("CCORE_DEVICE");
	unsigned int runs = 0;

	/* a kernel fabric is one node; the sim backend is shaped to fit */
	if (backend && *backend && strcmp(backend, "sim"))
		ccore_test_skip("needs the sim backend: multi-node fabrics");
	for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); si++) {
		struct timed_world w;

		timed_world_open(&w, &(struct ccore_topology){ shapes[si][0], shapes[si][1], 1 }, "",
				 E2E_BYTES);
		for (int a = 0; a < 2; a++)
			for (size_t c = 0; c < 3; c++)
				for (size_t ci = 0; ci < 3; ci++)
					for (int ip = 0; ip < 2; ip++) {
						const char *name = a ? "hier-pat" : "hier";

						if (!algo_find(name, colls[c]))
							continue;
						setenv("CCORE_ALGO", name, 1);
						e2e_run(&w, name, colls[c], ecounts[ci], ip);
						runs++;
					}
		timed_world_close(&w);
	}
	unsetenv("CCORE_ALGO");
	ccore_test_log("%u collectives checked", runs);
}
