// SPDX-License-Identifier: MIT
/*
 * The proxy thread of a network context: it takes the callers' requests,
 * cuts them into writes of at most max_chunk bytes, keeps at most
 * NET_WINDOW messages in flight per connection, reads the completion
 * queue (the sender's completions, the peers' arrivals, which arrive.c
 * puts in order and applies), and fails a connection whose
 * operations or arrivals stall past the timeout.  Between events it
 * sleeps on the completion queue's file descriptor and an eventfd that
 * net_submit() and net_proxy_stop() write: it never spins.
 *
 * The proxy posts and reads the queue in turns under turn_lock; a caller
 * whose request is small posts it itself when it gets that lock at once
 * (no wake-up of the proxy on the way out: net_submit()).  libfabric
 * calls are made under fab_lock (net_connect and net_reg take it too);
 * callbacks are made in a turn, so they must not wait for one: net_put()
 * from a callback only queues.
 */
#include "net/net_int.h"
#include "ccore_internal.h"
#include "log.h"
#include "util/clock.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define CQ_BATCH 32
/* How long a stopping proxy waits for what is in flight (drain()). */
#define DRAIN_MS 1000
/* A request this small may be posted by its caller's thread (net_submit()). */
#define INLINE_MAX_BYTES (64u << 10)
/* With the shuffle hook: how long the queue must stay idle before what is held goes on. */
#define SHUFFLE_IDLE_MS 2
/*
 * How long to wait before posting again when the provider said -FI_EAGAIN
 * (out of room, or connecting): from 1 ms, doubling while it lasts.
 */
#define RETRY_MAX_MS 64

/* What one turn of the loop saw. */
struct turn {
	bool progressed;	/* something posted, completed or arrived */
	bool blocked;		/* the provider said -FI_EAGAIN */
};

struct net_conn *net_conn_of(struct net *n, int peer)
{
	struct net_conn *c;

	pthread_rwlock_rdlock(&n->conn_lock);
	c = peer >= 0 && peer < n->nconn ? n->conn[peer] : NULL;
	pthread_rwlock_unlock(&n->conn_lock);
	return c;
}

static int nconn(struct net *n)
{
	int k;

	pthread_rwlock_rdlock(&n->conn_lock);
	k = n->nconn;
	pthread_rwlock_unlock(&n->conn_lock);
	return k;
}

/* The peer whose id is @id, or -1. */
int net_peer_of_id(struct net *n, uint32_t id)
{
	int found = -1;

	pthread_rwlock_rdlock(&n->conn_lock);
	for (int i = 0; found < 0 && i < n->nconn; i++)
		if (n->conn[i]->id == id)
			found = i;
	pthread_rwlock_unlock(&n->conn_lock);
	return found;
}

static void take_submitted(struct net *n);
static void post_all(struct net *n, struct turn *t);

/*
 * Post what is submitted in the caller's thread, if the proxy is not in a
 * turn and nothing is in flight to @peer: true if nothing of it is left
 * for the proxy to post.  (With a large write in flight, tcp;ofi_rxm may
 * hold it back for the proxy's progress while a later write goes out at
 * once, and the proxy, asleep, would not know to drive it.)
 */
static bool post_inline(struct net *n, int peer)
{
	struct turn t = { false, false };
	struct net_conn *c;
	bool left;

	if (!n->proxy_started || atomic_load(&n->stop) || pthread_mutex_trylock(&n->turn_lock))
		return false;
	c = net_conn_of(n, peer);
	if (!c || c->inflight || c->queue) {
		pthread_mutex_unlock(&n->turn_lock);
		return false;
	}
	take_submitted(n);
	post_all(n, &t);
	n->stats.inline_posts++;
	left = t.blocked;
	for (int i = 0, k = nconn(n); !left && i < k; i++)
		left = net_conn_of(n, i)->queue != NULL;
	pthread_mutex_unlock(&n->turn_lock);
	return !left;
}

void net_submit(struct net *n, struct net_req *r)
{
	/* read now: once queued, the proxy may finish and free it */
	bool small = r->len <= INLINE_MAX_BYTES;
	int peer = r->peer;

	pthread_mutex_lock(&n->submit_lock);
	if (n->submitted_tail)
		n->submitted_tail->next = r;
	else
		n->submitted = r;
	n->submitted_tail = r;
	pthread_mutex_unlock(&n->submit_lock);
	/* its completion wakes the proxy through the queue's fd */
	if (small && post_inline(n, peer))
		return;
	net_proxy_wake(n);
}

void net_proxy_wake(struct net *n)
{
	uint64_t one = 1;

	if (write(n->wake_fd, &one, sizeof(one)) < 0)
		log_msg(LOG_WARN, "net: waking the proxy: %s", strerror(errno));
}

static void report(struct net *n, struct net_req *r, int err, const char *why)
{
	if (r->reported)
		return;
	r->reported = true;
	if (n->p.cb.put_done)
		n->p.cb.put_done(n->p.cb.arg, r->cookie, err, why);
}

static bool fully_posted(const struct net_req *r)
{
	return r->posted == r->len && !r->notice_due && (!r->has_sig || r->sig_posted);
}

/* Every operation of @r completed: report it (unless it failed earlier) and free it. */
static void req_finish(struct net *n, struct net_req *r)
{
	report(n, r, 0, NULL);
	free(r);
}

/* Fail every request queued or in flight to @c. */
static void fail_reqs(struct net *n, struct net_conn *c, int err, const char *why)
{
	for (struct net_op *o = c->oldest; o; o = o->next)
		report(n, o->req, err, why);
	while (c->queue) {
		struct net_req *r = c->queue;

		c->queue = r->next;
		r->next = NULL;
		r->queued = false;
		report(n, r, err, why);
		if (!r->ops_out)
			free(r);
	}
	c->queue_tail = NULL;
}

/*
 * Connection @peer broke: say so once, and fail every request still
 * queued or in flight to it.  Operations in flight stay with the provider
 * until they complete or the endpoint closes.
 */
void net_fail_conn(struct net *n, int peer, int err, const char *fmt, ...)
{
	struct net_conn *c = net_conn_of(n, peer);
	char why[512];
	va_list ap;

	if (!c || atomic_load(&c->err))
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(c->why, sizeof(c->why), "%s", why);
	atomic_store(&c->err, err);
	log_msg(LOG_WARN, "net: %s", why);
	if (n->p.cb.peer_failed)
		n->p.cb.peer_failed(n->p.cb.arg, peer, err, why);
	fail_reqs(n, c, err, why);
}

static void take_submitted(struct net *n)
{
	struct net_req *r, *next;

	pthread_mutex_lock(&n->submit_lock);
	r = n->submitted;
	n->submitted = n->submitted_tail = NULL;
	pthread_mutex_unlock(&n->submit_lock);
	for (; r; r = next) {
		struct net_conn *c = net_conn_of(n, r->peer);

		next = r->next;
		r->next = NULL;
		if (atomic_load(&c->err)) {
			report(n, r, atomic_load(&c->err), c->why);
			free(r);
			continue;
		}
		if (c->queue_tail)
			c->queue_tail->next = r;
		else
			c->queue = r;
		c->queue_tail = r;
		r->queued = true;
	}
}

/* A message of @kind posted on @c takes the next sequence number, unless it is a write without completion data. */
static void number_message(struct net *n, struct net_conn *c, enum net_op_kind kind)
{
	if (kind == NET_OP_WRITE && n->notice_writes)
		return;
	c->tx_seq = (c->tx_seq + 1) & (NET_SEQ_SPACE - 1);
	n->stats.numbered++;
}

/* @o in flight. */
static void link_op(struct net *n, struct net_conn *c, struct net_op *o)
{
	o->deadline_ns = rt_now_ns() + (int64_t)n->lim.timeout_ms * 1000000;
	o->prev = c->newest;
	o->next = NULL;
	if (c->newest)
		c->newest->next = o;
	else
		c->oldest = o;
	c->newest = o;
	c->inflight++;
	number_message(n, c, o->kind);
	o->req->ops_out++;
}

static void unlink_op(struct net_conn *c, struct net_op *o)
{
	if (o->prev)
		o->prev->next = o->next;
	else
		c->oldest = o->next;
	if (o->next)
		o->next->prev = o->prev;
	else
		c->newest = o->prev;
	c->inflight--;
}

/* Off the queue once every message of @r is posted: its operations finish it. */
static void dequeue_if_posted(struct net *n, struct net_conn *c, struct net_req *r)
{
	if (!fully_posted(r))
		return;
	c->queue = r->next;
	if (!c->queue)
		c->queue_tail = NULL;
	r->next = NULL;
	r->queued = false;
	if (!r->ops_out)
		req_finish(n, r);
}

/*
 * Can a message of @len bytes go by inject?  Its bytes are copied out
 * before the call returns and no completion follows (the proxy is not
 * woken for it, nor the ring kept parked until it is).  Only with a
 * provider that keeps the order (NET_IN_ORDER) and nothing of the
 * connection in flight, so every message before it was sent.
 */
static bool injectable(const struct net *n, const struct net_conn *c, uint64_t len)
{
	return n->in_order && !c->inflight && len <= n->lim.inject_size;
}

/* The next message of @c's first request, of @kind, went by inject: its sequence number is used. */
static void injected(struct net *n, struct net_conn *c, enum net_op_kind kind)
{
	number_message(n, c, kind);
	n->stats.injected++;
}

/*
 * Send @size bytes of body @b (NULL: a zero-byte message) as @o, with
 * completion data @data, by inject when it may go so (*@inject).  An
 * injected body is copied out, and one not sent is not used: either goes
 * back to the free list; one sent waits in @o->body for its completion.
 */
static ssize_t send_body(struct net *n, struct net_conn *c, struct net_op *o, union net_rxbuf *b,
			 size_t size, uint32_t data, bool *inject)
{
	void *buf = b ? (void *)b : (void *)n->ctl_mem;
	ssize_t ret;

	*inject = injectable(n, c, size);
	ret = *inject ? fi_injectdata(n->ep, buf, size, data, c->addr) :
			fi_senddata(n->ep, buf, size, n->ctl.desc, data, c->addr, o);
	if (b && (ret || *inject))
		n->free_bodies[n->nfree_bodies++] = b;
	else if (b)
		o->body = b;
	return ret;
}

/*
 * Post the next @len bytes of @o's request, with completion data @data:
 * by a write that carries it, or (notice_writes) by a data message when
 * they fit one and a body is free, else by a write without it, whose
 * notice is next.  @o->kind says which; *@inject whether it was injected.
 */
static ssize_t post_chunk(struct net *n, struct net_conn *c, struct net_op *o, uint64_t len,
			  uint32_t data, bool *inject)
{
	struct net_req *r = o->req;
	struct net_local_region *lr = &n->region[r->local_region];
	struct net_remote_region *rr = &c->region[r->remote_region];
	const char *src = lr->base + r->local_off + r->posted;
	uint64_t dst = rr->addr + r->remote_off + r->posted;

	*inject = injectable(n, c, len);
	o->kind = NET_OP_WRITE;
	if (!n->notice_writes)
		return *inject ? fi_inject_writedata(n->ep, src, len, data, c->addr, dst, rr->key) :
				 fi_writedata(n->ep, src, len, lr->desc, data, c->addr, dst, rr->key, o);
	if (len <= NET_DATAMSG_BYTES && n->nfree_bodies) {
		union net_rxbuf *b = n->free_bodies[--n->nfree_bodies];

		b->data.hdr.magic = NET_DATAMSG_MAGIC;
		/* the peer's region numbers are its own: it registered them in that order */
		b->data.hdr.region = r->remote_region;
		b->data.hdr.offset = r->remote_off + r->posted + n->test.data_offset_skew;
		memcpy(b->data.bytes, src, len);
		o->kind = NET_OP_DATAMSG;
		return send_body(n, c, o, b, NET_DATAMSG_HDR + len, data, inject);
	}
	return *inject ? fi_inject_write(n->ep, src, len, c->addr, dst, rr->key) :
			 fi_write(n->ep, src, len, lr->desc, c->addr, dst, rr->key, o);
}

/* Post the notice of @r's last write: the completion data it went without. */
static ssize_t post_notice(struct net *n, struct net_conn *c, struct net_op *o, bool *inject)
{
	struct net_req *r = o->req;
	ssize_t ret;

	o->kind = NET_OP_NOTICE;
	ret = send_body(n, c, o, NULL, 0, net_cq_data(c->tx_seq, n->p.id, r->notice_name1), inject);
	if (!ret) {
		r->notice_due = false;
		r->sig_posted |= r->notice_name1 != 0;
		n->stats.notices++;
		n->stats.named_signals += r->notice_name1 != 0;
	}
	return ret;
}

static const char *op_kind_name(enum net_op_kind kind)
{
	switch (kind) {
	case NET_OP_WRITE:
		return "write";
	case NET_OP_NOTICE:
		return "write's notice";
	case NET_OP_DATAMSG:
		return "data message";
	case NET_OP_SIGMSG:
		return "signal message";
	case NET_OP_RECV:
		break;
	}
	return "receive";
}

/* Post the next message of @c's first request: 1 posted, 0 failed, -EAGAIN. */
static int post_one(struct net *n, int peer, struct net_conn *c)
{
	struct net_req *r = c->queue;
	struct net_op *o;
	bool inject = false;
	ssize_t ret;

	o = calloc(1, sizeof(*o));
	if (!o) {
		net_fail_conn(n, peer, -ENOMEM, "%s: out of memory for a put", c->name);
		return 0;
	}
	o->req = r;
	o->peer = peer;
	pthread_mutex_lock(&n->fab_lock);
	if (r->notice_due) {
		ret = post_notice(n, c, o, &inject);
	} else if (r->posted < r->len) {
		uint64_t chunk = r->len - r->posted;
		uint32_t name = 0;
		bool named;

		if (chunk > n->lim.max_chunk)
			chunk = n->lim.max_chunk;
		/* the last write carries the signal when its semaphore has a name */
		named = r->posted + chunk == r->len && r->has_sig && net_sig_nameable(&r->sig) &&
			net_name_of(&c->tx_names, r->sig.sem, &name);
		ret = post_chunk(n, c, o, chunk, net_cq_data(c->tx_seq, n->p.id, named ? name + 1 : 0),
				 &inject);
		if (!ret) {
			r->posted += chunk;
			n->stats.bytes_sent += chunk;
			n->stats.writes += o->kind == NET_OP_WRITE;
			n->stats.data_msgs += o->kind == NET_OP_DATAMSG;
			if (o->kind == NET_OP_WRITE && n->notice_writes) {
				r->notice_due = true;
				r->notice_name1 = named ? name + 1 : 0;
			} else {
				r->sig_posted |= named;
				n->stats.named_signals += named;
			}
		}
	} else if (n->nfree_bodies) {
		union net_rxbuf *b = n->free_bodies[--n->nfree_bodies];
		uint32_t name = 0;
		bool bind = r->len && net_sig_nameable(&r->sig) &&
			    net_name_next(&c->tx_names, r->sig.sem, &name);

		/* a put's first signal of a semaphore names it for the next ones */
		b->sig = (struct net_sigmsg){ NET_SIGMSG_MAGIC, r->sig.sem, r->sig.value,
					      r->sig.flags | (bind ? NET_SIG_BIND | name << NET_SIG_NAME_SHIFT : 0) };
		o->kind = NET_OP_SIGMSG;
		ret = send_body(n, c, o, b, sizeof(b->sig), net_cq_data(c->tx_seq, n->p.id, 0),
				&inject);
		if (!ret) {
			r->sig_posted = true;
			n->stats.signal_msgs++;
			if (bind)
				net_name_bind(&c->tx_names, r->sig.sem, name);
		}
	} else {
		ret = -FI_EAGAIN;	/* every body in flight: wait for completions */
	}
	pthread_mutex_unlock(&n->fab_lock);
	if (ret == -FI_EAGAIN) {
		free(o);
		return -EAGAIN;
	}
	if (ret) {
		net_fail_conn(n, peer, (int)ret, "%s: posting a %s failed: %s", c->name,
			      op_kind_name(o->kind), fi_strerror((int)-ret));
		free(o);
		return 0;
	}
	if (inject) {
		injected(n, c, o->kind);
		free(o);
	} else {
		link_op(n, c, o);
	}
	dequeue_if_posted(n, c, r);
	return 1;
}

static void post_all(struct net *n, struct turn *t)
{
	int k = nconn(n);

	for (int peer = 0; peer < k; peer++) {
		struct net_conn *c = net_conn_of(n, peer);

		while (c->queue && c->inflight < NET_WINDOW && !atomic_load(&c->err)) {
			int rc = post_one(n, peer, c);

			if (rc == -EAGAIN) {
				/* e.g. rxm connecting (again) to a peer that does not answer */
				if (!c->blocked_since_ns)
					c->blocked_since_ns = rt_now_ns();
				t->blocked = true;
				break;
			}
			if (rc <= 0)
				break;
			c->blocked_since_ns = 0;
			t->progressed = true;
		}
	}
}

static void op_done(struct net *n, struct net_op *o)
{
	struct net_conn *c = net_conn_of(n, o->peer);
	struct net_req *r = o->req;

	unlink_op(c, o);
	if (o->body)
		n->free_bodies[n->nfree_bodies++] = o->body;
	free(o);
	if (--r->ops_out == 0 && (r->reported || !r->queued))
		req_finish(n, r);
}

static void completion(struct net *n, const struct fi_cq_data_entry *e, fi_addr_t src)
{
	struct net_op *o = e->op_context;
	struct net_arrival a = { 0 };

	if ((e->flags & FI_REMOTE_WRITE) || (e->flags & FI_RECV)) {
		/* by the id the sender put in: a source address may be another peer's */
		a.data = (uint32_t)e->data;
		a.peer = (e->flags & FI_REMOTE_CQ_DATA) ? net_peer_of_id(n, net_cq_data_id(a.data)) : -1;
		if (e->flags & FI_RECV) {
			if (e->len == sizeof(a.body)) {
				a.has_body = true;
				a.body = o->body->sig;
			} else if (e->len == 0) {
				/* a write's notice: its completion data, as a write's own */
			} else if (e->len > NET_DATAMSG_HDR && e->len <= sizeof(union net_rxbuf)) {
				if (!net_land_data(n, &o->body->data, e->len - NET_DATAMSG_HDR)) {
					a.has_body = true;	/* deliver() rejects it by its magic */
					a.body = o->body->sig;
				}
			} else {
				a.has_body = true;	/* deliver() rejects it by its magic */
			}
			net_repost_recv(n, o);
		}
		if (a.peer < 0 && (e->flags & FI_REMOTE_CQ_DATA)) {
			net_hold_early(n, &a);
			return;
		}
		if (a.peer < 0) {
			log_msg(LOG_WARN,
				"net: an arrival without completion data (fi_addr %" PRIu64 "); dropped",
				(uint64_t)src);
			return;
		}
		net_arrived(n, &a);
		return;
	}
	op_done(n, o);
}

static void cq_error(struct net *n)
{
	struct fi_cq_err_entry e = { 0 };
	char detail[256] = "";
	struct net_op *o;
	ssize_t ret;

	pthread_mutex_lock(&n->fab_lock);
	ret = fi_cq_readerr(n->cq, &e, 0);
	if (ret == 1)
		fi_cq_strerror(n->cq, e.prov_errno, e.err_data, detail, sizeof(detail));
	pthread_mutex_unlock(&n->fab_lock);
	if (ret != 1)
		return;
	o = e.op_context;
	if (atomic_load(&n->stop) && e.err == FI_ECANCELED)
		return;
	if (!o || (e.flags & FI_REMOTE_WRITE)) {
		log_msg(LOG_WARN, "net: an incoming write failed: %s (%s)", fi_strerror(e.err), detail);
		return;
	}
	if (o->kind == NET_OP_RECV) {
		log_msg(LOG_WARN, "net: a receive for signal messages failed: %s (%s)",
			fi_strerror(e.err), detail);
		net_repost_recv(n, o);
		return;
	}
	net_fail_conn(n, o->peer, -(e.err ? e.err : EIO), "%s: a %s to it failed: %s (%s)",
		      net_conn_of(n, o->peer)->name, op_kind_name(o->kind),
		      fi_strerror(e.err), detail);
	op_done(n, o);
}

static void reap(struct net *n, struct turn *t)
{
	struct fi_cq_data_entry e[CQ_BATCH];
	fi_addr_t src[CQ_BATCH];
	ssize_t got;

	for (;;) {
		pthread_mutex_lock(&n->fab_lock);
		got = fi_cq_readfrom(n->cq, e, CQ_BATCH, src);
		pthread_mutex_unlock(&n->fab_lock);
		if (got == -FI_EAGAIN)
			return;
		if (got == -FI_EAVAIL) {
			cq_error(n);
			t->progressed = true;
			continue;
		}
		if (got < 0) {
			log_msg(LOG_WARN, "net: reading the completion queue: %s",
				fi_strerror((int)-got));
			return;
		}
		for (ssize_t i = 0; i < got; i++)
			completion(n, &e[i], src[i]);
		t->progressed = true;
	}
}

/* Fail connections that stalled; the earliest deadline left (0: none). */
static int64_t check_deadlines(struct net *n)
{
	int64_t now = rt_now_ns(), timeout = (int64_t)n->lim.timeout_ms * 1000000, next = 0;
	int k = nconn(n);

	for (int peer = 0; peer < k; peer++) {
		struct net_conn *c = net_conn_of(n, peer);
		int64_t d;

		if (atomic_load(&c->err))
			continue;
		if (c->oldest && now >= c->oldest->deadline_ns) {
			net_fail_conn(n, peer, -ETIMEDOUT,
				      "%s did not complete a %s within %d ms (CCORE_NET_TIMEOUT_MS): host gone or unreachable",
				      c->name, op_kind_name(c->oldest->kind),
				      n->lim.timeout_ms);
			continue;
		}
		if (c->blocked_since_ns && now >= c->blocked_since_ns + timeout) {
			net_fail_conn(n, peer, -ETIMEDOUT,
				      "%s could not be sent to for %d ms (CCORE_NET_TIMEOUT_MS): host gone or unreachable",
				      c->name, n->lim.timeout_ms);
			continue;
		}
		if (c->rx.held && now >= c->rx.gap_since_ns + timeout) {
			net_fail_conn(n, peer, -ETIMEDOUT,
				      "%s: its message %" PRIu32 " has not arrived within %d ms (CCORE_NET_TIMEOUT_MS) while %u later ones did",
				      c->name, c->rx.next, n->lim.timeout_ms, c->rx.held);
			continue;
		}
		d = c->oldest ? c->oldest->deadline_ns : 0;
		if (c->rx.held && (!d || c->rx.gap_since_ns + timeout < d))
			d = c->rx.gap_since_ns + timeout;
		if (c->blocked_since_ns && (!d || c->blocked_since_ns + timeout < d))
			d = c->blocked_since_ns + timeout;
		if (d && (!next || d < next))
			next = d;
	}
	return next;
}

/* Sleep until the queue has something, a request comes, or @timeout_ms; false if idle out. */
static bool wait_events(struct net *n, int timeout_ms)
{
	struct fid *fids[1] = { &n->cq->fid };
	struct pollfd pfd[2] = { { .fd = n->cq_fd, .events = POLLIN },
				 { .fd = n->wake_fd, .events = POLLIN } };
	uint64_t v;
	int ret;

	pthread_mutex_lock(&n->fab_lock);
	ret = fi_trywait(n->fabric, fids, 1);
	pthread_mutex_unlock(&n->fab_lock);
	if (ret == -FI_EAGAIN)
		return true;	/* completions are there to read */
	ret = poll(pfd, 2, timeout_ms);
	/* counted in the next turn, under turn_lock as the other figures */
	if (ret > 0) {
		n->woke++;
		n->woke_by_request += !!(pfd[1].revents & POLLIN);
	}
	if (ret > 0 && (pfd[1].revents & POLLIN) && read(n->wake_fd, &v, sizeof(v)) < 0)
		log_msg(LOG_WARN, "net: reading the proxy's eventfd: %s", strerror(errno));
	return ret != 0;
}

/* Anything posted and not completed, to a peer still there? */
static bool in_flight(struct net *n)
{
	for (int i = 0, k = nconn(n); i < k; i++) {
		struct net_conn *c = net_conn_of(n, i);

		if (c->inflight && !atomic_load(&c->err))
			return true;
	}
	return false;
}

/*
 * Stopping: reap what is in flight first, for at most DRAIN_MS.  Closing
 * the endpoint with writes outstanding crashed tcp;ofi_rxm (a cancelled
 * operation with no context, in fi_close), which callers posting their
 * own writes (net_submit()) left more often.  The cause was an incoming
 * write with completion data cut off part way (see notice_writes).
 */
static void drain(struct net *n)
{
	int64_t until = rt_now_ns() + (int64_t)DRAIN_MS * 1000000;

	for (;;) {
		struct turn t = { false, false };
		bool busy;

		pthread_mutex_lock(&n->turn_lock);
		reap(n, &t);
		busy = in_flight(n);
		pthread_mutex_unlock(&n->turn_lock);
		if (!busy || rt_now_ns() >= until)
			return;
		if (!t.progressed)
			wait_events(n, 1);
	}
}

static void *proxy_main(void *arg)
{
	struct net *n = arg;

	int retry_ms = 1;

	while (!atomic_load(&n->stop)) {
		struct turn t = { false, false };
		int64_t deadline;
		int timeout_ms = -1;
		bool applied;

		pthread_mutex_lock(&n->turn_lock);
		n->stats.proxy_wakeups += n->woke;
		n->stats.wakeups_by_request += n->woke_by_request;
		n->woke = n->woke_by_request = 0;
		take_submitted(n);
		post_all(n, &t);
		reap(n, &t);
		if (n->nearly)
			net_deliver_early(n);
		deadline = check_deadlines(n);
		applied = n->applied;
		n->applied = false;
		pthread_mutex_unlock(&n->turn_lock);
		if (applied && n->p.cb.signals_applied)
			n->p.cb.signals_applied(n->p.cb.arg);
		if (t.progressed) {
			retry_ms = 1;
			continue;
		}
		if (deadline) {
			int64_t left = (deadline - rt_now_ns()) / 1000000 + 1;

			timeout_ms = left < 1 ? 1 : left > 1000000 ? 1000000 : (int)left;
		}
		if (t.blocked) {
			if (timeout_ms < 0 || timeout_ms > retry_ms)
				timeout_ms = retry_ms;
			retry_ms = retry_ms < RETRY_MAX_MS ? 2 * retry_ms : RETRY_MAX_MS;
		}
		if (n->nstaged && (timeout_ms < 0 || timeout_ms > SHUFFLE_IDLE_MS))
			timeout_ms = SHUFFLE_IDLE_MS;
		if (!wait_events(n, timeout_ms) && n->nstaged) {
			pthread_mutex_lock(&n->turn_lock);
			net_flush_staged(n);
			pthread_mutex_unlock(&n->turn_lock);
		}
	}
	pthread_mutex_lock(&n->turn_lock);
	net_flush_staged(n);
	pthread_mutex_unlock(&n->turn_lock);
	drain(n);
	return NULL;
}

void net_get_stats(struct net *n, struct net_stats *out)
{
	pthread_mutex_lock(&n->turn_lock);
	*out = n->stats;
	out->arrivals = n->narrivals;
	pthread_mutex_unlock(&n->turn_lock);
}

int net_proxy_start(struct net *n)
{
	int rc;

	n->rng = n->test.shuffle_seed ? n->test.shuffle_seed : 0x2545f491u;
	rc = pthread_create(&n->proxy, NULL, proxy_main, n);
	if (rc)
		return ccore_error(-rc, "net: starting the proxy thread: %s", strerror(rc));
	n->proxy_started = true;
	return 0;
}

void net_proxy_stop(struct net *n)
{
	uint64_t one = 1;

	if (!n->proxy_started)
		return;
	atomic_store(&n->stop, true);
	if (write(n->wake_fd, &one, sizeof(one)) < 0)
		log_msg(LOG_WARN, "net: waking the proxy to stop: %s", strerror(errno));
	pthread_join(n->proxy, NULL);
	n->proxy_started = false;
}

void net_proxy_release(struct net *n)
{
	take_submitted(n);
	for (int peer = 0; peer < n->nconn; peer++) {
		struct net_conn *c = n->conn[peer];

		char why[128];

		snprintf(why, sizeof(why), "%s: the network context closed", c->name);
		fail_reqs(n, c, -ECANCELED, why);
		while (c->oldest) {
			struct net_op *o = c->oldest;
			struct net_req *r = o->req;

			unlink_op(c, o);
			free(o);
			if (--r->ops_out == 0)
				free(r);
		}
	}
}
