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

#define BENCH_NDTYPES 10
#define BENCH_NREDOPS 5

struct bench_dtype {
	const char *name;		/* nccl-tests' */
	enum ccore_dtype dtype;
	const char *aliases[3];		/* ccore's, NCCL's */
};

struct bench_redop {
	const char *name;
	enum ccore_redop redop;
};

extern const struct bench_dtype bench_dtypes[BENCH_NDTYPES];
extern const struct bench_redop bench_redops[BENCH_NREDOPS];

struct bench_opts {
	const char *backend;
	const char *sim;
	enum bench_op op;
	struct ccore_topology topo;
	int ranks;
	size_t min_bytes, max_bytes;
	int step_factor;	/* > 1: multiply; else add step_bytes (nccl-tests' -f, -i) */
	size_t step_bytes;
	int iters, warmup;
	int agg_iters;		/* -m: collectives per timed iteration, in one group */
	int run_cycles;		/* -N: the table this many times */
	int blocking;		/* -z: wait for each collective */
	int unalign;		/* -u: buffers start this many elements in */
	bool timestamps;	/* -S: a timestamp after each row */
	int check;		/* -c: checked runs per size (0: none) */
	int corrupt_rank;	/* --corrupt-rank: this rank's output spoiled before checks, -1 none */
	bool check_set;		/* -c given explicitly */
	/* -d, -o: indices into bench_dtypes/bench_redops; -1: all */
	int dtype, redop;
	int root;
	const char *algo;
	const char *json;	/* --json FILE: ccore's schema */
	const char *nccl_json;	/* -J FILE: nccl-tests' schema */
	const char *program;	/* nccl-tests' name of the test, e.g. all_reduce_perf */
	double min_bw;		/* $NCCL_TESTS_MIN_BW, -1 if unset */
	bool host_bound;
	bool timed;		/* --timed: virtual times of the timed model */
	const char *exec;	/* --exec FILE */
	/*
	 * One process per rank (procs.c): --procs N, or under mpirun: this
	 * process is @proc of @nprocs and runs ranks @first_rank.. (@nlocal
	 * of them); @proc -1 with @nprocs set: the launcher of --procs.
	 * @host_procs: how many processes the launcher put on this host
	 * (0: unknown, all of them).
	 */
	int nprocs, proc, first_rank, nlocal, host_procs;
	int argc;
	char **argv;
};

extern const char *const bench_op_names[OP_COUNT];
extern const char *const bench_op_programs[OP_COUNT];

/* names.c: -1 if unknown; without regard to case */
int bench_op_parse(const char *s);
int bench_dtype_parse(const char *s);	/* index into bench_dtypes */
int bench_redop_parse(const char *s);	/* index into bench_redops */
const char *bench_dtype_name(enum ccore_dtype t);
const char *bench_redop_name(enum ccore_redop op);
bool bench_op_reduces(enum bench_op op);
/* A size as nccl-tests writes it, whole bytes up to @max: 0, or -1. */
int bench_parse_size(const char *s, uint64_t max, uint64_t *out);

/* report.c: the table, -J and --json of the collective benchmark */
struct bench_report_info {
	int ranks;
	const int *node_of, *device_of;	/* per rank */
	const char *backend, *hostname;
	double host_gbps;
	bool checked;		/* results are checked (-c > 0, real buffers) */
};

struct bench_half {
	bool skipped;		/* not run (sendrecv in place) */
	bool checked;
	double time_us, algbw, busbw;
	long wrong;
};

struct bench_row {
	size_t bytes, count;	/* as nccl-tests prints them */
	enum ccore_dtype dtype;
	const char *redop;	/* "none" where nothing is reduced */
	int root;		/* -1 where there is none */
	struct bench_half oop, ip;
	const char *algo;
	double host_gbps;
};

struct bench_summary {
	bool checked;
	const char *why_unchecked;
	int errors;		/* halves with wrong elements, as nccl-tests counts */
	long wrong;		/* wrong elements in all */
	double avg_busbw;
	bool host_bound;
	size_t largest;
	double host_bound_oop, host_bound_ip;
};

struct bench_report;
/* NULL after saying why (a file that cannot be opened) */
struct bench_report *bench_report_open(const struct bench_opts *o);
void bench_report_header(struct bench_report *r, const struct bench_report_info *in);
void bench_report_row(struct bench_report *r, const struct bench_row *row);
/* -1 if the average bus bandwidth is below $NCCL_TESTS_MIN_BW's 90% */
int bench_report_footer(struct bench_report *r, const struct bench_summary *s);
/* Close the JSON documents, with @error if the run failed; frees @r. */
int bench_report_close(struct bench_report *r, const char *error);

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

/* procs.c: -1 after saying why; 1 under a launcher (set up), 0 otherwise. */
int bench_procs_role(struct bench_opts *o, bool ranks_set);
/* The launcher of --procs N: starts them, waits; the worst exit code. */
int bench_procs_launch(const struct bench_opts *o);
/* A process's unique id: the launcher's, or from CCORE_COMM_ID. */
int bench_procs_unique_id(struct ccore_unique_id *id);

#endif
