/* SPDX-License-Identifier: MIT */
/*
 * Names of tensors or collectives sorted for lookup, so that uniqueness
 * checks and the saver's string sharing stay O(n log n) however many
 * names a file declares.
 */
#ifndef CCORE_EXE_NAMES_INDEX_H
#define CCORE_EXE_NAMES_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct exe_name_ref {
	const char *name;
	uint32_t index;
};

/* The @n names at @first + i * @stride (i = 0..n-1), sorted by name, then
 * index; malloc'd, NULL when out of memory. */
struct exe_name_ref *exe_names_sort(const char *first, size_t stride, uint32_t n);
/* The lowest index named @name, UINT32_MAX if none. */
uint32_t exe_names_find(const struct exe_name_ref *refs, uint32_t n, const char *name);
/* The lowest index whose name a lower index has (*@earlier: the lowest
 * such), UINT32_MAX if the names are unique. */
uint32_t exe_names_first_dup(const struct exe_name_ref *refs, uint32_t n, uint32_t *earlier);

#endif
