// SPDX-License-Identifier: MIT
/*
 * Semaphore pools of a communicator (see sems.h).  A pool takes its
 * semaphores from the core's bank in chunks of consecutive ones, as many as
 * the peers asked for at once need; where the bank has no run that long
 * (other communicators and streams hold pieces of it) it takes smaller
 * chunks.  Each chunk is imported into the devices of the peers whose pairs
 * it holds, and only those: they are the only ones that signal it.
 */
#include "sems.h"
#include "comm.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

/* Fewest pairs a chunk holds: a ring's left, right and own (loop form asks one by one). */
#define SEMS_MIN_PAIRS 3

static struct sem_pool *pool_of(const struct clique *q, uint32_t slot, uint32_t x)
{
	return &q->pools[(size_t)slot * q->n + x];
}

int sems_init(struct clique *q)
{
	q->pools = calloc((size_t)q->n * q->scfg.streams, sizeof(*q->pools));
	return q->pools ? 0 : -ENOMEM;
}

void sems_fini(struct clique *q)
{
	for (size_t i = 0; q->pools && i < (size_t)q->n * q->scfg.streams; i++) {
		struct sem_pool *pl = &q->pools[i];

		for (uint32_t k = 0; k < pl->nchunks; k++)
			ccore_dev_sem_free(q->rt->devs[q->ranks[i % q->n].dev].dev,
					   pl->chunks[k].first);
		free(pl->chunks);
		free(pl->pair);
	}
	free(q->pools);
	q->pools = NULL;
}

bool sems_have(const struct clique *q, uint32_t slot, uint32_t x, uint32_t y)
{
	const struct sem_pool *pl = pool_of(q, slot, x);

	return pl->pair && pl->pair[y] != ~0u;
}

bool sems_have_local(const struct clique *q, uint32_t slot, uint32_t x)
{
	return pool_of(q, slot, x)->nchunks > 0;
}

uint32_t sems_local(const struct clique *q, uint32_t slot, uint32_t x)
{
	return pool_of(q, slot, x)->local;
}

uint32_t sems_arrival(const struct clique *q, uint32_t slot, uint32_t x, uint32_t y)
{
	return pool_of(q, slot, x)->pair[y];
}

uint32_t sems_credit(const struct clique *q, uint32_t slot, uint32_t x, uint32_t y)
{
	return pool_of(q, slot, x)->pair[y] + 1;
}

/* Why the bank of rank @x's core is full, and what to change. */
static int bank_full(struct clique *q, uint32_t slot, uint32_t x, uint32_t want)
{
	const struct clique_rank *cr = &q->ranks[x];

	return ccore_error(-ENOSPC,
			   "communicator of %u ranks, stream slot %u: no %u free semaphores on core %u of device %u for rank %u (this communicator holds %u there on this stream; the bank has %u per core, the rest is held by other streams and communicators); raise the bank (CCORE_SIM=sems=N on the sim backend, sems=N in the kernel device's configuration, up to %u), use fewer streams (CCORE_STREAMS) or destroy communicators no longer used",
			   q->n, slot, want, cr->core, cr->dev, x, pool_of(q, slot, x)->held,
			   q->rt->sems, 65535u);
}

/*
 * A chunk of @want semaphores (or, where the bank has no run that long,
 * of at least @min), appended to the pool.
 */
static int chunk_alloc(struct clique *q, uint32_t slot, uint32_t x, uint32_t want, uint32_t min)
{
	struct sem_pool *pl = pool_of(q, slot, x);
	struct ccore_dev *dev = q->rt->devs[q->ranks[x].dev].dev;
	uint32_t count = want, first;
	int rc;

	if (rt_grow((void **)&pl->chunks, &pl->cap, pl->nchunks, sizeof(*pl->chunks), 4))
		return ccore_error(-ENOMEM, "out of memory");
	if (q->rt->sems && count > q->rt->sems)
		count = q->rt->sems;
	while ((rc = ccore_dev_sem_alloc(dev, q->ranks[x].core, count, &first)) == -ENOSPC &&
	       count > min)
		count = count / 2 > min ? count / 2 : min;
	if (rc == -ENOSPC)
		return bank_full(q, slot, x, min);
	if (rc)
		return rc;
	pl->chunks[pl->nchunks++] = (struct sem_chunk){ .first = first, .count = count };
	pl->held += count;
	return 0;
}

/* @n semaphores from the pool's last chunk (which has them). */
static uint32_t take(struct sem_pool *pl, uint32_t n)
{
	struct sem_chunk *c = &pl->chunks[pl->nchunks - 1];
	uint32_t first = c->first + c->used;

	c->used += n;
	return first;
}

static uint32_t room(const struct sem_pool *pl)
{
	const struct sem_chunk *c = pl->nchunks ? &pl->chunks[pl->nchunks - 1] : NULL;

	return c ? c->count - c->used : 0;
}

/* Let the device of rank @y signal the chunk of @pl holding @sem: 1 if it was imported now. */
static int import_for(struct clique *q, uint32_t x, struct sem_pool *pl, uint32_t sem, uint32_t y)
{
	uint32_t home = q->ranks[x].dev, d = q->ranks[y].dev;

	/* a rank of another process imports it from the token it is sent */
	if (d == home || !clique_local(q, y))
		return 0;
	for (uint32_t k = 0; k < pl->nchunks; k++) {
		struct sem_chunk *c = &pl->chunks[k];
		int rc;

		if (sem < c->first || sem - c->first >= c->count)
			continue;
		if (c->imported[d / 64] >> (d % 64) & 1)
			return 0;
		rc = ccore_dev_sem_import(q->rt->devs[d].dev, q->rt->devs[home].dev, c->first);
		if (rc)
			return rc;
		c->imported[d / 64] |= 1ull << (d % 64);
		return 1;
	}
	return 0;
}

int sems_allow(struct clique *q, uint32_t slot, uint32_t x, uint32_t sem, uint32_t user)
{
	return import_for(q, x, pool_of(q, slot, x), sem, user);
}

int sems_ensure(struct clique *q, uint32_t slot, uint32_t x, const uint32_t *peers,
		uint32_t npeers)
{
	struct sem_pool *pl = pool_of(q, slot, x);
	uint32_t missing = 0;
	int rc;

	if (!pl->pair) {
		pl->pair = malloc(q->n * sizeof(*pl->pair));
		if (!pl->pair)
			return ccore_error(-ENOMEM, "out of memory");
		memset(pl->pair, 0xff, q->n * sizeof(*pl->pair));
	}
	/* count each missing peer once: mark it, unmark below */
	for (uint32_t i = 0; i < npeers; i++)
		if (pl->pair[peers[i]] == ~0u) {
			pl->pair[peers[i]] = ~1u;
			missing++;
		}
	if (!pl->nchunks) {
		/* L, then the pairs asked for: one chunk if the bank has the run */
		uint32_t pairs = missing > SEMS_MIN_PAIRS ? missing : SEMS_MIN_PAIRS;

		rc = chunk_alloc(q, slot, x, 1 + 2 * pairs, 1);
		if (rc)
			goto undo;
		pl->local = take(pl, 1);
	}
	for (uint32_t i = 0; i < npeers; i++) {
		uint32_t y = peers[i];

		if (pl->pair[y] != ~1u)
			continue;
		if (room(pl) < 2) {
			uint32_t pairs = missing > SEMS_MIN_PAIRS ? missing : SEMS_MIN_PAIRS;

			rc = chunk_alloc(q, slot, x, 2 * pairs, 2);
			if (rc)
				goto undo;
		}
		pl->pair[y] = take(pl, 2);
		missing--;
		rc = import_for(q, x, pl, pl->pair[y], y);
		if (rc < 0) {
			pl->pair[y] = ~0u;	/* its two stay unused */
			goto undo;
		}
	}
	return 0;
undo:
	for (uint32_t i = 0; i < npeers; i++)
		if (pl->pair[peers[i]] == ~1u)
			pl->pair[peers[i]] = ~0u;
	return rc;
}

int sems_chunk_of(const struct clique *q, uint32_t slot, uint32_t x, uint32_t sem, uint32_t *first)
{
	const struct sem_pool *pl = pool_of(q, slot, x);

	for (uint32_t k = 0; k < pl->nchunks; k++)
		if (sem >= pl->chunks[k].first && sem - pl->chunks[k].first < pl->chunks[k].count) {
			*first = pl->chunks[k].first;
			return 0;
		}
	return -ENOENT;
}
