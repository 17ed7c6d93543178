// SPDX-License-Identifier: GPL-2.0
/*
 * DMA engines and their rings.
 *
 * An engine serves up to 16 rings round-robin and switches ring only at a
 * packet boundary: each turn moves one packet (the ring's packet size, or
 * what is left of the descriptor) of the ring whose turn it is, then the
 * turn passes to the next ring with work.  A ring with bigger packets thus
 * gets a proportionally bigger share of the engine: packet size is the
 * priority knob.  Per-ring byte and packet counters make this observable.
 *
 * Rings are pre-built: descriptors are written while the ring is idle, and
 * START makes the next N of them (wrapping past the last written one) run.
 */
#include "ccm_internal.h"

int ccm_engine_init(struct ccm_engine *e, struct ccm_core *core, u32 index)
{
	e->agent.kind = CCM_AGENT_ENGINE;
	e->agent.f = core->dev->f;
	e->core = core;
	e->index = index;
	for (u32 i = 0; i < CCM_MAX_RINGS; i++)
		e->rings[i].eng = e;
	e->res.gbps = e->agent.f->cfg.bw_engine_gbps;
	ccm_mutex_init(&e->lock);
	return 0;
}

void ccm_engine_fini(struct ccm_engine *e)
{
	u32 i;

	for (i = 0; i < CCM_MAX_RINGS; i++) {
		ccm_free(e->rings[i].descs);
		ccm_free(e->rings[i].disp);
		ccm_free(e->rings[i].xq);
		ccm_free(e->rings[i].xr);
	}
	ccm_free(e->res.act);
	ccm_mutex_destroy(&e->lock);
}

struct ccm_ring *ccm_core_ring(struct ccm_core *core, u32 engine, u32 ring)
{
	const struct ccm_config *c = &core->dev->f->cfg;

	if (engine >= c->engines || ring >= c->rings)
		return NULL;
	return &core->engines[engine].rings[ring];
}

bool ccm_ring_busy(const struct ccm_ring *r)
{
	u64 started = ccm_load64(&r->started);

	return started != ccm_load64(&r->completed) + ccm_load64(&r->errors) +
			  ccm_load64(&r->discarded);
}

/*
 * Started descriptors, and the current one not waiting for the NIC
 * (ccm_nic.c), or an abort to carry out: a ring parked there stops too.
 */
static bool ring_runnable(const struct ccm_ring *r)
{
	return ccm_ring_busy(r) &&
	       (!ccm_nic_parked(r) || __atomic_load_n(&r->abort, __ATOMIC_ACQUIRE));
}

/*
 * The next ring, from the one whose turn it is, with a started descriptor.
 * @busy has a bit per ring that START set; the engine clears a ring's bit
 * when it finds it drained (re-checking, so a racing START is not lost).
 */
struct ccm_ring *ccm_engine_pick_ring(struct ccm_engine *e)
{
	u32 mask, idx, rot;

	for (;;) {
		mask = ccm_load32(&e->busy);
		if (!mask)
			return NULL;
		/* rotate so the search starts at the ring whose turn it is */
		rot = (mask >> e->rr) | (e->rr ? mask << (CCM_MAX_RINGS - e->rr) : 0);
		rot &= (1u << CCM_MAX_RINGS) - 1;
		idx = (e->rr + (u32)__builtin_ctz(rot)) % CCM_MAX_RINGS;
		if (ring_runnable(&e->rings[idx])) {
			e->rr = (idx + 1) % CCM_MAX_RINGS;
			return &e->rings[idx];
		}
		__atomic_fetch_and(&e->busy, ~(1u << idx), __ATOMIC_ACQ_REL);
		if (ring_runnable(&e->rings[idx]))
			__atomic_fetch_or(&e->busy, 1u << idx, __ATOMIC_ACQ_REL);
	}
}

/* Bytes an engine reads from or writes to other devices cross the links. */
static void account_links(struct ccm_engine *e, const struct ccm_hwdesc *d, u64 len)
{
	struct ccm_fabric *f = e->agent.f;
	u32 here = e->core->dev->index;

	if (d->src0_dev != here)
		ccm_link_account(f, d->src0_dev, here, len);
	if (d->op == DRM_CCORE_DESC_REDUCE && d->src1_dev != here)
		ccm_link_account(f, d->src1_dev, here, len);
	if (d->dst_dev != here)
		ccm_link_account(f, here, d->dst_dev, len);
}

/* @at: where the packet starts in the descriptor, plus its slot's displacement */
static void do_packet(struct ccm_engine *e, const struct ccm_hwdesc *d, s64 at, u64 len)
{
	/* virtual buffers (timed mode) have no bytes behind them */
	switch (e->agent.f->cfg.virt ? DRM_CCORE_DESC_SEM_WRITE : d->op) {
	case DRM_CCORE_DESC_COPY:
		/* displacing both ends keeps how they overlap */
		if (d->len >= CCM_STREAM_BYTES && !ccm_overlap(d->dst, d->src0, d->len))
			ccm_copy_stream(d->dst + at, d->src0 + at, len);
		else
			memmove(d->dst + at, d->src0 + at, len);
		break;
	case DRM_CCORE_DESC_REDUCE:
		ccm_fpu_begin();
		ccm_reduce(d->dtype, d->redop, d->dst + at, d->src0 + at, d->src1 + at, len);
		ccm_fpu_end();
		break;
	case DRM_CCORE_DESC_DIV:
		ccm_fpu_begin();
		ccm_div(d->dtype, d->dst + at, d->src0 + at, len, d->value);
		ccm_fpu_end();
		break;
	default:
		if (d->op == DRM_CCORE_DESC_SEM_WRITE)
			return;
		break;
	}
	account_links(e, d, len);
}

static void complete_desc(struct ccm_engine *e, const struct ccm_hwdesc *d)
{
	struct ccm_fabric *f = e->agent.f;

	/* another host's semaphores changed there, the NIC's message applied */
	if (d->op == DRM_CCORE_DESC_SEM_WRITE && ccm_nic_effect_here(f, d->sem_target)) {
		if (d->flags & DRM_CCORE_DESC_F_SEM_SET)
			ccm_sem_set(f, d->sem_target, d->value);
		else
			ccm_sem_add(f, d->sem_target, d->value);
	}
	if ((d->flags & DRM_CCORE_DESC_F_SIGNAL) && ccm_nic_effect_here(f, d->signal_sem))
		ccm_sem_add(f, d->signal_sem, d->signal_value);
}

/*
 * A DMA error on the descriptor @r is about to start: it does not run (no
 * bytes, no signal) and counts as an error, the descriptors started after
 * it are discarded so the ring goes idle (its written descriptors stay for
 * the next START, which begins where the host expects), and the CC cores
 * of this core that run a job fault.
 */
/*
 * Drop what is started on @r and not complete (the current descriptor
 * counted as an error if @failed, else discarded) and leave the cursors
 * where the next START begins.  Called by the engine, with @e's lock held
 * so that START cannot add to what is being dropped.
 */
static void ring_drop(struct ccm_engine *e, struct ccm_ring *r, bool failed)
{
	u64 left = ccm_load64(&r->started) - ccm_load64(&r->completed) -
		   ccm_load64(&r->errors) - ccm_load64(&r->discarded);

	r->exec_off = 0;
	r->exec_slot = r->start_slot;
	__atomic_store_n(&r->nic, 0, __ATOMIC_RELAXED);
	ccm_add64(&r->discarded, left - failed);
	if (failed)
		ccm_add64(&r->errors, 1);
	if (ccm_timed(e->agent.f))
		ccm_xfer_ring_dropped(r);
}

/* @why: after the descriptor's place, or empty */
static void ring_error_why(struct ccm_engine *e, struct ccm_ring *r, const char *why)
{
	struct ccm_core *c = e->core;
	char msg[CCM_ERR_LEN];
	u32 slot = r->exec_slot;

	ccm_mutex_lock(&e->lock);
	ring_drop(e, r, true);
	ccm_mutex_unlock(&e->lock);
	snprintf(msg, sizeof(msg), "DMA error on device %u core %u engine %u ring %u descriptor %u%s",
		 c->dev->index, c->index, e->index, (u32)(r - e->rings), slot, why);
	ccm_cc_dma_error(c, msg);
	ccm_compute_dma_error(c, e->index, (u32)(r - e->rings), msg);
}

static void ring_error(struct ccm_engine *e, struct ccm_ring *r)
{
	ring_error_why(e, r, "");
}

void ccm_ring_nic_error(struct ccm_engine *e, struct ccm_ring *r, int status)
{
	char why[64];

	snprintf(why, sizeof(why), ": the NIC could not send it to its host (error %d)", status);
	ring_error_why(e, r, why);
}

const struct ccm_hwdesc *ccm_ring_current(struct ccm_ring *r)
{
	if (r->exec_slot >= ccm_load32(&r->written))
		r->exec_slot = 0;
	return &r->descs[r->exec_slot];
}

bool ccm_ring_fault(struct ccm_engine *e, struct ccm_ring *r)
{
	if (!ccm_fault_take_dma_error(e->core))
		return false;
	ring_error(e, r);
	return true;
}

void ccm_ring_move(struct ccm_engine *e, struct ccm_ring *r, u32 slot, s64 disp, u64 off,
		   u64 len, u64 packets)
{
	do_packet(e, &r->descs[slot], (s64)off + disp, len);
	ccm_add64(&r->bytes, len);
	ccm_add64(&r->packets, packets);
}

void ccm_ring_signal(struct ccm_engine *e, struct ccm_ring *r, u32 slot)
{
	/* Count it complete before signalling: whoever the signal wakes may
	 * find the ring idle and rewrite it, so keep a copy for the signal. */
	struct ccm_hwdesc done = r->descs[slot];

	ccm_add64(&r->completed, 1);
	complete_desc(e, &done);
	ccm_add64(&r->signalled, 1);
}

bool ccm_ring_settled(const struct ccm_ring *r)
{
	return ccm_load64(&r->started) == ccm_load64(&r->signalled) + ccm_load64(&r->errors) +
					   ccm_load64(&r->discarded);
}

/*
 * Why the engine must not move @r's current descriptor @d's next packet,
 * or NULL: the last line of defence of memory, whatever state a reset or
 * a proxy left the ring in.  Never past the descriptor's end, never into
 * a remote mapping (no bytes here: only the NIC writes there).
 */
static const char *unmovable(const struct ccm_fabric *f, const struct ccm_ring *r,
			     const struct ccm_hwdesc *d)
{
	if (d->op == DRM_CCORE_DESC_SEM_WRITE)
		return NULL;
	if (r->exec_off && r->exec_off >= d->len)
		return ": its cursor is past its end";
	if (!d->dst && !f->cfg.virt)
		return ": its destination is on another host, only the NIC writes there";
	return NULL;
}

/* Move one packet of @r's current descriptor; true if it completed or failed. */
static bool ring_packet(struct ccm_engine *e, struct ccm_ring *r)
{
	const struct ccm_hwdesc *d = ccm_ring_current(r);
	u64 chunk = d->len - r->exec_off;
	const char *why;

	if (__atomic_load_n(&r->abort, __ATOMIC_ACQUIRE)) {
		ccm_mutex_lock(&e->lock);
		ring_drop(e, r, false);
		__atomic_store_n(&r->abort, 0, __ATOMIC_RELEASE);
		ccm_mutex_unlock(&e->lock);
		return true;
	}
	/* one the NIC carries: finished (or still parked) there */
	if (__atomic_load_n(&r->nic, __ATOMIC_ACQUIRE))
		return ccm_nic_packet(e, r, d);
	if (r->exec_off == 0 && ccm_fault_take_dma_error(e->core)) {
		ring_error(e, r);
		return true;
	}
	/* a descriptor goes to the NIC whole: asked at its start only */
	if (r->exec_off == 0 && ccm_nic_desc(e->agent.f, d))
		return ccm_nic_packet(e, r, d);
	why = unmovable(e->agent.f, r, d);
	if (why) {
		ring_error_why(e, r, why);
		return true;
	}
	if (d->op == DRM_CCORE_DESC_SEM_WRITE)
		chunk = sizeof(u32);
	else if (chunk > r->packet_size)
		chunk = r->packet_size;
	/* relaxed: a START that laps a slot still in flight may change it */
	ccm_ring_move(e, r, r->exec_slot,
		      r->disp ? __atomic_load_n(&r->disp[r->exec_slot], __ATOMIC_RELAXED) : 0,
		      r->exec_off, chunk, 1);
	r->exec_off += chunk;
	if (d->op != DRM_CCORE_DESC_SEM_WRITE && r->exec_off < d->len)
		return false;
	r->exec_off = 0;
	ccm_ring_signal(e, r, r->exec_slot++);
	return true;
}

enum ccm_step_result ccm_engine_step(struct ccm_engine *e)
{
	struct ccm_ring *r;
	bool progressed = false;
	u32 i;

	if (ccm_timed(e->agent.f))
		return ccm_xfer_engine_step(e);
	for (i = 0; i < CCM_ENGINE_BUDGET_PACKETS; i++) {
		r = ccm_engine_pick_ring(e);
		if (!r)
			break;
		progressed |= ring_packet(e, r);
	}
	if (progressed) {
		ccm_core_wake_ring(e->core);
		/* after the SC updates of the ring's counters */
		ccm_host_kick_sc(e->agent.f);
	}
	return i == CCM_ENGINE_BUDGET_PACKETS ? CCM_STEP_RUNNABLE : CCM_STEP_BLOCKED;
}

/* Engine @engine of core @c, if it and its ring @ring exist. */
static struct ccm_engine *engine_at(struct ccm_core *c, u32 engine, u32 ring,
				    struct ccm_err *err)
{
	const struct ccm_config *cfg = &c->dev->f->cfg;

	if (engine >= cfg->engines || ring >= cfg->rings) {
		ccm_reject(err, -EINVAL, DRM_CCORE_REASON_ENGINE_RING, 0,
			   "ring %u of engine %u does not exist (engines 0..%u, rings 0..%u)",
			   ring, engine, cfg->engines - 1, cfg->rings - 1);
		return NULL;
	}
	return &c->engines[engine];
}

static struct ccm_engine *engine_of(const struct ccm_fabric *f, u32 dev, u32 core,
				    u32 engine, u32 ring, struct ccm_err *err)
{
	struct ccm_core *c = ccm_core_get(f, dev, core, err);

	return c ? engine_at(c, engine, ring, err) : NULL;
}

static int check_index(s64 stride, u32 count, struct ccm_err *err)
{
	if (count > DRM_CCORE_MAX_INDEX_COUNT)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_RING_INDEX,
				  DRM_CCORE_MAX_INDEX_COUNT,
				  "index_count %u out of range (0 not indexed, or 1..%u)", count,
				  DRM_CCORE_MAX_INDEX_COUNT);
	if (!count && stride)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_RING_INDEX,
				  DRM_CCORE_MAX_INDEX_COUNT,
				  "index_stride %lld without index_count: a ring that is not indexed (index_count 0) takes index_stride 0",
				  (long long)stride);
	if (stride < -DRM_CCORE_MAX_INDEX_STRIDE || stride > DRM_CCORE_MAX_INDEX_STRIDE)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_RING_INDEX,
				  DRM_CCORE_MAX_INDEX_COUNT,
				  "index_stride %lld out of range (-%lld..%lld bytes)",
				  (long long)stride, (long long)DRM_CCORE_MAX_INDEX_STRIDE,
				  (long long)DRM_CCORE_MAX_INDEX_STRIDE);
	return 0;
}

int ccm_ring_claim(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		   u32 slots, u32 packet_size, s64 index_stride, u32 index_count, void *owner,
		   struct ccm_err *err)
{
	struct ccm_engine *e = engine_of(f, dev, core, engine, ring, err);
	struct ccm_hwdesc *descs;
	struct ccm_ring *r;
	s64 *disp = NULL;
	int rc;

	if (!e || ccm_not_here(f, dev, "its DMA rings are", err))
		return -EINVAL;
	if (!owner)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX, "ring owner must be set");
	if (slots == 0 || slots > f->cfg.max_ring_size)
		return ccm_reject(err, -EINVAL, DRM_CCORE_REASON_RING_SIZE, f->cfg.max_ring_size,
				  "ring size %u out of range (1..%u descriptors)", slots,
				  f->cfg.max_ring_size);
	rc = ccm_check_packet_size(&f->cfg, packet_size, "packet_size", err) ?:
	     check_index(index_stride, index_count, err);
	if (rc)
		return rc;
	descs = ccm_calloc(slots, sizeof(*descs));
	if (index_count)
		disp = ccm_calloc(slots, sizeof(*disp));
	if (!descs || (index_count && !disp)) {
		ccm_free(descs);
		ccm_free(disp);
		return ccm_fail(err, -ENOMEM, CCM_NO_INDEX, "no memory for %u descriptors", slots);
	}

	ccm_mutex_lock(&e->lock);
	r = &e->rings[ring];
	if (r->owner) {
		ccm_mutex_unlock(&e->lock);
		ccm_free(descs);
		ccm_free(disp);
		return ccm_reject(err, -EBUSY, DRM_CCORE_REASON_RING_CLAIMED, 0,
				  "ring %u of engine %u on core %u is already in use", ring,
				  engine, core);
	}
	ccm_free(r->descs);
	ccm_free(r->disp);
	ccm_free(r->xq);
	ccm_free(r->xr);
	memset(r, 0, sizeof(*r));
	r->eng = e;
	r->descs = descs;
	r->disp = disp;
	r->index_stride = index_stride;
	r->index_count = index_count;
	r->slots = slots;
	r->packet_size = packet_size;
	r->owner = owner;
	ccm_mutex_unlock(&e->lock);
	return 0;
}

void *ccm_ring_owner(const struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring)
{
	struct ccm_engine *e = engine_of(f, dev, core, engine, ring, NULL);

	return e ? e->rings[ring].owner : NULL;
}

int ccm_ring_release(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		     struct ccm_err *err)
{
	struct ccm_engine *e = engine_of(f, dev, core, engine, ring, err);
	struct ccm_ring *r;
	int rc = 0;

	if (!e)
		return -EINVAL;
	ccm_mutex_lock(&e->lock);
	r = &e->rings[ring];
	if (ccm_ring_busy(r)) {
		rc = ccm_reject(err, -EBUSY, DRM_CCORE_REASON_RING_IN_FLIGHT, 0,
				"ring %u of engine %u has descriptors in flight", ring, engine);
	} else if (ccm_compute_uses_ring(e->core, engine, ring)) {
		rc = ccm_reject(err, -EBUSY, DRM_CCORE_REASON_RING_IN_FLIGHT, 0,
				"ring %u of engine %u is the DMA ring of the program running on core %u's compute engine",
				ring, engine, core);
	} else {
		/* descs stay allocated until reuse or engine teardown: the
		 * engine may still be looking at this slot's cursor. */
		r->owner = NULL;
		r->written = 0;
	}
	ccm_mutex_unlock(&e->lock);
	return rc;
}

int ccm_ring_write(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		   const struct ccm_hwdesc *descs, u32 count, struct ccm_err *err)
{
	struct ccm_engine *e = engine_of(f, dev, core, engine, ring, err);
	struct ccm_ring *r;
	int rc = 0;

	if (!e)
		return -EINVAL;
	ccm_mutex_lock(&e->lock);
	r = &e->rings[ring];
	if (!r->owner) {
		rc = ccm_fail(err, -ENOENT, CCM_NO_INDEX, "ring %u of engine %u is not claimed",
			      ring, engine);
	} else if (ccm_ring_busy(r)) {
		rc = ccm_reject(err, -EBUSY, DRM_CCORE_REASON_RING_IN_FLIGHT, 0,
				"ring %u of engine %u has descriptors in flight; write it while idle",
				ring, engine);
	} else if (count > r->slots - r->written) {
		rc = ccm_reject(err, -ENOSPC, DRM_CCORE_REASON_RING_FULL, r->slots - r->written,
				"ring %u of engine %u has %u free slots, %u descriptors given",
				ring, engine, r->slots - r->written, count);
	} else {
		memcpy(&r->descs[r->written], descs, (size_t)count * sizeof(*descs));
		ccm_store32(&r->written, r->written + count);
	}
	ccm_mutex_unlock(&e->lock);
	return rc;
}

int ccm_ring_replace(struct ccm_engine *e, u32 ring, const struct ccm_hwdesc *descs, u32 count,
		     void *owner, struct ccm_err *err)
{
	struct ccm_ring *r = &e->rings[ring];
	int rc = 0;

	ccm_mutex_lock(&e->lock);
	if (!r->owner || r->owner != owner) {
		rc = ccm_fail(err, -EACCES, CCM_NO_INDEX,
			      "ring %u of engine %u is not claimed by this context", ring, e->index);
	} else if (ccm_ring_busy(r)) {
		rc = ccm_fail(err, -EBUSY, CCM_NO_INDEX,
			      "ring %u of engine %u has descriptors in flight; it must be idle", ring,
			      e->index);
	} else if (r->index_count) {
		/* its descriptors were checked at index 0 only */
		rc = ccm_fail(err, -EINVAL, CCM_NO_INDEX,
			      "ring %u of engine %u is indexed (index_count %u); a compute program's DMA ring must not be",
			      ring, e->index, r->index_count);
	} else if (count > r->slots) {
		rc = ccm_fail(err, -ENOSPC, CCM_NO_INDEX,
			      "ring %u of engine %u has %u slots, the program has %u dma instructions",
			      ring, e->index, r->slots, count);
	} else {
		/* idle: every cursor may start over at the first slot */
		memcpy(r->descs, descs, (size_t)count * sizeof(*descs));
		r->exec_slot = 0;
		r->exec_off = 0;
		r->start_slot = 0;
		r->xcslot = 0;
		ccm_store32(&r->written, count);
	}
	ccm_mutex_unlock(&e->lock);
	return rc;
}

/* Why STARTI may not start @count descriptors at @index, or 0. */
static int starti_check(struct ccm_engine *e, const struct ccm_ring *r, u32 ring, u32 count,
			u32 index, struct ccm_err *err)
{
	if (!r->index_count)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"index %u: ring %u of engine %u is not indexed (index_count 0); STARTI needs a ring created with index_count 1 or more",
				index, ring, e->index);
	if (index >= r->index_count)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"index %u out of range: ring %u of engine %u takes indexes 0..%u (index_count %u)",
				index, ring, e->index, r->index_count - 1, r->index_count);
	if (count == 0 || count > r->written)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"%u descriptors: ring %u of engine %u has %u written, STARTI starts 1..%u",
				count, ring, e->index, r->written, r->written);
	return 0;
}

/*
 * Start @count descriptors of ring @ring at @index.  STARTI (@starti) also
 * needs them all to fit in free slots: each slot's displacement must stay
 * until the engine has taken it, when the descriptor completes (timed
 * mode: when it is issued, its displacement travels with it).
 */
static int ring_start(struct ccm_engine *e, u32 ring, u32 count, u32 index, bool starti,
		      struct ccm_err *err)
{
	struct ccm_fabric *f = e->agent.f;
	struct ccm_ring *r = &e->rings[ring];
	u64 bytes = 0, busy;
	u32 i, slot;
	s64 disp;
	int rc = 0;

	ccm_mutex_lock(&e->lock);
	if (r->start_slot >= r->written)
		r->start_slot = 0;
	if (!r->owner || r->written == 0) {
		rc = ccm_fail(err, -ENOENT, CCM_NO_INDEX,
			      "%s on ring %u of engine %u, which has no descriptors",
			      starti ? "STARTI" : "START", ring, e->index);
		goto out;
	}
	if (starti) {
		rc = starti_check(e, r, ring, count, index, err);
		if (rc)
			goto out;
		/* the timed engine keeps an issued descriptor's displacement
		 * with it in flight; the functional one reads its slot until done */
		if (ccm_timed(f))
			busy = ccm_load64(&r->started) - r->xissued;
		else
			busy = ccm_load64(&r->started) - ccm_load64(&r->completed) -
			       ccm_load64(&r->errors) - ccm_load64(&r->discarded);
		if (busy + count > r->written) {
			rc = -EAGAIN;
			goto out;
		}
	}
	if (!count)
		goto out;
	/* more would lap the ring: one START could keep an engine busy for hours */
	if (!starti && count > r->written) {
		rc = ccm_fail(err, -EINVAL, CCM_NO_INDEX,
			      "START of %u descriptors on ring %u of engine %u, which has %u written; START runs 1..%u",
			      count, ring, e->index, r->written, r->written);
		goto out;
	}
	if (r->disp) {
		/* published by the add to started below */
		disp = (s64)index * r->index_stride;
		for (i = 0, slot = r->start_slot; i < count && i < r->written; i++) {
			__atomic_store_n(&r->disp[slot], disp, __ATOMIC_RELAXED);
			slot = slot + 1 == r->written ? 0 : slot + 1;
		}
	}
	/* (timed mode has no workers to hand heavy work to) */
	if (!ccm_timed(f))
		for (i = 0; i < count && bytes < CCM_HEAVY_BYTES; i++)
			bytes += r->descs[(r->start_slot + i) % r->written].len;
	/* the ideal setting's port takes them in the order they are started */
	if (f->tm.ideal) {
		rc = ccm_xfer_started(e, r, r->start_slot, count);
		if (rc) {
			rc = ccm_fail(err, rc, CCM_NO_INDEX, "out of memory starting ring %u", ring);
			goto out;
		}
	}
	ccm_add64(&r->started, count);
	r->start_slot = (r->start_slot + count - 1) % r->written + 1;
	__atomic_fetch_or(&e->busy, 1u << ring, __ATOMIC_ACQ_REL);
out:
	ccm_mutex_unlock(&e->lock);
	if (!rc && count)
		ccm_agent_wake_heavy(&e->agent, bytes >= CCM_HEAVY_BYTES);
	return rc;
}

int ccm_ring_start(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		   u32 count, struct ccm_err *err)
{
	struct ccm_engine *e = engine_of(f, dev, core, engine, ring, err);

	if (!e)
		return -EINVAL;
	return ring_start(e, ring, count, 0, false, err);
}

int ccm_ring_starti(struct ccm_core *core, u32 engine, u32 ring, u32 count, u32 index,
		    struct ccm_err *err)
{
	struct ccm_engine *e = engine_at(core, engine, ring, err);

	if (!e)
		return -EINVAL;
	return ring_start(e, ring, count, index, true, err);
}

int ccm_ring_stats(const struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		   struct ccm_ring_stats *st)
{
	struct ccm_engine *e = engine_of(f, dev, core, engine, ring, NULL);
	struct ccm_ring *r;

	if (!e)
		return -EINVAL;
	r = &e->rings[ring];
	st->packet_size = r->packet_size;
	st->size = r->slots;
	st->written = ccm_load32(&r->written);
	st->bytes = ccm_load64(&r->bytes);
	st->packets = ccm_load64(&r->packets);
	st->started = ccm_load64(&r->started);
	st->completed = ccm_load64(&r->completed);
	st->errors = ccm_load64(&r->errors);
	st->discarded = ccm_load64(&r->discarded);
	st->index_stride = r->index_stride;
	st->index_count = r->index_count;
	return 0;
}

int ccm_ring_abort(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring)
{
	struct ccm_engine *e = engine_of(f, dev, core, engine, ring, NULL);
	struct ccm_ring *r;
	bool busy;

	if (!e)
		return -EINVAL;
	if (ccm_timed(f))
		return -EOPNOTSUPP;
	r = &e->rings[ring];
	ccm_mutex_lock(&e->lock);
	busy = ccm_ring_busy(r);
	if (busy) {
		__atomic_store_n(&r->abort, 1, __ATOMIC_RELEASE);
		/* the engine looks at it again, parked for the NIC or not */
		__atomic_fetch_or(&e->busy, 1u << ring, __ATOMIC_ACQ_REL);
	}
	ccm_mutex_unlock(&e->lock);
	if (busy)
		ccm_agent_wake(&e->agent);
	return 0;
}

void ccm_engine_drop_all(struct ccm_engine *e)
{
	u32 i;

	ccm_mutex_lock(&e->lock);
	for (i = 0; i < CCM_MAX_RINGS; i++) {
		struct ccm_ring *r = &e->rings[i];

		if (ccm_ring_busy(r))
			ring_drop(e, r, false);
		/* what completed signals no more: nothing steps this engine */
		ccm_store64(&r->signalled, ccm_load64(&r->completed));
		__atomic_store_n(&r->abort, 0, __ATOMIC_RELEASE);
		r->owner = NULL;
		r->written = 0;
	}
	__atomic_store_n(&e->busy, 0, __ATOMIC_RELEASE);
	ccm_mutex_unlock(&e->lock);
}

bool ccm_ring_idle(const struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring)
{
	struct ccm_engine *e = engine_of(f, dev, core, engine, ring, NULL);

	return !e || !ccm_ring_busy(&e->rings[ring]);
}
