/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device model's OS shim: the little it needs from its host (memory,
 * locks, condition variables, threads, atomics, a monotonic clock).  The
 * model is built into the kernel module and into libccore from the same
 * sources; only this shim differs.
 */
#ifndef CCM_OS_H
#define CCM_OS_H

#ifdef __KERNEL__
#include "ccm_os_kernel.h"
#else
#include "ccm_os_user.h"
#endif

/* What both halves provide; their types (struct ccm_mutex, ccm_cond,
 * ccm_thread) and inline clocks are theirs. */
void *ccm_zalloc(size_t size);
void *ccm_calloc(size_t n, size_t size);
void ccm_free(void *p);
/* Large, page-aligned, zeroed, lazily committed memory (device memory). */
void *ccm_big_zalloc(size_t size);
void ccm_big_free(void *p, size_t size);
/*
 * Copy @len bytes that nothing reads again soon, as a DMA engine writes
 * memory: past the CPU caches where the host can (streaming stores, no
 * read for ownership of the destination), else plainly.  The ranges must
 * not overlap.  Written bytes are visible to other threads on return.
 */
void ccm_copy_stream(void *dst, const void *src, size_t len);

void ccm_mutex_init(struct ccm_mutex *m);
void ccm_mutex_destroy(struct ccm_mutex *m);
#ifdef __KERNEL__
void ccm_mutex_lock(struct ccm_mutex *m);
void ccm_mutex_unlock(struct ccm_mutex *m);
#endif
void ccm_cond_init(struct ccm_cond *c);
void ccm_cond_destroy(struct ccm_cond *c);
void ccm_cond_wait(struct ccm_cond *c, struct ccm_mutex *m);
/* Returns false when the absolute ccm_now_ns() deadline passed. */
bool ccm_cond_wait_until(struct ccm_cond *c, struct ccm_mutex *m, s64 deadline_ns);
void ccm_cond_broadcast(struct ccm_cond *c);

int ccm_thread_start(struct ccm_thread *t, void (*fn)(void *), void *arg);
void ccm_thread_join(struct ccm_thread *t);
unsigned int ccm_host_cpus(void);

/*
 * Loads and read-modify-writes are sequentially consistent: a waiter that
 * records what it waits for (ccm_store32_sc()) and then reads it, and a
 * waker that changes it and then reads the record, need no fence between
 * (see ccm_cc.c).  On x86 and arm64 that costs nothing over acquire and
 * release; plain stores stay release.
 */
#define ccm_load32(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define ccm_store32(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ccm_store32_sc(p, v) __atomic_store_n((p), (v), __ATOMIC_SEQ_CST)
#define ccm_add32(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)
#define ccm_cas32(p, expp, v) \
	__atomic_compare_exchange_n((p), (expp), (v), false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define ccm_load64(p) __atomic_load_n((p), __ATOMIC_SEQ_CST)
#define ccm_store64(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define ccm_add64(p, v) __atomic_add_fetch((p), (v), __ATOMIC_SEQ_CST)

#endif
