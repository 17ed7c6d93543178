// SPDX-License-Identifier: MIT
/* Helpers shared by generators (the registry is registry.c). */
#include "algo.h"

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

struct cs_sched *algo_rooted_gen(const struct cs_shape *shape, const char *name, uint32_t slices,
				 algo_rank_part *bcast, algo_rank_part *reduce)
{
	struct cs_sched *s = cs_new(shape, name);

	if (!s || algo_trivial(s))
		return s;
	if (shape->coll == CS_REDUCE_COLL && shape->nranks > 2)
		s->tmp_count = shape->count;
	for (uint32_t r = 0; r < shape->nranks; r++)
		(shape->coll == CS_BROADCAST ? bcast : reduce)(s, r, slices);
	return s;
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
