// SPDX-License-Identifier: GPL-2.0
/*
 * Links: devices of a node form a bidirectional ring or a 2D torus; nodes
 * are joined through one NIC per device.  The functional model only counts
 * bytes per tier; hop distances are what the timed model charges for.
 */
#include "ccm_internal.h"

enum ccm_link_tier ccm_route_tier(const struct ccm_fabric *f, u32 from, u32 to)
{
	u32 per = f->cfg.devices_per_node;

	if (from == to)
		return CCM_TIER_LOCAL;
	return from / per == to / per ? CCM_TIER_DEVICE : CCM_TIER_NODE;
}

static u32 ring_dist(u32 a, u32 b, u32 n)
{
	u32 d = a > b ? a - b : b - a;

	return d < n - d ? d : n - d;
}

u32 ccm_route_hops(const struct ccm_fabric *f, u32 from, u32 to)
{
	const struct ccm_config *c = &f->cfg;
	u32 a = from % c->devices_per_node, b = to % c->devices_per_node;

	if (ccm_route_tier(f, from, to) == CCM_TIER_NODE)
		return 1;
	if (c->topology == DRM_CCORE_TOPO_TORUS)
		return ring_dist(a % c->torus_x, b % c->torus_x, c->torus_x) +
		       ring_dist(a / c->torus_x, b / c->torus_x, c->torus_y);
	return ring_dist(a, b, c->devices_per_node);
}

u32 ccm_link_neighbours(const struct ccm_fabric *f, u32 dev, u32 *out, u32 max)
{
	u32 base = dev - dev % f->cfg.devices_per_node, n = 0, i;

	for (i = 0; i < f->cfg.devices_per_node; i++) {
		if (base + i == dev || ccm_route_hops(f, dev, base + i) != 1)
			continue;
		if (n < max)
			out[n] = base + i;
		n++;
	}
	return n;
}

void ccm_link_account(struct ccm_fabric *f, u32 from, u32 to, u64 bytes)
{
	enum ccm_link_tier t = ccm_route_tier(f, from, to);
	struct ccm_device *src = ccm_dev(f, from), *dst = ccm_dev(f, to);

	if (src)
		ccm_add64(&src->link_out[t], bytes);
	if (dst)
		ccm_add64(&dst->link_in[t], bytes);
}

void ccm_link_stats(const struct ccm_fabric *f, u32 dev, struct ccm_link_stats *st)
{
	struct ccm_device *d = ccm_dev(f, dev);
	u32 t;

	memset(st, 0, sizeof(*st));
	if (!d)
		return;
	for (t = 0; t < 3; t++) {
		st->bytes_out[t] = ccm_load64(&d->link_out[t]);
		st->bytes_in[t] = ccm_load64(&d->link_in[t]);
	}
}
