// SPDX-License-Identifier: GPL-2.0
/*
 * The fabric: devices, their cores, engines, CC cores and semaphore banks,
 * the links between devices, and the per-device knobs.
 */
#include "ccm_internal.h"

struct ccm_device *ccm_dev(const struct ccm_fabric *f, u32 dev)
{
	return dev < f->ndev ? &f->devs[dev] : NULL;
}

struct ccm_core *ccm_core_of(const struct ccm_fabric *f, u32 dev, u32 core)
{
	struct ccm_device *d = ccm_dev(f, dev);

	return d && core < f->cfg.cores ? &d->cores[core] : NULL;
}

struct ccm_core *ccm_core_get(const struct ccm_fabric *f, u32 dev, u32 core,
			      struct ccm_err *err)
{
	struct ccm_core *c = ccm_core_of(f, dev, core);

	if (!c)
		ccm_reject(err, -EINVAL, DRM_CCORE_REASON_CORE, f->cfg.cores,
			   "core %u of device %u does not exist (devices 0..%u, cores 0..%u)",
			   core, dev, f->ndev - 1, f->cfg.cores - 1);
	return c;
}

static int core_init(struct ccm_core *c, struct ccm_device *d, u32 index)
{
	const struct ccm_config *cfg = &d->f->cfg;
	u32 i;
	int rc;

	c->dev = d;
	c->index = index;
	ccm_mutex_init(&c->sem_lock);
	c->sems = ccm_calloc(cfg->sems, sizeof(*c->sems));
	c->sem_owner = ccm_calloc(cfg->sems, sizeof(*c->sem_owner));
	c->sem_first = ccm_calloc(cfg->sems, sizeof(*c->sem_first));
	c->engines = ccm_calloc(cfg->engines, sizeof(*c->engines));
	c->cc = ccm_calloc(cfg->cc_cores, sizeof(*c->cc));
	if (!c->sems || !c->sem_owner || !c->sem_first || !c->engines || !c->cc)
		return -ENOMEM;
	for (i = 0; i < cfg->engines; i++)
		ccm_engine_init(&c->engines[i], c, i);
	for (i = 0; i < cfg->cc_cores; i++) {
		rc = ccm_cc_init(&c->cc[i], c, index * cfg->cc_cores + i);
		if (rc)
			return rc;
	}
	return ccm_compute_init(&c->compute, c);
}

static void core_fini(struct ccm_core *c, const struct ccm_config *cfg)
{
	u32 i;

	if (c->engines)
		for (i = 0; i < cfg->engines; i++)
			ccm_engine_fini(&c->engines[i]);
	if (c->cc)
		for (i = 0; i < cfg->cc_cores; i++)
			ccm_cc_fini(&c->cc[i]);
	ccm_compute_fini(&c->compute);
	ccm_free(c->engines);
	ccm_free(c->cc);
	ccm_free(c->sems);
	ccm_free(c->sem_owner);
	ccm_free(c->sem_first);
	ccm_mutex_destroy(&c->sem_lock);
}

/* @shared: run queues per process (ccm_fabric_create_shared()). */
struct ccm_fabric *ccm_fabric_create_in(const struct ccm_config *cfg,
					const struct ccm_host_ops *ops, void *host, bool shared,
					struct ccm_err *err)
{
	struct ccm_fabric *f;
	struct ccm_device *d;
	u32 i, k;
	int rc;

	rc = ccm_config_check(cfg, err);
	if (rc)
		return NULL;
	f = ccm_zalloc(sizeof(*f));
	if (!f)
		goto nomem;
	f->cfg = *cfg;
	if (cfg->timed)
		f->cfg.workers = 0;	/* the virtual clock runs inline */
	f->ops = ops;
	f->host = host;
	if (shared) {
		f->procs = ccm_calloc(CCM_MAX_PROCS, sizeof(*f->procs));
		if (!f->procs)
			goto nomem_fabric;
	}
	f->ndev = cfg->nodes * cfg->devices_per_node;
	f->devs = ccm_calloc(f->ndev, sizeof(*f->devs));
	if (!f->devs)
		goto nomem_fabric;
	for (i = 0; i < f->ndev; i++) {
		d = &f->devs[i];
		d->f = f;
		d->index = i;
		d->node = i / cfg->devices_per_node;
		d->cc_packet_size = cfg->cc_dma_packet_size;
		d->dma_packetization = cfg->dma_packetization_size;
		d->cores = ccm_calloc(cfg->cores, sizeof(*d->cores));
		if (!d->cores)
			goto nomem_fabric;
		for (k = 0; k < cfg->cores; k++)
			if (core_init(&d->cores[k], d, k))
				goto nomem_fabric;
	}
	if (ccm_sched_init(f))
		goto nomem_fabric;
	ccm_sched_start(f);
	return f;

nomem_fabric:
	ccm_fabric_destroy(f);
nomem:
	ccm_fail(err, -ENOMEM, CCM_NO_INDEX, "out of memory creating the device model");
	return NULL;
}

struct ccm_fabric *ccm_fabric_create(const struct ccm_config *cfg,
				     const struct ccm_host_ops *ops, void *host,
				     struct ccm_err *err)
{
	return ccm_fabric_create_in(cfg, ops, host, false, err);
}

void ccm_fabric_destroy(struct ccm_fabric *f)
{
	u32 i, k;

	if (!f)
		return;
	ccm_sched_fini(f);
	for (i = 0; f->devs && i < f->ndev; i++) {
		if (!f->devs[i].cores)
			continue;
		for (k = 0; k < f->cfg.cores; k++)
			core_fini(&f->devs[i].cores[k], &f->cfg);
		ccm_free(f->devs[i].cores);
	}
	ccm_free(f->devs);
	ccm_free(f->procs);
	ccm_free(f);
}

const struct ccm_config *ccm_fabric_config(const struct ccm_fabric *f)
{
	return &f->cfg;
}

u32 ccm_fabric_num_devices(const struct ccm_fabric *f)
{
	return f->ndev;
}

static bool is_pow2(u32 v)
{
	return v && !(v & (v - 1));
}

int ccm_check_packet_size(const struct ccm_config *cfg, u32 bytes, const char *what,
			  struct ccm_err *err)
{
	if (!is_pow2(bytes) || bytes < cfg->min_packet_size || bytes > cfg->max_packet_size)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_PACKET_SIZE, cfg->max_packet_size,
				  "%s %u is not a power of two from %u to %u bytes", what, bytes,
				  cfg->min_packet_size, cfg->max_packet_size);
	return 0;
}

int ccm_device_set_cc_packet_size(struct ccm_fabric *f, u32 dev, u32 bytes,
				  struct ccm_err *err)
{
	struct ccm_device *d = ccm_dev(f, dev);
	int rc;

	if (!d)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX, "device %u does not exist", dev);
	/* The default is the maximum, so "may only be lowered" is the range. */
	rc = ccm_check_packet_size(&f->cfg, bytes, "CC DMA packet size", err);
	if (rc)
		return rc;
	ccm_store32(&d->cc_packet_size, bytes);
	return 0;
}

int ccm_device_set_dma_packetization(struct ccm_fabric *f, u32 dev, u32 bytes,
				     struct ccm_err *err)
{
	struct ccm_device *d = ccm_dev(f, dev);

	if (!d)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX, "device %u does not exist", dev);
	if (!is_pow2(bytes) || bytes < f->cfg.dma_packetization_size ||
	    bytes > f->cfg.max_packet_size)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"DMA packetization size %u is not a power of two from %u (it may only be raised) to %u bytes",
				bytes, f->cfg.dma_packetization_size, f->cfg.max_packet_size);
	ccm_store32(&d->dma_packetization, bytes);
	return 0;
}

u32 ccm_device_cc_packet_size(const struct ccm_fabric *f, u32 dev)
{
	struct ccm_device *d = ccm_dev(f, dev);

	return d ? ccm_load32(&d->cc_packet_size) : 0;
}

u32 ccm_device_dma_packetization(const struct ccm_fabric *f, u32 dev)
{
	struct ccm_device *d = ccm_dev(f, dev);

	return d ? ccm_load32(&d->dma_packetization) : 0;
}

int ccm_device_mem_reserve(struct ccm_fabric *f, u32 dev, u64 bytes, struct ccm_err *err)
{
	struct ccm_device *d = ccm_dev(f, dev);
	u64 used;

	if (!d)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX, "device %u does not exist", dev);
	if (ccm_not_here(f, dev, "its memory is", err))
		return -EINVAL;
	used = ccm_add64(&d->mem_used, bytes);
	if (used > f->cfg.hbm_size || used < bytes) {
		ccm_add64(&d->mem_used, -bytes);
		return ccm_fail(err, -ENOMEM, CCM_NO_INDEX,
				"device %u memory exhausted: %llu bytes requested, %llu of %llu in use",
				dev, (unsigned long long)bytes,
				(unsigned long long)(used - bytes),
				(unsigned long long)f->cfg.hbm_size);
	}
	return 0;
}

void ccm_device_mem_release(struct ccm_fabric *f, u32 dev, u64 bytes)
{
	struct ccm_device *d = ccm_dev(f, dev);

	if (d)
		ccm_add64(&d->mem_used, -bytes);
}

u64 ccm_device_mem_used(const struct ccm_fabric *f, u32 dev)
{
	struct ccm_device *d = ccm_dev(f, dev);

	return d ? ccm_load64(&d->mem_used) : 0;
}
