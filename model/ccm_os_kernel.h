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

void *ccm_zalloc(size_t size);
void *ccm_calloc(size_t n, size_t size);
void ccm_free(void *p);
void *ccm_big_zalloc(size_t size);
void ccm_big_free(void *p, size_t size);

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

void ccm_mutex_init(struct ccm_mutex *m);
void ccm_mutex_destroy(struct ccm_mutex *m);
void ccm_mutex_lock(struct ccm_mutex *m);
void ccm_mutex_unlock(struct ccm_mutex *m);
void ccm_cond_init(struct ccm_cond *c);
void ccm_cond_destroy(struct ccm_cond *c);
void ccm_cond_wait(struct ccm_cond *c, struct ccm_mutex *m);
bool ccm_cond_wait_until(struct ccm_cond *c, struct ccm_mutex *m, s64 deadline_ns);
void ccm_cond_broadcast(struct ccm_cond *c);

struct ccm_thread {
	struct task_struct *task;
	struct completion done;
	void (*fn)(void *arg);
	void *arg;
};

int ccm_thread_start(struct ccm_thread *t, void (*fn)(void *), void *arg);
void ccm_thread_join(struct ccm_thread *t);
unsigned int ccm_host_cpus(void);

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

/* Long-running model loops give the CPU away now and then. */
static inline void ccm_yield(void)
{
	cond_resched();
}

#define ccm_load32(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ccm_store32(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ccm_add32(p, v) __atomic_add_fetch((p), (v), __ATOMIC_ACQ_REL)
#define ccm_cas32(p, expp, v) \
	__atomic_compare_exchange_n((p), (expp), (v), false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define ccm_load64(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define ccm_store64(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ccm_add64(p, v) __atomic_add_fetch((p), (v), __ATOMIC_ACQ_REL)

#define CCM_ARRAY_SIZE(a) ARRAY_SIZE(a)

/* a * b / c, the product in 128 bits (the timed model's rates). */
static inline u64 ccm_muldiv64(u64 a, u64 b, u64 c)
{
	return mul_u64_u64_div_u64(a, b, c);
}

#endif
