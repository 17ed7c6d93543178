// SPDX-License-Identifier: GPL-2.0
/* Userspace implementation of the model's OS shim. */
#ifndef __KERNEL__
#include "ccm_os.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

CCM_THREAD_LOCAL struct ccm_arena *ccm_arena_current;

void *ccm_zalloc(size_t size)
{
	if (ccm_arena_current)
		return ccm_arena_alloc(ccm_arena_current, size);
	return calloc(1, size ? size : 1);
}

void *ccm_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	if (ccm_arena_current)
		return ccm_arena_alloc(ccm_arena_current, n * size);
	return calloc(n ? n : 1, size ? size : 1);
}

void ccm_free(void *p)
{
	struct ccm_arena *a = ccm_arena_of(p);

	if (a)
		ccm_arena_free(a, p);
	else
		free(p);
}

void *ccm_realloc(void *p, size_t old, size_t size)
{
	struct ccm_arena *a = p ? ccm_arena_of(p) : ccm_arena_current;
	void *q;

	if (!a) {
		q = realloc(p, size ? size : 1);
		if (q && size > old)
			memset((char *)q + old, 0, size - old);
		return q;
	}
	q = ccm_arena_alloc(a, size);
	if (q && p) {
		memcpy(q, p, old < size ? old : size);
		ccm_arena_free(a, p);
	}
	return q;
}

void *ccm_big_zalloc(size_t size)
{
	void *p;

	if (ccm_arena_current)
		return ccm_arena_big_alloc(ccm_arena_current, size);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void ccm_big_free(void *p, size_t size)
{
	struct ccm_arena *a = ccm_arena_of(p);

	if (a)
		ccm_arena_big_free(a, p, size);
	else if (p)
		munmap(p, size);
}

/* The deadline @ns (CLOCK_MONOTONIC) as a timespec. */
static struct timespec deadline_ts(s64 ns)
{
	if (ns < 0)
		ns = 0;
	return (struct timespec){ .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
}

#ifdef CCM_OS_PTHREAD
void ccm_mutex_init(struct ccm_mutex *m)
{
	pthread_mutex_init(&m->m, NULL);
}

void ccm_mutex_destroy(struct ccm_mutex *m)
{
	pthread_mutex_destroy(&m->m);
}

void ccm_cond_init(struct ccm_cond *c)
{
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->c, NULL);
	c->seq = 0;
}

void ccm_cond_destroy(struct ccm_cond *c)
{
	pthread_cond_destroy(&c->c);
	pthread_mutex_destroy(&c->lock);
}

/* Note the sequence under @m, then sleep until it moves (or @deadline). */
static bool cond_wait(struct ccm_cond *c, struct ccm_mutex *m, const struct timespec *deadline)
{
	bool woken = true;
	u32 seq;

	pthread_mutex_lock(&c->lock);
	seq = c->seq;
	pthread_mutex_unlock(&m->m);
	while (c->seq == seq && woken) {
		if (!deadline)
			pthread_cond_wait(&c->c, &c->lock);
		else if (pthread_cond_clockwait(&c->c, &c->lock, CLOCK_MONOTONIC, deadline) ==
			 ETIMEDOUT)
			woken = false;
	}
	woken = c->seq != seq;
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_lock(&m->m);
	return woken;
}

void ccm_cond_broadcast(struct ccm_cond *c)
{
	pthread_mutex_lock(&c->lock);
	c->seq++;
	pthread_cond_broadcast(&c->c);
	pthread_mutex_unlock(&c->lock);
}
#else
u32 ccm_lock_tag;

/* FUTEX_WAIT until *@word changes from @val (or @deadline, absolute
 * CLOCK_MONOTONIC, unless NULL); false once the deadline passed.  @shared:
 * the word is in memory other processes map. */
static bool futex_wait(u32 *word, u32 val, const struct timespec *deadline, bool shared)
{
	long rc = syscall(SYS_futex, word, shared ? FUTEX_WAIT_BITSET : FUTEX_WAIT_BITSET_PRIVATE,
			  val, deadline, NULL, FUTEX_BITSET_MATCH_ANY);

	return !(rc < 0 && errno == ETIMEDOUT);
}

static void futex_wake(u32 *word, int n, bool shared)
{
	syscall(SYS_futex, word, shared ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void ccm_mutex_init(struct ccm_mutex *m)
{
	m->state = 0;
	m->shared = !!ccm_arena_current;
}

void ccm_mutex_destroy(struct ccm_mutex *m)
{
	(void)m;
}

/* How often a waiter on a shared lock checks that its holder still lives. */
#define CCM_HOLDER_CHECK_NS 20000000

/*
 * A shared lock whose holder's process died (state @seen): take it over,
 * as a robust mutex's next owner does (EOWNERDEAD); the fabric's recovery
 * then stops that process's cores (ccm_fabric_reap()).
 */
static bool take_from_dead(struct ccm_mutex *m, u32 seen)
{
	u32 holder = seen >> CCM_LOCK_TAG_SHIFT;

	if (!m->shared || !holder || !ccm_lock_holder_dead(holder))
		return false;
	return __atomic_compare_exchange_n(&m->state, &seen,
					   ccm_lock_tag | CCM_LOCK_HELD | CCM_LOCK_WAITERS, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Take @m marked awaited: others may sleep on it, so its unlock wakes. */
static void lock_contended(struct ccm_mutex *m)
{
	u32 seen = __atomic_load_n(&m->state, __ATOMIC_RELAXED);
	struct timespec ts;

	for (;;) {
		if (!seen) {
			if (__atomic_compare_exchange_n(&m->state, &seen,
							ccm_lock_tag | CCM_LOCK_HELD |
							CCM_LOCK_WAITERS, false,
							__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return;
			continue;
		}
		if (!(seen & CCM_LOCK_WAITERS) &&
		    !__atomic_compare_exchange_n(&m->state, &seen, seen | CCM_LOCK_WAITERS, false,
						 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			continue;
		seen |= CCM_LOCK_WAITERS;
		if (!m->shared) {
			futex_wait(&m->state, seen, NULL, false);
		} else {
			ts = (struct timespec){ 0 };
			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_nsec += CCM_HOLDER_CHECK_NS;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			if (!futex_wait(&m->state, seen, &ts, true) && take_from_dead(m, seen))
				return;
		}
		seen = __atomic_load_n(&m->state, __ATOMIC_RELAXED);
	}
}

/* Held: spin a little, then mark it awaited and sleep until it is free. */
void ccm_mutex_lock_slow(struct ccm_mutex *m)
{
	int spin;

	for (spin = 0; spin < 100; spin++) {
		u32 free_state = 0;

		if (__atomic_compare_exchange_n(&m->state, &free_state,
						ccm_lock_tag | CCM_LOCK_HELD, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
		__builtin_ia32_pause();
	}
	lock_contended(m);
}

/* The unlock found waiters: wake one (the lock is already free). */
void ccm_mutex_wake(struct ccm_mutex *m)
{
	futex_wake(&m->state, 1, m->shared);
}

void ccm_cond_init(struct ccm_cond *c)
{
	c->seq = 0;
	c->shared = !!ccm_arena_current;
}

void ccm_cond_destroy(struct ccm_cond *c)
{
	(void)c;
}

static bool cond_wait(struct ccm_cond *c, struct ccm_mutex *m, const struct timespec *deadline)
{
	u32 seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);
	bool woken;

	ccm_mutex_unlock(m);
	woken = futex_wait(&c->seq, seq, deadline, c->shared);
	/* others woken with us may sleep on the mutex too */
	lock_contended(m);
	return woken;
}

void ccm_cond_broadcast(struct ccm_cond *c)
{
	__atomic_add_fetch(&c->seq, 1, __ATOMIC_RELEASE);
	futex_wake(&c->seq, 0x7fffffff, c->shared);
}

#endif

/* Both versions: cond_wait() notes the sequence, then sleeps until it moves. */
void ccm_cond_wait(struct ccm_cond *c, struct ccm_mutex *m)
{
	cond_wait(c, m, NULL);
}

bool ccm_cond_wait_until(struct ccm_cond *c, struct ccm_mutex *m, s64 deadline_ns)
{
	struct timespec ts = deadline_ts(deadline_ns);

	return cond_wait(c, m, &ts) || ccm_now_ns() < deadline_ns;
}

struct thread_start {
	void (*fn)(void *);
	void *arg;
};

static void *thread_trampoline(void *p)
{
	struct thread_start s = *(struct thread_start *)p;

	free(p);
	s.fn(s.arg);
	return NULL;
}

int ccm_thread_start(struct ccm_thread *t, void (*fn)(void *), void *arg)
{
	struct thread_start *s = malloc(sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->fn = fn;
	s->arg = arg;
	rc = pthread_create(&t->t, NULL, thread_trampoline, s);
	if (rc) {
		free(s);
		return -rc;
	}
	return 0;
}

void ccm_thread_join(struct ccm_thread *t)
{
	pthread_join(t->t, NULL);
}

unsigned int ccm_host_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

u64 ccm_cycles_per_us(void)
{
	static u64 rate;
	struct timespec pause = { 0, 2000000 };
	s64 t0, t1;
	u64 c0, c1;

	if (rate)
		return rate;
	t0 = ccm_now_ns();
	c0 = ccm_cycles();
	nanosleep(&pause, NULL);
	t1 = ccm_now_ns();
	c1 = ccm_cycles();
	rate = t1 > t0 ? (c1 - c0) * 1000 / (u64)(t1 - t0) : 1000;
	return rate ? rate : 1;
}

s64 ccm_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (s64)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
void ccm_copy_stream(void *dst, const void *src, size_t len)
{
#ifdef __SSE2__
	u8 *d = dst;
	const u8 *s = src;
	size_t head = (16 - ((uintptr_t)d & 15)) & 15;

	if (len < head + 64) {
		memcpy(dst, src, len);
		return;
	}
	memcpy(d, s, head);
	d += head;
	s += head;
	len -= head;
	for (; len >= 64; d += 64, s += 64, len -= 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_stream_si128((__m128i *)d, a);
		_mm_stream_si128((__m128i *)(d + 16), b);
		_mm_stream_si128((__m128i *)(d + 32), c);
		_mm_stream_si128((__m128i *)(d + 48), e);
	}
	memcpy(d, s, len);
	/* streaming stores are weakly ordered: done before the signal */
	_mm_sfence();
#else
	memcpy(dst, src, len);
#endif
}
#endif
