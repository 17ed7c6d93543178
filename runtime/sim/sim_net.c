// SPDX-License-Identifier: MIT
/*
 * The network proxy of a host's shared sim (sim_net.h): what the model's
 * NIC posts (model/ccm_nic.c) goes out through the transport
 * (runtime/net/), and what other hosts send comes in.
 *
 * - Addresses: another host's memory is named by that host and the offset
 *   in its arena (every process of a host maps the arena at one address
 *   and registers it whole, once), packed into the model's remote address
 *   (sim_net_remote()).
 * - One connection per other host carries everything this process sends
 *   there, to that host's lowest process: the transport keeps a
 *   connection's order, so a ring's descriptors land in order even though
 *   the NIC completes each as soon as its bytes left (ccm_nic_done()).
 *   The receiving process applies the semaphore changes to its host's
 *   fabric, whichever process's they are.
 * - The thread that stepped an engine of this process's cores hands what
 *   it posted to the transport at once (sim_net_posted()); a pump thread
 *   waits on the fabric for what other processes' threads posted for our
 *   cores (they step them too: ccm_steal_user.c) and hands that over.
 *   The transport's proxy thread reports them sent and applies arrivals.
 */
#include "sim.h"
#include "sim/sim_net.h"
#include "ccm_arena.h"
#include "log.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* Remote addresses: (host + 1) << 44 | offset in its arena (16 TiB). */
#define ARENA_BITS 44
/*
 * A signal that changes nothing, sent to every process of the other hosts
 * twice a second: a process that hears nothing from a host for the
 * timeout finds it gone or cut off, even while it only waits for its
 * data (over tcp a write completes once buffered, so a send to a host
 * behind a link that is down does not fail for minutes).
 */
#define HEARTBEAT_SEM 0xffffffffu
/*
 * Goodbye: a process whose communicators are all gone says so to every
 * process of the other hosts, after its last put, and waits to hear the
 * same from them before it closes (sim_net_stop()).  A host's lowest
 * process takes what others send to every process of its host, so it
 * must not close while one of them still sends there.
 */
#define GOODBYE_SEM 0xfffffffeu
#define HEARTBEAT_NS 500000000ll
/* $CCORE_NET_TIMEOUT_MS unset: a host gone fails waits well before a job's timeout */
#define SIM_NET_TIMEOUT_MS 4000

struct sim_net {
	struct sim_system *sys;
	struct net *net;
	u32 host;
	u32 id;				/* the process's lowest rank */
	int *to_host;			/* [host] the connection there, -1: none */
	u32 nhosts;
	int *peer_host;			/* [transport peer] its host */
	int npeers;
	s64 *heard;			/* [host] when anything last came from it (atomic) */
	bool *said_goodbye;		/* [transport peer] (atomic) */
	s64 beat_at;			/* the last heartbeats' */
	s64 timeout_ns;
	pthread_t pump;
	bool pump_started;
	/* transfers handed to the transport by the thread that stepped them, by the pump (atomic) */
	u64 by_stepper, by_pump;
	bool stop;			/* atomic */
	pthread_mutex_t lock;		/* @broken */
	char broken[384];		/* why a connection failed, "" while none did */
};

struct sent {
	struct sim_net *sn;
	struct ccm_nic_xfer x;
};

u64 sim_arena_base(const struct sim_system *s)
{
	return s->arena->base;
}

u64 sim_net_remote(u32 host, u64 arena_off)
{
	return (u64)(host + 1) << ARENA_BITS | arena_off;
}

/* The first failure the network reported: every wait fails with it (sim_net_broken()). */
static void broken(struct sim_net *sn, const char *why)
{
	pthread_mutex_lock(&sn->lock);
	if (!sn->broken[0])
		snprintf(sn->broken, sizeof(sn->broken), "another host is unreachable: %s", why);
	pthread_mutex_unlock(&sn->lock);
}

static void put_done(void *arg, uint64_t cookie, int err, const char *why)
{
	struct sent *s = (struct sent *)(uintptr_t)cookie;

	(void)arg;
	if (!s)
		return;	/* a heartbeat: its failure comes as peer_failed */
	if (err) {
		log_msg(LOG_WARN, "sim: the NIC could not send %llu bytes from device %u core %u: %s",
			(unsigned long long)s->x.len, s->x.dev, s->x.core, why);
		/* before the descriptor fails: its job's waiter reads why */
		broken(s->sn, why);
	}
	ccm_nic_done(s->sn->sys->f, &s->x, err);
	free(s);
}

static void signal_arrived(void *arg, int peer, const struct net_signal *sig)
{
	struct sim_net *sn = arg;

	if (peer >= 0 && peer < sn->npeers && sn->peer_host[peer] >= 0)
		__atomic_store_n(&sn->heard[sn->peer_host[peer]], ccm_now_ns(), __ATOMIC_RELAXED);
	if (sig->sem == HEARTBEAT_SEM)
		return;
	if (sig->sem == GOODBYE_SEM) {
		if (peer >= 0 && peer < sn->npeers)
			__atomic_store_n(&sn->said_goodbye[peer], true, __ATOMIC_RELEASE);
		return;
	}
	if (ccm_nic_arrived(sn->sys->f, sig->sem, sig->value, sig->flags & NET_SIG_SET))
		log_msg(LOG_WARN, "sim: %s sent a change of semaphore 0x%08x, which is not on this host",
			net_peer_name(sn->net, peer), sig->sem);
}

/*
 * The proxy applied signals (a put's data landed, a credit came): a CC
 * core of this process they woke runs here and now, on the thread that
 * is on a CPU already, rather than after a hand-off to a host thread or
 * worker that must be scheduled first.  What it posts for other hosts
 * goes out from here too (sim_net_posted()).  Light work only, for a
 * short while: the proxy has arrivals to read.
 */
static void signals_applied(void *arg)
{
	struct sim_net *sn = arg;

	if (!__atomic_load_n(&sn->stop, __ATOMIC_ACQUIRE))
		ccm_fabric_help(sn->sys->f, SIM_HELP_NS);
}

static void peer_failed(void *arg, int peer, int err, const char *why)
{
	struct sim_net *sn = arg;

	log_msg(LOG_WARN, "sim: the connection to %s failed (%d): %s",
		net_peer_name(sn->net, peer), err, why);
	broken(sn, why);
}

int sim_net_broken(struct sim_system *s, char *why, size_t len)
{
	struct sim_net *sn = s->net;
	int broken;

	if (!sn)
		return 0;
	pthread_mutex_lock(&sn->lock);
	broken = sn->broken[0] != 0;
	if (broken)
		snprintf(why, len, "%s", sn->broken);
	pthread_mutex_unlock(&sn->lock);
	return broken;
}

/* Heartbeats to every process of the other hosts; a host not heard for the timeout is gone. */
static void heartbeats(struct sim_net *sn)
{
	static const struct net_signal beat = { .sem = HEARTBEAT_SEM };
	s64 now = ccm_now_ns();
	char why[160];

	if (now - sn->beat_at >= HEARTBEAT_NS) {
		sn->beat_at = now;
		for (int p = 0; p < sn->npeers; p++)
			if (sn->peer_host[p] >= 0)
				net_signal(sn->net, p, &beat, 0);
	}
	for (u32 h = 0; h < sn->nhosts; h++)
		if (h != sn->host && sn->to_host[h] >= 0 &&
		    now - __atomic_load_n(&sn->heard[h], __ATOMIC_RELAXED) > sn->timeout_ns) {
			snprintf(why, sizeof(why),
				 "host %u sent nothing for %lld ms (CCORE_NET_TIMEOUT_MS; it sends heartbeats every %lld ms): gone, or the link to it is down",
				 h, (long long)(sn->timeout_ns / 1000000),
				 (long long)(HEARTBEAT_NS / 1000000));
			broken(sn, why);
		}
}

/* Hand @x to the transport: the host of its target, the bytes' offsets. */
static void send_one(struct sim_net *sn, const struct ccm_nic_xfer *x)
{
	const struct ccm_config *cfg = ccm_fabric_config(sn->sys->f);
	u64 base = sn->sys->arena->base;
	u32 host = x->data ? (u32)(x->to >> ARENA_BITS) - 1 :
		   DRM_CCORE_SEM_REF_DEV(x->sem) / cfg->devices_per_node;
	struct net_signal sig = { .sem = x->sem, .value = x->value,
				  .flags = x->set ? NET_SIG_SET : 0 };
	struct sent *s = malloc(sizeof(*s));
	int rc;

	if (!s) {
		ccm_nic_done(sn->sys->f, x, -ENOMEM);
		return;
	}
	*s = (struct sent){ .sn = sn, .x = *x };
	if (host >= sn->nhosts || sn->to_host[host] < 0) {
		rc = ccore_error(-EHOSTUNREACH, "no connection to host %u", host);
	} else if (x->data) {
		rc = net_put(sn->net, sn->to_host[host], 0, (u64)(uintptr_t)x->src - base, 0,
			     x->to & ((1ull << ARENA_BITS) - 1), x->len, x->has_sem ? &sig : NULL,
			     (uintptr_t)s);
	} else {
		rc = net_signal(sn->net, sn->to_host[host], &sig, (uintptr_t)s);
	}
	if (rc)
		put_done(sn, (uintptr_t)s, rc, ccore_last_error());
}

/*
 * Held for reading while an engine's thread sends what it posted
 * (sim_net_posted()); sim_net_stop() takes it to write, so none is inside
 * once it stops.  One lock for every system of the process: stops are rare.
 */
static pthread_rwlock_t net_users = PTHREAD_RWLOCK_INITIALIZER;

bool sim_net_posted(void *host, u32 dev, u32 core)
{
	struct sim_system *s = host;
	struct sim_net *sn;
	struct ccm_nic_xfer x;
	bool sent = false;

	if (pthread_rwlock_tryrdlock(&net_users))
		return false;	/* stopping: the pump is woken, as without the hook */
	sn = s->net;
	if (sn && __atomic_load_n(&sn->pump_started, __ATOMIC_ACQUIRE) &&
	    !__atomic_load_n(&sn->stop, __ATOMIC_ACQUIRE)) {
		while (!ccm_nic_take(s->f, dev, core, &x)) {
			send_one(sn, &x);
			__atomic_add_fetch(&sn->by_stepper, 1, __ATOMIC_RELAXED);
		}
		sent = true;
	}
	pthread_rwlock_unlock(&net_users);
	return sent;
}

/*
 * What this process's cores posted: with @send, handed to the transport
 * (all of it); without, only whether there is any.
 */
static bool posted(struct sim_net *sn, bool send)
{
	struct ccm_fabric *f = sn->sys->f;
	const struct ccm_config *cfg = ccm_fabric_config(f);
	u32 slot = ccm_fabric_slot(f), per = cfg->devices_per_node;
	struct ccm_nic_xfer x;

	for (u32 d = sn->host * per; d < (sn->host + 1) * per; d++)
		for (u32 c = 0; c < cfg->cores; c++) {
			if (ccm_core_owner(f, d, c) != slot)
				continue;
			if (!send && ccm_nic_pending(f, d, c))
				return true;
			while (send && !ccm_nic_take(f, d, c, &x)) {
				send_one(sn, &x);
				__atomic_add_fetch(&sn->by_pump, 1, __ATOMIC_RELAXED);
			}
		}
	return false;
}

static bool work_or_stop(void *arg)
{
	struct sim_net *sn = arg;

	return __atomic_load_n(&sn->stop, __ATOMIC_ACQUIRE) || posted(sn, false);
}

static void *pump(void *arg)
{
	struct sim_net *sn = arg;

	while (!__atomic_load_n(&sn->stop, __ATOMIC_ACQUIRE)) {
		/* asleep until a post for the pump: the model's own threads run it */
		ccm_nic_sleep(sn->sys->f, work_or_stop, sn, ccm_now_ns() + 20000000ll);
		heartbeats(sn);
		posted(sn, true);
	}
	return NULL;
}

int sim_net_handovers(struct ccore_system *sys, uint64_t *by_stepper, uint64_t *by_pump)
{
	struct sim_net *sn = ((struct sim_system *)sys)->net;

	if (!sn)
		return ccore_error(-ENODEV, "sim_net_handovers: this system has no network");
	*by_stepper = __atomic_load_n(&sn->by_stepper, __ATOMIC_RELAXED);
	*by_pump = __atomic_load_n(&sn->by_pump, __ATOMIC_RELAXED);
	return 0;
}

/* CCORE_DEBUG=info: what this process carried (scripts/bench-hosts.sh reads it). */
static void log_stats(struct sim_net *sn)
{
	struct net_stats st;

	if (log_level() < LOG_INFO)
		return;
	net_get_stats(sn->net, &st);
	log_msg(LOG_INFO,
		"sim: host %u process %u sent %llu bytes to other hosts in %llu writes (%llu notices), %llu data messages and %llu signal messages (%llu signals by name); %llu messages arrived; %llu messages injected, %llu requests posted inline; the proxy woke %llu times (%llu for a request); %llu transfers handed over by the thread that stepped them, %llu by the pump",
		sn->host, sn->id, (unsigned long long)st.bytes_sent, (unsigned long long)st.writes,
		(unsigned long long)st.notices, (unsigned long long)st.data_msgs,
		(unsigned long long)st.signal_msgs, (unsigned long long)st.named_signals,
		(unsigned long long)st.arrivals, (unsigned long long)st.injected,
		(unsigned long long)st.inline_posts,
		(unsigned long long)st.proxy_wakeups, (unsigned long long)st.wakeups_by_request,
		(unsigned long long)__atomic_load_n(&sn->by_stepper, __ATOMIC_RELAXED),
		(unsigned long long)__atomic_load_n(&sn->by_pump, __ATOMIC_RELAXED));
}

/* Every other host's process said goodbye (or the network broke): true. */
static bool all_said_goodbye(struct sim_net *sn)
{
	bool broken;

	for (int p = 0; p < sn->npeers; p++)
		if (sn->peer_host[p] >= 0 && !__atomic_load_n(&sn->said_goodbye[p], __ATOMIC_ACQUIRE)) {
			pthread_mutex_lock(&sn->lock);
			broken = sn->broken[0] != 0;
			pthread_mutex_unlock(&sn->lock);
			return broken;
		}
	return true;
}

/*
 * Say goodbye to every process of the other hosts and wait for theirs,
 * at most the network's timeout (a host gone is found within it anyway).
 */
static void goodbye(struct sim_net *sn)
{
	static const struct net_signal bye = { .sem = GOODBYE_SEM };
	s64 until = ccm_now_ns() + sn->timeout_ns;

	if (!__atomic_load_n(&sn->pump_started, __ATOMIC_ACQUIRE))
		return;
	for (int p = 0; p < sn->npeers; p++)
		if (sn->peer_host[p] >= 0)
			net_signal(sn->net, p, &bye, 0);
	while (!all_said_goodbye(sn) && ccm_now_ns() < until) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	if (!all_said_goodbye(sn))
		log_msg(LOG_WARN, "sim: host %u process %u closes its network without every other host's goodbye (%lld ms)",
			sn->host, sn->id, (long long)(sn->timeout_ns / 1000000));
}

void sim_net_stop(struct sim_system *s)
{
	struct sim_net *sn = s->net;

	if (!sn)
		return;
	goodbye(sn);
	pthread_rwlock_wrlock(&net_users);
	__atomic_store_n(&sn->stop, true, __ATOMIC_RELEASE);
	pthread_rwlock_unlock(&net_users);
	ccm_nic_kick_mine(s->f);
	if (sn->pump_started)
		pthread_join(sn->pump, NULL);
	log_stats(sn);
	/* what is still queued fails (put_done) while the fabric is there */
	net_close(sn->net);
	pthread_mutex_destroy(&sn->lock);
	free(sn->to_host);
	free(sn->peer_host);
	free(sn->heard);
	free(sn->said_goodbye);
	free(sn);
	s->net = NULL;
}

int sim_net_start(struct ccore_system *sys, uint32_t me, uint32_t host, struct net_blob *blob)
{
	struct sim_system *s = (struct sim_system *)sys;
	struct sim_net *sn;
	struct net_params p = { 0 };
	unsigned int region;
	int rc;

	if (!sim_shared(s) || ccm_fabric_config(s->f)->here != host)
		return ccore_error(-EINVAL, "net: the sim system is not the shared fabric of host %u",
				   host);
	/* a second communicator of the job in this process: the same network */
	if (s->net)
		return net_local_blob(s->net->net, blob);
	sn = calloc(1, sizeof(*sn));
	if (!sn)
		return ccore_error(-ENOMEM, "out of memory");
	*sn = (struct sim_net){ .sys = s, .host = host, .id = me };
	pthread_mutex_init(&sn->lock, NULL);
	if (!getenv("CCORE_NET_TIMEOUT_MS"))
		p.timeout_ms = SIM_NET_TIMEOUT_MS;
	p.cb = (struct net_callbacks){ .put_done = put_done, .signal_arrived = signal_arrived,
				       .peer_failed = peer_failed, .signals_applied = signals_applied,
				       .arg = sn };
	p.id = me;	/* the process's lowest rank: one per process of the job */
	rc = net_open(&p, &sn->net);
	if (!rc)
		rc = net_reg(sn->net, (void *)(uintptr_t)s->arena->base, s->arena->size, &region);
	if (!rc && region != 0)
		rc = ccore_error(-EINVAL, "net: the arena is region %u, not 0", region);
	if (!rc) {
		struct net_limits l;

		net_get_limits(sn->net, &l);
		sn->timeout_ns = (s64)l.timeout_ms * 1000000;
		rc = net_local_blob(sn->net, blob);
	}
	if (rc) {
		net_close(sn->net);
		pthread_mutex_destroy(&sn->lock);
		free(sn);
		return rc;
	}
	s->net = sn;
	return 0;
}

int sim_net_connect(struct ccore_system *sys, uint32_t n, const uint32_t *ids,
		    const uint32_t *hosts, const struct net_blob *blobs)
{
	struct sim_system *s = (struct sim_system *)sys;
	struct sim_net *sn = s->net;
	u32 *lead;
	int rc = 0;

	if (!sn)
		return ccore_error(-EINVAL, "net: not started");
	if (sn->pump_started)
		return 0;
	for (u32 i = 0; i < n; i++)
		sn->nhosts = hosts[i] + 1 > sn->nhosts ? hosts[i] + 1 : sn->nhosts;
	sn->to_host = malloc(sn->nhosts * sizeof(*sn->to_host));
	sn->heard = calloc(sn->nhosts, sizeof(*sn->heard));
	sn->peer_host = malloc((n + 1) * sizeof(*sn->peer_host));
	sn->said_goodbye = calloc(n + 1, sizeof(*sn->said_goodbye));
	lead = malloc(sn->nhosts * sizeof(*lead));
	if (!sn->to_host || !sn->heard || !sn->peer_host || !sn->said_goodbye || !lead) {
		free(lead);
		return ccore_error(-ENOMEM, "out of memory");
	}
	for (u32 h = 0; h < sn->nhosts; h++) {
		sn->to_host[h] = -1;
		lead[h] = UINT32_MAX;
		sn->heard[h] = ccm_now_ns();
	}
	for (u32 i = 0; i < n; i++)
		lead[hosts[i]] = ids[i] < lead[hosts[i]] ? ids[i] : lead[hosts[i]];
	/* everyone of another host may send here: connect them all */
	for (u32 i = 0; i < n && !rc; i++) {
		char name[32];
		int peer;

		if (hosts[i] == sn->host)
			continue;
		snprintf(name, sizeof(name), "host %u (rank %u)", hosts[i], ids[i]);
		rc = net_connect(sn->net, &blobs[i], name, &peer);
		if (!rc && peer <= (int)n) {
			/* peers are numbered as connected: 0, 1, ... */
			while (sn->npeers <= peer)
				sn->peer_host[sn->npeers++] = -1;
			sn->peer_host[peer] = (int)hosts[i];
		}
		if (!rc && ids[i] == lead[hosts[i]])
			sn->to_host[hosts[i]] = peer;
	}
	free(lead);
	if (!rc) {
		rc = pthread_create(&sn->pump, NULL, pump, sn);
		__atomic_store_n(&sn->pump_started, !rc, __ATOMIC_RELEASE);
		rc = rc ? ccore_error(-rc, "net: no pump thread") : 0;
	}
	return rc;
}
