// SPDX-License-Identifier: GPL-2.0
/*
 * genl_provoke: make a CC core of a ccore device fail one job, so that the
 * driver sends its netlink events (selftests/driver/genl_test.sh).
 *
 *   genl_provoke DEVICE hang CC    a job waits forever on a semaphore and
 *                                  times out after 100 ms: job-timeout,
 *                                  then cc-recovered
 *   genl_provoke DEVICE fault CC   a job overflows the CC core's return
 *                                  stack (CALL to itself) and fails with
 *                                  -EIO: dma-error, then cc-recovered
 *
 * DEVICE is /dev/accel/accelN.  Prints "job J: status S" and exits 0 when
 * the job failed as intended, 1 otherwise, 2 for bad usage.  Linked
 * statically, with the DRM ioctls used directly: the QEMU guest has no
 * libdrm.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "drm.h"
#include "ccore_accel.h"

static int ioc(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int fail(const char *what, int rc)
{
	fprintf(stderr, "genl_provoke: %s: %s\n", what, strerror(-rc));
	return 1;
}

int main(int argc, char **argv)
{
	struct drm_ccore_param_args per_core = { .param = DRM_CCORE_PARAM_CC_CORES_PER_CORE };
	struct drm_ccore_insn prog[2];
	struct drm_ccore_program_load load = { 0 };
	struct drm_ccore_submit submit = { 0 };
	struct drm_ccore_job_wait wait = { 0 };
	struct drm_ccore_sem_alloc sem = { 0 };
	int hang, fd, rc, want;
	unsigned long cc;
	char *end;

	if (argc != 4 || (strcmp(argv[2], "hang") && strcmp(argv[2], "fault"))) {
		fprintf(stderr, "usage: genl_provoke /dev/accel/accelN hang|fault CC\n");
		return 2;
	}
	hang = !strcmp(argv[2], "hang");
	cc = strtoul(argv[3], &end, 10);
	if (*end || end == argv[3]) {
		fprintf(stderr, "genl_provoke: CC '%s': expected a CC core number\n", argv[3]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail(argv[1], -errno);
	rc = ioc(fd, DRM_IOCTL_CCORE_GET_PARAM, &per_core);
	if (rc)
		return fail("GET_PARAM", rc);

	memset(prog, 0, sizeof(prog));
	if (hang) {
		sem.core = cc / per_core.value;
		sem.count = 1;
		rc = ioc(fd, DRM_IOCTL_CCORE_SEM_ALLOC, &sem);
		if (rc)
			return fail("SEM_ALLOC", rc);
		prog[0].opcode = DRM_CCORE_OP_WAIT;	/* until it is 1: never */
		prog[0].sem = sem.first;
		prog[0].imm = 1;
		prog[1].opcode = DRM_CCORE_OP_RET;
	} else {
		prog[0].opcode = DRM_CCORE_OP_CALL;	/* itself, until the stack overflows */
		prog[0].target = 0;
		prog[1].opcode = DRM_CCORE_OP_RET;
	}
	load.cc_core = cc;
	load.count = 2;
	load.insns = (uintptr_t)prog;
	rc = ioc(fd, DRM_IOCTL_CCORE_PROGRAM_LOAD, &load);
	if (rc)
		return fail("PROGRAM_LOAD", rc);
	submit.program = load.handle;
	submit.flags = DRM_CCORE_JOB_F_TRIGGER;
	submit.timeout_ms = 100;
	rc = ioc(fd, DRM_IOCTL_CCORE_SUBMIT, &submit);
	if (rc)
		return fail("SUBMIT", rc);
	wait.job = submit.job;
	wait.timeout_ns = now_ns() + 10000000000ll;
	rc = ioc(fd, DRM_IOCTL_CCORE_JOB_WAIT, &wait);
	if (rc)
		return fail("JOB_WAIT", rc);
	want = hang ? -ETIMEDOUT : -EIO;
	printf("job %llu: status %d\n", (unsigned long long)submit.job, wait.status);
	if (wait.status != want) {
		fprintf(stderr, "genl_provoke: job %llu ended with status %d, not %d\n",
			(unsigned long long)submit.job, wait.status, want);
		return 1;
	}
	close(fd);
	return 0;
}
