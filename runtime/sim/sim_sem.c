// SPDX-License-Identifier: MIT
/*
 * Semaphores on the sim backend: allocation from a core's bank, access and
 * waits limited to what the context allocated or imported, and export /
 * import so ranks on other devices may signal them.  A grant names the
 * exported allocation and ends with it.  As in the kernel driver, every
 * block a loaded program or a written descriptor names is pinned: it
 * cannot be freed (-EBUSY) until they go.  Contexts live as long as the
 * system, so whatever is left is freed at system close.
 */
#include "sim.h"

#include <stdlib.h>

/* The block @ref belongs to, or NULL. */
static struct sim_sem_block *block_of(struct sim_system *s, u32 ref)
{
	struct sim_ctx *holder = ccm_sem_owner(s->f, ref);
	struct sim_sem_block *b;

	for (b = holder ? holder->blocks : NULL; b; b = b->next)
		if (ccm_uapi_sem_in(&b->u, ref))
			return b;
	return NULL;
}

bool sim_sem_usable(void *owner, u32 ref)
{
	struct sim_ctx *c = owner;
	struct sim_sem_block *b;
	u32 i;

	if (ccm_dev_remote(c->sys->f, DRM_CCORE_SEM_REF_DEV(ref)))
		return sim_remote_sem_usable(c, ref);
	b = block_of(c->sys, ref);
	if (!b)
		return false;
	if (b->u.owner == c)
		return true;
	for (i = 0; i < c->ngrants; i++)
		if (c->grants[i] == b->u.serial)
			return true;
	return false;
}

int sim_sem_pin(struct sim_ctx *c, struct sim_set *pins, u32 ref)
{
	struct sim_sem_block *b = block_of(c->sys, ref);
	int rc = b ? sim_set_add(pins, b) : 0;

	if (rc > 0)
		b->u.pins++;
	return rc < 0 ? rc : 0;
}

void sim_sem_unpin_all(struct sim_set *pins)
{
	u32 i;

	for (i = 0; i < pins->count; i++)
		((struct sim_sem_block *)pins->items[i])->u.pins--;
	sim_set_fini(pins);
}

/* The block of @c that starts at @first, and where it is linked. */
static struct sim_sem_block **own_block(struct sim_ctx *c, u32 first)
{
	struct sim_sem_block **pb;

	for (pb = &c->blocks; *pb; pb = &(*pb)->next)
		if ((*pb)->u.first == first)
			return pb;
	return NULL;
}

u32 sim_sem_block_size(struct sim_ctx *c, u32 first)
{
	struct sim_sem_block **pb = own_block(c, first);

	return pb ? (*pb)->u.count : 0;
}

static int sem_check(struct sim_ctx *c, unsigned long req, u32 ref)
{
	bool valid = ccm_sem_valid(c->sys->f, ref);
	struct ccm_err err;
	int rc = ccm_uapi_sem_usable(ref, valid, valid && sim_sem_usable(c, ref), &err);

	return rc ? sim_fail(req, rc, &err) : 0;
}

int sim_sem_alloc(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_sem_alloc *a = arg;
	struct ccm_err err = { 0 };
	struct sim_sem_block *b;
	int rc;

	rc = ccm_uapi_sem_alloc(a, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_SEM_ALLOC, rc, &err);
	rc = sim_core_mine(c, DRM_IOCTL_CCORE_SEM_ALLOC, a->core);
	if (rc)
		return rc;
	/* a shared system's blocks are in its arena: others look them up */
	b = ccm_zalloc(sizeof(*b));
	if (!b)
		return ccore_error(-ENOMEM, "SEM_ALLOC: out of memory");
	rc = ccm_sem_alloc(c->sys->f, c->dev, a->core, a->count, c, &a->first, &err);
	if (rc) {
		ccm_free(b);
		return sim_fail(DRM_IOCTL_CCORE_SEM_ALLOC, rc, &err);
	}
	*b = (struct sim_sem_block){
		.next = c->blocks,
		.u = { .owner = c, .first = a->first, .count = a->count,
		       .serial = ++c->sys->sh->sem_serial },
	};
	c->blocks = b;
	return 0;
}

int sim_sem_free(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_sem_free *a = arg;
	struct sim_sem_block **pb, *b;
	struct ccm_err err = { 0 };
	int rc;

	pb = own_block(c, a->first);
	/* not a block of ours: the model says why */
	rc = ccm_uapi_sem_free(a, pb ? &(*pb)->u : NULL, &err) ?:
	     ccm_sem_free(c->sys->f, a->first, c, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_SEM_FREE, rc, &err);
	sim_xtoken_drop(c, 2, a->first);
	if (pb) {
		b = *pb;
		*pb = b->next;
		ccm_free(b);
	}
	return 0;
}

int sim_sem_access(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_sem_access *a = arg;
	struct ccm_fabric *f = c->sys->f;
	struct ccm_err err;
	int rc;

	rc = ccm_uapi_sem_access(a, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_SEM_ACCESS, rc, &err);
	rc = sem_check(c, DRM_IOCTL_CCORE_SEM_ACCESS, a->sem);
	if (rc)
		return rc;
	if (a->op == DRM_CCORE_SEM_SET)
		ccm_sem_set(f, a->sem, a->value);
	else if (a->op == DRM_CCORE_SEM_ADD)
		ccm_sem_add(f, a->sem, a->value);
	a->value = ccm_sem_read(f, a->sem);
	return 0;
}

int sim_sem_export(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_sem_export *a = arg;
	struct sim_token t = { .sem = true };
	struct sim_sem_block **pb = own_block(c, a->first);
	struct ccm_err err;
	int rc;

	rc = ccm_uapi_sem_export(a, pb ? &(*pb)->u : NULL, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_SEM_EXPORT, rc, &err);
	t.first = a->first;
	t.count = (*pb)->u.count;
	t.serial = (*pb)->u.serial;
	rc = sim_token_new(c->sys, &t, &a->fd);
	return rc ? ccore_error(rc, "SEM_EXPORT: out of memory") : 0;
}

int sim_sem_import(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_sem_import *a = arg;
	const struct sim_token *t = sim_token_get(c->sys, a->fd);
	struct ccm_err err;
	u64 *g;
	int rc;

	/* the tokens are the process's own: of this fabric */
	rc = ccm_uapi_sem_import(a, t != NULL, t && t->sem, true, &err);
	if (rc) {
		/* what the token was: forged, closed or stale */
		if (rc == -EBADF)
			sim_token_why(c->sys, a->fd, err.msg, sizeof(err.msg));
		return sim_fail(DRM_IOCTL_CCORE_SEM_IMPORT, rc, &err);
	}
	if (c->ngrants == c->grants_cap) {
		u32 cap = c->grants_cap ? c->grants_cap * 2 : 16;

		g = realloc(c->grants, cap * sizeof(*g));
		if (!g)
			return ccore_error(-ENOMEM, "SEM_IMPORT: out of memory");
		c->grants = g;
		c->grants_cap = cap;
	}
	c->grants[c->ngrants++] = t->serial;
	a->first = t->first;
	a->count = t->count;
	return 0;
}

struct sem_wait_arg {
	struct ccm_fabric *f;
	u32 sem, value;
};

static bool sem_reached(void *p)
{
	struct sem_wait_arg *w = p;

	return ccm_sem_read(w->f, w->sem) >= w->value;
}

int sim_sem_wait(struct sim_ctx *c, struct drm_ccore_sem_wait *a)
{
	struct sem_wait_arg w = { .f = c->sys->f, .sem = a->sem, .value = a->value };
	int rc;

	ccm_mutex_lock(&c->sys->sh->lock);
	rc = sem_check(c, DRM_IOCTL_CCORE_SEM_WAIT, a->sem);
	ccm_mutex_unlock(&c->sys->sh->lock);
	if (rc)
		return rc;
	rc = sim_wait(c, sem_reached, &w, a->timeout_ns, "SEM_WAIT");
	if (rc == -EPIPE)
		return rc;
	if (rc)
		return ccore_error(rc, "SEM_WAIT: semaphore 0x%08x is %u, still below %u at the deadline",
				   a->sem, ccm_sem_read(c->sys->f, a->sem), a->value);
	return 0;
}

/* Called with the model stopped, after every context's programs and rings. */
void sim_sem_fini(struct sim_ctx *c)
{
	struct sim_sem_block *b;

	ccm_sem_free_owner(c->sys->f, c->dev, c);
	/* a shared system's blocks may be pinned by other processes' rings */
	while (!sim_shared(c->sys) && (b = c->blocks)) {
		c->blocks = b->next;
		ccm_free(b);
	}
	free(c->grants);
	c->grants = NULL;
	c->ngrants = c->grants_cap = 0;
	sim_remote_fini(c);
}
