// SPDX-License-Identifier: GPL-2.0
/*
 * News a CC core has for its host (a job's end, a NOTIFY) from a step that
 * another process of a shared fabric ran (ccm_steal_user.c).  That process
 * cannot call the owner's host, whose callbacks and job records live in
 * the owner's memory: the core keeps the news, oldest first, and the owner
 * reports it when it next waits or steps the core.  A core whose news is
 * full runs no further until then, so nothing is dropped.
 */
#include "ccm_internal.h"

static bool stepped_by_owner(const struct ccm_cc *cc)
{
	return ccm_my_sched(cc->agent.f) == ccm_agent_sched(&cc->agent);
}

static struct ccm_proc *owner_of(const struct ccm_cc *cc)
{
	u32 owner = ccm_load32(&cc->core->owner);

	return owner ? &cc->agent.f->procs[owner - 1] : NULL;
}

bool ccm_cc_hold_news(struct ccm_cc *cc, const struct ccm_cc_events *ev)
{
	struct ccm_proc *owner;
	struct ccm_news *n;

	if (!cc->agent.f->procs || stepped_by_owner(cc))
		return false;
	owner = owner_of(cc);
	if (!owner)
		return false;	/* released: nobody to tell */
	ccm_mutex_lock(&cc->lock);
	/*
	 * Room: another process steps the core only below CCM_CC_NEWS
	 * (ccm_cc_news_full()), a step ends at its first news, and besides
	 * steps only a DMA error ends a job, the one running.
	 */
	if (cc->held_count > CCM_CC_NEWS) {
		ccm_mutex_unlock(&cc->lock);
		return false;	/* cannot happen (above); never past the end */
	}
	n = &cc->held[(cc->held_head + cc->held_count) % (CCM_CC_NEWS + 1)];
	*n = (struct ccm_news){ .cookie = ev->cookie, .status = ev->status,
				.notify_value = ev->notify_value,
				.job_done = ev->job_done, .notify = ev->notify };
	cc->held_count++;
	ccm_mutex_unlock(&cc->lock);
	/* pairs with ccm_fabric_deliver(): it sees the count or the news */
	__atomic_store_n(&owner->news, 1, __ATOMIC_SEQ_CST);
	ccm_host_kick_sched(&owner->sched);
	return true;
}

bool ccm_cc_news_full(const struct ccm_cc *cc)
{
	return __atomic_load_n(&cc->held_count, __ATOMIC_RELAXED) >= CCM_CC_NEWS &&
	       !stepped_by_owner(cc);
}

/* Report what @cc holds; the owner's threads only. */
static void deliver_cc(struct ccm_cc *cc)
{
	struct ccm_news news[CCM_CC_NEWS + 1];
	u32 n = 0, i;

	ccm_mutex_lock(&cc->lock);
	while (cc->held_count) {
		news[n++] = cc->held[cc->held_head];
		cc->held_head = (cc->held_head + 1) % (CCM_CC_NEWS + 1);
		cc->held_count--;
	}
	ccm_mutex_unlock(&cc->lock);
	for (i = 0; i < n; i++) {
		struct ccm_cc_events ev = { .job_done = news[i].job_done,
					    .cookie = news[i].cookie,
					    .status = news[i].status,
					    .notify = news[i].notify,
					    .notify_value = news[i].notify_value };

		ccm_cc_report(cc, &ev);
	}
}

bool ccm_cc_deliver(struct ccm_cc *cc)
{
	if (!__atomic_load_n(&cc->held_count, __ATOMIC_ACQUIRE) || !stepped_by_owner(cc))
		return false;
	deliver_cc(cc);
	return true;
}

void ccm_cc_drop_foreign_news(struct ccm_cc *cc)
{
	if (!stepped_by_owner(cc))
		cc->held_count = 0;
}

void ccm_fabric_deliver(struct ccm_fabric *f)
{
	struct ccm_sched *mine = f->procs ? ccm_my_sched(f) : NULL;
	struct ccm_proc *me;
	u32 slot, d, k, i;

	if (!mine)
		return;
	me = (struct ccm_proc *)((char *)mine - offsetof(struct ccm_proc, sched));
	if (!__atomic_load_n(&me->news, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&me->news, 0, __ATOMIC_SEQ_CST);
	slot = (u32)(me - f->procs) + 1;
	for (d = 0; d < f->ndev; d++) {
		for (k = 0; k < f->cfg.cores; k++) {
			struct ccm_core *core = &f->devs[d].cores[k];

			if (ccm_load32(&core->owner) != slot)
				continue;
			for (i = 0; i < f->cfg.cc_cores; i++)
				ccm_cc_deliver(&core->cc[i]);
		}
	}
}
