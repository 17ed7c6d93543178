/* SPDX-License-Identifier: MIT */
/*
 * A communicator's semaphores (internal).  Per stream and rank a pool
 * grows as plans name peers: it holds L, the rank's local completion
 * counter, and per peer it exchanges data with the pair A(peer), C(peer)
 * (lower.h says what they count); loop-form lowerings also count phases on
 * a pair of its own.  A rank that talks to k peers holds 1 + 2k semaphores
 * on a stream (at least 7), whatever the communicator's size: a ring 7,
 * recursive halving 1 + 2 log2(N), only an all-to-all 2N - 1.
 * Pools live as long as the communicator; cached plans name their
 * semaphores, so none is given back earlier.
 */
#ifndef CCORE_SEMS_H
#define CCORE_SEMS_H

#include <stdbool.h>
#include <stdint.h>

struct clique;

struct sem_chunk {
	uint32_t first, count, used;
	uint64_t imported[4];		/* bit d: device d may signal it */
};

struct sem_pool {
	uint32_t *pair;			/* per peer: first of A, C; ~0u none yet */
	uint32_t local;			/* L, once a chunk is held */
	struct sem_chunk *chunks;
	uint32_t nchunks, cap;
	uint32_t held;			/* semaphores in the chunks */
};

/* The pools of every (stream, rank) of @q: none allocated yet. */
int sems_init(struct clique *q);
/* Give every semaphore back (no program or ring may name them any more). */
void sems_fini(struct clique *q);
/*
 * Make sure rank @x on stream slot @slot holds L and a pair for each of
 * @peers (duplicates and peers it has are fine), each pair usable by its
 * peer's device.  A failure says what to change.
 */
int sems_ensure(struct clique *q, uint32_t slot, uint32_t x, const uint32_t *peers,
		uint32_t npeers);
/* Let rank @user's device also name @sem, one of rank @x's: 1 if that took an import. */
int sems_allow(struct clique *q, uint32_t slot, uint32_t x, uint32_t sem, uint32_t user);
/* What sems_ensure() made: L of rank @x, A_x(@y) and C_x(@y) (@y may be @x). */
uint32_t sems_local(const struct clique *q, uint32_t slot, uint32_t x);
uint32_t sems_arrival(const struct clique *q, uint32_t slot, uint32_t x, uint32_t y);
uint32_t sems_credit(const struct clique *q, uint32_t slot, uint32_t x, uint32_t y);
/* Is the pair (x, y) there already (no call needed)? */
bool sems_have(const struct clique *q, uint32_t slot, uint32_t x, uint32_t y);
/* The first semaphore of the chunk of rank @x's pool holding @sem (what is exported); -ENOENT. */
int sems_chunk_of(const struct clique *q, uint32_t slot, uint32_t x, uint32_t sem, uint32_t *first);
/* Is L of rank @x there already? */
bool sems_have_local(const struct clique *q, uint32_t slot, uint32_t x);

#endif
