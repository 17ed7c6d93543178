// SPDX-License-Identifier: MIT
/* ccore-bench: nccl-tests-style benchmarks of ccore collectives. */
#include "bench.h"
#include "exec/exe.h"
#include "util/size.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

const char *const bench_op_names[OP_COUNT] = {
	"allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "sendrecv",
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ccore-bench [--op OP] [options]\n"
		"       ccore-bench --copy [-e SIZE]\n"
		"       ccore-bench --exec FILE [--timed] [--json OUT] [-n N] [-w N]\n"
		"\n"
		"Runs a collective over simulated (or kernel) devices like nccl-tests and prints\n"
		"the nccl-tests table: size, count, type, redop, root, then time, algbw, busbw\n"
		"and #wrong out of place and in place, plus the algorithm that ran.\n"
		"\n"
		"  --op OP              allreduce (default), allgather, reducescatter, alltoall,\n"
		"                       broadcast, reduce, sendrecv (a ring shift)\n"
		"  --ranks N            ranks (default 8)\n"
		"  --nodes N            nodes (default 1)\n"
		"  --ranks-per-device N ranks per device (default: up to 4, dividing the ranks)\n"
		"  -b, --minbytes S     smallest size (default 8; K/M/G suffixes)\n"
		"  -e, --maxbytes S     largest size (default 64M)\n"
		"  -f, --stepfactor F   multiply the size by F per step (default 2; 1: only -b)\n"
		"  -n, --iters N        timed iterations per size (default 20)\n"
		"  -w, --warmup_iters N untimed iterations first (default 5)\n"
		"  -c, --check 0|1      check results on verifiable inputs (default 1)\n"
		"  -d, --datatype T     i8 u8 i32 u32 i64 u64 f16 bf16 f32 (default) f64\n"
		"  -o, --op_type OP     sum (default), prod, max, min\n"
		"  -r, --root R         root of broadcast/reduce (default 0)\n"
		"  --algo LIST          CCORE_ALGO for this run, e.g. ring or ^mesh\n"
		"  --json FILE          also write the rows as JSON\n"
		"  --host-bound         also time one host thread per rank doing, with memcpy,\n"
		"                       the copies the op needs at the largest size, out of place\n"
		"                       and in place (allgather, broadcast, alltoall only)\n"
		"  --timed              run on the timed device model (sim backend, CCORE_SIM\n"
		"                       timed=1,virtual=1 before --sim/CCORE_SIM keys) and report\n"
		"                       simulated times; buffers are virtual, so -c 1 needs\n"
		"                       --sim virtual=0; defaults -n 1 -w 0 (runs are deterministic);\n"
		"                       under each row, where the wall clock of the call that built\n"
		"                       the plan went (choose, schedule, verify, place, lower, load;\n"
		"                       connecting semaphores and evicting plans apart) and its\n"
		"                       planning and lowering; at the end the longest of those\n"
		"  --exec FILE          instead: run the executable FILE (.cce, built by ccore-exe)\n"
		"                       for -w + -n steps on its own topology: per collective its\n"
		"                       jobs, latency (trigger to end) and run time (timed model\n"
		"                       only), bytes moved by compute DMA and by each stream's\n"
		"                       collectives, step_time_us and tp_latency_us (mean latency of\n"
		"                       the stream-0 collectives; latencies only with --timed, \"-\"\n"
		"                       (JSON null) on the functional model and the kernel devices);\n"
		"                       --json writes them; CCORE_STREAMS, CCORE_CC_DMA_PACKET_SIZE,\n"
		"                       CCORE_DMA_PACKETIZATION_SIZE apply\n"
		"  --copy               instead: device COPY throughput next to host memcpy\n"
		"  --device BACKEND     sim (default) or accel; default $CCORE_DEVICE\n"
		"  --sim CONFIG         extra simulated-fabric keys (see ccore-info --sim-help)\n"
		"  -h, --help           this text\n"
		"  --version            print the version and exit\n");
}

static int parse_size(const char *flag, const char *s, size_t *out)
{
	uint64_t v;

	if (size_parse(s, &v) || v == 0 || v > (1ull << 36)) {
		fprintf(stderr, "ccore-bench: %s '%s': expected a size from 1 byte to 64G, e.g. 8, 64K, 1M\n",
			flag, s);
		return -1;
	}
	*out = (size_t)v;
	return 0;
}

static int parse_int(const char *flag, const char *s, int lo, int hi, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "ccore-bench: %s '%s': expected a whole number from %d to %d\n",
			flag, s, lo, hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_name(const char *flag, const char *s, const char *const *names, int n,
		      int *out)
{
	for (int i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], s)) {
			*out = i;
			return 0;
		}
	fprintf(stderr, "ccore-bench: %s '%s': expected one of", flag, s);
	for (int i = 0; i < n; i++)
		if (names[i])
			fprintf(stderr, " %s", names[i]);
	fputc('\n', stderr);
	return -1;
}

static int topology(struct bench_opts *o, int nodes, int rpd)
{
	int per_node;

	if (o->ranks % nodes) {
		fprintf(stderr, "ccore-bench: --ranks %d is not a multiple of --nodes %d\n", o->ranks,
			nodes);
		return -1;
	}
	per_node = o->ranks / nodes;
	if (!rpd)
		for (rpd = per_node < 4 ? per_node : 4; per_node % rpd; rpd--)
			;
	if (per_node % rpd) {
		fprintf(stderr, "ccore-bench: %d ranks per node are not a multiple of --ranks-per-device %d\n",
			per_node, rpd);
		return -1;
	}
	o->topo = (struct ccore_topology){ (uint32_t)nodes, (uint32_t)(per_node / rpd),
					   (uint32_t)rpd };
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "op", required_argument, NULL, 'O' },
		{ "ranks", required_argument, NULL, 'N' },
		{ "nodes", required_argument, NULL, 'X' },
		{ "ranks-per-device", required_argument, NULL, 'P' },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup_iters", required_argument, NULL, 'w' },
		{ "check", required_argument, NULL, 'c' },
		{ "datatype", required_argument, NULL, 'd' },
		{ "op_type", required_argument, NULL, 'o' },
		{ "root", required_argument, NULL, 'r' },
		{ "algo", required_argument, NULL, 'A' },
		{ "json", required_argument, NULL, 'J' },
		{ "copy", no_argument, NULL, 'C' },
		{ "host-bound", no_argument, NULL, 'H' },
		{ "timed", no_argument, NULL, 'T' },
		{ "exec", required_argument, NULL, 'E' },
		{ "device", required_argument, NULL, 'D' },
		{ "sim", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	static const char *const dtypes[] = { NULL, "i8", "u8", "i32", "u32", "i64", "u64", "f16",
					      "bf16", "f32", "f64" };
	static const char *const redops[] = { NULL, "sum", "prod", "max", "min", "avg" };
	struct bench_opts o = {
		.op = OP_ALLREDUCE, .ranks = 8, .min_bytes = 8, .max_bytes = 64u << 20,
		.step_factor = 2, .iters = 20, .warmup = 5, .check = true, .dtype = ccore_f32,
		.redop = ccore_sum,
	};
	int c, v, bad = 0, nodes = 1, rpd = 0;
	bool copy = false, iters_set = false, warmup_set = false;
	struct ccore_exe *exe = NULL;
	char sim[1024];

	while ((c = getopt_long(argc, argv, "b:e:f:n:w:c:d:o:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'O': bad |= parse_name("--op", optarg, bench_op_names, OP_COUNT, &v); o.op = v; break;
		case 'N': bad |= parse_int("--ranks", optarg, 1, 1024, &o.ranks); break;
		case 'X': bad |= parse_int("--nodes", optarg, 1, 64, &nodes); break;
		case 'P': bad |= parse_int("--ranks-per-device", optarg, 1, 64, &rpd); break;
		case 'b': bad |= parse_size("-b", optarg, &o.min_bytes); break;
		case 'e': bad |= parse_size("-e", optarg, &o.max_bytes); break;
		case 'f': bad |= parse_int("-f", optarg, 1, 1024, &o.step_factor); break;
		case 'n': bad |= parse_int("-n", optarg, 1, 1000000, &o.iters); iters_set = true; break;
		case 'w': bad |= parse_int("-w", optarg, 0, 1000000, &o.warmup); warmup_set = true; break;
		case 'c': bad |= parse_int("-c", optarg, 0, 1, &v); o.check = v; o.check_set = true; break;
		case 'd': bad |= parse_name("-d", optarg, dtypes, 11, &v); o.dtype = v; break;
		case 'o': bad |= parse_name("-o", optarg, redops, 6, &v); o.redop = v; break;
		case 'r': bad |= parse_int("-r", optarg, 0, 1023, &o.root); break;
		case 'A': o.algo = optarg; break;
		case 'J': o.json = optarg; break;
		case 'C': copy = true; break;
		case 'H': o.host_bound = true; break;
		case 'T': o.timed = true; break;
		case 'E': o.exec = optarg; break;
		case 'D': o.backend = optarg; break;
		case 's': o.sim = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("ccore-bench (ccore) %s\n", CCORE_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!bad && optind < argc) {
		fprintf(stderr, "ccore-bench: unexpected argument '%s'\n", argv[optind]);
		bad = 1;
	}
	if (!bad && o.min_bytes > o.max_bytes) {
		fprintf(stderr, "ccore-bench: -b %zu is larger than -e %zu\n", o.min_bytes,
			o.max_bytes);
		bad = 1;
	}
	if (!bad && !copy && o.op == OP_SENDRECV && o.ranks < 2) {
		fprintf(stderr, "ccore-bench: --op sendrecv shifts data to the next rank; it needs --ranks 2 or more\n");
		bad = 1;
	}
	if (!bad && o.host_bound && copy) {
		fprintf(stderr, "ccore-bench: --host-bound goes with a collective --op, not with --copy\n");
		bad = 1;
	}
	if (!bad && o.host_bound && !copy)
		bad = bench_host_bound_check_op(o.op) ? 1 : 0;
	if (!bad && o.root >= o.ranks) {
		fprintf(stderr, "ccore-bench: --root %d out of range (0..%d)\n", o.root, o.ranks - 1);
		bad = 1;
	}
	if (!bad && o.timed && (copy || o.host_bound)) {
		fprintf(stderr, "ccore-bench: --timed reports simulated collectives; it does not go with --copy or --host-bound\n");
		bad = 1;
	}
	if (!bad && o.timed && o.backend && strcmp(o.backend, "sim")) {
		fprintf(stderr, "ccore-bench: --timed runs the sim backend's timed model, not --device %s\n",
			o.backend);
		bad = 1;
	}
	if (!bad && o.exec && copy) {
		fprintf(stderr, "ccore-bench: --exec runs an executable; it does not go with --copy\n");
		bad = 1;
	}
	if (!bad && o.exec) {
		if (bench_exec_load(o.exec, &exe))
			return 1;
		o.ranks = (int)exe->nranks;
	} else if (!bad && !copy) {
		bad = topology(&o, nodes, rpd);
	}
	if (bad)
		return 2;
	if (o.timed) {
		/* simulated runs are deterministic: one is enough */
		if (!iters_set)
			o.iters = 1;
		if (!warmup_set)
			o.warmup = 0;
		if (!o.check_set)
			o.check = false;
		/* the user's keys come last and win (e.g. virtual=0, ideal=1) */
		if (!o.sim)
			o.sim = getenv("CCORE_SIM");
		/* room for thousands of ranks: a semaphore block of 1 + 2N per
		 * rank, long programs and rings (instruction memory is only
		 * committed where programs are loaded) */
		snprintf(sim, sizeof(sim),
			 "timed=1,virtual=1,job_timeout_ms=3600000,sems=%d,program_size=1048576,ring_size=1048576%s%s",
			 2 * o.ranks + 64 > 256 ? 2 * o.ranks + 64 : 256,
			 o.sim && *o.sim ? "," : "", o.sim ? o.sim : "");
		o.sim = sim;
		o.backend = "sim";
	}
	/* explicit arguments win over the environment */
	if (o.backend)
		setenv("CCORE_DEVICE", o.backend, 1);
	if (o.sim)
		setenv("CCORE_SIM", o.sim, 1);
	if (o.algo)
		setenv("CCORE_ALGO", o.algo, 1);
	if (exe) {
		int rc = bench_exec(&o, exe);

		ccore_exe_free(exe);
		return rc;
	}
	return copy ? bench_copy(&o) : bench_collective(&o);
}
