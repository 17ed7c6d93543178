// SPDX-License-Identifier: MIT
/*
 * Plans: a launched collective's schedule, lowered onto the devices, kept
 * so that repeating the same collective on the same buffers costs only a
 * trigger per rank.  The key is everything the programs bake in: the
 * collective, count, dtype, redop, root/peer, stream, algorithm and every
 * rank's buffer addresses.  A plan holds one ring index per rank's core and
 * room in CC-core instruction memory; when either runs out, the least
 * recently used plans go.
 */
#include "comm.h"
#include "coll_size.h"
#include "lock.h"
#include "select.h"
#include "log.h"
#include "lower/lower.h"
#include "tune/hw.h"
#include "ccm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct plan {
	struct plan *next;
	struct op *ops;			/* the key: per rank */
	uint32_t n;
	const struct algo *algo;
	struct algo_opts opts;		/* what it runs with */
	struct algo_opts asked;		/* the choice, its key (opts may be less) */
	const struct algo *asked_algo;	/* the choice, its key (algo may differ) */
	struct select_choice why;	/* the tuner's choice, for the log */
	struct lower_rank *lr;
	struct lower_ctx ctx;
	uint64_t *peer;			/* [(r * n + q) * CS_NBUF + buf] */
	uint64_t *resolved;		/* bit r * n + q: pair (r, q) in @peer */
	struct clique *q;
	int peer_rc;			/* first failure resolving a pair or semaphores */
	bool loops;			/* lowered in loop form, without a schedule */
	bool credits_by_desc;		/* lower_ctx's, for programs that would not fit */
	struct lowered *low;
	bool *active;			/* ranks with steps */
	uint32_t pins;			/* executables holding it: never evicted */
};

static bool same_key(const struct plan *p, const struct op *ops, uint32_t n,
		     const struct algo *algo)
{
	if (p->asked_algo != algo)
		return false;
	for (uint32_t r = 0; r < n; r++) {
		const struct op *a = &p->ops[r], *b = &ops[r];

		if (a->coll != b->coll || a->send != b->send || a->recv != b->recv ||
		    a->count != b->count || a->dtype != b->dtype || a->redop != b->redop ||
		    a->root != b->root || a->peer != b->peer ||
		    (a->stream ? a->stream->id : ~0u) != (b->stream ? b->stream->id : ~0u))
			return false;
	}
	return true;
}

static int resolve_pair(struct clique *q, struct plan *p, uint32_t r, uint32_t k);

/* Rank @k's buffers as rank @r names them, resolved the first time asked. */
static int resolve_once(struct plan *p, uint32_t r, uint32_t k)
{
	size_t pair = (size_t)r * p->n + k;

	if (p->resolved[pair / 64] >> (pair % 64) & 1)
		return 0;
	p->resolved[pair / 64] |= 1ull << (pair % 64);
	return resolve_pair(p->q, p, r, k);
}

/* Resolved on first use: a lowering without a schedule names its pairs as it goes. */
static uint64_t plan_peer_va(void *arg, uint32_t r, uint32_t q, uint32_t buf)
{
	struct plan *p = arg;

	/* after a failure, none: the last error stays the first one's */
	if (!p->peer_rc)
		p->peer_rc = resolve_once(p, r, q);
	return p->peer[((size_t)r * p->n + q) * CS_NBUF + buf];
}

/* Undo place_ranks(): scratch and ring indices back, nothing placed. */
static void plan_unplace(struct clique *q, struct plan *p)
{
	for (uint32_t r = 0; r < p->n; r++) {
		struct lower_rank *lr = &p->lr[r];

		if (lr->va[CS_TMP])
			rt_free(q->rt, q->ranks[r].dev, lr->va[CS_TMP]);
		lr->va[CS_TMP] = 0;
		for (uint32_t k = 0; k < LOWER_RINGS; k++) {
			if (lr->ring[k] != ~0u)
				rt_ring_put(q->rt, q->ranks[r].dev, q->ranks[r].core, lr->ring[k]);
			lr->ring[k] = ~0u;
		}
		if (p->active)
			p->active[r] = false;
	}
	if (p->resolved)
		memset(p->resolved, 0, ((size_t)p->n * p->n + 63) / 64 * sizeof(*p->resolved));
	p->peer_rc = 0;
}

static void plan_free(struct clique *q, struct plan *p)
{
	/* fused programs run on the plans' rings: they go first */
	plan_fused_release(q);
	/* its jobs must be done before rings and programs go */
	for (uint32_t r = 0; r < p->n; r++)
		if (p->ops[r].stream)
			stream_drain(p->ops[r].stream);
	lower_release(p->low, &p->ctx);
	if (p->lr)
		plan_unplace(q, p);
	free(p->lr);
	free(p->peer);
	free(p->resolved);
	free(p->ops);
	free(p->active);
	free(p);
}

void plan_flush(struct clique *q)
{
	plan_fused_release(q);
	while (q->plans) {
		struct plan *p = q->plans;

		q->plans = p->next;
		plan_free(q, p);
	}
	q->nplans = 0;
}

/* Drop @q's least recently used plan no executable holds; false if none. */
static bool evict_own(struct clique *q)
{
	struct plan **pp, **victim = NULL, *p;

	for (pp = &q->plans; *pp; pp = &(*pp)->next)
		if (!(*pp)->pins)
			victim = pp;
	if (!victim)
		return false;
	p = *victim;
	*victim = p->next;
	plan_free(q, p);
	q->nplans--;
	return true;
}

/*
 * Make room for a plan of @q: drop one of its own plans, or else one of
 * another communicator on the same devices (a split beside its parent
 * shares the cores' ring indices, scratch and CC-core memory with it).
 */
static bool evict_one(struct clique *q)
{
	int64_t t = ccm_now_ns();
	bool done = evict_own(q);

	for (struct clique *o = q->rt->cliques; o && !done; o = o->rt_next)
		done = o != q && evict_own(o);
	q->timing.evict_us += (double)(ccm_now_ns() - t) / 1e3;
	return done;
}

static bool detect_in_place(const struct cs_shape *sh, const struct op *o, uint32_t r,
			    uint64_t es)
{
	switch (sh->coll) {
	case CS_ALLGATHER:
		return o->send == o->recv + r * sh->count * es;
	case CS_REDUCESCATTER:
		return o->recv == o->send + r * sh->count * es;
	case CS_SENDRECV:
		return false;
	default:
		return o->send == o->recv;
	}
}

/* What in place means for @coll, as detect_in_place() finds it. */
static const char *in_place_rule(uint8_t coll)
{
	switch (coll) {
	case CS_ALLGATHER:
		return "send == recv + rank x count elements";
	case CS_REDUCESCATTER:
		return "recv == send + rank x count elements";
	default:
		return "send == recv";
	}
}

static int shape_of(struct clique *q, const struct op *ops, struct cs_shape *sh)
{
	uint64_t es = ccm_dtype_size(ops[0].dtype);
	const struct op *any = NULL;

	for (uint32_t r = 0; r < q->n && !any; r++)
		if (ops[r].stream)
			any = &ops[r];
	*sh = (struct cs_shape){ .coll = any->coll, .nranks = q->n, .count = any->count,
				 .root = any->root, .peer = any->peer };
	if (sh->coll == CS_SENDRECV)
		return 0;
	sh->in_place = detect_in_place(sh, &ops[0], 0, es);
	for (uint32_t r = 1; r < q->n; r++)
		if (detect_in_place(sh, &ops[r], r, es) != sh->in_place)
			return ccore_error(-EINVAL, "%s: in place differs (rank 0: %s, send 0x%llx, recv 0x%llx; rank %u: %s, send 0x%llx, recv 0x%llx); all ranks must agree (in place is %s)",
					   cs_coll_name(sh->coll), sh->in_place ? "in place" : "out of place",
					   (unsigned long long)ops[0].send,
					   (unsigned long long)ops[0].recv, r,
					   sh->in_place ? "out of place" : "in place",
					   (unsigned long long)ops[r].send,
					   (unsigned long long)ops[r].recv, in_place_rule(sh->coll));
	return 0;
}

/*
 * Ranks per device and per node, if the communicator's ranks are laid out
 * in equal consecutive groups (0 otherwise): what KangaRing and the
 * hierarchical algorithms need to know.
 */
static uint32_t group_size(const struct clique *q, bool node)
{
	uint32_t per = q->rt->devices_per_node ? q->rt->devices_per_node : 1, g = 0;

	for (uint32_t r = 0; r < q->n; r++) {
		uint32_t a = node ? q->ranks[r].dev / per : q->ranks[r].dev;
		uint32_t b = node ? q->ranks[0].dev / per : q->ranks[0].dev;

		if (a != b)
			break;
		g++;
	}
	if (!g || q->n % g)
		return 0;
	for (uint32_t r = 0; r < q->n; r++) {
		uint32_t a = node ? q->ranks[r].dev / per : q->ranks[r].dev;
		uint32_t lead = node ? q->ranks[r - r % g].dev / per : q->ranks[r - r % g].dev;

		if (a != lead || (r % g == 0 && r &&
				  (node ? q->ranks[r - 1].dev / per : q->ranks[r - 1].dev) == a))
			return 0;
	}
	return g;
}

/*
 * The cost model's topology for @q's ranks: R ranks per device, G per node
 * (as group_size() finds them; an irregular layout counts as flat), on the
 * fabric's ring or torus when the group spans whole nodes, else on a ring
 * of its devices; priced with the device's parameters (tune/hw.c).
 */
static void clique_topo(struct clique *q, const struct algo_opts *o, struct tune_topo *t)
{
	uint32_t n = q->n, R = o->ranks_per_device ? o->ranks_per_device : 1;
	uint32_t G = o->ranks_per_node ? o->ranks_per_node : n, D;
	/* the sim backend's fabric says what the hardware costs */
	struct ccm_fabric *f = ccore_system_model(q->rt->sys);
	struct tune_hw hw;

	if (G % R)
		R = 1;
	D = G / R;
	if (!q->torus_x) {
		struct ccore_dev *d = q->rt->devs[q->ranks[0].dev].dev;
		uint64_t x = 0, y = 0;

		if (ccore_dev_param(d, DRM_CCORE_PARAM_TORUS_X, &x) ||
		    ccore_dev_param(d, DRM_CCORE_PARAM_TORUS_Y, &y) || !x || !y) {
			x = q->rt->devices_per_node ? q->rt->devices_per_node : 1;
			y = 1;
		}
		q->torus_x = (uint32_t)x;
		q->torus_y = (uint32_t)y;
	}
	tune_hw_from_config(f ? ccm_fabric_config(f) : NULL, &hw);
	if (D == q->torus_x * q->torus_y)
		tuner_topo(n / G, q->torus_x, q->torus_y, R, &hw, t);
	else
		tuner_topo(n / G, D, 1, R, &hw, t);
}

/* Choose the algorithm, slices and channels of @sh (see select.h). */
static int plan_choose(struct clique *q, const struct cs_shape *sh, uint32_t dtype,
		       struct algo_opts *o, struct select_choice *ch)
{
	struct tune_topo t;
	int rc = select_init();	/* the knobs may have changed: before the topology */

	if (rc)
		return rc;
	*o = (struct algo_opts){ .slices = 1, .channels = 1,
				 .ranks_per_device = group_size(q, false),
				 .ranks_per_node = group_size(q, true) };
	clique_topo(q, o, &t);
	return select_algo(sh, &t, ccm_dtype_size(dtype), o, ch);
}

/* Microseconds since *@t, which moves on to now. */
static double lap_us(int64_t *t)
{
	int64_t now = ccm_now_ns(), d = now - *t;

	*t = now;
	return (double)d / 1e3;
}

/* One pass over the environment: every CCORE_* variable, name and value. */
static uint64_t env_fingerprint(void)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */

	for (char **e = environ; e && *e; e++) {
		/* most variables fail the first byte: no call for them */
		if (**e != 'C' || strncmp(*e, "CCORE_", 6))
			continue;
		for (const char *c = *e; *c; c++)
			h = (h ^ (uint8_t)*c) * 1099511628211ull;
		h = (h ^ 0xff) * 1099511628211ull;
	}
	return h;
}

/*
 * A repeated call (same shape and dtype, same knobs) gets the same choice:
 * re-reading every knob and re-running the cost model would cost more
 * than a small collective itself.
 */
static int plan_choose_memo(struct clique *q, const struct cs_shape *sh, uint32_t dtype,
			    struct algo_opts *o, struct select_choice *ch, double *choose_us)
{
	const struct cs_shape *m = &q->memo.sh;
	uint64_t env = env_fingerprint();
	int64_t t;
	int rc;

	if (q->memo.valid && q->memo.env == env && q->memo.dtype == dtype &&
	    m->coll == sh->coll && m->nranks == sh->nranks && m->count == sh->count &&
	    m->root == sh->root && m->peer == sh->peer && m->in_place == sh->in_place) {
		*o = q->memo.opts;
		*ch = q->memo.ch;
		*choose_us = q->memo.choose_us;
		return 0;
	}
	t = ccm_now_ns();
	rc = plan_choose(q, sh, dtype, o, ch);
	*choose_us = lap_us(&t);
	q->memo.valid = !rc;
	if (!rc) {
		q->memo.env = env;
		q->memo.sh = *sh;
		q->memo.dtype = dtype;
		q->memo.opts = *o;
		q->memo.ch = *ch;
		q->memo.choose_us = *choose_us;
	}
	return rc;
}

/* Rank @k's buffers as rank @r's descriptors name them (importing them once). */
static int resolve_pair(struct clique *q, struct plan *p, uint32_t r, uint32_t k)
{
	for (uint32_t b = 0; b < CS_NBUF; b++) {
		uint64_t va = b == CS_SEND ? p->ops[k].send :
			      b == CS_RECV ? p->ops[k].recv : p->lr[k].va[CS_TMP];
		uint64_t *out = &p->peer[((size_t)r * p->n + k) * CS_NBUF + b];
		int rc;

		if (!va || !p->active[r] || !p->active[k])
			continue;
		rc = rt_peer_va(q->rt, q->ranks[k].dev, va, q->ranks[r].dev, out);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * The peer addresses the lowering asks for: those of the ranks each rank
 * sends to.  Only these pairs, not all N^2: at N = 1024 resolving (and
 * importing) every pair would cost seconds.
 */
static int resolve_addresses(struct plan *p, const struct cs_sched *s)
{
	int rc = 0;

	for (uint32_t r = 0; r < p->n && !rc; r++) {
		const struct cs_rank *rk = &s->ranks[r];

		for (uint32_t i = 0; i < rk->n && !rc; i++)
			if (rk->steps[i].op == CS_SEND_OP)
				rc = resolve_once(p, r, rk->steps[i].peer);
	}
	return rc;
}

/* Devices, cores, TMP and @rings ring indices for the ranks in p->active. */
static int place_ranks(struct clique *q, struct plan *p, uint64_t tmp_count, uint32_t rings)
{
	uint64_t es = ccm_dtype_size(p->ops[0].dtype);
	int rc = 0;

	for (uint32_t r = 0; r < p->n; r++) {
		struct lower_rank *lr = &p->lr[r];
		uint32_t slot = p->ops[r].stream ? p->ops[r].stream->slot : 0;

		if (!p->active[r])
			continue;
		lr->dev = q->rt->devs[q->ranks[r].dev].dev;
		lr->core = q->ranks[r].core;
		lr->cc = p->ops[r].stream->cc;
		lr->va[CS_SEND] = p->ops[r].send;
		lr->va[CS_RECV] = p->ops[r].recv;
		/* 0 leaves the device's default (sysfs) to the ring */
		lr->packet_size = q->scfg.cc_packet[slot];
		/* cached plans' scratch may be what fills the device: make room */
		while (tmp_count &&
		       (rc = rt_alloc(q->rt, q->ranks[r].dev, tmp_count * es, &lr->va[CS_TMP])) ==
		       -ENOMEM && evict_one(q))
			;
		if (rc)
			return rc;
		for (uint32_t k = 0; k < rings; k++) {
			while ((rc = rt_ring_get(q->rt, q->ranks[r].dev, lr->core, &lr->ring[k])) ==
			       -ENOSPC)
				if (!evict_one(q))
					break;
			if (rc) {
				lr->ring[k] = ~0u;
				return ccore_error(rc, "no free DMA ring index on core %u of device %u",
						   lr->core, q->ranks[r].dev);
			}
		}
	}
	return 0;
}

static void log_plan(const struct plan *p, const struct cs_shape *sh, const struct lowered *l)
{
	uint32_t insns = 0, descs = 0, lead = sh->coll == CS_SENDRECV ? sh->root : 0;
	char next[96] = "", src[64];
	bool reduces = sh->coll == CS_ALLREDUCE || sh->coll == CS_REDUCESCATTER ||
		       sh->coll == CS_REDUCE_COLL;

	if (log_level() < LOG_INFO)
		return;
	for (uint32_t r = 0; r < p->n; r++) {
		insns += l->ranks[r].ninsns;
		descs += l->ranks[r].ndescs;
	}
	if (p->why.runner_up)
		snprintf(next, sizeof(next), ", runner-up %s %.1f us", p->why.runner_up,
			 p->why.runner_up_us);
	if (p->why.file_line)
		snprintf(src, sizeof(src), "%s line %u", p->why.source, p->why.file_line);
	log_msg(LOG_INFO, "%s count %llu %s %s N=%u%s: algorithm %s, slices %u, channels %u (%s; predicted %.1f us%s), stream %u (CC core %u on rank %u), %u instructions and %u descriptors in all%s",
		cs_coll_name(sh->coll), (unsigned long long)sh->count,
		ccore_dtype_name(p->ops[0].dtype),
		reduces ? ccore_redop_name(p->ops[0].redop) : "-", sh->nranks,
		sh->in_place ? " in place" : "", p->algo->name, p->opts.slices, p->opts.channels,
		p->why.file_line ? src : p->why.source, p->why.us, next,
		p->ops[lead].stream->id, p->lr[lead].cc, lead, insns, descs,
		p->loops ? ", in loop form" : "");
}

/* An average is a sum, then each result divided by the number of ranks. */
static void add_divides(struct cs_sched *s)
{
	const struct cs_shape *sh = &s->shape;

	for (uint32_t r = 0; r < sh->nranks && sh->count; r++)
		if (sh->coll != CS_REDUCE_COLL || r == sh->root)
			cs_divide(s, r, cs_at(CS_RECV, 0), cs_at(CS_RECV, 0), sh->count);
}

static uint32_t plan_slot(const struct plan *p, uint32_t r)
{
	return p->ops[r].stream ? p->ops[r].stream->slot : 0;
}

/*
 * Semaphore @kind of rank @r for @peer, made on first use (a lowering
 * without a schedule names its peers as it goes); time spent making them
 * counts as connecting.
 */
static uint32_t plan_sem(void *arg, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
			 uint32_t user)
{
	struct plan *p = arg;
	struct clique *q = p->q;
	uint32_t slot = plan_slot(p, r), sem;
	int64_t t = 0;
	int rc = 0;

	if (kind == LOWER_SEM_LOCAL ? !sems_have_local(q, slot, r) : !sems_have(q, slot, r, peer)) {
		t = ccm_now_ns();
		rc = sems_ensure(q, slot, r, &peer, kind != LOWER_SEM_LOCAL);
	}
	sem = rc ? 0 : kind == LOWER_SEM_LOCAL ? sems_local(q, slot, r) :
	      kind == LOWER_SEM_ARRIVAL ? sems_arrival(q, slot, r, peer) :
	      sems_credit(q, slot, r, peer);
	if (!rc && user != peer) {
		int64_t t0 = ccm_now_ns();

		rc = sems_allow(q, slot, r, sem, user);
		t = rc > 0 && !t ? t0 : t;
		rc = rc < 0 ? rc : 0;
	}
	if (t)
		q->timing.connect_us += (double)(ccm_now_ns() - t) / 1e3;
	if (rc) {
		p->peer_rc = p->peer_rc ?: rc;
		return 0;
	}
	return sem;
}

/*
 * The semaphores a schedule names, made before lowering: per rank L and a
 * pair per peer it sends to or receives from (which covers both ends of
 * every transfer), in one chunk where the bank allows.
 */
static int plan_sems(struct clique *q, struct plan *p, const struct cs_sched *s)
{
	int64_t t = ccm_now_ns();
	int rc = 0;

	for (uint32_t r = 0; r < p->n && !rc; r++) {
		const struct cs_rank *rk = &s->ranks[r];
		uint32_t *peers, k = 0;

		if (!rk->n)
			continue;
		peers = malloc(rk->n * sizeof(*peers));
		if (!peers)
			return ccore_error(-ENOMEM, "out of memory");
		for (uint32_t i = 0; i < rk->n; i++)
			if (rk->steps[i].op == CS_SEND_OP || rk->steps[i].op == CS_RECV_OP ||
			    rk->steps[i].op == CS_RECV_REDUCE)
				peers[k++] = rk->steps[i].peer;
		rc = sems_ensure(q, plan_slot(p, r), r, peers, k);
		free(peers);
	}
	q->timing.connect_us += (double)(ccm_now_ns() - t) / 1e3;
	return rc;
}

static void plan_ctx(struct clique *q, struct plan *p, const struct op *ops)
{
	p->ctx = (struct lower_ctx){
		.nranks = p->n, .ranks = p->lr, .peer_va = plan_peer_va, .arg = p,
		.elem_size = (uint32_t)ccm_dtype_size(ops[0].dtype),
		.dtype = ops[0].dtype,
		.redop = !ops[0].redop || ops[0].redop == ccore_avg ? DRM_CCORE_REDOP_SUM : ops[0].redop,
		.engines = q->rt->engines,
		.max_program = q->rt->max_program,
		.credits_by_desc = p->credits_by_desc,
		.sem = plan_sem,
	};
}

/*
 * Loop form, when the algorithm has one, it fits and CCORE_LOOPS allows:
 * no schedule.  The verifier checks schedules, so CCORE_VERIFY keeps to
 * them; an average's divisions are schedule steps.  Where a loop-form
 * plan finds no room for its rings, plan_build() falls back to the
 * schedule.
 */
static uint32_t plan_loops(struct clique *q, const struct plan *p, const struct cs_shape *sh,
			   const struct op *ops, bool pinned, uint64_t *tmp_count)
{
	enum select_loops when = select_loops();

	if (!p->algo->lower_loops || ops[0].redop == ccore_avg || getenv("CCORE_VERIFY") ||
	    when == SELECT_LOOPS_NEVER)
		return 0;
	/* an executable's plans hold their ring indices for its life: a
	 * loop-form plan takes up to LOWER_RINGS, a schedule's one */
	if (pinned && when == SELECT_LOOPS_AUTO)
		return 0;
	return p->algo->loops_fit(sh, &p->opts, q->rt->engines, when == SELECT_LOOPS_ALWAYS,
				  tmp_count);
}

static int plan_lower_loops(struct clique *q, struct plan *p, const struct cs_shape *sh,
			    const struct op *ops, uint32_t rings, uint64_t tmp_count, int64_t *t)
{
	struct ccore_plan_timing *tm = &q->timing;
	int rc;

	for (uint32_t r = 0; r < p->n; r++)
		p->active[r] = true;
	tm->schedule_us = tm->verify_us = 0;
	tm->steps = 0;
	rc = place_ranks(q, p, tmp_count, rings);
	if (rc)
		return rc;
	tm->place_us = lap_us(t);
	plan_ctx(q, p, ops);
	while ((rc = p->algo->lower_loops(sh, &p->opts, &p->ctx, &p->low)) == -ENOSPC &&
	       !p->peer_rc && evict_one(q))
		;
	return p->peer_rc ?: rc;
}

static int plan_lower_schedule(struct clique *q, struct plan *p, const struct cs_shape *sh,
			       const struct op *ops, int64_t *t)
{
	struct ccore_plan_timing *tm = &q->timing;
	struct cs_sched *s;
	char err[512];
	int rc;

	s = p->algo->gen(sh, &p->opts);
	if (!s || s->oom) {
		cs_free(s);
		return ccore_error(-ENOMEM, "%s: out of memory generating the schedule",
				   p->algo->name);
	}
	if (s->fail) {
		/* the algorithm accepted a shape it cannot build: its bug */
		rc = ccore_error(-EOPNOTSUPP, "%s could not generate the schedule of %s of %llu elements on %u ranks: %s (choose another with CCORE_ALGO)",
				 p->algo->name, cs_coll_name(sh->coll),
				 (unsigned long long)sh->count, sh->nranks, s->fail);
		goto out;
	}
	if (ops[0].redop == ccore_avg)
		add_divides(s);
	tm->schedule_us = lap_us(t);
	tm->steps = 0;
	for (uint32_t r = 0; r < p->n; r++)
		tm->steps += s->ranks[r].n;
	if (getenv("CCORE_VERIFY") && cs_verify(s, err, sizeof(err))) {
		rc = ccore_error(-EINVAL, "%s schedule failed verification: %s", p->algo->name, err);
		goto out;
	}
	tm->verify_us = lap_us(t);
	for (uint32_t r = 0; r < p->n; r++)
		p->active[r] = s->ranks[r].n > 0;
	rc = plan_sems(q, p, s) ?: place_ranks(q, p, s->tmp_count, 1) ?: resolve_addresses(p, s);
	if (rc)
		goto out;
	tm->place_us = lap_us(t);
	plan_ctx(q, p, ops);
	/* CC-core memory is shared by every cached plan: make room if need be */
	while ((rc = lower_schedule(s, &p->ctx, &p->low)) == -ENOSPC && !p->peer_rc &&
	       evict_one(q))
		;
	rc = p->peer_rc ?: rc;
out:
	cs_free(s);
	return rc;
}

/* Lower @p in loop form if it can, else from its schedule. */
static int plan_lower(struct clique *q, struct plan *p, const struct cs_shape *shp,
		      const struct op *ops, bool pinned, int64_t *t)
{
	uint64_t loop_tmp = 0;
	uint32_t loops = plan_loops(q, p, shp, ops, pinned, &loop_tmp);
	int rc;

	p->loops = loops > 0;
	rc = loops ? plan_lower_loops(q, p, shp, ops, loops, loop_tmp, t) : -EAGAIN;
	if (rc == -ENOSPC && !p->low) {
		/* no room for its rings next to the plans executables hold: the
		 * schedule needs one ring index per rank */
		plan_unplace(q, p);
		p->loops = false;
		rc = -EAGAIN;
	}
	if (rc == -EAGAIN)
		rc = plan_lower_schedule(q, p, shp, ops, t);
	return rc;
}

/*
 * A rank's program outgrew CC-core memory: fewer slices, else (PAT) a
 * larger staging buffer, so fewer steps, else the prologue's credits by
 * descriptor; false if nothing is left to change.  What was placed goes;
 * a knob the user set gets a warning.
 */
static bool plan_shrink(struct plan *p)
{
	struct algo_opts *o = &p->opts;
	uint64_t es = ccm_dtype_size(p->ops[0].dtype);
	bool slices = o->slices > 1;
	const char *env = slices ? "CCORE_SLICES" : "CCORE_PAT_BUFFER";
	uint64_t before, after;

	if (slices) {
		before = o->slices;
		o->slices /= 2;
		after = o->slices;
	} else if (o->pat_buffer && !strcmp(p->algo->name, "pat")) {
		/* in bytes, as CCORE_PAT_BUFFER counts */
		before = o->pat_buffer * es;
		o->pat_buffer = o->pat_buffer >= UINT32_MAX / 4 ? 0 : o->pat_buffer * 4;
		after = o->pat_buffer * es;
	} else if (!p->credits_by_desc) {
		/* no knob to cut: the prologue's credits go on a ring instead */
		log_msg(LOG_INFO, "%s: a rank's program does not fit the %llu instructions of a CC core; granting its first credits by descriptor",
			p->algo->name, (unsigned long long)p->q->rt->max_program);
		p->credits_by_desc = true;
		goto again;
	} else {
		return false;
	}
	/* a knob the user set is not what runs: say so */
	if (getenv(env))
		log_msg(LOG_WARN, "%s: with %s=%llu a rank's program does not fit the %llu instructions of a CC core; using %llu%s",
			p->algo->name, env, (unsigned long long)before,
			(unsigned long long)p->q->rt->max_program, (unsigned long long)after,
			after ? "" : " (auto)");
	else
		log_msg(LOG_INFO, "%s: with the tuner's %s %llu a rank's program does not fit the %llu instructions of a CC core; using %llu%s",
			p->algo->name, slices ? "slices" : "staging bytes", (unsigned long long)before,
			(unsigned long long)p->q->rt->max_program, (unsigned long long)after,
			after ? "" : " (auto)");
again:
	lower_release(p->low, &p->ctx);
	p->low = NULL;
	plan_unplace(p->q, p);
	return true;
}

/*
 * Not even the smallest program of the chosen algorithm fits a CC core:
 * the next one that serves the call, the model's order first, each from
 * one slice.  The choice the user forced gets a warning.
 */
static int plan_other_algo(struct clique *q, struct plan *p, const struct cs_shape *sh,
			   const struct op *ops, bool pinned, int64_t *t)
{
	const struct select_choice *ch = &p->why;
	const char *source = ch->source ? ch->source : "";
	const char *source_note = strcmp(source, "CCORE_ALGO") ? "" : " (named by CCORE_ALGO)";
	uint32_t total = ch->ncand + algo_count(), ntried = 1;
	const struct algo *failed = p->algo, **tried = calloc(total + 1, sizeof(*tried));
	int rc = -E2BIG;

	if (!tried)
		return ccore_error(-ENOMEM, "out of memory");
	tried[0] = failed;
	for (uint32_t i = 0; i < total && rc == -E2BIG; i++) {
		const struct algo *a = i < ch->ncand ? algo_find(ch->cand[i].algo, sh->coll) :
				       algo_at(i - ch->ncand);
		struct algo_opts o = p->asked;
		bool again = false;

		for (uint32_t k = 0; k < ntried; k++)
			again |= tried[k] == a;
		o.slices = o.channels = 1;
		if (!a || again || !(a->colls & 1u << sh->coll) ||
		    (a->rejects && a->rejects(sh, &o)))
			continue;
		tried[ntried++] = a;
		log_msg(strcmp(source, "CCORE_ALGO") ? LOG_INFO : LOG_WARN,
			"%s%s: its program does not fit the %llu instructions of a CC core even at one slice; trying %s",
			failed->name, failed == p->asked_algo ? source_note : "",
			(unsigned long long)q->rt->max_program, a->name);
		plan_unplace(q, p);
		p->algo = a;
		p->opts = o;
		p->credits_by_desc = false;
		while ((rc = plan_lower(q, p, sh, ops, pinned, t)) == -E2BIG && plan_shrink(p))
			;
		failed = a;
		if (!rc && i < ch->ncand) {
			/* the log's prediction is of what runs */
			p->why.us = ch->cand[i].us;
			p->why.runner_up = NULL;
		}
	}
	free(tried);
	if (rc == -E2BIG)
		return ccore_error(-E2BIG, "%s on %u ranks: no algorithm's program fits the %llu instructions of a CC core; a larger CC-core memory (program_size in CCORE_SIM or the device's configuration) would hold it",
				   cs_coll_name(sh->coll), sh->nranks,
				   (unsigned long long)q->rt->max_program);
	return rc;
}

static int plan_build(struct clique *q, const struct op *ops, const struct cs_shape *shp,
		      const struct select_choice *ch, const struct algo_opts *opts, bool pinned,
		      struct plan **out)
{
	struct plan *p = calloc(1, sizeof(*p));
	struct ccore_plan_timing *tm = &q->timing;
	uint32_t n = q->n;
	int64_t t = ccm_now_ns();
	int rc = 0;

	if (!p)
		return ccore_error(-ENOMEM, "out of memory");
	tm->evict_us = tm->connect_us = 0;
	p->n = n;
	p->q = q;
	p->ops = malloc(n * sizeof(*p->ops));
	p->lr = calloc(n, sizeof(*p->lr));
	p->peer = calloc((size_t)n * n * CS_NBUF, sizeof(*p->peer));
	p->resolved = calloc(((size_t)n * n + 63) / 64, sizeof(*p->resolved));
	p->active = calloc(n, sizeof(*p->active));
	if (!p->ops || !p->lr || !p->peer || !p->resolved || !p->active) {
		rc = ccore_error(-ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(p->ops, ops, n * sizeof(*ops));
	/* plan_free() returns only the ring indices place_ranks() took */
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t k = 0; k < LOWER_RINGS; k++)
			p->lr[r].ring[k] = ~0u;
	p->algo = p->asked_algo = ch->algo;
	p->why = *ch;
	p->opts = p->asked = *opts;
	while ((rc = plan_lower(q, p, shp, ops, pinned, &t)) == -E2BIG && plan_shrink(p))
		;
	if (rc == -E2BIG)
		rc = plan_other_algo(q, p, shp, ops, pinned, &t);
	if (rc)
		goto fail;
	tm->lower_us = lap_us(&t) - (double)p->low->load_ns / 1e3;
	tm->load_us = (double)p->low->load_ns / 1e3;
	tm->insns = tm->descs = 0;
	for (uint32_t r = 0; r < n; r++) {
		tm->insns += p->low->ranks[r].ninsns;
		tm->descs += p->low->ranks[r].ndescs;
	}
	tm->loops = p->loops;
	tm->plans_built++;
	log_plan(p, shp, p->low);
	*out = p;
	return 0;
fail:
	plan_free(q, p);
	return rc;
}

/* The cached plan for @ops (built if need be); NULL if there is nothing to do. */
static int plan_get(struct clique *q, const struct op *ops, bool pinned, struct plan **out)
{
	struct select_choice ch;
	struct algo_opts opts;
	struct plan *p = NULL, **pp;
	struct cs_shape sh;
	double choose_us;
	int rc = 0;

	*out = NULL;
	for (uint32_t r = 0; r < q->n; r++)
		if (ops[r].stream)
			rc |= ops[r].count != 0;
	if (!rc)
		return 0;	/* nothing to move: nccl treats count 0 as a no-op */
	rc = shape_of(q, ops, &sh);
	if (rc)
		return rc;
	/* the choice comes first: it is part of what a cached plan is */
	rc = plan_choose_memo(q, &sh, ops[0].dtype, &opts, &ch, &choose_us);
	if (rc)
		return rc;
	for (pp = &q->plans; *pp; pp = &(*pp)->next)
		if (same_key(*pp, ops, q->n, ch.algo) && (*pp)->asked.slices == opts.slices &&
		    (*pp)->asked.channels == opts.channels &&
		    (*pp)->asked.pat_buffer == opts.pat_buffer)
			break;
	if (*pp) {
		/* most recently used goes first */
		p = *pp;
		*pp = p->next;
	} else {
		rc = plan_build(q, ops, &sh, &ch, &opts, pinned, &p);
		if (rc)
			return rc;
		q->timing.choose_us = choose_us;
		q->nplans++;
	}
	p->next = q->plans;
	q->plans = p;
	q->last_algo = p->algo->name;
	*out = p;
	return 0;
}

int plan_prepare(struct clique *q, const struct op *ops, struct plan **out)
{
	int rc = plan_get(q, ops, true, out);

	if (!rc && *out)
		(*out)->pins++;
	return rc;
}

void plan_unpin(struct plan *p)
{
	if (p && p->pins)
		p->pins--;
}

const struct drm_ccore_insn *plan_rank_program(const struct plan *p, uint32_t r, uint32_t *ninsns,
					       struct ccore_dev **dev, uint32_t *cc)
{
	if (!p->active[r])
		return NULL;
	*ninsns = p->low->ranks[r].ninsns;
	*dev = p->lr[r].dev;
	*cc = p->lr[r].cc;
	return p->low->ranks[r].insns;
}

static int submit(struct ccore_dev *dev, uint32_t prog, struct ccore_stream *s)
{
	uint64_t job;
	int rc = stream_throttle(s) ?: ccore_dev_submit(dev, prog, DRM_CCORE_JOB_F_TRIGGER, &job);

	return rc ? rc : stream_add_job(s, job);
}

int plan_launch(struct clique *q, const struct op *ops)
{
	struct plan *p;
	int rc = plan_get(q, ops, false, &p);

	for (uint32_t r = 0; p && r < q->n && !rc; r++)
		if (p->active[r])
			rc = submit(p->lr[r].dev, p->low->ranks[r].prog, ops[r].stream);
	return rc;
}

/* --- fusing a group -------------------------------------------------------- */

/*
 * Fused programs of groups are freed once their jobs are done; their plans'
 * rings must outlive them, so they go before any plan does.
 */
void plan_fused_release(struct clique *q)
{
	for (uint32_t i = 0; i < q->nfused; i++) {
		stream_drain(q->fused[i].stream);
		ccore_dev_program_free(q->fused[i].dev, q->fused[i].prog);
	}
	q->nfused = 0;
	free(q->fused);
	q->fused = NULL;
	q->fused_cap = 0;
}

/*
 * The fused programs of groups launched before fused[@before], freed once
 * their own jobs are done.  The launch in progress already submitted the
 * later ones for some of its ranks: their jobs need the ranks still to
 * come, so waiting for them (or for anything behind them on their
 * streams) here would wait for the job timeout.
 */
static uint32_t fused_release_before(struct clique *q, uint32_t before)
{
	for (uint32_t i = 0; i < before; i++) {
		stream_drain_upto(q->fused[i].stream, q->fused[i].job_end);
		ccore_dev_program_free(q->fused[i].dev, q->fused[i].prog);
	}
	memmove(q->fused, q->fused + before, (q->nfused - before) * sizeof(*q->fused));
	q->nfused -= before;
	return before;
}

static int fused_keep(struct clique *q, struct ccore_dev *dev, struct ccore_stream *s,
		      uint32_t prog)
{
	if (q->nfused == q->fused_cap) {
		uint32_t cap = q->fused_cap ? q->fused_cap * 2 : 16;
		struct fused *f = realloc(q->fused, cap * sizeof(*f));

		if (!f)
			return ccore_error(-ENOMEM, "out of memory");
		q->fused = f;
		q->fused_cap = cap;
	}
	q->fused[q->nfused++] = (struct fused){ dev, s, prog, s->jobs_dropped + s->njobs };
	return 0;
}

/*
 * One rank's part of a group: its programs of every plan, back to back.
 * Each program is position independent and drains everything it started
 * before its last instruction, a RET, which is dropped but for the last.
 */
static int fuse_rank(struct clique *q, struct plan **plans, const struct op **opsv, uint32_t n,
		     uint32_t r, uint32_t *launch_first)
{
	struct ccore_stream *s = NULL;
	struct drm_ccore_insn *all;
	uint32_t total = 0, at = 0, last = 0, prog, pieces = 0;
	int rc;

	for (uint32_t i = 0; i < n; i++) {
		if (!plans[i] || !plans[i]->active[r])
			continue;
		if (s && opsv[i][r].stream != s)
			return -EXDEV;	/* different streams: not one job */
		s = opsv[i][r].stream;
		total += plans[i]->low->ranks[r].ninsns;
		last = i;
		pieces++;
	}
	if (!pieces)
		return 0;
	if (pieces == 1 || total > q->rt->max_program)
		return -EXDEV;
	all = malloc(total * sizeof(*all));
	if (!all)
		return ccore_error(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		const struct lowered_rank *lr;

		if (!plans[i] || !plans[i]->active[r])
			continue;
		lr = &plans[i]->low->ranks[r];
		memcpy(all + at, lr->insns, lr->ninsns * sizeof(*all));
		at += lr->ninsns - (i == last ? 0 : 1);
	}
	rc = ccore_dev_program_load(plans[last]->lr[r].dev, s->cc, all, at, &prog);
	if (rc == -ENOSPC && *launch_first) {
		*launch_first -= fused_release_before(q, *launch_first);
		rc = ccore_dev_program_load(plans[last]->lr[r].dev, s->cc, all, at, &prog);
	}
	free(all);
	/* the plans' own programs fill the CC core: one job per collective,
	 * as a group that does not fit runs */
	if (rc == -ENOSPC)
		return -EXDEV;
	if (rc)
		return rc;
	rc = submit(plans[last]->lr[r].dev, prog, s);
	if (rc) {
		ccore_dev_program_free(plans[last]->lr[r].dev, prog);
		return rc;
	}
	return fused_keep(q, plans[last]->lr[r].dev, s, prog);
}

int plan_launch_group(struct clique *q, const struct op **opsv, uint32_t n)
{
	struct plan **plans = calloc(n ? n : 1, sizeof(*plans));
	uint32_t launch_first;
	bool fusable = true;
	int rc = 0;

	if (!plans)
		return ccore_error(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = plan_get(q, opsv[i], false, &plans[i]);
	/* plan_get may evict: make sure every plan is still cached */
	for (uint32_t i = 0; i < n && !rc; i++) {
		bool found = !plans[i];

		for (struct plan *p = q->plans; p && !found; p = p->next)
			found = p == plans[i];
		fusable &= found;
	}
	/* the fused programs of this launch start at fused[launch_first] */
	launch_first = q->nfused;
	for (uint32_t r = 0; r < q->n && !rc && fusable; r++) {
		rc = fuse_rank(q, plans, opsv, n, r, &launch_first);
		if (rc == -EXDEV) {
			/* a rank's part cannot be one job: launch it piece by piece */
			rc = 0;
			for (uint32_t i = 0; i < n && !rc; i++)
				if (plans[i] && plans[i]->active[r])
					rc = submit(plans[i]->lr[r].dev,
						    plans[i]->low->ranks[r].prog, opsv[i][r].stream);
		}
	}
	if (!fusable)
		for (uint32_t i = 0; i < n && !rc; i++)
			rc = plan_launch(q, opsv[i]);
	free(plans);
	return rc;
}

uint32_t plan_rank_rings(const struct plan *p, uint32_t r, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;

	if (!p->low || !p->active[r])
		return 0;
	for (uint32_t k = 0; k < LOWER_RINGS; k++)
		for (uint32_t e = 0; e < LOWER_MAX_ENGINES; e++)
			if (p->low->ranks[r].rings[k][e] && n < max)
				out[n++] = p->low->ranks[r].rings[k][e];
	return n;
}

uint32_t plan_ring_handles(const struct clique *q, uint32_t r, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;

	for (const struct plan *p = q->plans; p; p = p->next)
		n += plan_rank_rings(p, r, out + n, max - n);
	return n;
}

/* --- what would run --------------------------------------------------------- */

int ccore_plan_query(const struct ccore_comm *comm, enum ccore_coll_op op, size_t count,
		     enum ccore_dtype dtype, struct ccore_plan_info *out)
{
	struct select_choice ch;
	struct algo_opts opts;
	struct cs_shape sh;
	struct clique *q;
	int rc;

	if (!comm || !out)
		return ccore_error(-EINVAL, "ccore_plan_query: comm and out must be set");
	if (op < ccore_op_allreduce || op > ccore_op_sendrecv)
		return ccore_error(-EINVAL, "ccore_plan_query: op %d out of range (ccore_op_allreduce..ccore_op_sendrecv)",
				   (int)op);
	if (!ccore_dtype_size(dtype))
		return ccore_error(-EINVAL, "ccore_plan_query: unknown dtype %d", (int)dtype);
	if (!count)
		return ccore_error(-EINVAL, "ccore_plan_query: count is 0; nothing would run");
	q = comm->q;
	if (op == ccore_op_sendrecv && q->n < 2)
		return ccore_error(-EINVAL, "ccore_plan_query: send/recv needs 2 or more ranks");
	sh = (struct cs_shape){ .coll = (uint8_t)(op - ccore_op_allreduce), .nranks = q->n,
				.count = count, .root = 0, .peer = q->n > 1 ? 1 : 0 };
	rc = coll_buffer_bytes("ccore_plan_query", &sh, dtype, q->rt->hbm_size, NULL, NULL);
	if (rc)
		return rc;
	rt_lock();
	rc = plan_choose(q, &sh, dtype, &opts, &ch);
	rt_unlock();
	if (rc)
		return rc;
	*out = (struct ccore_plan_info){
		.algo = ch.algo->name, .slices = opts.slices, .channels = opts.channels,
		.predicted_us = ch.us, .source = ch.source, .tuner_file_line = ch.file_line,
		.bytes = ch.bytes, .ncandidates = ch.ncand,
	};
	for (uint32_t i = 0; i < ch.ncand && i < CCORE_PLAN_MAX_CANDIDATES; i++)
		out->candidates[i] = (struct ccore_plan_candidate){
			ch.cand[i].algo, ch.cand[i].slices, ch.cand[i].channels, ch.cand[i].us,
		};
	return 0;
}

int ccore_comm_plan_timing(const struct ccore_comm *comm, struct ccore_plan_timing *out)
{
	if (!comm || !out)
		return ccore_error(-EINVAL, "ccore_comm_plan_timing: comm and out must be set");
	rt_lock();
	*out = comm->q->timing;
	rt_unlock();
	if (!out->plans_built)
		return ccore_error(-ENOENT, "ccore_comm_plan_timing: no plan was built on this communicator yet");
	return 0;
}
