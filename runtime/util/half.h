/* SPDX-License-Identifier: MIT */
/*
 * binary16 and bfloat16 to and from binary32 on the host, rounding to
 * nearest even and quieting NaNs as the device's reductions do (the
 * device model's own conversions live with it, in model/; a test holds
 * the two equal over every 16-bit value and around every rounding tie).
 */
#ifndef CCORE_UTIL_HALF_H
#define CCORE_UTIL_HALF_H

#include <stdint.h>

float rt_f16_to_f32(uint16_t h);
uint16_t rt_f32_to_f16(float f);
float rt_bf16_to_f32(uint16_t h);
uint16_t rt_f32_to_bf16(float f);

#endif
