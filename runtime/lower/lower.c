// SPDX-License-Identifier: MIT
/*
 * Lowering a schedule into CC programs and DMA rings (see lower.h).
 *
 * Per rank the program is: a prologue that resets the local completion
 * counter and grants the credits that need nothing; then each step in
 * schedule order, preceded by waits for its dependencies (WAIT on the
 * local counter for local steps, RWAIT on the ring for sends — receives are
 * already behind us); credit grants just before the receive where
 * cs_credit_point() puts them (waiting first for dependencies that are not
 * receives); an epilogue that drains every ring and waits
 * for the last local signal (so the next run's reset cannot race it).
 *
 * Credits by marker: a receive whose dependencies are all sends on one
 * engine only needs those sends complete, yet the CC core can only wait
 * for a whole ring (RWAIT), the sends it started since included, each a
 * hop's latency away.  So such a receive's credit is a SEM_WRITE right
 * behind its last dependency on that ring instead: a ring completes in
 * order, so the credit lands once the sends are done, and the CC core
 * never waits for it (ring AllReduce's all-gather receives, which wait
 * for the reduce-scatter send of their block, would otherwise drain the
 * ring at every hop).  A sender must still get one receiver's credits in
 * receive order, so per peer the marked receives are the last ones, their
 * last dependencies in program order on one engine, and the credit before
 * them is issued by the CC core (in the prologue or at its point) no
 * later than their first anchor send: a hierarchical ring's all-gather
 * receives are marked although the reduce-scatter receives from the same
 * peer wait for the phase before.  Peers get their engines in the order
 * of the program's sends (peer_engine()).
 *
 * Credits implied across hosts (lower_ctx.dbuf): a plan whose runs
 * alternate between two halves of its scratch lets a sender on another
 * host put into a receiver's scratch without a credit, where the receive
 * needs none within the run (credit point 0) and the receiver sends to
 * that peer in every run (implicit_pair()).  Each credit there was a
 * network message, and the sender waited a round trip for it every run.
 */
#include "lower.h"
#include "ccore_internal.h"
#include "util/clock.h"

#include <stdlib.h>
#include <string.h>

struct emit {
	struct drm_ccore_insn *insn;
	uint32_t n, cap;
	struct drm_ccore_desc *desc[LOWER_MAX_ENGINES];
	uint32_t nd[LOWER_MAX_ENGINES], dcap[LOWER_MAX_ENGINES];
	uint32_t started_at_rwait[LOWER_MAX_ENGINES];	/* descs started when last drained */
	uint32_t local;				/* local descriptors so far */
	uint32_t local_waited;			/* highest L already waited for */
	uint32_t *step_local;			/* per step: L after it (local steps) */
	uint32_t *credit;			/* per step: its credit point */
	/* receives by credit point: first at point q, next after receive i
	 * (ascending; ~0u ends a list) */
	uint32_t *credit_first, *credit_next;
	uint8_t *step_engine;			/* per step: ring engine (sends) */
	uint8_t *peer_engine;			/* per peer: 1 + its engine, 0: none yet */
	uint32_t peers;				/* distinct peers sent to so far */
	/* credits by marker: first behind send i, next after receive i */
	uint32_t *mark_first, *mark_next;
	bool oom;
};

/* A receive step of a rank and the peer it receives from. */
struct lower_recv {
	uint32_t peer, step;
};

struct lower_job {
	const struct cs_sched *s;
	const struct lower_ctx *c;
	uint32_t n;
	/* every rank's receives by peer, each peer's in step order: rank p's
	 * are recvs[first[p] .. first[p + 1]) (not an N x N table: at
	 * N = 1024 that alone was a million lists) */
	struct lower_recv *recvs;
	size_t *first;
	/* with c->dbuf: rank r's credit points (cs_credit_points(), job_points()) */
	uint32_t **points;
};

static void insn(struct emit *e, struct drm_ccore_insn in)
{
	if (e->n == e->cap) {
		uint32_t cap = e->cap ? e->cap * 2 : 64;
		struct drm_ccore_insn *p = realloc(e->insn, cap * sizeof(*p));

		if (!p) {
			e->oom = true;
			return;
		}
		e->insn = p;
		e->cap = cap;
	}
	e->insn[e->n++] = in;
}

static void desc(struct emit *e, uint32_t engine, const struct drm_ccore_desc *d)
{
	if (e->nd[engine] == e->dcap[engine]) {
		uint32_t cap = e->dcap[engine] ? e->dcap[engine] * 2 : 16;
		struct drm_ccore_desc *p = realloc(e->desc[engine], cap * sizeof(*p));

		if (!p) {
			e->oom = true;
			return;
		}
		e->desc[engine] = p;
		e->dcap[engine] = cap;
	}
	e->desc[engine][e->nd[engine]++] = *d;
	/* descriptors started back to back on one ring: one START for all
	 * (a Bruck AllToAll packs hundreds at a time) */
	if (e->n && e->insn[e->n - 1].opcode == DRM_CCORE_OP_START &&
	    e->insn[e->n - 1].engine == engine && e->insn[e->n - 1].ring == 0) {
		e->insn[e->n - 1].imm++;
		return;
	}
	insn(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_START,
					 .engine = (uint8_t)engine, .ring = 0, .imm = 1 });
}

static uint32_t local_engine(const struct lower_ctx *c, uint32_t r)
{
	return (r + c->nranks) % c->engines;
}

/*
 * The engine whose ring carries every send of rank @r to @p: the k-th
 * distinct peer in program order gets the k-th engine after the local
 * one, round robin, so up to engines - 1 peers a rank sends to (and its
 * local steps) each have an engine of their own whatever their ranks are.
 */
static uint32_t peer_engine(const struct lower_ctx *c, struct emit *e, uint32_t r, uint32_t p)
{
	if (!e->peer_engine[p])
		e->peer_engine[p] = (uint8_t)(1 + (local_engine(c, r) + 1 + e->peers++) % c->engines);
	return e->peer_engine[p] - 1u;
}

static void wait_local(struct emit *e, uint32_t sem, uint32_t upto)
{
	if (upto <= e->local_waited)
		return;
	insn(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_WAIT, .sem = sem, .imm = upto });
	e->local_waited = upto;
}

static void drain(struct emit *e, uint32_t engine)
{
	if (e->started_at_rwait[engine] == e->nd[engine])
		return;
	insn(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RWAIT, .engine = (uint8_t)engine });
	e->started_at_rwait[engine] = e->nd[engine];
}

/* Wait until the dependencies of step @i of rank @r are complete. */
static void wait_deps(const struct lower_job *j, struct emit *e, uint32_t r, uint32_t i)
{
	const struct cs_step *st = &j->s->ranks[r].steps[i];
	uint32_t lsem = lower_sem_local(j->c, r);

	for (uint32_t d = 0; d < st->ndeps; d++) {
		const struct cs_step *dep = &j->s->ranks[r].steps[st->deps[d]];

		if (dep->op == CS_COPY || dep->op == CS_REDUCE || dep->op == CS_DIVIDE)
			wait_local(e, lsem, e->step_local[st->deps[d]]);
		else if (dep->op == CS_SEND_OP)
			drain(e, e->step_engine[st->deps[d]]);
	}
}

/* Where rank @p's receives from rank @r start in j->recvs. */
static size_t first_recv_from(const struct lower_job *j, uint32_t p, uint32_t r)
{
	size_t lo = j->first[p], hi = j->first[p + 1];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (j->recvs[mid].peer < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The @k-th receive step of rank @p from rank @r. */
static uint32_t recv_of(const struct lower_job *j, uint32_t p, uint32_t r, uint32_t k)
{
	return j->recvs[first_recv_from(j, p, r) + k].step;
}

/* Where @ref is in this image: the odd runs' scratch is the second half. */
static uint64_t in_image(const struct lower_ctx *c, struct cs_ref ref)
{
	return ref.off * c->elem_size + (ref.buf == CS_TMP ? c->tmp_shift : 0);
}

static uint64_t own(const struct lower_ctx *c, uint32_t r, struct cs_ref ref)
{
	return c->ranks[r].va[ref.buf] + in_image(c, ref);
}

static uint64_t theirs(const struct lower_ctx *c, uint32_t r, uint32_t q, struct cs_ref ref)
{
	return c->peer_va(c->arg, r, q, ref.buf) + in_image(c, ref);
}

/*
 * Does rank @p's every send to rank @r, on another host, go without a
 * credit (see the header comment)?  Each lands in @r's scratch (a plain
 * receive into TMP, or a staged one's TMP slot) and needs no credit
 * within the run, and @r sends to @p in every run.  @p's run k + 1 starts
 * once its run k has taken @r's message of run k, which @r sent after it
 * had finished run k - 1: the last run to use the half of the scratch run
 * k + 1 writes into.  Every process lowers its ranks alike from the same
 * schedule, so sender and receiver agree.
 */
static bool implicit_pair(const struct lower_job *j, uint32_t r, uint32_t p)
{
	const struct cs_rank *rk = &j->s->ranks[r];
	bool sends_back = false;
	size_t lo, hi;

	if (!j->c->dbuf || !lower_remote(j->c, r, p))
		return false;
	lo = first_recv_from(j, r, p);
	for (hi = lo; hi < j->first[r + 1] && j->recvs[hi].peer == p; hi++)
		;
	if (lo == hi)
		return false;
	for (size_t k = lo; k < hi; k++) {
		const struct cs_step *st = &rk->steps[j->recvs[k].step];
		bool into_tmp = st->op == CS_RECV_OP ? st->dst.buf == CS_TMP : st->staged;

		if (!into_tmp || j->points[r][j->recvs[k].step])
			return false;
	}
	for (uint32_t i = 0; i < rk->n && !sends_back; i++)
		sends_back = rk->steps[i].op == CS_SEND_OP && rk->steps[i].peer == p;
	return sends_back;
}

/* Step @i of rank @r, a local one as @st says, on the local engine. */
static void emit_local_as(const struct lower_job *j, struct emit *e, uint32_t r, uint32_t i,
			  const struct cs_step *st)
{
	const struct lower_ctx *c = j->c;
	struct drm_ccore_desc d = {
		.op = st->op == CS_COPY ? DRM_CCORE_DESC_COPY :
		      st->op == CS_DIVIDE ? DRM_CCORE_DESC_DIV : DRM_CCORE_DESC_REDUCE,
		.flags = DRM_CCORE_DESC_F_SIGNAL,
		.signal_sem = lower_sem_local(c, r), .signal_value = 1,
		.len = st->count * c->elem_size,
		.dst = own(c, r, st->dst), .src0 = own(c, r, st->src),
	};

	if (st->op == CS_REDUCE) {
		d.dtype = (uint8_t)c->dtype;
		d.redop = (uint8_t)c->redop;
		d.src1 = own(c, r, st->src2);
	} else if (st->op == CS_DIVIDE) {
		d.dtype = (uint8_t)c->dtype;
		d.value = c->nranks;
	}
	desc(e, local_engine(c, r), &d);
	e->step_local[i] = ++e->local;
}

static void emit_local(const struct lower_job *j, struct emit *e, uint32_t r, uint32_t i)
{
	emit_local_as(j, e, r, i, &j->s->ranks[r].steps[i]);
}

/*
 * Staged receive @i (cs_stage.c) landed in its slot: reduce it into dst
 * (a local REDUCE of src and the slot) and wait, so that, as any
 * receive, it is done when the program passes it.
 */
static void reduce_staged(const struct lower_job *j, struct emit *e, uint32_t r, uint32_t i)
{
	struct cs_step st = j->s->ranks[r].steps[i];

	st.op = CS_REDUCE;
	emit_local_as(j, e, r, i, &st);
	wait_local(e, lower_sem_local(j->c, r), e->local);
}

static void emit_send(const struct lower_job *j, struct emit *e, uint32_t r, uint32_t i,
		      uint32_t *sent_to)
{
	const struct lower_ctx *c = j->c;
	const struct cs_step *st = &j->s->ranks[r].steps[i];
	uint32_t p = st->peer, k = sent_to[p]++;
	const struct cs_step *rv = &j->s->ranks[p].steps[recv_of(j, p, r, k)];
	uint32_t eng = peer_engine(c, e, r, p);
	struct drm_ccore_desc d = {
		.flags = DRM_CCORE_DESC_F_SIGNAL,
		.signal_sem = lower_sem_arrival(c, p, r), .signal_value = 1,
		.len = st->count * c->elem_size,
		/* staged: into the receiver's slot, which it reduces itself */
		.dst = theirs(c, r, p, rv->staged ? rv->src2 : rv->dst),
	};

	if (rv->op == CS_RECV_OP || rv->staged) {
		d.op = DRM_CCORE_DESC_COPY;
		d.src0 = own(c, r, st->src);
	} else {
		d.op = DRM_CCORE_DESC_REDUCE;
		d.dtype = (uint8_t)c->dtype;
		d.redop = (uint8_t)c->redop;
		d.src0 = theirs(c, r, p, rv->src);
		d.src1 = own(c, r, st->src);
	}
	if (!implicit_pair(j, p, r))
		insn(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ACQUIRE,
						 .sem = lower_sem_credit(c, r, p),
						 .imm = 1 });
	desc(e, eng, &d);
	e->step_engine[i] = (uint8_t)eng;
}

/* The credit markers behind send @i (see the header comment). */
static void emit_markers(const struct lower_job *j, struct emit *e, uint32_t r, uint32_t i)
{
	const struct lower_ctx *c = j->c;

	for (uint32_t m = e->mark_first[i]; m != ~0u; m = e->mark_next[m]) {
		uint32_t p = j->s->ranks[r].steps[m].peer;
		struct drm_ccore_desc d = {
			.op = DRM_CCORE_DESC_SEM_WRITE, .value = 1,
			.dst = lower_sem_credit(c, p, r),
		};

		desc(e, e->step_engine[i], &d);
	}
}

/* The send behind which receive @i's credit may go, or ~0u. */
static uint32_t marker_anchor(const struct lower_job *j, struct emit *e, uint32_t r, uint32_t i)
{
	const struct cs_rank *rk = &j->s->ranks[r];
	const struct cs_step *st = &rk->steps[i];
	uint32_t anchor = 0, eng = ~0u;

	if (!st->ndeps)
		return ~0u;
	for (uint32_t d = 0; d < st->ndeps; d++) {
		const struct cs_step *dep = &rk->steps[st->deps[d]];
		uint32_t de;

		if (dep->op != CS_SEND_OP)
			return ~0u;
		de = peer_engine(j->c, e, r, dep->peer);
		if (eng != ~0u && de != eng)
			return ~0u;
		eng = de;
		anchor = st->deps[d] > anchor ? st->deps[d] : anchor;
	}
	return anchor;
}

/*
 * Which receives of rank @r take their credit by marker, per peer: the
 * longest run of its last receives from that peer whose anchors are on one
 * engine in program order, provided the credit point of the receive
 * before the run comes no later than the run's first anchor (its ADD is
 * then issued before that send, so the peer still gets its credits in
 * receive order).
 */
static void plan_markers(const struct lower_job *j, struct emit *e, uint32_t r)
{
	const struct cs_rank *rk = &j->s->ranks[r];

	for (uint32_t i = 0; i <= rk->n; i++)
		e->mark_first[i] = e->mark_next[i] = ~0u;
	/* rank @r's receives, by peer then step (index_receives()) */
	for (size_t s0 = j->first[r], s1; s0 < j->first[r + 1]; s0 = s1) {
		const struct lower_recv *rv = j->recvs + s0;
		uint32_t m, start, next = ~0u, eng = ~0u;

		for (s1 = s0; s1 < j->first[r + 1] && j->recvs[s1].peer == rv->peer; s1++)
			;
		m = (uint32_t)(s1 - s0);
		/* the run: from the last receive back while each can be marked */
		for (start = m; start > 0; start--) {
			uint32_t i = rv[start - 1].step, a, ae;

			if (!e->credit[i])
				break;	/* prologue credits come first */
			a = marker_anchor(j, e, r, i);
			if (a == ~0u || a > next)
				break;
			ae = peer_engine(j->c, e, r, rk->steps[a].peer);
			if (eng != ~0u && ae != eng)
				break;
			eng = ae;
			next = a;
		}
		/* the credit before the run must be issued before its first anchor */
		while (start < m && start > 0 &&
		       e->credit[rv[start - 1].step] > marker_anchor(j, e, r, rv[start].step))
			start++;
		/* append each receive behind its anchor; no point reaches it now */
		for (uint32_t k = start; k < m; k++) {
			uint32_t i = rv[k].step, a = marker_anchor(j, e, r, i), *at;

			for (at = &e->mark_first[a]; *at != ~0u; at = &e->mark_next[*at])
				;
			*at = i;
			e->credit[i] = ~0u;
		}
	}
}

/*
 * Grant rank @p @n credits for its sends to rank @r: an ADD, or where the
 * program may not touch @p's semaphores (another host's) or grants by
 * descriptor, a SEM_WRITE on the ring that carries @r's sends to @p.
 */
static void credit(const struct lower_job *j, struct emit *e, uint32_t r, uint32_t p, uint32_t n)
{
	const struct lower_ctx *c = j->c;
	struct drm_ccore_desc d = {
		.op = DRM_CCORE_DESC_SEM_WRITE, .value = n, .dst = lower_sem_credit(c, p, r),
	};

	if (lower_remote(c, r, p))
		desc(e, peer_engine(c, e, r, p), &d);
	else if (c->credits_by_desc)
		desc(e, local_engine(c, r), &d);
	else
		insn(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ADD,
						 .sem = lower_sem_credit(c, p, r), .imm = n });
}

/* Grant the credits whose point is step @q (after their deps). */
static void grant_credits(const struct lower_job *j, struct emit *e, uint32_t r, uint32_t q)
{
	const struct cs_rank *rk = &j->s->ranks[r];

	if (!q)
		return;
	for (uint32_t i = e->credit_first[q]; i != ~0u; i = e->credit_next[i]) {
		const struct cs_step *st = &rk->steps[i];

		wait_deps(j, e, r, i);
		credit(j, e, r, st->peer, 1);
	}
}

/* Index the receives by credit point, each list in step order. */
static void index_credits(const struct cs_rank *rk, struct emit *e)
{
	for (uint32_t q = 0; q <= rk->n; q++)
		e->credit_first[q] = ~0u;
	for (uint32_t i = rk->n; i-- > 0;) {
		const struct cs_step *st = &rk->steps[i];
		uint32_t q = e->credit[i];

		/* a point after its receive would never be reached */
		if ((st->op != CS_RECV_OP && st->op != CS_RECV_REDUCE) || q > i)
			continue;
		e->credit_next[i] = e->credit_first[q];
		e->credit_first[q] = i;
	}
}

static void prologue(const struct lower_job *j, struct emit *e, uint32_t r)
{
	const struct lower_ctx *c = j->c;
	const struct cs_rank *rk = &j->s->ranks[r];
	uint32_t *free_credits = calloc(j->n, sizeof(*free_credits));

	if (!free_credits) {
		e->oom = true;
		return;
	}
	insn(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_SET,
					 .sem = lower_sem_local(c, r) });
	for (uint32_t i = 0; i < rk->n; i++)
		if ((rk->steps[i].op == CS_RECV_OP || rk->steps[i].op == CS_RECV_REDUCE) &&
		    !e->credit[i] && !implicit_pair(j, r, rk->steps[i].peer))
			free_credits[rk->steps[i].peer]++;
	for (uint32_t p = 0; p < j->n; p++)
		if (free_credits[p])
			credit(j, e, r, p, free_credits[p]);
	free(free_credits);
}

static void emit_rank(const struct lower_job *j, struct emit *e, uint32_t r)
{
	const struct cs_rank *rk = &j->s->ranks[r];
	const struct lower_ctx *c = j->c;
	uint32_t *sent_to = calloc(j->n, sizeof(*sent_to));

	e->step_local = calloc(rk->n + 1, sizeof(*e->step_local));
	e->step_engine = calloc(rk->n + 1, sizeof(*e->step_engine));
	e->peer_engine = calloc(j->n, sizeof(*e->peer_engine));
	e->credit = calloc(rk->n + 1, sizeof(*e->credit));
	e->credit_first = calloc(rk->n + 1, sizeof(*e->credit_first));
	e->credit_next = calloc(rk->n + 1, sizeof(*e->credit_next));
	e->mark_first = calloc(rk->n + 1, sizeof(*e->mark_first));
	e->mark_next = calloc(rk->n + 1, sizeof(*e->mark_next));
	if (!sent_to || !e->step_local || !e->step_engine || !e->peer_engine || !e->credit ||
	    !e->credit_first || !e->credit_next || !e->mark_first || !e->mark_next) {
		e->oom = true;
		free(sent_to);
		return;
	}
	cs_credit_points(rk, j->n, e->credit);
	/* engines by peer in program order, before markers ask for them */
	for (uint32_t i = 0; i < rk->n; i++)
		if (rk->steps[i].op == CS_SEND_OP)
			peer_engine(c, e, r, rk->steps[i].peer);
	plan_markers(j, e, r);
	index_credits(rk, e);
	prologue(j, e, r);
	for (uint32_t i = 0; i < rk->n && !e->oom; i++) {
		const struct cs_step *st = &rk->steps[i];

		if (i)
			grant_credits(j, e, r, i);
		switch (st->op) {
		case CS_COPY:
		case CS_REDUCE:
			wait_deps(j, e, r, i);
			emit_local(j, e, r, i);
			break;
		case CS_DIVIDE:
			for (uint32_t eng = 0; eng < c->engines; eng++)
				drain(e, eng);
			wait_local(e, lower_sem_local(c, r), e->local);
			emit_local(j, e, r, i);
			break;
		case CS_SEND_OP:
			wait_deps(j, e, r, i);
			emit_send(j, e, r, i, sent_to);
			emit_markers(j, e, r, i);
			break;
		default:
			insn(e, (struct drm_ccore_insn){
				.opcode = DRM_CCORE_OP_ACQUIRE,
				.sem = lower_sem_arrival(c, r, st->peer), .imm = 1 });
			if (st->staged)
				reduce_staged(j, e, r, i);
			break;
		}
	}
	for (uint32_t eng = 0; eng < c->engines; eng++)
		drain(e, eng);
	wait_local(e, lower_sem_local(c, r), e->local);
	insn(e, (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RET });
	free(sent_to);
}

/* Point START/STARTI/RWAIT at the ring indices the plan holds. */
static void fix_rings(struct drm_ccore_insn *insns, uint32_t n, const uint32_t *ring)
{
	for (uint32_t i = 0; i < n; i++)
		if (insns[i].opcode == DRM_CCORE_OP_START || insns[i].opcode == DRM_CCORE_OP_STARTI ||
		    insns[i].opcode == DRM_CCORE_OP_RWAIT)
			insns[i].ring = (uint8_t)ring[insns[i].ring];
}

int lower_load_image(const struct lower_ctx *c, uint32_t r, const struct lower_image *im,
		     struct lowered_rank *out)
{
	const struct lower_rank *lr = &c->ranks[r];
	int64_t t = rt_now_ns();
	int rc = 0;

	if (c->max_program && im->ninsns > c->max_program)
		return ccore_error(-E2BIG, "lowering: rank %u's program of %u instructions exceeds the %llu a CC core holds",
				   r, im->ninsns, (unsigned long long)c->max_program);
	if (!lr->dev) {
		/* another process's rank: sized (every process shrinks alike), never loaded */
		out->ninsns = im->ninsns;
		return 0;
	}
	for (uint32_t k = 0; k < LOWER_RINGS && !rc; k++)
		for (uint32_t eng = 0; eng < c->engines && !rc; eng++) {
			const struct lower_ring_image *ri = &im->ring[k][eng];

			if (!ri->nd)
				continue;
			if (lr->ring[k] == ~0u)
				return ccore_error(-EINVAL, "lowering: ring %u of rank %u holds no index",
						   k, r);
			rc = ccore_dev_ring_create_indexed(lr->dev, lr->core, eng, lr->ring[k], ri->nd,
							   lr->packet_size, 0, ri->index_stride,
							   ri->index_count, &out->rings[k][eng]);
			if (!rc)
				rc = ccore_dev_ring_submit(lr->dev, out->rings[k][eng], ri->desc, ri->nd, 0);
			out->ndescs += ri->nd;
		}
	fix_rings(im->insns, im->ninsns, lr->ring);
	if (!rc)
		rc = ccore_dev_program_load(lr->dev, lr->cc, im->insns, im->ninsns, &out->prog);
	out->ninsns = im->ninsns;
	if (!rc) {
		/* keep the instructions: a group fuses programs by concatenation */
		out->insns = malloc(im->ninsns * sizeof(*im->insns));
		if (!out->insns)
			rc = ccore_error(-ENOMEM, "lowering: out of memory");
		else
			memcpy(out->insns, im->insns, im->ninsns * sizeof(*im->insns));
	}
	out->load_ns = rt_now_ns() - t;
	return rc;
}

static void emit_free(struct emit *e)
{
	free(e->insn);
	for (uint32_t i = 0; i < LOWER_MAX_ENGINES; i++)
		free(e->desc[i]);
	free(e->step_local);
	free(e->step_engine);
	free(e->peer_engine);
	free(e->credit);
	free(e->credit_first);
	free(e->credit_next);
	free(e->mark_first);
	free(e->mark_next);
}

static int by_peer_then_step(const void *a, const void *b)
{
	const struct lower_recv *x = a, *y = b;

	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	return x->step < y->step ? -1 : x->step > y->step;
}

/* Receives in step order, by peer (most ranks receive from one peer). */
static void sort_by_peer(struct lower_recv *r, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (r[i].peer < r[i - 1].peer) {
			qsort(r, n, sizeof(*r), by_peer_then_step);
			return;
		}
}

static int index_receives(struct lower_job *j)
{
	size_t total = 0, at = 0;

	j->first = calloc(j->n + 1, sizeof(*j->first));
	if (!j->first)
		return -ENOMEM;
	for (uint32_t p = 0; p < j->n; p++)
		for (uint32_t i = 0; i < j->s->ranks[p].n; i++)
			total += j->s->ranks[p].steps[i].op == CS_RECV_OP ||
				 j->s->ranks[p].steps[i].op == CS_RECV_REDUCE;
	j->recvs = malloc((total ? total : 1) * sizeof(*j->recvs));
	if (!j->recvs)
		return -ENOMEM;
	for (uint32_t p = 0; p < j->n; p++) {
		const struct cs_rank *rk = &j->s->ranks[p];

		j->first[p] = at;
		for (uint32_t i = 0; i < rk->n; i++)
			if (rk->steps[i].op == CS_RECV_OP || rk->steps[i].op == CS_RECV_REDUCE)
				j->recvs[at++] = (struct lower_recv){ rk->steps[i].peer, i };
		sort_by_peer(j->recvs + j->first[p], at - j->first[p]);
	}
	j->first[j->n] = at;
	return 0;
}

/*
 * Every rank's credit points, for implicit_pair(): made up front, so that
 * running out of memory fails the lowering rather than leaving a sender
 * and its receiver to decide differently.
 */
static int job_points(struct lower_job *j)
{
	j->points = calloc(j->n, sizeof(*j->points));
	for (uint32_t r = 0; j->points && r < j->n; r++) {
		const struct cs_rank *rk = &j->s->ranks[r];

		j->points[r] = calloc(rk->n + 1, sizeof(*j->points[r]));
		if (!j->points[r])
			return -ENOMEM;
		cs_credit_points(rk, j->n, j->points[r]);
	}
	return j->points ? 0 : -ENOMEM;
}

static void job_free(struct lower_job *j)
{
	for (uint32_t r = 0; j->points && r < j->n; r++)
		free(j->points[r]);
	free(j->points);
	free(j->recvs);
	free(j->first);
}

static void release_ranks(struct lowered_rank *ranks, uint32_t n, const struct lower_ctx *c)
{
	for (uint32_t r = 0; ranks && r < n; r++) {
		struct lowered_rank *lr = &ranks[r];

		if (lr->prog)
			ccore_dev_program_free(c->ranks[r].dev, lr->prog);
		free(lr->insns);
		for (uint32_t k = 0; k < LOWER_RINGS; k++)
			for (uint32_t eng = 0; eng < LOWER_MAX_ENGINES; eng++)
				if (lr->rings[k][eng])
					ccore_dev_ring_destroy(c->ranks[r].dev, lr->rings[k][eng]);
	}
	free(ranks);
}

void lower_release(struct lowered *l, const struct lower_ctx *c)
{
	if (!l)
		return;
	release_ranks(l->ranks, l->nranks, c);
	release_ranks(l->odd, l->nranks, c);
	free(l);
}

struct lowered *lower_alloc(uint32_t nranks)
{
	struct lowered *l = calloc(1, sizeof(*l));

	if (l && !(l->ranks = calloc(nranks ? nranks : 1, sizeof(*l->ranks)))) {
		free(l);
		return NULL;
	}
	if (l)
		l->nranks = nranks;
	return l;
}

bool lower_dbuf_helps(const struct cs_sched *s, const uint32_t *host_of)
{
	struct lower_ctx c = { .nranks = s->shape.nranks, .host_of = host_of, .dbuf = true };
	struct lower_job j = { .s = s, .c = &c, .n = s->shape.nranks };
	bool helps = false;

	if (!host_of || cs_has_repeats(s) || index_receives(&j) || job_points(&j)) {
		job_free(&j);
		return false;
	}
	for (uint32_t r = 0; r < j.n && !helps; r++)
		for (size_t k = j.first[r]; k < j.first[r + 1] && !helps; k++)
			helps = implicit_pair(&j, r, j.recvs[k].peer);
	job_free(&j);
	return helps;
}

int lower_images(const struct cs_sched *s, const struct lower_ctx *c,
		 int (*fn)(void *arg, uint32_t r, const struct lower_image *im), void *arg)
{
	struct lower_job j = { .s = s, .c = c, .n = s->shape.nranks };
	int rc;

	if (c->engines == 0 || c->engines > LOWER_MAX_ENGINES)
		return ccore_error(-EINVAL, "lowering: %u DMA engines per core (1..%u)", c->engines,
				   LOWER_MAX_ENGINES);
	rc = index_receives(&j);
	if (!rc && c->dbuf)
		rc = job_points(&j);
	if (rc)
		rc = ccore_error(rc, "lowering: out of memory");
	for (uint32_t r = 0; r < j.n && !rc; r++) {
		struct emit e = { 0 };
		struct lower_image im = { 0 };

		if (!s->ranks[r].n)
			continue;	/* no part in it (e.g. a send/recv elsewhere) */
		emit_rank(&j, &e, r);
		if (e.oom) {
			rc = ccore_error(-ENOMEM, "lowering: out of memory");
		} else {
			im.insns = e.insn;
			im.ninsns = e.n;
			for (uint32_t eng = 0; eng < LOWER_MAX_ENGINES; eng++)
				im.ring[0][eng] = (struct lower_ring_image){ .desc = e.desc[eng],
									     .nd = e.nd[eng] };
			rc = fn(arg, r, &im);
		}
		emit_free(&e);
	}
	job_free(&j);
	return rc;
}

struct load_job {
	const struct lower_ctx *c;
	struct lowered *l;
};

static int load_rank(void *arg, uint32_t r, const struct lower_image *im)
{
	struct load_job *lj = arg;
	int rc = lower_load_image(lj->c, r, im, &lj->l->ranks[r]);

	lj->l->load_ns += lj->l->ranks[r].load_ns;
	return rc;
}

/* An odd run's image goes on the plan's second ring index of each engine. */
static int load_rank_odd(void *arg, uint32_t r, const struct lower_image *even_rings)
{
	struct load_job *lj = arg;
	struct lower_image im = *even_rings;
	int rc;

	for (uint32_t eng = 0; eng < LOWER_MAX_ENGINES; eng++) {
		im.ring[1][eng] = im.ring[0][eng];
		im.ring[0][eng] = (struct lower_ring_image){ 0 };
	}
	for (uint32_t i = 0; i < im.ninsns; i++)
		if (im.insns[i].opcode == DRM_CCORE_OP_START || im.insns[i].opcode == DRM_CCORE_OP_RWAIT)
			im.insns[i].ring = 1;
	rc = lower_load_image(lj->c, r, &im, &lj->l->odd[r]);
	lj->l->load_ns += lj->l->odd[r].load_ns;
	return rc;
}

/* Both images of a double-buffered plan: the even runs' scratch first, then the odd's. */
static int lower_dbuf(const struct cs_sched *s, const struct lower_ctx *c, struct lowered *l)
{
	struct lower_ctx odd = *c;
	struct load_job lj = { .c = c, .l = l };
	int rc;

	l->odd = calloc(l->nranks ? l->nranks : 1, sizeof(*l->odd));
	if (!l->odd)
		return ccore_error(-ENOMEM, "lowering: out of memory");
	rc = lower_images(s, c, load_rank, &lj);
	odd.tmp_shift = c->tmp_half;
	lj.c = &odd;
	return rc ?: lower_images(s, &odd, load_rank_odd, &lj);
}

/* @s's repeats written out, lowered step by step. */
static int lower_unrolled(const struct cs_sched *s, const struct lower_ctx *c, struct lowered **out)
{
	struct cs_sched *x = cs_expand(s);
	int rc;

	if (!x || cs_unusable(x)) {
		rc = ccore_error(x && !x->oom ? -EINVAL : -ENOMEM, "lowering: writing the repeats out: %s",
				 cs_unusable(x));
		cs_free(x);
		return rc;
	}
	rc = lower_schedule(x, c, out);
	cs_free(x);
	return rc;
}

int lower_schedule(const struct cs_sched *s, const struct lower_ctx *c, struct lowered **out)
{
	struct load_job lj = { .c = c, .l = NULL };
	int rc;

	if (c->engines == 0 || c->engines > LOWER_MAX_ENGINES)
		return ccore_error(-EINVAL, "lowering: %u DMA engines per core (1..%u)", c->engines,
				   LOWER_MAX_ENGINES);
	lj.l = lower_alloc(s->shape.nranks);
	if (!lj.l)
		return ccore_error(-ENOMEM, "lowering: out of memory");
	if (cs_has_repeats(s) && c->dbuf) {
		/* two images of one schedule: its repeats written out */
		lower_release(lj.l, c);
		return lower_unrolled(s, c, out);
	}
	if (c->dbuf) {
		rc = lower_dbuf(s, c, lj.l);
		if (rc) {
			lower_release(lj.l, c);
			return rc;
		}
		*out = lj.l;
		return 0;
	}
	if (cs_has_repeats(s)) {
		rc = lower_loops(s, c, lj.l);
		if (rc) {
			lower_release(lj.l, c);
			return rc == -EOPNOTSUPP ? lower_unrolled(s, c, out) : rc;
		}
		*out = lj.l;
		return 0;
	}
	rc = lower_images(s, c, load_rank, &lj);
	if (rc) {
		lower_release(lj.l, c);
		return rc;
	}
	*out = lj.l;
	return 0;
}
