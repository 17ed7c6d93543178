// SPDX-License-Identifier: GPL-2.0
/*
 * Communicators of one process per rank (ccore_comm_init_rank), in one
 * process: one thread per rank, each with its own communicator that knows
 * only its rank (its peers are reached through the bootstrap, as in other
 * processes), sharing the process's sim devices.  A sweep checks every
 * collective with every algorithm that serves it, several dtypes and
 * reductions, odd and even counts, in place and out of place, on 2, 3, 4
 * and 8 ranks, and on "processes" that own several ranks
 * (ccore_comm_init_ranks): every element is checked, 0 wrong.  A cached
 * plan's launch sends nothing through the bootstrap, also after one rank
 * alone dropped its plans.  Per-rank splits, also of a communicator of
 * ccore_comm_init_all.  Init fails on every rank, naming why, for a
 * mismatched nranks, a rank given twice, CCORE_ALGO differing and a bad
 * id (separate processes, where the environment can differ).
 */
#include "ccore_test.h"
#include "ccore_verifiable.h"
#include "rank_run.h"
#include "algos/algo.h"
#include "comm.h"
#include "rank_place.h"
#include "bootstrap/boot.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXN 8
#define MAX_COUNT 1000
#define BUF_BYTES ((size_t)MAX_COUNT * MAXN * 8 + 64)


/* A job: n ranks, run by nproc "processes" (threads) of n / nproc ranks each. */
struct job {
	uint32_t n, nproc;
	struct ccore_unique_id id;
	struct ccore_comm *c[MAXN];
	ccore_ptr sb[MAXN], rb[MAXN];
	pthread_t t[MAXN];
	pthread_barrier_t go, done;
	const struct rank_run *x;		/* what to run next; NULL: leave */
	int rc[MAXN];
	char err[MAXN][512];
	int init_rc[MAXN];
	/* instead of a run: this, in each rank's thread (one rank per process) */
	void (*task)(struct job *j, uint32_t r);
	struct ccore_comm *sub[MAXN];
	long wrong[MAXN];
};

/* Rank @r's buffers, for rank_run.h. */
static struct rank_bufs bufs(const struct job *j, uint32_t r)
{
	return (struct rank_bufs){ .comm = j->c[r], .n = j->n, .r = r, .sb = j->sb[r],
				   .rb = j->rb[r], .bytes = BUF_BYTES };
}

struct proc {
	struct job *j;
	uint32_t p;			/* this "process" runs ranks p * per .. */
};

/* One process: its ranks' communicators, then whatever the main thread asks. */
static void *proc_main(void *arg)
{
	struct proc *pr = arg;
	struct job *j = pr->j;
	uint32_t per = j->n / j->nproc, first = pr->p * per;
	int ranks[MAXN], rc;

	for (uint32_t i = 0; i < per; i++)
		ranks[i] = (int)(first + i);
	rc = per == 1 ? ccore_comm_init_rank(&j->c[first], (int)j->n, &j->id, (int)first, NULL) :
	     ccore_comm_init_ranks(&j->c[first], (int)j->n, &j->id, (int)per, ranks, NULL);
	for (uint32_t i = 0; i < per; i++) {
		j->init_rc[first + i] = rc;
		snprintf(j->err[first + i], sizeof(j->err[0]), "%s", rc ? ccore_last_error() : "");
		if (!rc && (ccore_mem_alloc(j->c[first + i], BUF_BYTES, &j->sb[first + i]) ||
			    ccore_mem_alloc(j->c[first + i], BUF_BYTES, &j->rb[first + i])))
			j->init_rc[first + i] = -ENOMEM;
	}
	pthread_barrier_wait(&j->done);
	for (;;) {
		const struct rank_run *x;

		pthread_barrier_wait(&j->go);
		x = j->x;
		if (j->task) {
			for (uint32_t i = 0; i < per; i++)
				j->task(j, first + i);
			pthread_barrier_wait(&j->done);
			continue;
		}
		if (!x)
			break;
		rc = 0;
		for (uint32_t i = 0; i < per; i++) {
			struct rank_bufs b = bufs(j, first + i);

			rank_run_fill(&b, x);
		}
		/*
		 * In a group, as NCCL asks of a ring of sends and receives and
		 * of a thread posting for several ranks: launched together.
		 */
		rc = ccore_group_start();
		for (uint32_t i = 0; i < per && !rc; i++) {
			struct rank_bufs b = bufs(j, first + i);

			rc = rank_run_post(&b, x);
		}
		rc = ccore_group_end() ?: rc;
		for (uint32_t i = 0; i < per && !rc; i++)
			rc = ccore_stream_sync(ccore_comm_stream(j->c[first + i]));
		for (uint32_t i = 0; i < per; i++) {
			j->rc[first + i] = rc;
			snprintf(j->err[first + i], sizeof(j->err[0]), "%s", rc ? ccore_last_error() : "");
		}
		pthread_barrier_wait(&j->done);
	}
	for (uint32_t i = 0; i < per; i++)
		ccore_comm_destroy(j->c[first + i]);
	return NULL;
}

static struct proc procs[MAXN];

static void job_open(struct job *j, uint32_t n, uint32_t nproc)
{
	memset(j, 0, sizeof(*j));
	j->n = n;
	j->nproc = nproc;
	if (ccore_get_unique_id(&j->id))
		FAIL("ccore_get_unique_id: %s", ccore_last_error());
	pthread_barrier_init(&j->go, NULL, nproc + 1);
	pthread_barrier_init(&j->done, NULL, nproc + 1);
	for (uint32_t p = 0; p < nproc; p++) {
		procs[p] = (struct proc){ j, p };
		pthread_create(&j->t[p], NULL, proc_main, &procs[p]);
	}
	pthread_barrier_wait(&j->done);
	for (uint32_t r = 0; r < n; r++)
		if (j->init_rc[r])
			FAIL("rank %u of %u (%u processes): init: %d: %s", r, n, nproc, j->init_rc[r],
			     j->err[r]);
}

static void job_close(struct job *j)
{
	j->x = NULL;
	pthread_barrier_wait(&j->go);
	for (uint32_t p = 0; p < j->nproc; p++)
		pthread_join(j->t[p], NULL);
	pthread_barrier_destroy(&j->go);
	pthread_barrier_destroy(&j->done);
}

/* Every rank runs @x; the first rank's failure (0 if none). */
static int job_run(struct job *j, const struct rank_run *x, uint32_t *failed)
{
	if (x->algo)
		setenv("CCORE_ALGO", x->algo, 1);
	else
		unsetenv("CCORE_ALGO");
	j->x = x;
	pthread_barrier_wait(&j->go);
	pthread_barrier_wait(&j->done);
	for (uint32_t r = 0; r < j->n; r++)
		if (j->rc[r]) {
			*failed = r;
			return j->rc[r];
		}
	return 0;
}

static long check(struct job *j, const struct rank_run *x)
{
	long wrong = 0;

	for (uint32_t r = 0; r < j->n; r++) {
		struct rank_bufs b = bufs(j, r);

		wrong += rank_run_check(&b, x);
	}
	return wrong;
}

static void describe(const struct job *j, const struct rank_run *x, char *buf, size_t len)
{
	char run[192];

	rank_run_describe(x, run, sizeof(run));
	snprintf(buf, len, "%s, N=%u in %u processes", run, j->n, j->nproc);
}

static unsigned long long runs_done, refused_runs;

/* Run @x and check every element; a forced algorithm may be refused (0/1 returned). */
static int run_check(struct job *j, const struct rank_run *x)
{
	char what[256];
	uint32_t bad = 0;
	long wrong;
	int rc;

	describe(j, x, what, sizeof(what));
	rc = job_run(j, x, &bad);
	if (rc) {
		if (x->algo && rc == -ENOENT && strstr(j->err[bad], "no algorithm can serve")) {
			refused_runs++;
			return 1;
		}
		FAIL("%s: rank %u: %d: %s", what, bad, rc, j->err[bad]);
	}
	if (x->count && x->algo && strcmp(ccore_comm_last_algo(j->c[0]), x->algo))
		FAIL("%s: ran %s instead", what, ccore_comm_last_algo(j->c[0]));
	wrong = check(j, x);
	if (wrong)
		FAIL("%s: %ld wrong elements", what, wrong);
	runs_done++;
	return 0;
}

/* Hosts of the job running now: rank r is on host r / hosts_ranks ("host0", ...). */
static uint32_t host_ranks;

static const char *test_host(uint32_t rank)
{
	static const char *const names[] = { "host0", "host1", "host2", "host3",
					     "host4", "host5", "host6", "host7" };

	return host_ranks ? names[rank / host_ranks] : NULL;
}

/* Every collective x every algorithm serving it (and the tuner's) on @counts. */
static void sweep_algos(struct job *j, const uint64_t *counts, size_t nc)
{
	struct algo_opts o = { .slices = 1, .channels = 1, .ranks_per_device = 1,
			       .ranks_per_node = host_ranks ? host_ranks : j->n };

	for (uint8_t coll = 0; coll < CS_NCOLL; coll++) {
		char ran[512] = "";
		size_t at = 0;

		for (int a = -1; a < (int)algo_count(); a++) {
			const struct algo *al = a < 0 ? NULL : algo_at((unsigned int)a);
			struct cs_shape sh = { .coll = coll, .nranks = j->n, .count = counts[0],
					       .root = j->n - 1, .peer = 1 };

			if (al && (!(al->colls & (1u << coll)) || al->rejects(&sh, &o)))
				continue;
			if (al && at < sizeof(ran))
				at += (size_t)snprintf(ran + at, sizeof(ran) - at, " %s", al->name);
			for (size_t ci = 0; ci < nc; ci++) {
				struct rank_run x = { .coll = coll, .algo = al ? al->name : NULL,
						 .count = counts[ci], .dt = ccore_i32,
						 .op = ccore_sum, .root = j->n - 1,
						 .in_place = coll != CS_SENDRECV &&
							     (ci + coll) % 2 };

				run_check(j, &x);
				/* both ways at the first count */
				if (ci == 0 && coll != CS_SENDRECV) {
					x.in_place = !x.in_place;
					run_check(j, &x);
				}
			}
		}
		ccore_test_log("N=%u in %u processes%s: %s: the tuner's and%s", j->n, j->nproc,
			       host_ranks ? ", 2 hosts" : "", cs_coll_name(coll), ran);
	}
}

/* The reducing collectives with every dtype and reduction, the tuner choosing. */
static void sweep_dtypes(struct job *j)
{
	static const uint8_t colls[] = { CS_ALLREDUCE, CS_REDUCESCATTER, CS_REDUCE_COLL };

	for (size_t k = 0; k < sizeof(colls); k++)
		for (int dt = ccore_i8; dt <= ccore_f64; dt++)
			for (int op = ccore_sum; op <= ccore_avg; op++) {
				struct rank_run x = { .coll = colls[k], .count = 33 + (uint64_t)dt,
						 .dt = (enum ccore_dtype)dt,
						 .op = (enum ccore_redop)op, .root = 0,
						 .in_place = (dt + op) % 2 };

				run_check(j, &x);
			}
}

TEST(sweep_one_rank_per_process)
{
	static const uint64_t counts[] = { 1, 64, 301, 1000 };
	static const uint32_t ns[] = { 2, 3, 4, 8 };
	static struct job j;

	runs_done = refused_runs = 0;
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		job_open(&j, ns[i], ns[i]);
		sweep_algos(&j, counts, sizeof(counts) / sizeof(counts[0]));
		sweep_dtypes(&j);
		job_close(&j);
	}
	unsetenv("CCORE_ALGO");
	ccore_test_log("%llu collectives checked, 0 wrong; %llu forced algorithms refused",
		       runs_done, refused_runs);
	ASSERT_GT(runs_done, 500);
}

TEST(sweep_two_hosts)
{
	static const uint64_t counts[] = { 5, 256, 999 };
	static struct job j;

	runs_done = refused_runs = 0;
	rank_host_for_test = test_host;
	/* 2 hosts of 2 ranks, then of 4: the hierarchical algorithms too */
	host_ranks = 2;
	job_open(&j, 4, 4);
	sweep_algos(&j, counts, 3);
	job_close(&j);
	host_ranks = 4;
	job_open(&j, 8, 8);
	sweep_algos(&j, counts, 2);
	job_close(&j);
	host_ranks = 0;
	rank_host_for_test = NULL;
	unsetenv("CCORE_ALGO");
	ccore_test_log("%llu collectives checked, 0 wrong; %llu forced algorithms refused",
		       runs_done, refused_runs);
	ASSERT_GT(runs_done, 200);
}

TEST(sweep_several_ranks_per_process)
{
	static const uint64_t counts[] = { 7, 130 };
	static struct job j;

	runs_done = refused_runs = 0;
	/* 4 ranks as 2 processes of 2, 8 as 2 of 4 */
	job_open(&j, 4, 2);
	sweep_algos(&j, counts, 2);
	job_close(&j);
	job_open(&j, 8, 2);
	sweep_algos(&j, counts, 1);
	job_close(&j);
	unsetenv("CCORE_ALGO");
	ccore_test_log("%llu collectives checked, 0 wrong; %llu forced algorithms refused",
		       runs_done, refused_runs);
	ASSERT_GT(runs_done, 100);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void traffic(struct job *j, uint64_t *msgs, uint64_t *bytes)
{
	*msgs = *bytes = 0;
	for (uint32_t r = 0; r < j->n; r++) {
		uint64_t m, b;

		ASSERT_EQ(comm_boot_traffic(j->c[r], &m, &b), 0);
		*msgs += m;
		*bytes += b;
	}
}

static uint64_t plans_built(struct job *j, uint32_t r)
{
	struct ccore_plan_timing t;

	ASSERT_EQ(ccore_comm_plan_timing(j->c[r], &t), 0);
	return t.plans_built;
}

TEST(cached_launch_sends_nothing_also_after_one_rank_evicts)
{
	static const struct rank_run set[] = {
		{ CS_ALLREDUCE, "ring", 300, ccore_f32, ccore_sum, 0, false },
		{ CS_ALLGATHER, NULL, 77, ccore_i32, ccore_sum, 0, true },
		{ CS_BROADCAST, NULL, 101, ccore_u8, ccore_sum, 2, false },
		{ CS_SENDRECV, NULL, 64, ccore_i32, ccore_sum, 0, false },
	};
	static struct job j;
	uint64_t m0, b0, m1, b1, built[MAXN];
	ccore_ptr spare;

	int64_t t0, t1, t2;

	job_open(&j, 4, 4);
	t0 = now_ns();
	for (size_t i = 0; i < 4; i++)
		run_check(&j, &set[i]);
	t1 = now_ns();
	traffic(&j, &m0, &b0);
	ccore_test_log("first launches (plans built, peers exchanged): %llu messages, %llu bytes",
		       (unsigned long long)m0, (unsigned long long)b0);
	ASSERT_GT(m0, 0);
	for (uint32_t r = 0; r < j.n; r++)
		built[r] = plans_built(&j, r);
	for (int k = 0; k < 10; k++)
		for (size_t i = 0; i < 4; i++)
			run_check(&j, &set[i]);
	t2 = now_ns();
	ccore_test_log("the 4 calls: %.2f ms building (each rank's plans, the exchange), %.2f ms a cached round (fill, post, sync, check)",
		       (double)(t1 - t0) / 1e6, (double)(t2 - t1) / 1e7);
	traffic(&j, &m1, &b1);
	ASSERT_U64_EQ(m1, m0);
	ASSERT_U64_EQ(b1, b0);
	for (uint32_t r = 0; r < j.n; r++)
		ASSERT_U64_EQ(plans_built(&j, r), built[r]);
	/*
	 * Rank 1 alone drops every plan: freeing a buffer its plans do not
	 * name flushes its cache (plans bake addresses in), not its peers'.
	 */
	ASSERT_EQ(ccore_mem_alloc(j.c[1], 4096, &spare), 0);
	ASSERT_EQ(ccore_mem_free(j.c[1], spare), 0);
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < 4; i++)
			run_check(&j, &set[i]);
	traffic(&j, &m1, &b1);
	ASSERT_U64_EQ(m1, m0);
	ASSERT_U64_EQ(b1, b0);
	ccore_test_log("rank 1 rebuilt %llu plans from what was exchanged, its peers none; still %llu messages",
		       (unsigned long long)(plans_built(&j, 1) - built[1]), (unsigned long long)m1);
	/* every plan it had: 3 collectives, a send and a receive */
	ASSERT_U64_EQ(built[1], 5);
	ASSERT_U64_EQ(plans_built(&j, 1), 2 * built[1]);
	for (uint32_t r = 0; r < j.n; r++)
		if (r != 1)
			ASSERT_U64_EQ(plans_built(&j, r), built[r]);
	job_close(&j);
	unsetenv("CCORE_ALGO");
}

/* In rank @r's thread: split by parity (rank 5 opts out), key reversing the order, and reduce. */
static void split_task(struct job *j, uint32_t r)
{
	int color = r == 5 ? -1 : (int)(r % 2), key = (int)(j->n - r);
	struct ccore_comm *sub = NULL;
	ccore_ptr buf;
	int rc, me;

	rc = ccore_comm_split_rank(j->c[r], color, key, NULL, &sub);
	j->sub[r] = sub;
	if (rc || !sub) {
		j->rc[r] = rc ?: (color < 0 ? 0 : -EFAULT);
		snprintf(j->err[r], sizeof(j->err[r]), "%s", rc ? ccore_last_error() : "no communicator");
		return;
	}
	me = ccore_comm_rank(sub);
	rc = ccore_mem_alloc(sub, 4096, &buf);
	if (!rc) {
		ccore_verifiable_fill(ccore_mem_host(sub, buf), 50, ccore_i32, ccore_sum, me, 0);
		rc = ccore_all_reduce(buf, buf, 50, ccore_i32, ccore_sum, sub, NULL) ?:
		     ccore_stream_sync(ccore_comm_stream(sub));
	}
	if (!rc)
		j->wrong[r] = ccore_verifiable_check_reduced(ccore_mem_host(sub, buf), 50,
							     ccore_i32, ccore_sum,
							     ccore_comm_count(sub), 0);
	j->rc[r] = rc;
	snprintf(j->err[r], sizeof(j->err[r]), "%s", rc ? ccore_last_error() : "");
}

TEST(split_rank)
{
	/* new ranks by key (n - old rank): the higher old rank first */
	static const int want_rank[6] = { 2, 1, 1, 0, 0, -1 }, want_count[6] = { 3, 2, 3, 2, 3, 0 };
	static struct job j;
	uint32_t n = 6;

	job_open(&j, n, n);
	j.task = split_task;
	j.x = NULL;
	pthread_barrier_wait(&j.go);
	pthread_barrier_wait(&j.done);
	j.task = NULL;
	for (uint32_t r = 0; r < n; r++) {
		if (j.rc[r])
			FAIL("rank %u: split: %d: %s", r, j.rc[r], j.err[r]);
		if (want_rank[r] < 0) {
			ASSERT_TRUE(j.sub[r] == NULL);
			continue;
		}
		ASSERT_EQ(ccore_comm_rank(j.sub[r]), want_rank[r]);
		ASSERT_EQ(ccore_comm_count(j.sub[r]), want_count[r]);
		ASSERT_EQ(j.wrong[r], 0);
		ccore_comm_destroy(j.sub[r]);
	}
	job_close(&j);
}

struct local_split {
	struct ccore_comm *c, *sub;
	int rc;
	long wrong;
	char err[512];
};

/* A checked max-AllReduce of 40 f32 on @c in its buffer @buf: 0 or an error. */
static int reduce_checked(struct ccore_comm *c, ccore_ptr buf, long *wrong)
{
	int rc;

	ccore_verifiable_fill(ccore_mem_host(c, buf), 40, ccore_f32, ccore_max, ccore_comm_rank(c), 0);
	rc = ccore_all_reduce(buf, buf, 40, ccore_f32, ccore_max, c, NULL) ?:
	     ccore_stream_sync(ccore_comm_stream(c));
	if (!rc)
		*wrong += ccore_verifiable_check_reduced(ccore_mem_host(c, buf), 40, ccore_f32,
							 ccore_max, ccore_comm_count(c), 0);
	return rc;
}

/*
 * A rank of a ccore_comm_init_all communicator: reduce, split (by parity,
 * reversed), reduce on the new one, then the same call again on the old
 * one (a repeat: the choice it remembered must have outlived the split).
 */
static void *local_split_rank(void *arg)
{
	struct local_split *ls = arg;
	int r = ccore_comm_rank(ls->c);
	ccore_ptr buf, whole;

	ls->rc = ccore_mem_alloc(ls->c, 4096, &whole) ?: reduce_checked(ls->c, whole, &ls->wrong) ?:
		 ccore_comm_split_rank(ls->c, r % 2, -r, NULL, &ls->sub);
	if (!ls->rc)
		ls->rc = ccore_mem_alloc(ls->sub, 4096, &buf) ?:
			 reduce_checked(ls->sub, buf, &ls->wrong) ?:
			 reduce_checked(ls->c, whole, &ls->wrong);
	snprintf(ls->err, sizeof(ls->err), "%s", ls->rc ? ccore_last_error() : "");
	return NULL;
}

TEST(split_rank_on_one_process_communicator)
{
	struct ccore_comm *all[4];
	struct local_split ls[4];
	pthread_t t[4];

	ASSERT_EQ(ccore_comm_init_all(&(struct ccore_topology){ 1, 4, 1 }, all), 0);
	for (int r = 0; r < 4; r++) {
		ls[r] = (struct local_split){ .c = all[r] };
		pthread_create(&t[r], NULL, local_split_rank, &ls[r]);
	}
	for (int r = 0; r < 4; r++)
		pthread_join(t[r], NULL);
	for (int r = 0; r < 4; r++) {
		if (ls[r].rc)
			FAIL("rank %d: %d: %s", r, ls[r].rc, ls[r].err);
		/* key -r: the higher old rank first */
		ASSERT_EQ(ccore_comm_rank(ls[r].sub), r < 2 ? 1 : 0);
		ASSERT_EQ(ccore_comm_count(ls[r].sub), 2);
		ASSERT_EQ(ls[r].wrong, 0);
		ccore_comm_destroy(ls[r].sub);
		ccore_comm_destroy(all[r]);
	}
}

TEST(split_rank_refuses_bad_arguments)
{
	struct ccore_comm *out = (struct ccore_comm *)1, *all[2];
	struct ccore_comm_config cfg = CCORE_COMM_CONFIG_INIT;

	ASSERT_EQ(ccore_comm_split_rank(NULL, 0, 0, NULL, &out), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "comm is NULL");
	ASSERT_EQ(ccore_comm_init_all(&(struct ccore_topology){ 1, 2, 1 }, all), 0);
	ASSERT_EQ(ccore_comm_split_rank(all[0], 0, 0, NULL, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "out is NULL");
	ASSERT_EQ(ccore_comm_split_rank(all[0], 0, 0, &cfg, &out), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "config must be NULL");
	ccore_comm_destroy(all[0]);
	ccore_comm_destroy(all[1]);
	/* rank 1 never calls (the wait is read at init) */
	setenv("CCORE_PEER_TIMEOUT_MS", "200", 1);
	ASSERT_EQ(ccore_comm_init_all(&(struct ccore_topology){ 1, 2, 1 }, all), 0);
	ASSERT_EQ(ccore_comm_split_rank(all[0], 0, 0, NULL, &out), -ETIMEDOUT);
	ASSERT_STR_CONTAINS(ccore_last_error(), "for ranks 1 to call it");
	unsetenv("CCORE_PEER_TIMEOUT_MS");
	ccore_comm_destroy(all[0]);
	ccore_comm_destroy(all[1]);
}

TEST(init_refuses_bad_arguments)
{
	struct ccore_unique_id id = { { 0 } };
	struct ccore_comm *c;
	int ranks[2] = { 1, 1 };

	ASSERT_EQ(ccore_get_unique_id(NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "id is NULL");
	ASSERT_EQ(ccore_comm_init_rank(NULL, 2, &id, 0, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "comm is NULL");
	ASSERT_EQ(ccore_comm_init_rank(&c, 2, NULL, 0, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "id is NULL");
	ASSERT_EQ(ccore_comm_init_rank(&c, 0, &id, 0, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "nranks");
	ASSERT_EQ(ccore_comm_init_rank(&c, 2, &id, 2, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "rank out of range");
	ASSERT_EQ(ccore_comm_init_ranks(&c, 2, &id, 2, ranks, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "rank 1 given twice");
	ASSERT_EQ(ccore_comm_init_ranks(&c, 2, &id, 3, ranks, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "nlocal 3 out of range");
	ASSERT_EQ(ccore_comm_init_ranks(&c, 2, &id, 1, NULL, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "ranks is NULL");
	/* a struct without size and version */
	ASSERT_EQ(ccore_comm_init_rank(&c, 1, &id, 0, &(struct ccore_comm_config){ 0 }), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "ccore_comm_config");
}

/* --- init failures, in separate processes ----------------------------------------------- */

struct child {
	pid_t pid;
	int fd;				/* its report: rc, then the message */
};

/* Fork a process that inits rank @rank of @nranks with @id (@env set first: "NAME=VALUE"). */
static struct child spawn(const struct ccore_unique_id *id, int nranks, int rank, const char *env)
{
	struct child ch;

	ch.pid = rank_run_fork(&ch.fd);
	if (ch.pid == 0) {
		struct ccore_comm *c;
		char msg[1024];
		int rc;

		if (env)
			putenv((char *)env);
		setenv("CCORE_BOOT_TIMEOUT_MS", "10000", 1);
		rc = ccore_comm_init_rank(&c, nranks, id, rank, NULL);
		snprintf(msg, sizeof(msg), "%d %s", rc, rc ? ccore_last_error() : "");
		if (write(ch.fd, msg, strlen(msg) + 1) < 0)
			_exit(2);
		if (!rc)
			ccore_comm_destroy(c);
		_exit(0);
	}
	return ch;
}

/* The child's rc and message. */
static int reap(struct child *ch, char *msg, size_t len)
{
	ssize_t got = read(ch->fd, msg, len - 1);
	int status, rc = -9999;

	msg[got > 0 ? got : 0] = 0;
	close(ch->fd);
	waitpid(ch->pid, &status, 0);
	sscanf(msg, "%d", &rc);
	return rc;
}

/* Two ranks in two processes, as @env0 / @env1 and @n0 / @n1 say; both must fail with @want. */
static void init_fails(int n0, int r0, const char *env0, int n1, int r1, const char *env1,
		       const char *want)
{
	struct ccore_unique_id id;
	struct child a, b;
	char ma[1024], mb[1024];
	int ra, rb;

	pid_t root = rank_run_launcher(&id);
	int status;

	a = spawn(&id, n0, r0, env0);
	b = spawn(&id, n1, r1, env1);
	ra = reap(&a, ma, sizeof(ma));
	rb = reap(&b, mb, sizeof(mb));
	waitpid(root, &status, 0);
	ccore_test_log("rank %d: %s", r0, ma);
	ccore_test_log("rank %d: %s", r1, mb);
	ASSERT_LT(ra, 0);
	ASSERT_LT(rb, 0);
	ASSERT_STR_CONTAINS(ma, want);
	ASSERT_STR_CONTAINS(mb, want);
}

/* A process running rank @rank of 2: init, split (reversing the ranks), destroy; its report. */
static struct child spawn_ok(const struct ccore_unique_id *id, int rank)
{
	struct child ch;

	ch.pid = rank_run_fork(&ch.fd);
	if (ch.pid == 0) {
		struct ccore_comm *c, *sub = NULL;
		char msg[1024];
		int rc;

		setenv("CCORE_BOOT_TIMEOUT_MS", "10000", 1);
		rc = ccore_comm_init_rank(&c, 2, id, rank, NULL);
		rc = rc ?: ccore_comm_split_rank(c, 7, -rank, NULL, &sub);
		if (!rc)
			snprintf(msg, sizeof(msg), "0 rank %d of %d, split: rank %d of %d", ccore_comm_rank(c),
				 ccore_comm_count(c), ccore_comm_rank(sub), ccore_comm_count(sub));
		else
			snprintf(msg, sizeof(msg), "%d %s", rc, ccore_last_error());
		if (write(ch.fd, msg, strlen(msg) + 1) < 0)
			_exit(2);
		if (!rc) {
			ccore_comm_destroy(sub);
			ccore_comm_destroy(c);
		}
		_exit(0);
	}
	return ch;
}

TEST(init_and_split_across_processes)
{
	struct ccore_unique_id id;
	pid_t root = rank_run_launcher(&id);
	struct child a = spawn_ok(&id, 0), b = spawn_ok(&id, 1);
	char ma[1024], mb[1024];
	int status;

	ASSERT_EQ(reap(&a, ma, sizeof(ma)), 0);
	ASSERT_EQ(reap(&b, mb, sizeof(mb)), 0);
	waitpid(root, &status, 0);
	ccore_test_log("process 0: %s; process 1: %s", ma + 2, mb + 2);
	ASSERT_STR_CONTAINS(ma, "rank 0 of 2, split: rank 1 of 2");
	ASSERT_STR_CONTAINS(mb, "rank 1 of 2, split: rank 0 of 2");
}

TEST(init_fails_on_every_rank_mismatched_nranks)
{
	init_fails(2, 0, NULL, 3, 1, NULL, "rank");
}

TEST(init_fails_on_every_rank_duplicate_rank)
{
	init_fails(2, 0, NULL, 2, 0, NULL, "rank 0");
}

TEST(init_fails_on_every_rank_ccore_algo_differs)
{
	init_fails(2, 0, "CCORE_ALGO=ring", 2, 1, NULL, "CCORE_ALGO");
}

TEST(init_fails_bad_id)
{
	struct ccore_unique_id id;
	struct ccore_comm *c;

	memset(&id, 0xa5, sizeof(id));
	setenv("CCORE_BOOT_TIMEOUT_MS", "2000", 1);
	ASSERT_LT(ccore_comm_init_rank(&c, 2, &id, 0, NULL), 0);
	unsetenv("CCORE_BOOT_TIMEOUT_MS");
	ccore_test_log("%s", ccore_last_error());
	ASSERT_STR_CONTAINS(ccore_last_error(), "id");
}
