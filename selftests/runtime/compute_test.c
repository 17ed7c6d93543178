// SPDX-License-Identifier: GPL-2.0
/*
 * Compute engines: a compute DMA really copies through its ring, TRIGGER
 * starts a queued CC program, WAIT_SEM blocks until the semaphore reaches
 * its value, bad programs are rejected naming the instruction and field;
 * in timed mode COMPUTE advances virtual time by exactly its duration, a
 * compute DMA costs what the bandwidth model says, and a compute DMA ring
 * shares its engine with a CC ring in the ratio of their packet sizes.
 */
#include "tsim.h"

#define KIB 1024u
#define MS 1000000ll

static struct drm_ccore_ce_insn ce_compute(uint64_t ns)
{
	return (struct drm_ccore_ce_insn){ .opcode = DRM_CCORE_CE_COMPUTE, .duration_ns = ns };
}

static struct drm_ccore_ce_insn ce_dma(uint64_t dst, uint64_t src, uint64_t len)
{
	return (struct drm_ccore_ce_insn){
		.opcode = DRM_CCORE_CE_DMA, .dst = dst, .src = src, .len = len,
	};
}

static struct drm_ccore_ce_insn ce_dma_signal(uint64_t dst, uint64_t src, uint64_t len,
					      uint32_t sem, uint32_t value)
{
	struct drm_ccore_ce_insn in = ce_dma(dst, src, len);

	in.flags = DRM_CCORE_CE_F_SIGNAL;
	in.sem = sem;
	in.value = value;
	return in;
}

static struct drm_ccore_ce_insn ce_trigger(uint32_t cc)
{
	return (struct drm_ccore_ce_insn){ .opcode = DRM_CCORE_CE_TRIGGER, .cc_core = cc };
}

static struct drm_ccore_ce_insn ce_wait(uint32_t sem, uint32_t value)
{
	return (struct drm_ccore_ce_insn){
		.opcode = DRM_CCORE_CE_WAIT_SEM, .sem = sem, .value = value,
	};
}

static struct drm_ccore_ce_insn ce_end(void)
{
	return (struct drm_ccore_ce_insn){ .opcode = DRM_CCORE_CE_END };
}

#define PROG(...) ((struct drm_ccore_ce_insn[]){ __VA_ARGS__ })
#define NPROG(...) (sizeof(PROG(__VA_ARGS__)) / sizeof(struct drm_ccore_ce_insn))
/* Submit on core 0, with DMA ring(1,2) if it has DMA; fails the test on error. */
static void submit(struct ccore_dev *d, const struct drm_ccore_ce_insn *insns, uint32_t n)
{
	uint32_t dma = 0, i;
	int rc;

	for (i = 0; i < n; i++)
		dma |= insns[i].opcode == DRM_CCORE_CE_DMA;
	rc = ccore_dev_compute_submit(d, 0, insns, n, dma ? 1 : 0, dma ? 2 : 0, 0, NULL);
	if (rc)
		FAIL("compute_submit: %d: %s", rc, ccore_last_error());
}

#define SUBMIT(d, ...) submit((d), PROG(__VA_ARGS__), (uint32_t)NPROG(__VA_ARGS__))

/* The compute DMA ring used throughout: core 0, engine 1, ring 2. */
static uint32_t compute_ring(struct ccore_dev *d, unsigned int slots)
{
	uint32_t h;

	ASSERT_EQ(ccore_dev_ring_create(d, 0, 1, 2, slots, 0, DRM_CCORE_RING_F_COMPUTE, &h), 0);
	return h;
}

static struct drm_ccore_compute_wait wait_ce(struct ccore_dev *d, unsigned int core)
{
	struct drm_ccore_compute_wait w;
	int rc = ccore_dev_compute_wait(d, core, 10 * 1000 * MS, &w);

	if (rc)
		FAIL("compute_wait: %d: %s", rc, ccore_last_error());
	return w;
}

/* Two buffers on device 0: their mappings and device addresses. */
struct src_dst {
	uint8_t *src, *dst;
	uint64_t vs, vd;
};

/*
 * Open the fabric @cfg with a source buffer of @src_len bytes and a
 * destination of @dst_len on device 0.
 */
static void open_src_dst(struct tsim *t, const char *cfg, uint64_t src_len, uint64_t dst_len,
			 struct src_dst *b)
{
	uint32_t hs, hd;

	tsim_open(t, cfg);
	b->src = tsim_bo(t->dev[0], src_len, &hs, &b->vs);
	b->dst = tsim_bo(t->dev[0], dst_len, &hd, &b->vd);
}

static void dma_copies(const char *cfg)
{
	const uint64_t len = 100 * KIB + 3;
	struct drm_ccore_ring_stats st;
	struct drm_ccore_compute_wait w;
	uint32_t ring, sem;
	struct src_dst b;
	struct tsim t;

	open_src_dst(&t, cfg, len, len + 1, &b);
	for (uint64_t i = 0; i < len; i++)
		b.src[i] = (uint8_t)(i * 7 + 1);
	b.dst[len] = 0xee;
	ring = compute_ring(t.dev[0], 4);
	sem = tsim_sem(t.dev[0], 0, 1);
	SUBMIT(t.dev[0], ce_dma_signal(b.vd, b.vs, len, sem, 5), ce_end());
	w = wait_ce(t.dev[0], 0);
	ASSERT_EQ(w.status, 0);
	ASSERT_MEM_EQ(b.dst, b.src, len);
	ASSERT_EQ(b.dst[len], 0xee);	/* not a byte more */
	ASSERT_EQ(tsim_sem_value(t.dev[0], sem), 5);
	ASSERT_U64_EQ(w.insns, 2);
	ASSERT_U64_EQ(w.dma_bytes, len);
	ASSERT_U64_EQ(w.busy_ns, 0);
	/* through the compute ring, in packets of the packetization size */
	ASSERT_EQ(ccore_dev_ring_stats(t.dev[0], ring, &st), 0);
	ASSERT_EQ(st.packet_size, 4096);
	ASSERT_U64_EQ(st.bytes, len);
	ASSERT_U64_EQ(st.packets, (len + 4095) / 4096);
	ASSERT_U64_EQ(st.completed, 1);
	tsim_close(&t);
}

TEST(dma_copies_inline)
{
	dma_copies("devices=1,cores=2,workers=0");
}

TEST(dma_copies_worker_pool)
{
	dma_copies("devices=1,cores=2,workers=2");
}

/* The program is rewritten into its ring on every submission. */
TEST(dma_ring_rebuilt_per_program)
{
	struct drm_ccore_ring_stats st;
	uint32_t ring;
	struct src_dst b;
	struct tsim t;

	open_src_dst(&t, "devices=1,cores=1,workers=0", 8 * KIB, 8 * KIB, &b);
	memset(b.src, 0x11, 4 * KIB);
	memset(b.src + 4 * KIB, 0x22, 4 * KIB);
	ring = compute_ring(t.dev[0], 2);
	SUBMIT(t.dev[0], ce_dma(b.vd, b.vs, 4 * KIB), ce_dma(b.vd + 4 * KIB, b.vs, 4 * KIB),
	       ce_end());
	ASSERT_EQ(wait_ce(t.dev[0], 0).status, 0);
	ASSERT_EQ(b.dst[8 * KIB - 1], 0x11);
	SUBMIT(t.dev[0], ce_dma(b.vd, b.vs + 4 * KIB, 4 * KIB), ce_end());
	ASSERT_EQ(wait_ce(t.dev[0], 0).status, 0);
	ASSERT_EQ(b.dst[0], 0x22);
	ASSERT_EQ(b.dst[4 * KIB], 0x11);
	ASSERT_EQ(ccore_dev_ring_stats(t.dev[0], ring, &st), 0);
	ASSERT_U64_EQ(st.completed, 3);
	tsim_close(&t);
}

TEST(trigger_starts_queued_cc_program)
{
	struct drm_ccore_compute_wait w;
	struct ccm_cc_info info;
	uint32_t sem, prog;
	uint64_t job;
	int status;
	struct tsim t;

	tsim_open(&t, "devices=1,cores=2,workers=0");
	/* the collective's program on CC core 1 of core 1 (device-wide 3) */
	sem = tsim_sem(t.dev[0], 1, 1);
	prog = tsim_load(t.dev[0], 3, "add " SEMF ", 1\nret\n", S3(sem));
	ASSERT_EQ(ccore_dev_submit(t.dev[0], prog, 0, &job), 0);
	/* queued, not triggered: it does not run */
	ASSERT_EQ(ccore_dev_job_wait(t.dev[0], job, 10 * MS, &status), -ETIMEDOUT);
	ccm_cc_info(t.f, 0, 3, &info);
	ASSERT_EQ(info.queued, 1);
	ASSERT_EQ(tsim_sem_value(t.dev[0], sem), 0);

	ASSERT_EQ(ccore_dev_compute_submit(t.dev[0], 1,
					   PROG(ce_trigger(3), ce_wait(sem, 1), ce_end()), 3, 0, 0,
					   0, NULL), 0);
	w = wait_ce(t.dev[0], 1);
	ASSERT_EQ(w.status, 0);
	ASSERT_U64_EQ(w.insns, 3);
	ASSERT_EQ(tsim_wait(t.dev[0], job), 0);
	ASSERT_EQ(tsim_sem_value(t.dev[0], sem), 1);
	tsim_close(&t);
}

TEST(wait_sem_blocks_until_value)
{
	struct drm_ccore_compute_wait w;
	struct ccm_compute_info info;
	uint32_t sem;
	struct src_dst b;
	struct tsim t;

	open_src_dst(&t, "devices=1,cores=1,workers=0", 4 * KIB, 4 * KIB, &b);
	memset(b.src, 0x5a, 4 * KIB);
	compute_ring(t.dev[0], 1);
	sem = tsim_sem(t.dev[0], 0, 1);
	tsim_sem_set(t.dev[0], sem, 2);
	SUBMIT(t.dev[0], ce_compute(10), ce_wait(sem, 3), ce_dma(b.vd, b.vs, 4 * KIB), ce_end());
	EXPECT_ERR(ccore_dev_compute_wait(t.dev[0], 0, 10 * MS, &w), -ETIMEDOUT,
		   "still running");
	ccm_compute_info(t.f, 0, 0, &info);
	ASSERT_TRUE(info.running);
	ASSERT_EQ(info.pc, 1);
	ASSERT_EQ(b.dst[0], 0);
	/* one engine, one program: a second one is refused meanwhile */
	EXPECT_ERR(ccore_dev_compute_submit(t.dev[0], 0, PROG(ce_end()), 1, 0, 0, 0, NULL),
		   -EBUSY, "running a program");
	tsim_sem_set(t.dev[0], sem, 3);
	w = wait_ce(t.dev[0], 0);
	ASSERT_EQ(w.status, 0);
	ASSERT_EQ(b.dst[4 * KIB - 1], 0x5a);
	ASSERT_U64_EQ(w.busy_ns, 10);
	ASSERT_EQ(tsim_sem_value(t.dev[0], sem), 3);	/* waits, takes nothing */
	tsim_close(&t);
}

TEST(dma_ring_cannot_be_destroyed_while_running)
{
	uint32_t ring, sem;
	struct src_dst b;
	struct tsim t;

	open_src_dst(&t, "devices=1,cores=1,workers=0", 4 * KIB, 4 * KIB, &b);
	ring = compute_ring(t.dev[0], 1);
	sem = tsim_sem(t.dev[0], 0, 1);
	SUBMIT(t.dev[0], ce_wait(sem, 1), ce_dma(b.vd, b.vs, 4 * KIB), ce_end());
	EXPECT_ERR(ccore_dev_ring_destroy(t.dev[0], ring), -EBUSY, "compute engine");
	tsim_sem_set(t.dev[0], sem, 1);
	ASSERT_EQ(wait_ce(t.dev[0], 0).status, 0);
	ASSERT_EQ(ccore_dev_ring_destroy(t.dev[0], ring), 0);
	tsim_close(&t);
}

TEST(dma_error_fails_program)
{
	struct drm_ccore_compute_wait w;
	struct ccm_compute_info info;
	uint32_t sem;
	struct src_dst b;
	struct tsim t;

	open_src_dst(&t, "devices=1,cores=1,workers=0", 4 * KIB, 4 * KIB, &b);
	compute_ring(t.dev[0], 1);
	sem = tsim_sem(t.dev[0], 0, 1);
	ASSERT_EQ(ccm_inject_dma_error(t.f, 0, 0, NULL), 0);
	/* it would wait forever for the signal of the failed copy */
	SUBMIT(t.dev[0], ce_dma_signal(b.vd, b.vs, 4 * KIB, sem, 1), ce_wait(sem, 1), ce_end());
	w = wait_ce(t.dev[0], 0);
	ASSERT_EQ(w.status, -EIO);
	ccm_compute_info(t.f, 0, 0, &info);
	ASSERT_STR_CONTAINS(info.fault, "DMA error on device 0 core 0 engine 1 ring 2");
	ASSERT_EQ(tsim_sem_value(t.dev[0], sem), 0);
	tsim_close(&t);
}

TEST(own_timeout_stops_program)
{
	struct drm_ccore_compute_wait w;
	uint32_t sem;
	struct tsim t;

	tsim_open(&t, "devices=1,cores=1,workers=1");
	sem = tsim_sem(t.dev[0], 0, 1);
	ASSERT_EQ(ccore_dev_compute_submit(t.dev[0], 0, PROG(ce_wait(sem, 1), ce_end()), 2, 0, 0,
					   20, NULL), 0);
	w = wait_ce(t.dev[0], 0);
	ASSERT_EQ(w.status, -ETIMEDOUT);
	/* the engine is free again */
	SUBMIT(t.dev[0], ce_compute(1), ce_end());
	ASSERT_EQ(wait_ce(t.dev[0], 0).status, 0);
	tsim_close(&t);
}

/* --- validation ------------------------------------------------------------ */

struct reject_env {
	struct tsim t;
	uint64_t va;		/* a 4 KiB buffer of device 0 */
	uint32_t sem;		/* core 0's */
	uint32_t sem_core1;
	uint32_t sem_other;	/* allocated by device 1's context */
};

/* @insns must be rejected with @err at instruction @index, saying @text. */
static void expect_reject(struct reject_env *e, const struct drm_ccore_ce_insn *insns,
			  uint32_t count, uint32_t engine, uint32_t ring, int err,
			  uint32_t index, const char *text)
{
	uint32_t bad = 0;
	int rc = ccore_dev_compute_submit(e->t.dev[0], 0, insns, count, engine, ring, 0, &bad);

	if (rc != err)
		FAIL("submit returned %d, expected %d (%s)", rc, err, ccore_last_error());
	ASSERT_STR_CONTAINS(ccore_last_error(), text);
	ASSERT_EQ(bad, index);
	ccore_test_log("%s", ccore_last_error());
}

#define REJECT(e, err, index, text, ...) \
	expect_reject(e, PROG(__VA_ARGS__), (uint32_t)NPROG(__VA_ARGS__), 1, 2, err, index, text)

TEST(bad_programs_rejected_naming_instruction_and_field)
{
	struct drm_ccore_ce_insn bad;
	struct reject_env e;
	char text[160];
	uint32_t h;
	uint64_t va = 0;

	tsim_open(&e.t, "devices=2,cores=2,workers=0");
	tsim_bo(e.t.dev[0], 4 * KIB, &h, &e.va);
	va = e.va;
	compute_ring(e.t.dev[0], 2);
	e.sem = tsim_sem(e.t.dev[0], 0, 1);
	e.sem_core1 = tsim_sem(e.t.dev[0], 1, 1);
	e.sem_other = tsim_sem(e.t.dev[1], 0, 1);

	bad = ce_end();
	bad.opcode = 9;
	REJECT(&e, -EINVAL, 1, "instruction 1: unknown opcode 9", ce_compute(1), bad, ce_end());
	bad = ce_compute(5);
	bad.len = 4;
	REJECT(&e, -EINVAL, 0, "instruction 0 (compute): field len must be 0, got 4", bad,
	       ce_end());
	bad = ce_end();
	bad.pad = 1;
	REJECT(&e, -EINVAL, 0, "instruction 0 (end): pad must be 0", bad);
	REJECT(&e, -EINVAL, 0, "instruction 0 (compute): duration_ns 0 out of range", ce_compute(0),
	       ce_end());
	REJECT(&e, -EINVAL, 1, "instruction 1 (dma): len is 0", ce_end(), ce_dma(va, va, 0),
	       ce_end());
	REJECT(&e, -EINVAL, 0, "instruction 0 (dma): dst [0x", ce_dma(va + 4096, va, 1), ce_end());
	REJECT(&e, -EINVAL, 0, "instruction 0 (dma): src [0x", ce_dma(va, va + 1, 4096), ce_end());
	bad = ce_dma(va, va, 8);
	bad.flags = 4;
	REJECT(&e, -EINVAL, 0, "instruction 0 (dma): unknown flags 0x4", bad, ce_end());
	bad = ce_dma(va, va, 8);
	bad.value = 1;
	REJECT(&e, -EINVAL, 0, "sem/value set without the SIGNAL flag", bad, ce_end());
	snprintf(text, sizeof(text),
		 "instruction 0: signal sem 0x%08x is not a semaphore this context allocated",
		 e.sem_other);
	REJECT(&e, -EACCES, 0, text, ce_dma_signal(va, va, 8, e.sem_other, 1), ce_end());
	REJECT(&e, -EINVAL, 0, "names no semaphore", ce_dma_signal(va, va, 8, 0x00ff0000u, 1),
	       ce_end());
	snprintf(text, sizeof(text),
		 "instruction 0 (wait_sem): semaphore 0x%08x is not on this core", e.sem_core1);
	REJECT(&e, -EINVAL, 0, text, ce_wait(e.sem_core1, 1), ce_end());
	REJECT(&e, -EINVAL, 0, "instruction 0 (trigger): CC core 2 is not one of core 0's (0..1)",
	       ce_trigger(2), ce_end());
	REJECT(&e, -EINVAL, 1, "instruction 1: compute program falls off its end",
	       ce_compute(1), ce_compute(1));
	expect_reject(&e, PROG(ce_end()), 0, 0, 0, -EINVAL, CCM_NO_INDEX, "count 0 out of range");
	/* the DMA ring: exists, is the context's, has room, unused without DMA */
	expect_reject(&e, PROG(ce_compute(1), ce_dma(va, va, 8), ce_end()), 3, 1, 3, -EACCES, 1,
		      "instruction 1 (dma): the DMA ring(1,3) is not a ring this context created on core 0");
	expect_reject(&e, PROG(ce_dma(va, va, 8), ce_end()), 2, 7, 0, -EINVAL, 0,
		      "the DMA ring(7,0) does not exist (engines 0..3, rings 0..15)");
	expect_reject(&e, PROG(ce_compute(1), ce_end()), 2, 1, 2, -EINVAL, CCM_NO_INDEX,
		      "dma_engine 1 and dma_ring 2 must be 0: the program has no dma instruction");
	expect_reject(&e, PROG(ce_dma(va, va, 8), ce_dma(va, va, 8), ce_dma(va, va, 8), ce_end()), 4,
		      1, 2, -ENOSPC, CCM_NO_INDEX, "has 2 slots, the program has 3 dma instructions");
	/* and the submission itself */
	EXPECT_ERR(ccore_dev_compute_submit(e.t.dev[0], 2, PROG(ce_end()), 1, 0, 0, 0, NULL),
		   -EINVAL, "core 2 does not exist (0..1)");
	EXPECT_ERR(ccore_dev_compute_submit(e.t.dev[0], 0, NULL, 1, 0, 0, 0, NULL), -EFAULT,
		   "insns pointer is NULL");
	EXPECT_ERR(ccore_dev_compute_submit(e.t.dev[0], 0, PROG(ce_end()), 1, 0, 0, 3600001, NULL),
		   -EINVAL, "timeout_ms 3600001 out of range");
	EXPECT_ERR(ccore_dev_compute_wait(e.t.dev[0], 1, MS, NULL), -ENOENT,
		   "has run no program of this context");
	/* nothing ran */
	ASSERT_TRUE(ccm_compute_idle(e.t.f, 0, 0));
	tsim_close(&e.t);
}

/* --- timed mode ------------------------------------------------------------- */

#define TIMED "devices=1,cores=1,timed=1,alpha_dev_ns=500,bw_dev_gbps=3200,bw_engine_gbps=2000"

static struct ccm_compute_info timed_info(struct tsim *t)
{
	struct ccm_compute_info info;

	wait_ce(t->dev[0], 0);
	ccm_compute_info(t->f, 0, 0, &info);
	ASSERT_EQ(info.status, 0);
	return info;
}

TEST(timed_compute_advances_clock_by_its_duration)
{
	struct ccm_compute_info info;
	struct tsim t;

	tsim_open(&t, TIMED);
	SUBMIT(t.dev[0], ce_compute(12345), ce_end());
	info = timed_info(&t);
	ASSERT_U64_EQ(info.end_ps - info.start_ps, 12345000);
	ASSERT_U64_EQ(ccm_fabric_now_ps(t.f), info.end_ps);
	/* back to back, from where the clock is */
	SUBMIT(t.dev[0], ce_compute(1000), ce_compute(2345), ce_compute(7), ce_end());
	info = timed_info(&t);
	ASSERT_U64_EQ(info.start_ps, 12345000);
	ASSERT_U64_EQ(info.end_ps - info.start_ps, 3352000);
	ASSERT_U64_EQ(info.busy_ns, 3352);
	ASSERT_U64_EQ(info.total_busy_ns, 12345 + 3352);
	ASSERT_U64_EQ(info.programs, 2);
	tsim_close(&t);
}

/* A local copy: alpha_dev, then its bytes at the engine's rate (below bw_dev). */
static void timed_dma(const char *cfg, uint64_t alpha_ps, uint64_t ps_per_byte)
{
	const uint64_t len = 1u << 20;
	struct ccm_compute_info info;
	struct src_dst b;
	struct tsim t;

	open_src_dst(&t, cfg, len, len, &b);
	compute_ring(t.dev[0], 4);
	SUBMIT(t.dev[0], ce_dma(b.vd, b.vs, len), ce_end());
	info = timed_info(&t);
	ccore_test_log("1 MiB compute DMA: %.3f us", (info.end_ps - info.start_ps) / 1e6);
	ASSERT_U64_EQ(info.end_ps - info.start_ps, alpha_ps + ps_per_byte * len);
	ASSERT_U64_EQ(info.dma_bytes, len);
	/* asynchronous: a longer COMPUTE hides it entirely */
	SUBMIT(t.dev[0], ce_dma(b.vd, b.vs, len), ce_compute(20000), ce_end());
	info = timed_info(&t);
	ASSERT_U64_EQ(info.end_ps - info.start_ps, 20000000);
	/* and a shorter one does not shorten it */
	SUBMIT(t.dev[0], ce_dma(b.vd, b.vs, len), ce_compute(1000), ce_end());
	info = timed_info(&t);
	ASSERT_U64_EQ(info.end_ps - info.start_ps, alpha_ps + ps_per_byte * len);
	tsim_close(&t);
}

TEST(timed_dma_follows_bandwidth_model)
{
	/* 2000 Gbit/s: 4 ps a byte */
	timed_dma(TIMED, 500000, 4);
	/* slower engine, longer latency */
	timed_dma("devices=1,cores=1,timed=1,alpha_dev_ns=800,bw_dev_gbps=3200,bw_engine_gbps=1000",
		  800000, 8);
	/* a slower tier than the engine: the tier's rate (3200 -> 1600 Gbit/s: 5 ps) */
	timed_dma("devices=1,cores=1,timed=1,alpha_dev_ns=500,bw_dev_gbps=1600,bw_engine_gbps=2000",
		  500000, 5);
}

#define SHARE_DESC (64 * KIB)
#define SHARE_DESCS 1100
/* the faster ring's descriptors when sampled: the slower one then has 64
 * or more at 16:1, so one descriptor more or less is under 2% */
#define SHARE_WINDOW (1024ull * SHARE_DESC)

struct share {
	uint64_t ce_bytes, cc_bytes, end_ps;
};

/*
 * Engine 0 of core 0 carries a compute DMA ring (packets @ce_pkt) and a CC
 * ring (packets @cc_pkt), SHARE_DESCS copies of 64 KiB each.  The compute
 * program triggers the CC program, issues its DMAs and waits for the
 * collective.  Sampled when the faster ring has moved @window bytes: both
 * were busy all along.  Buffers are virtual: only time matters here.
 */
static struct share timed_share(unsigned int ce_pkt, unsigned int cc_pkt, uint64_t window)
{
	static struct drm_ccore_ce_insn prog[SHARE_DESCS + 3];
	static struct drm_ccore_desc descs[SHARE_DESCS];
	struct drm_ccore_ring_stats ce_st, cc_st;
	uint32_t hs, hd, ce_ring, cc_ring, sem, cprog;
	struct share out = { 0 };
	uint64_t vs, vd, job;
	struct tsim t;
	unsigned int i, n = 0;

	tsim_open(&t, "devices=1,cores=1,timed=1,virtual=1");
	ASSERT_EQ(ccore_dev_bo_create(t.dev[0], 2 * SHARE_DESC, &hs, &vs), 0);
	ASSERT_EQ(ccore_dev_bo_create(t.dev[0], 2 * SHARE_DESC, &hd, &vd), 0);
	ASSERT_EQ(ccore_dev_ring_create(t.dev[0], 0, 0, 1, SHARE_DESCS, ce_pkt,
					DRM_CCORE_RING_F_COMPUTE, &ce_ring), 0);
	cc_ring = tsim_ring(t.dev[0], 0, 0, 0, SHARE_DESCS, cc_pkt);
	for (i = 0; i < SHARE_DESCS; i++)
		descs[i] = (struct drm_ccore_desc){
			.op = DRM_CCORE_DESC_COPY, .len = SHARE_DESC,
			.src0 = vs + SHARE_DESC, .dst = vd + SHARE_DESC,
		};
	ASSERT_EQ(ccore_dev_ring_submit(t.dev[0], cc_ring, descs, SHARE_DESCS, 0), 0);
	sem = tsim_sem(t.dev[0], 0, 1);
	cprog = tsim_load(t.dev[0], 0, "start ring(0,0), %u\nrwait ring(0,0)\nadd " SEMF ", 1\nret\n",
			  SHARE_DESCS, S3(sem));
	ASSERT_EQ(ccore_dev_submit(t.dev[0], cprog, 0, &job), 0);

	prog[n++] = ce_trigger(0);
	for (i = 0; i < SHARE_DESCS; i++)
		prog[n++] = ce_dma(vd, vs, SHARE_DESC);
	prog[n++] = ce_wait(sem, 1);
	prog[n++] = ce_end();
	ASSERT_EQ(ccore_dev_compute_submit(t.dev[0], 0, prog, n, 0, 1, 0, NULL), 0);
	do {
		ASSERT_GT(ccm_fabric_run_steps(t.f, 1), 0);
		ASSERT_EQ(ccore_dev_ring_stats(t.dev[0], ce_ring, &ce_st), 0);
		ASSERT_EQ(ccore_dev_ring_stats(t.dev[0], cc_ring, &cc_st), 0);
	} while (ce_st.bytes < window && cc_st.bytes < window);
	ASSERT_LT(ce_st.completed, SHARE_DESCS);
	ASSERT_LT(cc_st.completed, SHARE_DESCS);
	out.ce_bytes = ce_st.bytes;
	out.cc_bytes = cc_st.bytes;
	/* everything ends: the collective, then the compute program */
	ASSERT_EQ(tsim_wait(t.dev[0], job), 0);
	out.end_ps = timed_info(&t).end_ps;
	ASSERT_EQ(ccore_dev_ring_stats(t.dev[0], ce_ring, &ce_st), 0);
	ASSERT_U64_EQ(ce_st.bytes, (uint64_t)SHARE_DESCS * SHARE_DESC);
	tsim_close(&t);
	return out;
}

static void expect_share(unsigned int ce_pkt, unsigned int cc_pkt)
{
	struct share s = timed_share(ce_pkt, cc_pkt, SHARE_WINDOW);
	double want = (double)ce_pkt / cc_pkt, got = (double)s.ce_bytes / (double)s.cc_bytes;

	ccore_test_log("compute DMA packets %u vs CC %u: bytes %llu:%llu while both busy, ratio %.3f (want %.3f)",
		       ce_pkt, cc_pkt, (unsigned long long)s.ce_bytes,
		       (unsigned long long)s.cc_bytes, got, want);
	ASSERT_TRUE(got > want * 0.97 && got < want * 1.03);
}

TEST(timed_compute_dma_share_follows_packet_size)
{
	expect_share(65536, 4096);
	expect_share(4096, 65536);
	expect_share(16384, 16384);
}

TEST(timed_deterministic)
{
	struct share a = timed_share(65536, 4096, SHARE_WINDOW / 2);
	struct share b = timed_share(65536, 4096, SHARE_WINDOW / 2);

	ASSERT_U64_EQ(a.end_ps, b.end_ps);
	ASSERT_U64_EQ(a.ce_bytes, b.ce_bytes);
	ASSERT_U64_EQ(a.cc_bytes, b.cc_bytes);
}
