/* SPDX-License-Identifier: MIT */
/*
 * The bootstrap: how the processes of one job (one process per rank, or a
 * few ranks per process) find each other before they share any device.
 *
 * One process makes a unique id (boot_unique_id): it starts a root
 * listener thread and writes the root's address and a random job magic
 * into the id, which the launcher hands to every rank (or every rank
 * derives it from $CCORE_COMM_ID, and rank 0 runs the root).  Each rank
 * opens a listener of its own, tells the root (magic, rank, nranks, its
 * address); the root checks them and answers every rank with every
 * rank's address; the ranks then connect in a ring.  On top: a ring
 * allgather, a barrier, and tagged point-to-point messages over
 * connections made on first use.  Documentation/bootstrap.rst.
 *
 * Every call returns 0 or a negative errno with ccore_last_error() naming
 * what failed, the rank waited for and what for.  A struct boot is used
 * by one thread at a time; several in one process are independent.
 */
#ifndef CCORE_BOOT_H
#define CCORE_BOOT_H

#include <stddef.h>
#include <stdint.h>

/* Opaque to everyone but the bootstrap; copied around as bytes. */
#define BOOT_ID_BYTES 128
struct boot_id {
	unsigned char bytes[BOOT_ID_BYTES];
};

/* Default and limits of a blocking call's timeout ($CCORE_BOOT_TIMEOUT_MS). */
#define BOOT_TIMEOUT_DEFAULT_MS 60000
#define BOOT_TIMEOUT_MAX_MS 86400000

/* User tags are below this; the bootstrap's own messages use the rest. */
#define BOOT_TAG_USER_MAX 0x7fffffffu

struct boot;

/*
 * Fill @id.  With $CCORE_COMM_ID set: derived from it, no thread started
 * (rank 0's boot_init runs the root).  Else: a root listener thread is
 * started in this process on the interface $CCORE_SOCKET_IFNAME picks; it
 * serves one job and ends once every rank has its addresses (or the job
 * failed).  A process that made an id but runs no rank of it waits for
 * its root with boot_root_wait().
 */
int boot_unique_id(struct boot_id *id);

/*
 * Join the root this process started for @id, waiting up to @timeout_ms
 * (0: $CCORE_BOOT_TIMEOUT_MS) for it to finish; its result (0 once it
 * served every rank, else its error).  A rank in this process does it
 * itself in boot_init.  -ENOENT if no root of @id runs here.
 */
int boot_root_wait(const struct boot_id *id, int timeout_ms);

/*
 * Join the job of @id as @rank of @nranks: every blocking step and call
 * of the returned bootstrap waits at most @timeout_ms (0: the default,
 * $CCORE_BOOT_TIMEOUT_MS or 60000).
 */
int boot_init(const struct boot_id *id, int rank, int nranks, int timeout_ms, struct boot **out);

int boot_rank(const struct boot *b);
int boot_nranks(const struct boot *b);
/* The job's random magic (of the unique id): the same on every rank, new for every id. */
uint64_t boot_job_magic(const struct boot *b);

/* Every rank's @bytes_per_rank at @buf + rank * @bytes_per_rank, in place. */
int boot_allgather(struct boot *b, void *buf, size_t bytes_per_rank);
int boot_barrier(struct boot *b);

/*
 * Point to point: a message of @len bytes with @tag (0..BOOT_TAG_USER_MAX)
 * to @peer; boot_recv takes the oldest from @peer with @tag, whose length
 * must be @len.  Messages of other tags wait for their own boot_recv.
 * boot_send returns once the bytes are in the kernel's hands (a large one:
 * once the peer reads); meanwhile it takes in what peers send, so ranks
 * sending each other large messages at once do not deadlock.
 */
int boot_send(struct boot *b, int peer, uint32_t tag, const void *buf, size_t len);
int boot_recv(struct boot *b, int peer, uint32_t tag, void *buf, size_t len);

/*
 * File descriptors to and from a peer on this host (fdpass.h: a UNIX
 * socket in the abstract namespace per rank, SCM_RIGHTS).  boot_send_fds
 * sends copies of @n fds; boot_recv_fds takes the oldest @n from @peer
 * with @tag, which the caller then owns.  A tag's fds and its bytes
 * (boot_send) travel apart: send the fds first, and a rank that has the
 * bytes finds the fds waiting.
 */
int boot_send_fds(struct boot *b, int peer, uint32_t tag, const int *fds, unsigned int n);
int boot_recv_fds(struct boot *b, int peer, uint32_t tag, int *fds, unsigned int n);

/*
 * Does @peer's process still run, as far as this host can tell?  1: its
 * fd channel is bound here; 0: it is not (gone, or on another host);
 * negative errno on failure.  Reads only what init set: any thread may
 * call it while another uses @b.
 */
int boot_peer_bound(const struct boot *b, int peer);

/* A named value every rank must have the same of (NULL: unset). */
struct boot_value {
	const char *name;
	const char *value;
};

/*
 * Every rank has the same @nv values (the same names, in the same order,
 * on every rank): -EINVAL on every rank otherwise, naming each that
 * differs, the ranks and their values, then "(@rule)".
 */
int boot_check_values(struct boot *b, const struct boot_value *v, size_t nv, const char *rule);

/*
 * Every rank agrees on the settings that decide plans (settings.c):
 * -EINVAL on every rank otherwise, naming each variable that differs, the
 * ranks and their values.
 */
int boot_check_settings(struct boot *b);

/* Close every connection and free @b (NULL is fine); never blocks. */
void boot_close(struct boot *b);

/* The settings boot_check_settings compares, and those it need not. */
struct boot_setting {
	const char *name;
	int decides_plan;	/* compared between ranks */
	const char *why;
};
const struct boot_setting *boot_settings(size_t *n);

#endif
