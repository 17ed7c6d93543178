// SPDX-License-Identifier: MIT
/* Algorithm registry, part a (see algos.c). */
#include "algo.h"

#include <stddef.h>

extern const struct algo algo_mesh;
extern const struct algo algo_mesh_oneshot;
extern const struct algo algo_rdh;
extern const struct algo algo_dbt;
extern const struct algo algo_flatring;
extern const struct algo algo_kangaring;

const struct algo *const algo_registry_a[] = {
	&algo_mesh,
	&algo_mesh_oneshot,
	&algo_rdh,
	&algo_dbt,
	&algo_flatring,
	&algo_kangaring,
	NULL,
};
