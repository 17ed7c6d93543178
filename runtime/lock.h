/* SPDX-License-Identifier: MIT */
/*
 * The runtime's threading model (ccore.h, "Threads"): one process-wide
 * lock serialises every call that reads or changes shared runtime state
 * (posted collectives, plans, allocations, the knobs' parsed values);
 * waiting for the device happens outside it.  A condition variable tells
 * threads waiting in ccore_stream_sync() that posted collectives were
 * launched (or dropped).
 */
#ifndef CCORE_LOCK_H
#define CCORE_LOCK_H

#include <stdint.h>

void rt_lock(void);
void rt_unlock(void);
/* Wake every thread in rt_wait_launch(); with the lock held. */
void rt_launched(void);
/*
 * With the lock held: sleep until rt_launched() or @deadline_ns
 * (CLOCK_MONOTONIC); -ETIMEDOUT once the deadline has passed.
 */
int rt_wait_launch(int64_t deadline_ns);

#endif
