// SPDX-License-Identifier: MIT
/*
 * Algorithm choice (see select.h): CCORE_ALGO's grammar and filter here,
 * the tuning file and the cost model in runtime/tune/.
 */
#include "select.h"
#include "tune/hw.h"
#include "log.h"
#include "ccore_internal.h"
#include "util/size.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_NAMES 16

struct clause {
	bool set;
	bool exclude;
	const char *names[MAX_NAMES];
	unsigned int n;
};

static struct clause all_colls, per_coll[CS_NCOLL];
static uint32_t forced_slices;		/* $CCORE_SLICES, 0: the tuner's */
static enum select_loops loops;		/* $CCORE_LOOPS */
static uint64_t forced_pat_bytes;	/* $CCORE_PAT_BUFFER, 0: PAT's default */
static char algo_env[512], algo_env_seen[512];
static bool parsed;

/*
 * The registered spelling of algorithm @name, matched without regard to
 * case as NCCL matches NCCL_ALGO ("Ring" is ring); NULL if none.
 */
static const char *known(const char *name)
{
	for (unsigned int i = 0; i < algo_count(); i++)
		if (!strcasecmp(algo_at(i)->name, name))
			return algo_at(i)->name;
	return NULL;
}

static int known_names(char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < algo_count() && n < len; i++) {
		bool seen = false;

		/* names repeat across collectives: list each once */
		for (unsigned int k = 0; k < i; k++)
			seen |= !strcmp(algo_at(k)->name, algo_at(i)->name);
		if (!seen)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
					      algo_at(i)->name);
	}
	return 0;
}

static int parse_clause(char *text)
{
	struct clause *c = &all_colls;
	char *colon = strchr(text, ':'), *tok, *save = NULL, names[256];

	if (colon) {
		*colon = '\0';
		int coll = cs_coll_parse(text);

		if (coll < 0)
			return ccore_error(-EINVAL, "CCORE_ALGO: unknown collective '%s' (allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv)",
					   text);
		c = &per_coll[coll];
		text = colon + 1;
	}
	*c = (struct clause){ .set = true };
	if (*text == '^') {
		c->exclude = true;
		text++;
	}
	for (tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *name = known(tok);

		if (!name) {
			known_names(names, sizeof(names));
			return ccore_error(-EINVAL, "CCORE_ALGO: unknown algorithm '%s' (known: %s)",
					   tok, names);
		}
		if (c->n == MAX_NAMES)
			return ccore_error(-EINVAL, "CCORE_ALGO: more than %d names in a clause",
					   MAX_NAMES);
		c->names[c->n++] = name;
	}
	if (!c->n)
		return ccore_error(-EINVAL, "CCORE_ALGO: a clause names no algorithm");
	return 0;
}

/*
 * $CCORE_SLICES: force the slices per block (1..64) over the tuner's
 * choice, e.g. 1 to compare with the reference's formulas.
 */
static int slices_init(void)
{
	const char *v = getenv("CCORE_SLICES");
	unsigned long s;
	char *end;

	forced_slices = 0;
	if (!v || !*v)
		return 0;
	s = strtoul(v, &end, 10);
	if (*end || s < 1 || s > 64)
		return ccore_error(-EINVAL, "CCORE_SLICES=%s: expected a number from 1 to 64", v);
	forced_slices = (uint32_t)s;
	return 0;
}

/*
 * $CCORE_LOOPS: when plans are built in loop form (CC-core loops over indexed
 * descriptors: Documentation/collectives.rst, "Loop form") instead of
 * from their schedule -- 0 never, 1 wherever it fits, unset or "auto"
 * where the algorithm finds it pays (enum select_loops).
 */
static int loops_init(void)
{
	const char *v = getenv("CCORE_LOOPS");

	loops = SELECT_LOOPS_AUTO;
	if (!v || !*v || !strcmp(v, "auto"))
		return 0;
	if (!strcmp(v, "0") || !strcmp(v, "1")) {
		loops = *v == '1' ? SELECT_LOOPS_ALWAYS : SELECT_LOOPS_NEVER;
		return 0;
	}
	return ccore_error(-EINVAL,
			   "CCORE_LOOPS=%s: expected 0 (lower every collective from its schedule), 1 (loop form wherever it fits) or auto (the default)",
			   v);
}

enum select_loops select_loops(void)
{
	return loops;
}

/*
 * $CCORE_PAT_BUFFER: PAT's staging buffer per rank, in bytes (K, M, G
 * suffixes), instead of its default of four blocks.  One that holds the
 * largest message gives the fully aggregated schedule of the reference
 * (ceil(log2 N) steps); the default makes PAT linear.
 */
static int pat_buffer_init(void)
{
	const char *v = getenv("CCORE_PAT_BUFFER");
	uint64_t b;

	forced_pat_bytes = 0;
	if (!v || !*v)
		return 0;
	if (size_parse(v, &b) || b < 1 || b > (1ull << 40))
		return ccore_error(-EINVAL,
				   "CCORE_PAT_BUFFER=%s: expected bytes from 1 to 1T (K, M, G, T suffixes)",
				   v);
	forced_pat_bytes = b;
	return 0;
}

uint32_t select_pat_buffer(uint64_t elem_size)
{
	uint64_t el = forced_pat_bytes / (elem_size ? elem_size : 1);

	if (!forced_pat_bytes)
		return 0;
	return el < 1 ? 1 : el > UINT32_MAX ? UINT32_MAX : (uint32_t)el;
}

int select_init(void)
{
	const char *v = getenv("CCORE_ALGO");
	char *save = NULL, *cl;
	int rc = 0;

	/* the message names the variable */
	rc = tuner_init() ?: slices_init() ?: loops_init() ?: pat_buffer_init();
	if (rc)
		return rc;
	if (parsed && !strcmp(algo_env_seen, v ? v : ""))
		return 0;
	memset(&all_colls, 0, sizeof(all_colls));
	memset(per_coll, 0, sizeof(per_coll));
	snprintf(algo_env, sizeof(algo_env), "%s", v ? v : "");
	snprintf(algo_env_seen, sizeof(algo_env_seen), "%s", v ? v : "");
	parsed = true;
	if (!v || !*v)
		return 0;
	for (cl = strtok_r(algo_env, ";", &save); cl && !rc; cl = strtok_r(NULL, ";", &save))
		rc = parse_clause(cl);
	/* the clauses point into algo_env; algo_env_seen notices changes */
	if (rc) {
		parsed = false;
		return rc;
	}
	return 0;
}

static bool allowed(const struct clause *c, const char *name)
{
	bool listed = false;

	if (!c->set)
		return true;
	for (unsigned int i = 0; i < c->n; i++)
		if (!strcmp(c->names[i], name))
			listed = true;
	return c->exclude ? !listed : listed;
}

/* Largest useful slice count: a slice of a block holds one element at least. */
static uint32_t max_slices(const struct cs_shape *sh)
{
	uint64_t block = sh->coll == CS_ALLREDUCE ? sh->count / (sh->nranks ? sh->nranks : 1) :
			 sh->count;

	return block < 1 ? 1 : block > 64 ? 64 : (uint32_t)block;
}

/*
 * Can @a (the registry's @name for @sh's collective, NULL if none) serve
 * @sh with @slices and @channels (0: the model's best)?  If so, fill
 * @out's algorithm and knobs and set them in @o.
 */
static int consider(const char *name, const struct algo *a, const struct cs_shape *sh,
		    const struct tune_topo *t, struct tune_call call, uint32_t slices,
		    uint32_t channels, struct algo_opts *o, const struct clause *c, char *why,
		    size_t *wn, struct select_choice *out)
{
	const char *no = NULL;
	double us = -1;

	call.slices = call.channels = 1;
	if (a)
		tuner_best(a, t, &call, max_slices(sh), &us);
	slices = forced_slices ? forced_slices : slices;
	if (slices || channels) {
		call.slices = slices ? slices : call.slices;
		call.channels = channels ? channels : call.channels;
		if (!a || tune_formula(a, t, &call, &us, &no))
			us = -1;
		no = NULL;
	}
	o->slices = call.slices;
	o->channels = call.channels;
	if (!a)
		no = known(name) ? "does not serve this collective" : "is not built in";
	else if (!allowed(c, name))
		no = "is excluded by CCORE_ALGO";
	else
		no = a->rejects(sh, o);
	if (!no) {
		out->algo = a;
		out->slices = call.slices;
		out->channels = call.channels;
		out->us = us;
		return 1;
	}
	log_msg(LOG_INFO, "%s: skipping %s: %s", cs_coll_name(sh->coll), name, no);
	if (*wn < 600)
		*wn += (size_t)snprintf(why + *wn, 600 - *wn, "%s%s %s", *wn ? "; " : "", name, no);
	return 0;
}

/*
 * The functional model runs every rank's agents on a few host threads, so
 * a collective takes about the host's work for all its steps, not the
 * device's critical path: a descriptor and a hand-off per message, a
 * descriptor per local step, and every byte copied or reduced.  Price each
 * candidate by its schedule that way and re-rank them, for small messages:
 * for big ones the time is the worker threads copying, whose parallelism
 * the device model's bandwidth terms rank better than a sum of bytes.
 * Across hosts a message between nodes is a network message, which costs
 * its two hosts a system call, a proxy's wake-up and a completion each:
 * the network's α (measured at init) apiece, as a sum like the rest (on
 * 2 hosts x 4 ranks, 8 of them cost RDH's 16 bytes 380 µs where the
 * leaders' 2 took 65).
 */
static double host_work_us(const struct cs_sched *s, uint64_t elem_size, const struct tune_topo *t)
{
	uint32_t per_node = t->nodes ? tune_topo_ranks(t) / t->nodes : 0;
	double us = 0;

	for (uint32_t r = 0; r < s->shape.nranks; r++)
		for (uint32_t i = 0; i < s->ranks[r].n; i++) {
			const struct cs_step *st = &s->ranks[r].steps[i];

			if (st->op == CS_RECV_OP || st->op == CS_RECV_REDUCE)
				/* its arrival wakes the receiver; from another host, the network's */
				us += t->across_hosts && per_node && r / per_node != st->peer / per_node ?
				      t->alpha_us[TUNE_NET] : TUNE_HOST_SEM_US;
			else
				us += TUNE_HOST_INSN_US +
				      (double)st->count * elem_size / TUNE_HOST_BYTES_PER_US;
		}
	return us;
}

static void host_rerank(const struct cs_shape *sh, uint64_t elem_size, const struct tune_topo *t,
			const struct algo_opts *o, struct select_choice *out)
{
	for (uint32_t i = 0; i < out->ncand; i++) {
		struct tune_candidate *k = &out->cand[i];
		const struct algo *a = k->algo;
		struct algo_opts ko = *o;
		struct cs_sched *s;

		ko.slices = k->slices;
		ko.channels = k->channels;
		s = a && !(a->rejects && a->rejects(sh, &ko)) ? a->gen(sh, &ko) : NULL;
		if (!cs_unusable(s))
			k->us = host_work_us(s, elem_size, t);
		else if (s && s->fail)	/* it would fail the call: the last resort */
			k->us = HUGE_VAL;
		cs_free(s);
	}
	/* insertion sort; equal times keep the model's order */
	for (uint32_t i = 1; i < out->ncand; i++)
		for (uint32_t j = i; j > 0 && out->cand[j - 1].us > out->cand[j].us; j--) {
			struct tune_candidate x = out->cand[j];

			out->cand[j] = out->cand[j - 1];
			out->cand[j - 1] = x;
		}
}

/* The model's choice: the fastest candidate that can serve, and the next one. */
static int by_model(const struct cs_shape *sh, const struct tune_topo *t, struct tune_call call,
		    struct algo_opts *o, const struct clause *c, char *why, size_t *wn,
		    struct select_choice *out)
{
	struct select_choice next = *out;
	struct algo_opts keep = *o;

	for (uint32_t i = 0; i < out->ncand; i++) {
		const struct tune_candidate *k = &out->cand[i];

		if (!out->algo) {
			if (consider(k->algo->name, k->algo, sh, t, call, k->slices, k->channels, o,
				     c, why, wn, out)) {
				out->source = "cost model";
				/* the functional model's price is the host work */
				if (t->host && call.bytes <= TUNE_HOST_WORK_MAX_BYTES)
					out->us = k->us;
			}
			keep = *o;
		} else if (k->algo != out->algo &&
			   consider(k->algo->name, k->algo, sh, t, call, k->slices, k->channels, o,
				    c, why, wn, &next)) {
			out->runner_up = k->algo->name;
			out->runner_up_us = k->us;
			break;
		}
	}
	if (out->algo)
		*o = keep;
	return !!out->algo;
}

int select_algo(const struct cs_shape *sh, const struct tune_topo *t, uint64_t elem_size,
		struct algo_opts *o, struct select_choice *out)
{
	const struct clause *c;
	struct tune_call call = {
		.coll = sh->coll, .nranks = sh->nranks, .slices = 1, .channels = 1,
		.bytes = tune_bytes(sh->coll, sh->nranks, sh->count, elem_size),
		.peer_dist = sh->nranks ? algo_mod((int64_t)sh->peer - sh->root, sh->nranks) : 0,
	};
	const struct tunefile_rule *rule;
	char why[640] = "";
	size_t wn = 0;
	int rc = select_init();

	if (rc)
		return rc;
	o->pat_buffer = select_pat_buffer(elem_size);
	call.elem_size = (uint32_t)elem_size;
	call.pat_buffer = o->pat_buffer;
	/* after select_init(): it may have parsed a changed CCORE_ALGO */
	c = per_coll[sh->coll].set ? &per_coll[sh->coll] : &all_colls;
	*out = (struct select_choice){ .us = -1, .runner_up_us = -1, .bytes = call.bytes };
	out->ncand = tuner_rank(t, &call, max_slices(sh), out->cand, TUNE_MAX_CAND);
	if (t->host && call.bytes <= TUNE_HOST_WORK_MAX_BYTES)
		host_rerank(sh, elem_size, t, o, out);
	/* an inclusive CCORE_ALGO list is also the order of preference */
	if (c->set && !c->exclude) {
		for (unsigned int i = 0; i < c->n; i++)
			if (consider(c->names[i], algo_find(c->names[i], sh->coll), sh, t, call, 0,
				     0, o, c, why, &wn, out)) {
				out->source = "CCORE_ALGO";
				return 0;
			}
		goto none;
	}
	rule = tunefile_match(tuner_file(), sh->coll, (uint64_t)call.bytes,
			      t->nodes, sh->nranks);
	if (rule && consider(rule->algo, algo_find(rule->algo, sh->coll), sh, t, call,
			     rule->slices, rule->channels, o, c, why, &wn, out)) {
		out->source = "CCORE_TUNER_FILE";
		out->file_line = rule->line;
		return 0;
	}
	if (rule)
		log_msg(LOG_INFO, "%s: %s:%u names %s, which cannot serve this call; the model chooses",
			cs_coll_name(sh->coll), tuner_file()->path, rule->line, rule->algo);
	if (by_model(sh, t, call, o, c, why, &wn, out))
		return 0;
	/* then anything else registered for this collective (no formula) */
	for (unsigned int i = 0; i < algo_count(); i++) {
		const struct algo *a = algo_at(i);
		bool ranked = false;

		for (uint32_t k = 0; k < out->ncand; k++)
			ranked |= out->cand[k].algo == a;
		if (!ranked && (a->colls & (1u << sh->coll)) &&
		    consider(a->name, a, sh, t, call, 0, 0, o, c, why, &wn, out)) {
			out->source = "registry";
			return 0;
		}
	}
none:
	return ccore_error(-ENOENT, "no algorithm can serve %s on %u ranks (count %llu): %s",
			   cs_coll_name(sh->coll), sh->nranks, (unsigned long long)sh->count, why);
}
