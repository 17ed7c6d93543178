// SPDX-License-Identifier: MIT
/* The runtime's shared state (see rt.h). */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sim_config(const struct ccore_topology *t, char *buf, size_t len)
{
	const char *user = getenv("CCORE_SIM");

	/* The user's keys come last, so they win; rt_open checks the fit. */
	return snprintf(buf, len, "nodes=%u,devices=%u,cores=%u%s%s", t->nodes,
			t->devices_per_node, t->ranks_per_device, user && *user ? "," : "",
			user ? user : "");
}

static int query(struct rt *rt)
{
	struct ccore_dev *d = ccore_system_device(rt->sys, 0);
	uint64_t v[6];
	int rc;

	rc = ccore_dev_param(d, DRM_CCORE_PARAM_DEVICES_PER_NODE, &v[5]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_NUM_CORES, &v[0]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_CC_CORES_PER_CORE, &v[1]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_ENGINES_PER_CORE, &v[2]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_SEMS_PER_CORE, &v[3]) ?:
	     ccore_dev_param(d, DRM_CCORE_PARAM_MAX_PROGRAM_SIZE, &v[4]);
	rt->cores = (uint32_t)v[0];
	rt->cc_cores = (uint32_t)v[1];
	rt->engines = (uint32_t)v[2];
	rt->sems = (uint32_t)v[3];
	rt->max_program = v[4];
	rt->devices_per_node = (uint32_t)v[5];
	return rc;
}

int rt_open(const struct ccore_topology *t, struct rt **out)
{
	char cfg[1024];
	const char *backend = getenv("CCORE_DEVICE");
	struct rt *rt;
	uint32_t need;
	int rc;

	if (!t || !t->nodes || !t->devices_per_node || !t->ranks_per_device)
		return ccore_error(-EINVAL, "topology: nodes, devices_per_node and ranks_per_device must all be at least 1");
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		return ccore_error(-ENOMEM, "out of memory");
	sim_config(t, cfg, sizeof(cfg));
	rc = ccore_system_open(backend, cfg, &rt->sys);
	if (!rc)
		rc = query(rt);
	need = t->nodes * t->devices_per_node;
	if (!rc && (ccore_system_num_devices(rt->sys) < need || rt->cores < t->ranks_per_device))
		rc = ccore_error(-EINVAL,
				 "topology needs %u devices with %u cores each; the %s backend has %u with %u (%s)",
				 need, t->ranks_per_device, ccore_system_backend(rt->sys),
				 ccore_system_num_devices(rt->sys), rt->cores,
				 ccore_system_model(rt->sys) ? "check CCORE_SIM" :
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

void rt_get(struct rt *rt)
{
	rt->refs++;
}

void rt_put(struct rt *rt)
{
	if (!rt || --rt->refs)
		return;
	for (uint32_t d = 0; rt->devs && d < rt->ndev; d++) {
		free(rt->devs[d].allocs);
		free(rt->devs[d].rings_used);
	}
	free(rt->devs);
	free(rt->imports);
	ccore_system_close(rt->sys);
	free(rt);
}

static int add_alloc(struct rt_dev *d, const struct rt_alloc *a)
{
	if (d->nallocs == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 16;
		struct rt_alloc *n = realloc(d->allocs, cap * sizeof(*n));

		if (!n)
			return ccore_error(-ENOMEM, "out of memory");
		d->allocs = n;
		d->cap = cap;
	}
	d->allocs[d->nallocs++] = *a;
	return 0;
}

int rt_register(struct rt *rt, uint32_t dev, void *host, uint64_t bytes, uint64_t *va)
{
	struct rt_dev *d = &rt->devs[dev];
	struct drm_ccore_bo_create c = {
		.size = bytes, .flags = DRM_CCORE_BO_F_USERPTR, .userptr = (uintptr_t)host,
	};
	struct rt_alloc a = { .size = bytes, .host = host };
	int rc = ccore_dev_ioctl(d->dev, DRM_IOCTL_CCORE_BO_CREATE, &c);

	if (rc)
		return rc;
	a.handle = c.handle;
	a.va = c.dev_addr;
	rc = add_alloc(d, &a);
	if (rc) {
		ccore_dev_bo_close(d->dev, a.handle);
		return rc;
	}
	*va = a.va;
	return 0;
}

int rt_alloc(struct rt *rt, uint32_t dev, uint64_t bytes, uint64_t *va)
{
	struct rt_dev *d = &rt->devs[dev];
	struct rt_alloc a = { .size = bytes };
	int rc;

	if (d->nallocs == d->cap) {
		uint32_t cap = d->cap ? d->cap * 2 : 16;
		struct rt_alloc *n = realloc(d->allocs, cap * sizeof(*n));

		if (!n)
			return ccore_error(-ENOMEM, "out of memory");
		d->allocs = n;
		d->cap = cap;
	}
	rc = ccore_dev_bo_create(d->dev, bytes, &a.handle, &a.va);
	if (rc)
		return rc;
	a.host = ccore_dev_bo_map(d->dev, a.handle);
	if (!a.host) {
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
		} else {
			k++;
		}
	}
	ccore_dev_bo_close(d->dev, d->allocs[i].handle);
	d->allocs[i] = d->allocs[--d->nallocs];
	return 0;
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
	for (uint32_t i = 0; i < rt->nimports; i++) {
		imp = &rt->imports[i];
		if (imp->from_dev == dev && imp->handle == a->handle && imp->to_dev == to) {
			*out = imp->va + (va - a->va);
			return 0;
		}
	}
	rc = ccore_dev_bo_import(rt->devs[to].dev, rt->devs[dev].dev, a->handle, &h, &base);
	if (rc)
		return rc;
	imp = realloc(rt->imports, (rt->nimports + 1) * sizeof(*imp));
	if (!imp)
		return ccore_error(-ENOMEM, "out of memory");
	rt->imports = imp;
	imp[rt->nimports++] = (struct rt_import){ dev, a->handle, to, h, base };
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
