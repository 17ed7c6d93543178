// SPDX-License-Identifier: GPL-2.0
/*
 * Transfers in timed mode: what a descriptor costs in virtual time.
 *
 * A descriptor moves its bytes from one device to another (or within one):
 * a COPY from its source to its destination, a REDUCE from the operand
 * that is not on the destination's device, a SEM_WRITE (4 bytes) to the
 * semaphore's device.  Its route has a tier (same device, devices of a
 * node, across nodes) and, inside a node, a number of hops (ring or torus
 * distance, dimension order: x first, then y, the shorter way round).
 * It costs alpha of its tier per hop, then its bytes at the bandwidth it
 * gets: the tier's, shared with the other transfers on what it crosses —
 * its DMA engine, every link direction of its route inside a node, the
 * sending device's NIC out and the receiving one's NIC in across nodes.
 * Each of those carries one packet at a time, round-robin over the
 * transfers on it, so a transfer gets the share of its packet size among
 * theirs: the fluid limit of packet round-robin, recomputed whenever a
 * transfer starts or stops moving bytes.  An uncontended descriptor thus
 * costs two events (its latency ends, its bytes are through) whatever its
 * size; in the ideal setting there is no sharing and it costs one.
 *
 * A ring runs its descriptors one after the other; its signal fires, and
 * its bytes land (unless buffers are virtual), when the last byte arrives.
 */
#include "ccm_internal.h"

/* An engine, and at most 32 + 32 hops of a 64-device torus. */
#define XFER_MAX_RES 72
/* bytes per picosecond = gbps / 8000 */
#define PS_PER_BYTE_AT_1GBPS 8000ull

enum { DIR_XP, DIR_XN, DIR_YP, DIR_YN, DIR_NIC_OUT, DIR_NIC_IN };

static struct ccm_res *link_of(struct ccm_fabric *f, u32 dev, u32 dir)
{
	return &f->tm.links[dev * CCM_LINK_DIRS + dir];
}

/* Link directions from @a to @b on a ring of @n (positions), dimension @dim. */
static u32 ring_path(struct ccm_fabric *f, u32 base, u32 stride, u32 n, u32 a, u32 b,
		     u32 dir_pos, struct ccm_res **out, u32 k)
{
	u32 fwd = (b + n - a) % n, i;

	if (fwd <= n - fwd) {
		for (i = 0; i < fwd && k < XFER_MAX_RES; i++)
			out[k++] = link_of(f, base + ((a + i) % n) * stride, dir_pos);
	} else {
		for (i = 0; i < n - fwd && k < XFER_MAX_RES; i++)
			out[k++] = link_of(f, base + ((a + n - i) % n) * stride, dir_pos + 1);
	}
	return k;
}

/* What transfer @r shares (empty in the ideal setting). */
static u32 xfer_res(struct ccm_fabric *f, struct ccm_ring *r, struct ccm_res **out)
{
	const struct ccm_config *c = &f->cfg;
	u32 per = c->devices_per_node, k = 0, base, a, b, ax, bx, ay;

	if (f->tm.ideal)
		return 0;
	out[k++] = &r->eng->res;
	if (r->xtier == CCM_TIER_NODE) {
		out[k++] = link_of(f, r->xfrom, DIR_NIC_OUT);
		out[k++] = link_of(f, r->xto, DIR_NIC_IN);
	} else if (r->xtier == CCM_TIER_DEVICE) {
		base = r->xfrom - r->xfrom % per;
		a = r->xfrom % per;
		b = r->xto % per;
		if (c->topology != DRM_CCORE_TOPO_TORUS)
			return ring_path(f, base, 1, per, a, b, DIR_XP, out, k);
		/* x first along row a / X, then y along column b % X */
		ax = a % c->torus_x;
		bx = b % c->torus_x;
		ay = a / c->torus_x;
		k = ring_path(f, base + ay * c->torus_x, 1, c->torus_x, ax, bx, DIR_XP, out, k);
		k = ring_path(f, base + bx, c->torus_x, c->torus_y, ay, b / c->torus_x, DIR_YP,
			      out, k);
	}
	return k;
}

/* Where the bytes of @d go from and to, and over which tier. */
static void route(struct ccm_engine *e, struct ccm_ring *r, const struct ccm_hwdesc *d)
{
	struct ccm_fabric *f = e->agent.f;
	u32 here = e->core->dev->index, from, to;

	switch (d->op) {
	case DRM_CCORE_DESC_SEM_WRITE:
		from = here;
		to = DRM_CCORE_SEM_REF_DEV(d->sem_target);
		break;
	case DRM_CCORE_DESC_REDUCE:
		to = d->dst_dev;
		from = d->src0_dev != to ? d->src0_dev : d->src1_dev;
		break;
	default:
		from = d->src0_dev;
		to = d->dst_dev;
		break;
	}
	/* within another device: the engine's commands cross to it */
	if (from == to)
		from = here;
	if (from >= f->ndev || to >= f->ndev)
		from = to = here;
	r->xfrom = (u16)from;
	r->xto = (u16)to;
	r->xtier = (u8)ccm_route_tier(f, from, to);
}

static u64 alpha_of(struct ccm_fabric *f, const struct ccm_ring *r)
{
	u32 hops;

	if (f->tm.ideal)
		return f->tm.alpha_ps[CCM_TIER_DEVICE];
	hops = ccm_route_hops(f, r->xfrom, r->xto);
	return f->tm.alpha_ps[r->xtier] * (hops ? hops : 1);
}

/* Bring @r's bytes left up to @t at its current rate. */
static void advance(struct ccm_ring *r, u64 t)
{
	u64 moved;

	if (t <= r->xlast)
		return;
	moved = ccm_muldiv64(t - r->xlast, r->xnum, r->xden);
	r->xleft = moved >= r->xleft ? 0 : r->xleft - moved;
	r->xlast = t;
}

/* @r's rate now: its tier's bandwidth, or less where it shares. */
static void set_rate(struct ccm_fabric *f, struct ccm_ring *r)
{
	struct ccm_res *res[XFER_MAX_RES];
	u32 n = xfer_res(f, r, res), i;
	u64 num = f->tm.gbps[r->xtier], den = PS_PER_BYTE_AT_1GBPS, cn, cd;

	for (i = 0; i < n; i++) {
		cn = (u64)res[i]->gbps * r->xweight;
		cd = PS_PER_BYTE_AT_1GBPS * (res[i]->weight ? res[i]->weight : r->xweight);
		if ((unsigned __int128)cn * den < (unsigned __int128)num * cd) {
			num = cn;
			den = cd;
		}
	}
	r->xnum = num;
	r->xden = den;
}

/* At @t, @r's share may have changed: its bytes-through time moves. */
static void reprice(struct ccm_fabric *f, struct ccm_ring *r, u64 t)
{
	advance(r, t);
	set_rate(f, r);
	r->xevent = t + ccm_muldiv64_up(r->xleft, r->xden, r->xnum);
	if (r->eng->agent.state != CCM_AGENT_RUNNING)
		ccm_agent_wake_at(&r->eng->agent, r->xevent);
}

int ccm_res_add(struct ccm_res *res, struct ccm_ring *r)
{
	if (res->n == res->cap &&
	    ccm_grow((void **)&res->act, &res->cap, res->n, sizeof(*res->act), 4))
		return -ENOMEM;
	res->act[res->n++] = r;
	res->weight += r->xweight;
	return 0;
}

void ccm_res_remove(struct ccm_res *res, struct ccm_ring *r)
{
	u32 i;

	for (i = 0; i < res->n; i++) {
		if (res->act[i] != r)
			continue;
		/* keep the order: it decides who is repriced first */
		memmove(&res->act[i], &res->act[i + 1], (res->n - i - 1) * sizeof(*res->act));
		res->n--;
		res->weight -= r->xweight;
		return;
	}
}

/* @r joins (or leaves) what it shares at @t; the others sharing it are repriced. */
static void share(struct ccm_fabric *f, struct ccm_ring *r, u64 t, bool join)
{
	struct ccm_res *res[XFER_MAX_RES];
	u32 n = xfer_res(f, r, res), i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < res[i]->n; k++)
			if (res[i]->act[k] != r)
				advance(res[i]->act[k], t);
		if (!join)
			ccm_res_remove(res[i], r);
		else if (ccm_res_add(res[i], r))
			continue;	/* out of memory: it does not slow the others */
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < res[i]->n; k++)
			if (res[i]->act[k] != r)
				reprice(f, res[i]->act[k], t);
}

/*
 * Grow the circular queue *@q of *@cap items of @size bytes, @n of them
 * queued from *@head, to hold @want: its capacity doubles (from 8) until
 * they fit, the queued items moving to the front in order.
 */
static int queue_grow(void **q, u32 *head, u32 *cap, u32 n, u32 want, size_t size)
{
	u32 ncap = *cap ? *cap : 8, first;
	u8 *p;

	while (ncap < want) {
		if (ncap > 0x7fffffffu)	/* doubling would wrap */
			return -ENOMEM;
		ncap *= 2;
	}
	p = ccm_calloc(ncap, size);
	if (!p)
		return -ENOMEM;
	first = n < *cap - *head ? n : *cap - *head;	/* the items before the wrap */
	if (n) {
		memcpy(p, (u8 *)*q + (size_t)*head * size, (size_t)first * size);
		memcpy(p + (size_t)first * size, *q, (size_t)(n - first) * size);
	}
	ccm_free(*q);
	*q = p;
	*head = 0;
	*cap = ncap;
	return 0;
}

/* Room for @want items in a queue (see queue_grow()); inline: it rarely grows. */
static inline int queue_reserve(void **q, u32 *head, u32 *cap, u32 n, u32 want, size_t size)
{
	return want <= *cap ? 0 : queue_grow(q, head, cap, n, want, size);
}

/* Queue @r's arrival at @t (not before the one queued last: in order). */
static int arrival_push(struct ccm_ring *r, u64 t)
{
	if (queue_reserve((void **)&r->xq, &r->xq_head, &r->xq_cap, r->xq_n, r->xq_n + 1,
			  sizeof(*r->xq)))
		return -ENOMEM;
	if (t < r->xarrive)
		t = r->xarrive;
	r->xarrive = t;
	r->xq[(r->xq_head + r->xq_n++) % r->xq_cap] = (struct ccm_arrival){ t, r->xdisp };
	return 0;
}

void ccm_xfer_ring_dropped(struct ccm_ring *r)
{
	r->xissued = ccm_load64(&r->started);
	r->xq_n = 0;
	r->xr_n = 0;
	r->xcslot = r->exec_slot;
	r->xphase = CCM_XFER_NONE;
}

/*
 * True if @d is its logical core's own work, a rank's local copy or
 * reduction: every operand is in the engine's device and no other core
 * hears of it (its signal, if any, is the engine's own core's).  The model
 * knows devices, not ranks; the core a descriptor signals is the one that
 * consumes it, so a transfer to another core of the device is not local.
 */
static bool core_local(const struct ccm_engine *e, const struct ccm_hwdesc *d)
{
	u32 here = e->core->dev->index;

	if (d->op == DRM_CCORE_DESC_SEM_WRITE || d->dst_dev != here || d->src0_dev != here ||
	    (d->op == DRM_CCORE_DESC_REDUCE && d->src1_dev != here))
		return false;
	return !(d->flags & DRM_CCORE_DESC_F_SIGNAL) ||
	       (DRM_CCORE_SEM_REF_DEV(d->signal_sem) == here &&
		DRM_CCORE_SEM_REF_CORE(d->signal_sem) == e->core->index);
}

static u64 max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* Picoseconds @bytes take at the ideal setting's bandwidth. */
static u64 ideal_ps(const struct ccm_fabric *f, u64 bytes)
{
	return ccm_muldiv64_up(bytes, PS_PER_BYTE_AT_1GBPS, f->tm.gbps[CCM_TIER_DEVICE]);
}

/* Does @d go through its core's port (data on the wire, not the core's own work)? */
static bool uses_port(const struct ccm_engine *e, const struct ccm_hwdesc *d)
{
	return d->op != DRM_CCORE_DESC_SEM_WRITE && !core_local(e, d);
}

int ccm_xfer_started(struct ccm_engine *e, struct ccm_ring *r, u32 slot, u32 count)
{
	struct ccm_fabric *f = e->agent.f;
	u64 *port = &f->tm.port_out[e->core->dev->index * f->cfg.cores + e->core->index];
	u64 now = f->tm.cur;
	u32 i, k;

	if (queue_reserve((void **)&r->xr, &r->xr_head, &r->xr_cap, r->xr_n, r->xr_n + count,
			  sizeof(*r->xr)))
		return -ENOMEM;
	/*
	 * One port per rank, as the α-β model has it: a rank's sends,
	 * whatever their engines and rings, go out one after the other at
	 * the full bandwidth, in the order its CC core started them
	 */
	for (i = 0; i < count; i++, slot = slot + 1 == r->written ? 0 : slot + 1) {
		const struct ccm_hwdesc *d = &r->descs[slot];
		u64 at = 0;

		if (uses_port(e, d)) {
			*port = (*port > now ? *port : now) + ideal_ps(f, d->len);
			at = *port;
		}
		k = (r->xr_head + r->xr_n++) % r->xr_cap;
		r->xr[k] = at;
	}
	return 0;
}

/* The port time reserved for @r's next descriptor (0: none). */
static u64 reserved_pop(struct ccm_ring *r)
{
	u64 at;

	if (!r->xr_n)
		return 0;
	at = r->xr[r->xr_head];
	r->xr_head = (r->xr_head + 1) % r->xr_cap;
	r->xr_n--;
	return at;
}

/* The next started descriptor of @r starts moving its bytes at @now. */
static void xfer_issue(struct ccm_engine *e, struct ccm_ring *r, u64 now)
{
	struct ccm_fabric *f = e->agent.f;
	const struct ccm_hwdesc *d = ccm_ring_current(r);

	route(e, r, d);
	/* the slot is free once issued (see ccm_ring_start()): keep its place */
	r->xdisp = r->disp ? r->disp[r->exec_slot] : 0;
	r->xweight = r->packet_size / 512 ? r->packet_size / 512 : 1;
	r->xleft = d->op == DRM_CCORE_DESC_SEM_WRITE ? sizeof(u32) : d->len;
	r->xalpha = alpha_of(f, r);
	r->xissued++;
	if (f->tm.ideal) {
		/* nothing shared: the bytes are through at a time known now, and
		 * the next descriptor follows them */
		u64 start = now > r->xfree ? now : r->xfree, reserved = reserved_pop(r);

		set_rate(f, r);
		/*
		 * The alpha-beta model counts the data's time on the wire only: a
		 * rank's local copies and reductions take none (gamma = 0, no
		 * hop), and a semaphore write (a credit the lowering queues
		 * behind a send) holds no data, so it only takes its hop.
		 */
		if (core_local(e, d)) {
			arrival_push(r, start);
		} else if (d->op == DRM_CCORE_DESC_SEM_WRITE) {
			arrival_push(r, start + r->xalpha);
		} else {
			/* through its port when ccm_xfer_started() reserved it */
			r->xfree = max_u64(start + ccm_muldiv64_up(r->xleft, r->xden, r->xnum),
					   reserved);
			arrival_push(r, r->xfree + r->xalpha);
		}
		r->exec_slot++;
		return;
	}
	r->xphase = CCM_XFER_ACTIVE;
	r->xlast = now;
	share(f, r, now, true);
	set_rate(f, r);
	r->xevent = now + ccm_muldiv64_up(r->xleft, r->xden, r->xnum);
}

/* @r's bytes are through at @now: they arrive alpha later, the next goes. */
static void xfer_sent(struct ccm_engine *e, struct ccm_ring *r, u64 now)
{
	share(e->agent.f, r, now, false);
	r->xphase = CCM_XFER_NONE;
	arrival_push(r, now + r->xalpha);
	r->exec_slot++;
}

/* The oldest descriptor in flight on @r has arrived: it completes. */
static void xfer_arrived(struct ccm_engine *e, struct ccm_ring *r)
{
	const struct ccm_hwdesc *d;
	s64 disp = r->xq[r->xq_head].disp;
	u32 slot;
	u64 len;

	r->xq_head = (r->xq_head + 1) % r->xq_cap;
	r->xq_n--;
	if (r->xcslot >= ccm_load32(&r->written))
		r->xcslot = 0;
	slot = r->xcslot++;
	d = &r->descs[slot];
	len = d->op == DRM_CCORE_DESC_SEM_WRITE ? sizeof(u32) : d->len;
	ccm_ring_move(e, r, slot, disp, 0, len, (len + r->packet_size - 1) / r->packet_size);
	ccm_ring_signal(e, r, slot);
}

/* Nothing left to start on ring @idx: drop its busy bit (unless started again). */
static void ring_idle(struct ccm_engine *e, u32 idx)
{
	__atomic_fetch_and(&e->busy, ~(1u << idx), __ATOMIC_ACQ_REL);
	if (ccm_ring_busy(&e->rings[idx]))
		__atomic_fetch_or(&e->busy, 1u << idx, __ATOMIC_ACQ_REL);
}

/*
 * One ring at virtual time @now: what has arrived completes, bytes through
 * go in flight, and the next started descriptor starts moving.  True if a
 * descriptor completed (or failed), or one of an indexed ring was issued.
 */
static bool ring_at(struct ccm_engine *e, u32 idx, u64 now)
{
	struct ccm_ring *r = &e->rings[idx];
	bool progressed = false;

	for (;;) {
		if (r->xq_n && r->xq[r->xq_head].at <= now) {
			xfer_arrived(e, r);
			progressed = true;
			continue;
		}
		if (r->xphase == CCM_XFER_ACTIVE) {
			if (r->xevent > now)
				break;
			xfer_sent(e, r, now);
			continue;
		}
		if (r->xissued >= ccm_load64(&r->started))
			break;
		if (ccm_ring_fault(e, r)) {
			if (e->agent.f->tm.ideal)
				reserved_pop(r);	/* dropped: its port time stays spent */
			progressed = true;
			continue;
		}
		xfer_issue(e, r, now);
		/* a STARTI may be waiting for the slot it freed */
		progressed |= r->disp != NULL;
	}
	if (!ccm_ring_busy(r))
		ring_idle(e, idx);
	return progressed;
}

/*
 * The engine at virtual time now: every busy ring moves on.  The engine is
 * due again when the next of its transfers has its bytes through or
 * arrives.
 */
enum ccm_step_result ccm_xfer_engine_step(struct ccm_engine *e)
{
	struct ccm_fabric *f = e->agent.f;
	u64 now = f->tm.cur, due = CCM_NEVER;
	u32 mask = ccm_load32(&e->busy), idx, i;
	bool progressed = false;
	struct ccm_ring *r;

	while (mask) {
		idx = (u32)__builtin_ctz(mask);
		mask &= mask - 1;
		progressed |= ring_at(e, idx, now);
	}
	/* after every ring: a transfer finishing speeds up the others */
	for (i = 0; i < CCM_MAX_RINGS; i++) {
		r = &e->rings[i];
		if (r->xphase == CCM_XFER_ACTIVE && r->xevent < due)
			due = r->xevent;
		if (r->xq_n && r->xq[r->xq_head].at < due)
			due = r->xq[r->xq_head].at;
	}
	e->agent.due = due;
	if (progressed) {
		ccm_core_wake_ring(e->core);
		ccm_host_kick(f);
	}
	return CCM_STEP_BLOCKED;
}
