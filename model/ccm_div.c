// SPDX-License-Identifier: GPL-2.0
/*
 * DIV descriptors: dst[i] = src[i] / divisor, the last step of an average
 * (a sum, then a division by the number of ranks).  Integers truncate toward
 * zero, as C and nccl's integer average do; f16 and bf16 divide in f32 and
 * round back to nearest even.  Same constraints as ccm_reduce.c: unaligned
 * pointers, dst may alias src, no libc.
 */
#include "ccm.h"

#define DIV_INT(T, dst, src, n, d)                                             \
	do {                                                                   \
		for (u64 i_ = 0; i_ < (n); i_++) {                             \
			T v_;                                                  \
			__builtin_memcpy(&v_, (const u8 *)(src) + i_ * sizeof(T), sizeof(T)); \
			v_ = (T)(v_ / (T)(d));                                 \
			__builtin_memcpy((u8 *)(dst) + i_ * sizeof(T), &v_, sizeof(T)); \
		}                                                              \
	} while (0)

#define DIV_FLOAT(T, dst, src, n, d)                                           \
	do {                                                                   \
		for (u64 i_ = 0; i_ < (n); i_++) {                             \
			T v_;                                                  \
			__builtin_memcpy(&v_, (const u8 *)(src) + i_ * sizeof(T), sizeof(T)); \
			v_ = v_ / (T)(d);                                      \
			__builtin_memcpy((u8 *)(dst) + i_ * sizeof(T), &v_, sizeof(T)); \
		}                                                              \
	} while (0)

static void div_half(bool bf16, void *dst, const void *src, u64 n, u32 d)
{
	for (u64 i = 0; i < n; i++) {
		u16 h;
		float f;

		__builtin_memcpy(&h, (const u8 *)src + 2 * i, 2);
		f = (bf16 ? ccm_bf16_to_f32(h) : ccm_f16_to_f32(h)) / (float)d;
		h = bf16 ? ccm_f32_to_bf16(f) : ccm_f32_to_f16(f);
		__builtin_memcpy((u8 *)dst + 2 * i, &h, 2);
	}
}

void ccm_div(u32 dtype, void *dst, const void *src, u64 bytes, u32 divisor)
{
	u32 size = ccm_dtype_size(dtype);
	u64 n;

	if (!size || !divisor)
		return;
	n = bytes / size;
	switch (dtype) {
	case DRM_CCORE_DTYPE_I8: DIV_INT(s8, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_U8: DIV_INT(u8, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_I32: DIV_INT(s32, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_U32: DIV_INT(u32, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_I64: DIV_INT(s64, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_U64: DIV_INT(u64, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_F16: div_half(false, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_BF16: div_half(true, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_F32: DIV_FLOAT(float, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_F64: DIV_FLOAT(double, dst, src, n, divisor); break;
	default: break;
	}
}
