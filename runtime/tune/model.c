// SPDX-License-Identifier: MIT
/* The cost model's topology and step costs (see model.h). */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

void tune_hw_default(struct tune_hw *hw)
{
	/* model/ccm_config.c's defaults: α 500/1500/15000 ns, 3200/1280/200
	 * Gbit/s, engines of 2000 Gbit/s, 4 per core, 5 ns per instruction,
	 * 50 ns per semaphore hand-off */
	*hw = (struct tune_hw){
		.alpha_us = { 0.5, 1.5, 15.0 },
		.bw_gbps = { 400.0, 160.0, 25.0 },
		.engine_gbps = 250.0, .engines = 4,
		.sem_us = 0.05, .insn_us = 0.005,
	};
}

void tune_topo_from_hw(struct tune_topo *t, uint32_t nodes, uint32_t torus_x, uint32_t torus_y,
		       uint32_t ranks_per_device, const struct tune_hw *hw)
{
	struct tune_hw d;

	if (!hw) {
		tune_hw_default(&d);
		hw = &d;
	}
	*t = (struct tune_topo){
		.ranks_per_device = ranks_per_device ? ranks_per_device : 1,
		.torus_x = torus_x ? torus_x : 1, .torus_y = torus_y ? torus_y : 1,
		.nodes = nodes ? nodes : 1,
		.engine_gbps = hw->engine_gbps, .engines = hw->engines ? hw->engines : 1,
		/* the receiver's ACQUIRE sees the data's signal */
		.step_us = hw->sem_us + hw->insn_us,
		/* ACQUIRE and START of a send, its hand-off to the receiver */
		.msg_us = hw->sem_us + 2 * hw->insn_us,
		.insn_us = hw->insn_us, .sem_us = hw->sem_us,
		.streams = 1,
	};
	memcpy(t->alpha_us, hw->alpha_us, sizeof(t->alpha_us));
	memcpy(t->bw_gbps, hw->bw_gbps, sizeof(t->bw_gbps));
	t->host = hw->host;
	t->across_hosts = hw->across_hosts;
}

void tune_topo_default(struct tune_topo *t, uint32_t nodes, uint32_t torus_x, uint32_t torus_y,
		       uint32_t ranks_per_device)
{
	tune_topo_from_hw(t, nodes, torus_x, torus_y, ranks_per_device, NULL);
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

/*
 * Routing inside a node, as model/ccm_xfer.c does it: device i sits at
 * (i % x, i / x); a transfer goes along x first, then y, the shorter way
 * round each ring (ties the positive way), one link direction per hop.
 */
struct route {
	uint32_t hops;		/* the longest route */
	double load;		/* transfers on the busiest link direction */
};

/* Hops and link directions of one ring dimension from @a to @b of @k. */
static uint32_t ring_walk(uint32_t a, uint32_t b, uint32_t k, int *dir)
{
	uint32_t fwd = (b + k - a) % k;

	*dir = fwd <= k - fwd ? 1 : -1;
	return fwd <= k - fwd ? fwd : k - fwd;
}

/* Add a transfer @from -> @to (device indices in a node) to @load. */
static uint32_t walk(const struct tune_topo *t, uint32_t from, uint32_t to, double w,
		     double *load)
{
	uint32_t X = t->torus_x, Y = t->torus_y, x = from % X, y = from / X;
	uint32_t hx, hy, i;
	int dx, dy;

	hx = ring_walk(x, to % X, X, &dx);
	hy = ring_walk(y, to / X, Y, &dy);
	for (i = 0; i < hx; i++) {
		load[(y * X + x) * 4 + (dx > 0 ? 0 : 1)] += w;
		x = (x + X + (uint32_t)dx) % X;
	}
	for (i = 0; i < hy; i++) {
		load[(y * X + x) * 4 + (dy > 0 ? 2 : 3)] += w;
		y = (y + Y + (uint32_t)dy) % Y;
	}
	return hx + hy;
}

enum route_kind { ROUTE_SHIFT, ROUTE_XOR, ROUTE_ALL, ROUTE_BOTH_WAYS };

/*
 * Every device of a node sends one transfer (ROUTE_ALL: one to each
 * other device; ROUTE_BOTH_WAYS: one to i + @d and one to i - @d) to
 * device i + @d (SHIFT, wrapping in the node) or i ^ @d (XOR, within the
 * node): the longest route and the busiest link.
 */
static struct route node_route(const struct tune_topo *t, enum route_kind kind, uint32_t d)
{
	uint32_t D = devices(t);
	struct route r = { 0, 0 };
	double *load = calloc((size_t)D * 4, sizeof(*load));

	if (!load) {
		/* a bound: every transfer on one link, the node's diameter */
		r.hops = t->torus_x / 2 + t->torus_y / 2;
		r.load = kind == ROUTE_ALL ? (double)D * D : D;
		return r;
	}
	for (uint32_t i = 0; i < D; i++) {
		if (kind == ROUTE_ALL) {
			for (uint32_t j = 0; j < D; j++) {
				uint32_t h = j == i ? 0 : walk(t, i, j, 1, load);

				r.hops = h > r.hops ? h : r.hops;
			}
			continue;
		}
		uint32_t j = kind == ROUTE_XOR ? (i ^ d) % D : (i + d) % D;
		uint32_t h = j == i ? 0 : walk(t, i, j, 1, load);

		r.hops = h > r.hops ? h : r.hops;
		if (kind == ROUTE_BOTH_WAYS) {
			/* the way back: on a ring of two, the same link (ties go +) */
			j = (i + D - d % D) % D;
			h = j == i ? 0 : walk(t, i, j, 1, load);
			r.hops = h > r.hops ? h : r.hops;
		}
	}
	for (uint32_t i = 0; i < D * 4; i++)
		r.load = load[i] > r.load ? load[i] : r.load;
	free(load);
	return r;
}

double tune_hop_alpha(const struct tune_topo *t, uint32_t hops)
{
	return t->ideal ? t->alpha_us[0] : t->alpha_us[TUNE_NODE] * (hops ? hops : 1);
}

/* What one transfer runs at, alone: its tier's bandwidth, its engine's. */
static double xfer_gbps(const struct tune_topo *t, enum tune_tier tier)
{
	double bw = t->bw_gbps[tier];

	return t->engine_gbps > 0 && t->engine_gbps < bw ? t->engine_gbps : bw;
}

/*
 * A step where each device has @f transfers of @bytes going @route inside
 * the node (none if @route is NULL) or, @crosses_nodes, through its NIC
 * (one network hop); @msgs messages per rank.
 */
static struct tune_cost step(const struct tune_topo *t, const struct route *route,
			     bool crosses_nodes, double f, double bytes, uint32_t msgs)
{
	enum tune_tier tier = crosses_nodes ? TUNE_NET : route && route->hops ? TUNE_NODE :
			      TUNE_DEV;
	double x = us(bytes, xfer_gbps(t, tier)), lat;

	if (route && route->hops && !crosses_nodes)
		x = max2(x, us(f * bytes * route->load, t->bw_gbps[TUNE_NODE]));
	if (crosses_nodes)
		x = max2(x, us(f * bytes, t->bw_gbps[TUNE_NET]));
	lat = tier == TUNE_NODE ? tune_hop_alpha(t, route->hops) : t->alpha_us[tier];
	return (struct tune_cost){ lat + t->step_us + msg_cost(t, msgs),
				   x * (t->streams ? t->streams : 1) };
}

/*
 * Every rank sends to the next one (ring, chain, flat ring channels): of a
 * device's R ranks, R - 1 send within it and one to the next device.  A
 * ring is a pipeline, each rank waiting only for its own incoming link,
 * so a step costs the α averaged over the ring's links (a block meets
 * every link's α once on its way round), at the bandwidth of the
 * slowest link.
 */
struct tune_cost tune_step_ring(const struct tune_topo *t, double bytes, uint32_t msgs,
				uint32_t dirs)
{
	return tune_step_ring_avg(t, bytes, msgs, dirs, NULL);
}

struct tune_cost tune_step_ring_avg(const struct tune_topo *t, double bytes, uint32_t msgs,
				    uint32_t dirs, double *xfer_avg)
{
	uint32_t R = t->ranks_per_device, D = devices(t), X = t->nodes, n = R * D * X;
	struct tune_cost in = { 0, 0 }, far, c, net = { 0, 0 };
	double a_sum = 0, x_sum = 0, a_min = -1, x_min = 0, nic_share;
	struct route r;

	if (t->ideal || D * X == 1) {
		c = t->ideal ? ideal(t, bytes) : tune_step_local(t, bytes, msgs);
		if (xfer_avg)
			*xfer_avg = c.xfer_us;
		return c;
	}
	if (dirs > 1)
		bytes /= 2;	/* half the bytes each way round */
	/*
	 * A node of one device has one NIC: both ways round leave through it
	 * (to the next node and to the previous one), so it carries all the
	 * bytes.  With more devices each way crosses at a device of its own.
	 */
	nic_share = D == 1 ? dirs : 1;
	r = node_route(t, dirs > 1 ? ROUTE_BOTH_WAYS : ROUTE_SHIFT, 1);
	far = D > 1 ? step(t, &r, false, 1, bytes, msgs) :
		      step(t, NULL, true, nic_share, bytes, msgs);
	if (X > 1)
		net = step(t, NULL, true, nic_share, bytes, msgs);
	if (R > 1)
		in = tune_step_local(t, bytes, msgs);
	/*
	 * A node's links: R - 1 inside each device, then one to the next
	 * device (its ring or torus hops; the last one a NIC across nodes).
	 * A block goes round all of them but one: a ring pass costs the sum
	 * of its links' α and transfers but the cheapest, spread over its
	 * n - 1 steps; the slowest link's transfer still bounds a step.
	 */
	for (uint32_t i = 0; i < D; i++) {
		uint32_t j = (i + 1) % D, hx, hy;
		int dir;
		double a, x;

		hx = ring_walk(i % t->torus_x, j % t->torus_x, t->torus_x, &dir);
		hy = ring_walk(i / t->torus_x, j / t->torus_x, t->torus_y, &dir);
		if (X > 1 && i == D - 1) {
			a = t->alpha_us[TUNE_NET];
			x = net.xfer_us;
		} else {
			a = tune_hop_alpha(t, hx + hy);
			x = far.xfer_us;
		}
		a_sum += a + (R - 1) * t->alpha_us[TUNE_DEV];
		x_sum += x + (R - 1) * in.xfer_us;
		if (a_min < 0 || a < a_min || (a == a_min && x < x_min)) {
			a_min = a;
			x_min = x;
		}
	}
	if (R > 1) {
		a_min = t->alpha_us[TUNE_DEV];
		x_min = in.xfer_us;
	}
	a_sum *= X;
	x_sum *= X;
	if (xfer_avg)
		*xfer_avg = dirs > 1 ? max2(max2(far.xfer_us, net.xfer_us), in.xfer_us) :
			    (x_sum - x_min) / (n - 1);
	c.xfer_us = max2(max2(far.xfer_us, net.xfer_us), in.xfer_us);
	c.lat_us = (a_sum - a_min) / (n - 1);
	/*
	 * Both ways round (flat ring channels), a rank waits each hop for
	 * both neighbours: the ranks go in lockstep, at the slowest link's α
	 * (a NIC's, across nodes).
	 */
	if (dirs > 1)
		c.lat_us = max2(max2(far.lat_us, net.lat_us) - t->step_us - msg_cost(t, msgs),
				R > 1 ? t->alpha_us[TUNE_DEV] : 0);
	c.lat_us += t->step_us + msg_cost(t, msgs);
	return c;
}

/*
 * A step where every rank sends to a partner @d ranks away (@xor: rank ^ d
 * instead of rank + d): @f transfers of each device go to one other device.
 */
static struct tune_cost far_step(const struct tune_topo *t, uint32_t d, bool xor, double bytes,
				 uint32_t msgs)
{
	uint32_t R = t->ranks_per_device, D = devices(t), dd = d < R ? (xor ? 0 : 1) : d / R;
	double f = d < R ? d : R;
	bool crosses;
	struct route r;

	if (xor && d < R && R % (2 * d) == 0)
		return tune_step_local(t, bytes, msgs);
	if (xor)
		crosses = t->nodes > 1 && dd >= D;
	else
		crosses = t->nodes > 1;
	if (crosses && dd % D == 0)
		return step(t, NULL, true, f, bytes, msgs);
	r = node_route(t, xor ? ROUTE_XOR : ROUTE_SHIFT, dd % D);
	if (crosses) {
		struct tune_cost net = step(t, NULL, true, f, bytes, msgs),
				 in = step(t, &r, false, f, bytes, msgs);

		net.xfer_us = max2(net.xfer_us, in.xfer_us);
		return net;
	}
	return step(t, &r, false, f, bytes, msgs);
}

struct tune_cost tune_step_xor(const struct tune_topo *t, uint32_t d, double bytes, uint32_t msgs)
{
	if (t->ideal)
		return ideal(t, bytes);
	return far_step(t, d, true, bytes, msgs);
}

struct tune_cost tune_step_shift(const struct tune_topo *t, uint32_t d, double bytes,
				 uint32_t msgs)
{
	if (t->ideal)
		return ideal(t, bytes);
	if (devices(t) * t->nodes == 1)
		return tune_step_local(t, bytes, msgs);
	return far_step(t, d, false, bytes, msgs);
}

struct tune_cost tune_step_all(const struct tune_topo *t, double bytes, uint32_t msgs)
{
	uint32_t n = tune_topo_ranks(t), R = t->ranks_per_device, D = devices(t);
	uint32_t E = t->engines ? t->engines : 1;
	double x, pair = (double)R * R * bytes;	/* between two devices */
	struct tune_cost c;
	struct route r = { 0, 0 };

	if (t->ideal)
		return ideal(t, (n - 1) * bytes);
	/* a rank's n - 1 transfers spread over its engines */
	x = us(((n - 2) / E + 1) * bytes, t->engine_gbps > 0 ? t->engine_gbps : t->bw_gbps[0]);
	if (D > 1) {
		r = node_route(t, ROUTE_ALL, 0);
		x = max2(x, us(pair * r.load, t->bw_gbps[TUNE_NODE]));
	}
	if (t->nodes > 1)
		x = max2(x, us(pair * D * (t->nodes - 1), t->bw_gbps[TUNE_NET]));
	c.lat_us = (t->nodes > 1 ? t->alpha_us[TUNE_NET] : D > 1 ? tune_hop_alpha(t, r.hops) :
		    t->alpha_us[TUNE_DEV]) + t->step_us + msg_cost(t, (double)msgs * (n - 1));
	c.xfer_us = x * (t->streams ? t->streams : 1);
	return c;
}

uint32_t tune_fanout_load(const struct tune_topo *t, uint32_t from, const uint32_t *to, uint32_t k)
{
	uint32_t R = t->ranks_per_device, D = devices(t), a = from / R, nic = 0;
	double *load = calloc((size_t)D * 4, sizeof(*load)), most = 0;

	if (!load)
		return k;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t b = to[i] / R;

		if (a == b)
			continue;
		if (a / D != b / D)
			nic++;
		else
			walk(t, a % D, b % D, 1, load);
	}
	for (uint32_t i = 0; i < D * 4; i++)
		most = max2(most, load[i]);
	free(load);
	return nic > most ? nic : (uint32_t)most;
}

/* The largest load on the link directions of the route @from -> @to. */
static double path_load(const struct tune_topo *t, uint32_t from, uint32_t to, const double *load)
{
	uint32_t X = t->torus_x, Y = t->torus_y, x = from % X, y = from / X;
	uint32_t hx, hy, i;
	double m = 0;
	int dx, dy;

	hx = ring_walk(x, to % X, X, &dx);
	hy = ring_walk(y, to / X, Y, &dy);
	for (i = 0; i < hx; i++) {
		m = max2(m, load[(y * X + x) * 4 + (dx > 0 ? 0 : 1)]);
		x = (x + X + (uint32_t)dx) % X;
	}
	for (i = 0; i < hy; i++) {
		m = max2(m, load[(y * X + x) * 4 + (dy > 0 ? 2 : 3)]);
		y = (y + Y + (uint32_t)dy) % Y;
	}
	return m;
}

/*
 * x / d and x % d, by a shift and a mask where d is a power of two (as
 * ranks per device and devices per node mostly are): pricing a DBT divides
 * every transfer's ranks by them, step after step.
 */
struct divider {
	uint32_t d, shift;
	bool pow2;
};

static struct divider divider(uint32_t d)
{
	return (struct divider){ d, (uint32_t)__builtin_ctz(d), !(d & (d - 1)) };
}

static inline uint32_t quot(const struct divider *v, uint32_t x)
{
	return v->pow2 ? x >> v->shift : x / v->d;
}

static inline uint32_t rem(const struct divider *v, uint32_t x)
{
	return v->pow2 ? x & (v->d - 1) : x % v->d;
}

struct shift_loads {
	double *link;		/* per device of the fabric, 4 directions */
	double *nic_out, *nic_in;	/* per device */
	struct divider node;	/* devices per node */
};

/* Account a transfer from device @a to device @b (fabric-wide indices, apart) in @l. */
static void flow_account(const struct tune_topo *t, uint32_t a, uint32_t b, struct shift_loads *l)
{
	uint32_t na = quot(&l->node, a);

	if (na != quot(&l->node, b)) {
		l->nic_out[a] += 1;
		l->nic_in[b] += 1;
		return;
	}
	walk(t, rem(&l->node, a), rem(&l->node, b), 1, l->link + na * l->node.d * 4);
}

/* The time of @bytes from device @a to device @b (apart) at its share of @l. */
static double flow_price(const struct tune_topo *t, uint32_t a, uint32_t b, double bytes,
			 const struct shift_loads *l)
{
	uint32_t na = quot(&l->node, a);
	double gbps, load;

	if (na != quot(&l->node, b)) {
		gbps = t->bw_gbps[TUNE_NET] / max2(1, max2(l->nic_out[a], l->nic_in[b]));
		return us(bytes, fmin(gbps, xfer_gbps(t, TUNE_NET)));
	}
	load = path_load(t, rem(&l->node, a), rem(&l->node, b), l->link + na * l->node.d * 4);
	gbps = t->bw_gbps[TUNE_NODE] / max2(1, load);
	return us(bytes, fmin(gbps, xfer_gbps(t, TUNE_NODE)));
}

/* Account (@w 1) or price (@w 0: its time) rank @r's transfer to @p. */
static double shift_flow(const struct tune_topo *t, uint32_t r, uint32_t p, double bytes,
			 struct shift_loads *l, double w)
{
	uint32_t a = r / t->ranks_per_device, b = p / t->ranks_per_device;

	if (a == b)
		return w ? 0 : us(bytes, xfer_gbps(t, TUNE_DEV));
	if (w) {
		flow_account(t, a, b, l);
		return 0;
	}
	return flow_price(t, a, b, bytes, l);
}

/*
 * Mesh's i-th peer of rank @r (mesh.c's peer_at()): node x + i mod X, rank
 * g + i / X of it, X nodes of G ranks; on one node r + i.
 */
static uint32_t mesh_peer(const struct tune_topo *t, uint32_t r, uint32_t i)
{
	uint32_t X = t->nodes, G = tune_topo_ranks(t) / X;

	return (r / G + i % X) % X * G + (r % G + i / X) % G;
}

/* α of one transfer from rank @r to rank @p: its tier's, per hop inside a node. */
static double flow_alpha(const struct tune_topo *t, uint32_t r, uint32_t p)
{
	uint32_t D = devices(t), a = r / t->ranks_per_device, b = p / t->ranks_per_device;
	int dir;

	if (a == b)
		return t->alpha_us[TUNE_DEV];
	if (a / D != b / D)
		return t->alpha_us[TUNE_NET];
	a %= D;
	b %= D;
	return tune_hop_alpha(t, ring_walk(a % t->torus_x, b % t->torus_x, t->torus_x, &dir) +
				     ring_walk(a / t->torus_x, b / t->torus_x, t->torus_y, &dir));
}

/*
 * Every rank sends @bytes to its Mesh peers i in [@lo, @hi] at once: when the
 * slowest is through (and in *@alpha the longest α among them).  As the timed model shares, each transfer runs at the
 * smallest share along its route (a link direction or NIC split evenly
 * among the transfers on it; a share left unused is not passed on).
 */
static double shift_phase(const struct tune_topo *t, uint32_t lo, uint32_t hi, double bytes,
			  struct shift_loads *l, double *alpha)
{
	uint32_t n = tune_topo_ranks(t), nd = devices(t) * t->nodes;
	double worst = 0;

	memset(l->link, 0, (size_t)nd * 4 * sizeof(*l->link));
	memset(l->nic_out, 0, (size_t)nd * sizeof(*l->nic_out));
	memset(l->nic_in, 0, (size_t)nd * sizeof(*l->nic_in));
	for (uint32_t r = 0; r < n; r++)
		for (uint32_t i = lo; i <= hi; i++)
			shift_flow(t, r, mesh_peer(t, r, i), bytes, l, 1);
	/*
	 * Every node sends the same pattern (its peers are node offsets and
	 * local ranks, mesh_peer()) over the same routes, so its loads are
	 * every node's: node 0's transfers price them all.
	 */
	for (uint32_t r = 0; r < n / t->nodes; r++)
		for (uint32_t i = lo; i <= hi; i++)
			worst = max2(worst, shift_flow(t, r, mesh_peer(t, r, i), bytes, l, 0));
	/*
	 * α depends on the route's device offset only (a torus looks the same
	 * from every device), and the ranks of one device cover every offset
	 * a peer i can be at
	 */
	*alpha = 0;
	for (uint32_t r = 0; r < t->ranks_per_device && r < n; r++)
		for (uint32_t i = lo; i <= hi; i++)
			*alpha = max2(*alpha, flow_alpha(t, r, mesh_peer(t, r, i)));
	return worst;
}

int tune_flows_us(const struct tune_topo *t, uint32_t k, const uint32_t *from, const uint32_t *to,
		  double bytes, double *us_out)
{
	uint32_t nd = devices(t) * t->nodes, *dev;
	struct divider device = divider(t->ranks_per_device);
	double streams = t->streams ? t->streams : 1, same;
	struct shift_loads l;

	if (t->ideal) {
		/* nothing shared but a rank's one port, which the callers keep */
		for (uint32_t i = 0; i < k; i++)
			us_out[i] = from[i] == to[i] ? 0 : us(bytes, t->bw_gbps[0]);
		return 0;
	}
	l.link = calloc((size_t)nd * 6, sizeof(double));
	dev = malloc((2 * (size_t)k + 1) * sizeof(*dev));
	if (!l.link || !dev) {
		free(l.link);
		free(dev);
		return -1;
	}
	l.nic_out = l.link + (size_t)nd * 4;
	l.nic_in = l.nic_out + nd;
	l.node = divider(devices(t));
	/* each transfer's devices once; within one device nothing is shared */
	for (uint32_t i = 0; i < k; i++) {
		dev[2 * i] = quot(&device, from[i]);
		dev[2 * i + 1] = quot(&device, to[i]);
		if (dev[2 * i] != dev[2 * i + 1])
			flow_account(t, dev[2 * i], dev[2 * i + 1], &l);
	}
	same = us(bytes, xfer_gbps(t, TUNE_DEV)) * streams;
	for (uint32_t i = 0; i < k; i++)
		us_out[i] = dev[2 * i] == dev[2 * i + 1] ? same :
			    flow_price(t, dev[2 * i], dev[2 * i + 1], bytes, &l) * streams;
	free(l.link);
	free(dev);
	return 0;
}

struct tune_cost tune_step_mesh(const struct tune_topo *t, double bytes)
{
	uint32_t n = tune_topo_ranks(t), E = t->engines ? t->engines : 1, D = devices(t);
	uint32_t nd = D * t->nodes, phases = (n - 2) / E + 1, stride;
	struct shift_loads l;
	struct tune_cost c = tune_step_all(t, bytes, 1);
	double x = 0, last = 0, streams = t->streams ? t->streams : 1;

	if (t->ideal || n < 2)
		return c;
	l.link = calloc((size_t)nd * 6, sizeof(double));
	if (!l.link)
		return c;
	l.nic_out = l.link + (size_t)nd * 4;
	l.nic_in = l.nic_out + nd;
	l.node = divider(devices(t));
	/*
	 * A rank's sends to r + i go on engine (r + i) mod E, one after the
	 * other on each, so they run in phases of E peers; at thousands of
	 * ranks every stride-th phase stands for its neighbours.  A phase's
	 * data lands its own α after its bytes are through: the step ends
	 * with the latest landing, not the sum of the phases plus the
	 * longest α (the farthest peers are not always the last).
	 */
	stride = phases > 32 ? phases / 32 : 1;
	for (uint32_t k = 0; k < phases; k += stride) {
		uint32_t hi = (k + 1) * E < n - 1 ? (k + 1) * E : n - 1;
		double a;

		x += stride * shift_phase(t, k * E + 1, hi, bytes, &l, &a) * streams;
		last = max2(last, x + a);
	}
	free(l.link);
	/* the CC core issues every send (ACQUIRE, START); their α overlap */
	c.lat_us = last - x + t->step_us + (n - 1) * 2 * t->insn_us;
	c.xfer_us = x;
	return c;
}

struct tune_cost tune_step_local(const struct tune_topo *t, double bytes, uint32_t msgs)
{
	if (t->ideal)
		return ideal(t, bytes);
	return step(t, NULL, false, 1, bytes, msgs);
}

double tune_reduce_us(const struct tune_topo *t, double bytes)
{
	return t->ideal || t->reduce_gbps <= 0 ? 0 : us(bytes, t->reduce_gbps);
}
