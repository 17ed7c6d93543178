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

void cs_stream_free(struct cs_stream *st)
{
	free(st->tmpl);
	free(st->runs);
	free(st->slot);
}

static void add_tmpl(struct cs_stream *st, uint32_t t, bool once)
{
	if (once)
		st->slot[t] = st->nt;
	if (st->nt == st->tcap) {
		uint32_t cap = st->tcap ? st->tcap * 2 : 64;
		uint32_t *n = realloc(st->tmpl, cap * sizeof(*n));

		if (!n) {
			st->oom = true;
			return;
		}
		st->tmpl = n;
		st->tcap = cap;
	}
	st->tmpl[st->nt++] = t;
}

static void add_run(struct cs_stream *st, uint32_t at, uint64_t times, uint64_t k0)
{
	if (st->nt == at || st->oom)
		return;
	if (st->nruns == st->rcap) {
		uint32_t cap = st->rcap ? st->rcap * 2 : 16;
		struct cs_stream_run *n = realloc(st->runs, cap * sizeof(*n));

		if (!n) {
			st->oom = true;
			return;
		}
		st->runs = n;
		st->rcap = cap;
	}
	st->runs[st->nruns++] = (struct cs_stream_run){ at, st->nt - at, times, k0, st->total };
	st->total += (st->nt - at) * times;
}

static bool wanted(const struct cs_sched *s, const struct cs_rank *rk, const struct cs_repeat *rp,
		   uint32_t t, uint64_t k, bool sends, uint32_t peer)
{
	uint8_t op = rk->steps[t].op;
	struct cs_step in;

	if (sends ? op != CS_SEND_OP : op != CS_RECV_OP && op != CS_RECV_REDUCE)
		return false;
	if (!rp || !rp->peer_stride)
		return rk->steps[t].peer == peer;
	cs_instance(rk, s->shape.nranks, t, k, &in);
	return in.peer == peer;
}

int cs_stream_build(const struct cs_sched *s, uint32_t r, bool sends, uint32_t peer,
		    struct cs_stream *st)
{
	const struct cs_rank *rk = &s->ranks[r];

	*st = (struct cs_stream){ 0 };
	/* room for every template and a run each, in one go: one per rank and peer */
	st->slot = malloc((rk->n + 1) * sizeof(*st->slot));
	st->tmpl = malloc((rk->n + 1) * sizeof(*st->tmpl));
	st->runs = malloc((rk->n + 1) * sizeof(*st->runs));
	if (!st->slot || !st->tmpl || !st->runs) {
		cs_stream_free(st);
		*st = (struct cs_stream){ 0 };
		return -ENOMEM;
	}
	st->tcap = st->rcap = rk->n + 1;
	memset(st->slot, 0xff, (rk->n + 1) * sizeof(*st->slot));
	for (uint32_t t = 0; t < rk->n && !st->oom;) {
		const struct cs_repeat *rp = cs_repeat_of(rk, t);
		uint32_t at = st->nt;

		if (!rp) {
			if (wanted(s, rk, NULL, t, 0, sends, peer))
				add_tmpl(st, t, true);
			add_run(st, at, 1, 0);
			t++;
			continue;
		}
		for (uint64_t k = 0; k < (rp->peer_stride ? rp->times : 1); k++) {
			at = st->nt;
			for (uint32_t b = rp->first; b < rp->first + rp->len; b++)
				if (wanted(s, rk, rp, b, k, sends, peer))
					add_tmpl(st, b, !rp->peer_stride);
			add_run(st, at, rp->peer_stride ? 1 : rp->times, k);
		}
		t = rp->first + rp->len;
	}
	return st->oom ? -ENOMEM : 0;
}

bool cs_stream_at(const struct cs_stream *st, uint64_t ord, uint32_t *t, uint64_t *k)
{
	uint32_t lo = 0, hi = st->nruns;
	const struct cs_stream_run *rn;

	if (ord >= st->total)
		return false;
	/* the last run that begins at or before @ord */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (st->runs[mid].before <= ord)
			lo = mid;
		else
			hi = mid;
	}
	rn = &st->runs[lo];
	ord -= rn->before;
	*t = st->tmpl[rn->at + ord % rn->len];
	*k = rn->k0 + ord / rn->len;
	return true;
}

/* The run holding template slot @at (the last that begins at or before it). */
static const struct cs_stream_run *run_at(const struct cs_stream *st, uint32_t at)
{
	uint32_t lo = 0, hi = st->nruns;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (st->runs[mid].at <= at)
			lo = mid;
		else
			hi = mid;
	}
	return &st->runs[lo];
}

uint64_t cs_stream_ordinal(const struct cs_stream *st, uint32_t t, uint64_t k)
{
	/* a template in one run: found directly */
	if (st->slot[t] != ~0u) {
		const struct cs_stream_run *rn = run_at(st, st->slot[t]);

		if (k < rn->k0 || k - rn->k0 >= rn->times)
			return UINT64_MAX;
		return rn->before + (k - rn->k0) * rn->len + (st->slot[t] - rn->at);
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
