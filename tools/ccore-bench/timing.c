// SPDX-License-Identifier: MIT
/* Clocks and the host memcpy reference every figure is measured against. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

double bench_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

double bench_host_memcpy_gbps(size_t bytes)
{
	char *src = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *dst = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double best = 0, t;
	int i;

	if (src == MAP_FAILED || dst == MAP_FAILED)
		return 0;
	/* Touch both first: page faults are not bandwidth. */
	memset(src, 1, bytes);
	memset(dst, 2, bytes);
	for (i = 0; i < 5; i++) {
		t = bench_now_us();
		memcpy(dst, src, bytes);
		t = bench_now_us() - t;
		if (t > 0 && bytes / t / 1e3 > best)
			best = (double)bytes / t / 1e3;
	}
	/* Keep the copy observable so it is not optimised away. */
	if (dst[bytes / 2] != 1)
		best = 0;
	munmap(src, bytes);
	munmap(dst, bytes);
	return best;
}
