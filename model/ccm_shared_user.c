// SPDX-License-Identifier: GPL-2.0
/*
 * Shared fabrics: one fabric, in an arena (ccm_arena.h) every process of a
 * host maps at the same address, driven by several processes at once.
 *
 * Each attached process has a slot (struct ccm_proc) with its own run
 * queue; the agents (CC cores, DMA and compute engines) of the cores it
 * claimed go on that queue only, so its own workers and host threads run
 * them.  A wake for another process's agent queues it there and wakes that
 * process's threads through futexes in the arena (ccm_sched.c).  What is
 * process-local stays in the process: the host callbacks, the worker
 * threads (the table below).  A process found dead (its pid gone) has its
 * cores stopped and unclaimed by whoever reaps it (ccm_fabric_reap()).
 */
#ifndef __KERNEL__
#include "ccm_internal.h"
#include "ccm_arena.h"

#include <stdlib.h>
#include <unistd.h>

/* This process's attachments (few: one per shared fabric it joined). */
struct attachment {
	struct ccm_fabric *f;
	u32 slot;
	const struct ccm_host_ops *ops;
	void *host;
	struct ccm_thread *threads;
	bool stopped;
};

#define CCM_MAX_ATTACH 4
static struct attachment attached[CCM_MAX_ATTACH];

static struct attachment *attachment_of(const struct ccm_fabric *f)
{
	u32 i;

	for (i = 0; i < CCM_MAX_ATTACH; i++)
		if (__atomic_load_n(&attached[i].f, __ATOMIC_ACQUIRE) == f)
			return &attached[i];
	return NULL;
}

struct ccm_sched *ccm_shared_my_sched(struct ccm_fabric *f)
{
	struct attachment *at = attachment_of(f);

	return at ? &f->procs[at->slot].sched : NULL;
}

const struct ccm_host_ops *ccm_shared_host_ops(const struct ccm_fabric *f,
					       const struct ccm_core *core, void **host)
{
	struct attachment *at = attachment_of(f);

	if (!at || __atomic_load_n(&core->owner, __ATOMIC_ACQUIRE) != at->slot + 1)
		return NULL;
	*host = at->host;
	return at->ops;
}

u32 ccm_fabric_slot(const struct ccm_fabric *f)
{
	struct attachment *at = attachment_of(f);

	return at ? at->slot : CCM_NO_INDEX;
}

struct ccm_fabric *ccm_fabric_create_shared(const struct ccm_config *cfg,
					    struct ccm_arena *arena, struct ccm_err *err)
{
	struct ccm_arena *was = ccm_arena_current;
	struct ccm_fabric *f;

#ifdef CCM_OS_PTHREAD
	ccm_fail(err, -EOPNOTSUPP, CCM_NO_INDEX,
		 "shared fabrics need the model's futex locks; this build runs it on pthread primitives (ThreadSanitizer)");
	return NULL;
#endif
	if (cfg->timed) {
		ccm_fail(err, -EOPNOTSUPP, CCM_NO_INDEX,
			 "timed=1 cannot be shared between processes: the virtual clock is one event queue in one process; use the functional model (timed=0) or one process");
		return NULL;
	}
	if (!cfg->workers) {
		ccm_fail(err, -EINVAL, CCM_NO_INDEX,
			 "workers=0 cannot be shared between processes: each process runs its own cores on its workers (workers=1 or more)");
		return NULL;
	}
	ccm_arena_current = arena;
	f = ccm_fabric_create_in(cfg, NULL, NULL, true, err);
	ccm_arena_current = was;
	return f;
}

int ccm_fabric_attach(struct ccm_fabric *f, const struct ccm_host_ops *ops, void *host,
		      u32 *slot, struct ccm_err *err)
{
	struct ccm_arena *was = ccm_arena_current;
	struct attachment *at = NULL;
	struct ccm_thread *threads;
	struct ccm_proc *p = NULL;
	u32 i;
	int rc;

	if (!f->procs)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX, "the fabric is not shared");
	if (attachment_of(f))
		return ccm_fail(err, -EEXIST, CCM_NO_INDEX,
				"this process (pid %d) is attached to the fabric already",
				(int)getpid());
	for (i = 0; i < CCM_MAX_ATTACH && !at; i++)
		if (!attached[i].f)
			at = &attached[i];
	if (!at)
		return ccm_fail(err, -EMFILE, CCM_NO_INDEX,
				"this process is attached to %u shared fabrics already (the most)",
				CCM_MAX_ATTACH);
	/*
	 * A slot whose process died last only when no other is free, so the
	 * others still find it among the dead (ccm_fabric_dead_slots()).
	 */
	for (i = 0; i < 2 * CCM_MAX_PROCS && !p; i++) {
		u32 free_state = CCM_PROC_FREE, k = i % CCM_MAX_PROCS;
		bool first_pass = i < CCM_MAX_PROCS;

		if (first_pass == !(ccm_load64(&f->died) >> k & 1) &&
		    ccm_cas32(&f->procs[k].state, &free_state, CCM_PROC_LIVE))
			p = &f->procs[k];
	}
	if (!p)
		return ccm_fail(err, -EUSERS, CCM_NO_INDEX,
				"all %u process slots of the shared fabric are taken",
				CCM_MAX_PROCS);
	__atomic_fetch_and(&f->died, ~(1ull << (p - f->procs)), __ATOMIC_SEQ_CST);
	threads = calloc(f->cfg.workers, sizeof(*threads));
#ifndef CCM_OS_PTHREAD
	/* this process's locks name it: a waiter can tell if it dies holding one */
	ccm_lock_tag = (u32)getpid() << CCM_LOCK_TAG_SHIFT;
#endif
	p->pid = (u32)getpid();
	ccm_arena_current = ccm_arena_of(f);
	rc = threads ? ccm_sched_init_one(f, &p->sched) : -ENOMEM;
	ccm_arena_current = was;
	if (rc) {
		free(threads);
		ccm_sched_fini_one(&p->sched);
		p->pid = 0;
		ccm_store32(&p->state, CCM_PROC_FREE);
		return ccm_fail(err, -ENOMEM, CCM_NO_INDEX,
				"out of memory attaching to the fabric");
	}
	*at = (struct attachment){
		.slot = (u32)(p - f->procs), .ops = ops, .host = host, .threads = threads,
	};
	__atomic_store_n(&at->f, f, __ATOMIC_RELEASE);
	ccm_sched_start_one(&p->sched, threads, f->cfg.workers);
	__atomic_fetch_or(&f->live, 1ull << at->slot, __ATOMIC_SEQ_CST);
	*slot = at->slot;
	return 0;
}

int ccm_core_claim(struct ccm_fabric *f, u32 dev, u32 core, struct ccm_err *err)
{
	struct attachment *at = attachment_of(f);
	struct ccm_core *c = ccm_core_get(f, dev, core, err);
	u32 none = 0, i;

	if (!c)
		return -EINVAL;
	if (!at)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX, "this process is not attached");
	if (!ccm_cas32(&c->owner, &none, at->slot + 1)) {
		if (none == at->slot + 1)
			return 0;
		return ccm_fail(err, -EBUSY, CCM_NO_INDEX,
				"core %u of device %u is claimed by process slot %u (pid %u)", core,
				dev, none - 1, f->procs[none - 1].pid);
	}
	for (i = 0; i < f->cfg.engines; i++)
		c->engines[i].agent.proc = (u8)(at->slot + 1);
	for (i = 0; i < f->cfg.cc_cores; i++)
		c->cc[i].agent.proc = (u8)(at->slot + 1);
	c->compute.agent.proc = (u8)(at->slot + 1);
	/* CC cores restarted with nobody to run them go on to their first wait */
	for (i = 0; i < f->cfg.cc_cores; i++)
		ccm_agent_wake(&c->cc[i].agent);
	return 0;
}

u32 ccm_core_owner(const struct ccm_fabric *f, u32 dev, u32 core)
{
	struct ccm_core *c = ccm_core_of(f, dev, core);
	u32 owner = c && f->procs ? __atomic_load_n(&c->owner, __ATOMIC_ACQUIRE) : 0;

	return owner ? owner - 1 : CCM_NO_INDEX;
}

u32 ccm_fabric_slot_pid(const struct ccm_fabric *f, u32 slot)
{
	return f->procs && slot < CCM_MAX_PROCS ? f->procs[slot].pid : 0;
}

static void agent_release(struct ccm_agent *a)
{
	a->proc = 0;
	a->state = CCM_AGENT_IDLE;
	a->rerun = false;
}

/* Stop core @c of a slot whose threads no longer run it; unclaim it. */
static void core_release(struct ccm_fabric *f, struct ccm_core *c, int status)
{
	u32 i;

	/* first: nothing woken from now on queues its agents, nobody is told */
	for (i = 0; i < f->cfg.engines; i++)
		agent_release(&c->engines[i].agent);
	for (i = 0; i < f->cfg.cc_cores; i++)
		agent_release(&c->cc[i].agent);
	agent_release(&c->compute.agent);
	ccm_store32(&c->owner, 0);
	for (i = 0; i < f->cfg.engines; i++)
		ccm_engine_drop_all(&c->engines[i]);
	ccm_compute_abort(f, c->dev->index, c->index, NULL, status);
	for (i = 0; i < f->cfg.cc_cores; i++)
		ccm_cc_reset(f, c->dev->index, c->cc[i].index, status);
	/* the resets woke nobody: they run when the core is claimed again */
	for (i = 0; i < f->cfg.cc_cores; i++)
		agent_release(&c->cc[i].agent);
	ccm_host_kick(f);
}

/* Release the cores of @slot and the slot itself (its workers stopped). */
static void slot_release(struct ccm_fabric *f, u32 slot, int status)
{
	struct ccm_proc *p = &f->procs[slot];
	u32 d, k;

	__atomic_fetch_and(&f->live, ~(1ull << slot), __ATOMIC_SEQ_CST);
	/* no other process steps its agents while they are released */
	ccm_steal_wait_thieves(f, slot);
	/* it may have died the one process stealing */
	d = slot + 1;
	ccm_cas32(&f->stealer, &d, 0);
	for (d = 0; d < f->ndev; d++)
		for (k = 0; k < f->cfg.cores; k++)
			if (ccm_load32(&f->devs[d].cores[k].owner) == slot + 1)
				core_release(f, &f->devs[d].cores[k], status);
	ccm_sched_fini_one(&p->sched);
	memset(&p->sched, 0, sizeof(p->sched));
	p->stealing = 0;
	p->steal_next = 0;
	p->pid = 0;
	ccm_store32(&p->state, CCM_PROC_FREE);
}

void ccm_shared_stop(struct ccm_fabric *f)
{
	struct attachment *at = attachment_of(f);

	if (!at || at->stopped)
		return;
	ccm_sched_stop_one(&f->procs[at->slot].sched);
	at->stopped = true;
}

void ccm_fabric_detach(struct ccm_fabric *f)
{
	struct attachment *at = attachment_of(f);

	if (!at)
		return;
	ccm_shared_stop(f);
	slot_release(f, at->slot, -ECANCELED);
	free(at->threads);
	__atomic_store_n(&at->f, NULL, __ATOMIC_RELEASE);
	*at = (struct attachment){ 0 };
}

u64 ccm_fabric_find_dead(struct ccm_fabric *f)
{
	u64 found = 0;
	u32 i;

	for (i = 0; f->procs && i < CCM_MAX_PROCS; i++) {
		struct ccm_proc *p = &f->procs[i];
		u32 live = CCM_PROC_LIVE;

		if (ccm_load32(&p->state) != CCM_PROC_LIVE || p->pid == (u32)getpid() ||
		    !ccm_lock_holder_dead(p->pid))
			continue;
		if (ccm_cas32(&p->state, &live, CCM_PROC_DEAD)) {
			found |= 1ull << i;
			p->dead_pid = p->pid;
			__atomic_fetch_or(&f->died, 1ull << i, __ATOMIC_SEQ_CST);
			ccm_add32(&f->deaths, 1);
		}
	}
	return found;
}

u64 ccm_fabric_dead_slots(const struct ccm_fabric *f)
{
	return f->procs ? ccm_load64(&f->died) : 0;
}

u32 ccm_fabric_dead_pid(const struct ccm_fabric *f, u32 slot)
{
	return f->procs && slot < CCM_MAX_PROCS ? f->procs[slot].dead_pid : 0;
}

u32 ccm_fabric_deaths(const struct ccm_fabric *f)
{
	return ccm_load32(&f->deaths);
}

bool ccm_fabric_reap(struct ccm_fabric *f, u32 slot)
{
	struct ccm_arena *was = ccm_arena_current;
	u32 dead = CCM_PROC_DEAD;

	/* one reaper: the others find it reaping or free */
	if (!f->procs || slot >= CCM_MAX_PROCS ||
	    !ccm_cas32(&f->procs[slot].state, &dead, CCM_PROC_REAPING))
		return false;
	ccm_arena_current = ccm_arena_of(f);
	/* what it stepped of another process's goes back on that queue */
	ccm_steal_repair(f, slot);
	slot_release(f, slot, -EPIPE);
	ccm_arena_current = was;
	return true;
}
#endif
