/* SPDX-License-Identifier: MIT */
/*
 * Where the ranks of a communicator of one process per rank run
 * (rank_place.c): each rank tells the others its host; every rank then
 * derives the same topology (nodes = hosts, devices per node, ranks per
 * device) and the same device and core of every rank.
 */
#ifndef CCORE_RANK_PLACE_H
#define CCORE_RANK_PLACE_H

#include "comm.h"

/* What one rank contributes (allgathered, so fixed-size bytes). */
struct rank_host {
	char host[124];			/* $CCORE_HOSTID, or hostname/boot id/UTS ns */
	uint32_t rank;
	uint32_t pid;			/* its process: ranks of a host in several share its devices */
	/* its process whatever the host id says (kernel boot, pid): ranks
	 * given other hosts' ids in one process (tests) need no network */
	uint64_t process;
};

/*
 * For tests that run several hosts' ranks in one process: rank @rank's
 * host id, or NULL for this process's real one.  NULL: none.
 */
extern const char *(*rank_host_for_test)(uint32_t rank);
/* This process's host id into @h (with @rank and the pid). */
void rank_host_self(uint32_t rank, struct rank_host *h);
/*
 * From every rank's @hosts[0..@n-1]: the topology and each rank's device
 * and core (@ranks[n]).  Hosts are numbered by their lowest rank; a
 * rank's local rank l (its order among its host's ranks) runs on device
 * host * D + l / R, core l % R, R from $CCORE_RANKS_PER_DEVICE (default
 * 1), D = ranks per host / R.  -EINVAL naming what does not fit: hosts
 * with different numbers of ranks, R not dividing them, a bad value.
 */
int rank_place(const struct rank_host *hosts, uint32_t n, struct ccore_topology *topo,
	       struct clique_rank *ranks);
/* $CCORE_RANKS_PER_DEVICE, parsed: 1 if unset; -EINVAL naming a bad value. */
int rank_per_device(uint32_t *out);
/* Do rank @me's host's ranks run in more than one process? */
/* Do ranks of other hosts run in other processes than rank @me's (so the hosts need a network)? */
bool rank_hosts_apart(const struct rank_host *hosts, uint32_t n, uint32_t me);
bool rank_host_shared(const struct rank_host *hosts, uint32_t n, uint32_t me);

#endif
