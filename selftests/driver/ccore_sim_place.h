/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an accel device sits among the ccore_sim fabrics, read from sysfs:
 * shared by the kernel selftests (ccore_drv_test.h) and the fuzzer
 * (selftests/kfuzz), which both find devices by fabric.
 */
#ifndef CCORE_SIM_PLACE_H
#define CCORE_SIM_PLACE_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * Fabric @fabric and index @index of accel minor @minor, from the name of
 * its sysfs parent, "ccore_sim<F>.<I>": 0, or -1 if it is not a ccore_sim
 * device (or there is no such minor).
 */
static inline int ccore_sim_place(int minor, int *fabric, uint32_t *index)
{
	char link[96], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(link, sizeof(link), "/sys/class/accel/accel%d/device", minor);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	return sscanf(base, "ccore_sim%d.%u", fabric, index) == 2 ? 0 : -1;
}

/* The fabric of accel minor @minor, or -1 if it is not a ccore_sim device. */
static inline int ccore_sim_fabric(int minor)
{
	uint32_t index;
	int fabric;

	return ccore_sim_place(minor, &fabric, &index) ? -1 : fabric;
}

#endif
