// SPDX-License-Identifier: MIT
/*
 * Lowering a schedule's repeats into CC-core loops over indexed
 * descriptors (lower.h).  A repeat's sends travel on its lane (struct
 * cs_repeat): an indexed lane's ring holds one iteration's descriptors
 * at index 0, RING_DEPTH times over (hops whose sends may be queued
 * before a STARTI waits for a slot), with a stride of one index's bytes;
 * a plain lane's holds every send written out.  Register REG_INDEX holds
 * the index, REG_HOPS the iterations left; consecutive repeats whose
 * bodies lower alike and whose index goes on without a jump (a ring's
 * block wraps from 0 to N-1) are one loop:
 *
 *   movi  r1, INDEX ; movi r0, HOPS
 *   top:  <body: per receive an ACQUIRE of its lane's counter, per send
 *          an ACQUIRE of its credit and a STARTI of its descriptors>
 *         addi r1, -1 ; loop r0, top
 *
 * The credit protocol is lower.c's: a receive without dependencies is
 * granted in the prologue, one whose dependencies are sends on one engine
 * by a SEM_WRITE marker behind the latest (which every iteration of that
 * send must carry alike), per peer the marked ones last.  What differs,
 * and is why lanes exist: puts to one peer from different rings may land
 * out of order, so each lane counts arrivals on a semaphore of its own
 * (enum cs_count) and a receive acquires the counter of the lane its
 * sender used.  A lane is a ring index on the engine of its sends' peer.
 * Receives that wait for fixed iterations (a phase after the one before,
 * cs.h) are granted between repeats, right after their last dependency,
 * a receive ending its repeat: first an RWAIT of every ring whose sends
 * they name (with every ring that sent to that peer before), then one
 * ADD per peer.  Schedules this does not take (a local step, a send that
 * waits) lower_schedule() writes out.
 */
#include "lower_loops.h"
#include "ccore_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int loop_unsupported(struct loop_emit *e)
{
	e->rc = e->rc ?: -EOPNOTSUPP;
	return e->rc;
}

static void put(struct loop_emit *e, struct drm_ccore_insn in)
{
	if (e->ni == e->icap) {
		uint32_t cap = e->icap ? e->icap * 2 : 64;
		struct drm_ccore_insn *p = realloc(e->insn, cap * sizeof(*p));

		if (!p) {
			e->rc = e->rc ?: -ENOMEM;
			return;
		}
		e->insn = p;
		e->icap = cap;
	}
	e->insn[e->ni++] = in;
}

static void put_desc(struct loop_emit *e, struct lane *l, const struct drm_ccore_desc *d)
{
	if (l->nd == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 16;
		struct drm_ccore_desc *p = realloc(l->desc, cap * sizeof(*p));

		if (!p) {
			e->rc = e->rc ?: -ENOMEM;
			return;
		}
		l->desc = p;
		l->cap = cap;
	}
	l->desc[l->nd++] = *d;
}

uint32_t loop_engine_of(struct loop_emit *e, uint32_t peer)
{
	const struct lower_ctx *c = e->c;
	uint32_t local = (e->r + c->nranks) % c->engines;

	for (uint32_t i = 0; i < e->npeers; i++)
		if (e->peers_by_engine[i] == peer)
			return (local + 1 + i) % c->engines;
	return ~0u;
}

/* The lane of repeat @rp's sends: its ring on their peer's engine; NULL: it sends none. */
static struct lane *lane_of(struct loop_emit *e, const struct cs_repeat *rp)
{
	for (uint32_t t = rp->first; t < rp->first + rp->len; t++)
		if (e->rk->steps[t].op == CS_SEND_OP) {
			uint32_t eng = loop_engine_of(e, e->rk->steps[t].peer);

			return eng < LOWER_MAX_ENGINES ? &e->lane[rp->lane][eng] : NULL;
		}
	return NULL;
}

static struct peer_streams *streams(struct loop_emit *e, uint32_t peer, bool sends)
{
	struct peer_streams *ps = sends ? e->to : e->from;
	uint32_t *np = sends ? &e->nto : &e->nfrom;

	for (uint32_t i = 0; i < *np; i++)
		if (ps[i].peer == peer)
			return &ps[i];
	if (*np == MAX_PEERS) {
		loop_unsupported(e);
		return NULL;
	}
	ps += (*np)++;
	ps->peer = peer;
	ps->ours = cs_streams_find(e->ix, e->r, sends, peer);
	ps->theirs = cs_streams_find(e->ix, peer, !sends, e->r);
	ps->hint = 0;
	if (!ps->ours || !ps->theirs) {
		e->rc = -ENOMEM;
		return NULL;
	}
	return ps;
}

/*
 * The other end of transfer template @t's iteration @k: its rank's
 * template, iteration and repeat (NULL: none).
 */
static bool other_end(struct loop_emit *e, uint32_t t, uint64_t k, uint32_t *ot, uint64_t *ok,
		      const struct cs_repeat **orp)
{
	const struct cs_step *st = &e->rk->steps[t];
	struct peer_streams *ps = streams(e, st->peer, st->op == CS_SEND_OP);
	uint64_t ord;
	uint32_t rep;

	if (!ps)
		return false;
	ord = cs_stream_ordinal(ps->ours, t, k);
	if (ord == UINT64_MAX || !cs_stream_at(ps->theirs, ord, ot, ok, &rep, &ps->hint))
		return false;
	*orp = rep == ~0u ? NULL : &cs_rank_get(e->s, st->peer)->reps[rep];
	return true;
}

/* Semaphore @kind of rank @r for @peer, named by @user: lower_ctx.sem, asked once. */
static uint32_t sem_of(struct loop_emit *e, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
		       uint32_t user)
{
	uint32_t sem;

	for (uint32_t i = 0; i < e->nsems; i++)
		if (e->sems[i].r == r && e->sems[i].peer == peer && e->sems[i].kind == kind &&
		    e->sems[i].user == user)
			return e->sems[i].sem;
	sem = lower_sem_named_by(e->c, r, peer, kind, user);
	if (e->nsems < MAX_MEMO)
		e->sems[e->nsems++] = (struct sem_memo){ r, peer, kind, user, sem };
	return sem;
}

/* C(@peer) of rank @r, as lower_sem_credit() names it. */
static uint32_t credit_sem(struct loop_emit *e, uint32_t r, uint32_t peer)
{
	return sem_of(e, r, peer, LOWER_SEM_CREDIT, peer);
}

/* The counter of arrivals over lane count @w from @from to @to, named by @user. */
static uint32_t counter(struct loop_emit *e, uint32_t to, uint32_t from, uint8_t w, uint32_t user)
{
	if (w == CS_COUNT_SELF_C)
		return sem_of(e, to, to, LOWER_SEM_CREDIT, user);
	return sem_of(e, to, w == CS_COUNT_SELF_A ? to : from, LOWER_SEM_ARRIVAL, user);
}

/* The lane count of the send that receive @t's iteration @k meets. */
static int sender_count(struct loop_emit *e, uint32_t t, uint64_t k)
{
	const struct cs_repeat *rp;
	uint32_t st;
	uint64_t sk_iter;

	if (!other_end(e, t, k, &st, &sk_iter, &rp) || !rp)
		return -1;
	return rp->count;
}

static uint64_t own(const struct loop_emit *e, struct cs_ref ref)
{
	return e->c->ranks[e->r].va[ref.buf] + ref.off * e->es;
}

static uint64_t theirs(struct loop_emit *e, uint32_t q, struct cs_ref ref)
{
	uint64_t va;
	uint32_t i;

	for (i = 0; i < e->nvas; i++)
		if (e->vas[i].q == q && e->vas[i].buf == ref.buf)
			return e->vas[i].va + ref.off * e->es;
	va = e->c->peer_va(e->c->arg, e->r, q, ref.buf);
	if (e->nvas < MAX_MEMO)
		e->vas[e->nvas++] = (struct va_memo){ q, ref.buf, va };
	return va + ref.off * e->es;
}

/*
 * Send template @t's descriptors at iteration @k (the send, its markers)
 * into @d; how many.  Of the steps only the refs used are moved to their
 * iteration (cs_instance_ref()): the receive is the peer's, seldom in
 * cache, and its refs lie at the start of it.
 */
static uint32_t send_descs(struct loop_emit *e, const struct cs_repeat *rp, uint32_t t,
			   uint64_t k, struct drm_ccore_desc *d)
{
	const struct lower_ctx *c = e->c;
	const struct cs_step *st = &e->rk->steps[t], *rv;
	const struct cs_repeat *urp;
	uint32_t u, n = 0, peer = cs_instance_peer(st->peer, rp, e->n, k);
	struct cs_ref src = cs_instance_ref(rp, st->src, k);
	uint64_t ku;

	if (!other_end(e, t, k, &u, &ku, &urp)) {
		loop_unsupported(e);
		return 0;
	}
	rv = &cs_rank_get(e->s, peer)->steps[u];
	d[n] = (struct drm_ccore_desc){
		.flags = DRM_CCORE_DESC_F_SIGNAL,
		.signal_sem = counter(e, peer, e->r, rp->count, e->r), .signal_value = 1,
		.len = st->count * e->es,
		.dst = theirs(e, peer, cs_instance_ref(urp, rv->dst, ku)),
	};
	if (rv->op == CS_RECV_OP) {
		d[n].op = DRM_CCORE_DESC_COPY;
		d[n].src0 = own(e, src);
	} else {
		d[n].op = DRM_CCORE_DESC_REDUCE;
		d[n].dtype = (uint8_t)c->dtype;
		d[n].redop = (uint8_t)c->redop;
		d[n].src0 = theirs(e, peer, cs_instance_ref(urp, rv->src, ku));
		d[n].src1 = own(e, src);
	}
	for (n = 1; n <= e->marks[t]; n++)
		d[n] = (struct drm_ccore_desc){ .op = DRM_CCORE_DESC_SEM_WRITE, .value = 1,
						.dst = credit_sem(e, e->mark_peer[t], e->r) };
	return n;
}

/* The index of @rp's iteration 0 on its lane, and the lane's unit, from its first send. */
static bool index_of(struct loop_emit *e, const struct cs_repeat *rp, int64_t *index0,
		     int64_t *unit, uint32_t *count)
{
	for (uint32_t t = rp->first; t < rp->first + rp->len; t++) {
		const struct cs_step *st = &e->rk->steps[t];
		int64_t s = rp->stride[st->src.buf];
		uint64_t size = st->src.buf == CS_SEND ? cs_send_count(&e->s->shape) :
				st->src.buf == CS_RECV ? cs_recv_count(&e->s->shape) : e->s->tmp_count;

		if (st->op != CS_SEND_OP)
			continue;
		if (!s)
			return false;
		*unit = s < 0 ? -s : s;
		if (st->src.off < rp->index_origin || rp->index_origin > size)
			return false;
		*index0 = (int64_t)((st->src.off - rp->index_origin) / (uint64_t)*unit);
		*count = rp->index_count ? rp->index_count :
			 (uint32_t)((size - rp->index_origin + (uint64_t)*unit - 1) / (uint64_t)*unit);
		return true;
	}
	return false;
}

/* Room for @n descriptors in e->scratch, or NULL. */
static struct drm_ccore_desc *scratch(struct loop_emit *e, uint32_t n)
{
	if (n > e->scap) {
		struct drm_ccore_desc *p = realloc(e->scratch, n * sizeof(*p));

		if (!p) {
			e->rc = e->rc ?: -ENOMEM;
			return NULL;
		}
		e->scratch = p;
		e->scap = n;
	}
	memset(e->scratch, 0, n * sizeof(*e->scratch));
	return e->scratch;
}

/* Subtract @index whole units from the addresses of @d's data descriptors. */
static void shift(struct drm_ccore_desc *d, uint32_t n, int64_t bytes)
{
	for (uint32_t i = 0; i < n; i++) {
		if (d[i].op != DRM_CCORE_DESC_COPY && d[i].op != DRM_CCORE_DESC_REDUCE)
			continue;
		d[i].dst -= (uint64_t)bytes;
		d[i].src0 -= (uint64_t)bytes;
		if (d[i].op == DRM_CCORE_DESC_REDUCE)
			d[i].src1 -= (uint64_t)bytes;
	}
}

/* One iteration's descriptors of @rp at @k, shifted to index 0 by @bytes. */
static uint32_t iteration_descs(struct loop_emit *e, const struct cs_repeat *rp, uint64_t k,
				int64_t bytes, struct drm_ccore_desc *d)
{
	uint32_t n = 0;

	for (uint32_t t = rp->first; t < rp->first + rp->len && !e->rc; t++)
		if (e->rk->steps[t].op == CS_SEND_OP)
			n += send_descs(e, rp, t, k, d + n);
	shift(d, n, bytes);
	return n;
}

static uint32_t descs_per_iteration(const struct loop_emit *e, const struct cs_repeat *rp)
{
	uint32_t n = 0;

	for (uint32_t t = rp->first; t < rp->first + rp->len; t++)
		if (e->rk->steps[t].op == CS_SEND_OP)
			n += 1 + e->marks[t];
	return n;
}

/* The body's instructions for one iteration, into e->insn. */
static void body(struct loop_emit *e, const struct cs_repeat *rp)
{

	for (uint32_t t = rp->first; t < rp->first + rp->len && !e->rc; t++) {
		const struct cs_step *st = &e->rk->steps[t];
		int w;

		if (st->op != CS_SEND_OP) {
			w = sender_count(e, t, 0);
			/* every iteration must meet the same lane */
			if (w < 0 || (rp->times > 1 && w != sender_count(e, t, rp->times - 1))) {
				loop_unsupported(e);
				return;
			}
			put(e, (struct drm_ccore_insn){
				.opcode = DRM_CCORE_OP_ACQUIRE,
				.sem = counter(e, e->r, st->peer, (uint8_t)w, e->r), .imm = 1 });
			continue;
		}
		put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ACQUIRE,
						.sem = credit_sem(e, e->r, st->peer), .imm = 1 });
		put(e, (struct drm_ccore_insn){
			.opcode = rp->indexed ? DRM_CCORE_OP_STARTI : DRM_CCORE_OP_START,
			.engine = (uint8_t)loop_engine_of(e, st->peer), .ring = rp->lane,
			.reg = rp->indexed ? REG_INDEX : 0, .imm = 1 + e->marks[t] });
	}
}

static void flush(struct loop_emit *e)
{
	struct group *g = &e->g;
	uint32_t top;

	if (!g->open)
		return;
	g->open = false;
	put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_MOVI, .reg = REG_INDEX,
					.imm = (uint32_t)g->index0 });
	if (g->hops > 1)
		put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_MOVI, .reg = REG_HOPS,
						.imm = g->hops });
	top = e->ni;
	for (uint32_t i = 0; i < g->nbody; i++)
		put(e, g->body[i]);
	if (g->hops > 1) {
		put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ADDI, .reg = REG_INDEX,
						.imm = (uint32_t)g->dir });
		put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_LOOP, .reg = REG_HOPS,
						.target = (int32_t)top - (int32_t)e->ni });
	}
}

/* Repeat @rp on an indexed lane: its template checked, its iterations joined to the loop. */
static void indexed_repeat(struct loop_emit *e, const struct cs_repeat *rp)
{
	struct lane *l = lane_of(e, rp);
	uint32_t per = descs_per_iteration(e, rp), nb, at = e->ni;
	struct drm_ccore_desc *d = scratch(e, 2 * per + 2);
	int64_t index0, unit, dir = rp->stride[e->rk->steps[rp->first].src.buf] < 0 ? -1 : 1;
	uint32_t count;

	if (!d)
		return;
	if (!l || !index_of(e, rp, &index0, &unit, &count) || (l->templated && l->unit != unit)) {
		loop_unsupported(e);
		return;
	}
	/* the first and the last iteration at index 0 alike: affine between */
	nb = iteration_descs(e, rp, 0, index0 * unit * e->es, d);
	if (rp->times > 1)
		iteration_descs(e, rp, rp->times - 1,
				(index0 + dir * (rp->times - 1)) * unit * e->es, d + per);
	if (!e->rc && (nb != per || (rp->times > 1 && memcmp(d, d + per, per * sizeof(*d))) ||
		       (l->templated && memcmp(d, l->desc, per * sizeof(*d))) ||
		       (l->templated && l->index_count != count)))
		loop_unsupported(e);
	if (!e->rc && !l->templated) {
		for (uint32_t i = 0; i < RING_DEPTH; i++)
			for (uint32_t j = 0; j < per; j++)
				put_desc(e, l, &d[j]);
		l->templated = true;
		l->unit = unit;
		l->index_count = count;
	}
	/* the body, compared with the loop's */
	body(e, rp);
	nb = e->ni - at;
	if (e->g.open && (e->g.lane != l || e->g.next != index0 || e->g.nbody != nb ||
			  memcmp(e->g.body, e->insn + at, nb * sizeof(*e->insn))))
		goto new_group;
	if (e->g.open) {
		e->ni = at;
		e->g.hops += rp->times;
		e->g.next = index0 + dir * rp->times;
		return;
	}
new_group:
	{
		struct drm_ccore_insn *b = malloc((nb ? nb : 1) * sizeof(*b));

		if (!b) {
			e->rc = e->rc ?: -ENOMEM;
			return;
		}
		memcpy(b, e->insn + at, nb * sizeof(*b));
		e->ni = at;
		flush(e);
		free(e->g.body);
		e->g = (struct group){ .open = true, .lane = l, .hops = rp->times,
				       .index0 = index0, .next = index0 + dir * rp->times,
				       .dir = dir, .body = b, .nbody = nb };
	}
}

/* Repeat @rp written out (a plain lane, or no sends). */
static void plain_repeat(struct loop_emit *e, const struct cs_repeat *rp)
{
	struct lane *l = lane_of(e, rp);
	uint32_t per = descs_per_iteration(e, rp);
	struct drm_ccore_desc *d = scratch(e, per + 1);

	if (!d)
		return;
	if (per && !l) {
		loop_unsupported(e);
		return;
	}
	flush(e);
	for (uint64_t k = 0; k < rp->times && !e->rc; k++) {
		uint32_t nd = iteration_descs(e, rp, k, 0, d);

		for (uint32_t j = 0; j < nd; j++)
			put_desc(e, l, &d[j]);
		body(e, rp);
	}
}

static int by_peer(const void *x, const void *y)
{
	const struct peer_credit *a = x, *b = y;

	return a->peer < b->peer ? -1 : a->peer > b->peer;
}

/* Before repeat @i: the rings to drain, then per peer (in @pc's order) one grant of credits. */
static void between(struct loop_emit *e, uint32_t i, const struct peer_credit *pc, uint32_t npc)
{
	bool any = false;

	for (uint32_t d = 0; d < e->ndrains; d++)
		any |= e->drains[d].before == i;
	for (uint32_t g = 0; g < e->ngrants; g++)
		any |= e->grants[g].before == i;
	if (!any)
		return;
	flush(e);
	for (uint32_t d = 0; d < e->ndrains; d++) {
		const struct drain *dr = &e->drains[d];

		if (dr->before != i)
			continue;
		put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RWAIT,
						.engine = (uint8_t)dr->engine, .ring = (uint8_t)dr->ring });
		e->lane[dr->ring][dr->engine].drained = true;
	}
	for (uint32_t p = 0; p < npc; p++) {
		uint32_t n = 0;

		for (uint32_t g = 0; g < e->ngrants; g++)
			if (e->grants[g].before == i && e->grants[g].peer == pc[p].peer)
				n += e->grants[g].n;
		if (n)
			put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ADD,
							.sem = credit_sem(e, pc[p].peer, e->r),
							.imm = n });
	}
}

static int emit_rank(struct loop_emit *e)
{
	const struct cs_rank *rk = e->rk;
	const struct lower_ctx *c = e->c;
	struct peer_credit pc[MAX_PEERS];
	uint32_t npc = 0, ri = 0;

	size_t nt = rk->n + 1, need = nt * (sizeof(*e->rep) + sizeof(*e->marks) +
					    sizeof(*e->mark_peer));

	if (need > e->work_size) {
		void *p = realloc(e->work, need);

		if (!p)
			return -ENOMEM;
		e->work = p;
		e->work_size = need;
	}
	e->rep = e->work;
	e->marks = (uint32_t *)(e->rep + nt);
	e->mark_peer = e->marks + nt;
	memset(e->marks, 0, nt * sizeof(*e->marks));
	memset(e->mark_peer, 0xff, nt * sizeof(*e->mark_peer));
	/* loop form: only transfers, all in repeats, sends that wait for nothing */
	for (uint32_t t = 0; t < rk->n && !e->rc; t++) {
		const struct cs_step *st = &rk->steps[t];
		const struct cs_repeat *rp = e->rep[t] = cs_repeat_walk(rk, t, &ri);

		if (!rp || rp->peer_stride || rp->lane >= LOWER_RINGS || st->staged ||
		    st->op < CS_SEND_OP || st->op > CS_RECV_REDUCE ||
		    (st->op == CS_SEND_OP && st->ndeps))
			loop_unsupported(e);
		/* its credits to another host's ranks would be descriptors */
		if (st->op >= CS_SEND_OP && st->op <= CS_RECV_REDUCE && lower_remote(c, e->r, st->peer))
			loop_unsupported(e);
		if (st->op == CS_SEND_OP && loop_engine_of(e, st->peer) == ~0u) {
			if (e->npeers == MAX_PEERS)
				loop_unsupported(e);
			else
				e->peers_by_engine[e->npeers++] = st->peer;
		}
	}
	if (!e->rc && !c->credits_by_desc)
		loop_plan_credits(e, pc, &npc);
	else
		loop_unsupported(e);
	for (uint32_t t = 0; t < rk->n && !e->rc; t++) {
		const struct cs_repeat *rp = e->rep[t];
		uint32_t eng;
		struct lane *l;

		if (rk->steps[t].op != CS_SEND_OP)
			continue;
		eng = loop_engine_of(e, rk->steps[t].peer);
		l = &e->lane[rp->lane][eng];
		if (l->used && l->indexed != rp->indexed)
			loop_unsupported(e);
		l->used = true;
		l->engine = eng;
		l->indexed = rp->indexed;
	}
	put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_SET, .sem = lower_sem_local(c, e->r) });
	qsort(pc, npc, sizeof(*pc), by_peer);
	for (uint32_t i = 0; i < npc && !e->rc; i++)
		if (pc[i].free)
			put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ADD,
							.sem = credit_sem(e, pc[i].peer, e->r),
							.imm = pc[i].free });
	for (uint32_t i = 0; i < rk->nreps && !e->rc; i++) {
		const struct cs_repeat *rp = &rk->reps[i];
		const struct lane *l;

		between(e, i, pc, npc);
		l = lane_of(e, rp);
		if (l && l->drained)	/* a drained ring takes no more sends */
			loop_unsupported(e);
		else if (rp->indexed && descs_per_iteration(e, rp))
			indexed_repeat(e, rp);
		else
			plain_repeat(e, rp);
	}
	flush(e);
	for (uint32_t w = 0; w < LOWER_RINGS; w++)
		for (uint32_t eng = 0; eng < LOWER_MAX_ENGINES; eng++)
			if (e->lane[w][eng].used && !e->lane[w][eng].drained)
				put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RWAIT,
								.engine = (uint8_t)eng,
								.ring = (uint8_t)w });
	put(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RET });
	return e->rc;
}

void lower_image_free(struct lower_image *im)
{
	for (uint32_t w = 0; w < LOWER_RINGS; w++)
		for (uint32_t eng = 0; eng < LOWER_MAX_ENGINES; eng++)
			free(im->ring[w][eng].desc);
	free(im->insns);
	free(im->work);
	free(im->scratch);
	memset(im, 0, sizeof(*im));
}

int lower_loops_image(const struct cs_sched *s, struct cs_streams *ix,
		      const struct lower_ctx *c, uint32_t r, struct lower_image *im)
{
	struct loop_emit e = { .s = s, .ix = ix, .c = c, .rk = cs_rank_get(s, r), .r = r,
			       .n = s->shape.nranks, .es = c->elem_size,
			       .insn = im->insns, .icap = im->insn_cap,
			       .scratch = im->scratch, .scap = im->scratch_cap,
			       .work = im->work, .work_size = im->work_size };
	int rc;

	for (uint32_t w = 0; w < LOWER_RINGS; w++)
		for (uint32_t eng = 0; eng < LOWER_MAX_ENGINES; eng++) {
			e.lane[w][eng].desc = im->ring[w][eng].desc;
			e.lane[w][eng].cap = im->ring[w][eng].cap;
		}
	memset(im, 0, sizeof(*im));
	if (c->engines == 0 || c->engines > LOWER_MAX_ENGINES)
		rc = -EOPNOTSUPP;
	else
		rc = emit_rank(&e);
	free(e.grants);
	free(e.drains);
	free(e.g.body);
	im->insns = e.insn;
	im->ninsns = e.ni;
	im->insn_cap = e.icap;
	im->work = e.work;
	im->work_size = e.work_size;
	im->scratch = e.scratch;
	im->scratch_cap = e.scap;
	for (uint32_t w = 0; w < LOWER_RINGS; w++)
		for (uint32_t eng = 0; eng < LOWER_MAX_ENGINES; eng++) {
			struct lane *l = &e.lane[w][eng];

			/* an unused lane's buffer stays for the next call */
			im->ring[w][eng] = (struct lower_ring_image){ .desc = l->desc, .cap = l->cap };
			if (!l->used)
				continue;
			im->ring[w][eng].nd = l->nd;
			im->ring[w][eng].index_stride = l->indexed ? l->unit * e.es : 0;
			im->ring[w][eng].index_count = l->indexed ? l->index_count : 0;
		}
	if (rc)
		lower_image_free(im);
	return rc;
}

/* The highest rank that asks for rank @r's streams: @r or one of its peers. */
static uint32_t last_user(struct cs_streams *ix, uint32_t r)
{
	const struct cs_rank_streams *rs = &ix->rank[r];
	uint32_t last = r;

	for (uint32_t i = 0; i < rs->n; i++)
		last = rs->st[i].peer > last ? rs->st[i].peer : last;
	return last;
}

/* Rank @p's streams and (a lazy schedule's) steps, needed by no rank left to lower. */
static void drop_rank(struct cs_streams *ix, uint32_t p)
{
	cs_streams_drop(ix, p);
	cs_rank_drop(ix->s, p);
}

/*
 * Rank @x is lowered: drop the streams no rank after it asks for, so that
 * later ranks' streams take their memory, still in cache, not fresh pages.
 * A rank's streams are asked for by itself and its peers (a peer's peer),
 * so the last of them is @x or one of @x's peers.  Its steps are read by
 * the same ranks (a send's receive is its peer's): they go with them.
 */
static void drop_streams(struct cs_streams *ix, uint32_t x)
{
	const struct cs_rank_streams *rs = &ix->rank[x];

	for (uint32_t i = 0; i < rs->n; i++) {
		uint32_t p = rs->st[i].peer;

		if (p < x && ix->rank[p].built && last_user(ix, p) <= x)
			drop_rank(ix, p);
	}
	if (rs->built && last_user(ix, x) <= x)
		drop_rank(ix, x);
}

int lower_loops(const struct cs_sched *s, const struct lower_ctx *c, struct lowered *l)
{
	struct lower_image im = { 0 };	/* every rank's in turn, in the same buffers */
	struct cs_streams ix;
	int rc = cs_streams_init(s, &ix);

	if (rc)
		return ccore_error(rc, "lowering: out of memory");
	for (uint32_t r = 0; r < s->shape.nranks && !rc; r++) {
		if (!cs_rank_get(s, r)->n && !cs_unusable(s))
			continue;
		rc = cs_unusable(s) ? -ENOMEM : lower_loops_image(s, &ix, c, r, &im);
		/* a lazy schedule's ranks are made here: its generator's error too */
		if (cs_unusable(s))
			rc = ccore_error(s->oom ? -ENOMEM : -EINVAL, "lowering: %s's schedule of rank %u: %s",
					 s->algo, r, cs_unusable(s));
		else if (rc == -ENOMEM)
			rc = ccore_error(rc, "lowering: out of memory");
		if (rc)
			break;
		rc = lower_load_image(c, r, &im, &l->ranks[r]);
		l->load_ns += l->ranks[r].load_ns;
		drop_streams(&ix, r);
	}
	lower_image_free(&im);
	cs_streams_free(&ix);
	l->loops = !rc;
	return rc;
}
