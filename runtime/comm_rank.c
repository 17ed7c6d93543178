// SPDX-License-Identifier: MIT
/*
 * Communicators of one process per rank (ccore.h, Documentation/processes.rst):
 * the unique id, ccore_comm_init_rank(s) and ccore_comm_split_rank.  Each
 * local rank joins the bootstrap, checks with every other rank that the
 * settings deciding plans and the config agree, and tells the others its
 * host; every rank derives the same placement.  The process's clique
 * holds all ranks (devices and cores) but runs only its own: its plans
 * exchange the peers' buffers and semaphores through the bootstrap
 * (plan/xchg_boot.c).
 */
#include "comm.h"
#include "bootstrap/boot.h"
#include "lock.h"
#include "log.h"
#include "plan/xchg.h"
#include "rank_place.h"
#include "comm_net.h"
#include "select.h"
#include "util/fnv.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(struct ccore_unique_id) == sizeof(struct boot_id),
	       "the unique id is the bootstrap's");

/* Tags of the messages a split sends, above the plans' exchanges (xchg_boot.c). */
#define SPLIT_TAG 0x40000000u

int ccore_get_unique_id(struct ccore_unique_id *id)
{
	if (!id)
		return ccore_error(-EINVAL, "ccore_get_unique_id: id is NULL");
	return boot_unique_id((struct boot_id *)id);
}

/* One local rank's part of init, in a thread of its own when a process has several. */
struct join {
	const struct boot_id *id;
	int rank, nranks;
	const struct ccore_comm_config *config;	/* checked, this library's layout; NULL */
	bool gather_hosts;
	struct rank_host *hosts;		/* [nranks], gathered */
	struct boot *b;
	int rc;
	char *msg;				/* the failure's last error */
};

/* The config's fields as values every rank must have alike. */
static int check_config(struct boot *b, const struct ccore_comm_config *cfg)
{
	char streams[16], cc[CCORE_MAX_CC_CORES * 11 + 1] = "", dma[16];
	struct boot_value v[3] = {
		{ "config.streams", streams }, { "config.cc_packet_size", cc },
		{ "config.dma_packetization_size", dma },
	};
	size_t at = 0;

	snprintf(streams, sizeof(streams), "%u", cfg ? cfg->streams : 0);
	snprintf(dma, sizeof(dma), "%u", cfg ? cfg->dma_packetization_size : 0);
	for (uint32_t s = 0; s < CCORE_MAX_CC_CORES; s++)
		at += (size_t)snprintf(cc + at, sizeof(cc) - at, "%s%u", s ? "," : "",
				       cfg ? cfg->cc_packet_size[s] : 0);
	return boot_check_values(b, v, 3,
				 "the ccore_comm_config of every rank must be the same; 0 is unset");
}

static void *join_run(void *arg)
{
	struct join *j = arg;
	int rc = boot_init(j->id, j->rank, j->nranks, 0, &j->b);

	rc = rc ?: boot_check_settings(j->b) ?: check_config(j->b, j->config);
	if (!rc && j->gather_hosts) {
		rank_host_self((uint32_t)j->rank, &j->hosts[j->rank]);
		rc = boot_allgather(j->b, j->hosts, sizeof(*j->hosts));
	}
	if (rc) {
		j->msg = strdup(ccore_last_error());
		boot_close(j->b);
		j->b = NULL;
	}
	j->rc = rc;
	return NULL;
}

int comm_run_each(void *(*fn)(void *), void *items, size_t size, uint32_t n, bool *started)
{
	pthread_t *t = n > 1 ? calloc(n, sizeof(*t)) : NULL;

	if (n == 1) {
		fn(items);
		started[0] = true;
		return 0;
	}
	if (!t)
		return ccore_error(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		started[i] = !pthread_create(&t[i], NULL, fn, (char *)items + i * size);
	for (uint32_t i = 0; i < n; i++)
		if (started[i])
			pthread_join(t[i], NULL);
	free(t);
	return 0;
}

/* Run @js[0..n-1] at once (each blocks until every rank joins); the first failure. */
static int join_all(struct join *js, uint32_t n)
{
	bool *started = calloc(n, sizeof(*started));
	int rc = started ? comm_run_each(join_run, js, sizeof(*js), n, started) :
		 ccore_error(-ENOMEM, "out of memory");

	for (uint32_t i = 0; i < n && !rc; i++)
		if (!started[i] || js[i].rc)
			rc = ccore_error(started[i] ? js[i].rc : -EAGAIN,
					 "ccore_comm_init_rank (rank %d): %s", js[i].rank,
					 started[i] && js[i].msg ? js[i].msg :
					 "could not start a thread to join");
	free(started);
	return rc;
}

static void joins_free(struct join *js, uint32_t n, bool close)
{
	for (uint32_t i = 0; js && i < n; i++) {
		if (close)
			boot_close(js[i].b);
		free(js[i].msg);
		free(js[i].hosts);
	}
	free(js);
}

/*
 * With the lock held: the clique of @n ranks placed as @ranks on @rt,
 * this process running those in @js (their bootstraps taken over), the
 * communicators of local rank r into out[r].
 */
static int rank_clique(struct rt *rt, uint32_t n, const struct clique_rank *ranks,
		       const uint32_t *pids, struct join *js, uint32_t nlocal,
		       const struct ccore_comm_config *config, struct ccore_comm **out)
{
	struct stream_cfg scfg;
	struct clique *q;
	int rc = stream_cfg_for_dev(rt->devs[ranks[js[0].rank].dev].dev, config, &scfg);

	rc = rc ?: clique_new(rt, n, &scfg, &q);
	if (rc)
		return rc;
	q->local = calloc(n, sizeof(*q->local));
	q->boots = calloc(n, sizeof(*q->boots));
	q->pids = pids ? malloc(n * sizeof(*q->pids)) : NULL;
	if (!q->local || !q->boots || (pids && !q->pids)) {
		clique_free(q);
		return ccore_error(-ENOMEM, "out of memory");
	}
	memcpy(q->ranks, ranks, n * sizeof(*ranks));
	if (pids)
		memcpy(q->pids, pids, n * sizeof(*pids));
	q->xchg = &xchg_between_processes;
	q->nlocal = nlocal;
	for (uint32_t i = 0; i < nlocal; i++)
		q->local[js[i].rank] = true;
	rc = comms_create(q, out);
	if (rc) {
		clique_free(q);
		return rc;
	}
	for (uint32_t i = 0; i < nlocal; i++) {
		q->boots[js[i].rank] = js[i].b;
		js[i].b = NULL;
	}
	stream_cfg_log(&q->scfg, rt->devs[ranks[js[0].rank].dev].dev);
	return 0;
}

static int check_init_args(const char *fn, void *comms, int nranks, const void *id, int nlocal,
			   const int *ranks)
{
	if (!comms || !id || !ranks)
		return ccore_error(-EINVAL, "%s: %s is NULL", fn,
				   !comms ? "comm" : !id ? "id" : "ranks");
	if (nranks < 1)
		return ccore_error(-EINVAL, "%s: nranks %d; a communicator has at least 1 rank", fn,
				   nranks);
	if (nlocal < 1 || nlocal > nranks)
		return ccore_error(-EINVAL, "%s: nlocal %d out of range (1..nranks %d)", fn, nlocal,
				   nranks);
	for (int i = 0; i < nlocal; i++) {
		if (ranks[i] < 0 || ranks[i] >= nranks)
			return ccore_error(-EINVAL, "%s: rank %d out of range (0..%d)", fn, ranks[i],
					   nranks - 1);
		for (int k = 0; k < i; k++)
			if (ranks[k] == ranks[i])
				return ccore_error(-EINVAL, "%s: rank %d given twice (ranks[%d] and ranks[%d]); each rank once",
						   fn, ranks[i], k, i);
	}
	return 0;
}

/*
 * The host's shared sim for a job whose ranks on this host run in several
 * processes, or that spans hosts (@topo: then holding this host's node
 * only; NULL otherwise: a private system, as ccore_comm_init_all's): keyed
 * by the job's magic and the host, this process claiming its own ranks'
 * cores.  -ENOMEM: *@out unset.
 */
static int share_for(const struct join *js, uint32_t nlocal, uint32_t nranks,
		     const struct clique_rank *place, const struct ccore_topology *topo,
		     struct rt_share *share, char *key, size_t key_len,
		     struct ccore_core_ref **cores, const struct rt_share **out)
{
	const char *backend = getenv("CCORE_DEVICE");
	const char *host = js[0].hosts[js[0].rank].host;
	/* other hosts' ranks in this process: one fabric holds them all */
	bool across = rank_hosts_apart(js[0].hosts, nranks, (uint32_t)js[0].rank);

	*out = NULL;
	if ((backend && *backend && strcmp(backend, "sim")) ||
	    (!across && !rank_host_shared(js[0].hosts, nranks, (uint32_t)js[0].rank)))
		return 0;
	snprintf(key, key_len, "job-%016llx-host-%016llx",
		 (unsigned long long)boot_job_magic(js[0].b),
		 (unsigned long long)fnv1a_str(FNV1A_BASIS, host, sizeof(js[0].hosts[0].host)));
	*cores = calloc(nlocal, sizeof(**cores));
	if (!*cores)
		return ccore_error(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < nlocal; i++)
		(*cores)[i] = (struct ccore_core_ref){ .dev = place[js[i].rank].dev,
						       .core = place[js[i].rank].core };
	*share = (struct rt_share){ .key = key, .cores = *cores, .ncores = nlocal, .one_node = across,
				    .here = place[js[0].rank].dev / topo->devices_per_node };
	*out = share;
	return 0;
}

/* Across hosts: the network between the hosts' fabrics (comm_net.c), the bootstrap's joins. */
static int connect_hosts(struct rt *rt, const struct join *js, const int *ranks, uint32_t nlocal,
			 uint32_t nranks, const struct clique_rank *place,
			 const struct ccore_topology *topo)
{
	struct boot **boots = calloc(nlocal, sizeof(*boots));
	int rc;

	if (!boots)
		return ccore_error(-ENOMEM, "out of memory");
	for (uint32_t i = 0; i < nlocal; i++)
		boots[i] = js[i].b;
	rc = comm_net_connect(rt, boots, ranks, nlocal, nranks, place, topo->devices_per_node);
	free(boots);
	return rc;
}

/* The knobs every communicator parses at init (as ccore_comm_init_all), and the config. */
static int init_knobs(const struct ccore_comm_config *config, struct ccore_comm_config *own)
{
	int rc;

	rt_lock();
	rc = log_init() ?: select_init() ?: stream_peer_timeout_init();
	rt_unlock();
	return rc ?: (config ? stream_cfg_config_in(config, own) : 0);
}

int ccore_comm_init_ranks(struct ccore_comm **comms, int nranks, const struct ccore_unique_id *id,
			  int nlocal, const int *ranks, const struct ccore_comm_config *config)
{
	struct ccore_comm_config own;
	struct ccore_topology topo;
	struct ccore_core_ref *cores = NULL;
	uint32_t *pids = NULL;
	const struct rt_share *share;
	struct rt_share host_share;
	char key[64];
	struct clique_rank *place = NULL;
	struct ccore_comm **all = NULL;
	struct join *js = NULL;
	struct rt *rt = NULL;
	int rc = check_init_args("ccore_comm_init_ranks", comms, nranks, id, nlocal, ranks);

	rc = rc ?: init_knobs(config, &own);
	if (rc)
		return rc;
	js = calloc((size_t)nlocal, sizeof(*js));
	place = calloc((size_t)nranks, sizeof(*place));
	all = calloc((size_t)nranks, sizeof(*all));
	for (int i = 0; js && i < nlocal; i++) {
		js[i] = (struct join){ .id = (const struct boot_id *)id, .rank = ranks[i],
				       .nranks = nranks, .config = config ? &own : NULL,
				       .gather_hosts = true };
		js[i].hosts = calloc((size_t)nranks, sizeof(*js[i].hosts));
		if (!js[i].hosts)
			rc = -ENOMEM;
	}
	if (!js || !place || !all || rc) {
		rc = ccore_error(-ENOMEM, "out of memory");
		goto out;
	}
	rc = join_all(js, (uint32_t)nlocal) ?:
	     rank_place(js[0].hosts, (uint32_t)nranks, &topo, place) ?:
	     share_for(js, (uint32_t)nlocal, (uint32_t)nranks, place, &topo, &host_share, key,
		       sizeof(key), &cores, &share);
	if (!rc && share) {
		/* the host's ranks' processes: a wait names a dead peer's rank */
		pids = calloc((size_t)nranks, sizeof(*pids));
		for (int r = 0; pids && r < nranks; r++)
			if (!strcmp(js[0].hosts[r].host, js[0].hosts[js[0].rank].host))
				pids[r] = js[0].hosts[r].pid;
		rc = pids ? 0 : ccore_error(-ENOMEM, "out of memory");
	}
	if (rc)
		goto out;
	rt_lock();
	rc = rt_open_shared(&topo, share, &rt);
	rt_unlock();
	if (!rc && share && share->one_node)
		rc = connect_hosts(rt, js, ranks, (uint32_t)nlocal, (uint32_t)nranks, place, &topo);
	rt_lock();
	if (!rc)
		rc = rank_clique(rt, (uint32_t)nranks, place, pids, js, (uint32_t)nlocal,
				 config ? &own : NULL, all);
	if (rt)
		rt_put(rt);	/* the clique holds it */
	rt_unlock();
	for (int i = 0; !rc && i < nlocal; i++)
		comms[i] = all[ranks[i]];
out:
	joins_free(js, js ? (uint32_t)nlocal : 0, true);
	free(cores);
	free(pids);
	free(place);
	free(all);
	return rc;
}

int ccore_comm_init_rank(struct ccore_comm **comm, int nranks, const struct ccore_unique_id *id,
			 int rank, const struct ccore_comm_config *config)
{
	if (!comm || !id)
		return ccore_error(-EINVAL, "ccore_comm_init_rank: %s is NULL",
				   !comm ? "comm" : "id");
	if (nranks < 1 || rank < 0 || rank >= nranks)
		return ccore_error(-EINVAL, "ccore_comm_init_rank: %s (rank %d, nranks %d; allowed: nranks >= 1, 0 <= rank < nranks)",
				   nranks < 1 ? "nranks out of range" : "rank out of range", rank,
				   nranks);
	return ccore_comm_init_ranks(comm, nranks, id, 1, &rank, config);
}

/* --- split ---------------------------------------------------------------- */

struct split_entry {
	int32_t color, key;
};

/* This rank's new rank among @e's ranks of its color (by key, then old rank), their number. */
static uint32_t split_rank_of(const struct split_entry *e, uint32_t n, uint32_t me,
			      uint32_t *count, uint32_t *members)
{
	uint32_t k = 0, mine = 0;

	for (uint32_t r = 0; r < n; r++)
		if (e[r].color == e[me].color)
			members[k++] = r;
	/* insertion sort by (key, old rank): n is small next to the rest of init */
	for (uint32_t i = 1; i < k; i++)
		for (uint32_t j = i; j > 0; j--) {
			uint32_t a = members[j - 1], b = members[j];

			if (e[a].key < e[b].key || (e[a].key == e[b].key && a < b))
				break;
			members[j - 1] = b;
			members[j] = a;
		}
	for (uint32_t i = 0; i < k; i++)
		if (members[i] == me)
			mine = i;
	*count = k;
	return mine;
}

/* The new communicator's id: made by its rank 0, sent to the others through @b. */
static int split_id(struct ccore_comm *c, struct boot *b, const uint32_t *members, uint32_t k,
		    uint32_t mine, uint32_t tag, struct boot_id *nid)
{
	int rc = 0;

	if (mine == 0) {
		rc = boot_unique_id(nid);
		for (uint32_t i = 1; i < k && !rc; i++)
			rc = boot_send(b, (int)members[i], tag, nid, sizeof(*nid));
	} else {
		rc = boot_recv(b, (int)members[0], tag, nid, sizeof(*nid));
	}
	rt_lock();
	c->q->boot_msgs += mine == 0 ? k - 1 : 1;
	c->q->boot_bytes += (mine == 0 ? k - 1 : 1) * sizeof(*nid);
	rt_unlock();
	return rc;
}

int ccore_comm_split_rank(struct ccore_comm *c, int color, int key,
			  const struct ccore_comm_config *config, struct ccore_comm **out)
{
	struct ccore_comm_config own;
	struct split_entry *e = NULL;
	struct clique_rank *place = NULL;
	struct ccore_comm **all = NULL;
	uint32_t *members = NULL, *pids = NULL, k = 0, mine, n, tag;
	struct join j = { 0 };
	struct boot_id nid;
	struct boot *b;
	int rc;

	if (!c || !out)
		return ccore_error(-EINVAL, "ccore_comm_split_rank: %s is NULL", !c ? "comm" : "out");
	*out = NULL;
	if (!c->q->boots) {
		/* every rank in this process: the last rank's call splits for all */
		if (config)
			return ccore_error(-EINVAL, "ccore_comm_split_rank: config must be NULL on a communicator of ccore_comm_init_all (its splits keep its streams and packet sizes)");
		return comm_split_rank_in_process(c, color, key, out);
	}
	rc = init_knobs(config, &own);
	if (rc)
		return rc;
	rt_lock();
	n = c->q->n;
	b = c->q->boots[c->rank];
	tag = SPLIT_TAG | (c->splits++ & 0xffffff);
	rt_unlock();
	e = calloc(n, sizeof(*e));
	members = calloc(n, sizeof(*members));
	place = calloc(n, sizeof(*place));
	all = calloc(n, sizeof(*all));
	if (!e || !members || !place || !all) {
		rc = ccore_error(-ENOMEM, "out of memory");
		goto out;
	}
	e[c->rank] = (struct split_entry){ color < 0 ? -1 : color, key };
	rc = boot_allgather(b, e, sizeof(*e));
	rt_lock();
	c->q->boot_msgs += 2ull * (n - 1);
	c->q->boot_bytes += 2ull * (n - 1) * sizeof(*e);
	rt_unlock();
	if (rc || color < 0)
		goto out;
	mine = split_rank_of(e, n, c->rank, &k, members);
	rc = split_id(c, b, members, k, mine, tag, &nid);
	if (rc)
		goto out;
	j = (struct join){ .id = &nid, .rank = (int)mine, .nranks = (int)k,
			   .config = config ? &own : NULL };
	rc = join_all(&j, 1);
	if (rc)
		goto out;
	rt_lock();
	/* the new ranks stay where they were, in their processes */
	pids = c->q->pids ? calloc(k, sizeof(*pids)) : NULL;
	for (uint32_t i = 0; i < k; i++) {
		place[i] = c->q->ranks[members[i]];
		if (pids)
			pids[i] = c->q->pids[members[i]];
	}
	rc = c->q->pids && !pids ? ccore_error(-ENOMEM, "out of memory") :
	     rank_clique(c->q->rt, k, place, pids, &j, 1, config ? &own : NULL, all);
	rt_unlock();
	if (!rc)
		*out = all[mine];
out:
	boot_close(j.b);
	free(j.msg);
	free(e);
	free(members);
	free(pids);
	free(place);
	free(all);
	return rc;
}
