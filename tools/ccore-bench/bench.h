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
	bool host_bound;
	bool timed;		/* --timed: virtual times of the timed model */
	bool check_set;		/* -c given explicitly */
	const char *exec;	/* --exec FILE */
};

extern const char *const bench_op_names[OP_COUNT];

double bench_now_us(void);
/* @bytes of anonymous host memory, every page written with @fill; NULL if none. */
void *bench_host_buf(size_t bytes, int fill);
void bench_host_buf_free(void *buf, size_t bytes);
/* Host memcpy bandwidth in GB/s for @bytes, best of a few runs. */
double bench_host_memcpy_gbps(size_t bytes);

/* --host-bound: mean time of one run of one host thread per rank doing with
 * memcpy the copies @o->op needs for @bytes, out of place and in place. */
struct bench_host_bound {
	double oop_us, ip_us;
};

/* 0 if --host-bound can model @op, else -1 after saying which ops it can. */
int bench_host_bound_check_op(enum bench_op op);
int bench_host_bound(const struct bench_opts *o, size_t bytes, struct bench_host_bound *res);

int bench_copy(const struct bench_opts *o);
struct ccore_exe;
/* --exec: read and validate @path (0, or -1 after saying why). */
int bench_exec_load(const char *path, struct ccore_exe **out);
int bench_exec(const struct bench_opts *o, const struct ccore_exe *exe);
int bench_collective(const struct bench_opts *o);

#endif
