// SPDX-License-Identifier: GPL-2.0
/*
 * Communicators of one process per rank in real processes, on the
 * embedded sim that the processes of the host share (its shared system,
 * opened by ccore_comm_init_rank when a host's ranks run in several
 * processes).  A sweep: every collective with every algorithm that serves
 * it, several dtypes and reductions, odd and even counts, in place and out
 * of place, on 2, 3, 4 and 8 processes of one rank and on processes of 2
 * ranks; every process checks every element its ranks received, 0 wrong.
 * A cached plan's launch sends nothing between the processes.  A process
 * killed in the middle of a collective: every other rank's call fails
 * within the timeout naming the dead rank, its core is free again, and a
 * new communicator works in the survivors and in new processes.
 *
 * Over 800 lines on purpose: one program whose cases share the process
 * launcher, the per-rank checks and the kill helpers; split, each part
 * would repeat them or need a library of its own for one test.
 */
#include "ccore_test.h"
#include "rank_run.h"
#include "algos/algo.h"
#include "ccm.h"
#include "comm.h"
#include "comm_net.h"
#include "dbuf_seq.h"
#include "plan/plan.h"
#include "tune/net_tier.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXN 8
#define MAX_COUNT 1000
#define BUF_BYTES ((size_t)MAX_COUNT * MAXN * 8 + 64)
#define MAX_RUNS 4096

/* What a process reports to the test when it is done. */
struct report {
	int rc;				/* 0: every run passed */
	unsigned long runs, refused;
	long wrong;
	uint64_t msgs[2];		/* cached_launch: boot traffic after each pass */
	char msg[1024];
};

/* One process of a job: its ranks, and what it runs. */
struct proc {
	uint32_t n, per, first;
	struct ccore_comm *c[MAXN];
	struct rank_bufs b[MAXN];
};

typedef void proc_body(struct proc *pr, struct report *rep);

static struct rank_run runs[MAX_RUNS];
static uint32_t nruns;
/* Hosts the job's processes are on (CCORE_HOSTID host0, host1, ...): 0, this one. */
static uint32_t job_hosts;

/*
 * With $CCORE_TEST_NETNS (selftests/netns/hosts.sh --outside: the hosts'
 * network namespaces, host i at 10.231.0.(i+1) on eth0) host @h's
 * processes run in its namespace, over the veth pairs instead of loopback.
 */
static void enter_host(uint32_t h)
{
	const char *list = getenv("CCORE_TEST_NETNS");
	char path[128];
	int fd, n = 0;

	if (!list || !*list)
		return;
	for (const char *at = list; *at; n++) {
		size_t len = strcspn(at, " ");

		if ((uint32_t)n == h && len < sizeof(path)) {
			memcpy(path, at, len);
			path[len] = 0;
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || setns(fd, CLONE_NEWNET)) {
				fprintf(stderr, "# entering host %u's namespace %s: %s\n", h, path,
					strerror(errno));
				_exit(3);
			}
			close(fd);
			setenv("FI_TCP_IFACE", "eth0", 1);
			setenv("CCORE_SOCKET_IFNAME", "eth0", 1);
			return;
		}
		at += len;
		at += *at == ' ';
	}
	fprintf(stderr, "# CCORE_TEST_NETNS names no namespace for host %u\n", h);
	_exit(3);
}

static void enter_host0(void)
{
	enter_host(0);
}

/* The job's unique id, its root in host 0 (its namespace, if any). */
static pid_t job_launcher(struct ccore_unique_id *id)
{
	return rank_run_launcher_in(id, job_hosts && getenv("CCORE_TEST_NETNS") ? enter_host0 : NULL);
}

static void proc_init(struct proc *pr, const struct ccore_unique_id *id, struct report *rep)
{
	int ranks[MAXN], rc;

	for (uint32_t i = 0; i < pr->per; i++)
		ranks[i] = (int)(pr->first + i);
	rc = pr->per == 1 ? ccore_comm_init_rank(&pr->c[0], (int)pr->n, id, (int)pr->first, NULL) :
	     ccore_comm_init_ranks(pr->c, (int)pr->n, id, (int)pr->per, ranks, NULL);
	for (uint32_t i = 0; !rc && i < pr->per; i++) {
		pr->b[i] = (struct rank_bufs){ .comm = pr->c[i], .n = pr->n, .r = pr->first + i,
					       .bytes = BUF_BYTES };
		rc = ccore_mem_alloc(pr->c[i], BUF_BYTES, &pr->b[i].sb) ?:
		     ccore_mem_alloc(pr->c[i], BUF_BYTES, &pr->b[i].rb);
	}
	if (rc) {
		rep->rc = rc;
		snprintf(rep->msg, sizeof(rep->msg), "ranks %u..%u: init: %s", pr->first,
			 pr->first + pr->per - 1, ccore_last_error());
	}
}

/* Run @x on the process's ranks (in a group, as a thread posting for several must). */
static int proc_run(struct proc *pr, const struct rank_run *x, long *wrong)
{
	int rc;

	if (x->algo)
		setenv("CCORE_ALGO", x->algo, 1);
	else
		unsetenv("CCORE_ALGO");
	for (uint32_t i = 0; i < pr->per; i++)
		rank_run_fill(&pr->b[i], x);
	rc = ccore_group_start();
	for (uint32_t i = 0; i < pr->per && !rc; i++)
		rc = rank_run_post(&pr->b[i], x);
	rc = ccore_group_end() ?: rc;
	for (uint32_t i = 0; i < pr->per && !rc; i++)
		rc = ccore_stream_sync(ccore_comm_stream(pr->c[i]));
	for (uint32_t i = 0; i < pr->per && !rc; i++)
		*wrong += rank_run_check(&pr->b[i], x);
	return rc;
}

/* Every run of runs[]: a forced algorithm may be refused (every rank alike). */
static void sweep_body(struct proc *pr, struct report *rep)
{
	for (uint32_t k = 0; k < nruns; k++) {
		const struct rank_run *x = &runs[k];
		char what[192];
		long wrong = 0;
		int rc = proc_run(pr, x, &wrong);

		if (rc && x->algo && rc == -ENOENT &&
		    strstr(ccore_last_error(), "no algorithm can serve")) {
			rep->refused++;
			continue;
		}
		rank_run_describe(x, what, sizeof(what));
		if (!rc && x->count && x->algo && strcmp(ccore_comm_last_algo(pr->c[0]), x->algo))
			rc = -EPROTO;
		if (rc || wrong) {
			rep->rc = rc ? rc : -EIO;
			rep->wrong += wrong;
			snprintf(rep->msg, sizeof(rep->msg), "ranks %u..%u: %s: %s", pr->first,
				 pr->first + pr->per - 1, what,
				 rc == -EPROTO ? "another algorithm ran" :
				 rc ? ccore_last_error() : "wrong elements");
			return;
		}
		rep->runs++;
	}
}

/*
 * A job of @n ranks in @n / @per forked processes of @per ranks, each
 * running @body; the reports in @reps[process].  Fails the test if any
 * process failed or died.
 */
static void job_fork(uint32_t n, uint32_t per, proc_body *body, struct report *reps)
{
	uint32_t nproc = n / per;
	struct ccore_unique_id id;
	pid_t root = job_launcher(&id), pids[MAXN];
	int fds[MAXN], status;

	for (uint32_t p = 0; p < nproc; p++) {
		pids[p] = rank_run_fork(&fds[p]);
		if (pids[p] == 0) {
			struct proc pr = { .n = n, .per = per, .first = p * per };
			struct report rep = { 0 };
			char host[16];

			if (job_hosts) {
				snprintf(host, sizeof(host), "host%u", p / (nproc / job_hosts));
				setenv("CCORE_HOSTID", host, 1);
				enter_host(p / (nproc / job_hosts));
			}
			proc_init(&pr, &id, &rep);
			if (!rep.rc)
				body(&pr, &rep);
			for (uint32_t i = 0; i < per && pr.c[i]; i++)
				ccore_comm_destroy(pr.c[i]);
			_exit(write(fds[p], &rep, sizeof(rep)) == sizeof(rep) ? 0 : 2);
		}
	}
	for (uint32_t p = 0; p < nproc; p++) {
		ssize_t got = read(fds[p], &reps[p], sizeof(reps[p]));

		close(fds[p]);
		waitpid(pids[p], &status, 0);
		if (got != sizeof(reps[p]))
			FAIL("N=%u in %u processes: process %u (pid %d) died without a report (status 0x%x)",
			     n, nproc, p, pids[p], status);
	}
	waitpid(root, &status, 0);
	/* every failure: the first one's cause may be another process's */
	for (uint32_t p = 0; p < nproc; p++)
		if (reps[p].rc)
			ccore_test_log("process %u: %d: %s", p, reps[p].rc, reps[p].msg);
	for (uint32_t p = 0; p < nproc; p++)
		if (reps[p].rc)
			FAIL("N=%u in %u processes: process %u: %d: %s", n, nproc, p, reps[p].rc,
			     reps[p].msg);
}

static void add_run(struct rank_run x)
{
	ASSERT_LT(nruns, MAX_RUNS);
	runs[nruns++] = x;
}

/* Every collective x every algorithm serving it at @n ranks (and the tuner's) on @counts. */
static void runs_algos(uint32_t n, uint32_t per, const uint64_t *counts, size_t nc)
{
	struct algo_opts o = { .slices = 1, .channels = 1, .ranks_per_device = 1,
			       .ranks_per_node = job_hosts ? n / job_hosts : n };

	(void)per;
	for (uint8_t coll = 0; coll < CS_NCOLL; coll++)
		for (int a = -1; a < (int)algo_count(); a++) {
			const struct algo *al = a < 0 ? NULL : algo_at((unsigned int)a);
			struct cs_shape sh = { .coll = coll, .nranks = n, .count = counts[0],
					       .root = n - 1, .peer = 1 };

			if (al && (!(al->colls & (1u << coll)) || al->rejects(&sh, &o)))
				continue;
			for (size_t ci = 0; ci < nc; ci++) {
				struct rank_run x = { .coll = coll, .algo = al ? al->name : NULL,
						      .count = counts[ci], .dt = ccore_i32,
						      .op = ccore_sum, .root = n - 1,
						      .in_place = coll != CS_SENDRECV &&
								  (ci + coll) % 2 };

				add_run(x);
				/* both ways at the first count */
				if (ci == 0 && coll != CS_SENDRECV) {
					x.in_place = !x.in_place;
					add_run(x);
				}
			}
		}
}

/* The reducing collectives with every dtype and every @op_step-th reduction, the tuner choosing. */
static void runs_dtypes(int op_step)
{
	static const uint8_t colls[] = { CS_ALLREDUCE, CS_REDUCESCATTER, CS_REDUCE_COLL };

	for (size_t k = 0; k < sizeof(colls); k++)
		for (int dt = ccore_i8; dt <= ccore_f64; dt++)
			for (int op = ccore_sum + (dt + (int)k) % op_step; op <= ccore_avg;
			     op += op_step)
				add_run((struct rank_run){ .coll = colls[k], .count = 33 + (uint64_t)dt,
							   .dt = (enum ccore_dtype)dt,
							   .op = (enum ccore_redop)op, .root = 0,
							   .in_place = (dt + op) % 2 });
}

static void sweep(uint32_t n, uint32_t per, const uint64_t *counts, size_t nc, int op_step)
{
	struct report reps[MAXN];
	unsigned long done = 0, refused = 0;

	nruns = 0;
	runs_algos(n, per, counts, nc);
	runs_dtypes(op_step);
	job_fork(n, per, sweep_body, reps);
	for (uint32_t p = 0; p < n / per; p++) {
		done += reps[p].runs;
		refused += reps[p].refused;
		ASSERT_EQ(reps[p].runs + reps[p].refused, nruns);
	}
	ccore_test_log("N=%u in %u processes on %u hosts: %u collectives each, %lu checked over the processes, 0 wrong; %lu forced algorithms refused",
		       n, n / per, job_hosts ? job_hosts : 1, nruns, done, refused);
	ASSERT_GT(done, 0);
}

TEST(sweep_one_rank_per_process)
{
	static const uint64_t counts[] = { 1, 64, 301, 1000 };
	static const uint64_t counts8[] = { 5, 130, 999 };

	sweep(2, 1, counts, 4, 1);
	sweep(3, 1, counts, 4, 1);
	sweep(4, 1, counts, 4, 1);
	sweep(8, 1, counts8, 3, 1);
	unsetenv("CCORE_ALGO");
}

/*
 * Across hosts (CCORE_HOSTID): each host's processes share a fabric holding
 * its node only, the network (tcp;ofi_rxm on loopback here, on veth pairs
 * between network namespaces under selftests/netns/hosts.sh --hosts 3
 * --outside) carries what goes to the others, reductions between hosts
 * staged.  2 and 3 hosts of
 * one process, 2 hosts of 2 processes (a host's fabric shared, and the
 * network), 2 hosts of a process of 2 ranks.
 */
TEST(sweep_across_hosts)
{
	static const uint64_t counts[] = { 3, 130 };

	job_hosts = 2;
	sweep(2, 1, counts, 2, 2);
	sweep(4, 1, counts, 2, 3);
	sweep(4, 2, counts, 2, 3);
	job_hosts = 3;
	sweep(3, 1, counts, 2, 3);
	job_hosts = 0;
	unsetenv("CCORE_ALGO");
}

/*
 * Double-buffered plans across hosts (dbuf_test.c's sequence,
 * selftests/lib/dbuf_seq.h, here in processes on hosts joined by the
 * network): in-place AllReduces of several plans, repeated back to back
 * and interleaved on one stream, in groups and alone, posted without a
 * wait between them; every process checks its ranks' elements against
 * the model of all ranks at the end.  Every process draws the same
 * sequence.  rep->runs: plans it built double-buffered.
 */
static uint32_t dbuf_want[DBUF_SLOTS][MAXN][DBUF_COUNT];

static int dbuf_launch(struct proc *pr, const ccore_ptr (*buf)[MAXN], uint32_t k)
{
	const struct dbuf_slot *sl = &dbuf_slots[k];
	int rc;

	if (sl->algo)
		setenv("CCORE_ALGO", sl->algo, 1);
	else
		unsetenv("CCORE_ALGO");
	rc = ccore_group_start();
	for (uint32_t i = 0; i < pr->per && !rc; i++)
		rc = ccore_all_reduce(buf[k][i], buf[k][i], sl->count, ccore_i32, ccore_sum,
				      pr->c[i], ccore_comm_stream(pr->c[i]));
	rc = ccore_group_end() ?: rc;
	if (!rc)
		dbuf_model_run(dbuf_want[k], pr->n, sl->count);
	return rc;
}

static void dbuf_body(struct proc *pr, struct report *rep)
{
	ccore_ptr buf[DBUF_SLOTS][MAXN];
	uint32_t launched[DBUF_SLOTS] = { 0 }, rng = 2463534242u, posted = 0;
	unsigned long before = plans_double_buffered;
	struct dbuf_pick pick;
	int rc = 0;

	for (uint32_t k = 0; k < DBUF_SLOTS; k++)
		for (uint32_t r = 0; r < pr->n; r++)
			for (uint32_t e = 0; e < DBUF_COUNT; e++)
				dbuf_want[k][r][e] = dbuf_initial(r, e, k);
	for (uint32_t k = 0; k < DBUF_SLOTS && !rc; k++)
		for (uint32_t i = 0; i < pr->per && !rc; i++) {
			rc = ccore_mem_alloc(pr->c[i], DBUF_COUNT * sizeof(uint32_t), &buf[k][i]);
			if (!rc)
				memcpy(ccore_mem_host(pr->c[i], buf[k][i]),
				       dbuf_want[k][pr->first + i], DBUF_COUNT * sizeof(uint32_t));
		}
	/* each plan once first: a forced algorithm may be refused on this shape (everywhere alike) */
	for (uint32_t k = 0; k < DBUF_SLOTS && !rc; k++) {
		rc = dbuf_launch(pr, (const ccore_ptr (*)[MAXN])buf, k);
		if (rc == -ENOENT && strstr(ccore_last_error(), "no algorithm can serve")) {
			launched[k] = DBUF_MAX_RUNS;
			rc = 0;
		} else {
			launched[k]++;
			posted++;
		}
	}
	while (!rc && posted < DBUF_RUNS && dbuf_next(&rng, launched, &pick)) {
		rc = pick.grouped ? ccore_group_start() : 0;
		for (uint32_t j = 0; j < pick.again && !rc; j++, launched[pick.slot]++, posted++)
			rc = dbuf_launch(pr, (const ccore_ptr (*)[MAXN])buf, pick.slot);
		rc = (pick.grouped ? ccore_group_end() : 0) ?: rc;
	}
	for (uint32_t i = 0; i < pr->per && !rc; i++)
		rc = ccore_stream_sync(ccore_comm_stream(pr->c[i]));
	for (uint32_t k = 0; k < DBUF_SLOTS && !rc; k++)
		for (uint32_t i = 0; i < pr->per; i++) {
			const struct dbuf_slot *sl = &dbuf_slots[k];
			const uint32_t *got = ccore_mem_host(pr->c[i], buf[k][i]);

			for (uint64_t e = 0; e < sl->count; e++)
				if (got[e] != dbuf_want[k][pr->first + i][e] && !rep->wrong++)
					snprintf(rep->msg, sizeof(rep->msg),
						 "rank %u: allreduce of %llu (%s) after %u runs: element %llu is 0x%x, want 0x%x",
						 pr->first + i, (unsigned long long)sl->count,
						 sl->algo ? sl->algo : "the tuner's", launched[k],
						 (unsigned long long)e, got[e],
						 dbuf_want[k][pr->first + i][e]);
		}
	unsetenv("CCORE_ALGO");
	rep->runs = plans_double_buffered - before;
	if (rc) {
		rep->rc = rc;
		snprintf(rep->msg, sizeof(rep->msg), "ranks %u..%u: %s", pr->first,
			 pr->first + pr->per - 1, ccore_last_error());
	} else if (rep->wrong) {
		rep->rc = -EIO;
	}
}

TEST(double_buffered_plans_across_hosts_repeat_and_interleave_exactly)
{
	static const struct { uint32_t hosts, n, per; } jobs[] = {
		{ 2, 2, 1 }, { 2, 4, 1 }, { 2, 8, 1 }, { 2, 4, 2 }, { 3, 6, 1 },
	};
	struct report reps[MAXN];

	for (size_t j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		unsigned long dbuf = 0;

		job_hosts = jobs[j].hosts;
		job_fork(jobs[j].n, jobs[j].per, dbuf_body, reps);
		for (uint32_t p = 0; p < jobs[j].n / jobs[j].per; p++)
			dbuf += reps[p].runs;
		ccore_test_log("N=%u in %u processes on %u hosts: up to %u runs, 0 wrong; %lu plans double-buffered",
			       jobs[j].n, jobs[j].n / jobs[j].per, jobs[j].hosts, DBUF_RUNS, dbuf);
		ASSERT_GT(dbuf, 0);
	}
	job_hosts = 0;
}

/*
 * Host1's first process takes what host0 sends to every process of host1.
 * Here it leaves first: rank 2 destroys its communicator at once, while
 * rank 0 sends 1 MiB to rank 3 (host1's other process) 300 ms later.  It
 * must stay until host0's processes have said goodbye (sim_net.c), or the
 * send finds no one there and rank 3 never receives.
 */
static void first_process_leaves_body(struct proc *pr, struct report *rep)
{
	const size_t count = (1u << 20) / sizeof(int32_t);
	struct ccore_comm *c = pr->c[0];
	struct ccore_stream *s = ccore_comm_stream(c);
	int32_t *buf = NULL;
	ccore_ptr p = 0;
	int rc = 0;

	if (pr->first == 0 || pr->first == 3) {
		rc = ccore_mem_alloc(c, count * sizeof(*buf), &p);
		buf = rc ? NULL : ccore_mem_host(c, p);
	}
	if (!rc && pr->first == 0) {
		for (size_t i = 0; i < count; i++)
			buf[i] = (int32_t)(i * 2654435761u);
		usleep(300000);
		rc = ccore_send(p, count, ccore_i32, 3, c, s) ?: ccore_stream_sync(s);
	} else if (!rc && pr->first == 3) {
		memset(buf, 0, count * sizeof(*buf));
		rc = ccore_recv(p, count, ccore_i32, 0, c, s) ?: ccore_stream_sync(s);
		for (size_t i = 0; !rc && i < count; i++)
			rep->wrong += buf[i] != (int32_t)(i * 2654435761u);
	}
	if (rc || rep->wrong) {
		rep->rc = rc ? rc : -EIO;
		snprintf(rep->msg, sizeof(rep->msg), "rank %u: %d, %ld wrong: %s", pr->first, rc,
			 rep->wrong, rc ? ccore_last_error() : "");
	}
	if (p)
		ccore_mem_free(c, p);
}

TEST(a_host_s_first_process_leaving_first_does_not_cut_its_host_off)
{
	struct report reps[4];

	memset(reps, 0, sizeof(reps));
	job_hosts = 2;
	job_fork(4, 1, first_process_leaves_body, reps);
	job_hosts = 0;
	ASSERT_EQ(reps[3].wrong, 0);
}

TEST(sweep_two_ranks_per_process)
{
	static const uint64_t counts[] = { 7, 130 };

	sweep(4, 2, counts, 2, 1);
	sweep(6, 2, counts, 2, 2);
	sweep(8, 2, counts, 2, 2);
	unsetenv("CCORE_ALGO");
}

/* A few calls twice: the second pass, all of cached plans, sends nothing. */
static void cached_body(struct proc *pr, struct report *rep)
{
	for (int pass = 0; pass < 2 && !rep->rc; pass++) {
		uint64_t bytes;

		sweep_body(pr, rep);
		for (uint32_t i = 0; i < pr->per; i++) {
			uint64_t m;

			comm_boot_traffic(pr->c[i], &m, &bytes);
			rep->msgs[pass] += m;
		}
	}
}

TEST(cached_launch_sends_nothing_across_processes)
{
	struct report reps[MAXN];

	nruns = 0;
	add_run((struct rank_run){ CS_ALLREDUCE, "ring", 300, ccore_f32, ccore_sum, 0, false });
	add_run((struct rank_run){ CS_ALLGATHER, NULL, 77, ccore_i32, ccore_sum, 0, true });
	add_run((struct rank_run){ CS_BROADCAST, NULL, 101, ccore_u8, ccore_sum, 2, false });
	add_run((struct rank_run){ CS_SENDRECV, NULL, 64, ccore_i32, ccore_sum, 0, false });
	add_run((struct rank_run){ CS_REDUCESCATTER, NULL, 33, ccore_bf16, ccore_max, 0, false });
	job_fork(4, 1, cached_body, reps);
	for (uint32_t p = 0; p < 4; p++) {
		ccore_test_log("process %u: %llu bootstrap messages after the first pass, %llu after the second",
			       p, (unsigned long long)reps[p].msgs[0],
			       (unsigned long long)reps[p].msgs[1]);
		/* the first pass exchanged (else this test could not fail) ... */
		ASSERT_GT(reps[p].msgs[0], 0);
		/* ... the second, all cached plans, nothing */
		ASSERT_EQ(reps[p].msgs[1], reps[p].msgs[0]);
	}
	unsetenv("CCORE_ALGO");
}

/*
 * Across hosts, what a process's cores post for the network is handed to
 * the transport by the thread that stepped them, not by its pump: an
 * engine that sends to another host is stepped by its own process only
 * (model/ccm_sched.c), since another process's thread cannot reach this
 * process's network and its post would wait for the pump to wake.  2
 * hosts x 2 processes, 300 AllReduces of 8 bytes: host leaders send
 * hundreds of transfers, at most a few by the pump (an engine's first
 * post may be a thief's).  Without the rule most went by the pump.
 */
static void handover_body(struct proc *pr, struct report *rep)
{
	for (int i = 0; i < 300 && !rep->rc; i++)
		sweep_body(pr, rep);
	if (!rep->rc && comm_net_handovers(pr->c[0], &rep->msgs[0], &rep->msgs[1])) {
		rep->rc = -EIO;
		snprintf(rep->msg, sizeof(rep->msg), "%s", ccore_last_error());
	}
}

TEST(posts_across_hosts_go_out_on_the_thread_that_stepped_them)
{
	struct report reps[4];
	uint64_t stepper = 0, pump = 0;

	nruns = 0;
	add_run((struct rank_run){ CS_ALLREDUCE, NULL, 2, ccore_f32, ccore_sum, 0, false });
	job_hosts = 2;
	job_fork(4, 1, handover_body, reps);
	job_hosts = 0;
	for (uint32_t p = 0; p < 4; p++) {
		ccore_test_log("process %u: %llu transfers handed over by the thread that stepped them, %llu by the pump",
			       p, (unsigned long long)reps[p].msgs[0],
			       (unsigned long long)reps[p].msgs[1]);
		ASSERT_EQ(reps[p].runs, 300);
		stepper += reps[p].msgs[0];
		pump += reps[p].msgs[1];
	}
	ASSERT_GT(stepper, 300);
	ASSERT_LE(pump, 16);
}

/*
 * CCORE_DEBUG=info across hosts: the line each planned collective logs
 * names a rank of this process (rank 0's stream is another process's;
 * reading it crashed every process without rank 0).
 */
TEST(info_log_across_hosts)
{
	struct report reps[MAXN];

	nruns = 0;
	add_run((struct rank_run){ CS_ALLREDUCE, NULL, 300, ccore_f32, ccore_sum, 0, false });
	add_run((struct rank_run){ CS_SENDRECV, NULL, 64, ccore_i32, ccore_sum, 0, false });
	setenv("CCORE_DEBUG", "info", 1);
	job_hosts = 2;
	job_fork(4, 1, sweep_body, reps);
	job_hosts = 0;
	unsetenv("CCORE_DEBUG");
	for (uint32_t p = 0; p < 4; p++)
		ASSERT_EQ(reps[p].runs, nruns);
}

/* --- the network tier's figures across hosts ------------------------------------------ */

#define TIER_N 4
#define TIER_COMMS 2
/* AllReduce sizes (f32 elements per rank) whose choice the figures may change */
static const size_t tier_counts[] = { 2, 256, 4096, 16384, 65536, 262144, 1048576 };
#define TIER_SIZES (sizeof(tier_counts) / sizeof(tier_counts[0]))

/* What a process of a network-tier job saw. */
struct tier_report {
	int rc;
	char msg[600];
	struct tune_net net[TIER_COMMS];	/* each communicator's agreed figures */
	char algo[TIER_SIZES][24];		/* the first one's AllReduce choice per size */
	double ring_us[TIER_SIZES], flatring_us[TIER_SIZES];	/* their predictions, -1: none */
};

/* Rank @rank of host rank / 2: @ncomms communicators, one after the other, on @ids. */
static void tier_proc(uint32_t rank, const struct ccore_unique_id *ids, int ncomms,
		      struct tier_report *tr)
{
	struct ccore_comm *c[TIER_COMMS] = { NULL };
	char host[16];

	snprintf(host, sizeof(host), "host%u", rank / 2);
	setenv("CCORE_HOSTID", host, 1);
	enter_host(rank / 2);
	for (int k = 0; k < ncomms && !tr->rc; k++) {
		tr->rc = ccore_comm_init_rank(&c[k], TIER_N, &ids[k], (int)rank, NULL);
		if (!tr->rc)
			tr->net[k] = c[k]->q->rt->net;
	}
	for (size_t i = 0; i < TIER_SIZES && !tr->rc; i++) {
		struct ccore_plan_info info;

		tr->rc = ccore_plan_query(c[0], ccore_op_allreduce, tier_counts[i], ccore_f32, &info);
		if (tr->rc)
			break;
		snprintf(tr->algo[i], sizeof(tr->algo[i]), "%s", info.algo);
		tr->ring_us[i] = tr->flatring_us[i] = -1;
		for (uint32_t k = 0; k < info.ncandidates; k++) {
			const struct ccore_plan_candidate *cand = &info.candidates[k];

			if (!strcmp(cand->algo, "ring"))
				tr->ring_us[i] = cand->predicted_us;
			else if (!strcmp(cand->algo, "flatring"))
				tr->flatring_us[i] = cand->predicted_us;
		}
	}
	if (tr->rc)
		snprintf(tr->msg, sizeof(tr->msg), "%s", ccore_last_error());
	for (int k = 0; k < ncomms; k++)
		if (c[k])
			ccore_comm_destroy(c[k]);
}

/* A job of TIER_N ranks, a process each, on 2 hosts, with @ncomms communicators; the reports. */
static void tier_job(int ncomms, struct tier_report *reps)
{
	struct ccore_unique_id ids[TIER_COMMS];
	pid_t roots[TIER_COMMS], pids[TIER_N];
	int fds[TIER_N], status;

	job_hosts = 2;
	for (int k = 0; k < ncomms; k++)
		roots[k] = job_launcher(&ids[k]);
	for (uint32_t r = 0; r < TIER_N; r++) {
		pids[r] = rank_run_fork(&fds[r]);
		if (pids[r] == 0) {
			struct tier_report tr = { 0 };

			tier_proc(r, ids, ncomms, &tr);
			_exit(write(fds[r], &tr, sizeof(tr)) == sizeof(tr) ? 0 : 2);
		}
	}
	job_hosts = 0;
	for (uint32_t r = 0; r < TIER_N; r++) {
		ssize_t got = read(fds[r], &reps[r], sizeof(reps[r]));

		close(fds[r]);
		waitpid(pids[r], &status, 0);
		if (got != sizeof(reps[r]))
			FAIL("rank %u (pid %d) died without a report (status 0x%x)", r, pids[r],
			     status);
	}
	for (int k = 0; k < ncomms; k++)
		waitpid(roots[k], &status, 0);
	for (uint32_t r = 0; r < TIER_N; r++)
		if (reps[r].rc)
			FAIL("rank %u: %d: %s", r, reps[r].rc, reps[r].msg);
}

/* Every rank's communicator @k has rank 0's figures, from @from; rank 0's in *@net. */
static void tier_agreed(const struct tier_report *reps, int k, enum tune_net_source from,
			struct tune_net *net)
{
	*net = reps[0].net[k];
	for (uint32_t r = 0; r < TIER_N; r++) {
		ASSERT_EQ(reps[r].net[k].alpha_from, from);
		ASSERT_EQ(reps[r].net[k].bw_from, from);
		/* bit for bit: each rank prices with the same numbers */
		ASSERT_EQ(memcmp(&reps[r].net[k].alpha_us, &net->alpha_us, sizeof(double)), 0);
		ASSERT_EQ(memcmp(&reps[r].net[k].bw_gbps, &net->bw_gbps, sizeof(double)), 0);
	}
}

/* The tuner's AllReduce choices of @reps (every rank's the same) as one line in @buf. */
static void tier_choices(const struct tier_report *reps, char *buf, size_t len)
{
	size_t used = 0;

	for (size_t i = 0; i < TIER_SIZES; i++) {
		for (uint32_t r = 1; r < TIER_N; r++)
			if (strcmp(reps[r].algo[i], reps[0].algo[i]))
				FAIL("%zu B: rank %u chose %s, rank 0 %s", tier_counts[i] * 4, r,
				     reps[r].algo[i], reps[0].algo[i]);
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%zu B %s",
					 i ? ", " : "", tier_counts[i] * 4, reps[0].algo[i]);
	}
}

/*
 * Network figures given (CCORE_NET_ALPHA_US, CCORE_NET_BW_GBPS) reach the
 * tuner across hosts: a very slow network and a very fast one, on the same
 * 2 hosts x 2 ranks, make the tuner choose another AllReduce algorithm at
 * some size, as ccore_plan_query tells; every rank has the same figures
 * and the same choices.
 */
TEST(network_figures_given_change_the_choice_across_hosts)
{
	static const char *const figures[2][2] = { { "2000", "0.05" }, { "0.5", "500" } };
	struct tier_report reps[2][TIER_N];
	char line[2][400];
	size_t differ = 0;

	for (int v = 0; v < 2; v++) {
		struct tune_net net;

		setenv("CCORE_NET_ALPHA_US", figures[v][0], 1);
		setenv("CCORE_NET_BW_GBPS", figures[v][1], 1);
		memset(reps[v], 0, sizeof(reps[v]));
		tier_job(1, reps[v]);
		tier_agreed(reps[v], 0, TUNE_NET_GIVEN, &net);
		ASSERT_TRUE(net.alpha_us == atof(figures[v][0]));
		ASSERT_TRUE(net.bw_gbps == atof(figures[v][1]));
		tier_choices(reps[v], line[v], sizeof(line[v]));
		ccore_test_log("network α %s µs, %s GB/s: AllReduce %s", figures[v][0],
			       figures[v][1], line[v]);
	}
	unsetenv("CCORE_NET_ALPHA_US");
	unsetenv("CCORE_NET_BW_GBPS");
	for (size_t i = 0; i < TIER_SIZES; i++)
		differ += strcmp(reps[0][0].algo[i], reps[1][0].algo[i]) != 0;
	ccore_test_log("the choice differs at %zu of %zu sizes", differ, TIER_SIZES);
	ASSERT_GT(differ, 0);
}

/*
 * Each host here is one device with one NIC (2 hosts x 2 ranks, a process
 * per rank, CCORE_RANKS_PER_DEVICE=2 as ccore-bench sets it under a
 * launcher).  Flat Ring's second channel runs the other way round, but
 * both ways leave a host through its one NIC, so channels cannot beat the
 * plain ring there; and a ring crosses the network with 2(n-1)/n of the
 * data per host where Hierarchical, RDH and KangaRing cross with half that
 * per rank, so at the large sizes the tuner takes one of those.  The
 * model halved Flat Ring's NIC time with two channels and chose it from
 * 1 MiB up.
 */
TEST(one_nic_per_host_the_large_allreduce_crosses_the_least)
{
	struct tier_report reps[TIER_N];
	char line[400];

	setenv("CCORE_NET_ALPHA_US", "25", 1);
	setenv("CCORE_NET_BW_GBPS", "3", 1);
	setenv("CCORE_RANKS_PER_DEVICE", "2", 1);
	memset(reps, 0, sizeof(reps));
	tier_job(1, reps);
	unsetenv("CCORE_NET_ALPHA_US");
	unsetenv("CCORE_NET_BW_GBPS");
	unsetenv("CCORE_RANKS_PER_DEVICE");
	tier_choices(reps, line, sizeof(line));
	ccore_test_log("network α 25 µs, 3 GB/s: AllReduce %s", line);
	for (size_t i = 0; i < TIER_SIZES; i++) {
		const char *algo = reps[0].algo[i];

		ccore_test_log("%zu B: ring %.1f µs, flatring %.1f µs", tier_counts[i] * 4,
			       reps[0].ring_us[i], reps[0].flatring_us[i]);
		ASSERT_TRUE(reps[0].ring_us[i] > 0 && reps[0].flatring_us[i] > 0);
		/* its channels share the one NIC: never faster than one ring */
		if (reps[0].flatring_us[i] < reps[0].ring_us[i] * 0.999)
			FAIL("%zu B: flatring priced at %.1f µs, under ring's %.1f, as if each channel had a NIC",
			     tier_counts[i] * 4, reps[0].flatring_us[i], reps[0].ring_us[i]);
		if (tier_counts[i] * 4 >= (1u << 20) &&
		    (!strcmp(algo, "flatring") || !strcmp(algo, "ring")))
			FAIL("%zu B: chose %s, which crosses the network with the most bytes",
			     tier_counts[i] * 4, algo);
	}
}

/*
 * Not given, the network is measured at the first communicator's init
 * across hosts and every rank takes rank 0's figures; a second
 * communicator in the same processes reuses them (CCORE_NET_MEASURE=once)
 * or measures again (always); off leaves the device's.
 */
TEST(network_measured_once_agreed_by_every_rank)
{
	struct tier_report reps[TIER_N];
	struct tune_net net, again;

	unsetenv("CCORE_NET_ALPHA_US");
	unsetenv("CCORE_NET_BW_GBPS");
	unsetenv("CCORE_NET_MEASURE");
	memset(reps, 0, sizeof(reps));
	tier_job(2, reps);
	tier_agreed(reps, 0, TUNE_NET_MEASURED, &net);
	ccore_test_log("measured between the hosts: α %.1f µs, %.3f GB/s", net.alpha_us,
		       net.bw_gbps);
	ASSERT_TRUE(net.alpha_us > 0 && net.bw_gbps > 0);
	tier_agreed(reps, 1, TUNE_NET_CACHED, &again);
	ASSERT_TRUE(again.alpha_us == net.alpha_us && again.bw_gbps == net.bw_gbps);

	setenv("CCORE_NET_MEASURE", "always", 1);
	memset(reps, 0, sizeof(reps));
	tier_job(2, reps);
	tier_agreed(reps, 0, TUNE_NET_MEASURED, &net);
	tier_agreed(reps, 1, TUNE_NET_MEASURED, &again);

	setenv("CCORE_NET_MEASURE", "off", 1);
	memset(reps, 0, sizeof(reps));
	tier_job(1, reps);
	tier_agreed(reps, 0, TUNE_NET_DEVICE, &net);
	unsetenv("CCORE_NET_MEASURE");
}

/* --- a process killed in the middle of a collective ------------------------------------ */

#define KILL_N 4
#define VICTIM 2

/* What a survivor saw: its failed call, and (rank 0) whether the victim's core was free again. */
struct kill_report {
	int rc;
	bool first_ran;			/* the collective the victim had posted finished */
	long first_wrong;
	int64_t fail_ms, destroy_ms;
	int claim_rc;			/* claiming the dead rank's core: 0, it was released */
	int new_rc;			/* the new communicator's AllReduce, checked */
	long new_wrong;
	char msg[1200], new_msg[1100];
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A survivor's new communicator, rank @rank of @n: one checked AllReduce. */
static void survivor_again(uint32_t n, uint32_t rank, const struct ccore_unique_id *id,
			   struct kill_report *kr)
{
	static const struct rank_run x = { CS_ALLREDUCE, NULL, 301, ccore_f32, ccore_sum, 0, false };
	struct proc pr = { .n = n, .per = 1, .first = rank };
	struct report rep = { 0 };
	long wrong = 0;

	proc_init(&pr, id, &rep);
	kr->new_rc = rep.rc ? rep.rc : proc_run(&pr, &x, &wrong);
	kr->new_wrong = wrong;
	snprintf(kr->new_msg, sizeof(kr->new_msg), "%s",
		 rep.rc ? rep.msg : kr->new_rc ? ccore_last_error() : "");
	if (pr.c[0])
		ccore_comm_destroy(pr.c[0]);
}

/* Rank @pr->first's communicator and its first (cached) AllReduce @x: false, with why in @kr, if it failed. */
static bool first_allreduce(struct proc *pr, const struct ccore_unique_id *id,
			    const struct rank_run *x, struct kill_report *kr)
{
	struct report rep = { 0 };
	long wrong = 0;

	proc_init(pr, id, &rep);
	kr->rc = rep.rc ? rep.rc : proc_run(pr, x, &wrong);
	if (!kr->rc && !wrong)
		return true;
	snprintf(kr->msg, sizeof(kr->msg), "the first AllReduce: %d, %ld wrong: %s", kr->rc, wrong,
		 rep.rc ? rep.msg : ccore_last_error());
	kr->rc = kr->rc ? kr->rc : -EIO;
	return false;
}

/*
 * A survivor's end: unless its first AllReduce failed (@kr->rc from it),
 * its communicator gone, the new id from @id_fd and a new communicator,
 * rank @rank of @n; then the report.
 */
static void survivor_end(struct proc *pr, bool first_ok, uint32_t n, uint32_t rank,
			 struct kill_report *kr, int report_fd, int id_fd)
{
	struct ccore_unique_id again;
	int64_t t0 = now_ms();

	if (first_ok) {
		ccore_comm_destroy(pr->c[0]);
		pr->c[0] = NULL;
		kr->destroy_ms = now_ms() - t0;
		if (read(id_fd, &again, sizeof(again)) == sizeof(again))
			survivor_again(n, rank, &again, kr);
		else
			kr->new_rc = -EIO;
	}
	if (pr->c[0])
		ccore_comm_destroy(pr->c[0]);
	_exit(write(report_fd, kr, sizeof(*kr)) == sizeof(*kr) ? 0 : 2);
}

static void kill_rank(uint32_t rank, const struct ccore_unique_id *id, int report_fd, int id_fd)
{
	static const struct rank_run x = { CS_ALLREDUCE, "ring", 8000, ccore_i32, ccore_sum, 0, false };
	struct proc pr = { .n = KILL_N, .per = 1, .first = rank };
	struct kill_report kr = { 0 };
	const struct clique_rank *v;
	long wrong = 0;
	int64_t t0;

	/* a plan built and cached: the next launch sends nothing between processes */
	if (!first_allreduce(&pr, id, &x, &kr))
		survivor_end(&pr, false, 0, 0, &kr, report_fd, id_fd);
	if (rank == VICTIM) {
		/* its part posted, which cannot finish before the others post theirs */
		rank_run_fill(&pr.b[0], &x);
		rank_run_post(&pr.b[0], &x);
		raise(SIGKILL);
	}
	usleep(100000);
	t0 = now_ms();
	kr.rc = proc_run(&pr, &x, &wrong);
	/*
	 * The victim's part, triggered before it died, may still run (another
	 * process steps its cores, as a device runs what was triggered): then
	 * the next collective, which it never posts, is the one that fails.
	 */
	if (!kr.rc) {
		kr.first_ran = true;
		kr.first_wrong = wrong;
		t0 = now_ms();
		kr.rc = proc_run(&pr, &x, &wrong);
	}
	kr.fail_ms = now_ms() - t0;
	snprintf(kr.msg, sizeof(kr.msg), "%s", kr.rc ? ccore_last_error() : "(it succeeded)");
	/* the dead process's core is free again: rank 0 takes it */
	v = &pr.c[0]->q->ranks[VICTIM];
	if (rank == 0)
		kr.claim_rc = ccore_system_claim_core(pr.c[0]->q->rt->sys, v->dev, v->core);
	survivor_end(&pr, true, KILL_N - 1, rank < VICTIM ? rank : rank - 1, &kr, report_fd, id_fd);
}

/* --- a host killed (its processes), the other host's ranks fail and start again --------- */

/* Ranks 0, 1 on host0, 2, 3 on host1; host1's die after the first AllReduce. */
static void host_kill_rank(uint32_t rank, const struct ccore_unique_id *id, int report_fd,
			   int id_fd)
{
	static const struct rank_run x = { CS_ALLREDUCE, "ring", 8000, ccore_i32, ccore_sum, 0, false };
	struct proc pr = { .n = KILL_N, .per = 1, .first = rank };
	struct kill_report kr = { 0 };
	long wrong = 0;
	int64_t t0;

	setenv("CCORE_HOSTID", rank < 2 ? "host0" : "host1", 1);
	if (!first_allreduce(&pr, id, &x, &kr))
		survivor_end(&pr, false, 0, 0, &kr, report_fd, id_fd);
	if (rank >= 2)
		raise(SIGKILL);
	usleep(100000);
	t0 = now_ms();
	/* until one fails: a call posted before the deaths may still finish */
	for (int i = 0; i < 1000 && !kr.rc && now_ms() - t0 < 20000; i++)
		kr.rc = proc_run(&pr, &x, &wrong);
	kr.fail_ms = now_ms() - t0;
	snprintf(kr.msg, sizeof(kr.msg), "%s", kr.rc ? ccore_last_error() : "(it succeeded)");
	/* the survivors, a new job: host0's two ranks */
	survivor_end(&pr, true, 2, rank, &kr, report_fd, id_fd);
}

/*
 * KILL_N ranks, each a process running @body; those @dies says are killed
 * (SIGKILL, asserted); the others get a new unique id for their new
 * communicator and report in @kr.  @pids: the processes.
 */
static void kill_job(void (*body)(uint32_t, const struct ccore_unique_id *, int, int),
		     bool (*dies)(uint32_t), struct kill_report *kr, pid_t *pids)
{
	struct ccore_unique_id id, again;
	int rep_fd[KILL_N], id_fd[KILL_N], status;
	pid_t root = rank_run_launcher(&id), root2;

	for (uint32_t r = 0; r < KILL_N; r++) {
		int ip[2];

		ASSERT_EQ(pipe(ip), 0);	/* the other way: the parent sends the new id */
		pids[r] = rank_run_fork(&rep_fd[r]);
		if (pids[r] == 0) {
			close(ip[1]);
			body(r, &id, rep_fd[r], ip[0]);
		}
		close(ip[0]);
		id_fd[r] = ip[1];
	}
	for (uint32_t r = 0; r < KILL_N; r++)
		if (dies(r)) {
			waitpid(pids[r], &status, 0);
			ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		}
	/* the survivors' new communicator: a new unique id */
	root2 = rank_run_launcher(&again);
	for (uint32_t r = 0; r < KILL_N; r++) {
		if (!dies(r))
			ASSERT_EQ(write(id_fd[r], &again, sizeof(again)), sizeof(again));
		close(id_fd[r]);
	}
	for (uint32_t r = 0; r < KILL_N; r++) {
		if (!dies(r)) {
			ASSERT_EQ(read(rep_fd[r], &kr[r], sizeof(kr[r])), sizeof(kr[r]));
			waitpid(pids[r], &status, 0);
		}
		close(rep_fd[r]);
	}
	waitpid(root, &status, 0);
	waitpid(root2, &status, 0);
}

static bool host1_dies(uint32_t r)
{
	return r >= 2;
}

static bool victim_dies(uint32_t r)
{
	return r == VICTIM;
}

/*
 * Across hosts (CCORE_HOSTID, the network between them): host1's two
 * processes are killed after an AllReduce; host0's ranks' next call fails
 * well within the job timeout naming a rank of host1 (through the
 * bootstrap's connections, or the network's heartbeats and timeout), the
 * communicator goes quickly, and a new one of the two survivors works.
 */
TEST(a_host_killed_fails_the_other_host_and_a_new_communicator_works)
{
	struct kill_report kr[KILL_N];
	pid_t pids[KILL_N];

	kill_job(host_kill_rank, host1_dies, kr, pids);
	for (uint32_t r = 0; r < 2; r++) {
		ccore_test_log("rank %u: failed after %lld ms: %d: %s", r, (long long)kr[r].fail_ms,
			       kr[r].rc, kr[r].msg);
		ccore_test_log("rank %u: destroyed in %lld ms; the new communicator: %d, %ld wrong %s",
			       r, (long long)kr[r].destroy_ms, kr[r].new_rc, kr[r].new_wrong,
			       kr[r].new_msg);
		ASSERT_NE(kr[r].rc, 0);
		if (!strstr(kr[r].msg, "rank 2") && !strstr(kr[r].msg, "rank 3") &&
		    !strstr(kr[r].msg, "host 1"))
			FAIL("rank %u's failure names no rank or host of host1: %s", r, kr[r].msg);
		/* the job timeout is 10 s: far sooner */
		ASSERT_LT(kr[r].fail_ms, 6000);
		ASSERT_LT(kr[r].destroy_ms, 6000);
		ASSERT_EQ(kr[r].new_rc, 0);
		ASSERT_EQ(kr[r].new_wrong, 0);
	}
}

TEST(killed_process_fails_its_peers_and_new_communicators_work)
{
	struct kill_report kr[KILL_N];
	struct report reps[MAXN];
	pid_t pids[KILL_N];

	kill_job(kill_rank, victim_dies, kr, pids);
	for (uint32_t r = 0; r < KILL_N; r++) {
		char name[32];

		if (r == VICTIM)
			continue;
		ccore_test_log("rank %u: %sfailed after %lld ms: %d: %s", r,
			       kr[r].first_ran ? "the posted collective finished, the next " : "",
			       (long long)kr[r].fail_ms, kr[r].rc, kr[r].msg);
		ccore_test_log("rank %u: destroyed in %lld ms; claiming the dead rank's core: %d; the new communicator: %d, %ld wrong %s",
			       r, (long long)kr[r].destroy_ms, kr[r].claim_rc, kr[r].new_rc,
			       kr[r].new_wrong, kr[r].new_msg);
		ASSERT_EQ(kr[r].first_wrong, 0);
		ASSERT_EQ(kr[r].rc, -EPIPE);
		snprintf(name, sizeof(name), "rank %u (pid %d)", VICTIM, pids[VICTIM]);
		ASSERT_STR_CONTAINS(kr[r].msg, name);
		/* within the timeout, and far sooner */
		ASSERT_LT(kr[r].fail_ms, 5000);
		ASSERT_LT(kr[r].destroy_ms, 5000);
		ASSERT_EQ(kr[r].claim_rc, 0);
		ASSERT_EQ(kr[r].new_rc, 0);
		ASSERT_EQ(kr[r].new_wrong, 0);
	}
	/* and new processes */
	nruns = 0;
	add_run((struct rank_run){ CS_ALLREDUCE, NULL, 1000, ccore_f32, ccore_sum, 0, true });
	add_run((struct rank_run){ CS_ALLGATHER, NULL, 99, ccore_i32, ccore_sum, 0, false });
	job_fork(KILL_N, 1, sweep_body, reps);
	unsetenv("CCORE_ALGO");
}

/* --- processes killed at random moments ------------------------------------------------ */

/*
 * A waiting process steps other processes' cores, so a process killed at a
 * random moment may die inside a step of a survivor's core.  The plans
 * are built and cached first (a death while peers are exchanged is the
 * bootstrap's case: boot_test); then, whatever the victim was doing, every
 * survivor's loop of collectives ends in an error naming the dead process
 * (-EPIPE: the dead rank never posts; -EIO: the dead process was stepping
 * this rank's core), none hangs, none returns wrong data, and a new job
 * works afterwards.
 */
#define CHURN_ROUNDS 6

struct churn_report {
	int rc;
	unsigned long calls;
	long wrong;
	int64_t fail_ms;
	char msg[1024];
};

/* A thief (below) that lived through this many collectives never stole a step. */
#define THIEF_CALLS 20000

/*
 * Rank @rank's process: collectives until one fails.  A @thief arms its
 * death inside the next step it runs of another process's agent
 * (ccm_inject_thief_death()), and stops after THIEF_CALLS if none came.
 */
static void churn_rank(uint32_t rank, const struct ccore_unique_id *id, int ready_fd, int report_fd,
		       bool thief)
{
	static const struct rank_run xs[] = {
		{ CS_ALLREDUCE, NULL, 2, ccore_f32, ccore_sum, 0, false },
		{ CS_ALLREDUCE, NULL, 1000, ccore_i32, ccore_sum, 0, true },
		{ CS_ALLGATHER, NULL, 999, ccore_f32, ccore_sum, 0, false },
	};
	struct proc pr = { .n = KILL_N, .per = 1, .first = rank };
	struct churn_report cr = { 0 };
	struct report rep = { 0 };
	char one = 1;
	int64_t t0;

	proc_init(&pr, id, &rep);
	/* every plan built and cached before the kill can come */
	for (int i = 0; i < 3 && !rep.rc; i++) {
		long wrong = 0;

		rep.rc = proc_run(&pr, &xs[i], &wrong) ?: (wrong ? -EIO : 0);
		if (rep.rc)
			snprintf(rep.msg, sizeof(rep.msg), "warming up: %s", ccore_last_error());
	}
	if (write(ready_fd, &one, 1) != 1 || rep.rc) {
		cr.rc = rep.rc ? rep.rc : -EIO;
		snprintf(cr.msg, sizeof(cr.msg), "%s", rep.msg);
		goto out;
	}
	if (thief)
		ccm_inject_thief_death();
	for (;;) {
		t0 = now_ms();
		cr.rc = proc_run(&pr, &xs[cr.calls % 3], &cr.wrong);
		if (cr.rc || cr.wrong || (thief && cr.calls == THIEF_CALLS))
			break;
		cr.calls++;
	}
	cr.fail_ms = now_ms() - t0;
	snprintf(cr.msg, sizeof(cr.msg), "%s", cr.rc ? ccore_last_error() : "wrong elements");
out:
	if (pr.c[0])
		ccore_comm_destroy(pr.c[0]);
	_exit(write(report_fd, &cr, sizeof(cr)) == sizeof(cr) ? 0 : 2);
}

/*
 * KILL_N ranks, one process each, run collectives; rank @victim's process
 * is killed after @delay_ms, or with @delay_ms 0 dies inside a step it
 * ran for another process (a thief).  Every other rank's call fails
 * within the timeout naming the dead process, with nothing wrong.
 */
static void churn_round(unsigned int round, uint32_t victim, unsigned int delay_ms)
{
	struct churn_report cr[KILL_N];
	struct ccore_unique_id id;
	pid_t pids[KILL_N], root = rank_run_launcher(&id);
	int rep_fd[KILL_N], ready[2], status;
	char pid_text[24], byte;

	ASSERT_EQ(pipe(ready), 0);
	for (uint32_t r = 0; r < KILL_N; r++) {
		pids[r] = rank_run_fork(&rep_fd[r]);
		if (pids[r] == 0) {
			close(ready[0]);
			churn_rank(r, &id, ready[1], rep_fd[r], !delay_ms && r == victim);
		}
	}
	close(ready[1]);
	for (uint32_t r = 0; r < KILL_N; r++)
		ASSERT_EQ(read(ready[0], &byte, 1), 1);
	close(ready[0]);
	if (delay_ms) {
		usleep(delay_ms * 1000);
		kill(pids[victim], SIGKILL);
	}
	for (uint32_t r = 0; r < KILL_N; r++) {
		ssize_t got = read(rep_fd[r], &cr[r], sizeof(cr[r]));

		close(rep_fd[r]);
		waitpid(pids[r], &status, 0);
		if (r != victim && got != sizeof(cr[r]))
			FAIL("round %u: rank %u (pid %d) died without a report (status 0x%x)", round, r,
			     pids[r], status);
		if (r == victim && !delay_ms && got == sizeof(cr[r]))
			FAIL("round %u: rank %u ran %lu collectives and never a step of another process's (status 0x%x): %s",
			     round, r, cr[r].calls, status, cr[r].msg);
	}
	waitpid(root, &status, 0);
	snprintf(pid_text, sizeof(pid_text), "%d", pids[victim]);
	for (uint32_t r = 0; r < KILL_N; r++) {
		if (r == victim)
			continue;
		if (delay_ms)
			ccore_test_log("round %u (rank %u killed after %u ms): rank %u: %lu collectives, then %d after %lld ms: %s",
				       round, victim, delay_ms, r, cr[r].calls, cr[r].rc,
				       (long long)cr[r].fail_ms, cr[r].msg);
		else
			ccore_test_log("round %u (rank %u died in a step it stole): rank %u: %lu collectives, then %d after %lld ms: %s",
				       round, victim, r, cr[r].calls, cr[r].rc,
				       (long long)cr[r].fail_ms, cr[r].msg);
		ASSERT_EQ(cr[r].wrong, 0);
		ASSERT_TRUE(cr[r].rc == -EPIPE || cr[r].rc == -EIO);
		ASSERT_STR_CONTAINS(cr[r].msg, pid_text);
		ASSERT_LT(cr[r].fail_ms, 5000);
	}
}

/*
 * One process steps the light agents of every process at a time
 * (model/ccm_steal_user.c).  If it stops holding that role (descheduled,
 * in a debugger, frozen) the others' own work must still run: rank 2's
 * process, waiting on a collective ranks 0 and 1 never join, stops itself
 * the moment it takes the role (ccm_inject_runner_stop()); then ranks 0
 * and 1 run collectives on a communicator of their own.
 */
#define STOPPED_N 3
#define STOPPED_CALLS 200

struct stopped_report {
	int rc;
	long wrong;
	unsigned long calls;
	int64_t ms;
	char msg[512];
};

static void stopped_rank(uint32_t rank, const struct ccore_unique_id *id, int go_fd, int report_fd)
{
	static const struct rank_run x = { CS_ALLREDUCE, NULL, 2, ccore_f32, ccore_sum, 0, false };
	struct stopped_report sr = { 0 };
	struct ccore_comm *full = NULL, *pair = NULL;
	struct rank_bufs b;
	char byte;
	int64_t t0;

	sr.rc = ccore_comm_init_rank(&full, STOPPED_N, id, (int)rank, NULL) ?:
		ccore_comm_split_rank(full, rank < 2 ? 0 : -1, 0, NULL, &pair);
	b = (struct rank_bufs){ .comm = full, .n = STOPPED_N, .r = rank, .bytes = BUF_BYTES };
	sr.rc = sr.rc ?: ccore_mem_alloc(full, BUF_BYTES, &b.sb) ?:
		ccore_mem_alloc(full, BUF_BYTES, &b.rb);
	/* once together: the plan is built and cached everywhere */
	if (!sr.rc) {
		rank_run_fill(&b, &x);
		sr.rc = rank_run_post(&b, &x) ?: ccore_stream_sync(ccore_comm_stream(full));
	}
	if (sr.rc)
		goto out;
	if (rank == 2) {
		/* again, but ranks 0 and 1 never join: it waits, takes the role, stops */
		ccm_inject_runner_stop();
		rank_run_fill(&b, &x);
		sr.rc = rank_run_post(&b, &x) ?: ccore_stream_sync(ccore_comm_stream(full));
		snprintf(sr.msg, sizeof(sr.msg), "rank 2's lone collective returned: %s",
			 ccore_last_error());
		goto out;
	}
	b = (struct rank_bufs){ .comm = pair, .n = 2, .r = rank, .bytes = BUF_BYTES };
	sr.rc = ccore_mem_alloc(pair, BUF_BYTES, &b.sb) ?: ccore_mem_alloc(pair, BUF_BYTES, &b.rb);
	/* once rank 2 stopped: as many calls on both ranks */
	if (sr.rc || read(go_fd, &byte, 1) != 1)
		goto out;
	t0 = now_ms();
	for (; sr.calls < STOPPED_CALLS; sr.calls++) {
		rank_run_fill(&b, &x);
		sr.rc = rank_run_post(&b, &x) ?: ccore_stream_sync(ccore_comm_stream(pair));
		sr.wrong += sr.rc ? 0 : rank_run_check(&b, &x);
		if (sr.rc || sr.wrong)
			break;
	}
	sr.ms = now_ms() - t0;
out:
	if (sr.rc && !sr.msg[0])
		snprintf(sr.msg, sizeof(sr.msg), "%s", ccore_last_error());
	if (write(report_fd, &sr, sizeof(sr)) != sizeof(sr))
		_exit(2);
	/* not before the peer's last collective is done: leaving fails it */
	if (go_fd >= 0 && read(go_fd, &byte, 1) != 1)
		_exit(2);
	_exit(0);
}

TEST(a_process_stopped_holding_the_runner_role_does_not_hold_up_the_others)
{
	struct stopped_report sr[2];
	struct ccore_unique_id id;
	pid_t pids[STOPPED_N], root = rank_run_launcher(&id);
	int rep_fd[STOPPED_N], go[2][2], status = 0;
	bool stopped = false;

	for (uint32_t r = 0; r < 2; r++)
		ASSERT_EQ(pipe(go[r]), 0);
	for (uint32_t r = 0; r < STOPPED_N; r++) {
		pids[r] = rank_run_fork(&rep_fd[r]);
		if (pids[r] == 0)
			stopped_rank(r, &id, r < 2 ? go[r][0] : -1, rep_fd[r]);
	}
	for (uint32_t r = 0; r < 2; r++)
		close(go[r][0]);
	/* rank 2 stops once it took the role: up to 30 s */
	for (int i = 0; i < 3000 && !stopped; i++) {
		pid_t got = waitpid(pids[2], &status, WUNTRACED | WNOHANG);

		stopped = got == pids[2] && WIFSTOPPED(status);
		if (got == pids[2] && !stopped)
			break;	/* it ended instead */
		if (!stopped)
			usleep(10000);
	}
	/* go (or, if it never stopped, let them report and leave) */
	for (uint32_t r = 0; r < 2; r++)
		ASSERT_EQ(write(go[r][1], "g", 1), 1);
	for (uint32_t r = 0; r < 2; r++) {
		ssize_t got = read(rep_fd[r], &sr[r], sizeof(sr[r]));

		close(rep_fd[r]);
		ASSERT_EQ(got, (ssize_t)sizeof(sr[r]));
	}
	/* both reported: they may leave */
	for (uint32_t r = 0; r < 2; r++) {
		ASSERT_EQ(write(go[r][1], "x", 1), 1);
		close(go[r][1]);
		waitpid(pids[r], NULL, 0);
	}
	kill(pids[2], SIGKILL);
	waitpid(pids[2], NULL, 0);
	close(rep_fd[2]);
	kill(root, SIGKILL);
	waitpid(root, NULL, 0);
	for (uint32_t r = 0; r < 2; r++)
		ccore_test_log("rank %u: %lu calls with rank 2 stopped in %lld ms: %d %s", r,
			       sr[r].calls, (long long)sr[r].ms, sr[r].rc, sr[r].rc ? sr[r].msg : "");
	if (!stopped)
		FAIL("rank 2's process never took the role of stepping everyone's agents (status 0x%x)",
		     status);
	for (uint32_t r = 0; r < 2; r++) {
		ASSERT_EQ(sr[r].rc, 0);
		ASSERT_EQ(sr[r].wrong, 0);
		ASSERT_EQ(sr[r].calls, (unsigned long)STOPPED_CALLS);
		/* about 0.1 ms a call here; held up, a call waits for its job's timeout */
		ASSERT_LT(sr[r].ms, 5000);
	}
}

TEST(processes_killed_at_random_moments_fail_their_peers_never_corrupt_them)
{
	struct report reps[MAXN];
	unsigned int seed = (unsigned int)time(NULL);

	ccore_test_log("seed %u", seed);
	srand(seed);
	for (unsigned int round = 0; round < CHURN_ROUNDS; round++)
		churn_round(round, (uint32_t)rand() % KILL_N, 1 + (unsigned int)rand() % 30);
	/* a death inside a step stolen from a peer fails that peer's job on
	 * its CC core (a DMA error): its call names the dead process too */
	for (uint32_t victim = 0; victim < KILL_N; victim++)
		churn_round(CHURN_ROUNDS + victim, victim, 0);
	nruns = 0;
	add_run((struct rank_run){ CS_ALLREDUCE, NULL, 1000, ccore_f32, ccore_sum, 0, true });
	job_fork(KILL_N, 1, sweep_body, reps);
	unsetenv("CCORE_ALGO");
}
