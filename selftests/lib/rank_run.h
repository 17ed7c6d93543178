/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One rank's part of a checked collective, for the tests of communicators
 * of one process per rank (rank_test: ranks as threads; mproc_test: ranks
 * as processes): where its buffers are (in place or not), filling them
 * with verifiable data, posting the call and checking every element of
 * what it received.
 */
#ifndef RANK_RUN_H
#define RANK_RUN_H

#include "ccore.h"
#include "sched/cs.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rank_run {
	uint8_t coll;			/* CS_ALLREDUCE ... CS_SENDRECV (a ring shift) */
	const char *algo;		/* NULL: the tuner's */
	uint64_t count;
	enum ccore_dtype dt;
	enum ccore_redop op;
	uint32_t root;
	bool in_place;
};

/* Rank @r's buffers: its send and receive buffers @sb and @rb, each of @bytes. */
struct rank_bufs {
	struct ccore_comm *comm;
	uint32_t n, r;
	ccore_ptr sb, rb;
	size_t bytes;
};

/* Fill the input with rank @r's verifiable data, the rest with a pattern. */
void rank_run_fill(const struct rank_bufs *b, const struct rank_run *x);
/* Post @x for the rank (a send and a receive for CS_SENDRECV: call in a group). */
int rank_run_post(const struct rank_bufs *b, const struct rank_run *x);
/* Elements of the rank's result that are wrong (0: all checked right). */
long rank_run_check(const struct rank_bufs *b, const struct rank_run *x);
/* "AllReduce ring count 7 i32 sum root 1, in place" into @buf. */
void rank_run_describe(const struct rank_run *x, char *buf, size_t len);

/*
 * Fork a process that reports to its parent through a pipe: in the child
 * (which gets 0) *@fd is the pipe's write end, in the parent (which gets
 * the child's pid) its read end; each has closed the other end.  The test
 * fails where pipe() or fork() does.
 */
pid_t rank_run_fork(int *fd);

/*
 * A unique id made by a launcher process that runs no rank (its root
 * thread serves the job, then it ends): ranks forked from a process that
 * made the id would each think they ran its root (Documentation/bootstrap.rst).
 * The launcher's pid, to wait for.
 */
pid_t rank_run_launcher(struct ccore_unique_id *id);
/* The same, the launcher first calling @enter (e.g. entering a host's network namespace). */
pid_t rank_run_launcher_in(struct ccore_unique_id *id, void (*enter)(void));

#endif
