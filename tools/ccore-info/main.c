// SPDX-License-Identifier: MIT
/*
 * ccore-info: what the devices of a backend look like — devices, cores,
 * CC cores, DMA engines, rings, semaphores, links and limits — and which
 * CC core serves which stream with what DMA packet sizes, as a table or as
 * JSON.  With --netlink, the kernel driver's devices as its generic
 * netlink family reports them; with --watch, the driver's CC-core events
 * as they happen (netlink.c).
 */
#include "ccore_device.h"
#include "ccore_internal.h"
#include "ccm.h"
#include "info.h"
#include "../common/json.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dev_info {
	uint64_t p[DRM_CCORE_PARAM_SEM_NS + 1];
	uint32_t neigh[8];
	uint32_t nneigh;
};

static const char *const param_names[] = {
	[DRM_CCORE_PARAM_DEVICE_INDEX] = "device_index",
	[DRM_CCORE_PARAM_NUM_DEVICES] = "num_devices",
	[DRM_CCORE_PARAM_NODE_INDEX] = "node",
	[DRM_CCORE_PARAM_DEVICES_PER_NODE] = "devices_per_node",
	[DRM_CCORE_PARAM_TOPOLOGY] = "topology",
	[DRM_CCORE_PARAM_TORUS_X] = "torus_x",
	[DRM_CCORE_PARAM_TORUS_Y] = "torus_y",
	[DRM_CCORE_PARAM_NUM_CORES] = "cores",
	[DRM_CCORE_PARAM_CC_CORES_PER_CORE] = "cc_cores_per_core",
	[DRM_CCORE_PARAM_ENGINES_PER_CORE] = "engines_per_core",
	[DRM_CCORE_PARAM_RINGS_PER_ENGINE] = "rings_per_engine",
	[DRM_CCORE_PARAM_SEMS_PER_CORE] = "semaphores_per_core",
	[DRM_CCORE_PARAM_HBM_SIZE] = "hbm_bytes",
	[DRM_CCORE_PARAM_MIN_PACKET_SIZE] = "min_packet_bytes",
	[DRM_CCORE_PARAM_MAX_PACKET_SIZE] = "max_packet_bytes",
	[DRM_CCORE_PARAM_MAX_RING_SIZE] = "max_ring_descriptors",
	[DRM_CCORE_PARAM_MAX_PROGRAM_SIZE] = "max_program_instructions",
	[DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE] = "cc_dma_packet_bytes",
	[DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE] = "dma_packetization_bytes",
	[DRM_CCORE_PARAM_ISA_VERSION] = "isa_version",
	[DRM_CCORE_PARAM_FIRMWARE_SIZE] = "firmware_instructions",
	[DRM_CCORE_PARAM_TIMED] = "timed",
	[DRM_CCORE_PARAM_VIRTUAL_MEMORY] = "virtual_memory",
	[DRM_CCORE_PARAM_IDEAL] = "ideal",
	[DRM_CCORE_PARAM_ALPHA_DEV_NS] = "alpha_dev_ns",
	[DRM_CCORE_PARAM_ALPHA_NODE_NS] = "alpha_node_ns",
	[DRM_CCORE_PARAM_ALPHA_NET_NS] = "alpha_net_ns",
	[DRM_CCORE_PARAM_BW_DEV_GBPS] = "bw_dev_gbps",
	[DRM_CCORE_PARAM_BW_NODE_GBPS] = "bw_node_gbps",
	[DRM_CCORE_PARAM_BW_NET_GBPS] = "bw_net_gbps",
	[DRM_CCORE_PARAM_BW_ENGINE_GBPS] = "bw_engine_gbps",
	[DRM_CCORE_PARAM_CC_INSN_NS] = "cc_insn_ns",
	[DRM_CCORE_PARAM_SEM_NS] = "sem_ns",
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ccore-info [--json] [--device BACKEND] [--sim CONFIG] [--streams N]\n"
		"       ccore-info --sim-help\n"
		"       ccore-info --netlink [--json]\n"
		"       ccore-info --net [--json]\n"
		"       ccore-info --watch [--json] [--count N] [--timeout SECS]\n"
		"\n"
		"Shows the devices of a backend: cores, CC cores, DMA engines, rings,\n"
		"semaphores, links and limits; then the streams a communicator would use\n"
		"there: which CC core serves which stream (with S streams, stream s < S\n"
		"runs on CC core s and the CC cores from S on are stream 0's spares), each\n"
		"stream's CC DMA packet size and the compute DMA packetization size, and\n"
		"where each value came from.  The runtime's environment applies:\n"
		"  CCORE_STREAMS                 streams in use, 1..CC cores per core (1)\n"
		"  CCORE_CC_DMA_PACKET_SIZE      bytes, one value or one per stream, power of\n"
		"                                two, at most 65536: can only be lowered\n"
		"  CCORE_DMA_PACKETIZATION_SIZE  bytes, power of two from 4096 (can only be\n"
		"                                raised) to the device maximum\n"
		"A bad value is an error (exit status 1) naming it.\n"
		"\n"
		"  --json            print one JSON object instead of tables (with\n"
		"                    --watch: one JSON object per event and line)\n"
		"  --device BACKEND  sim (default) or accel; default $CCORE_DEVICE\n"
		"  --sim CONFIG      shape of the simulated fabric, key=value,...;\n"
		"                    default $CCORE_SIM (see --sim-help)\n"
		"  --sim-help        list the simulated fabric's keys and ranges\n"
		"  --streams N       report for N streams (1..CC cores per core), as a\n"
		"                    communicator's config would set; default $CCORE_STREAMS\n"
		"  --net             the network between hosts this host would open: the\n"
		"                    libfabric provider ($CCORE_NET_PROVIDER, else efa if\n"
		"                    present, else tcp;ofi_rxm; CCORE_NET=off: none) and\n"
		"                    its limits; peers are known only to a job\n"
		"  --netlink         list the kernel driver's devices on every fabric, with\n"
		"                    their fault counters (generic netlink family \"ccore\",\n"
		"                    dev-get; needs ccore.ko)\n"
		"  --watch           print the kernel driver's CC-core events as they come:\n"
		"                    job-timeout, dma-error, cc-recovered (multicast group\n"
		"                    \"events\"; needs ccore.ko), one line each:\n"
		"                    TIME EVENT fabric=F dev=D cc=C status=-ERRNO [job=J] [accel=N]\n"
		"  --count N         with --watch: exit after N events\n"
		"  --timeout SECS    with --watch: exit (status 0) after SECS seconds\n"
		"  -h, --help        this text\n"
		"  --version         print the version and exit\n");
}

static int query(struct ccore_dev *dev, struct dev_info *di)
{
	uint32_t i;
	int rc;

	for (i = 0; i <= DRM_CCORE_PARAM_FIRMWARE_SIZE; i++) {
		rc = ccore_dev_param(dev, i, &di->p[i]);
		if (rc)
			return rc;
	}
	/* the costs: 0 where a driver does not report them */
	for (; i <= DRM_CCORE_PARAM_SEM_NS; i++)
		if (ccore_dev_param(dev, i, &di->p[i]))
			di->p[i] = 0;
	return 0;
}

static const char *topo_name(uint64_t t)
{
	return t == DRM_CCORE_TOPO_TORUS ? "torus" : "ring";
}

static void links(struct ccore_system *sys, unsigned int d, struct dev_info *di)
{
	struct ccm_fabric *f = ccore_system_model(sys);

	di->nneigh = f ? ccm_link_neighbours(f, d, di->neigh, 8) : 0;
	if (di->nneigh > 8)
		di->nneigh = 8;
}

static void print_table(struct ccore_system *sys, struct dev_info *di, unsigned int n)
{
	const uint64_t *p = di[0].p;
	unsigned int d, k;

	printf("backend %s: %u device(s), %llu node(s) of %llu, intra-node %s %llux%llu\n\n",
	       ccore_system_backend(sys), n,
	       (unsigned long long)(n / p[DRM_CCORE_PARAM_DEVICES_PER_NODE]),
	       (unsigned long long)p[DRM_CCORE_PARAM_DEVICES_PER_NODE],
	       topo_name(p[DRM_CCORE_PARAM_TOPOLOGY]),
	       (unsigned long long)p[DRM_CCORE_PARAM_TORUS_X],
	       (unsigned long long)p[DRM_CCORE_PARAM_TORUS_Y]);
	printf("%-6s %-4s %-5s %-8s %-7s %-7s %-9s %-10s %-8s %s\n", "device", "node", "cores",
	       "cc/core", "engines", "rings", "sems", "hbm_MiB", "cc_pkt", "links");
	for (d = 0; d < n; d++) {
		p = di[d].p;
		printf("%-6u %-4llu %-5llu %-8llu %-7llu %-7llu %-9llu %-10llu %-8llu ", d,
		       (unsigned long long)p[DRM_CCORE_PARAM_NODE_INDEX],
		       (unsigned long long)p[DRM_CCORE_PARAM_NUM_CORES],
		       (unsigned long long)p[DRM_CCORE_PARAM_CC_CORES_PER_CORE],
		       (unsigned long long)p[DRM_CCORE_PARAM_ENGINES_PER_CORE],
		       (unsigned long long)p[DRM_CCORE_PARAM_RINGS_PER_ENGINE],
		       (unsigned long long)p[DRM_CCORE_PARAM_SEMS_PER_CORE],
		       (unsigned long long)(p[DRM_CCORE_PARAM_HBM_SIZE] >> 20),
		       (unsigned long long)p[DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE]);
		for (k = 0; k < di[d].nneigh; k++)
			printf("%s%u", k ? "," : "", di[d].neigh[k]);
		printf("%s\n", di[d].nneigh ? "" : "-");
	}
	p = di[0].p;
	printf("\nlimits: packet %llu..%llu B (CC default %llu, compute default %llu), ring %llu descriptors, program %llu instructions, ISA v%llu, firmware %llu instructions\n",
	       (unsigned long long)p[DRM_CCORE_PARAM_MIN_PACKET_SIZE],
	       (unsigned long long)p[DRM_CCORE_PARAM_MAX_PACKET_SIZE],
	       (unsigned long long)p[DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE],
	       (unsigned long long)p[DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE],
	       (unsigned long long)p[DRM_CCORE_PARAM_MAX_RING_SIZE],
	       (unsigned long long)p[DRM_CCORE_PARAM_MAX_PROGRAM_SIZE],
	       (unsigned long long)p[DRM_CCORE_PARAM_ISA_VERSION],
	       (unsigned long long)p[DRM_CCORE_PARAM_FIRMWARE_SIZE]);
	if (p[DRM_CCORE_PARAM_BW_NODE_GBPS])
		printf("costs: alpha %llu/%llu/%llu ns and bandwidth %llu/%llu/%llu Gbit/s (device/node/network), DMA engine %llu Gbit/s, CC instruction %llu ns, semaphore %llu ns; %s\n",
		       (unsigned long long)p[DRM_CCORE_PARAM_ALPHA_DEV_NS],
		       (unsigned long long)p[DRM_CCORE_PARAM_ALPHA_NODE_NS],
		       (unsigned long long)p[DRM_CCORE_PARAM_ALPHA_NET_NS],
		       (unsigned long long)p[DRM_CCORE_PARAM_BW_DEV_GBPS],
		       (unsigned long long)p[DRM_CCORE_PARAM_BW_NODE_GBPS],
		       (unsigned long long)p[DRM_CCORE_PARAM_BW_NET_GBPS],
		       (unsigned long long)p[DRM_CCORE_PARAM_BW_ENGINE_GBPS],
		       (unsigned long long)p[DRM_CCORE_PARAM_CC_INSN_NS],
		       (unsigned long long)p[DRM_CCORE_PARAM_SEM_NS],
		       !p[DRM_CCORE_PARAM_TIMED] ? "functional model: charged in host time" :
		       p[DRM_CCORE_PARAM_IDEAL] ? "timed model, ideal: one tier at the node's alpha and bandwidth" :
		       p[DRM_CCORE_PARAM_VIRTUAL_MEMORY] ? "timed model, virtual memory" : "timed model");
	else
		printf("costs: not reported by this driver\n");
	printf("ranks: %llu (one per logical core); CC cores: %llu\n",
	       (unsigned long long)(n * p[DRM_CCORE_PARAM_NUM_CORES]),
	       (unsigned long long)(n * p[DRM_CCORE_PARAM_NUM_CORES] *
				    p[DRM_CCORE_PARAM_CC_CORES_PER_CORE]));
}

static void print_streams_table(const struct ccore_stream_map *m)
{
	printf("\nstreams: %u (%s) on %u CC cores per core; packet sizes as device 0 has them\n",
	       m->streams, m->streams_source, m->cc_cores);
	printf("%-8s %-7s %-14s %s\n", "cc_core", "stream", "cc_dma_packet", "from");
	for (uint32_t c = 0; c < m->cc_cores; c++) {
		uint32_t s = m->cc_core_stream[c];

		printf("%-8u %-7u %-14u %s%s\n", c, s, m->cc_packet_size[s],
		       m->cc_packet_source[s], c >= m->streams ? " (spare CC core of stream 0)" : "");
	}
	printf("compute DMA packetization: %u B (%s)\n", m->dma_packetization_size,
	       m->dma_packetization_source);
}

static void print_streams_json(struct json *j, const struct ccore_stream_map *m)
{
	json_key(j, "streams");
	json_object_begin(j);
	json_kv_uint(j, "streams", m->streams);
	json_kv_string(j, "source", m->streams_source);
	json_key(j, "cc_cores");
	json_array_begin(j);
	for (uint32_t c = 0; c < m->cc_cores; c++) {
		json_object_begin(j);
		json_kv_uint(j, "cc_core", c);
		json_kv_uint(j, "stream", m->cc_core_stream[c]);
		json_kv_bool(j, "spare", c >= m->streams);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "cc_dma_packet_bytes");
	json_array_begin(j);
	for (uint32_t s = 0; s < m->streams; s++)
		json_uint(j, m->cc_packet_size[s]);
	json_array_end(j);
	json_kv_strings(j, "cc_dma_packet_sources", m->cc_packet_source, m->streams);
	json_kv_uint(j, "dma_packetization_bytes", m->dma_packetization_size);
	json_kv_string(j, "dma_packetization_source", m->dma_packetization_source);
	json_object_end(j);
}

static void print_json(struct ccore_system *sys, struct dev_info *di, unsigned int n,
		       const struct ccore_stream_map *m)
{
	unsigned int d, i, k;
	struct json j;

	json_init(&j, stdout, 0);
	json_object_begin(&j);
	json_kv_string(&j, "backend", ccore_system_backend(sys));
	json_key(&j, "devices");
	json_array_begin(&j);
	for (d = 0; d < n; d++) {
		json_object_begin(&j);
		for (i = 0; i <= DRM_CCORE_PARAM_SEM_NS; i++) {
			if (i == DRM_CCORE_PARAM_TOPOLOGY)
				json_kv_string(&j, param_names[i], topo_name(di[d].p[i]));
			else
				json_kv_uint(&j, param_names[i], (unsigned long long)di[d].p[i]);
		}
		json_key(&j, "links");
		json_array_begin(&j);
		for (k = 0; k < di[d].nneigh; k++)
			json_uint(&j, di[d].neigh[k]);
		json_array_end(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
	print_streams_json(&j, m);
	json_object_end(&j);
	json_finish(&j);
}

/*
 * --netlink and --watch talk to the kernel module, not to a backend; check
 * what goes with them.  Return: 0, or exit status 2 with a message.
 */
static int kernel_opts(bool netlink, bool watch, const char *count, const char *timeout,
		       bool backend, struct watch_opts *wo)
{
	char *end;

	if (netlink && watch) {
		fprintf(stderr, "ccore-info: --netlink and --watch go one at a time\n");
		return 2;
	}
	if (!watch && (count || timeout)) {
		fprintf(stderr, "ccore-info: %s goes with --watch\n", count ? "--count" : "--timeout");
		return 2;
	}
	if (backend) {
		fprintf(stderr, "ccore-info: --device and --sim choose a backend; %s reads the kernel module\n",
			watch ? "--watch" : "--netlink");
		return 2;
	}
	if (count) {
		errno = 0;
		wo->count = strtoul(count, &end, 10);
		if (errno || *end || end == count || *count == '-' || !wo->count) {
			fprintf(stderr, "ccore-info: --count '%s': expected a whole number from 1\n",
				count);
			return 2;
		}
	}
	if (timeout) {
		errno = 0;
		wo->timeout = strtod(timeout, &end);
		if (errno || *end || end == timeout || !isfinite(wo->timeout) ||
		    wo->timeout <= 0 || wo->timeout > 1e9) {
			fprintf(stderr, "ccore-info: --timeout '%s': expected seconds, a number greater than 0\n",
				timeout);
			return 2;
		}
	}
	return 0;
}

/* --streams N: a whole number from 1 (the device bounds it later). */
static int parse_streams(const char *arg, uint32_t *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || *end || end == arg || *arg == '-' || !v || v > CCORE_MAX_CC_CORES) {
		fprintf(stderr, "ccore-info: --streams '%s': expected a whole number from 1 to the CC cores per core\n",
			arg);
		return 2;
	}
	*out = (uint32_t)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "device", required_argument, NULL, 'D' },
		{ "sim", required_argument, NULL, 's' },
		{ "sim-help", no_argument, NULL, 'S' },
		{ "streams", required_argument, NULL, 'n' },
		{ "netlink", no_argument, NULL, 'N' },
		{ "net", no_argument, NULL, 'X' },
		{ "watch", no_argument, NULL, 'W' },
		{ "count", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *backend = NULL, *sim = NULL, *count = NULL, *timeout = NULL, *streams = NULL;
	struct ccore_comm_config cfg = CCORE_COMM_CONFIG_INIT;
	struct ccore_stream_map map;
	struct watch_opts wo = { 0 };
	bool netlink = false, watch = false, net = false;
	struct ccore_system *sys;
	struct dev_info *di;
	bool json = false;
	unsigned int n, d;
	char help[4096];
	int c, rc = 0;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'D': backend = optarg; break;
		case 's': sim = optarg; break;
		case 'n': streams = optarg; break;
		case 'N': netlink = true; break;
		case 'X': net = true; break;
		case 'W': watch = true; break;
		case 'c': count = optarg; break;
		case 't': timeout = optarg; break;
		case 'S':
			ccm_config_help(help, sizeof(help));
			printf("simulated fabric keys (--sim / $CCORE_SIM, key=value,...):\n%s", help);
			return 0;
		case 'h': usage(stdout); return 0;
		case 'V': printf("ccore-info (ccore) %s\n", CCORE_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ccore-info: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (net)
		return backend || sim || streams || netlink || watch ?
		       (fprintf(stderr, "ccore-info: --net goes alone (or with --json)\n"), 2) :
		       net_info(json);
	if (streams && (netlink || watch)) {
		fprintf(stderr, "ccore-info: --streams reports a backend's devices; %s reads the kernel module\n",
			watch ? "--watch" : "--netlink");
		return 2;
	}
	if (streams && parse_streams(streams, &cfg.streams))
		return 2;
	if (netlink || watch || count || timeout) {
		rc = kernel_opts(netlink, watch, count, timeout, backend || sim, &wo);
		if (rc)
			return rc;
		wo.json = json;
		return watch ? nl_watch(&wo) : nl_list_devices(json);
	}
	if (ccore_system_open(backend, sim, &sys)) {
		fprintf(stderr, "ccore-info: %s\n", ccore_last_error());
		return 1;
	}
	n = ccore_system_num_devices(sys);
	di = calloc(n, sizeof(*di));
	for (d = 0; di && d < n && !rc; d++) {
		rc = query(ccore_system_device(sys, d), &di[d]);
		links(sys, d, &di[d]);
	}
	if (!rc && di && cfg.streams > di[0].p[DRM_CCORE_PARAM_CC_CORES_PER_CORE]) {
		fprintf(stderr, "ccore-info: --streams %u: more streams than the %llu CC cores of a logical core; allowed: 1 to %llu\n",
			cfg.streams,
			(unsigned long long)di[0].p[DRM_CCORE_PARAM_CC_CORES_PER_CORE],
			(unsigned long long)di[0].p[DRM_CCORE_PARAM_CC_CORES_PER_CORE]);
		rc = 2;
	} else if (!di || rc || ccore_dev_stream_map(ccore_system_device(sys, 0), &cfg, &map)) {
		fprintf(stderr, "ccore-info: %s\n", di ? ccore_last_error() : "out of memory");
		rc = 1;
	} else if (json) {
		print_json(sys, di, n, &map);
	} else {
		print_table(sys, di, n);
		print_streams_table(&map);
	}
	free(di);
	ccore_system_close(sys);
	return rc;
}
