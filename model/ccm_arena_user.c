// SPDX-License-Identifier: GPL-2.0
/*
 * Arenas: memory that several processes of one host map at the same
 * address, so that a shared fabric's pointers (devices, rings, run queues,
 * device memory) mean the same in each.  The host (runtime/sim/sim_shared.c)
 * creates the mapping (a memfd) and hands it to ccm_arena_init() or
 * ccm_arena_join(); the model allocates from it while ccm_arena_current is
 * set.
 *
 * Two heaps: small objects (16-byte header, 64-byte granules) and big,
 * page-aligned, lazily committed ones (device memory, instruction memory),
 * whose pages go back to the system when freed (MADV_REMOVE).  Each keeps
 * its free extents sorted in an array in the header: first fit, merged on
 * free.  Userspace only: the kernel module has no shared fabrics.
 */
#ifndef __KERNEL__
#include "ccm_arena.h"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CCM_ARENA_MAGIC 0x63636d6172656e61ull	/* "ccmarena" */
#define SMALL_GRAN 64
#define BIG_GRAN 4096
#define HEADER_BYTES 16

/* The arenas this process mapped (a process joins few fabrics). */
#define CCM_MAX_ARENAS 4
static struct ccm_arena *mapped[CCM_MAX_ARENAS];

struct ccm_arena *ccm_arena_of(const void *p)
{
	const u8 *b = p;
	u32 i;

	for (i = 0; i < CCM_MAX_ARENAS; i++) {
		struct ccm_arena *a = __atomic_load_n(&mapped[i], __ATOMIC_ACQUIRE);

		if (a && b >= (const u8 *)a && b < (const u8 *)a + a->size)
			return a;
	}
	return NULL;
}

static int remember(struct ccm_arena *a)
{
	u32 i;

	for (i = 0; i < CCM_MAX_ARENAS; i++) {
		struct ccm_arena *none = NULL;

		if (__atomic_compare_exchange_n(&mapped[i], &none, a, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return 0;
	}
	return -EMFILE;
}

void ccm_arena_forget(struct ccm_arena *a)
{
	u32 i;

	for (i = 0; i < CCM_MAX_ARENAS; i++)
		if (__atomic_load_n(&mapped[i], __ATOMIC_ACQUIRE) == a)
			__atomic_store_n(&mapped[i], NULL, __ATOMIC_RELEASE);
}

static void heap_init(struct ccm_heap *h, u64 start, u64 end)
{
	h->n = 1;
	h->free[0].off = start;
	h->free[0].len = end - start;
}

/* First fit: the offset of @len bytes, or 0 (offset 0 is the header). */
static u64 heap_take(struct ccm_heap *h, u64 len)
{
	u64 off;
	u32 i;

	for (i = 0; i < h->n; i++) {
		if (h->free[i].len < len)
			continue;
		off = h->free[i].off;
		h->free[i].off += len;
		h->free[i].len -= len;
		if (!h->free[i].len) {
			memmove(&h->free[i], &h->free[i + 1], (h->n - i - 1) * sizeof(h->free[0]));
			h->n--;
		}
		return off;
	}
	return 0;
}

/* Give @len bytes at @off back, merged with their neighbours. */
static void heap_give(struct ccm_heap *h, u64 off, u64 len)
{
	u32 i = 0;

	while (i < h->n && h->free[i].off < off)
		i++;
	if (i > 0 && h->free[i - 1].off + h->free[i - 1].len == off) {
		h->free[i - 1].len += len;
		if (i < h->n && off + len == h->free[i].off) {
			h->free[i - 1].len += h->free[i].len;
			memmove(&h->free[i], &h->free[i + 1], (h->n - i - 1) * sizeof(h->free[0]));
			h->n--;
		}
		return;
	}
	if (i < h->n && off + len == h->free[i].off) {
		h->free[i].off = off;
		h->free[i].len += len;
		return;
	}
	/* a full table leaks the extent (until the arena ends) rather than fail */
	if (h->n == CCM_HEAP_EXTENTS)
		return;
	memmove(&h->free[i + 1], &h->free[i], (h->n - i) * sizeof(h->free[0]));
	h->free[i].off = off;
	h->free[i].len = len;
	h->n++;
}

static u64 round_up(u64 v, u64 gran)
{
	return (v + gran - 1) / gran * gran;
}

void *ccm_arena_alloc(struct ccm_arena *a, size_t size)
{
	u64 len = round_up((u64)size + HEADER_BYTES, SMALL_GRAN), off;
	u8 *p;

	ccm_mutex_lock(&a->lock);
	off = heap_take(&a->small, len);
	ccm_mutex_unlock(&a->lock);
	if (!off)
		return NULL;
	p = (u8 *)a + off;
	memset(p, 0, len);
	*(u64 *)p = len;
	return p + HEADER_BYTES;
}

void ccm_arena_free(struct ccm_arena *a, void *p)
{
	u8 *h;

	if (!p)
		return;
	h = (u8 *)p - HEADER_BYTES;
	ccm_mutex_lock(&a->lock);
	heap_give(&a->small, (u64)(h - (u8 *)a), *(u64 *)h);
	ccm_mutex_unlock(&a->lock);
}

void *ccm_arena_big_alloc(struct ccm_arena *a, size_t size)
{
	u64 off;

	ccm_mutex_lock(&a->lock);
	off = heap_take(&a->big, round_up(size ? size : 1, BIG_GRAN));
	ccm_mutex_unlock(&a->lock);
	return off ? (u8 *)a + off : NULL;	/* untouched or given back: zero */
}

void ccm_arena_big_free(struct ccm_arena *a, void *p, size_t size)
{
	u64 len = round_up(size ? size : 1, BIG_GRAN);

	if (!p)
		return;
	/* the pages go back to the system and read as zero next time */
	madvise(p, len, MADV_REMOVE);
	ccm_mutex_lock(&a->lock);
	heap_give(&a->big, (u64)((u8 *)p - (u8 *)a), len);
	ccm_mutex_unlock(&a->lock);
}

int ccm_arena_init(void *base, u64 size, u64 small_bytes, struct ccm_arena **out)
{
	struct ccm_arena *a = base;
	u64 small_end = round_up(sizeof(*a), BIG_GRAN) + round_up(small_bytes, BIG_GRAN);
	struct ccm_arena *was = ccm_arena_current;

	if (small_end >= size)
		return -EINVAL;
	ccm_arena_current = a;	/* its lock is shared */
	ccm_mutex_init(&a->lock);
	ccm_arena_current = was;
	a->size = size;
	a->base = (u64)(uintptr_t)base;
	heap_init(&a->small, round_up(sizeof(*a), BIG_GRAN), small_end);
	heap_init(&a->big, small_end, size);
	__atomic_store_n(&a->magic, CCM_ARENA_MAGIC, __ATOMIC_RELEASE);
	*out = a;
	return remember(a);
}

int ccm_arena_join(void *base, u64 size, struct ccm_arena **out)
{
	struct ccm_arena *a = base;

	if (__atomic_load_n(&a->magic, __ATOMIC_ACQUIRE) != CCM_ARENA_MAGIC || a->size != size ||
	    a->base != (u64)(uintptr_t)base)
		return -EPROTO;
	*out = a;
	return remember(a);
}

bool ccm_lock_holder_dead(u32 pid)
{
	struct pollfd p = { .events = POLLIN };
	bool dead;

	/* a pidfd is readable once the process exited, even unreaped */
	p.fd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (p.fd < 0)
		return errno == ESRCH;
	dead = poll(&p, 1, 0) == 1;
	close(p.fd);
	return dead;
}
#endif
