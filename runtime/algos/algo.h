/* SPDX-License-Identifier: MIT */
/*
 * Collective algorithms: each turns a collective's shape into a schedule
 * (runtime/sched/cs.h).  The registry (registry.c) lists them; each entry
 * says once what the algorithm is: the collectives it serves, when it
 * applies, its generator, its cost (runtime/tune/cost_*.c, declared in
 * algo_cost.h) and the knobs that cost depends on.
 */
#ifndef CCORE_ALGO_H
#define CCORE_ALGO_H

#include "sched/cs.h"

/* The cost model's (runtime/tune/formula.h); algos/ only passes them on. */
struct tune_topo;
struct tune_call;

/* Knobs an algorithm's time depends on (what the tuner searches). */
#define ALGO_KNOB_SLICES   1u
#define ALGO_KNOB_CHANNELS 2u

struct algo_opts {
	uint32_t slices;		/* pipeline slices per chunk, >= 1 */
	uint32_t channels;		/* parallel rings (flat ring), >= 1 */
	uint32_t ranks_per_node;	/* hierarchical grouping; 0: flat */
	uint32_t ranks_per_device;	/* KangaRing pairs ranks of a device */
	uint32_t pat_buffer;		/* PAT: staging elements per rank, 0: auto */
	bool lazy;			/* gen_rolled may make ranks on first use (cs.h) */
};

struct algo {
	const char *name;
	uint32_t colls;			/* 1 << enum cs_coll */
	/* NULL if it applies; else why not (e.g. "needs a power-of-two N") */
	const char *(*rejects)(const struct cs_shape *s, const struct algo_opts *o);
	struct cs_sched *(*gen)(const struct cs_shape *s, const struct algo_opts *o);
	/*
	 * Its modelled time in µs (runtime/tune/formula.h) for @c on @t, a
	 * call of 2 or more ranks and bytes on a collective it serves, whose
	 * layout cost_rejects() takes.
	 */
	double (*cost)(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
	/* Optional: why cost() cannot price @t's layout (NULL: it can). */
	const char *(*cost_rejects)(const struct tune_topo *t, const struct tune_call *c);
	unsigned int knobs;		/* ALGO_KNOB_* cost() depends on */
	/*
	 * The tuner leaves it out above this many ranks (0: no limit): what
	 * a plan of N^2 transfers that no loop form rolls up costs to build
	 * and hold there outweighs what it saves.  CCORE_ALGO may still name it.
	 */
	uint32_t tuner_max_ranks;
	/*
	 * Optional, with gen_rolled: whether loop form takes @s on cores
	 * with @engines DMA engines, and unless @always whether it pays: the
	 * ring indices (lower_rank.ring[]) each rank needs, 0 if not.
	 */
	uint32_t (*loops_fit)(const struct cs_shape *s, const struct algo_opts *o,
			      uint32_t engines, bool always);
	/* Loop form as a schedule: gen()'s, rolled into repeats (cs.h) that
	 * the lowering emits as CC-core loops, for shapes loops_fit() takes */
	struct cs_sched *(*gen_rolled)(const struct cs_shape *s, const struct algo_opts *o);
};

/* Ring's schedule with its hops as repeats (AllReduce of equal blocks; else gen()'s). */
struct cs_sched *ring_gen_rolled(const struct cs_shape *s, const struct algo_opts *o);
uint32_t ring_loops_fit(const struct cs_shape *s, const struct algo_opts *o, uint32_t engines,
			bool always);

/* Why hierarchical algorithms cannot group @s by o->ranks_per_node (NULL: they can). */
const char *hier_geometry(const struct cs_shape *s, const struct algo_opts *o);
/* Hierarchical AllReduce's loop form as a schedule of repeats (hier_rolled.c; else gen()'s). */
uint32_t hier_loops_fit(const struct cs_shape *s, const struct algo_opts *o, uint32_t engines,
			bool always);
struct cs_sched *hier_gen_rolled(const struct cs_shape *s, const struct algo_opts *o);

/* Every registered algorithm (registry.c), each (name, collective) once. */
unsigned int algo_count(void);
const struct algo *algo_at(unsigned int i);
/* The algorithm called @name that serves @coll, or NULL. */
const struct algo *algo_find(const char *name, unsigned int coll);

/* Helpers for generators. */
/*
 * The cases every rooted generator starts with: nothing to move, or a single
 * rank (a local copy out of place).  True if @s is then complete.
 */
bool algo_trivial(struct cs_sched *s);
/* rejects() of rooted algorithms that take any shape with a valid root. */
const char *algo_rejects_bad_root(const struct cs_shape *s, const struct algo_opts *o);
/* One rank @r's part of a rooted collective, its blocks cut in @slices. */
typedef void algo_rank_part(struct cs_sched *s, uint32_t r, uint32_t slices);
/*
 * The schedule @name of a Broadcast (each rank's part from @bcast) or a
 * Reduce (from @reduce, its partial sums in TMP beyond two ranks), after
 * algo_trivial()'s cases; NULL if out of memory.
 */
struct cs_sched *algo_rooted_gen(const struct cs_shape *shape, const char *name, uint32_t slices,
				 algo_rank_part *bcast, algo_rank_part *reduce);
/* Block c of n over count elements: ceil-split, possibly empty at the end. */
void algo_block(uint64_t count, uint32_t n, uint32_t c, uint64_t *off, uint64_t *len);
/* The non-empty ones of @slices slices of @len elements (algo_block()): their
 * offsets and lengths into @off and @slen (room for @slices); how many. */
uint32_t algo_slices(uint64_t len, uint32_t slices, uint64_t *off, uint64_t *slen);
/*
 * What PAT (pat.c) runs for @s under @o: its messages in AllGather order
 * (ReduceScatter runs them backwards), each one step to the rank 2^dim
 * away with @chunks blocks of a piece, and the pieces (of about
 * count / pieces elements) it runs them for one after the other.  The
 * staging buffer decides both: the fully aggregated Bruck order
 * (ceil(log2 N) messages) when it holds the largest message, fewer
 * aggregated steps and more linear ones as it shrinks.  @steps needs room
 * for N - 1.  0, 1 if no plan fits the buffer, -1 out of memory.
 */
struct algo_pat_step {
	uint32_t dim, chunks;
};

int algo_pat_steps(const struct cs_shape *s, const struct algo_opts *o,
		   struct algo_pat_step *steps, uint32_t *nsteps, uint64_t *pieces);

/*
 * DBT's tree @which (0 or 1) over @n ranks, as dbt.c builds it: per rank
 * its parent (UINT32_MAX for the root), its height above its deepest leaf
 * and its depth below the root.  0, or -1 out of memory.
 */
int algo_dbt_tree(uint32_t n, int which, uint32_t *parent, uint32_t *height, uint32_t *depth);

/*
 * RDH's participant (0..2^@steps - 1, ranks folded in counted once) that
 * plays virtual rank @v for @coll, as rdh.c runs it: AllReduce's halving
 * goes nearest first (bit-reversed labels), AllGather and ReduceScatter
 * keep the natural order.  An involution.
 */
uint32_t algo_rdh_participant(uint8_t coll, uint32_t steps, uint32_t v);

static inline uint32_t algo_mod(int64_t a, uint32_t n)
{
	int64_t m = a % (int64_t)n;

	return (uint32_t)(m < 0 ? m + n : m);
}

#endif
