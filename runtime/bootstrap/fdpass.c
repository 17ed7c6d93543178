// SPDX-License-Identifier: MIT
/*
 * File descriptors between processes of one host (fdpass.h).  A datagram
 * per message: a header naming the job, the sender and the tag, and the
 * fds as SCM_RIGHTS.  Messages another call waits for are kept, fds
 * and all, in arrival order.  A sender whose peer's queue is full takes
 * in its own meanwhile, so two ranks sending each other many at once do
 * not deadlock.
 */
#include "bootstrap/fdpass.h"
#include "ccore_internal.h"
#include "util/clock.h"

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define FDPASS_MAGIC 0x63666470u	/* "cfdp" */

struct fdpass_hdr {
	uint32_t magic;
	uint32_t from, tag, nfds;
	uint64_t job;			/* the job's magic: another job's message is dropped */
};

struct fdpass_msg {
	struct fdpass_msg *next;
	uint32_t from, tag, nfds;
	int fds[FDPASS_MAX_FDS];
};

struct fdpass {
	int sock;
	int rank;
	uint64_t job;
	struct fdpass_msg *queue;
};

static socklen_t endpoint(uint64_t job, int rank, struct sockaddr_un *sa)
{
	int len;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* abstract: sun_path[0] is NUL, the name is the bytes after it */
	len = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "ccore-fd-%016llx-%d",
		       (unsigned long long)job, rank);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len);
}

int fdpass_open(uint64_t magic, int rank, struct fdpass **out)
{
	struct fdpass *f = calloc(1, sizeof(*f));
	struct sockaddr_un sa;
	socklen_t len = endpoint(magic, rank, &sa);
	int rc;

	*out = NULL;
	if (!f)
		return ccore_error(-ENOMEM, "fd channel: out of memory");
	f->rank = rank;
	f->job = magic;
	f->sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (f->sock < 0 || bind(f->sock, (struct sockaddr *)&sa, len)) {
		rc = -errno;
		if (f->sock >= 0)
			close(f->sock);
		free(f);
		return ccore_error(rc, "fd channel of rank %d: binding the UNIX socket @%s failed: %s%s",
				   rank, sa.sun_path + 1, strerror(-rc),
				   rc == -EADDRINUSE ? " (this rank of this job runs already)" : "");
	}
	*out = f;
	return 0;
}

static void close_fds(const int *fds, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Take in one message if there is one: 1, 0 if none, or a negative errno. */
static int take_one(struct fdpass *f)
{
	union {
		char buf[CMSG_SPACE(FDPASS_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct fdpass_hdr h;
	struct iovec iov = { .iov_base = &h, .iov_len = sizeof(h) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	struct fdpass_msg *m, **tail;
	struct cmsghdr *c;
	unsigned int nfds = 0;
	int fds[FDPASS_MAX_FDS];
	ssize_t got;

	got = recvmsg(f->sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (got < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
		unsigned int k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (unsigned int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (unsigned int i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (nfds < FDPASS_MAX_FDS)
				fds[nfds++] = fd;
			else
				close(fd);
		}
	}
	if ((size_t)got != sizeof(h) || h.magic != FDPASS_MAGIC || h.job != f->job ||
	    h.nfds != nfds || (mh.msg_flags & MSG_CTRUNC)) {
		/* not ours, or cut short: nobody waits for it */
		close_fds(fds, nfds);
		return 1;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		close_fds(fds, nfds);
		return ccore_error(-ENOMEM, "fd channel: out of memory");
	}
	m->from = h.from;
	m->tag = h.tag;
	m->nfds = nfds;
	memcpy(m->fds, fds, nfds * sizeof(int));
	for (tail = &f->queue; *tail; tail = &(*tail)->next)
		;
	*tail = m;
	return 1;
}

int fdpass_send(struct fdpass *f, int peer, uint32_t tag, const int *fds, unsigned int n,
		int timeout_ms)
{
	union {
		char buf[CMSG_SPACE(FDPASS_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct fdpass_hdr h = { .magic = FDPASS_MAGIC, .from = (uint32_t)f->rank, .tag = tag,
				.nfds = n, .job = f->job };
	struct iovec iov = { .iov_base = &h, .iov_len = sizeof(h) };
	struct sockaddr_un sa;
	struct msghdr mh = { .msg_name = &sa, .msg_namelen = endpoint(f->job, peer, &sa),
			     .msg_iov = &iov, .msg_iovlen = 1 };
	int64_t deadline = rt_now_ns() + (int64_t)timeout_ms * 1000000;
	struct cmsghdr *c;

	if (n > FDPASS_MAX_FDS)
		return ccore_error(-EINVAL, "fd channel: %u fds in one message, at most %d", n,
				   FDPASS_MAX_FDS);
	if (n) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(n * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	for (;;) {
		int rc;

		if (sendmsg(f->sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return 0;
		if (errno == ECONNREFUSED || errno == ENOENT)
			return ccore_error(-EHOSTUNREACH, "fd channel: rank %d sending %u fd%s to rank %d: it has no endpoint @%s on this host (it exited, or runs on another host: the kernel driver's buffers and semaphores are shared between the processes of one host only)",
					   f->rank, n, n == 1 ? "" : "s", peer, sa.sun_path + 1);
		if (errno != EAGAIN && errno != EINTR)
			return ccore_error(-errno, "fd channel: rank %d sending %u fds to rank %d: %s",
					   f->rank, n, peer, strerror(errno));
		if (rt_now_ns() >= deadline)
			return ccore_error(-ETIMEDOUT, "fd channel: rank %d sending %u fds to rank %d: its queue stayed full for %d ms (it takes none)",
					   f->rank, n, peer, timeout_ms);
		/* its queue is full: take in ours meanwhile, then try again */
		rc = take_one(f);
		if (rc < 0)
			return rc;
		if (!rc)
			usleep(200);
	}
}

int fdpass_recv(struct fdpass *f, int peer, uint32_t tag, int *fds, unsigned int n,
		int timeout_ms)
{
	int64_t deadline = rt_now_ns() + (int64_t)timeout_ms * 1000000;

	for (;;) {
		struct pollfd p = { .fd = f->sock, .events = POLLIN };
		int64_t left;
		int rc;

		for (struct fdpass_msg **at = &f->queue; *at; at = &(*at)->next) {
			struct fdpass_msg *m = *at;

			if (m->from != (uint32_t)peer || m->tag != tag)
				continue;
			*at = m->next;
			if (m->nfds != n) {
				unsigned int sent = m->nfds;

				close_fds(m->fds, m->nfds);
				free(m);
				return ccore_error(-EPROTO, "fd channel: rank %d expected %u fds from rank %d (tag %u), it sent %u",
						   f->rank, n, peer, tag, sent);
			}
			memcpy(fds, m->fds, n * sizeof(int));
			free(m);
			return 0;
		}
		rc = take_one(f);
		if (rc < 0)
			return rc;
		if (rc)
			continue;
		left = (deadline - rt_now_ns()) / 1000000;
		if (left <= 0)
			return ccore_error(-ETIMEDOUT, "fd channel: rank %d waited %d ms for %u fds from rank %d (tag %u): none came",
					   f->rank, timeout_ms, n, peer, tag);
		poll(&p, 1, (int)(left < 100 ? left : 100));
	}
}

int fdpass_peer_bound(uint64_t magic, int rank)
{
	struct sockaddr_un sa;
	socklen_t len = endpoint(magic, rank, &sa);
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (s < 0)
		return -errno;
	rc = connect(s, (struct sockaddr *)&sa, len) ? -errno : 1;
	close(s);
	return rc == -ECONNREFUSED || rc == -ENOENT ? 0 : rc;
}

void fdpass_close(struct fdpass *f)
{
	if (!f)
		return;
	while (f->queue) {
		struct fdpass_msg *m = f->queue;

		f->queue = m->next;
		close_fds(m->fds, m->nfds);
		free(m);
	}
	close(f->sock);
	free(f);
}
