// SPDX-License-Identifier: MIT
/*
 * The bootstrap's rank side (boot.h): the unique id, joining a job through
 * its root, and the messages between ranks after that.
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
 *
 * Over 800 lines for now: the connection machinery (framing, the queue by
 * peer and tag, polling against a call's deadline) and the calls built on
 * it share struct boot's insides; they are to part into two files, the
 * machinery behind a private header.
 */
#include "bootstrap/fdpass.h"
#include "bootstrap/wire.h"
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
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

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

void boot_ranks_str(const bool *in, int n, char *buf, size_t size)
{
	size_t len = 0;
	int count = 0;

	for (int i = 0; i < n; i++)
		count += in[i];
	len = (size_t)snprintf(buf, size, "%s", count == 1 ? "rank " : "ranks ");
	for (int i = 0, first = 1; i < n && len < size; i++) {
		int j = i;

		if (!in[i])
			continue;
		while (j + 1 < n && in[j + 1])
			j++;
		/* a run of three or more as a range */
		if (j > i + 1)
			len += (size_t)snprintf(buf + len, size - len, "%s%d-%d", first ? "" : ",",
						i, j);
		else if (j == i + 1)
			len += (size_t)snprintf(buf + len, size - len, "%s%d,%d", first ? "" : ",",
						i, j);
		else
			len += (size_t)snprintf(buf + len, size - len, "%s%d", first ? "" : ",", i);
		first = 0;
		i = j;
	}
	if (!count)
		snprintf(buf, size, "no rank");
}

int boot_timeout_ms(int ms, int *out)
{
	const char *v = getenv("CCORE_BOOT_TIMEOUT_MS");
	unsigned long n;
	char *end;

	if (ms < 0 || ms > BOOT_TIMEOUT_MAX_MS)
		return ccore_error(-EINVAL,
				   "bootstrap timeout %d ms: expected 1 to %d, or 0 for $CCORE_BOOT_TIMEOUT_MS",
				   ms, BOOT_TIMEOUT_MAX_MS);
	if (ms) {
		*out = ms;
		return 0;
	}
	*out = BOOT_TIMEOUT_DEFAULT_MS;
	if (!v || !*v)
		return 0;
	n = strtoul(v, &end, 10);
	if (*end || *v == '-' || *v == '+' || n < 1 || n > BOOT_TIMEOUT_MAX_MS)
		return ccore_error(-EINVAL,
				   "CCORE_BOOT_TIMEOUT_MS=%s: expected milliseconds from 1 to %d (default %d)",
				   v, BOOT_TIMEOUT_MAX_MS, BOOT_TIMEOUT_DEFAULT_MS);
	*out = (int)n;
	return 0;
}

/* The job magic of $CCORE_COMM_ID: every rank derives the same one. */
static uint64_t comm_id_magic(const char *v)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (const char *p = "ccore-comm-id:"; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	for (const char *p = v; *p; p++)
		h = (h ^ (uint8_t)*p) * 1099511628211ull;
	return h;
}

int boot_unique_id(struct boot_id *id)
{
	struct boot_id_layout l = { .proto = BOOT_PROTO };
	const char *comm_id;
	int timeout_ms, rc;

	rc = sock_comm_id(&l.root, &comm_id);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		l.flags = BOOT_ID_COMM_ID;
		l.magic = comm_id_magic(comm_id);
	} else {
		char where[SOCK_ADDR_STRLEN];

		rc = boot_timeout_ms(0, &timeout_ms) ?: sock_pick_addr(&l.root);
		if (rc)
			return rc;
		if (getrandom(&l.magic, sizeof(l.magic), 0) != sizeof(l.magic))
			return ccore_error(-errno, "bootstrap: no random job magic: %s", strerror(errno));
		rc = root_start(&l.root, l.magic, timeout_ms);
		if (rc)
			return ccore_error(rc, "bootstrap: cannot start the root listener on %s: %s",
					   sock_addr_str(&l.root, where), strerror(-rc));
	}
	memset(id, 0, sizeof(*id));
	memcpy(id->bytes, &l, sizeof(l));
	return 0;
}

int boot_root_wait(const struct boot_id *id, int timeout_ms)
{
	struct boot_id_layout l;
	char err[768];
	int rc;

	memcpy(&l, id->bytes, sizeof(l));
	rc = boot_timeout_ms(timeout_ms, &timeout_ms);
	if (rc)
		return rc;
	rc = root_join(l.magic, timeout_ms, err, sizeof(err));
	if (rc == -ENOENT)
		return ccore_error(rc, "bootstrap: no root of this id runs in this process (or it was joined already)");
	if (rc)
		return ccore_error(rc, "bootstrap: %s", err);
	return 0;
}

int boot_rank(const struct boot *b)
{
	return b->rank;
}

uint64_t boot_job_magic(const struct boot *b)
{
	return b->magic;
}

int boot_nranks(const struct boot *b)
{
	return b->nranks;
}

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
static int fail(struct boot *b, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(struct boot *b, int rc, const char *fmt, ...)
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
static int failed_before(struct boot *b)
{
	return ccore_error(b->failed, "%s (failed before)", b->err ? b->err : "bootstrap failed");
}

/* --- receiving ------------------------------------------------------------ */

static struct msg *queue_take(struct boot *b, int peer, uint32_t tag)
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

static void queue_add(struct boot *b, struct msg *m)
{
	m->next = NULL;
	*b->queue_tail = m;
	b->queue_tail = &m->next;
}

static void conn_close(struct conn *c)
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
		queue_add(b, m);
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
		return fail(b, -errno, "%s: rank %d is gone: sending it %s failed: %s", op->call, op->to,
			    op->what, strerror(errno));
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
			op->got = queue_take(b, op->from, op->tag);
		/* what arrived before a peer's abort is still delivered */
		if (!sending && (op->from < 0 || op->got))
			return 0;
		if (b->abort_text)
			return fail(b, -ECONNABORTED, "%s: rank %d failed, so this job cannot go on: %s",
				    op->call, b->abort_from, b->abort_text);
		if (op->from >= 0 && !op->got && b->in[op->from].end != PEER_UP &&
		    b->in[op->from].fd < 0)
			return fail(b, b->in[op->from].end == PEER_CLOSED ? -EPIPE : -ECONNRESET,
				    "%s: rank %d is gone before it sent %s: %s", op->call, op->from,
				    op->what, end_str(b->in[op->from].end));

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
			return fail(b, -errno, "%s: poll failed: %s", op->call, strerror(errno));
		if (ready == 0 && rt_now_ns() >= op->deadline) {
			if (sending)
				return fail(b, -ETIMEDOUT,
					    "%s: timed out after %d ms waiting for rank %d to take %s (%zu of %zu bytes sent)",
					    op->call, b->timeout_ms, op->to, op->what, op->sent,
					    sizeof(op->hdr) + op->len);
			return fail(b, -ETIMEDOUT, "%s: timed out after %d ms waiting for rank %d to %s%s",
				    op->call, b->timeout_ms, op->from,
				    b->in[op->from].fd < 0 ? "connect and send " : "send ", op->what);
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
static int progress(struct boot *b, struct op *op)
{
	int rc = progress_wait(b, op);

	if (rc) {
		free(op->got);
		op->got = NULL;
	}
	return rc;
}

/* out[@p], opened on first use. */
static int peer_connect(struct boot *b, struct op *op)
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
		return fail(b, rc, "%s: timed out after %d ms connecting to rank %d at %s to send %s",
			    op->call, b->timeout_ms, p, sock_addr_str(&b->addrs[p], where),
			    op->what);
	if (rc == -ECONNREFUSED)
		return fail(b, rc,
			    "%s: rank %d is gone: its listener at %s refused the connection (to send %s)",
			    op->call, p, sock_addr_str(&b->addrs[p], where), op->what);
	if (rc)
		return fail(b, rc, "%s: cannot connect to rank %d at %s to send %s: %s", op->call, p,
			    sock_addr_str(&b->addrs[p], where), op->what, strerror(-rc));
	b->out[p].fd = fd;
	return 0;
}

static void op_send_frame(struct op *op, int to, uint32_t tag, const void *buf, size_t len)
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
static int op_take(struct boot *b, struct op *op, void *buf, size_t len)
{
	struct msg *m = op->got;

	op->got = NULL;
	if (m->len != len) {
		size_t got = m->len;

		free(m);
		return fail(b, -EMSGSIZE, "%s: rank %d sent %zu bytes as %s, rank %d expected %zu",
			    op->call, op->from, got, op->what, b->rank, len);
	}
	memcpy(buf, m->data, len);
	free(m);
	return 0;
}

/* --- calls ---------------------------------------------------------------- */

static struct op op_start(struct boot *b, const char *call)
{
	return (struct op){
		.call = call, .to = -1, .from = -1,
		.deadline = rt_now_ns() + (int64_t)b->timeout_ms * 1000000,
	};
}

static int ring_allgather(struct boot *b, void *buf, size_t size, uint32_t tag, const char *call)
{
	int n = b->nranks, next = (b->rank + 1) % n, prev = (b->rank + n - 1) % n;
	struct op op = op_start(b, call);
	char what[96];

	if (b->failed)
		return failed_before(b);
	op.what = what;
	for (int step = 0; step < n - 1; step++) {
		/* step s passes on the block received at step s - 1 */
		int send_idx = (b->rank - step + n) % n;
		int recv_idx = (b->rank - step - 1 + 2 * n) % n;
		int rc;

		snprintf(what, sizeof(what), "its %s block (step %d of %d)", call, step + 1, n - 1);
		op_send_frame(&op, next, tag, (char *)buf + (size_t)send_idx * size, size);
		op.from = prev;
		op.tag = tag;
		rc = peer_connect(b, &op) ?: progress(b, &op) ?:
		     op_take(b, &op, (char *)buf + (size_t)recv_idx * size, size);
		if (rc)
			return rc;
	}
	return 0;
}

int boot_allgather(struct boot *b, void *buf, size_t bytes_per_rank)
{
	return ring_allgather(b, buf, bytes_per_rank, BOOT_TAG_ALLGATHER, "allgather");
}

int boot_barrier(struct boot *b)
{
	unsigned char *bytes = calloc((size_t)b->nranks, 1);
	int rc;

	if (!bytes)
		return ccore_error(-ENOMEM, "bootstrap rank %d: barrier: out of memory", b->rank);
	rc = ring_allgather(b, bytes, 1, BOOT_TAG_BARRIER, "barrier");
	free(bytes);
	return rc;
}

static int p2p_check(struct boot *b, const char *call, int peer, uint32_t tag, const void *buf,
		     size_t len)
{
	if (b->failed)
		return failed_before(b);
	if (peer < 0 || peer >= b->nranks)
		return ccore_error(-EINVAL, "bootstrap rank %d: %s: peer %d: expected a rank from 0 to %d",
				   b->rank, call, peer, b->nranks - 1);
	if (tag > BOOT_TAG_USER_MAX)
		return ccore_error(-EINVAL, "bootstrap rank %d: %s: tag %u: expected 0 to %u (the rest is the bootstrap's)",
				   b->rank, call, tag, BOOT_TAG_USER_MAX);
	if (!buf && len)
		return ccore_error(-EINVAL, "bootstrap rank %d: %s: no buffer for %zu bytes", b->rank,
				   call, len);
	return 0;
}

int boot_send(struct boot *b, int peer, uint32_t tag, const void *buf, size_t len)
{
	struct op op = op_start(b, "send");
	char what[64];
	int rc = p2p_check(b, "send", peer, tag, buf, len);

	if (rc)
		return rc;
	if (peer == b->rank) {
		struct msg *m = malloc(sizeof(*m) + len + 1);

		if (!m)
			return ccore_error(-ENOMEM, "bootstrap rank %d: send: out of memory", b->rank);
		m->peer = peer;
		m->tag = tag;
		m->len = len;
		if (len)
			memcpy(m->data, buf, len);
		queue_add(b, m);
		return 0;
	}
	snprintf(what, sizeof(what), "a message with tag %u (%zu bytes)", tag, len);
	op.what = what;
	op_send_frame(&op, peer, tag, buf, len);
	return peer_connect(b, &op) ?: progress(b, &op);
}

int boot_recv(struct boot *b, int peer, uint32_t tag, void *buf, size_t len)
{
	struct op op = op_start(b, "recv");
	char what[64];
	int rc = p2p_check(b, "recv", peer, tag, buf, len);

	if (rc)
		return rc;
	snprintf(what, sizeof(what), "a message with tag %u (%zu bytes)", tag, len);
	op.what = what;
	op.from = peer;
	op.tag = tag;
	if (peer == b->rank && !(op.got = queue_take(b, peer, tag)))
		return ccore_error(-ENOMSG, "bootstrap rank %d: recv: no message with tag %u from itself (a rank's message to itself must be sent first)",
				   b->rank, tag);
	return progress(b, &op) ?: op_take(b, &op, buf, len);
}

/* --- joining the job ------------------------------------------------------ */

static struct boot *boot_alloc(int rank, int nranks)
{
	struct boot *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->rank = rank;
	b->nranks = nranks;
	b->lfd = -1;
	b->queue_tail = &b->queue;
	b->addrs = calloc((size_t)nranks, sizeof(*b->addrs));
	b->out = calloc((size_t)nranks, sizeof(*b->out));
	b->in = calloc((size_t)nranks, sizeof(*b->in));
	b->pfds = calloc((size_t)nranks + 2, sizeof(*b->pfds));
	b->pfd_peer = calloc((size_t)nranks + 2, sizeof(*b->pfd_peer));
	if (!b->addrs || !b->out || !b->in || !b->pfds || !b->pfd_peer) {
		boot_close(b);
		return NULL;
	}
	for (int p = 0; p < nranks; p++)
		b->out[p].fd = b->in[p].fd = -1;
	return b;
}

/* Tell the root who we are; it answers with every rank's address. */
static int meet_root(struct boot *b, const struct boot_id_layout *l, int64_t deadline)
{
	struct boot_root_hello h = {
		.proto = htonl(BOOT_PROTO), .rank = htonl((uint32_t)b->rank),
		.nranks = htonl((uint32_t)b->nranks), .timeout_ms = htonl((uint32_t)b->timeout_ms),
		.magic = l->magic, .listen = b->addrs[b->rank],
	};
	/* the root's own deadline comes first: its answer says more than ours */
	int64_t answer_by = deadline + (int64_t)(ROOT_GRACE_MS + b->timeout_ms / 8) * 1000000;
	bool comm_id = l->flags & BOOT_ID_COMM_ID;
	char where[SOCK_ADDR_STRLEN], *text;
	struct boot_root_reply r;
	int fd, rc, status;
	uint32_t len;

	sock_addr_str(&l->root, where);
	rc = sock_connect(&l->root, deadline, comm_id, &fd);
	if (rc == -ETIMEDOUT && comm_id)
		return fail(b, rc, "init: timed out after %d ms connecting to the root at %s (CCORE_COMM_ID): rank 0 runs it; did rank 0 start?",
			    b->timeout_ms, where);
	if (rc == -ECONNREFUSED)
		return fail(b, rc, "init: the root at %s refused the connection: it has ended (the job's ranks were all there, or it failed) or its process is gone",
			    where);
	if (rc)
		return fail(b, rc, "init: cannot connect to the root at %s: %s", where, strerror(-rc));
	rc = sock_write(fd, &h, sizeof(h), deadline) ?: sock_read(fd, &r, sizeof(r), answer_by);
	if (!rc && ntohl(r.proto) != BOOT_PROTO)
		rc = -EPROTO;
	if (rc) {
		close(fd);
		if (rc == -ETIMEDOUT)
			return fail(b, rc, "init: timed out after %d ms waiting for the root at %s to answer (it answers once all %d ranks came)",
				    b->timeout_ms, where, b->nranks);
		return fail(b, rc, "init: the root at %s did not answer: %s", where,
			    rc == -EPIPE ? "it closed the connection" : strerror(-rc));
	}
	status = (int32_t)ntohl((uint32_t)r.status);
	len = ntohl(r.len);
	if (status < 0) {
		text = malloc((size_t)len + 1);
		rc = text ? sock_read(fd, text, len, answer_by) : -ENOMEM;
		close(fd);
		if (rc) {
			free(text);
			return fail(b, status, "init: the root at %s refused the job (%s)", where,
				    strerror(-status));
		}
		text[len] = '\0';
		rc = fail(b, status, "init: %s", text);
		free(text);
		return rc;
	}
	if (len != (uint32_t)b->nranks * sizeof(*b->addrs)) {
		close(fd);
		return fail(b, -EPROTO, "init: the root at %s sent %u bytes of addresses for %d ranks",
			    where, len, b->nranks);
	}
	rc = sock_read(fd, b->addrs, len, answer_by);
	close(fd);
	if (rc)
		return fail(b, rc, "init: the root at %s: reading the addresses failed: %s", where,
			    strerror(-rc));
	return 0;
}

int boot_init(const struct boot_id *id, int rank, int nranks, int timeout_ms, struct boot **out)
{
	struct boot_id_layout l;
	struct boot_addr self;
	char where[SOCK_ADDR_STRLEN], root_err[768];
	int64_t deadline;
	bool own_root = false;
	struct boot *b;
	int rc;

	*out = NULL;
	if (!id)
		return ccore_error(-EINVAL, "bootstrap: no unique id (boot_unique_id makes one)");
	memcpy(&l, id->bytes, sizeof(l));
	if (l.proto != BOOT_PROTO)
		return ccore_error(-EINVAL, "bootstrap: the unique id is not one boot_unique_id made (it starts with 0x%08x)",
				   l.proto);
	if (nranks < 1)
		return ccore_error(-EINVAL, "bootstrap: nranks %d: expected 1 or more", nranks);
	if (rank < 0 || rank >= nranks)
		return ccore_error(-EINVAL, "bootstrap: rank %d: expected 0 to %d (nranks %d)", rank,
				   nranks - 1, nranks);
	rc = boot_timeout_ms(timeout_ms, &timeout_ms);
	if (rc)
		return rc;
	b = boot_alloc(rank, nranks);
	if (!b)
		return ccore_error(-ENOMEM, "bootstrap rank %d: out of memory for %d ranks", rank, nranks);
	b->timeout_ms = timeout_ms;
	b->magic = l.magic;
	deadline = rt_now_ns() + (int64_t)timeout_ms * 1000000;

	rc = sock_pick_addr(&b->addrs[rank]);
	if (!rc) {
		rc = sock_listen(&b->addrs[rank], &b->lfd);
		if (rc)
			rc = ccore_error(rc, "bootstrap rank %d: cannot listen on %s: %s", rank,
					 sock_addr_str(&b->addrs[rank], where), strerror(-rc));
	}
	if (!rc && fdpass_open(l.magic, rank, &b->fdp))
		b->fdp_err = strdup(ccore_last_error());	/* needed only by fd passing */
	if (!rc && (l.flags & BOOT_ID_COMM_ID) && rank == 0) {
		struct boot_addr root = l.root;

		rc = root_start(&root, l.magic, timeout_ms);
		if (rc)
			rc = ccore_error(rc, "CCORE_COMM_ID=%s: rank 0 cannot run the root there: listening on %s failed: %s",
					 getenv("CCORE_COMM_ID"), sock_addr_str(&l.root, where),
					 strerror(-rc));
		own_root = !rc;
	}
	if (rc) {
		boot_close(b);
		return rc;
	}
	self = b->addrs[rank];
	rc = meet_root(b, &l, deadline);
	/*
	 * A root running here (ours, or boot_unique_id's) is joined: it ends
	 * once every rank has its answer, or by its own deadline.  Its error,
	 * if any, is what the rank was told already.
	 */
	root_join(l.magic, rc || own_root ? sock_poll_ms(deadline) + ROOT_GRACE_MS : timeout_ms,
		  root_err, sizeof(root_err));
	if (!rc && !sock_addr_equal(&b->addrs[rank], &self))
		rc = fail(b, -EPROTO, "init: the root's address for this rank is %s, not %s",
			  sock_addr_str(&b->addrs[rank], where), sock_addr_str(&self, root_err));
	if (!rc)
		rc = boot_barrier(b);	/* the ring: every rank connects to the next */
	if (rc) {
		boot_close(b);
		return rc;
	}
	*out = b;
	return 0;
}

void boot_close(struct boot *b)
{
	struct boot_frame bye = { .kind = htonl(BOOT_FRAME_CLOSE) };

	if (!b)
		return;
	for (int p = 0; b->out && p < b->nranks; p++) {
		if (b->out[p].fd >= 0 && !b->out[p].broken &&
		    send(b->out[p].fd, &bye, sizeof(bye), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			b->out[p].broken = true;
		conn_close(&b->out[p]);
	}
	for (int p = 0; b->in && p < b->nranks; p++)
		conn_close(&b->in[p]);
	if (b->lfd >= 0)
		close(b->lfd);
	while (b->queue) {
		struct msg *m = b->queue;

		b->queue = m->next;
		free(m);
	}
	free(b->addrs);
	free(b->out);
	free(b->in);
	free(b->pfds);
	free(b->pfd_peer);
	free(b->err);
	free(b->abort_text);
	fdpass_close(b->fdp);
	free(b->fdp_err);
	free(b);
}

int boot_peer_bound(const struct boot *b, int peer)
{
	if (peer < 0 || peer >= b->nranks)
		return -EINVAL;
	return fdpass_peer_bound(b->magic, peer);
}

static int no_fd_channel(const struct boot *b)
{
	return ccore_error(-ENOTCONN, "bootstrap rank %d: no fd channel: %s", b->rank,
			   b->fdp_err ? b->fdp_err : "out of memory");
}

int boot_send_fds(struct boot *b, int peer, uint32_t tag, const int *fds, unsigned int n)
{
	if (peer < 0 || peer >= b->nranks)
		return ccore_error(-EINVAL, "bootstrap rank %d: fds to rank %d: expected 0 to %d",
				   b->rank, peer, b->nranks - 1);
	return b->fdp ? fdpass_send(b->fdp, peer, tag, fds, n, b->timeout_ms) : no_fd_channel(b);
}

int boot_recv_fds(struct boot *b, int peer, uint32_t tag, int *fds, unsigned int n)
{
	if (peer < 0 || peer >= b->nranks)
		return ccore_error(-EINVAL, "bootstrap rank %d: fds from rank %d: expected 0 to %d",
				   b->rank, peer, b->nranks - 1);
	return b->fdp ? fdpass_recv(b->fdp, peer, tag, fds, n, b->timeout_ms) : no_fd_channel(b);
}
