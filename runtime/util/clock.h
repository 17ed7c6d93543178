/* SPDX-License-Identifier: MIT */
/*
 * The runtime's clock: CLOCK_MONOTONIC in nanoseconds, the clock the
 * uAPI's absolute wait deadlines are in (on the kernel driver and the sim
 * backend alike), and what the runtime times its own work with.
 */
#ifndef CCORE_UTIL_CLOCK_H
#define CCORE_UTIL_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t rt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* CLOCK_REALTIME @ms (>= 0) from now: a deadline for pthread_cond_timedwait. */
static inline struct timespec rt_realtime_in_ms(int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

#endif
