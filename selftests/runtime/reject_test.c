// SPDX-License-Identifier: GPL-2.0
/*
 * Bad input never corrupts memory: every rejection path of the uAPI on the
 * sim backend, each checked for its errno and for a message that names the
 * descriptor, instruction or field at fault.  Guard bytes around buffers
 * show that nothing outside a buffer is ever written.
 */
#include "tsim.h"

static struct tsim t;
static struct ccore_dev *d0, *d1;
static uint32_t bo[2], ring, sem;
static uint64_t va[2];
static uint8_t *host[2];

#define BUF 8192

static void setup(void)
{
	tsim_open(&t, "devices=2,cores=2,engines=2,workers=2,sems=256");
	d0 = t.dev[0];
	d1 = t.dev[1];
	host[0] = tsim_bo(d0, BUF, &bo[0], &va[0]);
	host[1] = tsim_bo(d0, BUF, &bo[1], &va[1]);
	memset(host[0], 0xa5, BUF);
	memset(host[1], 0xee, BUF);
	ring = tsim_ring(d0, 0, 0, 0, 8, 512);
	sem = tsim_sem(d0, 0, 2);
}

static struct drm_ccore_desc copy_desc(uint64_t dst, uint64_t src, uint64_t len)
{
	return (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY, .dst = dst, .src0 = src, .len = len };
}

/* Submit @d as descriptor 2 of 3 (the others valid); expect rejection. */
static void reject_desc(struct drm_ccore_desc d, int err, const char *text)
{
	struct drm_ccore_desc ds[3] = {
		copy_desc(va[1], va[0], 64), copy_desc(va[1] + 64, va[0], 64), d,
	};
	struct drm_ccore_ring_submit a = {
		.handle = ring, .count = 3, .descs = (uintptr_t)ds, .flags = DRM_CCORE_SUBMIT_F_START,
	};
	struct drm_ccore_ring_stats st;
	uint8_t guard[BUF];

	memset(guard, 0xee, sizeof(guard));
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_RING_SUBMIT, &a), err, text);
	ASSERT_EQ(a.bad_index, 2);
	ASSERT_STR_CONTAINS(ccore_last_error(), "descriptor 2");
	/* nothing was written to the ring, nothing ran, no byte changed */
	ASSERT_EQ(ccore_dev_ring_stats(d0, ring, &st), 0);
	ASSERT_EQ(st.started, 0);
	ASSERT_EQ(st.bytes, 0);
	ASSERT_MEM_EQ(host[1], guard, BUF);
}

TEST(descriptor_outside_buffers)
{
	setup();
	reject_desc(copy_desc(va[1] + BUF - 10, va[0], 11), -EINVAL, "dst");
	reject_desc(copy_desc(va[1], va[0] + 1, BUF), -EINVAL, "src0");
	reject_desc(copy_desc(va[1] - 1, va[0], 16), -EINVAL, "not inside one buffer");
	reject_desc(copy_desc(0x1234, va[0], 16), -EINVAL, "dst");
	reject_desc(copy_desc(va[1], va[0], ~0ull), -EINVAL, "dst");
	/* a span crossing from one buffer into the next is not inside one */
	reject_desc(copy_desc(va[0] + BUF - 8, va[1], 16), -EINVAL, "dst");
	tsim_close(&t);
}

TEST(descriptor_bad_fields)
{
	struct drm_ccore_desc d;

	setup();
	reject_desc(copy_desc(va[1], va[0], 0), -EINVAL, "len is 0");
	d = copy_desc(va[1], va[0], 8);
	d.op = 0;
	reject_desc(d, -EINVAL, "unknown op 0");
	d.op = 9;
	reject_desc(d, -EINVAL, "unknown op 9");
	d = copy_desc(va[1], va[0], 8);
	d.flags = 0x80;
	reject_desc(d, -EINVAL, "unknown flags");
	d = copy_desc(va[1], va[0], 8);
	d.dtype = DRM_CCORE_DTYPE_F32;
	reject_desc(d, -EINVAL, "dtype must be 0 for COPY");
	d = copy_desc(va[1], va[0], 8);
	d.op = DRM_CCORE_DESC_REDUCE;
	d.src1 = va[0];
	d.redop = DRM_CCORE_REDOP_SUM;
	reject_desc(d, -EINVAL, "unknown dtype 0");
	d.dtype = 11;
	reject_desc(d, -EINVAL, "unknown dtype 11");
	d.dtype = DRM_CCORE_DTYPE_F64;
	d.redop = 5;
	reject_desc(d, -EINVAL, "unknown redop 5");
	d.redop = DRM_CCORE_REDOP_MAX;
	d.len = 12;
	reject_desc(d, -EINVAL, "not a multiple of the f64 size 8");
	d.len = 16;
	d.src1 = va[0] + BUF - 8;
	reject_desc(d, -EINVAL, "src1");
	d = copy_desc(va[1], va[0], 8);
	d.op = DRM_CCORE_DESC_DIV;
	d.dtype = DRM_CCORE_DTYPE_I32;
	reject_desc(d, -EINVAL, "DIV by 0; the divisor must be 1..2147483648");
	d.value = 2;
	d.dtype = 0;
	reject_desc(d, -EINVAL, "unknown dtype 0");
	d.dtype = DRM_CCORE_DTYPE_I64;
	d.len = 12;
	reject_desc(d, -EINVAL, "not a multiple of the i64 size 8");
	d = copy_desc(va[1], va[0], 8);
	d.signal_sem = sem + 1;
	reject_desc(d, -EINVAL, "without the SIGNAL flag");
	d.signal_sem = 0;
	d.signal_value = 1;
	reject_desc(d, -EINVAL, "without the SIGNAL flag");
	tsim_close(&t);
}

TEST(descriptor_semaphores_must_be_owned)
{
	struct drm_ccore_desc d = { .op = DRM_CCORE_DESC_SEM_WRITE, .value = 1 };
	uint32_t other;

	setup();
	other = tsim_sem(d1, 0, 1);	/* another context's, not imported */
	d.dst = other;
	reject_desc(d, -EACCES, "not a semaphore this context allocated");
	d.dst = DRM_CCORE_SEM_REF(0, 0, 300);	/* beyond the bank */
	reject_desc(d, -EINVAL, "names no semaphore");
	d.dst = sem;
	d.len = 4;
	reject_desc(d, -EINVAL, "len must be 0 for SEM_WRITE");
	d = copy_desc(va[1], va[0], 8);
	d.flags = DRM_CCORE_DESC_F_SIGNAL;
	d.signal_sem = other;
	d.signal_value = 1;
	reject_desc(d, -EACCES, "signal_sem");
	/* once imported, the same semaphore is accepted */
	ASSERT_EQ(ccore_dev_sem_import(d0, d1, other), 0);
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	ASSERT_EQ(ccore_dev_sem_wait(d1, other, 1, 5 * TSIM_SEC), 0);
	tsim_close(&t);
}

TEST(guard_bytes_survive_a_valid_copy)
{
	setup();
	struct drm_ccore_desc d = copy_desc(va[1] + 100, va[0] + 7, 4096);

	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	while (!ccm_ring_idle(t.f, 0, 0, 0, 0))
		;
	for (int i = 0; i < BUF; i++) {
		uint8_t want = i >= 100 && i < 4196 ? 0xa5 : 0xee;

		if (host[1][i] != want)
			FAIL("byte %d is 0x%02x, expected 0x%02x", i, host[1][i], want);
	}
	tsim_close(&t);
}

TEST(closed_buffer_is_gone_for_new_descriptors)
{
	setup();
	ASSERT_EQ(ccore_dev_bo_close(d0, bo[0]), 0);
	EXPECT_ERR(ccore_dev_bo_close(d0, bo[0]), -EINVAL, "no buffer object with handle");
	struct drm_ccore_desc d = copy_desc(va[1], va[0], 16);
	struct drm_ccore_ring_submit a = { .handle = ring, .count = 1, .descs = (uintptr_t)&d };

	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_RING_SUBMIT, &a), -EINVAL,
		   "descriptor 0: src0");
	ASSERT_EQ(a.bad_index, 0);
	tsim_close(&t);
}

TEST(ring_submit_errors)
{
	struct drm_ccore_desc ds[9];
	struct drm_ccore_ring_submit a = { .handle = ring, .count = 1 };

	setup();
	for (int i = 0; i < 9; i++)
		ds[i] = copy_desc(va[1], va[0], 16);
	EXPECT_ERR(ccore_dev_ring_submit(d0, 99, ds, 1, 0), -ENOENT, "no ring with handle 99");
	EXPECT_ERR(ccore_dev_ring_submit(d0, ring, ds, 0, 0), -EINVAL, "count is 0");
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_RING_SUBMIT, &a), -EFAULT, "NULL");
	EXPECT_ERR(ccore_dev_ring_submit(d0, ring, ds, 1, 0x10), -EINVAL, "unknown flags");
	EXPECT_ERR(ccore_dev_ring_submit(d0, ring, ds, 9, 0), -ENOSPC, "8 free slots, 9");
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, ds, 8, 0), 0);
	EXPECT_ERR(ccore_dev_ring_submit(d0, ring, ds, 1, 0), -ENOSPC, "0 free slots");
	tsim_close(&t);
}

TEST(ring_create_errors)
{
	uint32_t h;

	setup();
	EXPECT_ERR(ccore_dev_ring_create(d0, 2, 0, 0, 4, 0, 0, &h), -EINVAL, "core 2 of device 0");
	EXPECT_ERR(ccore_dev_ring_create(d0, 0, 2, 0, 4, 0, 0, &h), -EINVAL, "engines 0..1");
	EXPECT_ERR(ccore_dev_ring_create(d0, 0, 0, 16, 4, 0, 0, &h), -EINVAL, "rings 0..15");
	EXPECT_ERR(ccore_dev_ring_create(d0, 0, 0, 1, 0, 0, 0, &h), -EINVAL, "ring size 0");
	EXPECT_ERR(ccore_dev_ring_create(d0, 0, 0, 1, 4, 3000, 0, &h), -EINVAL,
		   "packet_size 3000 is not a power of two from 512 to 65536");
	EXPECT_ERR(ccore_dev_ring_create(d0, 0, 0, 1, 4, 256, 0, &h), -EINVAL, "packet_size 256");
	EXPECT_ERR(ccore_dev_ring_create(d0, 0, 0, 1, 4, 131072, 0, &h), -EINVAL,
		   "packet_size 131072");
	EXPECT_ERR(ccore_dev_ring_create(d0, 0, 0, 0, 4, 0, 0, &h), -EBUSY, "already in use");
	EXPECT_ERR(ccore_dev_ring_create(d0, 0, 0, 1, 4, 0, 4, &h), -EINVAL, "unknown flags");
	tsim_close(&t);
}

TEST(ring_busy_cannot_be_destroyed_or_rewritten)
{
	struct drm_ccore_desc d;
	uint32_t big, r2;
	uint64_t bva;

	setup();
	tsim_bo(d0, 64u << 20, &big, &bva);
	d = copy_desc(bva + (32u << 20), bva, 32u << 20);
	r2 = tsim_ring(d0, 1, 1, 1, 4, 512);
	ASSERT_EQ(ccore_dev_ring_submit(d0, r2, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	EXPECT_ERR(ccore_dev_ring_destroy(d0, r2), -EBUSY, "in flight");
	EXPECT_ERR(ccore_dev_ring_submit(d0, r2, &d, 1, 0), -EBUSY, "in flight");
	while (!ccm_ring_idle(t.f, 0, 1, 1, 1))
		;
	ASSERT_EQ(ccore_dev_ring_destroy(d0, r2), 0);
	EXPECT_ERR(ccore_dev_ring_destroy(d0, r2), -ENOENT, "no ring");
	tsim_close(&t);
}

/* Load a program and expect rejection at instruction @idx. */
#define REJECT_PROG(cc, err, idx, text, ...)                                     \
	do {                                                                      \
		uint32_t bad_;                                                    \
		EXPECT_ERR(tsim_try_load(d0, cc, &bad_, __VA_ARGS__), err, text); \
		ASSERT_EQ(bad_, idx);                                             \
	} while (0)

TEST(program_rejections_name_the_instruction)
{
	uint32_t other;

	setup();
	other = tsim_sem(d1, 0, 1);
	REJECT_PROG(0, -EINVAL, 1, "instruction 1: unknown opcode 0x55",
		    "nop\n.insn 0x55, 0, 0, 0, 0, 0, 0\nret\n");
	REJECT_PROG(0, -EINVAL, 0, "field imm must be 0", ".insn 0, 0, 0, 0, 0, 5, 0\nret\n");
	REJECT_PROG(0, -EINVAL, 0, "register r9", ".insn 0x0a, 9, 0, 0, 0, 1, 0\nret\n");
	REJECT_PROG(0, -EINVAL, 1, "branch target 101 is outside the program (0..2)",
		    "nop\n.insn 0x08, 0, 0, 0, 0, 0, 100\nret\n");
	REJECT_PROG(0, -EINVAL, 0, "branch target -1", ".insn 0x08, 0, 0, 0, 0, 0, -1\nret\n");
	REJECT_PROG(0, -EINVAL, 0, "ring(2,0) out of range", "start ring(2,0), 1\nret\n");
	REJECT_PROG(0, -EACCES, 0, "ring(0,1) is not a ring this context created",
		    "rwait ring(0,1)\nret\n");
	REJECT_PROG(2, -EACCES, 0, "ring(0,0) is not a ring this context created",
		    "rwait ring(0,0)\nret\n");	/* ring 0 belongs to core 0, not 1 */
	REJECT_PROG(0, -EINVAL, 0, "descriptor count is 0", "start ring(0,0), 0\nret\n");
	/* one START of 2^32 - 1 SEM_WRITEs counted them for a minute, the
	 * engine's lock held (found by selftests/fuzz/verify_fuzz.c) */
	REJECT_PROG(0, -EINVAL, 0, "descriptor count 9 is more than the 8 slots of ring(0,0)",
		    "start ring(0,0), 9\nret\n");
	REJECT_PROG(0, -EINVAL, 1, "descriptor count 4294967295 is more than the 8 slots",
		    "movi r0, 0\nstarti ring(0,0), r0, 4294967295\nret\n");
	REJECT_PROG(0, -EINVAL, 0, "local semaphores only", "wait " SEMF ", 1\nret\n", S3(other));
	REJECT_PROG(0, -EACCES, 0, "not a semaphore this context allocated",
		    "add " SEMF ", 1\nret\n", S3(other));
	REJECT_PROG(0, -EINVAL, 0, "names no semaphore", "add sem(7,0,1), 1\nret\n");
	REJECT_PROG(0, -EINVAL, 0, "next is reserved", "next\nret\n");
	REJECT_PROG(0, -EINVAL, 1, "falls off its end", "nop\nnop\n");
	EXPECT_ERR(tsim_try_load(d0, 4, &other, "ret\n"), -EINVAL, "CC core 4 does not exist (0..3)");
	tsim_close(&t);
}

TEST(program_load_bad_arguments)
{
	struct drm_ccore_program_load a = { .cc_core = 0, .count = 1 };
	struct drm_ccore_insn ret = { .opcode = DRM_CCORE_OP_RET };
	uint32_t h;

	setup();
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_PROGRAM_LOAD, &a), -EFAULT, "NULL");
	EXPECT_ERR(ccore_dev_program_load(d0, 0, &ret, 0, &h), -EINVAL, "no instructions");
	tsim_close(&t);
}

TEST(program_memory_fills_up_cleanly)
{
	struct drm_ccore_insn *big;
	uint32_t h, h2;

	tsim_open(&t, "devices=1,cores=1,program_size=64");
	d0 = t.dev[0];
	big = calloc(40, sizeof(*big));
	big[39].opcode = DRM_CCORE_OP_RET;
	ASSERT_EQ(ccore_dev_program_load(d0, 0, big, 40, &h), 0);
	EXPECT_ERR(ccore_dev_program_load(d0, 0, big, 40, &h2), -ENOSPC, "no room for 40");
	ASSERT_EQ(ccore_dev_program_free(d0, h), 0);
	ASSERT_EQ(ccore_dev_program_load(d0, 0, big, 40, &h2), 0);
	ASSERT_EQ(tsim_run(d0, h2), 0);
	free(big);
	tsim_close(&t);
}

TEST(job_errors)
{
	struct drm_ccore_submit s = { 0 };
	uint32_t p;
	uint64_t job;
	int st;

	setup();
	p = tsim_load(d0, 0, "acquire " SEMF ", 1\nret\n", S3(sem));
	EXPECT_ERR(ccore_dev_submit(d0, 77, 0, &job), -ENOENT, "no program with handle 77");
	EXPECT_ERR(ccore_dev_submit(d0, p, 0x8, &job), -EINVAL, "unknown flags");
	s.program = p;
	s.out_syncobj = 3;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SUBMIT, &s), -EOPNOTSUPP, "syncobj");
	job = tsim_submit(d0, p, 0);
	EXPECT_ERR(ccore_dev_program_free(d0, p), -EBUSY, "1 jobs queued or running");
	EXPECT_ERR(ccore_dev_job_wait(d0, job, 1000000, &st), -ETIMEDOUT, "still running");
	EXPECT_ERR(ccore_dev_job_wait(d0, job + 100, TSIM_SEC, &st), -EINVAL, "unknown");
	tsim_sem_set(d0, sem, 1);
	ASSERT_EQ(tsim_wait(d0, job), 0);
	ASSERT_EQ(ccore_dev_program_free(d0, p), 0);
	EXPECT_ERR(ccore_dev_trigger(d0, 9, 1), -EINVAL, "CC core 9");
	EXPECT_ERR(ccore_dev_trigger(d0, 0, 0), -EINVAL, "count 0 out of range (1..65535)");
	tsim_close(&t);
}

TEST(semaphore_errors)
{
	struct drm_ccore_sem_access a = { .sem = 0, .op = 7 };
	uint32_t first, other;

	setup();
	other = tsim_sem(d1, 1, 1);
	EXPECT_ERR(ccore_dev_sem_alloc(d0, 0, 0, &first), -EINVAL, "count 0 out of range (1..256)");
	EXPECT_ERR(ccore_dev_sem_alloc(d0, 0, 257, &first), -EINVAL, "count 257");
	EXPECT_ERR(ccore_dev_sem_alloc(d0, 5, 1, &first), -EINVAL, "core 5 of device 0");
	EXPECT_ERR(ccore_dev_sem_alloc(d0, 1, 256, &first), 0, "");
	EXPECT_ERR(ccore_dev_sem_alloc(d0, 1, 1, &first), -ENOSPC, "no 1 free");
	a.sem = sem;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SEM_ACCESS, &a), -EINVAL, "unknown op 7");
	EXPECT_ERR(ccore_dev_sem_write(d0, other, DRM_CCORE_SEM_SET, 1), -EACCES,
		   "not allocated or imported by this context");
	EXPECT_ERR(ccore_dev_sem_read(d0, DRM_CCORE_SEM_REF(9, 0, 0), &first), -EINVAL,
		   "does not exist");
	EXPECT_ERR(ccore_dev_sem_free(d0, sem + 1), -EINVAL, "not the first of a block");
	EXPECT_ERR(ccore_dev_sem_free(d0, other), -EINVAL, "not the first of a block");
	EXPECT_ERR(ccore_dev_sem_wait(d0, sem, 1, 1000000), -ETIMEDOUT, "still below 1");
	ASSERT_EQ(ccore_dev_sem_free(d0, sem), 0);
	EXPECT_ERR(ccore_dev_sem_read(d0, sem, &first), -EACCES, "not allocated");
	tsim_close(&t);
}

TEST(generic_ioctl_errors)
{
	struct drm_ccore_param_args p = { .param = 0, .pad = 1 };
	struct drm_ccore_bo_create b = { .size = 0 };
	struct drm_gem_close gc = { .handle = 1, .pad = 1 };
	struct drm_prime_handle ph = { .fd = 12345 };
	struct drm_ccore_sem_import si = { .fd = 12345 };

	setup();
	EXPECT_ERR(ccore_dev_ioctl(d0, 0xdeadbeef, &p), -ENOTTY, "unknown ioctl");
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_GET_PARAM, NULL), -EFAULT, "NULL");
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_GET_PARAM, &p), -EINVAL, "pad must be zero");
	p.pad = 0;
	p.param = 99;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_GET_PARAM, &p), -EINVAL, "unknown param 99");
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_BO_CREATE, &b), -EINVAL, "size 0 out of range");
	b.size = 1ull << 50;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_BO_CREATE, &b), -EINVAL, "out of range");
	b.size = 8;
	b.flags = 2;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_BO_CREATE, &b), -EINVAL, "unknown flags");
	b.flags = 0;
	b.userptr = 4096;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_BO_CREATE, &b), -EINVAL,
		   "userptr is set without the USERPTR flag");
	b.flags = DRM_CCORE_BO_F_USERPTR;
	b.userptr = 4097;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_BO_CREATE, &b), -EINVAL,
		   "must be non-zero multiples of the 4096-byte page");
	/* as the kernel driver: registered memory is no larger than HBM_SIZE */
	b.userptr = 4096;
	b.size = 1ull << 50;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_BO_CREATE, &b), -EINVAL,
		   "size 1125899906842624 at userptr 0x1000 out of range");
	b.userptr = 0ull - 4096;
	b.size = 8192;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_BO_CREATE, &b), -EINVAL,
		   "not past the end of the address space");
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_GEM_CLOSE, &gc), -EINVAL, "pad must be zero");
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_PRIME_FD_TO_HANDLE, &ph), -EBADF, "fd 12345");
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SEM_IMPORT, &si), -EBADF, "fd 12345");
	tsim_close(&t);
}

TEST(device_memory_is_accounted)
{
	uint32_t h1, h2, h3;
	uint64_t v;

	tsim_open(&t, "devices=1,hbm=16M");
	d0 = t.dev[0];
	ASSERT_EQ(ccore_dev_bo_create(d0, 12u << 20, &h1, &v), 0);
	EXPECT_ERR(ccore_dev_bo_create(d0, 8u << 20, &h2, &v), -ENOMEM, "memory exhausted");
	ASSERT_EQ(ccore_dev_bo_close(d0, h1), 0);
	ASSERT_EQ(ccore_dev_bo_create(d0, 8u << 20, &h2, &v), 0);
	ASSERT_EQ(ccore_dev_bo_create(d0, 8u << 20, &h3, &v), 0);
	tsim_close(&t);
}

TEST(packet_size_knobs_follow_their_rules)
{
	uint64_t v;

	setup();
	EXPECT_ERR(ccore_dev_set_param(d0, DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, 131072), -EINVAL,
		   "CC DMA packet size 131072 is not a power of two from 512 to 65536");
	EXPECT_ERR(ccore_dev_set_param(d0, DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, 5000), -EINVAL,
		   "5000");
	ASSERT_EQ(ccore_dev_set_param(d0, DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, 4096), 0);
	ASSERT_EQ(ccore_dev_param(d0, DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, &v), 0);
	ASSERT_EQ(v, 4096);
	EXPECT_ERR(ccore_dev_set_param(d0, DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE, 2048), -EINVAL,
		   "may only be raised");
	ASSERT_EQ(ccore_dev_set_param(d0, DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE, 65536), 0);
	EXPECT_ERR(ccore_dev_set_param(d0, DRM_CCORE_PARAM_NUM_CORES, 3), -EINVAL, "read-only");
	/* a ring created with packet_size 0 takes the device default */
	{
		struct drm_ccore_ring_stats st;
		uint32_t r = tsim_ring(d0, 1, 0, 0, 1, 0);

		ASSERT_EQ(ccore_dev_ring_stats(d0, r, &st), 0);
		ASSERT_EQ(st.packet_size, 4096);
	}
	tsim_close(&t);
}

TEST(configuration_errors_name_the_key)
{
	struct ccore_system *sys;

	EXPECT_ERR(ccore_system_open("sim", "devices=0", &sys), -EINVAL, "devices=0: expected a number from 1 to 255");
	EXPECT_ERR(ccore_system_open("sim", "devices=65", &sys), -EINVAL,
		   "devices=65: at most 64 per node (the ideal setting, ideal=1, takes up to 255)");
	EXPECT_ERR(ccore_system_open("sim", "colors=3", &sys), -EINVAL, "unknown key 'colors'");
	EXPECT_ERR(ccore_system_open("sim", "cores", &sys), -EINVAL, "expected key=value");
	EXPECT_ERR(ccore_system_open("sim", "topology=mesh", &sys), -EINVAL, "expected ring or torus");
	EXPECT_ERR(ccore_system_open("sim", "devices=16,torus=4x3", &sys), -EINVAL,
		   "torus 4x3 does not hold devices=16");
	EXPECT_ERR(ccore_system_open("sim", "cc_cores=1", &sys), -EINVAL, "cc_cores=1");
	EXPECT_ERR(ccore_system_open("sim", "hbm=12Q", &sys), -EINVAL, "hbm=12Q");
	EXPECT_ERR(ccore_system_open("pcie", NULL, &sys), -EINVAL, "unknown backend; allowed: sim, accel");
}
