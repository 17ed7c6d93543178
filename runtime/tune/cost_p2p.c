// SPDX-License-Identifier: MIT
/*
 * Send/Recv (CA §8): one step to the peer.
 */
#include "cost.h"

double cost_p2p(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(tune_step_shift(t, c->peer_dist ? c->peer_dist : 1, c->bytes,
					  slices_of(c)));
}
