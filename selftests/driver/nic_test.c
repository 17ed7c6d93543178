// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC queue (driver/ccore_nic.c): two fabrics in one guest acting as
 * two hosts, node 0 ("here=0") and node 1 ("here=1") of one 2-node fabric.
 *
 * A ring on host 0 COPYs into host 1's memory and signals a semaphore
 * there; a proxy thread (the test's: the guest has no network library,
 * and both hosts are this process, so it carries the bytes in its own
 * memory) polls host 0's file, takes the transfer, delivers it on host
 * 1's file and reports it done.  A CC core of host 1 waiting on the
 * semaphore must wake.  Then every NIC ioctl's bad input, each with its
 * errno and reason, another file's transfers out of reach, and a file
 * closed with transfers outstanding.
 */
#include <poll.h>
#include <pthread.h>

#include "ccore_drv_test.h"

#define XFER 65536u

static int last_reason(int fd, uint32_t *reason, uint64_t *limit)
{
	struct drm_ccore_last_error e = { 0 };
	int rc = ioc(fd, DRM_IOCTL_CCORE_GET_LAST_ERROR, &e);

	*reason = e.reason;
	if (limit)
		*limit = e.limit;
	return rc;
}

/* @call on @fd must fail with @err for @reason. */
#define EXPECT_NIC(fd, call, err, reason)                                       \
	do {                                                                    \
		uint32_t r_;                                                    \
		ASSERT_EQ(err, (call)) TH_LOG("%s", #call);                     \
		ASSERT_EQ(0, last_reason(fd, &r_, NULL));                       \
		EXPECT_EQ(reason, r_) TH_LOG("%s: reason %u", #call, r_);       \
	} while (0)

static int remote_map(int fd, uint32_t device, uint64_t size, uint64_t remote, uint64_t *va)
{
	struct drm_ccore_nic_remote_map a = { .device = device, .size = size, .remote = remote };
	int rc = ioc(fd, DRM_IOCTL_CCORE_NIC_REMOTE_MAP, &a);

	if (va)
		*va = a.dev_addr;
	return rc;
}

static int remote_sems(int fd, uint32_t first, uint32_t count)
{
	struct drm_ccore_nic_remote_sems a = { .first = first, .count = count };

	return ioc(fd, DRM_IOCTL_CCORE_NIC_REMOTE_SEMS, &a);
}

static int nic_take(int fd, void *buf, uint64_t size, struct drm_ccore_nic_take *a)
{
	memset(a, 0, sizeof(*a));
	a->data = (uintptr_t)buf;
	a->data_size = size;
	return ioc(fd, DRM_IOCTL_CCORE_NIC_TAKE, a);
}

static int nic_done(int fd, uint32_t ring, uint32_t seq, int32_t status)
{
	struct drm_ccore_nic_done a = { .ring = ring, .seq = seq, .status = status };

	return ioc(fd, DRM_IOCTL_CCORE_NIC_DONE, &a);
}

static int nic_deliver(int fd, const struct drm_ccore_nic_take *t, const void *bytes)
{
	struct drm_ccore_nic_deliver a = {
		.flags = t->what,
		.sem = t->sem, .value = t->value,
	};

	if (t->what & DRM_CCORE_NIC_F_DATA) {
		a.to = t->to;
		a.len = t->len;
		a.data = (uintptr_t)bytes;
	}
	return ioc(fd, DRM_IOCTL_CCORE_NIC_DELIVER, &a);
}

/* EPOLLIN on @fd within @ms: 1, 0 if not, or -errno */
static int nic_ready(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, ms);

	return n < 0 ? -errno : n > 0 && (p.revents & POLLIN);
}

/* "ID 1 nodes=2,here=H" on a free id from @base */
static int new_host(int base, int here)
{
	char line[64];
	int id, rc = -EEXIST;

	for (id = base; id < base + 50 && rc == -EEXIST; id++) {
		snprintf(line, sizeof(line), "%d 1 nodes=2,here=%d", id, here);
		rc = write_text(SIM_BUS "/new_device", line);
		if (!rc)
			return id;
	}
	return rc;
}

static void del_host(int id)
{
	char line[16];

	snprintf(line, sizeof(line), "%d", id);
	write_text(SIM_BUS "/del_device", line);
}

FIXTURE(hosts) {
	int id[2];
	struct ccore_dev h[2];		/* host 0's device 0, host 1's device 1 */
};

FIXTURE_SETUP(hosts)
{
	int i;

	for (i = 0; i < 2; i++) {
		self->id[i] = -1;
		self->h[i].fd = -1;
	}
	if (access(SIM_BUS "/new_device", W_OK))
		SKIP(return, "no " SIM_BUS "/new_device (ccore.ko loaded? root?)");
	for (i = 0; i < 2; i++) {
		self->id[i] = new_host(700 + (getpid() % 20) * 10 + i * 200, i);
		ASSERT_LE(0, self->id[i]) TH_LOG("new_device here=%d: %s", i,
						 strerror(-self->id[i]));
		/* device indices are the fabric's: host 1 holds device 1 */
		ASSERT_EQ(0, ccore_open_where(self->id[i], i, &self->h[i]));
		ASSERT_EQ(2, self->h[i].num_devices);
		ASSERT_EQ(i, param(self->h[i].fd, DRM_CCORE_PARAM_NODE_INDEX));
	}
}

FIXTURE_TEARDOWN(hosts)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (self->h[i].fd >= 0)
			close(self->h[i].fd);
		if (self->id[i] >= 0)
			del_host(self->id[i]);
	}
}

/* What one side of a transfer set up: host 1's target, host 0's source and ring. */
struct route {
	uint32_t dst_bo, src_bo, sem, ring;
	uint64_t dst, src, remote;
	uint8_t *dst_map, *src_map;
};

static void route_setup(struct __test_metadata *_metadata, int fd0, int fd1, struct route *rt,
			uint32_t ring)
{
	memset(rt, 0, sizeof(*rt));
	ASSERT_EQ(0, bo_create(fd1, XFER, &rt->dst_bo, &rt->dst));
	rt->dst_map = bo_map(fd1, rt->dst_bo, XFER);
	ASSERT_NE(NULL, rt->dst_map);
	memset(rt->dst_map, 0xee, XFER);
	ASSERT_EQ(0, sem_alloc(fd1, 0, 1, &rt->sem));
	ASSERT_EQ(0, bo_create(fd0, XFER, &rt->src_bo, &rt->src));
	rt->src_map = bo_map(fd0, rt->src_bo, XFER);
	ASSERT_NE(NULL, rt->src_map);
	fill_pattern(rt->src_map, XFER, 18);
	/* host 1's address of its buffer is what host 0 maps */
	ASSERT_EQ(0, remote_map(fd0, 1, XFER, rt->dst, &rt->remote));
	ASSERT_EQ(0, remote_sems(fd0, rt->sem, 1));
	ASSERT_EQ(0, ring_create(fd0, 0, 0, ring, 8, 0, 0, &rt->ring));
}

/* Host 0's ring copies its source into host 1's buffer and signals there. */
static int route_send(int fd0, const struct route *rt, uint32_t value)
{
	struct drm_ccore_desc d = desc_signal(desc_copy(rt->remote, rt->src, XFER), rt->sem,
					      value);

	return ring_submit(fd0, rt->ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL);
}

struct proxy {
	int from, to;			/* host 0's file, host 1's */
	int carried, rc;
	uint8_t *buf;
};

/* The proxy: sleeps in poll(), takes, carries (here: its own memory), reports. */
static void *proxy_run(void *p)
{
	struct proxy *px = p;
	struct drm_ccore_nic_take t;

	px->rc = nic_ready(px->from, 10000);
	if (px->rc != 1) {
		px->rc = px->rc ? px->rc : -ETIMEDOUT;
		return NULL;
	}
	px->rc = nic_take(px->from, px->buf, XFER, &t);
	if (!px->rc)
		px->rc = nic_deliver(px->to, &t, px->buf);
	if (!px->rc)
		px->rc = nic_done(px->from, t.ring, t.seq, 0);
	px->carried += !px->rc;
	return NULL;
}

TEST_F(hosts, copy_lands_on_the_other_host_and_wakes_its_cc_core)
{
	int fd0 = self->h[0].fd, fd1 = self->h[1].fd;
	struct drm_ccore_insn prog[] = { I_WAIT(0, 1), I_RET() };
	struct proxy px = { .from = fd0, .to = fd1 };
	struct drm_ccore_ring_stats st;
	struct route rt;
	pthread_t thread;
	uint32_t handle;
	uint64_t job;
	int32_t status = 1;

	route_setup(_metadata, fd0, fd1, &rt, 0);
	/* host 1: a CC core waits for the semaphore the transfer raises */
	prog[0].sem = rt.sem;
	ASSERT_EQ(0, prog_load(fd1, 0, prog, 2, &handle, NULL));
	ASSERT_EQ(0, submit_job(fd1, handle, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 20000, &job));
	ASSERT_EQ(-ETIMEDOUT, job_wait(fd1, job, deadline_ms(100), NULL));

	px.buf = malloc(XFER);
	ASSERT_NE(NULL, px.buf);
	ASSERT_EQ(0, nic_ready(fd0, 0));	/* nothing posted yet */
	ASSERT_EQ(0, pthread_create(&thread, NULL, proxy_run, &px));
	ASSERT_EQ(0, route_send(fd0, &rt, 1));
	ASSERT_EQ(0, pthread_join(thread, NULL));
	ASSERT_EQ(0, px.rc);
	ASSERT_EQ(1, px.carried);

	/* host 1's CC core woke, its bytes and semaphore are there */
	ASSERT_EQ(0, job_wait(fd1, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	ASSERT_TRUE(check_pattern(rt.dst_map, XFER, 18));
	ASSERT_EQ(1, sem_read(fd1, rt.sem));
	/* host 0's ring completed the descriptor once the proxy said so */
	ASSERT_EQ(0, ring_drain(fd0, rt.ring, 1, 5000));
	ASSERT_EQ(0, ring_stats(fd0, rt.ring, &st));
	ASSERT_EQ(1, st.completed);
	ASSERT_EQ(0, st.errors);
	ASSERT_EQ(XFER, st.bytes);
	ASSERT_EQ(0, nic_ready(fd0, 0));
	TH_LOG("host 0 -> host 1: %u bytes and semaphore 0x%08x = 1 carried by the proxy; host 1's CC core woke",
	       XFER, rt.sem);
	free(px.buf);
}

TEST_F(hosts, take_reports_the_transfer_and_a_failed_send_faults_the_ring)
{
	int fd0 = self->h[0].fd, fd1 = self->h[1].fd;
	struct drm_ccore_ring_stats st;
	struct drm_ccore_nic_take t;
	uint8_t *buf = malloc(XFER);
	struct route rt;
	uint64_t limit;
	uint32_t reason;

	ASSERT_NE(NULL, buf);
	route_setup(_metadata, fd0, fd1, &rt, 0);
	ASSERT_EQ(0, route_send(fd0, &rt, 3));
	ASSERT_EQ(1, nic_ready(fd0, 5000));
	/* too small a buffer: the transfer stays, its size reported */
	ASSERT_EQ(-ENOSPC, nic_take(fd0, buf, XFER - 1, &t));
	ASSERT_EQ(0, last_reason(fd0, &reason, &limit));
	ASSERT_EQ(DRM_CCORE_REASON_NIC_BUFFER, reason);
	ASSERT_EQ(XFER, limit);
	ASSERT_EQ(XFER, t.len);
	ASSERT_EQ(1, nic_ready(fd0, 0));

	ASSERT_EQ(0, nic_take(fd0, buf, XFER, &t));
	ASSERT_EQ(DRM_CCORE_NIC_F_DATA | DRM_CCORE_NIC_F_SEM, t.what);
	ASSERT_EQ(rt.ring, t.ring);
	ASSERT_EQ(XFER, t.len);
	ASSERT_EQ(rt.dst, t.to);
	ASSERT_EQ(1, t.to_device);
	ASSERT_EQ(rt.sem, t.sem);
	ASSERT_EQ(3, t.value);
	ASSERT_TRUE(check_pattern(buf, XFER, 18));
	/* taken: the queue is empty, the ring still parked on it */
	ASSERT_EQ(0, nic_ready(fd0, 0));
	EXPECT_NIC(fd0, nic_take(fd0, buf, XFER, &t), -EAGAIN, DRM_CCORE_REASON_NIC_NOTHING);
	ASSERT_EQ(0, ring_stats(fd0, rt.ring, &st));
	ASSERT_EQ(0, st.completed + st.errors);

	/* the send failed: the descriptor fails as a DMA error */
	ASSERT_EQ(0, nic_done(fd0, rt.ring, 1, -EHOSTUNREACH));
	ASSERT_EQ(0, ring_drain(fd0, rt.ring, 1, 5000));
	ASSERT_EQ(0, ring_stats(fd0, rt.ring, &st));
	ASSERT_EQ(1, st.errors);
	ASSERT_EQ(0, st.completed);
	/* done twice */
	EXPECT_NIC(fd0, nic_done(fd0, rt.ring, 1, 0), -ENOENT, DRM_CCORE_REASON_NIC_XFER);
	/* nothing reached host 1 */
	ASSERT_EQ(0, sem_read(fd1, rt.sem));
	ASSERT_EQ(0xee, rt.dst_map[0]);
	free(buf);
}

TEST_F(hosts, bad_input)
{
	int fd0 = self->h[0].fd, fd1 = self->h[1].fd;
	struct drm_ccore_nic_remote_map m;
	struct drm_ccore_nic_deliver dl;
	struct drm_ccore_nic_take t;
	struct drm_ccore_nic_done dn;
	uint32_t own_sem, sems = self->h[1].sems;
	uint8_t buf[64] = { 0 };
	struct route rt;
	struct ccore_dev all;

	route_setup(_metadata, fd0, fd1, &rt, 0);
	ASSERT_EQ(0, sem_alloc(fd0, 0, 1, &own_sem));

	/* REMOTE_MAP */
	m = (struct drm_ccore_nic_remote_map){ .device = 1, .size = 4096, .flags = 1 };
	EXPECT_NIC(fd0, ioc(fd0, DRM_IOCTL_CCORE_NIC_REMOTE_MAP, &m), -EINVAL,
		   DRM_CCORE_REASON_FLAGS);
	EXPECT_NIC(fd0, remote_map(fd0, 0, 4096, 0, NULL), -EINVAL,
		   DRM_CCORE_REASON_NIC_NOT_REMOTE);
	EXPECT_NIC(fd0, remote_map(fd0, 2, 4096, 0, NULL), -EINVAL,
		   DRM_CCORE_REASON_NIC_NOT_REMOTE);
	EXPECT_NIC(fd0, remote_map(fd0, 1, 0, 0, NULL), -EINVAL, DRM_CCORE_REASON_NIC_SIZE);
	EXPECT_NIC(fd0, remote_map(fd0, 1, self->h[0].hbm + 1, 0, NULL), -EINVAL,
		   DRM_CCORE_REASON_NIC_SIZE);
	EXPECT_NIC(fd0, remote_map(fd0, 1, 4096, ~0ull - 100, NULL), -EINVAL,
		   DRM_CCORE_REASON_NIC_SIZE);

	/* REMOTE_SEMS */
	EXPECT_NIC(fd0, remote_sems(fd0, rt.sem, 0), -EINVAL, DRM_CCORE_REASON_NIC_SIZE);
	EXPECT_NIC(fd0, remote_sems(fd0, rt.sem, sems + 1), -EINVAL, DRM_CCORE_REASON_NIC_SIZE);
	EXPECT_NIC(fd0, remote_sems(fd0, own_sem, 1), -EINVAL, DRM_CCORE_REASON_NIC_NOT_REMOTE);
	EXPECT_NIC(fd0, remote_sems(fd0, DRM_CCORE_SEM_REF(9, 0, 0), 1), -EINVAL,
		   DRM_CCORE_REASON_NIC_NOT_REMOTE);
	/* a block may not run into the next core */
	EXPECT_NIC(fd0, remote_sems(fd0, DRM_CCORE_SEM_REF(1, 0, sems - 1), 2), -EINVAL,
		   DRM_CCORE_REASON_NIC_NOT_REMOTE);

	/* a fabric holding every node has no NIC */
	if (!ccore_open_first(&all)) {
		EXPECT_NIC(all.fd, remote_map(all.fd, 1, 4096, 0, NULL), -EINVAL,
			   DRM_CCORE_REASON_NIC_NOT_REMOTE);
		EXPECT_NIC(all.fd, nic_take(all.fd, buf, sizeof(buf), &t), -EAGAIN,
			   DRM_CCORE_REASON_NIC_NOTHING);
		close(all.fd);
	}

	/* TAKE */
	EXPECT_NIC(fd0, nic_take(fd0, buf, sizeof(buf), &t), -EAGAIN,
		   DRM_CCORE_REASON_NIC_NOTHING);
	t = (struct drm_ccore_nic_take){ .flags = 1 };
	EXPECT_NIC(fd0, ioc(fd0, DRM_IOCTL_CCORE_NIC_TAKE, &t), -EINVAL, DRM_CCORE_REASON_FLAGS);
	t = (struct drm_ccore_nic_take){ .pad = 1 };
	EXPECT_NIC(fd0, ioc(fd0, DRM_IOCTL_CCORE_NIC_TAKE, &t), -EINVAL, DRM_CCORE_REASON_PAD);

	/* DONE */
	dn = (struct drm_ccore_nic_done){ .ring = rt.ring, .pad = 1 };
	EXPECT_NIC(fd0, ioc(fd0, DRM_IOCTL_CCORE_NIC_DONE, &dn), -EINVAL, DRM_CCORE_REASON_PAD);
	EXPECT_NIC(fd0, nic_done(fd0, rt.ring, 1, 1), -EINVAL, DRM_CCORE_REASON_NIC_STATUS);
	EXPECT_NIC(fd0, nic_done(fd0, rt.ring, 1, -4096), -EINVAL, DRM_CCORE_REASON_NIC_STATUS);
	EXPECT_NIC(fd0, nic_done(fd0, rt.ring, 1, 0), -ENOENT, DRM_CCORE_REASON_NIC_XFER);
	EXPECT_NIC(fd0, nic_done(fd0, 999, 1, 0), -ENOENT, DRM_CCORE_REASON_NIC_XFER);

	/* DELIVER, on host 1 */
#define DELIVER(...) (dl = (struct drm_ccore_nic_deliver){ __VA_ARGS__ }, \
		      ioc(fd1, DRM_IOCTL_CCORE_NIC_DELIVER, &dl))
	EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_SEM, .sem = rt.sem, .pad = 1), -EINVAL,
		   DRM_CCORE_REASON_PAD);
	EXPECT_NIC(fd1, DELIVER(.flags = 0), -EINVAL, DRM_CCORE_REASON_FLAGS);
	EXPECT_NIC(fd1, DELIVER(.flags = 8), -EINVAL, DRM_CCORE_REASON_FLAGS);
	EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_DATA | DRM_CCORE_NIC_F_SET,
				.to = rt.dst, .len = 1, .data = (uintptr_t)buf),
		   -EINVAL, DRM_CCORE_REASON_FLAGS);
	EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_SEM, .sem = rt.sem, .len = 1), -EINVAL,
		   DRM_CCORE_REASON_PAD);
	EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_DATA, .to = rt.dst, .len = 1,
				.data = (uintptr_t)buf, .value = 1),
		   -EINVAL, DRM_CCORE_REASON_PAD);
	EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_DATA, .to = rt.dst,
				.data = (uintptr_t)buf),
		   -EINVAL, DRM_CCORE_REASON_NIC_SIZE);
	/* outside the file's buffers, or running past the end of one */
	EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_DATA, .to = 0x1000, .len = 1,
				.data = (uintptr_t)buf),
		   -EINVAL, DRM_CCORE_REASON_NIC_TARGET);
	EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_DATA, .to = rt.dst + XFER - 1, .len = 2,
				.data = (uintptr_t)buf),
		   -EINVAL, DRM_CCORE_REASON_NIC_TARGET);
	EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_DATA, .to = ~0ull - 1, .len = 4,
				.data = (uintptr_t)buf),
		   -EINVAL, DRM_CCORE_REASON_NIC_TARGET);
	/* host 0's file: the address is in its remote mapping, not its memory */
	EXPECT_NIC(fd0, (dl = (struct drm_ccore_nic_deliver){
				.flags = DRM_CCORE_NIC_F_DATA, .to = rt.remote, .len = 1,
				.data = (uintptr_t)buf },
			 ioc(fd0, DRM_IOCTL_CCORE_NIC_DELIVER, &dl)),
		   -EINVAL, DRM_CCORE_REASON_NIC_TARGET);
	/* semaphores: none, another host's, not this file's */
	EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_SEM, .sem = DRM_CCORE_SEM_REF(9, 0, 0),
				.value = 1),
		   -EINVAL, DRM_CCORE_REASON_SEM_INVALID);
	EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_SEM, .sem = own_sem, .value = 1),
		   -EINVAL, DRM_CCORE_REASON_SEM_INVALID);
	{
		int other = reopen(&self->h[1]);
		uint32_t s;

		ASSERT_LE(0, other);
		ASSERT_EQ(0, sem_alloc(other, 0, 1, &s));
		EXPECT_NIC(fd1, DELIVER(.flags = DRM_CCORE_NIC_F_SEM, .sem = s, .value = 1),
			   -EACCES, DRM_CCORE_REASON_SEM_NOT_USABLE);
		close(other);
	}
	/* a bad pointer writes nothing */
	ASSERT_EQ(-EFAULT, DELIVER(.flags = DRM_CCORE_NIC_F_DATA | DRM_CCORE_NIC_F_SEM,
				   .to = rt.dst, .len = 16, .data = 8, .sem = rt.sem, .value = 1));
	ASSERT_EQ(0, sem_read(fd1, rt.sem));
	ASSERT_EQ(0xee, rt.dst_map[0]);
	/* the good one */
	ASSERT_EQ(0, DELIVER(.flags = DRM_CCORE_NIC_F_DATA | DRM_CCORE_NIC_F_SEM |
				      DRM_CCORE_NIC_F_SET,
			     .to = rt.dst + 8, .len = 4, .data = (uintptr_t)"abcd", .sem = rt.sem,
			     .value = 7));
	ASSERT_EQ(0, memcmp(rt.dst_map + 8, "abcd", 4));
	ASSERT_EQ(7, sem_read(fd1, rt.sem));
#undef DELIVER

	/* descriptors: remote memory is write-only, remote semaphores need a grant */
	{
		struct drm_ccore_desc d = desc_copy(rt.src, rt.remote, 64);
		uint32_t s2;

		EXPECT_NIC(fd0, ring_submit(fd0, rt.ring, &d, 1, 0, NULL), -EINVAL,
			   DRM_CCORE_REASON_DESC_INVALID);
		ASSERT_EQ(0, sem_alloc(fd1, 0, 1, &s2));
		d = desc_signal(desc_copy(rt.remote, rt.src, 64), s2, 1);
		EXPECT_NIC(fd0, ring_submit(fd0, rt.ring, &d, 1, 0, NULL), -EACCES,
			   DRM_CCORE_REASON_DESC_SEM);
	}
}

static int compute_dma(int fd, uint64_t dst, uint64_t src, uint32_t *bad_index)
{
	struct drm_ccore_ce_insn prog[2] = {
		{ .opcode = DRM_CCORE_CE_DMA, .dst = dst, .src = src, .len = 64 },
		{ .opcode = DRM_CCORE_CE_END },
	};
	struct drm_ccore_compute_submit a = {
		.core = 0, .count = 2, .insns = (uintptr_t)prog, .dma_engine = 1, .dma_ring = 2,
		.bad_index = 12345,
	};
	int rc = ioc(fd, DRM_IOCTL_CCORE_COMPUTE_SUBMIT, &a);

	*bad_index = a.bad_index;
	return rc;
}

/*
 * A compute engine's DMA has no NIC: another host's memory, as its dst or
 * its src, is refused naming the instruction.  (It once went through, and
 * the engine wrote to the mapping's offset as a kernel address: an oops.)
 */
TEST_F(hosts, compute_dma_reaches_only_this_host)
{
	int fd0 = self->h[0].fd, fd1 = self->h[1].fd;
	struct drm_ccore_compute_wait w = { .core = 0 };
	uint32_t ring, bad;
	struct route rt;

	route_setup(_metadata, fd0, fd1, &rt, 0);
	ASSERT_EQ(0, ring_create(fd0, 0, 1, 2, 4, 0, DRM_CCORE_RING_F_COMPUTE, &ring));
	ASSERT_EQ(-EINVAL, compute_dma(fd0, rt.remote + 4096, rt.src, &bad));
	ASSERT_EQ(0, bad);
	ASSERT_EQ(-EINVAL, compute_dma(fd0, rt.src, rt.remote, &bad));
	ASSERT_EQ(0, bad);
	/* within this host's memory the same program runs */
	ASSERT_EQ(0, compute_dma(fd0, rt.src, rt.src + 64, &bad));
	w.timeout_ns = deadline_ms(5000);
	ASSERT_EQ(0, ioc(fd0, DRM_IOCTL_CCORE_COMPUTE_WAIT, &w));
	ASSERT_EQ(0, w.status);
	ASSERT_EQ(0, memcmp(rt.src_map, rt.src_map + 64, 64));
}

TEST_F(hosts, another_file_cannot_take_or_report)
{
	int fd0 = self->h[0].fd, fd1 = self->h[1].fd, other;
	struct drm_ccore_nic_take t;
	uint8_t *buf = malloc(XFER);
	struct route rt;

	ASSERT_NE(NULL, buf);
	route_setup(_metadata, fd0, fd1, &rt, 0);
	other = reopen(&self->h[0]);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, route_send(fd0, &rt, 1));
	ASSERT_EQ(1, nic_ready(fd0, 5000));
	ASSERT_EQ(0, nic_ready(other, 0));
	EXPECT_NIC(other, nic_take(other, buf, XFER, &t), -EAGAIN, DRM_CCORE_REASON_NIC_NOTHING);
	ASSERT_EQ(0, nic_take(fd0, buf, XFER, &t));
	EXPECT_NIC(other, nic_done(other, t.ring, t.seq, 0), -ENOENT, DRM_CCORE_REASON_NIC_XFER);
	EXPECT_NIC(fd0, nic_done(fd0, t.ring, t.seq + 1, 0), -ENOENT, DRM_CCORE_REASON_NIC_XFER);
	ASSERT_EQ(0, nic_deliver(fd1, &t, buf));
	ASSERT_EQ(0, nic_done(fd0, t.ring, t.seq, 0));
	ASSERT_EQ(0, ring_drain(fd0, rt.ring, 1, 5000));
	ASSERT_TRUE(check_pattern(rt.dst_map, XFER, 18));
	close(other);
	free(buf);
}

/* A file closed with a transfer taken and one posted: close returns, the rings are free. */
TEST_F(hosts, close_with_transfers_outstanding)
{
	int fd1 = self->h[1].fd, fd;
	struct drm_ccore_nic_take t;
	uint8_t *buf = malloc(XFER);
	struct route rt[2];
	uint32_t h;
	int64_t start;
	int i;

	ASSERT_NE(NULL, buf);
	fd = reopen(&self->h[0]);
	ASSERT_LE(0, fd);
	for (i = 0; i < 2; i++) {
		route_setup(_metadata, fd, fd1, &rt[i], i);
		ASSERT_EQ(0, route_send(fd, &rt[i], 1));
	}
	ASSERT_EQ(1, nic_ready(fd, 5000));
	ASSERT_EQ(0, nic_take(fd, buf, XFER, &t));
	/* the other ring parks too */
	for (i = 0; i < 50 && nic_ready(fd, 100) != 1; i++)
		;
	ASSERT_EQ(1, nic_ready(fd, 0));
	for (i = 0; i < 2; i++)
		munmap(rt[i].src_map, XFER);
	start = now_ns();
	close(fd);
	/* well under the driver's 10 s abort wait: nothing waited for a proxy */
	ASSERT_GT(2 * NSEC_PER_SEC, now_ns() - start);
	TH_LOG("closed with one transfer taken, one posted, in %lld us",
	       (long long)((now_ns() - start) / 1000));
	/* both rings are free again */
	fd = reopen(&self->h[0]);
	ASSERT_LE(0, fd);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, ring_create(fd, 0, 0, i, 8, 0, 0, &h));
	close(fd);
	ASSERT_EQ(0, sem_read(fd1, rt[0].sem));
	free(buf);
}

TEST_HARNESS_MAIN
