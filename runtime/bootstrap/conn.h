/* SPDX-License-Identifier: MIT */
/*
 * The rank side's insides, private to the bootstrap (never installed):
 * struct boot, its connections and message queue (conn.c), and the calls
 * of boot.c built on them.  Both files see struct boot whole because a
 * call sets up what the machinery then runs: boot_init fills the
 * addresses and the listener, boot_send puts a message to itself on the
 * queue, boot_close tears every connection down.
 *
 * A call describes what it waits for as a struct op (a frame to send, a
 * message to receive, or both) and hands it to op_progress, which polls
 * every connection by the op's deadline.  Every function here that fails
 * has named the error with boot_fail (ccore_last_error()), and the struct
 * boot then only repeats it.
 */
#ifndef CCORE_BOOT_CONN_H
#define CCORE_BOOT_CONN_H

#include "bootstrap/wire.h"

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How long a root takes to tell a rank why the job failed. */
#define ROOT_GRACE_MS 500

/* A message that arrived and waits for its boot_recv. */
struct msg {
	struct msg *next;
	int peer;
	uint32_t tag;
	size_t len;
	unsigned char data[];
};

/* How the other side of a connection ended. */
enum peer_end {
	PEER_UP = 0,
	PEER_EOF,		/* the connection closed without a goodbye: it died */
	PEER_RESET,
	PEER_CLOSED,		/* it called boot_close */
	PEER_GARBLED,		/* it sent something that is not a frame */
};

struct conn {
	int fd;			/* -1: none (yet) */
	bool broken;		/* out: a frame went out in part, nothing may follow */
	enum peer_end end;	/* in: why it ended */
	/* in: the frame being read */
	struct boot_frame hdr;
	size_t hdr_got;
	struct msg *msg;
	size_t got;
};

struct fdpass;

struct boot {
	int rank, nranks, timeout_ms;
	uint64_t magic;
	int lfd;
	struct boot_addr *addrs;
	struct conn *out, *in;
	struct pollfd *pfds;	/* nranks + 2 */
	int *pfd_peer;		/* the rank of each connection in pfds */
	struct msg *queue, **queue_tail;
	int failed;		/* after an error, every call returns it ... */
	char *err;		/* ... with this message */
	int abort_from;		/* a peer's ABORT arrived: its rank ... */
	char *abort_text;	/* ... and its error */
	struct fdpass *fdp;	/* fds from peers of this host; NULL: bind failed ... */
	char *fdp_err;		/* ... saying why */
};

/* What one call waits for: a frame to send, a message to receive, or both. */
struct op {
	const char *call;	/* "allgather", "recv", ... */
	const char *what;	/* what is sent and received, for messages */
	int64_t deadline;
	/* sending: */
	int to;			/* -1: nothing */
	struct boot_frame hdr;
	const void *buf;
	size_t len;
	size_t sent;		/* header included */
	/* receiving: */
	int from;		/* -1: nothing */
	uint32_t tag;
	struct msg *got;
};

/* This rank failed: keep why, tell the peers (ABORT), return @rc. */
int boot_fail(struct boot *b, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A call on a failed bootstrap: the first error again. */
int boot_failed_before(struct boot *b);

/* The oldest queued message from @peer with @tag, taken off the queue; NULL: none. */
struct msg *boot_queue_take(struct boot *b, int peer, uint32_t tag);
/* Queue @m (its peer and tag set) for its boot_recv. */
void boot_queue_add(struct boot *b, struct msg *m);

/* Close @c's fd (if any) and drop the frame it was reading. */
void conn_close(struct conn *c);

/* A call named @call starts: nothing to send or receive yet, its deadline from now. */
struct op op_start(struct boot *b, const char *call);
/* @op is to send @len bytes of @buf to rank @to with @tag. */
void op_send_frame(struct op *op, int to, uint32_t tag, const void *buf, size_t len);
/* Open out[@op->to] if it is not open yet, by @op's deadline. */
int op_connect(struct boot *b, struct op *op);
/* Send and receive what @op asks by its deadline; a failed op drops what it received. */
int op_progress(struct boot *b, struct op *op);
/* The message @op received: @len bytes into @buf, or an error naming both sides. */
int op_take(struct boot *b, struct op *op, void *buf, size_t len);

#endif
