// SPDX-License-Identifier: MIT
/*
 * The bootstrap's connection machinery between ranks (conn.h), apart from
 * the calls built on it (boot.c) so that each file holds one concern:
 * here how bytes move and how failure spreads, there what a call sends.
 *
 * Connections between ranks carry one direction each: a rank opens
 * out[p] to send to p (on first use) and accepts in[p] from p.  Two ranks
 * sending to each other at once then never race to open one connection.
 * Everything that arrives is framed (wire.h) and queued by (peer, tag), so
 * a boot_recv of one tag leaves the others' messages for their own calls.
 * A call's every step polls its connections against the call's deadline.
 *
 * A rank that fails (a peer gone, a timeout) tells the ranks it sends to
 * (ABORT), and they theirs: the ring carries the name of a dead rank to
 * every rank waiting in a collective call.  After an error a struct boot
 * only repeats it.
 */
#include "bootstrap/conn.h"
#include "ccore_internal.h"
#include "log.h"
#include "util/clock.h"

#include <arpa/inet.h>
#include <endian.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* --- failing -------------------------------------------------------------- */

/* Tell every rank we send to that we failed, without waiting for any. */
static void abort_peers(struct boot *b)
{
	size_t len = strlen(b->err);
	struct boot_frame f = {
		.kind = htonl(BOOT_FRAME_ABORT), .tag = 0, .len = htobe64(len),
	};

	for (int p = 0; p < b->nranks; p++) {
		struct iovec iov[2] = { { &f, sizeof(f) }, { b->err, len } };
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
		ssize_t n;

		if (b->out[p].fd < 0 || b->out[p].broken)
			continue;
		n = sendmsg(b->out[p].fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n != (ssize_t)(sizeof(f) + len))
			b->out[p].broken = true;
	}
}

/* This rank failed: keep why, tell the peers, return @rc. */
int boot_fail(struct boot *b, int rc, const char *fmt, ...)
{
	char head[32];
	va_list ap;
	int n;

	snprintf(head, sizeof(head), "bootstrap rank %d: ", b->rank);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	free(b->err);
	b->err = malloc(strlen(head) + (size_t)n + 1);
	if (!b->err)
		return ccore_error(rc, "bootstrap rank %d: out of memory for an error message", b->rank);
	strcpy(b->err, head);
	va_start(ap, fmt);
	vsnprintf(b->err + strlen(head), (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->failed = rc;
	abort_peers(b);
	return ccore_error(rc, "%s", b->err);
}

/* A call on a failed bootstrap: the first error again. */
int boot_failed_before(struct boot *b)
{
	return ccore_error(b->failed, "%s (failed before)", b->err ? b->err : "bootstrap failed");
}

/* --- receiving ------------------------------------------------------------ */

struct msg *boot_queue_take(struct boot *b, int peer, uint32_t tag)
{
	for (struct msg **pp = &b->queue; *pp; pp = &(*pp)->next) {
		struct msg *m = *pp;

		if (m->peer != peer || m->tag != tag)
			continue;
		*pp = m->next;
		if (b->queue_tail == &m->next)
			b->queue_tail = pp;
		return m;
	}
	return NULL;
}

void boot_queue_add(struct boot *b, struct msg *m)
{
	m->next = NULL;
	*b->queue_tail = m;
	b->queue_tail = &m->next;
}

void conn_close(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->msg);
	c->msg = NULL;
}

/* A whole frame arrived on in[@p]. */
static void frame_done(struct boot *b, int p)
{
	struct conn *c = &b->in[p];
	struct msg *m = c->msg;
	uint32_t kind = ntohl(c->hdr.kind);

	c->msg = NULL;
	c->hdr_got = 0;
	c->got = 0;
	if (kind == BOOT_FRAME_DATA) {
		boot_queue_add(b, m);
	} else if (kind == BOOT_FRAME_ABORT) {
		if (!b->abort_text) {
			m->data[m->len] = '\0';
			b->abort_from = p;
			b->abort_text = strdup((char *)m->data);
		}
		free(m);
	} else {
		c->end = PEER_CLOSED;
		free(m);
	}
}

/* Read what in[@p] has; the connection closes when the peer's side ends. */
static void conn_read(struct boot *b, int p)
{
	struct conn *c = &b->in[p];

	for (;;) {
		void *dst;
		size_t want;
		ssize_t n;

		if (c->hdr_got < sizeof(c->hdr)) {
			dst = (char *)&c->hdr + c->hdr_got;
			want = sizeof(c->hdr) - c->hdr_got;
		} else {
			dst = c->msg->data + c->got;
			want = c->msg->len - c->got;
		}
		n = want ? recv(c->fd, dst, want, MSG_DONTWAIT) : 0;
		if (want && n <= 0) {
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
				return;
			if (c->end == PEER_UP)
				c->end = n == 0 ? PEER_EOF : PEER_RESET;
			conn_close(c);
			return;
		}
		if (c->hdr_got < sizeof(c->hdr)) {
			uint32_t kind;
			uint64_t len;

			c->hdr_got += (size_t)n;
			if (c->hdr_got < sizeof(c->hdr))
				continue;
			kind = ntohl(c->hdr.kind);
			len = be64toh(c->hdr.len);
			if (kind < BOOT_FRAME_DATA || kind > BOOT_FRAME_CLOSE ||
			    len > BOOT_FRAME_MAX)
				goto garbled;
			/* +1: an ABORT's text gets its NUL */
			c->msg = malloc(sizeof(*c->msg) + len + 1);
			if (!c->msg)
				goto garbled;
			c->msg->peer = p;
			c->msg->tag = ntohl(c->hdr.tag);
			c->msg->len = len;
			c->got = 0;
		} else {
			c->got += (size_t)n;
		}
		if (c->got == c->msg->len)
			frame_done(b, p);
	}
garbled:
	c->end = PEER_GARBLED;
	conn_close(c);
}

/* A peer connects to send to us: who is it? */
static void accept_peer(struct boot *b)
{
	struct boot_peer_hello h;
	int64_t deadline = rt_now_ns() + (int64_t)ROOT_GRACE_MS * 4 * 1000000;
	uint32_t from;
	int fd, rc;

	if (sock_accept(b->lfd, rt_now_ns(), &fd))
		return;
	rc = sock_read(fd, &h, sizeof(h), deadline);
	from = ntohl(h.rank);
	if (rc || ntohl(h.proto) != BOOT_PROTO || h.magic != b->magic ||
	    from >= (uint32_t)b->nranks || b->in[from].fd >= 0 || b->in[from].end != PEER_UP) {
		log_msg(LOG_WARN, "bootstrap rank %d: refused a connection that is not a peer of this job (%s)",
			b->rank, rc ? strerror(-rc) : "wrong hello");
		close(fd);
		return;
	}
	b->in[from].fd = fd;
}

/* --- the engine ----------------------------------------------------------- */

static const char *end_str(enum peer_end e)
{
	switch (e) {
	case PEER_EOF:
		return "its connection closed without a goodbye: the process died or closed its socket";
	case PEER_RESET:
		return "its connection was reset: the process died";
	case PEER_CLOSED:
		return "it called boot_close";
	case PEER_GARBLED:
		return "it sent something that is not a bootstrap frame (or more than the bootstrap's limit)";
	default:
		return "up";
	}
}

/* Send what the socket takes of @op's frame. */
static int op_send(struct boot *b, struct op *op)
{
	size_t total = sizeof(op->hdr) + op->len;
	struct conn *c = &b->out[op->to];

	while (op->sent < total) {
		struct iovec iov[2];
		struct msghdr mh = { .msg_iov = iov };
		ssize_t n;

		if (op->sent < sizeof(op->hdr)) {
			iov[0] = (struct iovec){ (char *)&op->hdr + op->sent,
						 sizeof(op->hdr) - op->sent };
			iov[1] = (struct iovec){ (void *)op->buf, op->len };
			mh.msg_iovlen = op->len ? 2 : 1;
		} else {
			size_t done = op->sent - sizeof(op->hdr);

			iov[0] = (struct iovec){ (char *)op->buf + done, op->len - done };
			mh.msg_iovlen = 1;
		}
		n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			op->sent += (size_t)n;
			/* cut here, the stream would not parse: no abort may follow */
			c->broken = op->sent < total;
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		c->broken = true;
		return boot_fail(b, -errno, "%s: rank %d is gone: sending it %s failed: %s",
				 op->call, op->to, op->what, strerror(errno));
	}
	return 0;
}

/* Wait for @op to complete, by its deadline. */
static int progress_wait(struct boot *b, struct op *op)
{
	for (;;) {
		bool sending = op->to >= 0 && op->sent < sizeof(op->hdr) + op->len;
		int n = 0, out_slot = -1, ready;

		if (op->from >= 0 && !op->got)
			op->got = boot_queue_take(b, op->from, op->tag);
		/* what arrived before a peer's abort is still delivered */
		if (!sending && (op->from < 0 || op->got))
			return 0;
		if (b->abort_text)
			return boot_fail(b, -ECONNABORTED, "%s: rank %d failed, so this job cannot go on: %s",
					 op->call, b->abort_from, b->abort_text);
		if (op->from >= 0 && !op->got && b->in[op->from].end != PEER_UP &&
		    b->in[op->from].fd < 0)
			return boot_fail(b,
					 b->in[op->from].end == PEER_CLOSED ? -EPIPE : -ECONNRESET,
					 "%s: rank %d is gone before it sent %s: %s", op->call,
					 op->from, op->what, end_str(b->in[op->from].end));

		/* the listener, every connection in (an abort may come on any), ours out */
		b->pfds[n++] = (struct pollfd){ .fd = b->lfd, .events = POLLIN };
		for (int p = 0; p < b->nranks; p++) {
			if (b->in[p].fd < 0)
				continue;
			b->pfd_peer[n] = p;
			b->pfds[n++] = (struct pollfd){ .fd = b->in[p].fd, .events = POLLIN };
		}
		if (sending) {
			out_slot = n;
			b->pfds[n++] = (struct pollfd){ .fd = b->out[op->to].fd,
							.events = POLLOUT };
		}
		ready = poll(b->pfds, (nfds_t)n, sock_poll_ms(op->deadline));
		if (ready < 0 && errno != EINTR)
			return boot_fail(b, -errno, "%s: poll failed: %s", op->call,
					 strerror(errno));
		if (ready == 0 && rt_now_ns() >= op->deadline) {
			if (sending)
				return boot_fail(b, -ETIMEDOUT,
						 "%s: timed out after %d ms waiting for rank %d to take %s (%zu of %zu bytes sent)",
						 op->call, b->timeout_ms, op->to, op->what,
						 op->sent, sizeof(op->hdr) + op->len);
			return boot_fail(b, -ETIMEDOUT, "%s: timed out after %d ms waiting for rank %d to %s%s",
					 op->call, b->timeout_ms, op->from,
					 b->in[op->from].fd < 0 ? "connect and send " : "send ",
					 op->what);
		}
		if (ready <= 0)
			continue;
		if (out_slot >= 0 && b->pfds[out_slot].revents) {
			int rc = op_send(b, op);

			if (rc)
				return rc;
		}
		for (int i = 1; i < n; i++)
			if (i != out_slot && b->pfds[i].revents)
				conn_read(b, b->pfd_peer[i]);
		if (b->pfds[0].revents)
			accept_peer(b);
	}
}

/* progress_wait(); a failed op drops what it received meanwhile (its send failed after) */
int op_progress(struct boot *b, struct op *op)
{
	int rc = progress_wait(b, op);

	if (rc) {
		free(op->got);
		op->got = NULL;
	}
	return rc;
}

/* out[@op->to], opened on first use. */
int op_connect(struct boot *b, struct op *op)
{
	struct boot_peer_hello h = {
		.proto = htonl(BOOT_PROTO), .rank = htonl((uint32_t)b->rank), .magic = b->magic,
	};
	char where[SOCK_ADDR_STRLEN];
	int p = op->to, fd, rc;

	if (b->out[p].fd >= 0)
		return 0;
	rc = sock_connect(&b->addrs[p], op->deadline, 0, &fd);
	if (!rc) {
		rc = sock_write(fd, &h, sizeof(h), op->deadline);
		if (rc)
			close(fd);
	}
	if (rc == -ETIMEDOUT)
		return boot_fail(b, rc, "%s: timed out after %d ms connecting to rank %d at %s to send %s",
				 op->call, b->timeout_ms, p, sock_addr_str(&b->addrs[p], where),
				 op->what);
	if (rc == -ECONNREFUSED)
		return boot_fail(b, rc,
				 "%s: rank %d is gone: its listener at %s refused the connection (to send %s)",
				 op->call, p, sock_addr_str(&b->addrs[p], where), op->what);
	if (rc)
		return boot_fail(b, rc, "%s: cannot connect to rank %d at %s to send %s: %s",
				 op->call, p, sock_addr_str(&b->addrs[p], where), op->what,
				 strerror(-rc));
	b->out[p].fd = fd;
	return 0;
}

struct op op_start(struct boot *b, const char *call)
{
	return (struct op){
		.call = call, .to = -1, .from = -1,
		.deadline = rt_now_ns() + (int64_t)b->timeout_ms * 1000000,
	};
}

void op_send_frame(struct op *op, int to, uint32_t tag, const void *buf, size_t len)
{
	op->to = to;
	op->hdr = (struct boot_frame){
		.kind = htonl(BOOT_FRAME_DATA), .tag = htonl(tag), .len = htobe64(len),
	};
	op->buf = buf;
	op->len = len;
	op->sent = 0;
}

/* The message @op received: @len bytes into @buf, or an error naming both sides. */
int op_take(struct boot *b, struct op *op, void *buf, size_t len)
{
	struct msg *m = op->got;

	op->got = NULL;
	if (m->len != len) {
		size_t got = m->len;

		free(m);
		return boot_fail(b, -EMSGSIZE, "%s: rank %d sent %zu bytes as %s, rank %d expected %zu",
				 op->call, op->from, got, op->what, b->rank, len);
	}
	memcpy(buf, m->data, len);
	free(m);
	return 0;
}
