// SPDX-License-Identifier: MIT
/* Arrays that double as they fill (grow.h). */
#include "util/grow.h"

#include <errno.h>
#include <stdlib.h>

int rt_grow(void **items, uint32_t *cap, uint32_t count, size_t size, uint32_t first)
{
	uint32_t ncap;
	void *p;

	if (count < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : first;
	if (ncap <= *cap)	/* the capacity would wrap */
		return -ENOMEM;
	p = realloc(*items, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	*items = p;
	*cap = ncap;
	return 0;
}
