// SPDX-License-Identifier: GPL-2.0
/*
 * build/tests/kernel/mproc_accel: one process per rank on the kernel
 * driver, in the QEMU guest (selftests/qemu/setup.sh's fabric 0, two
 * devices).  The processes are forked; each opens the fabric itself and
 * drives only its own ranks' cores; peers' buffers and semaphore blocks
 * reach it as dma-buf and semaphore fds over the bootstrap's fd channel.
 * A narrowed sweep -- AllReduce, AllGather, ReduceScatter, AllToAll,
 * Broadcast, Send/Recv, two algorithms each, f32 and i32, an odd count,
 * in place and out of place -- on 2 and 4 processes of one rank and 2
 * processes of two ranks (4 ranks: two per device, so two processes
 * drive cores of one device), every element checked (0 wrong).  Each process
 * ends with the fds it started with (every exported and received fd
 * closed), and once all have exited the devices hold no memory more than
 * before (sysfs memory_used) and no ring or semaphore (debugfs).  A process killed (SIGKILL) with its
 * collective on the device: its peer's sync fails within seconds naming
 * it, it makes a new communicator with a new process, the driver frees
 * what the dead process held, and a new job of new processes runs.
 * For information: an 8-byte AllReduce's latency with 2 processes next
 * to 2 ranks of one process (results checked, times only logged).
 */
#include "ccore_test.h"
#include "proc_counts.h"
#include "rank_run.h"
#include "ccore_verifiable.h"
#include "algos/algo.h"
#include "bootstrap/boot.h"
#include "sched/cs.h"

#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXN 4
#define COUNT 33		/* odd */
#define BUF_BYTES ((size_t)COUNT * MAXN * 8 + 64)
#define MAX_CASES 128

struct run {
	uint8_t coll;
	const char *algo;
	enum ccore_dtype dt;
	bool in_place;
};

static struct run cases[MAX_CASES];
static unsigned int ncases;

/* Two algorithms that serve @coll on @n ranks (fewer if fewer do). */
static void add_cases(uint8_t coll, uint32_t n)
{
	struct algo_opts o = { .slices = 1, .channels = 1, .ranks_per_device = n > 2 ? 2 : 1,
			       .ranks_per_node = n };
	struct cs_shape sh = { .coll = coll, .nranks = n, .count = COUNT, .root = n - 1,
			       .peer = 1 };
	unsigned int picked = 0;

	for (unsigned int a = 0; a < algo_count() && picked < 2; a++) {
		const struct algo *al = algo_at(a);

		if (!(al->colls & (1u << coll)) || al->rejects(&sh, &o))
			continue;
		picked++;
		for (int dt = 0; dt < 2; dt++)
			for (int ip = 0; ip < (coll == CS_SENDRECV ? 1 : 2); ip++)
				cases[ncases++] = (struct run){ coll, al->name,
								dt ? ccore_i32 : ccore_f32, ip };
	}
}

static void make_cases(uint32_t n)
{
	static const uint8_t colls[] = { CS_ALLREDUCE, CS_ALLGATHER, CS_REDUCESCATTER,
					 CS_ALLTOALL, CS_BROADCAST, CS_SENDRECV };

	ncases = 0;
	for (size_t i = 0; i < sizeof(colls); i++)
		add_cases(colls[i], n);
}

/* --- one process ----------------------------------------------------------------------- */

struct proc {
	uint32_t n, per, first;
	struct ccore_comm *c[MAXN];
	ccore_ptr sb[MAXN], rb[MAXN];
};

static uint64_t in_elems(const struct proc *p, const struct run *x)
{
	return x->coll == CS_REDUCESCATTER || x->coll == CS_ALLTOALL ? COUNT * p->n : COUNT;
}

static void ptrs(const struct proc *p, const struct run *x, uint32_t i, ccore_ptr *s, ccore_ptr *rv)
{
	uint32_t r = p->first + i;
	size_t es = ccore_dtype_size(x->dt);

	*s = p->sb[i];
	*rv = p->rb[i];
	if (!x->in_place)
		return;
	*s = *rv;
	if (x->coll == CS_ALLGATHER)
		*s = *rv + r * COUNT * es;
	else if (x->coll == CS_REDUCESCATTER)
		*rv = *s + r * COUNT * es;
}

static int post(struct proc *p, const struct run *x, uint32_t i)
{
	uint32_t r = p->first + i, n = p->n;
	struct ccore_comm *c = p->c[i];
	ccore_ptr s, rv;

	ptrs(p, x, i, &s, &rv);
	switch (x->coll) {
	case CS_ALLREDUCE:
		return ccore_all_reduce(s, rv, COUNT, x->dt, ccore_sum, c, NULL);
	case CS_ALLGATHER:
		return ccore_all_gather(s, rv, COUNT, x->dt, c, NULL);
	case CS_REDUCESCATTER:
		return ccore_reduce_scatter(s, rv, COUNT, x->dt, ccore_sum, c, NULL);
	case CS_ALLTOALL:
		return ccore_all_to_all(s, rv, COUNT, x->dt, c, NULL);
	case CS_BROADCAST:
		return ccore_broadcast(s, rv, COUNT, x->dt, (int)n - 1, c, NULL);
	default:
		return ccore_send(s, COUNT, x->dt, (int)((r + 1) % n), c, NULL) ?:
		       ccore_recv(rv, COUNT, x->dt, (int)((r + n - 1) % n), c, NULL);
	}
}

static long check(struct proc *p, const struct run *x, uint32_t i)
{
	uint32_t r = p->first + i, n = p->n;
	size_t es = ccore_dtype_size(x->dt);
	const char *out;
	ccore_ptr s, rv;
	long wrong = 0;

	ptrs(p, x, i, &s, &rv);
	out = ccore_mem_host(p->c[i], rv);
	switch (x->coll) {
	case CS_ALLREDUCE:
		return ccore_verifiable_check_reduced(out, COUNT, x->dt, ccore_sum, (int)n, 0);
	case CS_REDUCESCATTER:
		return ccore_verifiable_check_reduced(out, COUNT, x->dt, ccore_sum, (int)n,
						      r * COUNT);
	case CS_ALLGATHER:
	case CS_ALLTOALL:
		for (uint32_t k = 0; k < n; k++)
			wrong += ccore_verifiable_check_from(out + k * COUNT * es, COUNT, x->dt,
							     ccore_sum, (int)k,
							     x->coll == CS_ALLTOALL ? r * COUNT : 0);
		return wrong;
	case CS_BROADCAST:
		return ccore_verifiable_check_from(out, COUNT, x->dt, ccore_sum, (int)n - 1, 0);
	default:
		return ccore_verifiable_check_from(out, COUNT, x->dt, ccore_sum,
						   (int)((r + n - 1) % n), 0);
	}
}

/* Run every case; 0, or a message in @err. */
static int sweep(struct proc *p, char *err, size_t len, long *checked)
{
	for (unsigned int k = 0; k < ncases; k++) {
		const struct run *x = &cases[k];
		int rc;

		setenv("CCORE_ALGO", x->algo, 1);
		for (uint32_t i = 0; i < p->per; i++) {
			ccore_ptr s, rv;

			ptrs(p, x, i, &s, &rv);
			memset(ccore_mem_host(p->c[i], p->rb[i]), 0x5c, BUF_BYTES);
			ccore_verifiable_fill(ccore_mem_host(p->c[i], s), in_elems(p, x), x->dt,
					      ccore_sum,
					      x->coll == CS_BROADCAST ? (int)p->n - 1 :
					      (int)(p->first + i), 0);
		}
		rc = ccore_group_start();
		for (uint32_t i = 0; i < p->per && !rc; i++)
			rc = post(p, x, i);
		rc = ccore_group_end() ?: rc;
		for (uint32_t i = 0; i < p->per && !rc; i++)
			rc = ccore_stream_sync(ccore_comm_stream(p->c[i]));
		if (rc) {
			snprintf(err, len, "%s %s %s %s: %d: %s", cs_coll_name(x->coll), x->algo,
				 ccore_dtype_name(x->dt), x->in_place ? "in place" : "out of place",
				 rc, ccore_last_error());
			return rc;
		}
		for (uint32_t i = 0; i < p->per; i++) {
			long wrong = check(p, x, i);

			if (wrong) {
				snprintf(err, len, "%s %s %s %s: rank %u: %ld wrong",
					 cs_coll_name(x->coll), x->algo, ccore_dtype_name(x->dt),
					 x->in_place ? "in place" : "out of place", p->first + i,
					 wrong);
				return -EIO;
			}
			(*checked)++;
		}
	}
	return 0;
}

static unsigned long long memory_used(void)
{
	unsigned long long total = 0, v;
	char path[96];

	for (int d = 0; d < 16; d++) {
		FILE *f;

		snprintf(path, sizeof(path), "/sys/class/accel/accel%d/memory_used", d);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &v) == 1)
			total += v;
		fclose(f);
	}
	return total;
}

/* Rings and semaphores claimed on the devices: lines of debugfs's rings and semaphores. */
static long held_in_debugfs(void)
{
	static const char *const pats[] = { "/sys/kernel/debug/ccore/*/*/rings",
					    "/sys/kernel/debug/ccore/*/*/semaphores" };
	long lines = 0;

	for (size_t k = 0; k < 2; k++) {
		glob_t g;

		if (glob(pats[k], 0, NULL, &g))
			return -1;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			FILE *f = fopen(g.gl_pathv[i], "re");
			char line[512];

			while (f && fgets(line, sizeof(line), f))
				lines += !strncmp(line, "core=", 5);
			if (f)
				fclose(f);
		}
		globfree(&g);
	}
	return lines;
}

/* A forked process's whole life; its report goes to @out: "0 ..." or "rc message". */
static void proc_main(const struct ccore_unique_id *id, uint32_t n, uint32_t per, uint32_t first,
		      int out)
{
	struct proc p = { .n = n, .per = per, .first = first };
	char msg[1024] = "";
	int ranks[MAXN], rc, fds0 = count_open_fds(), fds1;
	long checked = 0;

	for (uint32_t i = 0; i < per; i++)
		ranks[i] = (int)(first + i);
	rc = ccore_comm_init_ranks(p.c, (int)n, id, (int)per, ranks, NULL);
	if (rc)
		snprintf(msg, sizeof(msg), "init: %s", ccore_last_error());
	for (uint32_t i = 0; i < per && !rc; i++) {
		rc = ccore_mem_alloc(p.c[i], BUF_BYTES, &p.sb[i]) ?:
		     ccore_mem_alloc(p.c[i], BUF_BYTES, &p.rb[i]);
		if (rc)
			snprintf(msg, sizeof(msg), "alloc: %s", ccore_last_error());
	}
	if (!rc && !memory_used()) {
		/* else the leftover check after the job could not fail */
		snprintf(msg, sizeof(msg), "sysfs memory_used reads 0 with buffers allocated");
		rc = -EIO;
	}
	if (!rc)
		rc = sweep(&p, msg, sizeof(msg), &checked);
	if (!rc && held_in_debugfs() <= 0) {
		/* else the check after the job could not fail */
		snprintf(msg, sizeof(msg), "debugfs shows no ring or semaphore held while this process holds some");
		rc = -EIO;
	}
	for (uint32_t i = 0; i < per; i++)
		if (p.c[i])
			ccore_comm_destroy(p.c[i]);
	fds1 = count_open_fds();
	if (!rc && fds1 != fds0) {
		snprintf(msg, sizeof(msg), "%d fds open after destroy, %d before", fds1, fds0);
		rc = -EMFILE;
	}
	if (!rc)
		snprintf(msg, sizeof(msg), "ranks %u-%u: %ld results checked, 0 wrong, %d fds before and after",
			 first, first + per - 1, checked, fds0);
	dprintf(out, "%d %s", rc, msg);
	close(out);
	_exit(0);
}

/* --- the job --------------------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void job(uint32_t n, uint32_t nproc)
{
	uint32_t per = n / nproc;
	unsigned long long mem0 = memory_used();
	struct ccore_unique_id id;
	pid_t root, pids[MAXN];
	int pipes[MAXN], status;
	double t0 = now_s();
	bool failed = false;

	/* the guest's fabric 0 has 2 devices: 4 ranks share them, 2 cores each */
	setenv("CCORE_RANKS_PER_DEVICE", n > 2 ? "2" : "1", 1);
	make_cases(n);
	root = rank_run_launcher(&id);
	for (uint32_t p = 0; p < nproc; p++) {
		pids[p] = rank_run_fork(&pipes[p]);
		if (pids[p] == 0)
			proc_main(&id, n, per, p * per, pipes[p]);
	}
	for (uint32_t p = 0; p < nproc; p++) {
		char msg[1100];
		ssize_t got = read(pipes[p], msg, sizeof(msg) - 1);
		int rc = -9999;

		msg[got > 0 ? got : 0] = 0;
		close(pipes[p]);
		waitpid(pids[p], &status, 0);
		sscanf(msg, "%d", &rc);
		ccore_test_log("N=%u in %u processes: process %u: %s", n, nproc, p, msg);
		failed |= rc != 0 || !WIFEXITED(status);
	}
	waitpid(root, &status, 0);
	if (failed)
		FAIL("N=%u in %u processes: a process failed (above)", n, nproc);
	ccore_test_log("N=%u in %u processes: %u cases in %.1f s; device memory used %llu before, %llu after",
		       n, nproc, ncases, now_s() - t0, mem0, memory_used());
	ASSERT_EQ(memory_used(), mem0);
	ASSERT_EQ(held_in_debugfs(), 0);
}

TEST(sweep_two_processes)
{
	job(2, 2);
}

TEST(sweep_four_processes)
{
	job(4, 4);
}

TEST(sweep_two_processes_of_two_ranks)
{
	job(4, 2);
}

/* --- a process killed in the middle of a collective ------------------------------------ */

/* Rank @rank of 2: init, one AllReduce to build the plan (the exchange), then @then. */
static int warm(const struct ccore_unique_id *id, int rank, struct ccore_comm **c, ccore_ptr *buf)
{
	int rc = ccore_comm_init_rank(c, 2, id, rank, NULL);

	rc = rc ?: ccore_mem_alloc(*c, COUNT * 4, buf);
	rc = rc ?: ccore_all_reduce(*buf, *buf, COUNT, ccore_f32, ccore_sum, *c, NULL);
	return rc ?: ccore_stream_sync(ccore_comm_stream(*c));
}

/* Rank @rank of a new job of 2: an AllReduce of ones, checked; 0 or a negative errno. */
static int fresh_allreduce(const struct ccore_unique_id *id, int rank)
{
	struct ccore_comm *c;
	ccore_ptr buf;
	float *h;
	int rc = ccore_comm_init_rank(&c, 2, id, rank, NULL);

	if (rc)
		return rc;
	rc = ccore_mem_alloc(c, COUNT * 4, &buf);
	h = rc ? NULL : ccore_mem_host(c, buf);
	for (int i = 0; h && i < COUNT; i++)
		h[i] = 1.0f;
	rc = rc ?: ccore_all_reduce(buf, buf, COUNT, ccore_f32, ccore_sum, c, NULL) ?:
	     ccore_stream_sync(ccore_comm_stream(c));
	for (int i = 0; !rc && i < COUNT; i++)
		if (h[i] != 2.0f)
			rc = -EIO;
	ccore_comm_destroy(c);
	return rc;
}

/* Rank 1: posts the next AllReduce, says so, and waits to be killed with its job on the device. */
static void victim(const struct ccore_unique_id *id, int out)
{
	struct ccore_comm *c;
	ccore_ptr buf;
	int rc = warm(id, 1, &c, &buf);

	rc = rc ?: ccore_all_reduce(buf, buf, COUNT, ccore_f32, ccore_sum, c, NULL);
	dprintf(out, "%d %s", rc, rc ? ccore_last_error() : "posted");
	close(out);
	for (;;)
		pause();
}

/* Rank 0: once told (@go), the same AllReduce: its report, with how long the sync took. */
static void survivor(const struct ccore_unique_id *id, int go, int out)
{
	struct ccore_unique_id id2;
	struct ccore_comm *c;
	ccore_ptr buf;
	double t0;
	char byte;
	int rc = warm(id, 0, &c, &buf);

	dprintf(out, "%d warm;", rc);
	if (read(go, &byte, 1) != 1 || rc)
		_exit(1);
	t0 = now_s();
	rc = ccore_all_reduce(buf, buf, COUNT, ccore_f32, ccore_sum, c, NULL) ?:
	     ccore_stream_sync(ccore_comm_stream(c));
	dprintf(out, "%d %.2f s: %s", rc, now_s() - t0, rc ? ccore_last_error() : "(no error)");
	ccore_comm_destroy(c);
	/* this process goes on: a new communicator with a new process */
	if (read(go, &id2, sizeof(id2)) != sizeof(id2))
		_exit(1);
	rc = fresh_allreduce(&id2, 0);
	dprintf(out, "%d %s", rc, rc ? ccore_last_error() : "a new communicator: AllReduce correct");
	close(out);
	_exit(0);
}

TEST(a_process_killed_in_a_collective_is_named_and_its_device_state_released)
{
	unsigned long long mem0 = memory_used();
	int vp[2], sp[2], gp[2], status, rc = -9999;
	struct ccore_unique_id id;
	pid_t root, v, sv;
	char msg[1100], again[1100];
	double secs = -1;
	ssize_t got;

	setenv("CCORE_RANKS_PER_DEVICE", "1", 1);
	setenv("CCORE_ALGO", "ring", 1);
	root = rank_run_launcher(&id);
	ASSERT_EQ(pipe(vp), 0);
	ASSERT_EQ(pipe(sp), 0);
	ASSERT_EQ(pipe(gp), 0);
	v = fork();
	ASSERT_TRUE(v >= 0);
	if (v == 0) {
		close(vp[0]);
		victim(&id, vp[1]);
	}
	close(vp[1]);
	sv = fork();
	ASSERT_TRUE(sv >= 0);
	if (sv == 0) {
		close(sp[0]);
		close(gp[1]);
		survivor(&id, gp[0], sp[1]);
	}
	close(sp[1]);
	close(gp[0]);
	got = read(vp[0], msg, sizeof(msg) - 1);
	msg[got > 0 ? got : 0] = 0;
	ccore_test_log("rank 1: %s", msg);
	ASSERT_STR_CONTAINS(msg, "0 posted");
	got = read(sp[0], msg, 8);
	msg[got > 0 ? got : 0] = 0;
	ASSERT_STR_CONTAINS(msg, "0 warm;");
	/* rank 1's job runs on its CC core, waiting for rank 0's part: kill it there */
	usleep(100000);
	ASSERT_EQ(kill(v, SIGKILL), 0);
	waitpid(v, &status, 0);
	ASSERT_EQ(write(gp[1], "g", 1), 1);
	got = read(sp[0], msg, sizeof(msg) - 1);
	msg[got > 0 ? got : 0] = 0;
	sscanf(msg, "%d %lf", &rc, &secs);
	ccore_test_log("rank 0: %s", msg);
	waitpid(root, &status, 0);
	/* the survivor and a new process make a new communicator */
	root = rank_run_launcher(&id);
	v = fork();
	ASSERT_TRUE(v >= 0);
	if (v == 0)
		_exit(fresh_allreduce(&id, 1) ? 1 : 0);
	ASSERT_EQ(write(gp[1], &id, sizeof(id)), sizeof(id));
	got = read(sp[0], again, sizeof(again) - 1);
	again[got > 0 ? got : 0] = 0;
	ccore_test_log("rank 0 afterwards: %s", again);
	waitpid(v, &status, 0);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	waitpid(sv, &status, 0);
	waitpid(root, &status, 0);
	close(vp[0]);
	close(sp[0]);
	close(gp[1]);
	ASSERT_EQ(rc, -ECONNRESET);
	ASSERT_STR_CONTAINS(msg, "rank 1 is gone");
	ASSERT_LT(secs, 5.0);
	ASSERT_STR_CONTAINS(again, "0 a new communicator: AllReduce correct");
	ccore_test_log("device memory used %llu before, %llu after both exited", mem0,
		       memory_used());
	ASSERT_EQ(memory_used(), mem0);
	ASSERT_EQ(held_in_debugfs(), 0);
	/* the killed process's cores, rings and semaphores are free again: a new job runs */
	unsetenv("CCORE_ALGO");
	job(2, 2);
}

/* --- 8-byte AllReduce latency: 2 processes next to 2 ranks of one process -------------- */

#define LAT_ITERS 200

/* @iters AllReduces of 2 floats on @c[0..@per-1] (one thread posts for all); us each, or < 0. */
static double latency(struct ccore_comm **c, uint32_t per, int iters)
{
	ccore_ptr buf[2];
	double t0 = 0;

	for (uint32_t i = 0; i < per; i++)
		if (ccore_mem_alloc(c[i], 64, &buf[i]))
			return -1;
	for (int k = -1; k < iters; k++) {
		int rc = ccore_group_start();

		if (k == 0)
			t0 = now_s();	/* the first builds the plan */
		for (uint32_t i = 0; i < per; i++) {
			float *h = ccore_mem_host(c[i], buf[i]);

			h[0] = 1.0f;
			h[1] = 2.0f;
			rc = rc ?: ccore_all_reduce(buf[i], buf[i], 2, ccore_f32, ccore_sum, c[i],
						    NULL);
		}
		rc = ccore_group_end() ?: rc;
		for (uint32_t i = 0; i < per && !rc; i++)
			rc = ccore_stream_sync(ccore_comm_stream(c[i]));
		for (uint32_t i = 0; i < per && !rc; i++) {
			float *h = ccore_mem_host(c[i], buf[i]);

			if (h[0] != 2.0f || h[1] != 4.0f)
				return -2;
		}
		if (rc)
			return -3;
	}
	return (now_s() - t0) * 1e6 / iters;
}

static void latency_proc(const struct ccore_unique_id *id, int rank, int out)
{
	struct ccore_comm *c;
	double us = -4;

	if (!ccore_comm_init_rank(&c, 2, id, rank, NULL)) {
		us = latency(&c, 1, LAT_ITERS);
		ccore_comm_destroy(c);
	}
	dprintf(out, "%.1f", us);
	close(out);
	_exit(0);
}

TEST(allreduce_8_bytes_latency_two_processes_and_one)
{
	struct ccore_topology topo = { .nodes = 1, .devices_per_node = 2, .ranks_per_device = 1 };
	struct ccore_comm *c[2];
	struct ccore_unique_id id;
	double one, two[2] = { -9, -9 };
	int fd[2], status;
	pid_t root, pid[2];

	setenv("CCORE_RANKS_PER_DEVICE", "1", 1);
	unsetenv("CCORE_ALGO");
	ASSERT_EQ(ccore_comm_init_all(&topo, c), 0);
	one = latency(c, 2, LAT_ITERS);
	ccore_comm_destroy(c[0]);
	ccore_comm_destroy(c[1]);
	root = rank_run_launcher(&id);
	for (int r = 0; r < 2; r++) {
		pid[r] = rank_run_fork(&fd[r]);
		if (pid[r] == 0)
			latency_proc(&id, r, fd[r]);
	}
	for (int r = 0; r < 2; r++) {
		char msg[64];
		ssize_t got = read(fd[r], msg, sizeof(msg) - 1);

		msg[got > 0 ? got : 0] = 0;
		sscanf(msg, "%lf", &two[r]);
		close(fd[r]);
		waitpid(pid[r], &status, 0);
	}
	waitpid(root, &status, 0);
	ccore_test_log("8-byte AllReduce, %d in a row, QEMU TCG guest: 2 ranks in one process %.1f us, 2 processes %.1f / %.1f us (rank 0 / 1)",
		       LAT_ITERS, one, two[0], two[1]);
	ASSERT_GT(one, 0);
	ASSERT_GT(two[0], 0);
	ASSERT_GT(two[1], 0);
}

__attribute__((constructor)) static void mproc_accel_defaults(void)
{
	setenv("CCORE_DEVICE", "accel", 0);
	setenv("CCORE_BOOT_TIMEOUT_MS", "30000", 0);
}
