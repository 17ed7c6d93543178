// SPDX-License-Identifier: MIT
/*
 * Communicators across hosts on the embedded sim (comm_net.h).  At init,
 * once the host's fabric is open (with config "here" set to the host),
 * every process registers its fabric's memory with the network and every
 * rank's entry -- its process (by its lowest rank), its host, its
 * network address -- goes to every rank (an allgather per local rank, at
 * once, as the bootstrap's joins do); then each process connects to
 * those of other hosts, and a barrier makes sure all have before the
 * first transfer.  The same gathers, and one more when the network is
 * measured, agree on the network tier's figures the tuner prices
 * (comm_net_tier.c).  Nothing of this happens again for the
 * communicator's calls: a launch sends nothing between processes.
 */
#include "comm_net.h"
#include "bootstrap/boot.h"
#include "comm_net_tier.h"
#include "log.h"
#include "sim/sim_net.h"
#include "tune/hw.h"

#include <stdlib.h>
#include <string.h>

struct net_entry {
	uint32_t id, host;
	struct net_blob blob;
	struct net_tier_word tier;	/* the network tier's (comm_net_tier.c) */
};

struct gather {
	struct boot *b;
	void *buf;
	size_t size;
	int rc;
};

static void *gather_run(void *arg)
{
	struct gather *g = arg;

	g->rc = boot_allgather(g->b, g->buf, g->size);
	return NULL;
}

/* An allgather of @size bytes per rank on every local rank's bootstrap at once. */
static int gather_all(struct gather *g, uint32_t n)
{
	bool *started = calloc(n, sizeof(*started));
	int rc = started ? comm_run_each(gather_run, g, sizeof(*g), n, started) :
		 ccore_error(-ENOMEM, "out of memory");

	for (uint32_t i = 0; i < n && !rc; i++)
		rc = started[i] ? g[i].rc : ccore_error(-EAGAIN, "no thread to gather with");
	free(started);
	return rc;
}

/* What the init's gathers move: @mine from every local rank into @all (nranks per local rank). */
struct gathers {
	struct gather *g;
	struct net_entry *all, mine;
	const int *ranks;
	uint32_t nlocal, nranks;
};

static int gather_mine(struct gathers *gs)
{
	memset(gs->all, 0, (size_t)gs->nranks * gs->nlocal * sizeof(*gs->all));
	for (uint32_t i = 0; i < gs->nlocal; i++)
		gs->all[(size_t)i * gs->nranks + (uint32_t)gs->ranks[i]] = gs->mine;
	return gather_all(gs->g, gs->nlocal);
}

/* The tier words of the job's processes, in their order (the entries of their lowest ranks). */
static void tier_words(const struct gathers *gs, struct net_tier_word *words)
{
	uint32_t n = 0;

	for (uint32_t r = 0; r < gs->nranks; r++)
		if (gs->all[r].id == r)
			words[n++] = gs->all[r].tier;
}

static int gather_tier(void *arg, const struct net_tier_word *mine, struct net_tier_word *all)
{
	struct gathers *gs = arg;
	int rc;

	gs->mine.tier = *mine;
	rc = gather_mine(gs);
	if (!rc)
		tier_words(gs, all);
	return rc;
}

/* Does this process measure the network or answer (net_tier_start)? It holds rank 0 or its host's lowest. */
static bool probes(const int *ranks, uint32_t nlocal, uint32_t nranks,
		   const struct clique_rank *place, uint32_t devices_per_node)
{
	uint32_t host = place[ranks[0]].dev / devices_per_node, lowest = 0;

	while (lowest < nranks && place[lowest].dev / devices_per_node != host)
		lowest++;
	for (uint32_t i = 0; i < nlocal; i++)
		if ((uint32_t)ranks[i] == 0 || (uint32_t)ranks[i] == lowest)
			return true;
	return false;
}

int comm_net_connect(struct rt *rt, struct boot *const *boots, const int *ranks, uint32_t nlocal,
		     uint32_t nranks, const struct clique_rank *place, uint32_t devices_per_node)
{
	struct gathers gs = { .g = calloc(nlocal, sizeof(*gs.g)), .mine = { .id = UINT32_MAX },
			      .all = calloc((size_t)nranks * nlocal, sizeof(*gs.all)),
			      .ranks = ranks, .nlocal = nlocal, .nranks = nranks };
	uint32_t *ids = calloc(nranks, sizeof(*ids)), *hosts = calloc(nranks, sizeof(*hosts));
	struct net_blob *blobs = calloc(nranks, sizeof(*blobs));
	struct net_tier_word *words = calloc(nranks, sizeof(*words));
	struct net_tier_job job = { .ids = ids, .hosts = hosts };
	struct net_tier_init tier = { 0 };
	struct net_entry *mine = &gs.mine;
	int rc = gs.g && gs.all && ids && hosts && blobs && words ? 0 :
		 ccore_error(-ENOMEM, "out of memory");

	for (uint32_t i = 0; i < nlocal; i++)
		mine->id = (uint32_t)ranks[i] < mine->id ? (uint32_t)ranks[i] : mine->id;
	mine->host = place[ranks[0]].dev / devices_per_node;
	rc = rc ?: net_tier_start(&tier, mine->id,
				  probes(ranks, nlocal, nranks, place, devices_per_node));
	rc = rc ?: sim_net_start(rt->sys, mine->id, mine->host, &mine->blob);
	for (uint32_t i = 0; i < nlocal && !rc; i++)
		gs.g[i] = (struct gather){ .b = boots[i], .buf = gs.all + (size_t)i * nranks,
					   .size = sizeof(*gs.all) };
	if (!rc)
		net_tier_offer(&tier, &mine->tier);
	rc = rc ?: gather_mine(&gs);
	/* one entry per process: the rank that names it */
	for (uint32_t r = 0; !rc && r < nranks; r++)
		if (gs.all[r].id == r) {
			job.me = r == mine->id ? job.n : job.me;
			ids[job.n] = gs.all[r].id;
			hosts[job.n] = gs.all[r].host;
			blobs[job.n++] = gs.all[r].blob;
		}
	if (!rc) {
		tier_words(&gs, words);
		net_tier_decide(&tier, &job, words);
	}
	rc = rc ?: sim_net_connect(rt->sys, job.n, ids, hosts, blobs);
	/* everyone connected before anyone sends: a barrier */
	memset(&mine->tier, 0, sizeof(mine->tier));
	rc = rc ?: gather_mine(&gs) ?: net_tier_agree(&tier, &job, gather_tier, &gs);
	net_tier_end(&tier);
	if (!rc) {
		struct tune_hw hw;
		char figures[200];

		rt->across_hosts = true;
		rt->net = tier.result;
		tune_hw_from_device(rt->devs[place[ranks[0]].dev].dev, &hw);
		tune_net_describe(&rt->net, &hw, figures, sizeof(figures));
		log_msg(LOG_INFO, "net: the tuner prices the network between hosts at %s", figures);
	}
	free(gs.g);
	free(gs.all);
	free(ids);
	free(hosts);
	free(blobs);
	free(words);
	return rc;
}

int comm_net_handovers(const struct ccore_comm *c, uint64_t *by_stepper, uint64_t *by_pump)
{
	struct rt *rt = c->q->rt;

	if (!rt->across_hosts)
		return ccore_error(-ENODEV, "comm_net_handovers: the communicator is not across hosts");
	return sim_net_handovers(rt->sys, by_stepper, by_pump);
}
