// SPDX-License-Identifier: MIT
/* Algorithm registry, part a (see algos.c). */
#include "algo.h"

#include <stddef.h>

const struct algo *const algo_registry_a[] = {
	NULL,
};
