// SPDX-License-Identifier: MIT
/*
 * Peers in other processes (plan/xchg.h), for communicators of one
 * process per rank.  When a plan is built, each local rank x and each
 * peer y of another process that x's or y's schedule names swap one
 * message through the bootstrap: x's buffers of the call (send, recv,
 * scratch) as device export tokens, and x's semaphore pair for y (what
 * y's program signals) with its block's token; each side imports the
 * other's.  What was exchanged is kept in a record keyed by the local
 * ranks' calls and the choice, which outlives the plan: a plan this
 * process evicted is rebuilt from its record without a message, while
 * the peers' cached plans still name this rank's scratch, so the record
 * owns the scratch (freed with the communicator or when a buffer of the
 * key is freed).  Every rank must build a new plan at the same call: when
 * any rank changes a call's buffers, all do (Documentation/processes.rst);
 * a rank that does alone waits for its peers' messages and fails after
 * the bootstrap's timeout naming them.
 */
#include "plan.h"
#include "xchg.h"
#include "bootstrap/boot.h"
#include "lock.h"
#include "log.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XMSG_MAGIC 0x78636867u	/* "xchg" */
/* bootstrap tags: exchanges count per pair below this; splits use the rest */
#define XCHG_TAG_SPAN 0x3fffffffu

/* What local rank @to gets from peer @from for one build. */
struct xmsg {
	uint32_t magic, from, to;
	uint8_t coll, in_place, dbuf, pad;
	uint32_t dtype, redop, root, peer;
	uint64_t count;
	char algo[24];
	uint32_t slices, channels;
	uint64_t pat_buffer;
	uint32_t pair;			/* from's A_from(to); C is the next one */
	uint32_t pad2;
	struct ccore_token sem;		/* the block holding it */
	uint64_t va[CS_NBUF];		/* from's buffers in its own view, 0: none */
	uint64_t off[CS_NBUF];		/* ... as offsets into the exported buffer */
	struct ccore_token bo[CS_NBUF];
};

struct xpeer {
	uint32_t x, y;			/* local rank, its peer in another process */
	uint32_t pair;
	uint64_t va[CS_NBUF], off[CS_NBUF];
	struct ccore_token bo[CS_NBUF];
};

struct xrec {
	struct op *ops;			/* the key: local ranks' calls ... */
	const struct algo *algo;	/* ... and the choice */
	uint32_t slices, channels;
	uint64_t pat_buffer;
	uint64_t *tmp;			/* [rank] local ranks' scratch, owned */
	uint64_t *runs;			/* [rank] launches of its plans (plan.h) */
	struct xpeer *peers;
	uint32_t npeers;
};

struct ximport {
	struct ccore_token tok;
	uint32_t dev, handle;
	uint64_t addr;
};

struct xchg_state {
	struct xrec **recs;
	uint32_t nrecs, cap;
	uint32_t *seq;			/* [x * n + y]: builds exchanged by the pair */
	struct ximport *imp;		/* buffers and semaphore blocks imported */
	uint32_t nimp, imp_cap;
	uint8_t *watch;			/* [rank] exchanged with, its fd channel bound here */
};

/* The last error, copied: a message built on it may not overwrite its own source. */
static const char *last_error_copy(void)
{
	static _Thread_local char copy[768];

	snprintf(copy, sizeof(copy), "%s", ccore_last_error());
	return copy;
}

uint64_t xchg_rec_tmp(const struct xrec *rec, uint32_t r)
{
	return rec->tmp[r];
}

uint64_t *xchg_rec_runs(struct xrec *rec)
{
	return rec->runs;
}

static struct xchg_state *state(struct clique *q)
{
	if (!q->xs)
		q->xs = calloc(1, sizeof(*q->xs));
	if (q->xs && !q->xs->seq)
		q->xs->seq = calloc((size_t)q->n * q->n, sizeof(*q->xs->seq));
	if (q->xs && !q->xs->watch)
		q->xs->watch = calloc(q->n, 1);
	return q->xs && q->xs->seq && q->xs->watch ? q->xs : NULL;
}

/* Watch @peer from now on if its process is on this host (it just sent to @x). */
static void watch(struct clique *q, uint32_t x, uint32_t peer)
{
	if (!__atomic_load_n(&q->xs->watch[peer], __ATOMIC_RELAXED) &&
	    boot_peer_bound(q->boots[x], (int)peer) == 1)
		__atomic_store_n(&q->xs->watch[peer], 1, __ATOMIC_RELAXED);
}

/*
 * Rank @r's process is on this host and still runs: it only left the
 * communicator (after a failure of its own), and what it waited for the
 * caller finds itself -- taking it for dead would name the wrong rank.
 */
static bool peer_still_runs(const struct clique *q, uint32_t r)
{
	return q->pids && q->pids[r] && !kill((pid_t)q->pids[r], 0);
}

int xchg_peer_gone(struct clique *q, uint32_t *rank)
{
	struct xchg_state *xs = q->xs;
	const struct boot *b = NULL;

	for (uint32_t r = 0; q->boots && r < q->n && !b; r++)
		if (clique_local(q, r))
			b = q->boots[r];
	for (uint32_t r = 0; xs && xs->watch && b && r < q->n; r++)
		if (__atomic_load_n(&xs->watch[r], __ATOMIC_RELAXED) &&
		    boot_peer_bound(b, (int)r) == 0 && !peer_still_runs(q, r)) {
			*rank = r;
			return 1;
		}
	return 0;
}

static bool same_call(const struct op *a, const struct op *b)
{
	return a->coll == b->coll && a->send == b->send && a->recv == b->recv &&
	       a->count == b->count && a->dtype == b->dtype && a->redop == b->redop &&
	       a->root == b->root && a->peer == b->peer &&
	       (a->stream ? a->stream->id : ~0u) == (b->stream ? b->stream->id : ~0u);
}

static bool rec_matches(const struct clique *q, const struct xrec *rec, const struct plan *p)
{
	if (rec->algo != p->algo || rec->slices != p->opts.slices ||
	    rec->channels != p->opts.channels || rec->pat_buffer != p->opts.pat_buffer)
		return false;
	for (uint32_t r = 0; r < q->n; r++)
		if (!same_call(&rec->ops[r], &p->ops[r]))
			return false;
	return true;
}

static void boot_prepare(struct clique *q, struct plan *p)
{
	for (uint32_t i = 0; q->xs && i < q->xs->nrecs; i++)
		if (rec_matches(q, q->xs->recs[i], p)) {
			p->xrec = q->xs->recs[i];
			return;
		}
}

/* The (local, other process's) pairs either side's schedule names, in order. */
static uint32_t *find_pairs(struct clique *q, const struct cs_sched *s, uint32_t *npairs)
{
	uint8_t *want = calloc((size_t)q->n * q->n, 1);
	uint32_t *pairs = NULL, k = 0, total = 0;

	if (!want)
		return NULL;
	for (uint32_t r = 0; r < q->n; r++)
		for (uint32_t i = 0; i < s->ranks[r].n; i++) {
			const struct cs_step *st = &s->ranks[r].steps[i];
			uint32_t o = st->peer;

			if (st->op != CS_SEND_OP && st->op != CS_RECV_OP &&
			    st->op != CS_RECV_REDUCE)
				continue;
			if (clique_local(q, r) == clique_local(q, o))
				continue;
			/* keyed (local, remote) */
			if (clique_local(q, r))
				want[(size_t)r * q->n + o] = 1;
			else
				want[(size_t)o * q->n + r] = 1;
		}
	for (size_t i = 0; i < (size_t)q->n * q->n; i++)
		total += want[i];
	pairs = malloc(2 * (total ? total : 1) * sizeof(*pairs));
	for (size_t i = 0; pairs && i < (size_t)q->n * q->n; i++)
		if (want[i]) {
			pairs[2 * k] = (uint32_t)(i / q->n);
			pairs[2 * k + 1] = (uint32_t)(i % q->n);
			k++;
		}
	free(want);
	*npairs = k;
	return pairs;
}

/* Local rank @x's buffer @b as a token, for its peers. */
static int export_buf(struct clique *q, struct plan *p, uint32_t x, uint32_t b, struct xmsg *m)
{
	uint64_t at = b == CS_SEND ? p->ops[x].send : b == CS_RECV ? p->ops[x].recv :
		      p->lr[x].va[CS_TMP];
	const struct rt_alloc *a;

	if (!at)
		return 0;
	a = rt_find(q->rt, q->ranks[x].dev, at, 0);
	if (!a)
		return ccore_error(-EINVAL, "rank %u: 0x%llx is not device memory of its device",
				   x, (unsigned long long)at);
	m->va[b] = at;
	m->off[b] = at - a->va;
	return dev_token_bo_export(q->rt->devs[q->ranks[x].dev].dev, a->handle, a->va, &m->bo[b]);
}

static void shape_into(const struct plan *p, const struct cs_sched *s, struct xmsg *m)
{
	const struct op *o = NULL;

	for (uint32_t r = 0; r < p->n && !o; r++)
		if (p->ops[r].stream)
			o = &p->ops[r];
	m->coll = o->coll;
	m->in_place = s->shape.in_place;
	m->dtype = o->dtype;
	m->redop = o->redop;
	m->root = o->root;
	m->peer = o->peer;
	m->count = o->count;
	snprintf(m->algo, sizeof(m->algo), "%s", p->algo->name);
	m->slices = p->opts.slices;
	m->channels = p->opts.channels;
	m->pat_buffer = p->opts.pat_buffer;
	m->dbuf = p->dbuf;
}

static int make_msg(struct clique *q, struct plan *p, const struct cs_sched *s, uint32_t x,
		    uint32_t y, struct xmsg *m)
{
	uint32_t slot = plan_rank_slot(p, x), first;
	struct ccore_dev *dev = q->rt->devs[q->ranks[x].dev].dev;
	int rc;

	memset(m, 0, sizeof(*m));
	m->magic = XMSG_MAGIC;
	m->from = x;
	m->to = y;
	shape_into(p, s, m);
	rc = sems_ensure(q, slot, x, &y, 1);
	if (rc)
		return rc;
	m->pair = sems_arrival(q, slot, x, y);
	rc = sems_chunk_of(q, slot, x, m->pair, &first);
	rc = rc ?: dev_token_sem_export(dev, first, &m->sem);
	for (uint32_t b = 0; b < CS_NBUF && !rc; b++)
		rc = export_buf(q, p, x, b, m);
	return rc;
}

/* What differs between the shape @a this rank built and @b its peer did, or NULL. */
static const char *shape_differs(const struct xmsg *a, const struct xmsg *b)
{
	if (a->coll != b->coll)
		return "collective";
	if (a->count != b->count || a->dtype != b->dtype)
		return "count or dtype";
	if (a->redop != b->redop || a->root != b->root || a->peer != b->peer)
		return "reduction, root or peer";
	if (a->in_place != b->in_place)
		return "in place (all ranks in place or none)";
	if (strcmp(a->algo, b->algo) || a->slices != b->slices || a->channels != b->channels ||
	    a->pat_buffer != b->pat_buffer)
		return "the algorithm chosen (a setting that decides plans differs?)";
	if (a->dbuf != b->dbuf)
		return "double-buffered scratch (a setting that decides plans differs?)";
	return NULL;
}

/* @tok imported into device @dev once: the cached import. */
static int import_once(struct clique *q, const struct ccore_token *tok, uint32_t dev, bool sem,
		       struct ximport **out)
{
	struct xchg_state *xs = q->xs;
	struct ximport *im;
	int rc;

	for (uint32_t i = 0; i < xs->nimp; i++)
		if (xs->imp[i].dev == dev && !memcmp(xs->imp[i].tok.bytes, tok->bytes,
						     sizeof(tok->bytes))) {
			*out = &xs->imp[i];
			return 0;
		}
	if (xs->nimp == xs->imp_cap) {
		uint32_t cap = xs->imp_cap ? 2 * xs->imp_cap : 16;

		im = realloc(xs->imp, cap * sizeof(*im));
		if (!im)
			return ccore_error(-ENOMEM, "out of memory");
		xs->imp = im;
		xs->imp_cap = cap;
	}
	im = &xs->imp[xs->nimp];
	*im = (struct ximport){ .tok = *tok, .dev = dev };
	im->tok.has_fd = 0;	/* the key is the bytes; the fd is the caller's */
	rc = sem ? dev_token_sem_import(q->rt->devs[dev].dev, tok) :
	     dev_token_bo_import(q->rt->devs[dev].dev, tok, &im->handle, &im->addr);
	if (rc)
		return rc;
	xs->nimp++;
	*out = im;
	return 0;
}

static void rec_free(struct clique *q, struct xrec *rec)
{
	for (uint32_t r = 0; r < q->n; r++)
		if (rec->tmp[r])
			rt_free(q->rt, q->ranks[r].dev, rec->tmp[r]);
	free(rec->tmp);
	free(rec->runs);
	free(rec->ops);
	free(rec->peers);
	free(rec);
}

static int rec_add(struct clique *q, struct plan *p, const struct xmsg *in, uint32_t npairs)
{
	struct xchg_state *xs = q->xs;
	struct xrec *rec = calloc(1, sizeof(*rec));
	int rc = 0;

	if (!rec)
		return ccore_error(-ENOMEM, "out of memory");
	rec->ops = malloc(q->n * sizeof(*rec->ops));
	rec->tmp = calloc(q->n, sizeof(*rec->tmp));
	rec->runs = calloc(q->n, sizeof(*rec->runs));
	rec->peers = calloc(npairs ? npairs : 1, sizeof(*rec->peers));
	if (xs->nrecs == xs->cap) {
		uint32_t cap = xs->cap ? 2 * xs->cap : 8;
		struct xrec **r = realloc(xs->recs, cap * sizeof(*r));

		if (r) {
			xs->recs = r;
			xs->cap = cap;
		}
	}
	if (!rec->ops || !rec->tmp || !rec->runs || !rec->peers || xs->nrecs == xs->cap) {
		rec_free(q, rec);
		return ccore_error(-ENOMEM, "out of memory");
	}
	memcpy(rec->ops, p->ops, q->n * sizeof(*rec->ops));
	rec->algo = p->algo;
	rec->slices = p->opts.slices;
	rec->channels = p->opts.channels;
	rec->pat_buffer = p->opts.pat_buffer;
	for (uint32_t i = 0; i < npairs && !rc; i++) {
		struct ximport *im;

		rec->peers[i] = (struct xpeer){ .x = in[i].to, .y = in[i].from,
						.pair = in[i].pair };
		memcpy(rec->peers[i].va, in[i].va, sizeof(in[i].va));
		memcpy(rec->peers[i].off, in[i].off, sizeof(in[i].off));
		memcpy(rec->peers[i].bo, in[i].bo, sizeof(in[i].bo));
		for (uint32_t b = 0; b < CS_NBUF; b++)
			rec->peers[i].bo[b].has_fd = 0;	/* imported at the build (import_fds) */
		/* x's device signals y's pair: let it, once per block */
		rc = import_once(q, &in[i].sem, q->ranks[in[i].to].dev, true, &im);
		if (rc)
			rc = ccore_error(rc, "%s (%s): rank %u importing the semaphores of rank %u: %s",
					 cs_coll_name(in[i].coll), in[i].algo, in[i].to, in[i].from,
					 last_error_copy());
	}
	rec->npeers = npairs;
	if (rc) {
		rec_free(q, rec);
		return rc;
	}
	/* the scratch is the record's now: peers' plans name it */
	for (uint32_t r = 0; r < q->n; r++)
		if (clique_local(q, r))
			rec->tmp[r] = p->lr[r].va[CS_TMP];
	xs->recs[xs->nrecs++] = rec;
	p->xrec = rec;
	return 0;
}

/* The tokens of @m that may carry an fd, in the order their fds travel. */
static uint32_t msg_tokens(struct xmsg *m, struct ccore_token **toks)
{
	uint32_t n = 0;

	toks[n++] = &m->sem;
	for (uint32_t b = 0; b < CS_NBUF; b++)
		toks[n++] = &m->bo[b];
	return n;
}

#define XMSG_TOKENS (1 + CS_NBUF)

/* Send @m's fds (the kernel driver's dma-buf and semaphore fds) ahead of its bytes. */
static int send_fds(struct boot *b, int peer, uint32_t tag, struct xmsg *m)
{
	struct ccore_token *toks[XMSG_TOKENS];
	int fds[XMSG_TOKENS];
	uint32_t n = msg_tokens(m, toks), k = 0;

	for (uint32_t i = 0; i < n; i++)
		if (toks[i]->has_fd)
			fds[k++] = toks[i]->fd;
	return k ? boot_send_fds(b, peer, tag, fds, k) : 0;
}

/* Take the fds @m's tokens say came with it: they are this process's now. */
static int recv_fds(struct boot *b, int peer, uint32_t tag, struct xmsg *m)
{
	struct ccore_token *toks[XMSG_TOKENS];
	int fds[XMSG_TOKENS];
	uint32_t n = msg_tokens(m, toks), k = 0;
	int rc;

	for (uint32_t i = 0; i < n; i++)
		k += toks[i]->has_fd = !!toks[i]->has_fd;
	if (!k)
		return 0;
	rc = boot_recv_fds(b, peer, tag, fds, k);
	k = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (!toks[i]->has_fd)
			continue;
		toks[i]->has_fd = !rc;
		toks[i]->fd = rc ? -1 : fds[k++];
	}
	return rc;
}

static void close_fds(struct xmsg *m, uint32_t n)
{
	struct ccore_token *toks[XMSG_TOKENS];

	for (uint32_t i = 0; i < n; i++)
		for (uint32_t t = 0, nt = msg_tokens(&m[i], toks); t < nt; t++)
			dev_token_close_fd(toks[t]);
}

/*
 * Import every buffer whose fd came with a peer's message now: the fds
 * are closed once the build is done, and a later build of the record
 * finds the imports by the tokens' bytes.
 */
static int import_fds(struct clique *q, struct xmsg *in, uint32_t npairs)
{
	struct ximport *im;
	int rc = 0;

	for (uint32_t i = 0; i < npairs && !rc; i++)
		for (uint32_t b = 0; b < CS_NBUF && !rc; b++) {
			if (!in[i].va[b] || !in[i].bo[b].has_fd)
				continue;
			rc = import_once(q, &in[i].bo[b], q->ranks[in[i].to].dev, false, &im);
			if (rc)
				rc = ccore_error(rc, "%s (%s): rank %u importing a buffer of rank %u: %s",
						 cs_coll_name(in[i].coll), in[i].algo, in[i].to,
						 in[i].from, last_error_copy());
		}
	return rc;
}

/* Send every pair's message, then take every peer's; the runtime lock is dropped meanwhile. */
static int swap(struct clique *q, const uint32_t *pairs, uint32_t npairs, struct xmsg *out,
		struct xmsg *in, const uint32_t *tags)
{
	const char *why = "";
	uint32_t i, bad = 0;
	int rc = 0;

	q->exchanging = true;
	rt_unlock();
	for (i = 0; i < npairs && !rc; i++) {
		bad = i;
		rc = send_fds(q->boots[pairs[2 * i]], (int)pairs[2 * i + 1], tags[i], &out[i]);
		rc = rc ?: boot_send(q->boots[pairs[2 * i]], (int)pairs[2 * i + 1], tags[i],
				     &out[i], sizeof(out[i]));
	}
	for (i = 0; i < npairs && !rc; i++) {
		bad = i;
		rc = boot_recv(q->boots[pairs[2 * i]], (int)pairs[2 * i + 1], tags[i], &in[i],
			       sizeof(in[i]));
		rc = rc ?: recv_fds(q->boots[pairs[2 * i]], (int)pairs[2 * i + 1], tags[i], &in[i]);
		if (!rc)
			watch(q, pairs[2 * i], pairs[2 * i + 1]);
	}
	if (rc)
		why = last_error_copy();
	rt_lock();
	q->exchanging = false;
	rt_launched();
	q->boot_msgs += 2ull * npairs;
	q->boot_bytes += 2ull * npairs * sizeof(*out);
	if (rc)
		return ccore_error(rc, "%s (%s): rank %u exchanging its buffers and semaphores with rank %u for a new plan: %s (on a communicator of ccore_comm_init_rank, when one rank calls with new buffers every rank must: Documentation/processes.rst)",
				   cs_coll_name(out[bad].coll), out[bad].algo, pairs[2 * bad],
				   pairs[2 * bad + 1], why);
	return 0;
}

static int boot_plan(struct clique *q, struct plan *p, const struct cs_sched *s)
{
	struct xchg_state *xs = state(q);
	struct xmsg *out = NULL, *in = NULL;
	uint32_t npairs = 0, *pairs, *tags = NULL;
	int rc = 0;

	if (p->xrec)
		return 0;	/* exchanged at an earlier build: nothing to send */
	if (!xs)
		return ccore_error(-ENOMEM, "out of memory");
	pairs = find_pairs(q, s, &npairs);
	if (pairs) {
		out = calloc(npairs ? npairs : 1, sizeof(*out));
		in = calloc(npairs ? npairs : 1, sizeof(*in));
		tags = calloc(npairs ? npairs : 1, sizeof(*tags));
	}
	if (!pairs || !out || !in || !tags) {
		rc = ccore_error(-ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < npairs && !rc; i++) {
		uint32_t x = pairs[2 * i], y = pairs[2 * i + 1];

		rc = make_msg(q, p, s, x, y, &out[i]);
		tags[i] = 1 + xs->seq[(size_t)x * q->n + y]++ % XCHG_TAG_SPAN;
	}
	rc = rc ?: swap(q, pairs, npairs, out, in, tags);
	for (uint32_t i = 0; i < npairs && !rc; i++) {
		const char *what = shape_differs(&out[i], &in[i]);

		if (in[i].magic != XMSG_MAGIC || in[i].from != out[i].to || in[i].to != out[i].from)
			rc = ccore_error(-EPROTO, "rank %u: the exchange message from rank %u is not one (magic 0x%x, from %u, to %u)",
					 out[i].from, out[i].to, in[i].magic, in[i].from, in[i].to);
		else if (what)
			rc = ccore_error(-EINVAL, "rank %u built a plan of %s count %llu (%s, %u slices, %u channels), rank %u of %s count %llu (%s, %u slices, %u channels): the %s differs; every rank must make the same calls in the same order, and change buffers at the same call",
					 out[i].from, cs_coll_name(out[i].coll),
					 (unsigned long long)out[i].count, out[i].algo,
					 out[i].slices, out[i].channels, in[i].from, cs_coll_name(in[i].coll),
					 (unsigned long long)in[i].count, in[i].algo, in[i].slices,
					 in[i].channels, what);
	}
	rc = rc ?: import_fds(q, in, npairs);
	rc = rc ?: rec_add(q, p, in, npairs);
	if (!rc && npairs)
		log_msg(LOG_INFO, "%s %s: a new plan: %u pair%s of ranks here and in other processes swapped buffers and semaphores (%u messages of %zu bytes); repeats send nothing",
			cs_coll_name(out[0].coll), p->algo->name, npairs, npairs == 1 ? "" : "s",
			2 * npairs, sizeof(*out));
out:
	/* sent or imported, or never to be: the exports' fds go either way */
	if (out && in) {
		close_fds(out, npairs);
		close_fds(in, npairs);
	}
	free(pairs);
	free(out);
	free(in);
	free(tags);
	return rc;
}

static const struct xpeer *peer_of(const struct plan *p, uint32_t x, uint32_t y)
{
	for (uint32_t i = 0; p->xrec && i < p->xrec->npeers; i++)
		if (p->xrec->peers[i].x == x && p->xrec->peers[i].y == y)
			return &p->xrec->peers[i];
	return NULL;
}

static int not_exchanged(const struct plan *p, uint32_t r, uint32_t k, const char *what)
{
	return ccore_error(-EPROTO, "%s: rank %u names %s of rank %u, another process's, which the exchange at the plan's build did not cover (a schedule naming peers it does not send to or receive from)",
			   p->algo->name, r, what, k);
}

static int boot_peer_va(struct plan *p, uint32_t r, uint32_t k, uint32_t buf, uint64_t *va)
{
	struct clique *q = p->q;
	const struct xpeer *e;
	struct ximport *im;
	int rc;

	*va = 0;
	if (!clique_local(q, r))
		return 0;	/* only sized here: its own process lowers it */
	if (clique_local(q, k))
		return xchg_local_peer_va(p, r, k, buf, va);
	e = peer_of(p, r, k);
	if (!e)
		return not_exchanged(p, r, k, "the buffers");
	if (!e->va[buf])
		return 0;
	rc = import_once(q, &e->bo[buf], q->ranks[r].dev, false, &im);
	if (rc)
		return ccore_error(rc, "%s: rank %u importing a buffer of rank %u: %s", p->algo->name,
				   r, k, last_error_copy());
	*va = im->addr + e->off[buf];
	return 0;
}

static int boot_sem(struct plan *p, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
		    uint32_t user, uint32_t *sem)
{
	struct clique *q = p->q;
	const struct xpeer *e;

	*sem = 0;
	/* a rank's own: made here, whoever else signals it (a peer elsewhere imports it) */
	if (clique_local(q, r))
		return xchg_local_sem(p, r, peer, kind, user, sem);
	if (!clique_local(q, user))
		return 0;	/* another process's rank's program: only sized here */
	e = peer_of(p, user, r);
	if (kind == LOWER_SEM_LOCAL || peer != user || !e)
		return not_exchanged(p, user, r, "a semaphore");
	*sem = kind == LOWER_SEM_ARRIVAL ? e->pair : e->pair + 1;
	return 0;
}

/* Does @rec's key name rank @rank's buffer [lo, hi)? */
static bool rec_names(const struct xrec *rec, uint32_t rank, uint64_t lo, uint64_t hi)
{
	const struct op *o = &rec->ops[rank];

	return (o->send >= lo && o->send < hi) || (o->recv >= lo && o->recv < hi);
}

static void boot_forget(struct clique *q, uint32_t rank, uint64_t va)
{
	const struct rt_alloc *a = rt_find(q->rt, q->ranks[rank].dev, va, 0);
	struct xchg_state *xs = q->xs;
	uint32_t kept = 0;

	if (!a || !xs)
		return;
	for (uint32_t i = 0; i < xs->nrecs; i++) {
		if (rec_names(xs->recs[i], rank, a->va, a->va + a->size))
			rec_free(q, xs->recs[i]);
		else
			xs->recs[kept++] = xs->recs[i];
	}
	xs->nrecs = kept;
}

static void boot_fini(struct clique *q)
{
	struct xchg_state *xs = q->xs;

	if (!xs)
		return;
	for (uint32_t i = 0; i < xs->nrecs; i++)
		rec_free(q, xs->recs[i]);
	for (uint32_t i = 0; i < xs->nimp; i++)
		if (xs->imp[i].handle)
			ccore_dev_bo_close(q->rt->devs[xs->imp[i].dev].dev, xs->imp[i].handle);
	free(xs->recs);
	free(xs->imp);
	free(xs->seq);
	free(xs->watch);
	free(xs);
	q->xs = NULL;
}

const struct xchg_ops xchg_between_processes = {
	.name = "between processes",
	.prepare = boot_prepare,
	.plan = boot_plan,
	.peer_va = boot_peer_va,
	.sem = boot_sem,
	.forget = boot_forget,
	.fini = boot_fini,
};
