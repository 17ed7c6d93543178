// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC in the device model (model/ccm_nic.c), two hosts in one process:
 * fabric A holds node 0 ("here=0"), fabric B node 1 ("here=1"), and a
 * test proxy thread carries what A's engines post -- the bytes into B's
 * memory, then the semaphore change -- as a network proxy would.  A
 * COPY into another host's memory lands there bit for bit and its signal
 * wakes the CC core waiting there; a ring keeps its order across hosts;
 * a send the proxy fails is a DMA error naming the NIC and the next job
 * runs; what the NIC cannot do (read another host's memory, reduce into
 * it, a program touching its semaphores) is refused when translated,
 * another host's memory, rings and cores cannot be used here, and a ring
 * parked on the NIC stops when aborted, a late report of its transfer then
 * ending nothing else.
 */
#include "tsim.h"
#include "sim/sim.h"

#include <pthread.h>

#define LEN 8192
#define PACKET 512

static struct tsim a, b;

/* The test's network: A's proxy, carrying A's device 0 core 0 sends to B. */
struct proxy {
	pthread_t tid;
	bool stop;			/* atomic */
	unsigned int fail_at;		/* 1 + the send to fail (-EIO), 0: none */
	unsigned int sent;
	uint32_t sems[64];		/* the semaphore of each send, in order */
};

static struct proxy px;

static bool work_or_stop(void *arg)
{
	(void)arg;
	return __atomic_load_n(&px.stop, __ATOMIC_ACQUIRE) || ccm_nic_pending(a.f, 0, 0);
}

static void *proxy_run(void *arg)
{
	(void)arg;
	for (;;) {
		struct ccm_nic_xfer x;
		int status = 0;

		ccm_fabric_wait(a.f, work_or_stop, NULL, ccm_now_ns() + 100000000ll);
		if (__atomic_load_n(&px.stop, __ATOMIC_ACQUIRE))
			return NULL;
		if (ccm_nic_take(a.f, 0, 0, &x))
			continue;
		px.sent++;
		if (px.fail_at == px.sent) {
			status = -EIO;
		} else {
			/* the test's remote addresses are B's host pointers */
			if (x.data)
				memcpy((void *)(uintptr_t)x.to, x.src, x.len);
			if (x.has_sem && ccm_nic_arrived(b.f, x.sem, x.value, x.set))
				status = -EINVAL;
			if (x.has_sem && px.sent <= 64)
				px.sems[px.sent - 1] = x.sem;
		}
		ccm_nic_done(a.f, &x, status);
	}
}

static bool core_faulted(void *arg)
{
	struct ccm_cc_info info;

	(void)arg;
	ccm_cc_info(a.f, 0, 0, &info);
	return info.state == CCM_CC_FAULT;
}

static void hosts_open(void)
{
	tsim_open(&a, "nodes=2,devices=1,cores=1,workers=1,here=0");
	tsim_open(&b, "nodes=2,devices=1,cores=1,workers=1,here=1");
	memset(&px, 0, sizeof(px));
	ASSERT_EQ(pthread_create(&px.tid, NULL, proxy_run, NULL), 0);
}

static void hosts_close(void)
{
	__atomic_store_n(&px.stop, true, __ATOMIC_RELEASE);
	ccm_fabric_nudge(a.f);
	pthread_join(px.tid, NULL);
	tsim_close(&a);
	tsim_close(&b);
}

/* @n bytes of B's device 1 memory, mapped into A's device 0 as another host's. */
static uint8_t *remote_buf(size_t n, uint64_t *va_on_a)
{
	uint32_t h;
	uint64_t va;
	uint8_t *p = tsim_bo(b.dev[1], n, &h, &va);

	ASSERT_EQ(sim_remote_map(a.dev[0], 1, n, (uint64_t)(uintptr_t)p, va_on_a), 0);
	return p;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed * 7 + (i >> 8));
}

TEST(a_copy_to_another_host_lands_and_its_signal_wakes_the_core_there)
{
	uint32_t h, ring, sem, prog_a, prog_b;
	uint64_t src_va, job_b;
	uint64_t dst_va;
	uint8_t *src, *dst;
	struct ccm_ring_stats st;
	struct drm_ccore_desc d;

	hosts_open();
	src = tsim_bo(a.dev[0], LEN, &h, &src_va);
	fill(src, LEN, 1);
	dst = remote_buf(LEN, &dst_va);
	sem = tsim_sem(b.dev[1], 0, 1);
	ASSERT_EQ(sim_remote_sems(a.dev[0], sem, 1), 0);
	/* B's core waits for the bytes' signal */
	prog_b = tsim_load(b.dev[1], 0, "wait sem(%u,%u,%u), 1\nret\n", S3(sem));
	job_b = tsim_submit(b.dev[1], prog_b, 10000);
	d = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY, .flags = DRM_CCORE_DESC_F_SIGNAL,
				     .len = LEN, .dst = dst_va, .src0 = src_va,
				     .signal_sem = sem, .signal_value = 1 };
	ring = tsim_ring(a.dev[0], 0, 1, 3, 4, PACKET);
	ASSERT_EQ(ccore_dev_ring_submit(a.dev[0], ring, &d, 1, 0), 0);
	prog_a = tsim_load(a.dev[0], 0, "start ring(1,3), 1\nrwait ring(1,3)\nret\n");
	ASSERT_EQ(tsim_run(a.dev[0], prog_a), 0);
	ASSERT_EQ(tsim_wait(b.dev[1], job_b), 0);
	ASSERT_EQ(memcmp(dst, src, LEN), 0);
	ASSERT_EQ(tsim_sem_value(b.dev[1], sem), 1);
	ASSERT_EQ(ccm_ring_stats(a.f, 0, 0, 1, 3, &st), 0);
	ASSERT_U64_EQ(st.completed, 1);
	ASSERT_U64_EQ(st.bytes, LEN);
	ASSERT_U64_EQ(st.errors, 0);
	ASSERT_TRUE(ccm_ring_idle(a.f, 0, 0, 1, 3));
	hosts_close();
}

TEST(a_ring_keeps_its_order_across_hosts)
{
	enum { N = 12 };
	uint32_t h, ring, sem[N], prog_a;
	uint64_t src_va;
	uint64_t dst_va;
	struct drm_ccore_desc d[N];
	uint8_t *src, *dst;

	hosts_open();
	src = tsim_bo(a.dev[0], N * LEN, &h, &src_va);
	fill(src, N * LEN, 2);
	dst = remote_buf(N * LEN, &dst_va);
	sem[0] = tsim_sem(b.dev[1], 0, N);
	ASSERT_EQ(sim_remote_sems(a.dev[0], sem[0], N), 0);
	/* block i, then semaphore i: the last one a SEM_WRITE that sets it */
	for (unsigned int i = 0; i < N; i++) {
		sem[i] = sem[0] + i;
		d[i] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY,
						.flags = DRM_CCORE_DESC_F_SIGNAL, .len = LEN,
						.dst = dst_va + i * LEN, .src0 = src_va + i * LEN,
						.signal_sem = sem[i], .signal_value = i + 1 };
	}
	d[N - 1] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_SEM_WRITE,
					    .flags = DRM_CCORE_DESC_F_SEM_SET,
					    .dst = sem[N - 1], .value = 77 };
	ring = tsim_ring(a.dev[0], 0, 1, 3, N, PACKET);
	ASSERT_EQ(ccore_dev_ring_submit(a.dev[0], ring, d, N, 0), 0);
	prog_a = tsim_load(a.dev[0], 0, "start ring(1,3), %u\nrwait ring(1,3)\nret\n", N);
	ASSERT_EQ(tsim_run(a.dev[0], prog_a), 0);
	ASSERT_EQ(memcmp(dst, src, (N - 1) * LEN), 0);
	for (unsigned int i = 0; i + 1 < N; i++) {
		ASSERT_EQ(px.sems[i], sem[i]);
		ASSERT_EQ(tsim_sem_value(b.dev[1], sem[i]), i + 1);
	}
	ASSERT_EQ(px.sems[N - 1], sem[N - 1]);
	ASSERT_EQ(tsim_sem_value(b.dev[1], sem[N - 1]), 77);
	ASSERT_EQ(px.sent, N);
	hosts_close();
}

TEST(a_send_the_nic_fails_is_a_dma_error_and_the_next_job_runs)
{
	uint32_t h, ring, sem, prog_a;
	uint64_t src_va, job;
	uint64_t dst_va;
	struct drm_ccore_desc d[2];
	struct ccm_ring_stats st;
	struct ccm_cc_info info;
	uint8_t *src, *dst;
	int status;

	hosts_open();
	src = tsim_bo(a.dev[0], 2 * LEN, &h, &src_va);
	fill(src, 2 * LEN, 3);
	dst = remote_buf(2 * LEN, &dst_va);
	sem = tsim_sem(b.dev[1], 0, 1);
	ASSERT_EQ(sim_remote_sems(a.dev[0], sem, 1), 0);
	for (unsigned int i = 0; i < 2; i++)
		d[i] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY,
						.flags = DRM_CCORE_DESC_F_SIGNAL, .len = LEN,
						.dst = dst_va + i * LEN, .src0 = src_va + i * LEN,
						.signal_sem = sem, .signal_value = 1 };
	ring = tsim_ring(a.dev[0], 0, 1, 3, 2, PACKET);
	ASSERT_EQ(ccore_dev_ring_submit(a.dev[0], ring, d, 2, 0), 0);
	prog_a = tsim_load(a.dev[0], 0, "start ring(1,3), 2\nrwait ring(1,3)\nret\n");
	px.fail_at = 1;
	job = tsim_submit(a.dev[0], prog_a, 10000);
	ASSERT_EQ(ccm_fabric_wait(a.f, core_faulted, NULL, ccm_now_ns() + 10 * TSIM_SEC), 0);
	ccm_cc_info(a.f, 0, 0, &info);
	ASSERT_STR_CONTAINS(info.fault, "DMA error on device 0 core 0 engine 1 ring 3 descriptor 0: the NIC could not send it to its host (error -5)");
	status = tsim_wait(a.dev[0], job);
	ASSERT_EQ(status, -EIO);
	ASSERT_EQ(ccm_ring_stats(a.f, 0, 0, 1, 3, &st), 0);
	ASSERT_U64_EQ(st.errors, 1);
	ASSERT_U64_EQ(st.discarded, 1);
	ASSERT_EQ(tsim_sem_value(b.dev[1], sem), 0);
	/* collecting the failed job reset the core: the program runs again, whole */
	ASSERT_EQ(tsim_run(a.dev[0], prog_a), 0);
	ASSERT_EQ(memcmp(dst, src, 2 * LEN), 0);
	ASSERT_EQ(tsim_sem_value(b.dev[1], sem), 2);
	hosts_close();
}

struct ring_at {
	struct ccm_fabric *f;
	uint32_t engine, ring;
};

static bool ring_at_idle(void *arg)
{
	const struct ring_at *w = arg;

	return ccm_ring_idle(w->f, 0, 0, w->engine, w->ring);
}

static bool a_posted(void *arg)
{
	(void)arg;
	return ccm_nic_pending(a.f, 0, 0);
}

/*
 * No proxy thread: the test takes and reports by hand.  A ring parked on
 * the NIC (taken, not reported) stops when aborted, as a driver's close
 * aborts it; the proxy's late report of that transfer then does nothing to
 * the ring's next post, which only its own report ends.  Before, the abort
 * never took (the engine skipped parked rings) and a late report could end
 * whatever the ring ran next.
 */
TEST(a_parked_ring_stops_on_abort_and_a_late_done_does_nothing)
{
	struct ring_at w = { .engine = 1, .ring = 3 };
	struct ccm_nic_xfer old, now;
	struct ccm_ring_stats st;
	struct drm_ccore_desc d;
	uint64_t src_va, dst_va;
	uint32_t h, ring, sem;
	uint8_t *src, *dst;

	tsim_open(&a, "nodes=2,devices=1,cores=1,workers=1,here=0");
	tsim_open(&b, "nodes=2,devices=1,cores=1,workers=1,here=1");
	w.f = a.f;
	src = tsim_bo(a.dev[0], LEN, &h, &src_va);
	fill(src, LEN, 5);
	dst = remote_buf(LEN, &dst_va);
	sem = tsim_sem(b.dev[1], 0, 1);
	ASSERT_EQ(sim_remote_sems(a.dev[0], sem, 1), 0);
	d = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY, .flags = DRM_CCORE_DESC_F_SIGNAL,
				     .len = LEN, .dst = dst_va, .src0 = src_va,
				     .signal_sem = sem, .signal_value = 1 };
	ring = tsim_ring(a.dev[0], 0, 1, 3, 4, PACKET);
	ASSERT_EQ(ccore_dev_ring_submit(a.dev[0], ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	ASSERT_EQ(ccm_fabric_wait(a.f, a_posted, NULL, ccm_now_ns() + 10 * TSIM_SEC), 0);
	ASSERT_EQ(ccm_nic_take(a.f, 0, 0, &old), 0);
	ASSERT_EQ(ccm_ring_abort(a.f, 0, 0, 1, 3), 0);
	ASSERT_EQ(ccm_fabric_wait(a.f, ring_at_idle, &w, ccm_now_ns() + 5 * TSIM_SEC), 0);
	ASSERT_EQ(ccm_ring_stats(a.f, 0, 0, 1, 3, &st), 0);
	ASSERT_U64_EQ(st.discarded, 1);
	/* the same descriptor again: a new post, taken */
	ASSERT_EQ(ccore_dev_ring_submit(a.dev[0], ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	ASSERT_EQ(ccm_fabric_wait(a.f, a_posted, NULL, ccm_now_ns() + 10 * TSIM_SEC), 0);
	ASSERT_EQ(ccm_nic_take(a.f, 0, 0, &now), 0);
	ASSERT_NE(now.gen, old.gen);
	/* the first transfer's late report: the ring stays parked */
	ccm_nic_done(a.f, &old, 0);
	ASSERT_EQ(ccm_fabric_wait(a.f, ring_at_idle, &w, ccm_now_ns() + TSIM_SEC / 10),
		  -ETIMEDOUT);
	ASSERT_EQ(ccm_ring_stats(a.f, 0, 0, 1, 3, &st), 0);
	ASSERT_U64_EQ(st.completed, 0);
	/* its own report ends it (the test carried nothing: the bytes stay) */
	ccm_nic_done(a.f, &now, 0);
	ASSERT_EQ(ccm_fabric_wait(a.f, ring_at_idle, &w, ccm_now_ns() + 10 * TSIM_SEC), 0);
	ASSERT_EQ(ccm_ring_stats(a.f, 0, 0, 1, 3, &st), 0);
	ASSERT_U64_EQ(st.completed, 1);
	ASSERT_U64_EQ(st.errors, 0);
	ASSERT_EQ(dst[0], 0);
	tsim_close(&a);
	tsim_close(&b);
}

TEST(what_the_nic_cannot_do_is_refused_naming_why)
{
	uint32_t h, ring, sem, own_sem, bad;
	uint64_t src_va, dst_va;
	uint64_t rdst_va;
	struct drm_ccore_desc d;

	hosts_open();
	tsim_bo(a.dev[0], LEN, &h, &src_va);
	tsim_bo(a.dev[0], LEN, &h, &dst_va);
	remote_buf(LEN, &rdst_va);
	sem = tsim_sem(b.dev[1], 0, 1);
	own_sem = tsim_sem(a.dev[0], 0, 1);
	ring = tsim_ring(a.dev[0], 0, 1, 3, 4, PACKET);
	/* reading another host's memory */
	d = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY, .len = LEN, .dst = dst_va,
				     .src0 = rdst_va };
	EXPECT_ERR(ccore_dev_ring_submit(a.dev[0], ring, &d, 1, 0), -EINVAL,
		   "src0 is on device 1 of another host; only a COPY's dst may be");
	/* reducing into it */
	d = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_REDUCE, .dtype = DRM_CCORE_DTYPE_F32,
				     .redop = DRM_CCORE_REDOP_SUM, .len = LEN, .dst = rdst_va,
				     .src0 = src_va, .src1 = src_va };
	EXPECT_ERR(ccore_dev_ring_submit(a.dev[0], ring, &d, 1, 0), -EINVAL,
		   "dst is on device 1 of another host");
	/* its semaphores, not granted */
	d = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_SEM_WRITE, .dst = sem, .value = 1 };
	EXPECT_ERR(ccore_dev_ring_submit(a.dev[0], ring, &d, 1, 0), -EACCES,
		   "is not a semaphore this context allocated");
	ASSERT_EQ(sim_remote_sems(a.dev[0], sem, 1), 0);
	/* a local copy signalling there: two hosts in one descriptor */
	d = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY, .flags = DRM_CCORE_DESC_F_SIGNAL,
				     .len = LEN, .dst = dst_va, .src0 = src_va,
				     .signal_sem = sem, .signal_value = 1 };
	EXPECT_ERR(ccore_dev_ring_submit(a.dev[0], ring, &d, 1, 0), -EINVAL,
		   "only a COPY to that host may signal there");
	/* a SEM_WRITE there with its signal there too */
	d = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_SEM_WRITE, .dst = sem, .value = 1,
				     .flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = sem,
				     .signal_value = 1 };
	EXPECT_ERR(ccore_dev_ring_submit(a.dev[0], ring, &d, 1, 0), -EINVAL,
		   "only a COPY to that host may signal there");
	/* a program changing another host's semaphore, even one granted */
	ASSERT_EQ(tsim_try_load(a.dev[0], 0, &bad, "add sem(%u,%u,%u), 1\nret\n", S3(sem)),
		  -EINVAL);
	ASSERT_EQ(bad, 0);
	ASSERT_STR_CONTAINS(ccore_last_error(),
			    "a program reaches another host's semaphores only through descriptors");
	/* the same program on its own semaphore loads */
	tsim_load(a.dev[0], 0, "add sem(%u,%u,%u), 1\nret\n", S3(own_sem));
	hosts_close();
}

/*
 * A compute engine's DMA has no NIC: another host's memory, as its dst or
 * its src, is refused naming the instruction (it once went through, and
 * the engine wrote to the mapping's offset as a host address).
 */
TEST(a_compute_dma_reaches_only_this_host_s_memory)
{
	struct drm_ccore_ce_insn prog[2] = { { .opcode = DRM_CCORE_CE_DMA, .len = 64 },
					     { .opcode = DRM_CCORE_CE_END } };
	uint64_t local_va, rdst_va;
	uint32_t h, bad = 0;

	hosts_open();
	tsim_bo(a.dev[0], LEN, &h, &local_va);
	remote_buf(LEN, &rdst_va);
	ASSERT_EQ(ccore_dev_ring_create(a.dev[0], 0, 1, 2, 4, 0, DRM_CCORE_RING_F_COMPUTE, &h), 0);
	prog[0].dst = rdst_va + 4096;
	prog[0].src = local_va;
	EXPECT_ERR(ccore_dev_compute_submit(a.dev[0], 0, prog, 2, 1, 2, 0, &bad), -EINVAL,
		   "instruction 0 (dma): dst");
	ASSERT_STR_CONTAINS(ccore_last_error(),
			    "is on device 1 of another host; a compute DMA reaches only this host's memory");
	ASSERT_EQ(bad, 0);
	prog[0].dst = local_va;
	prog[0].src = rdst_va;
	EXPECT_ERR(ccore_dev_compute_submit(a.dev[0], 0, prog, 2, 1, 2, 0, &bad), -EINVAL,
		   "instruction 0 (dma): src");
	/* the same program within this host's memory runs */
	prog[0].src = local_va + 64;
	ASSERT_EQ(ccore_dev_compute_submit(a.dev[0], 0, prog, 2, 1, 2, 0, &bad), 0);
	hosts_close();
}

/* The lookup every local access uses never returns another host's memory. */
TEST(only_the_nic_aware_lookup_finds_another_host_s_memory)
{
	static u8 bytes[8192];
	struct ccm_vm vm;
	u64 local, far, none;

	ccm_vm_init(&vm);
	ASSERT_EQ(ccm_vm_map(&vm, sizeof(bytes), bytes, 0, bytes, &local), 0);
	ASSERT_EQ(ccm_vm_map_remote(&vm, 8192, 1, 0x10000, &far), 0);
	/* no bytes here is what marks another host's mapping: not for ccm_vm_map */
	ASSERT_EQ(ccm_vm_map(&vm, 4096, NULL, 0, NULL, &none), -EINVAL);
	ASSERT_NE(ccm_vm_find(&vm, local + 8, 64), NULL);
	ASSERT_EQ(ccm_vm_find(&vm, local + 8, 64)->host, bytes);
	ASSERT_EQ(ccm_vm_find(&vm, far + 8, 64), NULL);
	ASSERT_NE(ccm_vm_find_any(&vm, far + 8, 64), NULL);
	ASSERT_EQ(ccm_vm_find_any(&vm, far + 8, 64)->remote, 0x10000);
	ASSERT_EQ(ccm_vm_find_any(&vm, far + 8192, 1), NULL);
	ccm_vm_fini(&vm);
}

TEST(another_host_s_devices_cannot_be_used_here)
{
	uint32_t h;
	uint64_t va;
	uint64_t rva;
	struct ccm_err err = { 0 };

	hosts_open();
	EXPECT_ERR(ccore_dev_bo_create(a.dev[1], LEN, &h, &va), -EINVAL,
		   "device 1 is on another host (node 1; this host has node 0): its memory is there");
	ASSERT_EQ(ccm_ring_claim(a.f, 1, 0, 0, 0, 4, PACKET, 0, 0, &err, &err), -EINVAL);
	ASSERT_STR_CONTAINS(err.msg, "its DMA rings are there");
	ASSERT_EQ(ccm_sem_alloc(a.f, 1, 0, 1, &err, &h, &err), -EINVAL);
	ASSERT_STR_CONTAINS(err.msg, "its semaphores are there");
	EXPECT_ERR(sim_remote_map(a.dev[0], 0, LEN, 0x1000, &rva), -EINVAL,
		   "device 0 is not on another host");
	EXPECT_ERR(sim_remote_sems(a.dev[0], DRM_CCORE_SEM_REF(0, 0, 5), 1), -EINVAL,
		   "not a block of one core of a device on another host");
	hosts_close();
}

TEST(here_is_checked)
{
	struct ccore_system *sys;

	EXPECT_ERR(ccore_system_open("sim", "nodes=2,devices=1,here=2", &sys), -EINVAL,
		   "here=2: the fabric has nodes 0..1");
	EXPECT_ERR(ccore_system_open("sim", "nodes=2,devices=1,here=1,timed=1", &sys), -EINVAL,
		   "the timed model runs every node in one process");
}


