// SPDX-License-Identifier: MIT
/*
 * The verifier's checks of a schedule with repeats, without writing them
 * out (a ring AllReduce over 1024 ranks in 64 slices is 268 million steps
 * unrolled).  An iteration's refs and peer are affine in the iteration, so:
 *   1. structure: each template's op, count and dependencies once; its
 *      refs in their buffers at the first and the last iteration (then at
 *      every one); its peer another rank at every iteration (solved, not
 *      tried); a dependency's iteration exists for the first and the last;
 *   2. matching: per pair of ranks, the sender's sends and the receiver's
 *      receives are runs of a repeat's pattern, compared one common period
 *      at a time and the identical periods after it skipped: a send without
 *      its receive is a send that never gets a credit, and the verifier
 *      names the rank, step, iteration and peer;
 *   3. iterations: two iterations of a body that may run concurrently
 *      never touch the same elements (one writing).
 * Hazards within an iteration, progress and the postcondition are checked
 * on the unrolled schedule, where cs_verify() can afford it.
 */
#include "cs_rolled.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

struct rolled {
	const struct cs_sched *s;
	char *err;
	size_t errlen;
	uint64_t size[CS_NBUF];
};

static int fail(struct rolled *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct rolled *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->err, v->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool is_transfer(uint8_t op)
{
	return op >= CS_SEND_OP && op <= CS_RECV_REDUCE;
}

static bool is_recv(uint8_t op)
{
	return op == CS_RECV_OP || op == CS_RECV_REDUCE;
}

static uint32_t times_of(const struct cs_repeat *rp)
{
	return rp ? rp->times : 1;
}

/* --- 1. structure ------------------------------------------------------------ */

static int check_ref(struct rolled *v, uint32_t r, uint32_t t, const struct cs_repeat *rp,
		     const char *what, struct cs_ref ref, uint64_t count)
{
	uint64_t last = times_of(rp) - 1;

	if (ref.buf >= CS_NBUF)
		return fail(v, "rank %u step %u: %s names buffer %u (send, recv, tmp)", r, t, what,
			    ref.buf);
	/* affine in the iteration: the ends bound every one */
	for (int end = 0; end < 2; end++) {
		uint64_t k = end ? last : 0;
		int64_t off = (int64_t)ref.off + (rp ? (int64_t)k * rp->stride[ref.buf] : 0);

		if (off < 0 || (uint64_t)off > v->size[ref.buf] ||
		    count > v->size[ref.buf] - (uint64_t)off)
			return fail(v, "rank %u step %u iteration %llu: %s [%lld, +%llu) is outside its buffer of %llu elements",
				    r, t, (unsigned long long)k, what, (long long)off,
				    (unsigned long long)count, (unsigned long long)v->size[ref.buf]);
	}
	return 0;
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * The first iteration k < @times at which peer + k * @stride = @r (mod @n),
 * or @times if none: with g = gcd(stride, n), k = (r - peer) / g times the
 * inverse of stride / g, mod n / g.
 */
static uint64_t first_self(uint32_t peer, int32_t stride, uint32_t r, uint32_t n, uint64_t times)
{
	int64_t st = ((int64_t)stride % n + n) % n, d = ((int64_t)r - peer + n) % n;
	int64_t old_r, rem, old_s = 1, s = 0, m;
	uint64_t g, k;

	if (!st)
		return d ? times : 0;
	g = gcd((uint64_t)st, n);
	if ((uint64_t)d % g)
		return times;
	m = (int64_t)(n / g);
	/* the inverse of st / g mod m, by extended Euclid */
	old_r = st / (int64_t)g % m;
	rem = m;
	while (rem) {
		int64_t q = old_r / rem, t;

		t = old_r - q * rem;
		old_r = rem;
		rem = t;
		t = old_s - q * s;
		old_s = s;
		s = t;
	}
	k = (uint64_t)(d / (int64_t)g % m) * (uint64_t)((old_s % m + m) % m) % (uint64_t)m;
	return k < times ? k : times;
}

static int check_deps(struct rolled *v, uint32_t r, uint32_t t)
{
	const struct cs_rank *rk = &v->s->ranks[r];
	const struct cs_step *st = &rk->steps[t];
	const struct cs_repeat *rp = cs_repeat_of(rk, t);

	for (uint32_t d = 0; d < st->ndeps; d++) {
		uint32_t u = st->deps[d];
		int32_t it = st->dep_iter[d];
		const struct cs_repeat *ru = u < rk->n ? cs_repeat_of(rk, u) : NULL;

		if (u >= rk->n)
			return fail(v, "rank %u step %u: depends on step %u, which does not exist", r,
				    t, u);
		if ((st->dep_fixed & 1u << d) && (!ru || ru == rp))
			return fail(v, "rank %u step %u: names fixed iteration %d of step %u, which is not of another repeat",
				    r, t, it, u);
		if (st->dep_fixed & 1u << d) {
			if (u >= t || (rp && u >= rp->first))
				return fail(v, "rank %u step %u: depends on step %u, which is not earlier",
					    r, t, u);
			if (it < 0 || it >= (int64_t)ru->times)
				return fail(v, "rank %u step %u: depends on iteration %d of step %u, which runs %u times",
					    r, t, it, u, ru->times);
			continue;
		}
		if (ru && ru == rp) {
			/* this iteration's earlier steps, or any step of earlier iterations */
			if (it > 0 || (!it && u >= t))
				return fail(v, "rank %u step %u: depends on step %u of iteration %+d, which is not earlier",
					    r, t, u, it);
			continue;
		}
		if (!ru && it)
			return fail(v, "rank %u step %u: names iteration %+d of step %u, which repeats nothing",
				    r, t, it, u);
		if (u >= t || (rp && u >= rp->first))
			return fail(v, "rank %u step %u: depends on step %u, which is not earlier", r,
				    t, u);
		if (ru) {
			int64_t lo = it, hi = (int64_t)times_of(rp) - 1 + it;

			if (lo < 0 || hi >= ru->times)
				return fail(v, "rank %u step %u iteration %lld: depends on iteration %lld of step %u, which runs %u times",
					    r, t, lo < 0 ? (long long)-it : (long long)(times_of(rp) - 1),
					    (long long)(lo < 0 ? 0 : hi), u, ru->times);
		}
	}
	return 0;
}

static int check_rank(struct rolled *v, uint32_t r)
{
	const struct cs_rank *rk = &v->s->ranks[r];
	uint32_t n = v->s->shape.nranks;
	int rc = 0;

	for (uint32_t i = 0; i < rk->nreps; i++) {
		const struct cs_repeat *rp = &rk->reps[i];

		if (!rp->len || !rp->times || rp->first > rk->n || rp->len > rk->n - rp->first ||
		    (i && rk->reps[i - 1].first + rk->reps[i - 1].len > rp->first))
			return fail(v, "rank %u repeat %u: body [%u, +%u) x%u is empty, outside the %u steps or overlaps the one before",
				    r, i, rp->first, rp->len, rp->times, rk->n);
	}
	for (uint32_t t = 0; t < rk->n && !rc; t++) {
		const struct cs_step *st = &rk->steps[t];
		const struct cs_repeat *rp = cs_repeat_of(rk, t);

		if (st->op > CS_DIVIDE)
			return fail(v, "rank %u step %u: unknown op %u", r, t, st->op);
		if (st->op == CS_DIVIDE && rp)
			return fail(v, "rank %u step %u: a divide in a repeat (it waits for everything before it)",
				    r, t);
		if (t && rk->steps[t - 1].op == CS_DIVIDE && st->op != CS_DIVIDE)
			return fail(v, "rank %u step %u: only divide steps may follow a divide", r, t);
		if (!st->count)
			return fail(v, "rank %u step %u: count is 0", r, t);
		if (is_transfer(st->op)) {
			uint64_t k = st->peer < n ?
				     first_self(st->peer, rp ? rp->peer_stride : 0, r, n, times_of(rp)) : 0;

			if (st->peer >= n || k < times_of(rp))
				return fail(v, "rank %u step %u iteration %llu: peer %u is not another rank (0..%u)",
					    r, t, (unsigned long long)k, st->peer >= n ? st->peer : r, n - 1);
		}
		rc = check_deps(v, r, t);
		if (!rc && cs_op_writes_dst(st->op))
			rc = check_ref(v, r, t, rp, "dst", st->dst, st->count);
		if (!rc && cs_op_reads_src(st->op))
			rc = check_ref(v, r, t, rp, "src", st->src, st->count);
		if (!rc && st->op == CS_REDUCE)
			rc = check_ref(v, r, t, rp, "src2", st->src2, st->count);
	}
	return rc;
}

/* --- 2. matching ---------------------------------------------------------------- */

struct cursor {
	const struct cs_stream *st;
	uint32_t run, j;		/* run, template within its pattern */
	uint64_t k;			/* iteration within the run */
	uint64_t done;			/* transfers passed */
};

static bool at_end(const struct cursor *c)
{
	return c->run == c->st->nruns;
}

static uint32_t tmpl_of(const struct cursor *c)
{
	const struct cs_stream_run *rn = &c->st->runs[c->run];

	return c->st->tmpl[rn->at + c->j];
}

static uint64_t iter_of(const struct cursor *c)
{
	return c->st->runs[c->run].k0 + c->k;
}

static void advance(struct cursor *c, uint64_t n)
{
	while (n && !at_end(c)) {
		const struct cs_stream_run *rn = &c->st->runs[c->run];
		uint64_t left = (rn->times - c->k) * rn->len - c->j, step = n < left ? n : left;
		uint64_t pos = c->k * rn->len + c->j + step;

		c->done += step;
		n -= step;
		c->k = pos / rn->len;
		c->j = (uint32_t)(pos % rn->len);
		if (c->k == rn->times) {
			c->run++;
			c->k = 0;
			c->j = 0;
		}
	}
}

/* Transfers left in the current run. */
static uint64_t run_left(const struct cursor *c)
{
	const struct cs_stream_run *rn = &c->st->runs[c->run];

	return (rn->times - c->k) * rn->len - c->j;
}

/* The longest common period to compare once and skip: 0 if none. */
static uint64_t period(const struct cursor *a, const struct cursor *b)
{
	uint64_t la = a->st->runs[a->run].len, lb = b->st->runs[b->run].len, l;

	if (a->j || b->j)
		return 0;
	l = la / gcd(la, lb) * lb;
	return l <= 4096 && run_left(a) >= 2 * l && run_left(b) >= 2 * l ? l : 0;
}

static int match_pair(struct rolled *v, struct cs_streams *ix, uint32_t a, uint32_t b)
{
	const struct cs_sched *s = v->s;
	struct cursor ca = { .st = cs_streams_find(ix, a, true, b) };
	struct cursor cb = { .st = cs_streams_find(ix, b, false, a) };
	int rc = 0;

	if (!ca.st || !cb.st)
		return fail(v, "out of memory");
	while (!rc && !(at_end(&ca) && at_end(&cb))) {
		uint64_t l = at_end(&ca) || at_end(&cb) ? 0 : period(&ca, &cb);

		if (at_end(&ca)) {
			rc = fail(v, "rank %u step %u iteration %llu receives from %u, but %u sends it only %llu times",
				  b, tmpl_of(&cb), (unsigned long long)iter_of(&cb), a, a,
				  (unsigned long long)ca.done);
			break;
		}
		if (at_end(&cb)) {
			rc = fail(v, "rank %u step %u iteration %llu sends to %u, which grants it no credit: %u receives from %u only %llu times",
				  a, tmpl_of(&ca), (unsigned long long)iter_of(&ca), b, b, a,
				  (unsigned long long)cb.done);
			break;
		}
		/* one period compared transfer by transfer, then the same ones skipped */
		for (uint64_t i = 0; i < (l ? l : 1) && !rc; i++) {
			uint64_t na = s->ranks[a].steps[tmpl_of(&ca)].count;
			uint64_t nb = s->ranks[b].steps[tmpl_of(&cb)].count;

			if (na != nb)
				rc = fail(v, "send %u->%u #%llu: rank %u step %u iteration %llu sends %llu elements, rank %u step %u iteration %llu receives %llu",
					  a, b, (unsigned long long)ca.done, a, tmpl_of(&ca),
					  (unsigned long long)iter_of(&ca), (unsigned long long)na, b,
					  tmpl_of(&cb), (unsigned long long)iter_of(&cb),
					  (unsigned long long)nb);
			advance(&ca, 1);
			advance(&cb, 1);
		}
		if (l && !rc) {
			uint64_t left_a = run_left(&ca), left_b = run_left(&cb);
			uint64_t skip = (left_a < left_b ? left_a : left_b) / l * l;

			advance(&ca, skip);
			advance(&cb, skip);
		}
	}
	return rc;
}

static int by_pair(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Every pair that sends or receives, from either side, once. */
static int match_all(struct rolled *v)
{
	uint32_t n = v->s->shape.nranks, np = 0, cap = 0;
	struct cs_streams ix;
	uint64_t *pairs = NULL;
	int rc = 0;

	if (cs_streams_init(v->s, &ix))
		return fail(v, "out of memory");
	for (uint32_t r = 0; r < n && !rc; r++) {
		const struct cs_rank_streams *rs = cs_streams_of(&ix, r);
		uint64_t *p = rs && np + rs->n > cap ?
			      realloc(pairs, (cap = 2 * (np + rs->n)) * sizeof(*p)) : pairs;

		if (!rs || !p) {
			rc = fail(v, "out of memory");
			break;
		}
		pairs = p;
		for (uint32_t i = 0; i < rs->n; i++)
			pairs[np++] = rs->st[i].sends ? (uint64_t)r << 32 | rs->st[i].peer :
				      (uint64_t)rs->st[i].peer << 32 | r;
	}
	if (!rc)
		qsort(pairs, np, sizeof(*pairs), by_pair);
	for (uint32_t i = 0; i < np && !rc; i++)
		if (!i || pairs[i] != pairs[i - 1])
			rc = match_pair(v, &ix, (uint32_t)(pairs[i] >> 32), (uint32_t)pairs[i]);
	free(pairs);
	cs_streams_free(&ix);
	return rc;
}

/* --- 3. iterations ------------------------------------------------------------------ */

/* What step @st touches, each access's stride in @rp alongside. */
static int accesses(const struct cs_shape *sh, uint32_t r, const struct cs_step *st,
		    const struct cs_repeat *rp, struct cs_access out[3], int64_t stride[3])
{
	int n = cs_step_accesses(sh, r, st, out), i = 0;

	if (cs_op_writes_dst(st->op))
		stride[i++] = rp->stride[st->dst.buf];
	if (cs_op_reads_src(st->op))
		stride[i++] = rp->stride[st->src.buf];
	if (st->op == CS_REDUCE)
		stride[i++] = rp->stride[st->src2.buf];
	return n;
}

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b && (a < 0) != (b < 0));
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	return a / b + (a % b && (a < 0) == (b < 0));
}

/*
 * Whether access @x at some iteration k and @y at k + d, 1 <= d < @times,
 * overlap.  Equal strides: the distance is d * stride whatever k; else the
 * ranges they sweep are compared, which may only err on the safe side.
 */
static bool iterations_overlap(const struct cs_access *x, int64_t sx, const struct cs_access *y,
			       int64_t sy, uint64_t times)
{
	int64_t span = (int64_t)times - 1;

	if (x->store != y->store || !(x->write || y->write) || times < 2)
		return false;
	if (sx == sy) {
		/* some d in [1, span] with x.lo - y.hi < d * s < x.hi - y.lo */
		int64_t lo = (int64_t)x->lo - (int64_t)y->hi, hi = (int64_t)x->hi - (int64_t)y->lo;
		int64_t dmin, dmax;

		if (!sx)
			return lo < 0 && hi > 0;
		if (sx < 0) {
			int64_t t = lo;

			lo = -hi;
			hi = -t;
			sx = -sx;
		}
		dmin = floor_div(lo, sx) + 1;
		dmax = ceil_div(hi, sx) - 1;
		return (dmin > 1 ? dmin : 1) <= (dmax < span ? dmax : span);
	}
	{
		int64_t xlo = (int64_t)x->lo + (sx < 0 ? span * sx : 0);
		int64_t xhi = (int64_t)x->hi + (sx > 0 ? span * sx : 0);
		int64_t ylo = (int64_t)y->lo + (sy < 0 ? span * sy : 0);
		int64_t yhi = (int64_t)y->hi + (sy > 0 ? span * sy : 0);

		return xlo < yhi && ylo < xhi;
	}
}

/*
 * Whether the body's iterations plainly touch disjoint elements: per
 * storage one stride for every access, at least as long as what one
 * iteration spans there.  The common case, in O(body).
 */
static bool iterations_disjoint(const struct cs_rank *rk, const struct cs_shape *sh, uint32_t r,
				const struct cs_repeat *rp)
{
	uint64_t lo[CS_NBUF] = { 0 }, hi[CS_NBUF] = { 0 };
	int64_t stride[CS_NBUF] = { 0 };
	bool seen[CS_NBUF] = { false }, write[CS_NBUF] = { false };

	for (uint32_t i = rp->first; i < rp->first + rp->len; i++) {
		struct cs_access a[3];
		int64_t s[3];
		int n = accesses(sh, r, &rk->steps[i], rp, a, s);

		for (int x = 0; x < n; x++) {
			uint8_t b = a[x].store;

			if (seen[b] && stride[b] != s[x])
				return false;
			if (!seen[b]) {
				lo[b] = a[x].lo;
				hi[b] = a[x].hi;
			}
			seen[b] = true;
			stride[b] = s[x];
			write[b] |= a[x].write;
			lo[b] = a[x].lo < lo[b] ? a[x].lo : lo[b];
			hi[b] = a[x].hi > hi[b] ? a[x].hi : hi[b];
		}
	}
	for (int b = 0; b < CS_NBUF; b++)
		if (seen[b] && write[b] &&
		    (uint64_t)(stride[b] < 0 ? -stride[b] : stride[b]) < hi[b] - lo[b])
			return false;
	return true;
}

/*
 * Instances of a body in different iterations are ordered only where a
 * receive comes first and a step that is not one after it (the CC core
 * passes a receive once its data landed); everything else may overlap.
 */
static int check_iterations(struct rolled *v, uint32_t r, const struct cs_repeat *rp)
{
	const struct cs_rank *rk = &v->s->ranks[r];
	const struct cs_shape *sh = &v->s->shape;

	if (rp->times < 2 || iterations_disjoint(rk, sh, r, rp))
		return 0;
	for (uint32_t i = rp->first; i < rp->first + rp->len; i++) {
		struct cs_access ai[3];
		int64_t si[3];
		int ni = accesses(sh, r, &rk->steps[i], rp, ai, si);

		for (uint32_t j = rp->first; j < rp->first + rp->len; j++) {
			struct cs_access aj[3];
			int64_t sj[3];
			int nj = accesses(sh, r, &rk->steps[j], rp, aj, sj);

			if (is_recv(rk->steps[i].op) && !is_recv(rk->steps[j].op))
				continue;
			for (int x = 0; x < ni; x++)
				for (int y = 0; y < nj; y++)
					if (iterations_overlap(&ai[x], si[x], &aj[y], sj[y], rp->times))
						return fail(v, "rank %u: step %u and step %u of a later iteration may run concurrently and touch the same elements (strides %lld, %lld over %u iterations)",
							    r, i, j, (long long)si[x], (long long)sj[y],
							    rp->times);
		}
	}
	return 0;
}

int cs_verify_rolled(const struct cs_sched *s, char *err, size_t errlen)
{
	struct rolled v = { .s = s, .err = err, .errlen = errlen };
	int rc = 0;

	cs_fill_all(s);
	v.size[CS_SEND] = cs_send_count(&s->shape);
	v.size[CS_RECV] = cs_recv_count(&s->shape);
	v.size[CS_TMP] = s->tmp_count;
	for (uint32_t r = 0; r < s->shape.nranks && !rc; r++)
		rc = check_rank(&v, r);
	if (!rc)
		rc = match_all(&v);
	for (uint32_t r = 0; r < s->shape.nranks && !rc; r++)
		for (uint32_t i = 0; i < s->ranks[r].nreps && !rc; i++)
			rc = check_iterations(&v, r, &s->ranks[r].reps[i]);
	return rc;
}
