/* SPDX-License-Identifier: MIT */
/*
 * Arrays that double as they fill: the one way the runtime makes room for
 * one more item before it adds it, so that adding cannot fail afterwards.
 */
#ifndef CCORE_UTIL_GROW_H
#define CCORE_UTIL_GROW_H

#include <stddef.h>
#include <stdint.h>

/*
 * Room for item @count of *@items (@size bytes each, *@cap of them
 * allocated): the array is reallocated to twice its capacity, or to @first
 * items the first time, only when it is full.  0, or -ENOMEM with the array
 * as it was (the caller says what was being added).
 */
int rt_grow(void **items, uint32_t *cap, uint32_t count, size_t size, uint32_t first);

#endif
