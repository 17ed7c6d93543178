// SPDX-License-Identifier: MIT
/*
 * The exchange's tokens on a shared sim (struct ccore_backend_ops
 * bo_export ... sem_import_token, runtime/dev_token.c): the shared sim's
 * own int32 tokens, which every process of the fabric imports, with what
 * the exchange needs besides (the exporter's device and process, a
 * buffer's address).  A context exports each buffer and semaphore block
 * once and keeps the token until it closes the handle or frees the block
 * (below, from GEM_CLOSE and SEM_FREE): its peers may import it any time
 * until then, and a freed buffer's memory is not pinned by a token left
 * open.  A process's tokens also go when it closes the system or dies.
 */
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XTOKEN_MAGIC 0x73746f6bu	/* "stok" */

enum xtoken_kind { XTOKEN_BO = 1, XTOKEN_SEM = 2 };

struct xtoken_body {
	u32 magic, kind;
	s32 token;			/* the shared sim's */
	u32 dev, id;			/* exporter's device, handle or first semaphore */
	u32 pid;			/* the exporter's, for messages */
	u64 dev_addr;			/* a buffer's address on its own device */
	/* across hosts (sim_net.c): where it is, for another host's NIC */
	u32 host;			/* the exporter's fabric's node (CCM_ALL_NODES: all) */
	u32 count;			/* a semaphore block's size */
	u64 arena_off, size;		/* a buffer's bytes in its host's arena */
};

_Static_assert(sizeof(struct xtoken_body) <= CCORE_TOKEN_BYTES, "token too large");

/* The token @c exported of (@kind, @id), or -1. With the lock held. */
static s32 cached(const struct sim_ctx *c, enum xtoken_kind kind, u32 id)
{
	for (u32 i = 0; i < c->nxtokens; i++)
		if (c->xtokens[i].kind == kind && c->xtokens[i].id == id)
			return c->xtokens[i].token;
	return -1;
}

/* Export (@kind, @id) of @dev once: the token kept in the context. */
static int export_once(struct ccore_dev *dev, enum xtoken_kind kind, u32 id, s32 *token)
{
	struct sim_ctx *c = to_ctx(dev);
	struct sim_system *s = c->sys;
	struct sim_xtoken *t;
	int rc = 0;

	ccm_mutex_lock(&s->sh->lock);
	*token = cached(c, kind, id);
	ccm_mutex_unlock(&s->sh->lock);
	if (*token >= 0)
		return 0;
	rc = kind == XTOKEN_BO ? ccore_dev_bo_export(dev, id, token) :
	     ccore_dev_sem_export(dev, id, token);
	if (rc)
		return rc;
	ccm_mutex_lock(&s->sh->lock);
	if (c->nxtokens == c->xtokens_cap) {
		u32 cap = c->xtokens_cap ? 2 * c->xtokens_cap : 16;

		t = realloc(c->xtokens, cap * sizeof(*t));
		if (t) {
			c->xtokens = t;
			c->xtokens_cap = cap;
		}
	}
	if (c->nxtokens < c->xtokens_cap)
		c->xtokens[c->nxtokens++] = (struct sim_xtoken){ .kind = kind, .id = id,
								 .token = *token };
	else
		rc = -ENOMEM;
	ccm_mutex_unlock(&s->sh->lock);
	if (rc) {
		ccore_dev_token_close(dev, *token);
		return ccore_error(rc, "exporting for the exchange: out of memory");
	}
	return 0;
}

void sim_xtoken_drop(struct sim_ctx *c, int kind, u32 id)
{
	for (u32 i = 0; i < c->nxtokens; i++)
		if (c->xtokens[i].kind == (u32)kind && c->xtokens[i].id == id) {
			sim_token_close(c->sys, c->xtokens[i].token);
			c->xtokens[i] = c->xtokens[--c->nxtokens];
			return;
		}
}

void sim_xtoken_fini(struct sim_ctx *c)
{
	free(c->xtokens);
	c->xtokens = NULL;
	c->nxtokens = c->xtokens_cap = 0;
}

/* What another host needs to reach @b's buffer or semaphores through its NIC. */
static void where_it_is(struct sim_ctx *c, struct xtoken_body *b)
{
	struct sim_system *s = c->sys;
	const struct sim_bo *bo;

	b->host = ccm_fabric_config(s->f)->here;
	if (b->host == CCM_ALL_NODES || !sim_shared(s))
		return;
	ccm_mutex_lock(&s->sh->lock);
	if (b->kind == XTOKEN_BO) {
		bo = sim_handle_get(&c->bos, b->id);
		if (bo && bo->mem->host) {
			b->arena_off = (u64)(uintptr_t)bo->mem->host - sim_arena_base(s);
			b->size = bo->mem->size;
		}
	} else {
		b->count = sim_sem_block_size(c, b->id);
	}
	ccm_mutex_unlock(&s->sh->lock);
}

/* @b was exported on another host: reach it through the NIC (sim_remote.c). */
static bool elsewhere(struct ccore_dev *dev, const struct xtoken_body *b)
{
	u32 here = ccm_fabric_config(to_ctx(dev)->sys->f)->here;

	return here != CCM_ALL_NODES && b->host != CCM_ALL_NODES && b->host != here;
}

static int make(struct ccore_dev *dev, enum xtoken_kind kind, u32 id, u64 dev_addr,
		struct ccore_token *tok)
{
	struct xtoken_body b = {
		.magic = XTOKEN_MAGIC, .kind = kind, .dev = to_ctx(dev)->dev, .id = id,
		.pid = (u32)getpid(), .dev_addr = dev_addr,
	};
	int rc = export_once(dev, kind, id, &b.token);

	if (rc)
		return rc;
	where_it_is(to_ctx(dev), &b);
	memset(tok, 0, sizeof(*tok));
	memcpy(tok->bytes, &b, sizeof(b));
	return 0;
}

static int body_of(const struct ccore_token *tok, enum xtoken_kind kind, struct xtoken_body *b)
{
	memcpy(b, tok->bytes, sizeof(*b));
	if (b->magic != XTOKEN_MAGIC || b->kind != kind)
		return ccore_error(-EINVAL, "import: not a shared sim %s token (garbled in transit, or from another backend?)",
				   kind == XTOKEN_BO ? "buffer" : "semaphore");
	return 0;
}

int sim_xtoken_bo_export(struct ccore_dev *dev, uint32_t handle, uint64_t dev_addr,
			 struct ccore_token *tok)
{
	return make(dev, XTOKEN_BO, handle, dev_addr, tok);
}

int sim_xtoken_bo_import(struct ccore_dev *dev, const struct ccore_token *tok, uint32_t *handle,
			 uint64_t *dev_addr)
{
	struct xtoken_body b;
	char why[512];
	int rc = body_of(tok, XTOKEN_BO, &b);

	if (rc)
		return rc;
	if (elsewhere(dev, &b)) {
		/* no handle: the mapping goes with the context */
		*handle = 0;
		return sim_remote_map(dev, b.dev, b.size, sim_net_remote(b.host, b.arena_off),
				      dev_addr);
	}
	rc = ccore_dev_bo_import_token(dev, b.token, handle, dev_addr);
	if (rc) {
		snprintf(why, sizeof(why), "%s", ccore_last_error());
		return ccore_error(rc, "importing buffer %u of device %u exported by pid %u: %s", b.id,
				   b.dev, b.pid, why);
	}
	return 0;
}

int sim_xtoken_sem_export(struct ccore_dev *dev, uint32_t first, struct ccore_token *tok)
{
	return make(dev, XTOKEN_SEM, first, 0, tok);
}

int sim_xtoken_sem_import(struct ccore_dev *dev, const struct ccore_token *tok)
{
	struct xtoken_body b;
	char why[512];
	int rc = body_of(tok, XTOKEN_SEM, &b);

	if (rc)
		return rc;
	if (elsewhere(dev, &b))
		return sim_remote_sems(dev, b.id, b.count);
	rc = ccore_dev_sem_import_token(dev, b.token, NULL, NULL);
	if (rc) {
		snprintf(why, sizeof(why), "%s", ccore_last_error());
		return ccore_error(rc, "importing semaphore block 0x%x of device %u exported by pid %u: %s",
				   b.id, b.dev, b.pid, why);
	}
	return 0;
}
