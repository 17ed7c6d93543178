// SPDX-License-Identifier: MIT
/*
 * The device layer over any backend: system open (backend choice) and
 * typed wrappers around the uAPI requests.
 */
#include "ccore_internal.h"
#include "util/clock.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct {
	unsigned long req;
	const char *name;
} ioctl_names[] = {
	{ DRM_IOCTL_CCORE_GET_PARAM, "GET_PARAM" },
	{ DRM_IOCTL_CCORE_SET_PARAM, "SET_PARAM" },
	{ DRM_IOCTL_CCORE_BO_CREATE, "BO_CREATE" },
	{ DRM_IOCTL_CCORE_BO_MMAP_OFFSET, "BO_MMAP_OFFSET" },
	{ DRM_IOCTL_CCORE_BO_INFO, "BO_INFO" },
	{ DRM_IOCTL_CCORE_RING_CREATE, "RING_CREATE" },
	{ DRM_IOCTL_CCORE_RING_DESTROY, "RING_DESTROY" },
	{ DRM_IOCTL_CCORE_RING_SUBMIT, "RING_SUBMIT" },
	{ DRM_IOCTL_CCORE_RING_STATS, "RING_STATS" },
	{ DRM_IOCTL_CCORE_SEM_ALLOC, "SEM_ALLOC" },
	{ DRM_IOCTL_CCORE_SEM_FREE, "SEM_FREE" },
	{ DRM_IOCTL_CCORE_SEM_ACCESS, "SEM_ACCESS" },
	{ DRM_IOCTL_CCORE_SEM_WAIT, "SEM_WAIT" },
	{ DRM_IOCTL_CCORE_SEM_EXPORT, "SEM_EXPORT" },
	{ DRM_IOCTL_CCORE_SEM_IMPORT, "SEM_IMPORT" },
	{ DRM_IOCTL_CCORE_PROGRAM_LOAD, "PROGRAM_LOAD" },
	{ DRM_IOCTL_CCORE_PROGRAM_FREE, "PROGRAM_FREE" },
	{ DRM_IOCTL_CCORE_SUBMIT, "SUBMIT" },
	{ DRM_IOCTL_CCORE_JOB_WAIT, "JOB_WAIT" },
	{ DRM_IOCTL_CCORE_CC_TRIGGER, "CC_TRIGGER" },
	{ DRM_IOCTL_CCORE_COMPUTE_SUBMIT, "COMPUTE_SUBMIT" },
	{ DRM_IOCTL_CCORE_COMPUTE_WAIT, "COMPUTE_WAIT" },
	{ DRM_IOCTL_CCORE_GET_LAST_ERROR, "GET_LAST_ERROR" },
	{ DRM_IOCTL_CCORE_NIC_REMOTE_MAP, "NIC_REMOTE_MAP" },
	{ DRM_IOCTL_CCORE_NIC_REMOTE_SEMS, "NIC_REMOTE_SEMS" },
	{ DRM_IOCTL_CCORE_NIC_TAKE, "NIC_TAKE" },
	{ DRM_IOCTL_CCORE_NIC_DONE, "NIC_DONE" },
	{ DRM_IOCTL_CCORE_NIC_DELIVER, "NIC_DELIVER" },
	{ DRM_IOCTL_GEM_CLOSE, "GEM_CLOSE" },
	{ DRM_IOCTL_PRIME_HANDLE_TO_FD, "PRIME_HANDLE_TO_FD" },
	{ DRM_IOCTL_PRIME_FD_TO_HANDLE, "PRIME_FD_TO_HANDLE" },
};

const char *ccore_ioctl_name(unsigned long request)
{
	size_t i;

	for (i = 0; i < sizeof(ioctl_names) / sizeof(ioctl_names[0]); i++)
		if (ioctl_names[i].req == request)
			return ioctl_names[i].name;
	return "unknown ioctl";
}

int ccore_system_open(const char *backend, const char *sim_config, struct ccore_system **out)
{
	if (!out)
		return ccore_error(-EINVAL, "ccore_system_open: out is NULL");
	if (!backend || !*backend)
		backend = getenv("CCORE_DEVICE");
	if (!backend || !*backend)
		backend = "sim";
	if (!sim_config)
		sim_config = getenv("CCORE_SIM");
	if (!strcmp(backend, "sim"))
		return ccore_sim_open(sim_config, out);
	if (!strcmp(backend, "accel"))
		return ccore_accel_open(out);	/* $CCORE_ACCEL_FABRIC picks the fabric */
	return ccore_error(-EINVAL, "CCORE_DEVICE=%s: unknown backend; allowed: sim, accel", backend);
}

int ccore_system_open_shared(const char *key, const struct ccore_shared_opts *opts,
			     struct ccore_system **out)
{
	if (!out)
		return ccore_error(-EINVAL, "ccore_system_open_shared: out is NULL");
	return ccore_sim_open_shared(key, opts, out);
}

int ccore_system_claim_core(struct ccore_system *sys, uint32_t dev, uint32_t core)
{
	if (!sys->ops->claim_core)
		return ccore_error(-ENODEV, "claiming cores: the %s system is not shared (ccore_system_open_shared)",
				   sys->ops->name);
	return sys->ops->claim_core(sys, dev, core);
}

int ccore_system_process_slot(struct ccore_system *sys, uint32_t *slot)
{
	if (!sys->ops->slots)
		return ccore_error(-ENODEV, "process slots: the %s system is not shared (ccore_system_open_shared)",
				   sys->ops->name);
	return sys->ops->slots(sys, slot, NULL);
}

int ccore_system_dead_slots(struct ccore_system *sys, uint64_t *mask)
{
	if (!sys->ops->slots)
		return ccore_error(-ENODEV, "dead slots: the %s system is not shared (ccore_system_open_shared)",
				   sys->ops->name);
	return sys->ops->slots(sys, NULL, mask);
}

int ccore_system_slot_pid(struct ccore_system *sys, uint32_t slot, uint32_t *pid)
{
	if (!sys->ops->slot_pid)
		return ccore_error(-ENODEV, "process slots: the %s system is not shared (ccore_system_open_shared)",
				   sys->ops->name);
	return sys->ops->slot_pid(sys, slot, pid);
}

void ccore_system_close(struct ccore_system *sys)
{
	if (sys)
		sys->ops->close(sys);
}

const char *ccore_system_backend(const struct ccore_system *sys)
{
	return sys->ops->name;
}

unsigned int ccore_system_num_devices(const struct ccore_system *sys)
{
	return sys->ndev;
}

struct ccore_dev *ccore_system_device(struct ccore_system *sys, unsigned int index)
{
	if (index >= sys->ndev) {
		ccore_error(-EINVAL, "device %u does not exist (0..%u)", index, sys->ndev - 1);
		return NULL;
	}
	return sys->devs[index];
}

struct ccm_fabric *ccore_system_model(struct ccore_system *sys)
{
	return sys->model;
}

int ccore_dev_ioctl(struct ccore_dev *dev, unsigned long request, void *arg)
{
	return dev->ops->ioctl(dev, request, arg);
}

int ccore_dev_job_times(struct ccore_dev *dev, uint64_t job, struct ccore_job_times *out)
{
	if (!dev->ops->job_times)
		return ccore_error(-ENODEV, "job times: only the sim backend's timed model (CCORE_SIM timed=1) keeps them");
	return dev->ops->job_times(dev, job, out);
}

int device_virtual_now_ps(struct ccore_system *sys, uint64_t *ps)
{
	if (!sys->ops->now_ps)
		return ccore_error(-ENODEV, "virtual time needs the sim backend with timed=1 (CCORE_SIM)");
	return sys->ops->now_ps(sys, ps);
}

unsigned int ccore_dev_index(const struct ccore_dev *dev)
{
	return dev->index;
}

int ccore_dev_param(struct ccore_dev *dev, uint32_t param, uint64_t *value)
{
	struct drm_ccore_param_args a = { .param = param };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_GET_PARAM, &a);

	if (!rc)
		*value = a.value;
	return rc;
}

int ccore_dev_set_param(struct ccore_dev *dev, uint32_t param, uint64_t value)
{
	struct drm_ccore_param_args a = { .param = param, .value = value };

	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_SET_PARAM, &a);
}

int ccore_dev_bo_create(struct ccore_dev *dev, uint64_t size, uint32_t *handle,
			uint64_t *dev_addr)
{
	struct drm_ccore_bo_create a = { .size = size };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_BO_CREATE, &a);

	if (!rc) {
		*handle = a.handle;
		if (dev_addr)
			*dev_addr = a.dev_addr;
	}
	return rc;
}

void *ccore_dev_bo_map(struct ccore_dev *dev, uint32_t handle)
{
	return dev->ops->bo_map(dev, handle);
}

int ccore_dev_bo_close(struct ccore_dev *dev, uint32_t handle)
{
	struct drm_gem_close a = { .handle = handle };

	return ccore_dev_ioctl(dev, DRM_IOCTL_GEM_CLOSE, &a);
}

int ccore_dev_bo_import(struct ccore_dev *dev, struct ccore_dev *from, uint32_t handle,
			uint32_t *new_handle, uint64_t *dev_addr)
{
	struct drm_ccore_bo_info info = { 0 };
	int rc = dev->ops->bo_share(dev, from, handle, new_handle);

	if (rc || !dev_addr)
		return rc;
	info.handle = *new_handle;
	rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_BO_INFO, &info);
	if (!rc)
		*dev_addr = info.dev_addr;
	return rc;
}

int ccore_dev_bo_export(struct ccore_dev *dev, uint32_t handle, int32_t *token)
{
	struct drm_prime_handle a = { .handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_PRIME_HANDLE_TO_FD, &a);

	if (!rc)
		*token = a.fd;
	return rc;
}

int ccore_dev_bo_import_token(struct ccore_dev *dev, int32_t token, uint32_t *handle,
			      uint64_t *dev_addr)
{
	struct drm_prime_handle a = { .fd = token };
	struct drm_ccore_bo_info info = { 0 };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_PRIME_FD_TO_HANDLE, &a);

	if (rc)
		return rc;
	*handle = a.handle;
	if (!dev_addr)
		return 0;
	info.handle = a.handle;
	rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_BO_INFO, &info);
	if (!rc)
		*dev_addr = info.dev_addr;
	return rc;
}

int ccore_dev_sem_export(struct ccore_dev *dev, uint32_t first, int32_t *token)
{
	struct drm_ccore_sem_export a = { .first = first };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_SEM_EXPORT, &a);

	if (!rc)
		*token = a.fd;
	return rc;
}

int ccore_dev_sem_import_token(struct ccore_dev *dev, int32_t token, uint32_t *first,
			       uint32_t *count)
{
	struct drm_ccore_sem_import a = { .fd = token };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_SEM_IMPORT, &a);

	if (rc)
		return rc;
	if (first)
		*first = a.first;
	if (count)
		*count = a.count;
	return 0;
}

int ccore_dev_token_close(struct ccore_dev *dev, int32_t token)
{
	if (dev->ops->token_close)
		return dev->ops->token_close(dev, token);
	if (close(token))
		return ccore_error(-errno, "closing token (fd) %d: %s", token, strerror(errno));
	return 0;
}

int ccore_dev_sem_alloc(struct ccore_dev *dev, uint32_t core, uint32_t count, uint32_t *first)
{
	struct drm_ccore_sem_alloc a = { .core = core, .count = count };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_SEM_ALLOC, &a);

	if (!rc)
		*first = a.first;
	return rc;
}

int ccore_dev_sem_free(struct ccore_dev *dev, uint32_t first)
{
	struct drm_ccore_sem_free a = { .first = first };

	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_SEM_FREE, &a);
}

int ccore_dev_sem_import(struct ccore_dev *dev, struct ccore_dev *from, uint32_t first)
{
	return dev->ops->sem_share(dev, from, first);
}

int ccore_dev_sem_read(struct ccore_dev *dev, uint32_t sem, uint32_t *value)
{
	struct drm_ccore_sem_access a = { .sem = sem, .op = DRM_CCORE_SEM_READ };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_SEM_ACCESS, &a);

	if (!rc)
		*value = a.value;
	return rc;
}

int ccore_dev_sem_write(struct ccore_dev *dev, uint32_t sem, uint32_t op, uint32_t value)
{
	struct drm_ccore_sem_access a = { .sem = sem, .op = op, .value = value };

	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_SEM_ACCESS, &a);
}

/*
 * CLOCK_MONOTONIC now or a little later: the coarse clock (about a third
 * of the cost of a precise read, which a small collective's waits would
 * otherwise pay each) plus its tick, so a deadline is never early.
 */
static int64_t now_or_later_ns(void)
{
	static int64_t tick_ns = -1;	/* atomic; every thread finds the same */
	int64_t tick = __atomic_load_n(&tick_ns, __ATOMIC_RELAXED);
	struct timespec ts;

	if (tick < 0) {
		if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts))
			return rt_now_ns();
		tick = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		__atomic_store_n(&tick_ns, tick, __ATOMIC_RELAXED);
	}
	if (clock_gettime(CLOCK_MONOTONIC_COARSE, &ts))
		return rt_now_ns();
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec + tick;
}

/* The uAPI's waits take absolute CLOCK_MONOTONIC deadlines (rt_now_ns);
 * ours take durations: a very long one saturates instead of wrapping into
 * the past. */
static int64_t deadline_after(int64_t timeout_ns)
{
	int64_t now;

	if (timeout_ns <= 0)
		return rt_now_ns();	/* a poll: not a tick later */
	now = now_or_later_ns();
	return timeout_ns > INT64_MAX - now ? INT64_MAX : now + timeout_ns;
}

int ccore_dev_sem_wait(struct ccore_dev *dev, uint32_t sem, uint32_t value, int64_t timeout_ns)
{
	struct drm_ccore_sem_wait a = {
		.sem = sem, .value = value, .timeout_ns = deadline_after(timeout_ns),
	};

	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_SEM_WAIT, &a);
}

int ccore_dev_ring_create_indexed(struct ccore_dev *dev, uint32_t core, uint32_t engine,
				  uint32_t ring, uint32_t slots, uint32_t packet_size,
				  uint32_t flags, int64_t index_stride, uint32_t index_count,
				  uint32_t *handle)
{
	struct drm_ccore_ring_create a = {
		.core = core, .engine = engine, .ring = ring, .size = slots,
		.packet_size = packet_size, .flags = flags, .index_stride = index_stride,
		.index_count = index_count,
	};
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_RING_CREATE, &a);

	if (!rc)
		*handle = a.handle;
	return rc;
}

int ccore_dev_ring_create(struct ccore_dev *dev, uint32_t core, uint32_t engine, uint32_t ring,
			  uint32_t size, uint32_t packet_size, uint32_t flags, uint32_t *handle)
{
	return ccore_dev_ring_create_indexed(dev, core, engine, ring, size, packet_size, flags, 0,
					     0, handle);
}

int ccore_dev_ring_destroy(struct ccore_dev *dev, uint32_t handle)
{
	struct drm_ccore_ring_destroy a = { .handle = handle };

	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_RING_DESTROY, &a);
}

int ccore_dev_ring_submit(struct ccore_dev *dev, uint32_t handle,
			  const struct drm_ccore_desc *descs, uint32_t count, uint32_t flags)
{
	struct drm_ccore_ring_submit a = {
		.handle = handle, .count = count, .descs = (uintptr_t)descs, .flags = flags,
	};

	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_RING_SUBMIT, &a);
}

int ccore_dev_ring_stats(struct ccore_dev *dev, uint32_t handle,
			 struct drm_ccore_ring_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->handle = handle;
	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_RING_STATS, stats);
}

int ccore_dev_program_load(struct ccore_dev *dev, uint32_t cc_core,
			   const struct drm_ccore_insn *insns, uint32_t count, uint32_t *handle)
{
	struct drm_ccore_program_load a = {
		.cc_core = cc_core, .count = count, .insns = (uintptr_t)insns,
	};
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_PROGRAM_LOAD, &a);

	if (!rc)
		*handle = a.handle;
	return rc;
}

int ccore_dev_program_free(struct ccore_dev *dev, uint32_t handle)
{
	struct drm_ccore_program_free a = { .handle = handle };

	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_PROGRAM_FREE, &a);
}

int ccore_dev_submit(struct ccore_dev *dev, uint32_t program, uint32_t flags, uint64_t *job)
{
	struct drm_ccore_submit a = { .program = program, .flags = flags };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_SUBMIT, &a);

	if (!rc && job)
		*job = a.job;
	return rc;
}

int ccore_dev_job_wait(struct ccore_dev *dev, uint64_t job, int64_t timeout_ns, int *status)
{
	struct drm_ccore_job_wait a = { .job = job, .timeout_ns = deadline_after(timeout_ns) };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_JOB_WAIT, &a);

	if (!rc && status)
		*status = a.status;
	return rc;
}

int ccore_dev_trigger(struct ccore_dev *dev, uint32_t cc_core, uint32_t count)
{
	struct drm_ccore_cc_trigger a = { .cc_core = cc_core, .count = count };

	return ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_CC_TRIGGER, &a);
}

int ccore_dev_compute_submit(struct ccore_dev *dev, uint32_t core,
			     const struct drm_ccore_ce_insn *insns, uint32_t count,
			     uint32_t dma_engine, uint32_t dma_ring, uint32_t timeout_ms,
			     uint32_t *bad_index)
{
	struct drm_ccore_compute_submit a = {
		.core = core, .count = count, .insns = (uintptr_t)insns,
		.dma_engine = dma_engine, .dma_ring = dma_ring, .timeout_ms = timeout_ms,
	};
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_COMPUTE_SUBMIT, &a);

	if (bad_index)
		*bad_index = a.bad_index;
	return rc;
}

int ccore_dev_compute_wait(struct ccore_dev *dev, uint32_t core, int64_t timeout_ns,
			   struct drm_ccore_compute_wait *out)
{
	struct drm_ccore_compute_wait a = { .core = core, .timeout_ns = deadline_after(timeout_ns) };
	int rc = ccore_dev_ioctl(dev, DRM_IOCTL_CCORE_COMPUTE_WAIT, &a);

	if (!rc && out)
		*out = a;
	return rc;
}
