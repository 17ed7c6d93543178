/* SPDX-License-Identifier: MIT */
/*
 * The runtime's shared state behind every communicator of a process:
 * the opened devices, the device allocations of each device (so a user
 * pointer can be resolved to its buffer), the cache of buffers imported
 * into other devices' contexts, and which ring indices of each core plans
 * hold.
 */
#ifndef CCORE_RT_H
#define CCORE_RT_H

#include "ccore.h"
#include "ccore_internal.h"
#include "tune/net_tier.h"

#include <stdbool.h>

#define RT_RINGS 16

struct clique;

struct rt_alloc {
	uint64_t va, size;
	uint32_t handle;
	void *host;
};

struct rt_import {
	uint32_t from_dev, handle;	/* the exporter's buffer */
	uint32_t to_dev;
	uint32_t to_handle;		/* the importer's handle */
	uint64_t va;			/* where the importer sees it */
};

struct rt_dev {
	struct ccore_dev *dev;
	struct rt_alloc *allocs;
	uint32_t nallocs, cap;
	uint16_t *rings_used;		/* per core: bitmap of ring indices */
};

struct rt {
	struct ccore_system *sys;
	uint32_t refs;
	uint32_t ndev;
	uint32_t cores, cc_cores, engines, sems;
	uint32_t devices_per_node;
	uint64_t max_program;
	uint64_t hbm_size;		/* device memory: no buffer is larger */
	bool timed;			/* the devices keep virtual time (GET_PARAM) */
	bool across_hosts;		/* holds one host's node; the network the others (comm_net.c) */
	struct tune_net net;		/* ... whose figures every rank of the job agreed on */
	bool virt;			/* ... and their buffers have no memory */
	struct rt_dev *devs;
	struct rt_import *imports;
	uint32_t nimports, imports_cap;
	/* imports by (from_dev, handle, to_dev): index + 1, 0 empty; rebuilt
	 * when stale (after removals) */
	uint32_t *import_hash;
	uint32_t hash_cap;
	bool hash_stale;
	/* every communicator's clique on these devices: a plan short of ring
	 * indices or CC-core memory may evict another's (plan/cache.c) */
	struct clique *cliques;
	/* opened for communicators of one process per rank: found again by
	 * the next rank of this process with the same topology (rt_open_shared) */
	bool shared;
	struct ccore_topology topo;
	struct rt *shared_next;
	char share_key[96];		/* the host's shared sim's job key, "" if private */
};

/* The host's shared sim a job's processes open together (Documentation/processes.rst). */
struct rt_share {
	const char *key;			/* the job's on this host */
	const struct ccore_core_ref *cores;	/* this process's ranks' cores */
	uint32_t ncores;
	bool one_node;				/* the fabric holds node @here only */
	uint32_t here;
};

/* Open the backend shaped for @topo (adds to $CCORE_SIM for the sim). */
int rt_open(const struct ccore_topology *topo, struct rt **out);
/* ... on the host's shared sim of @share when it is not NULL. */
int rt_open_on(const struct ccore_topology *topo, const struct rt_share *share, struct rt **out);
/*
 * The devices every per-rank communicator of this process with topology
 * @topo uses (ccore_comm_init_rank): opened by the first, shared by the
 * rest, as the ranks of one host share them; with @share, those of the
 * host's shared sim for its job, which other processes of the host open
 * too.  With the lock held.
 */
int rt_open_shared(const struct ccore_topology *topo, const struct rt_share *share,
		   struct rt **out);
void rt_get(struct rt *rt);
void rt_put(struct rt *rt);

int rt_alloc(struct rt *rt, uint32_t dev, uint64_t bytes, uint64_t *va);
/* Timed sim with virtual=1: buffers have no host memory (rt_alloc.host NULL). */
bool rt_virtual(const struct rt *rt);
/* The devices keep virtual time (the sim's timed model). */
bool rt_timed(const struct rt *rt);
/* Register @host (page-aligned) as a buffer of @dev. */
int rt_register(struct rt *rt, uint32_t dev, void *host, uint64_t bytes, uint64_t *va);
int rt_free(struct rt *rt, uint32_t dev, uint64_t va);
/* The allocation holding [va, va + len) on @dev, or NULL. */
const struct rt_alloc *rt_find(const struct rt *rt, uint32_t dev, uint64_t va, uint64_t len);
/* Address of @dev's [va..] as @to's descriptors name it (importing once). */
int rt_peer_va(struct rt *rt, uint32_t dev, uint64_t va, uint32_t to, uint64_t *out);

/* A ring index free on every engine of (dev, core); -ENOSPC if none. */
int rt_ring_get(struct rt *rt, uint32_t dev, uint32_t core, uint32_t *ring);
void rt_ring_put(struct rt *rt, uint32_t dev, uint32_t core, uint32_t ring);

#endif
