/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace half of the model's OS shim (see ccm_os.h). */
#ifndef CCM_OS_USER_H
#define CCM_OS_USER_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
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

#if defined(__SANITIZE_THREAD__) && !defined(CCM_OS_PTHREAD)
#define CCM_OS_PTHREAD 1
#endif

#ifdef CCM_OS_PTHREAD
/*
 * On pthread primitives (ThreadSanitizer builds, or -DCCM_OS_PTHREAD):
 * the sanitizer sees every lock and wait, which it cannot through raw
 * futexes.  Zeroed memory is an unlocked mutex and a fresh condition.
 *
 * The condition keeps the futex version's semantics, which the model
 * relies on: a waiter notes the sequence while it still holds the caller's
 * mutex and sleeps until it moves, so a broadcast made without that mutex
 * between the two is not lost.  @lock guards @seq and the sleep.
 */
struct ccm_mutex {
	pthread_mutex_t m;
};

struct ccm_cond {
	pthread_mutex_t lock;
	pthread_cond_t c;
	u32 seq;
};

static inline void ccm_mutex_lock(struct ccm_mutex *m)
{
	pthread_mutex_lock(&m->m);
}

static inline void ccm_mutex_unlock(struct ccm_mutex *m)
{
	pthread_mutex_unlock(&m->m);
}
#else
/*
 * Futex-based: 0 free, else held (bit 0) and maybe awaited (bit 1), the
 * holder's tag in the bits above (ccm_lock_tag: its pid in a process
 * attached to a shared fabric, see ccm_arena_user.c, else 0), so a waiter
 * can tell that a process died holding a lock of a shared fabric.  The model
 * takes a lock about twenty times per small collective, so the uncontended
 * path is inline (one compare-and-swap to take, one exchange to release).
 * @shared: the lock lives in memory other processes map (non-private futex).
 */
struct ccm_mutex {
	u32 state;
	u32 shared;
};

#define CCM_LOCK_HELD 1u
#define CCM_LOCK_WAITERS 2u
#define CCM_LOCK_TAG_SHIFT 2

/* Waiters sleep on @seq; a broadcast bumps it and wakes them all. */
struct ccm_cond {
	u32 seq;
	u32 shared;
};

extern u32 ccm_lock_tag;

void ccm_mutex_lock_slow(struct ccm_mutex *m);
void ccm_mutex_wake(struct ccm_mutex *m);

static inline void ccm_mutex_lock(struct ccm_mutex *m)
{
	u32 free_state = 0;

	if (!__atomic_compare_exchange_n(&m->state, &free_state, ccm_lock_tag | CCM_LOCK_HELD,
					 false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		ccm_mutex_lock_slow(m);
}

static inline void ccm_mutex_unlock(struct ccm_mutex *m)
{
	if (__atomic_exchange_n(&m->state, 0, __ATOMIC_RELEASE) & CCM_LOCK_WAITERS)
		ccm_mutex_wake(m);
}
#endif

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

/*
 * A polling thread of a shared fabric gives its CPU to others: the
 * processes sharing it may outnumber the CPUs, and the thread a poller
 * waits for may be one of another process that needs this CPU to run.
 */
static inline void ccm_poll_yield(void)
{
	sched_yield();
}

/* Per-thread variables: the scheduler batches the wakes a step makes. */
#define CCM_THREAD_LOCAL _Thread_local

#define CCM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* the kernel's spelling of a printf-like function's format check */
#ifndef __printf
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif

/* a * b / c, the product in 128 bits (the timed model's rates). */
static inline u64 ccm_muldiv64(u64 a, u64 b, u64 c)
{
	return (u64)((unsigned __int128)a * b / c);
}

/* a / b (the kernel half uses div_u64()). */
static inline u64 ccm_div64_u32(u64 a, u32 b)
{
	return a / b;
}

/*
 * Shared fabrics (ccm_arena_user.c): while a thread works on one, the
 * model's allocations come from its arena, memory every process of the
 * host maps at the same address.  NULL: the process's own heap.
 */
struct ccm_arena;
extern CCM_THREAD_LOCAL struct ccm_arena *ccm_arena_current;
/* The arena @p was allocated from, or NULL (a plain heap pointer). */
struct ccm_arena *ccm_arena_of(const void *p);
void *ccm_arena_alloc(struct ccm_arena *a, size_t size);
void ccm_arena_free(struct ccm_arena *a, void *p);
void *ccm_arena_big_alloc(struct ccm_arena *a, size_t size);
void ccm_arena_big_free(struct ccm_arena *a, void *p, size_t size);
/*
 * Resize an allocation of ccm_zalloc() of @old bytes (the new ones zeroed)
 * in the heap it came from; NULL (and @p kept) if out of memory.
 */
void *ccm_realloc(void *p, size_t old, size_t size);
/* A process that held a lock (its pid) is gone: true (ccm_arena_user.c). */
bool ccm_lock_holder_dead(u32 pid);

#endif
