// SPDX-License-Identifier: GPL-2.0
/* Ranks on a simulated fabric, timed or not (timed_world.h). */
#include "timed_world.h"

#include <stdlib.h>

void timed_world_open(struct timed_world *w, const struct ccore_topology *t, const char *sim,
		      size_t bytes)
{
	w->n = (int)(t->nodes * t->devices_per_node * t->ranks_per_device);
	if (w->n > TIMED_WORLD_MAX)
		FAIL("%d ranks: at most %d", w->n, TIMED_WORLD_MAX);
	setenv("CCORE_SIM", sim, 1);
	if (ccore_comm_init_all(t, w->c))
		FAIL("ccore_comm_init_all with CCORE_SIM=%s: %s", sim, ccore_last_error());
	for (int r = 0; r < w->n; r++)
		if (ccore_mem_alloc(w->c[r], bytes, &w->sb[r]) ||
		    ccore_mem_alloc(w->c[r], bytes, &w->rb[r]))
			FAIL("ccore_mem_alloc: %s", ccore_last_error());
}

void timed_world_close(struct timed_world *w)
{
	for (int r = 0; r < w->n; r++)
		ccore_comm_destroy(w->c[r]);
	unsetenv("CCORE_SIM");
}

uint64_t timed_world_now_ps(struct timed_world *w)
{
	uint64_t ps;

	if (ccore_comm_virtual_time_ps(w->c[0], &ps))
		FAIL("virtual time: %s", ccore_last_error());
	return ps;
}

int timed_post(enum ccore_coll_op op, ccore_ptr send, ccore_ptr recv, size_t count,
	       struct ccore_comm *c)
{
	switch (op) {
	case ccore_op_allreduce:
		return ccore_all_reduce(send, recv, count, ccore_f32, ccore_sum, c, NULL);
	case ccore_op_allgather:
		return ccore_all_gather(send, recv, count, ccore_f32, c, NULL);
	case ccore_op_reducescatter:
		return ccore_reduce_scatter(send, recv, count, ccore_f32, ccore_sum, c, NULL);
	case ccore_op_alltoall:
		return ccore_all_to_all(send, recv, count, ccore_f32, c, NULL);
	case ccore_op_broadcast:
		return ccore_broadcast(send, recv, count, ccore_f32, 0, c, NULL);
	default:
		return ccore_reduce(send, recv, count, ccore_f32, ccore_sum, 0, c, NULL);
	}
}
