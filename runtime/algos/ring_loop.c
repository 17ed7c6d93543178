// SPDX-License-Identifier: MIT
/*
 * Ring AllReduce lowered in loop form, without a schedule.
 *
 * algo_ring's AllReduce forwards one block per hop: at hop h (0..2N-3)
 * rank r sends block (r-1-h) mod N to r+1, slice by slice, each slice right
 * after the receive of hop h-1 it forwards.  The reduce-scatter hops
 * (h < N-1) REDUCE into the peer's partial sum, the all-gather hops COPY.
 * Lowered step by step that is 2N-2 hops x slices sends per rank: at
 * N = 1024 and 1 GiB, millions of steps, descriptors and instructions.
 *
 * Here the sends of a phase are templates on an indexed ring (index: the
 * block, stride: a block's bytes), and each run of hops whose block does
 * not wrap is one CC-core loop: REG_BLOCK holds the block, counting down,
 * REG_HOPS the hops left.  The program is the explicit lowering's rolled
 * up: the same prologue credits, per slice the same receive ACQUIRE,
 * credit ACQUIRE and send, the same credit marker (a SEM_WRITE granting
 * the left rank the all-gather receive of the block) behind each
 * reduce-scatter send.  What differs: a send and its marker start
 * together, and each phase has a ring of its own (so has, out of place,
 * hop 0, which reads the input instead of the partial sum), all on the
 * engine the schedule's sends would use.
 * Puts to one peer from different rings may land out of order, so each
 * phase counts its arrivals on a semaphore of its own, in slots of the
 * receiver's block no schedule uses (a rank never sends to itself): A(p)
 * for the reduce-scatter, A(self) for hop 0 out of place, C(self) for the
 * all-gather.  Data cannot overtake: an all-gather put of a block waits
 * for the credit the receiver marks behind its own reduce-scatter send of
 * that block, which it starts only after the reduce-scatter put of the
 * block has landed.
 */
#include "algo.h"
#include "lower/lower.h"
#include "ccore_internal.h"

#include <errno.h>
#include <stdlib.h>

#define REG_HOPS 0
#define REG_BLOCK 1
/* Copies of the templates per ring: hops whose sends may be in flight
 * before a STARTI waits for a slot. */
#define RING_DEPTH 4

enum phase { PH_FIRST, PH_RS, PH_AG, NPHASE };

struct ring_prog {
	const struct lower_ctx *c;
	uint32_t n, r, left, right, es;
	uint64_t blk;			/* elements per block */
	uint32_t slices;		/* non-empty ones */
	uint64_t *soff, *slen;		/* their offsets and lengths in a block */
	bool in_place;
	uint32_t engine;		/* of every send, as the schedule's lowering */
	uint32_t which[NPHASE];		/* each phase's ring: lower_rank.ring[which] */
	bool used[NPHASE];
	struct lower_image im;
	uint32_t icap;
};

static void put(struct ring_prog *p, struct drm_ccore_insn in)
{
	if (p->im.ninsns < p->icap)
		p->im.insns[p->im.ninsns] = in;
	p->im.ninsns++;		/* past icap: a bug, caught before loading */
}

static uint32_t block_of(const struct ring_prog *p, uint32_t h)
{
	return algo_mod((int64_t)p->r - 1 - h, p->n);
}

/* The semaphore of rank @at counting arrivals of phase @ph (see above). */
static uint32_t sem_arrival(const struct ring_prog *p, uint32_t at, enum phase ph)
{
	uint32_t first = p->c->ranks[at].sems;

	if (ph == PH_AG)
		return lower_sem_credit(first, p->n, at);
	return lower_sem_arrival(first, ph == PH_FIRST ? at : (at + p->n - 1) % p->n);
}

/* The phase whose puts hop @h sends. */
static enum phase phase_of(const struct ring_prog *p, uint32_t h)
{
	if (h == 0 && !p->in_place)
		return PH_FIRST;
	return h < p->n - 1 ? PH_RS : PH_AG;
}

static uint32_t sem_credit(const struct ring_prog *p, uint32_t at, uint32_t to)
{
	return lower_sem_credit(p->c->ranks[at].sems, p->n, to);
}

static uint64_t own(const struct ring_prog *p, uint32_t buf)
{
	return p->c->ranks[p->r].va[buf];
}

static uint64_t theirs(const struct ring_prog *p, uint32_t buf)
{
	return p->c->peer_va(p->c->arg, p->r, p->right, buf);
}

/*
 * One copy of phase @ph's templates, for block 0 (block @b for the
 * unindexed PH_FIRST): per slice its send, and behind a reduce-scatter
 * send the marker granting the left rank the all-gather receive.
 */
static void templates(const struct ring_prog *p, enum phase ph, uint64_t b,
		      struct drm_ccore_desc *d)
{
	const struct lower_ctx *c = p->c;
	uint32_t from = ph == PH_FIRST ? CS_SEND : CS_RECV;

	for (uint32_t i = 0; i < p->slices; i++) {
		uint64_t at = (b * p->blk + p->soff[i]) * p->es;
		struct drm_ccore_desc send = {
			.op = ph == PH_AG ? DRM_CCORE_DESC_COPY : DRM_CCORE_DESC_REDUCE,
			.flags = DRM_CCORE_DESC_F_SIGNAL,
			.signal_sem = sem_arrival(p, p->right, ph), .signal_value = 1,
			.len = p->slen[i] * p->es,
			.dst = theirs(p, CS_RECV) + at,
		};

		if (ph == PH_AG) {
			send.src0 = own(p, CS_RECV) + at;
			*d++ = send;
			continue;
		}
		send.dtype = (uint8_t)c->dtype;
		send.redop = (uint8_t)c->redop;
		send.src0 = theirs(p, CS_SEND) + at;
		send.src1 = own(p, from) + at;
		*d++ = send;
		*d++ = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_SEM_WRITE, .value = 1,
						.dst = sem_credit(p, p->left, p->r) };
	}
}

static uint32_t per_slice(enum phase ph)
{
	return ph == PH_AG ? 1 : 2;
}

/* Phase @ph's ring: its templates RING_DEPTH times over (once for PH_FIRST). */
static int build_ring(struct ring_prog *p, enum phase ph)
{
	struct lower_ring_image *ri = &p->im.ring[p->which[ph]][p->engine];
	uint32_t copies = ph == PH_FIRST ? 1 : RING_DEPTH;
	uint32_t one = p->slices * per_slice(ph);
	struct drm_ccore_desc *d = malloc((size_t)one * copies * sizeof(*d));

	if (!d)
		return -ENOMEM;
	for (uint32_t k = 0; k < copies; k++)
		templates(p, ph, ph == PH_FIRST ? block_of(p, 0) : 0, d + (size_t)k * one);
	ri->desc = d;
	ri->nd = one * copies;
	if (ph != PH_FIRST) {
		ri->index_stride = (int64_t)(p->blk * p->es);
		ri->index_count = p->n;
	}
	return 0;
}

/*
 * Hop @h: per slice, the receive of hop h-1 (h > 0), then, unless it is
 * the last (@h = 2N-2), the credit and the send of block REG_BLOCK.
 */
static void hop(struct ring_prog *p, uint32_t h)
{
	bool sends = h < 2 * p->n - 2;
	enum phase ph = phase_of(p, h);

	for (uint32_t i = 0; i < p->slices; i++) {
		if (h)
			put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ACQUIRE,
							.sem = sem_arrival(p, p->r, phase_of(p, h - 1)),
							.imm = 1 });
		if (!sends)
			continue;
		put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ACQUIRE,
						.sem = sem_credit(p, p->r, p->right), .imm = 1 });
		put(p, (struct drm_ccore_insn){
			.opcode = ph == PH_FIRST ? DRM_CCORE_OP_START : DRM_CCORE_OP_STARTI,
			.engine = (uint8_t)p->engine, .ring = (uint8_t)p->which[ph],
			.reg = ph == PH_FIRST ? 0 : REG_BLOCK,
			.imm = per_slice(ph) });
	}
}

static void set_block(struct ring_prog *p, uint32_t h)
{
	put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_MOVI, .reg = REG_BLOCK,
					.imm = block_of(p, h) });
}

/*
 * Hops [@h0, @h1) of phase @ph: the first one as is (it receives the
 * phase before), then one loop per run whose block counts down without
 * wrapping.
 */
static void phase(struct ring_prog *p, enum phase ph, uint32_t h0, uint32_t h1)
{
	if (ph != PH_FIRST)
		set_block(p, h0);
	hop(p, h0);
	for (uint32_t h = h0 + 1, len; h < h1; h += len) {
		uint32_t top;

		len = block_of(p, h) + 1;	/* down to block 0, then it wraps */
		len = len < h1 - h ? len : h1 - h;
		set_block(p, h);
		if (len == 1) {
			hop(p, h);
			continue;
		}
		put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_MOVI, .reg = REG_HOPS,
						.imm = len });
		top = p->im.ninsns;
		hop(p, h);
		put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ADDI, .reg = REG_BLOCK,
						.imm = UINT32_MAX });
		put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_LOOP, .reg = REG_HOPS,
						.target = (int32_t)top - (int32_t)p->im.ninsns });
	}
}

static void program(struct ring_prog *p)
{
	uint32_t n = p->n, first_rs = 0;

	put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_SET,
					.sem = lower_sem_local(p->c->ranks[p->r].sems) });
	/* the reduce-scatter receives need nothing: all their credits now */
	put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ADD,
					.sem = sem_credit(p, p->left, p->r),
					.imm = (n - 1) * p->slices });
	if (!p->in_place) {
		phase(p, PH_FIRST, 0, 1);
		first_rs = 1;
	}
	if (first_rs < n - 1)
		phase(p, PH_RS, first_rs, n - 1);
	phase(p, PH_AG, n - 1, 2 * n - 2);
	hop(p, 2 * n - 2);
	for (int ph = 0; ph < NPHASE; ph++)
		if (p->used[ph])
			put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RWAIT,
							.engine = (uint8_t)p->engine,
							.ring = (uint8_t)p->which[ph] });
	put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RET });
}

static int lower_rank(struct ring_prog *p, struct lowered_rank *out)
{
	const struct lower_ctx *c = p->c;
	uint32_t k = 0;
	int rc = 0;

	/* the next engine after the rank's local one (lower.c) */
	p->engine = (p->r + p->n + 1) % c->engines;
	p->left = (p->r + p->n - 1) % p->n;
	p->right = (p->r + 1) % p->n;
	/* in place hop 0 is like the others; out of place N = 2 has only hop 0 to reduce */
	p->used[PH_FIRST] = !p->in_place;
	p->used[PH_RS] = p->in_place || p->n > 2;
	p->used[PH_AG] = true;
	for (int ph = 0; ph < NPHASE; ph++) {
		if (!p->used[ph])
			continue;
		p->which[ph] = k++;
		rc = rc ?: build_ring(p, (enum phase)ph);
	}
	p->im.ninsns = 0;
	if (!rc)
		program(p);
	if (!rc && p->im.ninsns > p->icap)
		rc = ccore_error(-EFAULT, "ring loops: program of %u instructions overflows %u",
				 p->im.ninsns, p->icap);
	if (!rc)
		rc = lower_load_image(c, p->r, &p->im, out);
	else if (rc == -ENOMEM)
		rc = ccore_error(rc, "ring loops: out of memory");
	for (uint32_t w = 0; w < LOWER_RINGS; w++) {
		free(p->im.ring[w][p->engine].desc);
		p->im.ring[w][p->engine] = (struct lower_ring_image){ 0 };
	}
	return rc;
}

uint32_t ring_loops_fit(const struct cs_shape *s, const struct algo_opts *o, uint32_t engines)
{
	(void)o;
	if (s->coll != CS_ALLREDUCE || s->nranks < 2 || s->count < s->nranks ||
	    s->count % s->nranks || engines > LOWER_MAX_ENGINES)
		return 0;
	/* a ring per phase: hop 0 out of place (unless it is all there is
	 * to reduce-scatter), the reduce-scatter, the all-gather */
	return s->in_place || s->nranks == 2 ? 2 : 3;
}

int ring_lower_loops(const struct cs_shape *s, const struct algo_opts *o,
		     const struct lower_ctx *c, struct lowered **out)
{
	uint32_t slices = o->slices ? o->slices : 1;
	struct ring_prog p = { .c = c, .n = s->nranks, .es = c->elem_size,
			       .blk = s->count / (s->nranks ? s->nranks : 1),
			       .in_place = s->in_place };
	struct lowered *l;
	int rc = 0;

	if (!ring_loops_fit(s, o, c->engines))
		return ccore_error(-EINVAL, "ring loops: this AllReduce does not fit the loop form");
	l = lower_alloc(p.n);
	p.soff = calloc(slices, sizeof(*p.soff));
	p.slen = calloc(slices, sizeof(*p.slen));
	p.icap = 64 + 32 * slices;
	p.im.insns = calloc(p.icap, sizeof(*p.im.insns));
	if (!l || !p.soff || !p.slen || !p.im.insns) {
		rc = ccore_error(-ENOMEM, "ring loops: out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < slices; i++) {
		uint64_t off, len;

		algo_block(p.blk, slices, i, &off, &len);
		if (len) {
			p.soff[p.slices] = off;
			p.slen[p.slices++] = len;
		}
	}
	for (p.r = 0; p.r < p.n && !rc; p.r++) {
		rc = lower_rank(&p, &l->ranks[p.r]);
		l->load_ns += l->ranks[p.r].load_ns;
	}
out:
	free(p.soff);
	free(p.slen);
	free(p.im.insns);
	if (rc && l) {
		lower_release(l, c);
		return rc;
	}
	*out = l;
	return 0;
}
