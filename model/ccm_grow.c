// SPDX-License-Identifier: GPL-2.0
/* Growing arrays: the OS shim has no realloc, so they double by copying. */
#include "ccm.h"

int ccm_grow(void **arr, u32 *cap, u32 count, size_t size, u32 first)
{
	u32 ncap = *cap ? *cap * 2 : first;
	void *p;

	if (ncap <= *cap)
		return -ENOMEM;
	p = ccm_calloc(ncap, size);
	if (!p)
		return -ENOMEM;
	if (count)
		memcpy(p, *arr, (size_t)count * size);
	ccm_free(*arr);
	*arr = p;
	*cap = ncap;
	return 0;
}
