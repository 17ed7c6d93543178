// SPDX-License-Identifier: GPL-2.0
/*
 * stress_holder: open every ccore accel device and leave work in flight on
 * each — a job blocked on a semaphore, a ring of large copies, a semaphore
 * export and a dma-buf export kept open — then wait to be killed.  The
 * stress test removes devices and unloads the module around it.
 *
 * Usage: stress_holder DEVICE...   (prints "ready" once all is in flight)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "ccore_accel.h"

#define COPY_BYTES (1u << 20)
#define COPIES 8

static void die(const char *dev, const char *what)
{
	fprintf(stderr, "stress_holder: %s: %s: %s\n", dev, what, strerror(errno));
	exit(1);
}

static void xioctl(int fd, unsigned long req, void *arg, const char *dev, const char *what)
{
	if (ioctl(fd, req, arg))
		die(dev, what);
}

static void hold(const char *dev)
{
	struct drm_ccore_bo_create src = { .size = COPY_BYTES }, dst = { .size = COPY_BYTES };
	struct drm_ccore_sem_alloc sem = { .core = 0, .count = 1 };
	struct drm_ccore_insn prog[2] = {
		{ .opcode = DRM_CCORE_OP_WAIT, .imm = 1 },
		{ .opcode = DRM_CCORE_OP_RET },
	};
	struct drm_ccore_program_load load = { .cc_core = 0, .count = 2 };
	struct drm_ccore_submit submit = { .flags = DRM_CCORE_JOB_F_TRIGGER, .timeout_ms = 600000 };
	struct drm_ccore_ring_create ring = { .size = COPIES };
	struct drm_ccore_desc descs[COPIES];
	struct drm_ccore_ring_submit rs = { .count = COPIES, .flags = DRM_CCORE_SUBMIT_F_START };
	struct drm_ccore_sem_export sx = { 0 };
	struct drm_prime_handle px = { .flags = DRM_CLOEXEC };
	int fd = open(dev, O_RDWR);
	int i;

	if (fd < 0)
		die(dev, "open");
	xioctl(fd, DRM_IOCTL_CCORE_BO_CREATE, &src, dev, "BO_CREATE");
	xioctl(fd, DRM_IOCTL_CCORE_BO_CREATE, &dst, dev, "BO_CREATE");
	xioctl(fd, DRM_IOCTL_CCORE_SEM_ALLOC, &sem, dev, "SEM_ALLOC");
	prog[0].sem = sem.first;
	load.insns = (__u64)(unsigned long)prog;
	xioctl(fd, DRM_IOCTL_CCORE_PROGRAM_LOAD, &load, dev, "PROGRAM_LOAD");
	submit.program = load.handle;
	xioctl(fd, DRM_IOCTL_CCORE_SUBMIT, &submit, dev, "SUBMIT");
	xioctl(fd, DRM_IOCTL_CCORE_RING_CREATE, &ring, dev, "RING_CREATE");
	memset(descs, 0, sizeof(descs));
	for (i = 0; i < COPIES; i++) {
		descs[i].op = DRM_CCORE_DESC_COPY;
		descs[i].len = COPY_BYTES;
		descs[i].dst = dst.dev_addr;
		descs[i].src0 = src.dev_addr;
	}
	rs.handle = ring.handle;
	rs.descs = (__u64)(unsigned long)descs;
	xioctl(fd, DRM_IOCTL_CCORE_RING_SUBMIT, &rs, dev, "RING_SUBMIT");
	sx.first = sem.first;
	xioctl(fd, DRM_IOCTL_CCORE_SEM_EXPORT, &sx, dev, "SEM_EXPORT");
	px.handle = src.handle;
	xioctl(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &px, dev, "PRIME_HANDLE_TO_FD");
	/* every fd stays open until the process is killed */
}

int main(int argc, char **argv)
{
	int i;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc < 2 ? stderr : stdout,
			"Usage: stress_holder DEVICE...\n"
			"Open each ccore accel DEVICE, leave a blocked job, running copies and\n"
			"exported semaphores and buffers on it, print \"ready\", wait to be killed.\n");
		return argc < 2 ? 2 : 0;
	}
	for (i = 1; i < argc; i++)
		hold(argv[i]);
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
