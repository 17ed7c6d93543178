// SPDX-License-Identifier: GPL-2.0
/*
 * Integer averages, exactly: the sum wrapped modulo 2^bits as the sum
 * reduction leaves it (read as signed for the signed types), divided by
 * the number of ranks N as the integer it is, truncated toward zero.  N may
 * exceed the element type's range (u8 at 256 ranks) and the wrapped sum may
 * be the type's minimum (i8 at 128 ranks: -128 / 128 is -1).
 *
 * First the device's DIV kernel (model/ccm_div.c) for every integer dtype
 * and every divisor 1..1024 (and the largest the uapi allows) on the
 * type's extremes and random values; then average AllReduce, ReduceScatter
 * and Reduce end to end on the functional model up to 1024 ranks, on
 * inputs whose sums wrap both ways.  The references are computed here in
 * 64-bit arithmetic, independently of the model.  The float dtypes'
 * averages at the same rank counts are checked on verifiable inputs.
 */
#include "timed_world.h"
#include "tsim.h"
#include "ccm.h"
#include "ccore_verifiable.h"

#include <stdio.h>
#include <stdlib.h>

#define COUNT 37		/* elements per rank: odd, not a multiple of any N here */
#define MAX_DIVISOR 0x80000000u	/* the uapi's limit for a DIV descriptor's value */

static const enum ccore_dtype int_dtypes[] = {
	ccore_i8, ccore_u8, ccore_i32, ccore_u32, ccore_i64, ccore_u64,
};

static bool is_signed(enum ccore_dtype dt)
{
	return dt == ccore_i8 || dt == ccore_i32 || dt == ccore_i64;
}

/* @bits of @v as the dtype holds them, sign-extended for signed types. */
static uint64_t as_type(enum ccore_dtype dt, uint64_t v)
{
	unsigned int bits = 8 * (unsigned int)ccore_dtype_size(dt);

	if (bits == 64)
		return v;
	v &= (1ull << bits) - 1;
	if (is_signed(dt) && v >> (bits - 1))
		v |= ~0ull << bits;
	return v;
}

/* The exact quotient of the value @v holds (as_type()) by @n, truncated. */
static uint64_t ref_div(enum ccore_dtype dt, uint64_t v, uint64_t n)
{
	if (is_signed(dt))
		return as_type(dt, (uint64_t)((int64_t)v / (int64_t)n));
	return v / n;
}

static uint64_t load_elem(const void *buf, size_t i, enum ccore_dtype dt)
{
	size_t sz = ccore_dtype_size(dt);
	uint64_t v = 0;

	memcpy(&v, (const char *)buf + i * sz, sz);	/* little endian */
	return as_type(dt, v);
}

static void store_elem(void *buf, size_t i, enum ccore_dtype dt, uint64_t v)
{
	size_t sz = ccore_dtype_size(dt);

	memcpy((char *)buf + i * sz, &v, sz);
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* --- the DIV kernel ------------------------------------------------------- */

#define VALUES 64

TEST(div_kernel_is_the_exact_truncated_quotient)
{
	uint64_t seed = tsim_seed();
	uint8_t in[VALUES * 8], out[VALUES * 8];
	uint64_t checked = 0;

	for (size_t t = 0; t < sizeof(int_dtypes) / sizeof(int_dtypes[0]); t++) {
		enum ccore_dtype dt = int_dtypes[t];
		unsigned int bits = 8 * (unsigned int)ccore_dtype_size(dt);
		uint64_t top = 1ull << (bits - 1);	/* the signed minimum's bits */

		for (uint64_t d = 1; d <= 1024 + 2; d++) {
			uint32_t div = d <= 1024 ? (uint32_t)d :
				       d == 1025 ? MAX_DIVISOR - 1 : MAX_DIVISOR;
			/* extremes: 0, +-1, min, min + 1, max, and the divisor's neighbours */
			uint64_t fixed[] = { 0, 1, ~0ull, top, top + 1, top - 1, div, div - 1ull,
					     div + 1ull, 0ull - div, 0ull - div - 1, 2ull * div,
					     (top - 1) / div * div };

			for (size_t i = 0; i < VALUES; i++)
				store_elem(in, i, dt, i < CCM_ARRAY_SIZE(fixed) ? fixed[i] :
					   mix(seed ^ (d << 8) ^ (i << 24) ^ t));
			ccm_div((u32)dt, out, in, (u64)VALUES * ccore_dtype_size(dt), div);
			for (size_t i = 0; i < VALUES; i++) {
				uint64_t v = load_elem(in, i, dt), want = ref_div(dt, v, div);
				uint64_t got = load_elem(out, i, dt);

				if (got != want)
					FAIL("%s %#llx / %u: got %#llx, want %#llx (seed %llu)",
					     ccore_dtype_name(dt), (unsigned long long)v, div,
					     (unsigned long long)got, (unsigned long long)want,
					     (unsigned long long)seed);
				checked++;
			}
			/* in place, as the runtime's DIV steps run */
			memcpy(out, in, sizeof(in));
			ccm_div((u32)dt, out, out, (u64)VALUES * ccore_dtype_size(dt), div);
			for (size_t i = 0; i < VALUES; i++)
				ASSERT_U64_EQ(load_elem(out, i, dt),
					      ref_div(dt, load_elem(in, i, dt), div));
		}
	}
	ccore_test_log("%llu quotients checked", (unsigned long long)checked);
}

/* The cases the issue reported, spelled out. */
TEST(div_kernel_reported_cases)
{
	uint8_t u8v = 255, u8q;
	int8_t i8v = -128, i8q;

	ccm_div(DRM_CCORE_DTYPE_U8, &u8q, &u8v, 1, 256);	/* was SIGFPE */
	ASSERT_EQ(u8q, 0);
	ccm_div(DRM_CCORE_DTYPE_I8, &i8q, &i8v, 1, 128);	/* was +1 */
	ASSERT_EQ(i8q, -1);
	ccm_div(DRM_CCORE_DTYPE_I8, &i8q, &i8v, 1, 129);
	ASSERT_EQ(i8q, 0);
}

/* --- end to end ----------------------------------------------------------- */

/*
 * Rank @r's element @i: half the elements near the type's maximum, half
 * near its minimum (for unsigned types: near the top and near 0), so sums
 * wrap upwards and downwards; a few random ones.
 */
static uint64_t input(enum ccore_dtype dt, uint32_t r, size_t i)
{
	unsigned int bits = 8 * (unsigned int)ccore_dtype_size(dt);
	uint64_t top = 1ull << (bits - 1), h = mix((uint64_t)r << 32 | i);

	switch (i % 4) {
	case 0:
		return top - 1 - h % 7;			/* signed max - small */
	case 1:
		return is_signed(dt) ? top + h % 7 : h % 7;	/* signed min + small */
	case 2:
		return 0ull - 1 - h % 3;		/* -1 - small, or unsigned max - small */
	default:
		return h;
	}
}

/* The wrapped sum over @n ranks of element @i, as the type holds it. */
static uint64_t wrapped_sum(enum ccore_dtype dt, uint32_t n, size_t i)
{
	uint64_t s = 0;

	for (uint32_t r = 0; r < n; r++)
		s += input(dt, r, i);
	return as_type(dt, s);
}

enum avg_coll { AVG_ALLREDUCE, AVG_REDUCESCATTER, AVG_REDUCE };

static const char *const avg_coll_names[] = { "AllReduce", "ReduceScatter", "Reduce" };

static int avg_post(struct timed_world *w, enum avg_coll k, enum ccore_dtype dt, uint32_t r)
{
	switch (k) {
	case AVG_ALLREDUCE:
		return ccore_all_reduce(w->sb[r], w->rb[r], COUNT, dt, ccore_avg, w->c[r], NULL);
	case AVG_REDUCESCATTER:
		return ccore_reduce_scatter(w->sb[r], w->rb[r], COUNT, dt, ccore_avg, w->c[r],
					    NULL);
	default:
		return ccore_reduce(w->sb[r], w->rb[r], COUNT, dt, ccore_avg, 1, w->c[r], NULL);
	}
}

/* One average collective over every rank of @w; every output element checked. */
static void avg_run(struct timed_world *w, enum avg_coll k, enum ccore_dtype dt)
{
	uint32_t n = (uint32_t)w->n;
	size_t in_count = k == AVG_REDUCESCATTER ? (size_t)COUNT * n : COUNT;
	uint64_t *want = malloc(in_count * sizeof(*want));
	int rc;

	ASSERT_TRUE(want != NULL);
	for (uint32_t r = 0; r < n; r++) {
		void *sb = ccore_mem_host(w->c[r], w->sb[r]);

		memset(ccore_mem_host(w->c[r], w->rb[r]), 0x5c, (size_t)COUNT * 8);
		for (size_t i = 0; i < in_count; i++)
			store_elem(sb, i, dt, input(dt, r, i));
	}
	for (size_t i = 0; i < in_count; i++)
		want[i] = ref_div(dt, wrapped_sum(dt, n, i), n);
	rc = ccore_group_start();
	for (uint32_t r = 0; r < n && !rc; r++)
		rc = avg_post(w, k, dt, r);
	rc = rc ?: ccore_group_end();
	for (uint32_t r = 0; r < n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->c[r]));
	if (rc)
		FAIL("%s %s avg on %u ranks: %d: %s", avg_coll_names[k], ccore_dtype_name(dt), n, rc,
		     ccore_last_error());
	for (uint32_t r = 0; r < n; r++) {
		const void *out = ccore_mem_host(w->c[r], w->rb[r]);
		size_t first = k == AVG_REDUCESCATTER ? (size_t)r * COUNT : 0;

		if (k == AVG_REDUCE && r != 1)
			continue;
		for (size_t i = 0; i < COUNT; i++) {
			uint64_t got = load_elem(out, i, dt);

			if (got != want[first + i])
				FAIL("%s %s avg on %u ranks (%s), rank %u element %zu: got %lld (%#llx), want %lld (%#llx), wrapped sum %#llx",
				     avg_coll_names[k], ccore_dtype_name(dt), n,
				     ccore_comm_last_algo(w->c[0]), r, i, (long long)got,
				     (unsigned long long)got, (long long)want[first + i],
				     (unsigned long long)want[first + i],
				     (unsigned long long)wrapped_sum(dt, n, first + i));
		}
	}
	free(want);
}

/*
 * N ranks on one node of at most 64 devices of at most 64 ranks (the sim's
 * limits), as few ranks per device as that allows; semaphores for N ranks.
 */
static void avg_world(struct timed_world *w, uint32_t n, size_t bytes)
{
	uint32_t per_dev = 1;
	struct ccore_topology t;
	char sim[64];

	while (per_dev <= 64 && (n % per_dev || n / per_dev > 64))
		per_dev++;
	if (per_dev > 64)
		FAIL("%u ranks do not fit one node of 64 devices of 64 ranks", n);
	t = (struct ccore_topology){ 1, n / per_dev, per_dev };
	snprintf(sim, sizeof(sim), "sems=%u", 2 * n + 64);
	timed_world_open(w, &t, sim, bytes);
}

/*
 * Float averages on the verifiable inputs (sums of 0..2 per rank): the
 * device's sum is exact where the dtype holds every partial sum (f16 up to
 * 2048, bf16 up to 256), and the division by a large N as well.
 */
static void avg_run_float(struct timed_world *w, enum ccore_dtype dt)
{
	int rc = ccore_group_start();

	for (int r = 0; r < w->n; r++)
		ccore_verifiable_fill(ccore_mem_host(w->c[r], w->sb[r]), COUNT, dt, ccore_avg, r,
				      0);
	for (int r = 0; r < w->n && !rc; r++)
		rc = ccore_all_reduce(w->sb[r], w->rb[r], COUNT, dt, ccore_avg, w->c[r], NULL);
	rc = rc ?: ccore_group_end();
	for (int r = 0; r < w->n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->c[r]));
	if (rc)
		FAIL("AllReduce %s avg on %d ranks: %d: %s", ccore_dtype_name(dt), w->n, rc,
		     ccore_last_error());
	for (int r = 0; r < w->n; r++) {
		const void *out = ccore_mem_host(w->c[r], w->rb[r]);
		long wrong = ccore_verifiable_check_reduced(out, COUNT, dt, ccore_avg, w->n, 0);

		if (wrong)
			FAIL("AllReduce %s avg on %d ranks (%s): rank %d has %ld wrong elements",
			     ccore_dtype_name(dt), w->n, ccore_comm_last_algo(w->c[0]), r, wrong);
	}
}

static struct timed_world world;

TEST(avg_every_dtype_up_to_1024_ranks)
{
	/* around 2^7, 2^8 and 2^10 (primes past 64 do not fit the sim's limits) */
	static const uint32_t ranks[] = { 2, 3, 7, 126, 128, 129, 255, 256, 258, 1024 };

	for (size_t ni = 0; ni < sizeof(ranks) / sizeof(ranks[0]); ni++) {
		uint32_t n = ranks[ni];
		s64 t0 = ccm_now_ns();

		avg_world(&world, n, (size_t)COUNT * 8 * n);
		for (size_t t = 0; t < sizeof(int_dtypes) / sizeof(int_dtypes[0]); t++) {
			avg_run(&world, AVG_ALLREDUCE, int_dtypes[t]);
			/* the other reducing collectives divide the same way */
			if (n == 3 || n == 128)
				for (int k = AVG_REDUCESCATTER; k <= AVG_REDUCE; k++)
					avg_run(&world, (enum avg_coll)k, int_dtypes[t]);
		}
		avg_run_float(&world, ccore_f16);
		avg_run_float(&world, ccore_f32);
		avg_run_float(&world, ccore_f64);
		if (n <= 128)
			avg_run_float(&world, ccore_bf16);
		timed_world_close(&world);
		ccore_test_log("%u ranks: %.2f s", n, (double)(ccm_now_ns() - t0) / 1e9);
	}
}
