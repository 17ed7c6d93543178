// SPDX-License-Identifier: MIT
/*
 * The collective calls.  Each rank's call is checked and posted; when every
 * rank of the communicator has posted its next collective (send/recv: when
 * both sides have), the set is launched as one plan — or, inside a group,
 * when the outermost ccore_group_end() comes (runtime/plan/group.c).
 */
#include "comm.h"
#include "coll_mismatch.h"
#include "coll_size.h"
#include "lock.h"
#include "util/grow.h"

#include <stdlib.h>
#include <string.h>

static const char *const dtype_names[] = {
	[ccore_i8] = "i8", [ccore_u8] = "u8", [ccore_i32] = "i32", [ccore_u32] = "u32",
	[ccore_i64] = "i64", [ccore_u64] = "u64", [ccore_f16] = "f16", [ccore_bf16] = "bf16",
	[ccore_f32] = "f32", [ccore_f64] = "f64",
};
/* element sizes in bytes, as the device's descriptors take them */
static const uint8_t dtype_sizes[] = {
	[ccore_i8] = 1, [ccore_u8] = 1, [ccore_i32] = 4, [ccore_u32] = 4, [ccore_i64] = 8,
	[ccore_u64] = 8, [ccore_f16] = 2, [ccore_bf16] = 2, [ccore_f32] = 4, [ccore_f64] = 8,
};
static const char *const redop_names[] = {
	[ccore_sum] = "sum", [ccore_prod] = "prod", [ccore_max] = "max", [ccore_min] = "min",
	[ccore_avg] = "avg",
};

size_t ccore_dtype_size(enum ccore_dtype t)
{
	return (unsigned int)t < sizeof(dtype_sizes) ? dtype_sizes[t] : 0;
}

const char *ccore_dtype_name(enum ccore_dtype t)
{
	return (unsigned int)t < 11 && t ? dtype_names[t] : "?";
}

const char *ccore_redop_name(enum ccore_redop op)
{
	return (unsigned int)op < 6 && op ? redop_names[op] : "?";
}

int ccore_dtype_parse(const char *s)
{
	for (int i = 1; i <= ccore_f64; i++)
		if (s && !strcmp(s, dtype_names[i]))
			return i;
	return -1;
}

int ccore_redop_parse(const char *s)
{
	for (int i = 1; i <= ccore_avg; i++)
		if (s && !strcmp(s, redop_names[i]))
			return i;
	return -1;
}

/* --- launching ----------------------------------------------------------- */

static _Thread_local const struct coll_capture *capture;

void coll_capture_set(const struct coll_capture *cap)
{
	capture = cap;
}

/*
 * Every rank posted @ops: launch them now, or at the outermost
 * ccore_group_end() of this thread (group.c), or hand them to the capture.
 */
static int launch(struct clique *q, struct op *ops)
{
	int rc;

	if (capture) {
		struct plan *p = NULL;

		rc = plan_prepare(q, ops, &p);
		rc = rc ?: capture->fn(capture->arg, q, p);
		ops_retire(ops, q->n, rc);
		free(ops);
		return rc;
	}
	if (group_open())
		return group_defer(q, ops);
	rc = plan_launch(q, ops);
	ops_retire(ops, q->n, rc);
	free(ops);
	return rc;
}

/* --- posting ------------------------------------------------------------ */

static int push(struct op_queue *oq, const struct op *op)
{
	if (oq->head + oq->n == oq->cap) {
		if (oq->head) {
			memmove(oq->ops, oq->ops + oq->head, oq->n * sizeof(*oq->ops));
			oq->head = 0;
		} else if (rt_grow((void **)&oq->ops, &oq->cap, oq->n, sizeof(*oq->ops), 8)) {
			return ccore_error(-ENOMEM, "out of memory");
		}
	}
	oq->ops[oq->head + oq->n++] = *op;
	return 0;
}

static struct op *head(struct op_queue *oq)
{
	return oq->n ? &oq->ops[oq->head] : NULL;
}

static void pop(struct op_queue *oq)
{
	oq->head++;
	oq->n--;
}

/* Within one lane, so the stream id is the same already. */
static bool same_shape(const struct op *a, const struct op *b)
{
	return a->coll == b->coll && a->count == b->count && a->dtype == b->dtype &&
	       a->redop == b->redop && a->root == b->root;
}

/* The lane of @stream_id in @q, made on first use; NULL if out of memory. */
static struct post_lane *lane_of(struct clique *q, uint32_t stream_id)
{
	struct post_lane *l;

	for (uint32_t i = 0; i < q->nlanes; i++)
		if (q->lanes[i].stream_id == stream_id)
			return &q->lanes[i];
	l = realloc(q->lanes, (q->nlanes + 1) * sizeof(*l));
	if (!l)
		return NULL;
	q->lanes = l;
	l = &q->lanes[q->nlanes];
	l->stream_id = stream_id;
	l->ranks = calloc(q->n, sizeof(*l->ranks));
	if (!l->ranks)
		return NULL;
	q->nlanes++;
	return l;
}

/*
 * A rank of another process: the call's shape (the same on every rank),
 * its buffers unknown here (exchanged when a plan is built), no stream.
 */
static struct op remote_op(const struct op *o)
{
	return (struct op){ .coll = o->coll, .count = o->count, .dtype = o->dtype,
			    .redop = o->redop, .root = o->root, .peer = o->peer };
}

/* Every rank of this process posted on the lane: take the heads if they agree. */
static int try_collective(struct clique *q, struct post_lane *l)
{
	struct op *ops, *first = NULL;
	int rc;

	for (uint32_t r = 0; r < q->n; r++)
		if (clique_local(q, r) && !head(&l->ranks[r]))
			return 0;
	ops = calloc(q->n, sizeof(*ops));
	if (!ops)
		return ccore_error(-ENOMEM, "out of memory");
	for (uint32_t r = 0; r < q->n; r++) {
		if (!clique_local(q, r))
			continue;
		ops[r] = *head(&l->ranks[r]);
		pop(&l->ranks[r]);
		first = first ? first : &ops[r];
	}
	for (uint32_t r = 0; r < q->n; r++) {
		if (!clique_local(q, r)) {
			ops[r] = remote_op(first);
			continue;
		}
		if (same_shape(first, &ops[r]))
			continue;
		rc = coll_mismatch_error(first, &ops[r], r);
		/* every rank's stream reports it, not only this thread's */
		ops_retire(ops, q->n, rc);
		free(ops);
		return rc;
	}
	return launch(q, ops);
}

/*
 * Sends and receives pair up per (sender, receiver), in posting order,
 * whatever else either rank posted in between.
 */
static int try_p2p(struct clique *q, const struct op *posted)
{
	uint32_t k = posted->root * q->n + posted->peer;
	struct op_queue *sq = &q->sends[k], *rq = &q->recvs[k];
	bool by_us = clique_local(q, posted->root), to_us = clique_local(q, posted->peer);
	const struct op *any;
	struct op *ops;
	int rc;

	/* the side in another process posts there */
	if ((by_us && !head(sq)) || (to_us && !head(rq)))
		return 0;
	any = by_us ? head(sq) : head(rq);
	ops = calloc(q->n, sizeof(*ops));
	if (!ops)
		return ccore_error(-ENOMEM, "out of memory");
	for (uint32_t r = 0; r < q->n; r++)
		ops[r] = (struct op){ .coll = CS_SENDRECV, .root = posted->root,
				      .peer = posted->peer, .count = any->count,
				      .dtype = any->dtype };
	if (by_us) {
		ops[posted->root] = *head(sq);
		pop(sq);
	}
	if (to_us) {
		ops[posted->peer] = *head(rq);
		pop(rq);
	}
	if (ops[posted->peer].count != ops[posted->root].count ||
	    ops[posted->peer].dtype != ops[posted->root].dtype) {
		rc = coll_p2p_mismatch_error(&ops[posted->root], &ops[posted->peer]);
		ops_retire(ops, q->n, rc);
		free(ops);
		return rc;
	}
	return launch(q, ops);
}

/* With the runtime lock held. */
int coll_post(struct ccore_comm *c, const struct op *op)
{
	struct clique *q = c->q;
	struct post_lane *l = NULL;
	struct op_queue *oq;
	int rc;

	if (op->coll == CS_SENDRECV) {
		oq = c->rank == op->root ? &q->sends[op->root * q->n + op->peer]
					 : &q->recvs[op->root * q->n + op->peer];
	} else {
		l = lane_of(q, op->stream->id);
		if (!l)
			return ccore_error(-ENOMEM, "out of memory");
		oq = &l->ranks[c->rank];
	}
	rc = push(oq, op);
	if (rc)
		return rc;
	op->stream->pending++;
	return l ? try_collective(q, l) : try_p2p(q, op);
}

/* --- argument checks ------------------------------------------------------ */

static int check_common(const char *fn, struct ccore_comm *c, enum ccore_dtype dt)
{
	if (!c)
		return ccore_error(-EINVAL, "%s: comm is NULL", fn);
	if (!ccore_dtype_size(dt))
		return ccore_error(-EINVAL, "%s: dtype %d is not one of i8, u8, i32, u32, i64, u64, f16, bf16, f32, f64 (1..10)",
				   fn, (int)dt);
	return 0;
}

static int check_redop(const char *fn, enum ccore_redop op)
{
	if (op < ccore_sum || op > ccore_avg)
		return ccore_error(-EINVAL, "%s: redop %d is not one of sum, prod, max, min, avg (1..5)",
				   fn, (int)op);
	return 0;
}

static int check_buf(const char *fn, const char *what, struct ccore_comm *c, ccore_ptr p,
		     uint64_t bytes)
{
	if (!bytes)
		return 0;
	if (!rt_find(c->q->rt, c->q->ranks[c->rank].dev, p, bytes))
		return ccore_error(-EINVAL, "%s: %s [0x%llx, +%llu bytes) is not inside one device allocation of rank %u (ccore_mem_alloc)",
				   fn, what, (unsigned long long)p, (unsigned long long)bytes,
				   c->rank);
	return 0;
}

static int check_root(const char *fn, const char *what, struct ccore_comm *c, int root)
{
	if (root < 0 || (uint32_t)root >= c->q->n)
		return ccore_error(-EINVAL, "%s: %s %d out of range (0..%u)", fn, what, root,
				   c->q->n - 1);
	return 0;
}

static int post(const char *fn, struct ccore_comm *c, struct ccore_stream *s, struct op *op)
{
	struct cs_shape sh = { .coll = op->coll, .nranks = c->q->n, .count = op->count };
	uint64_t send_bytes, recv_bytes;
	int rc;

	op->stream = comm_stream(c, s);
	if (op->stream->comm != c)
		return ccore_error(-EINVAL, "%s: the stream belongs to another communicator", fn);
	rc = coll_buffer_bytes(fn, &sh, op->dtype, c->q->rt->hbm_size, &send_bytes, &recv_bytes);
	if (rc)
		return rc;
	rt_lock();
	rc = check_buf(fn, "send buffer", c, op->send,
		       op->coll == CS_SENDRECV && op->root != c->rank ? 0 : send_bytes);
	if (!rc)
		rc = check_buf(fn, "recv buffer", c, op->recv,
			       op->coll == CS_SENDRECV && op->peer != c->rank ? 0 : recv_bytes);
	rc = rc ?: coll_post(c, op);
	rt_unlock();
	return rc;
}

int ccore_all_reduce(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
		     enum ccore_redop op, struct ccore_comm *c, struct ccore_stream *s)
{
	struct op o = { .coll = CS_ALLREDUCE, .send = send, .recv = recv, .count = count,
			.dtype = dt, .redop = op };
	int rc = check_common("ccore_all_reduce", c, dt) ?: check_redop("ccore_all_reduce", op);

	return rc ? rc : post("ccore_all_reduce", c, s, &o);
}

int ccore_all_gather(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
		     struct ccore_comm *c, struct ccore_stream *s)
{
	struct op o = { .coll = CS_ALLGATHER, .send = send, .recv = recv, .count = count,
			.dtype = dt };
	int rc = check_common("ccore_all_gather", c, dt);

	return rc ? rc : post("ccore_all_gather", c, s, &o);
}

int ccore_reduce_scatter(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
			 enum ccore_redop op, struct ccore_comm *c, struct ccore_stream *s)
{
	struct op o = { .coll = CS_REDUCESCATTER, .send = send, .recv = recv, .count = count,
			.dtype = dt, .redop = op };
	int rc = check_common("ccore_reduce_scatter", c, dt) ?:
		 check_redop("ccore_reduce_scatter", op);

	return rc ? rc : post("ccore_reduce_scatter", c, s, &o);
}

int ccore_all_to_all(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
		     struct ccore_comm *c, struct ccore_stream *s)
{
	struct op o = { .coll = CS_ALLTOALL, .send = send, .recv = recv, .count = count,
			.dtype = dt };
	int rc = check_common("ccore_all_to_all", c, dt);

	return rc ? rc : post("ccore_all_to_all", c, s, &o);
}

int ccore_broadcast(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt, int root,
		    struct ccore_comm *c, struct ccore_stream *s)
{
	struct op o = { .coll = CS_BROADCAST, .send = send, .recv = recv, .count = count,
			.dtype = dt, .root = (uint32_t)root };
	int rc = check_common("ccore_broadcast", c, dt) ?:
		 check_root("ccore_broadcast", "root", c, root);

	return rc ? rc : post("ccore_broadcast", c, s, &o);
}

int ccore_reduce(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
		 enum ccore_redop op, int root, struct ccore_comm *c, struct ccore_stream *s)
{
	struct op o = { .coll = CS_REDUCE_COLL, .send = send, .recv = recv, .count = count,
			.dtype = dt, .redop = op, .root = (uint32_t)root };
	int rc = check_common("ccore_reduce", c, dt) ?: check_redop("ccore_reduce", op) ?:
		 check_root("ccore_reduce", "root", c, root);

	return rc ? rc : post("ccore_reduce", c, s, &o);
}

int ccore_send(ccore_ptr send, size_t count, enum ccore_dtype dt, int peer,
	       struct ccore_comm *c, struct ccore_stream *s)
{
	struct op o = { .coll = CS_SENDRECV, .send = send, .count = count, .dtype = dt };
	int rc = check_common("ccore_send", c, dt) ?: check_root("ccore_send", "peer", c, peer);

	if (rc)
		return rc;
	if ((uint32_t)peer == c->rank)
		return ccore_error(-EINVAL, "ccore_send: peer %d is this rank; send to another rank",
				   peer);
	o.root = c->rank;
	o.peer = (uint32_t)peer;
	return post("ccore_send", c, s, &o);
}

int ccore_recv(ccore_ptr recv, size_t count, enum ccore_dtype dt, int peer,
	       struct ccore_comm *c, struct ccore_stream *s)
{
	struct op o = { .coll = CS_SENDRECV, .recv = recv, .count = count, .dtype = dt };
	int rc = check_common("ccore_recv", c, dt) ?: check_root("ccore_recv", "peer", c, peer);

	if (rc)
		return rc;
	if ((uint32_t)peer == c->rank)
		return ccore_error(-EINVAL, "ccore_recv: peer %d is this rank; receive from another rank",
				   peer);
	o.root = (uint32_t)peer;
	o.peer = c->rank;
	return post("ccore_recv", c, s, &o);
}
