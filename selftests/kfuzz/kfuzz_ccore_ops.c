// SPDX-License-Identifier: GPL-2.0
/*
 * The ccore ioctls, one random call at a time: arguments built valid from
 * the file's model (so most calls get past the checks into the code that
 * does the work), then about one call in five mutated (bit flips, boundary
 * values, wrong handles, pointers to nothing).  Whatever a call returns
 * goes into the model: a mutated call that succeeded made a real object.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "kfuzz.h"

#define MAX_DESCS 16
#define MAX_INSNS 24
#define MAX_CE_INSNS 8

bool kf_mutating(struct kf_ctx *c)
{
	return kf_chance(c->rng, 20);
}

int kf_fuzz_call(struct kf_ctx *c, struct kf_file *f, enum kf_op op, unsigned long req, void *arg,
		 size_t len)
{
	int rc;

	if (kf_mutating(c))
		kf_mutate(c->rng, arg, len);
	rc = kf_ioctl(f->fd, req, arg);
	kf_count(op, rc);
	return rc;
}

static int64_t deadline(struct kf_ctx *c)
{
	return kf_now_ns() + (int64_t)kf_below(c->rng, (uint32_t)c->wait_ms + 1) * KF_NSEC_PER_MSEC;
}

/* Another file's model (of this process): its handles are wrong here. */
static struct kf_file *model_of(struct kf_ctx *c, struct kf_file *f)
{
	if (c->nfiles > 1 && kf_chance(c->rng, 5))
		return &c->files[kf_below(c->rng, (uint32_t)c->nfiles)];
	return f;
}

static uint32_t pick_cc(struct kf_ctx *c, const struct kf_file *f)
{
	return kf_below(c->rng, f->cores * f->cc_per_core);
}

static uint32_t pick_ring_handle(struct kf_ctx *c, struct kf_file *f, int *idx)
{
	struct kf_file *m = model_of(c, f);
	int i;

	*idx = -1;
	if (!m->nrings || kf_chance(c->rng, 5))
		return kf_chance(c->rng, 50) ? kf_below(c->rng, 8) : (uint32_t)kf_boundary(c->rng);
	i = (int)kf_below(c->rng, (uint32_t)m->nrings);
	if (m == f)
		*idx = i;
	return m->rings_[i].handle;
}

static enum kf_op get_param(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_param_args a = { .param = kf_below(c->rng, 22) };

	kf_fuzz_call(c, f, KF_GET_PARAM, DRM_IOCTL_CCORE_GET_PARAM, &a, sizeof(a));
	return KF_GET_PARAM;
}

static enum kf_op set_param(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_param_args a = {
		.param = kf_chance(c->rng, 50) ? DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE :
						 DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE,
		.value = 512u << kf_below(c->rng, 8),
	};

	kf_fuzz_call(c, f, KF_SET_PARAM, DRM_IOCTL_CCORE_SET_PARAM, &a, sizeof(a));
	return KF_SET_PARAM;
}

static enum kf_op bo_create(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_bo_create a = { .size = 4096ull * (1 + kf_below(c->rng, 16)) };
	struct drm_gem_close cl;
	struct kf_bo bo = { 0 };
	void *user = NULL;
	uint64_t user_len = 0;
	int rc;

	if (f->nbos == KF_MAX_OBJS) {	/* make room: the oldest handle goes */
		cl = (struct drm_gem_close){ .handle = f->bos[0].handle };
		kf_count(KF_GEM_CLOSE, kf_ioctl(f->fd, DRM_IOCTL_GEM_CLOSE, &cl));
		kf_model_drop_bo(f, 0);
	}
	if (kf_chance(c->rng, 5))
		a.size = 1 + kf_below(c->rng, 8192);
	if (kf_chance(c->rng, 10)) {
		user = mmap(NULL, a.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			    0);
		if (user == MAP_FAILED) {
			user = NULL;
		} else {
			user_len = a.size;
			a.flags = DRM_CCORE_BO_F_USERPTR;
			a.userptr = (uint64_t)(uintptr_t)user;
		}
	}
	if (kf_mutating(c)) {
		kf_mutate(c->rng, &a, sizeof(a));
		/* keep the guest's memory, and (finding 3) rings' work small */
		if (a.size > (c->skip_known ? (1ull << 20) : (64ull << 20)))
			a.size = 1 + (a.size & 0xffff);
		/*
		 * Registered memory must stay ours to give: a flipped pointer
		 * or a larger size could register the fuzzer's own counters
		 * (their pages would then be DMA targets).
		 */
		if (a.flags & DRM_CCORE_BO_F_USERPTR) {
			if (a.userptr != (uint64_t)(uintptr_t)user)
				a.userptr = kf_bad_pointer(c->rng);
			if (a.size > user_len)
				a.size = user_len ? user_len : 4096;
		}
	}
	if (f->bo_bytes + a.size > KF_FILE_BO_BYTES && a.size > 4096)
		a.size = 4096;
	rc = kf_ioctl(f->fd, DRM_IOCTL_CCORE_BO_CREATE, &a);
	kf_count(KF_BO_CREATE, rc);
	if (!rc)
		f->bo_bytes += (a.size + 4095) & ~4095ull;
	/* the kernel pinned the pages it needs: the mapping may go */
	if (user)
		munmap(user, user_len);
	if (rc)
		return KF_BO_CREATE;
	bo.handle = a.handle;
	bo.addr = a.dev_addr;
	bo.size = a.size;
	if (!bo.addr || bo.size > (64ull << 20))
		return KF_BO_CREATE;
	kf_model_add_bo(c->rng, f, &bo);
	return KF_BO_CREATE;
}

/* MMAP_OFFSET, then map the buffer, write it and unmap it again. */
static enum kf_op bo_mmap(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_bo_mmap_offset a = { .handle = kf_pick_bo_handle(c->rng, f) };
	uint64_t size = 4096;
	void *p;
	int rc, i;

	rc = kf_fuzz_call(c, f, KF_BO_MMAP_OFFSET, DRM_IOCTL_CCORE_BO_MMAP_OFFSET, &a, sizeof(a));
	if (rc)
		return KF_BO_MMAP_OFFSET;
	for (i = 0; i < f->nbos; i++)
		if (f->bos[i].handle == a.handle)
			size = f->bos[i].size;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd, (off_t)a.offset);
	kf_count(KF_MMAP, p == MAP_FAILED ? -errno : 0);
	if (p != MAP_FAILED) {
		memset(p, (int)kf_below(c->rng, 256), size);
		munmap(p, size);
	}
	return KF_MMAP;
}

static enum kf_op bo_info(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_bo_info a = { .handle = kf_pick_bo_handle(c->rng, model_of(c, f)) };

	kf_fuzz_call(c, f, KF_BO_INFO, DRM_IOCTL_CCORE_BO_INFO, &a, sizeof(a));
	return KF_BO_INFO;
}

static enum kf_op ring_create(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_ring_create a = {
		.core = kf_below(c->rng, f->cores),
		.engine = kf_below(c->rng, f->engines),
		.ring = kf_below(c->rng, f->rings),
		.size = 1 + kf_below(c->rng, 16),
	};
	struct kf_ring ring;
	int rc;

	if (kf_chance(c->rng, 30))
		a.packet_size = 512u << kf_below(c->rng, 8);
	if (kf_chance(c->rng, 30))
		a.flags = DRM_CCORE_RING_F_COMPUTE;
	if (kf_chance(c->rng, 20)) {
		a.index_count = 1 + kf_below(c->rng, 8);
		a.index_stride = (int64_t)(64 * (1 + kf_below(c->rng, 64)));
		if (kf_chance(c->rng, 30))
			a.index_stride = -a.index_stride;
	}
	if (kf_chance(c->rng, 3))
		a.size = f->max_ring;
	rc = kf_fuzz_call(c, f, KF_RING_CREATE, DRM_IOCTL_CCORE_RING_CREATE, &a, sizeof(a));
	if (rc)
		return KF_RING_CREATE;
	ring = (struct kf_ring){
		.handle = a.handle, .core = a.core, .engine = a.engine, .ring = a.ring,
		.size = a.size, .index_count = a.index_count, .index_stride = a.index_stride,
	};
	kf_model_add_ring(c->rng, f, &ring);
	return KF_RING_CREATE;
}

static enum kf_op ring_destroy(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_ring_destroy a = { 0 };
	int idx, rc;

	a.handle = pick_ring_handle(c, f, &idx);
	rc = kf_fuzz_call(c, f, KF_RING_DESTROY, DRM_IOCTL_CCORE_RING_DESTROY, &a, sizeof(a));
	if (!rc && idx >= 0 && f->rings_[idx].handle == a.handle)
		kf_model_drop_ring(f, idx);
	return KF_RING_DESTROY;
}

static enum kf_op ring_submit(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_desc d[MAX_DESCS];
	struct drm_ccore_ring_submit a = { 0 };
	const struct kf_ring *ring = NULL;
	uint32_t n;
	int idx;

	a.handle = pick_ring_handle(c, f, &idx);
	if (idx >= 0)
		ring = &f->rings_[idx];
	n = 1 + kf_below(c->rng, ring ? (ring->size < MAX_DESCS ? ring->size : MAX_DESCS) : 4);
	kf_gen_descs(c->rng, f, ring, d, n);
	a.count = n;
	a.descs = (uint64_t)(uintptr_t)d;
	a.flags = kf_chance(c->rng, 60) ? DRM_CCORE_SUBMIT_F_START : 0;
	if (kf_mutating(c)) {
		if (kf_chance(c->rng, 50))
			kf_mutate(c->rng, &d[kf_below(c->rng, n)], sizeof(d[0]));
		else
			kf_mutate(c->rng, &a, sizeof(a));
		if (a.count > MAX_DESCS && a.descs == (uint64_t)(uintptr_t)d)
			a.descs = kf_bad_pointer(c->rng);
	}
	kf_count(KF_RING_SUBMIT, kf_ioctl(f->fd, DRM_IOCTL_CCORE_RING_SUBMIT, &a));
	return KF_RING_SUBMIT;
}

static enum kf_op ring_stats(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_ring_stats a = { 0 };
	int idx;

	a.handle = pick_ring_handle(c, f, &idx);
	kf_count(KF_RING_STATS, kf_ioctl(f->fd, DRM_IOCTL_CCORE_RING_STATS, &a));
	return KF_RING_STATS;
}

static enum kf_op sem_alloc(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_sem_alloc a = {
		.core = kf_below(c->rng, f->cores), .count = 1 + kf_below(c->rng, 16),
	};
	struct kf_sems s;
	int rc;

	rc = kf_fuzz_call(c, f, KF_SEM_ALLOC, DRM_IOCTL_CCORE_SEM_ALLOC, &a, sizeof(a));
	if (!rc) {
		s = (struct kf_sems){ .first = a.first, .count = a.count };
		kf_model_add_sems(c->rng, f, &s);
	}
	return KF_SEM_ALLOC;
}

static enum kf_op sem_free(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_sem_free a = { 0 };
	int i = f->nsems ? (int)kf_below(c->rng, (uint32_t)f->nsems) : -1;
	int rc;

	a.first = i >= 0 ? f->sems[i].first : kf_pick_sem(c->rng, f);
	rc = kf_fuzz_call(c, f, KF_SEM_FREE, DRM_IOCTL_CCORE_SEM_FREE, &a, sizeof(a));
	if (!rc && i >= 0 && f->sems[i].first == a.first)
		f->sems[i] = f->sems[--f->nsems];
	return KF_SEM_FREE;
}

static enum kf_op sem_access(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_sem_access a = {
		.sem = kf_pick_sem(c->rng, f), .op = kf_below(c->rng, 3),
		.value = kf_below(c->rng, 4),
	};

	kf_fuzz_call(c, f, KF_SEM_ACCESS, DRM_IOCTL_CCORE_SEM_ACCESS, &a, sizeof(a));
	return KF_SEM_ACCESS;
}

static enum kf_op sem_wait(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_sem_wait a = {
		.sem = kf_pick_sem(c->rng, f), .value = kf_below(c->rng, 3),
		.timeout_ns = deadline(c),
	};

	if (kf_mutating(c)) {
		kf_mutate(c->rng, &a, sizeof(a));
		a.timeout_ns = kf_chance(c->rng, 50) ? deadline(c) : a.timeout_ns;
		/* waits are short, whatever the mutation: a far deadline is
		 * only ever tried before the epoch (past) */
		if (a.timeout_ns > deadline(c) + c->wait_ms * KF_NSEC_PER_MSEC)
			a.timeout_ns = -a.timeout_ns;
	}
	kf_count(KF_SEM_WAIT, kf_ioctl(f->fd, DRM_IOCTL_CCORE_SEM_WAIT, &a));
	return KF_SEM_WAIT;
}

static enum kf_op program_load(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_insn p[MAX_INSNS];
	struct drm_ccore_program_load a = { .cc_core = pick_cc(c, f) };
	int rc;

	a.count = kf_gen_program(c->rng, f, a.cc_core, p, MAX_INSNS);
	a.insns = (uint64_t)(uintptr_t)p;
	if (kf_mutating(c)) {
		if (kf_chance(c->rng, 60))
			kf_mutate(c->rng, &p[kf_below(c->rng, a.count)], sizeof(p[0]));
		else
			kf_mutate(c->rng, &a, sizeof(a));
		if (a.count > MAX_INSNS && a.insns == (uint64_t)(uintptr_t)p)
			a.insns = kf_bad_pointer(c->rng);
	}
	/* finding 3: a START of 2^32 descriptors makes close() wait for hours */
	for (uint32_t i = 0; c->skip_known && i < MAX_INSNS; i++)
		if ((p[i].opcode == DRM_CCORE_OP_START || p[i].opcode == DRM_CCORE_OP_STARTI) &&
		    p[i].imm > 256)
			p[i].imm = 256;
	rc = kf_ioctl(f->fd, DRM_IOCTL_CCORE_PROGRAM_LOAD, &a);
	kf_count(KF_PROGRAM_LOAD, rc);
	if (!rc)
		kf_model_add_program(c->rng, f, a.handle, a.cc_core);
	return KF_PROGRAM_LOAD;
}

static uint32_t pick_program(struct kf_ctx *c, struct kf_file *f, int *idx)
{
	struct kf_file *m = model_of(c, f);

	*idx = -1;
	if (!m->nprograms || kf_chance(c->rng, 5))
		return kf_below(c->rng, 8);
	*idx = (int)kf_below(c->rng, (uint32_t)m->nprograms);
	if (m != f) {
		uint32_t h = m->programs[*idx].handle;

		*idx = -1;
		return h;
	}
	return m->programs[*idx].handle;
}

static enum kf_op program_free(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_program_free a = { 0 };
	int idx, rc;

	a.handle = pick_program(c, f, &idx);
	rc = kf_fuzz_call(c, f, KF_PROGRAM_FREE, DRM_IOCTL_CCORE_PROGRAM_FREE, &a, sizeof(a));
	if (!rc && idx >= 0 && f->programs[idx].handle == a.handle)
		f->programs[idx] = f->programs[--f->nprograms];
	return KF_PROGRAM_FREE;
}

static enum kf_op submit(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_submit a = {
		.flags = kf_chance(c->rng, 70) ? DRM_CCORE_JOB_F_TRIGGER : 0,
		.timeout_ms = 20 + kf_below(c->rng, 1000),
	};
	int idx, rc;

	a.program = pick_program(c, f, &idx);
	if (kf_chance(c->rng, 20))
		a.in_syncobj = kf_pick_syncobj(c->rng, f);
	if (kf_chance(c->rng, 30))
		a.out_syncobj = kf_pick_syncobj(c->rng, f);
	if (kf_mutating(c)) {
		kf_mutate(c->rng, &a, sizeof(a));
		if (a.timeout_ms > 2000 || !a.timeout_ms)	/* every job ends soon */
			a.timeout_ms = 2000;
	}
	rc = kf_ioctl(f->fd, DRM_IOCTL_CCORE_SUBMIT, &a);
	kf_count(KF_SUBMIT, rc);
	if (!rc)
		kf_model_add_u64(c->rng, f->jobs, &f->njobs, a.job);
	return KF_SUBMIT;
}

static enum kf_op job_wait(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_job_wait a = { .timeout_ns = deadline(c) };

	a.job = f->njobs && kf_chance(c->rng, 90) ? f->jobs[kf_below(c->rng, (uint32_t)f->njobs)] :
						   kf_boundary(c->rng);
	if (kf_mutating(c)) {
		kf_mutate(c->rng, &a, sizeof(a));
		if (a.timeout_ns > deadline(c) + c->wait_ms * KF_NSEC_PER_MSEC)
			a.timeout_ns = deadline(c);
	}
	kf_count(KF_JOB_WAIT, kf_ioctl(f->fd, DRM_IOCTL_CCORE_JOB_WAIT, &a));
	return KF_JOB_WAIT;
}

static enum kf_op cc_trigger(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_cc_trigger a = { .cc_core = pick_cc(c, f), .count = 1 + kf_below(c->rng, 3) };

	kf_fuzz_call(c, f, KF_CC_TRIGGER, DRM_IOCTL_CCORE_CC_TRIGGER, &a, sizeof(a));
	return KF_CC_TRIGGER;
}

static enum kf_op sem_export(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_sem_export a = { 0 };
	int rc;

	a.first = f->nsems ? f->sems[kf_below(c->rng, (uint32_t)f->nsems)].first :
			     kf_pick_sem(c->rng, f);
	rc = kf_fuzz_call(c, f, KF_SEM_EXPORT, DRM_IOCTL_CCORE_SEM_EXPORT, &a, sizeof(a));
	if (!rc)
		kf_pool_add(c->rng, c->pool, a.fd);
	return KF_SEM_EXPORT;
}

static enum kf_op sem_import(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_sem_import a = { .fd = kf_pool_pick(c->rng, c->pool) };
	struct kf_sems s;
	int rc;

	rc = kf_fuzz_call(c, f, KF_SEM_IMPORT, DRM_IOCTL_CCORE_SEM_IMPORT, &a, sizeof(a));
	if (!rc) {
		s = (struct kf_sems){ .first = a.first, .count = a.count, .imported = true };
		kf_model_add_sems(c->rng, f, &s);
	}
	return KF_SEM_IMPORT;
}

static enum kf_op compute_submit(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_ce_insn p[MAX_CE_INSNS];
	struct drm_ccore_compute_submit a = { .core = kf_below(c->rng, f->cores) };
	const struct kf_ring *ring = NULL;
	uint32_t n = 0, want = 1 + kf_below(c->rng, MAX_CE_INSNS - 1), sem;
	uint64_t len, addr;
	int i;

	for (i = 0; i < f->nrings; i++)
		if (f->rings_[i].core == a.core && !f->rings_[i].index_count)
			ring = &f->rings_[i];
	memset(p, 0, sizeof(p));
	while (n < want) {
		struct drm_ccore_ce_insn *in = &p[n];

		switch (kf_below(c->rng, 4)) {
		case 0:
			in->opcode = DRM_CCORE_CE_COMPUTE;
			in->duration_ns = 1 + kf_below(c->rng, 100000);
			break;
		case 1:
			if (!ring || !f->nbos)
				continue;
			len = 0;
			if (!kf_pick_range(c->rng, f, &addr, &len))
				continue;
			in->opcode = DRM_CCORE_CE_DMA;
			in->len = len;
			in->dst = addr;
			if (!kf_pick_range(c->rng, f, &addr, &len) || len != in->len)
				continue;
			in->src = addr;
			/* another host's memory, which a compute DMA may not reach */
			if (kf_chance(c->rng, 10) && kf_pick_remote(c->rng, f, &addr, &len)) {
				if (kf_chance(c->rng, 50))
					in->dst = addr;
				else
					in->src = addr;
				in->len = len;
			}
			a.dma_engine = ring->engine;
			a.dma_ring = ring->ring;
			break;
		case 2:
			in->opcode = DRM_CCORE_CE_TRIGGER;
			in->cc_core = a.core * f->cc_per_core + kf_below(c->rng, f->cc_per_core);
			break;
		default:
			sem = kf_pick_sem(c->rng, f);
			if (DRM_CCORE_SEM_REF_CORE(sem) != a.core)
				continue;
			in->opcode = DRM_CCORE_CE_WAIT_SEM;
			in->sem = sem;
			in->value = kf_below(c->rng, 2);
			break;
		}
		n++;
	}
	p[n++].opcode = DRM_CCORE_CE_END;
	a.count = n;
	a.insns = (uint64_t)(uintptr_t)p;
	a.timeout_ms = 20 + kf_below(c->rng, 500);
	if (kf_mutating(c)) {
		if (kf_chance(c->rng, 50))
			kf_mutate(c->rng, &p[kf_below(c->rng, n)], sizeof(p[0]));
		else
			kf_mutate(c->rng, &a, sizeof(a));
		if (a.count > MAX_CE_INSNS && a.insns == (uint64_t)(uintptr_t)p)
			a.insns = kf_bad_pointer(c->rng);
		if (a.timeout_ms > 2000 || !a.timeout_ms)
			a.timeout_ms = 2000;
	}
	kf_count(KF_COMPUTE_SUBMIT, kf_ioctl(f->fd, DRM_IOCTL_CCORE_COMPUTE_SUBMIT, &a));
	return KF_COMPUTE_SUBMIT;
}

static enum kf_op compute_wait(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_compute_wait a = {
		.core = kf_below(c->rng, f->cores), .timeout_ns = deadline(c),
	};

	if (kf_mutating(c)) {
		kf_mutate(c->rng, &a, sizeof(a));
		if (a.timeout_ns > deadline(c) + c->wait_ms * KF_NSEC_PER_MSEC)
			a.timeout_ns = deadline(c);
	}
	kf_count(KF_COMPUTE_WAIT, kf_ioctl(f->fd, DRM_IOCTL_CCORE_COMPUTE_WAIT, &a));
	return KF_COMPUTE_WAIT;
}

/* Why this worker's last call on the file failed (mutated: bad flags or pad). */
static enum kf_op get_last_error(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_last_error a = { 0 };

	kf_fuzz_call(c, f, KF_GET_LAST_ERROR, DRM_IOCTL_CCORE_GET_LAST_ERROR, &a, sizeof(a));
	return KF_GET_LAST_ERROR;
}

/* Weights: the calls that build state come often, so the others have some. */
static const struct kf_weighted_op ops[] = {
	{ get_param, 2 }, { set_param, 1 }, { bo_create, 8 }, { bo_mmap, 2 }, { bo_info, 2 },
	{ ring_create, 6 }, { ring_destroy, 2 }, { ring_submit, 10 }, { ring_stats, 2 },
	{ sem_alloc, 5 }, { sem_free, 1 }, { sem_access, 3 }, { sem_wait, 2 },
	{ program_load, 8 }, { program_free, 2 }, { submit, 8 }, { job_wait, 3 },
	{ cc_trigger, 3 }, { sem_export, 2 }, { sem_import, 2 }, { compute_submit, 3 },
	{ compute_wait, 2 }, { get_last_error, 2 },
	{ kf_nic_remote_map, 3 }, { kf_nic_remote_sems, 2 }, { kf_nic_take, 4 },
	{ kf_nic_done, 3 }, { kf_nic_deliver, 3 }, { kf_nic_poll, 2 },
};

/*
 * An op whose object the file does not have yet mostly makes one first:
 * otherwise a fresh file spends its calls on handles that cannot exist.
 */
static kf_op_fn *prerequisite(struct kf_ctx *c, struct kf_file *f, kf_op_fn *fn)
{
	if (kf_chance(c->rng, 20))
		return fn;
	if ((fn == ring_submit || fn == ring_create || fn == compute_submit) && !f->nbos)
		return bo_create;
	if ((fn == ring_submit || fn == ring_destroy || fn == ring_stats) && !f->nrings)
		return ring_create;
	if ((fn == submit || fn == program_free) && !f->nprograms)
		return program_load;
	if (fn == job_wait && !f->njobs)
		return f->nprograms ? submit : program_load;
	if ((fn == sem_free || fn == sem_access || fn == sem_wait || fn == sem_export ||
	     fn == program_load) && !f->nsems)
		return sem_alloc;
	if (fn == sem_import && !c->pool->n)
		return sem_export;
	if (fn == kf_nic_done && !f->ntaken)
		return kf_nic_take;
	if (fn == kf_nic_take && !f->nremotes && !f->nremote_sems)
		return kf_chance(c->rng, 50) ? kf_nic_remote_map : kf_nic_remote_sems;
	return fn;
}

kf_op_fn *kf_pick_op(struct kf_rng *r, const struct kf_weighted_op *table, size_t n)
{
	uint32_t total = 0, pick;
	size_t i;

	for (i = 0; i < n; i++)
		total += table[i].weight;
	pick = kf_below(r, total);
	for (i = 0; pick >= table[i].weight; i++)
		pick -= table[i].weight;
	return table[i].fn;
}

enum kf_op kf_ccore_op(struct kf_ctx *c, struct kf_file *f)
{
	kf_op_fn *fn = kf_pick_op(c->rng, ops, sizeof(ops) / sizeof(ops[0]));

	return prerequisite(c, f, fn)(c, f);
}

void kf_pool_add(struct kf_rng *r, struct kf_fdpool *p, int fd)
{
	int i;

	if (fd < 0)
		return;
	if (p->n < (int)(sizeof(p->fds) / sizeof(p->fds[0]))) {
		p->fds[p->n++] = fd;
		return;
	}
	i = (int)kf_below(r, (uint32_t)p->n);
	close(p->fds[i]);
	p->fds[i] = fd;
}

int kf_pool_pick(struct kf_rng *r, const struct kf_fdpool *p)
{
	if (!p->n || kf_chance(r, 5))
		return kf_chance(r, 50) ? -1 : (int)kf_below(r, 64);	/* any fd at all */
	return p->fds[kf_below(r, (uint32_t)p->n)];
}
