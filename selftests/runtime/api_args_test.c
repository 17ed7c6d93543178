// SPDX-License-Identifier: GPL-2.0
/*
 * Every entry point of ccore.h with NULL or bad arguments: a negative
 * errno and a last error naming the call and the argument at fault, never
 * a crash (NULL communicators, out pointers and arrays; n out of range or
 * not the communicator's size; communicators of another communicator, out
 * of order or twice; bad dtypes, redops, roots, peers; streams of another
 * communicator).  Functional sim, 2 ranks (and 4 for splits).
 */
#include "ccore_test.h"
#include "ccore.h"
#include "timed_world.h"

#include <errno.h>
#include <stdbool.h>

#define BUF 4096

/* @n ranks on one device, functional sim */
static void open_world(struct timed_world *w, uint32_t n)
{
	timed_world_open(w, &(struct ccore_topology){ 1, 1, n }, "", BUF);
}

#define EXPECT_ERR(call, err, text)                                               \
	do {                                                                      \
		int rc_ = (call);                                                 \
		if (rc_ != (err))                                                 \
			FAIL("%s returned %d, expected %d (%s)", #call, rc_, (err),     \
			     ccore_last_error());                                 \
		ASSERT_STR_CONTAINS(ccore_last_error(), text);                    \
	} while (0)

TEST(comm_split_rejects_null_and_foreign_communicators)
{
	struct timed_world w, v;
	struct ccore_comm *out[4], *mixed[4], *none[4] = { NULL };
	int color[4] = { 0, 0, 1, 1 }, key[4] = { 0 };

	open_world(&w, 4);
	open_world(&v, 4);
	/* comms[0] NULL crashed: it was read before any check */
	EXPECT_ERR(ccore_comm_split(none, 4, color, key, out), -EINVAL,
		   "ccore_comm_split: comms[0] is NULL");
	EXPECT_ERR(ccore_comm_split(NULL, 4, color, key, out), -EINVAL,
		   "ccore_comm_split: comms is NULL");
	EXPECT_ERR(ccore_comm_split(w.c, 4, NULL, key, out), -EINVAL,
		   "ccore_comm_split: color is NULL");
	EXPECT_ERR(ccore_comm_split(w.c, 4, color, NULL, out), -EINVAL,
		   "ccore_comm_split: key is NULL");
	EXPECT_ERR(ccore_comm_split(w.c, 4, color, key, NULL), -EINVAL,
		   "ccore_comm_split: out is NULL");
	EXPECT_ERR(ccore_comm_split(w.c, 0, color, key, out), -EINVAL, "n is 0");
	EXPECT_ERR(ccore_comm_split(w.c, -3, color, key, out), -EINVAL, "n is -3");
	EXPECT_ERR(ccore_comm_split(w.c, 3, color, key, out), -EINVAL,
		   "n is 3; pass all 4 ranks");
	EXPECT_ERR(ccore_comm_split(w.c, 5, color, key, out), -EINVAL,
		   "n is 5; pass all 4 ranks");
	for (int i = 0; i < 4; i++)
		mixed[i] = w.c[i];
	mixed[2] = NULL;
	EXPECT_ERR(ccore_comm_split(mixed, 4, color, key, out), -EINVAL, "comms[2] is NULL");
	mixed[2] = v.c[2];
	EXPECT_ERR(ccore_comm_split(mixed, 4, color, key, out), -EINVAL,
		   "comms[2] belongs to another communicator than comms[0]");
	mixed[2] = w.c[1];
	EXPECT_ERR(ccore_comm_split(mixed, 4, color, key, out), -EINVAL,
		   "comms[2] is rank 1; comms[i] must be rank i, each rank once");
	mixed[2] = w.c[3];
	mixed[3] = w.c[2];
	EXPECT_ERR(ccore_comm_split(mixed, 4, color, key, out), -EINVAL, "comms[2] is rank 3");
	/* and a valid split still works */
	ASSERT_EQ(ccore_comm_split(w.c, 4, color, key, out), 0);
	ASSERT_EQ(ccore_comm_count(out[3]), 2);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(ccore_comm_destroy(out[i]), 0);
	timed_world_close(&v);
	timed_world_close(&w);
}

TEST(communicator_calls_reject_null)
{
	struct ccore_topology t = { 1, 1, 2 }, zero = { 1, 0, 2 };
	struct ccore_comm *c[2];
	struct ccore_plan_timing tm;
	struct ccore_stream_map m;
	uint64_t ps;
	uint32_t v;

	EXPECT_ERR(ccore_comm_init_all(NULL, c), -EINVAL, "ccore_comm_init_all: topo is NULL");
	EXPECT_ERR(ccore_comm_init_all(&t, NULL), -EINVAL, "ccore_comm_init_all: comms is NULL");
	EXPECT_ERR(ccore_comm_init_all_config(NULL, NULL, c), -EINVAL, "topo is NULL");
	EXPECT_ERR(ccore_comm_init_all(&zero, c), -EINVAL, "must all be at least 1");
	EXPECT_ERR(ccore_comm_destroy(NULL), -EINVAL, "ccore_comm_destroy: comm is NULL");
	EXPECT_ERR(ccore_comm_rank(NULL), -EINVAL, "ccore_comm_rank: comm is NULL");
	EXPECT_ERR(ccore_comm_count(NULL), -EINVAL, "ccore_comm_count: comm is NULL");
	ASSERT_STR_CONTAINS(ccore_comm_last_algo(NULL), "");
	ASSERT_STR_CONTAINS(ccore_last_error(), "ccore_comm_last_algo: comm is NULL");
	EXPECT_ERR(ccore_comm_stream_map(NULL, &m), -EINVAL, "ccore_comm_stream_map");
	EXPECT_ERR(ccore_comm_stream_cc_core(NULL, 0, &v), -EINVAL, "ccore_comm_stream_cc_core");
	EXPECT_ERR(ccore_comm_dma_packetization_size(NULL, &v), -EINVAL,
		   "ccore_comm_dma_packetization_size");
	EXPECT_ERR(ccore_comm_plan_timing(NULL, &tm), -EINVAL, "ccore_comm_plan_timing");
	EXPECT_ERR(ccore_comm_virtual_time_ps(NULL, &ps), -EINVAL, "ccore_comm_virtual_time_ps");
	ASSERT_EQ(ccore_comm_init_all(&t, c), 0);
	EXPECT_ERR(ccore_comm_stream_map(c[0], NULL), -EINVAL, "comm and out must be set");
	EXPECT_ERR(ccore_comm_stream_cc_core(c[0], 0, NULL), -EINVAL, "comm and cc_core must be set");
	EXPECT_ERR(ccore_comm_dma_packetization_size(c[0], NULL), -EINVAL,
		   "comm and bytes must be set");
	EXPECT_ERR(ccore_comm_plan_timing(c[0], NULL), -EINVAL, "comm and out must be set");
	EXPECT_ERR(ccore_comm_plan_timing(c[0], &tm), -ENOENT, "no plan was built");
	EXPECT_ERR(ccore_comm_virtual_time_ps(c[0], NULL), -EINVAL, "comm and ps must be set");
	for (int r = 0; r < 2; r++)
		ASSERT_EQ(ccore_comm_destroy(c[r]), 0);
}

TEST(memory_and_stream_calls_reject_null)
{
	struct ccore_stream *s;
	struct timed_world w;
	char host[8];
	ccore_ptr p;

	open_world(&w, 2);
	EXPECT_ERR(ccore_mem_alloc(NULL, 64, &p), -EINVAL, "ccore_mem_alloc: comm and ptr must be set");
	EXPECT_ERR(ccore_mem_alloc(w.c[0], 64, NULL), -EINVAL, "ccore_mem_alloc: comm and ptr");
	EXPECT_ERR(ccore_mem_alloc(w.c[0], 0, &p), -EINVAL, "ccore_mem_alloc: bytes is 0");
	EXPECT_ERR(ccore_mem_register(NULL, host, 4096, &p), -EINVAL, "ccore_mem_register");
	EXPECT_ERR(ccore_mem_register(w.c[0], NULL, 4096, &p), -EINVAL, "host and ptr must be set");
	EXPECT_ERR(ccore_mem_register(w.c[0], host, 4096, NULL), -EINVAL, "host and ptr must be set");
	EXPECT_ERR(ccore_mem_free(NULL, w.sb[0]), -EINVAL, "ccore_mem_free: comm is NULL");
	EXPECT_ERR(ccore_mem_free(w.c[0], 0), -EINVAL, "ccore_mem_free: 0x0 is not an allocation");
	EXPECT_ERR(ccore_mem_free(w.c[0], w.sb[0] + 8), -EINVAL, "is not an allocation");
	ASSERT_TRUE(ccore_mem_host(NULL, w.sb[0]) == NULL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "ccore_mem_host: comm is NULL");
	ASSERT_TRUE(ccore_mem_host(w.c[0], 0x1234) == NULL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "0x1234 is not device memory of rank 0");
	ASSERT_TRUE(ccore_comm_stream(NULL) == NULL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "ccore_comm_stream: comm is NULL");
	EXPECT_ERR(ccore_stream_create(NULL, 0, &s), -EINVAL, "ccore_stream_create: comm and out");
	EXPECT_ERR(ccore_stream_create(w.c[0], 0, NULL), -EINVAL, "ccore_stream_create: comm and out");
	EXPECT_ERR(ccore_stream_destroy(NULL), -EINVAL, "ccore_stream_destroy");
	EXPECT_ERR(ccore_stream_destroy(ccore_comm_stream(w.c[0])), -EINVAL,
		   "not a stream made by ccore_stream_create");
	EXPECT_ERR(ccore_stream_sync(NULL), -EINVAL, "ccore_stream_sync: stream is NULL");
	EXPECT_ERR(ccore_stream_query(NULL), -EINVAL, "ccore_stream_query: stream is NULL");
	EXPECT_ERR(ccore_group_end(), -EINVAL, "ccore_group_end without ccore_group_start");
	timed_world_close(&w);
}

enum call { ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, BROADCAST, REDUCE, SEND, RECV, NCALLS };

static const char *const call_names[NCALLS] = {
	"ccore_all_reduce", "ccore_all_gather", "ccore_reduce_scatter", "ccore_all_to_all",
	"ccore_broadcast", "ccore_reduce", "ccore_send", "ccore_recv",
};

struct args {
	struct ccore_comm *comm;
	struct ccore_stream *stream;
	enum ccore_dtype dt;
	enum ccore_redop op;
	int root;		/* Send/Recv: the peer */
};

static int call(const struct timed_world *w, enum call k, const struct args *a)
{
	ccore_ptr s = w->sb[0], d = w->rb[0];

	switch (k) {
	case ALLREDUCE: return ccore_all_reduce(s, d, 8, a->dt, a->op, a->comm, a->stream);
	case ALLGATHER: return ccore_all_gather(s, d, 8, a->dt, a->comm, a->stream);
	case REDUCESCATTER: return ccore_reduce_scatter(s, d, 8, a->dt, a->op, a->comm, a->stream);
	case ALLTOALL: return ccore_all_to_all(s, d, 8, a->dt, a->comm, a->stream);
	case BROADCAST: return ccore_broadcast(s, d, 8, a->dt, a->root, a->comm, a->stream);
	case REDUCE: return ccore_reduce(s, d, 8, a->dt, a->op, a->root, a->comm, a->stream);
	case SEND: return ccore_send(s, 8, a->dt, a->root, a->comm, a->stream);
	default: return ccore_recv(d, 8, a->dt, a->root, a->comm, a->stream);
	}
}

static void expect_call_err(const struct timed_world *w, enum call k, struct args a, const char *text)
{
	char want[160];

	snprintf(want, sizeof(want), "%s: %s", call_names[k], text);
	if (call(w, k, &a) != -EINVAL)
		FAIL("%s: expected -EINVAL for \"%s\" (%s)", call_names[k], text,
		     ccore_last_error());
	ASSERT_STR_CONTAINS(ccore_last_error(), want);
}

TEST(collectives_reject_bad_arguments)
{
	struct timed_world w, v;
	struct ccore_stream *other;

	open_world(&w, 2);
	open_world(&v, 2);
	ASSERT_EQ(ccore_stream_create(v.c[0], 0, &other), 0);
	for (int k = 0; k < NCALLS; k++) {
		bool reduces = k == ALLREDUCE || k == REDUCESCATTER || k == REDUCE;
		bool rooted = k == BROADCAST || k == REDUCE || k >= SEND;
		const char *what = k >= SEND ? "peer" : "root";
		struct args ok = { w.c[0], NULL, ccore_f32, ccore_sum, 1 }, a;
		char text[64];

		a = ok;
		a.comm = NULL;
		expect_call_err(&w, k, a, "comm is NULL");
		for (int dt = -1; dt <= 11; dt += 12) {
			a = ok;
			a.dt = (enum ccore_dtype)dt;
			snprintf(text, sizeof(text), "dtype %d is not one of i8", dt);
			expect_call_err(&w, k, a, text);
		}
		a = ok;
		a.dt = (enum ccore_dtype)0;
		expect_call_err(&w, k, a, "dtype 0 is not one of");
		if (reduces)
			for (int op = 0; op <= 6; op += 6) {
				a = ok;
				a.op = (enum ccore_redop)op;
				snprintf(text, sizeof(text), "redop %d is not one of sum", op);
				expect_call_err(&w, k, a, text);
			}
		if (rooted)
			for (int root = -1; root <= 2; root += 3) {
				a = ok;
				a.root = root;
				snprintf(text, sizeof(text), "%s %d out of range (0..1)", what, root);
				expect_call_err(&w, k, a, text);
			}
		if (k >= SEND) {
			a = ok;
			a.root = 0;
			expect_call_err(&w, k, a, "peer 0 is this rank");
		}
		a = ok;
		a.stream = other;
		expect_call_err(&w, k, a, "the stream belongs to another communicator");
	}
	/* nothing was left posted: a valid collective runs */
	timed_world_allreduce_runs(&w, 8);
	ASSERT_EQ(ccore_stream_destroy(other), 0);
	timed_world_close(&v);
	timed_world_close(&w);
}

TEST(plan_query_rejects_bad_arguments)
{
	struct ccore_plan_info info;
	struct timed_world w;
	struct ccore_topology one = { 1, 1, 1 };
	struct ccore_comm *solo;

	open_world(&w, 2);
	EXPECT_ERR(ccore_plan_query(NULL, ccore_op_allreduce, 8, ccore_f32, &info), -EINVAL,
		   "ccore_plan_query: comm and out must be set");
	EXPECT_ERR(ccore_plan_query(w.c[0], ccore_op_allreduce, 8, ccore_f32, NULL), -EINVAL,
		   "ccore_plan_query: comm and out must be set");
	EXPECT_ERR(ccore_plan_query(w.c[0], (enum ccore_coll_op)0, 8, ccore_f32, &info), -EINVAL,
		   "ccore_plan_query: op 0 out of range");
	EXPECT_ERR(ccore_plan_query(w.c[0], (enum ccore_coll_op)8, 8, ccore_f32, &info), -EINVAL,
		   "ccore_plan_query: op 8 out of range");
	EXPECT_ERR(ccore_plan_query(w.c[0], ccore_op_allreduce, 8, (enum ccore_dtype)0, &info),
		   -EINVAL, "ccore_plan_query: unknown dtype 0");
	EXPECT_ERR(ccore_plan_query(w.c[0], ccore_op_allreduce, 0, ccore_f32, &info), -EINVAL,
		   "ccore_plan_query: count is 0");
	ASSERT_EQ(ccore_comm_init_all(&one, &solo), 0);
	EXPECT_ERR(ccore_plan_query(solo, ccore_op_sendrecv, 8, ccore_f32, &info), -EINVAL,
		   "send/recv needs 2 or more ranks");
	ASSERT_EQ(ccore_comm_destroy(solo), 0);
	timed_world_close(&w);
}
