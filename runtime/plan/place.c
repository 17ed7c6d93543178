// SPDX-License-Identifier: MIT
/*
 * A plan's ranks placed on the devices: scratch and DMA ring indices per
 * rank, the peers' buffer addresses each rank's descriptors name (imported
 * once per pair) and the semaphores its transfers signal.
 */
#include "plan.h"
#include "xchg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Rank @k's buffers as rank @r's descriptors name them, into @va (importing them once). */
static int resolve_pair(struct clique *q, struct plan *p, uint32_t r, uint32_t k, uint64_t *va)
{
	for (uint32_t b = 0; b < CS_NBUF; b++) {
		int rc;

		if (!p->active[r] || !p->active[k])
			continue;
		rc = q->xchg->peer_va(p, r, k, b, &va[b]);
		if (rc)
			return rc;
	}
	return 0;
}

/* Rank @k's buffers as rank @r names them, resolved the first time asked; NULL on failure. */
static const uint64_t *resolve_once(struct plan *p, uint32_t r, uint32_t k, int *rc)
{
	bool fresh;
	struct peer_entry *e = plan_peers_find(&p->peers, p->n, r, k, &fresh);

	*rc = e ? 0 : -ENOMEM;
	if (e && fresh)
		*rc = resolve_pair(p->q, p, r, k, e->va);
	return *rc ? NULL : e->va;
}

/* Resolved on first use: a lowering without a schedule names its pairs as it goes. */
uint64_t plan_peer_va(void *arg, uint32_t r, uint32_t q, uint32_t buf)
{
	struct plan *p = arg;
	const uint64_t *va;
	int rc;

	/* after a failure, none: the last error stays the first one's */
	if (p->peer_rc)
		return 0;
	va = resolve_once(p, r, q, &rc);
	p->peer_rc = rc;
	return va ? va[buf] : 0;
}

/* Undo plan_place(): scratch and ring indices back, nothing placed. */
void plan_unplace(struct clique *q, struct plan *p)
{
	for (uint32_t r = 0; r < p->n; r++) {
		struct lower_rank *lr = &p->lr[r];

		/* scratch a build exchanged is the record's: peers name it */
		if (lr->va[CS_TMP] && !p->xrec)
			rt_free(q->rt, q->ranks[r].dev, lr->va[CS_TMP]);
		lr->va[CS_TMP] = 0;
		for (uint32_t k = 0; k < LOWER_RINGS; k++) {
			if (lr->ring[k] != ~0u)
				rt_ring_put(q->rt, q->ranks[r].dev, q->ranks[r].core, lr->ring[k]);
			lr->ring[k] = ~0u;
		}
		if (p->active)
			p->active[r] = false;
	}
	plan_peers_clear(&p->peers);
	p->peer_rc = 0;
	p->xrec = NULL;
}

/*
 * The peer addresses the lowering asks for: those of the ranks each rank
 * sends to.  Only these pairs, not all N^2: at N = 1024 resolving (and
 * importing) every pair would cost seconds.
 */
int plan_resolve_peers(struct plan *p, const struct cs_sched *s)
{
	int rc = 0;

	for (uint32_t r = 0; r < p->n && !rc; r++) {
		const struct cs_rank *rk = &s->ranks[r];

		for (uint32_t i = 0; i < rk->n && !rc; i++)
			if (rk->steps[i].op == CS_SEND_OP)
				resolve_once(p, r, rk->steps[i].peer, &rc);
	}
	return rc;
}

/* Devices, cores, TMP and @rings ring indices for the ranks in p->active. */
int plan_place(struct clique *q, struct plan *p, uint64_t tmp_count, uint32_t rings)
{
	uint64_t es = ccore_dtype_size(p->ops[0].dtype);
	int rc = 0;

	if (q->xchg->prepare)
		q->xchg->prepare(q, p);
	for (uint32_t r = 0; r < p->n; r++) {
		struct lower_rank *lr = &p->lr[r];
		uint32_t slot = plan_rank_slot(p, r);

		if (!p->active[r])
			continue;
		if (!clique_local(q, r)) {
			/* another process's: its image is sized, never loaded */
			lr->dev = NULL;
			lr->core = q->ranks[r].core;
			continue;
		}
		lr->dev = q->rt->devs[q->ranks[r].dev].dev;
		lr->core = q->ranks[r].core;
		lr->cc = p->ops[r].stream->cc;
		lr->va[CS_SEND] = p->ops[r].send;
		lr->va[CS_RECV] = p->ops[r].recv;
		/* 0 leaves the device's default (sysfs) to the ring */
		lr->packet_size = q->scfg.cc_packet[slot];
		if (tmp_count && p->xrec) {
			/* the scratch the peers were given when this was exchanged */
			lr->va[CS_TMP] = xchg_rec_tmp(p->xrec, r);
		}
		/* cached plans' scratch may be what fills the device: make room */
		while (tmp_count && !lr->va[CS_TMP] &&
		       (rc = rt_alloc(q->rt, q->ranks[r].dev, tmp_count * es, &lr->va[CS_TMP])) ==
		       -ENOMEM && plan_evict_one(q))
			;
		if (rc)
			return rc;
		for (uint32_t k = 0; k < rings; k++) {
			while ((rc = rt_ring_get(q->rt, q->ranks[r].dev, lr->core, &lr->ring[k])) ==
			       -ENOSPC)
				if (!plan_evict_one(q))
					break;
			if (rc) {
				lr->ring[k] = ~0u;
				return ccore_error(rc, "no free DMA ring index on core %u of device %u",
						   lr->core, q->ranks[r].dev);
			}
		}
	}
	return 0;
}

/* Semaphore @kind of rank @r for @peer, named by @user, as the exchange has it. */
uint32_t plan_sem(void *arg, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
		  uint32_t user)
{
	struct plan *p = arg;
	uint32_t sem = 0;
	int rc;

	/* after a failure, none: the last error stays the first one's */
	if (p->peer_rc)
		return 0;
	rc = p->q->xchg->sem(p, r, peer, kind, user, &sem);
	if (rc) {
		p->peer_rc = rc;
		return 0;
	}
	return sem;
}

/*
 * The semaphores a schedule names, made before lowering: per rank L and a
 * pair per peer it sends to or receives from (which covers both ends of
 * every transfer), in one chunk where the bank allows.
 */
int plan_sems(struct clique *q, struct plan *p, const struct cs_sched *s)
{
	int64_t t = rt_now_ns();
	int rc = 0;

	for (uint32_t r = 0; r < p->n && !rc; r++) {
		const struct cs_rank *rk = &s->ranks[r];
		uint32_t *peers, k = 0;

		/* another process makes its ranks' own */
		if (!rk->n || !clique_local(q, r))
			continue;
		peers = malloc(rk->n * sizeof(*peers));
		if (!peers)
			return ccore_error(-ENOMEM, "out of memory");
		for (uint32_t i = 0; i < rk->n; i++)
			if (rk->steps[i].op == CS_SEND_OP || rk->steps[i].op == CS_RECV_OP ||
			    rk->steps[i].op == CS_RECV_REDUCE)
				peers[k++] = rk->steps[i].peer;
		rc = sems_ensure(q, plan_rank_slot(p, r), r, peers, k);
		free(peers);
	}
	q->timing.connect_us += (double)(rt_now_ns() - t) / 1e3;
	return rc;
}
