// SPDX-License-Identifier: MIT
/*
 * Double Binary Tree AllReduce (reference: collective-algorithms.txt,
 * 5.2).  Two binary trees span the ranks; tree 0 reduces the first half of
 * the data to its root and broadcasts it back, tree 1 does the same for
 * the second half.  Each half is cut into o->slices slices that flow
 * through the tree as a pipeline.
 *
 * The trees.  Tree 0 is the in-order tree over positions 0..N-1: position
 * p > 0 with lowest set bit b hangs under (p ^ b) | 2b, or under p ^ b when
 * that is past the end; position 0 is the root and has one child.  Its
 * height is about log2(N); odd positions are its leaves, even positions
 * have children.  Tree 1 is
 * the same shape over different positions -- rank r sits at N-1-r for even
 * N (mirror) and at r+1 mod N for odd N (shift) -- which turns tree 0's
 * leaves into tree 1's interior ranks: each rank is interior in at most one
 * tree (one rank in both for odd N), so while one tree keeps a rank's
 * children busy the other needs only its parent link.
 *
 * Per slice, a leaf sends its input up.  An interior rank receive-reduces
 * its first child's partial sum onto its input in RECV, stages the second
 * child's in TMP (so both may land at once: a second receive-reduce into
 * RECV would have to depend on the first) and adds it with a local
 * reduction, then sends RECV up.  The root's RECV then holds the sum, and
 * it goes down the tree: each rank receives into RECV and forwards to its
 * children.  That receive overwrites what the rank sent up (interior ranks
 * always, leaves in place), so it depends on the up-send; sends after a
 * local reduction depend on it.
 *
 * Order and credits.  Time t of slice i: a rank of height h sends it up at
 * h + i; the root (height H) starts it down at H + i and a rank at depth d
 * receives it at H + i + d - 1.  Each rank's program runs through the
 * times in order, and within one: both trees' local reductions, then both
 * trees' sends, then both trees' receives.  A receive blocks the program
 * until its data is in, so were one tree's receives before the other
 * tree's sends of the same time, those sends would go a step late (the
 * reference's 2 ceil(log2 N) steps would become one more).  Receives from
 * children depend on nothing, so up-sends spend credits granted in the
 * prologue; a send down to a child waits for the credit of its receive
 * from the parent, which the child grants at its first receive after its
 * own up-send, at that time or earlier.  cs_verify() checks a schedule
 * cannot deadlock under the lowering's rules (algos_a_test runs it for
 * every N up to 40, and with 2 to 4 slices up to 16).
 */
#include "algo.h"
#include "algo_cost.h"

#include <stdlib.h>

#define NONE UINT32_MAX

struct tree {
	uint32_t *parent, *height, *depth, *nchild;
	uint32_t (*child)[2];
	uint32_t top;		/* the root's height */
};

struct dbt {
	struct cs_sched *s;
	uint32_t n, slices;
	uint64_t count;
	bool in_place;
	struct tree t[2];
	int64_t *up, *sum;	/* per tree and slice: up-send, last local reduce */
};

/* Parent of position @p > 0 in the in-order tree over @n positions. */
static uint32_t pos_parent(uint32_t p, uint32_t n)
{
	uint32_t b = p & (~p + 1), up = (p ^ b) | (b << 1);

	return up < n ? up : p ^ b;
}

static uint32_t pos_of(uint32_t r, uint32_t n, int which)
{
	if (!which)
		return r;
	return n % 2 ? (r + 1) % n : n - 1 - r;
}

static void tree_heights(struct tree *t, uint32_t n)
{
	for (uint32_t r = 0; r < n; r++) {
		uint32_t v = r, d = 0;

		while (t->parent[v] != NONE) {
			uint32_t u = t->parent[v];

			if (t->height[u] < t->height[v] + 1)
				t->height[u] = t->height[v] + 1;
			v = u;
			d++;
		}
		t->depth[r] = d;
	}
	for (uint32_t r = 0; r < n; r++)
		if (t->parent[r] == NONE)
			t->top = t->height[r];
}

static int tree_build(struct tree *t, uint32_t n, int which)
{
	uint32_t *rank_at = calloc(n, sizeof(*rank_at));

	t->parent = calloc(n, sizeof(*t->parent));
	t->height = calloc(n, sizeof(*t->height));
	t->depth = calloc(n, sizeof(*t->depth));
	t->nchild = calloc(n, sizeof(*t->nchild));
	t->child = calloc(n, sizeof(*t->child));
	if (!rank_at || !t->parent || !t->height || !t->depth || !t->nchild || !t->child) {
		free(rank_at);
		return -1;
	}
	for (uint32_t r = 0; r < n; r++)
		rank_at[pos_of(r, n, which)] = r;
	/* by position, so children come in position order */
	for (uint32_t p = 0; p < n; p++) {
		uint32_t r = rank_at[p], u;

		t->parent[r] = p ? rank_at[pos_parent(p, n)] : NONE;
		if (!p)
			continue;
		u = t->parent[r];
		t->child[u][t->nchild[u]++] = r;
	}
	free(rank_at);
	tree_heights(t, n);
	return 0;
}

static void tree_free(struct tree *t)
{
	free(t->parent);
	free(t->height);
	free(t->depth);
	free(t->nchild);
	free(t->child);
}

/* Slice @i of tree @w's half of the data. */
static void slice(const struct dbt *b, int w, uint32_t i, uint64_t *off, uint64_t *len)
{
	uint64_t hoff, hlen;

	algo_block(b->count, 2, (uint32_t)w, &hoff, &hlen);
	algo_block(hlen, b->slices, i, off, len);
	*off += hoff;
}

static void dep_on(struct dbt *b, uint32_t r, uint32_t st, int64_t on)
{
	if (on >= 0)
		cs_dep(b->s, r, st, (uint32_t)on);
}

/* Time @t of rank @r in tree @w: the local reductions that finish a sum. */
static void sums_at(struct dbt *b, uint32_t r, uint32_t t, int w)
{
	const struct tree *tr = &b->t[w];
	int64_t *sum = b->sum + (size_t)w * b->slices;
	uint64_t off, len;

	for (uint32_t i = 0; i < b->slices; i++) {
		slice(b, w, i, &off, &len);
		if (!len || tr->nchild[r] < 2 || tr->height[r] + i != t)
			continue;
		sum[i] = cs_reduce(b->s, r, cs_at(CS_RECV, off), cs_at(CS_RECV, off),
				   cs_at(CS_TMP, off), len);
	}
}

/* Time @t of rank @r in tree @w: the send up and the sends down. */
static void sends_at(struct dbt *b, uint32_t r, uint32_t t, int w)
{
	const struct tree *tr = &b->t[w];
	uint32_t h = tr->height[r], d = tr->depth[r], nc = tr->nchild[r];
	uint32_t par = tr->parent[r];
	int64_t *up = b->up + (size_t)w * b->slices, *sum = b->sum + (size_t)w * b->slices;
	uint64_t off, len;

	for (uint32_t i = 0; i < b->slices; i++) {
		slice(b, w, i, &off, &len);
		if (!len)
			continue;
		if (par != NONE && h + i == t) {
			up[i] = cs_send(b->s, r, par, cs_at(nc ? CS_RECV : CS_SEND, off), len);
			dep_on(b, r, (uint32_t)up[i], sum[i]);
		}
		for (uint32_t c = 0; c < nc && tr->top + i + d == t; c++) {
			uint32_t st = cs_send(b->s, r, tr->child[r][c], cs_at(CS_RECV, off), len);

			dep_on(b, r, st, par == NONE ? sum[i] : -1);
		}
	}
}

/* Time @t of rank @r in tree @w: the receives from the children and the parent. */
static void receives_at(struct dbt *b, uint32_t r, uint32_t t, int w)
{
	const struct tree *tr = &b->t[w];
	uint32_t d = tr->depth[r], nc = tr->nchild[r], par = tr->parent[r];
	int64_t *up = b->up + (size_t)w * b->slices;
	uint64_t off, len;

	for (uint32_t i = 0; i < b->slices; i++) {
		slice(b, w, i, &off, &len);
		if (!len)
			continue;
		for (uint32_t c = 0; c < nc; c++) {
			uint32_t k = tr->child[r][c];

			if (tr->height[k] + i != t)
				continue;
			if (c == 0)
				cs_recv_reduce(b->s, r, k, cs_at(CS_RECV, off), cs_at(CS_SEND, off),
					       len);
			else
				cs_recv(b->s, r, k, cs_at(CS_TMP, off), len);
		}
		if (par != NONE && tr->top + i + d - 1 == t) {
			uint32_t st = cs_recv(b->s, r, par, cs_at(CS_RECV, off), len);

			/* the up-send still reads RECV (or, in place, SEND) */
			if (nc || b->in_place)
				dep_on(b, r, st, up[i]);
		}
	}
}

/*
 * Rank @r's program, time by time: both trees' local reductions, then both
 * trees' sends, then both trees' receives.  A receive blocks the program
 * until its data is in, so a send of one tree must not come after a
 * receive of the other at the same time: it would go a step late.
 */
static void dbt_rank(struct dbt *b, uint32_t r)
{
	uint32_t end = 2 * (b->t[0].top > b->t[1].top ? b->t[0].top : b->t[1].top) + b->slices;

	for (size_t i = 0; i < 2 * (size_t)b->slices; i++)
		b->up[i] = b->sum[i] = -1;
	for (uint32_t t = 0; t <= end; t++) {
		for (int w = 0; w < 2; w++)
			sums_at(b, r, t, w);
		for (int w = 0; w < 2; w++)
			sends_at(b, r, t, w);
		for (int w = 0; w < 2; w++)
			receives_at(b, r, t, w);
	}
}

static struct cs_sched *dbt_gen(const struct cs_shape *shape, const struct algo_opts *o)
{
	struct dbt b = {
		.n = shape->nranks, .count = shape->count, .in_place = shape->in_place,
		.slices = o->slices ? o->slices : 1,
	};
	struct cs_sched *s = cs_new(shape, "dbt");

	if (!s || !b.count)
		return s;
	b.s = s;
	if (b.n == 1) {
		if (!b.in_place)
			cs_copy(s, 0, cs_at(CS_RECV, 0), cs_at(CS_SEND, 0), b.count);
		return s;
	}
	b.up = calloc(4 * (size_t)b.slices, sizeof(*b.up));
	b.sum = b.up ? b.up + 2 * (size_t)b.slices : NULL;
	if (!b.up || tree_build(&b.t[0], b.n, 0) || tree_build(&b.t[1], b.n, 1)) {
		cs_free(s);
		s = NULL;
		goto out;
	}
	for (uint32_t r = 0; r < b.n; r++) {
		if (b.t[0].nchild[r] == 2 || b.t[1].nchild[r] == 2)
			s->tmp_count = b.count;
		dbt_rank(&b, r);
	}
out:
	tree_free(&b.t[0]);
	tree_free(&b.t[1]);
	free(b.up);
	return s;
}

int algo_dbt_tree(uint32_t n, int which, uint32_t *parent, uint32_t *height, uint32_t *depth)
{
	struct tree t = { 0 };
	int rc = tree_build(&t, n, which);

	if (!rc)
		for (uint32_t r = 0; r < n; r++) {
			parent[r] = t.parent[r];
			height[r] = t.height[r];
			depth[r] = t.depth[r];
		}
	tree_free(&t);
	return rc;
}

static const char *dbt_rejects(const struct cs_shape *s, const struct algo_opts *o)
{
	(void)s;
	(void)o;
	return NULL;
}

const struct algo algo_dbt = {
	.name = "dbt",
	.colls = 1u << CS_ALLREDUCE,
	.rejects = dbt_rejects,
	.gen = dbt_gen,
	.cost = cost_dbt,
	.knobs = ALGO_KNOB_SLICES,
};
