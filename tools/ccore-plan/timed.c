// SPDX-License-Identifier: MIT
/* ccore-plan's timed-model column (see timed.h). */
#include "timed.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccore.h"
#include "sched/cs.h"
#include "sim/sim_costs.h"
#include "../common/coll_call.h"

struct timed_world {
	uint32_t n;
	uint32_t fabric_n;	/* ranks of the fabric: n, or more (world) */
	struct ccore_comm **world;	/* the fabric's ranks when the group is a split of them */
	struct ccore_comm **comm;
	ccore_ptr *send, *recv;
};

static char *last_err;

const char *timed_error(void)
{
	return last_err ? last_err : "";
}

/* A string of @fmt, whole (NULL out of memory). */
static char *vformat(const char *fmt, va_list ap)
{
	va_list again;
	int n;
	char *p;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	p = n < 0 ? NULL : malloc((size_t)n + 1);
	if (p)
		vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

__attribute__((format(printf, 1, 2))) static char *format(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = vformat(fmt, ap);
	va_end(ap);
	return p;
}

/* timed_error()'s text: -1 */
__attribute__((format(printf, 1, 2))) static int fail(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = vformat(fmt, ap);	/* before freeing: an argument may be the old text */
	va_end(ap);
	free(last_err);
	last_err = p;
	return -1;
}

static long ns_of(double us)
{
	return (long)(us * 1e3 + 0.5);
}

/* GB/s (the cost model's unit) as the model's Gbit/s, at least 1 */
static long gbit_of(double gbps)
{
	long v = (long)(gbps * 8 + 0.5);

	return v > 0 ? v : 1;
}

/* The user's $CCORE_SIM, as it was before timed_open() set its own. */
static const char *user_sim(void)
{
	static char *saved;
	const char *v;

	if (!saved) {
		v = getenv("CCORE_SIM");
		saved = strdup(v ? v : "");
	}
	return saved ? saved : "";
}

/* CCORE_SIM for @t after the user's keys (@user): its layout and its tiers' α and bandwidths. */
static char *sim_config(const struct tune_topo *t, uint32_t n, const char *user)
{
	/*
	 * virtual buffers cost no host memory, so devices get 1 TiB for
	 * temporaries unless the user's keys (after it) say otherwise; room
	 * for thousands of ranks, as ccore-bench --timed makes
	 */
	uint32_t sems = 2 * n + 64 > 256 ? 2 * n + 64 : 256;
	char tiers[256];

	if (t->ideal)
		snprintf(tiers, sizeof(tiers), "ideal=1,alpha_node_ns=%ld,bw_node_gbps=%ld",
			 ns_of(t->alpha_us[0]), gbit_of(t->bw_gbps[0]));
	else
		snprintf(tiers, sizeof(tiers),
			 "alpha_dev_ns=%ld,alpha_node_ns=%ld,alpha_net_ns=%ld,bw_dev_gbps=%ld,bw_node_gbps=%ld,bw_net_gbps=%ld%s",
			 ns_of(t->alpha_us[TUNE_DEV]), ns_of(t->alpha_us[TUNE_NODE]),
			 ns_of(t->alpha_us[TUNE_NET]), gbit_of(t->bw_gbps[TUNE_DEV]),
			 gbit_of(t->bw_gbps[TUNE_NODE]), gbit_of(t->bw_gbps[TUNE_NET]),
			 t->torus_y > 1 ? ",topology=torus" : "");
	if (!t->ideal && t->torus_y > 1)
		snprintf(tiers + strlen(tiers), sizeof(tiers) - strlen(tiers), ",torus=%ux%u",
			 t->torus_x, t->torus_y);
	return format("hbm=1024G,%s%stimed=1,virtual=1,job_timeout_ms=3600000,sems=%u,"
		      "program_size=1048576,ring_size=1048576,%s",
		      user, *user ? "," : "", sems, tiers);
}

/* Set one of the tuner's ideal-setting variables to @v. */
static void set_num_env(const char *name, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%g", v);
	setenv(name, buf, 1);
}

/*
 * The fabric's ranks in w->world (w->fabric_n of them), and the group of
 * the first w->n in w->comm: the fabric's own comms, or a split of them.
 * 0, or -1 (timed_error()).
 */
static int open_group(struct timed_world *w, const struct ccore_topology *topo)
{
	int *color, *key;
	int rc;

	rc = ccore_comm_init_all(topo, w->world);
	if (rc) {
		memset(w->world, 0, w->fabric_n * sizeof(*w->world));
		return fail("timed model: %s", ccore_last_error());
	}
	if (w->fabric_n == w->n) {
		w->comm = w->world;
		return 0;
	}
	color = calloc(2 * (size_t)w->fabric_n, sizeof(*color));
	w->comm = calloc(w->fabric_n, sizeof(*w->comm));
	if (!color || !w->comm) {
		free(color);
		return fail("out of memory");
	}
	key = color + w->fabric_n;
	for (uint32_t r = 0; r < w->fabric_n; r++) {
		color[r] = r < w->n ? 0 : -1;
		key[r] = (int)r;
	}
	rc = ccore_comm_split(w->world, (int)w->fabric_n, color, key, w->comm);
	free(color);
	if (rc) {
		free(w->comm);
		w->comm = NULL;
		return fail("timed model: %s", ccore_last_error());
	}
	return 0;
}

struct timed_world *timed_open(const struct tune_topo *t, uint64_t max_bytes)
{
	struct ccore_topology topo = { t->nodes, t->torus_x * t->torus_y, t->ranks_per_device };
	struct timed_world *w = calloc(1, sizeof(*w));
	char *sim;

	if (!w) {
		fail("out of memory");
		return NULL;
	}
	w->n = w->fabric_n = tune_topo_ranks(t);
	if (t->ideal) {
		/* one tier: any layout within the model's limits will do */
		topo.nodes = 1;
		w->fabric_n = tune_ideal_layout(w->n, &topo.devices_per_node,
						&topo.ranks_per_device);
		if (!w->fabric_n) {
			fail("timed model: %u ranks: the ideal setting runs 1 to %u", w->n,
			     TUNE_IDEAL_MAX_RANKS);
			free(w);
			return NULL;
		}
	}
	w->world = calloc(w->fabric_n, sizeof(*w->world));
	w->send = calloc(w->n, sizeof(*w->send));
	w->recv = calloc(w->n, sizeof(*w->recv));
	sim = sim_config(t, w->fabric_n, user_sim());
	if (!w->world || !w->send || !w->recv || !sim) {
		fail("out of memory");
		free(sim);
		goto fail;
	}
	if (t->ideal) {
		/* the runtime's tuner prices slices in the same setting */
		set_num_env("CCORE_TUNER_ALPHA_US", t->alpha_us[0]);
		set_num_env("CCORE_TUNER_BW_GBPS", t->bw_gbps[0]);
		setenv("CCORE_TUNER_IDEAL", "1", 1);
	}
	setenv("CCORE_DEVICE", "sim", 1);
	setenv("CCORE_SIM", sim, 1);
	free(sim);
	if (open_group(w, &topo))
		goto fail;
	for (uint32_t r = 0; r < w->n; r++)
		if (ccore_mem_alloc(w->comm[r], max_bytes ? max_bytes : 4, &w->send[r]) ||
		    ccore_mem_alloc(w->comm[r], max_bytes ? max_bytes : 4, &w->recv[r])) {
			fail("timed model: %s", ccore_last_error());
			goto fail;
		}
	return w;
fail:
	timed_close(w);
	return NULL;
}

void timed_close(struct timed_world *w)
{
	if (!w)
		return;
	if (w->comm && w->comm != w->world)
		for (uint32_t r = 0; r < w->n && w->comm[r]; r++)
			ccore_comm_destroy(w->comm[r]);
	for (uint32_t r = 0; w->world && r < w->fabric_n && w->world[r]; r++)
		ccore_comm_destroy(w->world[r]);
	if (w->comm != w->world)
		free(w->comm);
	free(w->world);
	free(w->send);
	free(w->recv);
	free(w);
}

/* Rank @r's part of the collective (@count as the API counts it): ccore-bench's calls. */
static int post(struct timed_world *w, uint32_t r, int coll, size_t count, uint32_t root)
{
	struct coll_call c = {
		.op = (enum ccore_coll_op)(coll + ccore_op_allreduce), .count = count,
		.dtype = ccore_f32, .redop = ccore_sum, .root = (int)root,
	};

	return coll_call_post(&c, (int)r, (int)w->n, w->send[r], w->recv[r], w->comm[r], NULL);
}

/* The count of one rank's call for nccl-tests size @bytes (post()'s). */
static size_t count_of(const struct timed_world *w, int coll, uint64_t bytes)
{
	size_t count = (size_t)(bytes / 4);

	if (coll == CS_ALLGATHER || coll == CS_REDUCESCATTER || coll == CS_ALLTOALL)
		count /= w->n;
	return count;
}

int timed_choice(struct timed_world *w, int coll, uint64_t bytes, struct ccore_plan_info *info)
{
	unsetenv("CCORE_ALGO");
	if (ccore_plan_query(w->comm[0], (enum ccore_coll_op)(coll + ccore_op_allreduce),
			     count_of(w, coll, bytes), ccore_f32, info))
		return fail("%s", ccore_last_error());
	return 0;
}

uint32_t timed_ranks(const struct timed_world *w)
{
	return w->n;
}

int timed_run(struct timed_world *w, int coll, uint64_t bytes, uint32_t root, const char *algo,
	      double *us)
{
	uint64_t t0, t1;
	int rc;

	if (ccore_comm_virtual_time_ps(w->comm[0], &t0))
		return fail("%s", ccore_last_error());
	setenv("CCORE_ALGO", algo, 1);
	rc = ccore_group_start();
	for (uint32_t r = 0; r < w->n && !rc; r++)
		rc = post(w, r, coll, count_of(w, coll, bytes), root);
	rc = ccore_group_end() ?: rc;
	for (uint32_t r = 0; r < w->n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->comm[r]));
	rc = rc ?: ccore_comm_virtual_time_ps(w->comm[0], &t1);
	unsetenv("CCORE_ALGO");
	if (rc)
		return fail("%s", ccore_last_error());
	if (strcmp(ccore_comm_last_algo(w->comm[0]), algo))
		return fail("ran %s, not %s", ccore_comm_last_algo(w->comm[0]), algo);
	*us = (double)(t1 - t0) / 1e6;
	return 0;
}
