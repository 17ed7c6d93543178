// SPDX-License-Identifier: MIT
/*
 * PAT, Parallel Aggregated Trees: AllGather and ReduceScatter with a
 * logarithmic number of messages when the staging buffer allows, degrading
 * to a linear schedule as it shrinks (reference: pat-algorithm.txt).
 *
 * AllGather is N binomial-tree broadcasts, one per source, in Bruck's
 * offsets taken farthest first.  Name a transfer by the offset q (1..N-1)
 * it delivers: rank r sends the chunk of source r - (q - lowbit(q)) to
 * r + lowbit(q), which gets the chunk of its source at offset q.  Every
 * rank does the same transfers at the same time, so a schedule is an order
 * of the offsets, grouped into messages of offsets with the same lowbit
 * (same peer).  A chunk must arrive before it is forwarded: offset
 * q - lowbit(q) before q.
 *
 * PAT's order for a split point B = 2^b (0 <= b <= ceil(log2 N)):
 *   top:    for each distance 2^d >= B, farthest first, one message with
 *           every q of lowbit 2^d (the fully aggregated Bruck steps);
 *   bottom: for l = 1 .. B-1, one message with every q = h*B + l: the
 *           N/B parallel subtrees advance one linear step at a time.
 * b = 0 is the farthest-first Bruck (ceil(log2 N) messages of up to N/2
 * chunks), b = ceil(log2 N) is linear (N - 1 messages of one chunk).
 * A message holds at most H = ceil(N/B) chunks.
 *
 * ReduceScatter runs the same messages backwards (nearest first, bottom
 * then top), sending towards r - lowbit(q) the partial sum for the
 * destination at offset q and adding what arrives into the accumulator of
 * the destination one hop closer.  The accumulators are the bounded
 * buffer: those of the top nodes (row 0, H - 1 of them) live throughout,
 * a bottom row l lives from its first child's message to its own, and
 * walking l downwards keeps at most about b of those alive at once.
 *
 * Staging and its bound.  Messages of several chunks are packed: AllGather
 * copies the chunks into a send stage and unpacks a receive stage into
 * RECV; ReduceScatter sends an accumulator row (laid out so every message
 * is one contiguous range) and receives into a stage, then reduces each
 * chunk into its accumulator.  There are two send and two receive stages,
 * used alternately.  Per element of a piece (below) TMP needs
 *   AllGather:     4*M units if M > 1, none if every message is one chunk
 *                  (they then go straight between RECV blocks),
 *   ReduceScatter: (H - 1) + 2*M + S*H units,
 * with M the largest message (chunks) and S the bottom rows alive at once.
 * Blocks are cut into pieces of at most L elements so that units * L
 * fits the budget, pieces run one after the other through the same
 * buffers, and b is chosen to minimise pieces x messages.  The budget is
 * o->pat_buffer elements, or max(4 * count, 256) if that is 0, and
 *   tmp_count <= budget,  whatever N and count.
 * A budget below ReduceScatter's linear need (2 + S units of one element,
 * S about log2 N) is rejected; AllGather always fits (linear needs none).
 *
 * Dependencies.  Each rank's local steps (copies, reduces) form one chain,
 * each depending on the previous, and a tracker records, per element
 * range, the last local step, the sends and the receives that touched it:
 *   - a local step that overwrites a range some send still reads depends
 *     on that send: this protects the reuse of the send stages, of the
 *     accumulator rows handed from one tree row to the next and from one
 *     piece to the next;
 *   - a send depends on the last local step that wrote its range (its
 *     packing, or the last reduce into the row);
 *   - a receive depends on the last local step that read its stage.
 * The last rule is the credit flow control: with two stages the readers
 * of message g - 2 come before message g - 1's receive, where the credit
 * of message g is then granted, before this rank's own send of message g.
 * With one stage the credit would wait for that send and every rank would
 * wait on its neighbour around the ring.  For the same reason
 * ReduceScatter stages even one-chunk messages: a receive reducing straight
 * into an accumulator would depend on the local steps that last wrote it,
 * and its credit would again wait for this rank's own send.  Finally,
 * pat_credit_order() keeps the credits of each peer's receives in receive
 * order (a one-chunk AllGather message lands straight in RECV, credit in
 * the prologue, after staged ones from the same peer), as the lowering's
 * credit counters need.
 */
#include "algo.h"
#include "algo_cost.h"
#include "pat_credit.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

#define PAT_NONE UINT32_MAX
#define PAT_DEFAULT_BLOCKS 4
#define PAT_DEFAULT_MIN 256

/* --- the plan: messages, accumulator layout, TMP units ------------------- */

struct pat_msg {
	uint32_t dim;		/* the peer is 2^dim away */
	uint32_t first, n;	/* offsets q[first .. first + n), ascending */
	uint32_t row;		/* bottom: the row l; top: 0 */
};

struct pat_plan {
	uint32_t n, b, nmsg, maxm;
	struct pat_msg *msg;	/* AllGather order; ReduceScatter goes backwards */
	uint32_t *q;
	uint32_t H;		/* nodes per row, ceil(N / 2^b) */
	uint32_t nslots;	/* ReduceScatter: bottom rows alive at once */
	uint32_t *slot;		/* per bottom row l: its accumulator slot */
	uint32_t *pos0;		/* per h: unit of top node h*2^b in row 0 */
	uint64_t units;		/* TMP elements per element of piece length */
};

static uint32_t pat_log2up(uint32_t n)
{
	uint32_t d = 0;

	while (((uint64_t)1 << d) < n)
		d++;
	return d;
}

static uint32_t pat_lowbit(uint32_t q)
{
	return q & -q;
}

static uint32_t pat_ctz(uint32_t q)
{
	uint32_t d = 0;

	while (!(q & 1u << d))
		d++;
	return d;
}

/* A tree node with no children: nothing to add before it is sent on. */
static bool pat_leaf(const struct pat_plan *p, uint32_t q)
{
	return (q & 1) || q + 1 >= p->n;
}

/* ReduceScatter sends a lone leaf straight from SEND. */
static bool pat_direct(const struct pat_plan *p, const struct pat_msg *m)
{
	return m->n == 1 && pat_leaf(p, p->q[m->first]);
}

static void pat_plan_free(struct pat_plan *p)
{
	free(p->msg);
	free(p->q);
	free(p->slot);
	free(p->pos0);
	memset(p, 0, sizeof(*p));
}

static void pat_add_msg(struct pat_plan *p, uint32_t dim, uint32_t row, uint32_t first,
			uint32_t end)
{
	struct pat_msg *m = &p->msg[p->nmsg++];

	m->dim = dim;
	m->first = first;
	m->n = end - first;
	m->row = row;
	if (m->n > p->maxm)
		p->maxm = m->n;
}

/* The message list in AllGather order (see the header comment). */
static void pat_messages(struct pat_plan *p)
{
	uint32_t D = pat_log2up(p->n), B = 1u << p->b, k = 0, first;

	for (uint32_t d = D; d-- > p->b;) {
		first = k;
		for (uint64_t q = (uint64_t)1 << d; q < p->n; q += (uint64_t)2 << d)
			p->q[k++] = (uint32_t)q;
		pat_add_msg(p, d, 0, first, k);
	}
	for (uint32_t l = 1; l < B && l < p->n; l++) {
		first = k;
		for (uint64_t q = l; q < p->n; q += B)
			p->q[k++] = (uint32_t)q;
		pat_add_msg(p, pat_ctz(l), l, first, k);
	}
}

static uint32_t pat_alloc(bool *used, uint32_t *nslots)
{
	uint32_t s = 0;

	while (used[s])
		s++;
	used[s] = true;
	if (s + 1 > *nslots)
		*nslots = s + 1;
	return s;
}

/* ReduceScatter: accumulator slots of the bottom rows, walking backwards. */
static int pat_slots(struct pat_plan *p)
{
	bool *used = calloc(p->nmsg + 1, sizeof(*used));

	if (!used)
		return -1;
	for (uint32_t t = p->nmsg; t-- > 0;) {
		const struct pat_msg *m = &p->msg[t];
		uint32_t l = m->row, up;

		if (!l)
			continue;
		if (!pat_direct(p, m) && p->slot[l] == PAT_NONE)
			p->slot[l] = pat_alloc(used, &p->nslots);
		up = l - pat_lowbit(l);
		if (up && p->slot[up] == PAT_NONE)
			p->slot[up] = pat_alloc(used, &p->nslots);
		if (p->slot[l] != PAT_NONE)
			used[p->slot[l]] = false;
	}
	free(used);
	return 0;
}

/* Row 0 groups its nodes by lowbit(h), so each top message is one range. */
static void pat_row0(struct pat_plan *p)
{
	uint32_t u = 0;

	for (uint64_t e = 1; e < p->H; e <<= 1)
		for (uint64_t h = e; h < p->H; h += 2 * e)
			p->pos0[h] = u++;
}

static int pat_plan_build(struct pat_plan *p, uint32_t n, uint32_t b, uint8_t coll)
{
	memset(p, 0, sizeof(*p));
	p->n = n;
	p->b = b;
	p->H = (uint32_t)((n + ((uint64_t)1 << b) - 1) >> b);
	p->msg = calloc(n, sizeof(*p->msg));
	p->q = calloc(n, sizeof(*p->q));
	p->slot = malloc(((size_t)1 << b) * sizeof(*p->slot));
	p->pos0 = calloc(p->H, sizeof(*p->pos0));
	if (!p->msg || !p->q || !p->slot || !p->pos0) {
		pat_plan_free(p);
		return -1;
	}
	for (size_t l = 0; l < ((size_t)1 << b); l++)
		p->slot[l] = PAT_NONE;
	pat_messages(p);
	if (coll == CS_ALLGATHER) {
		p->units = p->maxm > 1 ? 4 * (uint64_t)p->maxm : 0;
		return 0;
	}
	if (pat_slots(p)) {
		pat_plan_free(p);
		return -1;
	}
	pat_row0(p);
	p->units = (p->H - 1) + 2 * (uint64_t)p->maxm + (uint64_t)p->nslots * p->H;
	return 0;
}

/* --- choosing b and the piece length ------------------------------------- */

struct pat_choice {
	struct pat_plan plan;
	uint64_t pieces, len;	/* pieces of at most len elements */
};

static uint64_t pat_budget(const struct cs_shape *s, const struct algo_opts *o)
{
	uint64_t dflt = PAT_DEFAULT_BLOCKS * s->count;

	if (o->pat_buffer)
		return o->pat_buffer;
	return dflt > PAT_DEFAULT_MIN ? dflt : PAT_DEFAULT_MIN;
}

/* 0 with the cheapest feasible plan in @ch, 1 if none fits, -1 on OOM. */
static int pat_choose(const struct cs_shape *s, const struct algo_opts *o,
		      struct pat_choice *ch)
{
	uint64_t budget = pat_budget(s, o), c = s->count, best = UINT64_MAX;
	uint64_t slices = o->slices ? o->slices : 1;
	struct pat_plan p;

	memset(ch, 0, sizeof(*ch));
	for (uint32_t b = 0; b <= pat_log2up(s->nranks); b++) {
		uint64_t len, pieces, cost;

		if (pat_plan_build(&p, s->nranks, b, s->coll)) {
			pat_plan_free(&ch->plan);
			return -1;
		}
		len = p.units ? budget / p.units : c;
		len = len < c ? len : c;
		if (!len) {
			pat_plan_free(&p);
			continue;
		}
		pieces = (c + len - 1) / len;
		if (pieces < slices)
			pieces = slices < c ? slices : c;
		cost = pieces * p.nmsg;
		if (cost < best) {
			best = cost;
			pat_plan_free(&ch->plan);
			ch->plan = p;
			ch->pieces = pieces;
			ch->len = (c + pieces - 1) / pieces;
		} else {
			pat_plan_free(&p);
		}
	}
	return best == UINT64_MAX ? 1 : 0;
}

/* --- dependency tracker ---------------------------------------------------- */

enum { PAT_EV_LOCAL, PAT_EV_SEND, PAT_EV_RECV };

struct pat_ev {
	uint8_t kind, store;
	bool write;		/* LOCAL: the step wrote the range */
	uint64_t lo, hi;
	uint32_t step;
};

struct pat_trk {
	struct pat_ev *ev;
	uint32_t n, cap;
	int64_t last_local;
};

struct pat_ctx {
	struct cs_sched *s;
	struct pat_plan *p;
	struct pat_trk trk;
	uint32_t r;
	uint64_t L;		/* piece length the units are sized for */
	uint64_t e0, len;	/* the current piece */
	uint64_t g;		/* messages so far: picks the stage */
	bool *init;		/* ReduceScatter: accumulator started */
	bool oom;
};

/* Where a range lives: in place, SEND and RECV are one storage. */
static void pat_range(const struct pat_ctx *x, struct cs_ref ref, uint64_t count,
		      struct pat_ev *e)
{
	const struct cs_shape *sh = &x->s->shape;
	uint64_t so, ro;

	memset(e, 0, sizeof(*e));
	e->store = ref.buf;
	e->lo = ref.off;
	if (sh->in_place && ref.buf != CS_TMP) {
		cs_inplace_layout(sh, x->r, &so, &ro);
		e->store = CS_RECV;
		e->lo += ref.buf == CS_SEND ? so : ro;
	}
	e->hi = e->lo + count;
}

static bool pat_overlap(const struct pat_ev *a, const struct pat_ev *b)
{
	return a->store == b->store && a->lo < b->hi && b->lo < a->hi;
}

static void pat_record(struct pat_ctx *x, struct pat_ev e, uint8_t kind, uint32_t step);

/*
 * Take @e's range out of the events of @kind: whatever touches it next is
 * ordered after the step that owns @e, hence after them.  An event that
 * sticks out on both sides splits in two.
 */
static void pat_cover(struct pat_ctx *x, const struct pat_ev *e, uint8_t kind)
{
	struct pat_trk *t = &x->trk;
	size_t k = 0, n = t->n;

	for (size_t i = 0; i < n; i++) {
		struct pat_ev o = t->ev[i];

		if (o.kind != kind || !pat_overlap(&o, e)) {
			t->ev[k++] = o;
			continue;
		}
		if (o.lo < e->lo) {
			struct pat_ev left = o;

			left.hi = e->lo;
			t->ev[k++] = left;
		}
		if (o.hi > e->hi) {
			o.lo = e->hi;
			/* appended after the old ones, moved down below */
			pat_record(x, o, kind, o.step);
		}
	}
	if (t->n > n)
		memmove(t->ev + k, t->ev + n, (t->n - n) * sizeof(*t->ev));
	t->n = k + (t->n - n);
}

static void pat_record(struct pat_ctx *x, struct pat_ev e, uint8_t kind, uint32_t step)
{
	struct pat_trk *t = &x->trk;

	if (rt_grow((void **)&t->ev, &t->cap, t->n, sizeof(*t->ev), 64)) {
		x->oom = true;
		return;
	}
	e.kind = kind;
	e.step = step;
	t->ev[t->n++] = e;
}

/*
 * Depend on every event of @kind overlapping @e, or only on the latest
 * (local steps are chained, so the latest stands for all).  A reader
 * (@e->write clear) only cares about local steps that wrote.
 */
static void pat_dep_on(struct pat_ctx *x, uint32_t step, const struct pat_ev *e, uint8_t kind,
		       bool latest_only)
{
	int64_t latest = -1;

	for (size_t i = 0; i < x->trk.n; i++) {
		const struct pat_ev *o = &x->trk.ev[i];

		if (o->kind != kind || !pat_overlap(o, e))
			continue;
		if (kind == PAT_EV_LOCAL && !e->write && !o->write)
			continue;
		if (!latest_only)
			cs_dep(x->s, x->r, step, o->step);
		else if ((int64_t)o->step > latest)
			latest = o->step;
	}
	if (latest >= 0)
		cs_dep(x->s, x->r, step, (uint32_t)latest);
}

/* A copy or reduce: chained, and after the sends reading what it writes. */
static void pat_local(struct pat_ctx *x, uint32_t step, struct pat_ev *acc, int nacc)
{
	if (x->trk.last_local >= 0)
		cs_dep(x->s, x->r, step, (uint32_t)x->trk.last_local);
	acc[0].write = true;
	pat_dep_on(x, step, &acc[0], PAT_EV_SEND, false);
	pat_cover(x, &acc[0], PAT_EV_SEND);
	pat_cover(x, &acc[0], PAT_EV_LOCAL);
	for (int i = 0; i < nacc; i++) {
		pat_cover(x, &acc[i], PAT_EV_RECV);
		pat_record(x, acc[i], PAT_EV_LOCAL, step);
	}
	x->trk.last_local = step;
}

static void pat_copy(struct pat_ctx *x, struct cs_ref dst, struct cs_ref src)
{
	struct pat_ev acc[2];

	pat_range(x, dst, x->len, &acc[0]);
	pat_range(x, src, x->len, &acc[1]);
	pat_local(x, cs_copy(x->s, x->r, dst, src, x->len), acc, 2);
}

static void pat_reduce(struct pat_ctx *x, struct cs_ref dst, struct cs_ref a, struct cs_ref b)
{
	struct pat_ev acc[3];

	pat_range(x, dst, x->len, &acc[0]);
	pat_range(x, a, x->len, &acc[1]);
	pat_range(x, b, x->len, &acc[2]);
	pat_local(x, cs_reduce(x->s, x->r, dst, a, b, x->len), acc, 3);
}

static void pat_send(struct pat_ctx *x, uint32_t peer, struct cs_ref src, uint64_t count)
{
	uint32_t st = cs_send(x->s, x->r, peer, src, count);
	struct pat_ev e;

	pat_range(x, src, count, &e);
	pat_dep_on(x, st, &e, PAT_EV_LOCAL, true);	/* writes only, see pat_dep_on */
	pat_record(x, e, PAT_EV_SEND, st);
}

static void pat_recv(struct pat_ctx *x, uint32_t peer, struct cs_ref dst, uint64_t count)
{
	uint32_t st = cs_recv(x->s, x->r, peer, dst, count);
	struct pat_ev e;

	pat_range(x, dst, count, &e);
	e.write = true;
	pat_dep_on(x, st, &e, PAT_EV_LOCAL, true);
	pat_dep_on(x, st, &e, PAT_EV_SEND, false);
	pat_dep_on(x, st, &e, PAT_EV_RECV, false);
	pat_cover(x, &e, PAT_EV_LOCAL);
	pat_cover(x, &e, PAT_EV_SEND);
	pat_cover(x, &e, PAT_EV_RECV);
	pat_record(x, e, PAT_EV_RECV, st);
}

/*
 * A new piece touches other elements of every SEND and RECV block than the
 * pieces before it, so their events there can no longer matter; only TMP
 * is shared from piece to piece.
 */
static void pat_forget_blocks(struct pat_trk *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].store == CS_TMP)
			t->ev[k++] = t->ev[i];
	t->n = k;
}

/* --- addresses ------------------------------------------------------------- */

/* Unit @u of a TMP region starting at unit @base (regions sized for L). */
static struct cs_ref pat_tmp(const struct pat_ctx *x, uint64_t base, uint64_t u)
{
	return cs_at(CS_TMP, base * x->L + u * x->len);
}

/* The current piece of block @blk of a rank-indexed buffer. */
static struct cs_ref pat_blk(const struct pat_ctx *x, enum cs_buf buf, int64_t blk)
{
	return cs_at(buf, algo_mod(blk, x->p->n) * x->s->shape.count + x->e0);
}

/* ReduceScatter: the accumulator of the destination at offset @q. */
static struct cs_ref pat_acc(const struct pat_ctx *x, uint32_t q)
{
	const struct pat_plan *p = x->p;
	uint32_t l = q & ((1u << p->b) - 1), h = q >> p->b;

	if (!q)
		return cs_at(CS_RECV, x->e0);
	if (!l)
		return pat_tmp(x, 0, p->pos0[h]);
	return pat_tmp(x, (p->H - 1) + 2 * (uint64_t)p->maxm + (uint64_t)p->slot[l] * p->H, h);
}

static struct cs_ref pat_rs_stage(const struct pat_ctx *x)
{
	return pat_tmp(x, (x->p->H - 1) + (x->g % 2) * (uint64_t)x->p->maxm, 0);
}

/* --- AllGather --------------------------------------------------------------- */

static void pat_ag_msg(struct pat_ctx *x, const struct pat_msg *m)
{
	const struct pat_plan *p = x->p;
	const uint32_t *q = p->q + m->first;
	uint32_t r = x->r, dist = 1u << m->dim, to = (r + dist) % p->n;
	uint32_t from = algo_mod((int64_t)r - dist, p->n);
	struct cs_ref sstage = pat_tmp(x, (x->g % 2) * p->maxm, 0);
	struct cs_ref rstage = pat_tmp(x, (2 + x->g % 2) * p->maxm, 0);

	for (uint32_t i = 0; i < m->n; i++) {
		uint32_t o = q[i] - dist;
		struct cs_ref src = o ? pat_blk(x, CS_RECV, (int64_t)r - o) : cs_at(CS_SEND, x->e0);

		if (m->n == 1)
			pat_send(x, to, src, x->len);
		else
			pat_copy(x, pat_tmp(x, (x->g % 2) * p->maxm, i), src);
	}
	if (m->n > 1)
		pat_send(x, to, sstage, m->n * x->len);
	if (m->n == 1) {
		pat_recv(x, from, pat_blk(x, CS_RECV, (int64_t)r - q[0]), x->len);
		return;
	}
	pat_recv(x, from, rstage, m->n * x->len);
	for (uint32_t i = 0; i < m->n; i++)
		pat_copy(x, pat_blk(x, CS_RECV, (int64_t)r - q[i]),
			 pat_tmp(x, (2 + x->g % 2) * p->maxm, i));
}

/* --- ReduceScatter ----------------------------------------------------------- */

static void pat_rs_msg(struct pat_ctx *x, const struct pat_msg *m)
{
	const struct pat_plan *p = x->p;
	const uint32_t *q = p->q + m->first;
	uint32_t r = x->r, dist = 1u << m->dim, to = algo_mod((int64_t)r - dist, p->n);
	uint32_t from = (r + dist) % p->n;

	if (pat_direct(p, m)) {
		pat_send(x, to, pat_blk(x, CS_SEND, (int64_t)r - q[0]), x->len);
	} else {
		for (uint32_t i = 0; i < m->n; i++) {
			if (x->init[q[i]])
				continue;
			pat_copy(x, pat_acc(x, q[i]), pat_blk(x, CS_SEND, (int64_t)r - q[i]));
			x->init[q[i]] = true;
		}
		pat_send(x, to, pat_acc(x, q[0]), m->n * x->len);
	}
	pat_recv(x, from, pat_rs_stage(x), m->n * x->len);
	for (uint32_t i = 0; i < m->n; i++) {
		uint32_t up = q[i] - dist;
		struct cs_ref acc = pat_acc(x, up), stage = pat_rs_stage(x);

		stage.off += i * x->len;
		pat_reduce(x, acc, x->init[up] ? acc : pat_blk(x, CS_SEND, (int64_t)r - up), stage);
		x->init[up] = true;
	}
}

/* --- driver -------------------------------------------------------------------- */

static void pat_rank(struct pat_ctx *x, uint64_t pieces)
{
	const struct cs_shape *sh = &x->s->shape;
	const struct pat_plan *p = x->p;

	x->trk.n = 0;
	x->trk.last_local = -1;
	x->g = 0;
	if (sh->coll == CS_ALLGATHER && !sh->in_place) {
		x->e0 = 0;
		x->len = sh->count;
		pat_copy(x, pat_blk(x, CS_RECV, x->r), cs_at(CS_SEND, 0));
	}
	for (uint64_t i = 0; i < pieces && i * x->L < sh->count; i++) {
		x->e0 = i * x->L;
		x->len = sh->count - x->e0 < x->L ? sh->count - x->e0 : x->L;
		pat_forget_blocks(&x->trk);
		memset(x->init, 0, p->n * sizeof(*x->init));
		for (uint32_t t = 0; t < p->nmsg; t++, x->g++) {
			if (sh->coll == CS_ALLGATHER)
				pat_ag_msg(x, &p->msg[t]);
			else
				pat_rs_msg(x, &p->msg[p->nmsg - 1 - t]);
		}
	}
}

static struct cs_sched *pat_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	struct pat_ctx x = { 0 };
	struct pat_choice ch;

	x.s = cs_new(shape, "pat");
	if (!x.s || !shape->count)
		return x.s;
	if (shape->nranks == 1) {
		if (!shape->in_place)
			cs_copy(x.s, 0, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), shape->count);
		return x.s;
	}
	if (pat_choose(shape, o, &ch)) {
		cs_free(x.s);
		return NULL;
	}
	x.p = &ch.plan;
	x.L = ch.len;
	x.s->tmp_count = ch.plan.units * ch.len;
	x.init = calloc(shape->nranks, sizeof(*x.init));
	for (x.r = 0; x.init && x.r < shape->nranks && !x.oom; x.r++)
		pat_rank(&x, ch.pieces);
	pat_credit_order(x.s);
	if (!x.init || x.oom) {
		cs_free(x.s);
		x.s = NULL;
	}
	free(x.init);
	free(x.trk.ev);
	pat_plan_free(&ch.plan);
	return x.s;
}

static const char *pat_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	struct pat_choice ch;
	int rc;

	if (!s->count || s->nranks == 1)
		return NULL;
	rc = pat_choose(s, o, &ch);
	pat_plan_free(&ch.plan);
	if (rc > 0)
		return "pat_buffer is too small to stage one element per accumulator in flight";
	return rc ? "out of memory" : NULL;
}

int algo_pat_steps(const struct cs_shape *s, const struct algo_opts *o,
		   struct algo_pat_step *steps, uint32_t *nsteps, uint64_t *pieces)
{
	struct pat_choice ch;
	int rc;

	*nsteps = 0;
	*pieces = 0;
	if (!s->count || s->nranks < 2)
		return 0;
	rc = pat_choose(s, o, &ch);
	if (rc)
		return rc;
	for (uint32_t t = 0; t < ch.plan.nmsg; t++) {
		const struct pat_msg *m = &ch.plan.msg[t];

		steps[t].dim = m->dim;
		steps[t].chunks = m->n;
	}
	*nsteps = ch.plan.nmsg;
	*pieces = ch.pieces;
	pat_plan_free(&ch.plan);
	return 0;
}

const struct algo algo_pat = {
	.name = "pat",
	.colls = 1u << CS_ALLGATHER | 1u << CS_REDUCESCATTER,
	.rejects = pat_rejects,
	.gen = pat_gen,
	.cost = cost_pat,
	.knobs = ALGO_KNOB_SLICES,
};
