// SPDX-License-Identifier: MIT
/* The algorithm registry and helpers shared by generators. */
#include "algo.h"

#include <string.h>

extern const struct algo algo_ring;

/* Each registry_*.c lists a family of algorithms, NULL-terminated. */
extern const struct algo *const algo_registry_a[];
extern const struct algo *const algo_registry_b[];

static const struct algo *const core_algos[] = { &algo_ring, NULL };
static const struct algo *const *const registries[] = {
	core_algos, algo_registry_a, algo_registry_b,
};

static const struct algo *table[64];
static unsigned int table_len;

static void build_table(void)
{
	if (table_len)
		return;
	for (unsigned int r = 0; r < sizeof(registries) / sizeof(registries[0]); r++)
		for (const struct algo *const *a = registries[r]; *a && table_len < 64; a++)
			table[table_len++] = *a;
}

unsigned int algo_count(void)
{
	build_table();
	return table_len;
}

const struct algo *algo_at(unsigned int i)
{
	build_table();
	return i < table_len ? table[i] : NULL;
}

const struct algo *algo_find(const char *name, unsigned int coll)
{
	build_table();
	for (unsigned int i = 0; i < table_len; i++)
		if (!strcmp(table[i]->name, name) && (table[i]->colls & (1u << coll)))
			return table[i];
	return NULL;
}

void algo_block(uint64_t count, uint32_t n, uint32_t c, uint64_t *off, uint64_t *len)
{
	uint64_t per = (count + n - 1) / n, start = per * c;

	*off = start < count ? start : count;
	*len = start < count ? (count - start < per ? count - start : per) : 0;
}

uint32_t algo_slices(uint64_t len, uint32_t slices, uint64_t *off, uint64_t *slen)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < slices; i++) {
		algo_block(len, slices, i, &off[n], &slen[n]);
		n += slen[n] > 0;
	}
	return n;
}

const char *algo_rejects_bad_root(const struct cs_shape *s, const struct algo_opts *o)
{
	(void)o;
	if (s->root >= s->nranks)
		return "the root is not a rank of the group";
	return NULL;
}

bool algo_trivial(struct cs_sched *s)
{
	const struct cs_shape *sh = &s->shape;

	if (!sh->count)
		return true;
	if (sh->nranks != 1)
		return false;
	if (!sh->in_place)
		cs_copy(s, 0, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), sh->count);
	return true;
}
