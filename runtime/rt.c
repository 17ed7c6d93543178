// SPDX-License-Identifier: MIT
/* The runtime's shared state (see rt.h). */
#include "rt.h"
#include "util/grow.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The sim's configuration for @t, on the heap (NULL: out of memory): the
 * user's keys come last, so they win (rt_open checks the fit), but for the
 * node a host's fabric holds across hosts (@share).
 */
static char *sim_config(const struct ccore_topology *t, const struct rt_share *share)
{
	const char *user = getenv("CCORE_SIM");
	size_t len = 96 + (user ? strlen(user) : 0);
	char *buf = malloc(len), here[24] = "";

	if (share && share->one_node)
		snprintf(here, sizeof(here), ",here=%u", share->here);
	if (buf)
		snprintf(buf, len, "nodes=%u,devices=%u,cores=%u%s%s%s", t->nodes,
			 t->devices_per_node, t->ranks_per_device, user && *user ? "," : "",
			 user ? user : "", here);
	return buf;
}

static int query(struct rt *rt)
{
	struct ccore_dev *d = ccore_system_device(rt->sys, 0);
	uint64_t v[7];
	int rc;

	rc = ccore_dev_param(d, DRM_CCORE_PARAM_DEVICES_PER_NODE, &v[5]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_NUM_CORES, &v[0]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_CC_CORES_PER_CORE, &v[1]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_ENGINES_PER_CORE, &v[2]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_SEMS_PER_CORE, &v[3]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_MAX_PROGRAM_SIZE, &v[4]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_HBM_SIZE, &v[6]);
	rt->cores = (uint32_t)v[0];
	rt->cc_cores = (uint32_t)v[1];
	rt->engines = (uint32_t)v[2];
	rt->sems = (uint32_t)v[3];
	rt->max_program = v[4];
	rt->devices_per_node = (uint32_t)v[5];
	rt->hbm_size = v[6];
	/* 0 where a driver does not report them: not timed */
	rt->timed = !rc && !ccore_dev_param(d, DRM_CCORE_PARAM_TIMED, &v[0]) && v[0];
	rt->virt = rt->timed && !ccore_dev_param(d, DRM_CCORE_PARAM_VIRTUAL_MEMORY, &v[0]) && v[0];
	return rc;
}

int rt_open(const struct ccore_topology *t, struct rt **out)
{
	return rt_open_on(t, NULL, out);
}

/* The system for @t: private, or the host's shared sim of @share. */
static int open_system(const struct ccore_topology *t, const struct rt_share *share,
		       struct ccore_system **sys)
{
	char *cfg = sim_config(t, share);
	int rc;

	if (!cfg)
		return ccore_error(-ENOMEM, "out of memory");
	if (share) {
		struct ccore_shared_opts opts = { .sim_config = cfg, .cores = share->cores,
						  .ncores = share->ncores };

		rc = ccore_system_open_shared(share->key, &opts, sys);
	} else {
		rc = ccore_system_open(getenv("CCORE_DEVICE"), cfg, sys);
	}
	free(cfg);
	return rc;
}

int rt_open_on(const struct ccore_topology *t, const struct rt_share *share, struct rt **out)
{
	struct rt *rt;
	uint64_t need;		/* the product of two caller's numbers: no wrap */
	int rc;

	if (!t || !t->nodes || !t->devices_per_node || !t->ranks_per_device)
		return ccore_error(-EINVAL, "topology: nodes, devices_per_node and ranks_per_device must all be at least 1");
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		return ccore_error(-ENOMEM, "out of memory");
	rc = open_system(t, share, &rt->sys);
	if (!rc)
		rc = query(rt);
	need = (uint64_t)t->nodes * t->devices_per_node;
	if (!rc && (ccore_system_num_devices(rt->sys) < need || rt->cores < t->ranks_per_device))
		rc = ccore_error(-EINVAL,
				 "topology needs %llu devices with %u cores each; the %s backend has %u with %u (%s)",
				 (unsigned long long)need, t->ranks_per_device, ccore_system_backend(rt->sys),
				 ccore_system_num_devices(rt->sys), rt->cores,
				 !strcmp(ccore_system_backend(rt->sys), "sim") ? "check CCORE_SIM" :
				 "CCORE_ACCEL_FABRIC picks another kernel fabric; one gets its shape when created: echo \"ID NUM_DEVICES cores=N\" > /sys/bus/ccore_sim/new_device");
	if (!rc) {
		rt->ndev = ccore_system_num_devices(rt->sys);
		rt->devs = calloc(rt->ndev, sizeof(*rt->devs));
		rc = rt->devs ? 0 : ccore_error(-ENOMEM, "out of memory");
	}
	for (uint32_t d = 0; !rc && d < rt->ndev; d++) {
		rt->devs[d].dev = ccore_system_device(rt->sys, d);
		rt->devs[d].rings_used = calloc(rt->cores, sizeof(uint16_t));
		if (!rt->devs[d].rings_used)
			rc = ccore_error(-ENOMEM, "out of memory");
	}
	if (rc) {
		rt->refs = 1;
		rt_put(rt);
		return rc;
	}
	rt->refs = 1;
	*out = rt;
	return 0;
}

/* Devices opened for per-rank communicators, one system per topology. */
static struct rt *shared_rts;

int rt_open_shared(const struct ccore_topology *topo, const struct rt_share *share,
		   struct rt **out)
{
	struct rt *rt;
	int rc;

	for (rt = shared_rts; rt; rt = rt->shared_next)
		if (rt->topo.nodes == topo->nodes && rt->topo.devices_per_node == topo->devices_per_node &&
		    rt->topo.ranks_per_device == topo->ranks_per_device &&
		    !strcmp(rt->share_key, share ? share->key : "")) {
			rt_get(rt);
			*out = rt;
			return 0;
		}
	rc = rt_open_on(topo, share, &rt);
	if (rc)
		return rc;
	rt->shared = true;
	rt->topo = *topo;
	snprintf(rt->share_key, sizeof(rt->share_key), "%s", share ? share->key : "");
	rt->shared_next = shared_rts;
	shared_rts = rt;
	*out = rt;
	return 0;
}

void rt_get(struct rt *rt)
{
	rt->refs++;
}

void rt_put(struct rt *rt)
{
	if (!rt || --rt->refs)
		return;
	for (struct rt **p = &shared_rts; rt->shared && *p; p = &(*p)->shared_next)
		if (*p == rt) {
			*p = rt->shared_next;
			break;
		}
	for (uint32_t d = 0; rt->devs && d < rt->ndev; d++) {
		free(rt->devs[d].allocs);
		free(rt->devs[d].rings_used);
	}
	free(rt->devs);
	free(rt->imports);
	free(rt->import_hash);
	ccore_system_close(rt->sys);
	free(rt);
}

bool rt_virtual(const struct rt *rt)
{
	return rt->virt;
}

bool rt_timed(const struct rt *rt)
{
	return rt->timed;
}

/* Room for one more allocation record, made before the buffer exists so
 * that recording it cannot fail afterwards. */
static int reserve_alloc(struct rt_dev *d)
{
	if (rt_grow((void **)&d->allocs, &d->cap, d->nallocs, sizeof(*d->allocs), 16))
		return ccore_error(-ENOMEM, "out of memory");
	return 0;
}

int rt_register(struct rt *rt, uint32_t dev, void *host, uint64_t bytes, uint64_t *va)
{
	struct rt_dev *d = &rt->devs[dev];
	struct drm_ccore_bo_create c = {
		.size = bytes, .flags = DRM_CCORE_BO_F_USERPTR, .userptr = (uintptr_t)host,
	};
	struct rt_alloc a = { .size = bytes, .host = host };
	int rc = reserve_alloc(d) ?: ccore_dev_ioctl(d->dev, DRM_IOCTL_CCORE_BO_CREATE, &c);

	if (rc)
		return rc;
	a.handle = c.handle;
	a.va = c.dev_addr;
	d->allocs[d->nallocs++] = a;
	*va = a.va;
	return 0;
}

int rt_alloc(struct rt *rt, uint32_t dev, uint64_t bytes, uint64_t *va)
{
	struct rt_dev *d = &rt->devs[dev];
	struct rt_alloc a = { .size = bytes };
	int rc = reserve_alloc(d) ?: ccore_dev_bo_create(d->dev, bytes, &a.handle, &a.va);

	if (rc)
		return rc;
	a.host = ccore_dev_bo_map(d->dev, a.handle);
	/* virtual buffers (timed sim) have no host view */
	if (!a.host && !rt_virtual(rt)) {
		ccore_dev_bo_close(d->dev, a.handle);
		return -ENOMEM;
	}
	d->allocs[d->nallocs++] = a;
	*va = a.va;
	return 0;
}

static int32_t find_index(const struct rt_dev *d, uint64_t va, uint64_t len)
{
	for (uint32_t i = 0; i < d->nallocs; i++)
		if (va >= d->allocs[i].va && va - d->allocs[i].va <= d->allocs[i].size &&
		    len <= d->allocs[i].size - (va - d->allocs[i].va))
			return (int32_t)i;
	return -1;
}

const struct rt_alloc *rt_find(const struct rt *rt, uint32_t dev, uint64_t va, uint64_t len)
{
	int32_t i = find_index(&rt->devs[dev], va, len);

	return i < 0 ? NULL : &rt->devs[dev].allocs[i];
}

int rt_free(struct rt *rt, uint32_t dev, uint64_t va)
{
	struct rt_dev *d = &rt->devs[dev];
	int32_t i = find_index(d, va, 0);

	if (i < 0 || d->allocs[i].va != va)
		return ccore_error(-EINVAL, "ccore_mem_free: 0x%llx is not an allocation of device %u",
				   (unsigned long long)va, dev);
	/* imports of it elsewhere go too: the handle may be reused */
	for (uint32_t k = 0; k < rt->nimports;) {
		struct rt_import *imp = &rt->imports[k];

		if (imp->from_dev == dev && imp->handle == d->allocs[i].handle) {
			ccore_dev_bo_close(rt->devs[imp->to_dev].dev, imp->to_handle);
			*imp = rt->imports[--rt->nimports];
			rt->hash_stale = true;
		} else {
			k++;
		}
	}
	ccore_dev_bo_close(d->dev, d->allocs[i].handle);
	d->allocs[i] = d->allocs[--d->nallocs];
	return 0;
}

static uint32_t import_slot(const struct rt *rt, uint32_t from, uint32_t handle, uint32_t to)
{
	uint64_t h = ((uint64_t)from * 0x9e3779b1u) ^ ((uint64_t)handle * 0x85ebca77u) ^
		     ((uint64_t)to * 0xc2b2ae3du);

	h ^= h >> 29;
	return (uint32_t)(h * 0xbf58476d1ce4e5b9ull >> 32) & (rt->hash_cap - 1);
}

static void hash_put(struct rt *rt, uint32_t i)
{
	const struct rt_import *imp = &rt->imports[i];
	uint32_t k = import_slot(rt, imp->from_dev, imp->handle, imp->to_dev);

	while (rt->import_hash[k])
		k = (k + 1) & (rt->hash_cap - 1);
	rt->import_hash[k] = i + 1;
}

/* Size the table for @n imports (at most half full) and fill it. */
static int hash_rebuild(struct rt *rt, uint32_t n)
{
	uint32_t cap = 64;

	while (cap < 2 * n)
		cap *= 2;
	if (cap != rt->hash_cap) {
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return ccore_error(-ENOMEM, "out of memory");
		free(rt->import_hash);
		rt->import_hash = h;
		rt->hash_cap = cap;
	} else {
		memset(rt->import_hash, 0, cap * sizeof(*rt->import_hash));
	}
	for (uint32_t i = 0; i < rt->nimports; i++)
		hash_put(rt, i);
	rt->hash_stale = false;
	return 0;
}

static struct rt_import *import_find(struct rt *rt, uint32_t from, uint32_t handle, uint32_t to)
{
	uint32_t k, i;

	if ((rt->hash_stale || !rt->hash_cap) && hash_rebuild(rt, rt->nimports))
		return NULL;
	for (k = import_slot(rt, from, handle, to); (i = rt->import_hash[k]);
	     k = (k + 1) & (rt->hash_cap - 1)) {
		struct rt_import *imp = &rt->imports[i - 1];

		if (imp->from_dev == from && imp->handle == handle && imp->to_dev == to)
			return imp;
	}
	return NULL;
}

int rt_peer_va(struct rt *rt, uint32_t dev, uint64_t va, uint32_t to, uint64_t *out)
{
	const struct rt_alloc *a = rt_find(rt, dev, va, 0);
	struct rt_import *imp;
	uint32_t h;
	uint64_t base;
	int rc;

	if (dev == to) {
		*out = va;
		return 0;
	}
	if (!a)
		return ccore_error(-EINVAL, "0x%llx is not device memory of device %u (allocate it with ccore_mem_alloc)",
				   (unsigned long long)va, dev);
	imp = import_find(rt, dev, a->handle, to);
	if (imp) {
		*out = imp->va + (va - a->va);
		return 0;
	}
	rc = ccore_dev_bo_import(rt->devs[to].dev, rt->devs[dev].dev, a->handle, &h, &base);
	if (rc)
		return rc;
	if (rt_grow((void **)&rt->imports, &rt->imports_cap, rt->nimports, sizeof(*rt->imports),
		    64))
		return ccore_error(-ENOMEM, "out of memory");
	rt->imports[rt->nimports++] = (struct rt_import){ dev, a->handle, to, h, base };
	if (2 * rt->nimports > rt->hash_cap) {
		rc = hash_rebuild(rt, rt->nimports);
		if (rc)
			return rc;
	} else {
		hash_put(rt, rt->nimports - 1);
	}
	*out = base + (va - a->va);
	return 0;
}

int rt_ring_get(struct rt *rt, uint32_t dev, uint32_t core, uint32_t *ring)
{
	uint16_t *used = &rt->devs[dev].rings_used[core];

	for (uint32_t i = 0; i < RT_RINGS; i++)
		if (!(*used & (1u << i))) {
			*used |= (uint16_t)(1u << i);
			*ring = i;
			return 0;
		}
	return -ENOSPC;
}

void rt_ring_put(struct rt *rt, uint32_t dev, uint32_t core, uint32_t ring)
{
	rt->devs[dev].rings_used[core] &= (uint16_t)~(1u << ring);
}
