// SPDX-License-Identifier: GPL-2.0
/*
 * Sizes from the caller never wrap: every collective, Send/Recv,
 * ccore_plan_query() for every op, ccore_mem_alloc() and
 * ccore_mem_register() refuse a count or size whose bytes do not fit in 64
 * bits, or do not fit in one device buffer, with -EOVERFLOW and a message
 * naming the call, the count, the dtype and the largest count allowed.
 * A count right at the limit passes the size check (and fails later only
 * because the test's buffers are small).  On 2 and 4 ranks of the
 * functional sim, with the device memory set to 64 MiB.
 */
#include "ccore_test.h"
#include "ccore.h"
#include "timed_world.h"
#include "exec/exe_run.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#define HBM (64ull << 20)
#define BUF 4096

/* @n ranks, two per device, each device with 64 MiB of memory (CCORE_SIM) */
static void open_world(struct timed_world *w, uint32_t n)
{
	const char *dev = getenv("CCORE_DEVICE");

	if (dev && *dev && strcmp(dev, "sim"))
		ccore_test_skip("needs the sim backend: it sets the device memory");
	timed_world_open(w, &(struct ccore_topology){ 1, n / 2, 2 }, "hbm=64M", BUF);
}

enum call { ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, BROADCAST, REDUCE, SEND, RECV, NCALLS };

static const char *const call_names[NCALLS] = {
	"ccore_all_reduce", "ccore_all_gather", "ccore_reduce_scatter", "ccore_all_to_all",
	"ccore_broadcast", "ccore_reduce", "ccore_send", "ccore_recv",
};

/* Each rank's buffers hold count x N elements for these, count for the rest. */
static bool times_ranks(enum call k)
{
	return k == ALLGATHER || k == REDUCESCATTER || k == ALLTOALL;
}

/* Rank @r calls @k (Send/Recv: between ranks 0 and 1). */
static int call(const struct timed_world *w, enum call k, uint32_t r, size_t count, enum ccore_dtype dt)
{
	ccore_ptr s = w->sb[r], d = w->rb[r];
	struct ccore_comm *c = w->c[r];

	switch (k) {
	case ALLREDUCE: return ccore_all_reduce(s, d, count, dt, ccore_sum, c, NULL);
	case ALLGATHER: return ccore_all_gather(s, d, count, dt, c, NULL);
	case REDUCESCATTER: return ccore_reduce_scatter(s, d, count, dt, ccore_sum, c, NULL);
	case ALLTOALL: return ccore_all_to_all(s, d, count, dt, c, NULL);
	case BROADCAST: return ccore_broadcast(s, d, count, dt, 0, c, NULL);
	case REDUCE: return ccore_reduce(s, d, count, dt, ccore_max, 0, c, NULL);
	case SEND: return ccore_send(s, count, dt, 1 - (int)r, c, NULL);
	default: return ccore_recv(d, count, dt, 1 - (int)r, c, NULL);
	}
}

/* The largest count of @dt whose buffers fit in the device memory. */
static uint64_t max_count(bool by_ranks, uint32_t n, enum ccore_dtype dt)
{
	return HBM / ccore_dtype_size(dt) / (by_ranks ? n : 1);
}

/* Counts that wrap or do not fit: each is refused. */
static size_t bad_counts(bool by_ranks, uint32_t n, enum ccore_dtype dt, uint64_t *out)
{
	uint64_t es = ccore_dtype_size(dt), m = by_ranks ? n : 1;
	size_t k = 0;

	out[k++] = (1ull << 62) + 16;
	out[k++] = SIZE_MAX;
	out[k++] = SIZE_MAX / es;
	/* the first count whose bytes wrap (1 byte elements: none, so SIZE_MAX) */
	out[k++] = m * es > 1 ? UINT64_MAX / (m * es) + 1 : SIZE_MAX;
	out[k++] = UINT64_MAX / (n * es) + 1;
	out[k++] = max_count(by_ranks, n, dt) + 1;
	return k;
}

static void expect_refused(int rc, const char *fn, uint64_t count, enum ccore_dtype dt,
			   uint64_t max)
{
	char want[64];

	if (rc != -EOVERFLOW)
		FAIL("%s count %llu %s: returned %d (%s), expected -EOVERFLOW", fn,
		     (unsigned long long)count, ccore_dtype_name(dt), rc, ccore_last_error());
	ASSERT_STR_CONTAINS(ccore_last_error(), fn);
	snprintf(want, sizeof(want), "count %llu ", (unsigned long long)count);
	ASSERT_STR_CONTAINS(ccore_last_error(), want);
	snprintf(want, sizeof(want), "of %s", ccore_dtype_name(dt));
	ASSERT_STR_CONTAINS(ccore_last_error(), want);
	snprintf(want, sizeof(want), "at most %llu", (unsigned long long)max);
	ASSERT_STR_CONTAINS(ccore_last_error(), want);
}

static void every_call_refuses(uint32_t n)
{
	struct timed_world w;
	uint64_t counts[8];

	open_world(&w, n);
	for (int k = 0; k < NCALLS; k++)
		for (int dt = ccore_i8; dt <= ccore_f64; dt++) {
			enum ccore_dtype d = (enum ccore_dtype)dt;
			uint64_t max = max_count(times_ranks(k), n, d);
			size_t nc = bad_counts(times_ranks(k), n, d, counts);

			for (size_t i = 0; i < nc; i++)
				for (uint32_t r = 0; r < (k >= SEND ? 2 : n); r++)
					expect_refused(call(&w, k, r, counts[i], d), call_names[k],
						       counts[i], d, max);
			/* at the limit the size is fine: only the buffer is too small */
			ASSERT_EQ(call(&w, k, 0, max, d), -EINVAL);
			ASSERT_STR_CONTAINS(ccore_last_error(), "not inside one device allocation");
		}
	/* inside a group, too */
	ASSERT_EQ(ccore_group_start(), 0);
	expect_refused(call(&w, ALLTOALL, 0, SIZE_MAX, ccore_f32), "ccore_all_to_all", SIZE_MAX,
		       ccore_f32, max_count(true, n, ccore_f32));
	ASSERT_EQ(ccore_group_end(), 0);
	/* nothing refused was left posted: a valid collective runs */
	timed_world_allreduce_runs(&w, 16);
	timed_world_close(&w);
}

TEST(collectives_and_send_recv_refuse_wrapping_counts_on_2_ranks)
{
	every_call_refuses(2);
}

TEST(collectives_and_send_recv_refuse_wrapping_counts_on_4_ranks)
{
	every_call_refuses(4);
}

static void plan_query_refuses(uint32_t n)
{
	struct ccore_plan_info info;
	struct timed_world w;
	uint64_t counts[8];

	open_world(&w, n);
	for (int op = ccore_op_allreduce; op <= ccore_op_sendrecv; op++) {
		bool by_ranks = op == ccore_op_allgather || op == ccore_op_reducescatter ||
				op == ccore_op_alltoall;

		for (int dt = ccore_i8; dt <= ccore_f64; dt++) {
			enum ccore_dtype d = (enum ccore_dtype)dt;
			uint64_t max = max_count(by_ranks, n, d);
			size_t nc = bad_counts(by_ranks, n, d, counts);

			for (size_t i = 0; i < nc; i++)
				expect_refused(ccore_plan_query(w.c[0], (enum ccore_coll_op)op,
								counts[i], d, &info),
					       "ccore_plan_query", counts[i], d, max);
			ASSERT_EQ(ccore_plan_query(w.c[0], (enum ccore_coll_op)op, max, d, &info), 0);
		}
	}
	timed_world_close(&w);
}

TEST(plan_query_refuses_wrapping_counts_for_every_op_on_2_ranks)
{
	plan_query_refuses(2);
}

TEST(plan_query_refuses_wrapping_counts_for_every_op_on_4_ranks)
{
	plan_query_refuses(4);
}

TEST(mem_alloc_and_register_refuse_sizes_beyond_the_device)
{
	static const uint64_t too_big[] = { HBM + 1, HBM + 4096, 1ull << 62, SIZE_MAX - 4095,
					    SIZE_MAX };
	long page = sysconf(_SC_PAGESIZE);
	void *host = aligned_alloc((size_t)page, (size_t)page);
	struct timed_world w;
	ccore_ptr p;

	ASSERT_TRUE(host != NULL);
	open_world(&w, 2);
	for (size_t i = 0; i < sizeof(too_big) / sizeof(too_big[0]); i++) {
		char want[64];

		snprintf(want, sizeof(want), "bytes %llu ", (unsigned long long)too_big[i]);
		ASSERT_EQ(ccore_mem_alloc(w.c[0], too_big[i], &p), -EOVERFLOW);
		ASSERT_STR_CONTAINS(ccore_last_error(), "ccore_mem_alloc");
		ASSERT_STR_CONTAINS(ccore_last_error(), want);
		ASSERT_STR_CONTAINS(ccore_last_error(), "at most 67108864");
		ASSERT_EQ(ccore_mem_register(w.c[0], host, too_big[i], &p), -EOVERFLOW);
		ASSERT_STR_CONTAINS(ccore_last_error(), "ccore_mem_register");
		ASSERT_STR_CONTAINS(ccore_last_error(), want);
	}
	/* the memory would wrap around the end of the address space */
	ASSERT_EQ(ccore_mem_register(w.c[0], (void *)(UINTPTR_MAX - (uintptr_t)page + 1),
				     (size_t)page * 2, &p), -EOVERFLOW);
	ASSERT_STR_CONTAINS(ccore_last_error(), "wraps around the end of the address space");
	/* most of the device memory is allowed */
	ASSERT_EQ(ccore_mem_alloc(w.c[0], HBM - (1 << 20), &p), 0);
	ASSERT_EQ(ccore_mem_free(w.c[0], p), 0);
	timed_world_close(&w);
	free(host);
}

/*
 * Executables: counts and tensor sizes of a text description are bounded
 * when parsed (1T), and a tensor the device memory cannot hold fails at
 * open, naming the size and the limit, instead of wrapping anywhere.
 */
TEST(executable_sizes_beyond_the_device_are_refused)
{
	static const char fits_format[] =
		"topology nodes=1 devices=1 ranks-per-device=2\n"
		"tensor s 1024G\n"
		"tensor r 1024G\n"
		"collective ar allreduce dtype=f32 count=256G redop=sum stream=0 send=s recv=r groups={{0,1}}\n"
		"rank all\n"
		"  trigger ar\n"
		"  wait ar\n";
	static const char too_many[] =
		"topology nodes=1 devices=1 ranks-per-device=2\n"
		"tensor s 4K\n"
		"tensor r 4K\n"
		"collective ar allreduce dtype=f32 count=17179869184G redop=sum stream=0 send=s recv=r groups={{0,1}}\n";
	struct ccore_exe *exe;
	struct exe_run *x;
	struct timed_world w;

	open_world(&w, 2);	/* sets CCORE_SIM hbm=64M for the executable's too */
	ASSERT_EQ(ccore_exe_parse_text("big", fits_format, sizeof(fits_format) - 1, &exe), 0);
	ASSERT_EQ(exe_run_open(exe, &x), -EOVERFLOW);
	ASSERT_STR_CONTAINS(ccore_last_error(), "ccore_mem_alloc: bytes 1099511627776 ");
	ASSERT_STR_CONTAINS(ccore_last_error(), "at most 67108864");
	ccore_exe_free(exe);
	ASSERT_EQ(ccore_exe_parse_text("wrap", too_many, sizeof(too_many) - 1, &exe), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "count '17179869184G'");
	timed_world_close(&w);
}
