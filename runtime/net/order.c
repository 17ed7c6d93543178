// SPDX-License-Identifier: MIT
/*
 * The receiver's reorder buffer (order.h): one slot per sequence number;
 * arrivals fill slots and the run from the next expected number is
 * applied.
 */
#include "net/order.h"

#include <errno.h>
#include <string.h>

void reorder_init(struct net_reorder *r, bool bypass)
{
	memset(r, 0, sizeof(*r));
	r->bypass = bypass;
}

int reorder_arrive(struct net_reorder *r, uint32_t seq, const struct net_signal *sig,
		   int64_t now_ns, reorder_apply_fn apply, void *arg)
{
	uint32_t ahead = (seq - r->next) & (NET_SEQ_SPACE - 1);
	unsigned int i = seq & (NET_SEQ_SPACE - 1);
	uint32_t start;

	if (ahead >= NET_WINDOW || r->slot[i].present)
		return -EPROTO;
	if (r->bypass) {
		/* the test's wrong receiver: still counts, but applies at once */
		if (sig)
			apply(arg, sig);
		sig = NULL;
	}
	r->slot[i].present = true;
	r->slot[i].has_sig = sig != NULL;
	if (sig)
		r->slot[i].sig = *sig;
	r->held++;
	start = r->next;
	while (r->slot[r->next].present) {
		unsigned int j = r->next;

		r->slot[j].present = false;
		r->held--;
		r->next = (r->next + 1) & (NET_SEQ_SPACE - 1);
		if (r->slot[j].has_sig)
			apply(arg, &r->slot[j].sig);
	}
	/* since when the head of the line is missing (a peer stalled past the timeout) */
	if (!r->held)
		r->gap_since_ns = 0;
	else if (!r->gap_since_ns || r->next != start)
		r->gap_since_ns = now_ns;
	return 0;
}
