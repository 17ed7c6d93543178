/* SPDX-License-Identifier: MIT */
/*
 * File descriptors between the processes of one host (the kernel driver's
 * dma-buf and semaphore fds): each rank binds a UNIX datagram socket in
 * the abstract namespace, named by its job's magic and its rank, when its
 * bootstrap starts; a peer on the same host sends it fds with SCM_RIGHTS,
 * tagged like bootstrap messages.  Abstract names leave nothing in the
 * file system: the name goes when the last socket closes, also when the
 * process dies.  Documentation/bootstrap.rst, "File descriptors".
 */
#ifndef CCORE_FDPASS_H
#define CCORE_FDPASS_H

#include <stdint.h>

/* The most fds one message carries. */
#define FDPASS_MAX_FDS 8

struct fdpass;

/* Bind @rank's endpoint of the job of @magic; -EADDRINUSE if it is bound already. */
int fdpass_open(uint64_t magic, int rank, struct fdpass **out);
/*
 * Send @n fds (copies: the caller keeps and closes its own) to @peer's
 * endpoint with @tag, waiting up to @timeout_ms while its queue is full.
 */
int fdpass_send(struct fdpass *f, int peer, uint32_t tag, const int *fds, unsigned int n,
		int timeout_ms);
/*
 * Take the oldest message from @peer with @tag, which must carry @n fds,
 * into @fds (the caller closes them), waiting up to @timeout_ms.
 */
int fdpass_recv(struct fdpass *f, int peer, uint32_t tag, int *fds, unsigned int n,
		int timeout_ms);
/*
 * Is @rank's endpoint of the job of @magic bound on this host?  1 yes, 0
 * no (its process exited or was killed: the kernel unbinds a dead
 * process's name), or a negative errno.  Sends nothing: a datagram
 * socket's connect() only looks the name up.  Any thread may call it.
 */
int fdpass_peer_bound(uint64_t magic, int rank);
/* Close the endpoint and every fd received but not taken (NULL is fine). */
void fdpass_close(struct fdpass *f);

#endif
