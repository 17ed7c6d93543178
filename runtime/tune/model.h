/* SPDX-License-Identifier: MIT */
/*
 * The cost model's topology and its per-step costs (runtime/tune/).
 *
 * Time is in µs, bandwidth in GB/s (10^3 bytes per µs), sizes in bytes.
 *
 * A group of n ranks is laid out as the runtime lays ranks out:
 * ranks_per_device (R) consecutive ranks per device, devices_per_node
 * (D = torus_x * torus_y; a ring of D devices is torus_x = D, torus_y = 1)
 * consecutive devices per node, nodes (X); n = R * D * X.
 *
 * Three link tiers, each with its own α (latency of one algorithm step
 * whose transfers cross that tier) and bandwidth:
 *   TUNE_DEV   between ranks of one device (a rank's DMA engines: every
 *              transfer also runs at most this fast);
 *   TUNE_NODE  one direction of one device-to-device link of the ring or
 *              torus inside a node;
 *   TUNE_NET   one direction of a device's NIC (one NIC per device; the
 *              network between nodes is taken as non-blocking).
 *
 * The parameters come from the device (tune_hw, runtime/tune/hw.c: the
 * sim fabric's configuration; a kernel device would need uAPI params for
 * them); without one, tune_hw_default() holds the sim's defaults, which
 * resemble a Trainium2 node:
 *   dev   α 0.5 µs   400 GB/s   (DMA between cores of one chip)
 *   node  α 1.5 µs   160 GB/s   (NeuronLink: ~1.28 TB/s per chip over four
 *                                torus links, per link and direction)
 *   net   α 15 µs     25 GB/s   (EFA: 3.2 Tb/s per 16-device node, one NIC
 *                                per device; internode-collectives.txt: ~15 µs
 *                                per hop)
 *   engine 250 GB/s per DMA engine (a rank has 4; a rank's transfers to
 *                 different peers go on different engines, so one transfer
 *                 runs at most this fast: the dev tier's 400 GB/s is never
 *                 reached by one transfer)
 *   sem_us 0.05, insn_us 0.005: a semaphore change reaching its waiter and
 *                 one CC-core instruction
 *   msg_us = sem_us + 2 insn_us per extra message a rank issues in one step
 *                 (a slice, a channel, a peer of Mesh, a local reduction:
 *                 the ACQUIRE and START of a send, the hand-off to its
 *                 receiver; back-to-back descriptors on a ring overlap
 *                 their α, so an extra message costs no α)
 *   reduce_gbps 0: reductions on arrival are free (the reference's
 *                 assumption, collective-algorithms.txt §4.1)
 *
 * The ideal setting (tune_topo_ideal()) is the reference's model
 * (collective-algorithms.txt §1): one tier, every step costs
 * α + (bytes a rank sends in it) / BW, no contention and no per-message
 * overheads; every formula then reduces to the reference's closed form.
 *
 * With tiers (not ideal) a step costs, as the timed device model charges
 * it (Documentation/device-model.rst, "Timed mode"), α per hop of the
 * longest route any of its transfers takes (inside a node: ring or torus
 * distance, x then y, the shorter way round, ties the positive way; across
 * nodes one network hop; within a device α_dev), the semaphore hand-off,
 * plus the transfer time of its most loaded resource (a DMA engine, a
 * ring or torus link direction, a NIC): the bandwidth dilation the
 * reference leaves to contention (its η_β), computed by routing every
 * transfer of the step as the device model does.
 */
#ifndef CCORE_TUNE_MODEL_H
#define CCORE_TUNE_MODEL_H

#include <stdbool.h>
#include <stdint.h>

enum tune_tier { TUNE_DEV, TUNE_NODE, TUNE_NET, TUNE_NTIERS };

/* What the device says about its fabric (the timed model's parameters). */
struct tune_hw {
	double alpha_us[TUNE_NTIERS];	/* per hop */
	double bw_gbps[TUNE_NTIERS];	/* per link direction (dev: on chip) */
	double engine_gbps;		/* one DMA engine */
	uint32_t engines;		/* DMA engines per rank */
	double sem_us, insn_us;		/* semaphore hand-off, CC instruction */
	bool ideal;			/* the device is the ideal single tier */
	bool host;			/* the functional model: its time is the host's */
	bool across_hosts;		/* nodes are hosts: TUNE_NET is a real network */
};

struct tune_topo {
	uint32_t ranks_per_device;	/* R >= 1 */
	uint32_t torus_x, torus_y;	/* devices per node = x * y */
	uint32_t nodes;			/* X >= 1 */
	double alpha_us[TUNE_NTIERS];
	double bw_gbps[TUNE_NTIERS];
	double engine_gbps;		/* one DMA engine; 0: no limit */
	uint32_t engines;		/* DMA engines per rank, >= 1 */
	double step_us;			/* per step: semaphore hand-off */
	double msg_us;			/* per extra message in a step */
	double insn_us;			/* one CC-core instruction */
	double sem_us;			/* a semaphore change reaching its waiter */
	double reduce_gbps;		/* reduction on arrival; 0: free */
	uint32_t streams;		/* concurrent streams sharing links, >= 1 */
	bool ideal;			/* one tier: alpha_us[0], bw_gbps[0] */
	bool host;			/* the functional model (select.c prices host work) */
	bool across_hosts;		/* nodes are hosts joined by a network (tune_hw's) */
};

/* The sim's default fabric (ccm_config_default()'s timed parameters). */
void tune_hw_default(struct tune_hw *hw);
/* The model for a nodes x (x * y) x R layout on @hw (NULL: the defaults). */
void tune_topo_from_hw(struct tune_topo *t, uint32_t nodes, uint32_t torus_x, uint32_t torus_y,
		       uint32_t ranks_per_device, const struct tune_hw *hw);
/* The Trainium2-like defaults above for a nodes x (x * y) x R layout. */
void tune_topo_default(struct tune_topo *t, uint32_t nodes, uint32_t torus_x, uint32_t torus_y,
		       uint32_t ranks_per_device);
/* The reference's idealised single-tier setting for @n ranks. */
void tune_topo_ideal(struct tune_topo *t, uint32_t n, double alpha_us, double bw_gbps);
/* Ranks of the group: R * x * y * X. */
uint32_t tune_topo_ranks(const struct tune_topo *t);
/* "2 nodes x 4x4 torus x 4 ranks per device" (for logs and tools). */
void tune_topo_describe(const struct tune_topo *t, char *buf, unsigned long len);

/* A step's cost: latency part (α and message overheads) and transfer part. */
struct tune_cost {
	double lat_us, xfer_us;
};

static inline double tune_total(struct tune_cost c)
{
	return c.lat_us + c.xfer_us;
}

static inline void tune_add(struct tune_cost *acc, struct tune_cost c, double times)
{
	acc->lat_us += c.lat_us * times;
	acc->xfer_us += c.xfer_us * times;
}

/*
 * Step kinds: every rank sends @bytes to one partner; @msgs messages per
 * rank (slices or channels: each extra one costs msg_us).
 *   ring   the next rank on a ring laid along the devices (each link
 *          carries one transfer: ring, chain, flat ring channels);
 *   xor    partner rank ^ d (recursive doubling/halving, trees; d a power
 *          of two);
 *   shift  partner rank + d (Bruck, PAT, pairwise rounds, peer to peer);
 *   all    every rank sends @bytes to each of the other n - 1 (Mesh).
 * @dirs: ring directions in use (flat ring channels use both), 1 or 2.
 */
struct tune_cost tune_step_ring(const struct tune_topo *t, double bytes, uint32_t msgs,
				uint32_t dirs);
/*
 * The ring step and, in *@xfer_avg, its links' transfer time averaged
 * along the ring (the xfer part is the slowest link's): a slice meets
 * each link once, so unless the slowest link is what holds the ring up,
 * a step costs its average.
 */
struct tune_cost tune_step_ring_avg(const struct tune_topo *t, double bytes, uint32_t msgs,
				    uint32_t dirs, double *xfer_avg);
struct tune_cost tune_step_xor(const struct tune_topo *t, uint32_t d, double bytes, uint32_t msgs);
struct tune_cost tune_step_shift(const struct tune_topo *t, uint32_t d, double bytes,
				 uint32_t msgs);
struct tune_cost tune_step_all(const struct tune_topo *t, double bytes, uint32_t msgs);
/*
 * Mesh's exchange: every rank sends @bytes to each of the other n - 1 in
 * peer order r + 1, r + 2, ... (the ideal setting: tune_step_all()).
 */
struct tune_cost tune_step_mesh(const struct tune_topo *t, double bytes);
/* Transfers from rank @from to each of @to[0..k) at once: the most on one link or NIC. */
uint32_t tune_fanout_load(const struct tune_topo *t, uint32_t from, const uint32_t *to, uint32_t k);
/*
 * Transfers @from[i] -> @to[i] (ranks) of @bytes each, all at once: each
 * one's time at its share of its busiest link direction or NIC, as the
 * timed model shares them.  0, or -1 out of memory.
 */
int tune_flows_us(const struct tune_topo *t, uint32_t k, const uint32_t *from, const uint32_t *to,
		  double bytes, double *us);
/* A transfer inside one device only (KangaRing's folds). */
struct tune_cost tune_step_local(const struct tune_topo *t, double bytes, uint32_t msgs);
/* α of one transfer @hops hops inside a node (ring/torus distance). */
double tune_hop_alpha(const struct tune_topo *t, uint32_t hops);
/* Exposed reduction of @bytes on arrival (0 when reductions are free). */
double tune_reduce_us(const struct tune_topo *t, double bytes);

#endif
