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

void *ccm_zalloc(size_t size);
void *ccm_calloc(size_t n, size_t size);
void ccm_free(void *p);
/* Large, page-aligned, zeroed, lazily committed memory (device memory). */
void *ccm_big_zalloc(size_t size);
void ccm_big_free(void *p, size_t size);

struct ccm_mutex {
	pthread_mutex_t m;
};

struct ccm_cond {
	pthread_cond_t c;
};

void ccm_mutex_init(struct ccm_mutex *m);
void ccm_mutex_destroy(struct ccm_mutex *m);
void ccm_mutex_lock(struct ccm_mutex *m);
void ccm_mutex_unlock(struct ccm_mutex *m);
void ccm_cond_init(struct ccm_cond *c);
void ccm_cond_destroy(struct ccm_cond *c);
void ccm_cond_wait(struct ccm_cond *c, struct ccm_mutex *m);
/* Returns false when the absolute CLOCK_MONOTONIC deadline passed. */
bool ccm_cond_wait_until(struct ccm_cond *c, struct ccm_mutex *m, s64 deadline_ns);
void ccm_cond_broadcast(struct ccm_cond *c);

struct ccm_thread {
	pthread_t t;
};

int ccm_thread_start(struct ccm_thread *t, void (*fn)(void *), void *arg);
void ccm_thread_join(struct ccm_thread *t);
unsigned int ccm_host_cpus(void);
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

#define ccm_load32(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ccm_store32(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ccm_add32(p, v) __atomic_add_fetch((p), (v), __ATOMIC_ACQ_REL)
#define ccm_cas32(p, expp, v) \
	__atomic_compare_exchange_n((p), (expp), (v), false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define ccm_load64(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ccm_store64(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ccm_add64(p, v) __atomic_add_fetch((p), (v), __ATOMIC_ACQ_REL)

#define CCM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* a * b / c, the product in 128 bits (the timed model's rates). */
static inline u64 ccm_muldiv64(u64 a, u64 b, u64 c)
{
	return (u64)((unsigned __int128)a * b / c);
}

#endif
