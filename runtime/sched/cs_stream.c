// SPDX-License-Identifier: MIT
/*
 * Transfer streams (cs.h): one rank's sends to, or receives from, one peer,
 * rolled as the repeats are.  The k-th send a->b pairs with the k-th
 * receive of b from a, so the verifier compares two streams and the
 * lowering finds what a send lands in by its ordinal.
 */
#include "cs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * A rank's streams while its steps are walked.  Its buffers stay from rank
 * to rank (st[i]'s tmpl and runs too, whichever stream takes slot i): the
 * rank's streams are copied out into one block of their own sizes.
 */
struct cs_walk {
	struct cs_stream *st;
	uint32_t n, cap;
	uint32_t *of[2];		/* per peer and direction: its stream in st, ~0u */
	uint32_t *touched, ntouched, tcap; /* streams the current pass added to */
	uint32_t *mark_at;		/* per stream: where that pass began in its tmpl */
	struct cs_slot *slot;		/* the rank's steps' places */
	uint32_t slot_cap;
	bool oom;
};

static void *grow(void *p, uint32_t *cap, uint32_t need, size_t size, bool *oom)
{
	uint32_t c = *cap ? *cap : 4;
	void *n;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	n = realloc(p, c * size);
	if (!n) {
		*oom = true;
		return p;
	}
	*cap = c;
	return n;
}

/* The stream of @peer in direction @sends, made on first use; NULL out of memory. */
static struct cs_stream *stream_of(struct cs_walk *w, bool sends, uint32_t peer)
{
	uint32_t *i = &w->of[sends][peer], cap = w->cap;
	struct cs_stream *st;

	if (*i != ~0u)
		return &w->st[*i];
	w->st = grow(w->st, &w->cap, w->n + 1, sizeof(*w->st), &w->oom);
	if (cap != w->cap && !w->oom) {
		memset(w->st + cap, 0, (w->cap - cap) * sizeof(*w->st));
		w->mark_at = grow(w->mark_at, &cap, w->cap, sizeof(*w->mark_at), &w->oom);
	}
	if (w->oom)
		return NULL;
	*i = w->n;
	st = &w->st[w->n];
	/* a stream of an earlier rank held this slot: its buffers are this one's */
	*st = (struct cs_stream){ .peer = peer, .sends = sends, .tmpl = st->tmpl,
				  .tcap = st->tcap, .runs = st->runs, .rcap = st->rcap };
	w->mark_at[w->n] = ~0u;
	return &w->st[w->n++];
}

static void add_tmpl(struct cs_walk *w, struct cs_stream *st, uint32_t t, bool once)
{
	uint32_t i = (uint32_t)(st - w->st);

	if (w->mark_at[i] == ~0u) {
		w->mark_at[i] = st->nt;
		w->touched = grow(w->touched, &w->tcap, w->ntouched + 1,
				  sizeof(*w->touched), &w->oom);
		if (w->oom)
			return;
		w->touched[w->ntouched++] = i;
	}
	st->tmpl = grow(st->tmpl, &st->tcap, st->nt + 1, sizeof(*st->tmpl), &w->oom);
	if (w->oom)
		return;
	if (once)
		w->slot[t] = (struct cs_slot){ st->nt, st->nruns };
	st->tmpl[st->nt++] = t;
}

/* The pass over one step or one iteration ends: a run per stream it added to. */
static void end_pass(struct cs_walk *w, uint64_t times, uint64_t k0, uint32_t rep)
{
	for (uint32_t j = 0; j < w->ntouched; j++) {
		struct cs_stream *st = &w->st[w->touched[j]];
		uint32_t at = w->mark_at[w->touched[j]];

		w->mark_at[w->touched[j]] = ~0u;
		st->runs = grow(st->runs, &st->rcap, st->nruns + 1, sizeof(*st->runs), &w->oom);
		if (w->oom)
			continue;
		st->runs[st->nruns++] = (struct cs_stream_run){ at, st->nt - at, times, k0,
								st->total, rep };
		st->total += (st->nt - at) * times;
	}
	w->ntouched = 0;
}

/* Step @t of @rk at iteration @k, if a transfer, into its peer's stream. */
static void take(struct cs_walk *w, const struct cs_rank *rk, uint32_t n, const struct cs_repeat *rp,
		 uint32_t t, uint64_t k)
{
	uint8_t op = rk->steps[t].op;
	bool sends = op == CS_SEND_OP;
	uint32_t peer = rk->steps[t].peer;
	struct cs_stream *st;

	if (!sends && op != CS_RECV_OP && op != CS_RECV_REDUCE)
		return;
	peer = cs_instance_peer(peer, rp, n, k);
	if (peer >= n || !(st = stream_of(w, sends, peer)))
		return;
	add_tmpl(w, st, t, !rp || !rp->peer_stride);
}

static void walk_rank(struct cs_walk *w, const struct cs_rank *rk, uint32_t n)
{
	uint32_t ri = 0;

	for (uint32_t t = 0; t < rk->n && !w->oom;) {
		const struct cs_repeat *rp = ri < rk->nreps && rk->reps[ri].first == t ?
					     &rk->reps[ri] : NULL;

		if (!rp) {
			take(w, rk, n, NULL, t, 0);
			end_pass(w, 1, 0, ~0u);
			t++;
			continue;
		}
		for (uint64_t k = 0; k < (rp->peer_stride ? rp->times : 1); k++) {
			for (uint32_t b = rp->first; b < rp->first + rp->len; b++)
				take(w, rk, n, rp, b, k);
			end_pass(w, rp->peer_stride ? 1 : rp->times, k, ri);
		}
		t = rp->first + rp->len;
		ri++;
	}
}

/* Sends first, each direction by ascending peer (cs_streams_find). */
static int by_direction_and_peer(const void *x, const void *y)
{
	const struct cs_stream *a = x, *b = y;

	if (a->sends != b->sends)
		return a->sends ? -1 : 1;
	return a->peer < b->peer ? -1 : a->peer > b->peer;
}

void cs_streams_free(struct cs_streams *ix)
{
	struct cs_walk *w = ix->walk;

	for (uint32_t r = 0; ix->rank && r < ix->s->shape.nranks; r++)
		free(ix->rank[r].st);	/* and everything of the rank's in its block */
	if (w) {
		for (uint32_t i = 0; i < w->cap; i++) {
			free(w->st[i].tmpl);
			free(w->st[i].runs);
		}
		free(w->st);
		free(w->of[0]);
		free(w->of[1]);
		free(w->touched);
		free(w->mark_at);
		free(w->slot);
		free(w);
	}
	free(ix->rank);
	memset(ix, 0, sizeof(*ix));
}

int cs_streams_init(const struct cs_sched *s, struct cs_streams *ix)
{
	uint32_t n = s->shape.nranks;
	struct cs_walk *w;

	*ix = (struct cs_streams){ .s = s };
	ix->rank = calloc(n + 1, sizeof(*ix->rank));
	ix->walk = w = calloc(1, sizeof(*w));
	if (w) {
		w->of[0] = malloc((n + 1) * sizeof(*w->of[0]));
		w->of[1] = malloc((n + 1) * sizeof(*w->of[1]));
	}
	if (!ix->rank || !w || !w->of[0] || !w->of[1]) {
		cs_streams_free(ix);
		return -ENOMEM;
	}
	memset(w->of[0], 0xff, (n + 1) * sizeof(*w->of[0]));
	memset(w->of[1], 0xff, (n + 1) * sizeof(*w->of[1]));
	return 0;
}

/*
 * The rank's streams the walk found, sorted, copied into @rs in one block:
 * the stream array, their runs, the slots (@nslot), their templates.
 */
static int copy_out(struct cs_walk *w, struct cs_rank_streams *rs, uint32_t nslot)
{
	size_t nt = 0, nruns = 0;
	struct cs_stream_run *runs;
	uint32_t *tmpl;
	char *block;

	for (uint32_t i = 0; i < w->n; i++) {
		nt += w->st[i].nt;
		nruns += w->st[i].nruns;
	}
	block = malloc(w->n * sizeof(*rs->st) + nruns * sizeof(*runs) + nslot * sizeof(*rs->slot) +
		       nt * sizeof(*tmpl));
	if (!block)
		return -ENOMEM;
	rs->st = (struct cs_stream *)block;
	runs = (struct cs_stream_run *)(rs->st + w->n);
	rs->slot = (struct cs_slot *)(runs + nruns);
	tmpl = (uint32_t *)(rs->slot + nslot);
	memcpy(rs->slot, w->slot, nslot * sizeof(*rs->slot));
	qsort(w->st, w->n, sizeof(*w->st), by_direction_and_peer);
	for (uint32_t i = 0; i < w->n; i++) {
		const struct cs_stream *from = &w->st[i];

		rs->st[i] = (struct cs_stream){ .peer = from->peer, .sends = from->sends,
						.tmpl = tmpl, .nt = from->nt, .tcap = from->nt,
						.slot = rs->slot, .runs = runs,
						.nruns = from->nruns, .rcap = from->nruns,
						.total = from->total };
		memcpy(tmpl, from->tmpl, from->nt * sizeof(*tmpl));
		memcpy(runs, from->runs, from->nruns * sizeof(*runs));
		tmpl += from->nt;
		runs += from->nruns;
		rs->nsend += from->sends;
	}
	rs->n = w->n;
	return 0;
}

const struct cs_rank_streams *cs_streams_of(struct cs_streams *ix, uint32_t r)
{
	struct cs_rank_streams *rs = &ix->rank[r];
	struct cs_walk *w = ix->walk;
	const struct cs_rank *rk;
	int rc;

	if (rs->built)
		return rs;
	rk = cs_rank_get(ix->s, r);
	if (cs_unusable(ix->s))
		return NULL;
	w->oom = false;
	w->ntouched = 0;
	w->slot = grow(w->slot, &w->slot_cap, rk->n + 1, sizeof(*w->slot), &w->oom);
	if (w->oom)
		return NULL;
	memset(w->slot, 0xff, (rk->n + 1) * sizeof(*w->slot));
	w->n = 0;
	walk_rank(w, rk, ix->s->shape.nranks);
	for (uint32_t i = 0; i < w->n; i++)
		w->of[w->st[i].sends][w->st[i].peer] = ~0u;
	rc = w->oom ? -ENOMEM : copy_out(w, rs, rk->n + 1);
	if (rc)
		return NULL;
	rs->built = true;
	return rs;
}

void cs_streams_drop(struct cs_streams *ix, uint32_t r)
{
	free(ix->rank[r].st);
	memset(&ix->rank[r], 0, sizeof(ix->rank[r]));
}

const struct cs_stream *cs_streams_find(struct cs_streams *ix, uint32_t r, bool sends,
					uint32_t peer)
{
	static const struct cs_stream none;
	const struct cs_rank_streams *rs;
	uint32_t lo, hi, end;

	if (r >= ix->s->shape.nranks)
		return &none;
	rs = cs_streams_of(ix, r);
	if (!rs)
		return NULL;
	lo = sends ? 0 : rs->nsend;
	end = hi = sends ? rs->nsend : rs->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (rs->st[mid].peer < peer)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < end && rs->st[lo].peer == peer ? &rs->st[lo] : &none;
}

/* Whether run @i of @st holds transfer @ord. */
static bool run_holds(const struct cs_stream *st, uint32_t i, uint64_t ord)
{
	return i < st->nruns && st->runs[i].before <= ord &&
	       (i + 1 == st->nruns || st->runs[i + 1].before > ord);
}

bool cs_stream_at(const struct cs_stream *st, uint64_t ord, uint32_t *t, uint64_t *k,
		  uint32_t *rep, uint32_t *hint)
{
	uint32_t lo = 0, hi = st->nruns;
	const struct cs_stream_run *rn;

	if (ord >= st->total)
		return false;
	/* asked in order, mostly: the run of the last answer or the next */
	if (hint && run_holds(st, *hint, ord)) {
		lo = *hint;
	} else if (hint && run_holds(st, *hint + 1, ord)) {
		lo = *hint + 1;
	} else {
		/* the last run that begins at or before @ord */
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (st->runs[mid].before <= ord)
				lo = mid;
			else
				hi = mid;
		}
	}
	if (hint)
		*hint = lo;
	rn = &st->runs[lo];
	ord -= rn->before;
	*t = st->tmpl[rn->at + ord % rn->len];
	*k = rn->k0 + ord / rn->len;
	if (rep)
		*rep = rn->rep;
	return true;
}

uint64_t cs_stream_ordinal(const struct cs_stream *st, uint32_t t, uint64_t k)
{
	if (!st->nt)
		return UINT64_MAX;
	/* a template in one run: found directly (the rank's slots are shared
	 * by its streams: it is this one's if it is there) */
	if (st->slot[t].at < st->nt && st->tmpl[st->slot[t].at] == t) {
		const struct cs_stream_run *rn = &st->runs[st->slot[t].run];

		if (k < rn->k0 || k - rn->k0 >= rn->times)
			return UINT64_MAX;
		return rn->before + (k - rn->k0) * rn->len + (st->slot[t].at - rn->at);
	}
	for (uint32_t i = 0; i < st->nruns; i++) {
		const struct cs_stream_run *rn = &st->runs[i];

		if (k < rn->k0 || k - rn->k0 >= rn->times)
			continue;
		for (uint32_t j = 0; j < rn->len; j++)
			if (st->tmpl[rn->at + j] == t)
				return rn->before + (k - rn->k0) * rn->len + j;
	}
	return UINT64_MAX;
}
