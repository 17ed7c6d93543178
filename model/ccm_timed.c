// SPDX-License-Identifier: GPL-2.0
/*
 * The timed mode's virtual clock: a deterministic discrete-event scheduler.
 *
 * The agents and their step functions are the functional mode's; only the
 * order changes.  Instead of the run queue, a binary heap holds every agent
 * that has something to do, keyed by the virtual time (picoseconds) it is
 * due at, ties broken by the order they were queued in.  Whoever waits for
 * the model runs, inline, the earliest agent: a DMA engine at the time one
 * of its transfers changes phase (ccm_xfer.c), a CC core at its clock.  A
 * wake is stamped with the time of whatever caused it (a descriptor's
 * completion, an instruction, the host "now"), plus the semaphore latency
 * for a semaphore change.
 *
 * A CC core executes instructions from its clock on, cc_insn_ns each, as
 * long as no event is due earlier: when one is, it yields and is queued at
 * its clock, so effects always happen in time order.
 */
#include "ccm_internal.h"

/*
 * Heap entries carry their key, so sifting never touches the agents.  A
 * wake that makes a queued agent due earlier queues it again; the entry it
 * had goes stale (its sequence number is no longer the agent's) and is
 * dropped when it comes up.
 */
static bool before(const struct ccm_tevent *a, const struct ccm_tevent *b)
{
	return a->key < b->key || (a->key == b->key && a->seq < b->seq);
}

static bool stale(const struct ccm_tevent *ev)
{
	return ev->a->state != CCM_AGENT_QUEUED || ev->a->kseq != ev->seq;
}

static void sift_up(struct ccm_timed *tm, u32 i)
{
	struct ccm_tevent ev = tm->heap[i];

	while (i) {
		u32 parent = (i - 1) / 2;

		if (!before(&ev, &tm->heap[parent]))
			break;
		tm->heap[i] = tm->heap[parent];
		i = parent;
	}
	tm->heap[i] = ev;
}

static void sift_down(struct ccm_timed *tm, u32 i)
{
	struct ccm_tevent ev = tm->heap[i];

	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= tm->nheap)
			break;
		if (c + 1 < tm->nheap && before(&tm->heap[c + 1], &tm->heap[c]))
			c++;
		if (!before(&tm->heap[c], &ev))
			break;
		tm->heap[i] = tm->heap[c];
		i = c;
	}
	tm->heap[i] = ev;
}

static void heap_remove_top(struct ccm_timed *tm)
{
	tm->nheap--;
	if (tm->nheap) {
		tm->heap[0] = tm->heap[tm->nheap];
		sift_down(tm, 0);
	}
}

/* Drop stale entries from the top and publish the earliest key. */
static void publish_min(struct ccm_timed *tm)
{
	while (tm->nheap && stale(&tm->heap[0]))
		heap_remove_top(tm);
	__atomic_store_n(&tm->min_key, tm->nheap ? tm->heap[0].key : CCM_NEVER,
			 __ATOMIC_RELAXED);
}

/* Queue @a at @key (a->state is QUEUED). */
static void heap_push(struct ccm_timed *tm, struct ccm_agent *a, u64 key)
{
	a->key = key;
	a->kseq = tm->seq++;
	if (tm->nheap == tm->cap &&
	    ccm_grow((void **)&tm->heap, &tm->cap, tm->nheap, sizeof(*tm->heap), 64)) {
		/* out of memory: compact the stale entries away and retry */
		u32 i, n = 0;

		for (i = 0; i < tm->nheap; i++)
			if (!stale(&tm->heap[i]))
				tm->heap[n++] = tm->heap[i];
		tm->nheap = n;
		for (i = n / 2; i-- > 0;)
			sift_down(tm, i);
		if (tm->nheap == tm->cap)
			return;	/* cannot happen: the heap holds every agent */
	}
	tm->heap[tm->nheap] = (struct ccm_tevent){ .key = key, .seq = a->kseq, .a = a };
	sift_up(tm, tm->nheap++);
	publish_min(tm);
}

/* The earliest queued agent (there is one). */
static struct ccm_agent *heap_pop(struct ccm_timed *tm)
{
	struct ccm_agent *a;

	publish_min(tm);
	a = tm->heap[0].a;
	heap_remove_top(tm);
	publish_min(tm);
	return a;
}

static u64 max64(u64 a, u64 b)
{
	return a > b ? a : b;
}

static u64 min64(u64 a, u64 b)
{
	return a < b ? a : b;
}

void ccm_timed_wake(struct ccm_agent *a, u64 at)
{
	struct ccm_timed *tm = &a->f->tm;
	u64 key = max64(a->t, at);

	switch (a->state) {
	case CCM_AGENT_IDLE:
		a->state = CCM_AGENT_QUEUED;
		heap_push(tm, a, key);
		break;
	case CCM_AGENT_QUEUED:
		/* earlier only: an agent run early finds nothing due and
		 * queues itself again */
		if (key < a->key)
			heap_push(tm, a, key);
		break;
	default:
		a->rerun = true;
		a->rerun_at = min64(a->rerun_at, at);
		break;
	}
}

u32 ccm_timed_pending(const struct ccm_fabric *f)
{
	/* publish_min() keeps a valid entry on top whenever there is one */
	return f->tm.nheap;
}

void ccm_timed_run_one(struct ccm_fabric *f)
{
	struct ccm_sched *s = &f->sched;
	struct ccm_timed *tm = &f->tm;
	struct ccm_agent *a = heap_pop(tm);
	enum ccm_step_result r;
	u64 key;

	tm->now = max64(tm->now, a->key);
	tm->cur = tm->now;
	a->t = max64(a->t, a->key);
	a->state = CCM_AGENT_RUNNING;
	a->rerun = false;
	a->rerun_at = CCM_NEVER;
	a->due = CCM_NEVER;
	s->running++;
	ccm_mutex_unlock(&s->lock);

	r = ccm_agent_step(a);

	ccm_mutex_lock(&s->lock);
	s->running--;
	/* a CC core's instructions ran up to its clock, never past an event */
	tm->now = max64(tm->now, tm->cur);
	tm->cur = tm->now;
	key = a->due;
	if (r != CCM_STEP_BLOCKED)
		key = min64(key, a->t);
	if (a->rerun)
		key = min64(key, max64(a->t, a->rerun_at));
	if (key == CCM_NEVER) {
		a->state = CCM_AGENT_IDLE;
	} else {
		a->state = CCM_AGENT_QUEUED;
		heap_push(tm, a, max64(key, tm->now));
	}
}

bool ccm_timed_may_run(struct ccm_agent *a)
{
	struct ccm_timed *tm = &a->f->tm;
	u64 t = a->t;

	if (t > __atomic_load_n(&tm->min_key, __ATOMIC_RELAXED))
		return false;
	tm->cur = t;
	return true;
}

u64 ccm_fabric_now_ps(const struct ccm_fabric *f)
{
	return ccm_timed(f) ? __atomic_load_n(&f->tm.now, __ATOMIC_RELAXED) : 0;
}

static void set_tier(struct ccm_timed *tm, enum ccm_link_tier t, u32 alpha_ns, u32 gbps)
{
	tm->alpha_ps[t] = (u64)alpha_ns * 1000;
	tm->gbps[t] = gbps;
}

int ccm_timed_init(struct ccm_fabric *f)
{
	const struct ccm_config *c = &f->cfg;
	struct ccm_timed *tm = &f->tm;
	u32 d, i;

	/* every agent once, and room for entries gone stale */
	tm->cap = 2 * f->ndev * c->cores * (c->engines + c->cc_cores + 1);
	tm->heap = ccm_calloc(tm->cap, sizeof(*tm->heap));
	tm->links = ccm_calloc((size_t)f->ndev * CCM_LINK_DIRS, sizeof(*tm->links));
	if (!tm->heap || !tm->links)
		return -ENOMEM;
	if (c->ideal) {
		tm->port_out = ccm_calloc((size_t)f->ndev * c->cores, sizeof(*tm->port_out));
		if (!tm->port_out)
			return -ENOMEM;
	}
	tm->min_key = CCM_NEVER;
	tm->ideal = c->ideal;
	tm->virt = c->virt;
	if (c->ideal) {
		/* one tier everywhere, no overheads */
		set_tier(tm, CCM_TIER_LOCAL, c->alpha_node_ns, c->bw_node_gbps);
		set_tier(tm, CCM_TIER_DEVICE, c->alpha_node_ns, c->bw_node_gbps);
		set_tier(tm, CCM_TIER_NODE, c->alpha_node_ns, c->bw_node_gbps);
	} else {
		set_tier(tm, CCM_TIER_LOCAL, c->alpha_dev_ns, c->bw_dev_gbps);
		set_tier(tm, CCM_TIER_DEVICE, c->alpha_node_ns, c->bw_node_gbps);
		set_tier(tm, CCM_TIER_NODE, c->alpha_net_ns, c->bw_net_gbps);
		tm->insn_ps = (u64)c->cc_insn_ns * 1000;
		tm->sem_ps = (u64)c->sem_ns * 1000;
	}
	for (d = 0; d < f->ndev; d++)
		for (i = 0; i < CCM_LINK_DIRS; i++)
			tm->links[d * CCM_LINK_DIRS + i].gbps = i < 4 ? c->bw_node_gbps :
								c->bw_net_gbps;
	return 0;
}

void ccm_timed_fini(struct ccm_fabric *f)
{
	struct ccm_timed *tm = &f->tm;
	u32 i;

	for (i = 0; tm->links && i < f->ndev * CCM_LINK_DIRS; i++)
		ccm_free(tm->links[i].act);
	ccm_free(tm->links);
	ccm_free(tm->heap);
	ccm_free(tm->port_out);
	tm->port_out = NULL;
	tm->links = NULL;
	tm->heap = NULL;
}
