/* SPDX-License-Identifier: MIT */
/*
 * The ordering rule of a connection: every message (a chunk's write or a
 * signal message) carries the connection's sequence number in its 32
 * bits of remote completion data, and the receiver applies a signal only
 * once every message issued before it has arrived.  The 32 bits (EFA's
 * cq_data_size is 4) hold, low to high: the sequence number (8 bits), the
 * sender's id (12 bits, struct net_params.id: the receiver tells its
 * peers apart by it, as a provider's source address cannot be trusted --
 * tcp;ofi_rxm gave one peer's for another's writes) and the short name
 * plus one of the semaphore the write's signal adds 1 to (12 bits, 0: no
 * signal; names.h).
 *
 * The sender keeps at most NET_WINDOW messages in flight per connection,
 * half the sequence space, so an arrival is never mistaken for one a lap
 * earlier or later.
 */
#ifndef CCORE_NET_ORDER_H
#define CCORE_NET_ORDER_H

#include "net/names.h"
#include "net/net.h"

#include <stdbool.h>
#include <stdint.h>

#define NET_SEQ_BITS 8
#define NET_SEQ_SPACE (1u << NET_SEQ_BITS)
#define NET_WINDOW (NET_SEQ_SPACE / 2)

/* @name1: the signal's short name + 1, 0 for none. */
static inline uint32_t net_cq_data(uint32_t seq, uint32_t id, uint32_t name1)
{
	return (seq & (NET_SEQ_SPACE - 1)) | (id & (NET_MAX_IDS - 1)) << NET_SEQ_BITS |
	       name1 << 20;
}

/* The sender's id in @data. */
static inline uint32_t net_cq_data_id(uint32_t data)
{
	return (data >> NET_SEQ_BITS) & (NET_MAX_IDS - 1);
}

/* The named signal of @data, if it has one: its semaphore still a name (NET_SIG_NAMED). */
static inline bool net_cq_data_signal(uint32_t data, struct net_signal *out)
{
	uint32_t name1 = data >> 20;

	out->value = 1;
	out->sem = name1 - 1;
	out->flags = NET_SIG_NAMED;
	return name1 != 0;
}

typedef void (*reorder_apply_fn)(void *arg, const struct net_signal *sig);

/* A connection's receive side: what arrived ahead of a gap. */
struct net_reorder {
	uint32_t next;			/* sequence number applied next (mod NET_SEQ_SPACE) */
	unsigned int held;		/* arrivals waiting behind a gap */
	int64_t gap_since_ns;		/* when the oldest of them arrived */
	bool bypass;			/* test hook: apply in arrival order */
	struct {
		bool present;
		bool has_sig;
		struct net_signal sig;
	} slot[NET_SEQ_SPACE];
};

void reorder_init(struct net_reorder *r, bool bypass);

/*
 * Message @seq arrived (with @sig, or NULL): apply every signal now in
 * order through @apply.  -EPROTO (and nothing applied) for a number
 * outside the window or one already held: the peer broke the protocol.
 */
int reorder_arrive(struct net_reorder *r, uint32_t seq, const struct net_signal *sig,
		   int64_t now_ns, reorder_apply_fn apply, void *arg);

#endif
