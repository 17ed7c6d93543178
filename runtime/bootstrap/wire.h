/* SPDX-License-Identifier: MIT */
/*
 * What the bootstrap's processes send each other, and what the rank side
 * (boot.c, conn.c) and the root (root.c) share.  Integers travel in
 * network byte order; every message starts with BOOT_PROTO so that
 * anything else connecting (a port scanner, another program) is
 * recognised and closed.
 */
#ifndef CCORE_BOOT_WIRE_H
#define CCORE_BOOT_WIRE_H

#include "bootstrap/boot.h"
#include "bootstrap/sock.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BOOT_PROTO 0x63634231u		/* "ccB1" */

/* What a struct boot_id holds. */
struct boot_id_layout {
	uint32_t proto;
	uint32_t flags;
	uint64_t magic;			/* the job's: ranks of another job are refused */
	struct boot_addr root;
};
#define BOOT_ID_COMM_ID 1u		/* from $CCORE_COMM_ID: rank 0 runs the root */

_Static_assert(sizeof(struct boot_id_layout) <= BOOT_ID_BYTES, "the id's layout fits the id");

/* A rank to the root, first thing on its connection. */
struct boot_root_hello {
	uint32_t proto;
	uint32_t rank;
	uint32_t nranks;
	uint32_t timeout_ms;		/* the first rank's sets the root's */
	uint64_t magic;
	struct boot_addr listen;	/* where the rank accepts its peers */
};

/*
 * The root's answer: status 0 and nranks addresses follow, or a negative
 * errno and @len bytes of text saying why the job cannot start.
 */
struct boot_root_reply {
	uint32_t proto;
	int32_t status;
	uint32_t len;
	uint32_t pad;
};

/* A rank to a peer, first thing on a connection it opened to send on. */
struct boot_peer_hello {
	uint32_t proto;
	uint32_t rank;
	uint64_t magic;
};

/* Every message between ranks after the hello. */
enum boot_frame_kind {
	BOOT_FRAME_DATA = 1,		/* a message for boot_recv (tag, len bytes) */
	BOOT_FRAME_ABORT = 2,		/* the sender failed: len bytes of its error */
	BOOT_FRAME_CLOSE = 3,		/* the sender called boot_close */
};
struct boot_frame {
	uint32_t kind;
	uint32_t tag;
	uint64_t len;
};

/* The longest message a peer may send: more is taken as a broken stream. */
#define BOOT_FRAME_MAX (1ull << 32)

/* The bootstrap's own tags, above the users'. */
#define BOOT_TAG_ALLGATHER 0x80000001u
#define BOOT_TAG_BARRIER 0x80000002u

/* $CCORE_BOOT_TIMEOUT_MS, or @ms when it is not 0; -EINVAL naming it. */
int boot_timeout_ms(int ms, int *out);

/*
 * Start a root for @magic listening on @addr (its port written back).  It
 * waits @timeout_ms for a first rank; then every rank must come within
 * that rank's timeout (its hello's) of it.
 */
int root_start(struct boot_addr *addr, uint64_t magic, int timeout_ms);
/*
 * Wait up to @timeout_ms for the root of @magic in this process to finish,
 * stop it if it has not, join its thread: its result, and in @err what
 * failed.  -ENOENT if there is none (or another thread joined it).
 */
int root_join(uint64_t magic, int timeout_ms, char *err, size_t errlen);

/* "rank 3" or "ranks 0,2,5-7": the ranks @in marks, of @n. */
void boot_ranks_str(const bool *in, int n, char *buf, size_t size);

#endif
