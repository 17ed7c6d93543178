// SPDX-License-Identifier: GPL-2.0
/*
 * Ownership rules the sim backend shares with the kernel driver: a loaded
 * program pins the semaphore blocks it names and the rings it starts or
 * waits for, a ring pins the blocks its descriptors signal or write (SEM_FREE
 * and RING_DESTROY say -EBUSY until they go), a grant names the exported
 * allocation and ends with it, SUBMIT says -EBUSY when the CC core's queue
 * is full and bounds timeout_ms, and an fd of the wrong kind is -EINVAL
 * where an unknown one is -EBADF.
 */
#include "tsim.h"

#include <fcntl.h>

static struct tsim t;
static struct ccore_dev *d0, *d1;

static void setup(void)
{
	tsim_open(&t, "devices=2,cores=2,engines=2,workers=2");
	d0 = t.dev[0];
	d1 = t.dev[1];
}

/* SEM_FREE of @first must say -EBUSY, naming the block and its @users. */
static void expect_sem_busy(struct ccore_dev *d, uint32_t first, unsigned int users)
{
	char text[96];

	snprintf(text, sizeof(text), "semaphore block 0x%08x", first);
	EXPECT_ERR(ccore_dev_sem_free(d, first), -EBUSY, text);
	snprintf(text, sizeof(text), "is named by %u loaded programs or written rings", users);
	ASSERT_STR_CONTAINS(ccore_last_error(), text);
}

/* A block of @count semaphores of device 1, imported by device 0. */
static uint32_t imported_sem(unsigned int count)
{
	uint32_t first = tsim_sem(d1, 0, count);

	ASSERT_EQ(ccore_dev_sem_import(d0, d1, first), 0);
	return first;
}

static struct drm_ccore_desc sem_write(uint32_t sem, uint32_t value)
{
	return (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_SEM_WRITE, .dst = sem, .value = value };
}

TEST(a_loaded_program_pins_its_semaphores)
{
	uint32_t a, b, p1, p2, p3;

	setup();
	a = tsim_sem(d0, 0, 4);
	b = tsim_sem(d0, 0, 1);
	/* the block is pinned once however often the program names it */
	p1 = tsim_load(d0, 0, "wait " SEMF ", 0\nadd " SEMF ", 1\nbge " SEMF ", 0, out\nout:\nret\n",
		       S3(a), S3(a + 3), S3(a + 1));
	expect_sem_busy(d0, a, 1);
	p2 = tsim_load(d0, 1, "acquire " SEMF ", 0\nset " SEMF ", 7\nret\n", S3(a + 2), S3(b));
	expect_sem_busy(d0, a, 2);
	expect_sem_busy(d0, b, 1);
	/* the trigger semaphore is nobody's block */
	p3 = tsim_load(d0, 0, "acquire trigger, 0\nret\n");
	/* a pinned block still works */
	ASSERT_EQ(tsim_run(d0, p2), 0);
	ASSERT_EQ(tsim_sem_value(d0, b), 7);
	ASSERT_EQ(ccore_dev_program_free(d0, p1), 0);
	expect_sem_busy(d0, a, 1);
	ASSERT_EQ(ccore_dev_program_free(d0, p2), 0);
	ASSERT_EQ(ccore_dev_sem_free(d0, a), 0);
	ASSERT_EQ(ccore_dev_sem_free(d0, b), 0);
	ASSERT_EQ(ccore_dev_program_free(d0, p3), 0);
	tsim_close(&t);
}

TEST(a_loaded_program_pins_the_rings_it_starts_or_waits_for)
{
	struct drm_ccore_desc d;
	uint32_t s, ring, other, p1, p2, p3;

	setup();
	s = tsim_sem(d0, 0, 1);
	ring = tsim_ring(d0, 0, 1, 3, 4, 0);
	other = tsim_ring(d0, 1, 1, 3, 4, 0);	/* same engine and index, core 1 */
	d = sem_write(s, 1);
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, 0), 0);
	p1 = tsim_load(d0, 0, "start ring(1,3), 1\nrwait ring(1,3)\nret\n");
	p2 = tsim_load(d0, 1, "rwait ring(1,3)\nret\n");	/* CC core 1 of core 0 */
	p3 = tsim_load(d0, 2, "nop\nret\n");
	EXPECT_ERR(ccore_dev_ring_destroy(d0, ring), -EBUSY,
		   "is started or waited for by 2 loaded programs");
	ASSERT_STR_CONTAINS(ccore_last_error(), "core 0 engine 1 ring 3");
	/* core 1's ring of the same index is not theirs */
	ASSERT_EQ(ccore_dev_ring_destroy(d0, other), 0);
	ASSERT_EQ(tsim_run(d0, p1), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 1);
	ASSERT_EQ(ccore_dev_program_free(d0, p1), 0);
	EXPECT_ERR(ccore_dev_ring_destroy(d0, ring), -EBUSY, "by 1 loaded programs");
	ASSERT_EQ(ccore_dev_program_free(d0, p2), 0);
	/* the ring itself still pins the block it writes */
	expect_sem_busy(d0, s, 1);
	ASSERT_EQ(ccore_dev_ring_destroy(d0, ring), 0);
	ASSERT_EQ(ccore_dev_sem_free(d0, s), 0);
	ASSERT_EQ(ccore_dev_program_free(d0, p3), 0);
	tsim_close(&t);
}

TEST(a_ring_pins_what_its_descriptors_signal_or_write)
{
	uint32_t h[2], written, signalled, spare, ring;
	uint64_t va[2];

	setup();
	tsim_bo(d0, 4096, &h[0], &va[0]);
	tsim_bo(d0, 4096, &h[1], &va[1]);
	written = tsim_sem(d0, 0, 2);
	signalled = tsim_sem(d0, 0, 1);
	spare = tsim_sem(d0, 0, 1);
	ring = tsim_ring(d0, 0, 0, 0, 4, 0);
	struct drm_ccore_desc d[2] = {
		sem_write(written + 1, 5),
		{ .op = DRM_CCORE_DESC_COPY, .len = 4096, .dst = va[1], .src0 = va[0],
		  .flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = signalled, .signal_value = 1 },
	};
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, d, 2, DRM_CCORE_SUBMIT_F_START), 0);
	ASSERT_EQ(ccore_dev_sem_wait(d0, signalled, 1, 10 * TSIM_SEC), 0);
	while (!ccm_ring_idle(t.f, 0, 0, 0, 0))
		;
	/* done, but the descriptors stay written: their blocks stay pinned */
	expect_sem_busy(d0, written, 1);
	expect_sem_busy(d0, signalled, 1);
	ASSERT_EQ(ccore_dev_sem_free(d0, spare), 0);
	ASSERT_EQ(ccore_dev_ring_destroy(d0, ring), 0);
	ASSERT_EQ(ccore_dev_sem_free(d0, written), 0);
	ASSERT_EQ(ccore_dev_sem_free(d0, signalled), 0);
	tsim_close(&t);
}

TEST(a_grant_ends_with_the_allocation_it_names)
{
	uint32_t first, again, v;

	setup();
	first = imported_sem(2);
	ASSERT_EQ(ccore_dev_sem_write(d0, first + 1, DRM_CCORE_SEM_SET, 3), 0);
	ASSERT_EQ(tsim_sem_value(d1, first + 1), 3);
	ASSERT_EQ(ccore_dev_sem_free(d1, first), 0);
	EXPECT_ERR(ccore_dev_sem_read(d0, first, &v), -EACCES, "not allocated or imported");
	/* the same indices again: a new allocation, not granted */
	again = tsim_sem(d1, 0, 2);
	ASSERT_EQ(again, first);
	EXPECT_ERR(ccore_dev_sem_read(d0, first + 1, &v), -EACCES, "not allocated or imported");
	EXPECT_ERR(tsim_try_load(d0, 0, &v, "add " SEMF ", 1\nret\n", S3(first)), -EACCES,
		   "not a semaphore this context allocated");
	struct drm_ccore_desc d = sem_write(first, 1);
	uint32_t ring = tsim_ring(d0, 0, 0, 0, 4, 0);

	EXPECT_ERR(ccore_dev_ring_submit(d0, ring, &d, 1, 0), -EACCES, "descriptor 0");
	/* ...until it is exported and imported again */
	ASSERT_EQ(ccore_dev_sem_import(d0, d1, again), 0);
	ASSERT_EQ(ccore_dev_sem_read(d0, again + 1, &v), 0);
	ASSERT_EQ(v, 0);	/* allocations start zeroed */
	tsim_close(&t);
}

TEST(an_importers_program_and_ring_keep_the_exporters_block_pinned)
{
	uint32_t first, ring, p;

	setup();
	first = imported_sem(1);
	/* device 0's program signals device 1's semaphore remotely */
	p = tsim_load(d0, 0, "add " SEMF ", 1\nret\n", S3(first));
	expect_sem_busy(d1, first, 1);
	ASSERT_EQ(tsim_run(d0, p), 0);
	ASSERT_EQ(tsim_sem_value(d1, first), 1);
	ASSERT_EQ(ccore_dev_program_free(d0, p), 0);
	/* device 0's ring writes it over the links */
	ring = tsim_ring(d0, 0, 0, 0, 4, 0);
	struct drm_ccore_desc d = sem_write(first, 2);

	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	ASSERT_EQ(ccore_dev_sem_wait(d1, first, 3, 10 * TSIM_SEC), 0);
	expect_sem_busy(d1, first, 1);
	while (!ccm_ring_idle(t.f, 0, 0, 0, 0))
		;
	ASSERT_EQ(ccore_dev_ring_destroy(d0, ring), 0);
	ASSERT_EQ(ccore_dev_sem_free(d1, first), 0);
	tsim_close(&t);
}

TEST(submit_with_the_cc_queue_full_is_busy_and_queues_nothing)
{
	struct drm_ccore_submit s = { 0 };
	uint64_t first = 0, last = 0, job;
	uint32_t p, queued = 0;
	int rc, st;

	setup();
	p = tsim_load(d0, 0, "ret\n");
	s.program = p;
	/* no trigger: the dispatcher takes none, the queue fills */
	for (;;) {
		rc = ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SUBMIT, &s);
		if (rc)
			break;
		if (!first)
			first = s.job;
		last = s.job;
		queued++;
		ASSERT_LE(queued, 1024);
	}
	ASSERT_EQ(rc, -EBUSY);
	ASSERT_STR_CONTAINS(ccore_last_error(), "SUBMIT: CC core 0 already has");
	ASSERT_STR_CONTAINS(ccore_last_error(), "jobs queued");
	ASSERT_GE(queued, 2);
	ccore_test_log("CC core 0 queued %u jobs", queued);
	/* nothing was queued: no job id went, the queue drains as it was */
	EXPECT_ERR(ccore_dev_job_wait(d0, last + 1, TSIM_SEC, &st), -EINVAL, "unknown");
	ASSERT_EQ(ccore_dev_trigger(d0, 0, queued), 0);
	for (job = first; job <= last; job++)
		ASSERT_EQ(tsim_wait(d0, job), 0);
	ASSERT_U64_EQ(tsim_submit(d0, p, 0), last + 1);
	ASSERT_EQ(tsim_wait(d0, last + 1), 0);
	tsim_close(&t);
}

TEST(submit_timeout_is_at_most_an_hour)
{
	struct drm_ccore_submit s = { .flags = DRM_CCORE_JOB_F_TRIGGER, .timeout_ms = 3600001 };
	uint32_t p;

	setup();
	p = tsim_load(d0, 0, "ret\n");
	s.program = p;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SUBMIT, &s), -EINVAL,
		   "SUBMIT: timeout_ms 3600001 out of range (1..3600000 ms, 0 = the default)");
	s.timeout_ms = ~0u;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SUBMIT, &s), -EINVAL, "timeout_ms 4294967295");
	ASSERT_EQ(tsim_wait(d0, tsim_submit(d0, p, 3600000)), 0);
	ASSERT_EQ(tsim_wait(d0, tsim_submit(d0, p, 1)), 0);
	ASSERT_EQ(tsim_wait(d0, tsim_submit(d0, p, 0)), 0);
	tsim_close(&t);
}

TEST(an_fd_of_the_wrong_kind_is_einval_an_unknown_one_ebadf)
{
	struct drm_prime_handle bo_fd = { .flags = DRM_CLOEXEC }, imp = { 0 };
	struct drm_ccore_sem_export sem_fd = { 0 };
	struct drm_ccore_sem_import si = { 0 };
	uint64_t va;
	char text[64];

	setup();
	tsim_bo(d1, 4096, &bo_fd.handle, &va);
	sem_fd.first = tsim_sem(d1, 0, 1);
	ASSERT_EQ(ccore_dev_ioctl(d1, DRM_IOCTL_PRIME_HANDLE_TO_FD, &bo_fd), 0);
	ASSERT_EQ(ccore_dev_ioctl(d1, DRM_IOCTL_CCORE_SEM_EXPORT, &sem_fd), 0);

	si.fd = bo_fd.fd;
	snprintf(text, sizeof(text), "SEM_IMPORT: fd %d is a dma-buf", bo_fd.fd);
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SEM_IMPORT, &si), -EINVAL, text);
	imp.fd = sem_fd.fd;
	snprintf(text, sizeof(text), "PRIME_FD_TO_HANDLE: fd %d is an exported semaphore block",
		 sem_fd.fd);
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp), -EINVAL, text);
	si.fd = imp.fd = -1;
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SEM_IMPORT, &si), -EBADF,
		   "fd -1 is not an open file descriptor");
	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp), -EBADF,
		   "fd -1 is not an open file descriptor");
	/* each of the right kind is accepted */
	si.fd = sem_fd.fd;
	ASSERT_EQ(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SEM_IMPORT, &si), 0);
	ASSERT_EQ(si.first, sem_fd.first);
	ASSERT_EQ(si.count, 1);
	imp.fd = bo_fd.fd;
	ASSERT_EQ(ccore_dev_ioctl(d0, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp), 0);
	tsim_close(&t);
}
