/* SPDX-License-Identifier: MIT */
/*
 * One collective call the way ccore-bench, ccore-plan and the tests make
 * it: where a rank's send and receive pointers go (in place as NCCL places
 * them), its verifiable inputs, the call itself, and the count of wrong
 * elements in what it returned.  SendRecv is a ring shift: each rank sends
 * to the next and receives from the one before.
 */
#ifndef CCORE_TOOLS_COLL_CALL_H
#define CCORE_TOOLS_COLL_CALL_H

#include <stdbool.h>
#include <stddef.h>

#include "ccore.h"

struct coll_call {
	enum ccore_coll_op op;
	size_t count;			/* as the call counts it */
	enum ccore_dtype dtype;
	enum ccore_redop redop;		/* of reductions, and of the inputs' values */
	int root;			/* of Broadcast and Reduce */
	bool in_place;
};

/*
 * Rank @r's send and receive pointers from its buffers @sb and @rb: out of
 * place, those; in place, @rb, AllGather sending from rank r's block of it
 * and ReduceScatter receiving into rank r's block.
 */
void coll_call_ptrs(const struct coll_call *c, int r, ccore_ptr sb, ccore_ptr rb, ccore_ptr *send,
		    ccore_ptr *recv);
/* Elements one rank sends, of @n ranks. */
size_t coll_call_in_elems(const struct coll_call *c, int n);
/* Rank @r's verifiable inputs at @send_host (Broadcast: the root's on every rank). */
void coll_call_fill(const struct coll_call *c, int r, int n, void *send_host);
/* Rank @r of @n posts @c on @comm's @stream (NULL: its default one): the call's return code. */
int coll_call_post(const struct coll_call *c, int r, int n, ccore_ptr send, ccore_ptr recv,
		   struct ccore_comm *comm, struct ccore_stream *stream);
/* Wrong elements in rank @r's result @recv_host after every rank's fill and post. */
long coll_call_wrong(const struct coll_call *c, int r, int n, const void *recv_host);

#endif
