/* SPDX-License-Identifier: MIT */
/*
 * TCP sockets for the bootstrap: addresses as they travel in ids and
 * messages, the interface $CCORE_SOCKET_IFNAME picks, $CCORE_COMM_ID, and
 * listening, connecting and moving bytes against a deadline.
 *
 * Deadlines are absolute rt_now_ns() values.  The socket calls return a
 * negative errno and leave the message to their caller, which knows which
 * rank it waited for and why; the parsers name their variable themselves.
 */
#ifndef CCORE_BOOT_SOCK_H
#define CCORE_BOOT_SOCK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* An IPv4 or IPv6 address and port, fixed layout, network byte order. */
struct boot_addr {
	uint16_t family;	/* 4 or 6 */
	uint16_t port;
	uint32_t scope_id;	/* IPv6 link-local: the interface index */
	uint8_t ip[16];		/* IPv4: the first 4 bytes */
};

/* "255.255.255.255:65535", "[v6%scope]:65535" */
#define SOCK_ADDR_STRLEN 80

const char *sock_addr_str(const struct boot_addr *a, char buf[SOCK_ADDR_STRLEN]);
int sock_addr_equal(const struct boot_addr *a, const struct boot_addr *b);

/*
 * $CCORE_COMM_ID ("host:port" or "[IPv6]:port") into @out; 1 if it is
 * unset, 0 when parsed, -EINVAL naming the variable and value otherwise.
 */
int sock_comm_id(struct boot_addr *out, const char **value);

/*
 * The address this process listens on: the first up interface
 * $CCORE_SOCKET_IFNAME allows (NCCL's syntax: prefixes, "^" excludes,
 * "=" matches whole names), else the first up one that is not loopback,
 * else loopback; IPv4 before IPv6 on an interface.  Port 0.
 */
int sock_pick_addr(struct boot_addr *out);

/* Listen on @a (port 0: any, written back); non-blocking, close-on-exec. */
int sock_listen(struct boot_addr *a, int *fd);
/* Accept one connection on listener @lfd by @deadline; non-blocking fd. */
int sock_accept(int lfd, int64_t deadline, int *fd);
/*
 * Connect to @a by @deadline; non-blocking fd.  A refused connection is
 * tried again until the deadline when @retry_refused (a root that may not
 * be up yet), else returned as -ECONNREFUSED at once.
 */
int sock_connect(const struct boot_addr *a, int64_t deadline, int retry_refused, int *fd);

/*
 * All of @len bytes by @deadline.  -ETIMEDOUT; -EPIPE when the peer
 * closed (end of file on reading), -ECONNRESET when it reset.
 */
int sock_write(int fd, const void *buf, size_t len, int64_t deadline);
int sock_read(int fd, void *buf, size_t len, int64_t deadline);

/* Milliseconds poll() should wait until @deadline (rounded up, >= 0). */
int sock_poll_ms(int64_t deadline);

#endif
