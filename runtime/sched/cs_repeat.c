// SPDX-License-Identifier: MIT
/*
 * Repeats in the schedule IR (cs.h): building them, one iteration of a
 * body step, and writing a schedule's repeats out (cs_expand()), which the
 * verifier runs where the result is small.
 */
#include "cs.h"

#include <stdlib.h>
#include <string.h>

uint32_t cs_repeat(struct cs_sched *s, uint32_t rank, uint32_t first, uint32_t times,
		   const int64_t *stride, int32_t peer_stride)
{
	struct cs_rank *rk = &s->ranks[rank];
	struct cs_repeat rp = { .first = first, .len = rk->n - first, .times = times,
				.peer_stride = peer_stride };

	if (first >= rk->n || !times) {
		s->fail = "a repeat with an empty body or no iterations";
		return 0;
	}
	if (rk->nreps && rk->reps[rk->nreps - 1].first + rk->reps[rk->nreps - 1].len > first) {
		s->fail = "a repeat's body begins inside the one before";
		return 0;
	}
	if (stride)
		memcpy(rp.stride, stride, sizeof(rp.stride));
	if (rk->nreps == rk->repcap) {
		uint32_t cap = rk->repcap ? rk->repcap * 2 : 4;
		struct cs_repeat *n = realloc(rk->reps, cap * sizeof(*n));

		if (!n) {
			s->oom = true;
			return 0;
		}
		rk->reps = n;
		rk->repcap = cap;
	}
	rk->reps[rk->nreps] = rp;
	return rk->nreps++;
}

void cs_repeat_lane(struct cs_sched *s, uint32_t rank, uint32_t rep, uint8_t lane, bool indexed,
		    enum cs_count count)
{
	struct cs_repeat *rp = &s->ranks[rank].reps[rep];

	rp->lane = lane;
	rp->indexed = indexed;
	rp->count = (uint8_t)count;
}

void cs_repeat_index(struct cs_sched *s, uint32_t rank, uint32_t rep, uint64_t origin,
		     uint32_t count)
{
	struct cs_repeat *rp = &s->ranks[rank].reps[rep];

	rp->index_origin = origin;
	rp->index_count = count;
}

bool cs_has_repeats(const struct cs_sched *s)
{
	if (s->lazy)
		return true;	/* only a rolled schedule is made lazily */
	for (uint32_t r = 0; r < s->shape.nranks; r++)
		if (s->ranks[r].nreps)
			return true;
	return false;
}

const struct cs_repeat *cs_repeat_of(const struct cs_rank *rk, uint32_t i)
{
	uint32_t lo = 0, hi = rk->nreps;

	/* the last repeat that begins at or before @i */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (rk->reps[mid].first <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || i >= rk->reps[lo - 1].first + rk->reps[lo - 1].len)
		return NULL;
	return &rk->reps[lo - 1];
}

const struct cs_repeat *cs_repeat_walk(const struct cs_rank *rk, uint32_t t, uint32_t *ri)
{
	while (*ri < rk->nreps && rk->reps[*ri].first + rk->reps[*ri].len <= t)
		(*ri)++;
	return *ri < rk->nreps && rk->reps[*ri].first <= t ? &rk->reps[*ri] : NULL;
}

uint64_t cs_unrolled_steps(const struct cs_rank *rk)
{
	uint64_t n = rk->n;

	for (uint32_t i = 0; i < rk->nreps; i++)
		n += (uint64_t)rk->reps[i].len * (rk->reps[i].times - 1);
	return n;
}

static struct cs_ref moved(struct cs_ref ref, const struct cs_repeat *rp, uint64_t k)
{
	if (ref.buf < CS_NBUF)
		ref.off += (uint64_t)((int64_t)k * rp->stride[ref.buf]);
	return ref;
}

void cs_instance(const struct cs_rank *rk, uint32_t n, uint32_t t, uint64_t k,
		 struct cs_step *out)
{
	cs_instance_in(rk, cs_repeat_of(rk, t), n, t, k, out);
}

void cs_instance_in(const struct cs_rank *rk, const struct cs_repeat *rp, uint32_t n, uint32_t t,
		    uint64_t k, struct cs_step *out)
{
	*out = rk->steps[t];
	if (!rp || !k)
		return;
	/* only what the op uses moves: the rest stays as generated */
	if (cs_op_writes_dst(out->op))
		out->dst = moved(out->dst, rp, k);
	if (cs_op_reads_src(out->op))
		out->src = moved(out->src, rp, k);
	if (out->op == CS_REDUCE)
		out->src2 = moved(out->src2, rp, k);
	if (out->op >= CS_SEND_OP && out->op <= CS_RECV_REDUCE)
		out->peer = cs_instance_peer(out->peer, rp, n, k);
}

struct cs_ref cs_instance_ref(const struct cs_repeat *rp, struct cs_ref ref, uint64_t k)
{
	return rp && k ? moved(ref, rp, k) : ref;
}

uint32_t cs_instance_peer(uint32_t peer, const struct cs_repeat *rp, uint32_t n, uint64_t k)
{
	if (!rp || !n || !rp->peer_stride)
		return peer;
	return (uint32_t)(((int64_t)peer + (int64_t)(k % n) * rp->peer_stride % (int64_t)n +
			   (int64_t)n) % (int64_t)n);
}

/* Where template @t's iteration 0 lands unrolled, per template of @rk. */
static uint64_t *unrolled_positions(const struct cs_rank *rk)
{
	uint64_t *pos = malloc((rk->n + 1) * sizeof(*pos)), at = 0;
	uint32_t ri = 0;

	if (!pos)
		return NULL;
	for (uint32_t t = 0; t < rk->n; t++) {
		const struct cs_repeat *rp = cs_repeat_walk(rk, t, &ri);

		pos[t] = at++;
		if (rp && t == rp->first + rp->len - 1)
			at += (uint64_t)rp->len * (rp->times - 1);
	}
	pos[rk->n] = at;
	return pos;
}

/* Rank @r of @s written out into @x; NULL, or why it cannot be. */
static const char *expand_rank(const struct cs_sched *s, struct cs_sched *x, uint32_t r)
{
	const struct cs_rank *rk = &s->ranks[r];
	uint64_t *pos = unrolled_positions(rk);
	const char *why = NULL;

	if (!pos)
		return "out of memory";
	if (pos[rk->n] >= UINT32_MAX) {
		free(pos);
		return "more than 2^32 steps on a rank unrolled";
	}
	for (uint32_t t = 0; t < rk->n && !why && !x->oom; t++) {
		const struct cs_repeat *rp = cs_repeat_of(rk, t);
		uint32_t times = rp && t == rp->first ? rp->times : 1;

		/* a body is written out whole, iteration by iteration */
		if (rp && t != rp->first)
			continue;
		for (uint64_t k = 0; k < times && !why; k++)
			for (uint32_t b = t; b < (rp ? rp->first + rp->len : t + 1) && !why; b++) {
				struct cs_step st;
				uint32_t at;

				cs_instance(rk, s->shape.nranks, b, k, &st);
				st.ndeps = 0;
				at = cs_copy(x, r, st.dst, st.src, st.count);
				if (x->oom)
					break;
				st.ndeps = 0;
				x->ranks[r].steps[at] = st;
				for (uint32_t d = 0; d < rk->steps[b].ndeps; d++) {
					uint32_t u = rk->steps[b].deps[d];
					const struct cs_repeat *ru = u < rk->n ? cs_repeat_of(rk, u) : NULL;
					bool fixed = rk->steps[b].dep_fixed & 1u << d;
					int64_t ku = (fixed ? 0 : (int64_t)k) + rk->steps[b].dep_iter[d];

					if (u >= rk->n) {
						why = "a dependency on a step that does not exist";
					} else if (fixed && (!ru || ru == rp)) {
						why = "a fixed iteration of a step outside repeats or of its own";
					} else if (!ru) {
						if (rk->steps[b].dep_iter[d])
							why = "an iteration of a dependency outside repeats";
						else
							cs_dep(x, r, at, (uint32_t)pos[u]);
					} else if (ku < 0 && ru == rp) {
						continue;	/* iteration 0 has none before it */
					} else if (ku < 0 || ku >= ru->times) {
						why = "a dependency on an iteration that does not exist";
					} else {
						struct cs_step *xs = &x->ranks[r].steps[at];
						uint8_t had = xs->ndeps;

						cs_dep(x, r, at, (uint32_t)(pos[ru->first] +
									    (uint64_t)ku * ru->len +
									    (u - ru->first)));
						/* still a phase's wait (cs_own_credit_point()) */
						if (fixed && xs->ndeps > had)
							xs->dep_fixed |= (uint8_t)(1u << had);
					}
				}
			}
	}
	free(pos);
	return why;
}

struct cs_sched *cs_expand(const struct cs_sched *s)
{
	struct cs_sched *x;

	cs_fill_all(s);
	x = cs_new(&s->shape, s->algo);
	if (!x)
		return NULL;
	x->tmp_count = s->tmp_count;
	x->fail = s->fail;
	x->oom = s->oom;
	for (uint32_t r = 0; r < s->shape.nranks && !x->fail && !x->oom; r++)
		x->fail = expand_rank(s, x, r);
	return x;
}
