// SPDX-License-Identifier: MIT
/*
 * Point-to-point Send/Recv ("p2p"): shape.root sends count elements to
 * shape.peer.  The message is cut into o->slices pieces, each one SEND on
 * the root and one RECV on the peer, so the lowering can keep several in
 * flight.  Other ranks have no steps.
 *
 * No dependencies are needed: the root only reads its SEND buffer and the
 * peer only writes disjoint ranges of its RECV buffer.  Without deps every
 * receive's credit is granted in the prologue, so the root never waits on
 * the peer's program.
 *
 * root == peer (always so for N = 1) is a send to self: a local copy when
 * out of place, nothing in place (the data already is where it belongs).
 */
#include "algo.h"
#include "algo_cost.h"

static struct cs_sched *p2p_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	uint32_t slices = o->slices ? o->slices : 1, from = shape->root, to = shape->peer;
	struct cs_sched *s = cs_new(shape, "p2p");
	uint64_t off, len;

	if (!s || !shape->count)
		return s;
	if (from == to) {
		if (!shape->in_place)
			cs_copy(s, to, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), shape->count);
		return s;
	}
	for (uint32_t i = 0; i < slices; i++) {
		algo_block(shape->count, slices, i, &off, &len);
		if (!len)
			continue;
		cs_send(s, from, to, cs_at(CS_SEND, off), len);
		cs_recv(s, to, from, cs_at(CS_RECV, off), len);
	}
	return s;
}

static const char *p2p_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	(void)o;
	if (s->root >= s->nranks)
		return "the sender (root) is not a rank of the group";
	if (s->peer >= s->nranks)
		return "the receiver (peer) is not a rank of the group";
	return NULL;
}

const struct algo algo_p2p = {
	.name = "p2p",
	.colls = 1u << CS_SENDRECV,
	.rejects = p2p_rejects,
	.gen = p2p_gen,
	.cost = cost_p2p,
	.knobs = ALGO_KNOB_SLICES,
};
