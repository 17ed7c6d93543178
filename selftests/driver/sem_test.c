// SPDX-License-Identifier: GPL-2.0
/*
 * Semaphores: SEM_ALLOC/FREE, SEM_ACCESS read/set/add, SEM_WAIT with its
 * absolute CLOCK_MONOTONIC deadline, and sharing blocks with SEM_EXPORT and
 * SEM_IMPORT (between files of one device and across devices of a fabric).
 */
#include "ccore_drv_test.h"

CCORE_DEV_FIXTURE(sem)

TEST_F(sem, alloc_free)
{
	uint32_t first, again, core = self->d.cores - 1;

	ASSERT_EQ(0, sem_alloc(self->fd, core, 4, &first));
	ASSERT_EQ(self->d.index, DRM_CCORE_SEM_REF_DEV(first));
	ASSERT_EQ(core, DRM_CCORE_SEM_REF_CORE(first));
	ASSERT_LE(DRM_CCORE_SEM_REF_IDX(first) + 4, self->d.sems);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(0, sem_read(self->fd, first + i));
	ASSERT_EQ(0, sem_access(self->fd, first + 3, DRM_CCORE_SEM_SET, 9, NULL));

	ASSERT_EQ(0, sem_free(self->fd, first));
	ASSERT_EQ(-EINVAL, sem_free(self->fd, first));		/* double free */
	ASSERT_EQ(-EACCES, sem_access(self->fd, first, DRM_CCORE_SEM_READ, 0, NULL));
	ASSERT_EQ(-EACCES, sem_access(self->fd, first + 3, DRM_CCORE_SEM_READ, 0, NULL));
	/* allocated again: zero again */
	ASSERT_EQ(0, sem_alloc(self->fd, core, 4, &again));
	ASSERT_EQ(first, again);
	ASSERT_EQ(0, sem_read(self->fd, again + 3));
}

TEST_F(sem, alloc_out_of_range)
{
	ASSERT_EQ(-EINVAL, sem_alloc(self->fd, self->d.cores, 1, NULL));
	ASSERT_EQ(-EINVAL, sem_alloc(self->fd, 0xffffffff, 1, NULL));
	ASSERT_EQ(-EINVAL, sem_alloc(self->fd, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, sem_alloc(self->fd, 0, self->d.sems + 1, NULL));
}

TEST_F(sem, alloc_exhausted)
{
	uint32_t core = self->d.cores - 1, first, one;
	int fd2;

	ASSERT_EQ(0, sem_alloc(self->fd, core, self->d.sems, &first))
		TH_LOG("another file holds semaphores of core %u", core);
	ASSERT_EQ(0, DRM_CCORE_SEM_REF_IDX(first));
	ASSERT_EQ(-ENOSPC, sem_alloc(self->fd, core, 1, NULL));
	fd2 = reopen(&self->d);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(-ENOSPC, sem_alloc(fd2, core, 1, NULL));
	/* another file cannot free them */
	ASSERT_EQ(-EINVAL, sem_free(fd2, first));
	ASSERT_EQ(0, sem_free(self->fd, first));
	ASSERT_EQ(0, sem_alloc(fd2, core, 1, &one));
	ASSERT_EQ(-ENOSPC, sem_alloc(self->fd, core, self->d.sems, NULL));
	/* closing the file frees its blocks */
	close(fd2);
	ASSERT_EQ(0, sem_alloc(self->fd, core, self->d.sems, NULL));
}

TEST_F(sem, free_bad)
{
	uint32_t first;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 4, &first));
	/* only the first of a block frees it */
	ASSERT_EQ(-EINVAL, sem_free(self->fd, first + 1));
	ASSERT_EQ(-EINVAL, sem_free(self->fd, DRM_CCORE_SEM_REF(self->d.index, 0,
								self->d.sems - 1)));
	ASSERT_EQ(-EINVAL, sem_free(self->fd, DRM_CCORE_SEM_REF(self->d.index, 0, self->d.sems)));
	ASSERT_EQ(-EINVAL, sem_free(self->fd, DRM_CCORE_SEM_TRIGGER));
	ASSERT_EQ(0, sem_read(self->fd, first + 1));
	ASSERT_EQ(0, sem_free(self->fd, first));
}

TEST_F(sem, access_ops)
{
	uint32_t s, v;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 2, &s));
	ASSERT_EQ(0, sem_access(self->fd, s, DRM_CCORE_SEM_SET, 5, &v));
	ASSERT_EQ(5, v);
	ASSERT_EQ(0, sem_access(self->fd, s, DRM_CCORE_SEM_ADD, 3, &v));
	ASSERT_EQ(8, v);
	ASSERT_EQ(0, sem_access(self->fd, s, DRM_CCORE_SEM_READ, 1234, &v));
	ASSERT_EQ(8, v);
	/* modulo 2^32 */
	ASSERT_EQ(0, sem_access(self->fd, s, DRM_CCORE_SEM_SET, 0xffffffff, &v));
	ASSERT_EQ(0, sem_access(self->fd, s, DRM_CCORE_SEM_ADD, 2, &v));
	ASSERT_EQ(1, v);
	ASSERT_EQ(0, sem_access(self->fd, s, DRM_CCORE_SEM_ADD, 0xffffffff, &v));
	ASSERT_EQ(0, v);
	/* the neighbour is independent */
	ASSERT_EQ(0, sem_read(self->fd, s + 1));
	ASSERT_EQ(-EINVAL, sem_access(self->fd, s, DRM_CCORE_SEM_ADD + 1, 0, NULL));
	ASSERT_EQ(-EINVAL, sem_access(self->fd, s, 0xffffffff, 0, NULL));
}

TEST_F(sem, access_not_owned)
{
	const struct ccore_dev *d = &self->d;
	uint32_t mine, theirs;
	int fd2;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &mine));
	fd2 = reopen(d);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, sem_alloc(fd2, 0, 1, &theirs));
	ASSERT_EQ(-EACCES, sem_access(self->fd, theirs, DRM_CCORE_SEM_READ, 0, NULL));
	ASSERT_EQ(-EACCES, sem_access(self->fd, theirs, DRM_CCORE_SEM_SET, 1, NULL));
	ASSERT_EQ(-EACCES, sem_access(fd2, mine, DRM_CCORE_SEM_ADD, 1, NULL));
	ASSERT_EQ(0, sem_read(self->fd, mine));
	ASSERT_EQ(0, sem_read(fd2, theirs));
	/* valid but never allocated */
	ASSERT_EQ(-EACCES, sem_access(self->fd, DRM_CCORE_SEM_REF(d->index, 0, d->sems - 1),
				      DRM_CCORE_SEM_READ, 0, NULL));
	/* not semaphores at all */
	ASSERT_EQ(-EINVAL, sem_access(self->fd, DRM_CCORE_SEM_REF(d->index, 0, d->sems),
				      DRM_CCORE_SEM_READ, 0, NULL));
	ASSERT_EQ(-EINVAL, sem_access(self->fd, DRM_CCORE_SEM_REF(d->index, d->cores, 0),
				      DRM_CCORE_SEM_READ, 0, NULL));
	ASSERT_EQ(-EINVAL, sem_access(self->fd, DRM_CCORE_SEM_REF(d->num_devices, 0, 0),
				      DRM_CCORE_SEM_READ, 0, NULL));
	ASSERT_EQ(-EINVAL, sem_access(self->fd, DRM_CCORE_SEM_TRIGGER, DRM_CCORE_SEM_ADD, 1, NULL));
	/* waits too */
	ASSERT_EQ(-EACCES, sem_wait(self->fd, theirs, 0, deadline_ms(10)));
	ASSERT_EQ(-EINVAL, sem_wait(self->fd, DRM_CCORE_SEM_REF(d->index, 0, d->sems), 0,
				    deadline_ms(10)));
	ASSERT_EQ(-EINVAL, sem_wait(self->fd, DRM_CCORE_SEM_TRIGGER, 0, deadline_ms(10)));
	close(fd2);
	/* gone with its file */
	ASSERT_EQ(-EACCES, sem_access(self->fd, theirs, DRM_CCORE_SEM_READ, 0, NULL));
}

TEST_F(sem, wait_reached)
{
	uint32_t s;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &s));
	/* already reached: no wait, whatever the deadline */
	ASSERT_EQ(0, sem_wait(self->fd, s, 0, 0));
	ASSERT_EQ(0, sem_access(self->fd, s, DRM_CCORE_SEM_SET, 7, NULL));
	ASSERT_EQ(0, sem_wait(self->fd, s, 7, 0));
	ASSERT_EQ(0, sem_wait(self->fd, s, 3, -1));
	ASSERT_EQ(0, sem_wait(self->fd, s, 7, deadline_ms(1000)));
	/* unsigned comparison */
	ASSERT_EQ(-ETIMEDOUT, sem_wait(self->fd, s, 0x80000000u, 0));
	ASSERT_EQ(7, sem_read(self->fd, s));	/* waiting never consumes */
}

/* timeout_ns is an absolute CLOCK_MONOTONIC time, not a duration. */
TEST_F(sem, wait_timeout)
{
	int64_t t0, dt;
	uint32_t s;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &s));
	t0 = now_ns();
	ASSERT_EQ(-ETIMEDOUT, sem_wait(self->fd, s, 1, t0 + 100 * NSEC_PER_MSEC));
	dt = now_ns() - t0;
	EXPECT_GE(dt, 99 * NSEC_PER_MSEC);
	EXPECT_LT(dt, 2 * NSEC_PER_SEC);

	/* in the past: at once */
	t0 = now_ns();
	ASSERT_EQ(-ETIMEDOUT, sem_wait(self->fd, s, 1, t0 - NSEC_PER_MSEC));
	ASSERT_EQ(-ETIMEDOUT, sem_wait(self->fd, s, 1, 0));
	ASSERT_EQ(-ETIMEDOUT, sem_wait(self->fd, s, 1, INT64_MIN));
	/* 300 ms "from now" read as a duration is long past as a deadline */
	ASSERT_GT(t0, 300 * NSEC_PER_MSEC);
	ASSERT_EQ(-ETIMEDOUT, sem_wait(self->fd, s, 1, 300 * NSEC_PER_MSEC));
	dt = now_ns() - t0;
	EXPECT_LT(dt, 250 * NSEC_PER_MSEC) TH_LOG("a past deadline waited %lld ms",
						 (long long)(dt / NSEC_PER_MSEC));
}

struct poke {
	int fd;
	uint32_t sem;
	long delay_ms;
	bool descriptor;
};

static int poke_child(void *arg)
{
	struct poke *p = arg;
	struct drm_ccore_desc d;
	uint32_t ring;

	sleep_ms(p->delay_ms);
	if (!p->descriptor)
		return sem_access(p->fd, p->sem, DRM_CCORE_SEM_ADD, 2, NULL) ? 2 : 0;
	/* same file, so the child may use the parent's semaphore */
	d = desc_sem_write(p->sem, 2, false);
	CHILD_EQ(0, ring_create(p->fd, 0, 0, 5, 1, 0, 0, &ring));
	CHILD_EQ(0, ring_submit(p->fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	return 0;
}

/* A waiter wakes when the semaphore gets there, from the host or a ring. */
TEST_F(sem, wait_woken)
{
	struct poke p = { .fd = self->fd, .delay_ms = 50 };
	int64_t t0, dt;
	pid_t pid;
	int status;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &p.sem));
	for (int i = 0; i < 2; i++) {
		p.descriptor = i;
		fflush(stderr);
		pid = fork();
		ASSERT_GE(pid, 0);
		if (pid == 0)
			_exit(poke_child(&p));
		t0 = now_ns();
		ASSERT_EQ(0, sem_wait(self->fd, p.sem, 2 * (i + 1), t0 + 5 * NSEC_PER_SEC));
		dt = now_ns() - t0;
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_EQ(0, status);
		EXPECT_GE(dt, 40 * NSEC_PER_MSEC);
		EXPECT_LT(dt, 4 * NSEC_PER_SEC);
	}
	ASSERT_EQ(4, sem_read(self->fd, p.sem));
}

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * A signal ends a wait (-EINTR with a handler that does not restart):
 * a process must stay killable whatever deadline it passed.
 */
TEST_F(sem, wait_interrupted)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct drm_ccore_sem_wait w = { 0 };
	pid_t parent = getpid(), pid;
	int64_t t0, dt;
	int rc, status;

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &w.sem));
	w.value = 1;
	fflush(stderr);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		sleep_ms(50);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	t0 = now_ns();
	w.timeout_ns = t0 + NSEC_PER_SEC;
	rc = ioctl(self->fd, DRM_IOCTL_CCORE_SEM_WAIT, &w) ? -errno : 0;
	dt = now_ns() - t0;
	waitpid(pid, &status, 0);
	ASSERT_EQ(-EINTR, rc);
	EXPECT_LT(dt, 500 * NSEC_PER_MSEC) TH_LOG("SEM_WAIT ignored the signal for %lld ms",
						 (long long)(dt / NSEC_PER_MSEC));
}

/* Export a block from one file, import it in another of the same device. */
TEST_F(sem, export_import)
{
	uint32_t s, si, n, ring, prog, v;
	struct drm_ccore_insn insns[2];
	struct drm_ccore_desc d;
	uint64_t job;
	int32_t status;
	int fd2, efd;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 4, &s));
	fd2 = reopen(&self->d);
	ASSERT_GE(fd2, 0);
	/* before: nothing */
	ASSERT_EQ(-EACCES, sem_access(fd2, s + 3, DRM_CCORE_SEM_ADD, 1, NULL));
	ASSERT_EQ(-EACCES, sem_wait(fd2, s, 0, 0));

	ASSERT_EQ(0, sem_export(self->fd, s, &efd));
	ASSERT_GE(efd, 0);
	ASSERT_EQ(FD_CLOEXEC, fcntl(efd, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(0, sem_import(fd2, efd, &si, &n));
	ASSERT_EQ(s, si);
	ASSERT_EQ(4, n);
	/* the importer signals, waits and reads */
	ASSERT_EQ(0, sem_access(fd2, s + 3, DRM_CCORE_SEM_ADD, 1, &v));
	ASSERT_EQ(1, v);
	ASSERT_EQ(1, sem_read(self->fd, s + 3));
	ASSERT_EQ(0, sem_wait(fd2, s + 3, 1, deadline_ms(1000)));
	/* ... in descriptors */
	d = desc_sem_write(s + 2, 6, true);
	ASSERT_EQ(0, ring_create(fd2, 0, 0, 0, 2, 0, 0, &ring));
	ASSERT_EQ(0, ring_submit(fd2, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, sem_wait(self->fd, s + 2, 6, deadline_ms(5000)));
	/* ... and in programs */
	insns[0] = I_ADD(s + 1, 4);
	insns[1] = I_RET();
	ASSERT_EQ(0, prog_load(fd2, 0, insns, 2, &prog, NULL));
	ASSERT_EQ(0, submit_job(fd2, prog, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));
	ASSERT_EQ(0, job_wait(fd2, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(4, sem_read(self->fd, s + 1));
	/* the block only: not its neighbours */
	ASSERT_EQ(-EACCES, sem_access(fd2, s + 4, DRM_CCORE_SEM_READ, 0, NULL));
	ASSERT_EQ(0, prog_free(fd2, prog));

	/* importing twice is harmless */
	ASSERT_EQ(0, sem_import(fd2, efd, NULL, NULL));
	/* the importer cannot free or re-export what it does not own */
	ASSERT_EQ(-EINVAL, sem_free(fd2, s));
	{
		int e2;

		ASSERT_EQ(-EINVAL, sem_export(fd2, s, &e2));
	}
	close(efd);
	/* the grant outlives the export fd, not the block */
	ASSERT_EQ(0, sem_read(fd2, s));
	/* the importer's ring still signals the block: it stays */
	ASSERT_EQ(-EBUSY, sem_free(self->fd, s));
	ASSERT_EQ(0, ring_destroy(fd2, ring));
	ASSERT_EQ(0, sem_free(self->fd, s));
	ASSERT_EQ(-EACCES, sem_access(fd2, s, DRM_CCORE_SEM_READ, 0, NULL));
	ASSERT_EQ(-EACCES, sem_wait(fd2, s, 0, 0));
	close(fd2);
}

/*
 * A grant is for the block that was exported: when the exporter frees it
 * and allocates semaphores there again, the importer must not reach them.
 */
TEST_F(sem, grant_ends_with_block)
{
	uint32_t s, s2;
	int fd2, efd;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 4, &s));
	ASSERT_EQ(0, sem_export(self->fd, s, &efd));
	fd2 = reopen(&self->d);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, sem_import(fd2, efd, NULL, NULL));
	close(efd);
	ASSERT_EQ(0, sem_free(self->fd, s));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 4, &s2));
	ASSERT_EQ(s, s2);
	EXPECT_EQ(-EACCES, sem_access(fd2, s2, DRM_CCORE_SEM_SET, 1, NULL))
		TH_LOG("the importer reached a block that was never exported to it");
	close(fd2);
}

TEST_F(sem, export_import_bad)
{
	uint32_t s;
	int fd2, efd, nul;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 4, &s));
	/* only the first of a block this file owns */
	ASSERT_EQ(-EINVAL, sem_export(self->fd, s + 1, &efd));
	ASSERT_EQ(-EINVAL, sem_export(self->fd, DRM_CCORE_SEM_REF(self->d.index, 0,
								  self->d.sems - 1), &efd));
	ASSERT_EQ(-EINVAL, sem_export(self->fd, DRM_CCORE_SEM_TRIGGER, &efd));
	fd2 = reopen(&self->d);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(-EINVAL, sem_export(fd2, s, &efd));

	ASSERT_EQ(-EBADF, sem_import(fd2, -1, NULL, NULL));
	ASSERT_EQ(-EBADF, sem_import(fd2, 1000, NULL, NULL));
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ASSERT_GE(nul, 0);
	ASSERT_EQ(-EINVAL, sem_import(fd2, nul, NULL, NULL));
	ASSERT_EQ(-EINVAL, sem_import(fd2, self->fd, NULL, NULL));	/* a device fd */
	close(nul);

	/* an export outlives its file, but grants nothing once the file is gone */
	ASSERT_EQ(0, sem_export(self->fd, s, &efd));
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, sem_import(fd2, efd, NULL, NULL));
	ASSERT_EQ(-EACCES, sem_access(fd2, s, DRM_CCORE_SEM_READ, 0, NULL));
	close(efd);
	close(fd2);
}

/* Another device of the fabric signals our semaphore over the links. */
TEST_F(sem, import_other_device)
{
	struct drm_ccore_desc d;
	struct ccore_dev d1;
	uint32_t s, ring;
	int efd;

	if (self->d.num_devices < 2 || self->d.fabric < 0 ||
	    ccore_open_where(self->d.fabric, (self->d.index + 1) % self->d.num_devices, &d1))
		SKIP(return, "needs a second device in the fabric (echo \"0 2\" > new_device)");
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 2, &s));
	/* device 1's ring may not name it yet */
	d = desc_sem_write(s, 1, false);
	ASSERT_EQ(0, ring_create(d1.fd, 0, 0, 0, 2, 0, 0, &ring));
	ASSERT_EQ(-EACCES, ring_submit(d1.fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, sem_export(self->fd, s, &efd));
	ASSERT_EQ(0, sem_import(d1.fd, efd, NULL, NULL));
	close(efd);
	ASSERT_EQ(0, ring_submit(d1.fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, sem_wait(self->fd, s, 1, deadline_ms(5000)));
	ASSERT_EQ(0, sem_access(d1.fd, s + 1, DRM_CCORE_SEM_ADD, 5, NULL));
	ASSERT_EQ(5, sem_read(self->fd, s + 1));
	ASSERT_EQ(0, sem_wait(d1.fd, s, 1, deadline_ms(1000)));
	close(d1.fd);
}

TEST_HARNESS_MAIN
