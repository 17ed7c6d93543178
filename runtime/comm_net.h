/* SPDX-License-Identifier: MIT */
/*
 * Communicators of one process per rank across hosts on the embedded sim
 * (comm_net.c): each host's fabric holds its node only, and the processes
 * reach the others' through the network (runtime/sim/sim_net.c).
 */
#ifndef CCORE_COMM_NET_H
#define CCORE_COMM_NET_H

#include "comm.h"
#include "rank_place.h"

struct boot;

/*
 * With @rt the host's fabric: every process of the job swaps its network
 * address (through @boots of the local ranks @ranks), connects to the
 * processes of other hosts, and waits for all to have.  Collective: every
 * rank of the job calls it at the same init.
 */
int comm_net_connect(struct rt *rt, struct boot *const *boots, const int *ranks, uint32_t nlocal,
		     uint32_t nranks, const struct clique_rank *place, uint32_t devices_per_node);
/* For tests: sim_net_handovers() of @c's process (-ENODEV when not across hosts). */
int comm_net_handovers(const struct ccore_comm *c, uint64_t *by_stepper, uint64_t *by_pump);

#endif
