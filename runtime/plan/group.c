// SPDX-License-Identifier: MIT
/*
 * Groups: between ccore_group_start() and the outermost ccore_group_end()
 * of a thread, collectives every rank posted wait; at the end each
 * communicator's are launched in posting order, fused into one job per
 * rank where their programs fit one CC core together (a program is
 * position independent and ends in a RET, dropped but for the last).
 * Fused programs are freed once their jobs are done.
 */
#include "plan.h"
#include "lock.h"

#include <stdlib.h>
#include <string.h>

struct ready {
	struct clique *q;
	struct op *ops;		/* one per rank */
};

/*
 * Most groups hold a few collectives (one per rank of the thread): those
 * need no allocation, which cost a tenth of a process's 8-byte call.
 */
#define GROUP_INLINE 8

static _Thread_local int group_depth;
static _Thread_local struct ready group_inline[GROUP_INLINE];
static _Thread_local struct ready *group_heap;	/* NULL: group_inline holds them */
static _Thread_local uint32_t group_n, group_heap_cap;

/* This thread's group's collectives, group_n of them. */
static struct ready *readies(void)
{
	return group_heap ? group_heap : group_inline;
}

int ccore_group_start(void)
{
	group_depth++;
	return 0;
}

/* Inside a group (this thread's): keep @ops for ccore_group_end(). */
int group_defer(struct clique *q, struct op *ops)
{
	if (group_n == (group_heap ? group_heap_cap : GROUP_INLINE)) {
		uint32_t cap = group_n * 2;
		struct ready *r = realloc(group_heap, cap * sizeof(*r));

		if (!r) {
			int rc = ccore_error(-ENOMEM, "out of memory");

			ops_retire(ops, q->n, rc);
			free(ops);
			return rc;
		}
		if (!group_heap)
			memcpy(r, group_inline, sizeof(group_inline));
		group_heap = r;
		group_heap_cap = cap;
	}
	readies()[group_n++] = (struct ready){ q, ops };
	return 0;
}

bool group_open(void)
{
	return group_depth > 0;
}

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

/* Runs of plans[@i] for rank @r earlier in this group (a plan may come twice). */
static uint32_t runs_before(struct plan *const *plans, uint32_t i, uint32_t r)
{
	uint32_t k = 0;

	for (uint32_t j = 0; j < i; j++)
		k += plans[j] == plans[i] && plans[j]->active[r];
	return k;
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
		lr = plan_image(plans[i], r, runs_before(plans, i, r));
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
	rc = plan_submit(plans[last]->lr[r].dev, prog, s);
	if (rc) {
		ccore_dev_program_free(plans[last]->lr[r].dev, prog);
		return rc;
	}
	for (uint32_t i = 0; i < n; i++)
		if (plans[i] && plans[i]->active[r])
			plan_ran(plans[i], r);
	return fused_keep(q, plans[last]->lr[r].dev, s, prog);
}

/* A send/recv's pair, as (lower rank, higher rank, sender); 0 for a collective. */
static uint64_t pair_key(const struct op *ops, uint32_t n)
{
	const struct op *o = NULL;

	for (uint32_t r = 0; r < n && !o; r++)
		o = ops[r].stream ? &ops[r] : NULL;
	if (!o || o->coll != CS_SENDRECV)
		return 0;
	/* then the sender: a pair's two directions in one order everywhere */
	return 1 + ((uint64_t)(o->root < o->peer ? o->root : o->peer) << 42 |
		    (uint64_t)(o->root < o->peer ? o->peer : o->root) << 21 | o->root);
}

/*
 * On a communicator of one process per rank, a group's sends and receives
 * go after its collectives (in posting order), by pair, lowest first.  A
 * plan's build waits for the pair's other process to build its side, and
 * a rank's job runs its pieces in order, a send waiting for its receiver's
 * credit: every process taking the pairs in one global order never waits
 * in a cycle, in the build or on the device (a ring shift would).
 */
static void sort_pairs(struct clique *q, const struct op **opsv, uint32_t n)
{
	if (!q->local)
		return;
	/* insertion sort, stable: groups are short */
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && pair_key(opsv[j - 1], q->n) > pair_key(opsv[j], q->n);
		     j--) {
			const struct op *t = opsv[j];

			opsv[j] = opsv[j - 1];
			opsv[j - 1] = t;
		}
}

/* A group's collectives of @q: one job per rank where possible. */
static int launch_group(struct clique *q, const struct op **opsv, uint32_t n)
{
	struct plan *few[GROUP_INLINE] = { NULL };
	struct plan **plans = n <= GROUP_INLINE ? few : calloc(n, sizeof(*plans));
	uint32_t launch_first;
	bool fusable = true;
	int rc = 0;

	if (!plans)
		return ccore_error(-ENOMEM, "out of memory");
	sort_pairs(q, opsv, n);
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
		if (!clique_local(q, r))
			continue;	/* another process launches it */
		rc = fuse_rank(q, plans, opsv, n, r, &launch_first);
		if (rc == -EXDEV) {
			/* a rank's part cannot be one job: launch it piece by piece */
			rc = 0;
			for (uint32_t i = 0; i < n && !rc; i++)
				if (plans[i] && plans[i]->active[r]) {
					rc = plan_submit(plans[i]->lr[r].dev,
							 plan_image(plans[i], r, 0)->prog,
							 opsv[i][r].stream);
					if (!rc)
						plan_ran(plans[i], r);
				}
		}
	}
	if (!fusable)
		for (uint32_t i = 0; i < n && !rc; i++)
			rc = plan_launch(q, opsv[i]);
	if (plans != few)
		free(plans);
	return rc;
}

/* Launch the batch of @q's collectives that starts at readies()[@i]. */
static int launch_batch(uint32_t i, const struct op **batch)
{
	struct ready *ready = readies();
	struct clique *q = ready[i].q;
	uint32_t k = 0;
	int rc;

	for (uint32_t j = i; j < group_n; j++)
		if (ready[j].q == q)
			batch[k++] = ready[j].ops;
	rc = launch_group(q, batch, k);
	for (uint32_t j = i; j < group_n; j++)
		if (ready[j].q == q) {
			ops_retire(ready[j].ops, q->n, rc);
			ready[j].q = NULL;
		}
	return rc;
}

int ccore_group_end(void)
{
	const struct op *few[GROUP_INLINE], **batch;
	int rc = 0, r;

	if (group_depth == 0)
		return ccore_error(-EINVAL, "ccore_group_end without ccore_group_start");
	if (--group_depth)
		return 0;
	batch = group_n <= GROUP_INLINE ? few : calloc(group_n, sizeof(*batch));
	rt_lock();
	/* per communicator, in posting order: fused into one job per rank */
	for (uint32_t i = 0; i < group_n; i++) {
		struct clique *q = readies()[i].q;

		if (!q)
			continue;
		if (batch) {
			r = launch_batch(i, batch);
		} else {
			r = ccore_error(-ENOMEM, "out of memory");
			ops_retire(readies()[i].ops, q->n, r);
		}
		if (r && !rc)
			rc = r;
	}
	rt_unlock();
	if (batch != few)
		free(batch);
	for (uint32_t i = 0; i < group_n; i++)
		free(readies()[i].ops);
	group_n = 0;
	free(group_heap);
	group_heap = NULL;
	group_heap_cap = 0;
	return rc;
}
