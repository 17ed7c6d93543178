/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace half of the model's OS shim (see ccm_os.h). */
#ifndef CCM_OS_USER_H
#define CCM_OS_USER_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

/* The kernel's integer names, on the uAPI's types so both agree. */
typedef __s8 s8;
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s32 s32;
typedef __s64 s64;

struct ccm_mutex {
	pthread_mutex_t m;
};

struct ccm_cond {
	pthread_cond_t c;
};

struct ccm_thread {
	pthread_t t;
};

s64 ccm_now_ns(void);
/* A cheap monotonic cycle counter, and its rate (measured once). */
static inline u64 ccm_cycles(void)
{
	return __builtin_ia32_rdtsc();
}

u64 ccm_cycles_per_us(void);

/* The kernel brackets float reductions with kernel_fpu_begin/end and lets
 * long model loops reschedule; userspace needs neither. */
static inline void ccm_fpu_begin(void)
{
}

static inline void ccm_fpu_end(void)
{
}

static inline void ccm_yield(void)
{
}

/* Per-thread variables: the scheduler batches the wakes a step makes. */
#define CCM_THREAD_LOCAL _Thread_local

#define CCM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* a * b / c, the product in 128 bits (the timed model's rates). */
static inline u64 ccm_muldiv64(u64 a, u64 b, u64 c)
{
	return (u64)((unsigned __int128)a * b / c);
}

#endif
