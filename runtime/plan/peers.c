// SPDX-License-Identifier: MIT
/*
 * The peers' buffer addresses a plan's ranks name, by pair (r, q).  A rank
 * names a few peers of N, so an open-addressing table: an N^2 array (25 MB
 * at N = 1024) would be touched a page per pair, each a fresh page fault.
 */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t key)
{
	key ^= key >> 31;
	key *= 0x9e3779b97f4a7c15ull;
	return key ^ key >> 29;
}

static struct peer_entry *slot_of(struct peer_entry *e, uint32_t cap, uint64_t key)
{
	uint32_t i = (uint32_t)mix(key) & (cap - 1);

	while (e[i].key && e[i].key != key)
		i = (i + 1) & (cap - 1);
	return &e[i];
}

static int grow(struct plan_peers *t)
{
	uint32_t cap = t->cap ? t->cap * 2 : 256;
	struct peer_entry *e = calloc(cap, sizeof(*e));

	if (!e)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->cap; i++)
		if (t->e[i].key)
			*slot_of(e, cap, t->e[i].key) = t->e[i];
	free(t->e);
	t->e = e;
	t->cap = cap;
	return 0;
}

struct peer_entry *plan_peers_find(struct plan_peers *t, uint32_t n, uint32_t r, uint32_t q,
				   bool *fresh)
{
	uint64_t key = (uint64_t)r * n + q + 1;
	struct peer_entry *e;

	*fresh = false;
	if (t->cap) {
		e = slot_of(t->e, t->cap, key);
		if (e->key)
			return e;
	}
	/* at most half full: probes stay short */
	if (2 * (t->used + 1) > t->cap && grow(t))
		return NULL;
	e = slot_of(t->e, t->cap, key);
	e->key = key;
	t->used++;
	*fresh = true;
	return e;
}

void plan_peers_clear(struct plan_peers *t)
{
	if (t->e)
		memset(t->e, 0, t->cap * sizeof(*t->e));
	t->used = 0;
}

void plan_peers_free(struct plan_peers *t)
{
	free(t->e);
	memset(t, 0, sizeof(*t));
}
