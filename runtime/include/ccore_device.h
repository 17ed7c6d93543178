/* SPDX-License-Identifier: MIT */
/*
 * libccore device layer: the operations every backend provides, expressed
 * in the uAPI of uapi/drm/ccore_accel.h.
 *
 * A system is the set of devices one backend exposes; each device is opened
 * as one context, as a process opening /dev/accel/accelN would.  Backends:
 *   sim    the device model in-process (default; no root, no module)
 *   accel  the kernel driver: the devices of one fabric among
 *          /dev/accel/accel* (the lowest fabric id, or $CCORE_ACCEL_FABRIC)
 * chosen by the backend argument, else $CCORE_DEVICE, else sim.
 */
#ifndef CCORE_DEVICE_H
#define CCORE_DEVICE_H

#include "ccore.h"
#include "ccore_accel.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ccore_system;
struct ccore_dev;

/*
 * Open every device of a backend.  @sim_config ("key=value,...", see
 * ccore-info --sim-help) shapes the simulated fabric; NULL means $CCORE_SIM,
 * else the defaults.  The accel backend ignores it: the kernel's fabrics
 * are shaped when they are created (/sys/bus/ccore_sim/new_device).
 */
CCORE_API
int ccore_system_open(const char *backend, const char *sim_config, struct ccore_system **out);
CCORE_API
void ccore_system_close(struct ccore_system *sys);
CCORE_API
const char *ccore_system_backend(const struct ccore_system *sys);
CCORE_API
unsigned int ccore_system_num_devices(const struct ccore_system *sys);
CCORE_API
struct ccore_dev *ccore_system_device(struct ccore_system *sys, unsigned int index);

/* Raw uAPI call: DRM_IOCTL_CCORE_*, DRM_IOCTL_GEM_CLOSE, DRM_IOCTL_PRIME_*. */
CCORE_API
int ccore_dev_ioctl(struct ccore_dev *dev, unsigned long request, void *arg);
CCORE_API
unsigned int ccore_dev_index(const struct ccore_dev *dev);

CCORE_API
int ccore_dev_param(struct ccore_dev *dev, uint32_t param, uint64_t *value);
CCORE_API
int ccore_dev_set_param(struct ccore_dev *dev, uint32_t param, uint64_t value);

CCORE_API
int ccore_dev_bo_create(struct ccore_dev *dev, uint64_t size, uint32_t *handle,
			uint64_t *dev_addr);
/* Host view of a buffer (mmap for accel); valid until the buffer is closed. */
CCORE_API
void *ccore_dev_bo_map(struct ccore_dev *dev, uint32_t handle);
CCORE_API
int ccore_dev_bo_close(struct ccore_dev *dev, uint32_t handle);
/* Make @from's buffer @handle usable by @dev's descriptors (dma-buf). */
CCORE_API
int ccore_dev_bo_import(struct ccore_dev *dev, struct ccore_dev *from, uint32_t handle,
			uint32_t *new_handle, uint64_t *dev_addr);

CCORE_API
int ccore_dev_sem_alloc(struct ccore_dev *dev, uint32_t core, uint32_t count,
			uint32_t *first);
CCORE_API
int ccore_dev_sem_free(struct ccore_dev *dev, uint32_t first);
/* Let @dev use the block @first that @from allocated. */
CCORE_API
int ccore_dev_sem_import(struct ccore_dev *dev, struct ccore_dev *from, uint32_t first);
CCORE_API
int ccore_dev_sem_read(struct ccore_dev *dev, uint32_t sem, uint32_t *value);
CCORE_API
int ccore_dev_sem_write(struct ccore_dev *dev, uint32_t sem, uint32_t op, uint32_t value);
/* Wait until @sem >= @value for at most @timeout_ns (relative). */
CCORE_API
int ccore_dev_sem_wait(struct ccore_dev *dev, uint32_t sem, uint32_t value,
		       int64_t timeout_ns);

CCORE_API
int ccore_dev_ring_create(struct ccore_dev *dev, uint32_t core, uint32_t engine, uint32_t ring,
			  uint32_t size, uint32_t packet_size, uint32_t flags, uint32_t *handle);
/*
 * An indexed ring: STARTI with index i (0..@index_count-1) moves every
 * address of its COPY, REDUCE and DIV descriptors by i * @index_stride
 * bytes (struct drm_ccore_ring_create).  0, 0 is a plain ring.
 */
CCORE_API
int ccore_dev_ring_create_indexed(struct ccore_dev *dev, uint32_t core, uint32_t engine,
				  uint32_t ring, uint32_t slots, uint32_t packet_size,
				  uint32_t flags, int64_t index_stride, uint32_t index_count,
				  uint32_t *handle);
CCORE_API
int ccore_dev_ring_destroy(struct ccore_dev *dev, uint32_t handle);
CCORE_API
int ccore_dev_ring_submit(struct ccore_dev *dev, uint32_t handle,
			  const struct drm_ccore_desc *descs, uint32_t count, uint32_t flags);
CCORE_API
int ccore_dev_ring_stats(struct ccore_dev *dev, uint32_t handle,
			 struct drm_ccore_ring_stats *stats);

CCORE_API
int ccore_dev_program_load(struct ccore_dev *dev, uint32_t cc_core,
			   const struct drm_ccore_insn *insns, uint32_t count, uint32_t *handle);
CCORE_API
int ccore_dev_program_free(struct ccore_dev *dev, uint32_t handle);
CCORE_API
int ccore_dev_submit(struct ccore_dev *dev, uint32_t program, uint32_t flags, uint64_t *job);
/* Wait for a job at most @timeout_ns (relative); *status is its result. */
CCORE_API
int ccore_dev_job_wait(struct ccore_dev *dev, uint64_t job, int64_t timeout_ns, int *status);
CCORE_API
int ccore_dev_trigger(struct ccore_dev *dev, uint32_t cc_core, uint32_t count);
/*
 * The timed sim model: the virtual times (ps) of the trigger a finished job
 * ran on (a queued job waits for one), of its program's start and of its
 * return.  -ENODEV on other backends and the functional model, -EINVAL for
 * an unknown or unfinished job.
 */
struct ccore_job_times {
	uint64_t trigger_ps, start_ps, end_ps;
};

CCORE_API
int ccore_dev_job_times(struct ccore_dev *dev, uint64_t job, struct ccore_job_times *out);

/*
 * The streams and packet sizes a communicator whose ranks are on @dev
 * would get from @config (NULL: none), the environment and @dev's defaults
 * (ccore.h, "Multi-stream CC"); what ccore-info reports.  A bad value is
 * -EINVAL with ccore_last_error() naming it.
 */
CCORE_API
int ccore_dev_stream_map(struct ccore_dev *dev, const struct ccore_comm_config *config,
			 struct ccore_stream_map *out);

/*
 * Run a compute program on the compute engine of @core; its DMA
 * instructions go through ring @dma_engine/@dma_ring of @core (one this
 * context created, idle, a slot per DMA; both 0 without DMA).  On a
 * rejected instruction *@bad_index names it (may be NULL).  @timeout_ms 0
 * is the device's job timeout.
 */
CCORE_API
int ccore_dev_compute_submit(struct ccore_dev *dev, uint32_t core,
			     const struct drm_ccore_ce_insn *insns, uint32_t count,
			     uint32_t dma_engine, uint32_t dma_ring, uint32_t timeout_ms,
			     uint32_t *bad_index);
/* Wait at most @timeout_ns (relative) for it to end; *@out gets its status
 * and counters (may be NULL). */
CCORE_API
int ccore_dev_compute_wait(struct ccore_dev *dev, uint32_t core, int64_t timeout_ns,
			   struct drm_ccore_compute_wait *out);

#ifdef __cplusplus
}
#endif

#endif
