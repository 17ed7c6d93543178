// SPDX-License-Identifier: MIT
/*
 * Running a lowered schedule on the ideal fabric (see walk.h), as the
 * timed device model runs it with ideal=1 (model/ccm_xfer.c, ccm_cc.c):
 *   - a CC core takes no time per instruction; ACQUIRE and WAIT block
 *     until their semaphore holds the value, RWAIT until every descriptor
 *     started on the ring is complete; ADD reaches its semaphore at once;
 *   - START reserves the rank's port for each send it starts, in order:
 *     the bytes are through at max(port free, now) + len/BW;
 *   - a ring issues its descriptors in order: a send's bytes go at the
 *     later of the ring's previous send and its port time and land α
 *     after; a SEM_WRITE (a credit marker) lands α after the ring gets to
 *     it; a rank's own copy or reduction is done when the ring gets to it;
 *   - a ring completes in order: a descriptor signals no earlier than the
 *     one before it.
 * Events (a semaphore changed, a core's wait is over) go in time order,
 * ties first come first served.
 */
#include "walk.h"
#include "lower/lower.h"
#include "util/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum wkind { W_LOCAL, W_SEND, W_MARK };

struct wdesc {
	uint8_t kind;
	uint32_t sig, sig_val;		/* signalled semaphore (~0u: none) */
	uint32_t tgt, tgt_val;		/* a SEM_WRITE's semaphore */
	double us;			/* a send's time through the port */
};

struct wring {
	struct wdesc *d;
	uint32_t nd, next;		/* descriptors, the next to start */
	double xfree, done;		/* bytes through, last completion */
};

struct winsn {
	uint8_t op, engine;
	uint32_t sem, imm;
};

enum wstate { W_RUN, W_ON_SEM, W_ON_TIME, W_DONE };

struct wcore {
	struct winsn *insn;
	uint32_t n, pc;
	uint8_t state;
	uint32_t on_sem;
	double now, port;
	struct wring *ring;		/* [engines] */
};

struct wsem {
	uint64_t key;			/* kind, owner rank, peer */
	uint32_t owner;
	int64_t val;
};

struct wevent {
	double at;
	uint64_t seq;
	uint32_t what;			/* semaphore, or core | WAKE */
	int64_t add;
};

#define WAKE (1u << 31)

struct walk {
	uint32_t n, engines, elem_size;
	double alpha, bw;		/* µs, bytes per µs */
	struct wcore *core;
	struct lower_rank *lr;
	struct wsem *sem;
	uint32_t nsem, semcap;
	uint32_t *hash, hcap;		/* open addressing: 1 + index into sem, 0 empty */
	struct wevent *heap;
	uint32_t nheap, heapcap;
	uint64_t seq;
	double end;
	bool bad;
};

/* --- semaphores: (kind, owner, peer) named by a small number ------------- */

static int sem_grow(struct walk *w)
{
	uint32_t cap = w->hcap ? 2 * w->hcap : 1024;
	uint32_t *h = calloc(cap, sizeof(*h));

	if (!h)
		return -1;
	for (uint32_t i = 0; i < w->nsem; i++) {
		uint32_t k = (uint32_t)(w->sem[i].key * 0x9e3779b97f4a7c15ull >> 40) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(w->hash);
	w->hash = h;
	w->hcap = cap;
	return 0;
}

static uint32_t sem_id(void *arg, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
		       uint32_t user)
{
	struct walk *w = arg;
	uint64_t key = (uint64_t)kind << 60 | (uint64_t)r << 30 | peer;
	uint32_t k;

	(void)user;
	if (2 * (w->nsem + 1) > w->hcap && sem_grow(w)) {
		w->bad = true;
		return 0;
	}
	for (k = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 40) & (w->hcap - 1); w->hash[k];
	     k = (k + 1) & (w->hcap - 1))
		if (w->sem[w->hash[k] - 1].key == key)
			return w->hash[k] - 1;
	if (rt_grow((void **)&w->sem, &w->semcap, w->nsem, sizeof(*w->sem), 1024)) {
		w->bad = true;
		return 0;
	}
	w->sem[w->nsem] = (struct wsem){ .key = key, .owner = r };
	w->hash[k] = ++w->nsem;
	return w->nsem - 1;
}

/* --- addresses: the rank in the top bits, the buffer below ---------------- */

#define VA_RANK_SHIFT 40
#define VA_BUF_SHIFT 37

static uint64_t va_of(uint32_t r, uint32_t buf)
{
	return ((uint64_t)r + 1) << VA_RANK_SHIFT | (uint64_t)buf << VA_BUF_SHIFT;
}

static uint32_t rank_of(uint64_t va)
{
	return (uint32_t)(va >> VA_RANK_SHIFT) - 1;
}

static uint64_t peer_va(void *arg, uint32_t r, uint32_t q, uint32_t buf)
{
	(void)arg;
	(void)r;
	return va_of(q, buf);
}

/* --- the programs, kept in short form --------------------------------------- */

static struct wdesc short_desc(const struct walk *w, uint32_t r, const struct drm_ccore_desc *d)
{
	struct wdesc x = { .sig = ~0u, .tgt = ~0u };
	bool mine;

	if (d->flags & DRM_CCORE_DESC_F_SIGNAL) {
		x.sig = d->signal_sem;
		x.sig_val = d->signal_value;
	}
	if (d->op == DRM_CCORE_DESC_SEM_WRITE) {
		x.kind = W_MARK;
		x.tgt = (uint32_t)d->dst;
		x.tgt_val = d->value;
		return x;
	}
	mine = rank_of(d->dst) == r && rank_of(d->src0) == r &&
	       (d->op != DRM_CCORE_DESC_REDUCE || rank_of(d->src1) == r) &&
	       (x.sig == ~0u || w->sem[x.sig].owner == r);
	x.kind = mine ? W_LOCAL : W_SEND;
	x.us = mine ? 0 : (double)d->len / w->bw;
	return x;
}

static int keep_image(void *arg, uint32_t r, const struct lower_image *im)
{
	struct walk *w = arg;
	struct wcore *c = &w->core[r];

	if (w->bad)
		return -ENOMEM;
	c->insn = malloc((im->ninsns ? im->ninsns : 1) * sizeof(*c->insn));
	if (!c->insn)
		return -ENOMEM;
	c->n = im->ninsns;
	for (uint32_t i = 0; i < im->ninsns; i++) {
		const struct drm_ccore_insn *in = &im->insns[i];

		/* a schedule's lowering uses ring index 0 of each engine only */
		if (in->ring || in->engine >= w->engines)
			return -EINVAL;
		c->insn[i] = (struct winsn){ in->opcode, in->engine, in->sem, in->imm };
	}
	for (uint32_t e = 0; e < w->engines; e++) {
		const struct lower_ring_image *ri = &im->ring[0][e];
		struct wring *g = &c->ring[e];

		if (!ri->nd)
			continue;
		g->d = malloc(ri->nd * sizeof(*g->d));
		if (!g->d)
			return -ENOMEM;
		g->nd = ri->nd;
		for (uint32_t i = 0; i < ri->nd; i++)
			g->d[i] = short_desc(w, r, &ri->desc[i]);
	}
	return 0;
}

/* --- events ------------------------------------------------------------------ */

static bool before(const struct wevent *a, const struct wevent *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void push(struct walk *w, double at, uint32_t what, int64_t add)
{
	struct wevent e = { at, w->seq++, what, add };
	size_t i;

	if (rt_grow((void **)&w->heap, &w->heapcap, w->nheap, sizeof(*w->heap), 1024)) {
		w->bad = true;
		return;
	}
	for (i = w->nheap++; i && before(&e, &w->heap[(i - 1) / 2]); i = (i - 1) / 2)
		w->heap[i] = w->heap[(i - 1) / 2];
	w->heap[i] = e;
}

static struct wevent pop(struct walk *w)
{
	struct wevent top = w->heap[0], last = w->heap[--w->nheap];
	size_t i = 0, k;

	while ((k = 2 * i + 1) < w->nheap) {
		if (k + 1 < w->nheap && before(&w->heap[k + 1], &w->heap[k]))
			k++;
		if (!before(&w->heap[k], &last))
			break;
		w->heap[i] = w->heap[k];
		i = k;
	}
	if (w->nheap)
		w->heap[i] = last;
	return top;
}

static double later(double a, double b)
{
	return a > b ? a : b;
}

/* START of @count descriptors of @c's ring on engine @e at c->now. */
static int start(struct walk *w, struct wcore *c, uint32_t e, uint32_t count)
{
	struct wring *g = &c->ring[e];

	if (count > g->nd - g->next)
		return -EINVAL;
	for (uint32_t k = 0; k < count; k++) {
		const struct wdesc *d = &g->d[g->next++];
		double go = later(c->now, g->xfree), landed;

		if (d->kind == W_SEND) {
			c->port = later(c->port, c->now) + d->us;
			g->xfree = later(go + d->us, c->port);
			landed = g->xfree + w->alpha;
		} else {
			landed = go + (d->kind == W_MARK ? w->alpha : 0);
		}
		g->done = later(g->done, landed);
		if (d->sig != ~0u)
			push(w, g->done, d->sig, d->sig_val);
		if (d->tgt != ~0u)
			push(w, g->done, d->tgt, d->tgt_val);
	}
	return 0;
}

/* Run core @c from @at until it blocks or returns. */
static int run(struct walk *w, struct wcore *c, double at)
{
	c->now = later(c->now, at);
	c->state = W_RUN;
	while (c->pc < c->n) {
		const struct winsn *in = &c->insn[c->pc];
		struct wsem *s = in->sem < w->nsem ? &w->sem[in->sem] : NULL;

		switch (in->op) {
		case DRM_CCORE_OP_SET:
			if (!s)
				return -EINVAL;
			s->val = in->imm;
			break;
		case DRM_CCORE_OP_ADD:
			if (!s)
				return -EINVAL;
			push(w, c->now, in->sem, in->imm);
			break;
		case DRM_CCORE_OP_WAIT:
		case DRM_CCORE_OP_ACQUIRE:
			if (!s)
				return -EINVAL;
			if (s->val < (int64_t)in->imm) {
				c->state = W_ON_SEM;
				c->on_sem = in->sem;
				return 0;
			}
			if (in->op == DRM_CCORE_OP_ACQUIRE)
				s->val -= in->imm;
			break;
		case DRM_CCORE_OP_START:
			if (start(w, c, in->engine, in->imm))
				return -EINVAL;
			break;
		case DRM_CCORE_OP_RWAIT:
			/* after the completions' own events (pushed before) */
			c->pc++;
			c->state = W_ON_TIME;
			push(w, later(c->now, c->ring[in->engine].done), WAKE | (uint32_t)(c - w->core),
			     0);
			return 0;
		case DRM_CCORE_OP_RET:
			c->pc = c->n;
			continue;
		case DRM_CCORE_OP_NOP:
			break;
		default:
			return -EINVAL;	/* loops and branches: not a schedule's lowering */
		}
		c->pc++;
	}
	c->state = W_DONE;
	w->end = later(w->end, c->now);
	return 0;
}

static void walk_free(struct walk *w)
{
	for (uint32_t r = 0; w->core && r < w->n; r++) {
		free(w->core[r].insn);
		for (uint32_t e = 0; w->core[r].ring && e < w->engines; e++)
			free(w->core[r].ring[e].d);
		free(w->core[r].ring);
	}
	free(w->core);
	free(w->lr);
	free(w->sem);
	free(w->hash);
	free(w->heap);
}

int tune_walk_ideal(const struct cs_sched *s, uint32_t engines, uint32_t elem_size,
		    double alpha_us, double bw_gbps, double *us)
{
	struct walk w = { .n = s->shape.nranks, .engines = engines, .elem_size = elem_size,
			  .alpha = alpha_us, .bw = bw_gbps * 1e3 };
	struct lower_ctx ctx = {
		.nranks = w.n, .peer_va = peer_va, .arg = &w, .elem_size = elem_size,
		.engines = engines, .sem = sem_id,
	};
	uint64_t steps = 0;
	int rc = 0;

	for (uint32_t r = 0; r < w.n; r++)
		steps += s->ranks[r].n;
	if (steps > TUNE_WALK_MAX_STEPS)
		return -E2BIG;
	if (!engines || engines > LOWER_MAX_ENGINES || bw_gbps <= 0)
		return -EINVAL;
	w.core = calloc(w.n, sizeof(*w.core));
	w.lr = calloc(w.n, sizeof(*w.lr));
	if (!w.core || !w.lr) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t r = 0; r < w.n; r++) {
		for (uint32_t b = 0; b < CS_NBUF; b++)
			w.lr[r].va[b] = va_of(r, b);
		w.core[r].ring = calloc(engines, sizeof(*w.core[r].ring));
		if (!w.core[r].ring) {
			rc = -ENOMEM;
			goto out;
		}
	}
	ctx.ranks = w.lr;
	rc = lower_images(s, &ctx, keep_image, &w);
	if (rc || w.bad) {
		rc = rc ? rc : -ENOMEM;
		goto out;
	}
	for (uint32_t r = 0; r < w.n && !rc; r++)
		rc = run(&w, &w.core[r], 0);
	while (!rc && w.nheap && !w.bad) {
		struct wevent e = pop(&w);
		struct wcore *c;

		if (e.what & WAKE) {
			rc = run(&w, &w.core[e.what & ~WAKE], e.at);
			continue;
		}
		w.sem[e.what].val += e.add;
		c = &w.core[w.sem[e.what].owner];
		if (c->state == W_ON_SEM && c->on_sem == e.what)
			rc = run(&w, c, e.at);
	}
	for (uint32_t r = 0; r < w.n && !rc; r++)
		if (w.core[r].state != W_DONE)
			rc = -EINVAL;	/* waits for ever */
	if (!rc && w.bad)
		rc = -ENOMEM;
	if (!rc)
		*us = w.end;
out:
	walk_free(&w);
	return rc;
}
