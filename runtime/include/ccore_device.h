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

/*
 * Processes of one host sharing one simulated fabric (the sim backend; see
 * Documentation/device-model.rst, "Processes sharing a fabric").
 *
 * Every process of a job calls ccore_system_open_shared() with the same
 * @key (e.g. derived from the job's unique id and the host name: any
 * printable ASCII without spaces, at most 80 characters).  The first
 * creates the fabric (from @opts->sim_config, else $CCORE_SIM, else the
 * defaults; every process must give the same); every process that opened
 * it serves it to those that come later, so it lives as long as any of
 * them.  Nothing is named in the file system: the fabric's memory goes
 * when the last process closes or exits, however it ends.  A process opens
 * a key once (-EALREADY): its ranks share that system.
 *
 * Each process claims cores (@opts->cores, or ccore_system_claim_core()):
 * only its contexts may create rings, load programs, allocate semaphores
 * and run compute on them (-EPERM naming the owner otherwise), and only its
 * threads run them.  Its contexts read and write any device memory and
 * semaphore it imported (ccore_dev_bo_export() and the tokens below).
 *
 * A process that dies is found by the others' waits (within 10 ms), by
 * ccore_system_dead_slots() and by the next open: its cores stop, its
 * memory, semaphores, rings and exports are released, and the waits that
 * were in progress fail with -EPIPE naming its slot, pid and cores.
 * timed=1 (the virtual clock) and workers=0 cannot be shared.
 */
struct ccore_core_ref {
	uint32_t dev;		/* device index */
	uint32_t core;		/* logical core of that device */
};

struct ccore_shared_opts {
	const char *sim_config;			/* NULL: $CCORE_SIM, else the defaults */
	const struct ccore_core_ref *cores;	/* cores this process claims */
	uint32_t ncores;
	int64_t timeout_ns;	/* waiting for the creator to serve it; 0: 30 s */
};

/* @opts may be NULL (no cores claimed yet). */
CCORE_API
int ccore_system_open_shared(const char *key, const struct ccore_shared_opts *opts,
			     struct ccore_system **out);
/* Claim core @core of device @dev for this process (-EBUSY if another has it). */
CCORE_API
int ccore_system_claim_core(struct ccore_system *sys, uint32_t dev, uint32_t core);
/* This process's slot (0..63) in a shared system; -ENODEV for other systems. */
CCORE_API
int ccore_system_process_slot(struct ccore_system *sys, uint32_t *slot);
/*
 * The slots whose process died (bit = slot), looking for new deaths first
 * and releasing what they held; a slot stays in the mask until another
 * process opens the system in its place.  -ENODEV for other systems.
 */
CCORE_API
int ccore_system_dead_slots(struct ccore_system *sys, uint64_t *mask);
/* The pid of the process in @slot, or of the one that died there last. */
CCORE_API
int ccore_system_slot_pid(struct ccore_system *sys, uint32_t slot, uint32_t *pid);
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

/*
 * Tokens: a buffer or a semaphore block exported as another process would
 * receive it (a dma-buf or semaphore fd on the kernel driver, passed over a
 * UNIX socket; a number valid in every process of a shared sim system,
 * passed any way).  An import checks the token: a forged, closed or stale
 * one is -EBADF saying which.  A token stays valid until closed, or until
 * its exporting process closes the system or dies; the memory stays while
 * any import of it remains.
 */
CCORE_API
int ccore_dev_bo_export(struct ccore_dev *dev, uint32_t handle, int32_t *token);
CCORE_API
int ccore_dev_bo_import_token(struct ccore_dev *dev, int32_t token, uint32_t *handle,
			      uint64_t *dev_addr);
CCORE_API
int ccore_dev_sem_export(struct ccore_dev *dev, uint32_t first, int32_t *token);
/* *@first and *@count: the block imported (may be NULL). */
CCORE_API
int ccore_dev_sem_import_token(struct ccore_dev *dev, int32_t token, uint32_t *first,
			       uint32_t *count);
CCORE_API
int ccore_dev_token_close(struct ccore_dev *dev, int32_t token);

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
