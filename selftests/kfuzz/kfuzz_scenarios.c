// SPDX-License-Identifier: GPL-2.0
/*
 * The eight findings of the kernel-robustness work, each replayed as found:
 * the regression tests of their fixes.  Each scenario passes only if the
 * kernel did what a sound driver does (the call failed cleanly, the wait
 * kept its deadline, close() returned) and its kernel log stayed clean: no
 * WARNING, BUG, Oops, KFENCE report or poisoned object since it started,
 * and no new taint.  On a driver with the bug it fails, hangs or takes the
 * kernel down; the QEMU runner reports each of those.
 *
 * Fabric ids 20..23 are the scenarios' own; setup.sh's fabrics 0 and 1
 * are used as they are (fence_outlives_module recreates them).
 *
 * Over 800 lines on purpose: each scenario is a whole replay of one
 * finding, kept in one place with the checks they share.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/sync_file.h>

#include "kfuzz.h"

#define WHY_LEN 512

/* --scenario NAME/CASE: the cases of NAME whose names contain CASE */
static const char *case_filter;
/* taint bits that mean the kernel went wrong: B, D, W, L */
#define BAD_TAINT ((1ul << 5) | (1ul << 7) | (1ul << 9) | (1ul << 14))

static int fail(char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, WHY_LEN, fmt, ap);
	va_end(ap);
	return 1;
}

static void note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static int open_dev(int fabric, uint32_t index, char *why)
{
	int minor = kf_fabric_minor(fabric, index), fd;

	if (minor < 0)
		return -fail(why, "no device %u on fabric %d (setup.sh makes fabrics 0 and 1)",
			     index, fabric);
	fd = kf_open_minor(minor);
	if (fd < 0)
		return -fail(why, "open accel%d: %s", minor, strerror(-fd));
	return fd;
}

static int bo_create(int fd, uint64_t size, uint32_t *handle, uint64_t *addr)
{
	struct drm_ccore_bo_create a = { .size = size };
	int rc = kf_ioc(fd, DRM_IOCTL_CCORE_BO_CREATE, &a);

	*handle = a.handle;
	*addr = a.dev_addr;
	return rc;
}

static void *bo_map(int fd, uint32_t handle, size_t size)
{
	struct drm_ccore_bo_mmap_offset a = { .handle = handle };
	void *p;

	if (kf_ioc(fd, DRM_IOCTL_CCORE_BO_MMAP_OFFSET, &a))
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)a.offset);
	return p == MAP_FAILED ? NULL : p;
}

static int ring_create(int fd, uint32_t core, uint32_t engine, uint32_t ring, uint32_t size,
		       uint32_t *handle)
{
	struct drm_ccore_ring_create a = { .core = core, .engine = engine, .ring = ring,
					   .size = size };
	int rc = kf_ioc(fd, DRM_IOCTL_CCORE_RING_CREATE, &a);

	*handle = a.handle;
	return rc;
}

static int ring_submit(int fd, uint32_t ring, const struct drm_ccore_desc *d, uint32_t n,
		       uint32_t flags)
{
	struct drm_ccore_ring_submit a = { .handle = ring, .count = n,
					   .descs = (uintptr_t)d, .flags = flags };

	return kf_ioc(fd, DRM_IOCTL_CCORE_RING_SUBMIT, &a);
}

/* Until @n descriptors in all have completed or failed, at most @ms. */
static int ring_drain(int fd, uint32_t ring, uint64_t n, long ms)
{
	int64_t end = kf_now_ns() + ms * KF_NSEC_PER_MSEC;
	struct drm_ccore_ring_stats st;
	int rc;

	for (;;) {
		st = (struct drm_ccore_ring_stats){ .handle = ring };
		rc = kf_ioc(fd, DRM_IOCTL_CCORE_RING_STATS, &st);
		if (rc)
			return rc;
		if (st.completed + st.errors >= n)
			return 0;
		if (kf_now_ns() > end)
			return -ETIMEDOUT;
		kf_sleep_ms(1);
	}
}

static int program_load(int fd, uint32_t cc, const struct drm_ccore_insn *p, uint32_t n,
			uint32_t *handle)
{
	struct drm_ccore_program_load a = { .cc_core = cc, .count = n, .insns = (uintptr_t)p };
	int rc = kf_ioc(fd, DRM_IOCTL_CCORE_PROGRAM_LOAD, &a);

	*handle = a.handle;
	return rc;
}

static int submit(int fd, uint32_t program, uint32_t in, uint32_t out, uint32_t timeout_ms,
		  uint64_t *job)
{
	struct drm_ccore_submit a = {
		.program = program, .flags = DRM_CCORE_JOB_F_TRIGGER, .in_syncobj = in,
		.out_syncobj = out, .timeout_ms = timeout_ms,
	};
	int rc = kf_ioc(fd, DRM_IOCTL_CCORE_SUBMIT, &a);

	if (job)
		*job = a.job;
	return rc;
}

static int syncobj_create(int fd, uint32_t *handle)
{
	struct drm_syncobj_create a = { 0 };
	int rc = kf_ioc(fd, DRM_IOCTL_SYNCOBJ_CREATE, &a);

	*handle = a.handle;
	return rc;
}

/* How a child ended, in words; true if a signal killed it. */
static bool child_end(int status, char *out, size_t len)
{
	if (WIFSIGNALED(status)) {
		snprintf(out, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
		return true;
	}
	snprintf(out, len, "exit status %d", WEXITSTATUS(status));
	return false;
}

/* Reap @pid within @ms; false (and *status untouched) if it is still there. */
static bool reap(pid_t pid, long ms, int *status)
{
	int64_t end = kf_now_ns() + ms * KF_NSEC_PER_MSEC;

	while (kf_now_ns() < end) {
		if (waitpid(pid, status, WNOHANG) == pid)
			return true;
		kf_sleep_ms(10);
	}
	return false;
}

/* --- 1: i8/u8 DIV by a multiple of 256 ------------------------------------ */

static int64_t expect_div(uint8_t dtype, const uint8_t *src, uint32_t i, uint32_t d)
{
	if (dtype == DRM_CCORE_DTYPE_I8)
		return (int64_t)(int8_t)src[i] / (int64_t)d;
	return (int64_t)(src[i] / (uint64_t)d);
}

static int div_by_zero(char *why)
{
	static const struct { uint8_t dtype; uint32_t value; } cases[] = {
		{ DRM_CCORE_DTYPE_I8, 256 }, { DRM_CCORE_DTYPE_U8, 256 },
		{ DRM_CCORE_DTYPE_I8, 512 }, { DRM_CCORE_DTYPE_U8, 65536 },
		{ DRM_CCORE_DTYPE_I8, 0x80000000u }, { DRM_CCORE_DTYPE_U8, 3 },
	};
	int fd = open_dev(0, 0, why), rc = 0;
	uint32_t bo, ring, k, i, done = 0;
	uint64_t va;
	uint8_t *p;

	if (fd < 0)
		return 1;
	if (bo_create(fd, 4096, &bo, &va) || !(p = bo_map(fd, bo, 4096)) ||
	    ring_create(fd, 0, 0, 0, 16, &ring)) {
		close(fd);
		return fail(why, "set-up (BO_CREATE, mmap, RING_CREATE 0/0/0) failed: %s",
			    strerror(errno));
	}
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]) && !rc; k++) {
		struct drm_ccore_desc d = {
			.op = DRM_CCORE_DESC_DIV, .dtype = cases[k].dtype, .value = cases[k].value,
			.len = 64, .dst = va, .src0 = va + 64,
		};

		for (i = 0; i < 64; i++)
			p[64 + i] = (uint8_t)(i * 37 + 128);
		memset(p, 0x55, 64);
		rc = ring_submit(fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START);
		if (rc == -EINVAL) {	/* a verifier that refuses it is sound too */
			note("DIV %s by %u refused with -EINVAL",
			     cases[k].dtype == DRM_CCORE_DTYPE_I8 ? "i8" : "u8", cases[k].value);
			rc = 0;
			continue;
		}
		if (rc) {
			rc = fail(why, "RING_SUBMIT DIV by %u: %s", cases[k].value, strerror(-rc));
			break;
		}
		done++;
		if (ring_drain(fd, ring, done, 5000)) {
			rc = fail(why, "DIV by %u did not complete within 5 s", cases[k].value);
			break;
		}
		for (i = 0; i < 64; i++) {
			int64_t want = expect_div(cases[k].dtype, p + 64, i, cases[k].value);
			int64_t got = cases[k].dtype == DRM_CCORE_DTYPE_I8 ? (int8_t)p[i] : p[i];

			if (got != want) {
				rc = fail(why, "DIV %s by %u: element %u is %lld, expected %lld",
					  cases[k].dtype == DRM_CCORE_DTYPE_I8 ? "i8" : "u8",
					  cases[k].value, i, (long long)got, (long long)want);
				break;
			}
		}
	}
	munmap(p, 4096);
	close(fd);
	return rc;
}

/* --- 2: a running job evicted from the history, its program freed -------- */

static int job_history_uaf(char *why)
{
	static const struct drm_ccore_insn spin[] = {
		{ .opcode = DRM_CCORE_OP_JUMP, .target = 0 }, { .opcode = DRM_CCORE_OP_RET },
	};
	static const struct drm_ccore_insn ret[] = { { .opcode = DRM_CCORE_OP_RET } };
	int fd = open_dev(0, 0, why), rc;
	uint32_t s, p0, p2, i;
	int64_t t0;

	if (fd < 0)
		return 1;
	rc = syncobj_create(fd, &s) ?: program_load(fd, 0, spin, 2, &p0) ?:
	     submit(fd, p0, 0, s, 4000, NULL) ?: program_load(fd, 2, ret, 1, &p2);
	if (rc) {
		close(fd);
		return fail(why, "set-up (SYNCOBJ_CREATE, PROGRAM_LOAD, SUBMIT) failed: %s",
			    strerror(-rc));
	}
	t0 = kf_now_ns();
	for (i = 0; i < 4100 && !rc; i++)
		rc = submit(fd, p2, s, 0, 10000, NULL);
	/* a driver may refuse to push an unfinished job out of the history */
	if (rc == -EBUSY || rc == -EAGAIN || rc == -ENOSPC) {
		note("SUBMIT %u of 4100 refused (%s): the history keeps unfinished jobs", i,
		     strerrorname_np(-rc));
	} else if (rc) {
		close(fd);
		return fail(why, "SUBMIT %u of 4100 waiting on the syncobj failed: %s", i,
			    strerror(-rc));
	}
	note("%u submits waiting on the spinning job took %lld ms; closing", i,
	     (long long)((kf_now_ns() - t0) / KF_NSEC_PER_MSEC));
	close(fd);
	/* the evicted job times out 4 s after its submit: let it, then look */
	kf_sleep_ms(8000);
	kf_slab_validate();
	return 0;
}

/* --- 3: close() of a file whose ring runs 2^32 descriptors ---------------- */

/* Tell the parent, through the pipe, why the set-up failed; exit 3. */
static void __attribute__((noreturn)) close_setup_failed(int pipe_w, const char *step, int rc)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "set-up: %s: %s\n", step, strerror(rc < 0 ? -rc : rc));
	if (write(pipe_w, msg, strlen(msg)) < 0)
		_exit(3);
	_exit(3);
}

/*
 * A ring as full as it gets (its every slot a 4 MiB copy) STARTed with
 * the largest count the verifier takes, 2^32 - 1 first: hours of copying
 * at today's rate.  Then close().
 */
#define CLOSE_RING_SLOTS 4096
#define CLOSE_COPY (4u << 20)

static void close_child(int pipe_w)
{
	static const uint32_t counts[] = {
		0xffffffffu, 0x7fffffffu, 1u << 24, 1u << 20, 1u << 16, CLOSE_RING_SLOTS,
	};
	struct drm_ccore_insn prog[2] = {
		{ .opcode = DRM_CCORE_OP_START, .engine = 0, .ring = 0 },
		{ .opcode = DRM_CCORE_OP_RET },
	};
	struct drm_ccore_desc *d = calloc(CLOSE_RING_SLOTS, sizeof(*d));
	char why[WHY_LEN], msg[160];
	uint32_t bo, ring, program, k;
	uint64_t va;
	int fd = open_dev(0, 0, why), rc;
	int64_t t0;

	if (fd < 0 || !d)
		close_setup_failed(pipe_w, "open", fd < 0 ? ENODEV : ENOMEM);
	rc = bo_create(fd, 2 * CLOSE_COPY, &bo, &va);
	if (rc)
		close_setup_failed(pipe_w, "BO_CREATE 8 MiB", rc);
	rc = ring_create(fd, 0, 0, 0, CLOSE_RING_SLOTS, &ring);
	if (rc)
		close_setup_failed(pipe_w, "RING_CREATE of 4096 slots", rc);
	for (k = 0; k < CLOSE_RING_SLOTS; k++) {
		d[k].op = DRM_CCORE_DESC_COPY;
		d[k].len = CLOSE_COPY;
		d[k].dst = va + CLOSE_COPY;
		d[k].src0 = va;
	}
	rc = ring_submit(fd, ring, d, CLOSE_RING_SLOTS, 0);
	if (rc)
		close_setup_failed(pipe_w, "RING_SUBMIT of 4096 copies", rc);
	rc = -EINVAL;
	for (k = 0; k < sizeof(counts) / sizeof(counts[0]) && rc == -EINVAL; k++) {
		prog[0].imm = counts[k];
		rc = program_load(fd, 0, prog, 2, &program);
	}
	if (rc)
		close_setup_failed(pipe_w, "PROGRAM_LOAD [START n; RET], n down to 4096", rc);
	rc = submit(fd, program, 0, 0, 60000, NULL);
	if (rc)
		close_setup_failed(pipe_w, "SUBMIT", rc);
	kf_sleep_ms(300);	/* the job has STARTed the ring */
	snprintf(msg, sizeof(msg), "START count %u of 4 MiB copies accepted; closing\n",
		 prog[0].imm);
	if (write(pipe_w, msg, strlen(msg)) < 0)
		_exit(3);
	t0 = kf_now_ns();
	close(fd);
	snprintf(msg, sizeof(msg), "close took %lld ms\n",
		 (long long)((kf_now_ns() - t0) / KF_NSEC_PER_MSEC));
	if (write(pipe_w, msg, strlen(msg)) < 0)
		_exit(3);
	_exit(0);
}

static int close_unbounded(char *why)
{
	char buf[400] = "", end[64];
	int pfd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(pfd))
		return fail(why, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		close_child(pfd[1]);
	}
	close(pfd[1]);
	/* a child stuck in close() holds the pipe open: never block on it */
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	/* set-up, then 5 s for close() */
	if (!reap(pid, 8000, &status)) {
		while (got < (ssize_t)sizeof(buf) - 1 &&
		       (n = read(pfd[0], buf + got, sizeof(buf) - 1 - (size_t)got)) > 0)
			got += n;
		close(pfd[0]);
		buf[got] = '\0';
		note("child said: %s", buf);
		kill(pid, SIGKILL);
		if (!reap(pid, 5000, &status))
			return fail(why, "close() blocked for more than 5 s, and the process stuck in it did not die within 5 s of SIGKILL (unkillable)");
		return fail(why, "close() blocked for more than 5 s (SIGKILL ended it)");
	}
	n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	buf[n > 0 ? n : 0] = '\0';
	for (char *nl; (nl = strchr(buf, '\n'));)
		*nl = ';';
	note("%s", buf);
	if (child_end(status, end, sizeof(end)) || WEXITSTATUS(status))
		return fail(why, "the closing process ended with %s: %s", end, buf);
	return 0;
}

/* --- 4: waits with a 10 ms deadline while 8 CC cores spin --------------- */

#define WAIT_FABRIC 20

static void on_alarm(int sig)
{
	(void)sig;
}

/* One wait with a 10 ms deadline: how long it took, in ms. */
static int64_t timed_wait(int fd, unsigned long req, void *arg, int *rc)
{
	int64_t t0 = kf_now_ns();

	alarm(5);
	*rc = kf_ioctl(fd, req, arg);
	alarm(0);
	return (kf_now_ns() - t0) / KF_NSEC_PER_MSEC;
}

static int wait_deadline(char *why)
{
	static const struct drm_ccore_insn spin[] = { { .opcode = DRM_CCORE_OP_JUMP } };
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct drm_ccore_sem_alloc sem = { .core = 0, .count = 1 };
	struct drm_ccore_sem_wait sw = { .value = 1 };
	struct drm_ccore_job_wait jw = { 0 };
	int fd, rc = 0, src, jrc;
	int64_t sms, jms;
	uint32_t cc, program;
	uint64_t job = 0;

	kf_del_fabric_if(WAIT_FABRIC);
	rc = kf_new_fabric(WAIT_FABRIC, 1, "workers=1");
	if (rc)
		return fail(why, "new_device \"%d 1 workers=1\": %s", WAIT_FABRIC, strerror(-rc));
	fd = open_dev(WAIT_FABRIC, 0, why);
	if (fd < 0) {
		kf_del_fabric(WAIT_FABRIC);
		return 1;
	}
	sigaction(SIGALRM, &sa, NULL);
	for (cc = 0; cc < 8 && !rc; cc++)
		rc = program_load(fd, cc, spin, 1, &program) ?:
		     submit(fd, program, 0, 0, 30000, cc ? NULL : &job);
	rc = rc ?: kf_ioc(fd, DRM_IOCTL_CCORE_SEM_ALLOC, &sem);
	if (rc) {
		rc = fail(why, "set-up (8 spinning jobs, SEM_ALLOC) failed at CC core %u: %s",
			  cc - 1, strerror(-rc));
		goto out;
	}
	kf_sleep_ms(200);
	sw.sem = sem.first;
	sw.timeout_ns = kf_now_ns() + 10 * KF_NSEC_PER_MSEC;
	sms = timed_wait(fd, DRM_IOCTL_CCORE_SEM_WAIT, &sw, &src);
	jw.job = job;
	jw.timeout_ns = kf_now_ns() + 10 * KF_NSEC_PER_MSEC;
	jms = timed_wait(fd, DRM_IOCTL_CCORE_JOB_WAIT, &jw, &jrc);
	note("SEM_WAIT (10 ms deadline) returned %d after %lld ms; JOB_WAIT %d after %lld ms",
	     src, (long long)sms, jrc, (long long)jms);
	if (sms > 1000 || src != -ETIMEDOUT || jms > 1000 || jrc != -ETIMEDOUT)
		rc = fail(why, "10 ms waits: SEM_WAIT %s after %lld ms, JOB_WAIT %s after %lld ms (expected -ETIMEDOUT within 1 s; 5 s alarm)",
			  src == -EINTR ? "interrupted by the alarm" : strerror(-src),
			  (long long)sms,
			  jrc == -EINTR ? "interrupted by the alarm" : strerror(-jrc),
			  (long long)jms);
out:
	close(fd);
	kf_del_fabric(WAIT_FABRIC);
	return rc;
}

/* --- 5: an imported buffer outlives its exporting device ----------------- */

#define IMPORT_FABRIC 21

static void import_child(void)
{
	struct drm_prime_handle ex = { .flags = DRM_CLOEXEC | DRM_RDWR }, im = { 0 };
	struct drm_ccore_bo_info info = { 0 };
	struct drm_gem_close cl = { 0 };
	struct drm_ccore_desc d = { .op = DRM_CCORE_DESC_COPY, .len = 64 };
	char why[WHY_LEN];
	int a = open_dev(IMPORT_FABRIC, 0, why), b = open_dev(IMPORT_FABRIC, 1, why);
	uint32_t bo_a, bo_b, ring;
	uint64_t va_a, va_b;

	if (a < 0 || b < 0 || bo_create(a, 4096, &bo_a, &va_a))
		_exit(3);
	ex.handle = bo_a;
	if (kf_ioc(a, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ex))
		_exit(3);
	im.fd = ex.fd;
	if (kf_ioc(b, DRM_IOCTL_PRIME_FD_TO_HANDLE, &im))
		_exit(3);
	info.handle = im.handle;
	if (kf_ioc(b, DRM_IOCTL_CCORE_BO_INFO, &info) || bo_create(b, 4096, &bo_b, &va_b) ||
	    ring_create(b, 0, 0, 0, 4, &ring))
		_exit(3);
	d.src0 = info.dev_addr;
	d.dst = va_b;
	if (ring_submit(b, ring, &d, 1, DRM_CCORE_SUBMIT_F_START) || ring_drain(b, ring, 1, 5000))
		_exit(3);
	/* only dev1's ring holds the import (and through it dev0's buffer) */
	cl.handle = im.handle;
	kf_ioc(b, DRM_IOCTL_GEM_CLOSE, &cl);
	cl.handle = bo_a;
	kf_ioc(a, DRM_IOCTL_GEM_CLOSE, &cl);
	close(ex.fd);
	close(a);
	if (kf_del_fabric(IMPORT_FABRIC))
		_exit(4);
	kf_sleep_ms(200);
	close(b);
	_exit(0);
}

static int import_outlives_exporter(char *why)
{
	char end[64];
	int rc, status;
	pid_t pid;

	kf_del_fabric_if(IMPORT_FABRIC);
	rc = kf_new_fabric(IMPORT_FABRIC, 2, "");
	if (rc)
		return fail(why, "new_device \"%d 2\": %s", IMPORT_FABRIC, strerror(-rc));
	pid = fork();
	if (pid == 0)
		import_child();
	if (!reap(pid, 20000, &status)) {
		kill(pid, SIGKILL);
		return fail(why, "the import, del_device, close sequence did not end within 20 s");
	}
	kf_del_fabric_if(IMPORT_FABRIC);	/* if the child did not get that far */
	if (child_end(status, end, sizeof(end)))
		return fail(why, "the process closing the importer's file was %s: a kernel oops in close()?",
			    end);
	if (WEXITSTATUS(status))
		return fail(why, "set-up failed (%s: 3 ioctls, 4 del_device)", end);
	kf_slab_validate();
	return 0;
}

/* --- 6: SEM_IMPORT of an export whose device was deleted ------------------ */

#define SEM_FABRIC_OLD 22
#define SEM_FABRIC_NEW 23

/* A semaphore export of device @index of fabric @fabric, whose file is closed. */
static int export_sems(int fabric, uint32_t index, char *why)
{
	struct drm_ccore_sem_alloc sa = { .core = 0, .count = 4 };
	struct drm_ccore_sem_export ex = { 0 };
	int fd = open_dev(fabric, index, why), rc;

	if (fd < 0)
		return -1;
	rc = kf_ioc(fd, DRM_IOCTL_CCORE_SEM_ALLOC, &sa);
	ex.first = sa.first;
	rc = rc ?: kf_ioc(fd, DRM_IOCTL_CCORE_SEM_EXPORT, &ex);
	close(fd);
	if (rc)
		return -fail(why, "SEM_ALLOC/SEM_EXPORT on fabric %d: %s", fabric, strerror(-rc));
	return ex.fd;
}

static int import_sems(int fabric, int export_fd, char *why)
{
	struct drm_ccore_sem_import im = { .fd = export_fd };
	int fd = open_dev(fabric, 0, why), rc;

	if (fd < 0)
		return -EBADF;
	rc = kf_ioc(fd, DRM_IOCTL_CCORE_SEM_IMPORT, &im);
	close(fd);
	return rc;
}

#define SEM_DEVICES 4

static int sem_import_after_remove(char *why)
{
	int round, e[SEM_DEVICES], rc = 0, k;

	kf_del_fabric_if(SEM_FABRIC_OLD);
	kf_del_fabric_if(SEM_FABRIC_NEW);
	/* both devices alive: another fabric's block is refused */
	if (kf_new_fabric(SEM_FABRIC_OLD, 1, "") || kf_new_fabric(SEM_FABRIC_NEW, 1, ""))
		return fail(why, "new_device failed");
	e[0] = export_sems(SEM_FABRIC_OLD, 0, why);
	if (e[0] < 0)
		return 1;
	rc = import_sems(SEM_FABRIC_NEW, e[0], why);
	close(e[0]);
	kf_del_fabric(SEM_FABRIC_OLD);
	kf_del_fabric(SEM_FABRIC_NEW);
	if (rc != -EXDEV)
		return fail(why, "SEM_IMPORT across fabrics, both alive: %s, expected -EXDEV",
			    rc ? strerror(-rc) : "success");
	/*
	 * Delete the exporters' devices, then create another fabric of as
	 * many devices (which may get the freed devices' memory) and import
	 * there: a driver that reads a freed device takes the new fabric for
	 * the exporter's and lets the import through.
	 */
	for (round = 0; round < 10; round++) {
		if (kf_new_fabric(SEM_FABRIC_OLD, SEM_DEVICES, ""))
			return fail(why, "new_device \"%d %d\" failed", SEM_FABRIC_OLD, SEM_DEVICES);
		for (k = 0; k < SEM_DEVICES; k++) {
			e[k] = export_sems(SEM_FABRIC_OLD, (uint32_t)k, why);
			if (e[k] < 0)
				return 1;
		}
		kf_del_fabric(SEM_FABRIC_OLD);
		if (kf_new_fabric(SEM_FABRIC_NEW, SEM_DEVICES, ""))
			return fail(why, "new_device \"%d %d\" failed", SEM_FABRIC_NEW, SEM_DEVICES);
		for (k = 0; k < SEM_DEVICES; k++) {
			if (!rc)
				continue;
			rc = import_sems(SEM_FABRIC_NEW, e[k], why);
			if (!rc)
				note("round %d: the export of deleted device %d imported on fabric %d",
				     round, k, SEM_FABRIC_NEW);
		}
		for (k = 0; k < SEM_DEVICES; k++)
			close(e[k]);
		kf_del_fabric(SEM_FABRIC_NEW);
		if (!rc)
			return fail(why, "round %d: SEM_IMPORT of a block whose device was deleted succeeded on another fabric (it read the freed device; expected an error)",
				    round);
	}
	note("%d imports after del_device failed cleanly (last: %s)", 10 * SEM_DEVICES,
	     strerror(-rc));
	return 0;
}

/* --- 7: a job's fence, exported as a sync_file, outlives the module ------- */

static int sync_file_info(int fd)
{
	struct sync_fence_info fences[2];
	struct sync_file_info a = { .num_fences = 2, .sync_fence_info = (uintptr_t)fences };

	memset(fences, 0, sizeof(fences));
	return kf_ioc(fd, SYNC_IOC_FILE_INFO, &a);
}

static int fence_outlives_module(char *why)
{
	static const struct drm_ccore_insn ret[] = { { .opcode = DRM_CCORE_OP_RET } };
	struct drm_syncobj_handle h = { .flags = DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE };
	struct drm_ccore_job_wait jw = { 0 };
	struct kf_fabrics saved;
	int fd = open_dev(0, 0, why), rc, status, tries;
	uint32_t s, program;
	uint64_t job = 0;
	char end[64];
	pid_t pid;

	if (fd < 0)
		return 1;
	rc = syncobj_create(fd, &s) ?: program_load(fd, 0, ret, 1, &program) ?:
	     submit(fd, program, 0, s, 2000, &job);
	jw.job = job;
	jw.timeout_ns = kf_now_ns() + 5 * KF_NSEC_PER_SEC;
	rc = rc ?: kf_ioc(fd, DRM_IOCTL_CCORE_JOB_WAIT, &jw);
	h.handle = s;
	rc = rc ?: kf_ioc(fd, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &h);
	close(fd);
	if (rc)
		return fail(why, "set-up (a job, its fence as a sync_file) failed: %s",
			    strerror(-rc));
	kf_fabrics_save(&saved);
	kf_fabrics_delete(&saved);
	/* module references go asynchronously (the file's release work) */
	for (tries = 0; (rc = kf_module_unload()) && tries < 30; tries++)
		kf_sleep_ms(100);
	if (rc) {
		/* pinned by the fence: sound, if closing it lets the module go */
		note("rmmod with the sync_file open: %s", strerror(-rc));
		close(h.fd);
		h.fd = -1;
		for (tries = 0; (rc = kf_module_unload()) && tries < 30; tries++)
			kf_sleep_ms(100);
		if (rc) {
			kf_fabrics_restore(&saved);
			return fail(why, "rmmod ccore failed (%s) even after the sync_file was closed",
				    strerror(-rc));
		}
	} else {
		note("ccore unloaded with the sync_file open; SYNC_IOC_FILE_INFO on it");
		pid = fork();
		if (pid == 0)
			_exit(sync_file_info(h.fd) ? 1 : 0);
		if (!reap(pid, 10000, &status)) {
			kill(pid, SIGKILL);
			rc = fail(why, "SYNC_IOC_FILE_INFO after rmmod did not return within 10 s");
		} else if (child_end(status, end, sizeof(end))) {
			rc = fail(why, "SYNC_IOC_FILE_INFO after rmmod: the caller was %s (a page fault in the unloaded module's fence ops?)",
				  end);
		}
		close(h.fd);
	}
	if (kf_module_load() && !kf_module_loaded())
		return fail(why, "insmod ccore.ko failed after the scenario");
	if (kf_fabrics_restore(&saved))
		return fail(why, "re-creating the fabrics failed");
	return rc;
}

/* --- 8: DRM core ioctls an accel file has no business passing on ---------- */

struct drm_case {
	const char *name;
	unsigned long req;
	int kind;	/* 0: no argument needed, 1: syncobj array, 2: wait, 3: timeline */
};

static int drm_case_child(const struct drm_case *c)
{
	static uint32_t handles[4];
	static uint64_t points[4];
	char why[WHY_LEN], buf[64];
	struct drm_auth auth = { 0 };
	struct drm_unique u = { .unique_len = sizeof(buf), .unique = buf };
	struct drm_syncobj_array arr = { .handles = (uintptr_t)handles, .count_handles = 0x7fffffff };
	struct drm_syncobj_wait w = {
		.handles = (uintptr_t)handles, .count_handles = 0x7fffffff,
		.timeout_nsec = kf_now_ns() + 10 * KF_NSEC_PER_MSEC,
	};
	struct drm_syncobj_timeline_array ta = {
		.handles = (uintptr_t)handles, .points = (uintptr_t)points,
		.count_handles = 0x7fffffff,
	};
	struct drm_syncobj_timeline_wait tw = {
		.handles = (uintptr_t)handles, .points = (uintptr_t)points,
		.count_handles = 0x7fffffff, .timeout_nsec = w.timeout_nsec,
	};
	int fd = open_dev(0, 0, why), rc;
	void *arg;

	if (fd < 0)
		return 3;
	switch (c->kind) {
	case 0:
		arg = c->req == DRM_IOCTL_GET_MAGIC ? (void *)&auth : (void *)&u;
		break;
	case 1:
		arg = &arr;
		break;
	case 2:
		arg = c->req == DRM_IOCTL_SYNCOBJ_WAIT ? (void *)&w : (void *)&tw;
		break;
	default:
		arg = &ta;
		break;
	}
	rc = kf_ioctl(fd, c->req, arg);
	printf("#   %s: %s\n", c->name, rc ? strerrorname_np(-rc) : "0");
	fflush(stdout);
	close(fd);
	return 0;
}

static int drm_core_ioctls(char *why)
{
	static const struct drm_case cases[] = {
		{ "GET_MAGIC", DRM_IOCTL_GET_MAGIC, 0 },
		{ "GET_UNIQUE", DRM_IOCTL_GET_UNIQUE, 0 },
		{ "SYNCOBJ_SIGNAL x 0x7fffffff", DRM_IOCTL_SYNCOBJ_SIGNAL, 1 },
		{ "SYNCOBJ_RESET x 0x7fffffff", DRM_IOCTL_SYNCOBJ_RESET, 1 },
		/* a size ending inside count_handles: the core still takes
		 * its first 3 bytes (0xffffff handles), zeroing the last */
		{ "SYNCOBJ_RESET x 0xffffff (11-byte size)",
		  _IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE,
		       _IOC_NR(DRM_IOCTL_SYNCOBJ_RESET), 11), 1 },
		{ "SYNCOBJ_WAIT x 0x7fffffff", DRM_IOCTL_SYNCOBJ_WAIT, 2 },
		{ "SYNCOBJ_TIMELINE_WAIT x 0x7fffffff", DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, 2 },
		{ "SYNCOBJ_QUERY x 0x7fffffff", DRM_IOCTL_SYNCOBJ_QUERY, 3 },
		{ "SYNCOBJ_TIMELINE_SIGNAL x 0x7fffffff", DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, 3 },
	};
	char tag[80], first[256], end[64], what[WHY_LEN] = "";
	int k, status, bad, failed = 0, ran = 0;
	size_t used = 0;
	pid_t pid;

	/* every case, even after one took the kernel down: each is a finding */
	for (k = 0; k < (int)(sizeof(cases) / sizeof(cases[0])); k++) {
		const char *bad_end = NULL;

		if (case_filter && !strstr(cases[k].name, case_filter))
			continue;
		ran++;

		snprintf(tag, sizeof(tag), "drm_core_ioctls %s pid %d", cases[k].name, (int)getpid());
		kf_klog_mark(tag);
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(drm_case_child(&cases[k]));
		if (!reap(pid, 10000, &status)) {
			kill(pid, SIGKILL);
			bad_end = "did not return within 10 s";
		} else if (child_end(status, end, sizeof(end))) {
			bad_end = end;
		}
		bad = kf_klog_bad_since(tag, first, sizeof(first));
		if (!bad_end && !bad)
			continue;
		failed++;
		note("%s: %s%s%s", cases[k].name, bad_end ? bad_end : "returned",
		     bad ? "; kernel log: " : "", bad ? first : "");
		if (used < sizeof(what))
			used += (size_t)snprintf(what + used, sizeof(what) - used, "%s%s (%s)",
						 used ? ", " : "", cases[k].name,
						 !bad_end ? "kernel log splat" :
						 bad_end == end ? "caller killed" : "hung");
	}
	if (failed)
		return fail(why, "%d of %d cases went wrong: %s", failed, ran, what);
	if (!ran)
		return fail(why, "no case is named with '%s'", case_filter);
	return 0;
}

/* --- the list -------------------------------------------------------------- */

static const struct {
	const char *name;
	const char *what;
	int (*run)(char *why);
} scenarios[] = {
	{ "div_by_zero", "1: i8/u8 DIV by multiples of 256 computes, no divide error",
	  div_by_zero },
	{ "job_history_uaf", "2: a running job pushed out of the history by 4100 submits, then close: no use-after-free of its program",
	  job_history_uaf },
	{ "close_unbounded", "3: close() of a file whose ring runs START 0xffffffff (or the most the verifier takes) of 4 MiB copies returns within 5 s, or SIGKILL ends it",
	  close_unbounded },
	{ "wait_deadline", "4: SEM_WAIT and JOB_WAIT keep a 10 ms deadline while 8 CC cores spin (workers=1)",
	  wait_deadline },
	{ "import_outlives_exporter", "5: a buffer imported on dev1, held by its ring, after dev0's fabric is deleted: close() is clean",
	  import_outlives_exporter },
	{ "sem_import_after_remove", "6: SEM_IMPORT of an export whose device was deleted fails, reads nothing freed",
	  sem_import_after_remove },
	{ "fence_outlives_module", "7: a job fence as a sync_file across rmmod ccore: SYNC_IOC_FILE_INFO is safe (or the module stays until it is closed)",
	  fence_outlives_module },
	{ "drm_core_ioctls", "8: GET_MAGIC, GET_UNIQUE and huge syncobj handle counts on an accel file fail cleanly",
	  drm_core_ioctls },
};

#define NSCENARIOS (int)(sizeof(scenarios) / sizeof(scenarios[0]))

void kf_scenarios_list(FILE *out)
{
	int i;

	for (i = 0; i < NSCENARIOS; i++)
		fprintf(out, "%-26s %s\n", scenarios[i].name, scenarios[i].what);
}

/* One scenario, its kernel log and taint included: TAP line @n. */
static int run_one(int i, int n)
{
	char why[WHY_LEN] = "", tag[80], first[256];
	unsigned long taint0 = kf_tainted(), taint1;
	int rc, bad;

	snprintf(tag, sizeof(tag), "scenario %s pid %d", scenarios[i].name, (int)getpid());
	kf_klog_mark(tag);
	note("%s: %s", scenarios[i].name, scenarios[i].what);
	rc = scenarios[i].run(why);
	bad = kf_klog_bad_since(tag, first, sizeof(first));
	taint1 = kf_tainted();
	if (!rc && bad)
		rc = fail(why, "kernel log: %d splat lines, first: %s", bad, first);
	else if (bad)
		note("kernel log: %d splat lines, first: %s", bad, first);
	if (!rc && (taint1 & ~taint0 & BAD_TAINT))
		rc = fail(why, "the kernel became tainted: %lu -> %lu", taint0, taint1);
	if (rc)
		printf("not ok %d %s # %s\n", n, scenarios[i].name, why);
	else
		printf("ok %d %s\n", n, scenarios[i].name);
	fflush(stdout);
	return rc;
}

int kf_scenarios_run(const char *arg)
{
	char name[64];
	const char *slash = strchr(arg, '/');
	int i, n = 0, failed = 0;
	bool all;

	snprintf(name, sizeof(name), "%.*s", slash ? (int)(slash - arg) : (int)strlen(arg), arg);
	case_filter = slash ? slash + 1 : NULL;
	all = !strcmp(name, "all");

	for (i = 0; i < NSCENARIOS; i++)
		if (all || !strcmp(name, scenarios[i].name))
			n++;
	if (!n) {
		fprintf(stderr, "kfuzz: no scenario '%s'; --list names them\n", name);
		return 2;
	}
	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
	for (i = 0, n = 0; i < NSCENARIOS; i++)
		if (all || !strcmp(name, scenarios[i].name))
			failed += run_one(i, ++n);
	return failed ? 1 : 0;
}
