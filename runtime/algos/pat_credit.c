// SPDX-License-Identifier: MIT
/* Credits in receive order per peer (see pat_credit.h). */
#include "pat_credit.h"

#include <stdlib.h>

static bool pat_credit_is_recv(uint8_t op)
{
	return op == CS_RECV_OP || op == CS_RECV_REDUCE;
}

/*
 * Raise receive @j's credit point to at least that of @prev: taking on
 * @prev's dependencies does it (the point only grows with the latest
 * dependency, and j comes later), without waiting for @prev itself; if
 * they do not fit, depend on @prev (its point is at most @prev).
 */
static void pat_credit_raise(struct cs_sched *s, uint32_t r, uint32_t j, uint32_t prev)
{
	const struct cs_step *pv = &s->ranks[r].steps[prev];
	struct cs_step *st = &s->ranks[r].steps[j];
	uint32_t fresh = 0;

	for (uint32_t d = 0; d < pv->ndeps; d++) {
		bool have = false;

		for (uint32_t e = 0; e < st->ndeps; e++)
			have |= st->deps[e] == pv->deps[d];
		fresh += !have;
	}
	if (st->ndeps + fresh > CS_MAX_DEPS) {
		cs_dep(s, r, j, prev);
		return;
	}
	for (uint32_t d = 0; d < pv->ndeps; d++)
		cs_dep(s, r, j, pv->deps[d]);
}

/*
 * One rank: @pts holds every receive's cs_credit_point(), computed in one
 * pass (and again after a raise) instead of one scan of the rank per
 * receive, which at thousands of steps per rank took most of the time.
 */
static void pat_credit_rank(struct cs_sched *s, uint32_t r, int64_t *prev, uint32_t *point,
			    uint32_t *pts)
{
	const struct cs_rank *rk = &s->ranks[r];

	for (uint32_t p = 0; p < s->shape.nranks; p++)
		prev[p] = -1;
	cs_credit_points(rk, s->shape.nranks, pts);
	for (uint32_t j = 0; j < rk->n; j++) {
		uint32_t p = rk->steps[j].peer, q;

		if (!pat_credit_is_recv(rk->steps[j].op))
			continue;
		q = pts[j];
		if (prev[p] >= 0 && q < point[p]) {
			pat_credit_raise(s, r, j, (uint32_t)prev[p]);
			cs_credit_points(rk, s->shape.nranks, pts);
			q = pts[j];
		}
		prev[p] = j;
		point[p] = q;
	}
}

void pat_credit_order(struct cs_sched *s)
{
	int64_t *prev = calloc(s->shape.nranks, sizeof(*prev));
	uint32_t *point = calloc(s->shape.nranks, sizeof(*point)), most = 0, *pts;

	for (uint32_t r = 0; r < s->shape.nranks; r++)
		most = s->ranks[r].n > most ? s->ranks[r].n : most;
	pts = calloc(most + 1, sizeof(*pts));
	if (!prev || !point || !pts)
		s->oom = true;
	for (uint32_t r = 0; r < s->shape.nranks && prev && point && pts; r++)
		pat_credit_rank(s, r, prev, point, pts);
	free(prev);
	free(point);
	free(pts);
}
