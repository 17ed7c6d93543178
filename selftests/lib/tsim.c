// SPDX-License-Identifier: GPL-2.0
/* Test helpers over the sim backend (see tsim.h). */
#include "tsim.h"
#include "isa/ccas.h"

#include <stdarg.h>
#include <time.h>

#define CHECK_RC(rc, what)                                                   \
	do {                                                                 \
		if (rc)                                                      \
			FAIL("%s: %d: %s", what, rc, ccore_last_error());    \
	} while (0)

void tsim_open(struct tsim *t, const char *config)
{
	unsigned int i;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = ccore_system_open("sim", config, &t->sys);
	CHECK_RC(rc, "ccore_system_open");
	t->ndev = ccore_system_num_devices(t->sys);
	for (i = 0; i < t->ndev && i < TSIM_MAX_DEV; i++)
		t->dev[i] = ccore_system_device(t->sys, i);
	t->f = ccore_system_model(t->sys);
}

void tsim_close(struct tsim *t)
{
	ccore_system_close(t->sys);
	t->sys = NULL;
}

void *tsim_bo(struct ccore_dev *d, size_t size, uint32_t *handle, uint64_t *va)
{
	void *p;
	int rc = ccore_dev_bo_create(d, size, handle, va);

	CHECK_RC(rc, "bo_create");
	p = ccore_dev_bo_map(d, *handle);
	if (!p)
		FAIL("bo_map: %s", ccore_last_error());
	return p;
}

uint32_t tsim_sem(struct ccore_dev *d, unsigned int core, unsigned int count)
{
	uint32_t first;
	int rc = ccore_dev_sem_alloc(d, core, count, &first);

	CHECK_RC(rc, "sem_alloc");
	return first;
}

uint32_t tsim_sem_value(struct ccore_dev *d, uint32_t sem)
{
	uint32_t v;
	int rc = ccore_dev_sem_read(d, sem, &v);

	CHECK_RC(rc, "sem_read");
	return v;
}

void tsim_sem_set(struct ccore_dev *d, uint32_t sem, uint32_t value)
{
	int rc = ccore_dev_sem_write(d, sem, DRM_CCORE_SEM_SET, value);

	CHECK_RC(rc, "sem_write");
}

uint32_t tsim_ring(struct ccore_dev *d, unsigned int core, unsigned int engine,
		   unsigned int ring, unsigned int slots, unsigned int packet)
{
	uint32_t h;
	int rc = ccore_dev_ring_create(d, core, engine, ring, slots, packet, 0, &h);

	CHECK_RC(rc, "ring_create");
	return h;
}

static struct drm_ccore_insn *vasm(size_t *count, const char *fmt, va_list ap)
{
	char src[8192], err[256];
	struct drm_ccore_insn *insns = NULL;

	vsnprintf(src, sizeof(src), fmt, ap);
	if (ccas_assemble(src, "test.ccs", &insns, count, err, sizeof(err)))
		FAIL("assembler: %s\n%s", err, src);
	return insns;
}

struct drm_ccore_insn *tsim_asm(size_t *count, const char *fmt, ...)
{
	struct drm_ccore_insn *insns;
	va_list ap;

	va_start(ap, fmt);
	insns = vasm(count, fmt, ap);
	va_end(ap);
	return insns;
}

uint32_t tsim_load(struct ccore_dev *d, unsigned int cc, const char *fmt, ...)
{
	struct drm_ccore_insn *insns;
	uint32_t h;
	size_t n;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	insns = vasm(&n, fmt, ap);
	va_end(ap);
	rc = ccore_dev_program_load(d, cc, insns, (uint32_t)n, &h);
	free(insns);
	CHECK_RC(rc, "program_load");
	return h;
}

int tsim_try_load(struct ccore_dev *d, unsigned int cc, uint32_t *bad_index,
		  const char *fmt, ...)
{
	struct drm_ccore_program_load a = { .cc_core = cc };
	struct drm_ccore_insn *insns;
	size_t n;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	insns = vasm(&n, fmt, ap);
	va_end(ap);
	a.count = (uint32_t)n;
	a.insns = (uintptr_t)insns;
	rc = ccore_dev_ioctl(d, DRM_IOCTL_CCORE_PROGRAM_LOAD, &a);
	free(insns);
	*bad_index = a.bad_index;
	return rc;
}

uint64_t tsim_submit(struct ccore_dev *d, uint32_t prog, uint32_t timeout_ms)
{
	struct drm_ccore_submit a = {
		.program = prog, .flags = DRM_CCORE_JOB_F_TRIGGER, .timeout_ms = timeout_ms,
	};
	int rc = ccore_dev_ioctl(d, DRM_IOCTL_CCORE_SUBMIT, &a);

	CHECK_RC(rc, "submit");
	return a.job;
}

int tsim_wait(struct ccore_dev *d, uint64_t job)
{
	int status = 0, rc = ccore_dev_job_wait(d, job, 30 * TSIM_SEC, &status);

	CHECK_RC(rc, "job_wait");
	return status;
}

int tsim_run(struct ccore_dev *d, uint32_t prog)
{
	return tsim_wait(d, tsim_submit(d, prog, 0));
}

uint64_t tsim_seed(void)
{
	const char *s = getenv("CCORE_TEST_SEED");
	uint64_t seed = s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);

	ccore_test_log("seed %llu (replay with CCORE_TEST_SEED=%llu)",
		       (unsigned long long)seed, (unsigned long long)seed);
	return seed;
}
