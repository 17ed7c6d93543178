// SPDX-License-Identifier: MIT
/* The schedule IR: shapes, builders and the printer (see cs.h). */
#include "cs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const coll_names[CS_NCOLL] = {
	[CS_ALLREDUCE] = "allreduce", [CS_ALLGATHER] = "allgather",
	[CS_REDUCESCATTER] = "reducescatter", [CS_ALLTOALL] = "alltoall",
	[CS_BROADCAST] = "broadcast", [CS_REDUCE_COLL] = "reduce",
	[CS_SENDRECV] = "sendrecv",
};

const char *cs_coll_name(unsigned int coll)
{
	return coll < CS_NCOLL ? coll_names[coll] : "?";
}

/* Without regard to case, as NCCL reads collective names ("AllReduce"). */
int cs_coll_parse(const char *name)
{
	for (int i = 0; i < CS_NCOLL; i++)
		if (!strcasecmp(name, coll_names[i]))
			return i;
	return -1;
}

uint64_t cs_send_count(const struct cs_shape *s)
{
	switch (s->coll) {
	case CS_REDUCESCATTER:
	case CS_ALLTOALL:
		return s->count * s->nranks;
	default:
		return s->count;
	}
}

uint64_t cs_recv_count(const struct cs_shape *s)
{
	switch (s->coll) {
	case CS_ALLGATHER:
	case CS_ALLTOALL:
		return s->count * s->nranks;
	default:
		return s->count;
	}
}

uint64_t cs_inplace_layout(const struct cs_shape *s, uint32_t rank, uint64_t *send_off,
			   uint64_t *recv_off)
{
	*send_off = 0;
	*recv_off = 0;
	if (s->coll == CS_ALLGATHER)
		*send_off = rank * s->count;
	else if (s->coll == CS_REDUCESCATTER)
		*recv_off = rank * s->count;
	return cs_send_count(s) > cs_recv_count(s) ? cs_send_count(s) : cs_recv_count(s);
}

static void lazy_free(struct cs_lazy *lz);

struct cs_sched *cs_new(const struct cs_shape *shape, const char *algo)
{
	struct cs_sched *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->shape = *shape;
	s->algo = algo;
	s->ranks = calloc(shape->nranks ? shape->nranks : 1, sizeof(*s->ranks));
	if (!s->ranks) {
		free(s);
		return NULL;
	}
	return s;
}

void cs_free(struct cs_sched *s)
{
	if (!s)
		return;
	for (uint32_t r = 0; r < s->shape.nranks; r++) {
		free(s->ranks[r].steps);
		free(s->ranks[r].reps);
	}
	lazy_free(s->lazy);
	free(s->ranks);
	free(s);
}

struct cs_sched *cs_make_lazy(struct cs_sched *s, void (*fill)(struct cs_sched *s, uint32_t r,
								  void *arg), void *arg)
{
	struct cs_lazy *lz = calloc(1, sizeof(*lz));

	if (lz)
		lz->filled = calloc(s->shape.nranks ? s->shape.nranks : 1, 1);
	if (!lz || !lz->filled) {
		free(lz);
		free(arg);
		cs_free(s);
		return NULL;
	}
	lz->fill = fill;
	lz->arg = arg;
	s->lazy = lz;
	return s;
}

const struct cs_rank *cs_rank_get(const struct cs_sched *s, uint32_t r)
{
	struct cs_lazy *lz = s->lazy;

	if (lz && !lz->filled[r]) {
		lz->filled[r] = 1;
		if (lz->nspare)
			s->ranks[r] = lz->spare[--lz->nspare];
		/* a cache: the schedule read is the same one, made as it is read */
		lz->fill((struct cs_sched *)s, r, lz->arg);
	}
	return &s->ranks[r];
}

void cs_rank_drop(const struct cs_sched *s, uint32_t r)
{
	struct cs_lazy *lz = s->lazy;
	const uint32_t room = sizeof(lz->spare) / sizeof(lz->spare[0]);
	struct cs_rank *rk = &s->ranks[r];

	if (!lz || !lz->filled[r])
		return;
	if (lz->nspare < room) {
		lz->spare[lz->nspare++] = (struct cs_rank){ .steps = rk->steps, .cap = rk->cap,
							    .reps = rk->reps, .repcap = rk->repcap };
	} else {
		free(rk->steps);
		free(rk->reps);
	}
	*rk = (struct cs_rank){ 0 };
	lz->filled[r] = 0;
}

void cs_fill_all(const struct cs_sched *s)
{
	for (uint32_t r = 0; s->lazy && r < s->shape.nranks; r++)
		cs_rank_get(s, r);
}

static void lazy_free(struct cs_lazy *lz)
{
	if (!lz)
		return;
	for (uint32_t i = 0; i < lz->nspare; i++) {
		free(lz->spare[i].steps);
		free(lz->spare[i].reps);
	}
	free(lz->arg);
	free(lz->filled);
	free(lz);
}

void cs_settle(struct cs_sched *s)
{
	cs_fill_all(s);
	lazy_free(s->lazy);
	s->lazy = NULL;
}

const char *cs_unusable(const struct cs_sched *s)
{
	if (!s || s->oom)
		return "out of memory";
	return s->fail;
}

void cs_reserve(struct cs_sched *s, uint32_t rank, uint32_t steps, uint32_t reps)
{
	struct cs_rank *r = &s->ranks[rank];
	struct cs_step *n = r->n + steps > r->cap ? realloc(r->steps, (r->n + steps) * sizeof(*n)) :
			    r->steps;
	struct cs_repeat *p = r->nreps + reps > r->repcap ?
			      realloc(r->reps, (r->nreps + reps) * sizeof(*p)) : r->reps;

	/* a hint: out of memory here, the builders try again */
	if (n && n != r->steps) {
		r->steps = n;
		r->cap = r->n + steps;
	}
	if (p && p != r->reps) {
		r->reps = p;
		r->repcap = r->nreps + reps;
	}
}

static uint32_t append(struct cs_sched *s, uint32_t rank, const struct cs_step *st)
{
	struct cs_rank *r = &s->ranks[rank];

	if (r->n == r->cap) {
		uint32_t cap = r->cap ? r->cap * 2 : 16;
		struct cs_step *n = realloc(r->steps, cap * sizeof(*n));

		if (!n) {
			s->oom = true;
			return r->n ? r->n - 1 : 0;
		}
		r->steps = n;
		r->cap = cap;
	}
	r->steps[r->n] = *st;
	return r->n++;
}

uint32_t cs_copy(struct cs_sched *s, uint32_t rank, struct cs_ref dst, struct cs_ref src,
		 uint64_t count)
{
	struct cs_step st = { .op = CS_COPY, .dst = dst, .src = src, .count = count };

	return append(s, rank, &st);
}

uint32_t cs_reduce(struct cs_sched *s, uint32_t rank, struct cs_ref dst, struct cs_ref a,
		   struct cs_ref b, uint64_t count)
{
	struct cs_step st = { .op = CS_REDUCE, .dst = dst, .src = a, .src2 = b, .count = count };

	return append(s, rank, &st);
}

uint32_t cs_send(struct cs_sched *s, uint32_t rank, uint32_t peer, struct cs_ref src,
		 uint64_t count)
{
	struct cs_step st = { .op = CS_SEND_OP, .peer = peer, .src = src, .count = count };

	return append(s, rank, &st);
}

uint32_t cs_recv(struct cs_sched *s, uint32_t rank, uint32_t peer, struct cs_ref dst,
		 uint64_t count)
{
	struct cs_step st = { .op = CS_RECV_OP, .peer = peer, .dst = dst, .count = count };

	return append(s, rank, &st);
}

uint32_t cs_recv_reduce(struct cs_sched *s, uint32_t rank, uint32_t peer, struct cs_ref dst,
			struct cs_ref acc, uint64_t count)
{
	struct cs_step st = {
		.op = CS_RECV_REDUCE, .peer = peer, .dst = dst, .src = acc, .count = count,
	};

	return append(s, rank, &st);
}

uint32_t cs_divide(struct cs_sched *s, uint32_t rank, struct cs_ref dst, struct cs_ref src,
		   uint64_t count)
{
	struct cs_step st = { .op = CS_DIVIDE, .dst = dst, .src = src, .count = count };

	return append(s, rank, &st);
}

static void add_dep(struct cs_sched *s, uint32_t rank, uint32_t step, uint32_t on, int32_t iter,
		    bool fixed)
{
	struct cs_step *st = &s->ranks[rank].steps[step];

	for (uint32_t i = 0; i < st->ndeps; i++)
		if (st->deps[i] == on && st->dep_iter[i] == iter &&
		    !!(st->dep_fixed & 1u << i) == fixed)
			return;
	if (st->ndeps == CS_MAX_DEPS) {
		/* more would be a generator bug; keep the schedule unusable */
		s->fail = "a step would wait for more than 6 (CS_MAX_DEPS) earlier steps";
		return;
	}
	st->deps[st->ndeps] = on;
	st->dep_fixed |= (uint8_t)(fixed << st->ndeps);
	st->dep_iter[st->ndeps++] = iter;
}

void cs_dep_iter(struct cs_sched *s, uint32_t rank, uint32_t step, uint32_t on, int32_t iter)
{
	add_dep(s, rank, step, on, iter, false);
}

void cs_dep_fixed(struct cs_sched *s, uint32_t rank, uint32_t step, uint32_t on, uint32_t iter)
{
	if (iter > INT32_MAX) {
		s->fail = "a dependency on an iteration past 2^31";
		return;
	}
	add_dep(s, rank, step, on, (int32_t)iter, true);
}

void cs_dep(struct cs_sched *s, uint32_t rank, uint32_t step, uint32_t on)
{
	cs_dep_iter(s, rank, step, on, 0);
}

bool cs_op_reads_src(uint8_t op)
{
	return op != CS_RECV_OP;
}

bool cs_op_writes_dst(uint8_t op)
{
	return op != CS_SEND_OP;
}

static struct cs_access access_of(const struct cs_shape *sh, uint32_t r, struct cs_ref ref,
				  uint64_t count, bool write)
{
	struct cs_access a = { ref.buf, ref.off, ref.off + count, write };
	uint64_t so, ro;

	if (sh->in_place && ref.buf != CS_TMP) {
		cs_inplace_layout(sh, r, &so, &ro);
		a.store = CS_RECV;
		a.lo += ref.buf == CS_SEND ? so : ro;
		a.hi += ref.buf == CS_SEND ? so : ro;
	}
	return a;
}

int cs_step_accesses(const struct cs_shape *sh, uint32_t rank, const struct cs_step *st,
		     struct cs_access out[3])
{
	int n = 0;

	if (cs_op_writes_dst(st->op))
		out[n++] = access_of(sh, rank, st->dst, st->count, true);
	if (cs_op_reads_src(st->op))
		out[n++] = access_of(sh, rank, st->src, st->count, false);
	if (st->op == CS_REDUCE)
		out[n++] = access_of(sh, rank, st->src2, st->count, false);
	if (st->op == CS_RECV_REDUCE && st->staged)
		out[n++] = access_of(sh, rank, st->src2, st->count, true);
	return n;
}

bool cs_accesses_conflict(const struct cs_access *a, int na, const struct cs_access *b, int nb)
{
	for (int i = 0; i < na; i++)
		for (int j = 0; j < nb; j++)
			if (a[i].store == b[j].store && (a[i].write || b[j].write) &&
			    a[i].lo < b[j].hi && b[j].lo < a[i].hi)
				return true;
	return false;
}

static const char *const buf_names[CS_NBUF] = { "send", "recv", "tmp" };

static void print_ref(FILE *out, struct cs_ref r)
{
	fprintf(out, "%s[%llu]", r.buf < CS_NBUF ? buf_names[r.buf] : "?",
		(unsigned long long)r.off);
}

void cs_print(const struct cs_sched *s, FILE *out)
{
	static const char *const ops[] = { "copy", "reduce", "send", "recv", "recv+reduce",
					   "divide" };

	fprintf(out, "schedule %s: %s, %u ranks, count %llu%s, tmp %llu\n", s->algo,
		cs_coll_name(s->shape.coll), s->shape.nranks, (unsigned long long)s->shape.count,
		s->shape.in_place ? ", in place" : "", (unsigned long long)s->tmp_count);
	for (uint32_t r = 0; r < s->shape.nranks; r++) {
		fprintf(out, "rank %u:\n", r);
		for (uint32_t i = 0; i < s->ranks[r].n; i++) {
			const struct cs_step *st = &s->ranks[r].steps[i];
			const struct cs_repeat *rp = cs_repeat_of(&s->ranks[r], i);

			if (rp && rp->first == i) {
				fprintf(out, "  repeat x%u, peer %+d, strides", rp->times,
					rp->peer_stride);
				for (int b = 0; b < CS_NBUF; b++)
					fprintf(out, " %s %+lld", buf_names[b], (long long)rp->stride[b]);
				fputc('\n', out);
			}
			fprintf(out, "  %s%3u %-11s", rp ? "| " : "", i, st->op < 6 ? ops[st->op] : "?");
			if (st->op == CS_SEND_OP || st->op == CS_RECV_OP || st->op == CS_RECV_REDUCE)
				fprintf(out, " %s %u", st->op == CS_SEND_OP ? "to" : "from", st->peer);
			if (st->op != CS_SEND_OP) {
				fputc(' ', out);
				print_ref(out, st->dst);
				fputs(" <-", out);
			}
			if (st->op != CS_RECV_OP) {
				fputc(' ', out);
				print_ref(out, st->src);
			}
			if (st->op == CS_REDUCE) {
				fputs(" +", out);
				print_ref(out, st->src2);
			}
			if (st->op == CS_RECV_REDUCE)
				fputs(" + incoming", out);
			if (st->op == CS_RECV_REDUCE && st->staged) {
				fputs(" (staged in ", out);
				print_ref(out, st->src2);
				fputc(')', out);
			}
			fprintf(out, " x%llu", (unsigned long long)st->count);
			for (uint32_t d = 0; d < st->ndeps; d++) {
				fprintf(out, "%s%u", d ? "," : "  after ", st->deps[d]);
				if (st->dep_fixed & 1u << d)
					fprintf(out, "@=%d", st->dep_iter[d]);
				else if (st->dep_iter[d])
					fprintf(out, "@%+d", st->dep_iter[d]);
			}
			fputc('\n', out);
		}
	}
}
