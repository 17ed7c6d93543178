// SPDX-License-Identifier: GPL-2.0
/*
 * Semaphore banks: 32-bit counters per logical core, written locally or
 * remotely (by descriptors and by SET/ADD instructions naming another
 * device), waited on with ">= value".  Allocation hands out consecutive
 * blocks to an owner so a context can only name its own semaphores.
 */
#include "ccm_internal.h"

u32 *ccm_sem_slot(const struct ccm_fabric *f, u32 ref)
{
	struct ccm_core *core = ccm_core_of(f, DRM_CCORE_SEM_REF_DEV(ref),
					    DRM_CCORE_SEM_REF_CORE(ref));

	if (!core || DRM_CCORE_SEM_REF_IDX(ref) >= f->cfg.sems)
		return NULL;
	return &core->sems[DRM_CCORE_SEM_REF_IDX(ref)];
}

bool ccm_sem_valid(const struct ccm_fabric *f, u32 ref)
{
	return ccm_sem_slot(f, ref) != NULL;
}

u32 ccm_sem_read(const struct ccm_fabric *f, u32 ref)
{
	u32 *s = ccm_sem_slot(f, ref);

	return s ? ccm_load32(s) : 0;
}

static void sem_changed(struct ccm_fabric *f, u32 ref)
{
	ccm_core_wake_sem(ccm_core_of(f, DRM_CCORE_SEM_REF_DEV(ref), DRM_CCORE_SEM_REF_CORE(ref)),
			  ref);
	ccm_host_kick_sc(f);
}

void ccm_sem_set(struct ccm_fabric *f, u32 ref, u32 value)
{
	u32 *s = ccm_sem_slot(f, ref);

	if (!s)
		return;
	ccm_store32_sc(s, value);	/* before sem_changed() reads the waiters */
	sem_changed(f, ref);
}

void ccm_sem_add(struct ccm_fabric *f, u32 ref, u32 value)
{
	u32 *s = ccm_sem_slot(f, ref);

	if (!s)
		return;
	ccm_add32(s, value);
	sem_changed(f, ref);
}

int ccm_sem_alloc(struct ccm_fabric *f, u32 dev, u32 core, u32 count, void *owner,
		  u32 *first, struct ccm_err *err)
{
	struct ccm_core *c = ccm_core_of(f, dev, core);
	u32 i, run = 0;

	if (!c)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_CORE, f->cfg.cores,
				  "core %u of device %u does not exist (cores 0..%u)", core, dev,
				  f->cfg.cores - 1);
	if (ccm_not_here(f, dev, "its semaphores are", err))
		return -EINVAL;
	if (count == 0 || count > f->cfg.sems)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_SEM_COUNT, f->cfg.sems,
				  "semaphore count %u out of range (1..%u)", count, f->cfg.sems);
	ccm_mutex_lock(&c->sem_lock);
	for (i = 0; i < f->cfg.sems; i++) {
		run = c->sem_owner[i] ? 0 : run + 1;
		if (run == count)
			break;
	}
	if (run < count) {
		ccm_mutex_unlock(&c->sem_lock);
		return ccm_reject(err, -ENOSPC, DRM_CCORE_REASON_SEM_NO_SPACE, 0,
				  "no %u free consecutive semaphores on core %u of device %u",
				  count, core, dev);
	}
	i = i + 1 - count;
	*first = DRM_CCORE_SEM_REF(dev, core, i);
	c->sem_first[i] = true;
	for (run = 0; run < count; run++) {
		c->sem_owner[i + run] = owner;
		ccm_store32(&c->sems[i + run], 0);
	}
	ccm_mutex_unlock(&c->sem_lock);
	return 0;
}

/* Called with the bank's lock held. */
static u32 free_block(struct ccm_core *c, u32 idx, u32 nsems)
{
	void *owner = c->sem_owner[idx];
	u32 n = 0;

	c->sem_first[idx] = false;
	while (idx + n < nsems && c->sem_owner[idx + n] == owner &&
	       (n == 0 || !c->sem_first[idx + n])) {
		c->sem_owner[idx + n] = NULL;
		n++;
	}
	return n;
}

int ccm_sem_free(struct ccm_fabric *f, u32 first, void *owner, struct ccm_err *err)
{
	struct ccm_core *c = ccm_core_of(f, DRM_CCORE_SEM_REF_DEV(first),
					 DRM_CCORE_SEM_REF_CORE(first));
	u32 idx = DRM_CCORE_SEM_REF_IDX(first);
	int rc = 0;

	if (!c || idx >= f->cfg.sems)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_SEM_INVALID, 0,
				  "semaphore 0x%08x does not exist", first);
	ccm_mutex_lock(&c->sem_lock);
	if (c->sem_owner[idx] != owner || !c->sem_first[idx])
		rc = ccm_reject(err, -EINVAL, DRM_CCORE_REASON_SEM_NOT_BLOCK, 0,
				"semaphore 0x%08x is not the first of a block this context allocated",
				first);
	else
		free_block(c, idx, f->cfg.sems);
	ccm_mutex_unlock(&c->sem_lock);
	return rc;
}

void ccm_sem_free_owner(struct ccm_fabric *f, u32 dev, void *owner)
{
	struct ccm_core *c;
	u32 k, i;

	for (k = 0; k < f->cfg.cores; k++) {
		c = ccm_core_of(f, dev, k);
		if (!c)
			return;
		ccm_mutex_lock(&c->sem_lock);
		for (i = 0; i < f->cfg.sems; i++)
			if (c->sem_owner[i] == owner && c->sem_first[i])
				free_block(c, i, f->cfg.sems);
		ccm_mutex_unlock(&c->sem_lock);
	}
}

void *ccm_sem_owner(const struct ccm_fabric *f, u32 ref)
{
	struct ccm_core *c = ccm_core_of(f, DRM_CCORE_SEM_REF_DEV(ref),
					 DRM_CCORE_SEM_REF_CORE(ref));

	if (!c || DRM_CCORE_SEM_REF_IDX(ref) >= f->cfg.sems)
		return NULL;
	return c->sem_owner[DRM_CCORE_SEM_REF_IDX(ref)];
}
