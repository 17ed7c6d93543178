// SPDX-License-Identifier: MIT
/*
 * A peer's death, for communicators whose processes share the host's
 * devices (the shared sim): the system's dead process slots, by their
 * pids, named as the communicator's ranks (comm.h).
 */
#include "comm.h"

#include <stdio.h>

uint32_t comm_dead_ranks(const struct ccore_comm *c, char *buf, size_t len)
{
	const struct clique *q = c->q;
	uint32_t found = 0, pid;
	uint64_t dead;
	size_t at = 0;

	buf[0] = 0;
	if (!q->pids || ccore_system_dead_slots(q->rt->sys, &dead) || !dead)
		return 0;
	for (uint32_t slot = 0; slot < 64; slot++) {
		if (!(dead >> slot & 1) || ccore_system_slot_pid(q->rt->sys, slot, &pid) || !pid)
			continue;
		for (uint32_t r = 0; r < q->n; r++)
			if (q->pids[r] == pid && !q->local[r] && at < len) {
				at += (size_t)snprintf(buf + at, len - at, "%srank %u (pid %u)",
						       found ? ", " : "", r, pid);
				found++;
			}
	}
	return found;
}
