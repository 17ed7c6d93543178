// SPDX-License-Identifier: MIT
/*
 * The credits of a rank lowered in loop form (lower_loops.h): lower.c's
 * protocol on repeats -- free receives granted in the prologue, those
 * waiting for a send by marker behind it (the same number behind every
 * iteration of it), those of a phase after the one before between
 * repeats, once the rings they name have drained.
 */
#include "lower_loops.h"

#include <errno.h>
#include <stdlib.h>

/* A marked receive's iterations on its anchor send: +1 from @at, -1 from @at + times. */
struct cover {
	uint32_t send;
	uint64_t at;
	int32_t delta;
};

static int by_send_then_at(const void *x, const void *y)
{
	const struct cover *a = x, *b = y;

	if (a->send != b->send)
		return a->send < b->send ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static struct peer_credit *credit_of(struct loop_emit *e, struct peer_credit *pc, uint32_t *npc,
				     uint32_t peer)
{
	for (uint32_t i = 0; i < *npc; i++)
		if (pc[i].peer == peer)
			return &pc[i];
	if (*npc == MAX_PEERS) {
		loop_unsupported(e);
		return NULL;
	}
	pc[*npc] = (struct peer_credit){ .peer = peer };
	return &pc[(*npc)++];
}

/*
 * Every iteration of a send carries its markers alike: the marked
 * receives' iterations, mapped onto the send's, cover each the same
 * number of times -- at every point but its first iteration the coverage
 * changes by nothing.
 */
static void check_cover(struct loop_emit *e, struct cover *cv, uint32_t n)
{
	uint32_t sorted = 1;

	/* mostly noted in order already (the sums below do not mind the order of ties) */
	while (sorted < n && by_send_then_at(&cv[sorted - 1], &cv[sorted]) <= 0)
		sorted++;
	if (sorted < n)
		qsort(cv, n, sizeof(*cv), by_send_then_at);
	for (uint32_t i = 0, j; i < n && !e->rc; i = j) {
		uint32_t t = cv[i].send;
		uint64_t times = e->rep[t]->times;
		int32_t run = 0;

		for (j = i; j < n && cv[j].send == t;) {
			uint64_t at = cv[j].at;
			int32_t net = 0;

			for (; j < n && cv[j].send == t && cv[j].at == at; j++)
				net += cv[j].delta;
			run += net;
			if (at == 0)
				e->marks[t] = (uint32_t)run;
			else if (at < times && net)
				loop_unsupported(e);
		}
	}
}

/* Where instance @k of template @t lands unrolled (every step in a repeat). */
static uint64_t unrolled_at(const uint64_t *base, const struct cs_rank *rk,
			    const struct cs_repeat *rp, uint32_t t, uint64_t k)
{
	return base[rp - rk->reps] + k * rp->len + (t - rp->first);
}

/*
 * Marked receive @u (of repeat @rq, anchored on @a of @ra at iteration
 * offset @it) keeps its peer's anchors in receive order: within a body
 * after the one before on the same anchor body, across repeats after the
 * last instance of the one before.
 */
static bool anchors_in_order(struct loop_emit *e, const uint64_t *base, struct peer_credit *c,
			     const struct cs_repeat *rq, const struct cs_repeat *ra, uint32_t a,
			     int32_t it)
{
	const struct cs_rank *rk = e->rk;
	uint32_t eng = loop_engine_of(e, rk->steps[a].peer);
	bool ok;

	if (c->marked && c->engine != eng)
		return false;
	if (c->marked && c->rq == rq)
		ok = c->ra == ra && c->it == it && a > c->last_anchor;
	else
		ok = !c->marked || unrolled_at(base, rk, ra, a, (uint64_t)it) > c->end;
	c->engine = eng;
	c->rq = rq;
	c->ra = ra;
	c->it = it;
	c->last_anchor = a;
	c->end = unrolled_at(base, rk, ra, a, (uint64_t)it + rq->times - 1);
	return ok;
}

static bool push(struct loop_emit *e, void **v, uint32_t n, size_t size)
{
	void *p;

	if (n & (n - 1) || !n) {
		p = realloc(*v, (n ? 2 * n : 4) * size);
		if (!p) {
			e->rc = e->rc ?: -ENOMEM;
			return false;
		}
		*v = p;
	}
	return true;
}

/*
 * Receive @u waits for fixed iterations of steps of earlier repeats (a
 * phase after the one before): its credits are granted between repeats,
 * right after the last of them, once the rings of the sends among them
 * have drained.  Each must be the last iteration of its repeat: what the
 * grant waits for is the whole repeat.  Per peer after its prologue
 * credits, before its marked ones, in receive order.
 */
static void plan_grant(struct loop_emit *e, struct peer_credit *c, uint32_t u)
{
	const struct cs_rank *rk = e->rk;
	const struct cs_step *st = &rk->steps[u];
	const struct cs_repeat *rq = e->rep[u];
	uint32_t before = 0, last = 0;

	if (st->dep_fixed != (1u << st->ndeps) - 1 || c->marked) {
		loop_unsupported(e);
		return;
	}
	for (uint32_t d = 0; d < st->ndeps; d++) {
		const struct cs_repeat *ru = e->rep[st->deps[d]];

		if (!ru || ru >= rq || (uint32_t)st->dep_iter[d] != ru->times - 1) {
			loop_unsupported(e);
			return;
		}
		if ((uint32_t)(ru - rk->reps) + 1 > before)
			before = (uint32_t)(ru - rk->reps) + 1;
		last = st->deps[d] > last ? st->deps[d] : last;
	}
	/* granted where the verifier has it: right after the last, a receive
	 * that ends its repeat (cs_credit_point()) */
	if (before < c->before || rk->steps[last].op == CS_SEND_OP ||
	    last != rk->reps[before - 1].first + rk->reps[before - 1].len - 1) {
		loop_unsupported(e);
		return;
	}
	c->before = before;
	for (uint32_t d = 0; d < st->ndeps; d++) {
		const struct cs_step *dep = &rk->steps[st->deps[d]];
		uint32_t ring = e->rep[st->deps[d]]->lane, eng, i;

		if (dep->op != CS_SEND_OP)
			continue;
		eng = loop_engine_of(e, dep->peer);
		for (i = 0; i < e->ndrains; i++)
			if (e->drains[i].ring == ring && e->drains[i].engine == eng)
				break;
		if (i < e->ndrains && e->drains[i].before != before)
			loop_unsupported(e);
		if (i < e->ndrains || !push(e, (void **)&e->drains, e->ndrains, sizeof(*e->drains)))
			continue;
		e->drains[e->ndrains++] = (struct drain){ before, ring, eng, dep->peer };
	}
	if (e->ngrants && e->grants[e->ngrants - 1].before == before &&
	    e->grants[e->ngrants - 1].peer == st->peer) {
		e->grants[e->ngrants - 1].n += rq->times;
		return;
	}
	if (push(e, (void **)&e->grants, e->ngrants, sizeof(*e->grants)))
		e->grants[e->ngrants++] = (struct grant){ before, st->peer, rq->times };
}

/*
 * A grant that waits for a send waits for every earlier send to its peer
 * (the verifier's phase_reach()): each ring that carried one before it
 * must drain there or earlier.
 */
static bool drained_by(const struct loop_emit *e, uint32_t ring, uint32_t engine, uint32_t before)
{
	for (uint32_t x = 0; x < e->ndrains; x++)
		if (e->drains[x].ring == ring && e->drains[x].engine == engine &&
		    e->drains[x].before <= before)
			return true;
	return false;
}

static void check_drains(struct loop_emit *e)
{
	const struct cs_rank *rk = e->rk;

	for (uint32_t d = 0; d < e->ndrains; d++)
		for (uint32_t i = 0; i < e->drains[d].before; i++) {
			const struct cs_repeat *rp = &rk->reps[i];

			for (uint32_t t = rp->first; t < rp->first + rp->len; t++)
				if (rk->steps[t].op == CS_SEND_OP &&
				    rk->steps[t].peer == e->drains[d].peer) {
					if (!drained_by(e, rp->lane, e->drains[d].engine,
							e->drains[d].before))
						loop_unsupported(e);
					break;
				}
		}
}

int loop_plan_credits(struct loop_emit *e, struct peer_credit *pc, uint32_t *npc)
{
	const struct cs_rank *rk = e->rk;
	struct cover *cv = NULL;
	uint32_t ncv = 0, cap = 0;
	uint64_t *base = malloc((rk->nreps + 1) * sizeof(*base)), at = 0;

	if (!base)
		return e->rc = -ENOMEM;
	for (uint32_t i = 0; i < rk->nreps; i++) {
		base[i] = at;
		at += (uint64_t)rk->reps[i].len * rk->reps[i].times;
	}

	for (uint32_t u = 0; u < rk->n && !e->rc; u++) {
		const struct cs_step *st = &rk->steps[u];
		const struct cs_repeat *rq = e->rep[u], *ra;
		struct peer_credit *c;
		uint32_t a;

		if (st->op != CS_RECV_OP && st->op != CS_RECV_REDUCE)
			continue;
		c = credit_of(e, pc, npc, st->peer);
		if (!c)
			break;
		if (!st->ndeps) {
			if (c->marked || c->before)	/* per peer, marked ones last */
				loop_unsupported(e);
			c->free += rq->times;
			continue;
		}
		if (st->dep_fixed) {
			plan_grant(e, c, u);
			continue;
		}
		a = st->deps[0];
		ra = e->rep[a];
		if (st->ndeps > 1 || rk->steps[a].op != CS_SEND_OP || ra == rq || st->dep_iter[0] < 0 ||
		    (uint64_t)st->dep_iter[0] + rq->times > ra->times ||
		    (e->mark_peer[a] != ~0u && e->mark_peer[a] != st->peer) ||
		    (uint32_t)(ra - rk->reps) < c->before ||
		    !anchors_in_order(e, base, c, rq, ra, a, st->dep_iter[0])) {
			loop_unsupported(e);
			break;
		}
		if (ncv + 2 > cap) {
			struct cover *p;

			cap = cap ? cap * 2 : 32;
			p = realloc(cv, cap * sizeof(*p));
			if (!p) {
				e->rc = -ENOMEM;
				break;
			}
			cv = p;
		}
		cv[ncv++] = (struct cover){ a, (uint64_t)st->dep_iter[0], 1 };
		cv[ncv++] = (struct cover){ a, (uint64_t)st->dep_iter[0] + rq->times, -1 };
		e->mark_peer[a] = st->peer;
		c->marked = true;
	}
	if (!e->rc)
		check_cover(e, cv, ncv);
	check_drains(e);
	free(cv);
	free(base);
	return e->rc;
}
