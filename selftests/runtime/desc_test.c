// SPDX-License-Identifier: GPL-2.0
/*
 * Every descriptor op through a DMA engine of the model: REDUCE for every
 * dtype x reduce op against a scalar reference written here (independent
 * of the model's kernels), COPY, SEM_WRITE set/add, completion signals, and
 * transfers across devices over the links.  Small packets and unaligned
 * addresses make every descriptor span many packets.
 */
#include "tsim.h"
#include "util/float_bits.h"

#include <math.h>
#include <unistd.h>

#define COUNT 1001
#define SPAN 65536

static struct tsim t;
static struct ccore_dev *d0, *d1;

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static float rnd_float(void)
{
	/* values with few significant bits, both signs, some zeros */
	return (float)((int64_t)(rnd() % 4001) - 2000) / 16.0f;
}

static uint16_t ref_bf16(float f)
{
	uint32_t u = f32_bits(f);

	if ((u & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((u >> 16) | 0x40);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

static float ref_bf16_f(uint16_t h)
{
	return f32_from_bits((uint32_t)h << 16);
}

#define ARITH(a, b, op)                                                        \
	((op) == DRM_CCORE_REDOP_SUM ? (a) + (b) :                             \
	 (op) == DRM_CCORE_REDOP_PROD ? (a) * (b) :                            \
	 (op) == DRM_CCORE_REDOP_MAX ? ((a) > (b) ? (a) : (b)) : ((a) < (b) ? (a) : (b)))

/* One element of the reference: wrap for integers, IEEE for floats. */
static void ref_elem(uint32_t dt, uint32_t op, void *dst, const void *pa, const void *pb)
{
	switch (dt) {
#define INT_CASE(DT, T, U)                                                     \
	case DT: {                                                             \
		T a, b, r;                                                     \
		memcpy(&a, pa, sizeof(a));                                     \
		memcpy(&b, pb, sizeof(b));                                     \
		if (op == DRM_CCORE_REDOP_SUM)                                 \
			r = (T)((U)a + (U)b);                                  \
		else if (op == DRM_CCORE_REDOP_PROD)                           \
			r = (T)((U)a * (U)b);                                  \
		else                                                           \
			r = ARITH(a, b, op);                                   \
		memcpy(dst, &r, sizeof(r));                                    \
		break;                                                         \
	}
	INT_CASE(DRM_CCORE_DTYPE_I8, int8_t, uint32_t)
	INT_CASE(DRM_CCORE_DTYPE_U8, uint8_t, uint32_t)
	INT_CASE(DRM_CCORE_DTYPE_I32, int32_t, uint32_t)
	INT_CASE(DRM_CCORE_DTYPE_U32, uint32_t, uint32_t)
	INT_CASE(DRM_CCORE_DTYPE_I64, int64_t, uint64_t)
	INT_CASE(DRM_CCORE_DTYPE_U64, uint64_t, uint64_t)
	case DRM_CCORE_DTYPE_F16: {
		_Float16 a, b, r;

		memcpy(&a, pa, 2);
		memcpy(&b, pb, 2);
		r = (_Float16)ARITH((float)a, (float)b, op);
		memcpy(dst, &r, 2);
		break;
	}
	case DRM_CCORE_DTYPE_BF16: {
		uint16_t a, b, r;

		memcpy(&a, pa, 2);
		memcpy(&b, pb, 2);
		r = ref_bf16(ARITH(ref_bf16_f(a), ref_bf16_f(b), op));
		memcpy(dst, &r, 2);
		break;
	}
	case DRM_CCORE_DTYPE_F32: {
		float a, b, r;

		memcpy(&a, pa, 4);
		memcpy(&b, pb, 4);
		r = ARITH(a, b, op);
		memcpy(dst, &r, 4);
		break;
	}
	default: {
		double a, b, r;

		memcpy(&a, pa, 8);
		memcpy(&b, pb, 8);
		r = ARITH(a, b, op);
		memcpy(dst, &r, 8);
		break;
	}
	}
}

static void fill(uint32_t dt, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		float f = rnd_float();
		uint64_t bits = rnd();

		switch (dt) {
		case DRM_CCORE_DTYPE_F16: { _Float16 h = (_Float16)(f / 8); memcpy(p + 2 * i, &h, 2); break; }
		case DRM_CCORE_DTYPE_BF16: { uint16_t h = ref_bf16(f); memcpy(p + 2 * i, &h, 2); break; }
		case DRM_CCORE_DTYPE_F32: memcpy(p + 4 * i, &f, 4); break;
		case DRM_CCORE_DTYPE_F64: { double x = (double)f * 1.000001; memcpy(p + 8 * i, &x, 8); break; }
		default: memcpy(p + ccm_dtype_size(dt) * i, &bits, ccm_dtype_size(dt)); break;
		}
	}
}

TEST(reduce_every_dtype_and_op_matches_reference)
{
	uint32_t h[3], ring, sem, done = 0;
	uint64_t va[3];
	uint8_t *p[3], *want = malloc(SPAN);
	const size_t skew[3] = { 3, 1, 6 };	/* unaligned on purpose */

	rng_state = tsim_seed() | 1;
	tsim_open(&t, "devices=1,cores=2,workers=2");
	d0 = t.dev[0];
	for (int i = 0; i < 3; i++)
		p[i] = tsim_bo(d0, SPAN, &h[i], &va[i]);
	ring = tsim_ring(d0, 1, 1, 7, 1, 512);
	sem = tsim_sem(d0, 1, 1);
	for (uint32_t dt = DRM_CCORE_DTYPE_I8; dt <= DRM_CCORE_DTYPE_F64; dt++) {
		for (uint32_t op = DRM_CCORE_REDOP_SUM; op <= DRM_CCORE_REDOP_MIN; op++) {
			uint32_t sz = ccm_dtype_size(dt);
			struct drm_ccore_desc d = {
				.op = DRM_CCORE_DESC_REDUCE, .dtype = (uint8_t)dt, .redop = (uint8_t)op,
				.flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = sem, .signal_value = 1,
				.len = (uint64_t)COUNT * sz, .dst = va[2] + skew[2],
				.src0 = va[0] + skew[0], .src1 = va[1] + skew[1],
			};
			uint32_t r2;

			fill(dt, p[0] + skew[0], COUNT);
			fill(dt, p[1] + skew[1], COUNT);
			memset(p[2], 0xcd, SPAN);
			for (size_t i = 0; i < COUNT; i++)
				ref_elem(dt, op, want + i * sz, p[0] + skew[0] + i * sz,
					 p[1] + skew[1] + i * sz);
			/* each combination gets a fresh one-slot ring */
			ASSERT_EQ(ccore_dev_ring_destroy(d0, ring), 0);
			r2 = tsim_ring(d0, 1, 1, 7, 1, 512);
			ring = r2;
			ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
			ASSERT_EQ(ccore_dev_sem_wait(d0, sem, ++done, 10 * TSIM_SEC), 0);
			if (memcmp(p[2] + skew[2], want, (size_t)COUNT * sz)) {
				for (size_t i = 0; i < (size_t)COUNT * sz; i++)
					if (p[2][skew[2] + i] != want[i])
						FAIL("%s %s: byte %zu (element %zu) is 0x%02x, want 0x%02x",
						     ccm_dtype_name(dt), ccm_redop_name(op), i, i / sz,
						     p[2][skew[2] + i], want[i]);
			}
			/* guard bytes on both sides */
			ASSERT_EQ(p[2][skew[2] - 1], 0xcd);
			ASSERT_EQ(p[2][skew[2] + COUNT * sz], 0xcd);
		}
	}
	free(want);
	tsim_close(&t);
}

TEST(reduce_in_place_aliases_dst_and_src)
{
	uint32_t h, ring, sem;
	uint64_t va;
	float *p;

	tsim_open(&t, "devices=1,cores=1");
	d0 = t.dev[0];
	p = tsim_bo(d0, 8192, &h, &va);
	for (int i = 0; i < 1024; i++)
		p[i] = (float)i, p[1024 + i] = 0.5f;
	ring = tsim_ring(d0, 0, 0, 0, 1, 512);
	sem = tsim_sem(d0, 0, 1);
	struct drm_ccore_desc d = {
		.op = DRM_CCORE_DESC_REDUCE, .dtype = DRM_CCORE_DTYPE_F32, .redop = DRM_CCORE_REDOP_SUM,
		.flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = sem, .signal_value = 1,
		.len = 4096, .dst = va, .src0 = va, .src1 = va + 4096,
	};
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	ASSERT_EQ(ccore_dev_sem_wait(d0, sem, 1, 10 * TSIM_SEC), 0);
	for (int i = 0; i < 1024; i++)
		ASSERT_TRUE(p[i] == (float)i + 0.5f);
	tsim_close(&t);
}

TEST(copy_and_sem_write_and_signals)
{
	uint32_t h[2], ring, s;
	uint64_t va[2];
	uint8_t *p[2];

	tsim_open(&t, "devices=1,cores=1");
	d0 = t.dev[0];
	p[0] = tsim_bo(d0, 100000, &h[0], &va[0]);
	p[1] = tsim_bo(d0, 100000, &h[1], &va[1]);
	for (int i = 0; i < 100000; i++)
		p[0][i] = (uint8_t)(i * 7);
	s = tsim_sem(d0, 0, 3);
	ring = tsim_ring(d0, 0, 2, 2, 8, 0);
	struct drm_ccore_desc d[4] = {
		{ .op = DRM_CCORE_DESC_COPY, .len = 99999, .dst = va[1] + 1, .src0 = va[0],
		  .flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = s, .signal_value = 5 },
		{ .op = DRM_CCORE_DESC_SEM_WRITE, .dst = s + 1, .value = 40,
		  .flags = DRM_CCORE_DESC_F_SEM_SET },
		{ .op = DRM_CCORE_DESC_SEM_WRITE, .dst = s + 1, .value = 2 },
		{ .op = DRM_CCORE_DESC_SEM_WRITE, .dst = s + 2, .value = 1,
		  .flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = s + 2, .signal_value = 10 },
	};
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, d, 4, DRM_CCORE_SUBMIT_F_START), 0);
	ASSERT_EQ(ccore_dev_sem_wait(d0, s + 2, 11, 10 * TSIM_SEC), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 5);
	ASSERT_EQ(tsim_sem_value(d0, s + 1), 42);	/* set 40, then add 2, in ring order */
	ASSERT_EQ(p[1][0], 0);
	ASSERT_MEM_EQ(p[1] + 1, p[0], 99999);
	tsim_close(&t);
}

TEST(cross_device_reduce_and_signal_use_the_links)
{
	struct ccm_link_stats l0, l1;
	uint32_t ha, hb, hbi, ring, s1;
	uint64_t va, vb, vbi;
	int32_t *a, *b;

	tsim_open(&t, "devices=2,cores=1");
	d0 = t.dev[0];
	d1 = t.dev[1];
	a = tsim_bo(d0, 4096, &ha, &va);
	b = tsim_bo(d1, 4096, &hb, &vb);
	for (int i = 0; i < 1024; i++)
		a[i] = i, b[i] = 1000 * i;
	/* device 0's engine reduces its buffer into device 1's and signals it */
	ASSERT_EQ(ccore_dev_bo_import(d0, d1, hb, &hbi, &vbi), 0);
	s1 = tsim_sem(d1, 0, 1);
	ASSERT_EQ(ccore_dev_sem_import(d0, d1, s1), 0);
	ring = tsim_ring(d0, 0, 0, 0, 1, 1024);
	struct drm_ccore_desc d = {
		.op = DRM_CCORE_DESC_REDUCE, .dtype = DRM_CCORE_DTYPE_I32, .redop = DRM_CCORE_REDOP_SUM,
		.len = 4096, .dst = vbi, .src0 = vbi, .src1 = va,
		.flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = s1, .signal_value = 1,
	};
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	ASSERT_EQ(ccore_dev_sem_wait(d1, s1, 1, 10 * TSIM_SEC), 0);
	for (int i = 0; i < 1024; i++)
		ASSERT_EQ(b[i], 1001 * i);
	ccm_link_stats(t.f, 0, &l0);
	ccm_link_stats(t.f, 1, &l1);
	/* device 0's engine read device 1's operand and wrote device 1's result */
	ASSERT_U64_EQ(l1.bytes_out[CCM_TIER_DEVICE], 4096);
	ASSERT_U64_EQ(l1.bytes_in[CCM_TIER_DEVICE], 4096);
	ASSERT_U64_EQ(l0.bytes_in[CCM_TIER_DEVICE], 4096);
	ASSERT_U64_EQ(l0.bytes_out[CCM_TIER_DEVICE], 4096);
	ASSERT_U64_EQ(l0.bytes_out[CCM_TIER_NODE], 0);
	/* the importer sees the exporter's buffer on the exporter's device */
	struct drm_ccore_bo_info info = { .handle = hbi };
	ASSERT_EQ(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_BO_INFO, &info), 0);
	ASSERT_EQ(info.device_index, 1);
	tsim_close(&t);
}

TEST(buffer_closed_under_a_ring_stays_alive_for_it)
{
	uint32_t h[2], ring, sem, p;
	uint64_t va[2];

	tsim_open(&t, "devices=1,cores=1");
	d0 = t.dev[0];
	tsim_bo(d0, 4096, &h[0], &va[0]);
	tsim_bo(d0, 4096, &h[1], &va[1]);
	sem = tsim_sem(d0, 0, 1);
	ring = tsim_ring(d0, 0, 0, 0, 1, 0);
	struct drm_ccore_desc d = {
		.op = DRM_CCORE_DESC_COPY, .len = 4096, .dst = va[1], .src0 = va[0],
		.flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = sem, .signal_value = 1,
	};
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, 0), 0);
	/* closing the handles must not free memory the ring still reaches */
	ASSERT_EQ(ccore_dev_bo_close(d0, h[0]), 0);
	ASSERT_EQ(ccore_dev_bo_close(d0, h[1]), 0);
	p = tsim_load(d0, 0, "start ring(0,0), 1\nrwait ring(0,0)\nret\n");
	ASSERT_EQ(tsim_run(d0, p), 0);
	ASSERT_EQ(tsim_sem_value(d0, sem), 1);
	ASSERT_EQ(ccm_device_mem_used(t.f, 0), 8192);
	ASSERT_EQ(ccore_dev_program_free(d0, p), 0);
	ASSERT_EQ(ccore_dev_ring_destroy(d0, ring), 0);
	ASSERT_EQ(ccm_device_mem_used(t.f, 0), 0);
	tsim_close(&t);
}

/*
 * Sharing a buffer with another device's context exports it and imports
 * the export; like a process closing the dma-buf fd, the sharing drops the
 * export, so the memory goes with the last handle: plans that import
 * their peers' scratch and are evicted give it back.
 */
TEST(shared_memory_goes_with_the_last_handle)
{
	uint32_t h, imp, imp2;
	uint64_t va, iva;

	tsim_open(&t, "devices=2,cores=1");
	tsim_bo(t.dev[0], 1 << 20, &h, &va);
	ASSERT_EQ(ccore_dev_bo_import(t.dev[1], t.dev[0], h, &imp, &iva), 0);
	ASSERT_EQ(ccore_dev_bo_import(t.dev[1], t.dev[0], h, &imp2, &iva), 0);
	ASSERT_EQ(ccm_device_mem_used(t.f, 0), 1 << 20);
	ASSERT_EQ(ccore_dev_bo_close(t.dev[0], h), 0);
	ASSERT_EQ(ccore_dev_bo_close(t.dev[1], imp), 0);
	ASSERT_EQ(ccm_device_mem_used(t.f, 0), 1 << 20);	/* imp2 still holds it */
	ASSERT_EQ(ccore_dev_bo_close(t.dev[1], imp2), 0);
	ASSERT_EQ(ccm_device_mem_used(t.f, 0), 0);
	tsim_close(&t);
}

TEST(div_every_dtype)
{
	uint32_t h, ring, sem, done = 0;
	uint64_t va;
	uint8_t *p;

	tsim_open(&t, "devices=1,cores=1");
	d0 = t.dev[0];
	p = tsim_bo(d0, 4096, &h, &va);
	ring = tsim_ring(d0, 0, 0, 0, 1, 512);
	sem = tsim_sem(d0, 0, 1);
	for (uint32_t dt = DRM_CCORE_DTYPE_I8; dt <= DRM_CCORE_DTYPE_F64; dt++) {
		uint32_t sz = ccm_dtype_size(dt);
		struct drm_ccore_desc d = {
			.op = DRM_CCORE_DESC_DIV, .dtype = (uint8_t)dt, .value = 3,
			.flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = sem, .signal_value = 1,
			.len = 100 * sz, .dst = va + 2048, .src0 = va + 1,
		};

		for (int i = 0; i < 100; i++) {
			double v = dt == DRM_CCORE_DTYPE_U8 || dt == DRM_CCORE_DTYPE_U32 ||
				   dt == DRM_CCORE_DTYPE_U64 ? i : i - 50;
			uint8_t tmp[8];

			switch (dt) {
			case DRM_CCORE_DTYPE_I8: { int8_t x = (int8_t)v; memcpy(tmp, &x, 1); break; }
			case DRM_CCORE_DTYPE_U8: { uint8_t x = (uint8_t)v; memcpy(tmp, &x, 1); break; }
			case DRM_CCORE_DTYPE_I32: { int32_t x = (int32_t)v; memcpy(tmp, &x, 4); break; }
			case DRM_CCORE_DTYPE_U32: { uint32_t x = (uint32_t)v; memcpy(tmp, &x, 4); break; }
			case DRM_CCORE_DTYPE_I64: { int64_t x = (int64_t)v; memcpy(tmp, &x, 8); break; }
			case DRM_CCORE_DTYPE_U64: { uint64_t x = (uint64_t)v; memcpy(tmp, &x, 8); break; }
			case DRM_CCORE_DTYPE_F16: { _Float16 x = (_Float16)v; memcpy(tmp, &x, 2); break; }
			case DRM_CCORE_DTYPE_BF16: { uint16_t x = ref_bf16((float)v); memcpy(tmp, &x, 2); break; }
			case DRM_CCORE_DTYPE_F32: { float x = (float)v; memcpy(tmp, &x, 4); break; }
			default: memcpy(tmp, &v, 8); break;
			}
			memcpy(p + 1 + i * sz, tmp, sz);
		}
		ASSERT_EQ(ccore_dev_ring_destroy(d0, ring), 0);
		ring = tsim_ring(d0, 0, 0, 0, 1, 512);
		ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
		ASSERT_EQ(ccore_dev_sem_wait(d0, sem, ++done, 10 * TSIM_SEC), 0);
		for (int i = 0; i < 100; i++) {
			double v = dt == DRM_CCORE_DTYPE_U8 || dt == DRM_CCORE_DTYPE_U32 ||
				   dt == DRM_CCORE_DTYPE_U64 ? i : i - 50, got, want;
			uint8_t *q = p + 2048 + i * sz;

			switch (dt) {
			case DRM_CCORE_DTYPE_I8: got = *(int8_t *)q; want = (int)v / 3; break;
			case DRM_CCORE_DTYPE_U8: got = *q; want = (int)v / 3; break;
			case DRM_CCORE_DTYPE_I32: { int32_t x; memcpy(&x, q, 4); got = x; want = (int)v / 3; break; }
			case DRM_CCORE_DTYPE_U32: { uint32_t x; memcpy(&x, q, 4); got = x; want = (int)v / 3; break; }
			case DRM_CCORE_DTYPE_I64: { int64_t x; memcpy(&x, q, 8); got = (double)x; want = (int)v / 3; break; }
			case DRM_CCORE_DTYPE_U64: { uint64_t x; memcpy(&x, q, 8); got = (double)x; want = (int)v / 3; break; }
			case DRM_CCORE_DTYPE_F16: { _Float16 x; memcpy(&x, q, 2); got = x; want = (_Float16)((float)v / 3.0f); break; }
			case DRM_CCORE_DTYPE_BF16: { uint16_t x; memcpy(&x, q, 2); got = ref_bf16_f(x); want = ref_bf16_f(ref_bf16((float)v / 3.0f)); break; }
			case DRM_CCORE_DTYPE_F32: { float x; memcpy(&x, q, 4); got = x; want = (float)v / 3.0f; break; }
			default: { double x; memcpy(&x, q, 8); got = x; want = v / 3; break; }
			}
			if (got != want)
				FAIL("%s: %g / 3 gave %g, want %g", ccm_dtype_name(dt), v, got, want);
		}
	}
	tsim_close(&t);
}

TEST(dma_started_by_the_host_completes_without_a_wait)
{
	uint32_t h[2], ring;
	uint64_t va[2];
	uint8_t *p[2];
	s64 deadline;

	/* one worker asleep; the host starts a small copy and only polls */
	tsim_open(&t, "devices=1,cores=1,workers=1");
	d0 = t.dev[0];
	p[0] = tsim_bo(d0, 4096, &h[0], &va[0]);
	p[1] = tsim_bo(d0, 4096, &h[1], &va[1]);
	memset(p[0], 0x3c, 4096);
	ring = tsim_ring(d0, 0, 0, 0, 1, 512);
	usleep(50000);	/* let the worker fall asleep */
	struct drm_ccore_desc d = { .op = DRM_CCORE_DESC_COPY, .len = 4096, .dst = va[1],
				    .src0 = va[0] };
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	deadline = ccm_now_ns() + TSIM_SEC;
	while (!ccm_ring_idle(t.f, 0, 0, 0, 0) && ccm_now_ns() < deadline)
		usleep(100);
	ASSERT_TRUE(ccm_ring_idle(t.f, 0, 0, 0, 0));
	ASSERT_EQ(p[1][4095], 0x3c);
	tsim_close(&t);
}
