// SPDX-License-Identifier: MIT
/* The cost model's topology and step costs (see model.h). */
#include "model.h"

#include <stdio.h>

void tune_topo_default(struct tune_topo *t, uint32_t nodes, uint32_t torus_x, uint32_t torus_y,
		       uint32_t ranks_per_device)
{
	*t = (struct tune_topo){
		.ranks_per_device = ranks_per_device ? ranks_per_device : 1,
		.torus_x = torus_x ? torus_x : 1, .torus_y = torus_y ? torus_y : 1,
		.nodes = nodes ? nodes : 1,
		.alpha_us = { 0.5, 1.5, 15.0 },
		.bw_gbps = { 400.0, 160.0, 25.0 },
		.msg_us = 0.3,
		.streams = 1,
	};
}

void tune_topo_ideal(struct tune_topo *t, uint32_t n, double alpha_us, double bw_gbps)
{
	*t = (struct tune_topo){
		.ranks_per_device = 1, .torus_x = n ? n : 1, .torus_y = 1, .nodes = 1,
		.alpha_us = { alpha_us, alpha_us, alpha_us },
		.bw_gbps = { bw_gbps, bw_gbps, bw_gbps },
		.streams = 1, .ideal = true,
	};
}

uint32_t tune_topo_ranks(const struct tune_topo *t)
{
	return t->ranks_per_device * t->torus_x * t->torus_y * t->nodes;
}

void tune_topo_describe(const struct tune_topo *t, char *buf, unsigned long len)
{
	if (t->ideal)
		snprintf(buf, len, "ideal: %u ranks, one tier, α %.3g µs, %.4g GB/s",
			 tune_topo_ranks(t), t->alpha_us[0], t->bw_gbps[0]);
	else
		snprintf(buf, len, "%u node%s x %s %ux%u x %u rank%s per device",
			 t->nodes, t->nodes == 1 ? "" : "s", t->torus_y > 1 ? "torus" : "ring",
			 t->torus_x, t->torus_y, t->ranks_per_device,
			 t->ranks_per_device == 1 ? "" : "s");
}

/* Microseconds to move @bytes at @gbps (10^3 bytes per µs). */
static double us(double bytes, double gbps)
{
	return bytes / (gbps * 1e3);
}

static double max2(double a, double b)
{
	return a > b ? a : b;
}

static uint32_t devices(const struct tune_topo *t)
{
	return t->torus_x * t->torus_y;
}

/* Overheads of @msgs messages in one step: the first is in α. */
static double msg_cost(const struct tune_topo *t, double msgs)
{
	return t->ideal || msgs <= 1 ? 0 : (msgs - 1) * t->msg_us;
}

/* The ideal step: α + (bytes a rank sends) / BW. */
static struct tune_cost ideal(const struct tune_topo *t, double bytes)
{
	return (struct tune_cost){ t->alpha_us[0], us(bytes, t->bw_gbps[0]) };
}

static struct tune_cost cost(const struct tune_topo *t, enum tune_tier tier, double msgs,
			     double xfer)
{
	return (struct tune_cost){ t->alpha_us[tier] + msg_cost(t, msgs),
				   xfer * (t->streams ? t->streams : 1) };
}

/* Link-direction load of a flow @d devices along a ring of @k (ties split). */
static double hop_load(uint32_t d, uint32_t k)
{
	d %= k;
	if (!d)
		return 0;
	if (2 * d == k)
		return d / 2.0;
	return d < k - d ? d : k - d;
}

/* Load per link direction of a uniform all-to-all on a ring of @k. */
static double ring_a2a_load(uint32_t k)
{
	double l = 0;

	for (uint32_t d = 1; d < k; d++)
		l += 2 * d < k ? d : 2 * d == k ? d / 2.0 : 0;
	return l;
}

static enum tune_tier top_tier(const struct tune_topo *t)
{
	return t->nodes > 1 ? TUNE_NET : devices(t) > 1 ? TUNE_NODE : TUNE_DEV;
}

struct tune_cost tune_step_ring(const struct tune_topo *t, double bytes, uint32_t msgs,
				uint32_t dirs)
{
	enum tune_tier top = top_tier(t);
	double x = us(bytes, t->bw_gbps[TUNE_DEV]), link = bytes / (dirs > 1 ? 2.0 : 1.0);

	if (t->ideal)
		return ideal(t, bytes);
	/* one transfer per link direction: every tier spanned carries one */
	for (int tier = TUNE_NODE; tier <= (int)top; tier++)
		x = max2(x, us(link, t->bw_gbps[tier]));
	return cost(t, top, msgs, x);
}

/*
 * A step where every rank sends to a partner @d ranks away: @f transfers
 * of each device cross to a device @dd devices further (node-major order),
 * @wraps_nodes when some cross nodes.
 */
static struct tune_cost far_step(const struct tune_topo *t, uint32_t f, uint32_t dd,
				 bool crosses_nodes, double bytes, uint32_t msgs)
{
	uint32_t D = devices(t), in = dd % D;
	double x = us(bytes, t->bw_gbps[TUNE_DEV]);
	double h = max2(hop_load(in % t->torus_x, t->torus_x),
			hop_load((in / t->torus_x) % t->torus_y, t->torus_y));

	if (in && h < 1)
		h = 1;
	if (in)
		x = max2(x, us(f * bytes * h, t->bw_gbps[TUNE_NODE]));
	if (crosses_nodes)
		x = max2(x, us(f * bytes, t->bw_gbps[TUNE_NET]));
	return cost(t, crosses_nodes ? TUNE_NET : in ? TUNE_NODE : TUNE_DEV, msgs, x);
}

struct tune_cost tune_step_xor(const struct tune_topo *t, uint32_t d, double bytes, uint32_t msgs)
{
	uint32_t R = t->ranks_per_device, D = devices(t), dd;

	if (t->ideal)
		return ideal(t, bytes);
	if (d < R && R % (2 * d) == 0)
		return tune_step_local(t, bytes, msgs);
	dd = d < R ? 1 : d / R;
	return far_step(t, d < R ? d : R, dd, t->nodes > 1 && dd >= D, bytes, msgs);
}

struct tune_cost tune_step_shift(const struct tune_topo *t, uint32_t d, double bytes,
				 uint32_t msgs)
{
	uint32_t R = t->ranks_per_device;

	if (t->ideal)
		return ideal(t, bytes);
	if (devices(t) * t->nodes == 1)
		return tune_step_local(t, bytes, msgs);
	/* a translation of the whole group wraps across nodes, if any */
	return far_step(t, d < R ? d : R, d < R ? 1 : d / R, t->nodes > 1, bytes, msgs);
}

struct tune_cost tune_step_all(const struct tune_topo *t, double bytes, uint32_t msgs)
{
	uint32_t n = tune_topo_ranks(t), R = t->ranks_per_device, D = devices(t);
	double x, pair = (double)R * R * bytes;	/* between two devices */

	if (t->ideal)
		return ideal(t, (n - 1) * bytes);
	x = us((n - 1) * bytes, t->bw_gbps[TUNE_DEV]);
	if (D > 1)
		x = max2(x, us(pair * max2(t->torus_y * ring_a2a_load(t->torus_x),
					   t->torus_x * ring_a2a_load(t->torus_y)),
			       t->bw_gbps[TUNE_NODE]));
	if (t->nodes > 1)
		x = max2(x, us(pair * D * (t->nodes - 1), t->bw_gbps[TUNE_NET]));
	return cost(t, top_tier(t), (double)msgs * (n - 1), x);
}

struct tune_cost tune_step_local(const struct tune_topo *t, double bytes, uint32_t msgs)
{
	if (t->ideal)
		return ideal(t, bytes);
	return cost(t, TUNE_DEV, msgs, us(bytes, t->bw_gbps[TUNE_DEV]));
}

double tune_reduce_us(const struct tune_topo *t, double bytes)
{
	return t->ideal || t->reduce_gbps <= 0 ? 0 : us(bytes, t->reduce_gbps);
}
