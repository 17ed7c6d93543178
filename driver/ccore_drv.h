/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccore: DRM accel driver for the collective-communication cores.
 *
 * A ccore_device is one accelerator (one /dev/accel/accelN).  Devices that
 * share a fabric (the devices of one node) share a ccore_hw, which owns the
 * hardware behind an ops table (ccore_hw.h) and one lock that serialises the
 * control ioctls of all its devices; waits run without it.
 */
#ifndef CCORE_DRV_H
#define CCORE_DRV_H

#include <linux/dma-fence.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <drm/drm_device.h>
#include <drm/drm_file.h>
#include <drm/drm_gem_shmem_helper.h>
#include <drm/drm_print.h>

#include <uapi/linux/ccore_genl.h>

#include "ccm_uapi.h"
#include "ccm_vm.h"
#include "ccore_accel.h"
#include "ccore_hw.h"

#define CCORE_DRIVER_NAME "ccore"
/* Finished jobs a file keeps for JOB_WAIT, as in the sim backend. */
#define CCORE_JOB_HISTORY 4096
/* Unfinished jobs (queued, running or waiting for an input fence) per file */
#define CCORE_JOBS_ACTIVE_MAX 65536

struct ccore_device {
	struct drm_device drm;
	struct ccore_hw *hw;
	u32 index;			/* device index within the fabric */
	u64 fence_context;		/* one per CC core: jobs finish in order */
	atomic64_t fence_seqno;
	struct dentry *debugfs;		/* ccore_debugfs.c */
	atomic64_t job_timeouts;
	atomic64_t dma_errors;
	atomic64_t recoveries;
	struct list_head registry;	/* ccore_drv.c: every device, for netlink */
	u64 registry_id;		/* order of registration, from 1 */
	/* per core: when its compute program's own timeout passes (ns) */
	s64 compute_deadline[CCM_MAX_CORES];
};

static inline struct ccore_device *to_ccore_device(struct drm_device *drm)
{
	return container_of(drm, struct ccore_device, drm);
}

/* Threads whose last failed ioctl a file remembers (GET_LAST_ERROR) */
#define CCORE_LAST_ERRORS 32

/**
 * struct ccore_last_error - why a thread's last ioctl on a file failed
 * @tid: the thread (global id), 0 for a free slot
 * @armed: a handler recorded the reason of the call still in progress
 * @e: what GET_LAST_ERROR returns (flags and pad zero)
 */
struct ccore_last_error {
	pid_t tid;
	bool armed;
	struct drm_ccore_last_error e;
};

/* Remote mappings and semaphore blocks a file may have (ccore_nic.c) */
#define CCORE_NIC_REMOTE_MAX 256

/**
 * struct ccore_nic_file - what a file reaches of other hosts
 * @maps: its remote mappings (in its address space), at most
 *	CCORE_NIC_REMOTE_MAX
 * @sems: semaphore blocks of other hosts its descriptors may signal
 * @nsems: how many, at most CCORE_NIC_REMOTE_MAX
 */
struct ccore_nic_file {
	u32 maps;
	struct { u32 first, count; } *sems;
	u32 nsems;
};

/**
 * struct ccore_file - what one open file owns; all of it goes on close
 * @kref: held by the file and by every semaphore export made from it
 * @cdev: the device the file was opened on
 * @vm: the file's device address space (own and imported buffers)
 * @rings: ring handle -> struct ccore_ring
 * @programs: program handle -> struct ccore_program
 * @jobs: job id -> struct ccore_job, the last CCORE_JOB_HISTORY of them
 * @active: jobs not yet retired, whether still in @jobs or not: close
 *	waits for every one of them, as they use the file's programs
 * @nactive: how many, at most CCORE_JOBS_ACTIVE_MAX
 * @active_lock: protects @active and @nactive (taken where jobs complete)
 * @active_done: woken when @active empties
 * @grants: imported semaphore blocks (struct ccore_sem_grant)
 * @sem_blocks: allocated semaphore blocks (struct ccore_sem_block); a
 *	block still pinned when the file closes stays until unpinned
 * @next_job: id of the next job
 * @closing: set at close: no new work is accepted
 * @last_lock: protects @last
 * @last: the last failure of up to CCORE_LAST_ERRORS threads, by thread id
 * @nic: what the file reaches of other hosts (ccore_nic.c)
 */
struct ccore_file {
	struct kref kref;
	struct ccore_device *cdev;
	struct ccm_vm vm;
	struct xarray rings;
	struct xarray programs;
	struct xarray jobs;
	struct list_head active;
	u32 nactive;
	spinlock_t active_lock;		/* @active, @nactive */
	wait_queue_head_t active_done;
	struct list_head grants;
	struct list_head sem_blocks;
	u64 next_job;
	bool closing;
	spinlock_t last_lock;		/* @last */
	struct ccore_last_error last[CCORE_LAST_ERRORS];
	struct ccore_nic_file nic;
};

/* A buffer object: GEM shmem memory, user pages, or an import of another
 * device's buffer.  Its memory is mapped into the kernel for the device's
 * DMA engines (the model) for as long as it lives.
 */
enum ccore_bo_kind {
	CCORE_BO_SHMEM,
	CCORE_BO_USERPTR,
	CCORE_BO_IMPORT,
};

struct ccore_bo {
	struct drm_gem_shmem_object shmem;
	enum ccore_bo_kind kind;
	void *vaddr;
	u32 mem_dev;			/* device whose memory this is */
	u64 accounted;			/* device memory reserved, bytes */
	struct ccore_device *cdev;
	struct page **pages;		/* USERPTR */
	unsigned long npages;
	struct drm_gem_object *backing;	/* IMPORT: the exporter's object */
};

static inline struct ccore_bo *to_ccore_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct ccore_bo, shmem.base);
}

/**
 * struct ccore_sem_pins - semaphore blocks a program or ring refers to
 * @blocks: each pinned once: it cannot be freed (SEM_FREE says -EBUSY, a
 *	closing owner leaves it allocated) while pinned, so a stale program
 *	or descriptor can never reach a semaphore someone else got since
 * @count: how many
 */
struct ccore_sem_pins {
	struct ccore_sem_block **blocks;
	u32 count;
};

/**
 * struct ccore_sem_block - a block of semaphores a file allocated
 * @link: in the owner's sem_blocks
 * @u: the block as the uAPI rules see it; its owner is the file (a
 *	reference is held for every pin)
 */
struct ccore_sem_block {
	struct list_head link;
	struct ccm_uapi_sem_block u;
};

static inline struct ccore_file *ccore_sem_block_owner(const struct ccore_sem_block *b)
{
	return b->u.owner;
}

struct ccore_ring {
	struct ccm_uapi_ring u;		/* where it is, what may not go */
	struct drm_gem_object **bos;	/* objects its descriptors reach */
	u32 nbos, cap;
	struct ccore_sem_pins sems;	/* semaphores its descriptors signal */
	/* the NIC transfer its file took and has not reported (ccore_nic.c) */
	struct ccm_nic_xfer nic;
	u32 nic_seq;			/* NIC_TAKE's @seq of it */
	bool nic_taken;
};

struct ccore_program {
	u32 cc;
	u32 base;
	u32 count;
	atomic_t pending;		/* jobs queued or running */
	struct ccore_sem_pins sems;	/* semaphores its instructions use */
	struct ccore_ring **rings;	/* rings it starts or waits for */
	u32 nrings;
};

struct ccore_job {
	struct dma_fence fence;
	spinlock_t lock;		/* the fence's; the fence counts references */
	struct ccore_device *cdev;
	struct ccore_program *program;
	u64 id;
	u32 cc;
	struct delayed_work timeout;
	struct dma_fence *in_fence;
	struct dma_fence_cb in_cb;
	struct work_struct start;	/* enqueue once in_fence signalled */
	struct ccore_file *cfile;
	struct list_head active;	/* in cfile->active until retired */
	u32 timeout_ms;
	bool trigger;
};

struct ccore_sem_grant {
	struct list_head link;
	struct ccore_file *owner;	/* kref held */
	u32 first, count;
	u64 serial;			/* the allocation it grants */
};

/* ccore_drv.c */
int ccore_device_add(struct ccore_hw *hw, struct device *parent, u32 index,
		     struct ccore_device **out);
void ccore_device_remove(struct ccore_device *cdev);
int ccore_devices_walk(u64 *pos, u32 *gen,
		       int (*fn)(struct ccore_device *cdev, void *arg), void *arg);
void ccore_file_put(struct ccore_file *cfile);
int ccore_fail(struct ccore_device *cdev, const char *ioctl, int rc,
	       const struct ccm_err *err);

/* ccore_last_error.c */
int ccore_reject(struct drm_file *file, const char *ioctl, int rc, const struct ccm_err *err);
void ccore_last_error_end(struct file *filp, unsigned int cmd, long rc);
int ccore_ioctl_get_last_error(struct drm_device *drm, void *data, struct drm_file *file);

/* ccore_gem.c */
struct drm_gem_object *ccore_gem_create_object(struct drm_device *drm, size_t size);
struct drm_gem_object *ccore_gem_prime_import(struct drm_device *drm,
					      struct dma_buf *dma_buf);
int ccore_ioctl_bo_create(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_bo_mmap_offset(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_bo_info(struct drm_device *drm, void *data, struct drm_file *file);

/* ccore_param.c */
int ccore_ioctl_get_param(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_set_param(struct drm_device *drm, void *data, struct drm_file *file);

/* ccore_ring.c */
int ccore_ioctl_ring_create(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_ring_destroy(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_ring_submit(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_ring_stats(struct drm_device *drm, void *data, struct drm_file *file);
bool ccore_ring_owned(void *owner, u32 dev, u32 core, u32 engine, u32 ring);
struct ccore_ring *ccore_ring_find(struct ccore_file *cfile, u32 core, u32 engine, u32 ring);
int ccore_ring_refs(struct ccore_file *cfile, struct ccore_ring *r,
		    const struct drm_ccore_desc *d);
void ccore_rings_fini(struct ccore_file *cfile);

/* ccore_sem.c */
int ccore_ioctl_sem_alloc(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_sem_free(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_sem_access(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_sem_wait(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_sem_export(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_sem_import(struct drm_device *drm, void *data, struct drm_file *file);
bool ccore_sem_usable(void *owner, u32 ref);
int ccore_sem_pin(struct ccore_hw *hw, struct ccore_sem_pins *pins, u32 ref);
void ccore_sem_unpin_all(struct ccore_hw *hw, struct ccore_sem_pins *pins);
void ccore_sems_fini(struct ccore_file *cfile);

/* ccore_job.c */
int ccore_ioctl_program_load(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_program_free(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_submit(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_job_wait(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_cc_trigger(struct drm_device *drm, void *data, struct drm_file *file);
void ccore_job_done(struct ccore_hw *hw, u64 cookie, int status);
void ccore_jobs_fini(struct ccore_file *cfile);
int ccore_jobs_init(void);
void ccore_jobs_exit(void);

/* ccore_compute.c */
int ccore_ioctl_compute_submit(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_compute_wait(struct drm_device *drm, void *data, struct drm_file *file);
void ccore_compute_fini(struct ccore_file *cfile);

/* ccore_nic.c */
int ccore_ioctl_nic_remote_map(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_nic_remote_sems(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_nic_take(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_nic_done(struct drm_device *drm, void *data, struct drm_file *file);
int ccore_ioctl_nic_deliver(struct drm_device *drm, void *data, struct drm_file *file);
bool ccore_nic_sem_usable(void *owner, u32 ref);
__poll_t ccore_nic_poll(struct file *filp, struct poll_table_struct *wait);
void ccore_nic_fini(struct ccore_file *cfile);

/* ccore_sysfs.c */
int ccore_sysfs_init(struct ccore_device *cdev);

/* ccore_debugfs.c */
void ccore_debugfs_module_init(void);
void ccore_debugfs_module_exit(void);
void ccore_debugfs_init(struct ccore_device *cdev);
void ccore_debugfs_fini(struct ccore_device *cdev);

/*
 * ccore_genl.c: the "ccore" generic netlink family (device dumps and
 * events, enum ccore_event of <uapi/linux/ccore_genl.h>).  Events never
 * sleep: they may be sent with any lock held, spinlocks included.
 */
int ccore_genl_init(void);
void ccore_genl_fini(void);
void ccore_genl_event(struct ccore_device *cdev, u32 event, u32 cc, int status);
void ccore_genl_job_event(struct ccore_device *cdev, u32 event, u32 cc, int status, u64 job);

#endif
