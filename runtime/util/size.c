// SPDX-License-Identifier: MIT
/* Checked sizes (see size.h). */
#include "util/size.h"

#include <errno.h>

int size_parse(const char *s, uint64_t *out)
{
	uint64_t v = 0, scale = 1;
	const char *c = s;

	if (!s || *c < '0' || *c > '9')
		return -EINVAL;
	for (; *c >= '0' && *c <= '9'; c++)
		if (!size_mul(v, 10, &v) || __builtin_add_overflow(v, (uint64_t)(*c - '0'), &v))
			return -EINVAL;
	switch (*c) {
	case 'K': case 'k': scale = 1ull << 10; c++; break;
	case 'M': case 'm': scale = 1ull << 20; c++; break;
	case 'G': case 'g': scale = 1ull << 30; c++; break;
	case 'T': case 't': scale = 1ull << 40; c++; break;
	default: break;
	}
	if (*c || !size_mul(v, scale, out))
		return -EINVAL;
	return 0;
}
