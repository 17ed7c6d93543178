// SPDX-License-Identifier: GPL-2.0
/*
 * The host's half-precision conversions (runtime/util/half.c, what the
 * runtime fills and checks buffers with) against the device model's
 * (model/ccm_reduce.c, what the device's reductions compute with): bit
 * for bit over every 16-bit value widened, and narrowed around every
 * place where rounding decides -- each 16-bit value, the ties halfway to
 * its neighbours and one float ulp either side of them -- plus a sweep
 * of the whole float range.  The two are written apart (the model's is
 * branch-free, for the kernel), so a change to either shows here.
 */
#include "ccore_test.h"
#include "ccm.h"
#include "util/float_bits.h"
#include "util/half.h"


TEST(widening_matches_the_model_for_every_value)
{
	for (uint32_t h = 0; h <= 0xffff; h++) {
		if (f32_bits(rt_f16_to_f32((uint16_t)h)) != f32_bits(ccm_f16_to_f32((uint16_t)h)))
			FAIL("f16 %#06x: host %#010x, model %#010x", h,
			     f32_bits(rt_f16_to_f32((uint16_t)h)),
			     f32_bits(ccm_f16_to_f32((uint16_t)h)));
		if (f32_bits(rt_bf16_to_f32((uint16_t)h)) != f32_bits(ccm_bf16_to_f32((uint16_t)h)))
			FAIL("bf16 %#06x: host %#010x, model %#010x", h,
			     f32_bits(rt_bf16_to_f32((uint16_t)h)),
			     f32_bits(ccm_bf16_to_f32((uint16_t)h)));
	}
}

static void narrow_both(uint32_t x)
{
	float f = f32_from_bits(x);

	if (rt_f32_to_f16(f) != ccm_f32_to_f16(f))
		FAIL("f32 %#010x to f16: host %#06x, model %#06x", x, rt_f32_to_f16(f),
		     ccm_f32_to_f16(f));
	if (rt_f32_to_bf16(f) != ccm_f32_to_bf16(f))
		FAIL("f32 %#010x to bf16: host %#06x, model %#06x", x, rt_f32_to_bf16(f),
		     ccm_f32_to_bf16(f));
}

TEST(narrowing_matches_the_model_at_every_tie)
{
	uint64_t n = 0;

	for (uint32_t h = 0; h <= 0xffff; h++) {
		uint32_t lo = f32_bits(ccm_f16_to_f32((uint16_t)h));
		uint32_t hi = f32_bits(ccm_f16_to_f32((uint16_t)(h + 1)));
		/* halfway to the next f16 up, in float bits (same sign and binade or the next) */
		uint32_t tie = lo + (hi - lo) / 2;
		uint32_t bf = (uint32_t)h << 16;

		for (int d = -1; d <= 1; d++) {
			narrow_both(lo + (uint32_t)d);
			narrow_both(tie + (uint32_t)d);
			narrow_both(bf + 0x8000u + (uint32_t)d);	/* bf16's ties */
			n += 3;
		}
	}
	/* and the whole range, every 4099th pattern (a prime stride) */
	for (uint64_t x = 0; x <= 0xffffffffull; x += 4099, n++)
		narrow_both((uint32_t)x);
	ccore_test_log("%llu floats narrowed alike", (unsigned long long)n);
}
