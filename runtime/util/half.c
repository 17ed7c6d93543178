// SPDX-License-Identifier: MIT
/* Half-precision conversions on the host (half.h). */
#include "util/half.h"
#include "util/float_bits.h"

#include <math.h>

#define F32_ABS 0x7fffffffu
#define F32_INF 0x7f800000u
#define F32_QUIET 0x00400000u

float rt_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	float sub;

	if (e == 0x1f)		/* Inf, or a NaN, quieted */
		return f32_from_bits(sign | F32_INF | m << 13 | (m ? F32_QUIET : 0));
	if (e)			/* rebias the exponent by 127 - 15 */
		return f32_from_bits(sign | (e + 112) << 23 | m << 13);
	sub = ldexpf((float)m, -24);	/* a subnormal m * 2^-24, exact; or zero */
	return sign ? -sub : sub;
}

uint16_t rt_f32_to_f16(float f)
{
	uint32_t x = f32_bits(f), ax = x & F32_ABS;
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000);

	if (ax > F32_INF)	/* NaN: the top of its payload, quieted */
		return sign | 0x7e00 | ((ax >> 13) & 0x3ff);
	if (ax >= 0x477ff000u)	/* 65520 and up round to Inf (65520 is the tie) */
		return sign | 0x7c00;
	if (ax < 0x38800000u)	/* below 2^-14: subnormal, in units of 2^-24 */
		return sign | (uint16_t)lrintf(fabsf(f) * 16777216.0f);
	/* rebias, then round to nearest even at bit 13 */
	return sign | (uint16_t)((ax - (112u << 23) + 0x0fff + ((ax >> 13) & 1)) >> 13);
}

float rt_bf16_to_f32(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;

	return f32_from_bits((x & F32_ABS) > F32_INF ? x | F32_QUIET : x);
}

uint16_t rt_f32_to_bf16(float f)
{
	uint32_t x = f32_bits(f);

	if ((x & F32_ABS) > F32_INF)	/* NaN: rounding could carry into the sign */
		return (uint16_t)((x >> 16) | 0x0040);
	/* round to nearest even; a carry into the exponent is right, up to Inf */
	return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}
