/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Arenas (ccm_arena_user.c): memory every process of a host maps at the
 * same address, from which a shared fabric is allocated.  Userspace only.
 */
#ifndef CCM_ARENA_H
#define CCM_ARENA_H

#include "ccm_os.h"

#define CCM_HEAP_EXTENTS 4096

struct ccm_extent {
	u64 off, len;
};

/* Free extents, sorted by offset (from the arena's start). */
struct ccm_heap {
	u32 n;
	struct ccm_extent free[CCM_HEAP_EXTENTS];
};

/**
 * struct ccm_arena - the header at the start of the shared mapping
 * @magic: set last by ccm_arena_init(): the arena is ready
 * @size: bytes mapped
 * @base: the address every process maps it at
 * @lock: both heaps
 * @root: what the host keeps there (the sim's shared state)
 */
struct ccm_arena {
	u64 magic;
	u64 size;
	u64 base;
	struct ccm_mutex lock;
	void *root;
	struct ccm_heap small, big;
};

/*
 * Lay out a fresh arena over @size zeroed bytes mapped at @base, the first
 * @small_bytes (after the header) for small objects, the rest for big ones.
 */
int ccm_arena_init(void *base, u64 size, u64 small_bytes, struct ccm_arena **out);
/* An arena another process laid out at @base: -EPROTO if it is not one. */
int ccm_arena_join(void *base, u64 size, struct ccm_arena **out);
/* Before unmapping it. */
void ccm_arena_forget(struct ccm_arena *a);

#endif
