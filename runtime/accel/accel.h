/* SPDX-License-Identifier: MIT */
/*
 * The accel backend: the devices of one fabric of the ccore kernel driver,
 * /dev/accel/accelN opened through libdrm, one open file per device in
 * device-index order.  The driver answers with errnos only; this backend
 * turns each into a message that says what the errno means for the ioctl
 * that returned it.
 */
#ifndef CCORE_ACCEL_H
#define CCORE_ACCEL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "ccore_internal.h"

#define ACCEL_DIR "/dev/accel"
#define ACCEL_SYSFS "/sys/class/accel"
#define ACCEL_DRIVER "ccore"

/* A buffer's host view: the whole buffer, mmap'ed once. */
struct accel_map {
	uint32_t handle;
	void *ptr;
	size_t size;
};

struct accel_dev {
	struct ccore_dev base;
	int fd;
	char node[32];			/* "accel3" */
	pthread_mutex_t lock;		/* the map cache */
	struct accel_map *maps;
	uint32_t nmaps, cap;
};

struct accel_system {
	struct ccore_system base;
	char fabric[128];		/* the fabric's id, for messages */
};

static inline struct accel_dev *to_adev(struct ccore_dev *dev)
{
	return (struct accel_dev *)dev;
}

/* Set the last error for @request failing with @err (positive errno);
 * returns -@err.  @arg is the ioctl's argument, for the values it names. */
int accel_fail(const struct accel_dev *d, unsigned long request, const void *arg, int err);

/* Export tokens carrying dma-buf and semaphore fds (accel_token.c). */
int accel_bo_export(struct ccore_dev *dev, uint32_t handle, uint64_t dev_addr,
		    struct ccore_token *tok);
int accel_bo_import_token(struct ccore_dev *dev, const struct ccore_token *tok,
			  uint32_t *handle, uint64_t *dev_addr);
int accel_sem_export(struct ccore_dev *dev, uint32_t first, struct ccore_token *tok);
int accel_sem_import_token(struct ccore_dev *dev, const struct ccore_token *tok);

#endif
