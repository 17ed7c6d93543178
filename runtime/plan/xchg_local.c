// SPDX-License-Identifier: MIT
/*
 * Peers within this process (plan/xchg.h): a peer's buffer is imported
 * into the rank's device once (rt_peer_va), its semaphores are made on
 * first use and imported into the devices that signal them.
 */
#include "plan.h"
#include "xchg.h"

int xchg_local_peer_va(struct plan *p, uint32_t r, uint32_t k, uint32_t buf, uint64_t *va)
{
	struct clique *q = p->q;
	uint64_t at = buf == CS_SEND ? p->ops[k].send :
		      buf == CS_RECV ? p->ops[k].recv : p->lr[k].va[CS_TMP];

	*va = 0;
	if (!at)
		return 0;
	return rt_peer_va(q->rt, q->ranks[k].dev, at, q->ranks[r].dev, va);
}

/*
 * Semaphore @kind of rank @r for @peer, made on first use (a lowering
 * without a schedule names its peers as it goes); time spent making them
 * counts as connecting.
 */
int xchg_local_sem(struct plan *p, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
		   uint32_t user, uint32_t *out)
{
	struct clique *q = p->q;
	uint32_t slot = plan_rank_slot(p, r), sem;
	int64_t t = 0;
	int rc = 0;

	if (kind == LOWER_SEM_LOCAL ? !sems_have_local(q, slot, r) : !sems_have(q, slot, r, peer)) {
		t = rt_now_ns();
		rc = sems_ensure(q, slot, r, &peer, kind != LOWER_SEM_LOCAL);
	}
	sem = rc ? 0 : kind == LOWER_SEM_LOCAL ? sems_local(q, slot, r) :
	      kind == LOWER_SEM_ARRIVAL ? sems_arrival(q, slot, r, peer) :
	      sems_credit(q, slot, r, peer);
	if (!rc && user != peer) {
		int64_t t0 = rt_now_ns();

		rc = sems_allow(q, slot, r, sem, user);
		t = rc > 0 && !t ? t0 : t;
		rc = rc < 0 ? rc : 0;
	}
	if (t)
		q->timing.connect_us += (double)(rt_now_ns() - t) / 1e3;
	*out = sem;
	return rc;
}

const struct xchg_ops xchg_in_process = {
	.name = "in process",
	.peer_va = xchg_local_peer_va,
	.sem = xchg_local_sem,
};
