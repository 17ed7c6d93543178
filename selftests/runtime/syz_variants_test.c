// SPDX-License-Identifier: GPL-2.0
/*
 * The syzkaller descriptions (tools/syzkaller/dev_ccore.txt) split
 * descriptors and instructions into variants whose unused fields are zero,
 * so that what syzkaller generates mostly gets past the verifier.  Here a
 * typical instance of every variant (consts as described, flags their first
 * non-zero value, integers 1, a buffer's address and an allocated
 * semaphore for the resources) must be accepted: written to a ring,
 * loaded as a program, run as a compute program.  The instances come from
 * the description itself (syz-check.py --variants-h, written by make), so
 * a variant that describes a field the verifier refuses fails here.
 *
 * Built with -DCCORE_TEST_ACCEL it is build/tests/kernel/syz_variants_accel,
 * the same on the kernel driver in the QEMU guest.
 */
#include "ccore_test.h"
#include "ccore_device.h"

#include <errno.h>
#include <time.h>

#include "syz_variants.h"

#ifdef CCORE_TEST_ACCEL
#define BACKEND "accel"
#else
#define BACKEND "sim"
#endif

#define NSEC 1000000000ll
/* What the typical values name: core 0, CC core 0, engine 1, ring 1. */
#define CORE 0
#define CC_CORE 0
#define ENGINE 1
#define RING 1

static struct ccore_system *sys;
static struct ccore_dev *dev;
static uint64_t dev_addr;
static uint32_t sem;
static uint32_t ring;

static int64_t deadline(int64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC + ts.tv_nsec + ns;
}

__attribute__((destructor)) static void teardown(void)
{
	if (sys)
		ccore_system_close(sys);
}

static void setup(void)
{
	uint32_t bo;

	if (sys)
		return;
	ASSERT_EQ(ccore_system_open(BACKEND, NULL, &sys), 0);
	dev = ccore_system_device(sys, 0);
	ASSERT_EQ(ccore_dev_bo_create(dev, 4096, &bo, &dev_addr), 0);
	ASSERT_EQ(ccore_dev_sem_alloc(dev, CORE, 4, &sem), 0);
	/* WAIT_SEM and the like find it reached */
	ASSERT_EQ(ccore_dev_sem_write(dev, sem, DRM_CCORE_SEM_SET, 1000), 0);
	ASSERT_EQ(ccore_dev_ring_create(dev, CORE, ENGINE, RING, 64, 0, 0, &ring), 0);
}

/* The variant's typical instance in @buf. */
static void instantiate(const struct syz_variant *v, void *buf)
{
	unsigned int i;

	memset(buf, 0, v->size);
	for (i = 0; i < v->nfields; i++) {
		const struct syz_field *f = &v->fields[i];
		uint64_t value;

		switch (f->kind) {
		case SYZ_VALUE:
			value = f->value;
			break;
		case SYZ_RES_ccore_dev_addr:
			value = dev_addr;
			break;
		case SYZ_RES_ccore_sem_ref:
			value = sem;
			break;
		default:
			FAIL("%s: field %u takes a resource this test has no value for", v->name, i);
		}
		/* little-endian, as syzkaller lays it out on amd64 */
		memcpy((char *)buf + f->offset, &value, f->size);
	}
}

static int try_desc(const struct syz_variant *v)
{
	struct drm_ccore_desc d;
	struct drm_ccore_ring_submit s = {
		.handle = ring, .count = 1, .descs = (uintptr_t)&d,
	};

	instantiate(v, &d);
	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_RING_SUBMIT, &s);
}

static int try_insn(const struct syz_variant *v)
{
	struct drm_ccore_insn p[2] = { [1] = { .opcode = DRM_CCORE_OP_RET } };
	struct drm_ccore_program_load l = {
		.cc_core = CC_CORE, .count = 2, .insns = (uintptr_t)p,
	};
	struct drm_ccore_program_free f = { 0 };
	int rc;

	instantiate(v, &p[0]);
	rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_PROGRAM_LOAD, &l);
	if (rc)
		return rc;
	f.handle = l.handle;
	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_PROGRAM_FREE, &f);
}

static int try_ce_insn(const struct syz_variant *v)
{
	struct drm_ccore_ce_insn p[2] = { [1] = { .opcode = DRM_CCORE_CE_END } };
	struct drm_ccore_compute_submit s = {
		.core = CORE, .count = 2, .insns = (uintptr_t)p, .timeout_ms = 5000,
	};
	struct drm_ccore_compute_wait w = { .core = CORE };
	int rc;

	instantiate(v, &p[0]);
	if (p[0].opcode == DRM_CCORE_CE_END)
		s.count = 1;
	if (p[0].opcode == DRM_CCORE_CE_DMA) {
		s.dma_engine = ENGINE;
		s.dma_ring = RING;
	}
	rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_COMPUTE_SUBMIT, &s);
	if (rc)
		return rc;
	w.timeout_ns = deadline(10 * NSEC);
	rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_COMPUTE_WAIT, &w);
	return rc ? rc : w.status;
}

static void run_variants(const char *c_struct, int (*try)(const struct syz_variant *))
{
	unsigned int i, n = 0, failed = 0;
	int rc;

	setup();
	for (i = 0; i < sizeof(syz_variants) / sizeof(syz_variants[0]); i++) {
		const struct syz_variant *v = &syz_variants[i];

		if (strcmp(v->c_struct, c_struct))
			continue;
		n++;
		rc = try(v);
		if (rc) {
			ccore_test_log("%s: typical instance refused: %d (%s)", v->name, rc,
				       ccore_last_error());
			failed++;
		}
	}
	ASSERT_GT(n, 0);
	if (failed)
		FAIL("%u of the %u variants of %s refused", failed, n, c_struct);
}

TEST(desc_variants_written)
{
	run_variants("drm_ccore_desc", try_desc);
}

TEST(insn_variants_loaded)
{
	run_variants("drm_ccore_insn", try_insn);
}

TEST(ce_insn_variants_run)
{
	run_variants("drm_ccore_ce_insn", try_ce_insn);
}
