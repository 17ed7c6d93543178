/* SPDX-License-Identifier: MIT */
/*
 * The network tier's figures of a communicator across hosts, agreed by
 * every rank at its init (comm_net_tier.c, called by comm_net.c around
 * its gathers): given by CCORE_NET_ALPHA_US / CCORE_NET_BW_GBPS, the
 * processes' remembered figures, or measured by rank 0's process against
 * the first process of each other host (runtime/net/net_probe.c).  Every
 * process decides from the same gathered words, so every rank prices the
 * same.
 */
#ifndef CCORE_COMM_NET_TIER_H
#define CCORE_COMM_NET_TIER_H

#include "net/net.h"
#include "tune/net_tier.h"

#include <pthread.h>
#include <stdint.h>

struct net_probe;

/* What a process says in the init's first gather, and (rank 0's) in the last. */
struct net_tier_word {
	double alpha_us, bw_gbps;
	uint32_t have;			/* alpha_us and bw_gbps hold figures */
	uint32_t probe;			/* probe_blob is this process's probe */
	struct net_blob probe_blob;
};

/* The job's processes as comm_net.c found them in the first gather. */
struct net_tier_job {
	uint32_t me;			/* this process's index */
	uint32_t n;
	const uint32_t *ids;		/* each one's lowest rank, ascending */
	const uint32_t *hosts;
};

struct net_tier_init {
	struct tune_net_env env;
	bool measure;			/* decided from the first gather */
	struct net_probe *probe;	/* rank 0's process's and each other host's first's */
	pthread_t opener;		/* opening it beside the job's own network */
	bool opening;
	int open_rc;
	uint32_t id;
	struct net_blob blob;
	int *peers;			/* rank 0's process: [process] its probe's peer, -1: none */
	struct tune_net result;
};

/* An allgather of one word per process, in the job's process order. */
typedef int net_tier_gather_fn(void *arg, const struct net_tier_word *mine,
			       struct net_tier_word *all);

/*
 * Before anything of the network: the environment; a process that may
 * measure or answer (@probes: it holds rank 0, or its host's lowest rank)
 * starts opening its probe while the job's network opens.  Process id @id.
 */
int net_tier_start(struct net_tier_init *t, uint32_t id, bool probes);
/* Before the first gather: this process's remembered figures and its probe's address. */
void net_tier_offer(struct net_tier_init *t, struct net_tier_word *w);
/*
 * After it (@all: every process's word): whether to measure; if so the
 * probes connect (rank 0's to each other host's first, and back), so that
 * after the next gather (the job's barrier) they may measure.
 */
void net_tier_decide(struct net_tier_init *t, const struct net_tier_job *job,
		     const struct net_tier_word *all);
/*
 * After that barrier: rank 0's process measures, and every rank takes
 * its figures through @gather (one more gather, only when measuring);
 * the figures in t->result.  Collective.
 */
int net_tier_agree(struct net_tier_init *t, const struct net_tier_job *job,
		   net_tier_gather_fn *gather, void *arg);
/* Close the probe (also after a failure). */
void net_tier_end(struct net_tier_init *t);

#endif
