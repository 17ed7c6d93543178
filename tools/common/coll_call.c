// SPDX-License-Identifier: MIT
/* One collective call: pointers, inputs, the call, its check (coll_call.h). */
#include "coll_call.h"

#include "ccore_verifiable.h"

void coll_call_ptrs(const struct coll_call *c, int r, ccore_ptr sb, ccore_ptr rb, ccore_ptr *send,
		    ccore_ptr *recv)
{
	size_t block = (size_t)r * c->count * ccore_dtype_size(c->dtype);

	*send = sb;
	*recv = rb;
	if (!c->in_place)
		return;
	*send = rb;
	if (c->op == ccore_op_allgather)
		*send = rb + block;
	else if (c->op == ccore_op_reducescatter)
		*recv = rb + block;
}

size_t coll_call_in_elems(const struct coll_call *c, int n)
{
	if (c->op == ccore_op_reducescatter || c->op == ccore_op_alltoall)
		return c->count * (size_t)n;
	return c->count;
}

void coll_call_fill(const struct coll_call *c, int r, int n, void *send_host)
{
	ccore_verifiable_fill(send_host, coll_call_in_elems(c, n), c->dtype, c->redop,
			      c->op == ccore_op_broadcast ? c->root : r, 0);
}

int coll_call_post(const struct coll_call *c, int r, int n, ccore_ptr send, ccore_ptr recv,
		   struct ccore_comm *comm, struct ccore_stream *stream)
{
	switch (c->op) {
	case ccore_op_allreduce:
		return ccore_all_reduce(send, recv, c->count, c->dtype, c->redop, comm, stream);
	case ccore_op_allgather:
		return ccore_all_gather(send, recv, c->count, c->dtype, comm, stream);
	case ccore_op_reducescatter:
		return ccore_reduce_scatter(send, recv, c->count, c->dtype, c->redop, comm, stream);
	case ccore_op_alltoall:
		return ccore_all_to_all(send, recv, c->count, c->dtype, comm, stream);
	case ccore_op_broadcast:
		return ccore_broadcast(send, recv, c->count, c->dtype, c->root, comm, stream);
	case ccore_op_reduce:
		return ccore_reduce(send, recv, c->count, c->dtype, c->redop, c->root, comm, stream);
	default:
		return ccore_send(send, c->count, c->dtype, (r + 1) % n, comm, stream) ?:
		       ccore_recv(recv, c->count, c->dtype, (r + n - 1) % n, comm, stream);
	}
}

long coll_call_wrong(const struct coll_call *c, int r, int n, const void *recv_host)
{
	const char *out = recv_host;
	size_t block = c->count * ccore_dtype_size(c->dtype);
	long wrong = 0;

	switch (c->op) {
	case ccore_op_allreduce:
		return ccore_verifiable_check_reduced(out, c->count, c->dtype, c->redop, n, 0);
	case ccore_op_reduce:
		return r != c->root ? 0 :
		       ccore_verifiable_check_reduced(out, c->count, c->dtype, c->redop, n, 0);
	case ccore_op_reducescatter:
		return ccore_verifiable_check_reduced(out, c->count, c->dtype, c->redop, n,
						      (size_t)r * c->count);
	case ccore_op_allgather:
	case ccore_op_alltoall:
		/* block j from rank j: its block r of AllToAll, its only one of AllGather */
		for (int j = 0; j < n; j++)
			wrong += ccore_verifiable_check_from(out + (size_t)j * block, c->count, c->dtype,
							     c->redop, j,
							     c->op == ccore_op_alltoall ?
							     (size_t)r * c->count : 0);
		return wrong;
	case ccore_op_broadcast:
		return ccore_verifiable_check_from(out, c->count, c->dtype, c->redop, c->root, 0);
	default:
		return ccore_verifiable_check_from(out, c->count, c->dtype, c->redop, (r + n - 1) % n,
						   0);
	}
}
