// SPDX-License-Identifier: MIT
/* Sorted names of tensors or collectives: lookup and duplicates.  Names are
 * compared within their CCORE_EXE_NAME_MAX + 1 bytes: the validator sorts
 * them before it knows each is terminated. */
#include "exec/exe_names_index.h"
#include "exec/exe.h"

#include <stdlib.h>
#include <string.h>

static int by_name(const void *a, const void *b)
{
	const struct exe_name_ref *x = a, *y = b;
	int c = strncmp(x->name, y->name, CCORE_EXE_NAME_MAX + 1);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

struct exe_name_ref *exe_names_sort(const char *first, size_t stride, uint32_t n)
{
	struct exe_name_ref *refs = malloc(sizeof(*refs) * ((size_t)n + 1));

	if (!refs)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		refs[i] = (struct exe_name_ref){ first + i * stride, i };
	qsort(refs, n, sizeof(*refs), by_name);
	return refs;
}

uint32_t exe_names_find(const struct exe_name_ref *refs, uint32_t n, const char *name)
{
	uint32_t lo = 0, hi = n;

	/* the first entry not below @name */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (strncmp(refs[mid].name, name, CCORE_EXE_NAME_MAX + 1) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strncmp(refs[lo].name, name, CCORE_EXE_NAME_MAX + 1) ? refs[lo].index :
	       UINT32_MAX;
}

uint32_t exe_names_first_dup(const struct exe_name_ref *refs, uint32_t n, uint32_t *earlier)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t i = 1, group = 0; i < n; i++) {
		if (strncmp(refs[i].name, refs[group].name, CCORE_EXE_NAME_MAX + 1)) {
			group = i;
			continue;
		}
		/* refs[i] is a later one of its name; the group's lowest is refs[group] */
		if (refs[i].index < best) {
			best = refs[i].index;
			*earlier = refs[group].index;
		}
	}
	return best;
}
