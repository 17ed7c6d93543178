/* SPDX-License-Identifier: MIT */
/*
 * A floating-point value's bits and back, for the code and the tests that
 * handle number formats bit for bit.  One definition, made for each format
 * (FLOAT_BITS_FNS): the bytes move with memcpy(), C's well-defined way.
 */
#ifndef CCORE_UTIL_FLOAT_BITS_H
#define CCORE_UTIL_FLOAT_BITS_H

#include <stdint.h>
#include <string.h>

/* NAME_bits(F) gives the bits of F in the integer U, NAME_from_bits(U) the reverse. */
#define FLOAT_BITS_FNS(NAME, F, U)			\
	static inline U NAME##_bits(F v)		\
	{						\
		U bits;					\
							\
		memcpy(&bits, &v, sizeof(bits));	\
		return bits;				\
	}						\
	static inline F NAME##_from_bits(U bits)	\
	{						\
		F v;					\
							\
		memcpy(&v, &bits, sizeof(v));		\
		return v;				\
	}

FLOAT_BITS_FNS(f32, float, uint32_t)
FLOAT_BITS_FNS(f64, double, uint64_t)

#endif
