// SPDX-License-Identifier: MIT
/*
 * Compute DMA rings: the rings a compute engine's DMA traffic runs on (the
 * executable runner's), on a rank's core beside the collectives' rings,
 * with the communicator's DMA packetization size.  Their packet size
 * against the CC rings' is the DMA priority between compute and
 * communication.
 */
#include "comm.h"

int comm_compute_ring_create(struct ccore_comm *c, uint32_t engine, uint32_t slots,
			     struct comm_ring *out)
{
	struct clique *q;
	uint32_t dev, core;
	int rc;

	if (!c || !out)
		return ccore_error(-EINVAL, "compute ring: comm and out must be set");
	q = c->q;
	dev = q->ranks[c->rank].dev;
	core = q->ranks[c->rank].core;
	if (engine >= q->rt->engines)
		return ccore_error(-EINVAL, "compute ring: engine %u out of range (0..%u)", engine,
				   q->rt->engines - 1);
	rc = rt_ring_get(q->rt, dev, core, &out->ring);
	if (rc)
		return ccore_error(rc, "compute ring: no free DMA ring index on core %u of device %u",
				   core, dev);
	/* 0 leaves the device's default (sysfs) to the ring */
	rc = ccore_dev_ring_create(comm_dev(c), core, engine, out->ring, slots, q->scfg.dma_packet,
				   DRM_CCORE_RING_F_COMPUTE, &out->handle);
	if (rc) {
		rt_ring_put(q->rt, dev, core, out->ring);
		return rc;
	}
	return 0;
}

int comm_compute_ring_destroy(struct ccore_comm *c, const struct comm_ring *r)
{
	struct clique *q = c->q;
	int rc = ccore_dev_ring_destroy(comm_dev(c), r->handle);

	if (!rc)
		rt_ring_put(q->rt, q->ranks[c->rank].dev, q->ranks[c->rank].core, r->ring);
	return rc;
}
