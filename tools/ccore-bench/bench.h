/* SPDX-License-Identifier: MIT */
/* ccore-bench internals shared by its modes. */
#ifndef CCORE_BENCH_H
#define CCORE_BENCH_H

#include "ccore_device.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bench_opts {
	const char *backend;
	const char *sim;
	int ranks;
	size_t min_bytes, max_bytes;
	int step_factor;
	int iters, warmup;
	bool check;
	const char *json;
};

double bench_now_us(void);
/* Host memcpy bandwidth in GB/s for @bytes, best of a few runs. */
double bench_host_memcpy_gbps(size_t bytes);

int bench_copy(const struct bench_opts *o);
int bench_ring_allreduce(const struct bench_opts *o);

#endif
