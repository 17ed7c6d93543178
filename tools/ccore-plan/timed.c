// SPDX-License-Identifier: MIT
/* ccore-plan's timed-model column (see timed.h). */
#include "timed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccore.h"
#include "sched/cs.h"

struct timed_world {
	uint32_t n;
	struct ccore_comm **comm;
	ccore_ptr *send, *recv;
};

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
	static char saved[512];
	static int done;
	const char *v;

	if (!done) {
		v = getenv("CCORE_SIM");
		snprintf(saved, sizeof(saved), "%s", v ? v : "");
		done = 1;
	}
	return saved;
}

/* CCORE_SIM for @t after the user's keys (@user): its layout and its tiers' α and bandwidths. */
static void sim_config(const struct tune_topo *t, uint32_t n, const char *user, char *buf,
		       size_t len)
{
	int k;

	/* virtual buffers cost no host memory, so devices get 1 TiB for
	 * temporaries unless the user's keys (after it) say otherwise */
	k = snprintf(buf, len, "hbm=1024G,%s%s", user, *user ? "," : "");
	/* room for thousands of ranks, as ccore-bench --timed makes */
	k += snprintf(buf + k, len - (size_t)k,
		     "timed=1,virtual=1,job_timeout_ms=3600000,sems=%u,program_size=1048576,ring_size=1048576",
		     2 * n + 64 > 256 ? 2 * n + 64 : 256);
	if (t->ideal) {
		snprintf(buf + k, len - (size_t)k, ",ideal=1,alpha_node_ns=%ld,bw_node_gbps=%ld",
			 ns_of(t->alpha_us[0]), gbit_of(t->bw_gbps[0]));
		return;
	}
	k += snprintf(buf + k, len - (size_t)k,
		      ",alpha_dev_ns=%ld,alpha_node_ns=%ld,alpha_net_ns=%ld,bw_dev_gbps=%ld,bw_node_gbps=%ld,bw_net_gbps=%ld",
		      ns_of(t->alpha_us[TUNE_DEV]), ns_of(t->alpha_us[TUNE_NODE]),
		      ns_of(t->alpha_us[TUNE_NET]), gbit_of(t->bw_gbps[TUNE_DEV]),
		      gbit_of(t->bw_gbps[TUNE_NODE]), gbit_of(t->bw_gbps[TUNE_NET]));
	if (t->torus_y > 1)
		snprintf(buf + k, len - (size_t)k, ",topology=torus,torus=%ux%u", t->torus_x,
			 t->torus_y);
}

struct timed_world *timed_open(const struct tune_topo *t, uint64_t max_bytes, char *err,
			       size_t len)
{
	struct ccore_topology topo = { t->nodes, t->torus_x * t->torus_y, t->ranks_per_device };
	struct timed_world *w = calloc(1, sizeof(*w));
	char sim[1024];

	if (!w) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	w->n = tune_topo_ranks(t);
	w->comm = calloc(w->n, sizeof(*w->comm));
	w->send = calloc(w->n, sizeof(*w->send));
	w->recv = calloc(w->n, sizeof(*w->recv));
	if (!w->comm || !w->send || !w->recv) {
		snprintf(err, len, "out of memory");
		goto fail;
	}
	sim_config(t, w->n, user_sim(), sim, sizeof(sim));
	if (t->ideal) {
		/* the runtime's tuner prices slices in the same setting */
		snprintf(err, len, "%g", t->alpha_us[0]);
		setenv("CCORE_TUNER_ALPHA_US", err, 1);
		snprintf(err, len, "%g", t->bw_gbps[0]);
		setenv("CCORE_TUNER_BW_GBPS", err, 1);
		setenv("CCORE_TUNER_IDEAL", "1", 1);
		err[0] = '\0';
	}
	setenv("CCORE_DEVICE", "sim", 1);
	setenv("CCORE_SIM", sim, 1);
	if (ccore_comm_init_all(&topo, w->comm)) {
		snprintf(err, len, "timed model: %s", ccore_last_error());
		w->comm[0] = NULL;
		goto fail;
	}
	for (uint32_t r = 0; r < w->n; r++)
		if (ccore_mem_alloc(w->comm[r], max_bytes ? max_bytes : 4, &w->send[r]) ||
		    ccore_mem_alloc(w->comm[r], max_bytes ? max_bytes : 4, &w->recv[r])) {
			snprintf(err, len, "timed model: %s", ccore_last_error());
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
	for (uint32_t r = 0; w->comm && w->comm[0] && r < w->n; r++)
		ccore_comm_destroy(w->comm[r]);
	free(w->comm);
	free(w->send);
	free(w->recv);
	free(w);
}

/* Rank @r's part of the collective (@count as the API counts it): ccore-bench's calls. */
static int post(struct timed_world *w, uint32_t r, int coll, size_t count, uint32_t root)
{
	struct ccore_comm *c = w->comm[r];
	ccore_ptr s = w->send[r], d = w->recv[r];
	enum ccore_dtype f = ccore_f32;

	switch (coll) {
	case CS_ALLREDUCE:
		return ccore_all_reduce(s, d, count, f, ccore_sum, c, NULL);
	case CS_ALLGATHER:
		return ccore_all_gather(s, d, count, f, c, NULL);
	case CS_REDUCESCATTER:
		return ccore_reduce_scatter(s, d, count, f, ccore_sum, c, NULL);
	case CS_ALLTOALL:
		return ccore_all_to_all(s, d, count, f, c, NULL);
	case CS_BROADCAST:
		return ccore_broadcast(s, d, count, f, (int)root, c, NULL);
	case CS_REDUCE_COLL:
		return ccore_reduce(s, d, count, f, ccore_sum, (int)root, c, NULL);
	default:	/* a ring shift, as ccore-bench's sendrecv */
		return ccore_send(s, count, f, (int)((r + 1) % w->n), c, NULL) ?:
		       ccore_recv(d, count, f, (int)((r + w->n - 1) % w->n), c, NULL);
	}
}

/* The count of one rank's call for nccl-tests size @bytes (post()'s). */
static size_t count_of(const struct timed_world *w, int coll, uint64_t bytes)
{
	size_t count = (size_t)(bytes / 4);

	if (coll == CS_ALLGATHER || coll == CS_REDUCESCATTER || coll == CS_ALLTOALL)
		count /= w->n;
	return count;
}

int timed_choice(struct timed_world *w, int coll, uint64_t bytes, struct ccore_plan_info *info,
		 char *err, size_t len)
{
	unsetenv("CCORE_ALGO");
	if (ccore_plan_query(w->comm[0], (enum ccore_coll_op)(coll + ccore_op_allreduce),
			     count_of(w, coll, bytes), ccore_f32, info)) {
		snprintf(err, len, "%s", ccore_last_error());
		return -1;
	}
	return 0;
}

uint32_t timed_ranks(const struct timed_world *w)
{
	return w->n;
}

int timed_run(struct timed_world *w, int coll, uint64_t bytes, uint32_t root, const char *algo,
	      double *us, char *err, size_t len)
{
	uint64_t t0, t1;
	int rc;

	if (ccore_comm_virtual_time_ps(w->comm[0], &t0)) {
		snprintf(err, len, "%s", ccore_last_error());
		return -1;
	}
	setenv("CCORE_ALGO", algo, 1);
	rc = ccore_group_start();
	for (uint32_t r = 0; r < w->n && !rc; r++)
		rc = post(w, r, coll, count_of(w, coll, bytes), root);
	rc = ccore_group_end() ?: rc;
	for (uint32_t r = 0; r < w->n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->comm[r]));
	rc = rc ?: ccore_comm_virtual_time_ps(w->comm[0], &t1);
	unsetenv("CCORE_ALGO");
	if (rc) {
		snprintf(err, len, "%s", ccore_last_error());
		return -1;
	}
	if (strcmp(ccore_comm_last_algo(w->comm[0]), algo)) {
		snprintf(err, len, "ran %s, not %s", ccore_comm_last_algo(w->comm[0]), algo);
		return -1;
	}
	*us = (double)(t1 - t0) / 1e6;
	return 0;
}
