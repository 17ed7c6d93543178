// SPDX-License-Identifier: MIT
/*
 * Communicators: a clique holds the ranks of one communicator (device and
 * core of each), their semaphore pools per stream (sems.c), the collectives posted
 * but not launched, and the plan cache; each rank's ccore_comm points at it.
 */
#include "comm.h"
#include "ccm.h"
#include "log.h"
#include "select.h"

#include <stdlib.h>
#include <string.h>

/* Free a clique's tables and the clique; any table may be missing. */
static void clique_free_arrays(struct clique *q)
{
	for (uint32_t r = 0; q->posted && r < q->n; r++)
		free(q->posted[r].ops);
	for (uint32_t k = 0; q->sends && q->recvs && k < q->n * q->n; k++) {
		free(q->sends[k].ops);
		free(q->recvs[k].ops);
	}
	free(q->sends);
	free(q->recvs);
	free(q->ranks);
	free(q->comms);
	free(q->pools);
	free(q->posted);
	free(q);
}

static int clique_new(struct rt *rt, uint32_t n, const struct stream_cfg *scfg,
		      struct clique **out)
{
	struct clique *q = calloc(1, sizeof(*q));

	if (!q)
		return ccore_error(-ENOMEM, "out of memory");
	q->rt = rt;
	q->n = n;
	q->scfg = *scfg;
	q->ranks = calloc(n, sizeof(*q->ranks));
	q->comms = calloc(n, sizeof(*q->comms));
	q->posted = calloc(n, sizeof(*q->posted));
	q->sends = calloc((size_t)n * n, sizeof(*q->sends));
	q->recvs = calloc((size_t)n * n, sizeof(*q->recvs));
	if (!q->ranks || !q->comms || sems_init(q) || !q->posted || !q->sends || !q->recvs) {
		clique_free_arrays(q);
		return ccore_error(-ENOMEM, "out of memory");
	}
	rt_get(rt);
	q->rt_next = rt->cliques;
	rt->cliques = q;
	*out = q;
	return 0;
}

static void clique_free(struct clique *q)
{
	plan_flush(q);
	sems_fini(q);
	for (struct clique **pq = &q->rt->cliques; *pq; pq = &(*pq)->rt_next)
		if (*pq == q) {
			*pq = q->rt_next;
			break;
		}
	rt_put(q->rt);
	clique_free_arrays(q);
}

static int comms_create(struct clique *q, struct ccore_comm **out)
{
	for (uint32_t r = 0; r < q->n; r++) {
		struct ccore_comm *c = calloc(1, sizeof(*c));

		if (c) {
			c->q = q;
			c->rank = r;
		}
		if (!c || stream_alloc(c, 0, &c->stream0)) {
			free(c);
			while (r-- > 0) {
				free(q->comms[r]->stream0);
				free(q->comms[r]);
			}
			return ccore_error(-ENOMEM, "out of memory");
		}
		c->stream0->is_default = true;
		q->comms[r] = c;
		out[r] = c;
	}
	q->alive = q->n;
	return 0;
}

int ccore_comm_init_all(const struct ccore_topology *topo, struct ccore_comm **comms)
{
	return ccore_comm_init_all_config(topo, NULL, comms);
}

int ccore_comm_init_all_config(const struct ccore_topology *topo,
			       const struct ccore_comm_config *config, struct ccore_comm **comms)
{
	struct stream_cfg scfg;
	struct clique *q;
	struct rt *rt;
	uint32_t n;
	int rc;

	if (!comms)
		return ccore_error(-EINVAL, "ccore_comm_init_all: comms is NULL");
	/* a bad knob is an error naming it, never a silent default */
	rc = log_init() ?: select_init();
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

int ccore_comm_split(struct ccore_comm *const *comms, int n, const int *color, const int *key,
		     struct ccore_comm **out)
{
	struct clique *parent;
	struct split_member *m;
	int rc = 0;

	if (!comms || !color || !key || !out || n <= 0)
		return ccore_error(-EINVAL, "ccore_comm_split: comms, color, key and out must be set and n > 0");
	parent = comms[0]->q;
	if ((uint32_t)n != parent->n)
		return ccore_error(-EINVAL, "ccore_comm_split: n is %d; pass all %u ranks of the communicator",
				   n, parent->n);
	for (int i = 0; i < n; i++) {
		if (!comms[i] || comms[i]->q != parent || comms[i]->rank != (uint32_t)i)
			return ccore_error(-EINVAL, "ccore_comm_split: comms[%d] is not rank %d of the same communicator",
					   i, i);
		out[i] = NULL;
	}
	m = calloc((size_t)n, sizeof(*m));
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

int ccore_comm_destroy(struct ccore_comm *c)
{
	struct clique *q;

	if (!c)
		return ccore_error(-EINVAL, "ccore_comm_destroy: comm is NULL");
	q = c->q;
	/* cached plans name this rank's streams and buffers */
	plan_flush(q);
	ccore_stream_sync(c->stream0);
	free(c->stream0->jobs);
	free(c->stream0);
	q->comms[c->rank] = NULL;
	free(c);
	if (--q->alive == 0)
		clique_free(q);
	return 0;
}

int ccore_comm_rank(const struct ccore_comm *c)
{
	return c ? (int)c->rank : -1;
}

int ccore_comm_count(const struct ccore_comm *c)
{
	return c ? (int)c->q->n : -1;
}

const char *ccore_comm_last_algo(const struct ccore_comm *c)
{
	return c && c->q->last_algo ? c->q->last_algo : "";
}

struct ccore_dev *comm_dev(const struct ccore_comm *c)
{
	return c->q->rt->devs[c->q->ranks[c->rank].dev].dev;
}

/* --- memory -------------------------------------------------------------- */

int ccore_mem_alloc(struct ccore_comm *c, size_t bytes, ccore_ptr *ptr)
{
	if (!c || !ptr)
		return ccore_error(-EINVAL, "ccore_mem_alloc: comm and ptr must be set");
	if (!bytes)
		return ccore_error(-EINVAL, "ccore_mem_alloc: bytes is 0");
	return rt_alloc(c->q->rt, c->q->ranks[c->rank].dev, bytes, ptr);
}

int ccore_mem_register(struct ccore_comm *c, void *host, size_t bytes, ccore_ptr *ptr)
{
	if (!c || !host || !ptr)
		return ccore_error(-EINVAL, "ccore_mem_register: comm, host and ptr must be set");
	return rt_register(c->q->rt, c->q->ranks[c->rank].dev, host, bytes, ptr);
}

int ccore_mem_free(struct ccore_comm *c, ccore_ptr ptr)
{
	if (!c)
		return ccore_error(-EINVAL, "ccore_mem_free: comm is NULL");
	/* plans bake buffer addresses in: drop them before the memory goes */
	plan_flush(c->q);
	return rt_free(c->q->rt, c->q->ranks[c->rank].dev, ptr);
}

void *ccore_mem_host(struct ccore_comm *c, ccore_ptr ptr)
{
	const struct rt_alloc *a;

	if (!c)
		return NULL;
	a = rt_find(c->q->rt, c->q->ranks[c->rank].dev, ptr, 0);
	if (!a) {
		ccore_error(-EINVAL, "ccore_mem_host: 0x%llx is not device memory of rank %u",
			    (unsigned long long)ptr, c->rank);
		return NULL;
	}
	if (!a->host) {
		ccore_error(-ENXIO, "ccore_mem_host: device memory is virtual (timed sim with virtual=1): it has no host view");
		return NULL;
	}
	return (char *)a->host + (ptr - a->va);
}

int ccore_comm_virtual_time_ps(const struct ccore_comm *c, uint64_t *ps)
{
	struct ccm_fabric *f;

	if (!c || !ps)
		return ccore_error(-EINVAL, "ccore_comm_virtual_time_ps: comm and ps must be set");
	f = ccore_system_model(c->q->rt->sys);
	if (!f || !ccm_fabric_config(f)->timed)
		return ccore_error(-ENODEV, "ccore_comm_virtual_time_ps: virtual time needs the sim backend with timed=1 (CCORE_SIM)");
	*ps = ccm_fabric_now_ps(f);
	return 0;
}

/* --- streams and packet sizes ---------------------------------------------- */

int ccore_comm_stream_map(const struct ccore_comm *c, struct ccore_stream_map *out)
{
	if (!c || !out)
		return ccore_error(-EINVAL, "ccore_comm_stream_map: comm and out must be set");
	return stream_cfg_map(&c->q->scfg, comm_dev(c), out);
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
	rc = stream_cfg_map(&c->q->scfg, comm_dev(c), &m);
	if (!rc)
		*bytes = m.dma_packetization_size;
	return rc;
}
