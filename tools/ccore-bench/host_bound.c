// SPDX-License-Identifier: MIT
/*
 * --host-bound: what host threads reach doing a collective's data movement
 * themselves.  One thread per rank, each with its own send and receive
 * buffers in host memory, does with plain memcpy exactly the copies its rank
 * needs; the threads start together and the run ends when the last one is
 * done.  Only collectives that move data without computing on it are
 * modelled (a reduction is not memcpy work):
 *
 *   allgather  out of place: the own chunk plus N-1 peer chunks into the
 *              output (N copies of bytes/N); in place: the N-1 peer chunks.
 *   broadcast  out of place: every rank copies the root's buffer (the root
 *              too); in place: every rank but the root.
 *   alltoall   out of place: N chunks of bytes/N, block r of every peer's
 *              input, the own one included.  In place, as the device's
 *              pairwise algorithm: in round k = 1..N-1 rank r copies block
 *              r of rank r-k; a block not yet read by its peer (k <= N/2)
 *              is staged and copied home after the last round.  The threads
 *              meet between rounds: N-1 + floor(N/2) copies of bytes/N.
 *
 * Timed as the table is: -w warm-up runs, one checked run with -c 1, then
 * the mean of -n runs.  A run's time includes waking the threads and waiting
 * for the last one (a barrier each way, tens of us on a small VM), as a
 * collective's includes its launch and sync; at small sizes that dominates.
 */
#include "bench.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct hb;

struct hb_step {
	char *dst;
	const char *src;
	size_t len;
	bool sync;		/* every rank's thread gets here before this copy */
};

struct hb_rank {
	struct hb *h;
	pthread_t thread;
	char *mem;		/* sbuf, rbuf and tmp in one mapping */
	char *sbuf, *rbuf, *tmp;
	struct hb_step *plan[2];	/* out of place, in place */
	int steps[2];
};

struct hb {
	enum bench_op op;
	int n, root;
	size_t bytes, chunk, in_bytes, mem_bytes;
	bool in_place, quit;
	pthread_mutex_t gate;	/* held while the threads are being started */
	pthread_barrier_t all;	/* the threads and the timing thread */
	pthread_barrier_t ranks;	/* the threads, between rounds */
	struct hb_rank *rank;
};

int bench_host_bound_check_op(enum bench_op op)
{
	if (op == OP_ALLGATHER || op == OP_BROADCAST || op == OP_ALLTOALL)
		return 0;
	fprintf(stderr, "ccore-bench: --host-bound works with --op allgather, broadcast or alltoall (collectives that only copy data), not --op %s\n",
		bench_op_names[op]);
	return -1;
}

static struct hb_step step(char *dst, const char *src, size_t len, bool sync)
{
	return (struct hb_step){ dst, src, len, sync };
}

/* Rank @r's copies, in place or not, into @s; returns how many. */
static int plan(const struct hb *h, int r, bool ip, struct hb_step *s)
{
	const struct hb_rank *me = &h->rank[r], *root = &h->rank[h->root];
	size_t c = h->chunk;
	int n = h->n, k = 0;

	switch (h->op) {
	case OP_ALLGATHER:	/* the own chunk first, then the peers in ring order */
		for (int i = ip ? 1 : 0; i < n; i++) {
			const struct hb_rank *p = &h->rank[(r + i) % n];
			size_t at = (size_t)((r + i) % n) * c;

			s[k++] = step(me->rbuf + at, ip ? p->rbuf + at : p->sbuf, c, false);
		}
		break;
	case OP_BROADCAST:
		if (!ip || r != h->root)
			s[k++] = step(me->rbuf, ip ? root->rbuf : root->sbuf, c, false);
		break;
	default:		/* OP_ALLTOALL */
		for (int i = ip ? 1 : 0; i < n; i++) {
			int j = (r + n - i) % n;
			char *dst = me->rbuf + (size_t)j * c;

			if (ip && 2 * i <= n)
				dst = me->tmp + (size_t)(i - 1) * c;
			s[k++] = step(dst, (ip ? h->rank[j].rbuf : h->rank[j].sbuf) + (size_t)r * c,
				      c, ip && i > 1);
		}
		for (int i = 1; ip && 2 * i <= n; i++)
			s[k++] = step(me->rbuf + (size_t)((r + n - i) % n) * c,
				      me->tmp + (size_t)(i - 1) * c, c, i == 1);
		break;
	}
	return k;
}

/* What a check writes in chunk @j of rank @r's input. */
static unsigned char mark(const struct hb *h, int r, int j)
{
	return (unsigned char)(1 + (r * h->n + j) % 251);
}

/* Every rank's input as the @ip form reads it, marked per chunk; outputs zeroed. */
static void fill(struct hb *h, bool ip)
{
	for (int r = 0; r < h->n; r++) {
		struct hb_rank *me = &h->rank[r];
		char *in = me->sbuf;

		memset(me->rbuf, 0, h->bytes);
		if (ip)
			in = h->op == OP_ALLGATHER ? me->rbuf + (size_t)r * h->chunk :
			     h->op == OP_BROADCAST && r != h->root ? NULL : me->rbuf;
		for (int j = 0; in && j < (h->op == OP_ALLTOALL ? h->n : 1); j++)
			memset(in + (size_t)j * h->chunk, mark(h, r, j), h->chunk);
	}
}

/* Output chunks that do not hold what the collective puts there. */
static long wrong_chunks(const struct hb *h)
{
	long wrong = 0;
	size_t c = h->chunk;

	for (int r = 0; r < h->n; r++)
		for (int j = 0; j < (h->op == OP_BROADCAST ? 1 : h->n); j++) {
			const char *p = h->rank[r].rbuf + (size_t)j * c;
			unsigned char v = h->op == OP_ALLGATHER ? mark(h, j, 0) :
					  h->op == OP_ALLTOALL ? mark(h, j, r) : mark(h, h->root, 0);

			wrong += c && ((unsigned char)p[0] != v || memcmp(p, p + 1, c - 1));
		}
	return wrong;
}

static void *worker(void *arg)
{
	struct hb_rank *me = arg;
	struct hb *h = me->h;
	bool quit;

	pthread_mutex_lock(&h->gate);
	quit = h->quit;
	pthread_mutex_unlock(&h->gate);
	while (!quit) {
		pthread_barrier_wait(&h->all);	/* h->quit and h->in_place are set */
		quit = h->quit;
		for (int i = 0, ip = h->in_place; !quit && i < me->steps[ip]; i++) {
			const struct hb_step *s = &me->plan[ip][i];

			if (s->sync)
				pthread_barrier_wait(&h->ranks);
			memcpy(s->dst, s->src, s->len);
		}
		if (!quit)
			pthread_barrier_wait(&h->all);
	}
	return NULL;
}

/* Mean time in us of @runs runs of the @ip form, all threads started together. */
static double run(struct hb *h, bool ip, int runs)
{
	double t;

	h->in_place = ip;
	t = bench_now_us();
	for (int i = 0; i < runs; i++) {
		pthread_barrier_wait(&h->all);	/* go */
		pthread_barrier_wait(&h->all);	/* every thread is done */
	}
	return runs ? (bench_now_us() - t) / runs : 0;
}

/* As the collective is measured: warm-ups, one checked run, timed runs. */
static int measure(struct hb *h, const struct bench_opts *o, bool ip, double *us)
{
	long wrong;

	run(h, ip, o->warmup);
	if (o->check) {
		fill(h, ip);
		run(h, ip, 1);
		wrong = wrong_chunks(h);
		if (wrong) {
			fprintf(stderr, "ccore-bench: --host-bound: %ld output chunk(s) wrong after the %s copies\n",
				wrong, ip ? "in-place" : "out-of-place");
			return -EIO;
		}
	}
	*us = run(h, ip, o->iters);
	return 0;
}

/* Each rank's buffers and copies; -ENOMEM after saying so. */
static int prepare(struct hb *h, struct hb_step *steps, int max_steps)
{
	for (int r = 0; r < h->n; r++) {
		struct hb_rank *me = &h->rank[r];

		me->h = h;
		me->mem = bench_host_buf(h->mem_bytes, 0x11);
		if (!me->mem) {
			fprintf(stderr, "ccore-bench: --host-bound: cannot map %d x %zu bytes of host memory\n",
				h->n, h->mem_bytes);
			return -ENOMEM;
		}
		me->sbuf = me->mem;
		me->rbuf = me->mem + h->in_bytes;
		me->tmp = me->rbuf + h->bytes;
		me->plan[0] = steps + (size_t)(2 * r) * (size_t)max_steps;
		me->plan[1] = me->plan[0] + max_steps;
	}
	for (int r = 0; r < h->n; r++) {
		h->rank[r].steps[0] = plan(h, r, false, h->rank[r].plan[0]);
		h->rank[r].steps[1] = plan(h, r, true, h->rank[r].plan[1]);
	}
	return 0;
}

int bench_host_bound(const struct bench_opts *o, size_t bytes, struct bench_host_bound *res)
{
	struct hb h = { .op = o->op, .n = o->ranks, .root = o->root, .bytes = bytes };
	int max_steps = h.n + h.n / 2 + 1, started = 0, rc;
	struct hb_step *steps;

	h.chunk = o->op == OP_BROADCAST ? bytes : bytes / (size_t)h.n;
	h.in_bytes = o->op == OP_ALLGATHER ? h.chunk : bytes;
	h.mem_bytes = h.in_bytes + bytes + (o->op == OP_ALLTOALL ? (size_t)(h.n / 2) * h.chunk : 0);
	h.rank = calloc((size_t)h.n, sizeof(*h.rank));
	steps = calloc((size_t)(2 * h.n) * (size_t)max_steps, sizeof(*steps));
	rc = h.rank && steps ? prepare(&h, steps, max_steps) : -ENOMEM;
	if (!h.rank || !steps)
		fprintf(stderr, "ccore-bench: --host-bound: out of memory\n");
	if (!rc) {
		pthread_mutex_init(&h.gate, NULL);
		pthread_barrier_init(&h.all, NULL, (unsigned int)h.n + 1);
		pthread_barrier_init(&h.ranks, NULL, (unsigned int)h.n);
		pthread_mutex_lock(&h.gate);
		for (; started < h.n && !rc; started++)
			rc = -pthread_create(&h.rank[started].thread, NULL, worker, &h.rank[started]);
		if (rc) {
			started--;
			fprintf(stderr, "ccore-bench: --host-bound: cannot start %d threads: %s\n", h.n,
				strerror(-rc));
		}
		h.quit = rc != 0;
		pthread_mutex_unlock(&h.gate);
		if (!rc)
			rc = measure(&h, o, false, &res->oop_us) ?: measure(&h, o, true, &res->ip_us);
		if (!h.quit) {
			h.quit = true;
			pthread_barrier_wait(&h.all);
		}
		for (int r = 0; r < started; r++)
			pthread_join(h.rank[r].thread, NULL);
		pthread_barrier_destroy(&h.ranks);
		pthread_barrier_destroy(&h.all);
		pthread_mutex_destroy(&h.gate);
	}
	for (int r = 0; h.rank && r < h.n; r++)
		bench_host_buf_free(h.rank[r].mem, h.mem_bytes);
	free(steps);
	free(h.rank);
	return rc;
}
