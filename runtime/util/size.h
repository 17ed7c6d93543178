/* SPDX-License-Identifier: MIT */
/*
 * Sizes from the caller, checked: a product that does not fit in 64 bits
 * is reported, never wrapped, and a number with a K, M or G suffix is
 * parsed without its scaling overflowing.
 */
#ifndef CCORE_UTIL_SIZE_H
#define CCORE_UTIL_SIZE_H

#include <stdbool.h>
#include <stdint.h>

/* *@out = @a * @b; false (and *@out undefined) if it does not fit in 64 bits. */
static inline bool size_mul(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

/*
 * A whole number of bytes, decimal, with an optional K, M or G suffix
 * (binary, either case): 0, or -EINVAL if @s is not one or it does not fit
 * in 64 bits.
 */
int size_parse(const char *s, uint64_t *out);

#endif
