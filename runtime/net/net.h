/* SPDX-License-Identifier: MIT */
/*
 * The network transport between hosts (the inter-node tier): a context
 * over one libfabric provider with a reliable-datagram (RDM) endpoint and
 * a proxy thread that carries puts and signals to peer hosts and applies
 * the peers' signals here.  Documentation/network.rst.
 *
 * Use:
 *   net_open()                      provider by $CCORE_NET_PROVIDER or probing
 *   net_reg() for each region       once, e.g. a host's whole device arena
 *   net_local_blob()                address + regions, moved by the caller's
 *                                   bootstrap (e.g. boot_allgather)
 *   net_connect() for each peer     then a barrier, before any put
 *   net_put() / net_signal()        from any thread, never blocking
 *   net_close()
 *
 * A put writes @len bytes of a local region to a peer's region (an RMA
 * write with remote completion data, chunked to the provider's limit) and
 * may carry a signal: on arrival the peer's arrival callback gets the
 * (semaphore, value) pair once every byte of the put, and of every put
 * issued before it on that connection, has landed.  Signals of a
 * connection are applied in the order the sender issued them, whatever
 * order the provider delivers in (EFA's SRD reorders).  The sender's
 * completion callback says when the local bytes may be reused.
 *
 * Register and connect before the first put: net_reg() and net_connect()
 * may not run while another thread puts.  Callbacks run on the proxy
 * thread, one at a time; they may call net_put() and net_signal() but
 * never net_close().  Every call returns 0
 * or a negative errno with ccore_last_error() naming what was wrong.
 */
#ifndef CCORE_NET_H
#define CCORE_NET_H

#include <stddef.h>
#include <stdint.h>

struct net;

/* A context's address and registered regions, moved between hosts as bytes. */
#define NET_BLOB_BYTES 512
struct net_blob {
	unsigned char bytes[NET_BLOB_BYTES];
};

/* Regions a context can register (net_reg). */
#define NET_MAX_REGIONS 8

/* Default and limits of $CCORE_NET_TIMEOUT_MS. */
#define NET_TIMEOUT_DEFAULT_MS 30000
#define NET_TIMEOUT_MAX_MS 86400000

/* struct net_signal.flags: set the semaphore to @value instead of adding. */
#define NET_SIG_SET (1u << 0)

/*
 * Raise semaphore @sem (the caller's name for it, opaque here) of the peer
 * by @value, or set it (NET_SIG_SET).  A put's signal that adds 1 rides
 * in its last write once its semaphore has a short name on the
 * connection (its first signal gives it one, names.h); any other costs
 * one extra message.
 */
struct net_signal {
	uint32_t sem;
	uint32_t value;
	uint32_t flags;
};

/* Ids a context may have (struct net_params.id). */
#define NET_MAX_IDS 4096u

/*
 * Called on the proxy thread.  @err is 0 or a negative errno; then @why
 * names the peer and what failed (valid during the call only).
 *
 * put_done:      a put or signal's local bytes may be reused, or it failed.
 * signal_arrived: a peer's signal, in its issue order on that connection.
 * peer_failed:   a connection broke (a CQ error, a peer that stopped
 *                answering within the timeout); every put still queued to
 *                it completes with the error.  Called once per peer.
 */
struct net_callbacks {
	void (*put_done)(void *arg, uint64_t cookie, int err, const char *why);
	void (*signal_arrived)(void *arg, int peer, const struct net_signal *sig);
	void (*peer_failed)(void *arg, int peer, int err, const char *why);
	/*
	 * Optional: the proxy applied signals in its last turn.  Called on
	 * the proxy thread after the turn (not under the turn lock, so
	 * net_put and net_signal may post at once), before it sleeps.
	 */
	void (*signals_applied)(void *arg);
	void *arg;
};

/* Test hooks: how the reorder buffer is shown to matter (selftests/net). */
struct net_test_hooks {
	/*
	 * Shuffle arrivals: hold up to this many arrivals (or until the
	 * completion queue is idle) and hand them on in a random order, as a
	 * provider that reorders would.  0: off.
	 */
	unsigned int shuffle_arrivals;
	uint32_t shuffle_seed;
	/* Apply signals as they arrive, without the reorder buffer (wrong). */
	int no_reorder_buffer;
	/* Lose the n-th arrival (from 1), as a provider that drops one would; 0: none. */
	unsigned int drop_arrival;
	/* Add this to every data message's offset, as a sender wrong about its peer's regions. */
	uint64_t data_offset_skew;
};

struct net_params {
	struct net_callbacks cb;
	/* Largest write of a chunk; 0: the provider's max_msg_size (capped at 1 GiB). */
	uint64_t max_chunk;
	/* NULL: $CCORE_NET_PROVIDER, else probed (efa, then tcp;ofi_rxm). */
	const char *provider;
	/* 0: $CCORE_NET_TIMEOUT_MS, else NET_TIMEOUT_DEFAULT_MS. */
	int timeout_ms;
	/*
	 * This context's id, below NET_MAX_IDS, different from every other
	 * context it talks to (e.g. its process's lowest rank): every message
	 * carries it, and a receiver tells its peers apart by it.
	 */
	uint32_t id;
	const struct net_test_hooks *test;
};

/* What the provider allows (for ccore-info). */
struct net_limits {
	char provider[64];		/* e.g. "tcp;ofi_rxm", "efa" */
	char fabric[64];
	char domain[64];
	uint64_t max_msg_size;
	uint64_t max_chunk;		/* what a put's write is cut to */
	size_t inject_size;
	size_t cq_data_size;		/* bytes of remote completion data */
	size_t mr_key_size;
	int mr_mode;			/* FI_MR_* bits the provider requires */
	char mr_mode_names[128];	/* the same, e.g. "FI_MR_LOCAL|FI_MR_VIRT_ADDR" */
	int timeout_ms;
};

/*
 * Is the network on?  0 when $CCORE_NET is "off", 1 when unset or "on";
 * -EINVAL for anything else.
 */
int net_enabled(void);

/*
 * Open a context: the provider of @p (or the environment's, or probed),
 * its endpoint, completion queue and address vector, and the proxy
 * thread.  -ENODEV (with the reason) when the network is off or no
 * provider fits; -EINVAL on a bad $CCORE_NET*, naming what is allowed.
 */
int net_open(const struct net_params *p, struct net **out);

/* Stop the proxy, fail what is still queued, release everything; NULL is fine. */
void net_close(struct net *n);

void net_get_limits(const struct net *n, struct net_limits *out);

/* What a context carried so far (its proxy's count). */
struct net_stats {
	uint64_t bytes_sent;		/* data written to peers */
	uint64_t writes;		/* write messages (chunks) */
	uint64_t notices;		/* zero-byte messages carrying a write's completion data */
	uint64_t data_msgs;		/* small puts sent as messages, bytes and all */
	uint64_t numbered;		/* messages with a sequence number: what the peer counts */
	uint64_t signal_msgs;		/* signal messages */
	uint64_t named_signals;		/* signals that rode in a write by name */
	uint64_t arrivals;		/* messages that came in */
	uint64_t held_early;		/* ... held until their sender was connected */
	uint64_t injected;		/* messages sent by inject (no completion) */
	uint64_t inline_posts;		/* turns a caller took to post its own request */
	uint64_t proxy_wakeups;		/* times the proxy woke from its sleep */
	uint64_t wakeups_by_request;	/* ... of them by a request (its eventfd) */
};

void net_get_stats(struct net *n, struct net_stats *out);

/*
 * Register @size bytes at @base for puts (as source here, as target for
 * the peers); once per region, as the provider requires (local, virtual
 * address, provider key modes).  Region numbers count from 0.
 */
int net_reg(struct net *n, void *base, uint64_t size, unsigned int *region);

/* This context's address and regions registered so far. */
int net_local_blob(struct net *n, struct net_blob *out);

/*
 * Insert the peer of @blob (its net_local_blob) and return its number
 * (from 0, in connect order).  @name says who it is in errors ("host 1").
 * A peer may put as soon as it has connected this context: what arrives
 * from it before this context connects it is held (up to 4 × the window
 * of messages) and applied, in order, once it does.
 */
int net_connect(struct net *n, const struct net_blob *blob, const char *name, int *peer);

/*
 * Write @len bytes (0 is allowed with a signal) at @local_off of
 * @local_region to @remote_off of the peer's @remote_region, then apply
 * @sig (NULL: none) there.  put_done(@cookie) when done or failed.
 * Never blocks; -EINVAL for bad ranges, -EPIPE once the peer has failed.
 */
int net_put(struct net *n, int peer, unsigned int local_region, uint64_t local_off,
	    unsigned int remote_region, uint64_t remote_off, uint64_t len,
	    const struct net_signal *sig, uint64_t cookie);

/* A signal with no data (a semaphore write to another host). */
int net_signal(struct net *n, int peer, const struct net_signal *sig, uint64_t cookie);

/* The peer's name as given to net_connect. */
const char *net_peer_name(const struct net *n, int peer);

#endif
