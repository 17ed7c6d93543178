// SPDX-License-Identifier: MIT
/*
 * Communicators across hosts on the embedded sim (comm_net.h).  At init,
 * once the host's fabric is open (with config "here" set to the host),
 * every process registers its fabric's memory with the network and every
 * rank's entry -- its process (by its lowest rank), its host, its
 * network address -- goes to every rank (an allgather per local rank, at
 * once, as the bootstrap's joins do); then each process connects to
 * those of other hosts, and a barrier makes sure all have before the
 * first transfer.  Nothing of this happens again for the communicator's
 * calls: a launch sends nothing between processes.
 */
#include "comm_net.h"
#include "bootstrap/boot.h"
#include "sim/sim_net.h"

#include <stdlib.h>
#include <string.h>

struct net_entry {
	uint32_t id, host;
	struct net_blob blob;
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

int comm_net_connect(struct rt *rt, struct boot *const *boots, const int *ranks, uint32_t nlocal,
		     uint32_t nranks, const struct clique_rank *place, uint32_t devices_per_node)
{
	struct gather *g = calloc(nlocal, sizeof(*g));
	struct net_entry mine = { .id = UINT32_MAX };
	struct net_entry *all = calloc((size_t)nranks * nlocal, sizeof(*all));
	uint32_t *ids = calloc(nranks, sizeof(*ids)), *hosts = calloc(nranks, sizeof(*hosts));
	struct net_blob *blobs = calloc(nranks, sizeof(*blobs));
	uint32_t n = 0;
	int rc = g && all && ids && hosts && blobs ? 0 : ccore_error(-ENOMEM, "out of memory");

	for (uint32_t i = 0; i < nlocal; i++)
		mine.id = (uint32_t)ranks[i] < mine.id ? (uint32_t)ranks[i] : mine.id;
	mine.host = place[ranks[0]].dev / devices_per_node;
	rc = rc ?: sim_net_start(rt->sys, mine.id, mine.host, &mine.blob);
	for (uint32_t i = 0; i < nlocal && !rc; i++) {
		g[i] = (struct gather){ .b = boots[i], .buf = all + (size_t)i * nranks,
					.size = sizeof(*all) };
		all[(size_t)i * nranks + (uint32_t)ranks[i]] = mine;
	}
	rc = rc ?: gather_all(g, nlocal);
	/* one entry per process: the rank that names it */
	for (uint32_t r = 0; !rc && r < nranks; r++)
		if (all[r].id == r) {
			ids[n] = all[r].id;
			hosts[n] = all[r].host;
			blobs[n++] = all[r].blob;
		}
	rc = rc ?: sim_net_connect(rt->sys, n, ids, hosts, blobs);
	if (!rc) {
		/* everyone connected before anyone sends: a barrier */
		memset(all, 0, (size_t)nranks * nlocal * sizeof(*all));
		rc = gather_all(g, nlocal);
	}
	if (!rc)
		rt->across_hosts = true;
	free(g);
	free(all);
	free(ids);
	free(hosts);
	free(blobs);
	return rc;
}
