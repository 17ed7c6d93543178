// SPDX-License-Identifier: GPL-2.0
/*
 * DMA rings: RING_CREATE/DESTROY/SUBMIT/STATS, descriptor validation (every
 * rejection names the descriptor in bad_index and writes nothing), and data
 * movement: COPY, REDUCE and SEM_WRITE descriptors really move the right
 * bytes and the ring counters say so.  Indexed rings: creation checks the
 * index fields (and takes the 32-byte struct of older callers), submission
 * checks every index's ranges, and a STARTI loop moves data block by block.
 */
#include "ccore_drv_test.h"

CCORE_DEV_FIXTURE(ring)

TEST_F(ring, create_destroy)
{
	struct drm_ccore_ring_stats st;
	uint32_t h1, h2, h3;
	int fd2;

	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 16, 0, 0, &h1));
	ASSERT_NE(0, h1);
	/* claimed: by this file or any other */
	ASSERT_EQ(-EBUSY, ring_create(self->fd, 0, 0, 0, 16, 0, 0, NULL));
	fd2 = reopen(&self->d);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(-EBUSY, ring_create(fd2, 0, 0, 0, 16, 0, 0, NULL));
	/* ... and handles are per file */
	ASSERT_EQ(-ENOENT, ring_stats(fd2, h1, &st));
	ASSERT_EQ(-ENOENT, ring_destroy(fd2, h1));

	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 1, 16, 0, 0, &h2));
	ASSERT_NE(h1, h2);
	ASSERT_EQ(0, ring_stats(self->fd, h1, &st));
	ASSERT_EQ(0, st.started);
	ASSERT_EQ(0, st.bytes);

	ASSERT_EQ(0, ring_destroy(self->fd, h1));
	ASSERT_EQ(-ENOENT, ring_destroy(self->fd, h1));	/* double destroy */
	ASSERT_EQ(-ENOENT, ring_stats(self->fd, h1, &st));
	ASSERT_EQ(-ENOENT, ring_destroy(self->fd, 0));
	ASSERT_EQ(-ENOENT, ring_stats(self->fd, 0xffffffff, &st));
	/* released: another file may claim it now */
	ASSERT_EQ(0, ring_create(fd2, 0, 0, 0, 16, 0, 0, &h3));
	close(fd2);
	/* and closing that file released it again */
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 16, 0, 0, &h3));
	/* the last ring of the last engine of the last core exists */
	ASSERT_EQ(0, ring_create(self->fd, self->d.cores - 1, self->d.engines - 1,
				 self->d.rings - 1, self->d.max_ring, 0, 0, NULL));
}

TEST_F(ring, create_out_of_range)
{
	const struct ccore_dev *d = &self->d;

	ASSERT_EQ(-EINVAL, ring_create(self->fd, d->cores, 0, 0, 4, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 255, 0, 0, 4, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0xffffffff, 0, 0, 4, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0, d->engines, 0, 4, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0, 0, d->rings, 4, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0, 0, 16, 4, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0, 0, 0, 0, 0, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0, 0, 0, d->max_ring + 1, 0, 0, NULL));
	/* packet size: a power of two MIN..MAX */
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0, 0, 0, 4, d->min_packet / 2, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0, 0, 0, 4, d->max_packet * 2, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0, 0, 0, 4, d->min_packet + 512 + 1, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0, 0, 0, 4, 3 * d->min_packet, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create(self->fd, 0, 0, 0, 4, 0, 2, NULL));
	/* nothing was claimed by the failures */
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 4, d->min_packet, 0, NULL));
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 1, 4, d->max_packet, 0, NULL));
}

TEST_F(ring, default_packet_size)
{
	struct drm_ccore_ring_stats st;
	uint32_t h;

	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 4, 0, 0, &h));
	ASSERT_EQ(0, ring_stats(self->fd, h, &st));
	ASSERT_EQ(param(self->fd, DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE), st.packet_size);
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 1, 4, 0, DRM_CCORE_RING_F_COMPUTE, &h));
	ASSERT_EQ(0, ring_stats(self->fd, h, &st));
	ASSERT_EQ(param(self->fd, DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE), st.packet_size);
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 2, 4, 1024, DRM_CCORE_RING_F_COMPUTE, &h));
	ASSERT_EQ(0, ring_stats(self->fd, h, &st));
	ASSERT_EQ(1024, st.packet_size);
}

/* A COPY moves exactly @len bytes, in ceil(len / packet) packets. */
TEST_F(ring, copy)
{
	const size_t size = 128 << 10, len = (64 << 10) + 100, off = 40;
	struct drm_ccore_ring_stats st;
	struct drm_ccore_desc d;
	struct bo_pair bp;
	uint32_t ring;

	ASSERT_EQ(0, bo_pair(self->fd, size, 11, 0xa5, &bp));

	ASSERT_EQ(0, ring_create(self->fd, 0, 1 % self->d.engines, 3 % self->d.rings, 8, 4096, 0, &ring));
	d = desc_copy(bp.ad + off, bp.as + 8, len);
	ASSERT_EQ(0, ring_submit(self->fd, ring, &d, 1, 0, NULL));
	/* written, not started */
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	ASSERT_EQ(0, st.started);
	ASSERT_EQ(0xa5, bp.d[off]);

	ASSERT_EQ(-ENOENT, ring_destroy(self->fd, ring + 1));
	ASSERT_EQ(0, ring_destroy(self->fd, ring));
	ASSERT_EQ(0, ring_create(self->fd, 0, 1 % self->d.engines, 3 % self->d.rings, 8, 4096, 0, &ring));
	ASSERT_EQ(0, ring_submit(self->fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, ring_drain(self->fd, ring, 1, 5000));
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	EXPECT_EQ(4096, st.packet_size);
	EXPECT_EQ(1, st.started);
	EXPECT_EQ(1, st.completed);
	EXPECT_EQ(0, st.errors);
	EXPECT_EQ(len, st.bytes);
	EXPECT_EQ((len + 4095) / 4096, st.packets);

	for (size_t i = 0; i < off; i++) {
		ASSERT_EQ(0xa5, bp.d[i]) TH_LOG("byte %zu before the copy was written", i);
	}
	for (size_t i = 0; i < len; i++) {
		ASSERT_EQ(bp.s[8 + i], bp.d[off + i]) TH_LOG("byte %zu", i);
	}
	for (size_t i = off + len; i < size; i++) {
		ASSERT_EQ(0xa5, bp.d[i]) TH_LOG("byte %zu after the copy was written", i);
	}
	munmap(bp.s, size);
	munmap(bp.d, size);
}

/* REDUCE combines two sources element-wise; dst may alias a source. */
TEST_F(ring, reduce)
{
	const size_t n = 4096, size = 8 * n;
	struct drm_ccore_ring_stats st;
	struct drm_ccore_desc d[4];
	uint32_t ha, hb, hc, ring, sem;
	uint64_t a, b, c;
	int32_t *ia, *ib, *ic;
	uint8_t *ua, *ub, *uc;
	float *fa, *fb, *fc;
	double *da, *db;

	ASSERT_EQ(0, bo_create(self->fd, size, &ha, &a));
	ASSERT_EQ(0, bo_create(self->fd, size, &hb, &b));
	ASSERT_EQ(0, bo_create(self->fd, size, &hc, &c));
	ia = bo_map(self->fd, ha, size);
	ib = bo_map(self->fd, hb, size);
	ic = bo_map(self->fd, hc, size);
	ASSERT_NE(NULL, ia);
	ASSERT_NE(NULL, ib);
	ASSERT_NE(NULL, ic);
	/* i32 in the first quarter, u8 in the second, f32 third, f64 fourth */
	for (size_t i = 0; i < n / 4; i++) {
		ia[i] = (int32_t)(i * 1000003u);
		ib[i] = -(int32_t)i * 7 + 0x7fffff00;	/* wraps */
	}
	ua = (uint8_t *)ia + 2 * n;
	ub = (uint8_t *)ib + 2 * n;
	uc = (uint8_t *)ic + 2 * n;
	for (size_t i = 0; i < 2 * n; i++) {
		ua[i] = (uint8_t)(i * 13);
		ub[i] = (uint8_t)(i * 29 + 5);
	}
	fa = (float *)((uint8_t *)ia + 4 * n);
	fb = (float *)((uint8_t *)ib + 4 * n);
	fc = (float *)((uint8_t *)ic + 4 * n);
	for (size_t i = 0; i < n / 2; i++) {
		fa[i] = (float)i * 0.5f;
		fb[i] = 3.0f - (float)i;
	}
	da = (double *)((uint8_t *)ia + 6 * n);
	db = (double *)((uint8_t *)ib + 6 * n);
	for (size_t i = 0; i < n / 4; i++) {
		da[i] = (double)i / 3.0;
		db[i] = 100.0 - (double)i;
	}

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &sem));
	d[0] = desc_reduce(c, a, b, n, DRM_CCORE_DTYPE_I32, DRM_CCORE_REDOP_SUM);
	d[1] = desc_reduce(c + 2 * n, a + 2 * n, b + 2 * n, 2 * n, DRM_CCORE_DTYPE_U8,
			   DRM_CCORE_REDOP_MAX);
	d[2] = desc_reduce(c + 4 * n, a + 4 * n, b + 4 * n, 2 * n, DRM_CCORE_DTYPE_F32,
			   DRM_CCORE_REDOP_PROD);
	/* in place: a = min(a, b) */
	d[3] = desc_signal(desc_reduce(a + 6 * n, a + 6 * n, b + 6 * n, 2 * n,
				       DRM_CCORE_DTYPE_F64, DRM_CCORE_REDOP_MIN), sem, 1);
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 4, 0, 0, &ring));
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 4, DRM_CCORE_SUBMIT_F_START, NULL));
	/* descriptors of a ring complete in order: the last signals */
	ASSERT_EQ(0, sem_wait(self->fd, sem, 1, deadline_ms(5000)));

	for (size_t i = 0; i < n / 4; i++) {
		ASSERT_EQ((int32_t)((uint32_t)ia[i] + (uint32_t)ib[i]), ic[i]) TH_LOG("i32 %zu", i);
	}
	for (size_t i = 0; i < 2 * n; i++) {
		ASSERT_EQ(ua[i] > ub[i] ? ua[i] : ub[i], uc[i]) TH_LOG("u8 %zu", i);
	}
	for (size_t i = 0; i < n / 2; i++) {
		ASSERT_TRUE(fa[i] * fb[i] == fc[i]) TH_LOG("f32 %zu", i);
	}
	for (size_t i = 0; i < n / 4; i++) {
		double want = (double)i / 3.0 < 100.0 - (double)i ? (double)i / 3.0 :
								     100.0 - (double)i;
		ASSERT_TRUE(da[i] == want) TH_LOG("f64 %zu: %f", i, da[i]);
	}
	ASSERT_EQ(0, ring_drain(self->fd, ring, 4, 5000));
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	EXPECT_EQ(4, st.completed);
	EXPECT_EQ(7 * n, st.bytes);
	EXPECT_EQ(0, st.errors);
}

/* SEM_WRITE adds (or sets) a semaphore; SIGNAL adds on completion. */
TEST_F(ring, sem_write)
{
	struct drm_ccore_ring_stats st;
	struct drm_ccore_desc d[4];
	uint32_t ring, sem, h;
	uint64_t a;

	ASSERT_EQ(0, sem_alloc(self->fd, 1 % self->d.cores, 3, &sem));
	ASSERT_EQ(0, bo_create(self->fd, 4096, &h, &a));
	ASSERT_EQ(0, sem_access(self->fd, sem, DRM_CCORE_SEM_SET, 100, NULL));
	d[0] = desc_sem_write(sem, 5, false);
	d[1] = desc_sem_write(sem + 1, 42, true);
	d[2] = desc_signal(desc_copy(a + 2048, a, 1024), sem + 2, 3);
	d[3] = desc_signal(desc_sem_write(sem + 2, 10, false), sem + 2, 1000);
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 4, 0, 0, &ring));
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 4, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, sem_wait(self->fd, sem + 2, 1013, deadline_ms(5000)));
	ASSERT_EQ(105, sem_read(self->fd, sem));
	ASSERT_EQ(42, sem_read(self->fd, sem + 1));
	ASSERT_EQ(1013, sem_read(self->fd, sem + 2));
	ASSERT_EQ(0, ring_drain(self->fd, ring, 4, 5000));
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	EXPECT_EQ(4, st.completed);
	EXPECT_EQ(4, st.packets);
}

/* Descriptors named by bad_index; a rejected batch writes nothing. */
TEST_F(ring, submit_rejects_descriptor)
{
	const struct ccore_dev *dv = &self->d;
	uint32_t h, h2, ring, sem, bad, other, invalid;
	struct drm_ccore_desc good, d[2];
	const size_t size = 8192;
	uint64_t a, a2;
	struct {
		const char *what;
		struct drm_ccore_desc d;
		int err;
	} cases[48];
	int n = 0, i;

	ASSERT_EQ(0, bo_create(self->fd, size, &h, &a));
	ASSERT_EQ(0, bo_create(self->fd, size, &h2, &a2));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &sem));
	/* a valid semaphore this file does not own, and one that does not exist */
	other = DRM_CCORE_SEM_REF(dv->index, 0, dv->sems - 1);
	invalid = DRM_CCORE_SEM_REF(dv->index, 0, dv->sems);
	good = desc_copy(a, a2, 64);

#define BAD(w, desc, e) do { \
	cases[n].what = w; \
	cases[n].d = desc; \
	cases[n].err = e; \
	n++; \
} while (0)
	BAD("dst past the end", desc_copy(a + size - 8, a2, 16), -EINVAL);
	BAD("src past the end", desc_copy(a, a2 + size - 8, 16), -EINVAL);
	BAD("dst in the gap after a buffer", desc_copy(a + size, a2, 8), -EINVAL);
	BAD("dst below every buffer", desc_copy(a - 4096, a2, 8), -EINVAL);
	BAD("src NULL", desc_copy(a, 0, 8), -EINVAL);
	BAD("dst unmapped", desc_copy(0xdead00000000ull, a2, 8), -EINVAL);
	BAD("len spanning two buffers", desc_copy(a, a2, size + 4096 + size), -EINVAL);
	BAD("len overflowing", desc_copy(a + 8, a2, ~0ull - 7), -EINVAL);
	BAD("len 0", desc_copy(a, a2, 0), -EINVAL);
	{
		struct drm_ccore_desc x = good;

		x.op = 0;
		BAD("op 0", x, -EINVAL);
		x.op = DRM_CCORE_DESC_DIV + 1;
		BAD("op 5", x, -EINVAL);
		x = good;
		x.flags = 4;
		BAD("unknown flag", x, -EINVAL);
		x.flags = 0x80;
		BAD("unknown flag 0x80", x, -EINVAL);
		x.flags = DRM_CCORE_DESC_F_SEM_SET;
		BAD("SEM_SET on a COPY", x, -EINVAL);
		x = good;
		x.signal_sem = 0x10005;	/* (sem may be reference 0) */
		BAD("signal_sem without SIGNAL", x, -EINVAL);
		x = good;
		x.signal_value = 1;
		BAD("signal_value without SIGNAL", x, -EINVAL);
		x = good;
		x.src1 = a2;
		BAD("COPY with src1", x, -EINVAL);
		x = good;
		x.dtype = DRM_CCORE_DTYPE_U8;
		BAD("COPY with dtype", x, -EINVAL);
		x = good;
		x.value = 1;
		BAD("COPY with value", x, -EINVAL);
		x = good;
		x.redop = 1;
		BAD("COPY with redop", x, -EINVAL);
	}
	BAD("REDUCE dtype 0", desc_reduce(a, a, a2, 64, 0, DRM_CCORE_REDOP_SUM), -EINVAL);
	BAD("REDUCE dtype 11", desc_reduce(a, a, a2, 64, 11, DRM_CCORE_REDOP_SUM), -EINVAL);
	BAD("REDUCE redop 0", desc_reduce(a, a, a2, 64, DRM_CCORE_DTYPE_I32, 0), -EINVAL);
	BAD("REDUCE redop 5", desc_reduce(a, a, a2, 64, DRM_CCORE_DTYPE_I32, 5), -EINVAL);
	BAD("REDUCE len not a multiple of 4",
	    desc_reduce(a, a, a2, 66, DRM_CCORE_DTYPE_F32, DRM_CCORE_REDOP_SUM), -EINVAL);
	BAD("REDUCE src1 outside",
	    desc_reduce(a, a, a2 + size, 64, DRM_CCORE_DTYPE_I32, DRM_CCORE_REDOP_SUM), -EINVAL);
	{
		struct drm_ccore_desc x = desc_copy(a, a2, 64);

		x.op = DRM_CCORE_DESC_DIV;
		x.dtype = DRM_CCORE_DTYPE_I32;
		x.value = 0;
		BAD("DIV by 0", x, -EINVAL);
		x.value = 0x80000001u;
		BAD("DIV by 2^31 + 1", x, -EINVAL);
	}
	BAD("SEM_WRITE to a semaphore of nobody", desc_sem_write(other, 1, false), -EACCES);
	BAD("SEM_WRITE to no semaphore", desc_sem_write(invalid, 1, false), -EINVAL);
	BAD("SEM_WRITE to a core that does not exist",
	    desc_sem_write(DRM_CCORE_SEM_REF(dv->index, dv->cores, 0), 1, false), -EINVAL);
	BAD("SEM_WRITE to a device that does not exist",
	    desc_sem_write(DRM_CCORE_SEM_REF(dv->num_devices, 0, 0), 1, false), -EINVAL);
	BAD("SEM_WRITE to the trigger",
	    desc_sem_write(DRM_CCORE_SEM_TRIGGER, 1, false), -EINVAL);
	{
		struct drm_ccore_desc x = desc_sem_write(sem, 1, false);

		x.len = 4;
		BAD("SEM_WRITE with len", x, -EINVAL);
		x = desc_sem_write(sem, 1, false);
		x.dst |= 1ull << 32;
		BAD("SEM_WRITE dst high bits", x, -EINVAL);
		x = desc_sem_write(sem, 1, false);
		x.src0 = a;
		BAD("SEM_WRITE with src0", x, -EINVAL);
	}
	BAD("SIGNAL to a semaphore of nobody", desc_signal(good, other, 1), -EACCES);
	BAD("SIGNAL to no semaphore", desc_signal(good, invalid, 1), -EINVAL);
#undef BAD

	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 2, 0, 0, &ring));
	for (i = 0; i < n; i++) {
		d[0] = good;
		d[1] = cases[i].d;
		EXPECT_EQ(cases[i].err, ring_submit(self->fd, ring, d, 2, 0, &bad))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(1, bad) TH_LOG("%s", cases[i].what);
		/* first in the batch: index 0 */
		d[0] = cases[i].d;
		EXPECT_EQ(cases[i].err, ring_submit(self->fd, ring, d, 1, DRM_CCORE_SUBMIT_F_START,
						    &bad))
			TH_LOG("%s", cases[i].what);
		EXPECT_EQ(0, bad) TH_LOG("%s", cases[i].what);
	}
	/* nothing was written: both slots are free */
	d[0] = good;
	d[1] = desc_sem_write(sem, 1, false);
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 2, DRM_CCORE_SUBMIT_F_START, &bad));
	ASSERT_EQ(NO_INDEX, bad);
	ASSERT_EQ(0, sem_wait(self->fd, sem, 1, deadline_ms(5000)));
	ASSERT_EQ(1, sem_read(self->fd, sem));
}

TEST_F(ring, submit_bad_arguments)
{
	struct drm_ccore_desc d[3];
	uint32_t h, ring, bad;
	uint64_t a;

	ASSERT_EQ(0, bo_create(self->fd, 4096, &h, &a));
	d[0] = d[1] = d[2] = desc_copy(a, a + 2048, 64);
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 2, 0, 0, &ring));
	ASSERT_EQ(-EINVAL, ring_submit(self->fd, ring, d, 0, 0, &bad));
	ASSERT_EQ(-EFAULT, ring_submit(self->fd, ring, NULL, 1, 0, &bad));
	ASSERT_EQ(-EFAULT, ring_submit(self->fd, ring, (void *)16, 1, 0, &bad));
	ASSERT_EQ(-ENOENT, ring_submit(self->fd, ring + 1, d, 1, 0, &bad));
	ASSERT_EQ(-ENOENT, ring_submit(self->fd, 0, d, 1, 0, &bad));
	ASSERT_EQ(-EINVAL, ring_submit(self->fd, ring, d, (1u << 20) + 1, 0, &bad));
	/* more than any ring of the device holds: refused before it is copied */
	ASSERT_EQ(-ENOSPC, ring_submit(self->fd, ring, NULL, 1u << 20, 0, &bad));
	/* more than the ring holds */
	ASSERT_EQ(-ENOSPC, ring_submit(self->fd, ring, d, 3, 0, &bad));
	ASSERT_EQ(NO_INDEX, bad);
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 1, 0, &bad));
	ASSERT_EQ(-ENOSPC, ring_submit(self->fd, ring, d, 2, 0, &bad));
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 1, 0, &bad));
	ASSERT_EQ(-ENOSPC, ring_submit(self->fd, ring, d, 1, 0, &bad));
	ASSERT_EQ(0, ring_destroy(self->fd, ring));
	ASSERT_EQ(-ENOENT, ring_submit(self->fd, ring, d, 1, 0, &bad));
}

/*
 * DRM_CCORE_SUBMIT_F_START starts "the written descriptors": after a ring
 * has run its first batch, a second batch appended with F_START must run
 * the new descriptors, not replay the old ones.
 */
TEST_F(ring, start_appended_descriptors)
{
	struct drm_ccore_desc d;
	uint32_t ring, sem;

	ASSERT_EQ(0, sem_alloc(self->fd, 0, 2, &sem));
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 4, 0, 0, &ring));
	d = desc_sem_write(sem, 1, false);
	ASSERT_EQ(0, ring_submit(self->fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, sem_wait(self->fd, sem, 1, deadline_ms(5000)));
	ASSERT_EQ(0, ring_drain(self->fd, ring, 1, 5000));
	d = desc_sem_write(sem + 1, 1, false);
	ASSERT_EQ(0, ring_submit(self->fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, ring_drain(self->fd, ring, 2, 5000));
	EXPECT_EQ(1, sem_read(self->fd, sem)) TH_LOG("the first descriptor ran again");
	EXPECT_EQ(1, sem_read(self->fd, sem + 1)) TH_LOG("the appended descriptor did not run");
}

/* A ring with descriptors in flight can be neither rewritten nor destroyed. */
TEST_F(ring, busy_ring)
{
	const size_t size = 16 << 20;
	struct drm_ccore_ring_stats st;
	struct drm_ccore_desc d[4];
	uint32_t ha, hb, ring;
	uint64_t a, b;
	int rc;

	ASSERT_EQ(0, bo_create(self->fd, size, &ha, &a));
	ASSERT_EQ(0, bo_create(self->fd, size, &hb, &b));
	d[0] = desc_copy(b, a, size);
	d[1] = desc_copy(a, b, size);
	d[2] = desc_copy(b, a, size);
	d[3] = desc_copy(a, b, size);
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 8, 0, 0, &ring));
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 4, DRM_CCORE_SUBMIT_F_START, NULL));
	rc = ring_destroy(self->fd, ring);
	if (rc == 0)
		SKIP(return, "64 MiB of copies finished before RING_DESTROY: host too fast");
	ASSERT_EQ(-EBUSY, rc);
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	if (st.completed < 4)
		ASSERT_EQ(-EBUSY, ring_submit(self->fd, ring, d, 1, 0, NULL));
	ASSERT_EQ(0, ring_drain(self->fd, ring, 4, 20000));
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	EXPECT_EQ(4ull * size, st.bytes);
	ASSERT_EQ(0, ring_destroy(self->fd, ring));
}

/* --- indexed rings and STARTI -------------------------------------------- */

#define IBLOCK 4096u
#define INBLK 8u

TEST_F(ring, indexed_create)
{
	const unsigned long v1 = _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE,
				      DRM_COMMAND_BASE + DRM_CCORE_RING_CREATE, 32);
	struct drm_ccore_ring_create a = { .size = 4 };
	struct drm_ccore_insn p[2] = { I_STARTI(0, 0, 0, 1), I_RET() };
	struct drm_ccore_desc d;
	char path[128], dump[4096];
	uint32_t h, bo;
	uint64_t va;
	int32_t status;
	size_t n;
	FILE *f;

	ASSERT_EQ(-EINVAL, ring_create_indexed(self->fd, 0, 0, 0, 4, IBLOCK, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create_indexed(self->fd, 0, 0, 0, 4, -1, 0, NULL));
	ASSERT_EQ(-EINVAL, ring_create_indexed(self->fd, 0, 0, 0, 4, 0,
					       DRM_CCORE_MAX_INDEX_COUNT + 1, NULL));
	ASSERT_EQ(-EINVAL, ring_create_indexed(self->fd, 0, 0, 0, 4,
					       DRM_CCORE_MAX_INDEX_STRIDE + 1, 2, NULL));
	ASSERT_EQ(-EINVAL, ring_create_indexed(self->fd, 0, 0, 0, 4,
					       -DRM_CCORE_MAX_INDEX_STRIDE - 1, 2, NULL));
	a.pad2 = 1;
	ASSERT_EQ(-EINVAL, ioc(self->fd, DRM_IOCTL_CCORE_RING_CREATE, &a));
	/* the limits themselves are fine; nothing above was claimed */
	ASSERT_EQ(0, ring_create_indexed(self->fd, 0, 0, 0, 4, -DRM_CCORE_MAX_INDEX_STRIDE,
					 DRM_CCORE_MAX_INDEX_COUNT, &h));
	ASSERT_EQ(0, ring_destroy(self->fd, h));
	ASSERT_EQ(0, ring_create_indexed(self->fd, 0, 0, 0, 4, IBLOCK, INBLK, &h));
	/* debugfs shows the ring's index fields, where it is mounted */
	snprintf(path, sizeof(path), DEBUGFS_CCORE "/fabric%d/dev%u/rings", self->d.fabric,
		 self->d.index);
	f = self->d.fabric >= 0 ? fopen(path, "r") : NULL;
	if (f) {
		n = fread(dump, 1, sizeof(dump) - 1, f);
		dump[n] = '\0';
		fclose(f);
		EXPECT_NE(NULL, strstr(dump, "ring=0 packet_size=")) TH_LOG("%s", dump);
		EXPECT_NE(NULL, strstr(dump, " index_count=8 index_stride=4096\n"))
			TH_LOG("%s", dump);
	}
	ASSERT_EQ(0, ring_destroy(self->fd, h));

	/* an older caller's 32 bytes: a plain ring, the rest neither read nor written */
	a.index_stride = IBLOCK;
	a.index_count = INBLK;
	a.pad2 = 77;
	ASSERT_EQ(0, ioc(self->fd, v1, &a));
	ASSERT_NE(0, a.handle);
	ASSERT_EQ(77, a.pad2);
	ASSERT_EQ(0, bo_create(self->fd, IBLOCK, &bo, &va));
	d = desc_copy(va, va + IBLOCK / 2, IBLOCK / 2);
	ASSERT_EQ(0, ring_submit(self->fd, a.handle, &d, 1, 0, NULL));
	/* STARTI on a ring that is not indexed faults, even at index 0 */
	ASSERT_EQ(0, run_program(self->fd, 0, p, 2, 0, &status));
	ASSERT_EQ(-EIO, status);
}

/* Every range of a descriptor must be inside one buffer at every index. */
TEST_F(ring, indexed_submit_span)
{
	struct drm_ccore_desc d[2];
	uint32_t hs, hd, ring, neg, sem, bad;
	uint64_t s, dst;

	ASSERT_EQ(0, bo_create(self->fd, 4 * IBLOCK, &hs, &s));
	ASSERT_EQ(0, bo_create(self->fd, 4 * IBLOCK, &hd, &dst));
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &sem));
	ASSERT_EQ(0, ring_create_indexed(self->fd, 0, 0, 0, 4, IBLOCK, 4, &ring));
	d[0] = desc_copy(dst, s, IBLOCK);
#define BAD(what, x) do { \
		d[1] = (x); \
		EXPECT_EQ(-EINVAL, ring_submit(self->fd, ring, d, 2, 0, &bad)) TH_LOG("%s", what); \
		EXPECT_EQ(1, bad) TH_LOG("%s", what); \
	} while (0)
	BAD("dst leaves at index 3", desc_copy(dst + IBLOCK, s, IBLOCK));
	BAD("src0 leaves at index 3", desc_copy(dst, s + 1, IBLOCK));
	BAD("src1 leaves at index 3",
	    desc_reduce(dst, s, s + IBLOCK, IBLOCK, DRM_CCORE_DTYPE_U8, DRM_CCORE_REDOP_SUM));
#undef BAD
	/* a byte shorter fits; SEM_WRITE is not moved */
	d[1] = desc_copy(dst + 1, s, IBLOCK - 1);
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 2, 0, &bad));
	ASSERT_EQ(NO_INDEX, bad);
	d[0] = desc_sem_write(sem, 1, false);
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 1, 0, &bad));

	/* backwards: from the second block, index 1 is the first */
	ASSERT_EQ(0, ring_create_indexed(self->fd, 0, 0, 1, 2, -(int64_t)IBLOCK, 2, &neg));
	d[0] = desc_copy(dst + IBLOCK, s, IBLOCK);
	ASSERT_EQ(-EINVAL, ring_submit(self->fd, neg, d, 1, 0, &bad));
	ASSERT_EQ(0, bad);
	d[0] = desc_copy(dst + IBLOCK, s + IBLOCK, IBLOCK);
	ASSERT_EQ(0, ring_submit(self->fd, neg, d, 1, 0, &bad));
}

/*
 * A STARTI loop moves the ring's two descriptors (the halves of a block)
 * to each block in turn; the ring has 2 slots, so every STARTI waits for
 * the one before to complete.  Then backwards, then an index too big.
 */
TEST_F(ring, starti_moves_blocks)
{
	const size_t size = INBLK * IBLOCK;
	struct drm_ccore_insn p[7] = {
		I_MOVI(1, 0), I_MOVI(2, INBLK), I_STARTI(0, 0, 1, 2), I_ADDI(1, 1), I_LOOP(2, -2),
		I_RWAIT(0, 0), I_RET(),
	};
	struct drm_ccore_insn back[7] = {
		I_MOVI(1, 1), I_MOVI(2, 3), I_STARTI(0, 1, 1, 1), I_ADDI(1, 1), I_LOOP(2, -2),
		I_RWAIT(0, 1), I_RET(),
	};
	struct drm_ccore_insn past[3] = { I_MOVI(3, INBLK), I_STARTI(0, 0, 3, 1), I_RET() };
	struct drm_ccore_ring_stats st;
	struct drm_ccore_desc d[2];
	uint32_t ring, neg;
	struct bo_pair bp;
	int32_t status;

	ASSERT_EQ(0, bo_pair(self->fd, size, 7, 0, &bp));
	ASSERT_EQ(0, ring_create_indexed(self->fd, 0, 0, 0, 2, IBLOCK, INBLK, &ring));
	d[0] = desc_copy(bp.ad, bp.as, IBLOCK / 2);
	d[1] = desc_copy(bp.ad + IBLOCK / 2, bp.as + IBLOCK / 2, IBLOCK / 2);
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 2, 0, NULL));
	ASSERT_EQ(0, run_program(self->fd, 0, p, 7, 0, &status));
	ASSERT_EQ(0, status);
	for (size_t i = 0; i < size; i++) {
		ASSERT_EQ(bp.s[i], bp.d[i]) TH_LOG("byte %zu (block %zu)", i, i / IBLOCK);
	}
	ASSERT_EQ(0, ring_stats(self->fd, ring, &st));
	EXPECT_EQ(2 * INBLK, st.started);
	EXPECT_EQ(2 * INBLK, st.completed);
	EXPECT_EQ(size, st.bytes);

	/* stride -IBLOCK from the last block: indexes 1..3 are blocks 6, 5, 4 */
	memset(bp.d, 0, size);
	ASSERT_EQ(0, ring_create_indexed(self->fd, 0, 0, 1, 2, -(int64_t)IBLOCK, INBLK, &neg));
	d[0] = desc_copy(bp.ad + size - IBLOCK, bp.as + size - IBLOCK, IBLOCK);
	ASSERT_EQ(0, ring_submit(self->fd, neg, d, 1, 0, NULL));
	ASSERT_EQ(0, run_program(self->fd, 0, back, 7, 0, &status));
	ASSERT_EQ(0, status);
	for (size_t i = 0; i < size; i++) {
		size_t b = i / IBLOCK;

		ASSERT_EQ(b >= 4 && b <= 6 ? bp.s[i] : 0, bp.d[i]) TH_LOG("byte %zu (block %zu)", i, b);
	}

	/* an index past the ring's faults the CC core: the job fails, nothing moves */
	memset(bp.d, 0, size);
	ASSERT_EQ(0, run_program(self->fd, 0, past, 3, 0, &status));
	ASSERT_EQ(-EIO, status);
	for (size_t i = 0; i < size; i++) {
		ASSERT_EQ(0, bp.d[i]) TH_LOG("byte %zu", i);
	}
	/* and the core runs the next job */
	ASSERT_EQ(0, run_program(self->fd, 0, p, 7, 0, &status));
	ASSERT_EQ(0, status);
	ASSERT_EQ(0, memcmp(bp.s, bp.d, size));
	munmap(bp.s, size);
	munmap(bp.d, size);
}

TEST_HARNESS_MAIN
