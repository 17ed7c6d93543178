// SPDX-License-Identifier: GPL-2.0
/*
 * The NIC: what a DMA engine sends to another host.
 *
 * A fabric on one host of several (config "here") has every node's
 * devices, but only node @here's are on this host: the others' memory
 * and semaphores are elsewhere.  A descriptor whose effect lands there --
 * a COPY into another host's memory (with its signal there or here), a
 * SEM_WRITE to another host's semaphore -- is not moved by the engine.
 * Its ring parks on it and posts it to the core's NIC queue; the host's
 * network proxy takes it (ccm_nic_take()), carries the bytes and then
 * the semaphore change (the other host applies it with
 * ccm_nic_arrived()), and reports it sent (ccm_nic_done()).  Only then
 * does the ring complete it, signal what is here and go on, so a ring
 * keeps its order across hosts as it does within one.  The ring's other
 * descriptors wait behind it; the engine's other rings do not.
 *
 * Reading another host's memory is refused when descriptors are
 * translated (ccm_verify.c): a reduction with a remote operand is staged
 * by the runtime (the bytes put here first), as the reference's
 * inter-node reductions are.
 */
#include "ccm_internal.h"

enum ccm_nic_state { NIC_IDLE, NIC_POSTED, NIC_TAKEN, NIC_DONE };

bool ccm_dev_remote(const struct ccm_fabric *f, u32 dev)
{
	return f->cfg.here != CCM_ALL_NODES && dev / f->cfg.devices_per_node != f->cfg.here;
}

int ccm_not_here(const struct ccm_fabric *f, u32 dev, const char *what, struct ccm_err *err)
{
	if (!ccm_dev_remote(f, dev))
		return 0;
	return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
			"device %u is on another host (node %u; this host has node %u): %s there",
			dev, dev / f->cfg.devices_per_node, f->cfg.here, what);
}

bool ccm_nic_parked(const struct ccm_ring *r)
{
	u8 s = __atomic_load_n(&r->nic, __ATOMIC_ACQUIRE);

	return s == NIC_POSTED || s == NIC_TAKEN;
}

static void nic_kick(struct ccm_sched *s)
{
	/* pairs with ccm_nic_sleep(): it sees the new generation or we see it asleep */
	__atomic_add_fetch(&s->nic_gen, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&s->nic_sleepers, __ATOMIC_SEQ_CST))
		return;
	ccm_mutex_lock(&s->lock);
	ccm_cond_broadcast(&s->nic);
	ccm_mutex_unlock(&s->lock);
}

void ccm_nic_kick_mine(struct ccm_fabric *f)
{
	nic_kick(ccm_my_sched(f));
}

/*
 * The engine at ring @r's current descriptor @d, which goes to another
 * host: post it, or once the proxy is done with it complete it.  True if
 * the ring moved on (completed or failed).
 */
bool ccm_nic_packet(struct ccm_engine *e, struct ccm_ring *r, const struct ccm_hwdesc *d)
{
	struct ccm_core *c = e->core;
	u8 s = __atomic_load_n(&r->nic, __ATOMIC_ACQUIRE);

	if (s == NIC_IDLE) {
		const struct ccm_host_ops *ops;
		void *host;

		__atomic_add_fetch(&r->nic_gen, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&r->nic, NIC_POSTED, __ATOMIC_RELEASE);
		__atomic_store_n(&e->nic_user, true, __ATOMIC_RELAXED);
		__atomic_fetch_or(&c->nic_posted[e->index], 1u << (r - e->rings), __ATOMIC_ACQ_REL);
		/*
		 * The owner's host hears of it here: the sim's proxy takes it at
		 * once (a wake-up less on the way out), the driver wakes its
		 * pollers.  Else the owner's pump does (ccm_nic_sleep()).
		 */
		ops = ccm_host_ops_of(e->agent.f, c, &host);
		if (ops && ops->nic_posted && ops->nic_posted(host, c->dev->index, c->index))
			return false;
		if (ccm_agent_sched(&e->agent))
			nic_kick(ccm_agent_sched(&e->agent));
		return false;
	}
	if (s != NIC_DONE)
		return false;
	__atomic_store_n(&r->nic, NIC_IDLE, __ATOMIC_RELAXED);
	r->exec_off = 0;	/* it was, at the post; the next descriptor starts at 0 */
	if (r->nic_status) {
		ccm_ring_nic_error(e, r, r->nic_status);
		return true;
	}
	ccm_add64(&r->bytes, d->op == DRM_CCORE_DESC_SEM_WRITE ? sizeof(u32) : d->len);
	ccm_add64(&r->packets, 1);
	ccm_ring_signal(e, r, r->exec_slot++);
	return true;
}

/* Ring @ring of engine @engine of @dev/@core, if it is there. */
static struct ccm_ring *ring_at(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
				struct ccm_engine **eng)
{
	struct ccm_core *c = ccm_core_of(f, dev, core);

	if (!c || engine >= f->cfg.engines || ring >= CCM_MAX_RINGS)
		return NULL;
	*eng = &c->engines[engine];
	return &(*eng)->rings[ring];
}

bool ccm_nic_pending(const struct ccm_fabric *f, u32 dev, u32 core)
{
	const struct ccm_core *c = ccm_core_of(f, dev, core);

	for (u32 i = 0; c && i < f->cfg.engines; i++)
		if (__atomic_load_n(&c->nic_posted[i], __ATOMIC_ACQUIRE))
			return true;
	return false;
}

/* What parked ring @r of engine @engine of @dev/@core asks the NIC to carry. */
static void nic_xfer(const struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		     const struct ccm_ring *r, struct ccm_nic_xfer *x)
{
	/* parked: the engine leaves its cursor and descriptor alone */
	const struct ccm_hwdesc *d = &r->descs[r->exec_slot];
	s64 disp = r->disp ? __atomic_load_n(&r->disp[r->exec_slot], __ATOMIC_RELAXED) : 0;

	*x = (struct ccm_nic_xfer){ .dev = dev, .core = core, .engine = engine, .ring = ring,
				    .gen = __atomic_load_n(&r->nic_gen, __ATOMIC_ACQUIRE) };
	if (d->op == DRM_CCORE_DESC_SEM_WRITE) {
		x->has_sem = true;
		x->sem = d->sem_target;
		x->value = d->value;
		x->set = d->flags & DRM_CCORE_DESC_F_SEM_SET;
		return;
	}
	x->data = true;
	x->src = d->src0 + disp;
	x->len = d->len;
	x->to_dev = d->dst_dev;
	x->to = d->dst_remote + (u64)disp;
	if ((d->flags & DRM_CCORE_DESC_F_SIGNAL) && ccm_sem_remote(f, d->signal_sem)) {
		x->has_sem = true;
		x->sem = d->signal_sem;
		x->value = d->signal_value;
	}
}

int ccm_nic_take(struct ccm_fabric *f, u32 dev, u32 core, struct ccm_nic_xfer *x)
{
	struct ccm_core *c = ccm_core_of(f, dev, core);

	for (u32 i = 0; c && i < f->cfg.engines; i++) {
		u32 mask = __atomic_load_n(&c->nic_posted[i], __ATOMIC_ACQUIRE);

		for (; mask; mask &= mask - 1) {
			u32 ring = (u32)__builtin_ctz(mask);

			if (!ccm_nic_take_ring(f, dev, core, i, ring, ~(u64)0, x))
				return 0;
			/* a ring dropped while parked left its bit: clear it, unless
			 * posted again */
			__atomic_fetch_and(&c->nic_posted[i], ~(1u << ring), __ATOMIC_ACQ_REL);
			if (ccm_nic_ring_posted(f, dev, core, i, ring))
				__atomic_fetch_or(&c->nic_posted[i], 1u << ring, __ATOMIC_ACQ_REL);
		}
	}
	return -EAGAIN;
}

bool ccm_nic_ring_posted(const struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring)
{
	const struct ccm_core *c = ccm_core_of(f, dev, core);

	return c && engine < f->cfg.engines && ring < CCM_MAX_RINGS &&
	       __atomic_load_n(&c->engines[engine].rings[ring].nic, __ATOMIC_ACQUIRE) == NIC_POSTED;
}

int ccm_nic_take_ring(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		      u64 max_len, struct ccm_nic_xfer *x)
{
	struct ccm_core *c = ccm_core_of(f, dev, core);
	struct ccm_ring *r;
	u8 posted = NIC_POSTED;

	if (!ccm_nic_ring_posted(f, dev, core, engine, ring))
		return -EAGAIN;
	r = &c->engines[engine].rings[ring];
	nic_xfer(f, dev, core, engine, ring, r, x);
	if (x->data && x->len > max_len)
		return -EMSGSIZE;
	if (!__atomic_compare_exchange_n(&r->nic, &posted, NIC_TAKEN, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return -EAGAIN;
	__atomic_fetch_and(&c->nic_posted[engine], ~(1u << ring), __ATOMIC_ACQ_REL);
	return 0;
}

/*
 * Ring @r of @e, in state @from (taken, or when cancelled still posted):
 * done with @status.  Its finishers are one at a time (the proxy, or the
 * driver under its lock); the engine reads @status once it sees NIC_DONE.
 * A compare-and-swap: a ring reset meanwhile (idle, or running what came
 * after) must not be marked done, which would end its next descriptor
 * unmoved.
 */
static void nic_finish(struct ccm_engine *e, struct ccm_ring *r, u32 ring, u8 from, int status)
{
	if (__atomic_load_n(&r->nic, __ATOMIC_ACQUIRE) != from)
		return;
	r->nic_status = status;
	if (!__atomic_compare_exchange_n(&r->nic, &from, NIC_DONE, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return;
	/* runnable again: as START does (see ccm_engine_pick_ring()) */
	__atomic_fetch_or(&e->busy, 1u << ring, __ATOMIC_ACQ_REL);
	ccm_agent_wake(&e->agent);
}

void ccm_nic_done(struct ccm_fabric *f, const struct ccm_nic_xfer *x, int status)
{
	struct ccm_engine *e;
	struct ccm_ring *r = ring_at(f, x->dev, x->core, x->engine, x->ring, &e);

	/* the transfer taken, not a later post of a ring reset since */
	if (r && __atomic_load_n(&r->nic_gen, __ATOMIC_ACQUIRE) == x->gen)
		nic_finish(e, r, x->ring, NIC_TAKEN, status);
}

void ccm_nic_cancel(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring, int status)
{
	struct ccm_engine *e;
	struct ccm_ring *r = ring_at(f, dev, core, engine, ring, &e);

	if (!r)
		return;
	__atomic_fetch_and(&e->core->nic_posted[engine], ~(1u << ring), __ATOMIC_ACQ_REL);
	nic_finish(e, r, ring, NIC_POSTED, status);
	nic_finish(e, r, ring, NIC_TAKEN, status);
}

int ccm_nic_arrived(struct ccm_fabric *f, u32 sem, u32 value, bool set)
{
	if (!ccm_sem_valid(f, sem) || ccm_sem_remote(f, sem))
		return -EINVAL;
	if (set)
		ccm_sem_set(f, sem, value);
	else
		ccm_sem_add(f, sem, value);
	return 0;
}

int ccm_nic_sleep(struct ccm_fabric *f, bool (*cond)(void *), void *arg, s64 deadline_ns)
{
	struct ccm_sched *s = ccm_my_sched(f);
	int rc = 0;

	for (;;) {
		u64 gen = __atomic_load_n(&s->nic_gen, __ATOMIC_SEQ_CST);

		if (cond(arg))
			break;
		ccm_mutex_lock(&s->lock);
		__atomic_add_fetch(&s->nic_sleepers, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&s->nic_gen, __ATOMIC_SEQ_CST) == gen &&
		    !ccm_cond_wait_until(&s->nic, &s->lock, deadline_ns))
			rc = -ETIMEDOUT;
		__atomic_sub_fetch(&s->nic_sleepers, 1, __ATOMIC_SEQ_CST);
		ccm_mutex_unlock(&s->lock);
		if (rc) {
			rc = cond(arg) ? 0 : rc;
			break;
		}
	}
	return rc;
}
