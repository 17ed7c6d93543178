// SPDX-License-Identifier: MIT
/*
 * Chain ("ring") Broadcast and Reduce (reference: collective-algorithms.txt
 * §3.1 and §4.1), named "chain" because "ring" is the AllReduce family.
 *
 * Ranks are numbered by their distance p = (rank - root) mod N.
 *   Broadcast: p sends to p + 1; data flows root -> root+1 -> ... -> root-1.
 *   Reduce:    p sends to p - 1; partial sums flow root-1 -> ... -> root,
 *              each rank adding its own input as the slice passes through.
 * The message is cut into o->slices slices and every rank handles slice i
 * before slice i + 1, so slice i is on hop k at time k + i: the wavefront
 * the lowering pipelines ((N - 1 + slices - 1) hops instead of
 * (N - 1) * slices).
 *
 * Dependencies: none are needed.  A forwarding rank's send of slice i reads
 * what its receive of slice i wrote; a send is a non-receive, so it already
 * comes after every earlier receive.  Receives write disjoint slices (RECV
 * for Broadcast and the Reduce root, TMP partial sums for the other Reduce
 * ranks, which never hold the result), so they may land in any order, and
 * every credit is granted in the prologue.
 */
#include "algo.h"
#include "algo_cost.h"

static uint32_t chain_slices(const struct algo_opts *o)
{
	return o->slices ? o->slices : 1;
}

static void chain_bcast(struct cs_sched *s, uint32_t r, uint32_t slices)
{
	const struct cs_shape *sh = &s->shape;
	uint32_t n = sh->nranks, p = algo_mod((int64_t)r - sh->root, n);
	uint32_t next = (r + 1) % n, prev = (r + n - 1) % n;
	uint64_t off, len;

	if (p == 0 && !sh->in_place)
		cs_copy(s, r, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), sh->count);
	for (uint32_t i = 0; i < slices; i++) {
		algo_block(sh->count, slices, i, &off, &len);
		if (!len)
			continue;
		if (p == 0) {
			cs_send(s, r, next, cs_at(CS_SEND, off), len);
			continue;
		}
		cs_recv(s, r, prev, cs_at(CS_RECV, off), len);
		if (p < n - 1)
			cs_send(s, r, next, cs_at(CS_RECV, off), len);
	}
}

static void chain_reduce(struct cs_sched *s, uint32_t r, uint32_t slices)
{
	const struct cs_shape *sh = &s->shape;
	uint32_t n = sh->nranks, p = algo_mod((int64_t)r - sh->root, n);
	uint32_t next = (r + 1) % n, prev = (r + n - 1) % n;
	enum cs_buf acc = p == 0 ? CS_RECV : CS_TMP;
	uint64_t off, len;

	for (uint32_t i = 0; i < slices; i++) {
		algo_block(sh->count, slices, i, &off, &len);
		if (!len)
			continue;
		if (p == n - 1) {
			cs_send(s, r, prev, cs_at(CS_SEND, off), len);
			continue;
		}
		cs_recv_reduce(s, r, next, cs_at(acc, off), cs_at(CS_SEND, off), len);
		if (p)
			cs_send(s, r, prev, cs_at(CS_TMP, off), len);
	}
}

static struct cs_sched *chain_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	return algo_rooted_gen(shape, "chain", chain_slices(o), chain_bcast, chain_reduce);
}

const struct algo algo_chain = {
	.name = "chain",
	.colls = 1u << CS_BROADCAST | 1u << CS_REDUCE_COLL,
	.rejects = algo_rejects_bad_root,
	.gen = chain_gen,
	.cost = cost_chain,
	.knobs = ALGO_KNOB_SLICES,
};
