// SPDX-License-Identifier: MIT
/*
 * The proxy of the kernel driver's NIC queue (see accel_nic.h).
 *
 * On the wire a transfer is a header (struct wire_xfer) and its bytes;
 * the receiver answers each with its status (struct wire_ack).  One
 * transfer is in flight per wire at a time: the sender reports a
 * transfer done only once the receiver delivered it, which is what the
 * driver's ring needs to keep its order across hosts (model/ccm_nic.c).
 */
#include "accel_nic.h"
#include "ccore_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "ccore_accel.h"

#define WIRE_MAGIC 0x43434e49u		/* "CCNI" */

struct wire_xfer {
	uint32_t magic;
	uint32_t what;			/* DRM_CCORE_NIC_F_* */
	uint64_t to, len;
	uint32_t sem, value;
};

struct wire_ack {
	uint32_t magic;
	int32_t status;
};

void accel_nic_buf_free(struct accel_nic_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->size = 0;
}

/* @request failed with -@rc on @fd: say which ioctl and the rule it broke. */
static int ioctl_failed(int fd, unsigned long request, int rc)
{
	struct drm_ccore_last_error e = { 0 };

	if (ioctl(fd, DRM_IOCTL_CCORE_GET_LAST_ERROR, &e) || e.reason == DRM_CCORE_REASON_NONE)
		return ccore_error(-rc, "%s: %s", ccore_ioctl_name(request), strerror(rc));
	return ccore_error(-rc, "%s: %s (%s: %s)", ccore_ioctl_name(request), strerror(rc),
			   ccore_reason_name(e.reason), ccore_reason_text(e.reason));
}

static int nic_ioctl(int fd, unsigned long request, void *arg)
{
	int rc;

	do {
		rc = ioctl(fd, request, arg);
	} while (rc < 0 && errno == EINTR);
	return rc < 0 ? -errno : 0;
}

int accel_nic_remote_map(int fd, uint32_t device, uint64_t size, uint64_t remote,
			 uint64_t *dev_addr)
{
	struct drm_ccore_nic_remote_map a = { .device = device, .size = size, .remote = remote };
	int rc = nic_ioctl(fd, DRM_IOCTL_CCORE_NIC_REMOTE_MAP, &a);

	if (rc)
		return ioctl_failed(fd, DRM_IOCTL_CCORE_NIC_REMOTE_MAP, -rc);
	*dev_addr = a.dev_addr;
	return 0;
}

int accel_nic_remote_sems(int fd, uint32_t first, uint32_t count)
{
	struct drm_ccore_nic_remote_sems a = { .first = first, .count = count };
	int rc = nic_ioctl(fd, DRM_IOCTL_CCORE_NIC_REMOTE_SEMS, &a);

	return rc ? ioctl_failed(fd, DRM_IOCTL_CCORE_NIC_REMOTE_SEMS, -rc) : 0;
}

/* Sleep until @fd is readable: 0, -ETIMEDOUT, or -EPIPE if it hung up with nothing to read. */
static int wait_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	do {
		n = poll(&p, 1, timeout_ms);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (!n)
		return -ETIMEDOUT;
	return (p.revents & POLLIN) ? 0 : -EPIPE;
}

/*
 * All of @len bytes to (@out) or from the wire; a closed socket fails the
 * send rather than kill the process (SIGPIPE), and the wire may be a pipe.
 */
static int wire_io(int wire, void *p, size_t len, bool out)
{
	char *c = p;
	ssize_t n;

	while (len) {
		n = out ? send(wire, c, len, MSG_NOSIGNAL) : read(wire, c, len);
		if (out && n < 0 && errno == ENOTSOCK)
			n = write(wire, c, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		c += n;
		len -= (size_t)n;
	}
	return 0;
}

static int wire_write(int wire, const void *p, size_t len)
{
	return wire_io(wire, (void *)p, len, true);
}

static int wire_read(int wire, void *p, size_t len)
{
	return wire_io(wire, p, len, false);
}

static int buf_reserve(struct accel_nic_buf *b, uint64_t len)
{
	void *p;

	if (len <= b->size)
		return 0;
	if (len > ACCEL_NIC_MAX_XFER)
		return ccore_error(-EMSGSIZE, "NIC: a transfer of %llu bytes; a proxy carries at most %llu",
				   (unsigned long long)len, (unsigned long long)ACCEL_NIC_MAX_XFER);
	p = realloc(b->data, len);
	if (!p)
		return ccore_error(-ENOMEM, "NIC: no memory for a transfer of %llu bytes",
				   (unsigned long long)len);
	b->data = p;
	b->size = len;
	return 0;
}

/* Take the next transfer of @fd's rings into @t and @buf, growing @buf as it needs. */
static int take(int fd, struct accel_nic_buf *buf, struct drm_ccore_nic_take *t)
{
	int rc;

	for (;;) {
		*t = (struct drm_ccore_nic_take){
			.data = (uintptr_t)buf->data, .data_size = buf->size,
		};
		rc = nic_ioctl(fd, DRM_IOCTL_CCORE_NIC_TAKE, t);
		if (rc != -ENOSPC)
			break;
		/* it stays queued: take it again with room for it */
		rc = buf_reserve(buf, t->len);
		if (rc)
			return rc;
	}
	return rc == -EAGAIN ? rc : rc ? ioctl_failed(fd, DRM_IOCTL_CCORE_NIC_TAKE, -rc) : 0;
}

static int done(int fd, const struct drm_ccore_nic_take *t, int status)
{
	struct drm_ccore_nic_done d = { .ring = t->ring, .seq = t->seq, .status = status };
	int rc = nic_ioctl(fd, DRM_IOCTL_CCORE_NIC_DONE, &d);

	return rc ? ioctl_failed(fd, DRM_IOCTL_CCORE_NIC_DONE, -rc) : 0;
}

int accel_nic_forward(int fd, int wire, struct accel_nic_buf *buf, int timeout_ms)
{
	struct drm_ccore_nic_take t;
	struct wire_xfer x;
	struct wire_ack ack;
	int rc;

	/* poll() says a transfer waits; another thread of the file may take it first */
	do {
		rc = wait_readable(fd, timeout_ms);
		if (rc)
			return rc == -ETIMEDOUT ? rc :
			       ccore_error(rc, "NIC: waiting for the driver's queue: %s", strerror(-rc));
		rc = take(fd, buf, &t);
	} while (rc == -EAGAIN);
	if (rc)
		return rc;
	x = (struct wire_xfer){
		.magic = WIRE_MAGIC, .what = t.what, .to = t.to, .len = t.len,
		.sem = t.sem, .value = t.value,
	};
	rc = wire_write(wire, &x, sizeof(x));
	if (!rc && t.len)
		rc = wire_write(wire, buf->data, t.len);
	if (!rc)
		rc = wire_read(wire, &ack, sizeof(ack));
	if (!rc && ack.magic != WIRE_MAGIC)
		rc = -EPROTO;
	if (rc) {
		/* the descriptor fails rather than wait for a peer that is gone */
		done(fd, &t, rc);
		return ccore_error(rc, "NIC: sending %llu bytes from ring %u to the other host: %s",
				   (unsigned long long)t.len, t.ring, strerror(-rc));
	}
	return done(fd, &t, ack.status);
}

int accel_nic_accept(int fd, int wire, struct accel_nic_buf *buf, int timeout_ms)
{
	struct drm_ccore_nic_deliver d;
	struct wire_xfer x;
	struct wire_ack ack = { .magic = WIRE_MAGIC };
	int rc;

	rc = wait_readable(wire, timeout_ms);
	if (!rc)
		rc = wire_read(wire, &x, sizeof(x));
	if (rc == -ETIMEDOUT)
		return rc;
	if (!rc && (x.magic != WIRE_MAGIC || (x.what & ~DRM_CCORE_NIC_FLAGS)))
		rc = -EPROTO;
	if (!rc && x.len)
		rc = buf_reserve(buf, x.len) ?: wire_read(wire, buf->data, x.len);
	if (rc)
		return ccore_error(rc, "NIC: receiving from the other host: %s",
				   rc == -EPROTO ? "not a transfer (protocol broken)" : strerror(-rc));
	d = (struct drm_ccore_nic_deliver){
		.to = x.to, .len = x.len, .data = x.len ? (uintptr_t)buf->data : 0,
		.flags = x.what, .sem = x.sem, .value = x.value,
	};
	ack.status = nic_ioctl(fd, DRM_IOCTL_CCORE_NIC_DELIVER, &d);
	rc = ack.status ? ioctl_failed(fd, DRM_IOCTL_CCORE_NIC_DELIVER, -ack.status) : 0;
	/* the sender's ring fails with the delivery's error */
	if (wire_write(wire, &ack, sizeof(ack)) && !rc)
		rc = ccore_error(-EPIPE, "NIC: answering the other host: the wire is closed");
	return rc;
}
