/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the kselftest-harness programs that test the uAPI of
 * the ccore accel driver (/dev/accel/accelN, DRM driver name "ccore").
 *
 * Every helper that wraps an ioctl returns 0 or the negative errno, so a
 * test reads ASSERT_EQ(-EINVAL, ring_create(...)).  (A TH_LOG() after an
 * ASSERT belongs to it only inside braces: loops keep theirs.)  Nothing here links
 * libdrm: the tests use the DRM ioctls directly, so the QEMU guest needs no
 * library beyond libc.
 */
#ifndef CCORE_DRV_TEST_H
#define CCORE_DRV_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "drm.h"
#include "ccore_accel.h"
#include "ccore_sim_place.h"
#include "kselftest_harness.h"

#define CCORE_MAX_ACCEL 64
#define NO_INDEX 0xffffffffu
#define NSEC_PER_MSEC 1000000ll
#define NSEC_PER_SEC 1000000000ll
#define DEBUGFS_CCORE "/sys/kernel/debug/ccore"
#define SIM_BUS "/sys/bus/ccore_sim"

#define NO_DEVICE_MSG \
	"no ccore device: load ccore.ko and create one (echo \"0 2\" > /sys/bus/ccore_sim/new_device)"

/* One opened ccore device and what GET_PARAM says about it. */
struct ccore_dev {
	int fd;
	int minor;			/* N of /dev/accel/accelN */
	char path[64];
	int fabric;			/* ccore_sim bus id, -1 if not simulated */
	uint32_t index;			/* DEVICE_INDEX */
	uint32_t num_devices;
	uint32_t cores, cc_per_core, engines, rings, sems;
	uint64_t hbm;
	uint32_t min_packet, max_packet, max_ring, max_program;
	uint32_t fw_size;
};

static inline int ioc(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* An absolute CLOCK_MONOTONIC deadline @ms from now, as every wait takes. */
static inline int64_t deadline_ms(int64_t ms)
{
	return now_ns() + ms * NSEC_PER_MSEC;
}

static inline void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* The DRM driver name of @fd, or "" */
static inline void drm_name(int fd, char *name, size_t len)
{
	struct drm_version v;

	memset(&v, 0, sizeof(v));
	memset(name, 0, len);
	v.name = name;
	v.name_len = len - 1;
	if (ioc(fd, DRM_IOCTL_VERSION, &v))
		name[0] = '\0';
}

static inline int get_param(int fd, uint32_t param, uint64_t *value)
{
	struct drm_ccore_param_args a = { .param = param };
	int rc = ioc(fd, DRM_IOCTL_CCORE_GET_PARAM, &a);

	*value = rc ? 0 : a.value;
	return rc;
}

static inline uint64_t param(int fd, uint32_t p)
{
	uint64_t v;

	return get_param(fd, p, &v) ? 0 : v;
}

static inline int set_param(int fd, uint32_t p, uint64_t value)
{
	struct drm_ccore_param_args a = { .param = p, .value = value };

	return ioc(fd, DRM_IOCTL_CCORE_SET_PARAM, &a);
}

static inline int ccore_open_minor(int minor, struct ccore_dev *d)
{
	char name[32];
	int fd;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	snprintf(d->path, sizeof(d->path), "/dev/accel/accel%d", minor);
	fd = open(d->path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	drm_name(fd, name, sizeof(name));
	if (strcmp(name, "ccore")) {
		close(fd);
		return -ENODEV;
	}
	d->fd = fd;
	d->minor = minor;
	d->fabric = ccore_sim_fabric(minor);
	d->index = param(fd, DRM_CCORE_PARAM_DEVICE_INDEX);
	d->num_devices = param(fd, DRM_CCORE_PARAM_NUM_DEVICES);
	d->cores = param(fd, DRM_CCORE_PARAM_NUM_CORES);
	d->cc_per_core = param(fd, DRM_CCORE_PARAM_CC_CORES_PER_CORE);
	d->engines = param(fd, DRM_CCORE_PARAM_ENGINES_PER_CORE);
	d->rings = param(fd, DRM_CCORE_PARAM_RINGS_PER_ENGINE);
	d->sems = param(fd, DRM_CCORE_PARAM_SEMS_PER_CORE);
	d->hbm = param(fd, DRM_CCORE_PARAM_HBM_SIZE);
	d->min_packet = param(fd, DRM_CCORE_PARAM_MIN_PACKET_SIZE);
	d->max_packet = param(fd, DRM_CCORE_PARAM_MAX_PACKET_SIZE);
	d->max_ring = param(fd, DRM_CCORE_PARAM_MAX_RING_SIZE);
	d->max_program = param(fd, DRM_CCORE_PARAM_MAX_PROGRAM_SIZE);
	d->fw_size = param(fd, DRM_CCORE_PARAM_FIRMWARE_SIZE);
	return 0;
}

/*
 * Open a ccore device: the first one (lowest accel minor) when @fabric < 0,
 * else device @index of fabric @fabric.  Returns 0 or -ENODEV.
 */
static inline int ccore_open_where(int fabric, uint32_t index, struct ccore_dev *d)
{
	int m;

	for (m = 0; m < CCORE_MAX_ACCEL; m++) {
		if (ccore_open_minor(m, d))
			continue;
		if (fabric < 0 || (d->fabric == fabric && d->index == index))
			return 0;
		close(d->fd);
		d->fd = -1;
	}
	return -ENODEV;
}

static inline int ccore_open_first(struct ccore_dev *d)
{
	return ccore_open_where(-1, 0, d);
}

/*
 * The fixture most tests share: the first ccore device open as self->d (its
 * file also self->fd), the test skipped when there is none, the file closed
 * after.  Each test file names its own, so cases keep their names (bo.version).
 */
#define CCORE_DEV_FIXTURE(name)						\
	FIXTURE(name) {							\
		struct ccore_dev d;					\
		int fd;							\
	};								\
									\
	FIXTURE_SETUP(name)						\
	{								\
		if (ccore_open_first(&self->d))				\
			SKIP(return, NO_DEVICE_MSG);			\
		self->fd = self->d.fd;					\
	}								\
									\
	FIXTURE_TEARDOWN(name)						\
	{								\
		if (self->fd >= 0)					\
			close(self->fd);				\
	}

/* Another file on the same device. */
static inline int reopen(const struct ccore_dev *d)
{
	return open(d->path, O_RDWR | O_CLOEXEC);
}

static inline uint32_t num_cc(const struct ccore_dev *d)
{
	return d->cores * d->cc_per_core;
}

/* --- buffer objects ------------------------------------------------------ */

static inline int bo_create(int fd, uint64_t size, uint32_t *handle, uint64_t *dev_addr)
{
	struct drm_ccore_bo_create a = { .size = size };
	int rc = ioc(fd, DRM_IOCTL_CCORE_BO_CREATE, &a);

	if (handle)
		*handle = rc ? 0 : a.handle;
	if (dev_addr)
		*dev_addr = rc ? 0 : a.dev_addr;
	return rc;
}

static inline int bo_userptr(int fd, void *ptr, uint64_t size, uint32_t *handle,
			     uint64_t *dev_addr)
{
	struct drm_ccore_bo_create a = {
		.size = size, .flags = DRM_CCORE_BO_F_USERPTR, .userptr = (uintptr_t)ptr,
	};
	int rc = ioc(fd, DRM_IOCTL_CCORE_BO_CREATE, &a);

	if (handle)
		*handle = rc ? 0 : a.handle;
	if (dev_addr)
		*dev_addr = rc ? 0 : a.dev_addr;
	return rc;
}

static inline int bo_info(int fd, uint32_t handle, struct drm_ccore_bo_info *out)
{
	memset(out, 0, sizeof(*out));
	out->handle = handle;
	return ioc(fd, DRM_IOCTL_CCORE_BO_INFO, out);
}

static inline int bo_mmap_offset(int fd, uint32_t handle, uint64_t *offset)
{
	struct drm_ccore_bo_mmap_offset a = { .handle = handle };
	int rc = ioc(fd, DRM_IOCTL_CCORE_BO_MMAP_OFFSET, &a);

	*offset = rc ? 0 : a.offset;
	return rc;
}

/* Map a buffer into this process; NULL on failure. */
static inline void *bo_map(int fd, uint32_t handle, size_t size)
{
	uint64_t off;
	void *p;

	if (bo_mmap_offset(fd, handle, &off))
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
	return p == MAP_FAILED ? NULL : p;
}

static inline int gem_close(int fd, uint32_t handle)
{
	struct drm_gem_close a = { .handle = handle };

	return ioc(fd, DRM_IOCTL_GEM_CLOSE, &a);
}

static inline int prime_export(int fd, uint32_t handle, int *dmabuf)
{
	struct drm_prime_handle a = { .handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	int rc = ioc(fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &a);

	*dmabuf = rc ? -1 : a.fd;
	return rc;
}

static inline int prime_import(int fd, int dmabuf, uint32_t *handle)
{
	struct drm_prime_handle a = { .fd = dmabuf };
	int rc = ioc(fd, DRM_IOCTL_PRIME_FD_TO_HANDLE, &a);

	*handle = rc ? 0 : a.handle;
	return rc;
}

static inline void fill_pattern(void *p, size_t len, uint32_t seed)
{
	uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/*
 * Two buffers of @size, created and mapped: a source filled with the
 * pattern of @seed and a destination of @dst_byte.
 */
struct bo_pair {
	uint32_t hs, hd;
	uint64_t as, ad;
	uint8_t *s, *d;
};

static inline int bo_pair(int fd, size_t size, uint32_t seed, uint8_t dst_byte,
			  struct bo_pair *p)
{
	if (bo_create(fd, size, &p->hs, &p->as) || bo_create(fd, size, &p->hd, &p->ad))
		return -1;
	p->s = bo_map(fd, p->hs, size);
	p->d = bo_map(fd, p->hd, size);
	if (!p->s || !p->d)
		return -1;
	fill_pattern(p->s, size, seed);
	memset(p->d, dst_byte, size);
	return 0;
}

static inline bool check_pattern(const void *p, size_t len, uint32_t seed)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != (uint8_t)(seed * 31 + i * 7 + (i >> 8)))
			return false;
	return true;
}

/* --- rings and descriptors ----------------------------------------------- */

/* A ring; indexed if @count > 0 (STARTI moves its data descriptors index * @stride bytes). */
static inline int ring_create_at(int fd, uint32_t core, uint32_t engine, uint32_t ring,
				 uint32_t size, uint32_t packet, uint32_t flags, int64_t stride,
				 uint32_t count, uint32_t *handle)
{
	struct drm_ccore_ring_create a = {
		.core = core, .engine = engine, .ring = ring, .size = size,
		.packet_size = packet, .flags = flags, .index_stride = stride, .index_count = count,
	};
	int rc = ioc(fd, DRM_IOCTL_CCORE_RING_CREATE, &a);

	if (handle)
		*handle = rc ? 0 : a.handle;
	return rc;
}

static inline int ring_create(int fd, uint32_t core, uint32_t engine, uint32_t ring,
			      uint32_t size, uint32_t packet, uint32_t flags, uint32_t *handle)
{
	return ring_create_at(fd, core, engine, ring, size, packet, flags, 0, 0, handle);
}

static inline int ring_create_indexed(int fd, uint32_t core, uint32_t engine, uint32_t ring,
				      uint32_t size, int64_t stride, uint32_t count,
				      uint32_t *handle)
{
	return ring_create_at(fd, core, engine, ring, size, 0, 0, stride, count, handle);
}

static inline int ring_destroy(int fd, uint32_t handle)
{
	struct drm_ccore_ring_destroy a = { .handle = handle };

	return ioc(fd, DRM_IOCTL_CCORE_RING_DESTROY, &a);
}

static inline int ring_submit(int fd, uint32_t handle, const struct drm_ccore_desc *d,
			      uint32_t count, uint32_t flags, uint32_t *bad_index)
{
	struct drm_ccore_ring_submit a = {
		.handle = handle, .count = count, .descs = (uintptr_t)d, .flags = flags,
		.bad_index = 12345,
	};
	int rc = ioc(fd, DRM_IOCTL_CCORE_RING_SUBMIT, &a);

	if (bad_index)
		*bad_index = a.bad_index;
	return rc;
}

static inline int ring_stats(int fd, uint32_t handle, struct drm_ccore_ring_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->handle = handle;
	return ioc(fd, DRM_IOCTL_CCORE_RING_STATS, st);
}

/* Poll until the ring has completed (or failed) @n descriptors in all. */
static inline int ring_drain(int fd, uint32_t handle, uint64_t n, int64_t ms)
{
	int64_t end = deadline_ms(ms);
	struct drm_ccore_ring_stats st;
	int rc;

	for (;;) {
		rc = ring_stats(fd, handle, &st);
		if (rc)
			return rc;
		if (st.completed + st.errors >= n)
			return 0;
		if (now_ns() > end)
			return -ETIMEDOUT;
		sleep_ms(1);
	}
}

static inline struct drm_ccore_desc desc_copy(uint64_t dst, uint64_t src, uint64_t len)
{
	struct drm_ccore_desc d = {
		.op = DRM_CCORE_DESC_COPY, .len = len, .dst = dst, .src0 = src,
	};
	return d;
}

static inline struct drm_ccore_desc desc_reduce(uint64_t dst, uint64_t a, uint64_t b,
						uint64_t len, uint8_t dtype, uint8_t redop)
{
	struct drm_ccore_desc d = {
		.op = DRM_CCORE_DESC_REDUCE, .dtype = dtype, .redop = redop,
		.len = len, .dst = dst, .src0 = a, .src1 = b,
	};
	return d;
}

static inline struct drm_ccore_desc desc_sem_write(uint32_t sem, uint32_t value, bool set)
{
	struct drm_ccore_desc d = {
		.op = DRM_CCORE_DESC_SEM_WRITE, .value = value, .dst = sem,
		.flags = set ? DRM_CCORE_DESC_F_SEM_SET : 0,
	};
	return d;
}

static inline struct drm_ccore_desc desc_signal(struct drm_ccore_desc d, uint32_t sem,
						uint32_t value)
{
	d.flags |= DRM_CCORE_DESC_F_SIGNAL;
	d.signal_sem = sem;
	d.signal_value = value;
	return d;
}

/* --- semaphores ---------------------------------------------------------- */

static inline int sem_alloc(int fd, uint32_t core, uint32_t count, uint32_t *first)
{
	struct drm_ccore_sem_alloc a = { .core = core, .count = count };
	int rc = ioc(fd, DRM_IOCTL_CCORE_SEM_ALLOC, &a);

	if (first)
		*first = rc ? 0 : a.first;
	return rc;
}

static inline int sem_free(int fd, uint32_t first)
{
	struct drm_ccore_sem_free a = { .first = first };

	return ioc(fd, DRM_IOCTL_CCORE_SEM_FREE, &a);
}

static inline int sem_access(int fd, uint32_t sem, uint32_t op, uint32_t value, uint32_t *out)
{
	struct drm_ccore_sem_access a = { .sem = sem, .op = op, .value = value };
	int rc = ioc(fd, DRM_IOCTL_CCORE_SEM_ACCESS, &a);

	if (out)
		*out = rc ? 0xdeadbeef : a.value;
	return rc;
}

static inline uint32_t sem_read(int fd, uint32_t sem)
{
	uint32_t v;

	return sem_access(fd, sem, DRM_CCORE_SEM_READ, 0, &v) ? 0xdeadbeef : v;
}

static inline int sem_wait(int fd, uint32_t sem, uint32_t value, int64_t deadline)
{
	struct drm_ccore_sem_wait a = { .sem = sem, .value = value, .timeout_ns = deadline };

	return ioc(fd, DRM_IOCTL_CCORE_SEM_WAIT, &a);
}

static inline int sem_export(int fd, uint32_t first, int *out)
{
	struct drm_ccore_sem_export a = { .first = first };
	int rc = ioc(fd, DRM_IOCTL_CCORE_SEM_EXPORT, &a);

	*out = rc ? -1 : a.fd;
	return rc;
}

static inline int sem_import(int fd, int efd, uint32_t *first, uint32_t *count)
{
	struct drm_ccore_sem_import a = { .fd = efd };
	int rc = ioc(fd, DRM_IOCTL_CCORE_SEM_IMPORT, &a);

	if (first)
		*first = rc ? 0 : a.first;
	if (count)
		*count = rc ? 0 : a.count;
	return rc;
}

/* --- CC programs and jobs ------------------------------------------------ */

static inline struct drm_ccore_insn I_op(uint8_t op)
{
	struct drm_ccore_insn i = { .opcode = op };
	return i;
}

#define I_RET() I_op(DRM_CCORE_OP_RET)
#define I_NOP() I_op(DRM_CCORE_OP_NOP)
#define I_HALT() I_op(DRM_CCORE_OP_HALT)

static inline struct drm_ccore_insn I_sem(uint8_t op, uint32_t sem, uint32_t imm)
{
	struct drm_ccore_insn i = { .opcode = op, .sem = sem, .imm = imm };
	return i;
}

#define I_WAIT(s, v) I_sem(DRM_CCORE_OP_WAIT, s, v)
#define I_ACQUIRE(s, v) I_sem(DRM_CCORE_OP_ACQUIRE, s, v)
#define I_SET(s, v) I_sem(DRM_CCORE_OP_SET, s, v)
#define I_ADD(s, v) I_sem(DRM_CCORE_OP_ADD, s, v)

static inline struct drm_ccore_insn I_START(uint8_t engine, uint8_t ring, uint32_t n)
{
	struct drm_ccore_insn i = {
		.opcode = DRM_CCORE_OP_START, .engine = engine, .ring = ring, .imm = n,
	};
	return i;
}

static inline struct drm_ccore_insn I_STARTI(uint8_t engine, uint8_t ring, uint8_t reg,
					    uint32_t n)
{
	struct drm_ccore_insn i = {
		.opcode = DRM_CCORE_OP_STARTI, .engine = engine, .ring = ring, .reg = reg,
		.imm = n,
	};
	return i;
}

static inline struct drm_ccore_insn I_reg(uint8_t op, uint8_t reg, uint32_t imm,
					  int32_t target)
{
	struct drm_ccore_insn i = { .opcode = op, .reg = reg, .imm = imm, .target = target };
	return i;
}

#define I_MOVI(r, v) I_reg(DRM_CCORE_OP_MOVI, r, v, 0)
#define I_ADDI(r, v) I_reg(DRM_CCORE_OP_ADDI, r, v, 0)
#define I_LOOP(r, t) I_reg(DRM_CCORE_OP_LOOP, r, 0, t)

static inline struct drm_ccore_insn I_RWAIT(uint8_t engine, uint8_t ring)
{
	struct drm_ccore_insn i = { .opcode = DRM_CCORE_OP_RWAIT, .engine = engine, .ring = ring };
	return i;
}

static inline struct drm_ccore_insn I_branch(uint8_t op, int32_t target)
{
	struct drm_ccore_insn i = { .opcode = op, .target = target };
	return i;
}

#define I_JUMP(t) I_branch(DRM_CCORE_OP_JUMP, t)
#define I_CALL(t) I_branch(DRM_CCORE_OP_CALL, t)

static inline int prog_load(int fd, uint32_t cc, const struct drm_ccore_insn *insns,
			    uint32_t count, uint32_t *handle, uint32_t *bad_index)
{
	struct drm_ccore_program_load a = {
		.cc_core = cc, .count = count, .insns = (uintptr_t)insns, .bad_index = 12345,
	};
	int rc = ioc(fd, DRM_IOCTL_CCORE_PROGRAM_LOAD, &a);

	if (handle)
		*handle = rc ? 0 : a.handle;
	if (bad_index)
		*bad_index = a.bad_index;
	return rc;
}

static inline int prog_free(int fd, uint32_t handle)
{
	struct drm_ccore_program_free a = { .handle = handle };

	return ioc(fd, DRM_IOCTL_CCORE_PROGRAM_FREE, &a);
}

static inline int submit_job(int fd, uint32_t prog, uint32_t flags, uint32_t in_syncobj,
			     uint32_t out_syncobj, uint32_t timeout_ms, uint64_t *job)
{
	struct drm_ccore_submit a = {
		.program = prog, .flags = flags, .in_syncobj = in_syncobj,
		.out_syncobj = out_syncobj, .timeout_ms = timeout_ms,
	};
	int rc = ioc(fd, DRM_IOCTL_CCORE_SUBMIT, &a);

	if (job)
		*job = rc ? 0 : a.job;
	return rc;
}

static inline int job_wait(int fd, uint64_t job, int64_t deadline, int32_t *status)
{
	struct drm_ccore_job_wait a = { .job = job, .timeout_ns = deadline, .status = 12345 };
	int rc = ioc(fd, DRM_IOCTL_CCORE_JOB_WAIT, &a);

	if (status)
		*status = a.status;
	return rc;
}

static inline int cc_trigger(int fd, uint32_t cc, uint32_t count)
{
	struct drm_ccore_cc_trigger a = { .cc_core = cc, .count = count };

	return ioc(fd, DRM_IOCTL_CCORE_CC_TRIGGER, &a);
}

/* Load @insns on @cc, run them as one triggered job, return its status in
 * *status (the ioctl's error, if any, as the return value).
 */
static inline int run_program(int fd, uint32_t cc, const struct drm_ccore_insn *insns,
			      uint32_t count, uint32_t timeout_ms, int32_t *status)
{
	uint32_t prog;
	uint64_t job;
	int rc;

	rc = prog_load(fd, cc, insns, count, &prog, NULL);
	if (rc)
		return rc;
	rc = submit_job(fd, prog, DRM_CCORE_JOB_F_TRIGGER, 0, 0, timeout_ms, &job);
	if (!rc)
		rc = job_wait(fd, job, deadline_ms(10000), status);
	if (!rc)
		rc = prog_free(fd, prog);
	return rc;
}

/* --- syncobjs ------------------------------------------------------------- */

static inline int syncobj_create(int fd, uint32_t *handle)
{
	struct drm_syncobj_create a = { 0 };
	int rc = ioc(fd, DRM_IOCTL_SYNCOBJ_CREATE, &a);

	*handle = rc ? 0 : a.handle;
	return rc;
}

static inline int syncobj_wait(int fd, uint32_t handle, int64_t deadline)
{
	struct drm_syncobj_wait a = {
		.handles = (uintptr_t)&handle, .count_handles = 1, .timeout_nsec = deadline,
		.flags = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL,
	};

	return ioc(fd, DRM_IOCTL_SYNCOBJ_WAIT, &a);
}

/* --- debugfs fault injection ---------------------------------------------- */

/* Path of debugfs file @name of device @d; false if it does not exist. */
static inline bool debugfs_file(const struct ccore_dev *d, const char *name, char *path,
				size_t len)
{
	snprintf(path, len, DEBUGFS_CCORE "/fabric%d/dev%u/%s", d->fabric, d->index, name);
	return d->fabric >= 0 && access(path, W_OK) == 0;
}

/* Write @text to the sysfs or debugfs file @path in one write: 0, or -errno. */
static inline int write_text(const char *path, const char *text)
{
	ssize_t len = (ssize_t)strlen(text), n;
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n != len)
		rc = n < 0 ? -errno : -EIO;
	close(fd);
	return rc;
}

static inline int write_uint(const char *path, unsigned int v)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u\n", v);
	return write_text(path, buf);
}

/* --- child processes -------------------------------------------------------- */

/*
 * A forked child must not use the harness's ASSERT_* (they long-jump into
 * the parent's test wrapper).  Child code returns 0 or 1 after printing a
 * TAP comment naming the failed check; the parent asserts the exit status.
 */
#define CHILD_EQ(expected, seen) do { \
	long long _e = (long long)(expected), _s = (long long)(seen); \
	if (_e != _s) { \
		fprintf(stderr, "# child %s:%d: %s: expected %lld, got %lld\n", \
			__FILE__, __LINE__, #seen, _e, _s); \
		return 1; \
	} \
} while (0)

#define CHILD_TRUE(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "# child %s:%d: check failed: %s\n", \
			__FILE__, __LINE__, #cond); \
		return 1; \
	} \
} while (0)

/* Run @fn(@arg) in a child process; its exit status (128 + signal). */
static inline int run_child(int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return 127;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid)
		return 126;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#endif
