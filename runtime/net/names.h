/* SPDX-License-Identifier: MIT */
/*
 * Short names of semaphores, per connection: a put's signal that adds 1
 * (every data signal a plan makes) rides in its last write's 12 bits of
 * completion data by a name the two ends agreed on, so the put is one
 * message rather than a write and a signal message.
 *
 * The first signal of a semaphore goes as a signal message that also
 * binds it a name; the sender names it once that message is posted, and
 * the receiver learns the name when it applies that message, in
 * sequence order (order.h), so every later write that carries the name
 * is applied after it.  NET_NAMES semaphores get names, the first ones
 * signalled; the others keep their message.
 */
#ifndef CCORE_NET_NAMES_H
#define CCORE_NET_NAMES_H

#include "net/net.h"

#include <stdbool.h>
#include <stdint.h>

/* Names a connection hands out: the 12 bits of completion data hold name + 1. */
#define NET_NAMES 4095u
/* The sender's table: open addressing on the semaphore, twice the names. */
#define NET_NAME_SLOTS 8192u

/*
 * Wire flags of a signal message, above the user's (NET_SIG_SET): it binds
 * its semaphore the name in bits 16..27.  In an arrival handed to the
 * reorder buffer, NET_SIG_NAMED says its semaphore is a name still.
 */
#define NET_SIG_BIND (1u << 31)
#define NET_SIG_NAMED (1u << 30)
#define NET_SIG_NAME_SHIFT 16
#define NET_SIG_NAME_MASK 0xfffu

struct net_names_tx {
	uint32_t count;
	uint32_t sem[NET_NAME_SLOTS];
	uint16_t name1[NET_NAME_SLOTS];	/* name + 1, 0: slot empty */
};

struct net_names_rx {
	uint32_t sem1[NET_NAMES + 1];	/* [name] its semaphore + 1, 0: unbound */
};

/* Can @sig travel by name at all (an add of 1)? */
static inline bool net_sig_nameable(const struct net_signal *sig)
{
	return sig->value == 1 && !sig->flags;
}

/* @sem's name on this connection, if it has one. */
bool net_name_of(const struct net_names_tx *t, uint32_t sem, uint32_t *name);
/* The name @sem would get next (false: none left, or it has one). */
bool net_name_next(const struct net_names_tx *t, uint32_t sem, uint32_t *name);
/* Record that @sem was given @name (its binding message is posted). */
void net_name_bind(struct net_names_tx *t, uint32_t sem, uint32_t name);

/*
 * Receiver, in sequence order: learn a binding, or turn a named arrival
 * back into its semaphore.  False: a name never bound (the peer broke the
 * protocol).  Clears the wire flags either way.
 */
bool net_name_apply(struct net_names_rx *r, struct net_signal *sig);

#endif
