/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A float's or a double's bits and back, for the tests that compare
 * number formats bit for bit.
 */
#ifndef FLOAT_BITS_H
#define FLOAT_BITS_H

#include <stdint.h>
#include <string.h>

static inline uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float f32_from_bits(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static inline uint64_t f64_bits(double f)
{
	uint64_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline double f64_from_bits(uint64_t u)
{
	double f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

#endif
