// SPDX-License-Identifier: GPL-2.0
/*
 * Processes sharing one simulated fabric (runtime/sim/sim_shared.c): real
 * processes (fork) open it under one job key, each claims a core, loads a
 * CC program and a DMA ring on it through the uAPI, and copies into the
 * next process's device memory, raising a semaphore there that wakes that
 * process's CC core.  Tokens travel between processes as numbers; forged
 * and stale ones are refused.  A process killed holding the arena's lock
 * in the middle of a transfer is named by the others' waits, its cores and
 * memory are released, and a new process takes its core and runs.  After
 * each case no fd, abstract socket, /dev/shm entry or child is left.
 *
 * The parent only coordinates (pipes); each child reports a failure on
 * stderr and exits non-zero.
 */
#include "tsim.h"
#include "ccm_arena.h"
#include "proc_counts.h"
#include "sim/sim.h"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXP 4
#define BYTES (1u << 20)
#define CONFIG "devices=2,cores=2,hbm=64M"

/* In a child: report and exit. */
#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "child %d line %d: ", (int)getpid(), __LINE__); \
			fprintf(stderr, __VA_ARGS__);                           \
			fprintf(stderr, " (%s)\n", ccore_last_error());         \
			_exit(1);                                               \
		}                                                               \
	} while (0)

/* What each child tells the others (through the parent). */
struct card {
	int32_t bo_token, sem_token;
	uint32_t sem;
	int32_t pid;
};

struct child {
	pid_t pid;
	int up[2];		/* child -> parent */
	int down[2];		/* parent -> child */
};

static struct child kids[MAXP + 1];
static char key[64];

static void xwrite(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		_exit(3);
}

static void xread(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)p + got, n - got);

		if (r <= 0)
			_exit(4);
		got += (size_t)r;
	}
}

static bool socket_listed(const char *name)
{
	char line[512];
	FILE *f = fopen("/proc/net/unix", "r");
	bool found = false;

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, name))
			found = true;
	if (f)
		fclose(f);
	return found;
}

static void new_key(const char *name)
{
	snprintf(key, sizeof(key), "shmsim-test.%d.%s", (int)getpid(), name);
}

static pid_t spawn(int i, void (*fn)(int, int, int), int n)
{
	struct child *k = &kids[i];

	ASSERT_EQ(pipe(k->up), 0);
	ASSERT_EQ(pipe(k->down), 0);
	k->pid = fork();
	ASSERT_TRUE(k->pid >= 0);
	if (!k->pid) {
		int fds;

		close(k->up[0]);
		close(k->down[1]);
		fds = count_open_fds();
		fn(i, n, k->up[1] * 1000 + k->down[0]);
		/* the system closed: its memfd, socket and threads went with it */
		CHECK(count_open_fds() == fds, "%d fds open after close, %d before", count_open_fds(), fds);
		_exit(0);
	}
	close(k->up[1]);
	close(k->down[0]);
	return k->pid;
}

/* Every child exited 0 (or was killed, if @killed); nothing left. */
static void reap_all(int n, pid_t killed)
{
	int i, st;

	for (i = 0; i < n; i++) {
		ASSERT_EQ(waitpid(kids[i].pid, &st, 0), kids[i].pid);
		if (kids[i].pid == killed) {
			ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		} else if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			FAIL("child %d (pid %d) failed: status 0x%x", i, (int)kids[i].pid, st);
		}
		close(kids[i].up[0]);
		close(kids[i].down[1]);
	}
	ASSERT_EQ(waitpid(-1, &st, WNOHANG), -1);	/* no child left */
	ASSERT_FALSE(socket_listed(key));
}

static struct ccore_system *open_shared(int dev, int core)
{
	struct ccore_core_ref ref = { .dev = (uint32_t)dev, .core = (uint32_t)core };
	struct ccore_shared_opts o = { .sim_config = CONFIG, .cores = &ref, .ncores = 1 };
	struct ccore_system *sys = NULL;
	int rc = ccore_system_open_shared(key, &o, &sys);

	CHECK(!rc, "open_shared claiming core %d/%d: %d", dev, core, rc);
	return sys;
}

static struct drm_ccore_insn *assemble(size_t *count, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return tsim_asm(count, "%s", text);
}

/*
 * Child @i of @n: core i%2 of device i/2... (dev = i % 2, core = i / 2).
 * Copies its pattern into child (i+1)%n's buffer, signalling its
 * semaphore; its own CC program waits for child (i-1)'s signal.
 */
static void ring_child(int i, int n, int fds)
{
	int up = fds / 1000, down = fds % 1000, dev = i % 2, core = i / 2, peer = (i + 1) % n;
	struct card me = { .pid = getpid() }, all[MAXP];
	uint32_t src_h, dst_h, peer_h, sem, peer_sem, ring, prog, first, count;
	uint64_t src_va, dst_va, peer_va, job;
	struct ccore_system *sys;
	struct ccore_dev *d;
	struct drm_ccore_insn *insns;
	size_t ninsns;
	uint8_t *src, *dst;
	int rc, status = -1;

	sys = open_shared(dev, core);
	d = ccore_system_device(sys, (unsigned int)dev);
	CHECK(!ccore_dev_bo_create(d, BYTES, &src_h, &src_va), "bo_create");
	CHECK(!ccore_dev_bo_create(d, BYTES, &dst_h, &dst_va), "bo_create");
	src = ccore_dev_bo_map(d, src_h);
	dst = ccore_dev_bo_map(d, dst_h);
	CHECK(src && dst, "bo_map");
	for (uint32_t b = 0; b < BYTES; b++)
		src[b] = (uint8_t)(b * 7 + i * 31 + 1);
	CHECK(!ccore_dev_sem_alloc(d, (uint32_t)core, 1, &sem), "sem_alloc");
	me.sem = sem;
	CHECK(!ccore_dev_bo_export(d, dst_h, &me.bo_token), "bo_export");
	CHECK(!ccore_dev_sem_export(d, sem, &me.sem_token), "sem_export");
	xwrite(up, &me, sizeof(me));
	xread(down, all, sizeof(all[0]) * (size_t)n);

	/* the CC core waits for the previous child's DMA into our memory */
	insns = assemble(&ninsns, "wait " SEMF ", 1\nret\n", S3(sem));
	CHECK(!ccore_dev_program_load(d, (uint32_t)core * 2, insns, (uint32_t)ninsns, &prog),
	      "program_load");
	free(insns);
	CHECK(!ccore_dev_submit(d, prog, DRM_CCORE_JOB_F_TRIGGER, &job), "submit");

	CHECK(!ccore_dev_bo_import_token(d, all[peer].bo_token, &peer_h, &peer_va),
	      "import child %d's buffer token %d", peer, all[peer].bo_token);
	CHECK(!ccore_dev_sem_import_token(d, all[peer].sem_token, &first, &count),
	      "import child %d's semaphore token", peer);
	peer_sem = all[peer].sem;
	CHECK(first == peer_sem && count == 1, "imported block %u+%u, exported %u", first, count,
	      peer_sem);
	CHECK(!ccore_dev_ring_create(d, (uint32_t)core, 0, 0, 4, 0, 0, &ring), "ring_create");
	struct drm_ccore_desc desc = {
		.op = DRM_CCORE_DESC_COPY, .len = BYTES, .dst = peer_va, .src0 = src_va,
		.flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = peer_sem, .signal_value = 1,
	};
	CHECK(!ccore_dev_ring_submit(d, ring, &desc, 1, DRM_CCORE_SUBMIT_F_START), "ring_submit");

	rc = ccore_dev_job_wait(d, job, 20 * TSIM_SEC, &status);
	CHECK(!rc && !status, "job_wait: rc %d status %d", rc, status);
	int from = (i + n - 1) % n;

	for (uint32_t b = 0; b < BYTES; b++)
		CHECK(dst[b] == (uint8_t)(b * 7 + from * 31 + 1),
		      "byte %u from child %d: 0x%02x", b, from, dst[b]);
	/* nobody closes before everyone checked (the exports go at close) */
	xwrite(up, &me, sizeof(me));
	xread(down, all, sizeof(all[0]));
	ccore_system_close(sys);
}

/* The parent: gather the cards, hand them all to everyone. */
static void exchange(int n)
{
	struct card all[MAXP];
	int i;

	for (i = 0; i < n; i++)
		xread(kids[i].up[0], &all[i], sizeof(all[i]));
	for (i = 0; i < n; i++)
		xwrite(kids[i].down[1], all, sizeof(all[0]) * (size_t)n);
}

static void barrier(int n)
{
	struct card c;
	int i;

	for (i = 0; i < n; i++)
		xread(kids[i].up[0], &c, sizeof(c));
	for (i = 0; i < n; i++)
		xwrite(kids[i].down[1], &c, sizeof(c));
}

static void ring_of(int n, const char *name)
{
	int shm = count_dir_entries("/dev/shm");

	new_key(name);
	for (int i = 0; i < n; i++)
		spawn(i, ring_child, n);
	exchange(n);
	barrier(n);
	reap_all(n, 0);
	ASSERT_EQ(count_dir_entries("/dev/shm"), shm);
}

TEST(two_processes_copy_into_each_other_and_wake_each_others_cc_cores)
{
	ring_of(2, "two");
}

TEST(three_processes_in_a_ring)
{
	ring_of(3, "three");
}

TEST(four_processes_in_a_ring)
{
	ring_of(4, "four");
}

/* Tokens: forged, closed and stale ones are refused; others' cores too. */
static void token_child(int i, int n, int fds)
{
	int up = fds / 1000, down = fds % 1000;
	struct card me = { .pid = getpid() }, all[2];
	struct ccore_system *sys = open_shared(i, 0);
	struct ccore_dev *d = ccore_system_device(sys, (unsigned int)i);
	uint32_t h, h2, ring, first;
	uint64_t va;
	int32_t stale, fresh;

	(void)n;
	CHECK(!ccore_dev_bo_create(d, 4096, &h, &va), "bo_create");
	if (i == 0) {
		CHECK(!ccore_dev_bo_export(d, h, &stale), "export");
		CHECK(!ccore_dev_token_close(d, stale), "close");
		CHECK(!ccore_dev_bo_export(d, h, &fresh), "export");
		me.bo_token = stale;
		me.sem_token = fresh;
	}
	xwrite(up, &me, sizeof(me));
	xread(down, all, sizeof(all));
	if (i == 1) {
		CHECK(ccore_dev_bo_import_token(d, all[0].bo_token, &h2, &va) == -EBADF &&
		      strstr(ccore_last_error(), "stale"), "a stale token imported");
		CHECK(ccore_dev_bo_import_token(d, 0x40001234, &h2, &va) == -EBADF &&
		      strstr(ccore_last_error(), "not an open file descriptor"),
		      "a forged token imported");
		CHECK(ccore_dev_sem_import_token(d, 7, &first, NULL) == -EBADF,
		      "a forged semaphore token imported");
		CHECK(ccore_dev_sem_import_token(d, all[0].sem_token, &first, NULL) == -EINVAL,
		      "a buffer token imported as semaphores");
		CHECK(!ccore_dev_bo_import_token(d, all[0].sem_token, &h2, &va), "import");
		/* core 0 of device 0 is the other process's */
		CHECK(ccore_dev_ring_create(ccore_system_device(sys, 0), 0, 0, 0, 4, 0, 0,
					    &ring) == -EPERM &&
		      strstr(ccore_last_error(), "belongs to process slot"),
		      "a ring on another process's core");
		CHECK(ccore_system_claim_core(sys, 0, 0) == -EBUSY, "claimed another's core");
	}
	xwrite(up, &me, sizeof(me));
	xread(down, all, sizeof(all[0]));
	ccore_system_close(sys);
}

TEST(tokens_forged_stale_or_of_the_wrong_kind_are_refused)
{
	new_key("tokens");
	spawn(0, token_child, 2);
	spawn(1, token_child, 2);
	exchange(2);
	barrier(2);
	reap_all(2, 0);
}

/*
 * Child 0 (the creator) and child 1 survive; child 2 starts a transfer
 * into child 0's memory that ends by raising child 0's semaphore, takes
 * the arena's lock and is killed.  Child 0's job waits for that semaphore:
 * its wait fails naming child 2; then child 3 starts, takes child 2's core
 * and runs a program on it.
 */
static void kill_child(int i, int n, int fds)
{
	int up = fds / 1000, down = fds % 1000, dev = i == 3 ? 2 % 2 : i % 2;
	int core = i == 3 ? 2 / 2 : i / 2;
	struct card me = { .pid = getpid() }, all[3];
	struct ccore_system *sys = open_shared(dev, core);
	struct ccore_dev *d = ccore_system_device(sys, (unsigned int)dev);
	uint32_t h, sem, prog, first, peer_h, ring;
	uint64_t va, peer_va, job;
	struct drm_ccore_insn *insns;
	size_t ninsns;
	int rc, status;

	(void)n;
	if (i == 3) {
		/* the dead one's core: claimed again, runs */
		insns = assemble(&ninsns, "nop\nret\n");
		CHECK(!ccore_dev_program_load(d, (uint32_t)core * 2, insns, (uint32_t)ninsns,
					      &prog), "program_load on the dead one's core");
		free(insns);
		CHECK(!ccore_dev_submit(d, prog, DRM_CCORE_JOB_F_TRIGGER, &job), "submit");
		CHECK(!ccore_dev_job_wait(d, job, 10 * TSIM_SEC, &status) && !status, "job");
		CHECK(!ccore_dev_bo_create(d, 16u << 20, &h, &va),
		      "the dead one's device memory is free again");
		ccore_system_close(sys);
		return;
	}
	CHECK(!ccore_dev_bo_create(d, 32u << 20, &h, &va), "bo_create");
	CHECK(!ccore_dev_sem_alloc(d, (uint32_t)core, 1, &sem), "sem_alloc");
	me.sem = sem;
	CHECK(!ccore_dev_bo_export(d, h, &me.bo_token), "export");
	CHECK(!ccore_dev_sem_export(d, sem, &me.sem_token), "export");
	xwrite(up, &me, sizeof(me));
	xread(down, all, sizeof(all));
	if (i == 2) {
		struct ccm_arena *a = ccm_arena_of(ccore_system_model(sys));
		/* 16 GiB to copy: still moving when it is killed */
		struct drm_ccore_desc desc[512];

		CHECK(!ccore_dev_bo_import_token(d, all[0].bo_token, &peer_h, &peer_va), "import");
		CHECK(!ccore_dev_sem_import_token(d, all[0].sem_token, &first, NULL), "import");
		CHECK(!ccore_dev_ring_create(d, (uint32_t)core, 0, 0, 512, 0, 0, &ring), "ring");
		for (int k = 0; k < 512; k++)
			desc[k] = (struct drm_ccore_desc){
				.op = DRM_CCORE_DESC_COPY, .len = 32u << 20, .dst = peer_va,
				.src0 = va,
			};
		desc[511].flags = DRM_CCORE_DESC_F_SIGNAL;
		desc[511].signal_sem = first;
		desc[511].signal_value = 1;
		CHECK(!ccore_dev_ring_submit(d, ring, desc, 512, DRM_CCORE_SUBMIT_F_START), "submit");
		ccm_mutex_lock(&a->lock);	/* killed holding it */
		xwrite(up, &me, sizeof(me));
		pause();
		_exit(5);
	}
	if (i == 0) {
		s64 t0;

		insns = assemble(&ninsns, "wait " SEMF ", 1\nret\n", S3(sem));
		CHECK(!ccore_dev_program_load(d, (uint32_t)core * 2, insns, (uint32_t)ninsns,
					      &prog), "program_load");
		free(insns);
		CHECK(!ccore_dev_submit(d, prog, DRM_CCORE_JOB_F_TRIGGER, &job), "submit");
		xwrite(up, &me, sizeof(me));	/* ready: kill it */
		t0 = ccm_now_ns();
		rc = ccore_dev_job_wait(d, job, 60 * TSIM_SEC, &status);
		CHECK(rc == -EPIPE, "the wait on a dead process's DMA returned %d", rc);
		char pid[32];

		snprintf(pid, sizeof(pid), "pid %d", all[2].pid);
		CHECK(strstr(ccore_last_error(), pid) && strstr(ccore_last_error(), "cores 0/1"),
		      "the error names the dead process (%s) and its core", pid);
		CHECK(ccm_now_ns() - t0 < 5 * TSIM_SEC, "found dead after %lld ms",
		      (long long)((ccm_now_ns() - t0) / 1000000));
		uint64_t dead;

		CHECK(!ccore_system_dead_slots(sys, &dead) && dead, "no dead slot");
		/* the arena's lock its holder died with is usable */
		CHECK(!ccore_dev_bo_create(d, 4096, &h, &va), "bo_create after the death");
	} else {
		xwrite(up, &me, sizeof(me));
	}
	xwrite(up, &me, sizeof(me));
	xread(down, all, sizeof(all[0]));	/* child 3 ran */
	ccore_system_close(sys);
}

TEST(a_process_killed_mid_transfer_holding_a_lock_is_named_and_released)
{
	struct card c;
	pid_t victim;
	int shm = count_dir_entries("/dev/shm");

	new_key("kill");
	spawn(0, kill_child, 3);
	spawn(1, kill_child, 3);
	victim = spawn(2, kill_child, 3);
	exchange(3);
	xread(kids[2].up[0], &c, sizeof(c));	/* holding the lock */
	xread(kids[0].up[0], &c, sizeof(c));	/* its job waits */
	xread(kids[1].up[0], &c, sizeof(c));
	ASSERT_EQ(kill(victim, SIGKILL), 0);
	/* child 0 found it dead; then a newcomer takes the core */
	xread(kids[0].up[0], &c, sizeof(c));
	xread(kids[1].up[0], &c, sizeof(c));
	spawn(3, kill_child, 3);
	ASSERT_EQ(waitpid(kids[3].pid, NULL, 0) > 0, 1);
	xwrite(kids[0].down[1], &c, sizeof(c));
	xwrite(kids[1].down[1], &c, sizeof(c));
	close(kids[3].up[0]);
	close(kids[3].down[1]);
	{
		int st;

		ASSERT_EQ(waitpid(kids[0].pid, &st, 0), kids[0].pid);
		ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
		ASSERT_EQ(waitpid(kids[1].pid, &st, 0), kids[1].pid);
		ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
		ASSERT_EQ(waitpid(victim, &st, 0), victim);
		ASSERT_TRUE(WIFSIGNALED(st));
	}
	ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
	ASSERT_FALSE(socket_listed(key));
	ASSERT_EQ(count_dir_entries("/dev/shm"), shm);
}

/*
 * Child 0 copies on four DMA engines while its CC core's job waits; child 1
 * waits on a job of its own, so it steps child 0's engines, and dies inside
 * the first such step (ccm_inject_thief_death()).  Child 0's wait fails
 * naming it (nothing finishes on half-changed state), the broken step is
 * counted, and child 0's core runs new jobs afterwards.
 */
static void thief_child(int i, int n, int fds)
{
	int up = fds / 1000, down = fds % 1000;
	struct card me = { .pid = getpid() }, all[2];
	struct ccore_system *sys = open_shared(i, 0);
	struct ccore_dev *d = ccore_system_device(sys, (unsigned int)i);
	struct ccm_fabric *f = ccore_system_model(sys);
	uint32_t h, sem, prog, ring;
	uint64_t va, job;
	struct drm_ccore_insn *insns;
	size_t ninsns;
	int rc, status = 0;
	char pid[32];

	(void)n;
	CHECK(!ccore_dev_bo_create(d, 32u << 20, &h, &va), "bo_create");
	CHECK(!ccore_dev_sem_alloc(d, 0, 1, &sem), "sem_alloc");
	insns = assemble(&ninsns, "wait " SEMF ", 1\nret\n", S3(sem));
	CHECK(!ccore_dev_program_load(d, 0, insns, (uint32_t)ninsns, &prog), "program_load");
	free(insns);
	CHECK(!ccore_dev_submit(d, prog, DRM_CCORE_JOB_F_TRIGGER, &job), "submit");
	xwrite(up, &me, sizeof(me));
	xread(down, all, sizeof(all));
	if (i == 1) {
		ccm_inject_thief_death();
		ccore_dev_job_wait(d, job, 60 * TSIM_SEC, &status);
		CHECK(0, "the thief lived through its wait");
	}
	for (uint32_t e = 0; e < 4; e++) {
		struct drm_ccore_desc desc[128];

		CHECK(!ccore_dev_ring_create(d, 0, e, 0, 128, 0, 0, &ring), "ring on engine %u", e);
		for (int k = 0; k < 128; k++)
			desc[k] = (struct drm_ccore_desc){
				.op = DRM_CCORE_DESC_COPY, .len = 1u << 20,
				.dst = va + (16u << 20), .src0 = va,
			};
		CHECK(!ccore_dev_ring_submit(d, ring, desc, 128, DRM_CCORE_SUBMIT_F_START),
		      "ring_submit");
	}
	/* not waiting, this process's host runs none of its engines: the
	 * thief, which waits, steps them; wait once it died in one */
	xwrite(up, &me, sizeof(me));
	xread(down, &me, sizeof(me));
	rc = ccore_dev_job_wait(d, job, 60 * TSIM_SEC, &status);
	snprintf(pid, sizeof(pid), "pid %d", all[1].pid);
	CHECK(rc == -EPIPE || (rc == 0 && status == -EIO),
	      "the wait whose engines a dead thief stepped returned %d, status %d", rc, status);
	CHECK(rc == 0 || strstr(ccore_last_error(), pid), "the error names the thief (%s)", pid);
	CHECK(ccm_fabric_broken_steps(f) == 1, "%u broken steps counted, not 1",
	      ccm_fabric_broken_steps(f));
	/* the core runs new jobs, and each engine (the one stepped too) new copies */
	CHECK(!ccore_dev_sem_alloc(d, 0, 1, &sem), "sem_alloc after");
	insns = assemble(&ninsns, "wait " SEMF ", 4\nret\n", S3(sem));
	CHECK(!ccore_dev_program_load(d, 0, insns, (uint32_t)ninsns, &prog), "program_load");
	free(insns);
	CHECK(!ccore_dev_submit(d, prog, DRM_CCORE_JOB_F_TRIGGER, &job), "submit after");
	for (uint32_t e = 0; e < 4; e++) {
		struct drm_ccore_desc one = {
			.op = DRM_CCORE_DESC_COPY, .len = 4096, .dst = va + 4096, .src0 = va,
			.flags = DRM_CCORE_DESC_F_SIGNAL, .signal_sem = sem, .signal_value = 1,
		};

		CHECK(!ccore_dev_ring_create(d, 0, e, 1, 4, 0, 0, &ring), "second ring on engine %u", e);
		CHECK(!ccore_dev_ring_submit(d, ring, &one, 1, DRM_CCORE_SUBMIT_F_START),
		      "ring_submit after");
	}
	CHECK(!ccore_dev_job_wait(d, job, 30 * TSIM_SEC, &status) && !status, "job after: %d",
	      status);
	ccore_system_close(sys);
}

TEST(a_process_killed_inside_a_step_it_stole_fails_that_core_s_jobs)
{
	struct card c;
	siginfo_t si = { 0 };

	new_key("thief");
	spawn(0, thief_child, 2);
	spawn(1, thief_child, 2);
	exchange(2);
	xread(kids[0].up[0], &c, sizeof(c));	/* its copies move */
	/* the thief's end, left for reap_all() to collect */
	ASSERT_EQ(waitid(P_PID, (id_t)kids[1].pid, &si, WEXITED | WNOWAIT), 0);
	if (si.si_code != CLD_KILLED || si.si_status != SIGKILL)
		FAIL("the thief was not killed in a stolen step: code %d, status %d", si.si_code,
		     si.si_status);
	xwrite(kids[0].down[1], &c, sizeof(c));
	reap_all(2, kids[1].pid);
}

TEST(a_timed_or_inline_fabric_cannot_be_shared)
{
	struct ccore_shared_opts o = { .sim_config = "timed=1" };
	struct ccore_system *sys;
	int fds = count_open_fds();

	new_key("timed");
	ASSERT_EQ(ccore_system_open_shared(key, &o, &sys), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "timed=1 cannot be shared");
	o.sim_config = "workers=0";
	ASSERT_EQ(ccore_system_open_shared(key, &o, &sys), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "workers=0 cannot be shared");
	ASSERT_EQ(ccore_system_open_shared("bad key", NULL, &sys), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "not printable ASCII");
	ASSERT_EQ(count_open_fds(), fds);
	ASSERT_FALSE(socket_listed(key));
}

TEST(a_process_opens_a_job_key_once_and_leaves_nothing_after_close)
{
	struct ccore_core_ref ref = { .dev = 1, .core = 1 };
	struct ccore_shared_opts o = { .sim_config = CONFIG, .cores = &ref, .ncores = 1 };
	struct ccore_system *sys, *again;
	uint32_t slot, h;
	uint64_t va, dead;
	int fds = count_open_fds(), shm = count_dir_entries("/dev/shm");

	new_key("once");
	for (int round = 0; round < 2; round++) {
		ASSERT_EQ(ccore_system_open_shared(key, &o, &sys), 0);
		ASSERT_TRUE(socket_listed(key));
		ASSERT_EQ(ccore_system_open_shared(key, &o, &again), -EALREADY);
		ASSERT_STR_CONTAINS(ccore_last_error(), "open already");
		ASSERT_EQ(ccore_system_process_slot(sys, &slot), 0);
		ASSERT_EQ(ccore_system_dead_slots(sys, &dead), 0);
		ASSERT_EQ(dead, 0);
		ASSERT_EQ(ccore_dev_bo_create(ccore_system_device(sys, 1), 4096, &h, &va), 0);
		/* USERPTR memory of one process cannot be shared */
		struct drm_ccore_bo_create u = { .size = 4096, .flags = DRM_CCORE_BO_F_USERPTR,
						 .userptr = (uintptr_t)&fds & ~4095ull };
		ASSERT_EQ(ccore_dev_ioctl(ccore_system_device(sys, 1), DRM_IOCTL_CCORE_BO_CREATE, &u),
			  -EOPNOTSUPP);
		ccore_system_close(sys);
		ASSERT_EQ(count_open_fds(), fds);
		ASSERT_FALSE(socket_listed(key));
	}
	ASSERT_EQ(count_dir_entries("/dev/shm"), shm);
	/* a plain sim system is not shared */
	ASSERT_EQ(ccore_system_open("sim", CONFIG, &sys), 0);
	ASSERT_EQ(ccore_system_process_slot(sys, &slot), -ENODEV);
	ASSERT_STR_CONTAINS(ccore_last_error(), "not shared");
	ccore_system_close(sys);
}

/* Mappings of shared fabrics' arenas in this process: inside the arena slots, and elsewhere. */
static void count_arena_maps(int *inside, int *outside)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	*inside = *outside = 0;
	ASSERT_TRUE(f != NULL);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start;

		if (!strstr(line, "/memfd:ccore-sim") || sscanf(line, "%llx-", &start) != 1)
			continue;
		if (start >= SIM_ARENA_HINT &&
		    start < SIM_ARENA_HINT + SIM_ARENA_HINTS * SIM_ARENA_STRIDE)
			++*inside;
		else
			++*outside;
	}
	fclose(f);
}

/*
 * Two fabrics of one process whose job keys hint at one arena slot: the
 * second takes the next free slot, where every process of its job can map
 * it.  It went anywhere before (among this process's libraries, where the
 * others often could not): 1 pair of keys in 32 failed to join.
 */
TEST(two_job_keys_of_one_arena_slot_both_map_in_the_arena)
{
	struct ccore_core_ref ref = { .dev = 1, .core = 1 };
	struct ccore_shared_opts o = { .sim_config = CONFIG, .cores = &ref, .ncores = 1 };
	struct ccore_system *a, *b;
	char first[64], second[80];
	int inside, outside, tries = 0;

	new_key("slot");
	snprintf(first, sizeof(first), "%s", key);
	do
		snprintf(second, sizeof(second), "%s.%d", first, tries++);
	while (sim_arena_hint(second) != sim_arena_hint(first));
	ASSERT_EQ(ccore_system_open_shared(first, &o, &a), 0);
	ASSERT_EQ(ccore_system_open_shared(second, &o, &b), 0);
	count_arena_maps(&inside, &outside);
	ccore_test_log("keys %s and %s, slot %u: %d mappings in the arena, %d elsewhere",
		       first, second, sim_arena_hint(first), inside, outside);
	ccore_system_close(b);
	ccore_system_close(a);
	ASSERT_EQ(outside, 0);
	ASSERT_GE(inside, 2);
}

/*
 * The round trip across processes: child 0's host adds to child 1's
 * semaphore, child 1's CC core (a queued job per round) takes it and adds
 * to child 0's, whose host waits for it.  Logged, for the record.
 */
#define PINGS 200

static void ping_child(int i, int n, int fds)
{
	int up = fds / 1000, down = fds % 1000;
	struct card me = { .pid = getpid() }, all[2];
	struct ccore_system *sys = open_shared(i, 0);
	struct ccore_dev *d = ccore_system_device(sys, (unsigned int)i);
	uint32_t sem, first, prog;
	uint64_t job = 0;
	int status;

	(void)n;
	CHECK(!ccore_dev_sem_alloc(d, 0, 1, &sem), "sem_alloc");
	me.sem = sem;
	CHECK(!ccore_dev_sem_export(d, sem, &me.sem_token), "sem_export");
	xwrite(up, &me, sizeof(me));
	xread(down, all, sizeof(all));
	CHECK(!ccore_dev_sem_import_token(d, all[!i].sem_token, &first, NULL), "import");
	if (i == 1) {
		struct drm_ccore_insn *insns;
		size_t ninsns;

		insns = assemble(&ninsns, "acquire " SEMF ", 1\nadd " SEMF ", 1\nret\n", S3(sem),
				 S3(first));
		CHECK(!ccore_dev_program_load(d, 0, insns, (uint32_t)ninsns, &prog), "load");
		free(insns);
		for (int k = 0; k < PINGS; k++)
			CHECK(!ccore_dev_submit(d, prog, DRM_CCORE_JOB_F_TRIGGER, &job), "submit");
		xwrite(up, &me, sizeof(me));
		CHECK(!ccore_dev_job_wait(d, job, 60 * TSIM_SEC, &status) && !status, "last job");
	} else {
		s64 t0;

		xread(down, all, sizeof(all[0]));	/* its jobs are queued */
		t0 = ccm_now_ns();
		for (uint32_t k = 1; k <= PINGS; k++) {
			CHECK(!ccore_dev_sem_write(d, first, DRM_CCORE_SEM_ADD, 1), "add");
			CHECK(!ccore_dev_sem_wait(d, sem, k, 10 * TSIM_SEC), "round %u", k);
		}
		me.pid = (int32_t)((ccm_now_ns() - t0) / PINGS);
		xwrite(up, &me, sizeof(me));
	}
	xwrite(up, &me, sizeof(me));
	xread(down, all, sizeof(all[0]));
	ccore_system_close(sys);
}

TEST(a_round_trip_between_processes)
{
	struct card c;

	new_key("ping");
	spawn(0, ping_child, 2);
	spawn(1, ping_child, 2);
	exchange(2);
	xread(kids[1].up[0], &c, sizeof(c));
	xwrite(kids[0].down[1], &c, sizeof(c));
	xread(kids[0].up[0], &c, sizeof(c));
	ccore_test_log("host -> CC core of another process -> host: %d ns a round trip (%d rounds)",
		       c.pid, PINGS);
	barrier(2);
	reap_all(2, 0);
}

/*
 * The fabric outlives the process that created it: child 0 creates it and
 * closes, child 2 still finds it (it imports child 1's token); child 1 is
 * killed, child 3 still finds it and takes child 1's core.
 */
static void outlive_child(int i, int n, int fds)
{
	int up = fds / 1000, down = fds % 1000;
	struct card me = { .pid = getpid() }, other;
	struct ccore_system *sys = open_shared(i == 1 || i == 3 ? 1 : 0, i == 3 ? 1 : 0);
	struct ccore_dev *d = ccore_system_device(sys, 1);
	uint32_t h, slot, pid;
	uint64_t va, dead;

	(void)n;
	if (i == 1) {
		CHECK(!ccore_dev_bo_create(d, 4096, &h, &va), "bo_create");
		CHECK(!ccore_dev_bo_export(d, h, &me.bo_token), "export");
	}
	if (i == 2) {
		xread(down, &other, sizeof(other));
		CHECK(!ccore_dev_bo_import_token(d, other.bo_token, &h, &va),
		      "the creator gone, a newcomer imports an export of the same fabric");
	}
	if (i == 3) {
		CHECK(!ccore_system_claim_core(sys, 1, 0), "the dead one's core");
		CHECK(!ccore_system_dead_slots(sys, &dead) && dead, "its death is known");
		slot = (uint32_t)__builtin_ctzll(dead);
		CHECK(!ccore_system_slot_pid(sys, slot, &pid) && pid, "its pid");
		me.pid = (int32_t)pid;
	}
	xwrite(up, &me, sizeof(me));
	if (i != 3)
		xread(down, &other, sizeof(other));
	ccore_system_close(sys);
}

TEST(the_fabric_outlives_its_creator_and_a_killed_server)
{
	struct card c0, c1, c;
	int st, shm = count_dir_entries("/dev/shm");

	new_key("outlive");
	spawn(0, outlive_child, 4);
	xread(kids[0].up[0], &c0, sizeof(c0));
	spawn(1, outlive_child, 4);
	xread(kids[1].up[0], &c1, sizeof(c1));
	xwrite(kids[0].down[1], &c0, sizeof(c0));	/* the creator closes */
	ASSERT_EQ(waitpid(kids[0].pid, &st, 0), kids[0].pid);
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	spawn(2, outlive_child, 4);
	xwrite(kids[2].down[1], &c1, sizeof(c1));
	xread(kids[2].up[0], &c, sizeof(c));
	ASSERT_EQ(kill(kids[1].pid, SIGKILL), 0);
	ASSERT_EQ(waitpid(kids[1].pid, &st, 0), kids[1].pid);
	spawn(3, outlive_child, 4);
	xread(kids[3].up[0], &c, sizeof(c));
	ASSERT_EQ(c.pid, kids[1].pid);	/* the slot that died was child 1's */
	ASSERT_EQ(waitpid(kids[3].pid, &st, 0), kids[3].pid);
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	xwrite(kids[2].down[1], &c, sizeof(c));
	ASSERT_EQ(waitpid(kids[2].pid, &st, 0), kids[2].pid);
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	for (int i = 0; i < 4; i++) {
		close(kids[i].up[0]);
		close(kids[i].down[1]);
	}
	ASSERT_EQ(waitpid(-1, NULL, WNOHANG), -1);
	ASSERT_FALSE(socket_listed(key));
	ASSERT_EQ(count_dir_entries("/dev/shm"), shm);
}
