// SPDX-License-Identifier: MIT
/*
 * Verifiable inputs, as nccl-tests uses: values chosen per reduce op so that
 * every dtype represents every partial result exactly (sums of 0..2 per
 * rank, products of +-1, max/min of small integers), so checks are exact.
 * Element i of rank r's input depends on (r, first + i) only.
 */
#include "ccore_verifiable.h"
#include "util/half.h"

#include <stdbool.h>
#include <string.h>

static bool is_unsigned(enum ccore_dtype dt)
{
	return dt == ccore_u8 || dt == ccore_u32 || dt == ccore_u64;
}

static double input(enum ccore_redop op, enum ccore_dtype dt, int rank, size_t i)
{
	switch (op) {
	case ccore_prod:
		/* -1 wraps for unsigned types, and so do its products: still exact */
		return (i + (size_t)rank) % 5 == 0 ? -1 : 1;
	case ccore_max:
	case ccore_min:
		/* comparisons need values inside the type's own range */
		return (double)((i * 7 + (size_t)rank * 13) % 50) - (is_unsigned(dt) ? 0 : 25);
	default:
		return (double)((i + 3 * (size_t)rank) % 3);
	}
}

static void store(void *buf, size_t i, enum ccore_dtype dt, double v)
{
	char *p = (char *)buf + i * ccore_dtype_size(dt);

	switch (dt) {
	/* integers wrap as the device's do: through int64_t, never an
	 * out-of-range (undefined) double conversion */
	case ccore_i8: { int8_t x = (int8_t)(int64_t)v; memcpy(p, &x, 1); break; }
	case ccore_u8: { uint8_t x = (uint8_t)(int64_t)v; memcpy(p, &x, 1); break; }
	case ccore_i32: { int32_t x = (int32_t)(int64_t)v; memcpy(p, &x, 4); break; }
	case ccore_u32: { uint32_t x = (uint32_t)(int64_t)v; memcpy(p, &x, 4); break; }
	case ccore_i64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
	case ccore_u64: { uint64_t x = (uint64_t)(int64_t)v; memcpy(p, &x, 8); break; }
	case ccore_f16: { uint16_t x = rt_f32_to_f16((float)v); memcpy(p, &x, 2); break; }
	case ccore_bf16: { uint16_t x = rt_f32_to_bf16((float)v); memcpy(p, &x, 2); break; }
	case ccore_f32: { float x = (float)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

/* The stored value of @v in @dt, read back as a double. */
static double stored(enum ccore_dtype dt, double v)
{
	char tmp[8];

	store(tmp, 0, dt, v);
	switch (dt) {
	case ccore_i8: return *(int8_t *)tmp;
	case ccore_u8: return *(uint8_t *)tmp;
	case ccore_i32: { int32_t x; memcpy(&x, tmp, 4); return x; }
	case ccore_u32: { uint32_t x; memcpy(&x, tmp, 4); return x; }
	case ccore_i64: { int64_t x; memcpy(&x, tmp, 8); return (double)x; }
	case ccore_u64: { uint64_t x; memcpy(&x, tmp, 8); return (double)x; }
	case ccore_f16: { uint16_t x; memcpy(&x, tmp, 2); return rt_f16_to_f32(x); }
	case ccore_bf16: { uint16_t x; memcpy(&x, tmp, 2); return rt_bf16_to_f32(x); }
	case ccore_f32: { float x; memcpy(&x, tmp, 4); return x; }
	default: { double x; memcpy(&x, tmp, 8); return x; }
	}
}

static double load(const void *buf, size_t i, enum ccore_dtype dt)
{
	double v;
	const char *p = (const char *)buf + i * ccore_dtype_size(dt);
	char tmp[8];

	memcpy(tmp, p, ccore_dtype_size(dt));
	switch (dt) {
	case ccore_i8: v = *(int8_t *)tmp; break;
	case ccore_u8: v = *(uint8_t *)tmp; break;
	case ccore_i32: { int32_t x; memcpy(&x, tmp, 4); v = x; break; }
	case ccore_u32: { uint32_t x; memcpy(&x, tmp, 4); v = x; break; }
	case ccore_i64: { int64_t x; memcpy(&x, tmp, 8); v = (double)x; break; }
	case ccore_u64: { uint64_t x; memcpy(&x, tmp, 8); v = (double)x; break; }
	case ccore_f16: { uint16_t x; memcpy(&x, tmp, 2); v = rt_f16_to_f32(x); break; }
	case ccore_bf16: { uint16_t x; memcpy(&x, tmp, 2); v = rt_bf16_to_f32(x); break; }
	case ccore_f32: { float x; memcpy(&x, tmp, 4); v = x; break; }
	default: memcpy(&v, tmp, 8); break;
	}
	return v;
}

/* The average as the device computes it: the exact sum, divided in the
 * dtype's own arithmetic (f16/bf16 divide in f32); integers divide the sum
 * as the type holds it (wrapped) by N, truncating. */
static double average(enum ccore_dtype dt, double sum, int n)
{
	switch (dt) {
	case ccore_f64:
		return sum / n;
	case ccore_f32:
	case ccore_f16:
	case ccore_bf16:
		return (double)((float)sum / (float)n);
	default:
		return (double)((int64_t)stored(dt, sum) / n);
	}
}

void ccore_verifiable_fill(void *buf, size_t count, enum ccore_dtype dt, enum ccore_redop op, int rank,
		size_t first)
{
	for (size_t i = 0; i < count; i++)
		store(buf, i, dt, input(op, dt, rank, first + i));
}

long ccore_verifiable_check_reduced(const void *buf, size_t count, enum ccore_dtype dt,
			 enum ccore_redop op, int nranks, size_t first)
{
	long wrong = 0;

	for (size_t i = 0; i < count; i++) {
		double want = input(op, dt, 0, first + i);

		for (int r = 1; r < nranks; r++) {
			double x = input(op, dt, r, first + i);

			want = op == ccore_prod ? want * x : op == ccore_max ? (x > want ? x : want) :
			       op == ccore_min ? (x < want ? x : want) : want + x;
		}
		if (op == ccore_avg)
			want = average(dt, want, nranks);
		wrong += load(buf, i, dt) != stored(dt, want);
	}
	return wrong;
}

long ccore_verifiable_check_from(const void *buf, size_t count, enum ccore_dtype dt, enum ccore_redop op,
		      int rank, size_t first)
{
	long wrong = 0;

	for (size_t i = 0; i < count; i++)
		wrong += load(buf, i, dt) != stored(dt, input(op, dt, rank, first + i));
	return wrong;
}
