// SPDX-License-Identifier: GPL-2.0
/* One rank's part of a checked collective (rank_run.h), as ccore-bench makes it (coll_call.h). */
#include "rank_run.h"
#include "ccore_test.h"
#include "../../tools/common/coll_call.h"
#include "bootstrap/boot.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The call as tools/common/coll_call.h names it (enum cs_coll is enum ccore_coll_op's order). */
static struct coll_call call_of(const struct rank_run *x)
{
	return (struct coll_call){
		.op = (enum ccore_coll_op)(ccore_op_allreduce + x->coll), .count = x->count,
		.dtype = x->dt, .redop = x->op, .root = (int)x->root, .in_place = x->in_place,
	};
}

_Static_assert(ccore_op_allreduce + CS_SENDRECV == ccore_op_sendrecv,
	       "enum cs_coll is enum ccore_coll_op's order, from ccore_op_allreduce");

void rank_run_fill(const struct rank_bufs *b, const struct rank_run *x)
{
	struct coll_call c = call_of(x);
	ccore_ptr s, rv;

	coll_call_ptrs(&c, (int)b->r, b->sb, b->rb, &s, &rv);
	memset(ccore_mem_host(b->comm, b->rb), 0x5c, b->bytes);
	coll_call_fill(&c, (int)b->r, (int)b->n, ccore_mem_host(b->comm, s));
}

int rank_run_post(const struct rank_bufs *b, const struct rank_run *x)
{
	struct coll_call c = call_of(x);
	ccore_ptr s, rv;

	coll_call_ptrs(&c, (int)b->r, b->sb, b->rb, &s, &rv);
	return coll_call_post(&c, (int)b->r, (int)b->n, s, rv, b->comm, NULL);
}

long rank_run_check(const struct rank_bufs *b, const struct rank_run *x)
{
	struct coll_call c = call_of(x);
	ccore_ptr s, rv;

	coll_call_ptrs(&c, (int)b->r, b->sb, b->rb, &s, &rv);
	return coll_call_wrong(&c, (int)b->r, (int)b->n, ccore_mem_host(b->comm, rv));
}

void rank_run_describe(const struct rank_run *x, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s count %llu %s %s root %u, %s", cs_coll_name(x->coll),
		 x->algo ? x->algo : "(tuner)", (unsigned long long)x->count,
		 ccore_dtype_name(x->dt), ccore_redop_name(x->op), x->root,
		 x->in_place ? "in place" : "out of place");
}

pid_t rank_run_fork(int *fd)
{
	int p[2];
	pid_t pid;

	ASSERT_EQ(pipe(p), 0);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	close(pid ? p[1] : p[0]);
	*fd = pid ? p[0] : p[1];
	return pid;
}

pid_t rank_run_launcher(struct ccore_unique_id *id)
{
	return rank_run_launcher_in(id, NULL);
}

pid_t rank_run_launcher_in(struct ccore_unique_id *id, void (*enter)(void))
{
	int fd;
	pid_t pid = rank_run_fork(&fd);

	if (pid == 0) {
		if (enter)
			enter();
		if (ccore_get_unique_id(id)) {
			fprintf(stderr, "# ccore_get_unique_id: %s\n", ccore_last_error());
			_exit(1);
		}
		if (write(fd, id, sizeof(*id)) != sizeof(*id))
			_exit(1);
		/* ends once it served every rank; a guest under TCG joins slowly */
		boot_root_wait((const struct boot_id *)id, 60000);
		_exit(0);
	}
	ASSERT_EQ(read(fd, id, sizeof(*id)), sizeof(*id));
	close(fd);
	return pid;
}
