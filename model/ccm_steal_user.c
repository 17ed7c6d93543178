// SPDX-License-Identifier: GPL-2.0
/*
 * Shared fabrics: a process whose host thread waits, with nothing of its
 * own to run, steps other processes' ready agents.
 *
 * Each process runs its own cores (ccm_shared_user.c).  A small collective
 * over ranks in four processes on two CPUs then needed each process on a
 * CPU in turn for every hop of the program (about 24 context switches per
 * 8-byte AllReduce); with stealing, the processes that are on a CPU carry
 * the collective and the others only start their jobs and collect them.
 *
 * What stays with the owner: telling its host (a CC core keeps its news
 * for its owner, ccm_news.c), compute engines (their callback) and DMA
 * engines that have posted to the NIC (only the owner reaches its network).
 *
 * One process steps light agents that any process may step at a time,
 * its own as well as the others' (two would bounce the cores' state
 * between CPUs: on a VM whose CPUs take 330 ns to pass a cache line, every
 * step then cost three times a step in one process), one thread of it,
 * which notes the agent it steps in its slot.  It holds @f->stealer until
 * it finds nothing to run or its wait ends; the other processes' threads
 * meanwhile run only what is theirs alone, or their own work that waited
 * CCM_RUNNER_WAIT_NS for it (that process may be off its CPU, or stopped),
 * and yield their CPU.  Workers are not bound by it: heavy work and work
 * nobody polls for are theirs.  If the process dies in the step,
 * its reaper fails the jobs running on that core (the step may have
 * stopped half done) and puts the agent back.  A process leaving a slot
 * waits for the thieves in it to go.
 */
#ifndef __KERNEL__
#include "ccm_internal.h"

#include <signal.h>

/* @live is a u64 and the victim order rotates it */
_Static_assert(CCM_MAX_PROCS == 64, "ccm_steal_one() rotates a 64-bit mask of slots");

static bool die_in_next_steal, stop_when_running;

void ccm_inject_thief_death(void)
{
	__atomic_store_n(&die_in_next_steal, true, __ATOMIC_RELEASE);
}

void ccm_inject_runner_stop(void)
{
	__atomic_store_n(&stop_when_running, true, __ATOMIC_RELEASE);
}

void ccm_steal_stepping(void)
{
	if (__atomic_load_n(&die_in_next_steal, __ATOMIC_ACQUIRE))
		raise(SIGKILL);
}

static u32 slot_of(const struct ccm_fabric *f, const struct ccm_sched *s)
{
	const char *proc = (const char *)s - offsetof(struct ccm_proc, sched);

	return (u32)((const struct ccm_proc *)proc - f->procs);
}

/* Step the head of @victim's queue if another process may (true: did). */
static bool steal_from(struct ccm_fabric *f, struct ccm_proc *me, u32 self, u32 victim)
{
	struct ccm_proc *v = &f->procs[victim];
	struct ccm_sched *q = &v->sched;
	u64 mark = 1ull << self;
	bool stole = false;

	if (!__atomic_load_n(&q->count, __ATOMIC_ACQUIRE))
		return false;
	/* pairs with ccm_steal_wait_thieves(): it sees us, or we see it gone */
	__atomic_fetch_or(&v->thieves, mark, __ATOMIC_SEQ_CST);
	if ((ccm_load64(&f->live) & (1ull << victim)) &&
	    ccm_load32(&v->state) == CCM_PROC_LIVE) {
		ccm_mutex_lock(&q->lock);
		if (q->count && !q->stop && ccm_sched_head_stealable(q)) {
			ccm_sched_run_noted(q, &me->stepping);
			stole = true;
		}
		ccm_mutex_unlock(&q->lock);
	}
	__atomic_fetch_and(&v->thieves, ~mark, __ATOMIC_SEQ_CST);
	return stole;
}

bool ccm_steal_may_run(struct ccm_fabric *f)
{
	struct ccm_sched *mine = ccm_my_sched(f);
	u32 self, none = 0, cur;

	if (!f->procs || !mine)
		return true;
	self = slot_of(f, mine) + 1;
	cur = ccm_load32(&f->stealer);
	if (cur == self)
		return true;
	if (cur || !ccm_cas32(&f->stealer, &none, self))
		return false;
	if (__atomic_exchange_n(&stop_when_running, false, __ATOMIC_ACQ_REL))
		raise(SIGSTOP);
	return true;
}

bool ccm_steal_others_run(struct ccm_fabric *f)
{
	struct ccm_sched *mine = ccm_my_sched(f);
	u32 cur;

	if (!f->procs || !mine)
		return false;
	cur = ccm_load32(&f->stealer);
	return cur && cur != slot_of(f, mine) + 1;
}

bool ccm_steal_one(struct ccm_fabric *f)
{
	struct ccm_sched *mine = ccm_my_sched(f);
	struct ccm_proc *me;
	u32 self, idle = 0, i, start;
	u64 live, order;
	bool stole = false;

	if (!f->procs || !mine || !ccm_steal_may_run(f))
		return false;
	self = slot_of(f, mine);
	me = &f->procs[self];
	if (!ccm_cas32(&me->stealing, &idle, 1))
		return false;
	live = ccm_load64(&f->live) & ~(1ull << self);
	/* start past the last victim: no process is always served first;
	 * bit k of @order is slot start + k (only live slots are visited:
	 * testing all 64 slots was most of a waiting thread's time) */
	start = me->steal_next % CCM_MAX_PROCS;
	order = start ? live >> start | live << (CCM_MAX_PROCS - start) : live;
	for (; order && !stole; order &= order - 1) {
		i = (start + (u32)__builtin_ctzll(order)) % CCM_MAX_PROCS;
		stole = steal_from(f, me, self, i);
		if (stole)
			me->steal_next = i + 1;
	}
	ccm_store32(&me->stealing, 0);
	/* nothing to step: the caller lets another process go (ccm_steal_done()) */
	return stole;
}

void ccm_steal_done(struct ccm_fabric *f)
{
	struct ccm_sched *mine = f->procs ? ccm_my_sched(f) : NULL;
	u32 self;

	if (!mine)
		return;
	self = slot_of(f, mine) + 1;
	/* a waiter calls this before every yield: a compare-and-swap that
	 * fails still takes the line every process reads, so look first */
	if (ccm_load32(&f->stealer) == self)
		ccm_cas32(&f->stealer, &self, 0);
}

bool ccm_steal_others_poll(struct ccm_fabric *f, struct ccm_sched *mine)
{
	u64 live;
	u32 i;

	if (!f->procs)
		return false;
	for (live = ccm_load64(&f->live); live; live &= live - 1) {
		i = (u32)__builtin_ctzll(live);
		if (&f->procs[i].sched != mine && ccm_hosts_polling(&f->procs[i].sched))
			return true;
	}
	return false;
}

void ccm_steal_wait_thieves(struct ccm_fabric *f, u32 slot)
{
	struct ccm_proc *p = &f->procs[slot];
	u64 thieves;
	u32 i;

	while ((thieves = ccm_load64(&p->thieves))) {
		/* one that died in a step never leaves: its reaper repairs */
		for (i = 0; i < CCM_MAX_PROCS; i++)
			if ((thieves & (1ull << i)) && ccm_lock_holder_dead(f->procs[i].pid))
				__atomic_fetch_and(&p->thieves, ~(1ull << i), __ATOMIC_SEQ_CST);
		ccm_poll_yield();
	}
}

static struct ccm_core *core_of(struct ccm_agent *a)
{
	if (a->kind == CCM_AGENT_CC)
		return ((struct ccm_cc *)a)->core;
	return ((struct ccm_engine *)a)->core;
}

u32 ccm_fabric_broken_steps(const struct ccm_fabric *f)
{
	return ccm_load32(&f->broken_steps);
}

void ccm_steal_repair(struct ccm_fabric *f, u32 dead)
{
	struct ccm_agent *a = __atomic_exchange_n(&f->procs[dead].stepping, NULL,
						  __ATOMIC_ACQ_REL);
	char msg[96];
	struct ccm_sched *q;
	u32 i;

	for (i = 0; i < CCM_MAX_PROCS; i++)
		__atomic_fetch_and(&f->procs[i].thieves, ~(1ull << dead), __ATOMIC_SEQ_CST);
	q = a ? ccm_agent_sched(a) : NULL;
	/* its owner's slot may be gone too (then so is the agent's claim) */
	if (!q || !q->queue)
		return;
	/*
	 * The step stopped anywhere: what it changed may be half done, so
	 * the core's running jobs fail rather than finish on it.  Its locks,
	 * if the dead process held them, pass to us.
	 */
	ccm_add32(&f->broken_steps, 1);
	snprintf(msg, sizeof(msg), "process %u died stepping this core (it ran other processes' cores)",
		 f->procs[dead].dead_pid);
	ccm_cc_dma_error(core_of(a), msg);
	ccm_mutex_lock(&q->lock);
	ccm_sched_requeue_lost(q, a);
	ccm_mutex_unlock(&q->lock);
}
#endif
