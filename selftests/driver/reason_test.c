// SPDX-License-Identifier: GPL-2.0
/*
 * GET_LAST_ERROR: every rule of the ring, semaphore and job ioctls that a
 * file can break on its own is broken once, and the reason read back must
 * be that rule's (enum drm_ccore_reason), with the failed ioctl, its errno
 * and, for a descriptor or instruction, its index.  A failure outside the
 * rules reads no reason (never an earlier call's); threads of a process,
 * processes sharing a file, and files of one process each read only their
 * own.  RING_IN_FLIGHT is caught by reason_accel (selftests/runtime/
 * reason_test.c run on the driver); JOBS_FULL, 65536 unfinished jobs of
 * one file, is more than the CC cores can queue, and is caught on the sim
 * backend's smaller table only.
 */
#include <pthread.h>

#include "ccore_drv_test.h"

#define BAD_HANDLE 0x7fff0000u

FIXTURE(reason) {
	struct ccore_dev d;
	int fd, fd2;			/* two files of one device */
	uint32_t ring, sem, sem2, prog, other_sem, bo;
	uint64_t va;
};

FIXTURE_SETUP(reason)
{
	struct drm_ccore_insn insns[3] = {
		{ .opcode = DRM_CCORE_OP_START, .engine = 0, .ring = 0, .imm = 1 },
		{ .opcode = DRM_CCORE_OP_ACQUIRE, .imm = 1 },
		{ .opcode = DRM_CCORE_OP_RET },
	};

	self->fd = self->fd2 = -1;
	if (ccore_open_first(&self->d))
		SKIP(return, NO_DEVICE_MSG);
	self->fd = self->d.fd;
	self->fd2 = reopen(&self->d);
	ASSERT_LE(0, self->fd2);
	ASSERT_EQ(0, bo_create(self->fd, 4096, &self->bo, &self->va));
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 8, 0, 0, &self->ring));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 2, &self->sem));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 2, &self->sem2));
	ASSERT_EQ(0, sem_alloc(self->fd2, 0, 1, &self->other_sem));
	insns[1].sem = self->sem;
	/* starts the ring and names the block: neither may go while it is loaded */
	ASSERT_EQ(0, prog_load(self->fd, 0, insns, 3, &self->prog, NULL));
}

FIXTURE_TEARDOWN(reason)
{
	if (self->fd >= 0)
		close(self->fd);
	if (self->fd2 >= 0)
		close(self->fd2);
}

static int last_error(int fd, struct drm_ccore_last_error *e)
{
	memset(e, 0, sizeof(*e));
	return ioc(fd, DRM_IOCTL_CCORE_GET_LAST_ERROR, e);
}

/* @rc, returned by @req on @fd, must be @want_err for @want_reason at @want_index. */
#define EXPECT_REASON(fd, req, rc, want_err, want_reason, want_index)               \
	do {                                                                          \
		struct drm_ccore_last_error e_;                                       \
		int rc_ = (rc);                                                       \
		ASSERT_EQ(want_err, rc_);                                             \
		ASSERT_EQ(0, last_error(fd, &e_));                                    \
		EXPECT_EQ(want_reason, e_.reason) {                                   \
			TH_LOG("%s: reason %u", #rc, e_.reason);                      \
		}                                                                     \
		EXPECT_EQ(_IOC_NR(req), e_.ioctl);                                    \
		EXPECT_EQ(want_err, e_.error);                                        \
		EXPECT_EQ(want_index, e_.index);                                      \
	} while (0)

#define IOCTL_REASON(self, req, arg, err, reason) \
	EXPECT_REASON((self)->fd, req, ioc((self)->fd, req, arg), err, reason, NO_INDEX)

TEST_F(reason, ring_create)
{
	struct drm_ccore_ring_create a = { .ring = 1, .size = 4, .pad2 = 1 };

	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_CREATE, &a, -EINVAL, DRM_CCORE_REASON_PAD);
	a = (struct drm_ccore_ring_create){ .ring = 1, .size = 4, .flags = 0x100 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_CREATE, &a, -EINVAL, DRM_CCORE_REASON_FLAGS);
	a = (struct drm_ccore_ring_create){ .core = self->d.cores, .size = 4 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_CREATE, &a, -EINVAL, DRM_CCORE_REASON_CORE);
	a = (struct drm_ccore_ring_create){ .ring = self->d.rings, .size = 4 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_CREATE, &a, -EINVAL,
		     DRM_CCORE_REASON_ENGINE_RING);
	a = (struct drm_ccore_ring_create){ .ring = 1, .size = self->d.max_ring + 1 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_CREATE, &a, -EINVAL, DRM_CCORE_REASON_RING_SIZE);
	a = (struct drm_ccore_ring_create){ .ring = 1, .size = 4,
					    .packet_size = self->d.max_packet * 2 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_CREATE, &a, -EINVAL,
		     DRM_CCORE_REASON_PACKET_SIZE);
	a = (struct drm_ccore_ring_create){ .ring = 1, .size = 4,
					    .index_count = DRM_CCORE_MAX_INDEX_COUNT + 1 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_CREATE, &a, -EINVAL, DRM_CCORE_REASON_RING_INDEX);
	/* claimed by this file, and by another one */
	a = (struct drm_ccore_ring_create){ .size = 4 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_CREATE, &a, -EBUSY, DRM_CCORE_REASON_RING_CLAIMED);
	EXPECT_REASON(self->fd2, DRM_IOCTL_CCORE_RING_CREATE,
		      ioc(self->fd2, DRM_IOCTL_CCORE_RING_CREATE, &a), -EBUSY,
		      DRM_CCORE_REASON_RING_CLAIMED, NO_INDEX);
}

TEST_F(reason, ring_destroy_and_stats)
{
	struct drm_ccore_ring_destroy a = { .handle = BAD_HANDLE };
	struct drm_ccore_ring_stats st = { .handle = BAD_HANDLE };

	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_DESTROY, &a, -ENOENT,
		     DRM_CCORE_REASON_RING_HANDLE);
	a = (struct drm_ccore_ring_destroy){ .handle = self->ring, .pad = 1 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_DESTROY, &a, -EINVAL, DRM_CCORE_REASON_PAD);
	a.pad = 0;
	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_DESTROY, &a, -EBUSY,
		     DRM_CCORE_REASON_RING_PROGRAMS);
	/* another file's handle names nothing here */
	EXPECT_REASON(self->fd2, DRM_IOCTL_CCORE_RING_DESTROY,
		      ioc(self->fd2, DRM_IOCTL_CCORE_RING_DESTROY, &a), -ENOENT,
		      DRM_CCORE_REASON_RING_HANDLE, NO_INDEX);
	IOCTL_REASON(self, DRM_IOCTL_CCORE_RING_STATS, &st, -ENOENT,
		     DRM_CCORE_REASON_RING_HANDLE);
}

TEST_F(reason, ring_submit)
{
	struct drm_ccore_desc ds[9];
	uint32_t bad;

	for (int i = 0; i < 9; i++)
		ds[i] = desc_copy(self->va + 64 * i, self->va + 2048, 64);
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_RING_SUBMIT,
		      ring_submit(self->fd, self->ring, ds, 0, 0, NULL), -EINVAL,
		      DRM_CCORE_REASON_DESC_COUNT, NO_INDEX);
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_RING_SUBMIT,
		      ring_submit(self->fd, self->ring, ds, self->d.max_ring + 1, 0, NULL), -ENOSPC,
		      DRM_CCORE_REASON_RING_FULL, NO_INDEX);
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_RING_SUBMIT,
		      ring_submit(self->fd, self->ring, ds, 1, 0x10, NULL), -EINVAL,
		      DRM_CCORE_REASON_FLAGS, NO_INDEX);
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_RING_SUBMIT,
		      ring_submit(self->fd, BAD_HANDLE, ds, 1, 0, NULL), -ENOENT,
		      DRM_CCORE_REASON_RING_HANDLE, NO_INDEX);
	/* 9 descriptors into 8 slots */
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_RING_SUBMIT,
		      ring_submit(self->fd, self->ring, ds, 9, 0, NULL), -ENOSPC,
		      DRM_CCORE_REASON_RING_FULL, NO_INDEX);
	ds[2].op = 0x77;
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_RING_SUBMIT,
		      ring_submit(self->fd, self->ring, ds, 3, 0, &bad), -EINVAL,
		      DRM_CCORE_REASON_DESC_INVALID, 2);
	ASSERT_EQ(2, bad);
	ds[2] = desc_sem_write(self->other_sem, 1, 0);
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_RING_SUBMIT,
		      ring_submit(self->fd, self->ring, ds, 3, 0, &bad), -EACCES,
		      DRM_CCORE_REASON_DESC_SEM, 2);
}

TEST_F(reason, semaphores)
{
	struct drm_ccore_sem_alloc sa = { .count = 1, .pad = 1 };
	struct drm_ccore_sem_free sf = { .first = self->sem };
	struct drm_ccore_sem_access sx = { .sem = self->sem, .op = 3 };
	struct drm_ccore_sem_wait sw = { .sem = self->other_sem, .value = 1 };
	struct drm_ccore_sem_export se = { .first = self->sem2 + 1 };
	uint32_t bo;
	int dmabuf;

	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_ALLOC, &sa, -EINVAL, DRM_CCORE_REASON_PAD);
	sa = (struct drm_ccore_sem_alloc){ .count = self->d.sems + 1 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_ALLOC, &sa, -EINVAL, DRM_CCORE_REASON_SEM_COUNT);
	sa = (struct drm_ccore_sem_alloc){ .core = self->d.cores, .count = 1 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_ALLOC, &sa, -EINVAL, DRM_CCORE_REASON_CORE);
	sa = (struct drm_ccore_sem_alloc){ .count = self->d.sems };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_ALLOC, &sa, -ENOSPC, DRM_CCORE_REASON_SEM_NO_SPACE);
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_FREE, &sf, -EBUSY, DRM_CCORE_REASON_SEM_PINNED);
	sf.first = self->sem2 + 1;
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_FREE, &sf, -EINVAL, DRM_CCORE_REASON_SEM_NOT_BLOCK);
	sf.first = DRM_CCORE_SEM_REF(self->d.index, 255, 0);
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_FREE, &sf, -EINVAL, DRM_CCORE_REASON_SEM_INVALID);
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_ACCESS, &sx, -EINVAL, DRM_CCORE_REASON_SEM_OP);
	sx = (struct drm_ccore_sem_access){ .sem = self->other_sem };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_ACCESS, &sx, -EACCES,
		     DRM_CCORE_REASON_SEM_NOT_USABLE);
	sx = (struct drm_ccore_sem_access){ .sem = self->sem, .pad = 1 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_ACCESS, &sx, -EINVAL, DRM_CCORE_REASON_PAD);
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_WAIT, &sw, -EACCES,
		     DRM_CCORE_REASON_SEM_NOT_USABLE);
	sw.sem = DRM_CCORE_SEM_REF(self->d.index, 255, 0);
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_WAIT, &sw, -EINVAL, DRM_CCORE_REASON_SEM_INVALID);
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_EXPORT, &se, -EINVAL,
		     DRM_CCORE_REASON_SEM_NOT_BLOCK);
	se = (struct drm_ccore_sem_export){ .first = self->sem2, .flags = 1 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SEM_EXPORT, &se, -EINVAL, DRM_CCORE_REASON_FLAGS);
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_SEM_IMPORT, sem_import(self->fd, 1000, NULL, NULL),
		      -EBADF, DRM_CCORE_REASON_FD_BAD, NO_INDEX);
	ASSERT_EQ(0, bo_create(self->fd, 4096, &bo, NULL));
	ASSERT_EQ(0, prime_export(self->fd, bo, &dmabuf));
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_SEM_IMPORT,
		      sem_import(self->fd, dmabuf, NULL, NULL), -EINVAL,
		      DRM_CCORE_REASON_FD_NOT_SEM, NO_INDEX);
	close(dmabuf);
}

TEST_F(reason, import_from_another_fabric)
{
	struct ccore_dev other;
	int efd;

	if (self->d.fabric < 0 || ccore_open_where(self->d.fabric + 1, 0, &other))
		SKIP(return, "needs a second fabric (selftests/qemu/setup.sh makes one)");
	ASSERT_EQ(0, sem_export(self->fd, self->sem2, &efd));
	EXPECT_REASON(other.fd, DRM_IOCTL_CCORE_SEM_IMPORT, sem_import(other.fd, efd, NULL, NULL),
		      -EXDEV, DRM_CCORE_REASON_FD_OTHER_FABRIC, NO_INDEX);
	close(efd);
	close(other.fd);
}

TEST_F(reason, programs)
{
	uint32_t n = self->d.max_program, bad, big_handle;
	struct drm_ccore_insn insns[3] = {
		{ .opcode = DRM_CCORE_OP_NOP }, { .opcode = 0xee }, { .opcode = DRM_CCORE_OP_RET },
	};
	struct drm_ccore_insn *big = calloc(n, sizeof(*big));
	struct drm_ccore_program_free pf = { .handle = BAD_HANDLE };

	ASSERT_NE(NULL, big);
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_PROGRAM_LOAD,
		      prog_load(self->fd, num_cc(&self->d), insns, 3, NULL, NULL), -EINVAL,
		      DRM_CCORE_REASON_CC_CORE, NO_INDEX);
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_PROGRAM_LOAD,
		      prog_load(self->fd, 0, insns, 0, NULL, NULL), -EINVAL,
		      DRM_CCORE_REASON_INSN_COUNT, NO_INDEX);
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_PROGRAM_LOAD,
		      prog_load(self->fd, 0, insns, n + 1, NULL, NULL), -EINVAL,
		      DRM_CCORE_REASON_INSN_COUNT, NO_INDEX);
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_PROGRAM_LOAD,
		      prog_load(self->fd, 0, insns, 3, NULL, &bad), -EINVAL,
		      DRM_CCORE_REASON_INSN_INVALID, 1);
	ASSERT_EQ(1, bad);
	insns[1] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ACQUIRE, .sem = self->other_sem,
					    .imm = 1 };
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_PROGRAM_LOAD,
		      prog_load(self->fd, 0, insns, 3, NULL, NULL), -EACCES,
		      DRM_CCORE_REASON_INSN_NOT_OWNED, 1);
	/* as large as the memory: it cannot fit beside the resident firmware */
	big[n - 1].opcode = DRM_CCORE_OP_RET;
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_PROGRAM_LOAD,
		      prog_load(self->fd, 1, big, n, &big_handle, NULL), -ENOSPC,
		      DRM_CCORE_REASON_CC_MEMORY_FULL, NO_INDEX);
	free(big);
	IOCTL_REASON(self, DRM_IOCTL_CCORE_PROGRAM_FREE, &pf, -ENOENT,
		     DRM_CCORE_REASON_PROGRAM_HANDLE);
	pf = (struct drm_ccore_program_free){ .handle = self->prog, .pad = 1 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_PROGRAM_FREE, &pf, -EINVAL, DRM_CCORE_REASON_PAD);
}

TEST_F(reason, jobs)
{
	struct drm_ccore_insn ret = { .opcode = DRM_CCORE_OP_RET };
	struct drm_ccore_submit su = { .program = self->prog, .pad = 1 };
	struct drm_ccore_job_wait jw = { .job = 1ull << 40 };
	struct drm_ccore_cc_trigger ct = { .cc_core = num_cc(&self->d), .count = 1 };
	struct drm_ccore_program_free pf = { 0 };
	uint32_t cc = num_cc(&self->d) - 1, waiter;
	uint64_t job;
	int32_t status;

	IOCTL_REASON(self, DRM_IOCTL_CCORE_SUBMIT, &su, -EINVAL, DRM_CCORE_REASON_PAD);
	su = (struct drm_ccore_submit){ .program = self->prog, .flags = 2 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SUBMIT, &su, -EINVAL, DRM_CCORE_REASON_FLAGS);
	su = (struct drm_ccore_submit){ .program = self->prog, .timeout_ms = 3600001 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SUBMIT, &su, -EINVAL, DRM_CCORE_REASON_TIMEOUT);
	su = (struct drm_ccore_submit){ .program = BAD_HANDLE };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SUBMIT, &su, -ENOENT, DRM_CCORE_REASON_PROGRAM_HANDLE);
	su = (struct drm_ccore_submit){ .program = self->prog, .out_syncobj = BAD_HANDLE };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_SUBMIT, &su, -ENOENT, DRM_CCORE_REASON_SYNCOBJ);
	IOCTL_REASON(self, DRM_IOCTL_CCORE_JOB_WAIT, &jw, -EINVAL, DRM_CCORE_REASON_JOB_UNKNOWN);
	IOCTL_REASON(self, DRM_IOCTL_CCORE_CC_TRIGGER, &ct, -EINVAL, DRM_CCORE_REASON_CC_CORE);
	ct = (struct drm_ccore_cc_trigger){ .cc_core = 0, .count = 0x10000 };
	IOCTL_REASON(self, DRM_IOCTL_CCORE_CC_TRIGGER, &ct, -EINVAL,
		     DRM_CCORE_REASON_TRIGGER_COUNT);
	/* queued without a trigger: its program stays until the job ran */
	ASSERT_EQ(0, prog_load(self->fd, cc, &ret, 1, &waiter, NULL));
	ASSERT_EQ(0, submit_job(self->fd, waiter, 0, 0, 0, 0, &job));
	pf.handle = waiter;
	IOCTL_REASON(self, DRM_IOCTL_CCORE_PROGRAM_FREE, &pf, -EBUSY,
		     DRM_CCORE_REASON_PROGRAM_BUSY);
	ASSERT_EQ(0, cc_trigger(self->fd, cc, 1));
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(10000), &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, prog_free(self->fd, waiter));
}

/* A failure outside the rules reads no reason, not the one before it. */
TEST_F(reason, no_stale_reason)
{
	struct drm_ccore_ring_submit rs = { .handle = self->ring, .count = 1, .descs = 8 };
	struct drm_ccore_last_error e;

	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_RING_DESTROY, ring_destroy(self->fd, BAD_HANDLE),
		      -ENOENT, DRM_CCORE_REASON_RING_HANDLE, NO_INDEX);
	/* descs points at nothing: -EFAULT, no rule */
	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_RING_SUBMIT,
		      ioc(self->fd, DRM_IOCTL_CCORE_RING_SUBMIT, &rs), -EFAULT,
		      DRM_CCORE_REASON_NONE, NO_INDEX);
	/* an ioctl the driver does not have */
	EXPECT_REASON(self->fd, DRM_IO(DRM_COMMAND_BASE + 0x3f),
		      ioc(self->fd, DRM_IO(DRM_COMMAND_BASE + 0x3f), NULL), -ENOTTY,
		      DRM_CCORE_REASON_NONE, NO_INDEX);
	/* a call that succeeds leaves the record; GET_LAST_ERROR changes nothing */
	ASSERT_EQ(0, sem_read(self->fd, self->sem));
	ASSERT_EQ(0, last_error(self->fd, &e));
	ASSERT_EQ(-ENOTTY, e.error);
	e = (struct drm_ccore_last_error){ .flags = 1 };
	ASSERT_EQ(-EINVAL, ioc(self->fd, DRM_IOCTL_CCORE_GET_LAST_ERROR, &e));
	ASSERT_EQ(0, last_error(self->fd, &e));
	ASSERT_EQ(-ENOTTY, e.error);
}

struct thread_case {
	int fd;
	uint32_t sem;
	int which;
	pthread_barrier_t *failed;
	struct drm_ccore_last_error e;
};

static void *fail_then_read(void *p)
{
	struct thread_case *t = p;
	struct drm_ccore_sem_access sx = { .sem = t->sem, .op = 9 };

	/* thousands of rounds: the other thread's failure lands between ours */
	for (int i = 0; i < 2000; i++) {
		if (t->which)
			ioc(t->fd, DRM_IOCTL_CCORE_SEM_ACCESS, &sx);
		else
			ring_destroy(t->fd, BAD_HANDLE);
		pthread_barrier_wait(t->failed);
		if (last_error(t->fd, &t->e) ||
		    t->e.reason != (t->which ? DRM_CCORE_REASON_SEM_OP :
				    DRM_CCORE_REASON_RING_HANDLE))
			return t;
	}
	return NULL;
}

TEST_F(reason, threads_read_their_own)
{
	pthread_barrier_t failed;
	struct thread_case t[2] = {
		{ .fd = self->fd, .sem = self->sem, .which = 0, .failed = &failed },
		{ .fd = self->fd, .sem = self->sem, .which = 1, .failed = &failed },
	};
	pthread_t th[2];
	void *bad[2];

	ASSERT_EQ(0, pthread_barrier_init(&failed, NULL, 2));
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, fail_then_read, &t[i]));
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], &bad[i]);
	pthread_barrier_destroy(&failed);
	EXPECT_EQ(NULL, bad[0]) {
		TH_LOG("thread 0 read reason %u", t[0].e.reason);
	}
	EXPECT_EQ(NULL, bad[1]) {
		TH_LOG("thread 1 read reason %u", t[1].e.reason);
	}
}

static int child_reads_nothing(void *arg)
{
	struct drm_ccore_last_error e;
	int fd = *(int *)arg;

	if (last_error(fd, &e))
		return 1;
	return e.reason == DRM_CCORE_REASON_NONE && e.ioctl == ~0u ? 0 : 2;
}

/* A process sharing the file (fork) does not read the parent's record, nor another file's. */
TEST_F(reason, processes_and_files_read_their_own)
{
	struct drm_ccore_last_error e;

	EXPECT_REASON(self->fd, DRM_IOCTL_CCORE_RING_DESTROY, ring_destroy(self->fd, BAD_HANDLE),
		      -ENOENT, DRM_CCORE_REASON_RING_HANDLE, NO_INDEX);
	ASSERT_EQ(0, run_child(child_reads_nothing, &self->fd));
	ASSERT_EQ(0, last_error(self->fd2, &e));
	ASSERT_EQ(DRM_CCORE_REASON_NONE, e.reason);
	ASSERT_EQ(~0u, e.ioctl);
}

TEST_HARNESS_MAIN
