// SPDX-License-Identifier: GPL-2.0
/*
 * Indexed rings and STARTI on the sim backend: a loop over indexes moves
 * one pre-built descriptor to a different block each iteration (forwards
 * and backwards, COPY and REDUCE, SEM_WRITE and signals never moved),
 * STARTI waits for free slots, bad indexes and counts fault the CC core
 * with a message naming them, submission checks every index's ranges,
 * ring creation rejects bad index fields, and the timed model moves the
 * same bytes.
 */
#include "tsim.h"

#define BLOCK 4096u
#define NBLK 8u
#define PACKET 1024u
/* the ring every test indexes: core 0, engine 1, ring 3 */
#define ENG 1u
#define RNG 3u

static struct tsim t;
static struct ccore_dev *d0;

static uint32_t indexed_ring(unsigned int slots, int64_t stride, uint32_t count)
{
	uint32_t h;
	int rc = ccore_dev_ring_create_indexed(d0, 0, ENG, RNG, slots, PACKET, 0, stride, count,
					       &h);

	if (rc)
		FAIL("ring_create_indexed: %d: %s", rc, ccore_last_error());
	return h;
}

/* Block i of @p is filled with i + 1 and then some bytes of @seed. */
static void fill_blocks(uint8_t *p, unsigned int seed)
{
	for (unsigned int b = 0; b < NBLK; b++)
		for (unsigned int i = 0; i < BLOCK; i++)
			p[b * BLOCK + i] = (uint8_t)((b + 1) * 16 + seed + i % 13);
}

/* A source of NBLK distinct blocks and a zeroed destination. */
struct bufs {
	uint8_t *src, *dst;
	uint64_t vs, vd;
	uint32_t hs, hd;
};

static void make_bufs(struct bufs *b)
{
	b->src = tsim_bo(d0, NBLK * BLOCK, &b->hs, &b->vs);
	b->dst = tsim_bo(d0, NBLK * BLOCK, &b->hd, &b->vd);
	fill_blocks(b->src, 1);
}

static void expect_block(const struct bufs *b, unsigned int blk, bool copied)
{
	static const uint8_t zero[BLOCK];
	const uint8_t *want = copied ? b->src + blk * BLOCK : zero;

	if (memcmp(b->dst + blk * BLOCK, want, BLOCK))
		FAIL("block %u of dst: %s expected", blk, copied ? "the copy" : "zeros");
}

static struct drm_ccore_desc copy_desc(uint64_t dst, uint64_t src, uint64_t len)
{
	return (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY, .len = len, .dst = dst,
					.src0 = src };
}

static void submit(uint32_t ring, const struct drm_ccore_desc *d, uint32_t n)
{
	int rc = ccore_dev_ring_submit(d0, ring, d, n, 0);

	if (rc)
		FAIL("ring_submit: %d: %s", rc, ccore_last_error());
}

/*
 * A fresh device with the buffers of make_bufs() and an indexed ring of 4
 * slots (@stride, @count) holding one COPY of a block, from block @blk of
 * src to block @blk of dst.
 */
static uint32_t one_copy_ring(struct bufs *b, int64_t stride, uint32_t count, unsigned int blk)
{
	struct drm_ccore_desc d;
	uint32_t ring;

	tsim_open(&t, "devices=1,cores=2,workers=2");
	d0 = t.dev[0];
	make_bufs(b);
	ring = indexed_ring(4, stride, count);
	d = copy_desc(b->vd + blk * BLOCK, b->vs + blk * BLOCK, BLOCK);
	submit(ring, &d, 1);
	return ring;
}

/* A program looping @n times: STARTI @per descriptors at index r1, r1 += 1. */
static uint32_t loop_prog(unsigned int first, unsigned int n, unsigned int per)
{
	return tsim_load(d0, 0,
			 "\tmovi r1, %u\n"
			 "\tmovi r2, %u\n"
			 "l:\tstarti ring(%u,%u), r1, %u\n"
			 "\taddi r1, 1\n"
			 "\tloop r2, l\n"
			 "\trwait ring(%u,%u)\n"
			 "\tret\n",
			 first, n, ENG, RNG, per, ENG, RNG);
}

static void ring_stats(uint32_t ring, struct drm_ccore_ring_stats *st)
{
	ASSERT_EQ(ccore_dev_ring_stats(d0, ring, st), 0);
}

TEST(loop_copies_each_block)
{
	struct drm_ccore_ring_stats st;
	struct bufs b;
	uint32_t ring;

	ring = one_copy_ring(&b, BLOCK, NBLK, 0);
	ASSERT_EQ(tsim_run(d0, loop_prog(0, NBLK, 1)), 0);
	for (unsigned int i = 0; i < NBLK; i++)
		expect_block(&b, i, true);
	ring_stats(ring, &st);
	ASSERT_U64_EQ(st.started, NBLK);
	ASSERT_U64_EQ(st.completed, NBLK);
	ASSERT_U64_EQ(st.bytes, NBLK * BLOCK);
	ASSERT_U64_EQ(st.packets, NBLK * BLOCK / PACKET);
	tsim_close(&t);
}

/* Index i of a stride of -BLOCK from the last block reaches block 7 - i. */
TEST(negative_stride_walks_backwards)
{
	struct bufs b;

	one_copy_ring(&b, -(int64_t)BLOCK, NBLK, NBLK - 1);
	/* indexes 1..3: blocks 6, 5, 4 */
	ASSERT_EQ(tsim_run(d0, loop_prog(1, 3, 1)), 0);
	for (unsigned int i = 0; i < NBLK; i++)
		expect_block(&b, i, i >= 4 && i <= 6);
	tsim_close(&t);
}

/*
 * REDUCE moves dst, src0 and src1; a SEM_WRITE and the signal of the
 * REDUCE reach the same semaphores at every index.
 */
TEST(reduce_moves_every_operand_sem_write_does_not)
{
	uint32_t ha, hb, hc, ring, sem;
	uint64_t va, vb, vc;
	uint32_t *a, *b, *c;
	struct drm_ccore_desc d[2];
	const unsigned int n = NBLK * BLOCK / 4, per = BLOCK / 4;

	tsim_open(&t, "devices=1,cores=2,workers=2");
	d0 = t.dev[0];
	a = tsim_bo(d0, NBLK * BLOCK, &ha, &va);
	b = tsim_bo(d0, NBLK * BLOCK, &hb, &vb);
	c = tsim_bo(d0, NBLK * BLOCK, &hc, &vc);
	for (unsigned int i = 0; i < n; i++) {
		a[i] = i;
		b[i] = 1000000u * (i / per + 1);
	}
	sem = tsim_sem(d0, 0, 2);
	d[0] = (struct drm_ccore_desc){
		.op = DRM_CCORE_DESC_REDUCE, .dtype = DRM_CCORE_DTYPE_U32,
		.redop = DRM_CCORE_REDOP_SUM, .flags = DRM_CCORE_DESC_F_SIGNAL,
		.signal_sem = sem, .signal_value = 1, .len = BLOCK, .dst = vc, .src0 = va,
		.src1 = vb,
	};
	d[1] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_SEM_WRITE, .value = 10,
					.dst = sem + 1 };
	ring = indexed_ring(2, BLOCK, NBLK);
	submit(ring, d, 2);
	ASSERT_EQ(tsim_run(d0, loop_prog(0, NBLK, 2)), 0);
	for (unsigned int i = 0; i < n; i++)
		if (c[i] != i + 1000000u * (i / per + 1))
			FAIL("c[%u] = %u, expected %u", i, c[i], i + 1000000u * (i / per + 1));
	ASSERT_EQ(tsim_sem_value(d0, sem), NBLK);
	ASSERT_EQ(tsim_sem_value(d0, sem + 1), 10 * NBLK);
	tsim_close(&t);
}

/* START, and a host start, on an indexed ring run at index 0. */
TEST(start_uses_index_zero)
{
	struct bufs b;

	one_copy_ring(&b, BLOCK, 4, 2);
	/* index 3 first, then START: block 5, then block 2 */
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 0,
					 "movi r4, 3\nstarti ring(%u,%u), r4, 1\nrwait ring(%u,%u)\n"
					 "start ring(%u,%u), 1\nrwait ring(%u,%u)\nret\n",
					 ENG, RNG, ENG, RNG, ENG, RNG, ENG, RNG)), 0);
	for (unsigned int i = 0; i < NBLK; i++)
		expect_block(&b, i, i == 2 || i == 5);
	tsim_close(&t);
}

/*
 * A ring of 2 slots holding 2 descriptors takes one STARTI of 2 at a time:
 * each later STARTI waits until both are done, or it would move them
 * before they ran.  Inline, the CC core runs ahead of the engine and
 * must wait; with workers, whatever the timing.
 */
static void starti_waits(const char *cfg)
{
	struct drm_ccore_ring_stats st;
	struct drm_ccore_desc d[2];
	struct bufs b;
	uint32_t ring;

	tsim_open(&t, cfg);
	d0 = t.dev[0];
	make_bufs(&b);
	ring = indexed_ring(2, BLOCK, NBLK);
	/* the two halves of a block */
	d[0] = copy_desc(b.vd, b.vs, BLOCK / 2);
	d[1] = copy_desc(b.vd + BLOCK / 2, b.vs + BLOCK / 2, BLOCK / 2);
	submit(ring, d, 2);
	for (int run = 0; run < 2; run++) {
		memset(b.dst, 0, NBLK * BLOCK);
		ASSERT_EQ(tsim_run(d0, loop_prog(0, NBLK, 2)), 0);
		for (unsigned int i = 0; i < NBLK; i++)
			expect_block(&b, i, true);
	}
	ring_stats(ring, &st);
	ASSERT_U64_EQ(st.started, 4 * NBLK);
	ASSERT_U64_EQ(st.completed, 4 * NBLK);
	tsim_close(&t);
}

TEST(starti_waits_for_free_slots_inline)
{
	starti_waits("devices=1,cores=2,workers=0,seed=3");
}

TEST(starti_waits_for_free_slots_workers)
{
	starti_waits("devices=1,cores=2,workers=2");
}

struct cc_cond {
	struct ccm_fabric *f;
	unsigned int cc;
};

static bool cc_faulted(void *arg)
{
	const struct cc_cond *c = arg;
	struct ccm_cc_info info;

	ccm_cc_info(c->f, 0, c->cc, &info);
	return info.state == CCM_CC_FAULT;
}

/* Run @prog on CC core 0 and return its fault text; the job fails -EIO. */
static void run_to_fault(uint32_t prog, char *fault, size_t len)
{
	struct cc_cond c = { .f = t.f, .cc = 0 };
	struct ccm_cc_info info;
	uint64_t job = tsim_submit(d0, prog, 0);

	if (ccm_fabric_wait(t.f, cc_faulted, &c, ccm_now_ns() + 10 * TSIM_SEC))
		FAIL("the CC core did not fault");
	ccm_cc_info(t.f, 0, 0, &info);
	snprintf(fault, len, "%s", info.fault);
	ccore_test_log("fault: %s", fault);
	ASSERT_EQ(tsim_wait(d0, job), -EIO);
}

TEST(bad_index_or_count_faults)
{
	struct drm_ccore_desc d;
	char fault[CCM_ERR_LEN];
	struct bufs b;
	uint32_t plain;

	one_copy_ring(&b, BLOCK, 4, 0);
	run_to_fault(tsim_load(d0, 0, "movi r3, 4\nstarti ring(%u,%u), r3, 1\nret\n", ENG, RNG),
		     fault, sizeof(fault));
	ASSERT_STR_CONTAINS(fault, ": starti ring(1,3), r3, 1: index 4 out of range");
	ASSERT_STR_CONTAINS(fault, "takes indexes 0..3 (index_count 4)");
	/* a huge register value is just as out of range */
	run_to_fault(tsim_load(d0, 0, "movi r0, 0xffffffff\nstarti ring(%u,%u), r0, 1\nret\n",
			       ENG, RNG), fault, sizeof(fault));
	ASSERT_STR_CONTAINS(fault, "index 4294967295 out of range");
	/* more descriptors than written */
	run_to_fault(tsim_load(d0, 0, "starti ring(%u,%u), r0, 2\nret\n", ENG, RNG), fault,
		     sizeof(fault));
	ASSERT_STR_CONTAINS(fault, "2 descriptors: ring 3 of engine 1 has 1 written, STARTI starts 1..1");
	/* a ring that is not indexed takes no STARTI, not even index 0 */
	plain = tsim_ring(d0, 0, 0, 5, 4, PACKET);
	d = copy_desc(b.vd, b.vs, BLOCK);
	submit(plain, &d, 1);
	run_to_fault(tsim_load(d0, 0, "starti ring(0,5), r0, 1\nret\n"), fault, sizeof(fault));
	ASSERT_STR_CONTAINS(fault, "index 0: ring 5 of engine 0 is not indexed (index_count 0)");
	/* nothing moved, and the CC core runs the next job */
	expect_block(&b, 0, false);
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 0, "movi r1, 3\nstarti ring(%u,%u), r1, 1\n"
					 "rwait ring(%u,%u)\nret\n", ENG, RNG, ENG, RNG)), 0);
	expect_block(&b, 3, true);
	tsim_close(&t);
}

TEST(load_rejects_starti_of_zero)
{
	uint32_t bad;

	tsim_open(&t, "devices=1,cores=2,workers=2");
	d0 = t.dev[0];
	indexed_ring(4, BLOCK, 4);
	EXPECT_ERR(tsim_try_load(d0, 0, &bad, "nop\nstarti ring(%u,%u), r1, 0\nret\n", ENG, RNG),
		   -EINVAL, "instruction 1 (starti): descriptor count is 0; expected 1 or more");
	ASSERT_EQ(bad, 1);
	EXPECT_ERR(tsim_try_load(d0, 0, &bad, "starti ring(0,9), r1, 1\nret\n"), -EACCES,
		   "instruction 0 (starti): ring(0,9) is not a ring this context created");
	EXPECT_ERR(tsim_try_load(d0, 0, &bad, ".insn 0x11, 8, %u, %u, 0, 1, 0\nret\n", ENG, RNG),
		   -EINVAL, "instruction 0 (starti): register r8 (r0..r7)");
	EXPECT_ERR(tsim_try_load(d0, 0, &bad, ".insn 0x11, 1, %u, %u, 7, 1, 0\nret\n", ENG, RNG),
		   -EINVAL, "instruction 0 (starti): field sem must be 0, got 7");
	tsim_close(&t);
}

/* Submission checks each range at index 0 and at index_count - 1. */
TEST(submit_checks_every_index)
{
	struct drm_ccore_ring_submit a = { 0 };
	struct drm_ccore_desc d[2];
	struct bufs b;
	uint32_t ring, neg;

	tsim_open(&t, "devices=1,cores=2,workers=2");
	d0 = t.dev[0];
	make_bufs(&b);
	ring = indexed_ring(4, BLOCK, NBLK);
	d[0] = copy_desc(b.vd, b.vs, BLOCK);
	/* index 7 of block 1 would be block 8: past both buffers; dst first */
	d[1] = copy_desc(b.vd + BLOCK, b.vs + BLOCK, BLOCK);
	a.handle = ring;
	a.count = 2;
	a.descs = (uintptr_t)d;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_RING_SUBMIT, &a), -EINVAL,
		   "descriptor 1: dst");
	ASSERT_STR_CONTAINS(ccore_last_error(), "at indexes 0..7 (index_stride 4096)");
	ASSERT_STR_CONTAINS(ccore_last_error(), "not inside one buffer");
	ASSERT_EQ(a.bad_index, 1);
	/* only src0 leaves */
	d[1].dst = b.vd;
	EXPECT_ERR(ccore_dev_ring_submit(d0, ring, d, 2, 0), -EINVAL, "descriptor 1: src0");
	/* a byte short of the end fits; a byte longer does not */
	d[1] = copy_desc(b.vd + 1, b.vs, BLOCK - 1);
	submit(ring, d, 2);
	d[0] = copy_desc(b.vd + 1, b.vs, BLOCK);
	EXPECT_ERR(ccore_dev_ring_submit(d0, ring, d, 1, 0), -EINVAL, "descriptor 0: dst");

	/* going backwards from block 0 leaves at index 1 already */
	ASSERT_EQ(ccore_dev_ring_create_indexed(d0, 0, 0, 6, 2, PACKET, 0, -(int64_t)BLOCK, 2,
						&neg), 0);
	d[0] = copy_desc(b.vd + BLOCK, b.vs, BLOCK);
	EXPECT_ERR(ccore_dev_ring_submit(d0, neg, d, 1, 0), -EINVAL,
		   "descriptor 0: src0 [0x");
	ASSERT_STR_CONTAINS(ccore_last_error(), "at indexes 0..1 (index_stride -4096)");
	d[0].src0 = b.vs + BLOCK;
	submit(neg, d, 1);
	/* SEM_WRITE is never moved: its target is checked as it is */
	d[0] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_SEM_WRITE, .value = 1,
					.dst = tsim_sem(d0, 0, 1) };
	submit(neg, d, 1);
	tsim_close(&t);
}

TEST(ring_create_rejects_bad_index_fields)
{
	struct drm_ccore_ring_create a = { .engine = ENG, .ring = RNG, .size = 4 };
	uint32_t h;

	tsim_open(&t, "devices=1,cores=2,workers=2");
	d0 = t.dev[0];
	EXPECT_ERR(ccore_dev_ring_create_indexed(d0, 0, ENG, RNG, 4, 0, 0, 4096, 0, &h), -EINVAL,
		   "index_stride 4096 without index_count");
	EXPECT_ERR(ccore_dev_ring_create_indexed(d0, 0, ENG, RNG, 4, 0, 0, 0,
						 DRM_CCORE_MAX_INDEX_COUNT + 1, &h),
		   -EINVAL, "index_count 16777217 out of range (0 not indexed, or 1..16777216)");
	EXPECT_ERR(ccore_dev_ring_create_indexed(d0, 0, ENG, RNG, 4, 0, 0,
						 DRM_CCORE_MAX_INDEX_STRIDE + 1, 2, &h),
		   -EINVAL, "index_stride 549755813889 out of range");
	EXPECT_ERR(ccore_dev_ring_create_indexed(d0, 0, ENG, RNG, 4, 0, 0,
						 -DRM_CCORE_MAX_INDEX_STRIDE - 1, 2, &h),
		   -EINVAL, "index_stride -549755813889 out of range");
	a.pad2 = 1;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_RING_CREATE, &a), -EINVAL,
		   "RING_CREATE: pad2 must be zero, got 1");
	/* the limits themselves are fine, and nothing above was claimed */
	ASSERT_EQ(ccore_dev_ring_create_indexed(d0, 0, ENG, RNG, 4, 0, 0,
						-DRM_CCORE_MAX_INDEX_STRIDE,
						DRM_CCORE_MAX_INDEX_COUNT, &h), 0);
	ASSERT_EQ(ccore_dev_ring_destroy(d0, h), 0);
	/* index_count 1 with a stride: only index 0 exists */
	ASSERT_EQ(ccore_dev_ring_create_indexed(d0, 0, ENG, RNG, 4, 0, 0, 12345, 1, &h), 0);
	tsim_close(&t);
}

/* A caller built before index_stride passes 32 bytes: a plain ring. */
TEST(old_ring_create_size_still_works)
{
	struct drm_ccore_ring_create a = { .engine = ENG, .ring = RNG, .size = 4 };
	const unsigned long v1 = _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE,
				      DRM_COMMAND_BASE + DRM_CCORE_RING_CREATE, 32);
	struct drm_ccore_desc d;
	char fault[CCM_ERR_LEN];
	struct bufs b;

	tsim_open(&t, "devices=1,cores=2,workers=2");
	d0 = t.dev[0];
	make_bufs(&b);
	/* the bytes past 32 are not the callee's to read or write */
	a.index_stride = 4096;
	a.index_count = 99;
	a.pad2 = 77;
	ASSERT_EQ(ccore_dev_ioctl(d0, v1, &a), 0);
	ASSERT_NE(a.handle, 0);
	ASSERT_EQ(a.pad2, 77);
	d = copy_desc(b.vd, b.vs, BLOCK);
	submit(a.handle, &d, 1);
	run_to_fault(tsim_load(d0, 0, "movi r1, 1\nstarti ring(%u,%u), r1, 1\nret\n", ENG, RNG),
		     fault, sizeof(fault));
	ASSERT_STR_CONTAINS(fault, "is not indexed");
	tsim_close(&t);
}

/*
 * Recovery leaves no displacement behind: a DMA error in the middle of a
 * loop, then the loop again; a destroyed indexed ring claimed again as a
 * plain one.
 */
TEST(recovery_leaves_no_stale_index)
{
	struct drm_ccore_desc d;
	struct bufs b;
	uint32_t ring, prog, last;

	ring = one_copy_ring(&b, BLOCK, NBLK, 0);
	prog = loop_prog(0, NBLK, 1);
	ASSERT_EQ(ccm_inject_dma_error(t.f, 0, 0, NULL), 0);
	ASSERT_EQ(tsim_run(d0, prog), -EIO);
	memset(b.dst, 0, NBLK * BLOCK);
	ASSERT_EQ(tsim_run(d0, prog), 0);
	for (unsigned int i = 0; i < NBLK; i++)
		expect_block(&b, i, true);
	/* end on index 5, then the ring goes and comes back plain */
	last = tsim_load(d0, 0, "movi r1, 5\nstarti ring(%u,%u), r1, 1\nrwait ring(%u,%u)\nret\n",
			 ENG, RNG, ENG, RNG);
	ASSERT_EQ(tsim_run(d0, last), 0);
	ASSERT_EQ(ccore_dev_program_free(d0, prog), 0);
	ASSERT_EQ(ccore_dev_program_free(d0, last), 0);
	ASSERT_EQ(ccore_dev_ring_destroy(d0, ring), 0);
	memset(b.dst, 0, NBLK * BLOCK);
	ring = tsim_ring(d0, 0, ENG, RNG, 4, PACKET);
	d = copy_desc(b.vd, b.vs, BLOCK);
	submit(ring, &d, 1);
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 0, "start ring(%u,%u), 1\nrwait ring(%u,%u)\nret\n",
					 ENG, RNG, ENG, RNG)), 0);
	for (unsigned int i = 0; i < NBLK; i++)
		expect_block(&b, i, i == 0);
	tsim_close(&t);
}

/* A compute program's DMA ring is checked at index 0 only: not indexed. */
TEST(compute_dma_ring_may_not_be_indexed)
{
	struct drm_ccore_ce_insn p[2] = {
		{ .opcode = DRM_CCORE_CE_DMA, .len = 64 },
		{ .opcode = DRM_CCORE_CE_END },
	};
	struct bufs b;

	tsim_open(&t, "devices=1,cores=2,workers=2");
	d0 = t.dev[0];
	make_bufs(&b);
	p[0].dst = b.vd;
	p[0].src = b.vs;
	indexed_ring(4, BLOCK, NBLK);
	EXPECT_ERR(ccore_dev_compute_submit(d0, 0, p, 2, ENG, RNG, 0, NULL), -EINVAL,
		   "ring 3 of engine 1 is indexed (index_count 8); a compute program's DMA ring must not be");
	tsim_close(&t);
}

/*
 * The timed model moves the same bytes in the same packets, at arrival,
 * to the same blocks; here the destination is another device's memory,
 * which the links count once per byte as for any descriptor.
 */
static void cross_device_loop(const char *cfg, struct drm_ccore_ring_stats *st,
			      struct ccm_link_stats *link)
{
	uint32_t hs, hd, hi, ring;
	uint64_t vs, vd, vi;
	uint8_t *src, *dst;
	struct drm_ccore_desc d;

	tsim_open(&t, cfg);
	d0 = t.dev[0];
	src = tsim_bo(d0, NBLK * BLOCK, &hs, &vs);
	dst = tsim_bo(t.dev[1], NBLK * BLOCK, &hd, &vd);
	fill_blocks(src, 5);
	ASSERT_EQ(ccore_dev_bo_import(d0, t.dev[1], hd, &hi, &vi), 0);
	ring = indexed_ring(2, BLOCK, NBLK);
	d = copy_desc(vi, vs, BLOCK);
	submit(ring, &d, 1);
	ASSERT_EQ(tsim_run(d0, loop_prog(0, NBLK, 1)), 0);
	ASSERT_MEM_EQ(dst, src, NBLK * BLOCK);
	ring_stats(ring, st);
	ccm_link_stats(t.f, 0, link);
	tsim_close(&t);
}

TEST(timed_mode_moves_the_same_bytes)
{
	struct drm_ccore_ring_stats fs, ts;
	struct ccm_link_stats fl, tl;

	cross_device_loop("devices=2,cores=2,workers=2", &fs, &fl);
	cross_device_loop("devices=2,cores=2,timed=1", &ts, &tl);
	ASSERT_U64_EQ(fs.bytes, NBLK * BLOCK);
	ASSERT_U64_EQ(ts.bytes, fs.bytes);
	ASSERT_U64_EQ(ts.packets, fs.packets);
	ASSERT_U64_EQ(ts.started, NBLK);
	ASSERT_U64_EQ(ts.completed, NBLK);
	ASSERT_U64_EQ(fl.bytes_out[CCM_TIER_DEVICE], NBLK * BLOCK);
	ASSERT_U64_EQ(tl.bytes_out[CCM_TIER_DEVICE], NBLK * BLOCK);
}

/* Virtual buffers: no bytes behind them, the counters and time still go. */
TEST(timed_virtual_completes)
{
	struct drm_ccore_ring_stats st;
	struct drm_ccore_desc d;
	uint32_t hs, hd, ring;
	uint64_t vs, vd;

	tsim_open(&t, "devices=1,cores=2,timed=1,virtual=1");
	d0 = t.dev[0];
	ASSERT_EQ(ccore_dev_bo_create(d0, NBLK * BLOCK, &hs, &vs), 0);
	ASSERT_EQ(ccore_dev_bo_create(d0, NBLK * BLOCK, &hd, &vd), 0);
	ring = indexed_ring(2, -(int64_t)BLOCK, NBLK);
	d = copy_desc(vd + (NBLK - 1) * BLOCK, vs + (NBLK - 1) * BLOCK, BLOCK);
	submit(ring, &d, 1);
	ASSERT_EQ(tsim_run(d0, loop_prog(0, NBLK, 1)), 0);
	ring_stats(ring, &st);
	ASSERT_U64_EQ(st.bytes, NBLK * BLOCK);
	ASSERT_U64_EQ(st.completed, NBLK);
	ASSERT_GT(ccm_fabric_now_ns(t.f), 0);
	tsim_close(&t);
}
