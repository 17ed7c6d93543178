// SPDX-License-Identifier: MIT
/*
 * Other hosts' memory and semaphores on the sim backend: what a fabric
 * with config "here" reaches only through its NIC (model/ccm_nic.c).  A
 * mapping has no bytes here, only the address the other host's NIC knows
 * its first byte by; descriptors may only COPY into it.  A semaphore
 * block of another host is one the context's descriptors may signal
 * (SEM_WRITE, or a COPY's signal), never a program.
 */
#include "sim.h"

#include <stdlib.h>

int sim_remote_map(struct ccore_dev *d, u32 dev, u64 size, u64 remote, uint64_t *va)
{
	struct sim_ctx *c = to_ctx(d);
	struct sim_system *s = c->sys;
	u64 at = 0;
	int rc;

	if (dev >= ccm_fabric_num_devices(s->f) || !ccm_dev_remote(s->f, dev))
		return ccore_error(-EINVAL, "remote map: device %u is not on another host", dev);
	ccm_mutex_lock(&s->sh->lock);
	rc = ccm_vm_map_remote(&c->vm, size, dev, remote, &at);
	*va = at;
	ccm_mutex_unlock(&s->sh->lock);
	return rc ? ccore_error(rc, "remote map: %llu bytes of device %u: %s",
				(unsigned long long)size, dev,
				rc == -ENOMEM ? "out of memory" : "bad size") : 0;
}

int sim_remote_sems(struct ccore_dev *d, u32 first, u32 count)
{
	struct sim_ctx *c = to_ctx(d);
	struct sim_system *s = c->sys;
	int rc = 0;

	if (!count || !ccm_sem_valid(s->f, first) || !ccm_sem_valid(s->f, first + count - 1) ||
	    !ccm_dev_remote(s->f, DRM_CCORE_SEM_REF_DEV(first)) ||
	    DRM_CCORE_SEM_REF_DEV(first) != DRM_CCORE_SEM_REF_DEV(first + count - 1) ||
	    DRM_CCORE_SEM_REF_CORE(first) != DRM_CCORE_SEM_REF_CORE(first + count - 1))
		return ccore_error(-EINVAL,
				   "remote semaphores 0x%08x +%u: not a block of one core of a device on another host",
				   first, count);
	ccm_mutex_lock(&s->sh->lock);
	if (c->nremote_sems == c->remote_sems_cap) {
		u32 cap = c->remote_sems_cap ? 2 * c->remote_sems_cap : 8;
		struct sim_remote_sems *p = realloc(c->remote_sems, cap * sizeof(*p));

		if (p) {
			c->remote_sems = p;
			c->remote_sems_cap = cap;
		} else {
			rc = -ENOMEM;
		}
	}
	if (!rc)
		c->remote_sems[c->nremote_sems++] = (struct sim_remote_sems){ first, count };
	ccm_mutex_unlock(&s->sh->lock);
	return rc ? ccore_error(rc, "remote semaphores: out of memory") : 0;
}

bool sim_remote_sem_usable(const struct sim_ctx *c, u32 ref)
{
	for (u32 i = 0; i < c->nremote_sems; i++)
		if (ref >= c->remote_sems[i].first &&
		    ref - c->remote_sems[i].first < c->remote_sems[i].count)
			return true;
	return false;
}

void sim_remote_fini(struct sim_ctx *c)
{
	free(c->remote_sems);
	c->remote_sems = NULL;
	c->nremote_sems = c->remote_sems_cap = 0;
}
