/* SPDX-License-Identifier: MIT */
/*
 * Ring collectives in loop form (ring_loop.c): a rank's program and rings
 * built without a schedule, for the ring phases hierarchical AllReduce is
 * made of (algo_ring's AllReduce is a schedule of repeats now, lowered by
 * runtime/lower/lower_loops.c; its old form here is lower_loops_test's
 * reference).
 *
 * A segment is one rank's part of a ring ReduceScatter, AllGather (in
 * place) or AllReduce over a group of the parent's ranks, lowered as
 * lower.c would lower algo_ring's schedule of it.  A program is segments
 * one after the other: each grants its own credits once the one before
 * has received everything, and drains its rings before the next starts,
 * so a segment's puts and reads never meet the next one's -- or, if it is
 * drain_late, before the next segment on the same engine (or the end):
 * its composer promises that the segments in between send nothing that
 * lands where it reads.
 */
#ifndef CCORE_RING_LOOP_H
#define CCORE_RING_LOOP_H

#include "algo.h"
#include "lower/lower.h"

/* Which semaphore of the receiver's block counts a phase's arrivals. */
enum ring_counter {
	RING_A_LEFT,		/* A(sender): the schedule's own */
	RING_A_SELF,		/* A(receiver), C(receiver): slots no schedule */
	RING_C_SELF,		/* uses, as a rank never sends to itself */
};

struct ring_seg {
	uint8_t coll;		/* CS_ALLREDUCE, CS_REDUCESCATTER, CS_ALLGATHER */
	bool in_place;		/* AllGather: only in place */
	uint32_t n, m;		/* group size, this rank's place in it */
	uint32_t left, right;	/* the parent ranks before and after it */
	uint64_t count;		/* as cs_shape.count of the group collective */
	uint32_t engine;	/* of its sends */
	bool drain_late;	/* see above */
	uint32_t first_ring;	/* its rings: lower_rank.ring[first_ring ...] */
	/* the group collective's SEND, RECV and TMP in the parent's buffers,
	 * of this rank and of @right (element offsets) */
	struct cs_ref own[CS_NBUF], theirs[CS_NBUF];
	/* arrival counters of the reduce-scatter (or only) phase, and of the
	 * others (hop 0 out of place or a reduce-scatter's two fixed hops; an
	 * AllReduce's all-gather) */
	enum ring_counter cnt_main, cnt_fixed, cnt_ag;
};

/* Whether a segment of @coll over @n ranks takes @count; the ring indices
 * it needs, 0 if it does not fit. */
uint32_t ring_seg_rings(uint8_t coll, uint32_t n, uint64_t count, bool in_place);
/* Its scratch: TMP elements of the group collective (ReduceScatter's). */
uint64_t ring_seg_tmp(uint8_t coll, uint32_t n, uint64_t count);

/* Rank @r's segments, at most RING_LOOP_MAX_SEGS, into @seg; how many. */
typedef uint32_t ring_loop_segs_fn(const void *arg, uint32_t r, struct ring_seg *seg);
#define RING_LOOP_MAX_SEGS 3

/*
 * Build and load every rank's program, from the segments @segs gives,
 * with @slices slices per block.  @c as for lower_schedule(); on failure
 * nothing stays loaded.
 */
int ring_loop_lower(const struct lower_ctx *c, uint32_t slices, ring_loop_segs_fn *segs,
		    const void *arg, struct lowered **out);

/* Rank @r's image of ring AllReduce @s in loop form as this file builds it,
 * not loaded: what lower_loops_test compares the one lowering with. */
int ring_loop_image(const struct cs_shape *s, const struct algo_opts *o,
		    const struct lower_ctx *c, uint32_t r, struct lower_image *im);

/* Rank @r's image of hierarchical AllReduce @s in loop form as hier_loop.c
 * builds it, not loaded: lower_loops_test's reference for hier_gen_rolled(). */
int hier_loop_image(const struct cs_shape *s, const struct algo_opts *o,
		    const struct lower_ctx *c, uint32_t r, struct lower_image *im);
/* Rank @r's image of the segments @segs gives, not loaded. */
int ring_loop_segs_image(const struct lower_ctx *c, uint32_t slices, ring_loop_segs_fn *segs,
			 const void *arg, uint32_t r, struct lower_image *im);

#endif
