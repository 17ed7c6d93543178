// SPDX-License-Identifier: MIT
/*
 * Algorithm choice (see select.h).  Until the cost-model tuner arrives the
 * default is a size/N rule per collective, tried in order:
 *   allreduce      < 64 KiB: rdh, mesh, mesh_oneshot, ring; else ring, rdh
 *   allgather,
 *   reducescatter  < 64 KiB: mesh, rdh, ring; else ring
 *   alltoall       < 64 KiB: bruck, pairwise; else pairwise
 *   broadcast,
 *   reduce         < 64 KiB: binomial, chain; else chain, binomial
 *   sendrecv       p2p
 * The first one that is registered, allowed by CCORE_ALGO and accepts the
 * shape runs; skipped ones are logged at INFO with the reason.
 */
#include "select.h"
#include "log.h"
#include "ccore_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 16

struct clause {
	bool set;
	bool exclude;
	const char *names[MAX_NAMES];
	unsigned int n;
};

static struct clause all_colls, per_coll[CS_NCOLL];
static char algo_env[512], algo_env_seen[512];
static bool parsed;

static bool known(const char *name)
{
	for (unsigned int i = 0; i < algo_count(); i++)
		if (!strcmp(algo_at(i)->name, name))
			return true;
	return false;
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
		if (!known(tok)) {
			known_names(names, sizeof(names));
			return ccore_error(-EINVAL, "CCORE_ALGO: unknown algorithm '%s' (known: %s)",
					   tok, names);
		}
		if (c->n == MAX_NAMES)
			return ccore_error(-EINVAL, "CCORE_ALGO: more than %d names in a clause",
					   MAX_NAMES);
		c->names[c->n++] = tok;
	}
	if (!c->n)
		return ccore_error(-EINVAL, "CCORE_ALGO: a clause names no algorithm");
	return 0;
}

int select_init(void)
{
	const char *v = getenv("CCORE_ALGO");
	char *save = NULL, *cl;
	int rc = 0;

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

static const char *const *defaults(const struct cs_shape *sh, uint64_t bytes)
{
	/* fewest steps first: each step is a semaphore hand-off */
	static const char *const ar_small[] = { "rdh", "mesh", "mesh_oneshot", "ring", NULL };
	static const char *const ar_large[] = { "ring", "rdh", NULL };
	static const char *const ag_small[] = { "mesh", "rdh", "ring", NULL };
	static const char *const ag_large[] = { "ring", NULL };
	static const char *const a2a_small[] = { "bruck", "pairwise", NULL };
	static const char *const a2a_large[] = { "pairwise", NULL };
	static const char *const bc_small[] = { "binomial", "chain", NULL };
	static const char *const bc_large[] = { "chain", "binomial", NULL };
	static const char *const p2p[] = { "p2p", NULL };
	bool small = bytes < 65536;

	switch (sh->coll) {
	case CS_ALLREDUCE:
		return small ? ar_small : ar_large;
	case CS_ALLGATHER:
	case CS_REDUCESCATTER:
		return small ? ag_small : ag_large;
	case CS_ALLTOALL:
		return small ? a2a_small : a2a_large;
	case CS_BROADCAST:
	case CS_REDUCE_COLL:
		return small ? bc_small : bc_large;
	default:
		return p2p;
	}
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

static int consider(const char *name, const struct cs_shape *sh, const struct algo_opts *o,
		    const struct clause *c, char *why, size_t *wn, const struct algo **out)
{
	const struct algo *a = algo_find(name, sh->coll);
	const char *no = NULL;

	if (!a)
		no = known(name) ? "does not serve this collective" : "is not built in";
	else if (!allowed(c, name))
		no = "is excluded by CCORE_ALGO";
	else
		no = a->rejects(sh, o);
	if (!no) {
		*out = a;
		return 1;
	}
	log_msg(LOG_INFO, "%s: skipping %s: %s", cs_coll_name(sh->coll), name, no);
	if (*wn < 600)
		*wn += (size_t)snprintf(why + *wn, 600 - *wn, "%s%s %s", *wn ? "; " : "", name, no);
	return 0;
}

int select_algo(const struct cs_shape *sh, uint64_t bytes, const struct algo_opts *o,
		const struct algo **out)
{
	const struct clause *c = per_coll[sh->coll].set ? &per_coll[sh->coll] : &all_colls;
	const char *const *pref = defaults(sh, bytes);
	char why[640] = "";
	size_t wn = 0;
	int rc = select_init();

	if (rc)
		return rc;
	/* an inclusive CCORE_ALGO list is also the order of preference */
	if (c->set && !c->exclude) {
		for (unsigned int i = 0; i < c->n; i++)
			if (consider(c->names[i], sh, o, c, why, &wn, out))
				return 0;
	} else {
		for (unsigned int i = 0; pref[i]; i++)
			if (consider(pref[i], sh, o, c, why, &wn, out))
				return 0;
		/* then anything else registered for this collective */
		for (unsigned int i = 0; i < algo_count(); i++) {
			const struct algo *a = algo_at(i);
			bool tried = false;

			for (unsigned int k = 0; pref[k]; k++)
				tried |= !strcmp(pref[k], a->name);
			if (!tried && (a->colls & (1u << sh->coll)) &&
			    consider(a->name, sh, o, c, why, &wn, out))
				return 0;
		}
	}
	return ccore_error(-ENOENT, "no algorithm can serve %s on %u ranks (count %llu): %s",
			   cs_coll_name(sh->coll), sh->nranks, (unsigned long long)sh->count, why);
}
