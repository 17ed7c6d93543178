// SPDX-License-Identifier: MIT
/* Clocks, host buffers and the host memcpy reference every figure is measured against. */
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

void *bench_host_buf(size_t bytes, int fill)
{
	/* a zero-length mapping is an error; one byte stands for it */
	char *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* Touch every page first: page faults are not bandwidth. */
	memset(p, fill, bytes);
	return p;
}

void bench_host_buf_free(void *buf, size_t bytes)
{
	if (buf)
		munmap(buf, bytes ? bytes : 1);
}

double bench_host_memcpy_gbps(size_t bytes)
{
	char *src = bench_host_buf(bytes, 1);
	char *dst = bench_host_buf(bytes, 2);
	double best = 0, t;
	int i;

	for (i = 0; src && dst && i < 5; i++) {
		t = bench_now_us();
		memcpy(dst, src, bytes);
		t = bench_now_us() - t;
		if (t > 0 && bytes / t / 1e3 > best)
			best = (double)bytes / t / 1e3;
	}
	/* Keep the copy observable so it is not optimised away. */
	if (src && dst && dst[bytes / 2] != 1)
		best = 0;
	bench_host_buf_free(src, bytes);
	bench_host_buf_free(dst, bytes);
	return best;
}
