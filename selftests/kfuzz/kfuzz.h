/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccore_kfuzz: an ioctl fuzzer for the ccore accel driver, run as root in
 * the QEMU test guest, and the named replays of the bugs it is meant to
 * find (issue 14).  Shared declarations of its files:
 *
 *   ccore_kfuzz.c      options, --help, the two modes
 *   kfuzz_rng.c        the seeded generator and the argument mutations
 *   kfuzz_stats.c      per-ioctl return-code counts, shared by the processes
 *   kfuzz_sys.c        devices, fabrics, sysfs, the kernel log, the module
 *   kfuzz_model.c      what a fuzzed file owns (handles, buffers, rings...)
 *   kfuzz_gen.c        valid descriptors and CC programs from that model
 *   kfuzz_ccore_ops.c  the ccore ioctls: valid arguments, then mutated
 *   kfuzz_drm_ops.c    the generic DRM ioctls (GEM, PRIME, syncobj, ...)
 *   kfuzz_nic_ops.c    the NIC queue: remote maps and semaphores, TAKE,
 *                      DONE, DELIVER and poll() (a fabric of one host)
 *   kfuzz_random.c     random mode: processes, fd passing, kills, sysfs
 *   kfuzz_scenarios.c  the replays of the eight findings, as TAP
 */
#ifndef KFUZZ_H
#define KFUZZ_H

#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "drm.h"
#include "ccore_accel.h"

#define KF_NSEC_PER_MSEC 1000000ll
#define KF_NSEC_PER_SEC 1000000000ll
#define KF_MAX_ACCEL 64

/* --- kfuzz_rng.c ---------------------------------------------------------- */

struct kf_rng {
	uint64_t state;
};

void kf_rng_seed(struct kf_rng *r, uint64_t seed);
uint64_t kf_next(struct kf_rng *r);
/* 0..n-1 (0 when n is 0) */
uint32_t kf_below(struct kf_rng *r, uint32_t n);
bool kf_chance(struct kf_rng *r, uint32_t percent);
/* 0, 1, 255, 256, 0xffffffff, 2^31, 2^32, 2^63, -1, ... */
uint64_t kf_boundary(struct kf_rng *r);
/* Damage a valid argument: flip bits or drop boundary values into
 * naturally aligned fields of @len bytes at @p.
 */
void kf_mutate(struct kf_rng *r, void *p, size_t len);
/* An address nothing is mapped at, in user or kernel space. */
uint64_t kf_bad_pointer(struct kf_rng *r);

/* --- kfuzz_stats.c -------------------------------------------------------- */

enum kf_op {
	KF_GET_PARAM, KF_SET_PARAM, KF_BO_CREATE, KF_BO_MMAP_OFFSET, KF_BO_INFO,
	KF_RING_CREATE, KF_RING_DESTROY, KF_RING_SUBMIT, KF_RING_STATS, KF_SEM_ALLOC,
	KF_SEM_FREE, KF_SEM_ACCESS, KF_SEM_WAIT, KF_PROGRAM_LOAD, KF_PROGRAM_FREE,
	KF_SUBMIT, KF_JOB_WAIT, KF_CC_TRIGGER, KF_SEM_EXPORT, KF_SEM_IMPORT,
	KF_COMPUTE_SUBMIT, KF_COMPUTE_WAIT, KF_GET_LAST_ERROR,
	KF_NIC_REMOTE_MAP, KF_NIC_REMOTE_SEMS, KF_NIC_TAKE, KF_NIC_DONE, KF_NIC_DELIVER,
	KF_NIC_POLL,
	KF_VERSION, KF_GET_MAGIC, KF_GET_UNIQUE, KF_GET_CAP, KF_SET_CLIENT_CAP,
	KF_GEM_CLOSE, KF_GEM_FLINK, KF_GEM_OPEN, KF_PRIME_HANDLE_TO_FD,
	KF_PRIME_FD_TO_HANDLE, KF_SYNCOBJ_CREATE, KF_SYNCOBJ_DESTROY,
	KF_SYNCOBJ_HANDLE_TO_FD, KF_SYNCOBJ_FD_TO_HANDLE, KF_SYNCOBJ_WAIT,
	KF_SYNCOBJ_RESET, KF_SYNCOBJ_SIGNAL, KF_SYNCOBJ_TIMELINE_WAIT, KF_SYNCOBJ_QUERY,
	KF_SYNCOBJ_TRANSFER, KF_SYNCOBJ_TIMELINE_SIGNAL, KF_RANDOM_NR, KF_MMAP,
	KF_SYNC_FILE_INFO, KF_NEW_DEVICE, KF_DEL_DEVICE, KF_SYSFS_WRITE, KF_DEBUGFS_WRITE,
	KF_NOPS
};

/* Counts live in shared memory: call before forking the workers. */
int kf_stats_init(void);
void kf_count(enum kf_op op, int rc);
/* "NAME: 0=12 -EINVAL=3 ..." per operation that ran, each line after @prefix */
void kf_stats_print(FILE *out, const char *prefix);
uint64_t kf_stats_total(void);

/* --- kfuzz_sys.c ---------------------------------------------------------- */

/* ioctl: 0 or -errno, once (a fuzzed call must not be retried on EINTR). */
int kf_ioctl(int fd, unsigned long req, void *arg);
/* ioctl retried on EINTR: for the scenarios' own set-up calls. */
int kf_ioc(int fd, unsigned long req, void *arg);
int64_t kf_now_ns(void);
void kf_sleep_ms(long ms);
/* Minors of every ccore accel device, lowest first; returns how many. */
int kf_accel_minors(int *minors, int max);
/* Device @index of ccore_sim fabric @fabric: its minor, or -1. */
int kf_fabric_minor(int fabric, uint32_t index);
/* The ccore_sim fabric of accel minor @minor, or -1. */
int kf_minor_fabric(int minor);
int kf_open_minor(int minor);
/* Write @val to a sysfs/debugfs file: 0 or -errno. */
int kf_write_file(const char *path, const char *val);
/* "ID NDEV OPTIONS" to new_device, and ID to del_device: 0 or -errno */
int kf_new_fabric(int id, int ndev, const char *options);
int kf_del_fabric(int id);
/* del_device only if the fabric exists (no error in the kernel log) */
int kf_del_fabric_if(int id);

/* Existing fabrics, to delete and restore around a module reload. */
struct kf_fabrics {
	int count;
	int id[16];
	int ndev[16];
	char options[16][256];
};
void kf_fabrics_save(struct kf_fabrics *s);
int kf_fabrics_delete(const struct kf_fabrics *s);
int kf_fabrics_restore(const struct kf_fabrics *s);
/* delete_module("ccore") and finit_module of the guest's ccore.ko */
int kf_module_unload(void);
int kf_module_load(void);
bool kf_module_loaded(void);

/* The kernel log: a marker line, then what came after it. */
void kf_klog_mark(const char *tag);
/* Lines after the last marker @tag that match a kernel splat (WARNING,
 * BUG, Oops, KFENCE, general protection, Poison overwritten, ...): how
 * many; the first is copied to @first.
 */
int kf_klog_bad_since(const char *tag, char *first, size_t len);
unsigned long kf_tainted(void);
/* Ask SLUB to check every object of every cache (poison, red zones). */
void kf_slab_validate(void);

/* --- kfuzz_model.c -------------------------------------------------------- */

#define KF_MAX_OBJS 32
/*
 * Device memory a file creates in its life, at most: the simulated
 * devices' memory is the guest's (16 GiB per device by default, in a 2 GiB
 * guest), and 12 files of big buffers ran it out of memory (OOM killer).
 */
#define KF_FILE_BO_BYTES (64ull << 20)

struct kf_bo {
	uint32_t handle;
	uint64_t addr, size;
	void *map;			/* mmap()ed, or NULL */
};

struct kf_ring {
	uint32_t handle, core, engine, ring, size;
	uint32_t index_count;
	int64_t index_stride;
};

struct kf_sems {
	uint32_t first, count;
	bool imported;
};

struct kf_program {
	uint32_t handle, cc;
};

/* A NIC_REMOTE_MAP mapping: descriptors may COPY into it (dev_addr). */
struct kf_remote {
	uint64_t addr, size;
};

/* A transfer NIC_TAKE handed over and NIC_DONE has not reported. */
struct kf_taken {
	uint32_t ring, seq;
};

/* One fuzzed open file of an accel device and what it owns. */
struct kf_file {
	int fd;
	int minor;
	uint32_t dev_index, cores, cc_per_core, engines, rings, sems_per_core;
	uint32_t max_ring, max_program;
	/* NODE_INDEX, DEVICES_PER_NODE, NUM_DEVICES: which devices are remote */
	uint32_t node, per_node, num_devices;
	struct kf_bo bos[KF_MAX_OBJS];
	int nbos;
	uint64_t bo_bytes;		/* created in this file's life (KF_FILE_BO_BYTES) */
	struct kf_ring rings_[KF_MAX_OBJS];
	int nrings;
	struct kf_sems sems[KF_MAX_OBJS];
	int nsems;
	struct kf_program programs[KF_MAX_OBJS];
	int nprograms;
	uint64_t jobs[KF_MAX_OBJS];
	int njobs;
	uint32_t syncobjs[KF_MAX_OBJS];
	int nsyncobjs;
	uint32_t flinks[KF_MAX_OBJS];
	int nflinks;
	struct kf_remote remotes[KF_MAX_OBJS];
	int nremotes;
	struct kf_sems remote_sems[KF_MAX_OBJS];
	int nremote_sems;
	struct kf_taken taken[KF_MAX_OBJS];
	int ntaken;
};

int kf_file_open(struct kf_file *f, int minor);
void kf_file_close(struct kf_file *f);
/* Forget what a failed or torn-down object left behind. */
void kf_model_drop_bo(struct kf_file *f, int i);
void kf_model_drop_ring(struct kf_file *f, int i);
/* The slot of a model array to fill: the next free one, or a random victim when full. */
int kf_model_slot(struct kf_rng *r, int *n);
/* Add, replacing a random entry when full. */
void kf_model_add_bo(struct kf_rng *r, struct kf_file *f, const struct kf_bo *bo);
void kf_model_add_ring(struct kf_rng *r, struct kf_file *f, const struct kf_ring *ring);
void kf_model_add_sems(struct kf_rng *r, struct kf_file *f, const struct kf_sems *s);
void kf_model_add_program(struct kf_rng *r, struct kf_file *f, uint32_t handle, uint32_t cc);
void kf_model_add_u64(struct kf_rng *r, uint64_t *arr, int *n, uint64_t v);
void kf_model_add_u32(struct kf_rng *r, uint32_t *arr, int *n, uint32_t v);
/* A random live object, or a plausible wrong one (0, stale, huge). */
uint32_t kf_pick_bo_handle(struct kf_rng *r, const struct kf_file *f);
uint32_t kf_pick_syncobj(struct kf_rng *r, const struct kf_file *f);
uint32_t kf_pick_sem(struct kf_rng *r, const struct kf_file *f);
/* A valid range of @len bytes inside a buffer of @f (len chosen if 0). */
bool kf_pick_range(struct kf_rng *r, const struct kf_file *f, uint64_t *addr, uint64_t *len);
/* [*addr, +*len) inside one of the file's remote mappings (*len clamped to it). */
bool kf_pick_remote(struct kf_rng *r, const struct kf_file *f, uint64_t *addr, uint64_t *len);

/* --- kfuzz_ccore_ops.c, kfuzz_drm_ops.c, kfuzz_gen.c ---------------------- */

/*
 * The fd pool a worker shares with its peers over the UNIX socket:
 * dma-bufs, semaphore exports and sync_files it got or made.
 */
struct kf_fdpool {
	int fds[16];
	int n;
};

struct kf_ctx {
	struct kf_rng *rng;
	struct kf_file *files;
	int nfiles;
	struct kf_fdpool *pool;
	int wait_ms;			/* every wait's deadline, from now */
	bool skip_known;		/* avoid what the eight findings crash on */
};

/* One random ccore (or generic DRM) ioctl on file @f; returns the op. */
enum kf_op kf_ccore_op(struct kf_ctx *c, struct kf_file *f);
enum kf_op kf_drm_op(struct kf_ctx *c, struct kf_file *f);
/* The NIC queue's ioctls and poll() (kfuzz_nic_ops.c), for kf_ccore_op()'s mix. */
enum kf_op kf_nic_remote_map(struct kf_ctx *c, struct kf_file *f);
enum kf_op kf_nic_remote_sems(struct kf_ctx *c, struct kf_file *f);
enum kf_op kf_nic_take(struct kf_ctx *c, struct kf_file *f);
enum kf_op kf_nic_done(struct kf_ctx *c, struct kf_file *f);
enum kf_op kf_nic_deliver(struct kf_ctx *c, struct kf_file *f);
enum kf_op kf_nic_poll(struct kf_ctx *c, struct kf_file *f);
/* A device of another host than @f's (or, on a one-host fabric, any index). */
uint32_t kf_remote_device(struct kf_rng *r, const struct kf_file *f);
/* One call of the random mix on file @f, as kf_ccore_op() and kf_drm_op() make them. */
typedef enum kf_op kf_op_fn(struct kf_ctx *c, struct kf_file *f);
/* A call of the mix and its weight: how often it is drawn against its table's others. */
struct kf_weighted_op {
	kf_op_fn *fn;
	uint32_t weight;
};
/* One of the @n calls of @table, drawn by weight. */
kf_op_fn *kf_pick_op(struct kf_rng *r, const struct kf_weighted_op *table, size_t n);
/* Whether this call's arguments, built valid, are to be damaged (one in five). */
bool kf_mutating(struct kf_ctx *c);
/* One fuzzed call: @arg (@len bytes) mutated when kf_mutating() says so, then
 * ioctl @req issued once on @f and its return code counted under @op: that code.
 */
int kf_fuzz_call(struct kf_ctx *c, struct kf_file *f, enum kf_op op, unsigned long req, void *arg,
		 size_t len);
void kf_pool_add(struct kf_rng *r, struct kf_fdpool *p, int fd);
int kf_pool_pick(struct kf_rng *r, const struct kf_fdpool *p);

/* A valid program for CC core @cc of @f: waits, loops, STARTs of its rings. */
uint32_t kf_gen_program(struct kf_rng *r, const struct kf_file *f, uint32_t cc,
			struct drm_ccore_insn *insns, uint32_t max);
/* Valid descriptors over @f's buffers and semaphores. */
void kf_gen_descs(struct kf_rng *r, const struct kf_file *f, const struct kf_ring *ring,
		  struct drm_ccore_desc *d, uint32_t n);

/* --- kfuzz_random.c / kfuzz_scenarios.c ----------------------------------- */

struct kf_random_opts {
	uint64_t seed;
	int seconds;
	int procs;
	int files;			/* per process */
	bool fabrics;			/* create and delete own fabrics */
	bool skip_known;		/* avoid the eight findings' triggers */
	int wait_ms;			/* longest deadline of a wait */
};

int kf_random_run(const struct kf_random_opts *o);

void kf_scenarios_list(FILE *out);
/* Run one scenario by name ("NAME/CASE": some of its cases), or "all": TAP on
 * stdout; 0 if every one passed.
 */
int kf_scenarios_run(const char *name_case);

#endif
