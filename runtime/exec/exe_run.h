/* SPDX-License-Identifier: MIT */
/*
 * Running an executable (Documentation/executable.rst, "Loading and
 * running"): at load time every collective is planned and its ring
 * programs loaded, each rank's instruction stream becomes a compute-engine
 * program in which every pseudo-collective trigger is a plain trigger
 * write to the CC core of the collective's stream, and every wait a wait
 * on the collective's completion semaphore.  A step then queues the
 * collectives' jobs on their CC cores (in the order the triggers will
 * come), starts every rank's compute engine and waits for all of it.
 *
 * Every function returns 0 or a negative errno with ccore_last_error().
 */
#ifndef CCORE_EXE_RUN_H
#define CCORE_EXE_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/exe.h"

struct exe_run;

/* Per collective of the table, over one step. */
struct exe_coll_stats {
	uint32_t jobs;			/* jobs run: ranks x triggers (every backend) */
	double latency_us;		/* mean from trigger to completion (timed; else 0) */
	double run_us;			/* mean from its program's start to completion (timed) */
};

struct exe_step_stats {
	bool timed;			/* virtual times (timed model) or wall clock */
	double step_us;			/* first compute start to last end (or wall) */
	double tp_latency_us;		/* mean latency of stream-0 collectives (timed) */
	double other_latency_us;	/* mean latency of the other streams' (timed) */
	uint64_t compute_dma_bytes;	/* compute DMA moved, all ranks */
	double compute_busy_us;		/* COMPUTE time, summed over ranks */
	uint32_t ncolls;
	struct exe_coll_stats *colls;	/* [ncolls], owned by the run */
};

/*
 * Communicators for the executable's topology (CCORE_STREAMS, else as
 * many streams as its stream ids need), its tensors on every rank with
 * their initial contents, every collective planned and loaded.
 */
int exe_run_open(const struct ccore_exe *exe, struct exe_run **out);
/* One step: every rank's stream start to end; *@st may be NULL. */
int exe_run_step(struct exe_run *x, struct exe_step_stats *st);
/* Host view of @tensor on @rank (its exe->tensors[tensor].bytes). */
void *exe_run_tensor(struct exe_run *x, uint32_t rank, uint32_t tensor);
/* Refill every tensor with its initial contents (before checking a step). */
void exe_run_reset_tensors(struct exe_run *x);
/* Bytes and packets the rings of rank @rank moved so far: its compute DMA
 * ring, and its collectives' rings per stream id (@per_stream[8]). */
int exe_run_ring_bytes(struct exe_run *x, uint32_t rank, uint64_t *compute,
		       uint64_t per_stream[CCORE_EXE_MAX_STREAMS]);
/* Rank @rank's compute-engine program as loaded (its length in *@count). */
const struct drm_ccore_ce_insn *exe_run_program(struct exe_run *x, uint32_t rank,
						uint32_t *count);
/* The streams and packet sizes the run's communicators settled on. */
int exe_run_stream_map(struct exe_run *x, struct ccore_stream_map *out);
void exe_run_close(struct exe_run *x);

#endif
