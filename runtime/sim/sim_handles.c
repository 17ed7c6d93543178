// SPDX-License-Identifier: MIT
/*
 * Handle tables: the lowest free handle is reused, as GEM's idr does.
 * Pointer sets: what a ring or a program refers to, each once.
 */
#include "sim.h"

#include <stdlib.h>

int sim_handle_add(struct sim_handles *h, void *obj, u32 *handle)
{
	u32 i, cap;
	void **slot;

	for (i = 0; i < h->cap; i++)
		if (!h->slot[i])
			goto found;
	cap = h->cap ? h->cap * 2 : 16;
	slot = realloc(h->slot, cap * sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	memset(slot + h->cap, 0, (cap - h->cap) * sizeof(*slot));
	h->slot = slot;
	i = h->cap;
	h->cap = cap;
found:
	h->slot[i] = obj;
	*handle = i + 1;
	return 0;
}

void *sim_handle_get(const struct sim_handles *h, u32 handle)
{
	return handle && handle <= h->cap ? h->slot[handle - 1] : NULL;
}

void *sim_handle_remove(struct sim_handles *h, u32 handle)
{
	void *obj = sim_handle_get(h, handle);

	if (obj)
		h->slot[handle - 1] = NULL;
	return obj;
}

void sim_handles_fini(struct sim_handles *h)
{
	free(h->slot);
	h->slot = NULL;
	h->cap = 0;
}

int sim_set_add(struct sim_set *s, void *p)
{
	void **items;
	u32 i;

	for (i = 0; i < s->count; i++)
		if (s->items[i] == p)
			return 0;
	if (s->count == s->cap) {
		items = realloc(s->items, (s->cap ? s->cap * 2 : 8) * sizeof(*items));
		if (!items)
			return -ENOMEM;
		s->items = items;
		s->cap = s->cap ? s->cap * 2 : 8;
	}
	s->items[s->count++] = p;
	return 1;
}

void sim_set_fini(struct sim_set *s)
{
	free(s->items);
	*s = (struct sim_set){ 0 };
}
