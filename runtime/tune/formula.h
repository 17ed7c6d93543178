/* SPDX-License-Identifier: MIT */
/*
 * α-β formulas: the modelled time of every algorithm the runtime has, for
 * every collective it serves (runtime/tune/formula.c says which section of
 * /work/shared/reference each one comes from).
 *
 * M (bytes) follows nccl-tests, as ccore-bench's size column does: the
 * size of the largest per-rank buffer, i.e.
 *   AllReduce, Broadcast, Reduce, Send/Recv  count * dtype size
 *   AllGather      the output: N * sendcount * dtype size
 *   ReduceScatter  the input:  N * recvcount * dtype size
 *   AllToAll       a rank's buffer: N * count * dtype size
 * which is also the reference's M (collective-algorithms.txt §2, §6:
 * "the per-rank final total volume for AG, initial for RS").
 */
#ifndef CCORE_TUNE_FORMULA_H
#define CCORE_TUNE_FORMULA_H

#include "model.h"

struct algo;

struct tune_call {
	uint8_t coll;		/* enum cs_coll */
	uint32_t nranks;	/* N, = tune_topo_ranks() of the topology */
	double bytes;		/* M, see above */
	uint32_t slices;	/* pipeline slices (P of the reference), >= 1 */
	uint32_t channels;	/* flat ring channels, >= 1 */
	uint32_t peer_dist;	/* Send/Recv: receiver - sender (mod N) */
	uint32_t elem_size;	/* bytes per element; 0: 4 (f32) */
	uint64_t pat_buffer;	/* PAT's staging elements per rank; 0: its default */
};

/*
 * The modelled time of registry entry @a (its cost(), algos/algo.h) for
 * @c on @t: 0 and *us, or -1 and *why when it does not apply (no cost
 * function, a collective it does not serve, a layout it needs, ...).  The
 * knobs it depends on are @a->knobs.
 */
int tune_formula(const struct algo *a, const struct tune_topo *t, const struct tune_call *c,
		 double *us, const char **why);
/* M of a call as above, from nccl's count. */
double tune_bytes(uint8_t coll, uint32_t nranks, uint64_t count, uint64_t elem_size);

#endif
