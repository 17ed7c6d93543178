// SPDX-License-Identifier: GPL-2.0
/*
 * Symbol table: a chained hash table that doubles as it fills, since
 * generated programs can carry thousands of labels.
 */
#include <stdlib.h>
#include <string.h>

#include "ccas_sym.h"

#define CCAS_SYM_MIN_BUCKETS 64

static size_t hash(const char *s, size_t len)
{
	size_t h = 2166136261u;	/* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

void ccas_symtab_init(struct ccas_symtab *t)
{
	memset(t, 0, sizeof(*t));
}

void ccas_symtab_fini(struct ccas_symtab *t)
{
	for (size_t b = 0; b < t->nbuckets; b++) {
		struct ccas_sym *s = t->buckets[b], *next;

		for (; s; s = next) {
			next = s->next;
			free(s->name);
			free(s);
		}
	}
	free(t->buckets);
	memset(t, 0, sizeof(*t));
}

struct ccas_sym *ccas_sym_find(const struct ccas_symtab *t, const char *name,
			       size_t len)
{
	struct ccas_sym *s;

	if (!t->nbuckets)
		return NULL;
	for (s = t->buckets[hash(name, len) % t->nbuckets]; s; s = s->next)
		if (s->len == len && memcmp(s->name, name, len) == 0)
			return s;
	return NULL;
}

static int grow(struct ccas_symtab *t)
{
	size_t n = t->nbuckets ? t->nbuckets * 2 : CCAS_SYM_MIN_BUCKETS;
	struct ccas_sym **b = calloc(n, sizeof(*b));

	if (!b)
		return -1;
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct ccas_sym *s = t->buckets[i], *next;

		for (; s; s = next) {
			size_t h = hash(s->name, s->len) % n;

			next = s->next;
			s->next = b[h];
			b[h] = s;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = n;
	return 0;
}

struct ccas_sym *ccas_sym_add(struct ccas_symtab *t, const char *name,
			      size_t len, enum ccas_sym_kind kind,
			      uint32_t value, unsigned long line)
{
	struct ccas_sym *s;
	size_t h;

	if (t->count >= t->nbuckets && grow(t))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->name = malloc(len ? len : 1);
	if (!s->name) {
		free(s);
		return NULL;
	}
	memcpy(s->name, name, len);
	s->len = len;
	s->kind = kind;
	s->value = value;
	s->line = line;
	h = hash(name, len) % t->nbuckets;
	s->next = t->buckets[h];
	t->buckets[h] = s;
	t->count++;
	return s;
}
