// SPDX-License-Identifier: GPL-2.0
/*
 * DIV descriptors: dst[i] = src[i] / divisor, the last step of an average
 * (a sum, then a division by the number of ranks).  f16 and bf16 divide in
 * f32 and round back to nearest even.  Same constraints as ccm_reduce.c:
 * unaligned pointers, dst may alias src, no libc.
 *
 * Integers: the element as its type holds it (for an average, the sum
 * wrapped modulo 2^bits, read as signed for the signed types) divided by
 * the divisor as the exact integer it is, truncated toward zero, as C and
 * nccl's integer average do.  The divisor (1..2^31) never narrows to the
 * element type (256 as a u8 is 0), and signed elements divide by their
 * magnitude in unsigned arithmetic, so neither -2^63 nor a divisor above
 * the type's range can overflow: a divisor larger than the magnitude gives
 * 0.  Division stays 32-bit for the narrow types; 64-bit elements go
 * through ccm_div64_u32() (div_u64() in the kernel, which has no 64-bit
 * division on 32-bit hosts).
 */
#include "ccm.h"

static inline u32 div32(u32 a, u32 b)
{
	return a / b;
}

static inline u64 div64(u64 a, u32 b)
{
	return ccm_div64_u32(a, b);
}

/* T: element type, U: its unsigned working type (u32 or u64), DIV(U, u32). */
#define DIV_UNSIGNED(T, U, DIV, dst, src, n, d)                                \
	do {                                                                   \
		for (u64 i_ = 0; i_ < (n); i_++) {                             \
			T v_;                                                  \
			__builtin_memcpy(&v_, (const u8 *)(src) + i_ * sizeof(T), sizeof(T)); \
			v_ = (T)DIV((U)v_, (d));                               \
			__builtin_memcpy((u8 *)(dst) + i_ * sizeof(T), &v_, sizeof(T)); \
		}                                                              \
	} while (0)

/* The magnitude's quotient, negated back in U: -2^(bits-1) / 1 stays exact. */
#define DIV_SIGNED(T, U, DIV, dst, src, n, d)                                  \
	do {                                                                   \
		for (u64 i_ = 0; i_ < (n); i_++) {                             \
			T v_;                                                  \
			U q_;                                                  \
			__builtin_memcpy(&v_, (const u8 *)(src) + i_ * sizeof(T), sizeof(T)); \
			q_ = DIV(v_ < 0 ? (U)0 - (U)v_ : (U)v_, (d));          \
			v_ = (T)(v_ < 0 ? (U)0 - q_ : q_);                     \
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
	case DRM_CCORE_DTYPE_I8: DIV_SIGNED(s8, u32, div32, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_U8: DIV_UNSIGNED(u8, u32, div32, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_I32: DIV_SIGNED(s32, u32, div32, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_U32: DIV_UNSIGNED(u32, u32, div32, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_I64: DIV_SIGNED(s64, u64, div64, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_U64: DIV_UNSIGNED(u64, u64, div64, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_F16: div_half(false, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_BF16: div_half(true, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_F32: DIV_FLOAT(float, dst, src, n, divisor); break;
	case DRM_CCORE_DTYPE_F64: DIV_FLOAT(double, dst, src, n, divisor); break;
	default: break;
	}
}
