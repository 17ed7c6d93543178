// SPDX-License-Identifier: GPL-2.0
/*
 * What each fuzzed file owns, as far as the fuzzer knows: buffer handles
 * and their device addresses, rings, semaphore blocks, programs, jobs and
 * syncobjs.  Arguments built from it pass the driver's checks and reach
 * the code behind them; the model is never trusted to be exact (an object
 * may be gone behind its back), which is fine: a stale handle is one more
 * wrong argument.
 */
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "kfuzz.h"

static uint64_t param(int fd, uint32_t p)
{
	struct drm_ccore_param_args a = { .param = p };

	return kf_ioc(fd, DRM_IOCTL_CCORE_GET_PARAM, &a) ? 0 : a.value;
}

int kf_file_open(struct kf_file *f, int minor)
{
	int fd = kf_open_minor(minor);

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (fd < 0)
		return fd;
	f->fd = fd;
	f->minor = minor;
	f->dev_index = (uint32_t)param(fd, DRM_CCORE_PARAM_DEVICE_INDEX);
	f->cores = (uint32_t)param(fd, DRM_CCORE_PARAM_NUM_CORES);
	f->cc_per_core = (uint32_t)param(fd, DRM_CCORE_PARAM_CC_CORES_PER_CORE);
	f->engines = (uint32_t)param(fd, DRM_CCORE_PARAM_ENGINES_PER_CORE);
	f->rings = (uint32_t)param(fd, DRM_CCORE_PARAM_RINGS_PER_ENGINE);
	f->sems_per_core = (uint32_t)param(fd, DRM_CCORE_PARAM_SEMS_PER_CORE);
	f->max_ring = (uint32_t)param(fd, DRM_CCORE_PARAM_MAX_RING_SIZE);
	f->max_program = (uint32_t)param(fd, DRM_CCORE_PARAM_MAX_PROGRAM_SIZE);
	f->node = (uint32_t)param(fd, DRM_CCORE_PARAM_NODE_INDEX);
	f->per_node = (uint32_t)param(fd, DRM_CCORE_PARAM_DEVICES_PER_NODE);
	f->num_devices = (uint32_t)param(fd, DRM_CCORE_PARAM_NUM_DEVICES);
	/* a device unplugged under us answers nothing: assume the defaults */
	if (!f->cores || !f->cc_per_core || !f->engines || !f->rings) {
		f->cores = 4;
		f->cc_per_core = 2;
		f->engines = 4;
		f->rings = 16;
		f->sems_per_core = 8192;
		f->max_ring = 4096;
		f->max_program = 4096;
	}
	return 0;
}

void kf_file_close(struct kf_file *f)
{
	int i;

	for (i = 0; i < f->nbos; i++)
		if (f->bos[i].map)
			munmap(f->bos[i].map, f->bos[i].size);
	if (f->fd >= 0)
		close(f->fd);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

void kf_model_drop_bo(struct kf_file *f, int i)
{
	if (f->bos[i].map)
		munmap(f->bos[i].map, f->bos[i].size);
	f->bos[i] = f->bos[--f->nbos];
}

void kf_model_drop_ring(struct kf_file *f, int i)
{
	f->rings_[i] = f->rings_[--f->nrings];
}

int kf_model_slot(struct kf_rng *r, int *n)
{
	if (*n < KF_MAX_OBJS)
		return (*n)++;
	return (int)kf_below(r, KF_MAX_OBJS);
}

void kf_model_add_bo(struct kf_rng *r, struct kf_file *f, const struct kf_bo *bo)
{
	bool full = f->nbos == KF_MAX_OBJS;
	int i = kf_model_slot(r, &f->nbos);

	/* a replaced buffer is only forgotten: its handle lives on */
	if (full && f->bos[i].map)
		munmap(f->bos[i].map, f->bos[i].size);
	f->bos[i] = *bo;
}

void kf_model_add_ring(struct kf_rng *r, struct kf_file *f, const struct kf_ring *ring)
{
	f->rings_[kf_model_slot(r, &f->nrings)] = *ring;
}

void kf_model_add_sems(struct kf_rng *r, struct kf_file *f, const struct kf_sems *s)
{
	f->sems[kf_model_slot(r, &f->nsems)] = *s;
}

void kf_model_add_program(struct kf_rng *r, struct kf_file *f, uint32_t handle, uint32_t cc)
{
	int i = kf_model_slot(r, &f->nprograms);

	f->programs[i].handle = handle;
	f->programs[i].cc = cc;
}

void kf_model_add_u64(struct kf_rng *r, uint64_t *arr, int *n, uint64_t v)
{
	arr[kf_model_slot(r, n)] = v;
}

void kf_model_add_u32(struct kf_rng *r, uint32_t *arr, int *n, uint32_t v)
{
	arr[kf_model_slot(r, n)] = v;
}

/* Mostly a live one; sometimes one that is wrong in a plausible way. */
static uint32_t pick_u32(struct kf_rng *r, const uint32_t *live, int n)
{
	if (n && !kf_chance(r, 10))
		return live[kf_below(r, (uint32_t)n)];
	switch (kf_below(r, 4)) {
	case 0:
		return 0;
	case 1:
		return 1 + kf_below(r, 64);	/* stale, or another file's */
	case 2:
		return (uint32_t)kf_boundary(r);
	default:
		return (uint32_t)kf_next(r);
	}
}

uint32_t kf_pick_bo_handle(struct kf_rng *r, const struct kf_file *f)
{
	uint32_t live[KF_MAX_OBJS];
	int i;

	for (i = 0; i < f->nbos; i++)
		live[i] = f->bos[i].handle;
	return pick_u32(r, live, f->nbos);
}

uint32_t kf_pick_syncobj(struct kf_rng *r, const struct kf_file *f)
{
	return pick_u32(r, f->syncobjs, f->nsyncobjs);
}

uint32_t kf_pick_sem(struct kf_rng *r, const struct kf_file *f)
{
	const struct kf_sems *s;

	if (!f->nsems || kf_chance(r, 8))
		return kf_chance(r, 50) ? DRM_CCORE_SEM_REF(f->dev_index, kf_below(r, 4),
							    kf_below(r, 16)) :
					  (uint32_t)kf_next(r);
	s = &f->sems[kf_below(r, (uint32_t)f->nsems)];
	return s->first + kf_below(r, s->count ? s->count : 1);
}

bool kf_pick_remote(struct kf_rng *r, const struct kf_file *f, uint64_t *addr, uint64_t *len)
{
	const struct kf_remote *m;

	if (!f->nremotes)
		return false;
	m = &f->remotes[kf_below(r, (uint32_t)f->nremotes)];
	if (*len > m->size)
		*len = m->size;
	*addr = m->addr + kf_below(r, (uint32_t)(m->size - *len + 1));
	return true;
}

bool kf_pick_range(struct kf_rng *r, const struct kf_file *f, uint64_t *addr, uint64_t *len)
{
	const struct kf_bo *bo;
	uint64_t want = *len, off;

	if (!f->nbos)
		return false;
	bo = &f->bos[kf_below(r, (uint32_t)f->nbos)];
	if (!want)
		want = 1 + kf_below(r, bo->size < 8192 ? (uint32_t)bo->size : 8192);
	if (want > bo->size)
		want = bo->size;
	off = kf_below(r, (uint32_t)(bo->size - want + 1));
	*addr = bo->addr + off;
	*len = want;
	return true;
}
