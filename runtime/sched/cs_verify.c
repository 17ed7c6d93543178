// SPDX-License-Identifier: MIT
/*
 * The schedule verifier.  It runs a schedule symbolically: every element
 * holds (position in the input, set of ranks whose contributions it sums),
 * and checks, in order:
 *   1. structure: ops, peers, counts, buffer ranges, deps point backwards;
 *   2. matching: the k-th send a->b pairs with the k-th receive of b from a
 *      and counts agree;
 *   3. hazards: two steps of a rank that the lowering may run concurrently
 *      never touch the same elements unless both only read;
 *   4. progress: executing every rank in program order, with the credit
 *      rules of the lowering, finishes (no deadlock), and no reduction adds
 *      a contribution twice;
 *   5. the postcondition of the collective.
 *
 * Ordering, as the lowering realises it: step j comes after step i < j if
 * j depends on i (transitively), or if i is a receive and j is not (the CC
 * core passes a receive only once its data has landed).  The data of a
 * receive j may land as soon as j's own dependencies are done — even before
 * earlier steps were issued.
 *
 * Credits: the receiver of j lets the sender go (grants a credit) at the
 * start of its program if j has no dependencies; right after the last of
 * them if they are all receives (passing a receive means it is complete);
 * otherwise just before the first receive after j's last dependency — the
 * first point where its CC core would block anyway; and never before the
 * credit of an earlier receive from the same peer, since a sender spends
 * credits in order (cs_credit_points()).
 */
#include "cs_rolled.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VERIFY_RANKS 64
/* Repeats are written out for the checks below up to this many steps in all. */
#define MAX_UNROLLED_STEPS (1u << 22)

struct val {
	uint64_t pos;
	uint64_t mask;		/* 0: undefined */
};

struct vstate {
	const struct cs_sched *s;
	char *err;
	size_t errlen;
	struct val *store[MAX_VERIFY_RANKS][CS_NBUF];
	uint64_t size[CS_NBUF];
	uint32_t *match_rank, *match_step;	/* per (rank, step), flattened */
	uint32_t *base;				/* first flat index of each rank */
	uint32_t *credit;			/* per flat step: its credit point */
	struct val **captured;			/* per flat send step */
};

static int fail(struct vstate *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct vstate *v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v->err, v->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool is_recv(uint8_t op)
{
	return op == CS_RECV_OP || op == CS_RECV_REDUCE;
}

/* --- 1. structure ------------------------------------------------------ */

static int check_ref(struct vstate *v, uint32_t r, uint32_t i, const char *what,
		     struct cs_ref ref, uint64_t count)
{
	if (ref.buf >= CS_NBUF)
		return fail(v, "rank %u step %u: %s names buffer %u (send, recv, tmp)", r, i, what,
			    ref.buf);
	if (ref.off > v->size[ref.buf] || count > v->size[ref.buf] - ref.off)
		return fail(v, "rank %u step %u: %s [%llu, +%llu) is outside its buffer of %llu elements",
			    r, i, what, (unsigned long long)ref.off, (unsigned long long)count,
			    (unsigned long long)v->size[ref.buf]);
	return 0;
}

static int check_structure(struct vstate *v)
{
	const struct cs_sched *s = v->s;
	uint32_t n = s->shape.nranks;
	int rc = 0;

	for (uint32_t r = 0; r < n && !rc; r++) {
		for (uint32_t i = 0; i < s->ranks[r].n && !rc; i++) {
			const struct cs_step *st = &s->ranks[r].steps[i];

			if (st->op > CS_DIVIDE)
				return fail(v, "rank %u step %u: unknown op %u", r, i, st->op);
			if (i && s->ranks[r].steps[i - 1].op == CS_DIVIDE && st->op != CS_DIVIDE)
				return fail(v, "rank %u step %u: only divide steps may follow a divide",
					    r, i);
			if (st->count == 0)
				return fail(v, "rank %u step %u: count is 0", r, i);
			if (st->op >= CS_SEND_OP && st->op <= CS_RECV_REDUCE &&
			    (st->peer >= n || st->peer == r))
				return fail(v, "rank %u step %u: peer %u is not another rank (0..%u)",
					    r, i, st->peer, n - 1);
			for (uint32_t d = 0; d < st->ndeps; d++)
				if (st->deps[d] >= i)
					return fail(v, "rank %u step %u: depends on step %u, which is not earlier",
						    r, i, st->deps[d]);
			if (cs_op_writes_dst(st->op))
				rc = check_ref(v, r, i, "dst", st->dst, st->count);
			if (!rc && cs_op_reads_src(st->op))
				rc = check_ref(v, r, i, "src", st->src, st->count);
			if (!rc && (st->op == CS_REDUCE || (st->op == CS_RECV_REDUCE && st->staged)))
				rc = check_ref(v, r, i, "src2", st->src2, st->count);
		}
	}
	return rc;
}

/* --- 2. matching --------------------------------------------------------- */

static int match_transfers(struct vstate *v)
{
	const struct cs_sched *s = v->s;
	uint32_t n = s->shape.nranks;

	for (uint32_t a = 0; a < n; a++) {
		for (uint32_t b = 0; b < n; b++) {
			uint32_t i = 0, j = 0, k = 0;
			const struct cs_rank *ra = &s->ranks[a], *rb = &s->ranks[b];

			if (a == b)
				continue;
			for (;;) {
				while (i < ra->n && !(ra->steps[i].op == CS_SEND_OP && ra->steps[i].peer == b))
					i++;
				while (j < rb->n && !(is_recv(rb->steps[j].op) && rb->steps[j].peer == a))
					j++;
				if (i == ra->n && j == rb->n)
					break;
				if (i == ra->n)
					return fail(v, "rank %u step %u receives from %u, but %u sends it only %u times",
						    b, j, a, a, k);
				if (j == rb->n)
					return fail(v, "rank %u step %u sends to %u, but %u receives from it only %u times",
						    a, i, b, b, k);
				if (ra->steps[i].count != rb->steps[j].count)
					return fail(v, "send %u->%u #%u: rank %u step %u sends %llu elements, rank %u step %u receives %llu",
						    a, b, k, a, i, (unsigned long long)ra->steps[i].count,
						    b, j, (unsigned long long)rb->steps[j].count);
				v->match_rank[v->base[a] + i] = b;
				v->match_step[v->base[a] + i] = j;
				v->match_rank[v->base[b] + j] = a;
				v->match_step[v->base[b] + j] = i;
				i++;
				j++;
				k++;
			}
		}
	}
	return 0;
}

/* --- 3. hazards ---------------------------------------------------------- */

/* A receive of a phase after the one before (cs_own_credit_point()). */
static bool is_phase_recv(const struct cs_rank *rk, const struct cs_step *st)
{
	uint32_t last = 0;

	if (!is_recv(st->op) || !st->ndeps || st->dep_fixed != (1u << st->ndeps) - 1)
		return false;
	for (uint32_t d = 0; d < st->ndeps; d++)
		last = st->deps[d] > last ? st->deps[d] : last;
	return is_recv(rk->steps[last].op);
}

/*
 * What such a receive's data lands after: its credit comes once the
 * program has passed its last dependency, so every receive up to it, and
 * once the sends it names have drained -- with each every earlier send to
 * the same peer, which goes on the same DMA engine (the lowerings drain
 * the engine's, or every lane's, ring).
 */
static void phase_reach(const struct cs_rank *rk, const struct cs_step *st, const uint64_t *reach,
			size_t words, uint64_t *rj)
{
	for (uint32_t d = 0; d < st->ndeps; d++) {
		const struct cs_step *dep = &rk->steps[st->deps[d]];

		for (uint32_t i = 0; i <= st->deps[d]; i++) {
			const struct cs_step *si = &rk->steps[i];

			if (dep->op == CS_SEND_OP ? si->op != CS_SEND_OP || si->peer != dep->peer :
						    !is_recv(si->op))
				continue;
			for (size_t w = 0; w < words; w++)
				rj[w] |= reach[(size_t)i * words + w];
			rj[i / 64] |= 1ull << (i % 64);
		}
	}
}

static int check_hazards(struct vstate *v, uint32_t r)
{
	const struct cs_rank *rk = &v->s->ranks[r];
	size_t words = (rk->n + 63) / 64;
	uint64_t *reach = calloc((size_t)rk->n * words + words, sizeof(uint64_t));
	uint64_t *recvs = reach + (size_t)rk->n * words;	/* receives so far, with their reach */
	struct cs_access ai[3], aj[3];
	int rc = 0;

	if (!reach)
		return fail(v, "out of memory");
	for (uint32_t j = 0; j < rk->n && !rc; j++) {
		const struct cs_step *st = &rk->steps[j];
		uint64_t *rj = reach + (size_t)j * words;

		for (uint32_t d = 0; d < st->ndeps; d++) {
			uint64_t *rd = reach + (size_t)st->deps[d] * words;

			for (size_t w = 0; w < words; w++)
				rj[w] |= rd[w];
			rj[st->deps[d] / 64] |= 1ull << (st->deps[d] % 64);
		}
		if (!is_recv(st->op))
			for (size_t w = 0; w < words; w++)
				rj[w] |= recvs[w];
		if (is_phase_recv(rk, st))
			phase_reach(rk, st, reach, words, rj);
		if (st->op == CS_DIVIDE)	/* waits for everything before it */
			for (uint32_t i = 0; i < j; i++)
				rj[i / 64] |= 1ull << (i % 64);
		int nj = cs_step_accesses(&v->s->shape, r, st, aj);

		for (uint32_t i = 0; i < j; i++) {
			if (rj[i / 64] & (1ull << (i % 64)))
				continue;
			int ni = cs_step_accesses(&v->s->shape, r, &rk->steps[i], ai);

			if (cs_accesses_conflict(ai, ni, aj, nj))
				rc = fail(v, "rank %u: steps %u and %u may run concurrently and touch the same elements (add a dependency)",
					  r, i, j);
		}
		if (is_recv(st->op)) {
			for (size_t w = 0; w < words; w++)
				recvs[w] |= rj[w];
			recvs[j / 64] |= 1ull << (j % 64);
		}
	}
	free(reach);
	return rc;
}

/* --- 4. progress ----------------------------------------------------------- */

static struct val *slot(struct vstate *v, uint32_t r, struct cs_ref ref)
{
	return v->store[r][ref.buf] + ref.off;
}

static int combine(struct vstate *v, uint32_t r, uint32_t i, struct val *dst,
		   const struct val *a, const struct val *b, uint64_t count)
{
	for (uint64_t e = 0; e < count; e++) {
		if (!a[e].mask || !b[e].mask)
			return fail(v, "rank %u step %u: reduces element %llu, which holds no data yet",
				    r, i, (unsigned long long)e);
		if (a[e].pos != b[e].pos)
			return fail(v, "rank %u step %u: reduces element %llu of input position %llu with position %llu",
				    r, i, (unsigned long long)e, (unsigned long long)a[e].pos,
				    (unsigned long long)b[e].pos);
		if (a[e].mask & b[e].mask)
			return fail(v, "rank %u step %u: element %llu would count rank contributions 0x%llx twice",
				    r, i, (unsigned long long)e,
				    (unsigned long long)(a[e].mask & b[e].mask));
		dst[e].pos = a[e].pos;
		dst[e].mask = a[e].mask | b[e].mask;
	}
	return 0;
}

uint32_t cs_own_credit_point(const struct cs_rank *rk, uint32_t j)
{
	const struct cs_step *st = &rk->steps[j];
	uint32_t last = 0, q;
	bool all_recv = true;

	if (!st->ndeps)
		return 0;
	for (uint32_t d = 0; d < st->ndeps; d++) {
		if (st->deps[d] > last)
			last = st->deps[d];
		all_recv &= is_recv(rk->steps[st->deps[d]].op);
	}
	/* a passed receive is complete: grant right after it, no waiting; a
	 * phase after the one before (fixed iterations, cs.h) waits there
	 * for its sends too */
	if (all_recv || (st->dep_fixed == (1u << st->ndeps) - 1 && is_recv(rk->steps[last].op)))
		return last + 1;
	for (q = last + 1; q < j; q++)
		if (is_recv(rk->steps[q].op))
			break;
	return q;
}

/*
 * Credits from one peer are counted, and a sender spends them in order:
 * the k-th credit granted is used for the k-th receive.  So the points are
 * made non-decreasing per peer, in receive order.
 */
void cs_credit_points(const struct cs_rank *rk, uint32_t npeers, uint32_t *points)
{
	uint32_t *floor_of = calloc(npeers ? npeers : 1, sizeof(*floor_of));

	for (uint32_t j = 0; j < rk->n; j++) {
		const struct cs_step *st = &rk->steps[j];
		uint32_t p;

		points[j] = 0;
		if (!is_recv(st->op))
			continue;
		p = cs_own_credit_point(rk, j);
		if (floor_of && st->peer < npeers) {
			if (p < floor_of[st->peer])
				p = floor_of[st->peer];
			floor_of[st->peer] = p;
		}
		points[j] = p;
	}
	free(floor_of);
}

uint32_t cs_credit_point(const struct cs_rank *rk, uint32_t j)
{
	uint32_t peer = rk->steps[j].peer, p = cs_own_credit_point(rk, j);

	for (uint32_t i = 0; i < j; i++)
		if (is_recv(rk->steps[i].op) && rk->steps[i].peer == peer) {
			uint32_t q = cs_own_credit_point(rk, i);

			if (q > p)
				p = q;
		}
	return p;
}

static uint64_t all_ranks(const struct vstate *v)
{
	uint32_t n = v->s->shape.nranks;

	return n == 64 ? ~0ull : (1ull << n) - 1;
}

/* Execute step @i of rank @r; 1 if it must wait, 0 done, <0 error. */
static int exec_step(struct vstate *v, uint32_t r, uint32_t i, const uint32_t *pc)
{
	const struct cs_step *st = &v->s->ranks[r].steps[i];
	uint32_t flat = v->base[r] + i, pr = v->match_rank[flat], ps = v->match_step[flat];
	struct val *tmp;

	switch (st->op) {
	case CS_COPY:
		memmove(slot(v, r, st->dst), slot(v, r, st->src), st->count * sizeof(struct val));
		return 0;
	case CS_DIVIDE:
		for (uint64_t e = 0; e < st->count; e++)
			if (slot(v, r, st->src)[e].mask != all_ranks(v))
				return fail(v, "rank %u step %u: divides element %llu, which is only a partial sum (ranks 0x%llx)",
					    r, i, (unsigned long long)e,
					    (unsigned long long)slot(v, r, st->src)[e].mask);
		memmove(slot(v, r, st->dst), slot(v, r, st->src), st->count * sizeof(struct val));
		return 0;
	case CS_REDUCE:
		return combine(v, r, i, slot(v, r, st->dst), slot(v, r, st->src),
			       slot(v, r, st->src2), st->count);
	case CS_SEND_OP:
		/* wait for the receiver's credit */
		if (pc[pr] < v->credit[v->base[pr] + ps])
			return 1;
		tmp = malloc(st->count * sizeof(*tmp));
		if (!tmp)
			return fail(v, "out of memory");
		memcpy(tmp, slot(v, r, st->src), st->count * sizeof(*tmp));
		v->captured[flat] = tmp;
		return 0;
	default:
		tmp = v->captured[v->base[pr] + ps];
		if (!tmp)
			return 1;
		if (st->op == CS_RECV_OP)
			memcpy(slot(v, r, st->dst), tmp, st->count * sizeof(*tmp));
		else if (combine(v, r, i, slot(v, r, st->dst), slot(v, r, st->src), tmp, st->count))
			return -EINVAL;
		return 0;
	}
}

static int run(struct vstate *v)
{
	uint32_t n = v->s->shape.nranks, *pc = calloc(n, sizeof(*pc));
	bool progress = true, done = false;
	int rc = 0;

	if (!pc)
		return fail(v, "out of memory");
	while (!rc && progress && !done) {
		progress = false;
		done = true;
		for (uint32_t r = 0; r < n && !rc; r++) {
			while (pc[r] < v->s->ranks[r].n) {
				rc = exec_step(v, r, pc[r], pc);
				if (rc)
					break;
				pc[r]++;
				progress = true;
			}
			if (rc == 1)
				rc = 0;
			if (pc[r] < v->s->ranks[r].n)
				done = false;
		}
	}
	if (!rc && !done) {
		for (uint32_t r = 0; r < n; r++)
			if (pc[r] < v->s->ranks[r].n) {
				const struct cs_step *st = &v->s->ranks[r].steps[pc[r]];

				rc = fail(v, "deadlock: rank %u is stuck at step %u (%s %u)", r, pc[r],
					  st->op == CS_SEND_OP ? "send to" : "receive from", st->peer);
				break;
			}
	}
	free(pc);
	return rc;
}

/* --- 5. postcondition ----------------------------------------------------- */

static int expect(struct vstate *v, uint32_t r, uint64_t e, uint64_t pos, uint64_t mask)
{
	const struct val *got = &v->store[r][CS_RECV][e];

	if (got->mask == mask && got->pos == pos)
		return 0;
	if (!got->mask)
		return fail(v, "rank %u: output element %llu holds no data; expected input position %llu from ranks 0x%llx",
			    r, (unsigned long long)e, (unsigned long long)pos,
			    (unsigned long long)mask);
	return fail(v, "rank %u: output element %llu holds input position %llu from ranks 0x%llx; expected position %llu from ranks 0x%llx",
		    r, (unsigned long long)e, (unsigned long long)got->pos,
		    (unsigned long long)got->mask, (unsigned long long)pos,
		    (unsigned long long)mask);
}

static int postcondition(struct vstate *v)
{
	const struct cs_shape *sh = &v->s->shape;
	uint64_t all = sh->nranks == 64 ? ~0ull : (1ull << sh->nranks) - 1, c = sh->count;
	int rc = 0;

	for (uint32_t r = 0; r < sh->nranks && !rc; r++) {
		for (uint64_t e = 0; e < cs_recv_count(sh) && !rc; e++) {
			switch (sh->coll) {
			case CS_ALLREDUCE:
				rc = expect(v, r, e, e, all);
				break;
			case CS_REDUCESCATTER:
				rc = expect(v, r, e, r * c + e, all);
				break;
			case CS_ALLGATHER:
				rc = expect(v, r, e, e % c, 1ull << (e / c));
				break;
			case CS_ALLTOALL:
				rc = expect(v, r, e, r * c + e % c, 1ull << (e / c));
				break;
			case CS_BROADCAST:
				rc = expect(v, r, e, e, 1ull << sh->root);
				break;
			case CS_REDUCE_COLL:
				if (r == sh->root)
					rc = expect(v, r, e, e, all);
				break;
			default:
				if (r == sh->peer)
					rc = expect(v, r, e, e, 1ull << sh->root);
				break;
			}
		}
	}
	return rc;
}

/* --- driver ---------------------------------------------------------------- */

static int setup(struct vstate *v)
{
	const struct cs_shape *sh = &v->s->shape;
	uint32_t n = sh->nranks, total = 0;
	uint64_t so, ro, home;

	v->size[CS_SEND] = cs_send_count(sh);
	v->size[CS_RECV] = cs_recv_count(sh);
	v->size[CS_TMP] = v->s->tmp_count;
	v->base = calloc(n + 1, sizeof(*v->base));
	if (!v->base)
		return fail(v, "out of memory");
	for (uint32_t r = 0; r < n; r++) {
		v->base[r] = total;
		total += v->s->ranks[r].n;
	}
	v->base[n] = total;
	v->match_rank = calloc(total + 1, sizeof(uint32_t));
	v->match_step = calloc(total + 1, sizeof(uint32_t));
	v->captured = calloc(total + 1, sizeof(*v->captured));
	v->credit = calloc(total + 1, sizeof(*v->credit));
	if (!v->match_rank || !v->match_step || !v->captured || !v->credit)
		return fail(v, "out of memory");
	for (uint32_t r = 0; r < n; r++)
		cs_credit_points(&v->s->ranks[r], n, v->credit + v->base[r]);
	for (uint32_t r = 0; r < n; r++) {
		home = cs_inplace_layout(sh, r, &so, &ro);
		if (sh->in_place) {
			v->store[r][CS_RECV] = calloc(home + 1, sizeof(struct val));
			v->store[r][CS_SEND] = v->store[r][CS_RECV];
		} else {
			so = ro = 0;
			v->store[r][CS_RECV] = calloc(v->size[CS_RECV] + 1, sizeof(struct val));
			v->store[r][CS_SEND] = calloc(v->size[CS_SEND] + 1, sizeof(struct val));
		}
		v->store[r][CS_TMP] = calloc(v->size[CS_TMP] + 1, sizeof(struct val));
		if (!v->store[r][CS_RECV] || !v->store[r][CS_SEND] || !v->store[r][CS_TMP])
			return fail(v, "out of memory");
		for (uint64_t e = 0; e < v->size[CS_SEND]; e++)
			v->store[r][CS_SEND][so + e] = (struct val){ e, 1ull << r };
		/* views into the shared allocation */
		v->store[r][CS_SEND] += so;
		v->store[r][CS_RECV] += ro;
	}
	return 0;
}

static void teardown(struct vstate *v)
{
	const struct cs_shape *sh = &v->s->shape;
	uint64_t so, ro;

	for (uint32_t r = 0; r < sh->nranks && r < MAX_VERIFY_RANKS; r++) {
		cs_inplace_layout(sh, r, &so, &ro);
		if (!sh->in_place)
			so = ro = 0;
		if (v->store[r][CS_RECV])
			free(v->store[r][CS_RECV] - ro);
		if (!sh->in_place && v->store[r][CS_SEND])
			free(v->store[r][CS_SEND] - so);
		free(v->store[r][CS_TMP]);
	}
	if (v->captured && v->base)
		for (uint32_t i = 0; i < v->base[sh->nranks]; i++)
			free(v->captured[i]);
	free(v->captured);
	free(v->credit);
	free(v->match_rank);
	free(v->match_step);
	free(v->base);
}

static int verify_unrolled(const struct cs_sched *s, char *err, size_t errlen)
{
	struct vstate v = { .s = s, .err = err, .errlen = errlen };
	int rc;

	if (cs_unusable(s))
		return fail(&v, "the schedule is incomplete: %s", cs_unusable(s));
	if (s->shape.nranks == 0 || s->shape.nranks > MAX_VERIFY_RANKS)
		return fail(&v, "the verifier handles 1..%d ranks, not %u", MAX_VERIFY_RANKS,
			    s->shape.nranks);
	rc = setup(&v);
	if (!rc)
		rc = check_structure(&v);
	if (!rc)
		rc = match_transfers(&v);
	for (uint32_t r = 0; !rc && r < s->shape.nranks; r++)
		rc = check_hazards(&v, r);
	if (!rc)
		rc = run(&v);
	if (!rc)
		rc = postcondition(&v);
	teardown(&v);
	return rc;
}

/*
 * Repeats: checked rolled at any size (cs_verify_rolled.c), then written
 * out and checked as above where that is small enough: up to 64 ranks and
 * MAX_UNROLLED_STEPS steps.  What a larger plan's generator builds is
 * checked that way at smaller shapes (sched_repeat_test).
 */
int cs_verify(const struct cs_sched *s, char *err, size_t errlen)
{
	uint64_t steps = 0;
	struct cs_sched *x;
	int rc;

	cs_fill_all(s);
	if (cs_unusable(s) || !cs_has_repeats(s))
		return verify_unrolled(s, err, errlen);
	rc = cs_verify_rolled(s, err, errlen);
	for (uint32_t r = 0; r < s->shape.nranks && !rc; r++)
		steps += cs_unrolled_steps(&s->ranks[r]);
	if (rc || s->shape.nranks > MAX_VERIFY_RANKS || steps > MAX_UNROLLED_STEPS)
		return rc;
	x = cs_expand(s);
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return -EINVAL;
	}
	rc = verify_unrolled(x, err, errlen);
	cs_free(x);
	return rc;
}
