// SPDX-License-Identifier: MIT
/* The runtime's process-wide lock (see lock.h). */
#include "lock.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

static pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t launch_cond;
static pthread_once_t cond_once = PTHREAD_ONCE_INIT;

/* Deadlines are CLOCK_MONOTONIC, as every other wait of the runtime's. */
static void cond_init(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&launch_cond, &a);
	pthread_condattr_destroy(&a);
}

void rt_lock(void)
{
	pthread_once(&cond_once, cond_init);
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
	int rc = pthread_cond_timedwait(&launch_cond, &runtime_lock, &ts);

	return rc == ETIMEDOUT ? -ETIMEDOUT : 0;
}
