// SPDX-License-Identifier: GPL-2.0
/* One rank's part of a checked collective (rank_run.h). */
#include "rank_run.h"
#include "ccore_test.h"
#include "ccore_verifiable.h"
#include "bootstrap/boot.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void ptrs(const struct rank_bufs *b, const struct rank_run *x, ccore_ptr *s, ccore_ptr *rv)
{
	size_t es = ccore_dtype_size(x->dt);

	*s = b->sb;
	*rv = b->rb;
	if (!x->in_place)
		return;
	*s = *rv;
	if (x->coll == CS_ALLGATHER)
		*s = *rv + b->r * x->count * es;
	else if (x->coll == CS_REDUCESCATTER)
		*rv = *s + b->r * x->count * es;
}

static uint64_t in_elems(const struct rank_bufs *b, const struct rank_run *x)
{
	return x->coll == CS_REDUCESCATTER || x->coll == CS_ALLTOALL ? x->count * b->n : x->count;
}

void rank_run_fill(const struct rank_bufs *b, const struct rank_run *x)
{
	ccore_ptr s, rv;

	ptrs(b, x, &s, &rv);
	memset(ccore_mem_host(b->comm, b->rb), 0x5c, b->bytes);
	ccore_verifiable_fill(ccore_mem_host(b->comm, s), in_elems(b, x), x->dt, x->op,
			      x->coll == CS_BROADCAST ? (int)x->root : (int)b->r, 0);
}

int rank_run_post(const struct rank_bufs *b, const struct rank_run *x)
{
	struct ccore_comm *c = b->comm;
	uint32_t n = b->n, r = b->r;
	ccore_ptr s, rv;

	ptrs(b, x, &s, &rv);
	switch (x->coll) {
	case CS_ALLREDUCE:
		return ccore_all_reduce(s, rv, x->count, x->dt, x->op, c, NULL);
	case CS_ALLGATHER:
		return ccore_all_gather(s, rv, x->count, x->dt, c, NULL);
	case CS_REDUCESCATTER:
		return ccore_reduce_scatter(s, rv, x->count, x->dt, x->op, c, NULL);
	case CS_ALLTOALL:
		return ccore_all_to_all(s, rv, x->count, x->dt, c, NULL);
	case CS_BROADCAST:
		return ccore_broadcast(s, rv, x->count, x->dt, (int)x->root, c, NULL);
	case CS_REDUCE_COLL:
		return ccore_reduce(s, rv, x->count, x->dt, x->op, (int)x->root, c, NULL);
	default:
		/* a ring shift (in the caller's group): everyone sends to the next rank */
		return ccore_send(s, x->count, x->dt, (int)((r + 1) % n), c, NULL) ?:
		       ccore_recv(rv, x->count, x->dt, (int)((r + n - 1) % n), c, NULL);
	}
}

long rank_run_check(const struct rank_bufs *b, const struct rank_run *x)
{
	size_t es = ccore_dtype_size(x->dt);
	uint32_t n = b->n, r = b->r;
	long wrong = 0;
	const char *out;
	ccore_ptr s, rv;

	ptrs(b, x, &s, &rv);
	out = ccore_mem_host(b->comm, rv);
	switch (x->coll) {
	case CS_ALLREDUCE:
		return ccore_verifiable_check_reduced(out, x->count, x->dt, x->op, (int)n, 0);
	case CS_REDUCE_COLL:
		return r != x->root ? 0 :
		       ccore_verifiable_check_reduced(out, x->count, x->dt, x->op, (int)n, 0);
	case CS_REDUCESCATTER:
		return ccore_verifiable_check_reduced(out, x->count, x->dt, x->op, (int)n,
						      r * x->count);
	case CS_ALLGATHER:
	case CS_ALLTOALL:
		for (uint32_t k = 0; k < n; k++)
			wrong += ccore_verifiable_check_from(out + k * x->count * es, x->count,
							     x->dt, x->op, (int)k,
							     x->coll == CS_ALLTOALL ?
							     r * x->count : 0);
		return wrong;
	case CS_BROADCAST:
		return ccore_verifiable_check_from(out, x->count, x->dt, x->op, (int)x->root, 0);
	default:
		return ccore_verifiable_check_from(out, x->count, x->dt, x->op,
						   (int)((r + n - 1) % n), 0);
	}
}

void rank_run_describe(const struct rank_run *x, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s count %llu %s %s root %u, %s", cs_coll_name(x->coll),
		 x->algo ? x->algo : "(tuner)", (unsigned long long)x->count,
		 ccore_dtype_name(x->dt), ccore_redop_name(x->op), x->root,
		 x->in_place ? "in place" : "out of place");
}

pid_t rank_run_launcher(struct ccore_unique_id *id)
{
	int p[2];
	pid_t pid;

	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		if (ccore_get_unique_id(id) || write(p[1], id, sizeof(*id)) != sizeof(*id))
			_exit(1);
		boot_root_wait((const struct boot_id *)id, 20000);
		_exit(0);
	}
	close(p[1]);
	ASSERT_EQ(read(p[0], id, sizeof(*id)), sizeof(*id));
	close(p[0]);
	return pid;
}
