// SPDX-License-Identifier: GPL-2.0
/*
 * The generic DRM ioctls an accel file answers to (or must refuse): GEM
 * handles and names, PRIME, every syncobj ioctl (huge handle counts
 * included), the version and capability queries, and ioctl numbers
 * nobody defined.  Valid from the model first, then mutated, as the ccore
 * ones are.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/sync_file.h>

#include "kfuzz.h"

#define MAX_HANDLES 8

/* Handle counts: a few, or (unless avoided) absurdly many. */
static uint32_t handle_count(struct kf_ctx *c, uint32_t live)
{
	if (!c->skip_known && kf_chance(c->rng, 5))
		return kf_chance(c->rng, 50) ? 0x7fffffffu : (uint32_t)kf_boundary(c->rng);
	if (kf_chance(c->rng, 5))
		return 0;
	return 1 + kf_below(c->rng, live < MAX_HANDLES ? live + 1 : MAX_HANDLES);
}

/* A mutation may have made the count huge: finding 8, avoided on request. */
static void clamp_count(struct kf_ctx *c, __u32 *count)
{
	if (c->skip_known && *count > MAX_HANDLES)
		*count = MAX_HANDLES;
}

static uint64_t user_ptr(struct kf_ctx *c, void *p)
{
	return kf_chance(c->rng, 5) ? kf_bad_pointer(c->rng) : (uint64_t)(uintptr_t)p;
}

static void fill_handles(struct kf_ctx *c, struct kf_file *f, uint32_t *h, uint64_t *points)
{
	int i;

	for (i = 0; i < MAX_HANDLES; i++) {
		h[i] = kf_pick_syncobj(c->rng, f);
		if (points)
			points[i] = kf_chance(c->rng, 50) ? 0 : 1 + kf_below(c->rng, 4);
	}
}

static enum kf_op version(struct kf_ctx *c, struct kf_file *f)
{
	char name[32], date[32], desc[64];
	struct drm_version a = {
		.name_len = kf_below(c->rng, sizeof(name)), .name = name,
		.date_len = kf_below(c->rng, sizeof(date)), .date = date,
		.desc_len = kf_below(c->rng, sizeof(desc)), .desc = desc,
	};

	if (kf_mutating(c)) {
		a.name = (char *)(uintptr_t)kf_bad_pointer(c->rng);
		a.name_len = kf_chance(c->rng, 50) ? (size_t)kf_boundary(c->rng) : a.name_len;
	}
	kf_count(KF_VERSION, kf_ioctl(f->fd, DRM_IOCTL_VERSION, &a));
	return KF_VERSION;
}

/* GET_MAGIC and GET_UNIQUE: an accel file has no master (finding 8). */
static enum kf_op master_queries(struct kf_ctx *c, struct kf_file *f)
{
	char buf[64];
	struct drm_unique u = { .unique_len = sizeof(buf), .unique = buf };
	struct drm_auth a = { 0 };

	if (c->skip_known)
		return KF_GET_MAGIC;
	if (kf_chance(c->rng, 50)) {
		kf_count(KF_GET_MAGIC, kf_ioctl(f->fd, DRM_IOCTL_GET_MAGIC, &a));
		return KF_GET_MAGIC;
	}
	kf_count(KF_GET_UNIQUE, kf_ioctl(f->fd, DRM_IOCTL_GET_UNIQUE, &u));
	return KF_GET_UNIQUE;
}

static enum kf_op get_cap(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_get_cap a = { .capability = kf_below(c->rng, 0x20) };

	kf_fuzz_call(c, f, KF_GET_CAP, DRM_IOCTL_GET_CAP, &a, sizeof(a));
	return KF_GET_CAP;
}

static enum kf_op set_client_cap(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_set_client_cap a = {
		.capability = 1 + kf_below(c->rng, 7), .value = kf_below(c->rng, 2),
	};

	kf_fuzz_call(c, f, KF_SET_CLIENT_CAP, DRM_IOCTL_SET_CLIENT_CAP, &a, sizeof(a));
	return KF_SET_CLIENT_CAP;
}

static enum kf_op gem_close(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_gem_close a = { .handle = kf_pick_bo_handle(c->rng, f) };
	int rc, i;

	rc = kf_fuzz_call(c, f, KF_GEM_CLOSE, DRM_IOCTL_GEM_CLOSE, &a, sizeof(a));
	for (i = 0; !rc && i < f->nbos; i++)
		if (f->bos[i].handle == a.handle) {
			kf_model_drop_bo(f, i);
			break;
		}
	return KF_GEM_CLOSE;
}

static enum kf_op gem_flink_open(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_gem_flink fl = { .handle = kf_pick_bo_handle(c->rng, f) };
	struct drm_gem_open op = { 0 };
	int rc;

	if (kf_chance(c->rng, 50)) {
		rc = kf_ioctl(f->fd, DRM_IOCTL_GEM_FLINK, &fl);
		kf_count(KF_GEM_FLINK, rc);
		if (!rc)
			kf_model_add_u32(c->rng, f->flinks, &f->nflinks, fl.name);
		return KF_GEM_FLINK;
	}
	op.name = f->nflinks && kf_chance(c->rng, 80) ? f->flinks[kf_below(c->rng, (uint32_t)f->nflinks)] :
							  1 + kf_below(c->rng, 16);
	kf_fuzz_call(c, f, KF_GEM_OPEN, DRM_IOCTL_GEM_OPEN, &op, sizeof(op));
	return KF_GEM_OPEN;
}

static enum kf_op prime_export(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_prime_handle a = {
		.handle = kf_pick_bo_handle(c->rng, f), .flags = DRM_CLOEXEC | DRM_RDWR, .fd = -1,
	};
	int rc;

	rc = kf_fuzz_call(c, f, KF_PRIME_HANDLE_TO_FD, DRM_IOCTL_PRIME_HANDLE_TO_FD, &a, sizeof(a));
	if (!rc)
		kf_pool_add(c->rng, c->pool, a.fd);
	return KF_PRIME_HANDLE_TO_FD;
}

/* An imported buffer joins the model with the address BO_INFO gives it. */
static enum kf_op prime_import(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_prime_handle a = { .fd = kf_pool_pick(c->rng, c->pool) };
	struct drm_ccore_bo_info info = { 0 };
	struct kf_bo bo = { 0 };
	int rc;

	rc = kf_fuzz_call(c, f, KF_PRIME_FD_TO_HANDLE, DRM_IOCTL_PRIME_FD_TO_HANDLE, &a, sizeof(a));
	if (rc)
		return KF_PRIME_FD_TO_HANDLE;
	info.handle = a.handle;
	rc = kf_ioctl(f->fd, DRM_IOCTL_CCORE_BO_INFO, &info);
	kf_count(KF_BO_INFO, rc);
	if (!rc && info.dev_addr && info.size <= (64ull << 20)) {
		bo.handle = a.handle;
		bo.addr = info.dev_addr;
		bo.size = info.size;
		kf_model_add_bo(c->rng, f, &bo);
	}
	return KF_PRIME_FD_TO_HANDLE;
}

static enum kf_op syncobj_create(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_syncobj_create a = {
		.flags = kf_chance(c->rng, 40) ? DRM_SYNCOBJ_CREATE_SIGNALED : 0,
	};
	struct drm_syncobj_destroy d;
	int rc;

	if (f->nsyncobjs == KF_MAX_OBJS) {
		d = (struct drm_syncobj_destroy){ .handle = f->syncobjs[0] };
		kf_count(KF_SYNCOBJ_DESTROY, kf_ioctl(f->fd, DRM_IOCTL_SYNCOBJ_DESTROY, &d));
		f->syncobjs[0] = f->syncobjs[--f->nsyncobjs];
	}
	rc = kf_fuzz_call(c, f, KF_SYNCOBJ_CREATE, DRM_IOCTL_SYNCOBJ_CREATE, &a, sizeof(a));
	if (!rc)
		kf_model_add_u32(c->rng, f->syncobjs, &f->nsyncobjs, a.handle);
	return KF_SYNCOBJ_CREATE;
}

static enum kf_op syncobj_destroy(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_syncobj_destroy a = { .handle = kf_pick_syncobj(c->rng, f) };
	int rc, i;

	rc = kf_fuzz_call(c, f, KF_SYNCOBJ_DESTROY, DRM_IOCTL_SYNCOBJ_DESTROY, &a, sizeof(a));
	for (i = 0; !rc && i < f->nsyncobjs; i++)
		if (f->syncobjs[i] == a.handle) {
			f->syncobjs[i] = f->syncobjs[--f->nsyncobjs];
			break;
		}
	return KF_SYNCOBJ_DESTROY;
}

/* Export a syncobj, or its fence as a sync_file: either fd goes to the pool. */
static enum kf_op syncobj_export(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_syncobj_handle a = {
		.handle = kf_pick_syncobj(c->rng, f), .fd = -1,
		.flags = kf_chance(c->rng, 50) ? DRM_SYNCOBJ_HANDLE_TO_FD_FLAGS_EXPORT_SYNC_FILE : 0,
	};
	int rc;

	rc = kf_fuzz_call(c, f, KF_SYNCOBJ_HANDLE_TO_FD, DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD, &a,
			  sizeof(a));
	if (!rc)
		kf_pool_add(c->rng, c->pool, a.fd);
	return KF_SYNCOBJ_HANDLE_TO_FD;
}

static enum kf_op syncobj_import(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_syncobj_handle a = { .fd = kf_pool_pick(c->rng, c->pool) };
	int rc;

	if (kf_chance(c->rng, 50)) {
		a.flags = DRM_SYNCOBJ_FD_TO_HANDLE_FLAGS_IMPORT_SYNC_FILE;
		a.handle = kf_pick_syncobj(c->rng, f);
	}
	rc = kf_fuzz_call(c, f, KF_SYNCOBJ_FD_TO_HANDLE, DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE, &a,
			  sizeof(a));
	if (!rc && !a.flags)
		kf_model_add_u32(c->rng, f->syncobjs, &f->nsyncobjs, a.handle);
	return KF_SYNCOBJ_FD_TO_HANDLE;
}

static enum kf_op syncobj_wait(struct kf_ctx *c, struct kf_file *f)
{
	uint32_t h[MAX_HANDLES];
	uint64_t points[MAX_HANDLES];
	int64_t end = kf_now_ns() + kf_below(c->rng, (uint32_t)c->wait_ms + 1) * KF_NSEC_PER_MSEC;
	uint32_t flags = kf_below(c->rng, 8);

	fill_handles(c, f, h, points);
	if (kf_chance(c->rng, 50)) {
		struct drm_syncobj_wait a = {
			.handles = user_ptr(c, h), .timeout_nsec = end,
			.count_handles = handle_count(c, (uint32_t)f->nsyncobjs), .flags = flags,
		};

		if (kf_mutating(c))
			kf_mutate(c->rng, &a, sizeof(a));
		clamp_count(c, &a.count_handles);
		a.timeout_nsec = a.timeout_nsec > end ? end : a.timeout_nsec;
		kf_count(KF_SYNCOBJ_WAIT, kf_ioctl(f->fd, DRM_IOCTL_SYNCOBJ_WAIT, &a));
		return KF_SYNCOBJ_WAIT;
	} else {
		struct drm_syncobj_timeline_wait a = {
			.handles = user_ptr(c, h), .points = user_ptr(c, points),
			.timeout_nsec = end, .count_handles = handle_count(c, (uint32_t)f->nsyncobjs),
			.flags = flags,
		};

		if (kf_mutating(c))
			kf_mutate(c->rng, &a, sizeof(a));
		clamp_count(c, &a.count_handles);
		a.timeout_nsec = a.timeout_nsec > end ? end : a.timeout_nsec;
		kf_count(KF_SYNCOBJ_TIMELINE_WAIT,
			 kf_ioctl(f->fd, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &a));
		return KF_SYNCOBJ_TIMELINE_WAIT;
	}
}

static enum kf_op syncobj_array(struct kf_ctx *c, struct kf_file *f)
{
	uint32_t h[MAX_HANDLES];
	uint64_t points[MAX_HANDLES];
	uint32_t pick = kf_below(c->rng, 4);

	fill_handles(c, f, h, points);
	if (pick < 2) {
		struct drm_syncobj_array a = {
			.handles = user_ptr(c, h),
			.count_handles = handle_count(c, (uint32_t)f->nsyncobjs),
		};
		enum kf_op op = pick ? KF_SYNCOBJ_SIGNAL : KF_SYNCOBJ_RESET;

		if (kf_mutating(c))
			kf_mutate(c->rng, &a, sizeof(a));
		clamp_count(c, &a.count_handles);
		kf_count(op, kf_ioctl(f->fd, pick ? DRM_IOCTL_SYNCOBJ_SIGNAL :
					       DRM_IOCTL_SYNCOBJ_RESET, &a));
		return op;
	} else {
		struct drm_syncobj_timeline_array a = {
			.handles = user_ptr(c, h), .points = user_ptr(c, points),
			.count_handles = handle_count(c, (uint32_t)f->nsyncobjs),
			.flags = kf_chance(c->rng, 30) ? DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED : 0,
		};
		enum kf_op op = pick == 2 ? KF_SYNCOBJ_QUERY : KF_SYNCOBJ_TIMELINE_SIGNAL;

		if (op == KF_SYNCOBJ_TIMELINE_SIGNAL)
			a.flags = 0;
		if (kf_mutating(c))
			kf_mutate(c->rng, &a, sizeof(a));
		clamp_count(c, &a.count_handles);
		kf_count(op, kf_ioctl(f->fd, op == KF_SYNCOBJ_QUERY ? DRM_IOCTL_SYNCOBJ_QUERY :
						DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a));
		return op;
	}
}

static enum kf_op syncobj_transfer(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_syncobj_transfer a = {
		.src_handle = kf_pick_syncobj(c->rng, f), .dst_handle = kf_pick_syncobj(c->rng, f),
		.src_point = kf_below(c->rng, 3), .dst_point = kf_below(c->rng, 3),
	};

	kf_fuzz_call(c, f, KF_SYNCOBJ_TRANSFER, DRM_IOCTL_SYNCOBJ_TRANSFER, &a, sizeof(a));
	return KF_SYNCOBJ_TRANSFER;
}

/*
 * Any ioctl number of the DRM range, with any direction and size: the
 * core and the driver must answer or refuse it cleanly.  With skip_known
 * the master ioctls (GET_UNIQUE, GET_MAGIC, AUTH_MAGIC, SET_MASTER,
 * DROP_MASTER: finding 8's kind) are left out.
 */
static enum kf_op random_nr(struct kf_ctx *c, struct kf_file *f)
{
	uint8_t buf[512];
	uint32_t nr = kf_below(c->rng, 256), dir = kf_below(c->rng, 4);
	uint32_t size = kf_below(c->rng, sizeof(buf));
	unsigned long req;

	if (c->skip_known && (nr == 0x01 || nr == 0x02 || nr == 0x11 || nr == 0x1e ||
			      nr == 0x1f || (nr >= 0xbf && nr <= 0xcd)))
		nr = 0xff;	/* master ioctls, syncobj arrays of any size */
	for (uint32_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)kf_next(c->rng);
	req = _IOC(dir, DRM_IOCTL_BASE, nr, size);
	kf_count(KF_RANDOM_NR, kf_ioctl(f->fd, req, buf));
	return KF_RANDOM_NR;
}

/* SYNC_IOC_FILE_INFO on whatever the pool holds (sync_files among them). */
static enum kf_op sync_file_info(struct kf_ctx *c, struct kf_file *f)
{
	struct sync_fence_info fences[4];
	struct sync_file_info a = { .num_fences = 4, .sync_fence_info = (uintptr_t)fences };
	int fd = kf_pool_pick(c->rng, c->pool);

	(void)f;
	if (kf_chance(c->rng, 30))
		a.num_fences = 0;
	kf_count(KF_SYNC_FILE_INFO, fd < 0 ? -EBADF : kf_ioctl(fd, SYNC_IOC_FILE_INFO, &a));
	return KF_SYNC_FILE_INFO;
}

static const struct kf_weighted_op ops[] = {
	{ version, 1 }, { master_queries, 1 }, { get_cap, 1 }, { set_client_cap, 1 },
	{ gem_close, 2 }, { gem_flink_open, 1 }, { prime_export, 3 }, { prime_import, 3 },
	{ syncobj_create, 4 }, { syncobj_destroy, 1 }, { syncobj_export, 2 },
	{ syncobj_import, 2 }, { syncobj_wait, 2 }, { syncobj_array, 3 },
	{ syncobj_transfer, 1 }, { random_nr, 2 }, { sync_file_info, 1 },
};

enum kf_op kf_drm_op(struct kf_ctx *c, struct kf_file *f)
{
	return kf_pick_op(c->rng, ops, sizeof(ops) / sizeof(ops[0]))(c, f);
}
