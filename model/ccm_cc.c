// SPDX-License-Identifier: GPL-2.0
/*
 * CC cores: each executes CC-ISA instructions from its own instruction
 * memory.  The resident firmware sits at pc 0; programs loaded for jobs sit
 * above it.  A step runs instructions until the core blocks (on a
 * semaphore, a ring, a trigger or an empty job queue), halts, faults, or
 * uses its budget.  Job completions and notifications are reported to the
 * host after the core's lock is dropped.
 */
#include "ccm_internal.h"


static size_t imem_bytes(const struct ccm_cc *cc)
{
	return (size_t)cc->agent.f->cfg.max_program_size * sizeof(*cc->imem);
}

static size_t regions_bytes(const struct ccm_cc *cc)
{
	return (size_t)cc->agent.f->cfg.max_program_size * sizeof(*cc->regions);
}

int ccm_cc_init(struct ccm_cc *cc, struct ccm_core *core, u32 index)
{
	cc->agent.kind = CCM_AGENT_CC;
	cc->agent.f = core->dev->f;
	cc->core = core;
	cc->index = index;
	cc->state = CCM_CC_IDLE;
	ccm_mutex_init(&cc->lock);
	/* lazily committed: only what programs are loaded into costs memory,
	 * so thousands of CC cores with big instruction memories fit */
	cc->imem = ccm_big_zalloc(imem_bytes(cc));
	cc->regions = ccm_big_zalloc(regions_bytes(cc));
	if (!cc->imem || !cc->regions)
		return -ENOMEM;
	return 0;
}

void ccm_cc_fini(struct ccm_cc *cc)
{
	if (cc->imem)
		ccm_big_free(cc->imem, imem_bytes(cc));
	if (cc->regions)
		ccm_big_free(cc->regions, regions_bytes(cc));
	ccm_mutex_destroy(&cc->lock);
}

/*
 * Wakes are filtered by what each CC core last blocked on.  A core that
 * finds its semaphore or ring not ready records what it waits for and
 * then reads it again (one that finds it ready records nothing); the waker
 * changes the semaphore or ring before it reads the record.  Every one of
 * these accesses is sequentially consistent (ccm_os.h), so either the core
 * sees the change or the waker sees the core waiting for it, with no fence
 * (a fence per wait and per wake was a tenth of a small collective's
 * time).  A core that moved on (running, or blocked on something else
 * since) re-checks what it waits for when it blocks again.
 */
static void cc_wait_for(struct ccm_cc *cc, u32 kind, u32 sem)
{
	__atomic_store_n(&cc->wait_sem, sem, __ATOMIC_RELAXED);
	ccm_store32_sc(&cc->wait_kind, kind);
}

static void core_wake(struct ccm_core *core, bool ring, u32 ref)
{
	struct ccm_cc *cc;
	u32 i, kind;

	for (i = 0; i < core->dev->f->cfg.cc_cores; i++) {
		cc = &core->cc[i];
		kind = ccm_load32(&cc->wait_kind);
		if (kind == CCM_WAIT_DIRECT || kind == (ring ? CCM_WAIT_SEM : CCM_WAIT_RING))
			continue;
		if (kind == CCM_WAIT_SEM && __atomic_load_n(&cc->wait_sem, __ATOMIC_RELAXED) != ref)
			continue;
		/* timed: a semaphore change reaches its waiter after sem_ns */
		ccm_agent_wake_after(&cc->agent, ring ? 0 : core->dev->f->tm.sem_ps);
	}
}

void ccm_core_wake_sem(struct ccm_core *core, u32 ref)
{
	core_wake(core, false, ref);
	ccm_compute_wake(core, false, ref);
}

void ccm_core_wake_ring(struct ccm_core *core)
{
	core_wake(core, true, 0);
	ccm_compute_wake(core, true, 0);
}

static __printf(3, 4) void cc_fault(struct ccm_cc *cc, struct ccm_cc_events *ev,
				    const char *fmt, ...);

static void cc_fault(struct ccm_cc *cc, struct ccm_cc_events *ev, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(cc->fault, sizeof(cc->fault), "pc %u: ", cc->pc);
	va_start(ap, fmt);
	vsnprintf(cc->fault + n, sizeof(cc->fault) - (size_t)n, fmt, ap);
	va_end(ap);
	ccm_store32(&cc->state, CCM_CC_FAULT);
	if (cc->job_running) {
		cc->job_running = false;
		ev->job_done = true;
		ev->cookie = cc->job_cookie;
		ev->job_start_ps = cc->job_start_ps;
		ev->job_trigger_ps = cc->job_trigger_ps;
		ev->status = -EIO;
	}
}

static u32 *cc_sem(struct ccm_cc *cc, u32 ref)
{
	if (ref == DRM_CCORE_SEM_TRIGGER)
		return &cc->trigger;
	return ccm_sem_slot(cc->agent.f, ref);
}

static void cc_sem_write(struct ccm_cc *cc, u32 ref, u32 value, bool set)
{
	struct ccm_fabric *f = cc->agent.f;

	if (ref == DRM_CCORE_SEM_TRIGGER) {
		if (set)
			ccm_store32(&cc->trigger, value);
		else
			ccm_add32(&cc->trigger, value);
		return;
	}
	if (set)
		ccm_sem_set(f, ref, value);
	else
		ccm_sem_add(f, ref, value);
}

/* Wait-style instructions: true if the core may go on. */
static bool cc_acquire(u32 *sem, u32 want)
{
	u32 v = ccm_load32(sem);

	while (v >= want)
		if (ccm_cas32(sem, &v, v - want))
			return true;
	return false;
}

/* WAIT or ACQUIRE on @sem may go on (ACQUIRE then took its share). */
static bool cc_sem_ready(const struct drm_ccore_insn *in, u32 *sem)
{
	return in->opcode == DRM_CCORE_OP_WAIT ? ccm_load32(sem) >= in->imm
					       : cc_acquire(sem, in->imm);
}

static bool pc_in_imem(const struct ccm_cc *cc, u32 pc)
{
	return pc < cc->agent.f->cfg.max_program_size;
}

static void cc_branch(struct ccm_cc *cc, const struct drm_ccore_insn *in)
{
	cc->pc += (u32)in->target;
}

static bool cc_call(struct ccm_cc *cc, struct ccm_cc_events *ev, u32 target, bool job)
{
	if (cc->depth >= DRM_CCORE_CALL_DEPTH) {
		cc_fault(cc, ev, "call stack overflow (depth %u)", DRM_CCORE_CALL_DEPTH);
		return false;
	}
	cc->stack[cc->depth] = cc->pc + 1;
	cc->stack_job[cc->depth] = job;
	cc->depth++;
	cc->pc = target;
	return true;
}

static void cc_ret(struct ccm_cc *cc, struct ccm_cc_events *ev)
{
	if (cc->depth == 0) {
		cc_fault(cc, ev, "ret with an empty call stack");
		return;
	}
	cc->depth--;
	cc->pc = cc->stack[cc->depth];
	if (cc->stack_job[cc->depth] && cc->job_running) {
		cc->job_running = false;
		ev->job_done = true;
		ev->cookie = cc->job_cookie;
		ev->job_start_ps = cc->job_start_ps;
		ev->job_trigger_ps = cc->job_trigger_ps;
		ev->status = 0;
	}
}

static bool cc_next(struct ccm_cc *cc, struct ccm_cc_events *ev)
{
	struct ccm_job_slot *j;

	if (cc->qcount == 0)
		return false;
	j = &cc->queue[cc->qhead];
	cc->qhead = (cc->qhead + 1) % CCM_CC_QUEUE;
	cc->qcount--;
	if (!cc_call(cc, ev, j->base, true))
		return true;
	cc->job_running = true;
	cc->job_cookie = j->cookie;
	cc->job_start_ps = ccm_timed(cc->agent.f) ? ccm_fabric_now_ps(cc->agent.f) : 0;
	cc->job_trigger_ps = cc->job_start_ps;
	if (cc->trig_count) {
		cc->job_trigger_ps = cc->trig_ps[cc->trig_head];
		cc->trig_head = (cc->trig_head + 1) % CCM_CC_QUEUE;
		cc->trig_count--;
	}
	cc->hung = ccm_fault_take_cc_hang(cc);
	return true;
}

/*
 * STARTI: true once started; false when it faulted or must wait for free
 * slots (the engine wakes ring waiters as descriptors complete).
 */
static bool cc_starti(struct ccm_cc *cc, struct ccm_cc_events *ev, const struct drm_ccore_insn *in)
{
	u32 reg = in->reg % DRM_CCORE_NUM_REGS;
	struct ccm_err err;
	int rc;

	rc = ccm_ring_starti(cc->core, in->engine, in->ring, in->imm, cc->regs[reg], &err);
	if (rc == -EAGAIN) {
		/* as RWAIT: record the wait, then look again */
		cc_wait_for(cc, CCM_WAIT_RING, 0);
		rc = ccm_ring_starti(cc->core, in->engine, in->ring, in->imm, cc->regs[reg],
				     &err);
		if (rc == -EAGAIN) {
			ccm_store32(&cc->state, CCM_CC_WAITING);
			return false;
		}
	}
	if (rc) {
		cc_fault(cc, ev, "starti ring(%u,%u), r%u, %u: %s", in->engine, in->ring, reg,
			 in->imm, err.msg);
		return false;
	}
	return true;
}

/* Execute one instruction; false when the core blocked or stopped. */
static bool cc_exec(struct ccm_cc *cc, struct ccm_cc_events *ev)
{
	struct ccm_fabric *f = cc->agent.f;
	const struct drm_ccore_insn *in;
	struct ccm_ring *r;
	struct ccm_err err;
	u32 *sem;

	if (!pc_in_imem(cc, cc->pc)) {
		cc_fault(cc, ev, "pc outside instruction memory");
		return false;
	}
	in = &cc->imem[cc->pc];
	switch (in->opcode) {
	case DRM_CCORE_OP_NOP:
		break;
	case DRM_CCORE_OP_HALT:
		ccm_store32(&cc->state, CCM_CC_IDLE);
		return false;
	case DRM_CCORE_OP_WAIT:
	case DRM_CCORE_OP_ACQUIRE:
	case DRM_CCORE_OP_BGE:
		sem = cc_sem(cc, in->sem);
		if (!sem) {
			cc_fault(cc, ev, "semaphore 0x%08x does not exist", in->sem);
			return false;
		}
		if (in->opcode == DRM_CCORE_OP_BGE) {
			if (ccm_load32(sem) >= in->imm) {
				cc_branch(cc, in);
				return true;
			}
			break;
		}
		/* record what it waits for only if it must: then look again */
		if (cc_sem_ready(in, sem))
			break;
		cc_wait_for(cc, in->sem == DRM_CCORE_SEM_TRIGGER ? CCM_WAIT_DIRECT : CCM_WAIT_SEM,
			    in->sem);
		if (!cc_sem_ready(in, sem)) {
			ccm_store32(&cc->state, CCM_CC_WAITING);
			return false;
		}
		break;
	case DRM_CCORE_OP_SET:
	case DRM_CCORE_OP_ADD:
		if (in->sem != DRM_CCORE_SEM_TRIGGER && !ccm_sem_valid(f, in->sem)) {
			cc_fault(cc, ev, "semaphore 0x%08x does not exist", in->sem);
			return false;
		}
		cc_sem_write(cc, in->sem, in->imm, in->opcode == DRM_CCORE_OP_SET);
		break;
	case DRM_CCORE_OP_START:
		if (ccm_ring_start(f, cc->core->dev->index, cc->core->index, in->engine,
				   in->ring, in->imm, &err)) {
			cc_fault(cc, ev, "%s", err.msg);
			return false;
		}
		break;
	case DRM_CCORE_OP_STARTI:
		if (!cc_starti(cc, ev, in))
			return false;
		break;
	case DRM_CCORE_OP_RWAIT:
		r = ccm_core_ring(cc->core, in->engine, in->ring);
		if (!r) {
			cc_fault(cc, ev, "ring(%u,%u) does not exist", in->engine, in->ring);
			return false;
		}
		if (!ccm_ring_busy(r))
			break;
		cc_wait_for(cc, CCM_WAIT_RING, 0);
		if (ccm_ring_busy(r)) {
			ccm_store32(&cc->state, CCM_CC_WAITING);
			return false;
		}
		break;
	case DRM_CCORE_OP_JUMP:
		cc_branch(cc, in);
		return true;
	case DRM_CCORE_OP_MOVI:
		cc->regs[in->reg % DRM_CCORE_NUM_REGS] = in->imm;
		break;
	case DRM_CCORE_OP_ADDI:
		cc->regs[in->reg % DRM_CCORE_NUM_REGS] += in->imm;
		break;
	case DRM_CCORE_OP_LOOP:
		if (--cc->regs[in->reg % DRM_CCORE_NUM_REGS] != 0) {
			cc_branch(cc, in);
			return true;
		}
		break;
	case DRM_CCORE_OP_CALL:
		return cc_call(cc, ev, cc->pc + (u32)in->target, false);
	case DRM_CCORE_OP_RET:
		cc_ret(cc, ev);
		return ccm_load32(&cc->state) != CCM_CC_FAULT;
	case DRM_CCORE_OP_NEXT:
		cc_wait_for(cc, CCM_WAIT_DIRECT, 0);
		if (!cc_next(cc, ev)) {
			ccm_store32(&cc->state, CCM_CC_WAITING);
			return false;
		}
		return ccm_load32(&cc->state) != CCM_CC_FAULT;
	case DRM_CCORE_OP_NOTIFY:
		cc->notifies++;
		cc->last_notify = in->imm;
		ev->notify = true;
		ev->notify_value = in->imm;
		break;
	default:
		cc_fault(cc, ev, "unknown opcode 0x%02x", in->opcode);
		return false;
	}
	cc->pc++;
	return true;
}

void ccm_cc_report(struct ccm_cc *cc, const struct ccm_cc_events *ev)
{
	struct ccm_fabric *f = cc->agent.f;
	void *host;
	const struct ccm_host_ops *ops;

	if (!ev->notify && !ev->job_done)
		return;
	/* stepped by another process: its owner reports it (ccm_news.c) */
	if (ccm_cc_hold_news(cc, ev))
		return;
	ops = ccm_host_ops_of(f, cc->core, &host);
	if (ev->notify && ops && ops->notify)
		ops->notify(host, cc->core->dev->index, cc->index, ev->notify_value);
	if (ev->job_done && ccm_timed(f) && ops && ops->job_times)
		ops->job_times(host, ev->cookie, ev->job_trigger_ps, ev->job_start_ps,
			       ccm_fabric_now_ps(f));
	if (ev->job_done && ops && ops->job_done)
		ops->job_done(host, ev->cookie, ev->status);
	/* told in this process only: only its waiters care */
	if (ev->notify || ev->job_done)
		ccm_host_kick_mine(f);
}

enum ccm_step_result ccm_cc_step(struct ccm_cc *cc)
{
	struct ccm_cc_events ev = { 0 };
	enum ccm_step_result r = CCM_STEP_BLOCKED;
	u32 i;

	/* news held by other processes' steps (a shared fabric's only): ours
	 * to report, or theirs to keep when there is room for more */
	if (__atomic_load_n(&cc->held_count, __ATOMIC_RELAXED) &&
	    (ccm_cc_deliver(cc) || ccm_cc_news_full(cc)))
		return CCM_STEP_AGAIN;
	ccm_mutex_lock(&cc->lock);
	if (cc->state == CCM_CC_WAITING)
		ccm_store32(&cc->state, CCM_CC_RUNNING);
	/* a hung core stays RUNNING and executes nothing until reset */
	for (i = 0; cc->state == CCM_CC_RUNNING && !cc->hung; i++) {
		if (i == CCM_CC_BUDGET_INSNS) {
			r = CCM_STEP_RUNNABLE;
			break;
		}
		/* timed: not past an event due earlier than this instruction */
		if (ccm_timed(cc->agent.f) && !ccm_timed_cc_may_run(cc)) {
			r = CCM_STEP_RUNNABLE;
			break;
		}
		if (!cc_exec(cc, &ev))
			break;
		cc->insns++;
		if (ccm_timed(cc->agent.f))
			ccm_timed_cc_insn(cc);
		/* Report events one at a time, outside the lock. */
		if (ev.job_done || ev.notify) {
			r = CCM_STEP_AGAIN;
			break;
		}
	}
	ccm_mutex_unlock(&cc->lock);
	if (ev.job_done || ev.notify)	/* most steps have nothing to tell */
		ccm_cc_report(cc, &ev);
	return r;
}

struct ccm_cc *ccm_cc_of(const struct ccm_fabric *f, u32 dev, u32 cc, struct ccm_err *err)
{
	u32 per = f->cfg.cc_cores;
	struct ccm_core *core = ccm_core_of(f, dev, cc / per);

	if (!core || cc >= per * f->cfg.cores) {
		ccm_reject(err, -EINVAL, DRM_CCORE_REASON_CC_CORE, per * f->cfg.cores,
			   "CC core %u of device %u does not exist (devices 0..%u, CC cores 0..%u)",
			   cc, dev, f->ndev - 1, per * f->cfg.cores - 1);
		return NULL;
	}
	return &core->cc[cc % per];
}

void ccm_cc_dma_error(struct ccm_core *core, const char *msg)
{
	struct ccm_cc *cc;
	u32 i;

	for (i = 0; i < core->dev->f->cfg.cc_cores; i++) {
		struct ccm_cc_events ev = { 0 };

		cc = &core->cc[i];
		ccm_mutex_lock(&cc->lock);
		if (cc->job_running) {
			cc_fault(cc, &ev, "%s", msg);
			cc->dma_errors++;
		}
		ccm_mutex_unlock(&cc->lock);
		ccm_cc_report(cc, &ev);
	}
}

static void cc_restart(struct ccm_cc *cc)
{
	memset(cc->regs, 0, sizeof(cc->regs));
	cc->depth = 0;
	cc->pc = 0;
	cc->hung = false;
	cc->fault[0] = '\0';
	ccm_store32(&cc->state, cc->fw_size ? CCM_CC_RUNNING : CCM_CC_IDLE);
}

int ccm_load_firmware(struct ccm_fabric *f, const struct drm_ccore_insn *insns, u32 count,
		      struct ccm_err *err)
{
	u32 d, i;
	struct ccm_cc *cc;

	if (count == 0 || count > f->cfg.max_program_size / 2)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"firmware of %u instructions (1..%u allowed)", count,
				f->cfg.max_program_size / 2);
	for (d = 0; d < f->ndev; d++) {
		for (i = 0; i < f->cfg.cores * f->cfg.cc_cores; i++) {
			cc = ccm_cc_of(f, d, i, err);
			ccm_mutex_lock(&cc->lock);
			memcpy(cc->imem, insns, (size_t)count * sizeof(*insns));
			cc->fw_size = count;
			cc_restart(cc);
			ccm_mutex_unlock(&cc->lock);
			ccm_agent_wake(&cc->agent);
		}
	}
	return 0;
}

/* First fit above the firmware; regions are kept sorted by base. */
int ccm_cc_load(struct ccm_fabric *f, u32 dev, u32 ccidx, const struct drm_ccore_insn *insns,
		u32 count, u32 *base, struct ccm_err *err)
{
	struct ccm_cc *cc = ccm_cc_of(f, dev, ccidx, err);
	u32 at, i;

	if (!cc || ccm_not_here(f, dev, "its CC cores are", err))
		return -EINVAL;
	if (count == 0)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX, "empty program");
	ccm_mutex_lock(&cc->lock);
	at = cc->fw_size;
	for (i = 0; i < cc->nregions; i++) {
		if (cc->regions[i].base - at >= count)
			break;
		at = cc->regions[i].base + cc->regions[i].count;
	}
	if (f->cfg.max_program_size - at < count) {
		ccm_mutex_unlock(&cc->lock);
		return ccm_reject(err, -ENOSPC, DRM_CCORE_REASON_CC_MEMORY_FULL,
				  f->cfg.max_program_size,
				  "CC core %u has no room for %u instructions (memory holds %u)",
				  ccidx, count, f->cfg.max_program_size);
	}
	memmove(&cc->regions[i + 1], &cc->regions[i],
		(cc->nregions - i) * sizeof(*cc->regions));
	cc->regions[i].base = at;
	cc->regions[i].count = count;
	cc->nregions++;
	memcpy(&cc->imem[at], insns, (size_t)count * sizeof(*insns));
	ccm_mutex_unlock(&cc->lock);
	*base = at;
	return 0;
}

void ccm_cc_unload(struct ccm_fabric *f, u32 dev, u32 ccidx, u32 base)
{
	struct ccm_cc *cc = ccm_cc_of(f, dev, ccidx, NULL);
	u32 i;

	if (!cc)
		return;
	ccm_mutex_lock(&cc->lock);
	for (i = 0; i < cc->nregions; i++) {
		if (cc->regions[i].base != base)
			continue;
		memset(&cc->imem[base], 0, cc->regions[i].count * sizeof(*cc->imem));
		memmove(&cc->regions[i], &cc->regions[i + 1],
			(cc->nregions - i - 1) * sizeof(*cc->regions));
		cc->nregions--;
		break;
	}
	ccm_mutex_unlock(&cc->lock);
}

int ccm_cc_enqueue(struct ccm_fabric *f, u32 dev, u32 ccidx, u32 base, u64 cookie,
		   struct ccm_err *err)
{
	struct ccm_cc *cc = ccm_cc_of(f, dev, ccidx, err);
	int rc = 0;

	if (!cc)
		return -EINVAL;
	ccm_mutex_lock(&cc->lock);
	if (cc->qcount == CCM_CC_QUEUE) {
		rc = ccm_fail(err, -EBUSY, CCM_NO_INDEX,
			      "CC core %u already has %u jobs queued", ccidx, CCM_CC_QUEUE);
	} else {
		cc->queue[(cc->qhead + cc->qcount) % CCM_CC_QUEUE] =
			(struct ccm_job_slot){ .base = base, .cookie = cookie };
		cc->qcount++;
	}
	ccm_mutex_unlock(&cc->lock);
	if (!rc)
		ccm_agent_wake(&cc->agent);
	return rc;
}

void ccm_cc_trigger(struct ccm_fabric *f, u32 dev, u32 ccidx, u32 count)
{
	struct ccm_cc *cc = ccm_cc_of(f, dev, ccidx, NULL);

	if (!cc)
		return;
	if (ccm_timed(f)) {
		/* when each came, for the job it will start (job_times) */
		ccm_mutex_lock(&cc->lock);
		for (u32 i = 0; i < count && cc->trig_count < CCM_CC_QUEUE; i++)
			cc->trig_ps[(cc->trig_head + cc->trig_count++) % CCM_CC_QUEUE] =
				ccm_fabric_now_ps(f);
		ccm_mutex_unlock(&cc->lock);
	}
	ccm_add32(&cc->trigger, count);
	ccm_agent_wake(&cc->agent);
}

void ccm_cc_reset(struct ccm_fabric *f, u32 dev, u32 ccidx, int status)
{
	struct ccm_cc *cc = ccm_cc_of(f, dev, ccidx, NULL);
	const struct ccm_host_ops *ops;
	void *host;
	u64 *failed;
	u32 n = 0, i;

	if (!cc)
		return;
	failed = ccm_calloc(CCM_CC_QUEUE + 1, sizeof(*failed));
	ccm_mutex_lock(&cc->lock);
	/* news held for an owner that is not the one resetting goes */
	ccm_cc_drop_foreign_news(cc);
	if (cc->job_running && failed)
		failed[n++] = cc->job_cookie;
	cc->job_running = false;
	for (i = 0; i < cc->qcount && failed; i++)
		failed[n++] = cc->queue[(cc->qhead + i) % CCM_CC_QUEUE].cookie;
	cc->qcount = 0;
	ccm_store32(&cc->trigger, 0);
	cc->trig_count = 0;
	cc_restart(cc);
	cc->resets++;
	ccm_mutex_unlock(&cc->lock);
	ccm_cc_deliver(cc);
	ops = ccm_host_ops_of(f, cc->core, &host);
	for (i = 0; i < n; i++)
		if (ops && ops->job_done)
			ops->job_done(host, failed[i], status);
	ccm_free(failed);
	ccm_agent_wake(&cc->agent);
	ccm_host_kick(f);
}

void ccm_cc_info(const struct ccm_fabric *f, u32 dev, u32 ccidx, struct ccm_cc_info *info)
{
	struct ccm_cc *cc = ccm_cc_of(f, dev, ccidx, NULL);

	memset(info, 0, sizeof(*info));
	if (!cc)
		return;
	ccm_mutex_lock(&cc->lock);
	info->state = cc->state;
	info->pc = cc->pc;
	memcpy(info->regs, cc->regs, sizeof(info->regs));
	info->depth = cc->depth;
	info->trigger = ccm_load32(&cc->trigger);
	info->queued = cc->qcount;
	info->insns = cc->insns;
	info->notifies = cc->notifies;
	info->last_notify = cc->last_notify;
	memcpy(info->fault, cc->fault, sizeof(info->fault));
	info->dma_errors = cc->dma_errors;
	info->hangs = cc->hangs;
	info->resets = cc->resets;
	ccm_mutex_unlock(&cc->lock);
}
