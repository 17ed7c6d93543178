// SPDX-License-Identifier: MIT
/*
 * What arrives at the proxy (proxy.c): a peer's signals, checked against
 * the names it gave, put back in the order it sent them (order.c) and
 * applied through the network's callbacks; the receives for signal
 * messages, posted and posted again.  The test hooks drop or shuffle
 * arrivals here.
 */
#include "net/net_int.h"
#include "ccore_internal.h"
#include "log.h"
#include "util/clock.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

struct apply_ctx {
	struct net *n;
	int peer;
};

static void apply_signal(void *arg, const struct net_signal *wire)
{
	struct apply_ctx *a = arg;
	struct net_conn *c = net_conn_of(a->n, a->peer);
	struct net_signal sig = *wire;

	if (atomic_load(&c->err))
		return;
	if (!net_name_apply(&c->rx_names, &sig)) {
		net_fail_conn(a->n, a->peer, -EPROTO,
			      "%s signalled by a short name it never gave (0x%08" PRIx32 "): protocol broken",
			      c->name, wire->flags & NET_SIG_NAMED ? wire->sem : wire->flags);
		return;
	}
	if (a->n->p.cb.signal_arrived)
		a->n->p.cb.signal_arrived(a->n->p.cb.arg, a->peer, &sig);
	a->n->applied = true;
}

static void deliver(struct net *n, const struct net_arrival *a)
{
	struct net_conn *c = net_conn_of(n, a->peer);
	struct apply_ctx ctx = { n, a->peer };
	struct net_signal sig;
	const struct net_signal *s = NULL;
	uint32_t seq = a->data & (NET_SEQ_SPACE - 1);

	if (atomic_load(&c->err))
		return;		/* nothing more is applied from a failed peer */
	if (a->has_body) {
		if (a->body.magic == NET_DATAMSG_MAGIC) {
			struct net_datahdr h;

			/* net_land_data() refused it */
			memcpy(&h, &a->body, sizeof(h));
			net_fail_conn(n, a->peer, -EPROTO,
				      "%s sent bytes for its region %" PRIu32 " at offset %" PRIu64 ", outside every region here",
				      c->name, h.region, h.offset);
			return;
		}
		if (a->body.magic != NET_SIGMSG_MAGIC) {
			net_fail_conn(n, a->peer, -EPROTO,
				      "%s sent a message that is no signal (magic 0x%08" PRIx32 ")",
				      c->name, a->body.magic);
			return;
		}
		sig = (struct net_signal){ a->body.sem, a->body.value, a->body.flags };
		s = &sig;
	} else if (net_cq_data_signal(a->data, &sig)) {
		s = &sig;
	}
	if (reorder_arrive(&c->rx, seq, s, rt_now_ns(), apply_signal, &ctx))
		net_fail_conn(n, a->peer, -EPROTO,
			      "%s sent message %" PRIu32 " while %" PRIu32 " was next (window %u): protocol broken",
			      c->name, seq, c->rx.next, NET_WINDOW);
}

static uint32_t next_rand(struct net *n)
{
	n->rng ^= n->rng << 13;
	n->rng ^= n->rng >> 17;
	n->rng ^= n->rng << 5;
	return n->rng;
}

/* The shuffle hook: hand on what is held, in a random order. */
void net_flush_staged(struct net *n)
{
	for (unsigned int i = n->nstaged; i > 1; i--) {
		unsigned int j = next_rand(n) % i;
		struct net_arrival tmp = n->staged[i - 1];

		n->staged[i - 1] = n->staged[j];
		n->staged[j] = tmp;
	}
	for (unsigned int i = 0; i < n->nstaged; i++)
		deliver(n, &n->staged[i]);
	n->nstaged = 0;
}

void net_arrived(struct net *n, const struct net_arrival *a)
{
	if (++n->narrivals == n->test.drop_arrival)
		return;
	if (!n->test.shuffle_arrivals) {
		deliver(n, a);
		return;
	}
	n->staged[n->nstaged++] = *a;
	if (n->nstaged >= n->test.shuffle_arrivals)
		net_flush_staged(n);
}

/*
 * A sender may send as soon as it has connected this end, before this end
 * connected it (the network probe's first ping does): what comes from an
 * id not connected yet waits here for its net_connect(), which wakes the
 * proxy.  Dropping it would leave a gap that the reorder buffer times out.
 */
void net_hold_early(struct net *n, const struct net_arrival *a)
{
	if (n->nearly == NET_EARLY_MAX) {
		log_msg(LOG_WARN,
			"net: %u arrivals are held for senders not connected yet; one from id %u dropped",
			NET_EARLY_MAX, net_cq_data_id(a->data));
		return;
	}
	n->early[n->nearly++] = *a;
	n->stats.held_early++;
}

void net_deliver_early(struct net *n)
{
	unsigned int kept = 0;

	for (unsigned int i = 0; i < n->nearly; i++) {
		struct net_arrival a = n->early[i];

		a.peer = net_peer_of_id(n, net_cq_data_id(a.data));
		if (a.peer < 0)
			n->early[kept++] = a;
		else
			net_arrived(n, &a);
	}
	n->nearly = kept;
}

bool net_land_data(struct net *n, const struct net_datamsg *m, size_t len)
{
	const struct net_datahdr *h = &m->hdr;
	const struct net_local_region *r;

	if (h->magic != NET_DATAMSG_MAGIC || h->region >= n->nregions || len > NET_DATAMSG_BYTES)
		return false;
	r = &n->region[h->region];
	if (h->offset > r->size || len > r->size - h->offset)
		return false;
	memcpy(r->base + h->offset, m->bytes, len);
	return true;
}

void net_repost_recv(struct net *n, struct net_op *o)
{
	ssize_t ret;

	pthread_mutex_lock(&n->fab_lock);
	ret = fi_recv(n->ep, o->body, sizeof(union net_rxbuf), n->ctl.desc, FI_ADDR_UNSPEC, o);
	pthread_mutex_unlock(&n->fab_lock);
	if (ret)
		log_msg(LOG_WARN, "net: posting a receive for signal messages failed: %s",
			fi_strerror((int)-ret));
}

int net_post_recvs(struct net *n)
{
	for (unsigned int i = 0; i < NET_RX_POSTED; i++) {
		struct net_op *o = &n->rx_op[i];
		ssize_t ret;

		o->kind = NET_OP_RECV;
		o->body = &n->ctl_mem[i];
		o->peer = -1;
		ret = fi_recv(n->ep, o->body, sizeof(union net_rxbuf), n->ctl.desc, FI_ADDR_UNSPEC, o);
		if (ret)
			return ccore_error(-EIO, "net: posting receive %u of %u for signal messages: %s",
					   i, NET_RX_POSTED, fi_strerror((int)-ret));
	}
	return 0;
}
