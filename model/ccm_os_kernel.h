/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel half of the model's OS shim (see ccm_os.h). */
#ifndef CCM_OS_KERNEL_H
#define CCM_OS_KERNEL_H

#include <linux/completion.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/stdarg.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <linux/wait.h>

struct ccm_mutex {
	struct mutex m;
};

/*
 * A condition variable: a wait queue plus a generation that every
 * broadcast bumps, so a waiter that dropped the mutex cannot miss one.
 */
struct ccm_cond {
	wait_queue_head_t wq;
	unsigned long gen;
};

struct ccm_thread {
	struct task_struct *task;
	struct completion done;
	void (*fn)(void *arg);
	void *arg;
};

static inline s64 ccm_now_ns(void)
{
	return ktime_get_ns();
}

/* The scheduler's cheap clock: nanoseconds here, so the rate is fixed. */
static inline u64 ccm_cycles(void)
{
	return ktime_get_mono_fast_ns();
}

static inline u64 ccm_cycles_per_us(void)
{
	return 1000;
}

/* Float reductions run between these; they must not sleep in between. */
void ccm_fpu_begin(void);
void ccm_fpu_end(void);

/* No CCM_THREAD_LOCAL in the kernel: every wake takes the lock itself. */

/* Long-running model loops give the CPU away now and then. */
static inline void ccm_yield(void)
{
	cond_resched();
}

/* Shared fabrics are userspace's (ccm_os_user.h). */
static inline void ccm_poll_yield(void)
{
	cond_resched();
}

#define CCM_ARRAY_SIZE(a) ARRAY_SIZE(a)

/* a * b / c, the product in 128 bits (the timed model's rates). */
static inline u64 ccm_muldiv64(u64 a, u64 b, u64 c)
{
	return mul_u64_u64_div_u64(a, b, c);
}

/* a / b; 32-bit kernels have no plain 64-bit division. */
static inline u64 ccm_div64_u32(u64 a, u32 b)
{
	return div_u64(a, b);
}

#endif
