// SPDX-License-Identifier: GPL-2.0
/* Ranks on a simulated fabric, timed or not (timed_world.h). */
#include "timed_world.h"

#include <stdio.h>
#include <stdlib.h>

#include "coll_call.h"
#include "sim/sim_costs.h"

static void alloc_buffers(struct timed_world *w, size_t bytes)
{
	for (int r = 0; r < w->n; r++)
		if (ccore_mem_alloc(w->c[r], bytes, &w->sb[r]) ||
		    ccore_mem_alloc(w->c[r], bytes, &w->rb[r]))
			FAIL("ccore_mem_alloc: %s", ccore_last_error());
}

void timed_world_open(struct timed_world *w, const struct ccore_topology *t, const char *sim,
		      size_t bytes)
{
	w->n = (int)(t->nodes * t->devices_per_node * t->ranks_per_device);
	if (w->n > TIMED_WORLD_MAX)
		FAIL("%d ranks: at most %d", w->n, TIMED_WORLD_MAX);
	setenv("CCORE_SIM", sim, 1);
	w->fabric = NULL;
	w->fabric_n = 0;
	if (ccore_comm_init_all(t, w->c))
		FAIL("ccore_comm_init_all with CCORE_SIM=%s: %s", sim, ccore_last_error());
	alloc_buffers(w, bytes);
}

void timed_world_open_ideal(struct timed_world *w, int n, const char *sim, size_t bytes)
{
	uint32_t devices = 1, per = 1;
	uint32_t total = n > 0 ? tune_ideal_layout((uint32_t)n, &devices, &per) : 0;
	struct ccore_topology t = { 1, devices, per };
	char cfg[512];
	int *color;

	if (!total || n > TIMED_WORLD_MAX)
		FAIL("%d ranks: the ideal setting runs 1 to %d", n, TIMED_WORLD_MAX);
	snprintf(cfg, sizeof(cfg),
		 "ideal=1,virtual=1,hbm=1024G,sems=%u,program_size=1048576,ring_size=1048576,"
		 "job_timeout_ms=3600000%s%s", 2 * total + 64, *sim ? "," : "", sim);
	if (total == (uint32_t)n) {
		timed_world_open(w, &t, cfg, bytes);
		return;
	}
	w->n = n;
	w->fabric_n = (int)total;
	w->fabric = calloc(total, sizeof(*w->fabric));
	color = calloc(2 * (size_t)total, sizeof(*color));
	if (!w->fabric || !color)
		FAIL("out of memory");
	setenv("CCORE_SIM", cfg, 1);
	if (ccore_comm_init_all(&t, w->fabric))
		FAIL("ccore_comm_init_all with CCORE_SIM=%s: %s", cfg, ccore_last_error());
	for (uint32_t r = 0; r < total; r++) {
		color[r] = (int)r < n ? 0 : -1;
		color[total + r] = (int)r;
	}
	if (ccore_comm_split(w->fabric, (int)total, color, color + total, w->c))
		FAIL("ccore_comm_split of %u ranks to %d: %s", total, n, ccore_last_error());
	free(color);
	alloc_buffers(w, bytes);
}

void timed_world_close(struct timed_world *w)
{
	for (int r = 0; r < w->n; r++)
		ASSERT_EQ(ccore_comm_destroy(w->c[r]), 0);
	for (int r = 0; w->fabric && r < w->fabric_n; r++)
		ASSERT_EQ(ccore_comm_destroy(w->fabric[r]), 0);
	free(w->fabric);
	w->fabric = NULL;
	w->fabric_n = 0;
	w->n = 0;
	unsetenv("CCORE_SIM");
}

void timed_world_allreduce_runs(struct timed_world *w, size_t count)
{
	for (int r = 0; r < w->n; r++)
		ASSERT_EQ(timed_post(ccore_op_allreduce, w->sb[r], w->rb[r], count, w->c[r]), 0);
	for (int r = 0; r < w->n; r++)
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w->c[r])), 0);
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
	struct coll_call call = { .op = op, .count = count, .dtype = ccore_f32, .redop = ccore_sum };

	return coll_call_post(&call, 0, 1, send, recv, c, NULL);
}
