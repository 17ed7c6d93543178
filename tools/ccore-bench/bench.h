/* SPDX-License-Identifier: MIT */
/* ccore-bench internals shared by its modes. */
#ifndef CCORE_BENCH_H
#define CCORE_BENCH_H

#include "ccore.h"
#include "ccore_device.h"
#include "ccore_verifiable.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum bench_op {
	OP_ALLREDUCE, OP_ALLGATHER, OP_REDUCESCATTER, OP_ALLTOALL, OP_BROADCAST, OP_REDUCE,
	OP_SENDRECV, OP_COUNT,
};

struct bench_opts {
	const char *backend;
	const char *sim;
	enum bench_op op;
	struct ccore_topology topo;
	int ranks;
	size_t min_bytes, max_bytes;
	int step_factor;
	int iters, warmup;
	bool check;
	enum ccore_dtype dtype;
	enum ccore_redop redop;
	int root;
	const char *algo;
	const char *json;
};

extern const char *const bench_op_names[OP_COUNT];

double bench_now_us(void);
/* Host memcpy bandwidth in GB/s for @bytes, best of a few runs. */
double bench_host_memcpy_gbps(size_t bytes);

int bench_copy(const struct bench_opts *o);
int bench_collective(const struct bench_opts *o);

#endif
