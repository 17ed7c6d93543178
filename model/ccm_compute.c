// SPDX-License-Identifier: GPL-2.0
/*
 * Compute engines: one per logical core, running a compute program — the
 * instruction stream a compiled executable leaves for the engine, with its
 * pseudo-instructions already rewritten by the runtime.  COMPUTE stands
 * for work of a given duration: it advances the engine's clock in timed
 * mode and costs nothing in functional mode (which checks data, not
 * time).  DMA starts the next descriptor of the program's DMA ring, which
 * ccm_compute_submit() filled with one COPY per DMA instruction: the copy
 * then competes with the CC rings of that engine by packet round-robin,
 * like any ring.  TRIGGER is the write that triggers a CC core (what
 * CC_TRIGGER does for the host), WAIT_SEM waits on a semaphore of the core
 * (a collective's completion), END ends the program once its DMAs are done.
 *
 * The engine is an agent on the scheduler like CC cores and DMA engines:
 * a step runs instructions until it blocks, ends or uses its budget, and
 * in timed mode never past an event due earlier than its clock.
 */
#include "ccm_internal.h"

enum ce_result { CE_NEXT, CE_BLOCKED, CE_ENDED };

int ccm_compute_init(struct ccm_compute *ce, struct ccm_core *core)
{
	ce->agent.kind = CCM_AGENT_COMPUTE;
	ce->agent.f = core->dev->f;
	ce->core = core;
	ce->wait_kind = CCM_WAIT_DIRECT;
	ccm_mutex_init(&ce->lock);
	return 0;
}

void ccm_compute_fini(struct ccm_compute *ce)
{
	if (!ce->core)
		return;		/* its core failed to initialise before it */
	ccm_free(ce->prog);
	ccm_mutex_destroy(&ce->lock);
}

/* Record what the engine blocks on before it looks (see ccm_cc.c). */
static void ce_wait_for(struct ccm_compute *ce, u32 kind, u32 sem)
{
	__atomic_store_n(&ce->wait_sem, sem, __ATOMIC_RELAXED);
	ccm_store32_sc(&ce->wait_kind, kind);
}

/* Called after core_wake(): its read of the record, like the change before
 * it, is sequentially consistent (see ccm_cc.c). */
void ccm_compute_wake(struct ccm_core *core, bool ring, u32 ref)
{
	struct ccm_compute *ce = &core->compute;
	u32 kind = ccm_load32(&ce->wait_kind);

	if (kind == CCM_WAIT_DIRECT || kind == (ring ? CCM_WAIT_SEM : CCM_WAIT_RING))
		return;
	if (kind == CCM_WAIT_SEM && __atomic_load_n(&ce->wait_sem, __ATOMIC_RELAXED) != ref)
		return;
	/* timed: a semaphore change reaches its waiter after sem_ns */
	ccm_agent_wake_after(&ce->agent, ring ? 0 : core->dev->f->tm.sem_ps);
}

bool ccm_compute_uses_ring(struct ccm_core *core, u32 engine, u32 ring)
{
	struct ccm_compute *ce = &core->compute;

	/* lock-free: the caller holds the engine's lock (see submit) */
	return __atomic_load_n(&ce->running, __ATOMIC_ACQUIRE) && ce->has_dma &&
	       ce->engine == engine && ce->ring == ring;
}

/* The program ends with @status; called with the lock held. */
static void ce_end(struct ccm_compute *ce, int status)
{
	ce->status = status;
	ce->end_ps = ccm_timed(ce->agent.f) ? ce->agent.t : 0;
	ce->programs++;
	ce->total_insns += ce->insns;
	ce->total_busy_ns += ce->busy_ns;
	ce->total_dma_bytes += ce->dma_bytes;
	__atomic_store_n(&ce->wait_kind, CCM_WAIT_DIRECT, __ATOMIC_RELAXED);
	__atomic_store_n(&ce->running, false, __ATOMIC_RELEASE);
}

static __printf(3, 4) void ce_fault(struct ccm_compute *ce, int status, const char *fmt, ...);

static void ce_fault(struct ccm_compute *ce, int status, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(ce->fault, sizeof(ce->fault), "instruction %u: ", ce->pc);
	va_start(ap, fmt);
	vsnprintf(ce->fault + n, sizeof(ce->fault) - (size_t)n, fmt, ap);
	va_end(ap);
	ce_end(ce, status);
}

/* Tell the host, with no lock held. */
static void ce_report(struct ccm_compute *ce, int status)
{
	struct ccm_fabric *f = ce->agent.f;
	void *host;
	const struct ccm_host_ops *ops = ccm_host_ops_of(f, ce->core, &host);

	if (ops && ops->compute_done)
		ops->compute_done(host, ce->core->dev->index, ce->core->index, status);
	ccm_host_kick(f);
}

static struct ccm_ring *ce_ring(struct ccm_compute *ce)
{
	return &ce->core->engines[ce->engine].rings[ce->ring];
}

static enum ce_result ce_dma(struct ccm_compute *ce, const struct drm_ccore_ce_insn *in)
{
	struct ccm_fabric *f = ce->agent.f;
	struct ccm_core *c = ce->core;

	/* the ring cannot be released under a running program; be sure */
	if (ccm_ring_owner(f, c->dev->index, c->index, ce->engine, ce->ring) != ce->owner ||
	    ccm_ring_start(f, c->dev->index, c->index, ce->engine, ce->ring, 1, NULL)) {
		ce_fault(ce, -EIO, "dma: ring(%u,%u) is no longer the program's DMA ring",
			 ce->engine, ce->ring);
		return CE_ENDED;
	}
	ce->dma_bytes += in->len;
	return CE_NEXT;
}

/* Execute the instruction at pc. */
static enum ce_result ce_exec(struct ccm_compute *ce)
{
	const struct drm_ccore_ce_insn *in = &ce->prog[ce->pc];
	struct ccm_fabric *f = ce->agent.f;
	enum ce_result r = CE_NEXT;

	switch (in->opcode) {
	case DRM_CCORE_CE_COMPUTE:
		ce->busy_ns += in->duration_ns;
		if (ccm_timed(f))
			ce->agent.t += in->duration_ns * 1000;
		break;
	case DRM_CCORE_CE_DMA:
		r = ce_dma(ce, in);
		break;
	case DRM_CCORE_CE_TRIGGER:
		ccm_cc_trigger(f, ce->core->dev->index, in->cc_core, 1);
		break;
	case DRM_CCORE_CE_WAIT_SEM:
		ce_wait_for(ce, CCM_WAIT_SEM, in->sem);
		if (ccm_sem_read(f, in->sem) < in->value)
			return CE_BLOCKED;
		break;
	case DRM_CCORE_CE_END:
		if (ce->has_dma) {
			ce_wait_for(ce, CCM_WAIT_RING, 0);
			/* settled, not just idle: its signals have landed too */
			if (!ccm_ring_settled(ce_ring(ce)))
				return CE_BLOCKED;
		}
		ce->insns++;
		ce_end(ce, 0);
		return CE_ENDED;
	default:
		/* verified programs hold none; never run past one */
		ce_fault(ce, -EIO, "unknown opcode %u", in->opcode);
		return CE_ENDED;
	}
	if (r == CE_NEXT) {
		ce->insns++;
		ce->pc++;
	}
	return r;
}

enum ccm_step_result ccm_compute_step(struct ccm_compute *ce)
{
	enum ccm_step_result r = CCM_STEP_BLOCKED;
	enum ce_result res = CE_NEXT;
	bool timed = ccm_timed(ce->agent.f);
	int status = 0;
	u32 i;

	ccm_mutex_lock(&ce->lock);
	if (ce->running && !ce->started) {
		ce->started = true;
		ce->start_ps = timed ? ce->agent.t : 0;
	}
	for (i = 0; ce->running; i++) {
		if (i == CCM_CE_BUDGET_INSNS) {
			r = CCM_STEP_RUNNABLE;
			break;
		}
		/* timed: not past an event due earlier than this instruction */
		if (timed && !ccm_timed_may_run(&ce->agent)) {
			r = CCM_STEP_RUNNABLE;
			break;
		}
		res = ce_exec(ce);
		if (res != CE_NEXT)
			break;
	}
	status = ce->status;
	ccm_mutex_unlock(&ce->lock);
	if (res == CE_ENDED)
		ce_report(ce, status);
	return r;
}

int ccm_compute_submit(struct ccm_fabric *f, u32 dev, u32 core,
		       const struct drm_ccore_ce_insn *insns, u32 count, u32 engine,
		       u32 ring, const struct ccm_hwdesc *descs, u32 ndma, void *owner,
		       struct ccm_err *err)
{
	struct ccm_core *c = ccm_core_get(f, dev, core, err);
	struct drm_ccore_ce_insn *prog;
	struct ccm_compute *ce;
	int rc = 0;

	if (!c || ccm_not_here(f, dev, "its compute engines are", err))
		return -EINVAL;
	if (count == 0 || !owner)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"a compute program needs instructions and an owner");
	if (ndma && (engine >= f->cfg.engines || ring >= f->cfg.rings))
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"DMA ring(%u,%u) does not exist (engines 0..%u, rings 0..%u)",
				engine, ring, f->cfg.engines - 1, f->cfg.rings - 1);
	prog = ccm_calloc(count, sizeof(*prog));
	if (!prog)
		return ccm_fail(err, -ENOMEM, CCM_NO_INDEX,
				"no memory for a compute program of %u instructions", count);
	memcpy(prog, insns, (size_t)count * sizeof(*prog));
	ce = &c->compute;
	ccm_mutex_lock(&ce->lock);
	if (ce->running) {
		ccm_mutex_unlock(&ce->lock);
		ccm_free(prog);
		return ccm_fail(err, -EBUSY, CCM_NO_INDEX,
				"the compute engine of core %u is running a program", core);
	}
	/*
	 * Running, with its ring, before the ring is written: a release of
	 * that ring (under the engine's lock) then either comes first, and
	 * the write fails, or sees the ring in use.
	 */
	ce->has_dma = ndma != 0;
	ce->engine = engine;
	ce->ring = ring;
	__atomic_store_n(&ce->running, true, __ATOMIC_SEQ_CST);
	if (ndma) {
		rc = ccm_ring_replace(&c->engines[engine], ring, descs, ndma, owner, err);
		if (rc) {
			__atomic_store_n(&ce->running, false, __ATOMIC_RELEASE);
			ccm_mutex_unlock(&ce->lock);
			ccm_free(prog);
			return rc;
		}
	}
	ccm_free(ce->prog);
	ce->prog = prog;
	ce->count = count;
	ce->pc = 0;
	ce->owner = owner;
	ce->status = 0;
	ce->fault[0] = '\0';
	ce->started = false;
	ce->start_ps = 0;
	ce->end_ps = 0;
	ce->insns = 0;
	ce->busy_ns = 0;
	ce->dma_bytes = 0;
	__atomic_store_n(&ce->wait_kind, CCM_WAIT_DIRECT, __ATOMIC_RELAXED);
	ccm_mutex_unlock(&ce->lock);
	ccm_agent_wake(&ce->agent);
	return rc;
}

bool ccm_compute_idle(const struct ccm_fabric *f, u32 dev, u32 core)
{
	struct ccm_core *c = ccm_core_of(f, dev, core);

	return !c || !__atomic_load_n(&c->compute.running, __ATOMIC_ACQUIRE);
}

void ccm_compute_abort(struct ccm_fabric *f, u32 dev, u32 core, void *owner, int status)
{
	struct ccm_core *c = ccm_core_of(f, dev, core);
	struct ccm_compute *ce;
	bool ended = false;

	if (!c)
		return;
	ce = &c->compute;
	ccm_mutex_lock(&ce->lock);
	if (ce->running && (!owner || ce->owner == owner)) {
		ce_fault(ce, status, "stopped by the host (status %d)", status);
		ended = true;
	}
	ccm_mutex_unlock(&ce->lock);
	if (ended)
		ce_report(ce, status);
}

void ccm_compute_dma_error(struct ccm_core *core, u32 engine, u32 ring, const char *msg)
{
	struct ccm_compute *ce = &core->compute;
	bool ended = false;

	ccm_mutex_lock(&ce->lock);
	if (ce->running && ce->has_dma && ce->engine == engine && ce->ring == ring) {
		ce_fault(ce, -EIO, "%s", msg);
		ended = true;
	}
	ccm_mutex_unlock(&ce->lock);
	if (ended)
		ce_report(ce, -EIO);
}

int ccm_compute_info(const struct ccm_fabric *f, u32 dev, u32 core,
		     struct ccm_compute_info *info)
{
	struct ccm_core *c = ccm_core_of(f, dev, core);
	struct ccm_compute *ce;

	memset(info, 0, sizeof(*info));
	if (!c)
		return -EINVAL;
	ce = &c->compute;
	ccm_mutex_lock(&ce->lock);
	info->running = ce->running;
	info->owner = ce->owner;
	info->pc = ce->pc;
	info->status = ce->status;
	memcpy(info->fault, ce->fault, sizeof(info->fault));
	info->insns = ce->insns;
	info->busy_ns = ce->busy_ns;
	info->dma_bytes = ce->dma_bytes;
	info->start_ps = ce->start_ps;
	info->end_ps = ce->end_ps;
	info->programs = ce->programs;
	info->total_insns = ce->total_insns;
	info->total_busy_ns = ce->total_busy_ns;
	info->total_dma_bytes = ce->total_dma_bytes;
	ccm_mutex_unlock(&ce->lock);
	return 0;
}
