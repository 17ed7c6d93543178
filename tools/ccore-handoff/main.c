// SPDX-License-Identifier: MIT
/*
 * ccore-handoff: this host's floor for a call that N processes must all
 * take part in.  A collective of one process per rank cannot complete on
 * any rank before every rank's process has entered it, so each call is at
 * least a rendezvous of the N processes; with more processes than CPUs,
 * each rendezvous also means the processes take turns on the CPUs.  This
 * times the cheapest rendezvous there is -- a counter in shared memory,
 * nothing else -- waiting the ways a runtime can: spinning with
 * sched_yield() between looks (what ccore and Open MPI's
 * mpi_yield_when_idle do), and sleeping on a futex.  Compare a
 * collective's latency with N processes against the row for N: what is
 * above it is the runtime's own.
 *
 * It also times a cache line passed between two CPUs and back: every
 * step of a collective whose processes run on different CPUs passes some.
 * On the VMs we measure on that figure flips, for minutes at a time,
 * between about 80 ns and about 330 ns, and every shared-memory runtime's
 * latency (ccore's, Open MPI's) flips with it.
 */

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ccore.h"

#define MAX_PROCS 64

enum wait_kind { WAIT_YIELD, WAIT_FUTEX };

/* The rendezvous: arrivals of the current round, and the round's number. */
struct shared {
	_Atomic uint32_t arrived;
	_Atomic uint32_t round;		/* futex word */
	_Atomic int failed;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: ccore-handoff [-p LIST] [-n ROUNDS] [-w WARMUP] [--line]\n"
		"\n"
		"This host's floor for a call every one of N processes takes part in:\n"
		"N processes meet at a counter in shared memory ROUNDS times, waiting\n"
		"by spinning with sched_yield() and by sleeping on a futex; prints\n"
		"the time per rendezvous.  A collective of one process per rank is\n"
		"at least one such rendezvous a call.  First it prints how long a\n"
		"cache line takes from one CPU to another and back (spinning, no\n"
		"system calls): each step of a collective across CPUs passes some.\n"
		"\n"
		"  -p LIST     process counts, comma-separated, 1..%d (default 1,2,4,8)\n"
		"  -n ROUNDS   rendezvous timed per count and way (default 20000)\n"
		"  -w WARMUP   rendezvous first, untimed (default 2000)\n"
		"  --line      print only the cache line's round trip in ns (0: one CPU)\n"
		"  --version   print the version and exit\n"
		"  -h, --help  this text\n"
		"\n"
		"Exit status 0, 1 on a failure, 2 on bad usage.\n",
		MAX_PROCS);
}

static long futex(_Atomic uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, (uint32_t *)word, op, val, NULL, NULL, 0);
}

/* Stop every process's rounds (a fork or a futex failed): no round would complete. */
static void give_up(struct shared *s, int err)
{
	atomic_store(&s->failed, err);
	futex(&s->round, FUTEX_WAKE, INT32_MAX);
}

/* Round @r: the last to arrive opens round r + 1 for all. */
static void meet(struct shared *s, uint32_t nprocs, uint32_t r, enum wait_kind how)
{
	if (atomic_fetch_add(&s->arrived, 1) + 1 == nprocs) {
		atomic_store(&s->arrived, 0);
		atomic_store(&s->round, r + 1);
		if (how == WAIT_FUTEX)
			futex(&s->round, FUTEX_WAKE, INT32_MAX);
		return;
	}
	while (atomic_load(&s->round) == r && !atomic_load(&s->failed)) {
		if (how == WAIT_YIELD)
			sched_yield();
		else if (futex(&s->round, FUTEX_WAIT, r) && errno != EAGAIN && errno != EINTR)
			give_up(s, errno);
	}
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* µs per rendezvous of @nprocs processes, or a negative errno. */
static double time_rounds(uint32_t nprocs, uint32_t rounds, uint32_t warmup, enum wait_kind how)
{
	struct shared *s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				-1, 0);
	pid_t pid[MAX_PROCS];
	double t0 = 0, us;
	int failed = 0;

	if (s == MAP_FAILED)
		return -errno;
	memset(s, 0, sizeof(*s));
	for (uint32_t p = 1; p < nprocs; p++) {
		pid[p] = fork();
		if (pid[p] < 0) {
			/* the children forked so far wait for ones that never come */
			failed = -errno;
			give_up(s, errno);
			nprocs = p;
			break;
		}
		if (pid[p] == 0) {
			for (uint32_t r = 0; r < warmup + rounds && !atomic_load(&s->failed); r++)
				meet(s, nprocs, r, how);
			_exit(0);
		}
	}
	for (uint32_t r = 0; !failed && !atomic_load(&s->failed) && r < warmup + rounds; r++) {
		if (r == warmup)
			t0 = now_us();
		meet(s, nprocs, r, how);
	}
	us = failed ? 0 : (now_us() - t0) / rounds;
	for (uint32_t p = 1; p < nprocs; p++) {
		int status;

		if (waitpid(pid[p], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			failed = failed ? failed : -ECHILD;
	}
	if (!failed && atomic_load(&s->failed))
		failed = -atomic_load(&s->failed);
	munmap(s, sizeof(*s));
	return failed ? failed : us;
}

/* The first two CPUs this process may run on, in @a and @b; false if one. */
static bool two_cpus(cpu_set_t *mine, int *a, int *b)
{
	int n = 0;

	if (sched_getaffinity(0, sizeof(*mine), mine))
		return false;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, mine))
			*(n++ ? b : a) = c;
	return n == 2;
}

static void pin(int cpu)
{
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

/*
 * ns for one cache line to go from CPU @a to CPU @b and back, both sides
 * spinning on it (@trips times, the best of three runs: a run a
 * preemption cut into reads high); 0 with one CPU, a negative errno.
 */
static double line_round_trip_ns(uint32_t trips)
{
	cpu_set_t mine;
	double best = 0;
	int a, b;

	if (!two_cpus(&mine, &a, &b))
		return 0;
	for (int run = 0; run < 3; run++) {
		_Atomic uint64_t *line = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		double t0, ns;
		int status;
		pid_t pid;

		if (line == MAP_FAILED)
			return -errno;
		atomic_store(line, 0);
		pid = fork();
		if (pid < 0) {
			munmap((void *)line, 4096);
			return -errno;
		}
		if (pid == 0) {
			pin(b);
			for (uint64_t t = 0; t < trips; t++) {
				while (atomic_load_explicit(line, memory_order_acquire) != 2 * t + 1)
					;
				atomic_store_explicit(line, 2 * t + 2, memory_order_release);
			}
			_exit(0);
		}
		pin(a);
		t0 = now_us();
		for (uint64_t t = 0; t < trips; t++) {
			atomic_store_explicit(line, 2 * t + 1, memory_order_release);
			while (atomic_load_explicit(line, memory_order_acquire) != 2 * t + 2)
				;
		}
		ns = (now_us() - t0) * 1e3 / trips;
		sched_setaffinity(0, sizeof(mine), &mine);
		munmap((void *)line, 4096);
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return -ECHILD;
		best = run && best < ns ? best : ns;
	}
	return best;
}

static int parse_u32(const char *opt, const char *arg, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi) {
		fprintf(stderr, "ccore-handoff: %s %s: expected a number from %u to %u\n", opt, arg,
			lo, hi);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t counts[MAX_PROCS] = { 1, 2, 4, 8 }, ncounts = 4, rounds = 20000, warmup = 2000;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	bool line_only = false;
	double line;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--version")) {
			printf("ccore-handoff (ccore) %s\n", CCORE_VERSION_STRING);
			return 0;
		}
		if (!strcmp(a, "--line")) {
			line_only = true;
			continue;
		}
		if ((!strcmp(a, "-p") || !strcmp(a, "-n") || !strcmp(a, "-w")) && !v) {
			fprintf(stderr, "ccore-handoff: %s needs a value (see --help)\n", a);
			return 2;
		}
		if (!strcmp(a, "-n") || !strcmp(a, "-w")) {
			if (parse_u32(a, v, a[1] == 'n' ? 1 : 0, 100000000, a[1] == 'n' ? &rounds :
				      &warmup))
				return 2;
			i++;
		} else if (!strcmp(a, "-p")) {
			char *list = strdup(v), *save = NULL;

			if (!list) {
				fprintf(stderr, "ccore-handoff: out of memory\n");
				return 1;
			}
			ncounts = 0;
			for (char *tok = strtok_r(list, ",", &save); tok && ncounts < MAX_PROCS;
			     tok = strtok_r(NULL, ",", &save))
				if (parse_u32("-p", tok, 1, MAX_PROCS, &counts[ncounts++])) {
					free(list);
					return 2;
				}
			free(list);
			if (!ncounts) {
				fprintf(stderr, "ccore-handoff: -p %s: expected process counts, e.g. 1,2,4\n",
					v);
				return 2;
			}
			i++;
		} else {
			fprintf(stderr, "ccore-handoff: unknown argument %s (see --help)\n", a);
			return 2;
		}
	}
	line = line_round_trip_ns(200000);
	if (line < 0) {
		fprintf(stderr, "ccore-handoff: timing a cache line between CPUs: %s\n",
			strerror((int)-line));
		return 1;
	}
	if (line_only) {
		printf("%.0f\n", line);
		return 0;
	}
	printf("# ccore-handoff: %ld CPUs online; %u rendezvous per row after %u untimed\n", cpus,
	       rounds, warmup);
	if (line > 0)
		printf("# a cache line from one CPU to another and back: %.0f ns\n", line);
	else
		printf("# a cache line from one CPU to another and back: no second CPU to run on\n");
	printf("# %9s %14s %14s\n", "processes", "yield_us", "futex_us");
	for (uint32_t i = 0; i < ncounts; i++) {
		double y = time_rounds(counts[i], rounds, warmup, WAIT_YIELD);
		double f = time_rounds(counts[i], rounds, warmup, WAIT_FUTEX);

		if (y < 0 || f < 0) {
			fprintf(stderr, "ccore-handoff: %u processes: %s\n", counts[i],
				strerror((int)-(y < 0 ? y : f)));
			return 1;
		}
		printf("  %9u %14.2f %14.2f\n", counts[i], y, f);
	}
	return 0;
}
