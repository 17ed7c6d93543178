// SPDX-License-Identifier: MIT
/*
 * Ring collectives lowered in loop form, without a schedule (ring_loop.h).
 *
 * algo_ring forwards one block per hop: at hop h rank m of the ring sends
 * block (m-1-h) mod N (AllGather: (m-h)) to m+1, slice by slice, each slice
 * right after the receive of hop h-1 it forwards.  Reduce-scatter hops
 * REDUCE into the peer's partial sum, all-gather hops COPY.  Lowered step
 * by step that is N-1 or 2N-2 hops x slices sends per rank: at N = 1024
 * and 1 GiB, millions of steps, descriptors and instructions.
 *
 * Here the sends of a phase are templates on an indexed ring (index: the
 * block, stride: a block's bytes), and each run of hops whose block does
 * not wrap is one CC-core loop: REG_BLOCK holds the block, counting down,
 * REG_HOPS the hops left.  Hops whose descriptors fit no stride (hop 0 out
 * of place reads the input, a reduce-scatter's last hop lands in RECV)
 * are written out on a plain ring.  The program is the schedule's lowering
 * rolled up: the same prologue credits, per slice the same receive
 * ACQUIRE, credit ACQUIRE and send, the same credit marker (a SEM_WRITE
 * granting the left rank the all-gather receive of the block) behind each
 * reduce-scatter send of an AllReduce, on the engine the schedule's sends
 * would use.  What differs: a send and its marker start together, and
 * each phase has a ring of its own.  Puts to one peer from different
 * rings may land out of order, so each phase counts its arrivals on a
 * semaphore of its own (enum ring_counter).  Data cannot overtake: an
 * all-gather put of a block waits for the credit the receiver marks
 * behind its own reduce-scatter send of that block, which it starts only
 * after the reduce-scatter put of the block has landed; a reduce-scatter's
 * fixed last hop lands in RECV, which no other hop touches.
 */
#include "ring_loop.h"
#include "ccore_internal.h"

#include <errno.h>
#include <stdlib.h>

#define REG_HOPS 0
#define REG_BLOCK 1
/* Copies of the templates per indexed ring: hops whose sends may be queued
 * before a STARTI waits for a slot. */
#define RING_DEPTH 4

/* A phase: which ring its sends go on. */
enum kind { K_FIXED, K_MAIN, K_AG, NKIND };

struct ring_prog {
	const struct lower_ctx *c;
	uint32_t r, es;
	uint64_t pending;		/* rings left busy: bit engine * LOWER_RINGS + which */
	struct lower_image im;
	uint32_t icap;
};

struct seg_emit {
	struct ring_prog *p;
	const struct ring_seg *sg;
	uint64_t blk;			/* elements per block */
	uint32_t slices;		/* non-empty ones */
	uint64_t *soff, *slen;		/* their offsets and lengths in a block */
	uint32_t hops;			/* hops that send */
	bool used[NKIND];
	uint32_t which[NKIND];		/* ring of each phase: lower_rank.ring[which] */
};

static void put(struct ring_prog *p, struct drm_ccore_insn in)
{
	if (p->im.ninsns < p->icap)
		p->im.insns[p->im.ninsns] = in;
	p->im.ninsns++;		/* past icap: a bug, caught before loading */
}

static uint32_t hops_of(uint8_t coll, uint32_t n)
{
	return coll == CS_ALLREDUCE ? 2 * n - 2 : n - 1;
}

static enum kind kind_of(const struct ring_seg *sg, uint32_t h)
{
	switch (sg->coll) {
	case CS_ALLREDUCE:
		if (h == 0 && !sg->in_place)
			return K_FIXED;
		return h < sg->n - 1 ? K_MAIN : K_AG;
	case CS_REDUCESCATTER:
		return h == 0 || h == sg->n - 2 ? K_FIXED : K_MAIN;
	default:
		return K_MAIN;
	}
}

/*
 * The first hop after @h of another phase (or the hop count): a phase
 * only changes at hop 1, N-2 or N-1, so a program is O(1), not O(N), to
 * build.
 */
static uint32_t kind_end(const struct ring_seg *sg, uint32_t h, uint32_t hops)
{
	const uint32_t at[] = { 1, sg->n - 2, sg->n - 1 };

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++)
		if (at[i] > h && at[i] < hops && kind_of(sg, at[i]) != kind_of(sg, h))
			return at[i];
	return hops;
}

static uint32_t block_of(const struct ring_seg *sg, uint32_t h)
{
	int64_t b = (int64_t)sg->m - (sg->coll == CS_ALLGATHER ? 0 : 1) - h;

	return algo_mod(b, sg->n);
}

/* Descriptors per slice: an AllReduce's reduce-scatter sends carry a marker. */
static uint32_t per_slice(const struct ring_seg *sg, enum kind k)
{
	return sg->coll == CS_ALLREDUCE && k != K_AG ? 2 : 1;
}

static uint32_t counter(const struct seg_emit *s, uint32_t at, enum kind k)
{
	const struct lower_ctx *c = s->p->c;
	enum ring_counter w = k == K_MAIN ? s->sg->cnt_main :
			      k == K_FIXED ? s->sg->cnt_fixed : s->sg->cnt_ag;

	/* named by this rank: acquired here (@at is us) or signalled by our sends */
	if (w == RING_C_SELF)
		return lower_sem_named_by(c, at, at, LOWER_SEM_CREDIT, s->p->r);
	/* the receiver's left in the ring is whoever sends it a phase */
	return lower_sem_named_by(c, at, w == RING_A_SELF ? at :
				  at == s->sg->right ? s->p->r : s->sg->left,
				  LOWER_SEM_ARRIVAL, s->p->r);
}

static uint64_t own(const struct seg_emit *s, uint32_t buf, uint64_t off)
{
	const struct ring_prog *p = s->p;
	const struct cs_ref *ref = &s->sg->own[buf];

	return p->c->ranks[p->r].va[ref->buf] + (ref->off + off) * p->es;
}

static uint64_t theirs(const struct seg_emit *s, uint32_t buf, uint64_t off)
{
	const struct ring_prog *p = s->p;
	const struct cs_ref *ref = &s->sg->theirs[buf];

	return p->c->peer_va(p->c->arg, p->r, s->sg->right, ref->buf) + (ref->off + off) * p->es;
}

/*
 * The descriptors of a hop of phase @k for block @b (0 on an indexed
 * ring): per slice the send, and an AllReduce's credit marker behind it.
 * Hop 0 (@first) reads the input, not the partial sum; a
 * reduce-scatter's last hop (@last) lands in the receiver's RECV.
 */
static struct drm_ccore_desc *hop_descs(const struct seg_emit *s, enum kind k, bool first,
					bool last, uint64_t b, struct drm_ccore_desc *d)
{
	const struct ring_seg *sg = s->sg;
	const struct lower_ctx *c = s->p->c;
	bool copy = sg->coll == CS_ALLGATHER || k == K_AG;
	uint32_t part = sg->coll == CS_REDUCESCATTER ? CS_TMP : CS_RECV;

	for (uint32_t i = 0; i < s->slices; i++) {
		uint64_t at = b * s->blk + s->soff[i];
		struct drm_ccore_desc send = {
			.op = copy ? DRM_CCORE_DESC_COPY : DRM_CCORE_DESC_REDUCE,
			.flags = DRM_CCORE_DESC_F_SIGNAL,
			.signal_sem = counter(s, sg->right, k), .signal_value = 1,
			.len = s->slen[i] * s->p->es,
			.dst = last ? theirs(s, CS_RECV, s->soff[i]) : theirs(s, part, at),
		};

		if (copy) {
			send.src0 = own(s, CS_RECV, at);
			*d++ = send;
			continue;
		}
		send.dtype = (uint8_t)c->dtype;
		send.redop = (uint8_t)c->redop;
		send.src0 = theirs(s, CS_SEND, at);
		send.src1 = own(s, first ? CS_SEND : part, at);
		*d++ = send;
		if (per_slice(sg, k) == 2)
			*d++ = (struct drm_ccore_desc){
				.op = DRM_CCORE_DESC_SEM_WRITE, .value = 1,
				.dst = lower_sem_credit(c, sg->left, s->p->r) };
	}
	return d;
}

/* Phase @k's ring: its hops written out (K_FIXED) or its templates RING_DEPTH times over. */
static int build_ring(struct seg_emit *s, enum kind k)
{
	const struct ring_seg *sg = s->sg;
	struct lower_ring_image *ri = &s->p->im.ring[s->which[k]][sg->engine];
	uint32_t one = s->slices * per_slice(sg, k), copies = 0;
	struct drm_ccore_desc *d, *at;

	/* fixed hops are single ones, between the phases */
	for (uint32_t h = 0; h < s->hops && k == K_FIXED; h = kind_end(sg, h, s->hops))
		copies += (kind_of(sg, h) == K_FIXED) * (kind_end(sg, h, s->hops) - h);
	if (k != K_FIXED)
		copies = RING_DEPTH;
	d = malloc((size_t)one * copies * sizeof(*d));
	if (!d)
		return -ENOMEM;
	at = d;
	for (uint32_t h0 = 0; h0 < s->hops && k == K_FIXED; h0 = kind_end(sg, h0, s->hops))
		for (uint32_t h = h0; h < kind_end(sg, h0, s->hops) && kind_of(sg, h0) == K_FIXED; h++)
			at = hop_descs(s, k, h == 0, sg->coll == CS_REDUCESCATTER && h == sg->n - 2,
				       block_of(sg, h), at);
	/* in place, hop 0's input is where the partial sums go */
	for (uint32_t i = 0; i < copies && k != K_FIXED; i++)
		at = hop_descs(s, k, false, false, 0, at);
	ri->desc = d;
	ri->nd = (uint32_t)(at - d);
	if (k != K_FIXED) {
		ri->index_stride = (int64_t)(s->blk * s->p->es);
		ri->index_count = sg->n;
	}
	return 0;
}

/*
 * Hop @h: per slice, the receive of hop h-1 (h > 0), then, unless it is
 * the last (@h = hops), the credit and the send of block REG_BLOCK.
 */
static void hop(struct seg_emit *s, uint32_t h)
{
	const struct ring_seg *sg = s->sg;
	struct ring_prog *p = s->p;
	enum kind k = kind_of(sg, h);

	for (uint32_t i = 0; i < s->slices; i++) {
		if (h)
			put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ACQUIRE,
							.sem = counter(s, p->r, kind_of(sg, h - 1)),
							.imm = 1 });
		if (h == s->hops)
			continue;
		put(p, (struct drm_ccore_insn){
			.opcode = DRM_CCORE_OP_ACQUIRE,
			.sem = lower_sem_credit(p->c, p->r, sg->right), .imm = 1 });
		put(p, (struct drm_ccore_insn){
			.opcode = k == K_FIXED ? DRM_CCORE_OP_START : DRM_CCORE_OP_STARTI,
			.engine = (uint8_t)sg->engine, .ring = (uint8_t)s->which[k],
			.reg = k == K_FIXED ? 0 : REG_BLOCK, .imm = per_slice(sg, k) });
	}
}

static void set_block(struct seg_emit *s, uint32_t h)
{
	put(s->p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_MOVI, .reg = REG_BLOCK,
					   .imm = block_of(s->sg, h) });
}

/*
 * Hops [@h0, @h1), all of one indexed phase: the first one as is (it
 * receives what the phase before sent), then one loop per run whose block
 * counts down without wrapping.
 */
static void indexed_run(struct seg_emit *s, uint32_t h0, uint32_t h1)
{
	set_block(s, h0);
	hop(s, h0);
	for (uint32_t h = h0 + 1, len; h < h1; h += len) {
		uint32_t top;

		len = block_of(s->sg, h) + 1;	/* down to block 0, then it wraps */
		len = len < h1 - h ? len : h1 - h;
		set_block(s, h);
		if (len == 1) {
			hop(s, h);
			continue;
		}
		put(s->p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_MOVI, .reg = REG_HOPS,
						   .imm = len });
		top = s->p->im.ninsns;
		hop(s, h);
		put(s->p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ADDI, .reg = REG_BLOCK,
						   .imm = UINT32_MAX });
		put(s->p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_LOOP, .reg = REG_HOPS,
						   .target = (int32_t)top - (int32_t)s->p->im.ninsns });
	}
}

static void segment(struct seg_emit *s)
{
	const struct ring_seg *sg = s->sg;
	struct ring_prog *p = s->p;
	/* receives that wait for nothing: an AllReduce's all-gather ones are
	 * granted by the markers */
	uint32_t free = (sg->n - 1) * s->slices;

	put(p, (struct drm_ccore_insn){
		.opcode = DRM_CCORE_OP_ADD,
		.sem = lower_sem_credit(p->c, sg->left, p->r),
		.imm = free });
	for (uint32_t h0 = 0, h1; h0 < s->hops; h0 = h1) {
		enum kind k = kind_of(sg, h0);

		h1 = kind_end(sg, h0, s->hops);
		if (k == K_FIXED)
			for (uint32_t h = h0; h < h1; h++)
				hop(s, h);
		else
			indexed_run(s, h0, h1);
	}
	hop(s, s->hops);
	/* the next segment's credits must not let a put meet this one's reads */
	for (int k = 0; k < NKIND; k++)
		if (s->used[k] && !sg->drain_late)
			put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RWAIT,
							.engine = (uint8_t)sg->engine,
							.ring = (uint8_t)s->which[k] });
		else if (s->used[k])
			p->pending |= 1ull << (sg->engine * LOWER_RINGS + s->which[k]);
}

/* Drain the rings of drain_late segments on @engine (every engine: ~0u). */
static void drain_pending(struct ring_prog *p, uint32_t engine)
{
	for (uint32_t e = 0; e < LOWER_MAX_ENGINES; e++)
		for (uint32_t w = 0; w < LOWER_RINGS; w++) {
			uint64_t bit = 1ull << (e * LOWER_RINGS + w);

			if (!(p->pending & bit) || (engine != ~0u && e != engine))
				continue;
			put(p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RWAIT,
							.engine = (uint8_t)e, .ring = (uint8_t)w });
			p->pending &= ~bit;
		}
}

static int emit_segment(struct ring_prog *p, const struct ring_seg *sg, uint32_t slices)
{
	struct seg_emit s = { .p = p, .sg = sg, .hops = hops_of(sg->coll, sg->n) };
	uint32_t next = sg->first_ring;
	int rc = 0;

	s.blk = sg->coll == CS_ALLREDUCE ? sg->count / sg->n : sg->count;
	s.soff = calloc(slices, sizeof(*s.soff));
	s.slen = calloc(slices, sizeof(*s.slen));
	if (!s.soff || !s.slen) {
		rc = -ENOMEM;
		goto out;
	}
	s.slices = algo_slices(s.blk, slices, s.soff, s.slen);
	for (uint32_t h = 0; h < s.hops; h = kind_end(sg, h, s.hops))
		s.used[kind_of(sg, h)] = true;
	for (int k = 0; k < NKIND && !rc; k++)
		if (s.used[k]) {
			s.which[k] = next++;
			rc = build_ring(&s, (enum kind)k);
		}
	if (!rc)
		segment(&s);
out:
	free(s.soff);
	free(s.slen);
	return rc;
}

uint32_t ring_seg_rings(uint8_t coll, uint32_t n, uint64_t count, bool in_place)
{
	if (n < 2 || !count)
		return 0;
	switch (coll) {
	case CS_ALLREDUCE:
		if (count < n || count % n)
			return 0;	/* blocks of unequal size */
		return in_place || n == 2 ? 2 : 3;
	case CS_REDUCESCATTER:
		return n >= 4 ? 2 : 1;
	case CS_ALLGATHER:
		return in_place ? 1 : 0;	/* out of place copies its own block first */
	default:
		return 0;
	}
}

uint64_t ring_seg_tmp(uint8_t coll, uint32_t n, uint64_t count)
{
	return coll == CS_REDUCESCATTER ? count * n : 0;
}

/* Rank @r's program of @nseg segments, built into @im (lower_image_free()). */
static int ring_loop_build(const struct lower_ctx *c, uint32_t r, const struct ring_seg *seg,
			   uint32_t nseg, uint32_t slices, struct lower_image *im)
{
	struct ring_prog p = { .c = c, .r = r, .es = c->elem_size };
	int rc = 0;

	p.icap = 8 + nseg * (40 * slices + 40);
	p.im.insns = calloc(p.icap, sizeof(*p.im.insns));
	if (!p.im.insns)
		return ccore_error(-ENOMEM, "ring loops: out of memory");
	put(&p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_SET,
					 .sem = lower_sem_local(c, r) });
	for (uint32_t i = 0; i < nseg && !rc; i++) {
		drain_pending(&p, seg[i].engine);
		rc = emit_segment(&p, &seg[i], slices);
	}
	drain_pending(&p, ~0u);
	put(&p, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RET });
	if (rc)
		rc = ccore_error(rc, "ring loops: out of memory");
	else if (p.im.ninsns > p.icap)
		rc = ccore_error(-EFAULT, "ring loops: program of %u instructions overflows %u",
				 p.im.ninsns, p.icap);
	*im = p.im;
	if (rc)
		lower_image_free(im);
	return rc;
}

/* Rank @r's program of @nseg segments, built and loaded into @out. */
static int ring_loop_rank(const struct lower_ctx *c, uint32_t r, const struct ring_seg *seg,
			  uint32_t nseg, uint32_t slices, struct lowered_rank *out)
{
	struct lower_image im = { 0 };
	int rc = ring_loop_build(c, r, seg, nseg, slices, &im);

	if (!rc)
		rc = lower_load_image(c, r, &im, out);
	lower_image_free(&im);
	return rc;
}

/* --- ring AllReduce ------------------------------------------------------------ */

/* It takes the schedule's time (ring_loop_test): it always pays. */
uint32_t ring_loops_fit(const struct cs_shape *s, const struct algo_opts *o, uint32_t engines,
			bool always, uint64_t *tmp_count)
{
	(void)o;
	(void)always;
	*tmp_count = 0;
	if (s->coll != CS_ALLREDUCE || engines > LOWER_MAX_ENGINES)
		return 0;
	return ring_seg_rings(CS_ALLREDUCE, s->nranks, s->count, s->in_place);
}

int ring_loop_lower(const struct lower_ctx *c, uint32_t slices, ring_loop_segs_fn *segs,
		    const void *arg, struct lowered **out)
{
	struct lowered *l = lower_alloc(c->nranks);
	int rc = 0;

	if (!l)
		return ccore_error(-ENOMEM, "ring loops: out of memory");
	for (uint32_t r = 0; r < c->nranks && !rc; r++) {
		struct ring_seg seg[RING_LOOP_MAX_SEGS];

		rc = ring_loop_rank(c, r, seg, segs(arg, r, seg), slices, &l->ranks[r]);
		l->load_ns += l->ranks[r].load_ns;
	}
	if (rc) {
		lower_release(l, c);
		return rc;
	}
	*out = l;
	return 0;
}

/*
 * Ring AllReduce as one segment: what algo_ring's loop form was before the
 * one lowering took it over (ring_gen_rolled()), kept while hier_loop.c
 * still builds on this file, for lower_loops_test to compare against.
 */
struct ring_job {
	const struct cs_shape *s;
	uint32_t engines;
};

/* Rank @r of the ring is the one segment of its program. */
static uint32_t ring_segs(const void *arg, uint32_t r, struct ring_seg *seg)
{
	const struct ring_job *j = arg;
	uint32_t n = j->s->nranks;

	seg[0] = (struct ring_seg){
		.coll = CS_ALLREDUCE, .in_place = j->s->in_place, .n = n, .m = r,
		.left = (r + n - 1) % n, .right = (r + 1) % n, .count = j->s->count,
		/* the next engine after the rank's local one, as lower.c */
		.engine = (r + n + 1) % j->engines,
		.own = { cs_at(CS_SEND, 0), cs_at(CS_RECV, 0), cs_at(CS_TMP, 0) },
		.theirs = { cs_at(CS_SEND, 0), cs_at(CS_RECV, 0), cs_at(CS_TMP, 0) },
		.cnt_main = RING_A_LEFT, .cnt_fixed = RING_A_SELF, .cnt_ag = RING_C_SELF,
	};
	return 1;
}

int ring_loop_image(const struct cs_shape *s, const struct algo_opts *o,
		    const struct lower_ctx *c, uint32_t r, struct lower_image *im)
{
	struct ring_job j = { s, c->engines };
	struct ring_seg seg[RING_LOOP_MAX_SEGS];
	uint64_t tmp;

	if (!ring_loops_fit(s, o, c->engines, true, &tmp))
		return ccore_error(-EINVAL, "ring loops: this AllReduce does not fit the loop form");
	return ring_loop_build(c, r, seg, ring_segs(&j, r, seg), o->slices ? o->slices : 1, im);
}

int ring_loop_segs_image(const struct lower_ctx *c, uint32_t slices, ring_loop_segs_fn *segs,
			 const void *arg, uint32_t r, struct lower_image *im)
{
	struct ring_seg seg[RING_LOOP_MAX_SEGS];

	return ring_loop_build(c, r, seg, segs(arg, r, seg), slices, im);
}
