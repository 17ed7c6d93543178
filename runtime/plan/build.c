// SPDX-License-Identifier: MIT
/*
 * Building a plan: the chosen algorithm's programs, lowered in loop form
 * where it has one and it fits, else from its schedule; where a rank's
 * program outgrows CC-core memory, fewer slices, then another algorithm.
 */
#include "plan.h"
#include "xchg.h"
#include "lock.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void log_plan(const struct plan *p, const struct cs_shape *sh, const struct lowered *l)
{
	uint32_t insns = 0, descs = 0, lead = sh->coll == CS_SENDRECV ? sh->root : 0;
	char next[96] = "", src[64];
	bool reduces = sh->coll == CS_ALLREDUCE || sh->coll == CS_REDUCESCATTER ||
		       sh->coll == CS_REDUCE_COLL;

	if (log_level() < LOG_INFO)
		return;
	/* across processes a rank of another process has no stream here: name one of ours */
	for (uint32_t r = 0; r < p->n && !p->ops[lead].stream; r++)
		lead = r;
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
		p->loops ? ", in loop form" : p->dbuf ? ", scratch double-buffered (two images)" : "");
}

/* An average is a sum, then each result divided by the number of ranks. */
static void add_divides(struct cs_sched *s)
{
	const struct cs_shape *sh = &s->shape;

	for (uint32_t r = 0; r < sh->nranks && sh->count; r++)
		if (sh->coll != CS_REDUCE_COLL || r == sh->root)
			cs_divide(s, r, cs_at(CS_RECV, 0), cs_at(CS_RECV, 0), sh->count);
}

static void plan_ctx(struct clique *q, struct plan *p, const struct op *ops)
{
	p->ctx = (struct lower_ctx){
		.nranks = p->n, .ranks = p->lr, .peer_va = plan_peer_va, .arg = p,
		.elem_size = (uint32_t)ccore_dtype_size(ops[0].dtype),
		.dtype = ops[0].dtype,
		.redop = !ops[0].redop || ops[0].redop == ccore_avg ? DRM_CCORE_REDOP_SUM : ops[0].redop,
		.engines = q->rt->engines,
		.max_program = q->rt->max_program,
		.credits_by_desc = p->credits_by_desc,
		.sem = plan_sem,
		.host_of = clique_hosts(q),
	};
}

/*
 * Loop form, when the algorithm has one, it fits and CCORE_LOOPS allows:
 * the ring indices each rank needs, 0 for none.  An average's divisions
 * are steps no loop takes.  Loop form is a schedule rolled into repeats
 * (gen_rolled), verified like any other.
 */
static uint32_t plan_loops(struct clique *q, const struct plan *p, const struct cs_shape *sh,
			   const struct op *ops, bool pinned)
{
	enum select_loops when = select_loops();

	/* a communicator of one process per rank exchanges its peers from the
	 * schedule's steps, before lowering: no loop form (Documentation/processes.rst) */
	if (q->local)
		return 0;
	if (!p->algo->gen_rolled || ops[0].redop == ccore_avg || when == SELECT_LOOPS_NEVER ||
	    q->rt->engines > LOWER_MAX_ENGINES)
		return 0;
	/* an executable's plans hold their ring indices for its life: a
	 * loop-form plan takes up to LOWER_RINGS, a schedule's one */
	if (pinned && when == SELECT_LOOPS_AUTO)
		return 0;
	return p->algo->loops_fit(sh, &p->opts, q->rt->engines, when == SELECT_LOOPS_ALWAYS);
}

/*
 * Double-buffer the scratch (lower_ctx.dbuf) where a receive from another
 * host then needs no credit, the scratch is small and nothing replays one
 * image (an executable's pinned plans; loop form's single image).
 */
static bool plan_dbuf(struct clique *q, const struct cs_sched *s, uint64_t es, uint32_t rings,
		      bool pinned)
{
	return !rings && !pinned && clique_hosts(q) && s->tmp_count * es <= PLAN_DBUF_MAX_BYTES &&
	       lower_dbuf_helps(s, clique_hosts(q));
}

/* Each rank's launches so far: the record's, which outlives the plan, or the plan's own. */
static int plan_runs(struct plan *p)
{
	if (p->xrec) {
		p->runs = xchg_rec_runs(p->xrec);
		return 0;
	}
	if (!p->own_runs)
		p->own_runs = calloc(p->n, sizeof(*p->own_runs));
	p->runs = p->own_runs;
	return p->runs ? 0 : ccore_error(-ENOMEM, "out of memory");
}

/*
 * The algorithm's schedule -- rolled into repeats if @rings (its loop
 * form's ring indices per rank) -- verified under CCORE_VERIFY, placed
 * and lowered.
 */
static int plan_lower_schedule(struct clique *q, struct plan *p, const struct cs_shape *sh,
			       const struct op *ops, uint32_t rings, bool pinned, int64_t *t)
{
	uint64_t es = ccore_dtype_size(ops[0].dtype);
	struct ccore_plan_timing *tm = &q->timing;
	struct algo_opts o = p->opts;
	struct cs_sched *s;
	bool rolled;
	char err[512];
	int rc;

	/* made rank by rank as the lowering reads it (cs.h), where nothing
	 * else reads the whole schedule first */
	o.lazy = rings && !q->local && !clique_hosts(q) && !getenv("CCORE_VERIFY");
	s = rings ? p->algo->gen_rolled(sh, &o) : p->algo->gen(sh, &p->opts);
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
	if (q->local && cs_has_repeats(s)) {
		/* peers in other processes are exchanged before lowering, from
		 * the steps: repeats written out name them all */
		struct cs_sched *x = cs_expand(s);

		cs_free(s);
		s = x;
		if (!s || cs_unusable(s)) {
			rc = ccore_error(-ENOMEM, "%s: out of memory writing the schedule's repeats out",
					 p->algo->name);
			goto out;
		}
	}
	if (cs_needs_staging(s, clique_hosts(q))) {
		struct cs_sched *x = cs_stage_remote(s, clique_hosts(q));

		plans_staged++;
		cs_free(s);
		s = x;
		if (!s) {
			rc = ccore_error(-ENOMEM, "%s: out of memory staging the reductions across hosts",
					 p->algo->name);
			goto out;
		}
	}
	if (ops[0].redop == ccore_avg)
		add_divides(s);
	tm->schedule_us = lap_us(t);
	tm->steps = 0;
	for (uint32_t r = 0; r < p->n && !s->lazy; r++)
		tm->steps += s->ranks[r].n;
	if (getenv("CCORE_VERIFY") && cs_verify(s, err, sizeof(err))) {
		rc = ccore_error(-EINVAL, "%s schedule failed verification: %s", p->algo->name, err);
		goto out;
	}
	tm->verify_us = lap_us(t);
	/* a lazy schedule's every rank takes part (cs.h) */
	for (uint32_t r = 0; r < p->n; r++)
		p->active[r] = s->lazy || s->ranks[r].n > 0;
	/* rolled, its peers' semaphores and addresses come on first use, as few */
	rolled = cs_has_repeats(s);
	p->dbuf = plan_dbuf(q, s, es, rings, pinned);
	plans_double_buffered += p->dbuf;
	rc = (rolled ? 0 : plan_sems(q, p, s)) ?:
	     plan_place(q, p, (p->dbuf ? 2 : 1) * s->tmp_count, p->dbuf ? 2 : rings ? rings : 1) ?:
	     (q->xchg->plan ? q->xchg->plan(q, p, s) : 0) ?:
	     (rolled ? 0 : plan_resolve_peers(p, s)) ?:
	     plan_runs(p);
	if (rc)
		goto out;
	tm->place_us = lap_us(t);
	plan_ctx(q, p, ops);
	p->ctx.dbuf = p->dbuf;
	p->ctx.tmp_half = s->tmp_count * es;
	/* CC-core memory is shared by every cached plan: make room if need be */
	while ((rc = lower_schedule(s, &p->ctx, &p->low)) == -ENOSPC && !p->peer_rc &&
	       plan_evict_one(q))
		;
	rc = p->peer_rc ?: rc;
	p->loops = !rc && p->low->loops;
out:
	cs_free(s);
	return rc;
}

/* Lower @p in loop form if it can, else from its schedule. */
static int plan_lower(struct clique *q, struct plan *p, const struct cs_shape *shp,
		      const struct op *ops, bool pinned, int64_t *t)
{
	uint32_t loops = plan_loops(q, p, shp, ops, pinned);
	int rc;

	p->loops = loops > 0;
	rc = loops ? plan_lower_schedule(q, p, shp, ops, loops, pinned, t) : -EAGAIN;
	if (rc == -ENOSPC && !p->low) {
		/* no room for its rings next to the plans executables hold: the
		 * schedule written out needs one ring index per rank */
		plan_unplace(q, p);
		p->loops = false;
		rc = -EAGAIN;
	}
	if (rc == -EAGAIN)
		rc = plan_lower_schedule(q, p, shp, ops, 0, pinned, t);
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
	uint64_t es = ccore_dtype_size(p->ops[0].dtype);
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
		const struct algo *a = i < ch->ncand ? ch->cand[i].algo : algo_at(i - ch->ncand);
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

int plan_build(struct clique *q, const struct op *ops, const struct cs_shape *shp,
	       const struct select_choice *ch, const struct algo_opts *opts, bool pinned,
	       struct plan **out)
{
	struct plan *p = calloc(1, sizeof(*p));
	struct ccore_plan_timing *tm = &q->timing;
	uint32_t n = q->n;
	int64_t t = rt_now_ns();
	int rc = 0;

	if (!p)
		return ccore_error(-ENOMEM, "out of memory");
	tm->evict_us = tm->connect_us = 0;
	p->n = n;
	p->q = q;
	p->ops = malloc(n * sizeof(*p->ops));
	p->lr = calloc(n, sizeof(*p->lr));
	p->active = calloc(n, sizeof(*p->active));
	if (!p->ops || !p->lr || !p->active) {
		rc = ccore_error(-ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(p->ops, ops, n * sizeof(*ops));
	/* plan_free() returns only the ring indices plan_place() took */
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
