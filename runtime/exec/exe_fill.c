// SPDX-License-Identifier: MIT
/* A tensor's initial contents on one rank (enum ccore_exe_init). */
#include "exec/exe.h"
#include "ccore_verifiable.h"
#include "util/half.h"

#include <string.h>

/*
 * index: element i of rank r is r * elements + i, wrapped to the type:
 * modulo 2^bits for integers, modulo 2^(significand bits) for floating
 * point so that every value is exact (2^11 f16, 2^8 bf16, 2^24 f32, 2^53 f64).
 */
static void fill_index(void *buf, uint64_t n, uint32_t dtype, uint32_t rank)
{
	uint8_t *p = buf;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = (uint64_t)rank * n + i;

		switch (dtype) {
		case ccore_i8: case ccore_u8: { uint8_t x = (uint8_t)v; memcpy(p + i, &x, 1); break; }
		case ccore_i32: case ccore_u32: { uint32_t x = (uint32_t)v; memcpy(p + 4 * i, &x, 4); break; }
		case ccore_i64: case ccore_u64: memcpy(p + 8 * i, &v, 8); break;
		case ccore_f16: { uint16_t x = rt_f32_to_f16((float)(v % 2048)); memcpy(p + 2 * i, &x, 2); break; }
		case ccore_bf16: { uint16_t x = rt_f32_to_bf16((float)(v % 256)); memcpy(p + 2 * i, &x, 2); break; }
		case ccore_f32: { float x = (float)(v % (1u << 24)); memcpy(p + 4 * i, &x, 4); break; }
		default: { double x = (double)(v % (1ull << 53)); memcpy(p + 8 * i, &x, 8); break; }
		}
	}
}

void ccore_exe_fill(const struct ccore_exe_tensor *t, uint32_t rank, void *buf)
{
	size_t dsize = t->dtype ? ccore_dtype_size((enum ccore_dtype)t->dtype) : 1;

	switch (t->init) {
	case CCORE_EXE_INIT_PATTERN:
		ccore_verifiable_fill(buf, (size_t)(t->bytes / dsize), (enum ccore_dtype)t->dtype,
				      (enum ccore_redop)t->redop, (int)rank, 0);
		break;
	case CCORE_EXE_INIT_INDEX:
		fill_index(buf, t->bytes / dsize, t->dtype, rank);
		break;
	default:
		memset(buf, 0, (size_t)t->bytes);
		break;
	}
}
