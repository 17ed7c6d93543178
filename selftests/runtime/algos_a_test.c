// SPDX-License-Identifier: GPL-2.0
/*
 * The algorithms mesh, mesh_oneshot, rdh, dbt, flatring and
 * kangaring: their schedules pass the verifier with non-default options
 * (channels, ranks per device, slices) and for every N up to 40; count 0
 * gives no steps; and each schedule has the structure of the algorithm it
 * claims to be.  The steps per rank at N = 8 are logged, with default
 * options and with 2 slices, 2 channels and 2 ranks per device (s2 c2 d2).
 */
#include "ccore_test.h"
#include "algos/algo.h"

static const uint32_t ranks[] = { 1, 2, 3, 4, 5, 7, 8, 16 };
static const uint64_t counts[] = { 0, 1, 2, 3, 7, 13, 64, 101 };
static const char *const names[] = {
	"mesh", "mesh_oneshot", "rdh", "dbt", "flatring", "kangaring",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static struct cs_sched *gen(const char *name, unsigned int coll, uint32_t n, uint64_t count,
			    bool in_place, const struct algo_opts *o)
{
	const struct algo *a = algo_find(name, coll);
	struct cs_shape sh = {
		.coll = (uint8_t)coll, .nranks = n, .count = count, .in_place = in_place,
	};
	struct cs_sched *s;

	if (!a)
		FAIL("%s does not serve %s", name, cs_coll_name(coll));
	if (a->rejects(&sh, o))
		return NULL;
	s = a->gen(&sh, o);
	if (!s)
		FAIL("%s %s N=%u count=%llu: generator returned NULL", name, cs_coll_name(coll), n,
		     (unsigned long long)count);
	return s;
}

static void check(struct cs_sched *s, const struct algo_opts *o)
{
	char err[512];

	if (!cs_verify(s, err, sizeof(err)))
		return;
	cs_print(s, stdout);
	FAIL("%s %s N=%u count=%llu %s slices=%u channels=%u ranks_per_device=%u: %s", s->algo,
	     cs_coll_name(s->shape.coll), s->shape.nranks, (unsigned long long)s->shape.count,
	     s->shape.in_place ? "in-place" : "out-of-place", o->slices, o->channels,
	     o->ranks_per_device, err);
}

/* Verify @name for every collective it serves over @ns x @cs, both placements. */
static unsigned int sweep(const char *name, const struct algo_opts *o, const uint32_t *ns,
			  size_t nn, const uint64_t *cs, size_t nc)
{
	unsigned int checked = 0;

	for (unsigned int coll = 0; coll < CS_NCOLL; coll++) {
		if (!algo_find(name, coll))
			continue;
		for (size_t ni = 0; ni < nn; ni++)
			for (size_t ci = 0; ci < nc; ci++)
				for (int ip = 0; ip < 2; ip++) {
					struct cs_sched *s = gen(name, coll, ns[ni], cs[ci], ip, o);

					if (!s)
						continue;
					check(s, o);
					cs_free(s);
					checked++;
				}
	}
	return checked;
}

static unsigned int sweep_std(const char *name, const struct algo_opts *o)
{
	return sweep(name, o, ranks, ARRAY_LEN(ranks), counts, ARRAY_LEN(counts));
}

TEST(flatring_channels_and_slices)
{
	unsigned int n = 0;

	for (uint32_t ch = 1; ch <= 4; ch++)
		for (uint32_t sl = 1; sl <= 4; sl++) {
			struct algo_opts o = { .slices = sl, .channels = ch };

			n += sweep_std("flatring", &o);
		}
	ccore_test_log("flatring: %u schedules verified (channels 1..4, slices 1..4)", n);
	ASSERT_GT(n, 0);
}

TEST(kangaring_devices_and_slices)
{
	static const uint32_t more[] = { 2, 4, 6, 8, 12, 16, 20, 24 };
	unsigned int n = 0;

	for (uint32_t d = 2; d <= 4; d++)
		for (uint32_t sl = 1; sl <= 4; sl++) {
			struct algo_opts o = { .slices = sl, .channels = 1, .ranks_per_device = d };

			n += sweep_std("kangaring", &o);
			n += sweep("kangaring", &o, more, ARRAY_LEN(more), counts,
				   ARRAY_LEN(counts));
		}
	ccore_test_log("kangaring: %u schedules verified (ranks_per_device 2..4, slices 1..4)", n);
	ASSERT_GT(n, 0);
}

TEST(sliced_algorithms)
{
	for (size_t a = 0; a < ARRAY_LEN(names); a++) {
		unsigned int n = 0;

		for (uint32_t sl = 2; sl <= 4; sl++) {
			struct algo_opts o = { .slices = sl, .channels = 1 };

			n += sweep_std(names[a], &o);
		}
		ccore_test_log("%s: %u schedules verified (slices 2..4)", names[a], n);
		ASSERT_GT(n, 0);
	}
}

/* Every N up to 40: odd sizes, non-powers of two, trees of every shape. */
TEST(every_size_up_to_40)
{
	uint32_t ns[40];
	static const uint64_t cs[] = { 1, 5, 97 };

	for (uint32_t i = 0; i < 40; i++)
		ns[i] = i + 1;
	for (size_t a = 0; a < ARRAY_LEN(names); a++) {
		struct algo_opts o = { .slices = 1, .channels = 2, .ranks_per_device = 2 };
		unsigned int n = sweep(names[a], &o, ns, 40, cs, ARRAY_LEN(cs));

		o = (struct algo_opts){ .slices = 2, .channels = 1, .ranks_per_device = 4 };
		n += sweep(names[a], &o, ns, 40, cs, ARRAY_LEN(cs));
		ccore_test_log("%s: %u schedules verified (N = 1..40)", names[a], n);
		ASSERT_GT(n, 0);
	}
}

TEST(count_zero_is_empty)
{
	struct algo_opts o = { .slices = 3, .channels = 2, .ranks_per_device = 2 };

	for (size_t a = 0; a < ARRAY_LEN(names); a++)
		for (unsigned int coll = 0; coll < CS_NCOLL; coll++) {
			if (!algo_find(names[a], coll))
				continue;
			for (size_t ni = 0; ni < ARRAY_LEN(ranks); ni++) {
				struct cs_sched *s = gen(names[a], coll, ranks[ni], 0, false, &o);

				for (uint32_t r = 0; s && r < ranks[ni]; r++)
					ASSERT_EQ(s->ranks[r].n, 0);
				cs_free(s);
			}
		}
}

TEST(rejects_say_why)
{
	const struct algo *k = algo_find("kangaring", CS_ALLREDUCE);
	const struct algo *f = algo_find("flatring", CS_ALLREDUCE);
	struct cs_shape sh = { .coll = CS_ALLREDUCE, .nranks = 6, .count = 8 };
	struct algo_opts o = { .slices = 1, .channels = 1, .ranks_per_device = 4 };

	ASSERT_STR_CONTAINS(k->rejects(&sh, &o), "ranks_per_device to divide N");
	o.ranks_per_device = 3;
	ASSERT_TRUE(k->rejects(&sh, &o) == NULL);
	o.ranks_per_device = 0;
	ASSERT_TRUE(k->rejects(&sh, &o) == NULL);
	o.channels = 65;
	ASSERT_STR_CONTAINS(f->rejects(&sh, &o), "channels");
	for (size_t a = 0; a < ARRAY_LEN(names); a++) {
		struct algo_opts d = { .slices = 1, .channels = 1 };

		sh.nranks = 1;
		ASSERT_TRUE(algo_find(names[a], CS_ALLREDUCE)->rejects(&sh, &d) == NULL);
	}
}

/* --- structure ------------------------------------------------------------ */

struct census {
	uint32_t sends, recvs;
	uint64_t sent;			/* elements */
	uint64_t peers;			/* bit set of ranks sent to (N <= 64) */
};

static void census(const struct cs_sched *s, uint32_t r, struct census *c)
{
	*c = (struct census){ 0 };
	for (uint32_t i = 0; i < s->ranks[r].n; i++) {
		const struct cs_step *st = &s->ranks[r].steps[i];

		if (st->op == CS_SEND_OP) {
			c->sends++;
			c->sent += st->count;
			c->peers |= 1ull << st->peer;
		} else if (st->op == CS_RECV_OP || st->op == CS_RECV_REDUCE) {
			c->recvs++;
		}
	}
}

static uint32_t popcount(uint64_t v)
{
	return (uint32_t)__builtin_popcountll(v);
}

static uint64_t all_but(uint32_t n, uint32_t r)
{
	return (n == 64 ? ~0ull : (1ull << n) - 1) & ~(1ull << r);
}

static void log_steps(const char *name, unsigned int coll, bool variant)
{
	struct algo_opts o = { .slices = 1, .channels = 1 };
	struct cs_sched *s;
	char line[256];
	size_t len = 0;

	if (variant)
		o = (struct algo_opts){ .slices = 2, .channels = 2, .ranks_per_device = 2 };
	s = gen(name, coll, 8, 64, false, &o);
	for (uint32_t r = 0; r < 8; r++) {
		struct census c;

		census(s, r, &c);
		len += (size_t)snprintf(line + len, sizeof(line) - len, " %u/%u", s->ranks[r].n,
					c.sends);
	}
	ccore_test_log("%-12s %-13s %-8s steps/sends per rank:%s", name, cs_coll_name(coll),
		       variant ? "s2 c2 d2" : "defaults", line);
	cs_free(s);
}

/* N = 8, count 64, out of place. */
TEST(steps_per_rank_at_8)
{
	for (size_t a = 0; a < ARRAY_LEN(names); a++)
		for (unsigned int coll = 0; coll < CS_NCOLL; coll++) {
			if (!algo_find(names[a], coll))
				continue;
			log_steps(names[a], coll, false);
			log_steps(names[a], coll, true);
		}
}

/* Mesh: one direct transfer to every peer (per phase); oneshot: whole input. */
TEST(mesh_is_one_direct_step)
{
	struct algo_opts o = { .slices = 1, .channels = 1 };
	struct census c;

	for (uint32_t n = 2; n <= 16; n++) {
		for (unsigned int coll = 0; coll < CS_NCOLL; coll++) {
			uint32_t phases = coll == CS_ALLREDUCE ? 2 : 1;
			struct cs_sched *s;

			if (!algo_find("mesh", coll))
				continue;
			/* every block non-empty */
			s = gen("mesh", coll, n, 8 * n, n % 2, &o);
			for (uint32_t r = 0; r < n; r++) {
				census(s, r, &c);
				ASSERT_EQ(c.peers, all_but(n, r));
				ASSERT_EQ(c.sends, phases * (n - 1));
				ASSERT_EQ(c.recvs, c.sends);
			}
			cs_free(s);
		}
		struct cs_sched *s = gen("mesh_oneshot", CS_ALLREDUCE, n, 64, n % 2, &o);

		for (uint32_t r = 0; r < n; r++) {
			census(s, r, &c);
			ASSERT_EQ(c.peers, all_but(n, r));
			ASSERT_EQ(c.sends, n - 1);
			ASSERT_U64_EQ(c.sent, (uint64_t)(n - 1) * 64);
		}
		cs_free(s);
	}
}

/*
 * Across X nodes of G ranks, rank g of node x sends its i-th message to
 * node x + i mod X, rank g + i / X (one node: r + i), so at every i the
 * sends form a permutation (no rank, hence no NIC, takes the whole
 * group's i-th messages) and every rank receives in that order too.  The
 * schedules verify.
 */
TEST(mesh_across_nodes_sends_node_by_node_in_step)
{
	static const uint32_t shapes[][2] = { { 2, 4 }, { 4, 2 }, { 2, 8 }, { 3, 4 }, { 4, 4 } };

	for (size_t k = 0; k < ARRAY_LEN(shapes); k++) {
		uint32_t X = shapes[k][0], G = shapes[k][1], n = X * G;
		struct algo_opts o = { .slices = 1, .channels = 1, .ranks_per_node = G };

		for (unsigned int coll = 0; coll < CS_NCOLL; coll++) {
			struct cs_sched *s;

			if (!algo_find("mesh", coll))
				continue;
			s = gen("mesh", coll, n, 8 * n, false, &o);
			check(s, &o);
			for (uint32_t i = 1; i < n; i++) {
				uint64_t hit = 0;

				for (uint32_t r = 0; r < n; r++) {
					uint32_t want = (r / G + i % X) % X * G + (r % G + i / X) % G;
					uint32_t sent = 0, got = 0, peer = UINT32_MAX, from = UINT32_MAX;

					/* the i-th send and receive of the first phase */
					for (uint32_t j = 0; j < s->ranks[r].n; j++) {
						const struct cs_step *st = &s->ranks[r].steps[j];

						if (st->op == CS_SEND_OP && ++sent == i)
							peer = st->peer;
						if ((st->op == CS_RECV_OP || st->op == CS_RECV_REDUCE) &&
						    ++got == i)
							from = st->peer;
					}
					ASSERT_EQ(peer, want);
					/* from is the rank whose i-th peer is r */
					ASSERT_EQ((from / G + i % X) % X * G + (from % G + i / X) % G, r);
					hit |= 1ull << peer;
				}
				ASSERT_EQ(popcount(hit), n);
			}
			cs_free(s);
		}
	}
}

/*
 * Power-of-two N, blocks of 4: the k-th send goes to r ^ 2^h and carries
 * 2^h blocks, h = log2(N)-1 .. 0 while halving, 0 .. log2(N)-1 while
 * doubling.
 */
static void check_rdh_pow2(const struct cs_sched *s, uint32_t lg)
{
	uint32_t n = s->shape.nranks, coll = s->shape.coll;

	for (uint32_t r = 0; r < n; r++) {
		uint32_t k = 0;

		for (uint32_t i = 0; i < s->ranks[r].n; i++) {
			const struct cs_step *st = &s->ranks[r].steps[i];
			/* halving sends 4 << h elements, doubling 4 << k - lg */
			uint32_t h = k < lg ? lg - 1 - k : k - lg, bit = h;

			if (st->op != CS_SEND_OP)
				continue;
			if (coll == CS_ALLGATHER)
				h = bit = k;
			/* AllReduce halves nearest first, doubles back out */
			if (coll == CS_ALLREDUCE)
				bit = k < lg ? k : lg - 1 - (k - lg);
			ASSERT_EQ(st->peer, r ^ (1u << bit));
			ASSERT_U64_EQ(st->count, 4ull << h);
			k++;
		}
		ASSERT_EQ(k, (coll == CS_ALLREDUCE ? 2 : 1) * lg);
	}
}

/* Other N: the odd ranks below 2(N-P) talk only to their even neighbour. */
static void check_rdh_helpers(const struct cs_sched *s, uint32_t p)
{
	uint32_t n = s->shape.nranks;
	struct census c;

	for (uint32_t r = 1; r < 2 * (n - p); r += 2) {
		census(s, r, &c);
		ASSERT_EQ(c.peers, 1ull << (r - 1));
		ASSERT_EQ(c.sends, 1);
		ASSERT_EQ(c.recvs, s->shape.coll == CS_ALLGATHER && r + 1 < n ? 2 : 1);
	}
}

TEST(rdh_pairs_by_bits)
{
	struct algo_opts o = { .slices = 1, .channels = 1 };

	for (unsigned int coll = 0; coll < CS_NCOLL; coll++) {
		if (!algo_find("rdh", coll))
			continue;
		for (uint32_t n = 2, lg = 1; n <= 32; n *= 2, lg++) {
			uint64_t count = coll == CS_ALLREDUCE ? 4 * n : 4;
			struct cs_sched *s = gen("rdh", coll, n, count, n % 4 == 0, &o);

			check_rdh_pow2(s, lg);
			cs_free(s);
		}
		for (uint32_t n = 3, p = 2; n <= 40; n++) {
			struct cs_sched *s;

			if (n == 2 * p) {
				p = n;
				continue;
			}
			s = gen("rdh", coll, n, 64, false, &o);
			check_rdh_helpers(s, p);
			cs_free(s);
		}
	}
}

/*
 * DBT: tree w carries half w of the data (count 64: offsets below 32 or
 * not).  The ranks that exchange it form a spanning tree in which each
 * rank sends to at most 3 peers (parent, two children); a rank with
 * children receive-reduces from them, and has children in at most one of
 * the two trees (every rank for even N, all but one for odd N).
 */
static void dbt_edges(const struct cs_sched *s, uint64_t peers[2][64], uint64_t kids[2][64])
{
	for (uint32_t r = 0; r < s->shape.nranks; r++)
		for (uint32_t i = 0; i < s->ranks[r].n; i++) {
			const struct cs_step *st = &s->ranks[r].steps[i];
			int w = st->src.off >= 32;

			if (st->op == CS_SEND_OP) {
				peers[w][r] |= 1ull << st->peer;
				peers[w][st->peer] |= 1ull << r;
			}
			if (st->op == CS_RECV_REDUCE)
				kids[w][r] |= 1ull << st->peer;
		}
}

static void check_spanning_tree(const uint64_t *peers, uint32_t n)
{
	uint64_t seen = 1, grow = 1;
	uint32_t ends = 0;

	for (uint32_t r = 0; r < n; r++) {
		ASSERT_LE(popcount(peers[r]), 3);
		ends += popcount(peers[r]);
	}
	ASSERT_EQ(ends, 2 * (n - 1));	/* n - 1 edges */
	while (grow) {
		grow = 0;
		for (uint32_t r = 0; r < n; r++)
			if ((seen >> r & 1) && (peers[r] & ~seen)) {
				grow |= peers[r] & ~seen;
				seen |= peers[r];
			}
	}
	ASSERT_EQ(popcount(seen), n);	/* connected */
}

TEST(dbt_two_complementary_trees)
{
	for (uint32_t n = 2; n <= 40; n++) {
		for (uint32_t sl = 1; sl <= 3; sl++) {
			struct algo_opts o = { .slices = sl, .channels = 1 };
			struct cs_sched *s = gen("dbt", CS_ALLREDUCE, n, 64, sl == 2, &o);
			uint64_t peers[2][64] = { { 0 } }, kids[2][64] = { { 0 } };
			uint32_t both = 0, widest = 0;

			dbt_edges(s, peers, kids);
			check_spanning_tree(peers[0], n);
			check_spanning_tree(peers[1], n);
			for (uint32_t r = 0; r < n; r++) {
				uint32_t all = popcount(peers[0][r] | peers[1][r]);

				both += kids[0][r] && kids[1][r];
				widest = all > widest ? all : widest;
			}
			ASSERT_LE(both, n % 2);
			if (sl == 1 && (n == 8 || n == 16 || n == 33))
				ccore_test_log("dbt N=%u: %u ranks interior in both trees, at most %u peers per rank",
					       n, both, widest);
			cs_free(s);
		}
	}
}

static bool ref_eq(struct cs_ref a, struct cs_ref b)
{
	return a.buf == b.buf && a.off == b.off;
}

static bool step_eq(const struct cs_step *a, const struct cs_step *b)
{
	if (a->op != b->op || a->count != b->count || a->ndeps != b->ndeps)
		return false;
	if (a->op >= CS_SEND_OP && a->peer != b->peer)
		return false;
	if (a->op != CS_SEND_OP && !ref_eq(a->dst, b->dst))
		return false;
	if (a->op != CS_RECV_OP && !ref_eq(a->src, b->src))
		return false;
	if (a->op == CS_REDUCE && !ref_eq(a->src2, b->src2))
		return false;
	return !memcmp(a->deps, b->deps, a->ndeps * sizeof(a->deps[0]));
}

static void check_same(const struct cs_sched *f, const struct cs_sched *g)
{
	ASSERT_U64_EQ(f->tmp_count, g->tmp_count);
	for (uint32_t r = 0; r < f->shape.nranks; r++) {
		ASSERT_EQ(f->ranks[r].n, g->ranks[r].n);
		for (uint32_t i = 0; i < f->ranks[r].n; i++)
			ASSERT_TRUE(step_eq(&f->ranks[r].steps[i], &g->ranks[r].steps[i]));
	}
}

/* C channels: only the two ring neighbours, C x slices pieces per hop. */
static void check_channels(const struct cs_sched *s, uint32_t ch, uint32_t slices)
{
	uint32_t n = s->shape.nranks, hops = (s->shape.coll == CS_ALLREDUCE ? 2 : 1) * (n - 1);
	struct census c;

	for (uint32_t r = 0; r < n; r++) {
		census(s, r, &c);
		ASSERT_EQ(c.peers, 1ull << (r + 1) % n | 1ull << (r + n - 1) % n);
		ASSERT_EQ(c.sends, hops * ch * slices);
		ASSERT_EQ(c.recvs, c.sends);
	}
}

/* Flat ring: one channel is exactly the ring; more channels use both ways. */
TEST(flatring_is_rings)
{
	for (unsigned int coll = 0; coll < CS_NCOLL; coll++) {
		if (!algo_find("flatring", coll))
			continue;
		for (uint32_t n = 1; n <= 16; n++) {
			for (uint32_t sl = 1; sl <= 3; sl++)
				for (int ip = 0; ip < 2; ip++) {
					struct algo_opts o = { .slices = sl, .channels = 1 };
					struct cs_sched *f = gen("flatring", coll, n, 37, ip, &o);
					struct cs_sched *g = gen("ring", coll, n, 37, ip, &o);

					check_same(f, g);
					cs_free(f);
					cs_free(g);
				}
			for (uint32_t ch = 2; ch <= 4 && n > 2; ch++) {
				struct algo_opts o = { .slices = 2, .channels = ch };
				struct cs_sched *f;

				/* every piece non-empty */
				f = gen("flatring", coll, n, 16 * n * ch, false, &o);

				check_channels(f, ch, 2);
				cs_free(f);
			}
		}
	}
}

/*
 * KangaRing: a secondary talks only to its primary; a primary sends to the
 * next device's primary and its secondaries, receives from the previous
 * device's primary and its secondaries, and makes G-1 ring hops per pass
 * and slice (G = N/D devices).
 */
static void check_kangaring(const struct cs_sched *s, uint32_t d, uint32_t slices)
{
	uint32_t n = s->shape.nranks, g = n / d;
	uint32_t passes = s->shape.coll == CS_ALLREDUCE ? 2 : 1;

	for (uint32_t r = 0; r < n; r++) {
		uint32_t pri = r - r % d, next = (pri + d) % n, prev = (pri + n - d) % n, ring = 0;

		for (uint32_t i = 0; i < s->ranks[r].n; i++) {
			const struct cs_step *st = &s->ranks[r].steps[i];
			bool mine = st->peer > pri && st->peer < pri + d;

			if (st->op == CS_COPY || st->op == CS_REDUCE)
				continue;
			if (r != pri) {
				ASSERT_EQ(st->peer, pri);
				continue;
			}
			ASSERT_TRUE(mine || st->peer == (st->op == CS_SEND_OP ? next : prev));
			ring += st->op == CS_SEND_OP && !mine;
		}
		if (r == pri)
			ASSERT_EQ(ring, passes * (g - 1) * slices);
	}
}

TEST(kangaring_ring_over_primaries)
{
	static const uint32_t ns[] = { 2, 4, 6, 8, 12, 16, 24 };

	for (unsigned int coll = 0; coll < CS_NCOLL; coll++) {
		if (!algo_find("kangaring", coll))
			continue;
		for (size_t ni = 0; ni < ARRAY_LEN(ns); ni++)
			for (uint32_t d = 2; d <= 4; d++) {
				struct algo_opts o = { .slices = 2, .channels = 1 };
				struct cs_sched *s;

				o.ranks_per_device = d;
				s = gen("kangaring", coll, ns[ni], 64 * ns[ni], false, &o);

				if (!s)
					continue;
				check_kangaring(s, d, 2);
				cs_free(s);
			}
	}
}
