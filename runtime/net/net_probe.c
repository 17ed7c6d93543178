// SPDX-License-Identifier: MIT
/*
 * Measuring the network between two hosts (net_probe.h).  The answering
 * side's proxy thread echoes each PING as a PONG and acknowledges a BULK
 * put (its signal arrives once every byte has landed) with a BULK_ACK;
 * the measuring side times them.  The first round trip opens the
 * provider's connection and is not counted.
 */
#include "net/net_probe.h"
#include "ccore_internal.h"
#include "util/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum probe_sem { PROBE_PING, PROBE_PONG, PROBE_BULK, PROBE_BULK_ACK, PROBE_NSEMS };

#define PROBE_ROUND_TRIPS 15
#define PROBE_BULK_PUTS 3
/* $CCORE_NET_TIMEOUT_MS unset: an init does not wait long on a host that is gone */
#define PROBE_TIMEOUT_MS 4000

struct net_probe {
	struct net *net;
	void *buf;			/* the bulk put's source here, its target there */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t got[PROBE_NSEMS];	/* signals arrived, per kind */
	int failed;			/* a negative errno once the peer failed */
	int timeout_ms;			/* how long an answer may take */
	char why[256];
};

static void arrived(void *arg, int peer, const struct net_signal *sig)
{
	struct net_probe *p = arg;
	struct net_signal answer = { .value = 1 };

	if (sig->sem == PROBE_PING || sig->sem == PROBE_BULK) {
		answer.sem = sig->sem == PROBE_PING ? PROBE_PONG : PROBE_BULK_ACK;
		/* a failure comes back as peer_failed on the asking side's timeout */
		net_signal(p->net, peer, &answer, 0);
		return;
	}
	if (sig->sem >= PROBE_NSEMS)
		return;
	pthread_mutex_lock(&p->lock);
	p->got[sig->sem]++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void failed(struct net_probe *p, int err, const char *why)
{
	pthread_mutex_lock(&p->lock);
	if (!p->failed) {
		p->failed = err ? err : -EIO;
		snprintf(p->why, sizeof(p->why), "%s", why);
	}
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void put_done(void *arg, uint64_t cookie, int err, const char *why)
{
	(void)cookie;
	if (err)
		failed(arg, err, why);
}

static void peer_failed(void *arg, int peer, int err, const char *why)
{
	(void)peer;
	failed(arg, err, why);
}

int net_probe_open(uint32_t id, struct net_probe **out, struct net_blob *blob)
{
	struct net_probe *p = calloc(1, sizeof(*p));
	struct net_params np = { .id = id };
	struct net_limits lim;
	unsigned int region;
	int rc;

	*out = NULL;
	if (!p)
		return ccore_error(-ENOMEM, "out of memory");
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->buf = aligned_alloc(4096, NET_PROBE_BULK_BYTES);
	if (!p->buf) {
		net_probe_close(p);
		return ccore_error(-ENOMEM, "out of memory");
	}
	memset(p->buf, 0, NET_PROBE_BULK_BYTES);
	if (!getenv("CCORE_NET_TIMEOUT_MS"))
		np.timeout_ms = PROBE_TIMEOUT_MS;
	np.cb = (struct net_callbacks){ .put_done = put_done, .signal_arrived = arrived,
					.peer_failed = peer_failed, .arg = p };
	rc = net_open(&np, &p->net) ?:
	     net_reg(p->net, p->buf, NET_PROBE_BULK_BYTES, &region) ?:
	     net_local_blob(p->net, blob);
	if (rc) {
		net_probe_close(p);
		return rc;
	}
	net_get_limits(p->net, &lim);
	p->timeout_ms = lim.timeout_ms;
	*out = p;
	return 0;
}

int net_probe_connect(struct net_probe *p, const struct net_blob *blob, const char *name,
		      int *peer)
{
	return net_connect(p->net, blob, name, peer);
}

/* Wait for the @want-th signal of @sem: 0, the peer's failure, or -ETIMEDOUT. */
static int wait_for(struct net_probe *p, enum probe_sem sem, uint64_t want)
{
	struct timespec until = rt_realtime_in_ms(p->timeout_ms);
	int rc = 0;

	pthread_mutex_lock(&p->lock);
	while (p->got[sem] < want && !p->failed && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&p->cond, &p->lock, &until);
	if (p->got[sem] >= want)
		rc = 0;
	else if (p->failed)
		rc = ccore_error(p->failed, "measuring the network: %s", p->why);
	else
		rc = ccore_error(-ETIMEDOUT, "measuring the network: no answer from the other host's probe in %d ms (CCORE_NET_TIMEOUT_MS)",
				 p->timeout_ms);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

int net_probe_greet(struct net_probe *p, int peer)
{
	static const struct net_signal ping = { .sem = PROBE_PING, .value = 1 };

	return net_signal(p->net, peer, &ping, 0);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int net_probe_measure(struct net_probe *p, int peer, struct net_probe_result *out)
{
	static const struct net_signal ping = { .sem = PROBE_PING, .value = 1 };
	static const struct net_signal bulk = { .sem = PROBE_BULK, .value = 1 };
	double rtt_us[PROBE_ROUND_TRIPS], best_bulk_us = -1;
	int64_t start = rt_now_ns(), t0;
	uint64_t pongs, acks;
	int rc = 0;

	pthread_mutex_lock(&p->lock);
	pongs = p->got[PROBE_PONG];
	acks = p->got[PROBE_BULK_ACK];
	pthread_mutex_unlock(&p->lock);
	/* one round trip first, untimed: the provider connects on the first message */
	for (int i = -1; i < PROBE_ROUND_TRIPS && !rc; i++) {
		t0 = rt_now_ns();
		rc = net_signal(p->net, peer, &ping, 0) ?: wait_for(p, PROBE_PONG, ++pongs);
		if (i >= 0)
			rtt_us[i] = (double)(rt_now_ns() - t0) / 1e3;
	}
	for (int i = 0; i < PROBE_BULK_PUTS && !rc; i++) {
		double us;

		t0 = rt_now_ns();
		rc = net_put(p->net, peer, 0, 0, 0, 0, NET_PROBE_BULK_BYTES, &bulk, 0) ?:
		     wait_for(p, PROBE_BULK_ACK, ++acks);
		us = (double)(rt_now_ns() - t0) / 1e3;
		if (best_bulk_us < 0 || us < best_bulk_us)
			best_bulk_us = us;
	}
	if (rc)
		return rc;
	qsort(rtt_us, PROBE_ROUND_TRIPS, sizeof(rtt_us[0]), cmp_double);
	out->alpha_us = rtt_us[PROBE_ROUND_TRIPS / 2] / 2;
	/* the put's own time: its acknowledgement's round trip taken off, never below half */
	best_bulk_us -= rtt_us[PROBE_ROUND_TRIPS / 2] < best_bulk_us / 2 ?
			rtt_us[PROBE_ROUND_TRIPS / 2] : best_bulk_us / 2;
	out->bw_gbps = NET_PROBE_BULK_BYTES / (best_bulk_us * 1e3);
	out->took_ms = (double)(rt_now_ns() - start) / 1e6;
	return 0;
}

void net_probe_close(struct net_probe *p)
{
	if (!p)
		return;
	net_close(p->net);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	free(p->buf);
	free(p);
}
