// SPDX-License-Identifier: MIT
/*
 * AllToAll: pairwise exchange ("pairwise") and Bruck ("bruck").
 * Reference: collective-algorithms.txt §7.2 and Appendix B.5.  Block j of a
 * rank's SEND goes to rank j; block j of its RECV comes from rank j.  Every
 * block is cut into o->slices slices that travel independently.
 *
 * Pairwise: N - 1 rounds; in round k rank r sends block (r + k) to r + k and
 * receives block (r - k) from r - k, plus the local copy of block r.  Out
 * of place nothing is shared, so no dependencies are needed.  In place
 * SEND and RECV are one buffer and the block received in round k < N/2 is
 * still to be sent in round N - k, so it lands in a TMP slot and is copied
 * home right after that send (the copy depends on the send).  Rounds
 * k > N/2 receive straight into a block that was sent in round N - k, with
 * a dependency on that send.  Round k = N/2 (even N) swaps a block with
 * one peer: receiving in place would make each side's credit wait for its
 * own send, a cycle, so it is staged too.  TMP: floor(N/2) blocks in place,
 * none out of place.
 *
 * Bruck: slot j of rank r's working array W (TMP) holds the data rank r
 * has for rank r + j.  Pre-rotation copies SEND into W; in round k
 * (k < ceil(log2 N)) every slot whose index has bit k set moves to rank
 * r + 2^k: the slots are packed into P, sent, received into Q and unpacked
 * into the same slots of W; post-rotation copies slot j into RECV block
 * r - j.  Slot 0 (own data) never moves and is copied SEND -> RECV
 * directly.  One send per round and slice: ceil(log2 N) sends per rank.
 * TMP: W (N - 1 blocks) + P + two Q (each floor(N/2) blocks).
 *   Dependencies, per slice (slices use disjoint elements of every area):
 *   the local steps (copies and sends) of a slice form one chain, each
 *   depending on the previous one, which orders pack after unpack, sends
 *   after their packs, and P's reuse after the send that read it.  The
 *   receive of round k depends on the last unpack of round k - 2, which
 *   read the same Q buffer; with two Q buffers that unpack precedes round
 *   k - 1's receive, so the credit is granted there, before this rank's own
 *   round-k send.  With a single Q the credit would wait for the send of
 *   round k, and every rank would wait on the next one around the cycle.
 */
#include "algo.h"
#include "algo_cost.h"

#include <stdlib.h>

/* --- pairwise ------------------------------------------------------------ */

static uint32_t a2a_slices(const struct algo_opts *o)
{
	return o->slices ? o->slices : 1;
}

/* In place, round @k's receive is staged in TMP slot k - 1 when k <= N/2. */
static bool pw_staged(uint32_t n, uint32_t k)
{
	return 2 * k <= n;
}

/*
 * Rank @r's rounds; @sent[k * slices + i] records the send of round k,
 * slice i, for the later round that receives into the same block.
 */
static void pw_rank(struct cs_sched *s, uint32_t r, uint32_t slices, uint32_t *sent)
{
	const struct cs_shape *sh = &s->shape;
	uint32_t n = sh->nranks;
	uint64_t c = sh->count, off, len;

	if (!sh->in_place)
		cs_copy(s, r, cs_at(CS_RECV, r * c), cs_at(CS_SEND, r * c), c);
	for (uint32_t k = 1; k < n; k++) {
		uint32_t to = (r + k) % n, from = algo_mod((int64_t)r - k, n), st;

		for (uint32_t i = 0; i < slices; i++) {
			algo_block(c, slices, i, &off, &len);
			if (!len)
				continue;
			sent[k * slices + i] = cs_send(s, r, to, cs_at(CS_SEND, to * c + off), len);
			if (!sh->in_place) {
				cs_recv(s, r, from, cs_at(CS_RECV, from * c + off), len);
				continue;
			}
			if (pw_staged(n, k)) {
				cs_recv(s, r, from, cs_at(CS_TMP, (k - 1) * c + off), len);
			} else {
				/* block `from` left in round n - k */
				st = cs_recv(s, r, from, cs_at(CS_RECV, from * c + off), len);
				cs_dep(s, r, st, sent[(n - k) * slices + i]);
			}
			/* block `to`, just sent, arrived in round n - k: bring it home */
			if (pw_staged(n, n - k)) {
				st = cs_copy(s, r, cs_at(CS_RECV, to * c + off),
					     cs_at(CS_TMP, (n - k - 1) * c + off), len);
				cs_dep(s, r, st, sent[k * slices + i]);
			}
		}
	}
}

static struct cs_sched *pw_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	uint32_t slices = a2a_slices(o), *sent;
	struct cs_sched *s = cs_new(shape, "pairwise");

	if (!s || !shape->count)
		return s;
	sent = calloc((size_t)shape->nranks * slices, sizeof(*sent));
	if (!sent) {
		cs_free(s);
		return NULL;
	}
	if (shape->in_place)
		s->tmp_count = shape->nranks / 2 * shape->count;
	for (uint32_t r = 0; r < shape->nranks; r++)
		pw_rank(s, r, slices, sent);
	free(sent);
	return s;
}

static const char *a2a_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	(void)s;
	(void)o;
	return NULL;
}

const struct algo algo_pairwise = {
	.name = "pairwise",
	.colls = 1u << CS_ALLTOALL,
	.rejects = a2a_rejects,
	.gen = pw_gen,
	.cost = cost_pairwise,
	.knobs = ALGO_KNOB_SLICES,
};

/* --- bruck ---------------------------------------------------------------- */

#define BK_MAX_ROUNDS 32

enum bk_area { BK_SEND, BK_RECV, BK_W, BK_P, BK_Q0, BK_Q1 };

struct bk_ctx {
	struct cs_sched *s;
	uint32_t r, n, rounds;
	uint64_t c;
	uint64_t h;		/* most slots moved in one round: P and Q size in blocks */
};

/* One slice's state: its element range and the chain of its local steps. */
struct bk_slice {
	uint64_t off, len;
	int64_t last;				/* last local step (-1: none) */
	int64_t unpack[BK_MAX_ROUNDS];		/* last unpack of each round */
};

static struct cs_ref bk_at(const struct bk_ctx *x, const struct bk_slice *sl, enum bk_area a,
			   uint64_t idx)
{
	uint64_t w = (x->n - 1) * x->c, packed = x->h * sl->off + idx * sl->len;

	switch (a) {
	case BK_SEND:
		return cs_at(CS_SEND, idx * x->c + sl->off);
	case BK_RECV:
		return cs_at(CS_RECV, idx * x->c + sl->off);
	case BK_W:
		return cs_at(CS_TMP, (idx - 1) * x->c + sl->off);
	case BK_P:
		return cs_at(CS_TMP, w + packed);
	default:
		return cs_at(CS_TMP, w + (1 + (a == BK_Q1)) * x->h * x->c + packed);
	}
}

/* Slot-indexed areas hold a slice's slots contiguously only unsliced. */
static bool bk_contig(const struct bk_ctx *x, const struct bk_slice *sl, enum bk_area a)
{
	return a == BK_P || a == BK_Q0 || a == BK_Q1 || sl->len == x->c;
}

/* Append a local step to the slice's chain. */
static uint32_t bk_chain(struct bk_ctx *x, struct bk_slice *sl, uint32_t st)
{
	if (sl->last >= 0)
		cs_dep(x->s, x->r, st, (uint32_t)sl->last);
	sl->last = st;
	return st;
}

/* Copy @cnt consecutive slots, as one step when both sides allow. */
static void bk_copy(struct bk_ctx *x, struct bk_slice *sl, enum bk_area da, uint64_t di,
		    enum bk_area sa, uint64_t si, uint64_t cnt)
{
	if (bk_contig(x, sl, da) && bk_contig(x, sl, sa)) {
		bk_chain(x, sl, cs_copy(x->s, x->r, bk_at(x, sl, da, di), bk_at(x, sl, sa, si),
					cnt * sl->len));
		return;
	}
	for (uint64_t k = 0; k < cnt; k++)
		bk_chain(x, sl, cs_copy(x->s, x->r, bk_at(x, sl, da, di + k),
					bk_at(x, sl, sa, si + k), sl->len));
}

/* Slots of round @k: runs [start, end) of indices with bit k set. */
static bool bk_run(const struct bk_ctx *x, uint32_t k, uint64_t m, uint64_t *start,
		   uint64_t *end)
{
	uint64_t bit = (uint64_t)1 << k;

	*start = m * 2 * bit + bit;
	if (*start >= x->n)
		return false;
	*end = *start + bit < x->n ? *start + bit : x->n;
	return true;
}

static uint64_t bk_moved(const struct bk_ctx *x, uint32_t k)
{
	uint64_t a, b, total = 0;

	for (uint64_t m = 0; bk_run(x, k, m, &a, &b); m++)
		total += b - a;
	return total;
}

static void bk_rotate(struct bk_ctx *x, struct bk_slice *sl)
{
	uint32_t r = x->r, n = x->n;

	if (!x->s->shape.in_place)
		cs_copy(x->s, r, bk_at(x, sl, BK_RECV, r), bk_at(x, sl, BK_SEND, r), sl->len);
	/* W[j] = SEND[(r + j) mod n] for j = 1 .. n-1, in two runs */
	if (r + 1 < n)
		bk_copy(x, sl, BK_W, 1, BK_SEND, r + 1, n - 1 - r);
	if (r)
		bk_copy(x, sl, BK_W, n - r, BK_SEND, 0, r);
}

static void bk_round(struct bk_ctx *x, struct bk_slice *sl, uint32_t k)
{
	uint32_t r = x->r, n = x->n, bit = 1u << k, st;
	uint64_t a, b, idx = 0, moved = bk_moved(x, k);
	enum bk_area q = k % 2 ? BK_Q1 : BK_Q0;
	struct cs_ref src = bk_at(x, sl, BK_P, 0);

	if (!bk_run(x, k, 1, &a, &b) && bk_contig(x, sl, BK_W)) {
		bk_run(x, k, 0, &a, &b);
		src = bk_at(x, sl, BK_W, a);	/* one run: send it from W */
	} else {
		for (uint64_t m = 0; bk_run(x, k, m, &a, &b); m++, idx += b - a)
			bk_copy(x, sl, BK_P, idx, BK_W, a, b - a);
	}
	bk_chain(x, sl, cs_send(x->s, r, (r + bit) % n, src, moved * sl->len));
	st = cs_recv(x->s, r, algo_mod((int64_t)r - bit, n), bk_at(x, sl, q, 0), moved * sl->len);
	if (k >= 2)
		cs_dep(x->s, r, st, (uint32_t)sl->unpack[k - 2]);
	idx = 0;
	for (uint64_t m = 0; bk_run(x, k, m, &a, &b); m++, idx += b - a)
		bk_copy(x, sl, BK_W, a, q, idx, b - a);
	sl->unpack[k] = sl->last;
}

static void bk_final(struct bk_ctx *x, struct bk_slice *sl)
{
	for (uint32_t j = 1; j < x->n; j++)
		bk_copy(x, sl, BK_RECV, algo_mod((int64_t)x->r - j, x->n), BK_W, j, 1);
}

/* Phase @ph of a slice: 0 rotation, 1..rounds the rounds, then the final copies. */
static void bk_phase(struct bk_ctx *x, struct bk_slice *sl, uint32_t ph)
{
	if (ph == 0)
		bk_rotate(x, sl);
	else if (ph <= x->rounds)
		bk_round(x, sl, ph - 1);
	else
		bk_final(x, sl);
}

static void bk_rank(struct bk_ctx *x, uint32_t slices, struct bk_slice *sl)
{
	uint32_t phases = x->rounds + 2;

	for (uint32_t i = 0; i < slices; i++) {
		algo_block(x->c, slices, i, &sl[i].off, &sl[i].len);
		sl[i].last = -1;
	}
	/* wavefront: phase p of slice i at time p + i */
	for (uint32_t t = 0; t + 1 < phases + slices; t++)
		for (uint32_t i = 0; i < slices; i++)
			if (t >= i && t - i < phases && sl[i].len)
				bk_phase(x, &sl[i], t - i);
}

static struct cs_sched *bk_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	struct bk_ctx x = { .n = shape->nranks, .c = shape->count };
	uint32_t slices = a2a_slices(o);
	struct bk_slice *sl;

	x.s = cs_new(shape, "bruck");
	if (!x.s || !shape->count)
		return x.s;
	while (x.rounds < BK_MAX_ROUNDS && ((uint64_t)1 << x.rounds) < x.n)
		x.rounds++;
	for (uint32_t k = 0; k < x.rounds; k++)
		if (bk_moved(&x, k) > x.h)
			x.h = bk_moved(&x, k);
	x.s->tmp_count = (x.n - 1 + 3 * x.h) * x.c;
	sl = calloc(slices, sizeof(*sl));
	if (!sl) {
		cs_free(x.s);
		return NULL;
	}
	for (x.r = 0; x.r < x.n; x.r++)
		bk_rank(&x, slices, sl);
	free(sl);
	return x.s;
}

const struct algo algo_bruck = {
	.name = "bruck",
	.colls = 1u << CS_ALLTOALL,
	.rejects = a2a_rejects,
	.gen = bk_gen,
	.cost = cost_bruck,
	.knobs = ALGO_KNOB_SLICES,
};
