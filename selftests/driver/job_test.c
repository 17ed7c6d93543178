// SPDX-License-Identifier: GPL-2.0
/*
 * CC programs and jobs: PROGRAM_LOAD verification (bad_index), PROGRAM_FREE,
 * SUBMIT and JOB_WAIT, CC_TRIGGER, job timeouts and CC-core recovery,
 * faults, syncobjs (out_syncobj signalled on completion, in_syncobj
 * ordering, the fence's error through a sync_file) and the debugfs fault
 * injection (DMA error, CC-core hang) reported through the fence.
 */
#include <linux/sync_file.h>

#include "ccore_drv_test.h"

FIXTURE(job) {
	struct ccore_dev d;
	int fd;
	uint32_t cc;		/* the CC core most tests use */
};

FIXTURE_SETUP(job)
{
	if (ccore_open_first(&self->d))
		SKIP(return, NO_DEVICE_MSG);
	self->fd = self->d.fd;
	self->cc = 1;		/* core 0, its second CC core */
}

FIXTURE_TEARDOWN(job)
{
	if (self->fd >= 0)
		close(self->fd);
}

static const struct drm_ccore_insn ret_only[] = { { .opcode = DRM_CCORE_OP_RET } };

TEST_F(job, load_free)
{
	uint32_t p1, p2, bad;

	ASSERT_EQ(0, prog_load(self->fd, 0, ret_only, 1, &p1, &bad));
	ASSERT_NE(0, p1);
	ASSERT_EQ(NO_INDEX, bad);
	ASSERT_EQ(0, prog_load(self->fd, num_cc(&self->d) - 1, ret_only, 1, &p2, NULL));
	ASSERT_NE(p1, p2);
	ASSERT_EQ(0, prog_free(self->fd, p1));
	ASSERT_EQ(-ENOENT, prog_free(self->fd, p1));		/* double free */
	ASSERT_EQ(-ENOENT, prog_free(self->fd, 0));
	ASSERT_EQ(-ENOENT, submit_job(self->fd, p1, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, NULL));
	ASSERT_EQ(0, prog_free(self->fd, p2));
}

TEST_F(job, load_bad_arguments)
{
	struct drm_ccore_insn many[2] = { I_NOP(), I_RET() };
	uint32_t bad;

	ASSERT_EQ(-EINVAL, prog_load(self->fd, num_cc(&self->d), ret_only, 1, NULL, &bad));
	ASSERT_EQ(NO_INDEX, bad);
	ASSERT_EQ(-EINVAL, prog_load(self->fd, 0xffffffff, ret_only, 1, NULL, &bad));
	ASSERT_EQ(-EINVAL, prog_load(self->fd, 0, ret_only, 0, NULL, &bad));
	ASSERT_EQ(NO_INDEX, bad);
	ASSERT_EQ(-EINVAL, prog_load(self->fd, 0, many, self->d.max_program + 1, NULL, &bad));
	ASSERT_EQ(-EFAULT, prog_load(self->fd, 0, NULL, 1, NULL, &bad));
	/* a count past the user's array */
	ASSERT_EQ(-EFAULT, prog_load(self->fd, 0, (void *)8, 2, NULL, &bad));
}

/* Each bad instruction at index 1 of NOP, <bad>, RET: rejected, named. */
TEST_F(job, load_rejects_instruction)
{
	const struct ccore_dev *d = &self->d;
	uint32_t mine, remote, theirs, ring, ring1, bad;
	struct drm_ccore_insn prog[3];
	struct {
		const char *what;
		struct drm_ccore_insn in;
		int err;
	} cases[40];
	int n = 0, i, fd2;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &mine));
	ASSERT_EQ(0, sem_alloc(self->fd, 1 % d->cores, 1, &remote));
	fd2 = reopen(d);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, sem_alloc(fd2, 0, 1, &theirs));
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 2, 0, 0, &ring));
	ASSERT_EQ(0, ring_create(fd2, 0, 0, 1, 2, 0, 0, NULL));
	if (d->cores > 1)
		ASSERT_EQ(0, ring_create(self->fd, 1, 0, 2, 2, 0, 0, &ring1));

#define BAD(w, insn, e) do { \
	cases[n].what = w; \
	cases[n].in = insn; \
	cases[n].err = e; \
	n++; \
} while (0)
	BAD("opcode 0x11", I_op(0x11), -EINVAL);
	BAD("opcode 0xff", I_op(0xff), -EINVAL);
	BAD("next (firmware only)", I_op(DRM_CCORE_OP_NEXT), -EINVAL);
	{
		struct drm_ccore_insn x = I_NOP();

		x.reg = 1;
		BAD("nop with reg", x, -EINVAL);
		x = I_RET();
		x.imm = 1;
		BAD("ret with imm", x, -EINVAL);
		x = I_WAIT(mine, 1);
		x.engine = 1;
		BAD("wait with engine", x, -EINVAL);
		x = I_JUMP(1);
		x.sem = 0x10005;	/* (mine may be reference 0) */
		BAD("jump with sem", x, -EINVAL);
		x = I_op(DRM_CCORE_OP_MOVI);
		x.reg = DRM_CCORE_NUM_REGS;
		BAD("movi r8", x, -EINVAL);
		x = I_op(DRM_CCORE_OP_LOOP);
		x.reg = 0xff;
		x.target = -1;
		BAD("loop r255", x, -EINVAL);
	}
	BAD("jump past the end", I_JUMP(2), -EINVAL);
	BAD("jump before the start", I_JUMP(-2), -EINVAL);
	BAD("call far away", I_CALL(1000000), -EINVAL);
	BAD("wait on a semaphore of another file", I_WAIT(theirs, 1), -EACCES);
	BAD("wait on a never allocated semaphore",
	    I_WAIT(DRM_CCORE_SEM_REF(d->index, 0, d->sems - 1), 1), -EACCES);
	BAD("wait on no semaphore", I_WAIT(DRM_CCORE_SEM_REF(d->index, 0, d->sems), 1), -EINVAL);
	if (d->cores > 1) {
		BAD("wait on another core's semaphore", I_WAIT(remote, 1), -EINVAL);
		BAD("acquire on another core's semaphore", I_ACQUIRE(remote, 1), -EINVAL);
	}
	BAD("add to a semaphore of another file", I_ADD(theirs, 1), -EACCES);
	BAD("set a semaphore of another file", I_SET(theirs, 1), -EACCES);
	BAD("add to no semaphore", I_ADD(DRM_CCORE_SEM_REF(d->num_devices, 0, 0), 1), -EINVAL);
	BAD("start a ring of another file", I_START(0, 1, 1), -EACCES);
	BAD("start an unclaimed ring", I_START(0, 3, 1), -EACCES);
	BAD("start engine out of range", I_START(d->engines, 0, 1), -EINVAL);
	BAD("start ring out of range", I_START(0, 16, 1), -EINVAL);
	BAD("start 0 descriptors", I_START(0, 0, 0), -EINVAL);
	BAD("rwait a ring of another file", I_RWAIT(0, 1), -EACCES);
	if (d->cores > 1)
		BAD("start our ring of another core", I_START(0, 2, 1), -EACCES);
#undef BAD

	for (i = 0; i < n; i++) {
		prog[0] = I_NOP();
		prog[1] = cases[i].in;
		prog[2] = I_RET();
		EXPECT_EQ(cases[i].err, prog_load(self->fd, 0, prog, 3, NULL, &bad))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(1, bad) TH_LOG("%s", cases[i].what);
	}
	/* falls off its end: the last instruction is named */
	prog[0] = I_NOP();
	prog[1] = I_NOP();
	ASSERT_EQ(-EINVAL, prog_load(self->fd, 0, prog, 2, NULL, &bad));
	ASSERT_EQ(1, bad);
	prog[1] = I_ADD(mine, 1);
	ASSERT_EQ(-EINVAL, prog_load(self->fd, 0, prog, 2, NULL, &bad));
	ASSERT_EQ(1, bad);

	/* and the good versions load: ret, halt or jump at the end */
	prog[0] = I_WAIT(mine, 0);
	prog[1] = I_START(0, 0, 1);
	prog[2] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, 0, prog, 3, NULL, &bad));
	ASSERT_EQ(NO_INDEX, bad);
	prog[2] = I_HALT();
	ASSERT_EQ(0, prog_load(self->fd, 0, prog, 3, NULL, NULL));
	prog[2] = I_JUMP(-2);
	ASSERT_EQ(0, prog_load(self->fd, 0, prog, 3, NULL, NULL));
	prog[0] = I_WAIT(DRM_CCORE_SEM_TRIGGER, 0);
	prog[1] = I_ADD(remote, 1);
	ASSERT_EQ(0, prog_load(self->fd, 0, prog, 3, NULL, NULL));
	close(fd2);
}

/* A CC core's instruction memory is finite and shared: -ENOSPC when full. */
TEST_F(job, load_memory_full)
{
	uint32_t room = self->d.max_program - self->d.fw_size, big, small;
	struct drm_ccore_insn *prog = calloc(room, sizeof(*prog));
	int32_t status;

	ASSERT_NE(NULL, prog);
	prog[room - 1] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, self->cc, prog, room, &big, NULL))
		TH_LOG("someone else has a program on CC core %u", self->cc);
	ASSERT_EQ(-ENOSPC, prog_load(self->fd, self->cc, ret_only, 1, NULL, NULL));
	/* other CC cores have their own memory */
	ASSERT_EQ(0, prog_load(self->fd, self->cc + 1, ret_only, 1, &small, NULL));
	ASSERT_EQ(0, prog_free(self->fd, small));
	/* the big one runs: 4 k NOPs and a RET */
	{
		uint64_t job;

		ASSERT_EQ(0, submit_job(self->fd, big, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));
		ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(10000), &status));
		ASSERT_EQ(0, status);
	}
	ASSERT_EQ(0, prog_free(self->fd, big));
	ASSERT_EQ(0, prog_load(self->fd, self->cc, ret_only, 1, &small, NULL));
	free(prog);
}

TEST_F(job, submit_wait)
{
	uint64_t j1, j2;
	int32_t status;
	uint32_t p;

	ASSERT_EQ(0, prog_load(self->fd, self->cc, ret_only, 1, &p, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &j1));
	ASSERT_NE(0, j1);
	ASSERT_EQ(0, job_wait(self->fd, j1, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	/* a finished job can be waited for again */
	ASSERT_EQ(0, job_wait(self->fd, j1, 0, &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &j2));
	ASSERT_GT(j2, j1);
	ASSERT_EQ(0, job_wait(self->fd, j2, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, prog_free(self->fd, p));
}

TEST_F(job, job_wait_bad)
{
	uint64_t job;
	uint32_t p;
	int fd2;

	ASSERT_EQ(-EINVAL, job_wait(self->fd, 0, deadline_ms(10), NULL));
	ASSERT_EQ(-EINVAL, job_wait(self->fd, 1, deadline_ms(10), NULL));
	ASSERT_EQ(0, prog_load(self->fd, self->cc, ret_only, 1, &p, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));
	ASSERT_EQ(-EINVAL, job_wait(self->fd, job + 1, deadline_ms(10), NULL));
	ASSERT_EQ(-EINVAL, job_wait(self->fd, ~0ull, deadline_ms(10), NULL));
	/* job ids are per file */
	fd2 = reopen(&self->d);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(-EINVAL, job_wait(fd2, job, deadline_ms(10), NULL));
	close(fd2);
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), NULL));
}

/* Each trigger runs one queued job; early triggers accumulate. */
TEST_F(job, trigger)
{
	uint64_t j1, j2, j3;
	int32_t status;
	uint32_t p;

	ASSERT_EQ(-EINVAL, cc_trigger(self->fd, num_cc(&self->d), 1));
	ASSERT_EQ(-EINVAL, cc_trigger(self->fd, 0xffffffff, 1));
	ASSERT_EQ(-EINVAL, cc_trigger(self->fd, self->cc, 0));
	ASSERT_EQ(-EINVAL, cc_trigger(self->fd, self->cc, 65536));
	ASSERT_EQ(-EINVAL, cc_trigger(self->fd, self->cc, 0xffffffff));

	ASSERT_EQ(0, prog_load(self->fd, self->cc, ret_only, 1, &p, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p, 0, 0, 0, 0, &j1));
	ASSERT_EQ(-ETIMEDOUT, job_wait(self->fd, j1, deadline_ms(100), &status));
	/* deadlines in the past, however far */
	ASSERT_EQ(-ETIMEDOUT, job_wait(self->fd, j1, 0, &status));
	ASSERT_EQ(-ETIMEDOUT, job_wait(self->fd, j1, INT64_MIN, &status));
	ASSERT_EQ(0, cc_trigger(self->fd, self->cc, 1));
	ASSERT_EQ(0, job_wait(self->fd, j1, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);

	ASSERT_EQ(0, cc_trigger(self->fd, self->cc, 2));
	ASSERT_EQ(0, submit_job(self->fd, p, 0, 0, 0, 0, &j2));
	ASSERT_EQ(0, submit_job(self->fd, p, 0, 0, 0, 0, &j3));
	ASSERT_EQ(0, job_wait(self->fd, j2, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, job_wait(self->fd, j3, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	/* no trigger left over */
	ASSERT_EQ(0, submit_job(self->fd, p, 0, 0, 0, 0, &j1));
	ASSERT_EQ(-ETIMEDOUT, job_wait(self->fd, j1, deadline_ms(50), &status));
	ASSERT_EQ(0, cc_trigger(self->fd, self->cc, 1));
	ASSERT_EQ(0, job_wait(self->fd, j1, deadline_ms(5000), &status));
}

/* A program moves data by starting a pre-built ring; every run replays it. */
TEST_F(job, program_runs_ring)
{
	const size_t size = 16384;
	struct drm_ccore_ring_stats st;
	struct drm_ccore_insn prog[5];
	struct drm_ccore_desc d[2];
	uint32_t core = self->cc / self->d.cc_per_core;
	uint32_t ring, sem, p;
	struct bo_pair bp;
	int32_t status;
	uint64_t job;

	ASSERT_EQ(0, bo_pair(self->fd, size, 21, 0, &bp));
	ASSERT_EQ(0, sem_alloc(self->fd, core, 1, &sem));
	ASSERT_EQ(0, ring_create(self->fd, core, 0, 0, 2, 0, 0, &ring));
	d[0] = desc_copy(bp.ad, bp.as, size);
	d[1] = desc_sem_write(sem, 1, false);
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 2, 0, NULL));
	prog[0] = I_START(0, 0, 2);
	prog[1] = I_RWAIT(0, 0);
	prog[2] = I_WAIT(sem, 1);
	prog[3] = I_ADD(sem, 10);
	prog[4] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, self->cc, prog, 5, &p, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	ASSERT_TRUE(check_pattern(bp.d, size, 21));
	ASSERT_EQ(11, sem_read(self->fd, sem));

	/* run again: the ring wraps to its first descriptor */
	fill_pattern(bp.s, size, 22);
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	ASSERT_TRUE(check_pattern(bp.d, size, 22));
	ASSERT_EQ(22, sem_read(self->fd, sem));
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	EXPECT_EQ(4, st.started);
	EXPECT_EQ(4, st.completed);
	EXPECT_EQ(2 * (size + 4), st.bytes);
	munmap(bp.s, size);
	munmap(bp.d, size);
}

/* A ring keeps the buffers its descriptors reach: closing the handles
 * before the ring runs is safe.
 */
TEST_F(job, ring_keeps_closed_buffers)
{
	const size_t size = 8192;
	struct drm_ccore_insn prog[3];
	struct drm_ccore_desc d;
	uint32_t core = self->cc / self->d.cc_per_core;
	struct bo_pair bp;
	uint32_t ring, p;
	int32_t status;
	uint64_t job;

	ASSERT_EQ(0, bo_pair(self->fd, size, 31, 0, &bp));
	ASSERT_EQ(0, ring_create(self->fd, core, 0, 0, 1, 0, 0, &ring));
	d = desc_copy(bp.ad, bp.as, size);
	ASSERT_EQ(0, ring_submit(self->fd, ring, &d, 1, 0, NULL));
	ASSERT_EQ(0, gem_close(self->fd, bp.hs));
	ASSERT_EQ(0, gem_close(self->fd, bp.hd));
	munmap(bp.s, size);
	prog[0] = I_START(0, 0, 1);
	prog[1] = I_RWAIT(0, 0);
	prog[2] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, self->cc, prog, 3, &p, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	ASSERT_TRUE(check_pattern(bp.d, size, 31));
	munmap(bp.d, size);
	/* the loaded program starts the ring: it stays until the program goes */
	ASSERT_EQ(-EBUSY, ring_destroy(self->fd, ring));
	ASSERT_EQ(0, prog_free(self->fd, p));
	ASSERT_EQ(0, ring_destroy(self->fd, ring));
}

/* A job that outlives its timeout fails with -ETIMEDOUT, its CC core is
 * reset and runs the next job.
 */
TEST_F(job, timeout_recovers)
{
	struct drm_ccore_insn prog[2];
	uint32_t sem, p, q;
	int64_t t0, dt;
	int32_t status;
	uint64_t job;

	ASSERT_EQ(0, sem_alloc(self->fd, self->cc / self->d.cc_per_core, 1, &sem));
	prog[0] = I_WAIT(sem, 1);	/* never */
	prog[1] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, self->cc, prog, 2, &p, NULL));
	t0 = now_ns();
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 200, &job));
	/* a JOB_WAIT deadline before the job's timeout: the wait times out */
	ASSERT_EQ(-ETIMEDOUT, job_wait(self->fd, job, t0 + 50 * NSEC_PER_MSEC, &status));
	ASSERT_EQ(0, job_wait(self->fd, job, t0 + 5 * NSEC_PER_SEC, &status));
	dt = now_ns() - t0;
	ASSERT_EQ(-ETIMEDOUT, status);
	EXPECT_GE(dt, 150 * NSEC_PER_MSEC);
	EXPECT_LT(dt, 3 * NSEC_PER_SEC);

	/* the same CC core runs the next job */
	ASSERT_EQ(0, prog_load(self->fd, self->cc, ret_only, 1, &q, NULL));
	ASSERT_EQ(0, submit_job(self->fd, q, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	/* and the timed-out program again, which now completes */
	ASSERT_EQ(0, sem_access(self->fd, sem, DRM_CCORE_SEM_SET, 1, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 200, &job));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
}

/* HALT stops the CC core until it is reset: only the timeout ends the job. */
TEST_F(job, halt_recovers)
{
	const struct drm_ccore_insn halt[] = { I_HALT() };
	int32_t status;

	ASSERT_EQ(0, run_program(self->fd, self->cc, halt, 1, 200, &status));
	ASSERT_EQ(-ETIMEDOUT, status);
	ASSERT_EQ(0, run_program(self->fd, self->cc, ret_only, 1, 0, &status));
	ASSERT_EQ(0, status);
}

/* Jobs queued behind a timed-out job are dropped by the reset. */
TEST_F(job, queued_behind_timeout)
{
	struct drm_ccore_insn prog[2];
	uint32_t sem, hang, ret;
	uint64_t j1, j2, j3;
	int32_t s1, s2, s3;

	ASSERT_EQ(0, sem_alloc(self->fd, self->cc / self->d.cc_per_core, 1, &sem));
	prog[0] = I_WAIT(sem, 1);
	prog[1] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, self->cc, prog, 2, &hang, NULL));
	ASSERT_EQ(0, prog_load(self->fd, self->cc, ret_only, 1, &ret, NULL));
	ASSERT_EQ(0, submit_job(self->fd, hang, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 200, &j1));
	ASSERT_EQ(0, submit_job(self->fd, ret, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &j2));
	ASSERT_EQ(0, job_wait(self->fd, j1, deadline_ms(5000), &s1));
	ASSERT_EQ(-ETIMEDOUT, s1);
	ASSERT_EQ(0, job_wait(self->fd, j2, deadline_ms(5000), &s2));
	TH_LOG("job queued behind a timed-out job: status %d", s2);
	EXPECT_TRUE(s2 == -ECANCELED || s2 == -ETIMEDOUT || s2 == 0);
	ASSERT_EQ(0, submit_job(self->fd, ret, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &j3));
	ASSERT_EQ(0, job_wait(self->fd, j3, deadline_ms(5000), &s3));
	ASSERT_EQ(0, s3);
}

/* A CC-core fault (here a return-stack overflow) fails the job with -EIO;
 * the core is recovered before the next job runs.
 */
TEST_F(job, fault_recovers)
{
	const struct drm_ccore_insn overflow[] = { I_CALL(0), I_RET() };
	int32_t status;

	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, run_program(self->fd, self->cc, overflow, 2, 0, &status));
		ASSERT_EQ(-EIO, status);
		ASSERT_EQ(0, run_program(self->fd, self->cc, ret_only, 1, 0, &status));
		ASSERT_EQ(0, status) TH_LOG("round %d: the job after a fault failed", i);
	}
}

TEST_F(job, program_free_busy)
{
	struct drm_ccore_insn prog[2];
	uint32_t sem, p;
	uint64_t job;
	int32_t status;

	ASSERT_EQ(0, sem_alloc(self->fd, self->cc / self->d.cc_per_core, 1, &sem));
	prog[0] = I_WAIT(sem, 1);
	prog[1] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, self->cc, prog, 2, &p, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));
	ASSERT_EQ(-EBUSY, prog_free(self->fd, p));
	ASSERT_EQ(0, sem_access(self->fd, sem, DRM_CCORE_SEM_SET, 1, NULL));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, prog_free(self->fd, p));
}

TEST_F(job, submit_bad)
{
	uint32_t p, so;

	ASSERT_EQ(0, prog_load(self->fd, self->cc, ret_only, 1, &p, NULL));
	ASSERT_EQ(-ENOENT, submit_job(self->fd, p + 1, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, NULL));
	ASSERT_EQ(-ENOENT, submit_job(self->fd, 0, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, NULL));
	ASSERT_EQ(-ENOENT, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 77, 0, 0, NULL));
	ASSERT_EQ(-ENOENT, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 77, 0, NULL));
	/* an in_syncobj without a fence cannot be waited for */
	ASSERT_EQ(0, syncobj_create(self->fd, &so));
	ASSERT_EQ(-EINVAL, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, so, 0, 0, NULL));
	/* nothing was queued by the failures */
	ASSERT_EQ(0, prog_free(self->fd, p));
}

/* The fence status of @syncobj, through a sync_file: 1 signalled, 0 not
 * yet, or the negative errno the job failed with.
 */
static int fence_status(int fd, uint32_t syncobj, int *status)
{
	struct drm_syncobj_handle h = {
		.handle = syncobj, .flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE,
		.fd = -1,
	};
	struct sync_file_info info = { 0 };
	int rc;

	rc = ioc(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h);
	if (rc)
		return rc;
	rc = ioc(h.fd, SYNC_IOC_FILE_INFO, &info);
	close(h.fd);
	*status = info.status;
	return rc;
}

TEST_F(job, out_syncobj)
{
	struct drm_ccore_insn prog[2];
	uint32_t sem, p, so;
	int32_t status;
	uint64_t job;
	int fs;

	ASSERT_EQ(0, syncobj_create(self->fd, &so))
		TH_LOG("DRM_IOCTL_SYNCOBJ_CREATE: is DRIVER_SYNCOBJ set?");
	ASSERT_EQ(0, sem_alloc(self->fd, self->cc / self->d.cc_per_core, 1, &sem));
	prog[0] = I_WAIT(sem, 1);
	prog[1] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, self->cc, prog, 2, &p, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, so, 0, &job));
	ASSERT_EQ(-ETIME, syncobj_wait(self->fd, so, deadline_ms(50)));
	ASSERT_EQ(0, fence_status(self->fd, so, &fs));
	ASSERT_EQ(0, fs);
	ASSERT_EQ(0, sem_access(self->fd, sem, DRM_CCORE_SEM_SET, 1, NULL));
	ASSERT_EQ(0, syncobj_wait(self->fd, so, deadline_ms(5000)));
	ASSERT_EQ(0, fence_status(self->fd, so, &fs));
	ASSERT_EQ(1, fs);
	ASSERT_EQ(0, job_wait(self->fd, job, 0, &status));
	ASSERT_EQ(0, status);
}

/* A timed-out job's fence carries -ETIMEDOUT. */
TEST_F(job, out_syncobj_error)
{
	const struct drm_ccore_insn halt[] = { I_HALT() };
	uint32_t p, so;
	int fs;

	ASSERT_EQ(0, syncobj_create(self->fd, &so));
	ASSERT_EQ(0, prog_load(self->fd, self->cc, halt, 1, &p, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, so, 200, NULL));
	ASSERT_EQ(0, syncobj_wait(self->fd, so, deadline_ms(5000)));
	ASSERT_EQ(0, fence_status(self->fd, so, &fs));
	ASSERT_EQ(-ETIMEDOUT, fs);
}

/* A job with an in_syncobj is not queued before that fence signals. */
TEST_F(job, in_syncobj_orders)
{
	uint32_t core = self->cc / self->d.cc_per_core, other = self->cc + 1;
	struct drm_ccore_insn first[2], second[2];
	uint32_t sem, p1, p2, so;
	int32_t s1, s2;
	uint64_t j1, j2;

	if (other / self->d.cc_per_core != core)
		other = self->cc - 1;
	ASSERT_EQ(0, syncobj_create(self->fd, &so));
	ASSERT_EQ(0, sem_alloc(self->fd, core, 2, &sem));
	first[0] = I_WAIT(sem, 1);
	first[1] = I_RET();
	second[0] = I_ADD(sem + 1, 1);
	second[1] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, self->cc, first, 2, &p1, NULL));
	ASSERT_EQ(0, prog_load(self->fd, other, second, 2, &p2, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p1, DRM_CCORE_JOB_F_TRIGGER, 0, so, 0, &j1));
	/* on another CC core, which is idle: only the fence holds it back */
	ASSERT_EQ(0, submit_job(self->fd, p2, DRM_CCORE_JOB_F_TRIGGER, so, 0, 0, &j2));
	ASSERT_EQ(-ETIMEDOUT, job_wait(self->fd, j2, deadline_ms(100), &s2));
	ASSERT_EQ(0, sem_read(self->fd, sem + 1));
	ASSERT_EQ(0, sem_access(self->fd, sem, DRM_CCORE_SEM_SET, 1, NULL));
	ASSERT_EQ(0, job_wait(self->fd, j2, deadline_ms(5000), &s2));
	ASSERT_EQ(0, s2);
	ASSERT_EQ(0, job_wait(self->fd, j1, 0, &s1));
	ASSERT_EQ(0, s1);
	ASSERT_EQ(1, sem_read(self->fd, sem + 1));
}

/* debugfs fault injection: a DMA error fails the job with -EIO, reported
 * through its fence; the CC core and the ring recover.
 */
TEST_F(job, inject_dma_error)
{
	const size_t size = 8192;
	uint32_t core = self->cc / self->d.cc_per_core;
	struct drm_ccore_ring_stats st;
	struct drm_ccore_insn prog[3];
	struct drm_ccore_desc d;
	uint32_t ha, hb, ring, p, so;
	uint64_t da, db, job;
	char path[256];
	int32_t status;
	uint8_t *b;
	int fs;

	if (!debugfs_file(&self->d, "inject_dma_error", path, sizeof(path)))
		SKIP(return, "%s does not exist (debugfs fault injection not there yet)", path);
	ASSERT_EQ(0, bo_create(self->fd, size, &ha, &da));
	ASSERT_EQ(0, bo_create(self->fd, size, &hb, &db));
	b = bo_map(self->fd, hb, size);
	ASSERT_NE(NULL, b);
	memset(b, 0x5a, size);
	ASSERT_EQ(0, ring_create(self->fd, core, 0, 0, 1, 0, 0, &ring));
	d = desc_copy(db, da, size);
	ASSERT_EQ(0, ring_submit(self->fd, ring, &d, 1, 0, NULL));
	prog[0] = I_START(0, 0, 1);
	prog[1] = I_RWAIT(0, 0);
	prog[2] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, self->cc, prog, 3, &p, NULL));
	ASSERT_EQ(0, syncobj_create(self->fd, &so));

	ASSERT_EQ(0, write_uint(path, core));
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, so, 0, &job));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(-EIO, status);
	ASSERT_EQ(0, syncobj_wait(self->fd, so, deadline_ms(5000)));
	ASSERT_EQ(0, fence_status(self->fd, so, &fs));
	ASSERT_EQ(-EIO, fs);
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	EXPECT_EQ(1, st.errors);
	EXPECT_EQ(0, st.completed);
	EXPECT_EQ(0x5a, b[0]);		/* the failed descriptor moved nothing */

	/* one-shot: the same job now succeeds on the recovered core */
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, so, 0, &job));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, fence_status(self->fd, so, &fs));
	ASSERT_EQ(1, fs);
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	EXPECT_EQ(1, st.errors);
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(0, b[0]);
	munmap(b, size);

	/* out of range */
	EXPECT_NE(0, write_uint(path, self->d.cores));
}

/* debugfs: a hung CC core times its job out and is reset. */
TEST_F(job, inject_cc_hang)
{
	char path[256];
	int32_t status;
	uint32_t p, so;
	uint64_t job;
	int fs;

	if (!debugfs_file(&self->d, "inject_cc_hang", path, sizeof(path)))
		SKIP(return, "%s does not exist (debugfs fault injection not there yet)", path);
	ASSERT_EQ(0, syncobj_create(self->fd, &so));
	ASSERT_EQ(0, prog_load(self->fd, self->cc, ret_only, 1, &p, NULL));
	ASSERT_EQ(0, write_uint(path, self->cc));
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, so, 200, &job));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(-ETIMEDOUT, status);
	ASSERT_EQ(0, fence_status(self->fd, so, &fs));
	ASSERT_EQ(-ETIMEDOUT, fs);
	ASSERT_EQ(0, submit_job(self->fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 200, &job));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	EXPECT_NE(0, write_uint(path, num_cc(&self->d)));
}

/* A CC core queues at most so many jobs; one more is refused at SUBMIT
 * (-EBUSY, as the sim backend does), not accepted as a job that fails.
 */
TEST_F(job, queue_full)
{
	uint64_t job, last = 0;
	int32_t status = 0;
	uint32_t p;
	int rc = 0, n;

	ASSERT_EQ(0, prog_load(self->fd, self->cc, ret_only, 1, &p, NULL));
	for (n = 0; n < 1024; n++) {
		rc = submit_job(self->fd, p, 0, 0, 0, 0, &job);
		if (rc)
			break;
		/* refused inside the job instead? */
		if (!job_wait(self->fd, job, 0, &status))
			break;
		last = job;
	}
	TH_LOG("%d jobs queued; then SUBMIT returned %d, job status %d", n, rc, status);
	EXPECT_EQ(-EBUSY, rc);
	EXPECT_GE(n, 16);
	/* drain: every queued job runs */
	ASSERT_EQ(0, cc_trigger(self->fd, self->cc, n));
	if (last) {
		ASSERT_EQ(0, job_wait(self->fd, last, deadline_ms(10000), &status));
		ASSERT_EQ(0, status);
	}
}

TEST_HARNESS_MAIN
