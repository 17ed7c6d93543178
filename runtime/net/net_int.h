/* SPDX-License-Identifier: MIT */
/*
 * Inside the network transport: the context (net.c sets it up) and what
 * its proxy thread (proxy.c) keeps per connection and per operation.
 */
#ifndef CCORE_NET_INT_H
#define CCORE_NET_INT_H

#include "net/net.h"
#include "net/order.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

/* Signal messages: the body a signal with no data (or a wide one) sends. */
#define NET_SIGMSG_MAGIC 0x5349474eu	/* "SIGN" */
struct net_sigmsg {
	uint32_t magic;
	uint32_t sem;
	uint32_t value;
	uint32_t flags;
};

/*
 * A small put's bytes in a message of their own, with the write's
 * completion data (see notice_writes): one message, as a write that
 * carries its completion data is, where a write and its notice are two
 * (which took a round of 64 bytes across hosts from 11 to 25 us).  The
 * receiver copies them into its region @region at @offset.
 */
#define NET_DATAMSG_MAGIC 0x44415441u	/* "DATA" */
#define NET_DATAMSG_BYTES (4096 - 16)
struct net_datahdr {
	uint32_t magic;
	uint32_t region;
	uint64_t offset;
};

struct net_datamsg {
	struct net_datahdr hdr;
	uint8_t bytes[NET_DATAMSG_BYTES];
};

#define NET_DATAMSG_HDR sizeof(struct net_datahdr)
/* an arrival keeps a refused data message's header in its body (deliver()) */
_Static_assert(sizeof(struct net_datahdr) == sizeof(struct net_sigmsg),
	       "a data message's header is the size of a signal message");

/* What a posted receive takes: a signal message, a data message, or a notice (nothing). */
union net_rxbuf {
	struct net_sigmsg sig;
	struct net_datamsg data;
};

/*
 * The orders a provider keeps that let small messages go by inject
 * (fi_inject_writedata, fi_injectdata: no completion to reap): they
 * arrive in the order posted, so the window (NET_WINDOW), which counts
 * messages by their completions, has nothing to guard.
 */
#define NET_IN_ORDER (FI_ORDER_WAW | FI_ORDER_WAS | FI_ORDER_SAW | FI_ORDER_SAS)

/* Receives kept posted for signal messages, and sends' bodies to hand out. */
#define NET_RX_POSTED 64
#define NET_TX_BODIES 256

/* An arrival the proxy read: a write's completion data, or a signal message. */
struct net_arrival {
	int peer;
	uint32_t data;
	bool has_body;
	struct net_sigmsg body;
};

enum net_op_kind { NET_OP_WRITE, NET_OP_NOTICE, NET_OP_DATAMSG, NET_OP_SIGMSG, NET_OP_RECV };

/* A caller's put or signal, until put_done. */
struct net_req {
	struct net_req *next;
	int peer;
	unsigned int local_region, remote_region;
	uint64_t local_off, remote_off, len;
	uint64_t posted;		/* bytes written so far */
	bool has_sig, sig_posted;
	/* a write went without its completion data: its notice is next (name + 1 or 0) */
	bool notice_due;
	uint32_t notice_name1;
	bool queued;			/* on its connection's queue */
	struct net_signal sig;
	uint64_t cookie;
	unsigned int ops_out;		/* posted, not yet completed */
	bool reported;			/* put_done called (an error comes early) */
};

/* One libfabric operation; its context is the first member. */
struct net_op {
	struct fi_context2 fctx;
	enum net_op_kind kind;
	struct net_req *req;		/* WRITE, SIGMSG */
	union net_rxbuf *body;		/* DATAMSG, SIGMSG, RECV: in the control region */
	int peer;
	int64_t deadline_ns;
	struct net_op *prev, *next;	/* the connection's in-flight list, oldest first */
};

struct net_remote_region {
	uint64_t addr;			/* what offsets are added to (0 without FI_MR_VIRT_ADDR) */
	uint64_t size;
	uint64_t key;
};

struct net_conn {
	char name[64];
	fi_addr_t addr;
	uint32_t id;			/* the peer's (struct net_params.id) */
	unsigned int nregions;
	struct net_remote_region region[NET_MAX_REGIONS];
	atomic_int err;			/* 0, or how it failed (net_put refuses) */
	char why[512];			/* set before err */
	/* sending, proxy thread only */
	struct net_req *queue, *queue_tail;	/* not completely posted, in issue order */
	uint32_t tx_seq;
	int64_t blocked_since_ns;	/* posting has met -FI_EAGAIN since (0: not) */
	unsigned int inflight;
	struct net_op *oldest, *newest;
	struct net_names_tx tx_names;
	/* receiving, proxy thread only */
	struct net_reorder rx;
	struct net_names_rx rx_names;
};

struct net_local_region {
	struct fid_mr *mr;
	void *desc;
	char *base;
	uint64_t size;
	uint64_t key;
};

struct net {
	struct net_params p;
	struct net_test_hooks test;
	struct net_limits lim;
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	int cq_fd;			/* the CQ's wait object */
	int wake_fd;			/* eventfd: new requests, or stop */
	int mr_mode;
	bool in_order;			/* the provider keeps the order of NET_IN_ORDER */
	/*
	 * No write carries completion data: a chunk of up to
	 * NET_DATAMSG_BYTES goes as a data message, a larger one as a write
	 * followed by a zero-byte message that carries it (its notice).
	 * With ofi_rxm, a write with completion data cut off part way (a
	 * link down, a peer stopped) has its cancellation reported with no
	 * context, and rxm reads through it when the endpoint closes
	 * (libfabric 1.17: SIGSEGV in fi_close).
	 */
	bool notice_writes;
	uint64_t next_key;		/* requested keys without FI_MR_PROV_KEY */
	unsigned char addr[128];
	size_t addr_len;
	/* libfabric objects are used under this lock (FI_THREAD_DOMAIN) */
	pthread_mutex_t fab_lock;

	unsigned int nregions;
	struct net_local_region region[NET_MAX_REGIONS];
	/* the control region: signal and data message bodies, received and sent */
	struct net_local_region ctl;
	union net_rxbuf *ctl_mem;	/* NET_RX_POSTED receives, then NET_TX_BODIES bodies */
	struct net_op rx_op[NET_RX_POSTED];
	union net_rxbuf *free_bodies[NET_TX_BODIES];
	unsigned int nfree_bodies;

	/* connections; the array grows under conn_lock, read by the proxy */
	pthread_rwlock_t conn_lock;
	struct net_conn **conn;
	int nconn, conn_cap;

	/* requests handed to the proxy */
	pthread_mutex_t submit_lock;
	/*
	 * Held by the proxy for a turn (posting, reading the queue, its
	 * callbacks) and by a caller posting its own small request at once
	 * (net_submit()): what the header calls the proxy's alone.
	 */
	pthread_mutex_t turn_lock;
	struct net_stats stats;		/* under turn_lock; arrivals in @narrivals */
	struct net_req *submitted, *submitted_tail;

	pthread_t proxy;
	bool proxy_started;
	atomic_bool stop;
	uint64_t narrivals;		/* messages that came in (the drop hook, stats) */
	uint64_t woke, woke_by_request;	/* proxy thread only: wake-ups not yet in @stats */
	bool applied;			/* under turn_lock: a signal applied since the proxy looked */
	/* under turn_lock: arrivals from senders not connected yet (net_hold_early()) */
	struct net_arrival *early;
	unsigned int nearly;
	/* the shuffle hook's held arrivals and random numbers */
	struct net_arrival *staged;
	unsigned int nstaged;
	uint32_t rng;
};

/* proxy.c */
/* net_dl.c: libfabric loaded (once); -ENOSYS naming why it could not be. */
int net_fabric_load(void);
int net_proxy_start(struct net *n);
void net_proxy_stop(struct net *n);
void net_submit(struct net *n, struct net_req *r);
/* proxy.c: connection @peer (NULL: none); fail it, once, with every request on it */
struct net_conn *net_conn_of(struct net *n, int peer);
void net_fail_conn(struct net *n, int peer, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/*
 * arrive.c: the receives for signal messages posted, one posted again;
 * an arrival from the completion queue; the shuffle hook's held ones on.
 */
int net_post_recvs(struct net *n);
void net_repost_recv(struct net *n, struct net_op *o);
/* A data message's bytes copied where it says, if that is inside a region here. */
bool net_land_data(struct net *n, const struct net_datamsg *m, size_t len);
void net_arrived(struct net *n, const struct net_arrival *a);
void net_flush_staged(struct net *n);
/* Arrivals from a sender not connected yet: held, handed on once it is. */
#define NET_EARLY_MAX (4 * NET_WINDOW)
void net_hold_early(struct net *n, const struct net_arrival *a);
/* Under turn_lock: hand on the held arrivals whose senders are connected now. */
void net_deliver_early(struct net *n);
/* The connection of the sender with @id (the completion data's), or -1. */
int net_peer_of_id(struct net *n, uint32_t id);
/* Have the proxy take a turn (a request came, a peer connected). */
void net_proxy_wake(struct net *n);
/* After the proxy stopped and the endpoint closed: free what is left. */
void net_proxy_release(struct net *n);

#endif
