/* SPDX-License-Identifier: MIT */
/* FNV-1a, 64 bits: the runtime's names for things built from strings and bytes. */
#ifndef CCORE_UTIL_FNV_H
#define CCORE_UTIL_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A_BASIS 1469598103934665603ull

/* @h (FNV1A_BASIS to start) carried over @n bytes at @p. */
static inline uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* The same over a NUL-terminated string, at most @max bytes of it. */
static inline uint64_t fnv1a_str(uint64_t h, const char *s, size_t max)
{
	for (size_t i = 0; i < max && s[i]; i++)
		h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
	return h;
}

#endif
