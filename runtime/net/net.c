// SPDX-License-Identifier: MIT
/*
 * A network context (net.h): the knobs, choosing the provider, opening
 * its endpoint, registering regions, the address blob and connections,
 * and checking what callers ask before the proxy (proxy.c) carries it.
 */
#include "net/net_int.h"
#include "ccore_internal.h"
#include "log.h"
#include "util/timeout_ms.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define NET_FI_VERSION FI_VERSION(1, 14)
/* The default chunk where the provider allows more: writes stay interleavable. */
#define NET_CHUNK_CAP (1ull << 30)
/* Providers tried in turn when $CCORE_NET_PROVIDER is unset. */
static const char *const probe_order[] = { "efa", "tcp;ofi_rxm" };

/* What the blob holds (same byte order on both sides: one machine kind). */
#define BLOB_MAGIC "ccorenet"
#define BLOB_VERSION 2
struct blob_wire {
	char magic[8];
	uint32_t version;
	uint32_t addr_len;
	char provider[64];
	uint32_t nregions;
	uint32_t id;
	struct net_remote_region region[NET_MAX_REGIONS];
	unsigned char addr[128];
};
_Static_assert(sizeof(struct blob_wire) <= NET_BLOB_BYTES, "the blob's wire form fits");

int net_enabled(void)
{
	const char *v = getenv("CCORE_NET");

	if (!v || !*v || !strcmp(v, "on"))
		return 1;
	if (!strcmp(v, "off"))
		return 0;
	return ccore_error(-EINVAL, "CCORE_NET=%s: expected \"on\" (the default) or \"off\"", v);
}

/* What this transport needs of a provider; @prov NULL: any. */
static struct fi_info *hints_for(const char *prov)
{
	struct fi_info *h = fi_allocinfo();

	if (!h)
		return NULL;
	h->caps = FI_MSG | FI_RMA | FI_SOURCE;
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	h->ep_attr->type = FI_EP_RDM;
	/* the registration modes handled here (net_reg) */
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
				  FI_MR_PROV_KEY | FI_MR_ENDPOINT;
	h->domain_attr->threading = FI_THREAD_DOMAIN;
	h->domain_attr->av_type = FI_AV_TABLE;
	if (prov && !(h->fabric_attr->prov_name = strdup(prov))) {
		fi_freeinfo(h);
		return NULL;
	}
	return h;
}

/* The first of @list with enough completion data for the ordering rule. */
static struct fi_info *usable(struct fi_info *list)
{
	for (struct fi_info *i = list; i; i = i->next)
		if (i->domain_attr->cq_data_size >= 4)
			return i;
	return NULL;
}

/* The providers here that fit, for an error message: "efa, tcp;ofi_rxm". */
static void list_providers(char *buf, size_t size)
{
	struct fi_info *h = hints_for(NULL), *list = NULL;
	size_t used = 0;

	snprintf(buf, size, "none");
	if (!h || fi_getinfo(NET_FI_VERSION, NULL, NULL, 0, h, &list) || !list)
		goto out;
	buf[0] = '\0';
	for (struct fi_info *i = list; i; i = i->next) {
		const char *name = i->fabric_attr->prov_name;
		bool seen = false;

		for (struct fi_info *j = list; j != i; j = j->next)
			seen |= !strcmp(j->fabric_attr->prov_name, name);
		if (seen || i->domain_attr->cq_data_size < 4)
			continue;
		used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%s",
					 used ? ", " : "", name);
	}
out:
	if (list)
		fi_freeinfo(list);
	if (h)
		fi_freeinfo(h);
}

/* The fi_info of provider @prov, or NULL (@why says so when it is asked for by name). */
static struct fi_info *find_provider(const char *prov, int *err)
{
	struct fi_info *h = hints_for(prov), *list = NULL, *pick = NULL;
	int ret;

	if (!h) {
		*err = -ENOMEM;
		return NULL;
	}
	ret = fi_getinfo(NET_FI_VERSION, NULL, NULL, 0, h, &list);
	fi_freeinfo(h);
	*err = ret == -FI_ENODATA ? -ENODEV : ret;
	if (ret)
		return NULL;
	pick = usable(list);
	if (pick)
		pick = fi_dupinfo(pick);
	fi_freeinfo(list);
	*err = pick ? 0 : -ENODEV;
	return pick;
}

static struct fi_info *choose_provider(const char *asked, const char *from)
{
	char avail[512];
	struct fi_info *info;
	int err;

	if (asked) {
		if (!*asked) {
			list_providers(avail, sizeof(avail));
			ccore_error(-EINVAL, "%s is empty: expected a libfabric provider (here: %s)",
				    from, avail);
			return NULL;
		}
		info = find_provider(asked, &err);
		if (!info) {
			list_providers(avail, sizeof(avail));
			ccore_error(-EINVAL,
				    "%s=%s: no such provider here with reliable datagram endpoints, RMA, messages and 4 bytes of completion data (%s); expected one of: %s",
				    from, asked, fi_strerror(-err), avail);
		}
		return info;
	}
	for (size_t i = 0; i < sizeof(probe_order) / sizeof(probe_order[0]); i++) {
		info = find_provider(probe_order[i], &err);
		if (info)
			return info;
	}
	list_providers(avail, sizeof(avail));
	ccore_error(-ENODEV,
		    "no network provider: probed efa and tcp;ofi_rxm (providers that fit here: %s); set CCORE_NET_PROVIDER, or CCORE_NET=off",
		    avail);
	return NULL;
}

static void mr_mode_names(int mode, char *buf, size_t size)
{
	static const struct {
		int bit;
		const char *name;
	} names[] = {
		{ FI_MR_LOCAL, "FI_MR_LOCAL" }, { FI_MR_RAW, "FI_MR_RAW" },
		{ FI_MR_VIRT_ADDR, "FI_MR_VIRT_ADDR" }, { FI_MR_ALLOCATED, "FI_MR_ALLOCATED" },
		{ FI_MR_PROV_KEY, "FI_MR_PROV_KEY" }, { FI_MR_MMU_NOTIFY, "FI_MR_MMU_NOTIFY" },
		{ FI_MR_RMA_EVENT, "FI_MR_RMA_EVENT" }, { FI_MR_ENDPOINT, "FI_MR_ENDPOINT" },
		{ FI_MR_HMEM, "FI_MR_HMEM" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (mode & names[i].bit)
			used += (size_t)snprintf(buf + used, used < size ? size - used : 0, "%s%s",
						 used ? "|" : "", names[i].name);
	if (!used)
		snprintf(buf, size, "none");
}

static int fab_error(int ret, const char *what)
{
	return ccore_error(ret < 0 ? ret : -EIO, "net: %s: %s", what, fi_strerror(ret < 0 ? -ret : ret));
}

/* Register @size bytes at @base into @r (with @access), as the domain's modes need. */
static int reg_region(struct net *n, void *base, uint64_t size, uint64_t access,
		      struct net_local_region *r)
{
	uint64_t want_key = n->next_key++;
	int ret;

	ret = fi_mr_reg(n->domain, base, size, access, 0, want_key, 0, &r->mr, NULL);
	if (ret)
		return ccore_error(ret == -FI_ENOMEM ? -ENOMEM : -EIO,
				   "net: registering %" PRIu64 " bytes at %p with %s: %s", size, base,
				   n->lim.provider, fi_strerror(-ret));
	if (n->mr_mode & FI_MR_ENDPOINT) {
		ret = fi_mr_bind(r->mr, &n->ep->fid, 0);
		if (!ret)
			ret = fi_mr_enable(r->mr);
		if (ret) {
			fi_close(&r->mr->fid);
			r->mr = NULL;
			return fab_error(ret, "binding a registration to the endpoint");
		}
	}
	r->desc = fi_mr_desc(r->mr);
	r->key = fi_mr_key(r->mr);
	if (r->key == FI_KEY_NOTAVAIL) {
		fi_close(&r->mr->fid);
		r->mr = NULL;
		return ccore_error(-EOPNOTSUPP, "net: %s gives raw registration keys (FI_MR_RAW): not supported",
				   n->lim.provider);
	}
	r->base = base;
	r->size = size;
	return 0;
}

static int open_endpoint(struct net *n)
{
	struct fi_cq_attr cq_attr = { 0 };
	struct fi_av_attr av_attr = { 0 };
	int ret;

	ret = fi_fabric(n->info->fabric_attr, &n->fabric, NULL);
	if (ret)
		return fab_error(ret, "opening the fabric");
	ret = fi_domain(n->fabric, n->info, &n->domain, NULL);
	if (ret)
		return fab_error(ret, "opening the domain");
	cq_attr.format = FI_CQ_FORMAT_DATA;
	cq_attr.wait_obj = FI_WAIT_FD;
	cq_attr.size = n->info->tx_attr->size + n->info->rx_attr->size;
	ret = fi_cq_open(n->domain, &cq_attr, &n->cq, NULL);
	if (ret)
		return fab_error(ret, "opening a completion queue with a file descriptor to wait on");
	ret = fi_control(&n->cq->fid, FI_GETWAIT, &n->cq_fd);
	if (ret)
		return fab_error(ret, "getting the completion queue's file descriptor");
	av_attr.type = FI_AV_TABLE;
	ret = fi_av_open(n->domain, &av_attr, &n->av, NULL);
	if (ret)
		return fab_error(ret, "opening the address vector");
	ret = fi_endpoint(n->domain, n->info, &n->ep, NULL);
	if (ret)
		return fab_error(ret, "opening the endpoint");
	ret = fi_ep_bind(n->ep, &n->av->fid, 0);
	if (!ret)
		ret = fi_ep_bind(n->ep, &n->cq->fid, FI_TRANSMIT | FI_RECV);
	if (ret)
		return fab_error(ret, "binding the endpoint");
	ret = fi_enable(n->ep);
	if (ret)
		return fab_error(ret, "enabling the endpoint");
	n->addr_len = sizeof(n->addr);
	ret = fi_getname(&n->ep->fid, n->addr, &n->addr_len);
	if (ret)
		return fab_error(ret, "getting the endpoint's address");
	return 0;
}

static void fill_limits(struct net *n)
{
	struct fi_info *i = n->info;
	struct net_limits *l = &n->lim;

	snprintf(l->provider, sizeof(l->provider), "%s", i->fabric_attr->prov_name);
	snprintf(l->fabric, sizeof(l->fabric), "%s", i->fabric_attr->name ? i->fabric_attr->name : "");
	snprintf(l->domain, sizeof(l->domain), "%s", i->domain_attr->name ? i->domain_attr->name : "");
	l->max_msg_size = i->ep_attr->max_msg_size;
	l->max_chunk = l->max_msg_size < NET_CHUNK_CAP ? l->max_msg_size : NET_CHUNK_CAP;
	if (n->p.max_chunk && n->p.max_chunk < l->max_chunk)
		l->max_chunk = n->p.max_chunk;
	l->inject_size = i->tx_attr->inject_size;
	/* writes and messages land in the order they were posted (tcp;ofi_rxm, not efa) */
	n->in_order = (i->tx_attr->msg_order & NET_IN_ORDER) == NET_IN_ORDER;
	/* a notice must land after its write's data: only with the order kept */
	n->notice_writes = n->in_order && strstr(l->provider, "ofi_rxm");
	l->cq_data_size = i->domain_attr->cq_data_size;
	l->mr_key_size = i->domain_attr->mr_key_size;
	l->mr_mode = i->domain_attr->mr_mode;
	mr_mode_names(l->mr_mode, l->mr_mode_names, sizeof(l->mr_mode_names));
	n->mr_mode = l->mr_mode;
}

int net_open(const struct net_params *p, struct net **out)
{
	const char *asked = p->provider, *from = "the provider asked for";
	struct net *n;
	size_t ctl_bytes;
	int rc;

	*out = NULL;
	rc = net_enabled();
	if (rc < 0)
		return rc;
	if (!rc)
		return ccore_error(-ENODEV, "the network is off (CCORE_NET=off)");
	rc = net_fabric_load();
	if (rc)
		return rc;
	n = calloc(1, sizeof(*n));
	if (!n)
		return ccore_error(-ENOMEM, "out of memory");
	if (p->id >= NET_MAX_IDS)
		return ccore_error(-EINVAL, "net_open: id %u out of range (0..%u)", p->id,
				   NET_MAX_IDS - 1);
	n->p = *p;
	if (p->test)
		n->test = *p->test;
	n->p.test = NULL;
	n->cq_fd = n->wake_fd = -1;
	n->next_key = 1;
	pthread_mutex_init(&n->fab_lock, NULL);
	pthread_mutex_init(&n->submit_lock, NULL);
	pthread_mutex_init(&n->turn_lock, NULL);
	pthread_rwlock_init(&n->conn_lock, NULL);
	rc = timeout_ms_pick(p->timeout_ms, "network timeout", "CCORE_NET_TIMEOUT_MS",
			     NET_TIMEOUT_DEFAULT_MS, NET_TIMEOUT_MAX_MS, &n->lim.timeout_ms);
	if (rc)
		goto fail;
	if (!asked && getenv("CCORE_NET_PROVIDER")) {
		asked = getenv("CCORE_NET_PROVIDER");
		from = "CCORE_NET_PROVIDER";
	}
	n->info = choose_provider(asked, from);
	if (!n->info) {
		rc = asked ? -EINVAL : -ENODEV;
		goto fail;
	}
	fill_limits(n);
	rc = open_endpoint(n);
	if (rc)
		goto fail;
	ctl_bytes = (NET_RX_POSTED + NET_TX_BODIES) * sizeof(union net_rxbuf);
	n->ctl_mem = aligned_alloc(4096, (ctl_bytes + 4095) & ~(size_t)4095);
	n->staged = calloc(n->test.shuffle_arrivals + 1, sizeof(*n->staged));
	n->early = calloc(NET_EARLY_MAX, sizeof(*n->early));
	if (!n->ctl_mem || !n->staged || !n->early) {
		rc = ccore_error(-ENOMEM, "out of memory");
		goto fail;
	}
	memset(n->ctl_mem, 0, ctl_bytes);
	rc = reg_region(n, n->ctl_mem, ctl_bytes, FI_SEND | FI_RECV, &n->ctl);
	if (rc)
		goto fail;
	for (unsigned int i = 0; i < NET_TX_BODIES; i++)
		n->free_bodies[n->nfree_bodies++] = &n->ctl_mem[NET_RX_POSTED + i];
	rc = net_post_recvs(n);
	if (rc)
		goto fail;
	n->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (n->wake_fd < 0) {
		rc = ccore_error(-errno, "net: eventfd: %s", strerror(errno));
		goto fail;
	}
	rc = net_proxy_start(n);
	if (rc)
		goto fail;
	log_msg(LOG_INFO, "net: provider %s, fabric %s, domain %s, mr_mode %s", n->lim.provider,
		n->lim.fabric, n->lim.domain, n->lim.mr_mode_names);
	*out = n;
	return 0;
fail:
	net_close(n);
	return rc;
}

void net_close(struct net *n)
{
	if (!n)
		return;
	net_proxy_stop(n);
	if (n->ep)
		fi_close(&n->ep->fid);
	n->ep = NULL;
	net_proxy_release(n);
	for (unsigned int i = 0; i < n->nregions; i++)
		fi_close(&n->region[i].mr->fid);
	if (n->ctl.mr)
		fi_close(&n->ctl.mr->fid);
	if (n->av)
		fi_close(&n->av->fid);
	if (n->cq)
		fi_close(&n->cq->fid);
	if (n->domain)
		fi_close(&n->domain->fid);
	if (n->fabric)
		fi_close(&n->fabric->fid);
	if (n->info)
		fi_freeinfo(n->info);
	if (n->wake_fd >= 0)
		close(n->wake_fd);
	for (int i = 0; i < n->nconn; i++)
		free(n->conn[i]);
	free(n->conn);
	free(n->ctl_mem);
	free(n->staged);
	free(n->early);
	pthread_mutex_destroy(&n->fab_lock);
	pthread_mutex_destroy(&n->submit_lock);
	pthread_mutex_destroy(&n->turn_lock);
	pthread_rwlock_destroy(&n->conn_lock);
	free(n);
}

void net_get_limits(const struct net *n, struct net_limits *out)
{
	*out = n->lim;
}

int net_reg(struct net *n, void *base, uint64_t size, unsigned int *region)
{
	int rc;

	if (!base || !size)
		return ccore_error(-EINVAL, "net_reg: %s: expected a region of at least one byte",
				   base ? "size 0" : "base NULL");
	pthread_mutex_lock(&n->fab_lock);
	if (n->nregions == NET_MAX_REGIONS) {
		pthread_mutex_unlock(&n->fab_lock);
		return ccore_error(-ENOSPC, "net_reg: already %d regions, the most a context registers",
				   NET_MAX_REGIONS);
	}
	rc = reg_region(n, base, size, FI_WRITE | FI_REMOTE_WRITE, &n->region[n->nregions]);
	if (!rc)
		*region = n->nregions++;
	pthread_mutex_unlock(&n->fab_lock);
	return rc;
}

int net_local_blob(struct net *n, struct net_blob *out)
{
	struct blob_wire w;

	memset(&w, 0, sizeof(w));
	memcpy(w.magic, BLOB_MAGIC, sizeof(w.magic));
	w.version = BLOB_VERSION;
	if (n->addr_len > sizeof(w.addr))
		return ccore_error(-EOVERFLOW, "net: %s's address is %zu bytes, more than the blob's %zu",
				   n->lim.provider, n->addr_len, sizeof(w.addr));
	w.addr_len = (uint32_t)n->addr_len;
	memcpy(w.addr, n->addr, n->addr_len);
	w.id = n->p.id;
	snprintf(w.provider, sizeof(w.provider), "%s", n->lim.provider);
	pthread_mutex_lock(&n->fab_lock);
	w.nregions = n->nregions;
	for (unsigned int i = 0; i < n->nregions; i++) {
		struct net_local_region *r = &n->region[i];

		w.region[i].addr = n->mr_mode & FI_MR_VIRT_ADDR ? (uint64_t)(uintptr_t)r->base : 0;
		w.region[i].size = r->size;
		w.region[i].key = r->key;
	}
	pthread_mutex_unlock(&n->fab_lock);
	memset(out, 0, sizeof(*out));
	memcpy(out->bytes, &w, sizeof(w));
	return 0;
}

int net_connect(struct net *n, const struct net_blob *blob, const char *name, int *peer)
{
	struct blob_wire w;
	struct net_conn *c;
	fi_addr_t addr;
	int ret;

	memcpy(&w, blob->bytes, sizeof(w));
	if (memcmp(w.magic, BLOB_MAGIC, sizeof(w.magic)) || w.version != BLOB_VERSION)
		return ccore_error(-EINVAL, "net_connect %s: not a network blob of version %d",
				   name, BLOB_VERSION);
	w.provider[sizeof(w.provider) - 1] = '\0';
	if (strcmp(w.provider, n->lim.provider))
		return ccore_error(-EINVAL,
				   "net_connect %s: it uses provider %s, this host %s (set CCORE_NET_PROVIDER alike on every host)",
				   name, w.provider, n->lim.provider);
	if (w.addr_len > sizeof(w.addr) || w.nregions > NET_MAX_REGIONS)
		return ccore_error(-EINVAL,
				   "net_connect %s: a blob with %u address bytes and %u regions: expected at most %zu and %d",
				   name, w.addr_len, w.nregions, sizeof(w.addr), NET_MAX_REGIONS);
	if (w.id >= NET_MAX_IDS)
		return ccore_error(-EINVAL, "net_connect %s: its id %u is out of range (0..%u)",
				   name, w.id, NET_MAX_IDS - 1);
	pthread_rwlock_rdlock(&n->conn_lock);
	for (int i = 0; i < n->nconn; i++)
		if (n->conn[i]->id == w.id) {
			pthread_rwlock_unlock(&n->conn_lock);
			return ccore_error(-EINVAL, "net_connect %s: id %u is %s's already (one per context)",
					   name, w.id, n->conn[i]->name);
		}
	pthread_rwlock_unlock(&n->conn_lock);
	c = calloc(1, sizeof(*c));
	if (!c)
		return ccore_error(-ENOMEM, "out of memory");
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->id = w.id;
	c->nregions = w.nregions;
	memcpy(c->region, w.region, sizeof(c->region));
	reorder_init(&c->rx, n->test.no_reorder_buffer);
	pthread_mutex_lock(&n->fab_lock);
	ret = fi_av_insert(n->av, w.addr, 1, &addr, 0, NULL);
	pthread_mutex_unlock(&n->fab_lock);
	if (ret != 1) {
		free(c);
		return ccore_error(-EINVAL, "net_connect %s: inserting its address failed: %s", name,
				   fi_strerror(ret < 0 ? -ret : FI_EINVAL));
	}
	c->addr = addr;
	pthread_rwlock_wrlock(&n->conn_lock);
	if (n->nconn == n->conn_cap) {
		int cap = n->conn_cap ? 2 * n->conn_cap : 8;
		struct net_conn **grown = realloc(n->conn, (size_t)cap * sizeof(*grown));

		if (!grown) {
			pthread_rwlock_unlock(&n->conn_lock);
			free(c);
			return ccore_error(-ENOMEM, "out of memory");
		}
		n->conn = grown;
		n->conn_cap = cap;
	}
	*peer = n->nconn;
	n->conn[n->nconn++] = c;
	pthread_rwlock_unlock(&n->conn_lock);
	/* what it sent before this may be held (net_hold_early()) */
	if (n->proxy_started)
		net_proxy_wake(n);
	return 0;
}

const char *net_peer_name(const struct net *n, int peer)
{
	return peer >= 0 && peer < n->nconn ? n->conn[peer]->name : "(no such peer)";
}

static bool range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static int check_signal(const struct net_signal *sig, const char *fn)
{
	if (sig->flags & ~NET_SIG_SET)
		return ccore_error(-EINVAL, "%s: signal flags 0x%x: expected 0 or NET_SIG_SET", fn,
				   sig->flags);
	return 0;
}

/* The peer's connection for a request, or an error naming why not. */
static struct net_conn *peer_for(struct net *n, int peer, const char *fn, int *rc)
{
	struct net_conn *c = NULL;
	int k;

	pthread_rwlock_rdlock(&n->conn_lock);
	k = n->nconn;
	if (peer >= 0 && peer < k)
		c = n->conn[peer];
	pthread_rwlock_unlock(&n->conn_lock);
	if (!c) {
		*rc = ccore_error(-EINVAL, "%s: peer %d: expected 0 to %d (connected peers)", fn, peer,
				  k - 1);
		return NULL;
	}
	if (atomic_load(&c->err)) {
		*rc = ccore_error(-EPIPE, "%s: %s", fn, c->why);
		return NULL;
	}
	return c;
}

int net_put(struct net *n, int peer, unsigned int local_region, uint64_t local_off,
	    unsigned int remote_region, uint64_t remote_off, uint64_t len,
	    const struct net_signal *sig, uint64_t cookie)
{
	struct net_conn *c;
	struct net_req *r;
	int rc = 0;

	c = peer_for(n, peer, "net_put", &rc);
	if (!c)
		return rc;
	if (!len && !sig)
		return ccore_error(-EINVAL, "net_put to %s: 0 bytes and no signal: nothing to do",
				   c->name);
	if (sig && (rc = check_signal(sig, "net_put")))
		return rc;
	if (len) {
		if (local_region >= n->nregions)
			return ccore_error(-EINVAL, "net_put: local region %u: expected 0 to %d", local_region,
					   (int)n->nregions - 1);
		if (remote_region >= c->nregions)
			return ccore_error(-EINVAL, "net_put to %s: its region %u: expected 0 to %d",
					   c->name, remote_region, (int)c->nregions - 1);
		if (!range_ok(local_off, len, n->region[local_region].size))
			return ccore_error(-EINVAL,
					   "net_put: %" PRIu64 " bytes at %" PRIu64 " of local region %u: past its %" PRIu64 " bytes",
					   len, local_off, local_region, n->region[local_region].size);
		if (!range_ok(remote_off, len, c->region[remote_region].size))
			return ccore_error(-EINVAL,
					   "net_put to %s: %" PRIu64 " bytes at %" PRIu64 " of its region %u: past its %" PRIu64 " bytes",
					   c->name, len, remote_off, remote_region, c->region[remote_region].size);
	}
	r = malloc(sizeof(*r));
	if (!r)
		return ccore_error(-ENOMEM, "out of memory");
	*r = (struct net_req){
		.peer = peer,
		.local_region = local_region, .local_off = local_off,
		.remote_region = remote_region, .remote_off = remote_off,
		.len = len,
		.has_sig = sig != NULL,
		.sig = sig ? *sig : (struct net_signal){ 0 },
		.cookie = cookie,
	};
	net_submit(n, r);
	return 0;
}

int net_signal(struct net *n, int peer, const struct net_signal *sig, uint64_t cookie)
{
	if (!sig)
		return ccore_error(-EINVAL, "net_signal: no signal given");
	return net_put(n, peer, 0, 0, 0, 0, 0, sig, cookie);
}
