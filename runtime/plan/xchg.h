/* SPDX-License-Identifier: MIT */
/*
 * How a plan's ranks reach their peers' buffers and semaphores.  Two
 * implementations of one interface:
 *
 *   xchg_in_process         every rank is in this process (ccore_comm_init_all):
 *                           the peer's buffer is imported into the rank's
 *                           device directly (rt_peer_va), its semaphores
 *                           made and imported as the lowering names them.
 *   xchg_between_processes  one process per rank (ccore_comm_init_rank):
 *                           pairs within the process as above; for a peer in
 *                           another process, when a plan is built, each
 *                           side exports what the other's program names
 *                           (its buffers, its semaphore pair for that peer)
 *                           as device tokens, sends them through the
 *                           bootstrap and imports the peer's (xchg_boot.c).
 *
 * A launch of a cached plan calls none of these.
 */
#ifndef CCORE_PLAN_XCHG_H
#define CCORE_PLAN_XCHG_H

#include "lower/lower.h"
#include "sched/cs.h"

struct clique;
struct plan;

struct xchg_ops {
	const char *name;
	/* before placing @p: find what an earlier build exchanged (optional) */
	void (*prepare)(struct clique *q, struct plan *p);
	/* after placing @p for schedule @s: exchange with the peers (optional) */
	int (*plan)(struct clique *q, struct plan *p, const struct cs_sched *s);
	/* rank @k's buffer @buf as rank @r's descriptors name it (0: none) */
	int (*peer_va)(struct plan *p, uint32_t r, uint32_t k, uint32_t buf, uint64_t *va);
	/* semaphore @kind of rank @r for @peer, named by rank @user */
	int (*sem)(struct plan *p, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
		   uint32_t user, uint32_t *sem);
	/* rank @rank frees @va: forget what was exchanged of it (optional) */
	void (*forget)(struct clique *q, uint32_t rank, uint64_t va);
	/* the communicator goes: drop imports and exchanged records (optional) */
	void (*fini)(struct clique *q);
};

extern const struct xchg_ops xchg_in_process;
extern const struct xchg_ops xchg_between_processes;

/*
 * A peer in another process this one exchanged with (so its jobs may wait
 * on it) whose process is gone: 1 and its rank in *@rank, else 0.  Peers
 * are watched once their fd channel was seen bound at an exchange: one
 * on another host is never taken for dead, nor one whose process still
 * runs (it only left the communicator).  Any thread may call it.
 */
int xchg_peer_gone(struct clique *q, uint32_t *rank);

/* xchg_local.c: the in-process calls, which the other implementation uses for pairs within it */
int xchg_local_peer_va(struct plan *p, uint32_t r, uint32_t k, uint32_t buf, uint64_t *va);
int xchg_local_sem(struct plan *p, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
		   uint32_t user, uint32_t *sem);

#endif
