/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helpers over the device layer on the sim backend: open a fabric,
 * make buffers, semaphores and rings, assemble and load programs, run jobs.
 * Each helper fails the current test with the library's error text.
 */
#ifndef TSIM_H
#define TSIM_H

#include "ccore_test.h"
#include "ccore_device.h"
#include "ccore_internal.h"
#include "ccm.h"

#define TSIM_MAX_DEV 16
#define TSIM_SEC 1000000000ll

/* A semaphore reference as CC assembly: SEMF in the format, S3(ref) after. */
#define S3(ref) DRM_CCORE_SEM_REF_DEV(ref), DRM_CCORE_SEM_REF_CORE(ref), DRM_CCORE_SEM_REF_IDX(ref)
#define SEMF "sem(%u,%u,%u)"

/* @call must fail with @err and a last error containing @text. */
#define EXPECT_ERR(call, err, text)                                               \
	do {                                                                      \
		int rc_ = (call);                                                 \
		if (rc_ != (err))                                                 \
			FAIL("%s returned %d, expected %d (%s)", #call, rc_, err,   \
			     ccore_last_error());                                 \
		ASSERT_STR_CONTAINS(ccore_last_error(), text);                     \
	} while (0)

struct tsim {
	struct ccore_system *sys;
	struct ccore_dev *dev[TSIM_MAX_DEV];
	unsigned int ndev;
	struct ccm_fabric *f;
};

void tsim_open(struct tsim *t, const char *config);
void tsim_close(struct tsim *t);
/* A zeroed buffer of @size bytes; returns its host view. */
void *tsim_bo(struct ccore_dev *d, size_t size, uint32_t *handle, uint64_t *va);
uint32_t tsim_sem(struct ccore_dev *d, unsigned int core, unsigned int count);
uint32_t tsim_sem_value(struct ccore_dev *d, uint32_t sem);
void tsim_sem_set(struct ccore_dev *d, uint32_t sem, uint32_t value);
uint32_t tsim_ring(struct ccore_dev *d, unsigned int core, unsigned int engine,
		   unsigned int ring, unsigned int slots, unsigned int packet);
/* Assemble printf-formatted CC assembly; fails the test on error. */
struct drm_ccore_insn *tsim_asm(size_t *count, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Assemble and load on CC core @cc; fails the test on error. */
uint32_t tsim_load(struct ccore_dev *d, unsigned int cc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Assemble and try to load; returns the ioctl result and the bad index. */
int tsim_try_load(struct ccore_dev *d, unsigned int cc, uint32_t *bad_index,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Submit with a trigger; returns the job id. */
uint64_t tsim_submit(struct ccore_dev *d, uint32_t prog, uint32_t timeout_ms);
/* Wait for a job; returns its status (fails the test if the wait fails). */
int tsim_wait(struct ccore_dev *d, uint64_t job);
/* Submit, trigger, wait: the job's status. */
int tsim_run(struct ccore_dev *d, uint32_t prog);
uint64_t tsim_seed(void);

#endif
