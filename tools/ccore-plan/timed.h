/* SPDX-License-Identifier: MIT */
/*
 * ccore-plan's timed-model column: a collective run through the real
 * runtime on the timed device model (CCORE_SIM timed=1, virtual buffers),
 * shaped and parameterised like the cost model's topology, and its
 * virtual time.
 */
#ifndef CCORE_PLAN_TIMED_H
#define CCORE_PLAN_TIMED_H

#include <stddef.h>
#include <stdint.h>

#include "ccore.h"
#include "tune/model.h"

struct timed_world;

/*
 * Ranks laid out as @t on a fresh timed fabric with the same α and
 * bandwidths (the ideal setting when @t is ideal), each with a send and
 * a receive buffer of @max_bytes.  NULL on failure (timed_error() says why).
 */
struct timed_world *timed_open(const struct tune_topo *t, uint64_t max_bytes);
void timed_close(struct timed_world *w);

/*
 * Virtual µs of one collective (@coll a CS_* op, @bytes the nccl-tests
 * size, @root for broadcast/reduce) with CCORE_ALGO=@algo and the
 * slices and channels the tuner picks for it.  0, or -1 (timed_error()).
 */
int timed_run(struct timed_world *w, int coll, uint64_t bytes, uint32_t root, const char *algo,
	      double *us);

/*
 * What the runtime's tuner would run for the same call (ccore_plan_query()
 * on rank 0, CCORE_ALGO unset): 0, or -1 (timed_error()).
 */
int timed_choice(struct timed_world *w, int coll, uint64_t bytes, struct ccore_plan_info *info);
/*
 * Why the last timed_* call failed, whole however long (valid until the
 * next call).
 */
const char *timed_error(void);
/* Ranks of @w. */
uint32_t timed_ranks(const struct timed_world *w);

#endif
