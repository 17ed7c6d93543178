// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC queue of a fabric that is one host of several ("nodes=M,here=N"):
 * NIC_REMOTE_MAP and NIC_REMOTE_SEMS give descriptors targets on other
 * hosts (kfuzz_gen.c then writes some there, parking their rings), and the
 * file plays a careless proxy: it polls, takes transfers into buffers too
 * small or not there, reports them done twice or with any status, and
 * delivers bytes and semaphore changes anywhere.  On a fabric of every
 * node the same calls must fail cleanly.  Arguments are built valid from
 * the file's model, then mutated as every other op's.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "kfuzz.h"

/* The largest transfer buffer a TAKE offers; larger transfers stay posted. */
#define TAKE_BUFFER (128u << 10)

uint32_t kf_remote_device(struct kf_rng *r, const struct kf_file *f)
{
	uint32_t d;

	if (f->per_node && f->num_devices > f->per_node && !kf_chance(r, 10)) {
		/* one of the other nodes' devices */
		d = kf_below(r, f->num_devices - f->per_node);
		return d < f->node * f->per_node ? d : d + f->per_node;
	}
	return kf_chance(r, 50) ? kf_below(r, f->num_devices + 2) : (uint32_t)kf_boundary(r);
}

enum kf_op kf_nic_remote_map(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_nic_remote_map a = {
		.device = kf_remote_device(c->rng, f),
		.size = kf_chance(c->rng, 90) ? 1 + kf_below(c->rng, 1u << 20) : kf_boundary(c->rng),
		.remote = kf_chance(c->rng, 80) ? (uint64_t)kf_below(c->rng, 1u << 30) :
						  kf_boundary(c->rng),
	};

	if (!kf_fuzz_call(c, f, KF_NIC_REMOTE_MAP, DRM_IOCTL_CCORE_NIC_REMOTE_MAP, &a,
			  sizeof(a)) && a.size && a.size < (1ull << 32)) {
		f->remotes[kf_model_slot(c->rng, &f->nremotes)] =
			(struct kf_remote){ .addr = a.dev_addr, .size = a.size };
	}
	return KF_NIC_REMOTE_MAP;
}

enum kf_op kf_nic_remote_sems(struct kf_ctx *c, struct kf_file *f)
{
	uint32_t per_core = f->sems_per_core ? f->sems_per_core : 16;
	uint32_t count = 1 + kf_below(c->rng, per_core < 16 ? per_core : 16);
	struct drm_ccore_nic_remote_sems a = {
		.first = DRM_CCORE_SEM_REF(kf_remote_device(c->rng, f) & 0xff,
					   kf_below(c->rng, f->cores + 1),
					   kf_below(c->rng, per_core - count + 1)),
		.count = count,
	};

	if (!kf_fuzz_call(c, f, KF_NIC_REMOTE_SEMS, DRM_IOCTL_CCORE_NIC_REMOTE_SEMS, &a,
			  sizeof(a)) && a.count && a.count <= per_core) {
		f->remote_sems[kf_model_slot(c->rng, &f->nremote_sems)] =
			(struct kf_sems){ .first = a.first, .count = a.count };
	}
	return KF_NIC_REMOTE_SEMS;
}

/* A transfer buffer: mostly big enough, sometimes small, absent or unmapped. */
static uint64_t take_buffer(struct kf_ctx *c, void **mem, uint64_t *size)
{
	uint32_t pick = kf_below(c->rng, 10);

	*mem = NULL;
	*size = pick < 6 ? TAKE_BUFFER : pick < 8 ? kf_below(c->rng, 4096) : 1 + kf_below(c->rng, 64);
	if (pick == 9 && kf_chance(c->rng, 50))
		return kf_bad_pointer(c->rng);	/* the transfer must fail, -EFAULT */
	*mem = malloc(*size ? *size : 1);
	return (uint64_t)(uintptr_t)*mem;
}

enum kf_op kf_nic_take(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_nic_take a = { 0 };
	uint64_t size;
	void *mem;
	int rc;

	a.data = take_buffer(c, &mem, &size);
	a.data_size = size;
	rc = kf_fuzz_call(c, f, KF_NIC_TAKE, DRM_IOCTL_CCORE_NIC_TAKE, &a, sizeof(a));
	free(mem);
	if (!rc)
		f->taken[kf_model_slot(c->rng, &f->ntaken)] =
			(struct kf_taken){ .ring = a.ring, .seq = a.seq };
	return KF_NIC_TAKE;
}

static const int32_t statuses[] = { 0, 0, 0, -5, -110, -4095, -4096, 1, -2147483647 - 1 };

enum kf_op kf_nic_done(struct kf_ctx *c, struct kf_file *f)
{
	struct drm_ccore_nic_done a = {
		.status = statuses[kf_below(c->rng, sizeof(statuses) / sizeof(statuses[0]))],
	};
	int i = f->ntaken && !kf_chance(c->rng, 10) ? (int)kf_below(c->rng, (uint32_t)f->ntaken) :
						      -1;

	if (i >= 0) {
		a.ring = f->taken[i].ring;
		a.seq = f->taken[i].seq;
		/* reported once; a second DONE of it, now and then, must say -ENOENT */
		if (!kf_chance(c->rng, 10))
			f->taken[i] = f->taken[--f->ntaken];
	} else {
		a.ring = kf_below(c->rng, 8);
		a.seq = kf_chance(c->rng, 50) ? kf_below(c->rng, 4) : (uint32_t)kf_boundary(c->rng);
	}
	kf_fuzz_call(c, f, KF_NIC_DONE, DRM_IOCTL_CCORE_NIC_DONE, &a, sizeof(a));
	return KF_NIC_DONE;
}

enum kf_op kf_nic_deliver(struct kf_ctx *c, struct kf_file *f)
{
	static const uint32_t flag_sets[] = {
		DRM_CCORE_NIC_F_DATA, DRM_CCORE_NIC_F_SEM, DRM_CCORE_NIC_F_DATA | DRM_CCORE_NIC_F_SEM,
		DRM_CCORE_NIC_F_SEM | DRM_CCORE_NIC_F_SET, DRM_CCORE_NIC_FLAGS, 0,
		DRM_CCORE_NIC_F_SET, 1u << 7,
	};
	struct drm_ccore_nic_deliver a = {
		.flags = flag_sets[kf_below(c->rng, sizeof(flag_sets) / sizeof(flag_sets[0]))],
	};
	uint64_t to = 0, len = 0;
	void *mem = NULL;

	if (a.flags & DRM_CCORE_NIC_F_DATA) {
		/* into one of the file's buffers, or a remote mapping (not allowed) */
		if (f->nremotes && kf_chance(c->rng, 10)) {
			const struct kf_remote *m = &f->remotes[kf_below(c->rng,
									  (uint32_t)f->nremotes)];

			to = m->addr;
			len = m->size < 4096 ? m->size : 4096;
		} else if (!kf_pick_range(c->rng, f, &to, &len)) {
			to = kf_boundary(c->rng);
			len = 1 + kf_below(c->rng, 4096);
		}
		a.to = to;
		a.len = len;
		mem = calloc(1, len ? len : 1);
		a.data = kf_chance(c->rng, 95) ? (uint64_t)(uintptr_t)mem : kf_bad_pointer(c->rng);
	}
	if (a.flags & DRM_CCORE_NIC_F_SEM) {
		a.sem = kf_pick_sem(c->rng, f);
		a.value = kf_chance(c->rng, 80) ? kf_below(c->rng, 4) : (uint32_t)kf_boundary(c->rng);
	}
	kf_fuzz_call(c, f, KF_NIC_DELIVER, DRM_IOCTL_CCORE_NIC_DELIVER, &a, sizeof(a));
	free(mem);
	return KF_NIC_DELIVER;
}

/* poll() as a proxy waits: readable while a ring of the file waits for the NIC. */
enum kf_op kf_nic_poll(struct kf_ctx *c, struct kf_file *f)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN | (kf_chance(c->rng, 20) ? POLLOUT : 0) };
	int rc = poll(&p, 1, (int)kf_below(c->rng, 3));

	kf_count(KF_NIC_POLL, rc < 0 ? -errno : 0);
	return KF_NIC_POLL;
}
