// SPDX-License-Identifier: GPL-2.0
/*
 * The accel backend's NIC proxy (runtime/accel/accel_nic.c) on the kernel
 * driver (build/tests/kernel/accel_nic, run in the QEMU guest): two
 * fabrics of the guest act as two hosts ("nodes=2,here=0" and
 * "here=1"), joined by a socketpair as their wire.  The guest is a
 * busybox initramfs of static binaries with no network stack to speak of
 * and no libfabric, and both hosts' proxies are threads of this process:
 * a stream socket carries the bytes as a TCP connection between two
 * machines would.
 *
 * Host 0's ring holds three descriptors for host 1 (64 KiB with a signal,
 * a SEM_WRITE, then 1 MiB with a signal: more than the driver copies at
 * once and than the proxy's first buffer); host 0's proxy forwards each,
 * host 1's delivers it, a CC core of host 1 waiting for the last signal
 * wakes, and every byte and semaphore is checked.  Then a delivery host 1
 * refuses fails the sender's descriptor with the refusal, naming the
 * rule; and a wire that closes fails the descriptor rather than hang.
 */
#include "ccore_test.h"
#include "ccore_internal.h"
#include "../../runtime/accel/accel_nic.h"
#include "../driver/ccore_sim_place.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ccore_accel.h"

#define SIM_BUS "/sys/bus/ccore_sim"
#define SMALL (64u << 10)
#define LARGE (1u << 20)

static int ioc(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

#define CHECK(call)                                                             \
	do {                                                                    \
		int rc_ = (call);                                               \
		if (rc_)                                                        \
			FAIL("%s: %d: %s", #call, rc_, ccore_last_error());     \
	} while (0)

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		rc = -errno;
	close(fd);
	return rc;
}

struct host {
	int id;			/* ccore_sim bus id */
	int fd;			/* its one device, fabric index @here */
};

/* Node @here of a 2-node fabric, one device each; its device file open. */
static void host_up(struct host *h, int here)
{
	char line[64];
	uint32_t index;
	int fabric, m;

	h->fd = -1;
	h->id = -1;
	for (int id = 600 + (getpid() % 40) * 2 + here; id < 1000 && h->id < 0; id += 80) {
		snprintf(line, sizeof(line), "%d 1 nodes=2,here=%d", id, here);
		if (!write_text(SIM_BUS "/new_device", line))
			h->id = id;
	}
	if (h->id < 0)
		FAIL("new_device \"ID 1 nodes=2,here=%d\" failed", here);
	for (m = 0; m < 64 && h->fd < 0; m++) {
		if (ccore_sim_place(m, &fabric, &index) || fabric != h->id)
			continue;
		snprintf(line, sizeof(line), "/dev/accel/accel%d", m);
		h->fd = open(line, O_RDWR | O_CLOEXEC);
	}
	if (h->fd < 0)
		FAIL("no accel device of fabric %d", h->id);
}

static void host_down(struct host *h)
{
	char line[16];

	if (h->fd >= 0)
		close(h->fd);
	snprintf(line, sizeof(line), "%d", h->id);
	if (h->id >= 0)
		write_text(SIM_BUS "/del_device", line);
}

static void *bo_new(int fd, uint64_t size, uint64_t *addr)
{
	struct drm_ccore_bo_create c = { .size = size };
	struct drm_ccore_bo_mmap_offset o = { 0 };
	void *p;

	CHECK(ioc(fd, DRM_IOCTL_CCORE_BO_CREATE, &c));
	o.handle = c.handle;
	CHECK(ioc(fd, DRM_IOCTL_CCORE_BO_MMAP_OFFSET, &o));
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)o.offset);
	if (p == MAP_FAILED)
		FAIL("mmap: %s", strerror(errno));
	*addr = c.dev_addr;
	return p;
}

static uint32_t sem_new(int fd)
{
	struct drm_ccore_sem_alloc a = { .core = 0, .count = 1 };

	CHECK(ioc(fd, DRM_IOCTL_CCORE_SEM_ALLOC, &a));
	return a.first;
}

static uint32_t sem_value(int fd, uint32_t sem)
{
	struct drm_ccore_sem_access a = { .sem = sem, .op = DRM_CCORE_SEM_READ };

	CHECK(ioc(fd, DRM_IOCTL_CCORE_SEM_ACCESS, &a));
	return a.value;
}

static struct drm_ccore_ring_stats ring_settled(int fd, uint32_t ring, uint64_t n)
{
	struct drm_ccore_ring_stats st;

	for (int i = 0; i < 5000; i++) {
		st = (struct drm_ccore_ring_stats){ .handle = ring };
		CHECK(ioc(fd, DRM_IOCTL_CCORE_RING_STATS, &st));
		if (st.completed + st.errors >= n)
			return st;
		usleep(1000);
	}
	FAIL("ring %u: %llu of %llu descriptors settled after 5 s", ring,
	     (unsigned long long)(st.completed + st.errors), (unsigned long long)n);
}

struct proxy {
	int fd, wire, count, rc;
	bool sender;
	char why[256];
};

static void *proxy_run(void *p)
{
	struct proxy *px = p;
	struct accel_nic_buf buf = { 0 };

	for (int i = 0; i < px->count && !px->rc; i++)
		px->rc = px->sender ? accel_nic_forward(px->fd, px->wire, &buf, 10000) :
				      accel_nic_accept(px->fd, px->wire, &buf, 10000);
	if (px->rc)
		snprintf(px->why, sizeof(px->why), "%s", ccore_last_error());
	accel_nic_buf_free(&buf);
	return NULL;
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

TEST(three_transfers_cross_and_wake_the_other_host)
{
	struct host h[2];
	uint64_t dst[2], src[2], remote[2];
	uint8_t *dmap[2], *smap[2];
	uint32_t sem[2], size[2] = { SMALL, LARGE };
	struct drm_ccore_ring_create rc = { .core = 0, .engine = 0, .ring = 0, .size = 8 };
	struct drm_ccore_desc d[3];
	struct drm_ccore_insn prog[2] = { { .opcode = DRM_CCORE_OP_WAIT },
					  { .opcode = DRM_CCORE_OP_RET } };
	struct drm_ccore_program_load pl = { .cc_core = 0, .count = 2, .insns = (uintptr_t)prog };
	struct drm_ccore_submit su = { .flags = DRM_CCORE_JOB_F_TRIGGER, .timeout_ms = 20000 };
	struct drm_ccore_job_wait jw = { 0 };
	struct drm_ccore_ring_submit rs = { .count = 3, .descs = (uintptr_t)d,
					    .flags = DRM_CCORE_SUBMIT_F_START };
	struct drm_ccore_ring_stats st;
	struct proxy px[2];
	pthread_t t[2];
	int wire[2];

	host_up(&h[0], 0);
	host_up(&h[1], 1);
	for (int i = 0; i < 2; i++) {
		dmap[i] = bo_new(h[1].fd, size[i], &dst[i]);
		memset(dmap[i], 0xee, size[i]);
		sem[i] = sem_new(h[1].fd);
		smap[i] = bo_new(h[0].fd, size[i], &src[i]);
		fill(smap[i], size[i], i + 1);
		CHECK(accel_nic_remote_map(h[0].fd, 1, size[i], dst[i], &remote[i]));
		CHECK(accel_nic_remote_sems(h[0].fd, sem[i], 1));
	}
	/* host 1: a CC core waits for the last transfer's signal */
	prog[0].sem = sem[1];
	prog[0].imm = 1;
	CHECK(ioc(h[1].fd, DRM_IOCTL_CCORE_PROGRAM_LOAD, &pl));
	su.program = pl.handle;
	CHECK(ioc(h[1].fd, DRM_IOCTL_CCORE_SUBMIT, &su));

	d[0] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY, .len = SMALL, .dst = remote[0],
					.src0 = src[0], .flags = DRM_CCORE_DESC_F_SIGNAL,
					.signal_sem = sem[0], .signal_value = 1 };
	d[1] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_SEM_WRITE, .dst = sem[0], .value = 40,
					.flags = DRM_CCORE_DESC_F_SEM_SET };
	d[2] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY, .len = LARGE, .dst = remote[1],
					.src0 = src[1], .flags = DRM_CCORE_DESC_F_SIGNAL,
					.signal_sem = sem[1], .signal_value = 1 };
	CHECK(ioc(h[0].fd, DRM_IOCTL_CCORE_RING_CREATE, &rc));
	rs.handle = rc.handle;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, wire))
		FAIL("socketpair: %s", strerror(errno));
	px[0] = (struct proxy){ .fd = h[0].fd, .wire = wire[0], .count = 3, .sender = true };
	px[1] = (struct proxy){ .fd = h[1].fd, .wire = wire[1], .count = 3 };
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, proxy_run, &px[i]), 0);
	CHECK(ioc(h[0].fd, DRM_IOCTL_CCORE_RING_SUBMIT, &rs));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(pthread_join(t[i], NULL), 0);
		if (px[i].rc)
			FAIL("host %d's proxy: %d: %s", i, px[i].rc, px[i].why);
	}
	jw.job = su.job;
	jw.timeout_ns = now_ns() + 5000000000ll;
	CHECK(ioc(h[1].fd, DRM_IOCTL_CCORE_JOB_WAIT, &jw));
	ASSERT_EQ(jw.status, 0);
	for (int i = 0; i < 2; i++)
		ASSERT_MEM_EQ(dmap[i], smap[i], size[i]);
	ASSERT_EQ(sem_value(h[1].fd, sem[0]), 40);
	ASSERT_EQ(sem_value(h[1].fd, sem[1]), 1);
	st = ring_settled(h[0].fd, rc.handle, 3);
	ASSERT_EQ(st.completed, 3);
	ASSERT_EQ(st.errors, 0);
	ccore_test_log("host 0 -> host 1 over a socketpair: %u + %u bytes and 3 semaphore changes; host 1's CC core woke",
		       SMALL, LARGE);
	close(wire[0]);
	close(wire[1]);
	host_down(&h[0]);
	host_down(&h[1]);
}

TEST(a_refused_delivery_or_a_closed_wire_fails_the_descriptor)
{
	struct host h[2];
	uint64_t dst, src, remote;
	uint32_t sem;
	struct drm_ccore_ring_create rc = { .core = 0, .engine = 0, .ring = 0, .size = 8 };
	struct drm_ccore_desc d;
	struct drm_ccore_ring_submit rs = { .count = 1, .descs = (uintptr_t)&d,
					    .flags = DRM_CCORE_SUBMIT_F_START };
	struct drm_ccore_ring_stats st;
	struct proxy px[2];
	pthread_t t[2];
	int wire[2];

	host_up(&h[0], 0);
	host_up(&h[1], 1);
	bo_new(h[1].fd, SMALL, &dst);
	sem = sem_new(h[1].fd);
	bo_new(h[0].fd, SMALL, &src);
	/* host 0 was told a wrong address: past the end of host 1's buffer */
	CHECK(accel_nic_remote_map(h[0].fd, 1, SMALL, dst + SMALL, &remote));
	CHECK(accel_nic_remote_sems(h[0].fd, sem, 1));
	CHECK(ioc(h[0].fd, DRM_IOCTL_CCORE_RING_CREATE, &rc));
	rs.handle = rc.handle;
	d = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY, .len = SMALL, .dst = remote,
				     .src0 = src, .flags = DRM_CCORE_DESC_F_SIGNAL,
				     .signal_sem = sem, .signal_value = 1 };
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, wire))
		FAIL("socketpair: %s", strerror(errno));
	px[0] = (struct proxy){ .fd = h[0].fd, .wire = wire[0], .count = 1, .sender = true };
	px[1] = (struct proxy){ .fd = h[1].fd, .wire = wire[1], .count = 1 };
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, proxy_run, &px[i]), 0);
	CHECK(ioc(h[0].fd, DRM_IOCTL_CCORE_RING_SUBMIT, &rs));
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(pthread_join(t[i], NULL), 0);
	/* the receiver names the rule; the sender's descriptor fails with it */
	ASSERT_EQ(px[1].rc, -EINVAL);
	ASSERT_STR_CONTAINS(px[1].why, "NIC_DELIVER");
	ASSERT_STR_CONTAINS(px[1].why, "NIC_TARGET");
	ASSERT_EQ(px[0].rc, 0);
	st = ring_settled(h[0].fd, rc.handle, 1);
	ASSERT_EQ(st.errors, 1);
	ASSERT_EQ(sem_value(h[1].fd, sem), 0);

	/* the other host's proxy is gone: the next descriptor fails, nothing hangs */
	close(wire[1]);
	CHECK(accel_nic_remote_map(h[0].fd, 1, SMALL, dst, &remote));
	d.dst = remote;		/* a right address: only the wire fails it */
	CHECK(ioc(h[0].fd, DRM_IOCTL_CCORE_RING_SUBMIT, &rs));
	px[0] = (struct proxy){ .fd = h[0].fd, .wire = wire[0], .count = 1, .sender = true };
	proxy_run(&px[0]);
	ASSERT_EQ(px[0].rc, -EPIPE);
	ASSERT_STR_CONTAINS(px[0].why, "to the other host");
	st = ring_settled(h[0].fd, rc.handle, 2);
	ASSERT_EQ(st.errors, 2);
	close(wire[0]);
	host_down(&h[0]);
	host_down(&h[1]);
}
