// SPDX-License-Identifier: GPL-2.0
/*
 * Fabric configuration: Trainium2-like defaults, a "key=value,..." parser
 * shared by the embedded backend (CCORE_SIM) and the kernel's new_device,
 * and the checks that keep every shape within what the model supports.
 */
#include "ccm.h"

#ifndef __KERNEL__
#endif

void ccm_config_default(struct ccm_config *c)
{
	memset(c, 0, sizeof(*c));
	c->nodes = 1;
	c->devices_per_node = 2;
	c->topology = DRM_CCORE_TOPO_RING;
	c->torus_x = 2;
	c->torus_y = 1;
	c->cores = 4;
	c->cc_cores = 2;
	c->engines = 4;
	c->rings = 16;
	c->sems = 8192;
	c->hbm_size = 16ull << 30;
	c->min_packet_size = 512;
	c->max_packet_size = 65536;
	c->cc_dma_packet_size = 65536;
	c->dma_packetization_size = 4096;
	c->max_ring_size = 4096;
	c->max_program_size = 4096;
	c->job_timeout_ms = 10000;
	c->workers = 2;
	c->here = CCM_ALL_NODES;
	c->seed = 1;
	/* timed mode: Trainium2-like (see Documentation/device-model.rst) */
	c->alpha_dev_ns = 500;
	c->alpha_node_ns = 1500;
	c->alpha_net_ns = 15000;
	c->bw_dev_gbps = 3200;
	c->bw_node_gbps = 1280;
	c->bw_net_gbps = 200;
	c->bw_engine_gbps = 2000;
	c->cc_insn_ns = 5;
	c->sem_ns = 50;
}

enum key_kind { KEY_U32, KEY_U64, KEY_SIZE, KEY_TOPO, KEY_TORUS };

struct config_key {
	const char *name;
	enum key_kind kind;
	size_t offset;
	u64 min, max;
	const char *help;
};

#define KEY(n, k, field, lo, hi, h) { n, k, offsetof(struct ccm_config, field), lo, hi, h }

static const struct config_key keys[] = {
	KEY("nodes", KEY_U32, nodes, 1, 64, "nodes in the fabric"),
	KEY("devices", KEY_U32, devices_per_node, 1, CCM_MAX_DEVICES,
	    "devices per node; more than 64 needs ideal=1"),
	KEY("topology", KEY_TOPO, topology, 0, 1, "ring or torus (links inside a node)"),
	KEY("torus", KEY_TORUS, torus_x, 1, 64, "torus shape XxY, X*Y = devices"),
	KEY("cores", KEY_U32, cores, 1, CCM_MAX_CORES, "logical cores (ranks) per device"),
	KEY("cc_cores", KEY_U32, cc_cores, 2, CCM_MAX_CC_CORES, "CC cores per logical core"),
	KEY("engines", KEY_U32, engines, 1, CCM_MAX_ENGINES, "DMA engines per logical core"),
	KEY("rings", KEY_U32, rings, 1, CCM_MAX_RINGS, "rings per DMA engine"),
	KEY("sems", KEY_U32, sems, 8, CCM_MAX_SEMS, "semaphores per logical core"),
	KEY("hbm", KEY_SIZE, hbm_size, 1ull << 20, 1ull << 40, "device memory per device (K/M/G suffixes)"),
	KEY("cc_packet", KEY_SIZE, cc_dma_packet_size, 512, 65536, "default CC ring packet size"),
	KEY("dma_packet", KEY_SIZE, dma_packetization_size, 512, 65536, "default compute ring packet size"),
	KEY("ring_size", KEY_U32, max_ring_size, 16, 1u << 20, "descriptor slots per ring at most"),
	KEY("program_size", KEY_U32, max_program_size, 64, 1u << 20, "instructions per CC core"),
	KEY("job_timeout_ms", KEY_U32, job_timeout_ms, 1, 3600000, "default job timeout"),
	KEY("workers", KEY_U32, workers, 0, 64, "worker threads; 0 = inline, deterministic"),
	KEY("here", KEY_U32, here, 0, 63, "the node on this host (default: every node); others go through the NIC"),
	KEY("seed", KEY_U64, seed, 0, ~0ull, "inline mode: order of ready agents"),
	KEY("timed", KEY_U32, timed, 0, 1, "1: virtual clock (discrete events, inline, deterministic)"),
	KEY("virtual", KEY_U32, virt, 0, 1, "timed: buffers have no host memory; DMA moves no bytes"),
	KEY("ideal", KEY_U32, ideal, 0, 1, "timed: one tier (alpha_node, bw_node), no contention or overheads"),
	KEY("alpha_dev_ns", KEY_U32, alpha_dev_ns, 0, 10000000, "timed: latency between cores of a device (500)"),
	KEY("alpha_node_ns", KEY_U32, alpha_node_ns, 0, 10000000, "timed: latency per hop between devices of a node (1500)"),
	KEY("alpha_net_ns", KEY_U32, alpha_net_ns, 0, 10000000, "timed: latency between nodes (15000)"),
	KEY("bw_dev_gbps", KEY_U32, bw_dev_gbps, 1, 100000, "timed: Gbit/s between cores of a device (3200)"),
	KEY("bw_node_gbps", KEY_U32, bw_node_gbps, 1, 100000, "timed: Gbit/s per link direction inside a node (1280)"),
	KEY("bw_net_gbps", KEY_U32, bw_net_gbps, 1, 100000, "timed: Gbit/s per NIC direction between nodes (200)"),
	KEY("bw_engine_gbps", KEY_U32, bw_engine_gbps, 1, 100000, "timed: Gbit/s of a DMA engine (2000)"),
	KEY("cc_insn_ns", KEY_U32, cc_insn_ns, 0, 1000000, "timed: time of a CC-core instruction (5)"),
	KEY("sem_ns", KEY_U32, sem_ns, 0, 10000000, "timed: a semaphore change reaching its waiter (50)"),
};

/*
 * User text a message quotes: at most QUOTE_MAX characters, then "..."
 * (a message must fit struct ccm_err whole, its explanation included).
 */
#define QUOTE_MAX 48
#define QUOTE(s, len) (int)((len) > QUOTE_MAX ? QUOTE_MAX : (len)), (s), \
		      (len) > QUOTE_MAX ? "..." : ""

static bool parse_num(const char *s, size_t len, bool suffixes, u64 *out)
{
	u64 v = 0, mul = 1;
	size_t i = 0;

	if (len == 0)
		return false;
	if (suffixes) {
		switch (s[len - 1]) {
		case 'k': case 'K': mul = 1ull << 10; len--; break;
		case 'm': case 'M': mul = 1ull << 20; len--; break;
		case 'g': case 'G': mul = 1ull << 30; len--; break;
		default: break;
		}
		if (len == 0)
			return false;
	}
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (~0ull - 9) / 10)
			return false;
		v = v * 10 + (u64)(s[i] - '0');
	}
	if (v > ~0ull / mul)
		return false;
	*out = v * mul;
	return true;
}

static int set_key(struct ccm_config *c, const struct config_key *k, const char *v,
		   size_t vlen, struct ccm_err *err)
{
	u8 *field = (u8 *)c + k->offset;
	u64 num = 0;
	size_t x;

	switch (k->kind) {
	case KEY_TOPO:
		if (vlen == 4 && !memcmp(v, "ring", 4))
			c->topology = DRM_CCORE_TOPO_RING;
		else if (vlen == 5 && !memcmp(v, "torus", 5))
			c->topology = DRM_CCORE_TOPO_TORUS;
		else
			return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
					"topology=%.*s%s: expected ring or torus", QUOTE(v, vlen));
		return 0;
	case KEY_TORUS:
		for (x = 0; x < vlen && v[x] != 'x'; x++)
			;
		if (x == vlen || !parse_num(v, x, false, &num) || num < 1 || num > 64 ||
		    (c->torus_x = (u32)num, !parse_num(v + x + 1, vlen - x - 1, false, &num)) ||
		    num < 1 || num > 64)
			return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
					"torus=%.*s%s: expected XxY with X and Y from 1 to 64",
					QUOTE(v, vlen));
		c->torus_y = (u32)num;
		c->topology = DRM_CCORE_TOPO_TORUS;
		return 0;
	default:
		break;
	}
	if (!parse_num(v, vlen, k->kind == KEY_SIZE, &num) || num < k->min || num > k->max)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"%s=%.*s%s: expected a number from %llu to %llu (%s)", k->name,
				QUOTE(v, vlen), (unsigned long long)k->min,
				(unsigned long long)k->max, k->help);
	if (k->kind == KEY_U32 || (k->kind == KEY_SIZE && k->max <= 0xffffffffull))
		*(u32 *)field = (u32)num;
	else
		*(u64 *)field = num;
	return 0;
}

int ccm_config_parse(struct ccm_config *c, const char *spec, struct ccm_err *err)
{
	const char *p = spec, *end, *eq;
	size_t i, klen;
	int rc;

	while (p && *p) {
		for (end = p; *end && *end != ',' && *end != ' '; end++)
			;
		for (eq = p; eq < end && *eq != '='; eq++)
			;
		if (eq == end)
			return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
					"'%.*s%s': expected key=value", QUOTE(p, (size_t)(end - p)));
		klen = (size_t)(eq - p);
		for (i = 0; i < CCM_ARRAY_SIZE(keys); i++)
			if (strlen(keys[i].name) == klen && !memcmp(keys[i].name, p, klen))
				break;
		if (i == CCM_ARRAY_SIZE(keys))
			return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
					"unknown key '%.*s%s' (ccore-info --sim-help lists the keys and their ranges)",
					QUOTE(p, klen));
		rc = set_key(c, &keys[i], eq + 1, (size_t)(end - eq - 1), err);
		if (rc)
			return rc;
		p = *end ? end + 1 : end;
	}
	if (c->ideal)
		c->timed = 1;	/* the ideal setting is one of the timed model */
	return ccm_config_check(c, err);
}

int ccm_config_check(const struct ccm_config *c, struct ccm_err *err)
{
	u64 ndev = (u64)c->nodes * c->devices_per_node;

	if (ndev == 0 || ndev > CCM_MAX_DEVICES)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"nodes * devices = %llu; allowed 1..%u", (unsigned long long)ndev,
				CCM_MAX_DEVICES);
	/* the ideal setting has no links to route; a ring or torus is modelled up to 64 */
	if (!c->ideal && c->devices_per_node > CCM_MAX_NODE_DEVICES)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"devices=%u: at most %u per node (the ideal setting, ideal=1, takes up to %u)",
				c->devices_per_node, CCM_MAX_NODE_DEVICES, CCM_MAX_DEVICES);
	if (c->topology == DRM_CCORE_TOPO_TORUS && c->torus_x * c->torus_y != c->devices_per_node)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"torus %ux%u does not hold devices=%u", c->torus_x, c->torus_y,
				c->devices_per_node);
	if (c->cores == 0 || c->cores > CCM_MAX_CORES || c->cc_cores < 2 ||
	    c->cc_cores > CCM_MAX_CC_CORES || c->engines == 0 || c->engines > CCM_MAX_ENGINES ||
	    c->rings == 0 || c->rings > CCM_MAX_RINGS || c->sems == 0 || c->sems > CCM_MAX_SEMS)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"core shape out of range: cores 1..%u, cc_cores 2..%u, engines 1..%u, rings 1..%u, sems 1..%u",
				CCM_MAX_CORES, CCM_MAX_CC_CORES, CCM_MAX_ENGINES, CCM_MAX_RINGS,
				CCM_MAX_SEMS);
	if (c->min_packet_size == 0 || c->min_packet_size > c->max_packet_size ||
	    c->cc_dma_packet_size < c->min_packet_size ||
	    c->cc_dma_packet_size > c->max_packet_size ||
	    c->dma_packetization_size < c->min_packet_size ||
	    c->dma_packetization_size > c->max_packet_size ||
	    (c->cc_dma_packet_size & (c->cc_dma_packet_size - 1)) ||
	    (c->dma_packetization_size & (c->dma_packetization_size - 1)))
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"packet sizes must be powers of two from %u to %u bytes",
				c->min_packet_size, c->max_packet_size);
	if (c->max_ring_size == 0 || c->max_program_size < 64 || c->job_timeout_ms == 0)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"ring_size, program_size (>= 64) and job_timeout_ms must be set");
	if (c->here != CCM_ALL_NODES && c->here >= c->nodes)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX, "here=%u: the fabric has nodes 0..%u",
				c->here, c->nodes - 1);
	if (c->here != CCM_ALL_NODES && c->timed)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"here=%u with timed=1: the timed model runs every node in one process",
				c->here);
	if (c->virt && !c->timed)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"virtual=1 needs timed=1: the functional model moves real bytes");
#ifdef __KERNEL__
	if (c->timed)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX,
				"timed=1: the timed model runs in the embedded sim backend only");
#endif
	if (c->bw_dev_gbps == 0 || c->bw_node_gbps == 0 || c->bw_net_gbps == 0 ||
	    c->bw_engine_gbps == 0)
		return ccm_fail(err, -EINVAL, CCM_NO_INDEX, "timed bandwidths must be at least 1 Gbit/s");
	return 0;
}

int ccm_config_help(char *buf, size_t len)
{
	size_t i, n = 0;
	int w;

	for (i = 0; i < CCM_ARRAY_SIZE(keys); i++) {
		if (keys[i].kind == KEY_TOPO || keys[i].kind == KEY_TORUS)
			w = snprintf(buf + n, len > n ? len - n : 0, "  %-15s %s\n",
				     keys[i].name, keys[i].help);
		else
			w = snprintf(buf + n, len > n ? len - n : 0, "  %-15s %s (%llu..%llu)\n",
				     keys[i].name, keys[i].help,
				     (unsigned long long)keys[i].min,
				     (unsigned long long)keys[i].max);
		if (w < 0)
			return w;
		n += (size_t)w;
	}
	return (int)n;
}
