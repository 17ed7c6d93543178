/* SPDX-License-Identifier: MIT */
/*
 * The sim backend between hosts (sim_net.c): a host's shared sim holding
 * its node only (config "here") reaches the others' through the network
 * transport (runtime/net/).  Used by the per-rank bootstrap (comm_rank.c);
 * no model header here.
 */
#ifndef CCORE_SIM_NET_H
#define CCORE_SIM_NET_H

#include "net/net.h"

#include <stdint.h>

struct ccore_system;

/*
 * Open the network for shared system @sys, this process being job process
 * @me (its lowest rank) on host @host: its arena registered, its address in
 * @blob for the others.
 */
int sim_net_start(struct ccore_system *sys, uint32_t me, uint32_t host, struct net_blob *blob);
/*
 * Connect to every process on another host: @n processes, each its id
 * (lowest rank), host and blob; the lowest id of a host takes what is
 * sent there.  Then, after a barrier of the whole job, puts may flow.
 */
int sim_net_connect(struct ccore_system *sys, uint32_t n, const uint32_t *ids,
		    const uint32_t *hosts, const struct net_blob *blobs);
/*
 * How many of this process's transfers to other hosts the thread that
 * stepped them handed to the transport, and how many the pump did (what
 * another process's thread stepped).  -ENODEV without a network.
 */
int sim_net_handovers(struct ccore_system *sys, uint64_t *by_stepper, uint64_t *by_pump);

#endif
