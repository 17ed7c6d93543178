// SPDX-License-Identifier: MIT
/*
 * Embedding sub-schedules into a parent schedule (see hier_embed.h).
 *
 * The seam pass mirrors the verifier's ordering rule: step j is ordered
 * after i < j if it depends on i transitively, or if i is a receive and j
 * is not.  For every appended step it computes what it is already ordered
 * after, collects the earlier steps it conflicts with that are not among
 * them, keeps only the latest of those (the ones no other candidate is
 * ordered after) and depends on them.  The earlier steps it may conflict
 * with come from an index of where each step touches storage, not from
 * a scan of all of them: a rank of a 1024-rank hierarchical AllReduce has
 * hundreds of steps, and a scan per step made the schedule take seconds.
 */
#include "hier_embed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool hier_is_recv(uint8_t op)
{
	return op == CS_RECV_OP || op == CS_RECV_REDUCE;
}

/* --- translating ----------------------------------------------------------- */

static int hier_ref(const struct hier_map map[CS_NBUF], struct cs_ref in, uint64_t count,
		    struct cs_ref *out)
{
	const struct hier_map *m;
	uint64_t off = in.off;

	if (in.buf >= CS_NBUF)
		return -1;
	m = &map[in.buf];
	if (m->seg) {
		uint64_t seg = in.off / m->seg, within = in.off % m->seg;

		if (within + count > m->seg)
			return -1;
		off = seg * m->stride + within;
	}
	*out = cs_at((enum cs_buf)m->buf, m->off + off);
	return 0;
}

/* The sub-step @in as a parent step: peers, buffers, deps via @idx. */
static int hier_translate(const struct cs_step *in, const uint32_t *group,
			  const struct hier_map map[CS_NBUF], const uint32_t *idx,
			  struct cs_step *out)
{
	*out = *in;
	if (in->op > CS_RECV_REDUCE || in->ndeps > CS_MAX_DEPS)
		return -1;
	if (in->op >= CS_SEND_OP)
		out->peer = group[in->peer];
	if (cs_op_writes_dst(in->op) && hier_ref(map, in->dst, in->count, &out->dst))
		return -1;
	if (cs_op_reads_src(in->op) && hier_ref(map, in->src, in->count, &out->src))
		return -1;
	if (in->op == CS_REDUCE && hier_ref(map, in->src2, in->count, &out->src2))
		return -1;
	for (uint32_t d = 0; d < in->ndeps; d++)
		out->deps[d] = idx[in->deps[d]];
	return 0;
}

/* Append @st to parent rank @r through the builders; its index. */
static uint32_t hier_push(struct cs_sched *p, uint32_t r, const struct cs_step *st)
{
	uint32_t j;

	switch (st->op) {
	case CS_COPY:
		j = cs_copy(p, r, st->dst, st->src, st->count);
		break;
	case CS_REDUCE:
		j = cs_reduce(p, r, st->dst, st->src, st->src2, st->count);
		break;
	case CS_SEND_OP:
		j = cs_send(p, r, st->peer, st->src, st->count);
		break;
	case CS_RECV_OP:
		j = cs_recv(p, r, st->peer, st->dst, st->count);
		break;
	default:
		j = cs_recv_reduce(p, r, st->peer, st->dst, st->src, st->count);
		break;
	}
	for (uint32_t d = 0; d < st->ndeps && !p->oom; d++)
		cs_dep(p, r, j, st->deps[d]);
	return j;
}

/* --- seams ------------------------------------------------------------------- */

/*
 * Where the rank's steps touch storage.  Storage is cut into buckets of
 * `width` elements, each with a list of the touches that overlap it
 * (latest first), so two overlapping touches always share a bucket; with
 * the width at least the longest step, a touch is in at most two lists.
 */
struct hier_touch {
	struct cs_access a;
	uint32_t step;
};

struct hier_link {
	uint32_t touch;
	uint32_t older;		/* the next link of the bucket + 1; 0 ends */
};

struct hier_bucket {
	uint64_t key;		/* hier_key(); 0: free */
	uint32_t newest;	/* its first link + 1 */
};

struct hier_seam {
	struct cs_sched *p;
	uint32_t r;
	size_t words;
	uint64_t *reach;	/* per step: the steps it is ordered after */
	uint64_t *recvs;	/* receives so far, with what they are after */
	uint64_t *tmp;
	uint32_t base;		/* the rank's steps before this embedding */
	uint64_t width;		/* bucket width, elements */
	struct hier_touch *touch;
	uint32_t ntouch, touch_cap;
	struct hier_link *link;
	uint32_t nlink, link_cap;
	struct hier_bucket *bucket;
	uint32_t nbucket, nused;	/* a power of two, kept at most half full */
	uint32_t *found;	/* scratch: conflicting steps of one query */
	uint32_t nfound, found_cap;
	/* per peer: the latest own credit point of the receives from it so
	 * far (cs_credit_point() without a scan of the rank) */
	uint32_t *peer_point;
};

static bool hier_bit(const uint64_t *set, uint32_t i)
{
	return set[i / 64] >> (i % 64) & 1;
}

/* What a step @st at the end of the rank is ordered after. */
static void hier_after(const struct hier_seam *z, const struct cs_step *st, uint64_t *out)
{
	memset(out, 0, z->words * sizeof(*out));
	for (uint32_t d = 0; d < st->ndeps; d++) {
		const uint64_t *rd = z->reach + (size_t)st->deps[d] * z->words;

		for (size_t w = 0; w < z->words; w++)
			out[w] |= rd[w];
		out[st->deps[d] / 64] |= 1ull << (st->deps[d] % 64);
	}
	if (!hier_is_recv(st->op))
		for (size_t w = 0; w < z->words; w++)
			out[w] |= z->recvs[w];
}

/* --- the touch index ---------------------------------------------------------- */

/* Room for one more element in *@arr (of @size bytes each); -1 if none. */
static int hier_room(void **arr, uint32_t n, uint32_t *cap, size_t size)
{
	void *p;
	uint32_t c = *cap ? 2 * *cap : 64;

	if (n < *cap)
		return 0;
	p = realloc(*arr, c * size);
	if (!p)
		return -1;
	*arr = p;
	*cap = c;
	return 0;
}

static uint64_t hier_key(uint8_t store, uint64_t b)
{
	return b * CS_NBUF + store + 1;
}

static struct hier_bucket *hier_bucket_of(const struct hier_seam *z, uint64_t key)
{
	uint32_t k = (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32) & (z->nbucket - 1);

	while (z->bucket[k].key && z->bucket[k].key != key)
		k = (k + 1) & (z->nbucket - 1);
	return &z->bucket[k];
}

/* A bucket for @key, made if need be; NULL if out of memory. */
static struct hier_bucket *hier_bucket_make(struct hier_seam *z, uint64_t key)
{
	struct hier_bucket *bk;

	if (2 * (z->nused + 1) > z->nbucket) {
		struct hier_bucket *old = z->bucket;
		uint32_t n = z->nbucket;

		z->bucket = calloc(n ? 2 * (size_t)n : 256, sizeof(*z->bucket));
		if (!z->bucket) {
			z->bucket = old;
			return NULL;
		}
		z->nbucket = n ? 2 * n : 256;
		for (uint32_t i = 0; i < n; i++)
			if (old[i].key)
				*hier_bucket_of(z, old[i].key) = old[i];
		free(old);
	}
	bk = hier_bucket_of(z, key);
	if (!bk->key) {
		bk->key = key;
		z->nused++;
	}
	return bk;
}

/* The buckets an access overlaps: first and last. */
static void hier_span(const struct hier_seam *z, const struct cs_access *a, uint64_t *first,
		      uint64_t *last)
{
	*first = a->lo / z->width;
	*last = a->hi > a->lo ? (a->hi - 1) / z->width : *first;
}

/* Index where step @j of the rank touches storage; -1 if out of memory. */
static int hier_index_step(struct hier_seam *z, uint32_t j)
{
	struct cs_access as[3];
	int na = cs_step_accesses(&z->p->shape, z->r, &z->p->ranks[z->r].steps[j], as);

	for (int i = 0; i < na; i++) {
		uint64_t b, last;

		if (hier_room((void **)&z->touch, z->ntouch, &z->touch_cap, sizeof(*z->touch)))
			return -1;
		z->touch[z->ntouch] = (struct hier_touch){ as[i], j };
		for (hier_span(z, &as[i], &b, &last); b <= last; b++) {
			struct hier_bucket *bk = hier_bucket_make(z, hier_key(as[i].store, b));

			if (!bk || hier_room((void **)&z->link, z->nlink, &z->link_cap,
					     sizeof(*z->link)))
				return -1;
			z->link[z->nlink] = (struct hier_link){ z->ntouch, bk->newest };
			bk->newest = ++z->nlink;
		}
		z->ntouch++;
	}
	return 0;
}

static int hier_found_add(struct hier_seam *z, uint32_t step)
{
	if (z->nfound == z->found_cap) {
		uint32_t cap = z->found_cap ? 2 * z->found_cap : 16;
		uint32_t *f = realloc(z->found, cap * sizeof(*f));

		if (!f)
			return -1;
		z->found = f;
		z->found_cap = cap;
	}
	z->found[z->nfound++] = step;
	return 0;
}

static int hier_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * Into z->found, latest first and once each: the earlier steps that
 * conflict with @as (same storage, overlapping, not both reading) and
 * that z->tmp does not say are ordered before.
 */
static int hier_find_conflicts(struct hier_seam *z, const struct cs_access *as, int ns)
{
	uint32_t k = 0;

	z->nfound = 0;
	for (int i = 0; i < ns; i++) {
		uint64_t b, last;

		for (hier_span(z, &as[i], &b, &last); b <= last && z->nbucket; b++) {
			const struct hier_bucket *bk = hier_bucket_of(z, hier_key(as[i].store, b));

			for (uint32_t l = bk->key ? bk->newest : 0; l; l = z->link[l - 1].older) {
				const struct hier_touch *h = &z->touch[z->link[l - 1].touch];

				if (hier_bit(z->tmp, h->step) ||
				    !cs_accesses_conflict(&as[i], 1, &h->a, 1))
					continue;
				if (hier_found_add(z, h->step))
					return -1;
			}
		}
	}
	if (z->nfound > 1)
		qsort(z->found, z->nfound, sizeof(*z->found), hier_desc);
	for (uint32_t i = 0; i < z->nfound; i++)
		if (!k || z->found[k - 1] != z->found[i])
			z->found[k++] = z->found[i];
	z->nfound = k;
	return 0;
}

/*
 * The latest earlier steps that @st, about to be appended, conflicts with
 * and is not ordered after; -1 if there are too many (or out of memory).
 */
static int hier_conflicts(struct hier_seam *z, const struct cs_step *st, uint32_t *cand)
{
	struct cs_access as[3];
	int ns = cs_step_accesses(&z->p->shape, z->r, st, as), nc = 0;

	hier_after(z, st, z->tmp);
	if (hier_find_conflicts(z, as, ns)) {
		z->p->oom = true;
		return -1;
	}
	for (uint32_t f = 0; f < z->nfound; f++) {
		uint32_t i = z->found[f];
		bool covered = false;

		/* latest first: a later candidate ordered after i covers it */
		for (int c = 0; c < nc && !covered; c++)
			covered = hier_bit(z->reach + (size_t)cand[c] * z->words, i);
		if (covered)
			continue;
		if (nc == CS_MAX_DEPS)
			return -1;
		cand[nc++] = i;
	}
	return nc;
}

/* Record the ordering of the rank's step @j, and where it touches storage. */
static void hier_settle(struct hier_seam *z, uint32_t j)
{
	const struct cs_step *st = &z->p->ranks[z->r].steps[j];
	uint64_t *rj = z->reach + (size_t)j * z->words;

	if (hier_index_step(z, j))
		z->p->oom = true;
	hier_after(z, st, rj);
	if (hier_is_recv(st->op)) {
		uint32_t own = cs_own_credit_point(&z->p->ranks[z->r], j);

		if (own > z->peer_point[st->peer])
			z->peer_point[st->peer] = own;
		for (size_t w = 0; w < z->words; w++)
			z->recvs[w] |= rj[w];
		z->recvs[j / 64] |= 1ull << (j % 64);
	}
}

/*
 * Would the seam's dependencies move receive @j's credit point
 * (cs_credit_point()) later than its generator put it (its first @own
 * deps) and past the earlier phases, which complete without this one?
 */
static bool hier_credit_moved(const struct hier_seam *z, uint32_t j, uint32_t own)
{
	struct cs_step *st = &z->p->ranks[z->r].steps[j];
	uint32_t all = st->ndeps, with, without, floor = z->peer_point[st->peer];

	with = cs_own_credit_point(&z->p->ranks[z->r], j);
	st->ndeps = own;
	without = cs_own_credit_point(&z->p->ranks[z->r], j);
	st->ndeps = all;
	/* what cs_credit_point() says: the earlier receives from the peer too */
	with = with > floor ? with : floor;
	without = without > floor ? without : floor;
	return with > without && with > z->base;
}

/*
 * Append @st with dependencies on the steps it conflicts with; its index.
 * -1 on failure, -2 (nothing appended) if @st is a receive whose credit
 * they would move.
 */
static int64_t hier_place(struct hier_seam *z, struct cs_step *st)
{
	uint32_t cand[CS_MAX_DEPS], own = st->ndeps, j;
	int nc = hier_conflicts(z, st, cand);

	if (nc < 0)
		return hier_is_recv(st->op) ? -2 : -1;
	for (int c = 0; c < nc; c++) {
		if (st->ndeps == CS_MAX_DEPS)
			return hier_is_recv(st->op) ? -2 : -1;
		st->deps[st->ndeps++] = cand[c];
	}
	j = hier_push(z->p, z->r, st);
	if (z->p->oom)
		return -1;
	if (nc && hier_is_recv(st->op) && hier_credit_moved(z, j, own)) {
		z->p->ranks[z->r].n--;
		return -2;
	}
	hier_settle(z, j);
	return z->p->oom ? -1 : (int64_t)j;
}

/*
 * A receive whose seam dependencies would hold back its credit is split:
 * it lands in a fresh TMP stage with no dependencies (credit in the
 * prologue) and a local copy or reduce, carrying them, moves the data
 * into place.  Holding the credit until a later point of this
 * sub-schedule can deadlock one that sends before it receives (a ring):
 * every rank's credit would wait for its own send.
 */
static int64_t hier_split(struct hier_seam *z, const struct cs_step *st, uint64_t *stage)
{
	struct cs_step rcv = *st, loc = *st;
	struct cs_ref at = cs_at(CS_TMP, *stage);

	rcv.op = CS_RECV_OP;
	rcv.dst = at;
	rcv.ndeps = 0;
	if (hier_place(z, &rcv) < 0)
		return -1;
	*stage += st->count;
	loc.peer = 0;
	if (st->op == CS_RECV_REDUCE) {
		loc.op = CS_REDUCE;
		loc.src2 = at;
	} else {
		loc.op = CS_COPY;
		loc.src = at;
	}
	return hier_place(z, &loc);
}

int hier_embed_rank(struct cs_sched *p, const struct cs_sched *sub, uint32_t sr,
		    const uint32_t *group, const struct hier_map map[CS_NBUF],
		    uint64_t stage_base, uint64_t *stage_used)
{
	const struct cs_rank *sk = &sub->ranks[sr];
	uint32_t pr = group[sr], base = p->ranks[pr].n, cap = base + 2 * sk->n;
	struct hier_seam z = { .p = p, .r = pr, .words = (cap + 63) / 64, .base = base,
			       .width = 1 };
	uint32_t *idx = malloc((sk->n + 1) * sizeof(*idx));
	uint64_t stage = stage_base;
	int rc = 0;

	z.peer_point = calloc(p->shape.nranks, sizeof(*z.peer_point));

	/* each row is written before it is read; only the receives start empty */
	z.reach = malloc(((size_t)(cap + 2) * z.words + 1) * sizeof(uint64_t));
	if (!z.reach || !idx || !z.peer_point) {
		p->oom = true;
		rc = -ENOMEM;
		goto out;
	}
	z.recvs = z.reach + (size_t)cap * z.words;
	z.tmp = z.recvs + z.words;
	memset(z.recvs, 0, z.words * sizeof(*z.recvs));
	for (uint32_t j = 0; j < base; j++)
		if (p->ranks[pr].steps[j].count > z.width)
			z.width = p->ranks[pr].steps[j].count;
	for (uint32_t i = 0; i < sk->n; i++)
		if (sk->steps[i].count > z.width)
			z.width = sk->steps[i].count;
	for (uint32_t j = 0; j < base && !p->oom; j++)
		hier_settle(&z, j);
	rc = p->oom ? -ENOMEM : 0;
	for (uint32_t i = 0; i < sk->n && !rc; i++) {
		struct cs_step st, orig;
		int64_t j;

		if (hier_translate(&sk->steps[i], group, map, idx, &orig)) {
			rc = -EINVAL;
			break;
		}
		st = orig;
		j = hier_place(&z, &st);
		if (j == -2)
			j = hier_split(&z, &orig, &stage);
		if (j < 0)
			rc = p->oom ? -ENOMEM : -E2BIG;
		else
			idx[i] = (uint32_t)j;
	}
	if (stage - stage_base > *stage_used)
		*stage_used = stage - stage_base;
out:
	free(z.reach);
	free(z.touch);
	free(z.link);
	free(z.bucket);
	free(z.found);
	free(z.peer_point);
	free(idx);
	return rc;
}
