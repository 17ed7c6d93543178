// SPDX-License-Identifier: MIT
/*
 * Rounds of transfers every rank takes part in, priced as a longest path
 * (cost.h: struct rounds); pairwise AllToAll, PAT and RDH are built on them.
 */
#include "cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int rounds_open(struct rounds *w, const struct tune_topo *t, uint32_t n, uint64_t rounds)
{
	*w = (struct rounds){ .t = t, .n = n };
	if ((uint64_t)n * rounds > ROUNDS_WORK)
		return -1;
	w->T = calloc((4 + 2 * ROUNDS_SHIFTS) * (size_t)n, sizeof(*w->T));
	w->from = calloc(2 * (size_t)n, sizeof(*w->from));
	if (!w->T || !w->from) {
		free(w->T);
		free(w->from);
		return -1;
	}
	w->Tn = w->T + n;
	w->x = w->Tn + n;
	w->unit = w->x + n;
	w->lat = w->unit + ROUNDS_SHIFTS * (size_t)n;
	w->port = w->lat + ROUNDS_SHIFTS * (size_t)n;
	w->to = w->from + n;
	return 0;
}

/*
 * Rank @r's send of @us on the wire, ready at @ready: when it is through.
 * In the ideal setting a rank's sends share its one port, one after the
 * other (a folded RDH participant's exchange, then its fold-out).
 */
static double rounds_send(struct rounds *w, uint32_t r, double ready, double us)
{
	if (!w->t->ideal)
		return ready + us;
	w->port[r] = fmax(w->port[r], ready) + us;
	return w->port[r];
}

/* Every rank sends @bytes to r + @d, after @local_us (see above). */
int rounds_step(struct rounds *w, uint32_t d, double bytes, double local_us)
{
	const struct tune_topo *t = w->t;
	uint32_t n = w->n, k;
	double *unit, *lat;

	for (k = 0; k < ROUNDS_SHIFTS && w->shift[k] != d; k++)
		;
	if (k == ROUNDS_SHIFTS) {	/* price this shift: its shares, its routes' α */
		k = w->next++ % ROUNDS_SHIFTS;
		for (uint32_t r = 0; r < n; r++) {
			w->from[r] = r;
			w->to[r] = (r + d) % n;
			w->lat[k * (size_t)n + r] = cost_lone(t, r, w->to[r], 0).lat_us + 2 * t->insn_us;
		}
		if (tune_flows_us(t, n, w->from, w->to, 1, w->unit + k * (size_t)n))
			return -1;
		w->shift[k] = d;
	}
	unit = w->unit + k * (size_t)n;
	lat = w->lat + k * (size_t)n;
	for (uint32_t r = 0; r < n; r++) {
		uint32_t q = (r + d) % n;
		double through = rounds_send(w, r, w->T[r] + local_us, unit[r] * bytes);

		w->Tn[q] = fmax(w->T[q], through + lat[r]);
	}
	memcpy(w->T, w->Tn, n * sizeof(*w->T));
	return 0;
}

/*
 * One round of @k transfers @from[i] -> @to[i] of @bytes[i], all at once,
 * each leaving once its sender is done with the round before and then
 * @local[i], and (@credited[i]) once its receiver is done with the round
 * before too: that receive depends on the receiver's previous one, whose
 * completion grants the sender its credit.  A rank not receiving in the
 * round keeps its time.
 */
int rounds_pairs(struct rounds *w, uint32_t k, const uint32_t *from, const uint32_t *to,
			const double *bytes, const double *local, const bool *credited)
{
	const struct tune_topo *t = w->t;

	if (tune_flows_us(t, k, from, to, 1, w->x))	/* per byte: linear in bytes */
		return -1;
	memcpy(w->Tn, w->T, w->n * sizeof(*w->T));
	for (uint32_t i = 0; i < k; i++) {
		double lat = cost_lone(t, from[i], to[i], bytes[i]).lat_us + 2 * t->insn_us;

		double ready = w->T[from[i]] + local[i];
		double through;

		if (credited && credited[i])
			ready = fmax(ready, w->T[to[i]] + t->sem_us);
		through = rounds_send(w, from[i], ready, w->x[i] * bytes[i]);

		w->Tn[to[i]] = fmax(w->Tn[to[i]], through + tune_reduce_us(t, bytes[i]) + lat);
	}
	memcpy(w->T, w->Tn, w->n * sizeof(*w->T));
	return 0;
}

/* When the last rank is done; frees @w. */
struct tune_cost rounds_close(struct rounds *w)
{
	double done = 0;

	for (uint32_t r = 0; r < w->n; r++)
		done = fmax(done, w->T[r]);
	free(w->T);
	free(w->from);
	return (struct tune_cost){ 0, done };
}
