// SPDX-License-Identifier: MIT
/*
 * The network tier's figures agreed at a communicator's init (comm_net_tier.h).
 *
 * - Both figures given (CCORE_NET_ALPHA_US, CCORE_NET_BW_GBPS; plan
 *   settings, so every rank's are the same), or CCORE_NET_MEASURE=off:
 *   nothing is measured.
 * - Else, when every process remembers figures of an earlier
 *   communicator (and CCORE_NET_MEASURE is not always), the slowest of
 *   them (largest α, smallest bandwidth) serve; otherwise rank 0's process
 *   measures the way to the first process of each other host, one after
 *   the other, and its figures (the slowest over those hosts) go to every
 *   rank in one more gather.
 * - A figure given replaces the one measured or remembered; one neither
 *   given nor measured is the device's.
 * The probes open while the job's own network does (opening a tcp;ofi_rxm
 * endpoint takes ~30 ms), their addresses ride in the job's first gather,
 * and each answering probe greets rank 0's at once, so the provider's
 * connection is made while the job's own connect and barrier go on.  A measurement that fails (a probe that cannot open, a host that
 * does not answer) leaves the device's figures, with a warning: the
 * choice only has to be the same everywhere.
 */
#include "comm_net_tier.h"
#include "ccore_internal.h"
#include "log.h"
#include "net/net_probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Past this much measuring, the hosts not yet measured are left out (at least one is measured). */
#define MEASURE_BUDGET_MS 50.0

static void *open_probe(void *arg)
{
	struct net_tier_init *t = arg;

	t->open_rc = net_probe_open(t->id, &t->probe, &t->blob);
	if (t->open_rc)
		log_msg(LOG_WARN, "net: cannot open a probe to measure the network: %s",
			ccore_last_error());
	return NULL;
}

int net_tier_start(struct net_tier_init *t, uint32_t id, bool probes)
{
	*t = (struct net_tier_init){ .id = id, .open_rc = -ENODEV };
	if (tune_net_env(&t->env))
		return -EINVAL;
	if (!probes || t->env.measure == TUNE_NET_MEASURE_OFF ||
	    (t->env.has_alpha && t->env.has_bw))
		return 0;
	t->opening = !pthread_create(&t->opener, NULL, open_probe, t);
	if (!t->opening)
		open_probe(t);
	return 0;
}

void net_tier_offer(struct net_tier_init *t, struct net_tier_word *w)
{
	memset(w, 0, sizeof(*w));
	w->have = tune_net_cached(&w->alpha_us, &w->bw_gbps);
	if (t->opening)
		pthread_join(t->opener, NULL);
	t->opening = false;
	w->probe = !t->open_rc;
	if (w->probe)
		w->probe_blob = t->blob;
}

/* The first process of each host other than process 0's: those process 0 measures. */
static bool answers(const struct net_tier_job *job, uint32_t p)
{
	for (uint32_t q = 0; q < p; q++)
		if (job->hosts[q] == job->hosts[p])
			return false;
	return job->hosts[p] != job->hosts[0];
}

/* Connect the probe of @w (host @host's, process @id's); its peer number, or -1 (with a warning). */
static int connect_probe(struct net_tier_init *t, const struct net_tier_word *w, uint32_t host,
			 uint32_t id)
{
	char name[48];
	int peer;

	snprintf(name, sizeof(name), "host %u's probe (rank %u)", host, id);
	if (!w->probe || net_probe_connect(t->probe, &w->probe_blob, name, &peer)) {
		log_msg(LOG_WARN, "net: cannot connect %s: %s", name,
			w->probe ? ccore_last_error() : "it has none");
		return -1;
	}
	return peer;
}

void net_tier_decide(struct net_tier_init *t, const struct net_tier_job *job,
		     const struct net_tier_word *all)
{
	bool everyone_remembers = true;
	double alpha = 0, bw = 0;

	for (uint32_t p = 0; p < job->n && everyone_remembers; p++) {
		everyone_remembers = all[p].have;
		alpha = p == 0 || all[p].alpha_us > alpha ? all[p].alpha_us : alpha;
		bw = p == 0 || all[p].bw_gbps < bw ? all[p].bw_gbps : bw;
	}
	t->result = (struct tune_net){ 0 };
	if (t->env.measure == TUNE_NET_MEASURE_OFF || (t->env.has_alpha && t->env.has_bw))
		return;
	if (everyone_remembers && t->env.measure == TUNE_NET_MEASURE_ONCE) {
		t->result = (struct tune_net){ alpha, bw, TUNE_NET_CACHED, TUNE_NET_CACHED };
		net_tier_end(t);
		return;
	}
	t->measure = true;
	if (!t->probe)
		return;
	if (job->me != 0) {
		int rank0 = connect_probe(t, &all[0], job->hosts[0], job->ids[0]);

		if (rank0 >= 0)
			net_probe_greet(t->probe, rank0);
		return;
	}
	t->peers = malloc(job->n * sizeof(*t->peers));
	for (uint32_t p = 0; t->peers && p < job->n; p++)
		t->peers[p] = answers(job, p) ? connect_probe(t, &all[p], job->hosts[p], job->ids[p]) :
			      -1;
}

/* Process 0: measure each answering host's way in turn, the slowest figures in *@w. */
static void measure(struct net_tier_init *t, const struct net_tier_job *job,
		    struct net_tier_word *w)
{
	double spent_ms = 0;
	int rc = 0;

	for (uint32_t p = 1; p < job->n && !rc && (!w->have || spent_ms < MEASURE_BUDGET_MS); p++) {
		struct net_probe_result r;

		if (!answers(job, p))
			continue;
		rc = t->peers[p] < 0 ? ccore_error(-ENODEV, "no probe connected on host %u",
						   job->hosts[p]) :
		     net_probe_measure(t->probe, t->peers[p], &r);
		if (rc)
			break;
		log_msg(LOG_INFO, "net: to host %u: α %.1f µs, %.3f GB/s (measured in %.1f ms)",
			job->hosts[p], r.alpha_us, r.bw_gbps, r.took_ms);
		w->alpha_us = !w->have || r.alpha_us > w->alpha_us ? r.alpha_us : w->alpha_us;
		w->bw_gbps = !w->have || r.bw_gbps < w->bw_gbps ? r.bw_gbps : w->bw_gbps;
		w->have = 1;
		spent_ms += r.took_ms;
	}
	if (rc) {
		log_msg(LOG_WARN, "net: measuring the network failed (%s); the tuner prices the device's figures",
			ccore_last_error());
		w->have = 0;
	}
}

int net_tier_agree(struct net_tier_init *t, const struct net_tier_job *job,
		   net_tier_gather_fn *gather, void *arg)
{
	struct net_tier_word mine = { 0 }, *words = NULL;
	int rc = 0;

	if (t->measure) {
		words = calloc(job->n, sizeof(*words));
		if (!words)
			return ccore_error(-ENOMEM, "out of memory");
		if (job->me == 0 && t->probe && t->peers)
			measure(t, job, &mine);
		/* every rank takes process 0's figures; the probes answer until then */
		rc = gather(arg, &mine, words);
		if (!rc && words[0].have) {
			t->result = (struct tune_net){ words[0].alpha_us, words[0].bw_gbps,
						       TUNE_NET_MEASURED, TUNE_NET_MEASURED };
			tune_net_remember(words[0].alpha_us, words[0].bw_gbps);
		}
		free(words);
	} else if (t->result.alpha_from == TUNE_NET_CACHED) {
		/* every process agreed on the same: so do the next communicators */
		tune_net_remember(t->result.alpha_us, t->result.bw_gbps);
	}
	net_tier_end(t);
	if (rc)
		return rc;
	if (t->env.has_alpha) {
		t->result.alpha_us = t->env.alpha_us;
		t->result.alpha_from = TUNE_NET_GIVEN;
	}
	if (t->env.has_bw) {
		t->result.bw_gbps = t->env.bw_gbps;
		t->result.bw_from = TUNE_NET_GIVEN;
	}
	return 0;
}

void net_tier_end(struct net_tier_init *t)
{
	if (t->opening)
		pthread_join(t->opener, NULL);
	t->opening = false;
	net_probe_close(t->probe);
	t->probe = NULL;
	free(t->peers);
	t->peers = NULL;
}
