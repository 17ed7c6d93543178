// SPDX-License-Identifier: MIT
/*
 * Communicators: a clique holds the ranks of one communicator (device and
 * core of each), their semaphore pools per stream (sems.c), the collectives posted
 * but not launched, and the plan cache; each rank's ccore_comm points at it.
 */
#include "comm.h"
#include "bootstrap/boot.h"
#include "lock.h"
#include "log.h"
#include "plan/xchg.h"
#include "select.h"
#include "util/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Free a clique's tables and the clique; any table may be missing. */
static void clique_free_arrays(struct clique *q)
{
	for (uint32_t i = 0; i < q->nlanes; i++) {
		for (uint32_t r = 0; r < q->n; r++)
			free(q->lanes[i].ranks[r].ops);
		free(q->lanes[i].ranks);
	}
	free(q->lanes);
	for (uint32_t k = 0; q->sends && q->recvs && k < q->n * q->n; k++) {
		free(q->sends[k].ops);
		free(q->recvs[k].ops);
	}
	free(q->sends);
	free(q->recvs);
	for (uint32_t r = 0; q->boots && r < q->n; r++)
		boot_close(q->boots[r]);
	free(q->boots);
	free(q->pids);
	free(q->hosts);
	free(q->local);
	free(q->split.color);
	free(q->split.key);
	free(q->split.in);
	free(q->split.out);
	free(q->split.msg);
	free(q->memo.env_seen);
	free(q->ranks);
	free(q->comms);
	free(q->pools);
	free(q);
}

int clique_new(struct rt *rt, uint32_t n, const struct stream_cfg *scfg, struct clique **out)
{
	struct clique *q = calloc(1, sizeof(*q));

	if (!q)
		return ccore_error(-ENOMEM, "out of memory");
	q->rt = rt;
	q->n = n;
	q->scfg = *scfg;
	q->xchg = &xchg_in_process;
	q->ranks = calloc(n, sizeof(*q->ranks));
	q->comms = calloc(n, sizeof(*q->comms));
	q->sends = calloc((size_t)n * n, sizeof(*q->sends));
	q->recvs = calloc((size_t)n * n, sizeof(*q->recvs));
	if (!q->ranks || !q->comms || sems_init(q) || !q->sends || !q->recvs) {
		clique_free_arrays(q);
		return ccore_error(-ENOMEM, "out of memory");
	}
	rt_get(rt);
	q->rt_next = rt->cliques;
	rt->cliques = q;
	*out = q;
	return 0;
}

void clique_free(struct clique *q)
{
	plan_flush(q);
	/* the peers' imports go after the plans naming them */
	if (q->xchg->fini)
		q->xchg->fini(q);
	sems_fini(q);
	for (struct clique **pq = &q->rt->cliques; *pq; pq = &(*pq)->rt_next)
		if (*pq == q) {
			*pq = q->rt_next;
			break;
		}
	rt_put(q->rt);
	clique_free_arrays(q);
}

int comms_create(struct clique *q, struct ccore_comm **out)
{
	for (uint32_t r = 0; r < q->n; r++) {
		struct ccore_comm *c;

		if (!clique_local(q, r))
			continue;
		c = calloc(1, sizeof(*c));

		if (c) {
			c->q = q;
			c->rank = r;
		}
		if (!c || stream_alloc(c, 0, &c->stream0)) {
			free(c);
			while (r-- > 0) {
				if (!q->comms[r])
					continue;
				free(q->comms[r]->stream0);
				free(q->comms[r]);
				q->comms[r] = NULL;
			}
			return ccore_error(-ENOMEM, "out of memory");
		}
		c->stream0->is_default = true;
		q->comms[r] = c;
		out[r] = c;
	}
	q->alive = q->local ? q->nlocal : q->n;
	return 0;
}

int ccore_comm_init_all(const struct ccore_topology *topo, struct ccore_comm **comms)
{
	return ccore_comm_init_all_config(topo, NULL, comms);
}

static int comm_init_all(const struct ccore_topology *topo,
			 const struct ccore_comm_config *config, struct ccore_comm **comms)
{
	struct stream_cfg scfg;
	struct clique *q;
	struct rt *rt;
	uint32_t n;
	int rc;

	if (!topo || !comms)
		return ccore_error(-EINVAL, "ccore_comm_init_all: %s is NULL", !topo ? "topo" : "comms");
	/* a bad knob is an error naming it, never a silent default */
	rc = log_init() ?: select_init() ?: stream_peer_timeout_init();
	if (rc)
		return rc;
	rc = rt_open(topo, &rt);
	if (rc)
		return rc;
	rc = stream_cfg_for_dev(rt->devs[0].dev, config, &scfg);
	n = topo->nodes * topo->devices_per_node * topo->ranks_per_device;
	if (!rc)
		rc = clique_new(rt, n, &scfg, &q);
	rt_put(rt);
	if (rc)
		return rc;
	for (uint32_t r = 0; r < n; r++) {
		q->ranks[r].dev = r / topo->ranks_per_device;
		q->ranks[r].core = r % topo->ranks_per_device;
	}
	rc = comms_create(q, comms);
	if (rc)
		clique_free(q);
	else
		stream_cfg_log(&q->scfg, q->rt->devs[0].dev);
	return rc;
}

int ccore_comm_init_all_config(const struct ccore_topology *topo,
			       const struct ccore_comm_config *config, struct ccore_comm **comms)
{
	int rc;

	rt_lock();
	rc = comm_init_all(topo, config, comms);
	rt_unlock();
	return rc;
}

struct split_member {
	int key;
	uint32_t old;
};

static int by_key(const void *a, const void *b)
{
	const struct split_member *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->old < y->old ? -1 : x->old > y->old;
}

/* Every rank of one communicator, each once and in rank order. */
static int check_split_args(struct ccore_comm *const *comms, int n, const int *color,
			    const int *key, struct ccore_comm **out)
{
	const struct clique *parent;

	if (!comms || !color || !key || !out)
		return ccore_error(-EINVAL, "ccore_comm_split: %s is NULL; comms, color, key and out must all be set",
				   !comms ? "comms" : !color ? "color" : !key ? "key" : "out");
	if (n <= 0)
		return ccore_error(-EINVAL, "ccore_comm_split: n is %d; pass all ranks of the communicator (n > 0)",
				   n);
	if (!comms[0])
		return ccore_error(-EINVAL, "ccore_comm_split: comms[0] is NULL; comms[i] must be rank i of the communicator");
	parent = comms[0]->q;
	if (parent->local)
		return ccore_error(-EINVAL, "ccore_comm_split: comms[0] is a communicator of ccore_comm_init_rank(s), whose ranks live in other processes too; split it with ccore_comm_split_rank, each rank passing its own color and key");
	if ((uint32_t)n != parent->n)
		return ccore_error(-EINVAL, "ccore_comm_split: n is %d; pass all %u ranks of the communicator",
				   n, parent->n);
	for (int i = 0; i < n; i++) {
		if (!comms[i])
			return ccore_error(-EINVAL, "ccore_comm_split: comms[%d] is NULL; comms[i] must be rank i of the communicator",
					   i);
		if (comms[i]->q != parent)
			return ccore_error(-EINVAL, "ccore_comm_split: comms[%d] belongs to another communicator than comms[0] (of %u ranks); pass the ranks of one",
					   i, parent->n);
		if (comms[i]->rank != (uint32_t)i)
			return ccore_error(-EINVAL, "ccore_comm_split: comms[%d] is rank %u; comms[i] must be rank i, each rank once",
					   i, comms[i]->rank);
	}
	return 0;
}

static int comm_split(struct ccore_comm *const *comms, int n, const int *color, const int *key,
		      struct ccore_comm **out)
{
	struct clique *parent;
	struct split_member *m;
	int rc = check_split_args(comms, n, color, key, out);

	if (rc)
		return rc;
	parent = comms[0]->q;
	for (int i = 0; i < n; i++)
		out[i] = NULL;
	m = calloc(parent->n, sizeof(*m));	/* n, checked */
	if (!m)
		return ccore_error(-ENOMEM, "out of memory");
	for (int c0 = 0; c0 < n && !rc; c0++) {
		struct clique *q;
		struct ccore_comm **tmp;
		uint32_t k = 0;

		if (color[c0] < 0)
			continue;
		/* the first rank of each color builds that color's communicator */
		bool first = true;

		for (int i = 0; i < c0; i++)
			if (color[i] == color[c0])
				first = false;
		if (!first)
			continue;
		for (int i = 0; i < n; i++)
			if (color[i] == color[c0])
				m[k++] = (struct split_member){ key[i], (uint32_t)i };
		qsort(m, k, sizeof(*m), by_key);
		rc = clique_new(parent->rt, k, &parent->scfg, &q);
		if (rc)
			break;
		for (uint32_t r = 0; r < k; r++)
			q->ranks[r] = parent->ranks[m[r].old];
		tmp = calloc(k, sizeof(*tmp));
		rc = tmp ? comms_create(q, tmp) : ccore_error(-ENOMEM, "out of memory");
		if (rc) {
			free(tmp);
			clique_free(q);
			break;
		}
		for (uint32_t r = 0; r < k; r++)
			out[m[r].old] = tmp[r];
		free(tmp);
	}
	free(m);
	return rc;
}

int ccore_comm_split(struct ccore_comm *const *comms, int n, const int *color, const int *key,
		     struct ccore_comm **out)
{
	int rc;

	rt_lock();
	rc = comm_split(comms, n, color, key, out);
	rt_unlock();
	return rc;
}

/* The ranks that have not called ccore_comm_split_rank in this round, as "1, 3". */
static void split_missing(const struct clique *q, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (uint32_t r = 0; r < q->n && at < len; r++)
		if (!q->split.in[r])
			at += (size_t)snprintf(buf + at, len - at, "%s%u", at ? ", " : "", r);
}

/* The last rank's call: split as ccore_comm_split does, hand everyone its result. */
static void split_round_end(struct clique *q)
{
	int rc = comm_split(q->comms, (int)q->n, q->split.color, q->split.key, q->split.out);

	q->split.rc = rc;
	free(q->split.msg);
	q->split.msg = rc ? strdup(ccore_last_error()) : NULL;
	q->split.count = 0;
	memset(q->split.in, 0, q->n * sizeof(*q->split.in));
	q->split.round++;
	rt_launched();
}

int comm_split_rank_in_process(struct ccore_comm *c, int color, int key, struct ccore_comm **out)
{
	struct clique *q = c->q;
	int64_t deadline = rt_now_ns() + stream_peer_timeout_ns();
	uint64_t round;
	char missing[256];
	int rc = 0;

	rt_lock();
	if (!q->split.in) {
		q->split.color = calloc(q->n, sizeof(int));
		q->split.key = calloc(q->n, sizeof(int));
		q->split.in = calloc(q->n, sizeof(bool));
		q->split.out = calloc(q->n, sizeof(*q->split.out));
		if (!q->split.color || !q->split.key || !q->split.in || !q->split.out) {
			rt_unlock();
			return ccore_error(-ENOMEM, "out of memory");
		}
	}
	if (q->split.in[c->rank]) {
		rt_unlock();
		return ccore_error(-EBUSY, "ccore_comm_split_rank: rank %u is already splitting this communicator (another thread's call waits for the other ranks)",
				   c->rank);
	}
	q->split.color[c->rank] = color < 0 ? -1 : color;
	q->split.key[c->rank] = key;
	q->split.in[c->rank] = true;
	round = q->split.round;
	if (++q->split.count == q->n)
		split_round_end(q);
	while (q->split.round == round && !rc)
		rc = rt_wait_launch(deadline);
	if (rc) {
		split_missing(q, missing, sizeof(missing));
		q->split.in[c->rank] = false;
		q->split.count--;
		rt_unlock();
		return ccore_error(-ETIMEDOUT, "ccore_comm_split_rank: rank %u waited %lld ms for ranks %s to call it (CCORE_PEER_TIMEOUT_MS)",
				   c->rank, (long long)(stream_peer_timeout_ns() / 1000000),
				   missing);
	}
	rc = q->split.rc;
	*out = q->split.out[c->rank];
	if (rc)
		ccore_error(rc, "%s", q->split.msg ? q->split.msg : "ccore_comm_split_rank failed");
	rt_unlock();
	return rc;
}

int ccore_comm_destroy(struct ccore_comm *c)
{
	struct clique *q;

	if (!c)
		return ccore_error(-EINVAL, "ccore_comm_destroy: comm is NULL");
	rt_lock();
	q = c->q;
	clique_wait_exchange(q);
	/* what this rank posted can no longer run: its peers' syncs will say
	 * that it never posts */
	clique_drop_posted(q, c->rank, NULL);
	/* cached plans name this rank's streams and buffers */
	plan_flush(q);
	stream_drain(c->stream0);
	stream_free(c->stream0);
	q->comms[c->rank] = NULL;
	if (q->boots) {
		/* its peers learn that it is gone from their next exchange */
		boot_close(q->boots[c->rank]);
		q->boots[c->rank] = NULL;
	}
	free(c);
	if (--q->alive == 0)
		clique_free(q);
	rt_unlock();
	return 0;
}

int ccore_comm_rank(const struct ccore_comm *c)
{
	if (!c)
		return ccore_error(-EINVAL, "ccore_comm_rank: comm is NULL");
	return (int)c->rank;
}

int ccore_comm_count(const struct ccore_comm *c)
{
	if (!c)
		return ccore_error(-EINVAL, "ccore_comm_count: comm is NULL");
	return (int)c->q->n;
}

const char *ccore_comm_last_algo(const struct ccore_comm *c)
{
	const char *name;

	if (!c) {
		ccore_error(-EINVAL, "ccore_comm_last_algo: comm is NULL");
		return "";
	}
	rt_lock();
	name = c->q->last_algo ? c->q->last_algo : "";
	rt_unlock();
	return name;
}

void clique_wait_exchange(struct clique *q)
{
	while (q->exchanging)
		rt_wait_launch(rt_now_ns() + 100000000);
}

int comm_boot_traffic(const struct ccore_comm *c, uint64_t *msgs, uint64_t *bytes)
{
	if (!c || !msgs || !bytes)
		return ccore_error(-EINVAL, "comm_boot_traffic: comm, msgs and bytes must be set");
	rt_lock();
	*msgs = c->q->boot_msgs;
	*bytes = c->q->boot_bytes;
	rt_unlock();
	return 0;
}

struct ccore_dev *comm_dev(const struct ccore_comm *c)
{
	return c->q->rt->devs[c->q->ranks[c->rank].dev].dev;
}

/* --- memory -------------------------------------------------------------- */

/* No buffer is larger than the device memory (allocated or registered). */
static int check_mem_bytes(const char *fn, const struct ccore_comm *c, size_t bytes)
{
	if (bytes > c->q->rt->hbm_size)
		return ccore_error(-EOVERFLOW, "%s: bytes %zu is more than the device memory; allowed: at most %llu (HBM_SIZE)",
				   fn, bytes, (unsigned long long)c->q->rt->hbm_size);
	return 0;
}

int ccore_mem_alloc(struct ccore_comm *c, size_t bytes, ccore_ptr *ptr)
{
	int rc;

	if (!c || !ptr)
		return ccore_error(-EINVAL, "ccore_mem_alloc: comm and ptr must be set");
	if (!bytes)
		return ccore_error(-EINVAL, "ccore_mem_alloc: bytes is 0");
	rc = check_mem_bytes("ccore_mem_alloc", c, bytes);
	if (rc)
		return rc;
	rt_lock();
	rc = rt_alloc(c->q->rt, c->q->ranks[c->rank].dev, bytes, ptr);
	rt_unlock();
	return rc;
}

int ccore_mem_register(struct ccore_comm *c, void *host, size_t bytes, ccore_ptr *ptr)
{
	uintptr_t end;
	int rc;

	if (!c || !host || !ptr)
		return ccore_error(-EINVAL, "ccore_mem_register: comm, host and ptr must be set");
	rc = check_mem_bytes("ccore_mem_register", c, bytes);
	if (rc)
		return rc;
	if (__builtin_add_overflow((uintptr_t)host, bytes, &end))
		return ccore_error(-EOVERFLOW, "ccore_mem_register: host %p + bytes %zu wraps around the end of the address space",
				   host, bytes);
	rt_lock();
	rc = rt_register(c->q->rt, c->q->ranks[c->rank].dev, host, bytes, ptr);
	rt_unlock();
	return rc;
}

int ccore_mem_free(struct ccore_comm *c, ccore_ptr ptr)
{
	int rc;

	if (!c)
		return ccore_error(-EINVAL, "ccore_mem_free: comm is NULL");
	rt_lock();
	clique_wait_exchange(c->q);
	/* plans bake buffer addresses in: drop them before the memory goes */
	plan_flush(c->q);
	/* and what peers in other processes were given of it */
	if (c->q->xchg->forget)
		c->q->xchg->forget(c->q, c->rank, ptr);
	rc = rt_free(c->q->rt, c->q->ranks[c->rank].dev, ptr);
	rt_unlock();
	return rc;
}

void *ccore_mem_host(struct ccore_comm *c, ccore_ptr ptr)
{
	const struct rt_alloc *a;
	void *host;

	if (!c) {
		ccore_error(-EINVAL, "ccore_mem_host: comm is NULL");
		return NULL;
	}
	rt_lock();
	a = rt_find(c->q->rt, c->q->ranks[c->rank].dev, ptr, 0);
	host = a && a->host ? (char *)a->host + (ptr - a->va) : NULL;
	rt_unlock();
	if (!a) {
		ccore_error(-EINVAL, "ccore_mem_host: 0x%llx is not device memory of rank %u",
			    (unsigned long long)ptr, c->rank);
		return NULL;
	}
	if (!host) {
		ccore_error(-ENXIO, "ccore_mem_host: device memory is virtual (timed sim with virtual=1): it has no host view");
		return NULL;
	}
	return host;
}

int ccore_comm_virtual_time_ps(const struct ccore_comm *c, uint64_t *ps)
{
	int rc;

	if (!c || !ps)
		return ccore_error(-EINVAL, "ccore_comm_virtual_time_ps: comm and ps must be set");
	if (!rt_timed(c->q->rt))
		return ccore_error(-ENODEV, "ccore_comm_virtual_time_ps: virtual time needs the sim backend with timed=1 (CCORE_SIM)");
	rt_lock();
	rc = device_virtual_now_ps(c->q->rt->sys, ps);
	rt_unlock();
	return rc;
}

/* --- streams and packet sizes ---------------------------------------------- */

int ccore_comm_stream_map(const struct ccore_comm *c, struct ccore_stream_map *out)
{
	int rc;

	if (!c || !out)
		return ccore_error(-EINVAL, "ccore_comm_stream_map: comm and out must be set");
	rt_lock();
	rc = stream_cfg_map(&c->q->scfg, comm_dev(c), out);
	rt_unlock();
	return rc;
}

int ccore_comm_stream_cc_core(const struct ccore_comm *c, uint32_t id, uint32_t *cc_core)
{
	if (!c || !cc_core)
		return ccore_error(-EINVAL, "ccore_comm_stream_cc_core: comm and cc_core must be set");
	*cc_core = stream_cfg_slot(&c->q->scfg, id);
	return 0;
}

int ccore_comm_dma_packetization_size(const struct ccore_comm *c, uint32_t *bytes)
{
	struct ccore_stream_map m;
	int rc;

	if (!c || !bytes)
		return ccore_error(-EINVAL, "ccore_comm_dma_packetization_size: comm and bytes must be set");
	rt_lock();
	rc = stream_cfg_map(&c->q->scfg, comm_dev(c), &m);
	rt_unlock();
	if (!rc)
		*bytes = m.dma_packetization_size;
	return rc;
}

/* --- collectives posted but not launched ---------------------------------- */

/* Take the ops of @s (any stream of rank @rank's if NULL) out of @oq. */
static void drop_from(struct op_queue *oq, const struct ccore_stream *s, uint32_t rank)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < oq->n; i++) {
		struct op *o = &oq->ops[oq->head + i];

		if (s ? o->stream == s : o->stream->comm->rank == rank) {
			o->stream->pending--;
			continue;
		}
		oq->ops[oq->head + kept++] = *o;
	}
	oq->n = kept;
}

void clique_drop_posted(struct clique *q, uint32_t rank, const struct ccore_stream *s)
{
	for (uint32_t l = 0; l < q->nlanes; l++)
		drop_from(&q->lanes[l].ranks[rank], s, rank);
	for (uint32_t p = 0; p < q->n; p++) {
		drop_from(&q->sends[rank * q->n + p], s, rank);
		drop_from(&q->recvs[p * q->n + rank], s, rank);
	}
	rt_launched();
}

/* --- what a stream waits for (messages) ---------------------------------- */

/* "1, 3, 4" into @buf: the ranks whose queue in @qs holds at most @i ops. */
static void missing_ranks(const struct clique *q, const struct op_queue *qs, uint32_t i,
			  char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (uint32_t k = 0; k < q->n && at < len; k++)
		if (qs[k].n <= i && clique_local(q, k))
			at += (size_t)snprintf(buf + at, len - at, "%s%u", at ? ", " : "", k);
}

/* The position of @s's oldest op in @oq, or -1. */
static int64_t oldest_of(const struct op_queue *oq, const struct ccore_stream *s)
{
	for (uint32_t i = 0; i < oq->n; i++)
		if (oq->ops[oq->head + i].stream == s)
			return i;
	return -1;
}

void clique_describe_pending(const struct clique *q, const struct ccore_stream *s, char *buf,
			     size_t len)
{
	uint32_t r = s->comm->rank;
	char ranks[512];
	int64_t i;

	for (uint32_t l = 0; l < q->nlanes; l++) {
		const struct post_lane *lane = &q->lanes[l];
		const struct op *o;

		if (lane->stream_id != s->id || (i = oldest_of(&lane->ranks[r], s)) < 0)
			continue;
		o = &lane->ranks[r].ops[lane->ranks[r].head + i];
		missing_ranks(q, lane->ranks, (uint32_t)i, ranks, sizeof(ranks));
		snprintf(buf, len, "%s of %llu %s (the stream's collective #%lld still waiting) is not posted by rank%s %s yet",
			 cs_coll_name(o->coll), (unsigned long long)o->count,
			 ccore_dtype_name(o->dtype), (long long)i + 1, strchr(ranks, ',') ? "s" : "",
			 ranks);
		return;
	}
	for (uint32_t k = 0; k < q->n * q->n; k++) {
		bool sending = k / q->n == r;
		const struct op_queue *mine = sending ? &q->sends[k] : &q->recvs[k];
		const struct op_queue *theirs = sending ? &q->recvs[k] : &q->sends[k];

		if ((k / q->n != r && k % q->n != r) || (i = oldest_of(mine, s)) < 0 ||
		    theirs->n > i)
			continue;
		snprintf(buf, len, "%s of %llu %s %s rank %u waits for rank %u to post the matching %s",
			 sending ? "send" : "receive",
			 (unsigned long long)mine->ops[mine->head + i].count,
			 ccore_dtype_name(mine->ops[mine->head + i].dtype), sending ? "to" : "from",
			 sending ? k % q->n : k / q->n, sending ? k % q->n : k / q->n,
			 sending ? "ccore_recv" : "ccore_send");
		return;
	}
	snprintf(buf, len, "a collective every rank posted inside a group still waits for the ccore_group_end() of the thread that posted it last");
}
