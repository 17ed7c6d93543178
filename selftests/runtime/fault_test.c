// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection in the device model: an injected DMA error fails a
 * descriptor (nothing moves, nothing is signalled, the ring stops and goes
 * idle) and faults every running job of that core with -EIO; an injected
 * hang keeps a CC core busy until the job timeout resets it.  Each job
 * completes exactly once and the cores run the next job correctly.  Every
 * case runs inline (workers=0) and on the worker pool.
 */
#include "tsim.h"
#include "ccore_firmware.h"

#define BLOCK 1024
#define PACKET 512

static struct tsim t;
static struct ccore_dev *d0;

static void open_sim(unsigned int workers)
{
	char cfg[128];

	if (workers)
		snprintf(cfg, sizeof(cfg), "devices=1,cores=2,workers=%u", workers);
	else
		snprintf(cfg, sizeof(cfg), "devices=1,cores=2,workers=0,seed=%llu",
			 (unsigned long long)tsim_seed());
	tsim_open(&t, cfg);
	d0 = t.dev[0];
}

/* --- waiting for a CC core of device 0 to reach a state ------------------ */
struct cc_cond {
	struct ccm_fabric *f;
	unsigned int cc;
	bool (*ok)(const struct ccm_cc_info *info);
};

static bool cc_cond_met(void *arg)
{
	const struct cc_cond *c = arg;
	struct ccm_cc_info info;

	ccm_cc_info(c->f, 0, c->cc, &info);
	return c->ok(&info);
}

static struct ccm_cc_info wait_cc(struct ccm_fabric *f, unsigned int cc,
				  bool (*ok)(const struct ccm_cc_info *))
{
	struct cc_cond c = { .f = f, .cc = cc, .ok = ok };
	struct ccm_cc_info info;

	if (ccm_fabric_wait(f, cc_cond_met, &c, ccm_now_ns() + 10 * TSIM_SEC)) {
		ccm_cc_info(f, 0, cc, &info);
		FAIL("CC core %u never reached the state waited for (state %d, pc %u, depth %u)",
		     cc, info.state, info.pc, info.depth);
	}
	ccm_cc_info(f, 0, cc, &info);
	return info;
}

static bool faulted(const struct ccm_cc_info *i)
{
	return i->state == CCM_CC_FAULT;
}

/* blocked inside a job (the dispatcher called it) */
static bool blocked_in_job(const struct ccm_cc_info *i)
{
	return i->state == CCM_CC_WAITING && i->depth == 1;
}

static bool hung(const struct ccm_cc_info *i)
{
	return i->hangs > 0;
}

static void assert_bytes(const uint8_t *p, uint8_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			FAIL("byte %zu is 0x%02x, expected 0x%02x", i, p[i], v);
}

/*
 * A ring on device 0, core 0, engine 1, ring 3 of @n COPY descriptors, the
 * i-th copying block i of src to dst and adding 1 to @sem.
 */
struct copy_ring {
	uint8_t *src, *dst;
	uint32_t ring, sem;
};

static void copy_ring(struct copy_ring *r, unsigned int n)
{
	struct drm_ccore_desc d[4];
	uint32_t a, b;
	uint64_t va, vb;

	r->sem = tsim_sem(d0, 0, 1);
	r->src = tsim_bo(d0, n * BLOCK, &a, &va);
	r->dst = tsim_bo(d0, n * BLOCK, &b, &vb);
	memset(r->src, 0x5a, n * BLOCK);
	memset(r->dst, 0x11, n * BLOCK);
	for (unsigned int i = 0; i < n; i++)
		d[i] = (struct drm_ccore_desc){
			.op = DRM_CCORE_DESC_COPY, .flags = DRM_CCORE_DESC_F_SIGNAL,
			.len = BLOCK, .dst = vb + i * BLOCK, .src0 = va + i * BLOCK,
			.signal_sem = r->sem, .signal_value = 1,
		};
	r->ring = tsim_ring(d0, 0, 1, 3, 4, PACKET);
	ASSERT_EQ(ccore_dev_ring_submit(d0, r->ring, d, n, 0), 0);
}

/* A program on CC core @cc that starts @n descriptors of ring(1,3) and waits. */
static uint32_t start_prog(unsigned int cc, unsigned int n)
{
	return tsim_load(d0, cc, "start ring(1,3), %u\nrwait ring(1,3)\nret\n", n);
}

/* ring(1,3)'s counters: only completed descriptors moved bytes; idle. */
static void expect_ring(uint64_t started, uint64_t completed, uint64_t errors,
			uint64_t discarded)
{
	struct ccm_ring_stats st;

	ASSERT_EQ(ccm_ring_stats(t.f, 0, 0, 1, 3, &st), 0);
	ASSERT_U64_EQ(st.started, started);
	ASSERT_U64_EQ(st.completed, completed);
	ASSERT_U64_EQ(st.errors, errors);
	ASSERT_U64_EQ(st.discarded, discarded);
	ASSERT_U64_EQ(st.bytes, completed * BLOCK);
	ASSERT_U64_EQ(st.packets, completed * (BLOCK / PACKET));
	ASSERT_TRUE(ccm_ring_idle(t.f, 0, 0, 1, 3));
}

static void dma_error_fails_copy(unsigned int workers)
{
	struct ccm_err err = { 0 };
	struct ccm_cc_info info;
	struct copy_ring r;
	uint64_t job;
	uint32_t p;

	open_sim(workers);
	copy_ring(&r, 1);
	p = start_prog(0, 1);
	ASSERT_EQ(ccm_inject_dma_error(t.f, 0, 0, &err), 0);
	ASSERT_EQ(ccm_inject_dma_error(t.f, 0, 0, &err), 0);	/* one-shot: once */
	job = tsim_submit(d0, p, 0);

	info = wait_cc(t.f, 0, faulted);
	ASSERT_STR_CONTAINS(info.fault, "DMA error on device 0 core 0 engine 1 ring 3 descriptor 0");
	ASSERT_EQ(info.dma_errors, 1);
	ccore_test_log("fault: %s", info.fault);
	ASSERT_EQ(tsim_wait(d0, job), -EIO);

	/* nothing moved, nothing signalled, the ring counted one error */
	assert_bytes(r.dst, 0x11, BLOCK);
	ASSERT_EQ(tsim_sem_value(d0, r.sem), 0);
	expect_ring(1, 0, 1, 0);

	/* collecting the -EIO job reset the faulted core */
	ccm_cc_info(t.f, 0, 0, &info);
	ASSERT_NE(info.state, CCM_CC_FAULT);
	ASSERT_EQ(info.fault[0], '\0');
	ASSERT_U64_EQ(info.resets, 1);

	/* the fault fired once: the same job now copies and signals */
	ASSERT_EQ(tsim_run(d0, p), 0);
	assert_bytes(r.dst, 0x5a, BLOCK);
	ASSERT_EQ(tsim_sem_value(d0, r.sem), 1);
	expect_ring(2, 1, 1, 0);
	ASSERT_EQ(ccore_dev_program_free(d0, p), 0);	/* no job still pending */
	tsim_close(&t);
}

TEST(dma_error_fails_copy_inline)
{
	dma_error_fails_copy(0);
}

TEST(dma_error_fails_copy_workers)
{
	dma_error_fails_copy(2);
}

/* The error hits descriptor 1 of a START of 2: 2 is discarded, the ring
 * goes idle and its next STARTs run from where the host expects. */
static void dma_error_stops_ring(unsigned int workers)
{
	struct drm_ccore_ring_stats ust;
	struct ccm_cc_info info;
	struct copy_ring r;
	uint32_t p1, p2;
	uint64_t job;

	open_sim(workers);
	copy_ring(&r, 3);
	p1 = start_prog(0, 1);
	p2 = start_prog(0, 2);
	ASSERT_EQ(tsim_run(d0, p1), 0);
	assert_bytes(r.dst, 0x5a, BLOCK);

	ASSERT_EQ(ccm_inject_dma_error(t.f, 0, 0, NULL), 0);
	job = tsim_submit(d0, p2, 0);
	info = wait_cc(t.f, 0, faulted);
	ASSERT_STR_CONTAINS(info.fault, "engine 1 ring 3 descriptor 1");
	ASSERT_EQ(tsim_wait(d0, job), -EIO);
	assert_bytes(r.dst + BLOCK, 0x11, 2 * BLOCK);
	ASSERT_EQ(tsim_sem_value(d0, r.sem), 1);
	expect_ring(3, 1, 1, 1);
	ASSERT_EQ(ccore_dev_ring_stats(d0, r.ring, &ust), 0);
	ASSERT_U64_EQ(ust.errors, 1);

	/* reused as built: descriptor 0, then 1 and 2 */
	memset(r.dst, 0x22, BLOCK);
	ASSERT_EQ(tsim_run(d0, p1), 0);
	assert_bytes(r.dst, 0x5a, BLOCK);
	assert_bytes(r.dst + BLOCK, 0x11, 2 * BLOCK);
	ASSERT_EQ(tsim_run(d0, p2), 0);
	assert_bytes(r.dst, 0x5a, 3 * BLOCK);
	ASSERT_EQ(tsim_sem_value(d0, r.sem), 4);
	expect_ring(6, 4, 1, 1);
	/* idle, but p1 and p2 start it: they go first */
	ASSERT_EQ(ccore_dev_ring_destroy(d0, r.ring), -EBUSY);
	ASSERT_EQ(ccore_dev_program_free(d0, p1), 0);
	ASSERT_EQ(ccore_dev_program_free(d0, p2), 0);
	ASSERT_EQ(ccore_dev_ring_destroy(d0, r.ring), 0);
	tsim_close(&t);
}

TEST(dma_error_stops_ring_inline)
{
	dma_error_stops_ring(0);
}

TEST(dma_error_stops_ring_workers)
{
	dma_error_stops_ring(2);
}

/* Every CC core of the failing core that runs a job faults; CC cores of
 * other cores, and the next jobs, are not affected. */
static void dma_error_faults_core_jobs(unsigned int workers)
{
	struct ccm_cc_info info;
	struct copy_ring r;
	uint32_t w0, w1, p, waiter0, waiter1;
	uint64_t j0, j1, job;

	open_sim(workers);
	copy_ring(&r, 1);
	w0 = tsim_sem(d0, 0, 1);
	w1 = tsim_sem(d0, 1, 1);
	waiter0 = tsim_load(d0, 1, "wait " SEMF ", 1\nret\n", S3(w0));	/* core 0 */
	waiter1 = tsim_load(d0, 2, "wait " SEMF ", 1\nret\n", S3(w1));	/* core 1 */
	j0 = tsim_submit(d0, waiter0, 0);
	j1 = tsim_submit(d0, waiter1, 0);
	wait_cc(t.f, 1, blocked_in_job);
	wait_cc(t.f, 2, blocked_in_job);

	p = start_prog(0, 1);
	ASSERT_EQ(ccm_inject_dma_error(t.f, 0, 0, NULL), 0);
	job = tsim_submit(d0, p, 0);
	info = wait_cc(t.f, 1, faulted);
	ASSERT_STR_CONTAINS(info.fault, "DMA error on device 0 core 0 engine 1 ring 3 descriptor 0");
	ASSERT_EQ(tsim_wait(d0, job), -EIO);
	ASSERT_EQ(tsim_wait(d0, j0), -EIO);
	ccm_cc_info(t.f, 0, 1, &info);
	ASSERT_U64_EQ(info.dma_errors, 1);

	/* core 1's job goes on */
	ccm_cc_info(t.f, 0, 2, &info);
	ASSERT_NE(info.state, CCM_CC_FAULT);
	ASSERT_U64_EQ(info.dma_errors, 0);
	tsim_sem_set(d0, w1, 1);
	ASSERT_EQ(tsim_wait(d0, j1), 0);

	/* both faulted CC cores run their next jobs */
	tsim_sem_set(d0, w0, 1);
	ASSERT_EQ(tsim_run(d0, waiter0), 0);
	ASSERT_EQ(tsim_run(d0, p), 0);
	assert_bytes(r.dst, 0x5a, BLOCK);
	tsim_close(&t);
}

TEST(dma_error_faults_every_job_of_the_core_inline)
{
	dma_error_faults_core_jobs(0);
}

TEST(dma_error_faults_every_job_of_the_core_workers)
{
	dma_error_faults_core_jobs(2);
}

static void cc_hang_times_out(unsigned int workers)
{
	struct ccm_err err = { 0 };
	struct ccm_cc_info info;
	uint32_t s, p;
	uint64_t job;
	int status;

	open_sim(workers);
	s = tsim_sem(d0, 0, 1);
	p = tsim_load(d0, 0, "add " SEMF ", 1\nret\n", S3(s));
	ASSERT_EQ(ccm_inject_cc_hang(t.f, 0, 0, &err), 0);
	job = tsim_submit(d0, p, 300);

	info = wait_cc(t.f, 0, hung);
	ASSERT_EQ(info.state, CCM_CC_RUNNING);
	ASSERT_EQ(info.depth, 1);
	/* a host wait shorter than the job's timeout leaves it hung */
	ASSERT_EQ(ccore_dev_job_wait(d0, job, 10000000, &status), -ETIMEDOUT);
	ccm_cc_info(t.f, 0, 0, &info);
	ASSERT_EQ(info.state, CCM_CC_RUNNING);
	ASSERT_U64_EQ(info.resets, 0);

	/* the job's own timeout resets the CC core */
	ASSERT_EQ(tsim_wait(d0, job), -ETIMEDOUT);
	ASSERT_EQ(tsim_sem_value(d0, s), 0);	/* the program never ran */
	ccm_cc_info(t.f, 0, 0, &info);
	ASSERT_U64_EQ(info.hangs, 1);
	ASSERT_U64_EQ(info.resets, 1);
	ASSERT_NE(info.state, CCM_CC_FAULT);

	/* the hang fired once: the next job runs */
	ASSERT_EQ(tsim_run(d0, p), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 1);
	/* the hung job completed once: nothing pending on the program */
	ASSERT_EQ(ccore_dev_program_free(d0, p), 0);
	tsim_close(&t);
}

TEST(cc_hang_recovered_by_job_timeout_inline)
{
	cc_hang_times_out(0);
}

TEST(cc_hang_recovered_by_job_timeout_workers)
{
	cc_hang_times_out(2);
}

TEST(inject_rejects_bad_arguments)
{
	struct ccm_err err = { 0 };

	tsim_open(&t, "devices=2,cores=2,workers=0");
	ASSERT_EQ(ccm_inject_dma_error(t.f, 2, 0, &err), -EINVAL);
	ASSERT_STR_CONTAINS(err.msg, "core 0 of device 2 does not exist (devices 0..1, cores 0..1)");
	ASSERT_EQ(ccm_inject_dma_error(t.f, 0, 2, &err), -EINVAL);
	ASSERT_STR_CONTAINS(err.msg, "core 2 of device 0 does not exist (devices 0..1, cores 0..1)");
	ASSERT_EQ(ccm_inject_cc_hang(t.f, 0, 4, &err), -EINVAL);
	ASSERT_STR_CONTAINS(err.msg,
			    "CC core 4 of device 0 does not exist (devices 0..1, CC cores 0..3)");
	ASSERT_EQ(ccm_inject_cc_hang(t.f, 7, 0, &err), -EINVAL);
	ASSERT_STR_CONTAINS(err.msg, "CC core 0 of device 7 does not exist");
	ASSERT_EQ(ccm_inject_dma_error(t.f, 0, 9, NULL), -EINVAL);
	ASSERT_EQ(ccm_inject_cc_hang(t.f, 0, 9, NULL), -EINVAL);
	tsim_close(&t);
}

/* --- straight on the model, counting every job_done ----------------------- */
#define NJOBS 8

static struct {
	uint32_t calls;
	int status;
} done[NJOBS];

static void count_done(void *host, u64 cookie, int status)
{
	(void)host;
	if (cookie >= NJOBS)
		return;
	done[cookie].status = status;
	__atomic_add_fetch(&done[cookie].calls, 1, __ATOMIC_ACQ_REL);
}

static const struct ccm_host_ops count_ops = { .job_done = count_done };

static bool job_reported(void *arg)
{
	return __atomic_load_n(&done[(uintptr_t)arg].calls, __ATOMIC_ACQUIRE) != 0;
}

static int run_job(struct ccm_fabric *f, u32 base, u64 cookie)
{
	ASSERT_EQ(ccm_cc_enqueue(f, 0, 0, base, cookie, NULL), 0);
	ccm_cc_trigger(f, 0, 0, 1);
	if (ccm_fabric_wait(f, job_reported, (void *)(uintptr_t)cookie,
			    ccm_now_ns() + 10 * TSIM_SEC))
		FAIL("job %llu never completed", (unsigned long long)cookie);
	return done[cookie].status;
}

static u32 model_load(struct ccm_fabric *f, const char *src)
{
	struct drm_ccore_insn *insns;
	size_t n;
	u32 base;

	insns = tsim_asm(&n, "%s", src);
	ASSERT_EQ(ccm_cc_load(f, 0, 0, insns, (u32)n, &base, NULL), 0);
	free(insns);
	return base;
}

static void jobs_complete_once(unsigned int workers)
{
	static uint8_t src[BLOCK], dst[BLOCK];
	struct ccm_hwdesc d = {
		.op = DRM_CCORE_DESC_COPY, .len = BLOCK, .dst = dst, .src0 = src,
	};
	struct ccm_config cfg;
	struct ccm_cc_info info;
	struct ccm_fabric *f;
	struct ccm_err err = { 0 };
	u32 nop, copy;
	int owner;

	memset(done, 0, sizeof(done));
	memset(src, 0x5a, sizeof(src));
	memset(dst, 0x11, sizeof(dst));
	ccm_config_default(&cfg);
	cfg.devices_per_node = 1;
	cfg.cores = 1;
	cfg.workers = workers;
	f = ccm_fabric_create(&cfg, &count_ops, NULL, &err);
	if (!f)
		FAIL("ccm_fabric_create: %s", err.msg);
	for (unsigned int i = 0; i < ccore_firmware_blob_count; i++)
		if (!strcmp(ccore_firmware_blobs[i].name, "dispatcher"))
			ASSERT_EQ(ccm_load_firmware(f, ccore_firmware_blobs[i].insns,
						    ccore_firmware_blobs[i].count, NULL), 0);
	nop = model_load(f, "nop\nret\n");
	copy = model_load(f, "start ring(0,0), 1\nrwait ring(0,0)\nret\n");
	ASSERT_EQ(ccm_ring_claim(f, 0, 0, 0, 0, 4, 512, 0, 0, &owner, NULL), 0);
	ASSERT_EQ(ccm_ring_write(f, 0, 0, 0, 0, &d, 1, NULL), 0);

	/* a hung job and one queued behind it: the reset completes each once */
	ASSERT_EQ(ccm_inject_cc_hang(f, 0, 0, NULL), 0);
	ASSERT_EQ(ccm_cc_enqueue(f, 0, 0, nop, 1, NULL), 0);
	ASSERT_EQ(ccm_cc_enqueue(f, 0, 0, nop, 2, NULL), 0);
	ccm_cc_trigger(f, 0, 0, 2);
	wait_cc(f, 0, hung);
	ASSERT_EQ(done[1].calls, 0);
	ccm_cc_reset(f, 0, 0, -ETIMEDOUT);
	ccm_cc_reset(f, 0, 0, -ETIMEDOUT);
	ASSERT_EQ(done[1].calls, 1);
	ASSERT_EQ(done[1].status, -ETIMEDOUT);
	ASSERT_EQ(done[2].calls, 1);
	ASSERT_EQ(done[2].status, -ETIMEDOUT);
	ASSERT_EQ(run_job(f, nop, 3), 0);

	/* a DMA error completes the job with -EIO; the reset adds nothing */
	ASSERT_EQ(ccm_inject_dma_error(f, 0, 0, NULL), 0);
	ASSERT_EQ(run_job(f, copy, 4), -EIO);
	ccm_cc_info(f, 0, 0, &info);
	ASSERT_EQ(info.state, CCM_CC_FAULT);
	assert_bytes(dst, 0x11, BLOCK);
	ccm_cc_reset(f, 0, 0, -ECANCELED);
	ASSERT_EQ(done[4].calls, 1);
	ASSERT_EQ(done[4].status, -EIO);
	ASSERT_EQ(run_job(f, copy, 5), 0);
	assert_bytes(dst, 0x5a, BLOCK);

	ccm_cc_info(f, 0, 0, &info);
	ASSERT_U64_EQ(info.hangs, 1);
	ASSERT_U64_EQ(info.dma_errors, 1);
	ASSERT_U64_EQ(info.resets, 3);
	for (unsigned int i = 1; i <= 5; i++)
		ASSERT_EQ(done[i].calls, 1);
	ccm_fabric_stop(f);
	ccm_fabric_destroy(f);
}

TEST(jobs_complete_once_inline)
{
	jobs_complete_once(0);
}

TEST(jobs_complete_once_workers)
{
	jobs_complete_once(2);
}
