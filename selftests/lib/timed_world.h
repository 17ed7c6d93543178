/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ranks on a simulated fabric, for the timed-model tests and others:
 * communicators of a topology under a CCORE_SIM configuration ("" for the
 * functional default), a send and a receive buffer per rank, and the
 * model's virtual clock.  Each helper fails the current
 * test with the library's error text.
 */
#ifndef TIMED_WORLD_H
#define TIMED_WORLD_H

#include "ccore_test.h"
#include "ccore.h"

#define TIMED_WORLD_MAX 1024

struct timed_world {
	int n;
	struct ccore_comm *c[TIMED_WORLD_MAX];
	ccore_ptr sb[TIMED_WORLD_MAX], rb[TIMED_WORLD_MAX];
	/* the fabric's ranks when c[] is a split of them (else NULL) */
	struct ccore_comm **fabric;
	int fabric_n;
};

/* CCORE_SIM=@sim, the ranks of @t, and @bytes of each buffer per rank. */
void timed_world_open(struct timed_world *w, const struct ccore_topology *t, const char *sim,
		      size_t bytes);
/*
 * The ideal setting (one tier, one port per rank) for @n ranks, 1 to
 * TIMED_WORLD_MAX, laid out as tune_ideal_layout() says (a split of a
 * larger fabric when it must be), virtual buffers, room for @n ranks'
 * semaphores and programs; then @sim's keys (α, bandwidth, ...).
 */
void timed_world_open_ideal(struct timed_world *w, int n, const char *sim, size_t bytes);
/* Destroys every communicator (each must succeed) and unsets CCORE_SIM. */
void timed_world_close(struct timed_world *w);
/* The fabric's virtual time, picoseconds. */
uint64_t timed_world_now_ps(struct timed_world *w);
/*
 * Post collective @op (not Send/Recv) on @c with nccl's @count: f32, sum,
 * root 0, the communicator's default stream.  The call's return code.
 */
int timed_post(enum ccore_coll_op op, ccore_ptr send, ccore_ptr recv, size_t count,
	       struct ccore_comm *c);
/*
 * An f32 sum AllReduce of @count elements on every rank's default stream,
 * posted and synced: each call must succeed (after refused calls, it shows
 * nothing they posted was left behind).
 */
void timed_world_allreduce_runs(struct timed_world *w, size_t count);

#endif
