// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection: one-shot faults armed by the host (the driver's debugfs,
 * its job-timeout and recovery tests) and taken by the model when they fire.
 * A DMA error fails the next descriptor an engine of a core starts
 * (ccm_engine.c stops the ring, ccm_cc.c faults the running jobs); a hang
 * stops the next job a CC core starts until ccm_cc_reset().
 */
#include "ccm_internal.h"

int ccm_inject_dma_error(struct ccm_fabric *f, u32 dev, u32 core, struct ccm_err *err)
{
	struct ccm_core *c = ccm_core_get(f, dev, core, err);

	if (!c)
		return -EINVAL;
	ccm_store32(&c->dma_error_armed, 1);
	return 0;
}

bool ccm_fault_take_dma_error(struct ccm_core *core)
{
	u32 armed = 1;

	/* a plain load first: the engine asks at every descriptor */
	return ccm_load32(&core->dma_error_armed) &&
	       ccm_cas32(&core->dma_error_armed, &armed, 0);
}

int ccm_inject_cc_hang(struct ccm_fabric *f, u32 dev, u32 ccidx, struct ccm_err *err)
{
	struct ccm_cc *cc = ccm_cc_of(f, dev, ccidx, err);

	if (!cc)
		return -EINVAL;
	ccm_mutex_lock(&cc->lock);
	cc->hang_armed = true;
	ccm_mutex_unlock(&cc->lock);
	return 0;
}

bool ccm_fault_take_cc_hang(struct ccm_cc *cc)
{
	if (!cc->hang_armed)
		return false;
	cc->hang_armed = false;
	cc->hangs++;
	return true;
}
