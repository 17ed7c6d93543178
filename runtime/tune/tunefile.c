// SPDX-License-Identifier: MIT
/* The tuning file (see tunefile.h). */
#include "tunefile.h"
#include "algos/algo.h"
#include "log.h"
#include "ccore_internal.h"
#include "util/size.h"
#include "util/grow.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "op,min_bytes,max_bytes,nodes,ranks,algorithm,slices,channels"
#define NCOLS 8

static const char *const cols[NCOLS] = {
	"op", "min_bytes", "max_bytes", "nodes", "ranks", "algorithm", "slices", "channels",
};

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (*s && isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A number with an optional K/M/G suffix; "*" is @any.  0 if good. */
static int number(const char *s, bool suffix, uint64_t any, uint64_t *out)
{
	size_t n = strlen(s);

	if (!strcmp(s, "*")) {
		*out = any;
		return 0;
	}
	/* size_parse() takes a suffix: without one the number ends in a digit */
	if (!n || (!suffix && !isdigit((unsigned char)s[n - 1])))
		return -1;
	return size_parse(s, out) ? -1 : 0;
}

/* Parse one rule; NULL if good, else what is wrong (in @err). */
static const char *parse_rule(char *line, struct tunefile_rule *r, char *err, size_t len)
{
	char *f[NCOLS + 1], *p = line;
	unsigned int n = 0;
	uint64_t v[NCOLS];
	const struct algo *a = NULL;

	/* strsep keeps empty fields, which are errors of their own */
	while (p && n <= NCOLS)
		f[n++] = trim(strsep(&p, ","));
	if (n != NCOLS || p) {
		snprintf(err, len, "%u columns, expected %u (%s)", p ? n + 1 : n, NCOLS, HEADER);
		return err;
	}
	*r = (struct tunefile_rule){ .coll = -1 };
	if (strcmp(f[0], "*")) {
		r->coll = cs_coll_parse(f[0]);
		if (r->coll < 0 || r->coll >= CS_NCOLL) {
			snprintf(err, len, "column op: unknown collective '%s' (allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv or *)",
				 f[0]);
			return err;
		}
	}
	for (unsigned int c = 1; c < NCOLS; c++) {
		bool bytes = c <= 2, knob = c >= 6;

		if (c == 5)
			continue;
		if (number(f[c], bytes, bytes && c == 2 ? UINT64_MAX : 0, &v[c]) ||
		    (!bytes && strcmp(f[c], "*") && (v[c] < 1 || v[c] > (knob ? 64 : 1u << 20)))) {
			snprintf(err, len, "column %s: '%s' is not %s or *", cols[c], f[c],
				 bytes ? "a number of bytes (optionally with K, M or G)" :
				 knob ? "a number from 1 to 64" : "a number from 1 to 1048576");
			return err;
		}
	}
	if (v[1] > v[2]) {
		snprintf(err, len, "min_bytes %s is above max_bytes %s", f[1], f[2]);
		return err;
	}
	for (unsigned int i = 0; i < algo_count() && !a; i++)
		if (!strcmp(algo_at(i)->name, f[5]) &&
		    (r->coll < 0 || (algo_at(i)->colls & (1u << r->coll))))
			a = algo_at(i);
	if (!a || strlen(f[5]) >= sizeof(r->algo)) {
		snprintf(err, len, "column algorithm: '%s' is not a registered algorithm that serves %s",
			 f[5], r->coll < 0 ? "any collective" : cs_coll_name((unsigned int)r->coll));
		return err;
	}
	strcpy(r->algo, f[5]);
	r->min_bytes = v[1];
	r->max_bytes = v[2];
	r->nodes = (uint32_t)v[3];
	r->ranks = (uint32_t)v[4];
	r->slices = (uint32_t)v[6];
	r->channels = (uint32_t)v[7];
	return NULL;
}

static int add_rule(struct tunefile *tf, const struct tunefile_rule *r, uint32_t *cap)
{
	if (rt_grow((void **)&tf->rules, cap, tf->n, sizeof(*tf->rules), 16))
		return ccore_error(-ENOMEM, "out of memory");
	tf->rules[tf->n++] = *r;
	return 0;
}

int tunefile_load(const char *path, struct tunefile *tf)
{
	char buf[1024], err[300], first[400] = "";
	uint32_t line = 0, bad = 0, cap = 0;
	bool header = false;
	FILE *fp;
	int rc = 0;

	memset(tf, 0, sizeof(*tf));
	snprintf(tf->path, sizeof(tf->path), "%s", path);
	fp = fopen(path, "r");
	if (!fp)
		return ccore_error(-errno, "CCORE_TUNER_FILE=%s: cannot open it: %s", path,
				   strerror(errno));
	while (!rc && fgets(buf, sizeof(buf), fp)) {
		struct tunefile_rule r;
		char *l = trim(buf);
		const char *no = NULL;

		line++;
		if (!*l || *l == '#')
			continue;
		if (!header) {
			header = true;
			if (strcmp(l, HEADER))
				no = "the first line must be the header " HEADER;
		} else {
			no = parse_rule(l, &r, err, sizeof(err));
			if (!no) {
				r.line = line;
				rc = add_rule(tf, &r, &cap);
			}
		}
		if (no) {
			log_msg(LOG_WARN, "CCORE_TUNER_FILE: %s:%u: %s", path, line, no);
			if (!bad++)
				snprintf(first, sizeof(first), "%s:%u: %s", path, line, no);
		}
	}
	fclose(fp);
	if (!rc && !header)
		rc = ccore_error(-EINVAL, "CCORE_TUNER_FILE: %s: empty; the first line must be the header %s",
				 path, HEADER);
	else if (!rc && bad)
		rc = ccore_error(-EINVAL, "CCORE_TUNER_FILE: %s%s", first,
				 bad > 1 ? " (and more bad lines, each logged)" : "");
	if (rc)
		tunefile_free(tf);
	return rc;
}

void tunefile_free(struct tunefile *tf)
{
	free(tf->rules);
	tf->rules = NULL;
	tf->n = 0;
}

const struct tunefile_rule *tunefile_match(const struct tunefile *tf, unsigned int coll,
					   uint64_t bytes, uint32_t nodes, uint32_t ranks)
{
	for (uint32_t i = 0; i < tf->n; i++) {
		const struct tunefile_rule *r = &tf->rules[i];

		if ((r->coll < 0 || (unsigned int)r->coll == coll) && bytes >= r->min_bytes &&
		    bytes <= r->max_bytes && (!r->nodes || r->nodes == nodes) &&
		    (!r->ranks || r->ranks == ranks))
			return r;
	}
	return NULL;
}
