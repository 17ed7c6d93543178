// SPDX-License-Identifier: GPL-2.0
/*
 * One table of bad inputs to the ring, semaphore and job ioctls, each with
 * the errno and the enum drm_ccore_reason it must get, run against the sim
 * backend (build/tests/runtime/reason_test) and against the kernel driver
 * in the QEMU guest (build/tests/kernel/reason_accel, -DCCORE_TEST_ACCEL):
 * both answer the same bad input alike because both call model/ccm_uapi.c.
 * Each case also checks that GET_LAST_ERROR names the failed ioctl and
 * that the runtime's message (ccore_last_error()) names the reason; and
 * that threads sharing a device file read only their own reason.
 */
#include "tsim.h"
#include "ccore_internal.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef CCORE_TEST_ACCEL
#define BACKEND "accel"
#else
#define BACKEND "sim"
#endif

#define NO_INDEX 0xffffffffu
#define BAD_HANDLE 0x7fff0000u

static struct ccore_system *sys;
static struct ccore_dev *d0, *d1;
static uint64_t ncores, nengines, ncc, nsems, max_ring, max_prog;
/* ring(0,0,0) of 8 slots, started by program prog; sem (2, named by prog), sem2 (free) */
static uint32_t ring, sem, sem2, prog, other_sem, bo;
static uint64_t va;

static uint64_t param(uint32_t p)
{
	uint64_t v;

	if (ccore_dev_param(d0, p, &v))
		FAIL("GET_PARAM %u: %s", p, ccore_last_error());
	return v;
}

static void setup(void)
{
	if (sys)
		return;
	if (ccore_system_open(BACKEND, "devices=2,cores=2,engines=2,sems=64", &sys))
		FAIL("open %s: %s", BACKEND, ccore_last_error());
	if (ccore_system_num_devices(sys) < 2)
		FAIL("the fabric has %u device(s); these tests need 2",
		     ccore_system_num_devices(sys));
	d0 = ccore_system_device(sys, 0);
	d1 = ccore_system_device(sys, 1);
	ncores = param(DRM_CCORE_PARAM_NUM_CORES);
	nengines = param(DRM_CCORE_PARAM_ENGINES_PER_CORE);
	ncc = ncores * param(DRM_CCORE_PARAM_CC_CORES_PER_CORE);
	nsems = param(DRM_CCORE_PARAM_SEMS_PER_CORE);
	max_ring = param(DRM_CCORE_PARAM_MAX_RING_SIZE);
	max_prog = param(DRM_CCORE_PARAM_MAX_PROGRAM_SIZE);
	tsim_bo(d0, 4096, &bo, &va);
	ring = tsim_ring(d0, 0, 0, 0, 8, 0);
	sem = tsim_sem(d0, 0, 2);
	sem2 = tsim_sem(d0, 0, 2);
	other_sem = tsim_sem(d1, 0, 1);
	prog = tsim_load(d0, 0, "start ring(0,0), 1\nacquire " SEMF ", 1\nret\n", S3(sem));
}

/* @rc from @req must be @err with @reason (and @index unless NO_INDEX). */
static void expect_reason(const char *what, unsigned long req, int rc, int err, uint32_t reason,
			  uint32_t index)
{
	struct drm_ccore_last_error e = { 0 };
	char msg[1024];

	if (rc != err)
		FAIL("%s: returned %d, expected %d (%s)", what, rc, err, ccore_last_error());
	snprintf(msg, sizeof(msg), "%s", ccore_last_error());
	if (ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_GET_LAST_ERROR, &e))
		FAIL("%s: GET_LAST_ERROR: %s", what, ccore_last_error());
	if (e.reason != reason)
		FAIL("%s: reason %u (%s), expected %u (%s); message: %s", what, e.reason,
		     ccore_reason_name(e.reason), reason, ccore_reason_name(reason), msg);
	ASSERT_EQ(e.ioctl, _IOC_NR(req));
	ASSERT_EQ(e.error, err);
	if (index != NO_INDEX)
		ASSERT_EQ(e.index, index);
	/* the runtime's message names the reason */
	ASSERT_STR_CONTAINS(msg, ccore_reason_name(reason));
}

#define EXPECT_REASON(req, arg, err, reason) \
	expect_reason(#req " " #arg, req, ccore_dev_ioctl(d0, req, arg), err, reason, NO_INDEX)

TEST(ring_reasons)
{
	struct drm_ccore_ring_create rc = { .ring = 1, .size = 4, .pad = 1 };
	struct drm_ccore_ring_destroy rd = { .handle = BAD_HANDLE };
	struct drm_ccore_ring_stats rst = { .handle = BAD_HANDLE };

	setup();
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_CREATE, &rc, -EINVAL, DRM_CCORE_REASON_PAD);
	rc = (struct drm_ccore_ring_create){ .ring = 1, .size = 4, .flags = 0x80 };
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_CREATE, &rc, -EINVAL, DRM_CCORE_REASON_FLAGS);
	rc = (struct drm_ccore_ring_create){ .core = (uint32_t)ncores, .size = 4 };
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_CREATE, &rc, -EINVAL, DRM_CCORE_REASON_CORE);
	rc = (struct drm_ccore_ring_create){ .engine = (uint32_t)nengines, .size = 4 };
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_CREATE, &rc, -EINVAL, DRM_CCORE_REASON_ENGINE_RING);
	rc = (struct drm_ccore_ring_create){ .ring = 1, .size = 0 };
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_CREATE, &rc, -EINVAL, DRM_CCORE_REASON_RING_SIZE);
	rc = (struct drm_ccore_ring_create){ .ring = 1, .size = 4, .packet_size = 3 };
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_CREATE, &rc, -EINVAL, DRM_CCORE_REASON_PACKET_SIZE);
	rc = (struct drm_ccore_ring_create){ .ring = 1, .size = 4, .index_stride = 64 };
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_CREATE, &rc, -EINVAL, DRM_CCORE_REASON_RING_INDEX);
	rc = (struct drm_ccore_ring_create){ .size = 4 };
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_CREATE, &rc, -EBUSY, DRM_CCORE_REASON_RING_CLAIMED);
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_DESTROY, &rd, -ENOENT, DRM_CCORE_REASON_RING_HANDLE);
	rd = (struct drm_ccore_ring_destroy){ .handle = ring };
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_DESTROY, &rd, -EBUSY, DRM_CCORE_REASON_RING_PROGRAMS);
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_STATS, &rst, -ENOENT, DRM_CCORE_REASON_RING_HANDLE);
}

static struct drm_ccore_desc copy(uint64_t off)
{
	return (struct drm_ccore_desc){
		.op = DRM_CCORE_DESC_COPY, .dst = va + off, .src0 = va + 2048, .len = 64,
	};
}

TEST(ring_submit_reasons)
{
	struct drm_ccore_desc ds[9];
	struct drm_ccore_ring_submit rs = { .handle = ring, .descs = (uintptr_t)ds };

	setup();
	for (int i = 0; i < 9; i++)
		ds[i] = copy(64 * (uint64_t)i);
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_SUBMIT, &rs, -EINVAL, DRM_CCORE_REASON_DESC_COUNT);
	rs.count = (uint32_t)max_ring + 1;
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_SUBMIT, &rs, -ENOSPC, DRM_CCORE_REASON_RING_FULL);
	rs.count = 2;
	rs.flags = 2;
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_SUBMIT, &rs, -EINVAL, DRM_CCORE_REASON_FLAGS);
	rs.flags = 0;
	rs.handle = BAD_HANDLE;
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_SUBMIT, &rs, -ENOENT, DRM_CCORE_REASON_RING_HANDLE);
	rs.handle = ring;
	ds[1].op = 99;
	expect_reason("descriptor 1 op 99", DRM_IOCTL_CCORE_RING_SUBMIT,
		      ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_RING_SUBMIT, &rs), -EINVAL,
		      DRM_CCORE_REASON_DESC_INVALID, 1);
	ASSERT_EQ(rs.bad_index, 1);
	ds[1] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_SEM_WRITE, .dst = other_sem, .value = 1 };
	expect_reason("descriptor 1 signals another file's semaphore", DRM_IOCTL_CCORE_RING_SUBMIT,
		      ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_RING_SUBMIT, &rs), -EACCES,
		      DRM_CCORE_REASON_DESC_SEM, 1);
	ds[1] = copy(64);
	/* 9 descriptors, fewer than rings hold, more than this one's 8 slots */
	rs.count = 9;
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_SUBMIT, &rs, -ENOSPC, DRM_CCORE_REASON_RING_FULL);
}

/*
 * A ring whose descriptors are still moving can be neither destroyed nor
 * written: 8 copies of 8 MiB take milliseconds, the calls right after the
 * submit come in microseconds.
 */
TEST(ring_in_flight_reasons)
{
	struct drm_ccore_desc ds[8];
	struct drm_ccore_ring_submit rs = { .descs = (uintptr_t)ds, .count = 1 };
	struct drm_ccore_ring_destroy rd;
	uint32_t big, busy;
	uint64_t big_va;
	struct timespec t0, now;

	setup();
	tsim_bo(d0, 32u << 20, &big, &big_va);
	busy = tsim_ring(d0, 0, 1, 0, 8, 0);
	for (int i = 0; i < 8; i++)
		ds[i] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_COPY, .len = 8u << 20,
						 .dst = big_va + (16u << 20), .src0 = big_va };
	if (ccore_dev_ring_submit(d0, busy, ds, 8, DRM_CCORE_SUBMIT_F_START))
		FAIL("submit: %s", ccore_last_error());
	rd = (struct drm_ccore_ring_destroy){ .handle = busy };
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_DESTROY, &rd, -EBUSY, DRM_CCORE_REASON_RING_IN_FLIGHT);
	rs.handle = busy;
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_SUBMIT, &rs, -EBUSY, DRM_CCORE_REASON_RING_IN_FLIGHT);
	/* idle again, it goes */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_RING_DESTROY, &rd)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec > 30)
			FAIL("the ring still busy after 30 s: %s", ccore_last_error());
		usleep(1000);
	}
}

/* The sim keeps 4096 unfinished jobs a file (SIM_JOB_SLOTS); the driver 65536, more than its CC cores queue. */
TEST(jobs_full_reason)
{
#ifdef CCORE_TEST_ACCEL
	ccore_test_skip("the driver's limit (65536 unfinished jobs a file) is more than its CC cores can queue");
#else
	struct ccore_system *many;
	struct ccore_dev *d;
	struct drm_ccore_submit su = { .flags = DRM_CCORE_JOB_F_TRIGGER };
	uint32_t progs[16], block[8];
	uint64_t first = 0;
	int rc = 0, n = 0, status;

	/* 16 CC cores, each running one job and queueing 256: more than 4096 */
	if (ccore_system_open("sim", "devices=1,cores=8,cc_cores=2,sems=64", &many))
		FAIL("open: %s", ccore_last_error());
	d = ccore_system_device(many, 0);
	/* each core's CC cores wait on a semaphore of their core */
	for (unsigned int core = 0; core < 8; core++)
		block[core] = tsim_sem(d, core, 1);
	for (unsigned int cc = 0; cc < 16; cc++)
		progs[cc] = tsim_load(d, cc, "acquire " SEMF ", 1\nret\n", S3(block[cc / 2]));
	while (!rc && n < 5000) {
		su.program = progs[n % 16];
		rc = ccore_dev_ioctl(d, DRM_IOCTL_CCORE_SUBMIT, &su);
		first = n ? first : su.job;
		n += !rc;
	}
	ccore_test_log("%d jobs submitted before the refusal", n);
	ASSERT_EQ(n, 4096);
	{
		struct drm_ccore_last_error e = { 0 };

		ASSERT_EQ(rc, -EBUSY);
		ASSERT_EQ(ccore_dev_ioctl(d, DRM_IOCTL_CCORE_GET_LAST_ERROR, &e), 0);
		ASSERT_EQ(e.reason, DRM_CCORE_REASON_JOBS_FULL);
		ASSERT_STR_CONTAINS(ccore_last_error(), "JOBS_FULL");
	}
	/* the first job ends: one more fits (the limit counts unfinished jobs) */
	tsim_sem_set(d, block[0], 1);
	if (ccore_dev_job_wait(d, first, 10 * TSIM_SEC, &status) || status)
		FAIL("the first job: %d: %s", status, ccore_last_error());
	su.program = progs[0];
	if (ccore_dev_ioctl(d, DRM_IOCTL_CCORE_SUBMIT, &su))
		FAIL("a submit after a job ended: %s", ccore_last_error());
	ccore_system_close(many);
#endif
}

TEST(sem_reasons)
{
	struct drm_ccore_sem_alloc sa = { .count = 1, .pad = 1 };
	struct drm_ccore_sem_free sf = { .first = sem };
	struct drm_ccore_sem_access sx = { .sem = sem, .op = 7 };
	struct drm_ccore_sem_wait sw = { .sem = DRM_CCORE_SEM_REF(0, 200, 0) };
	struct drm_ccore_sem_export se = { .first = sem2, .flags = 1 };
	struct drm_ccore_sem_import si = { .fd = -1 };
	struct drm_prime_handle ph = { .flags = DRM_CLOEXEC };

	setup();
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_ALLOC, &sa, -EINVAL, DRM_CCORE_REASON_PAD);
	sa = (struct drm_ccore_sem_alloc){ .count = 0 };
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_ALLOC, &sa, -EINVAL, DRM_CCORE_REASON_SEM_COUNT);
	sa = (struct drm_ccore_sem_alloc){ .core = (uint32_t)ncores, .count = 1 };
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_ALLOC, &sa, -EINVAL, DRM_CCORE_REASON_CORE);
	sa = (struct drm_ccore_sem_alloc){ .count = (uint32_t)nsems };
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_ALLOC, &sa, -ENOSPC, DRM_CCORE_REASON_SEM_NO_SPACE);
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_FREE, &sf, -EBUSY, DRM_CCORE_REASON_SEM_PINNED);
	sf.first = sem2 + 1;
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_FREE, &sf, -EINVAL, DRM_CCORE_REASON_SEM_NOT_BLOCK);
	sf.first = DRM_CCORE_SEM_REF(0, 200, 0);
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_FREE, &sf, -EINVAL, DRM_CCORE_REASON_SEM_INVALID);
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_ACCESS, &sx, -EINVAL, DRM_CCORE_REASON_SEM_OP);
	sx = (struct drm_ccore_sem_access){ .sem = other_sem };
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_ACCESS, &sx, -EACCES, DRM_CCORE_REASON_SEM_NOT_USABLE);
	sx = (struct drm_ccore_sem_access){ .sem = DRM_CCORE_SEM_REF(0, 200, 0) };
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_ACCESS, &sx, -EINVAL, DRM_CCORE_REASON_SEM_INVALID);
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_WAIT, &sw, -EINVAL, DRM_CCORE_REASON_SEM_INVALID);
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_EXPORT, &se, -EINVAL, DRM_CCORE_REASON_FLAGS);
	se = (struct drm_ccore_sem_export){ .first = sem2 + 1 };
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_EXPORT, &se, -EINVAL, DRM_CCORE_REASON_SEM_NOT_BLOCK);
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_IMPORT, &si, -EBADF, DRM_CCORE_REASON_FD_BAD);
	si.flags = 1;
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_IMPORT, &si, -EINVAL, DRM_CCORE_REASON_FLAGS);
	/* a dma-buf is a file, but not an exported semaphore block */
	ph.handle = bo;
	if (ccore_dev_ioctl(d0, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph))
		FAIL("PRIME_HANDLE_TO_FD: %s", ccore_last_error());
	si = (struct drm_ccore_sem_import){ .fd = ph.fd };
	EXPECT_REASON(DRM_IOCTL_CCORE_SEM_IMPORT, &si, -EINVAL, DRM_CCORE_REASON_FD_NOT_SEM);
#ifdef CCORE_TEST_ACCEL
	close(ph.fd);
#endif
}

TEST(program_and_job_reasons)
{
	struct drm_ccore_insn bad[3] = {
		{ .opcode = DRM_CCORE_OP_NOP }, { .opcode = 0xee }, { .opcode = DRM_CCORE_OP_RET },
	};
	struct drm_ccore_program_load pl = { .cc_core = (uint32_t)ncc, .count = 3,
					     .insns = (uintptr_t)bad };
	struct drm_ccore_program_free pf = { .handle = BAD_HANDLE };
	struct drm_ccore_submit su = { .program = prog, .pad = 1 };
	struct drm_ccore_job_wait jw = { .job = 0x123456789ull };
	struct drm_ccore_cc_trigger ct = { .cc_core = (uint32_t)ncc, .count = 1 };

	setup();
	EXPECT_REASON(DRM_IOCTL_CCORE_PROGRAM_LOAD, &pl, -EINVAL, DRM_CCORE_REASON_CC_CORE);
	pl.cc_core = 0;
	pl.count = 0;
	EXPECT_REASON(DRM_IOCTL_CCORE_PROGRAM_LOAD, &pl, -EINVAL, DRM_CCORE_REASON_INSN_COUNT);
	pl.count = 3;
	expect_reason("instruction 1 opcode 0xee", DRM_IOCTL_CCORE_PROGRAM_LOAD,
		      ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_PROGRAM_LOAD, &pl), -EINVAL,
		      DRM_CCORE_REASON_INSN_INVALID, 1);
	bad[1] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_SET, .sem = other_sem, .imm = 1 };
	expect_reason("instruction 1 sets another file's semaphore", DRM_IOCTL_CCORE_PROGRAM_LOAD,
		      ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_PROGRAM_LOAD, &pl), -EACCES,
		      DRM_CCORE_REASON_INSN_NOT_OWNED, 1);
	EXPECT_REASON(DRM_IOCTL_CCORE_PROGRAM_FREE, &pf, -ENOENT, DRM_CCORE_REASON_PROGRAM_HANDLE);
	pf = (struct drm_ccore_program_free){ .handle = prog, .pad = 1 };
	EXPECT_REASON(DRM_IOCTL_CCORE_PROGRAM_FREE, &pf, -EINVAL, DRM_CCORE_REASON_PAD);
	EXPECT_REASON(DRM_IOCTL_CCORE_SUBMIT, &su, -EINVAL, DRM_CCORE_REASON_PAD);
	su = (struct drm_ccore_submit){ .program = prog, .flags = 4 };
	EXPECT_REASON(DRM_IOCTL_CCORE_SUBMIT, &su, -EINVAL, DRM_CCORE_REASON_FLAGS);
	su = (struct drm_ccore_submit){ .program = prog, .timeout_ms = 3600001 };
	EXPECT_REASON(DRM_IOCTL_CCORE_SUBMIT, &su, -EINVAL, DRM_CCORE_REASON_TIMEOUT);
	su = (struct drm_ccore_submit){ .program = BAD_HANDLE };
	EXPECT_REASON(DRM_IOCTL_CCORE_SUBMIT, &su, -ENOENT, DRM_CCORE_REASON_PROGRAM_HANDLE);
	EXPECT_REASON(DRM_IOCTL_CCORE_JOB_WAIT, &jw, -EINVAL, DRM_CCORE_REASON_JOB_UNKNOWN);
	jw.pad = 1;
	EXPECT_REASON(DRM_IOCTL_CCORE_JOB_WAIT, &jw, -EINVAL, DRM_CCORE_REASON_PAD);
	EXPECT_REASON(DRM_IOCTL_CCORE_CC_TRIGGER, &ct, -EINVAL, DRM_CCORE_REASON_CC_CORE);
	ct = (struct drm_ccore_cc_trigger){ .cc_core = 0, .count = 0 };
	EXPECT_REASON(DRM_IOCTL_CCORE_CC_TRIGGER, &ct, -EINVAL, DRM_CCORE_REASON_TRIGGER_COUNT);
}

/* A queued job keeps its program; a program as large as the memory does not fit beside the firmware. */
TEST(program_state_reasons)
{
	struct drm_ccore_program_free pf = { 0 };
	struct drm_ccore_program_load pl = { .cc_core = 0 };
	struct drm_ccore_insn *big = calloc(max_prog, sizeof(*big));
	uint32_t waiter, cc = (uint32_t)ncc - 1;
	uint64_t job;
	int status;

	setup();
	if (!big)
		FAIL("out of memory");
	big[max_prog - 1].opcode = DRM_CCORE_OP_RET;
	pl.count = (uint32_t)max_prog;
	pl.insns = (uintptr_t)big;
	EXPECT_REASON(DRM_IOCTL_CCORE_PROGRAM_LOAD, &pl, -ENOSPC, DRM_CCORE_REASON_CC_MEMORY_FULL);
	free(big);
	/* queued without a trigger: pending until CC_TRIGGER */
	waiter = tsim_load(d0, cc, "ret\n");
	if (ccore_dev_submit(d0, waiter, 0, &job))
		FAIL("submit: %s", ccore_last_error());
	pf.handle = waiter;
	EXPECT_REASON(DRM_IOCTL_CCORE_PROGRAM_FREE, &pf, -EBUSY, DRM_CCORE_REASON_PROGRAM_BUSY);
	if (ccore_dev_trigger(d0, cc, 1) || ccore_dev_job_wait(d0, job, 10 * TSIM_SEC, &status))
		FAIL("trigger and wait: %s", ccore_last_error());
	ASSERT_EQ(status, 0);
	if (ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_PROGRAM_FREE, &pf))
		FAIL("PROGRAM_FREE after the job: %s", ccore_last_error());
}

/* Failures that name no rule: no reason, not an earlier call's. */
TEST(no_reason_is_not_a_stale_one)
{
	struct drm_ccore_ring_destroy rd = { .handle = BAD_HANDLE };
	struct drm_ccore_last_error e = { .flags = 1 };

	setup();
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_DESTROY, &rd, -ENOENT, DRM_CCORE_REASON_RING_HANDLE);
	/* a NULL descs pointer is -EFAULT, outside the rules */
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, NULL, 1, 0), -EFAULT);
	e.flags = 0;
	if (ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_GET_LAST_ERROR, &e))
		FAIL("GET_LAST_ERROR: %s", ccore_last_error());
#ifdef CCORE_TEST_ACCEL
	/* the sim checks the pointer before the call reaches it */
	ASSERT_EQ(e.ioctl, _IOC_NR(DRM_IOCTL_CCORE_RING_SUBMIT));
	ASSERT_EQ(e.error, -EFAULT);
#endif
	ASSERT_EQ(e.reason, DRM_CCORE_REASON_NONE);
	/* GET_LAST_ERROR's own reserved fields */
	e.flags = 1;
	ASSERT_EQ(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_GET_LAST_ERROR, &e), -EINVAL);
}

/* Threads sharing a device file each read their own failure. */
static pthread_barrier_t both_failed;

static void *fail_and_read(void *arg)
{
	uintptr_t which = (uintptr_t)arg;
	struct drm_ccore_ring_destroy rd = { .handle = BAD_HANDLE };
	struct drm_ccore_sem_access sx = { .sem = sem, .op = 9 };
	struct drm_ccore_last_error e = { 0 };

	if (which)
		ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SEM_ACCESS, &sx);
	else
		ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_RING_DESTROY, &rd);
	pthread_barrier_wait(&both_failed);
	if (ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_GET_LAST_ERROR, &e))
		return (void *)(uintptr_t)~0u;
	return (void *)(uintptr_t)e.reason;
}

TEST(threads_read_their_own_reason)
{
	pthread_t t[2];
	void *reason[2];

	setup();
	pthread_barrier_init(&both_failed, NULL, 2);
	for (uintptr_t i = 0; i < 2; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, fail_and_read, (void *)i), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], &reason[i]);
	pthread_barrier_destroy(&both_failed);
	ASSERT_EQ((uintptr_t)reason[0], DRM_CCORE_REASON_RING_HANDLE);
	ASSERT_EQ((uintptr_t)reason[1], DRM_CCORE_REASON_SEM_OP);
}

/* The reason is the file's: another device's file of the process has none. */
TEST(files_do_not_share_reasons)
{
	struct drm_ccore_ring_destroy rd = { .handle = BAD_HANDLE };
	struct drm_ccore_last_error e = { 0 };

	setup();
	EXPECT_REASON(DRM_IOCTL_CCORE_RING_DESTROY, &rd, -ENOENT, DRM_CCORE_REASON_RING_HANDLE);
	if (ccore_dev_ioctl(d1, DRM_IOCTL_CCORE_GET_LAST_ERROR, &e))
		FAIL("GET_LAST_ERROR on device 1: %s", ccore_last_error());
	ASSERT_EQ(e.reason, DRM_CCORE_REASON_NONE);
	ASSERT_EQ(e.ioctl, ~0u);
}
