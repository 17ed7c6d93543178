// SPDX-License-Identifier: GPL-2.0
/*
 * Compute engines through the driver: COMPUTE_SUBMIT verification
 * (bad_index, ownership of semaphores and the DMA ring), a compute DMA
 * copying through its ring, TRIGGER starting a queued CC program and
 * WAIT_SEM waiting for its completion semaphore, COMPUTE_WAIT (only the
 * submitter, its own timeout stops the engine), -EBUSY while running,
 * and a closed file's program stopped.
 */
#include "ccore_drv_test.h"

#define LEN (64 * 1024 + 8)

CCORE_DEV_FIXTURE(compute)

static struct drm_ccore_ce_insn ce(uint8_t op)
{
	struct drm_ccore_ce_insn in = { .opcode = op };

	return in;
}

static struct drm_ccore_ce_insn ce_dma(uint64_t dst, uint64_t src, uint64_t len)
{
	struct drm_ccore_ce_insn in = ce(DRM_CCORE_CE_DMA);

	in.dst = dst;
	in.src = src;
	in.len = len;
	return in;
}

/* A DMA adding 1 to @sem when done (semaphore 0 is a valid reference). */
static struct drm_ccore_ce_insn ce_dma_signal(uint64_t dst, uint64_t src, uint64_t len,
					      uint32_t sem)
{
	struct drm_ccore_ce_insn in = ce_dma(dst, src, len);

	in.flags = DRM_CCORE_CE_F_SIGNAL;
	in.sem = sem;
	in.value = 1;
	return in;
}

static struct drm_ccore_ce_insn ce_wait(uint32_t sem, uint32_t value)
{
	struct drm_ccore_ce_insn in = ce(DRM_CCORE_CE_WAIT_SEM);

	in.sem = sem;
	in.value = value;
	return in;
}

static int compute_submit(int fd, uint32_t core, const struct drm_ccore_ce_insn *insns,
			  uint32_t count, uint32_t engine, uint32_t ring, uint32_t timeout_ms,
			  uint32_t *bad_index)
{
	struct drm_ccore_compute_submit a = {
		.core = core, .count = count, .insns = (uintptr_t)insns, .dma_engine = engine,
		.dma_ring = ring, .timeout_ms = timeout_ms, .bad_index = 12345,
	};
	int rc = ioc(fd, DRM_IOCTL_CCORE_COMPUTE_SUBMIT, &a);

	if (bad_index)
		*bad_index = a.bad_index;
	return rc;
}

static int compute_wait(int fd, uint32_t core, int64_t deadline,
			struct drm_ccore_compute_wait *out)
{
	struct drm_ccore_compute_wait a = { .core = core, .timeout_ns = deadline, .status = 12345 };
	int rc = ioc(fd, DRM_IOCTL_CCORE_COMPUTE_WAIT, &a);

	if (out)
		*out = a;
	return rc;
}

TEST_F(compute, dma_copies_and_signals)
{
	struct drm_ccore_compute_wait w;
	struct drm_ccore_ce_insn prog[2];
	struct drm_ccore_ring_stats st;
	struct bo_pair bp;
	uint32_t ring, sem;

	ASSERT_EQ(0, bo_pair(self->fd, LEN, 7, 0, &bp));
	ASSERT_EQ(0, ring_create(self->fd, 0, 1, 2, 4, 0, DRM_CCORE_RING_F_COMPUTE, &ring));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &sem));
	prog[0] = ce_dma_signal(bp.ad, bp.as, LEN, sem);
	prog[1] = ce(DRM_CCORE_CE_END);
	ASSERT_EQ(0, compute_submit(self->fd, 0, prog, 2, 1, 2, 0, NULL));
	ASSERT_EQ(0, compute_wait(self->fd, 0, deadline_ms(5000), &w));
	ASSERT_EQ(0, w.status);
	ASSERT_EQ(2, w.insns);
	ASSERT_EQ(LEN, w.dma_bytes);
	ASSERT_TRUE(check_pattern(bp.d, LEN, 7));
	ASSERT_EQ(1, sem_read(self->fd, sem));
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	ASSERT_EQ(param(self->fd, DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE), st.packet_size);
	ASSERT_EQ(LEN, st.bytes);
	/* waiting again gives the same answer */
	ASSERT_EQ(0, compute_wait(self->fd, 0, deadline_ms(10), &w));
	ASSERT_EQ(0, w.status);
	munmap(bp.s, LEN);
	munmap(bp.d, LEN);
}

TEST_F(compute, trigger_runs_queued_collective)
{
	struct drm_ccore_insn cc_prog[2];
	struct drm_ccore_ce_insn prog[3];
	struct drm_ccore_compute_wait w;
	uint32_t sem, p;
	uint64_t job;
	int32_t status;

	/* the collective's program on CC core 1 (core 0), queued, not triggered */
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &sem));
	cc_prog[0] = I_ADD(sem, 1);
	cc_prog[1] = I_RET();
	ASSERT_EQ(0, prog_load(self->fd, 1, cc_prog, 2, &p, NULL));
	ASSERT_EQ(0, submit_job(self->fd, p, 0, 0, 0, 0, &job));
	ASSERT_EQ(-ETIMEDOUT, job_wait(self->fd, job, deadline_ms(20), &status));
	ASSERT_EQ(0, sem_read(self->fd, sem));

	prog[0] = ce(DRM_CCORE_CE_TRIGGER);
	prog[0].cc_core = 1;
	prog[1] = ce_wait(sem, 1);
	prog[2] = ce(DRM_CCORE_CE_END);
	ASSERT_EQ(0, compute_submit(self->fd, 0, prog, 3, 0, 0, 0, NULL));
	ASSERT_EQ(0, compute_wait(self->fd, 0, deadline_ms(5000), &w));
	ASSERT_EQ(0, w.status);
	ASSERT_EQ(3, w.insns);
	ASSERT_EQ(0, job_wait(self->fd, job, deadline_ms(5000), &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(1, sem_read(self->fd, sem));
}

TEST_F(compute, rejects_naming_instruction)
{
	struct drm_ccore_ce_insn prog[3];
	uint32_t h, bad, sem, theirs;
	uint64_t va, va2;
	int fd2;

	ASSERT_EQ(0, bo_create(self->fd, 4096, &h, &va));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &sem));
	fd2 = reopen(&self->d);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, sem_alloc(fd2, 0, 1, &theirs));
	ASSERT_EQ(0, ring_create(self->fd, 0, 1, 2, 1, 0, DRM_CCORE_RING_F_COMPUTE, NULL));

	prog[0] = ce(DRM_CCORE_CE_COMPUTE);
	prog[0].duration_ns = 5;
	prog[2] = ce(DRM_CCORE_CE_END);
	prog[1] = ce(9);
	ASSERT_EQ(-EINVAL, compute_submit(self->fd, 0, prog, 3, 0, 0, 0, &bad));
	ASSERT_EQ(1, bad);
	prog[1] = ce_dma(va + 4096, va, 8);		/* dst past the buffer */
	ASSERT_EQ(-EINVAL, compute_submit(self->fd, 0, prog, 3, 1, 2, 0, &bad));
	ASSERT_EQ(1, bad);
	prog[1] = ce_dma_signal(va, va, 8, theirs);		/* another file's semaphore */
	ASSERT_EQ(-EACCES, compute_submit(self->fd, 0, prog, 3, 1, 2, 0, &bad));
	ASSERT_EQ(1, bad);
	prog[1] = ce_dma(va, va, 8);			/* a ring it did not create */
	ASSERT_EQ(-EACCES, compute_submit(self->fd, 0, prog, 3, 1, 3, 0, &bad));
	ASSERT_EQ(1, bad);
	ASSERT_EQ(0, bo_create(fd2, 4096, &h, &va2));
	prog[1] = ce_dma(va2, va2, 8);		/* the ring is self->fd's */
	ASSERT_EQ(-EACCES, compute_submit(fd2, 0, prog, 3, 1, 2, 0, &bad));
	ASSERT_EQ(1, bad);
	prog[1] = ce(DRM_CCORE_CE_TRIGGER);
	prog[1].cc_core = self->d.cc_per_core;		/* core 1's CC core */
	ASSERT_EQ(-EINVAL, compute_submit(self->fd, 0, prog, 3, 0, 0, 0, &bad));
	ASSERT_EQ(1, bad);
	prog[1] = ce_wait(sem, 1);
	ASSERT_EQ(-EINVAL, compute_submit(self->fd, 0, prog, 2, 0, 0, 0, &bad));	/* no END */
	ASSERT_EQ(1, bad);
	ASSERT_EQ(-EINVAL, compute_submit(self->fd, self->d.cores, prog, 3, 0, 0, 0, &bad));
	ASSERT_EQ(NO_INDEX, bad);
	ASSERT_EQ(-EINVAL, compute_submit(self->fd, 0, prog, 3, 1, 2, 0, &bad));	/* ring, no DMA */
	ASSERT_EQ(-EFAULT, compute_submit(self->fd, 0, NULL, 3, 0, 0, 0, &bad));
	ASSERT_EQ(-ENOENT, compute_wait(self->fd, 1, deadline_ms(10), NULL));
	close(fd2);
}

TEST_F(compute, busy_then_own_timeout)
{
	struct drm_ccore_ce_insn prog[3];
	struct drm_ccore_compute_wait w;
	uint32_t ring, sem, h;
	uint64_t va;
	int fd2;

	ASSERT_EQ(0, bo_create(self->fd, 4096, &h, &va));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &sem));
	ASSERT_EQ(0, ring_create(self->fd, 0, 1, 2, 1, 0, DRM_CCORE_RING_F_COMPUTE, &ring));
	prog[0] = ce_wait(sem, 1);
	prog[1] = ce_dma(va, va + 2048, 2048);
	prog[2] = ce(DRM_CCORE_CE_END);
	ASSERT_EQ(0, compute_submit(self->fd, 0, prog, 3, 1, 2, 100, NULL));
	/* one program at a time; its ring stays; only its file waits */
	ASSERT_EQ(-EBUSY, compute_submit(self->fd, 0, &prog[2], 1, 0, 0, 0, NULL));
	ASSERT_EQ(-EBUSY, ring_destroy(self->fd, ring));
	fd2 = reopen(&self->d);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(-ENOENT, compute_wait(fd2, 0, deadline_ms(10), NULL));
	close(fd2);
	ASSERT_EQ(-ETIMEDOUT, compute_wait(self->fd, 0, deadline_ms(10), NULL));
	/* its own 100 ms pass: stopped, -ETIMEDOUT */
	ASSERT_EQ(0, compute_wait(self->fd, 0, deadline_ms(5000), &w));
	ASSERT_EQ(-ETIMEDOUT, w.status);
	ASSERT_EQ(0, ring_destroy(self->fd, ring));
	ASSERT_EQ(0, compute_submit(self->fd, 0, &prog[2], 1, 0, 0, 0, NULL));
	ASSERT_EQ(0, compute_wait(self->fd, 0, deadline_ms(5000), &w));
	ASSERT_EQ(0, w.status);
}

TEST_F(compute, close_stops_program)
{
	struct drm_ccore_ce_insn prog[2];
	struct drm_ccore_compute_wait w;
	uint32_t sem;
	int fd2;

	fd2 = reopen(&self->d);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, sem_alloc(fd2, 0, 1, &sem));
	prog[0] = ce_wait(sem, 1);
	prog[1] = ce(DRM_CCORE_CE_END);
	ASSERT_EQ(0, compute_submit(fd2, 0, prog, 2, 0, 0, 0, NULL));
	ASSERT_EQ(-EBUSY, compute_submit(self->fd, 0, &prog[1], 1, 0, 0, 0, NULL));
	close(fd2);
	ASSERT_EQ(0, compute_submit(self->fd, 0, &prog[1], 1, 0, 0, 0, NULL));
	ASSERT_EQ(0, compute_wait(self->fd, 0, deadline_ms(5000), &w));
	ASSERT_EQ(0, w.status);
}

TEST_HARNESS_MAIN
