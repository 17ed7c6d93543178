// SPDX-License-Identifier: MIT
/*
 * The plan cache: a launched collective's plan is kept so that repeating
 * the same collective on the same buffers costs only a trigger per rank.
 * The key is everything the programs bake in: the collective, count,
 * dtype, redop, root/peer, stream, the choice (algorithm, slices,
 * channels) and every rank's buffer addresses.  A plan holds ring indices
 * on its ranks' cores, scratch and room in CC-core instruction memory;
 * when any runs out, the least recently used plans go.
 */
#include "plan.h"

#include <stdlib.h>

static bool same_key(const struct plan *p, const struct op *ops, uint32_t n,
		     const struct algo *algo)
{
	if (p->asked_algo != algo)
		return false;
	for (uint32_t r = 0; r < n; r++) {
		const struct op *a = &p->ops[r], *b = &ops[r];

		if (a->coll != b->coll || a->send != b->send || a->recv != b->recv ||
		    a->count != b->count || a->dtype != b->dtype || a->redop != b->redop ||
		    a->root != b->root || a->peer != b->peer ||
		    (a->stream ? a->stream->id : ~0u) != (b->stream ? b->stream->id : ~0u))
			return false;
	}
	return true;
}

void plan_free(struct clique *q, struct plan *p)
{
	/* fused programs run on the plans' rings: they go first */
	plan_fused_release(q);
	/* its jobs must be done before rings and programs go */
	for (uint32_t r = 0; r < p->n; r++)
		if (p->ops[r].stream)
			stream_drain(p->ops[r].stream);
	lower_release(p->low, &p->ctx);
	if (p->lr)
		plan_unplace(q, p);
	free(p->own_runs);
	free(p->lr);
	plan_peers_free(&p->peers);
	free(p->ops);
	free(p->active);
	free(p);
}

void plan_flush(struct clique *q)
{
	plan_fused_release(q);
	while (q->plans) {
		struct plan *p = q->plans;

		q->plans = p->next;
		plan_free(q, p);
	}
	q->nplans = 0;
}

/* Drop @q's least recently used plan no executable holds; false if none. */
static bool evict_own(struct clique *q)
{
	struct plan **pp, **victim = NULL, *p;

	for (pp = &q->plans; *pp; pp = &(*pp)->next)
		if (!(*pp)->pins)
			victim = pp;
	if (!victim)
		return false;
	p = *victim;
	*victim = p->next;
	plan_free(q, p);
	q->nplans--;
	return true;
}

/*
 * Make room for a plan of @q: drop one of its own plans, or else one of
 * another communicator on the same devices (a split beside its parent
 * shares the cores' ring indices, scratch and CC-core memory with it).
 */
bool plan_evict_one(struct clique *q)
{
	int64_t t = rt_now_ns();
	bool done = evict_own(q);

	for (struct clique *o = q->rt->cliques; o && !done; o = o->rt_next)
		done = o != q && evict_own(o);
	q->timing.evict_us += (double)(rt_now_ns() - t) / 1e3;
	return done;
}

/* The cached plan for @ops (built if need be); NULL if there is nothing to do. */
int plan_get(struct clique *q, const struct op *ops, bool pinned, struct plan **out)
{
	struct select_choice ch;
	struct algo_opts opts;
	struct plan *p = NULL, **pp;
	struct cs_shape sh;
	double choose_us;
	int rc = 0;

	*out = NULL;
	clique_wait_exchange(q);
	for (uint32_t r = 0; r < q->n; r++)
		if (ops[r].stream)
			rc |= ops[r].count != 0;
	if (!rc)
		return 0;	/* nothing to move: nccl treats count 0 as a no-op */
	rc = plan_shape(q, ops, &sh);
	if (rc)
		return rc;
	/* the choice comes first: it is part of what a cached plan is */
	rc = plan_choose_memo(q, &sh, ops[0].dtype, &opts, &ch, &choose_us);
	if (rc)
		return rc;
	for (pp = &q->plans; *pp; pp = &(*pp)->next)
		/* an executable replays one image: not a double-buffered plan's */
		if (same_key(*pp, ops, q->n, ch.algo) && !(pinned && (*pp)->dbuf) &&
		    (*pp)->asked.slices == opts.slices &&
		    (*pp)->asked.channels == opts.channels &&
		    (*pp)->asked.pat_buffer == opts.pat_buffer)
			break;
	if (*pp) {
		/* most recently used goes first */
		p = *pp;
		*pp = p->next;
	} else {
		rc = plan_build(q, ops, &sh, &ch, &opts, pinned, &p);
		if (rc)
			return rc;
		q->timing.choose_us = choose_us;
		q->nplans++;
	}
	p->next = q->plans;
	q->plans = p;
	q->last_algo = p->algo->name;
	*out = p;
	return 0;
}

int plan_prepare(struct clique *q, const struct op *ops, struct plan **out)
{
	int rc = plan_get(q, ops, true, out);

	if (!rc && *out)
		(*out)->pins++;
	return rc;
}

void plan_unpin(struct plan *p)
{
	if (p && p->pins)
		p->pins--;
}
