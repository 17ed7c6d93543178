// SPDX-License-Identifier: MIT
/*
 * A call's shape and the choice of what runs it: algorithm, slices and
 * channels (select.h), remembered for repeats of the same call while the
 * CCORE_* knobs stay, and answered to ccore_plan_query() without building.
 */
#include "plan.h"
#include "coll_size.h"
#include "lock.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int plan_shape(struct clique *q, const struct op *ops, struct cs_shape *sh)
{
	uint64_t es = ccore_dtype_size(ops[0].dtype);
	const struct op *any = NULL;

	for (uint32_t r = 0; r < q->n && !any; r++)
		if (ops[r].stream)
			any = &ops[r];
	*sh = (struct cs_shape){ .coll = any->coll, .nranks = q->n, .count = any->count,
				 .root = any->root, .peer = any->peer };
	uint32_t r0 = (uint32_t)(any - ops);

	if (sh->coll == CS_SENDRECV)
		return 0;
	/* the ranks of this process; others' are compared when exchanging */
	sh->in_place = detect_in_place(sh, any, r0, es);
	for (uint32_t r = r0 + 1; r < q->n; r++)
		if (clique_local(q, r) && detect_in_place(sh, &ops[r], r, es) != sh->in_place)
			return ccore_error(-EINVAL, "%s: in place differs (rank %u: %s, send 0x%llx, recv 0x%llx; rank %u: %s, send 0x%llx, recv 0x%llx); all ranks must agree (in place is %s)",
					   cs_coll_name(sh->coll), r0, sh->in_place ? "in place" : "out of place",
					   (unsigned long long)any->send,
					   (unsigned long long)any->recv, r,
					   sh->in_place ? "out of place" : "in place",
					   (unsigned long long)ops[r].send,
					   (unsigned long long)ops[r].recv, in_place_rule(sh->coll));
	return 0;
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
				 .ranks_per_device = clique_group_size(q, false),
				 .ranks_per_node = clique_group_size(q, true) };
	clique_topo(q, o, &t);
	return select_algo(sh, &t, ccore_dtype_size(dtype), o, ch);
}

/*
 * Where every variable's string is.  setenv() and putenv() put a new
 * string in place of a changed variable (glibc keeps the old ones),
 * unsetenv() removes it, so the addresses change whenever a knob does;
 * reading the values instead cost a tenth of a small collective (a unique
 * id in the environment is 300 bytes).  Only a putenv() buffer rewritten
 * in place goes unseen.
 */
static uint64_t env_fingerprint(void)
{
	uint64_t h = 1469598103934665603ull;

	for (char **e = environ; e && *e; e++) {
		/* most variables fail the first byte: no call for them */
		if (**e != 'C' || strncmp(*e, "CCORE_", 6))
			continue;
		h = (h ^ (uint64_t)(uintptr_t)*e) * 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

/*
 * Is the environment the one seen last (the same strings, in order)?  A
 * pointer compared per variable: picking out the CCORE_* names, let alone
 * hashing them, cost more than the rest of a one-process rank's launch.
 */
static bool env_as_seen(const struct clique *q)
{
	char *const *seen = q->memo.env_seen;
	size_t i;

	if (!seen || !environ)
		return false;
	for (i = 0; environ[i]; i++)
		if (i >= q->memo.env_n || environ[i] != seen[i])
			return false;
	return i == q->memo.env_n;
}

/* The fingerprint of the environment, noting it for env_as_seen(). */
static uint64_t env_note(struct clique *q)
{
	size_t n = 0;
	char **seen;

	while (environ && environ[n])
		n++;
	seen = realloc(q->memo.env_seen, (n + 1) * sizeof(*seen));
	if (seen) {
		if (n)
			memcpy(seen, environ, n * sizeof(*seen));
		q->memo.env_seen = seen;
		q->memo.env_n = n;
	}
	/* out of memory: the old snapshot stays, and fails to match */
	return env_fingerprint();
}

/*
 * A repeated call (same shape and dtype, same knobs) gets the same choice:
 * re-reading every knob and re-running the cost model would cost more
 * than a small collective itself.
 */
int plan_choose_memo(struct clique *q, const struct cs_shape *sh, uint32_t dtype,
		     struct algo_opts *o, struct select_choice *ch, double *choose_us)
{
	const struct cs_shape *m = &q->memo.sh;
	uint64_t env = q->memo.valid && env_as_seen(q) ? q->memo.env : env_note(q);
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
	t = rt_now_ns();
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
			ch.cand[i].algo->name, ch.cand[i].slices, ch.cand[i].channels, ch.cand[i].us,
		};
	return 0;
}
