/* SPDX-License-Identifier: MIT */
/*
 * Measuring the network between two hosts for the tuner (net_probe.c):
 * a context of its own over the transport (net.h), opened for the
 * measurement and closed after, so the job's connections carry nothing
 * of it.  One side measures, the other answers from its proxy thread:
 * round trips of a signal for the latency, a bulk put for the bandwidth.
 *
 * Use, on both hosts: net_probe_open(), move the blob (the bootstrap),
 * net_probe_connect() the other (the answering side then greets), a
 * barrier; then the measuring side calls net_probe_measure() while the
 * other keeps its probe open; a barrier; net_probe_close().
 */
#ifndef CCORE_NET_PROBE_H
#define CCORE_NET_PROBE_H

#include "net/net.h"

/* The bulk put's size: long enough that the bandwidth shows, short enough for init. */
#define NET_PROBE_BULK_BYTES (4u << 20)

struct net_probe;

struct net_probe_result {
	double alpha_us;	/* one way: half the median round trip of a signal */
	double bw_gbps;		/* the fastest bulk put's bytes over its time less a round trip */
	double took_ms;		/* the measurement's wall-clock time */
};

/* A probe context with id @id (as net_params.id); its address in @blob. */
int net_probe_open(uint32_t id, struct net_probe **out, struct net_blob *blob);
/* Connect the probe of @blob; its peer number in *@peer. */
int net_probe_connect(struct net_probe *p, const struct net_blob *blob, const char *name,
		      int *peer);
/*
 * Send @peer a first message, not waiting for its answer: tcp;ofi_rxm makes
 * its connection at the first message, tens of ms on a busy host, so the
 * answering side starts it while the job's init goes on.  Sent before the
 * peer may have connected this probe, it may be dropped there (a warning):
 * the connection is made all the same.
 */
int net_probe_greet(struct net_probe *p, int peer);
/* Measure the way to @peer, which must have connected this probe. */
int net_probe_measure(struct net_probe *p, int peer, struct net_probe_result *out);
/* NULL is fine. */
void net_probe_close(struct net_probe *p);

#endif
