/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sequence of in-place AllReduces that dbuf_test.c (one process) and
 * mproc_test.c (processes on hosts) post to exercise double-buffered
 * plans: its plans, the elements before the first run, the host's model
 * of a run, and the draw of the next launch.  i32 sums wrap and each
 * run's result is the next run's input; the sums start odd and a plan
 * runs at most DBUF_MAX_RUNS times, so with up to 8 ranks no result is 0
 * or repeats, and a run that read stale or missing data shows at the end.
 */
#ifndef DBUF_SEQ_H
#define DBUF_SEQ_H

#include <stdbool.h>
#include <stdint.h>

#define DBUF_SLOTS 6
#define DBUF_COUNT 64		/* the largest count of a plan */
#define DBUF_RUNS 48		/* launches of a sequence */
#define DBUF_MAX_RUNS 10	/* of one plan: n^10 times an odd sum is not 0 mod 2^32, n <= 8 */

/* A plan of the sequence: its count and the algorithm forced (NULL: the tuner's). */
struct dbuf_slot {
	uint64_t count;
	const char *algo;
};

extern const struct dbuf_slot dbuf_slots[DBUF_SLOTS];

/* The next launch: plan @slot, @again runs back to back, in a group or not. */
struct dbuf_pick {
	uint32_t slot, again;
	bool grouped;
};

/* Rank @r's element @e of plan @k before its first run (rank 0's one more: every sum odd). */
uint32_t dbuf_initial(uint32_t r, uint32_t e, uint32_t k);
/* One run of a plan of @count in the model: each of @nranks ranks' elements become their sum. */
void dbuf_model_run(uint32_t (*want)[DBUF_COUNT], uint32_t nranks, uint64_t count);
/* Draw the next launch from @rng for plans run @launched times so far; false once all have theirs. */
bool dbuf_next(uint32_t *rng, const uint32_t *launched, struct dbuf_pick *out);

#endif
