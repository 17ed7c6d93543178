// SPDX-License-Identifier: MIT
/*
 * Mesh AllGather, ReduceScatter and AllReduce, and single-step Mesh
 * AllReduce (reference: internode-collectives.txt, "Mesh Algorithm").
 * Every transfer goes straight to its destination, so each phase is one
 * network step: O(1) latency for (N-1) peers' worth of traffic.  Every
 * rank goes through its peers in the same order (peer_at()).
 *
 * AllGather: rank r sends its input to every peer and receives block p
 * from each peer p straight into place.  Nothing is reused, so no receive
 * needs a dependency and every credit is granted in the prologue.
 *
 * ReduceScatter: rank r sends block p of its input to each peer p, and
 * sums what it receives for its own block (gather_sum()): the first peer's
 * data is receive-reduced onto its input straight into RECV, the other
 * N-2 land in TMP slots, and local reductions add the slots pairwise, then
 * the total into RECV.  No receive has a dependency, so all N-1 may land
 * at once; a chain of receive-reduces into one accumulator would need a
 * dependency per receive, whose credit waits for the previous peer's data.
 * Local steps are unordered among themselves, so each reduction depends on
 * the steps that produced its operands; the pairwise tree keeps that chain
 * log2(N) deep.
 *
 * AllReduce: mesh reduce-scatter over N ceil-split blocks, then mesh
 * all-gather of the reduced blocks.  The all-gather sends wait for the last
 * step that wrote the block; in place, the receive of block p overwrites
 * what the reduce-scatter send to p still reads, so it depends on that send.
 *
 * Single-step AllReduce (mesh_oneshot): every rank sends its whole input to
 * every peer and sums the N-1 copies it receives the same way.  In place,
 * RECV is the input, so the rank first copies it to a TMP slot of its own
 * and sends from there: its result may then overwrite RECV as soon as the
 * copies it received are summed, not only once all N-1 of its sends have
 * drained (at 1024 ranks waiting for the sends took 168 µs against 44 out
 * of place).  All received copies are staged and only the last reduction
 * writes RECV, after the snapshot copy read it.
 */
#include "algo.h"
#include "algo_cost.h"

#include <stdlib.h>

struct mesh {
	struct cs_sched *s;
	uint32_t n;
	uint32_t G;		/* ranks per node (n: one node) */
	uint64_t count;
	bool in_place;
	int64_t *sent;		/* per peer: the (reduce-scatter) send to it */
	int64_t *slot_at;	/* per TMP slot: the step that last wrote it */
};

static void dep_on(struct mesh *m, uint32_t r, uint32_t st, int64_t on)
{
	if (on >= 0)
		cs_dep(m->s, r, st, (uint32_t)on);
}

/*
 * The i-th peer of @r (i = 1..n-1), in the order every rank uses: node
 * x + i mod X, its rank g + i / X (r is rank g of node x, X nodes of G
 * ranks).  On one node that is r + i.  Across nodes, at every i each rank
 * receives from one other, and sends to other nodes alternate with sends
 * inside the node, so the NICs and the node's links work side by side.
 * The plain r + i would have every rank of a node start its sends to the
 * next node at that node's first rank, all landing on one device's NIC
 * (and its sends inside the node and out of it one after the other).
 */
static uint32_t peer_at(const struct mesh *m, uint32_t r, uint32_t i)
{
	uint32_t X = m->n / m->G;

	return (r / m->G + i % X) % X * m->G + (r % m->G + i / X) % m->G;
}

/* The rank whose i-th peer is @r: the i-th to send to it. */
static uint32_t sender_at(const struct mesh *m, uint32_t r, uint32_t i)
{
	uint32_t X = m->n / m->G;

	return (r / m->G + X - i % X) % X * m->G + (r % m->G + m->G - i / X % m->G) % m->G;
}

/* Where rank @b's reduce-scatter block lives (elements of SEND/RECV). */
static void rs_block(const struct mesh *m, uint32_t b, uint64_t *off, uint64_t *len)
{
	if (m->s->shape.coll == CS_ALLREDUCE) {
		algo_block(m->count, m->n, b, off, len);
	} else {
		*off = (uint64_t)b * m->count;
		*len = m->count;
	}
}

/*
 * Add @len elements from every peer of @r to @own, into @dst.  Peer data
 * is staged in TMP slots @slot apart, except the first peer's when @direct
 * (receive-reduced into @dst).  The i-th reduction also waits for
 * @after[i] (-1: nothing).  Returns the last step that writes @dst.
 */
static uint32_t gather_sum(struct mesh *m, uint32_t r, struct cs_ref dst, struct cs_ref own,
			   uint64_t len, uint64_t slot, bool direct, const int64_t *after)
{
	struct cs_sched *s = m->s;
	uint32_t n = m->n, nslots = n - 1 - direct, done = 0, st = 0;

	if (direct)
		st = cs_recv_reduce(s, r, sender_at(m, r, 1), dst, own, len);
	for (uint32_t j = 0; j < nslots; j++) {
		cs_recv(s, r, sender_at(m, r, 1 + direct + j), cs_at(CS_TMP, j * slot), len);
		m->slot_at[j] = -1;
	}
	/* pairwise: slot j += slot j + w, level by level */
	for (uint32_t w = 1; w < nslots; w *= 2)
		for (uint32_t j = 0; j + w < nslots; j += 2 * w) {
			st = cs_reduce(s, r, cs_at(CS_TMP, j * slot), cs_at(CS_TMP, j * slot),
				       cs_at(CS_TMP, (j + w) * slot), len);
			dep_on(m, r, st, m->slot_at[j]);
			dep_on(m, r, st, m->slot_at[j + w]);
			dep_on(m, r, st, after ? after[done++] : -1);
			m->slot_at[j] = st;
		}
	if (!nslots)
		return st;
	st = cs_reduce(s, r, dst, direct ? dst : own, cs_at(CS_TMP, 0), len);
	dep_on(m, r, st, m->slot_at[0]);
	while (after && done < n - 1)
		dep_on(m, r, st, after[done++]);
	return st;
}

/* N = 1: out of place the output is a copy of the input. */
static void single_rank(struct mesh *m)
{
	if (!m->in_place)
		cs_copy(m->s, 0, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), m->count);
}

static void allgather(struct mesh *m, uint32_t r)
{
	struct cs_sched *s = m->s;
	uint64_t c = m->count;

	if (!m->in_place)
		cs_copy(s, r, cs_at(CS_RECV, r * c), cs_at(CS_SEND, 0), c);
	for (uint32_t i = 1; i < m->n; i++)
		cs_send(s, r, peer_at(m, r, i), cs_at(CS_SEND, 0), c);
	for (uint32_t i = 1; i < m->n; i++) {
		uint32_t p = sender_at(m, r, i);

		cs_recv(s, r, p, cs_at(CS_RECV, p * c), c);
	}
}

/* Reduce-scatter of rank @r into @dst; the last step writing it, or -1. */
static int64_t reduce_scatter(struct mesh *m, uint32_t r, struct cs_ref dst)
{
	struct cs_sched *s = m->s;
	uint64_t off, len, first, slot;

	for (uint32_t i = 1; i < m->n; i++) {
		uint32_t p = peer_at(m, r, i);

		rs_block(m, p, &off, &len);
		m->sent[p] = len ? (int64_t)cs_send(s, r, p, cs_at(CS_SEND, off), len) : -1;
	}
	rs_block(m, 0, &first, &slot);	/* block 0 is the largest */
	rs_block(m, r, &off, &len);
	if (!len)
		return -1;
	return gather_sum(m, r, dst, cs_at(CS_SEND, off), len, slot, true, NULL);
}

/* All-gather phase of AllReduce: share the reduced block, collect the rest. */
static void ar_gather(struct mesh *m, uint32_t r, int64_t reduced)
{
	struct cs_sched *s = m->s;
	uint64_t off, len;

	algo_block(m->count, m->n, r, &off, &len);
	for (uint32_t i = 1; i < m->n && len; i++)
		dep_on(m, r, cs_send(s, r, peer_at(m, r, i), cs_at(CS_RECV, off), len), reduced);
	for (uint32_t i = 1; i < m->n; i++) {
		uint32_t p = sender_at(m, r, i), st;

		algo_block(m->count, m->n, p, &off, &len);
		if (!len)
			continue;
		st = cs_recv(s, r, p, cs_at(CS_RECV, off), len);
		/* in place, the reduce-scatter send to p still reads it */
		if (m->in_place)
			dep_on(m, r, st, m->sent[p]);
	}
}

/* Single-step AllReduce of rank @r. */
static void oneshot_rank(struct mesh *m, uint32_t r)
{
	struct cs_sched *s = m->s;
	uint64_t c = m->count;
	struct cs_ref input = cs_at(CS_SEND, 0);
	int64_t snapshot = -1;

	if (m->in_place) {
		input = cs_at(CS_TMP, (uint64_t)(m->n - 1) * c);
		snapshot = cs_copy(s, r, input, cs_at(CS_RECV, 0), c);
	}
	for (uint32_t i = 1; i < m->n; i++) {
		m->sent[i - 1] = -1;
		dep_on(m, r, cs_send(s, r, peer_at(m, r, i), input, c), snapshot);
	}
	/* in place, the reduction that writes RECV comes after the snapshot */
	m->sent[0] = snapshot;
	gather_sum(m, r, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), c, c, !m->in_place,
		   m->in_place ? m->sent : NULL);
}

static struct cs_sched *gen(const struct cs_shape *shape, const struct algo_opts *o,
			    bool oneshot)
{
	struct mesh m = { .n = shape->nranks, .count = shape->count, .in_place = shape->in_place };
	uint64_t off, len;

	/* an irregular grouping counts as one node */
	m.G = o && o->ranks_per_node && m.n % o->ranks_per_node == 0 ? o->ranks_per_node : m.n;
	m.s = cs_new(shape, oneshot ? "mesh_oneshot" : "mesh");
	if (!m.s || !m.count)
		return m.s;
	if (m.n == 1) {
		single_rank(&m);
		return m.s;
	}
	m.sent = calloc(2 * (size_t)m.n, sizeof(*m.sent));
	if (!m.sent) {
		cs_free(m.s);
		return NULL;
	}
	m.slot_at = m.sent + m.n;
	/* staging: one slot per peer (but the first, when receive-reduced) */
	rs_block(&m, 0, &off, &len);
	if (oneshot)	/* in place, all N-1 copies and the input's snapshot */
		m.s->tmp_count = (m.in_place ? m.n : m.n - 2) * m.count;
	else if (shape->coll != CS_ALLGATHER)
		m.s->tmp_count = (m.n - 2) * len;
	for (uint32_t r = 0; r < m.n; r++) {
		if (oneshot) {
			oneshot_rank(&m, r);
		} else if (shape->coll == CS_ALLGATHER) {
			allgather(&m, r);
		} else if (shape->coll == CS_REDUCESCATTER) {
			reduce_scatter(&m, r, cs_at(CS_RECV, 0));
		} else {
			algo_block(m.count, m.n, r, &off, &len);
			ar_gather(&m, r, reduce_scatter(&m, r, cs_at(CS_RECV, off)));
		}
	}
	free(m.sent);
	return m.s;
}

static struct cs_sched *mesh_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	return gen(shape, o, false);
}

static struct cs_sched *oneshot_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	return gen(shape, o, true);
}

static const char *mesh_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	(void)s;
	(void)o;
	return NULL;
}

/*
 * Every rank sends to every other: 2(N-1) steps per rank, N^2 in all.  At
 * 1024 ranks (16 nodes) the one-shot AllReduce of 8 bytes is 3.1 million
 * steps, 1.3 s to plan and 2.5 s to load, 1.2 GiB, for 44 us where RDH
 * takes a little more: the tuner keeps Mesh to a few nodes' worth.
 */
#define MESH_TUNER_MAX_RANKS 256

const struct algo algo_mesh = {
	.name = "mesh",
	.colls = 1u << CS_ALLREDUCE | 1u << CS_ALLGATHER | 1u << CS_REDUCESCATTER,
	.rejects = mesh_rejects,
	.gen = mesh_gen,
	.cost = cost_mesh,
	.tuner_max_ranks = MESH_TUNER_MAX_RANKS,
};

const struct algo algo_mesh_oneshot = {
	.name = "mesh_oneshot",
	.colls = 1u << CS_ALLREDUCE,
	.rejects = mesh_rejects,
	.gen = oneshot_gen,
	.cost = cost_mesh_oneshot,
	.tuner_max_ranks = MESH_TUNER_MAX_RANKS,
};
