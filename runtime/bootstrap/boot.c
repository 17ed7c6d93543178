// SPDX-License-Identifier: MIT
/*
 * The bootstrap's rank side (boot.h): the unique id, joining a job through
 * its root, and the calls between ranks after that (allgather, barrier,
 * tagged send and receive, fds to peers of this host).
 *
 * Each call says what it sends and receives as a struct op and leaves the
 * connections, the queue of arrived messages, deadlines and failing to
 * the machinery of conn.c (conn.h), so that a call reads as its protocol.
 */
#include "bootstrap/conn.h"
#include "bootstrap/fdpass.h"
#include "ccore_internal.h"
#include "util/clock.h"
#include "util/timeout_ms.h"
#include "util/fnv.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

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
	return timeout_ms_pick(ms, "bootstrap timeout", "CCORE_BOOT_TIMEOUT_MS",
			       BOOT_TIMEOUT_DEFAULT_MS, BOOT_TIMEOUT_MAX_MS, out);
}

/* The job magic of $CCORE_COMM_ID: every rank derives the same one. */
static uint64_t comm_id_magic(const char *v)
{
	return fnv1a_str(fnv1a_str(FNV1A_BASIS, "ccore-comm-id:", SIZE_MAX), v, SIZE_MAX);
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

/* --- calls ---------------------------------------------------------------- */

static int ring_allgather(struct boot *b, void *buf, size_t size, uint32_t tag, const char *call)
{
	int n = b->nranks, next = (b->rank + 1) % n, prev = (b->rank + n - 1) % n;
	struct op op = op_start(b, call);
	char what[96];

	if (b->failed)
		return boot_failed_before(b);
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
		rc = op_connect(b, &op) ?: op_progress(b, &op) ?:
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
		return boot_failed_before(b);
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
		boot_queue_add(b, m);
		return 0;
	}
	snprintf(what, sizeof(what), "a message with tag %u (%zu bytes)", tag, len);
	op.what = what;
	op_send_frame(&op, peer, tag, buf, len);
	return op_connect(b, &op) ?: op_progress(b, &op);
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
	if (peer == b->rank && !(op.got = boot_queue_take(b, peer, tag)))
		return ccore_error(-ENOMSG, "bootstrap rank %d: recv: no message with tag %u from itself (a rank's message to itself must be sent first)",
				   b->rank, tag);
	return op_progress(b, &op) ?: op_take(b, &op, buf, len);
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
		return boot_fail(b, rc, "init: timed out after %d ms connecting to the root at %s (CCORE_COMM_ID): rank 0 runs it; did rank 0 start?",
				 b->timeout_ms, where);
	if (rc == -ECONNREFUSED)
		return boot_fail(b, rc, "init: the root at %s refused the connection: it has ended (the job's ranks were all there, or it failed) or its process is gone",
				 where);
	if (rc)
		return boot_fail(b, rc, "init: cannot connect to the root at %s: %s", where,
				 strerror(-rc));
	rc = sock_write(fd, &h, sizeof(h), deadline) ?: sock_read(fd, &r, sizeof(r), answer_by);
	if (!rc && ntohl(r.proto) != BOOT_PROTO)
		rc = -EPROTO;
	if (rc) {
		close(fd);
		if (rc == -ETIMEDOUT)
			return boot_fail(b, rc, "init: timed out after %d ms waiting for the root at %s to answer (it answers once all %d ranks came)",
					 b->timeout_ms, where, b->nranks);
		return boot_fail(b, rc, "init: the root at %s did not answer: %s", where,
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
			return boot_fail(b, status, "init: the root at %s refused the job (%s)",
					 where, strerror(-status));
		}
		text[len] = '\0';
		rc = boot_fail(b, status, "init: %s", text);
		free(text);
		return rc;
	}
	if (len != (uint32_t)b->nranks * sizeof(*b->addrs)) {
		close(fd);
		return boot_fail(b, -EPROTO, "init: the root at %s sent %u bytes of addresses for %d ranks",
				 where, len, b->nranks);
	}
	rc = sock_read(fd, b->addrs, len, answer_by);
	close(fd);
	if (rc)
		return boot_fail(b, rc, "init: the root at %s: reading the addresses failed: %s",
				 where, strerror(-rc));
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
		rc = boot_fail(b, -EPROTO, "init: the root's address for this rank is %s, not %s",
			       sock_addr_str(&b->addrs[rank], where),
			       sock_addr_str(&self, root_err));
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
