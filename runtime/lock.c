// SPDX-License-Identifier: MIT
/* The runtime's process-wide lock (see lock.h). */
#include "lock.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t launch_cond = PTHREAD_COND_INITIALIZER;

void rt_lock(void)
{
	pthread_mutex_lock(&runtime_lock);
}

void rt_unlock(void)
{
	pthread_mutex_unlock(&runtime_lock);
}

void rt_launched(void)
{
	pthread_cond_broadcast(&launch_cond);
}

int rt_wait_launch(int64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = deadline_ns / 1000000000, .tv_nsec = deadline_ns % 1000000000,
	};
	/* CLOCK_MONOTONIC, as every other deadline of the runtime's */
	int rc = pthread_cond_clockwait(&launch_cond, &runtime_lock, CLOCK_MONOTONIC, &ts);

	return rc == ETIMEDOUT ? -ETIMEDOUT : 0;
}
