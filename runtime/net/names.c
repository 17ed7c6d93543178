// SPDX-License-Identifier: MIT
/* Short names of semaphores per connection (names.h). */
#include "net/names.h"

/* Where @sem sits in @t, or the empty slot it would take. */
static uint32_t slot_of(const struct net_names_tx *t, uint32_t sem)
{
	uint32_t i = (sem * 0x9e3779b1u) >> 19;	/* 13 bits: NET_NAME_SLOTS */

	while (t->name1[i] && t->sem[i] != sem)
		i = (i + 1) & (NET_NAME_SLOTS - 1);
	return i;
}

bool net_name_of(const struct net_names_tx *t, uint32_t sem, uint32_t *name)
{
	uint32_t i = slot_of(t, sem);

	if (!t->name1[i])
		return false;
	*name = t->name1[i] - 1u;
	return true;
}

bool net_name_next(const struct net_names_tx *t, uint32_t sem, uint32_t *name)
{
	/* UINT32_MAX + 1 would read as unbound at the receiver */
	if (t->count >= NET_NAMES || sem == UINT32_MAX || t->name1[slot_of(t, sem)])
		return false;
	*name = t->count;
	return true;
}

void net_name_bind(struct net_names_tx *t, uint32_t sem, uint32_t name)
{
	uint32_t i = slot_of(t, sem);

	t->sem[i] = sem;
	t->name1[i] = (uint16_t)(name + 1);
	t->count++;
}

bool net_name_apply(struct net_names_rx *r, struct net_signal *sig)
{
	uint32_t flags = sig->flags;

	sig->flags &= ~(NET_SIG_BIND | NET_SIG_NAMED | NET_SIG_NAME_MASK << NET_SIG_NAME_SHIFT);
	if (flags & NET_SIG_BIND) {
		uint32_t name = flags >> NET_SIG_NAME_SHIFT & NET_SIG_NAME_MASK;

		if (name >= NET_NAMES)
			return false;
		r->sem1[name] = sig->sem + 1;
	}
	if (flags & NET_SIG_NAMED) {
		if (sig->sem >= NET_NAMES || !r->sem1[sig->sem])
			return false;
		sig->sem = r->sem1[sig->sem] - 1;
	}
	return true;
}
