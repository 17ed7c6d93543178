// SPDX-License-Identifier: MIT
/*
 * Binomial-tree Broadcast and Reduce ("binomial"; reference:
 * collective-algorithms.txt §3.2 and §4.2), any root and any N.
 *
 * Ranks are renumbered v = (rank - root) mod N.  The parent of v > 0 is v
 * with its lowest set bit cleared; the children of v are v + 2^k for every
 * 2^k below that bit (every 2^k < N for the root) with v + 2^k < N.  Depth
 * and the root's fan-out are ceil(log2 N).
 *
 *   Broadcast: receive from the parent, then forward to the children,
 *              largest subtree (farthest child) first; out of place the
 *              root copies its input to its output after its sends.
 *   Reduce:    receive-reduce from the children, smallest subtree first,
 *              then send the partial sum to the parent.  Non-root ranks
 *              accumulate in TMP (their RECV is not theirs to write), the
 *              root in RECV.
 * Each slice of o->slices runs the whole tree before the next one is
 * issued, so an inner rank forwards slice i while slice i + 1 arrives.
 *
 * Dependencies: Broadcast needs none (sends follow the receive they
 * forward; receives write disjoint slices).  In Reduce the receive-reduces
 * of one slice all read and write the same accumulator, and receives are
 * not ordered among themselves, so each one depends on the previous one.
 * Its credit is then granted once the previous child's data is in, which
 * cannot deadlock: children never wait for their parent.
 */
#include "algo.h"
#include "algo_cost.h"

struct tree_node {
	uint32_t parent;	/* rank; == self for the root */
	uint32_t nkids;
	uint32_t kids[32];	/* ranks, farthest (largest subtree) first */
};

static void tree_node(const struct cs_shape *sh, uint32_t r, struct tree_node *t)
{
	uint32_t n = sh->nranks, v = algo_mod((int64_t)r - sh->root, n);
	uint64_t low = v ? (v & -v) : (uint64_t)1 << 32;

	t->parent = v ? (uint32_t)((v - low + sh->root) % n) : r;
	t->nkids = 0;
	for (int k = 31; k >= 0; k--) {
		uint64_t m = (uint64_t)1 << k;

		if (m < low && v + m < n)
			t->kids[t->nkids++] = (uint32_t)((v + m + sh->root) % n);
	}
}

static void tree_bcast(struct cs_sched *s, uint32_t r, uint32_t slices)
{
	const struct cs_shape *sh = &s->shape;
	struct tree_node t;
	enum cs_buf src = r == sh->root ? CS_SEND : CS_RECV;
	uint64_t off, len;

	tree_node(sh, r, &t);
	for (uint32_t i = 0; i < slices; i++) {
		algo_block(sh->count, slices, i, &off, &len);
		if (!len)
			continue;
		if (r != sh->root)
			cs_recv(s, r, t.parent, cs_at(CS_RECV, off), len);
		for (uint32_t c = 0; c < t.nkids; c++)
			cs_send(s, r, t.kids[c], cs_at(src, off), len);
	}
	/*
	 * The root's own copy last: its local ring also carries its sends to
	 * the children 2^k (k >= 2) away, which would wait behind it.
	 */
	if (r == sh->root && !sh->in_place)
		cs_copy(s, r, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), sh->count);
}

static void tree_reduce(struct cs_sched *s, uint32_t r, uint32_t slices)
{
	const struct cs_shape *sh = &s->shape;
	enum cs_buf acc = r == sh->root ? CS_RECV : CS_TMP;
	struct tree_node t;
	uint64_t off, len;

	tree_node(sh, r, &t);
	for (uint32_t i = 0; i < slices; i++) {
		uint32_t prev = 0;

		algo_block(sh->count, slices, i, &off, &len);
		if (!len)
			continue;
		for (uint32_t c = t.nkids; c-- > 0;) {
			bool first = c == t.nkids - 1;
			uint32_t st = cs_recv_reduce(s, r, t.kids[c], cs_at(acc, off),
						     cs_at(first ? CS_SEND : acc, off), len);

			if (!first)
				cs_dep(s, r, st, prev);
			prev = st;
		}
		if (r != sh->root)
			cs_send(s, r, t.parent, cs_at(t.nkids ? CS_TMP : CS_SEND, off), len);
	}
}

static struct cs_sched *tree_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	return algo_rooted_gen(shape, "binomial", o->slices ? o->slices : 1, tree_bcast,
			       tree_reduce);
}

const struct algo algo_binomial = {
	.name = "binomial",
	.colls = 1u << CS_BROADCAST | 1u << CS_REDUCE_COLL,
	.rejects = algo_rejects_bad_root,
	.gen = tree_gen,
	.cost = cost_binomial,
	.knobs = ALGO_KNOB_SLICES,
};
