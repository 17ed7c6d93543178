// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts are isolated: another process (a fork with its own open file)
 * can touch none of a context's buffers, rings, semaphores, programs or
 * jobs - by handle, by device address in a descriptor, by semaphore or ring
 * in a program - until they are explicitly shared with dma-buf and
 * SEM_EXPORT/IMPORT.  Closing a file with work in flight releases
 * everything it held.
 */
#include "ccore_drv_test.h"

FIXTURE(iso) {
	struct ccore_dev d;
	int fd;
	/* what the parent owns */
	uint32_t bo, ring, sem, prog;
	uint64_t bo_addr, job;
	uint8_t *map;
	int dmabuf, sem_fd;
};

#define ISO_SIZE (16 << 10)

FIXTURE_SETUP(iso)
{
	struct drm_ccore_insn ret = I_RET();
	int32_t status;

	self->fd = -1;
	if (ccore_open_first(&self->d))
		SKIP(return, NO_DEVICE_MSG);
	self->fd = self->d.fd;
	ASSERT_EQ(0, bo_create(self->fd, ISO_SIZE, &self->bo, &self->bo_addr));
	self->map = bo_map(self->fd, self->bo, ISO_SIZE);
	ASSERT_NE(NULL, self->map);
	fill_pattern(self->map, ISO_SIZE, 41);
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 4, 0, 0, &self->ring));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 2, &self->sem));
	ASSERT_EQ(0, prog_load(self->fd, 0, &ret, 1, &self->prog, NULL));
	ASSERT_EQ(0, submit_job(self->fd, self->prog, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0,
				&self->job));
	ASSERT_EQ(0, job_wait(self->fd, self->job, deadline_ms(5000), &status));
	/* made now, used only by the tests that share */
	ASSERT_EQ(0, prime_export(self->fd, self->bo, &self->dmabuf));
	ASSERT_EQ(0, sem_export(self->fd, self->sem, &self->sem_fd));
}

FIXTURE_TEARDOWN(iso)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* The parent's objects are as they were. */
static void parent_untouched(struct __test_metadata *_metadata, FIXTURE_DATA(iso) *self)
{
	struct drm_ccore_ring_stats st;

	ASSERT_TRUE(check_pattern(self->map, ISO_SIZE, 41));
	ASSERT_EQ(0, sem_read(self->fd, self->sem));
	ASSERT_EQ(0, sem_read(self->fd, self->sem + 1));
	ASSERT_EQ(0, ring_stats(self->fd, self->ring, &st));
	ASSERT_EQ(0, st.started);
}

/* The child's own file, with nothing shared. */
static int child_unshared(void *arg)
{
	FIXTURE_DATA(iso) *p = arg;
	struct drm_ccore_bo_info info;
	struct drm_ccore_ring_stats st;
	struct drm_ccore_insn prog[2];
	struct drm_ccore_desc d;
	uint32_t ring, bad, h, mine;
	uint64_t off;
	int fd, e;

	fd = reopen(&p->d);
	CHILD_TRUE(fd >= 0);
	/* by handle: handles are per file, so the parent's name nothing here */
	CHILD_EQ(-ENOENT, bo_info(fd, p->bo, &info));
	CHILD_EQ(-ENOENT, bo_mmap_offset(fd, p->bo, &off));
	CHILD_EQ(-EINVAL, gem_close(fd, p->bo));
	CHILD_EQ(-ENOENT, ring_stats(fd, p->ring, &st));
	CHILD_EQ(-ENOENT, ring_destroy(fd, p->ring));
	d = desc_copy(p->bo_addr, p->bo_addr + 4096, 64);
	CHILD_EQ(-ENOENT, ring_submit(fd, p->ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	CHILD_EQ(-ENOENT, prog_free(fd, p->prog));
	CHILD_EQ(-ENOENT, submit_job(fd, p->prog, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, NULL));
	CHILD_EQ(-EINVAL, job_wait(fd, p->job, deadline_ms(10), NULL));

	/* by claiming the same ring */
	CHILD_EQ(-EBUSY, ring_create(fd, 0, 0, 0, 4, 0, 0, NULL));
	CHILD_EQ(0, ring_create(fd, 0, 0, 1, 4, 0, 0, &ring));

	/* by device address: not in this context's address space */
	CHILD_EQ(-EINVAL, ring_submit(fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, &bad));
	CHILD_EQ(0, bad);
	/* with a buffer of its own (possibly at the same address) past its end */
	CHILD_EQ(0, bo_create(fd, 4096, &h, NULL));
	d = desc_copy(p->bo_addr + 8192, p->bo_addr + 4096, 64);
	CHILD_EQ(-EINVAL, ring_submit(fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, &bad));
	CHILD_EQ(0, bad);

	/* semaphores: by ioctl, in descriptors, in programs */
	CHILD_EQ(-EACCES, sem_access(fd, p->sem, DRM_CCORE_SEM_ADD, 1, NULL));
	CHILD_EQ(-EACCES, sem_access(fd, p->sem, DRM_CCORE_SEM_READ, 0, NULL));
	CHILD_EQ(-EACCES, sem_wait(fd, p->sem, 0, deadline_ms(10)));
	CHILD_EQ(-EINVAL, sem_free(fd, p->sem));
	CHILD_EQ(-EINVAL, sem_export(fd, p->sem, &e));
	d = desc_sem_write(p->sem + 1, 1, false);
	CHILD_EQ(-EACCES, ring_submit(fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, &bad));
	CHILD_EQ(0, bad);
	CHILD_EQ(0, sem_alloc(fd, 0, 1, &mine));
	{
		struct drm_ccore_desc two[2] = {
			desc_sem_write(mine, 1, false),
			desc_signal(desc_sem_write(mine, 1, false), p->sem, 1),
		};

		CHILD_EQ(-EACCES, ring_submit(fd, ring, two, 2, DRM_CCORE_SUBMIT_F_START, &bad));
		CHILD_EQ(1, bad);
	}
	prog[0] = I_ADD(p->sem, 1);
	prog[1] = I_RET();
	CHILD_EQ(-EACCES, prog_load(fd, 0, prog, 2, NULL, &bad));
	CHILD_EQ(0, bad);
	prog[0] = I_WAIT(p->sem, 1);
	CHILD_EQ(-EACCES, prog_load(fd, 0, prog, 2, NULL, &bad));
	CHILD_EQ(0, bad);
	prog[0] = I_SET(p->sem + 1, 1);
	CHILD_EQ(-EACCES, prog_load(fd, 1, prog, 2, NULL, &bad));
	/* rings in programs */
	prog[0] = I_START(0, 0, 1);
	CHILD_EQ(-EACCES, prog_load(fd, 0, prog, 2, NULL, &bad));
	CHILD_EQ(0, bad);
	prog[0] = I_RWAIT(0, 0);
	CHILD_EQ(-EACCES, prog_load(fd, 0, prog, 2, NULL, &bad));
	/* its own are fine */
	prog[0] = I_START(0, 1, 1);
	CHILD_EQ(0, prog_load(fd, 0, prog, 2, NULL, &bad));
	close(fd);
	return 0;
}

TEST_F(iso, other_process_unshared)
{
	ASSERT_EQ(0, run_child(child_unshared, self));
	parent_untouched(_metadata, self);
}

/* The same child, after the parent shared the buffer and the semaphores. */
static int child_shared(void *arg)
{
	FIXTURE_DATA(iso) *p = arg;
	struct drm_ccore_bo_info info;
	struct drm_ccore_insn prog[2];
	struct drm_ccore_desc d[3];
	uint32_t hi, hb, ring, first, count, pr;
	uint64_t ai, ab, job;
	uint8_t *mi, *mb;
	int32_t status;
	int fd;

	fd = reopen(&p->d);
	CHILD_TRUE(fd >= 0);
	CHILD_EQ(0, prime_import(fd, p->dmabuf, &hi));
	CHILD_EQ(0, bo_info(fd, hi, &info));
	CHILD_EQ(ISO_SIZE, info.size);
	CHILD_EQ(p->d.index, info.device_index);
	ai = info.dev_addr;
	/* same device: the import is the very buffer, and can be mapped */
	mi = bo_map(fd, hi, ISO_SIZE);
	CHILD_TRUE(mi != NULL);
	CHILD_TRUE(check_pattern(mi, ISO_SIZE, 41));

	CHILD_EQ(0, sem_import(fd, p->sem_fd, &first, &count));
	CHILD_EQ(p->sem, first);
	CHILD_EQ(2, count);

	/* read the shared buffer, write into it, signal the shared semaphores */
	CHILD_EQ(0, bo_create(fd, ISO_SIZE, &hb, &ab));
	mb = bo_map(fd, hb, ISO_SIZE);
	CHILD_TRUE(mb != NULL);
	fill_pattern(mb + 8192, 4096, 43);
	CHILD_EQ(0, ring_create(fd, 0, 0, 1, 4, 0, 0, &ring));
	d[0] = desc_copy(ab, ai, 4096);
	d[1] = desc_signal(desc_copy(ai + 8192, ab + 8192, 4096), p->sem, 1);
	d[2] = desc_sem_write(p->sem + 1, 2, false);
	CHILD_EQ(0, ring_submit(fd, ring, d, 3, DRM_CCORE_SUBMIT_F_START, NULL));
	CHILD_EQ(0, sem_wait(fd, p->sem + 1, 2, deadline_ms(5000)));
	CHILD_TRUE(check_pattern(mb, 4096, 41));
	CHILD_TRUE(check_pattern(mi + 8192, 4096, 43));
	CHILD_EQ(0, sem_access(fd, p->sem + 1, DRM_CCORE_SEM_ADD, 10, NULL));
	/* and in a program: a job of ours adds to their semaphore */
	prog[0] = I_ADD(p->sem, 100);
	prog[1] = I_RET();
	CHILD_EQ(0, prog_load(fd, 1, prog, 2, &pr, NULL));
	CHILD_EQ(0, submit_job(fd, pr, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));
	CHILD_EQ(0, job_wait(fd, job, deadline_ms(5000), &status));
	CHILD_EQ(0, status);
	/* still not the parent's ring */
	CHILD_EQ(-EBUSY, ring_create(fd, 0, 0, 0, 4, 0, 0, NULL));
	munmap(mi, ISO_SIZE);
	munmap(mb, ISO_SIZE);
	close(fd);
	return 0;
}

TEST_F(iso, other_process_shared)
{
	ASSERT_EQ(0, run_child(child_shared, self));
	ASSERT_TRUE(check_pattern(self->map + 8192, 4096, 43));
	ASSERT_TRUE(check_pattern(self->map, 8192, 41));
	ASSERT_EQ(101, sem_read(self->fd, self->sem));
	ASSERT_EQ(12, sem_read(self->fd, self->sem + 1));
}

/* A child that exits without closing anything releases it all too. */
static int child_exits(void *arg)
{
	FIXTURE_DATA(iso) *p = arg;
	struct drm_ccore_insn prog[2];
	uint32_t sem, pr;
	int fd;

	fd = reopen(&p->d);
	CHILD_TRUE(fd >= 0);
	CHILD_EQ(0, ring_create(fd, 0, 0, 2, 4, 0, 0, NULL));
	CHILD_EQ(0, sem_alloc(fd, 1 % p->d.cores, p->d.sems, &sem));
	prog[0] = I_WAIT(sem, 1);
	prog[1] = I_RET();
	CHILD_EQ(0, prog_load(fd, 2 % num_cc(&p->d), prog, 2, &pr, NULL));
	CHILD_EQ(0, submit_job(fd, pr, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, NULL));
	return 0;	/* exit with the file open and a job hanging */
}

TEST_F(iso, child_exit_releases)
{
	const struct drm_ccore_insn ret = I_RET();
	int64_t t0 = now_ns();
	int32_t status;

	ASSERT_EQ(0, run_child(child_exits, self));
	EXPECT_LT(now_ns() - t0, 3 * NSEC_PER_SEC);
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 2, 4, 0, 0, NULL));
	ASSERT_EQ(0, sem_alloc(self->fd, 1 % self->d.cores, self->d.sems, NULL));
	ASSERT_EQ(0, run_program(self->fd, 2 % num_cc(&self->d), &ret, 1, 0, &status));
	ASSERT_EQ(0, status);
}

/*
 * Close a file while its rings move data and its jobs run or wait in the
 * queue: close returns promptly, and a new file gets the same ring, the
 * same semaphores and the CC core's whole memory.
 */
TEST_F(iso, close_with_work_in_flight)
{
	const size_t size = 8 << 20;
	uint32_t cc = 2 % num_cc(&self->d), core = cc / self->d.cc_per_core;
	uint32_t room = self->d.max_program - self->d.fw_size;
	struct drm_ccore_insn prog[2], *big;
	struct drm_ccore_desc d[8];
	uint32_t ha, hb, ring, sem, p, q;
	uint64_t a, b, j1, j2;
	int64_t t0, dt;
	int32_t status;
	int fd, i;

	fd = reopen(&self->d);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, bo_create(fd, size, &ha, &a));
	ASSERT_EQ(0, bo_create(fd, size, &hb, &b));
	for (i = 0; i < 8; i++)
		d[i] = i & 1 ? desc_copy(a, b, size) : desc_copy(b, a, size);
	ASSERT_EQ(0, ring_create(fd, core, 1 % self->d.engines, 0, 8, 0, 0, &ring));
	ASSERT_EQ(0, sem_alloc(fd, core, self->d.sems, &sem));
	prog[0] = I_WAIT(sem, 1);
	prog[1] = I_RET();
	ASSERT_EQ(0, prog_load(fd, cc, prog, 2, &p, NULL));
	ASSERT_EQ(0, prog_load(fd, cc, &prog[1], 1, &q, NULL));
	ASSERT_EQ(0, submit_job(fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &j1));
	ASSERT_EQ(0, submit_job(fd, q, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &j2));
	ASSERT_EQ(0, ring_submit(fd, ring, d, 8, DRM_CCORE_SUBMIT_F_START, NULL));
	/* and the BOs live on in the ring only */
	ASSERT_EQ(0, gem_close(fd, ha));
	ASSERT_EQ(0, gem_close(fd, hb));

	{
		struct drm_ccore_ring_stats st;

		ASSERT_EQ(0, ring_stats(fd, ring, &st));
		TH_LOG("closing with %llu of 8 copies done, 2 jobs queued",
		       (unsigned long long)st.completed);
	}
	t0 = now_ns();
	close(fd);
	dt = now_ns() - t0;
	TH_LOG("close took %lld ms", (long long)(dt / NSEC_PER_MSEC));
	EXPECT_LT(dt, 3 * NSEC_PER_SEC);

	/* everything is free again, right away */
	ASSERT_EQ(0, ring_create(self->fd, core, 1 % self->d.engines, 0, 8, 0, 0, NULL));
	ASSERT_EQ(0, sem_alloc(self->fd, core, self->d.sems, NULL));
	big = calloc(room, sizeof(*big));
	ASSERT_NE(NULL, big);
	big[room - 1] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, cc, big, room, &p, NULL));
	ASSERT_EQ(0, prog_free(self->fd, p));
	free(big);
	/* and the CC core runs jobs again: no trigger or job left over */
	ASSERT_EQ(0, prog_load(self->fd, cc, &prog[1], 1, &q, NULL));
	ASSERT_EQ(0, submit_job(self->fd, q, 0, 0, 0, 0, &j1));
	ASSERT_EQ(-ETIMEDOUT, job_wait(self->fd, j1, deadline_ms(50), &status));
	ASSERT_EQ(0, cc_trigger(self->fd, cc, 1));
	ASSERT_EQ(0, job_wait(self->fd, j1, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
}

/* Jobs of another file queued on the same CC core when a file closes. */
TEST_F(iso, close_fails_only_what_it_must)
{
	uint32_t cc = 3 % num_cc(&self->d), core = cc / self->d.cc_per_core;
	struct drm_ccore_insn prog[2];
	uint32_t sem, p, q;
	uint64_t j1, j2;
	int32_t status;
	int fd;

	fd = reopen(&self->d);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, sem_alloc(fd, core, 1, &sem));
	prog[0] = I_WAIT(sem, 1);
	prog[1] = I_RET();
	ASSERT_EQ(0, prog_load(fd, cc, prog, 2, &p, NULL));
	ASSERT_EQ(0, submit_job(fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &j1));
	/* ours, behind it on the same CC core */
	ASSERT_EQ(0, prog_load(self->fd, cc, &prog[1], 1, &q, NULL));
	ASSERT_EQ(0, submit_job(self->fd, q, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &j2));
	ASSERT_EQ(-ETIMEDOUT, job_wait(self->fd, j2, deadline_ms(50), &status));
	close(fd);
	/* a CC core cannot drop one job from its queue: ours fails, but
	 * does not hang, and the core works afterwards
	 */
	ASSERT_EQ(0, job_wait(self->fd, j2, deadline_ms(5000), &status));
	TH_LOG("our job queued behind the closed file's: status %d", status);
	ASSERT_TRUE(status == 0 || status == -ECANCELED);
	ASSERT_EQ(0, submit_job(self->fd, q, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &j2));
	ASSERT_EQ(0, job_wait(self->fd, j2, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
}

/*
 * Ownership is checked when a program is loaded and when descriptors are
 * written; they run later.  So what they name is pinned while they exist:
 * a semaphore cannot be freed (-EBUSY) nor a ring destroyed under them,
 * and a block whose owner closes stays allocated until its last user goes
 * - nobody else can get a semaphore a stale program or descriptor names.
 */
TEST_F(iso, program_pins_its_semaphore)
{
	struct drm_ccore_insn prog[2];
	uint32_t s, p;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &s));
	prog[0] = I_ADD(s, 1);
	prog[1] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, 0, prog, 2, &p, NULL));
	ASSERT_EQ(-EBUSY, sem_free(self->fd, s));
	ASSERT_EQ(0, prog_free(self->fd, p));
	ASSERT_EQ(0, sem_free(self->fd, s));
}

TEST_F(iso, descriptor_pins_its_semaphore)
{
	struct drm_ccore_desc d;
	uint32_t s, sig, ring;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &s));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &sig));
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 3, 2, 0, 0, &ring));
	d = desc_sem_write(s, 1, false);
	ASSERT_EQ(0, ring_submit(self->fd, ring, &d, 1, 0, NULL));
	d = desc_signal(desc_copy(self->bo_addr + 4096, self->bo_addr, 64), sig, 1);
	ASSERT_EQ(0, ring_submit(self->fd, ring, &d, 1, 0, NULL));
	ASSERT_EQ(-EBUSY, sem_free(self->fd, s));
	ASSERT_EQ(-EBUSY, sem_free(self->fd, sig));
	ASSERT_EQ(0, ring_destroy(self->fd, ring));
	ASSERT_EQ(0, sem_free(self->fd, s));
	ASSERT_EQ(0, sem_free(self->fd, sig));
}

TEST_F(iso, program_pins_its_ring)
{
	struct drm_ccore_insn prog[3];
	struct drm_ccore_desc d;
	uint32_t ring, p;

	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 3, 1, 0, 0, &ring));
	d = desc_copy(self->bo_addr + 4096, self->bo_addr, 64);
	ASSERT_EQ(0, ring_submit(self->fd, ring, &d, 1, 0, NULL));
	prog[0] = I_START(0, 3, 1);
	prog[1] = I_RWAIT(0, 3);
	prog[2] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, 0, prog, 3, &p, NULL));
	ASSERT_EQ(-EBUSY, ring_destroy(self->fd, ring));
	ASSERT_EQ(0, prog_free(self->fd, p));
	ASSERT_EQ(0, ring_destroy(self->fd, ring));
}

/* An importer's program keeps the exporter's block after the exporter
 * closes: a new file cannot get those semaphores until the program goes.
 */
TEST_F(iso, closed_owner_block_stays_while_pinned)
{
	struct drm_ccore_insn prog[2];
	uint32_t s, first, count, other, p;
	int exporter, efd;

	exporter = reopen(&self->d);
	ASSERT_GE(exporter, 0);
	ASSERT_EQ(0, sem_alloc(exporter, 0, 1, &s));
	ASSERT_EQ(0, sem_export(exporter, s, &efd));
	ASSERT_EQ(0, sem_import(self->fd, efd, &first, &count));
	close(efd);
	prog[0] = I_ADD(s, 1);
	prog[1] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, 0, prog, 2, &p, NULL));
	close(exporter);
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &other));
	EXPECT_NE(s, other)
		TH_LOG("a semaphore a loaded program names was handed out again");
	ASSERT_EQ(0, sem_free(self->fd, other));
	ASSERT_EQ(0, prog_free(self->fd, p));
	/* now it is free: first fit gives it out again */
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &other));
	EXPECT_EQ(s, other);
}

TEST_HARNESS_MAIN
