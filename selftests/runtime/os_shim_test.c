// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace half of the model's OS shim (model/ccm_os_user.c): its
 * futex-based lock keeps threads out of each other under contention, its
 * condition variable wakes every waiter on a broadcast and times out when
 * nobody does, and the streaming copy moves exactly the bytes asked for at
 * any alignment and length.
 */
#include "ccore_test.h"
#include "ccm_os.h"

#include <pthread.h>
#include <unistd.h>

#define THREADS 4
#define ROUNDS 200000

struct shared {
	struct ccm_mutex lock;
	struct ccm_cond cond;
	u64 counter;		/* under @lock, deliberately not atomic */
	bool go;
	u32 woken;
};

static void *hammer(void *arg)
{
	struct shared *s = arg;

	for (u32 i = 0; i < ROUNDS; i++) {
		ccm_mutex_lock(&s->lock);
		s->counter++;
		/* now and then hold it long enough that the others sleep */
		if (i % 4096 == 0)
			for (volatile int k = 0; k < 20000; k++)
				;
		ccm_mutex_unlock(&s->lock);
	}
	return NULL;
}

/*
 * Is @m held?  The futex lock keeps it in its word; the pthread one (under
 * ThreadSanitizer) answers a try, which fails on a held lock even from its
 * holder.
 */
static bool lock_held(struct ccm_mutex *m)
{
#ifdef CCM_OS_PTHREAD
	if (pthread_mutex_trylock(&m->m))
		return true;
	pthread_mutex_unlock(&m->m);
	return false;
#else
	return __atomic_load_n(&m->state, __ATOMIC_RELAXED) != 0;
#endif
}

TEST(mutex_excludes_under_contention)
{
	struct shared s = { 0 };
	pthread_t t[THREADS];

	ccm_mutex_init(&s.lock);
	for (int i = 0; i < THREADS; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, hammer, &s), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	ASSERT_EQ(s.counter, (u64)THREADS * ROUNDS);
	ccm_mutex_destroy(&s.lock);
}

static void *wait_for_go(void *arg)
{
	struct shared *s = arg;

	ccm_mutex_lock(&s->lock);
	while (!s->go)
		ccm_cond_wait(&s->cond, &s->lock);
	s->woken++;
	ccm_mutex_unlock(&s->lock);
	return NULL;
}

TEST(cond_broadcast_wakes_every_waiter)
{
	struct shared s = { 0 };
	pthread_t t[THREADS];

	ccm_mutex_init(&s.lock);
	ccm_cond_init(&s.cond);
	for (int i = 0; i < THREADS; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, wait_for_go, &s), 0);
	/* let them block first (a late one finds go set and does not wait) */
	usleep(20000);
	ccm_mutex_lock(&s.lock);
	s.go = true;
	ccm_cond_broadcast(&s.cond);
	ccm_mutex_unlock(&s.lock);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	ASSERT_EQ(s.woken, THREADS);
	ccm_cond_destroy(&s.cond);
	ccm_mutex_destroy(&s.lock);
}

TEST(cond_wait_until_times_out)
{
	struct shared s = { 0 };
	s64 start, deadline;
	bool woken;

	ccm_mutex_init(&s.lock);
	ccm_cond_init(&s.cond);
	ccm_mutex_lock(&s.lock);
	start = ccm_now_ns();
	deadline = start + 30 * 1000000;
	do
		woken = ccm_cond_wait_until(&s.cond, &s.lock, deadline);
	while (woken);	/* spurious wakeups may happen; a timeout must come */
	ASSERT_TRUE(ccm_now_ns() >= deadline);
	/* and it holds the lock again */
	ASSERT_TRUE(lock_held(&s.lock));
	ccm_mutex_unlock(&s.lock);
	/* a deadline already past returns at once */
	ccm_mutex_lock(&s.lock);
	ASSERT_FALSE(ccm_cond_wait_until(&s.cond, &s.lock, start));
	ccm_mutex_unlock(&s.lock);
	ASSERT_FALSE(lock_held(&s.lock));
	ccm_cond_destroy(&s.cond);
	ccm_mutex_destroy(&s.lock);
}

TEST(copy_stream_moves_exactly_the_bytes)
{
	static const size_t lens[] = { 0, 1, 15, 63, 64, 65, 4095, 100000, (4u << 20) + 13 };
	size_t cap = (4u << 20) + 64;
	u8 *src = malloc(cap), *dst = malloc(cap + 64);

	ASSERT_TRUE(src && dst);
	for (size_t i = 0; i < cap; i++)
		src[i] = (u8)(i * 131 + 7);
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		for (size_t so = 0; so < 3; so++) {
			for (size_t d_off = 0; d_off < 17; d_off += 8) {
				size_t len = lens[l];

				memset(dst, 0xee, cap + 64);
				ccm_copy_stream(dst + d_off + 1, src + so, len);
				ASSERT_EQ(memcmp(dst + d_off + 1, src + so, len), 0);
				/* nothing before or after it written */
				for (size_t i = 0; i < d_off + 1; i++)
					ASSERT_EQ(dst[i], 0xee);
				for (size_t i = d_off + 1 + len; i < d_off + 1 + len + 32; i++)
					ASSERT_EQ(dst[i], 0xee);
			}
		}
	}
	free(src);
	free(dst);
}
