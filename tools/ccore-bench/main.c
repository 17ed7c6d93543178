// SPDX-License-Identifier: MIT
/*
 * ccore-bench: nccl-tests-style benchmarks of ccore collectives.  It reads
 * nccl-tests' flags (common.cu there): those with a meaning here work as
 * there, those without one are refused with the reason.
 */
#include "bench.h"
#include "exec/exe.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* long options of ccore's own, numbered past every short one */
enum {
	OPT_OP = 256, OPT_RANKS, OPT_NODES, OPT_RPD, OPT_OP_TYPE, OPT_ALGO, OPT_JSON, OPT_COPY,
	OPT_HOST_BOUND, OPT_TIMED, OPT_EXEC, OPT_DEVICE, OPT_SIM, OPT_VERSION, OPT_PROCS,
	OPT_CORRUPT_RANK,
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ccore-bench [--op COLL] [nccl-tests flags] [options]\n"
		"       ccore-bench --copy [-e SIZE]\n"
		"       ccore-bench --exec FILE [--timed] [--json OUT] [-n N] [-w N]\n"
		"\n"
		"Runs a collective over simulated (or kernel) devices as nccl-tests'\n"
		"all_reduce_perf, all_gather_perf, ... do, and prints their table: size,\n"
		"count, type, redop, root, then time, algbw, busbw and #wrong out of place\n"
		"and in place, plus the algorithm that ran.  Counts and sizes as nccl-tests\n"
		"sets them: count is per rank for allgather and reducescatter, per peer\n"
		"block for alltoall; redop is none where nothing is reduced; #wrong is N/A\n"
		"where nothing was checked.  Run as all_reduce_perf etc. (a link), it runs\n"
		"that collective.\n"
		"\n"
		"nccl-tests' flags:\n"
		"  -g, --ngpus N        ranks (default 8; also --ranks N)\n"
		"  -b, --minbytes S     smallest size (default 8; 64MB, 1G, 8K, 1.5M as nccl-tests)\n"
		"  -e, --maxbytes S     largest size (default 64M)\n"
		"  -f, --stepfactor F   multiply the size by F per step (default 2)\n"
		"  -i, --stepbytes S    with -f 1 (or -i without -f): add S per step (default 1M)\n"
		"  -n, --iters N        timed iterations per size (default 20)\n"
		"  -m, --agg_iters N    collectives per timed iteration, in one group (default 1)\n"
		"  -w, --warmup_iters N untimed iterations first (default 5)\n"
		"  -N, --run_cycles N   print the table N times (default 1)\n"
		"  -c, --check N        checked runs per size on verifiable inputs (default 1;\n"
		"                       0: none, #wrong N/A)\n"
		"  -d, --datatype T     int8 uint8 int32 uint32 int64 uint64 half float (default)\n"
		"                       double bfloat16, or all; aliases i8 u8 i32 u32 i64 u64\n"
		"                       f16 f32 f64 bf16 char int float16 float32 float64\n"
		"  -o, --op OP          sum (default), prod, max, min, avg, or all (--op_type OP\n"
		"                       too; --op also takes the collective, see below)\n"
		"  -r, --root R         root of broadcast/reduce (default 0)\n"
		"  -z, --blocking 0-3   wait for each collective before the next (default 0)\n"
		"  -a, --average 0-3    accepted: one clock times every rank, so rank 0, the\n"
		"                       average, the minimum and the maximum are the same\n"
		"  -u, --unalign N      buffers start N elements in (default 0)\n"
		"  -S, --report_timestamps 0|1  a timestamp column after in place\n"
		"  -J, --output_file F.json  also write nccl-tests' JSON (version 3) to F.json\n"
		"                       (F.json.0, ... if it exists, as nccl-tests does)\n"
		"  $NCCL_TESTS_MIN_BW   the average bus bandwidth must reach 90%% of it\n"
		"  -t, -p, -y, -T, -G, -C, -R, -x, -D, -V, -I, -K, -M: refused with the reason\n"
		"                       (threads, CUDA streams, graphs and memory have no\n"
		"                       meaning here); their default values are accepted\n"
		"\n"
		"ccore's options:\n"
		"  --op COLL            allreduce (default), allgather, reducescatter, alltoall,\n"
		"                       broadcast, reduce, sendrecv (a ring shift); any case,\n"
		"                       nccl-tests' names too (all_reduce, all_reduce_perf)\n"
		"  --ranks N            ranks (as -g)\n"
		"  --nodes N            nodes (default 1)\n"
		"  --ranks-per-device N ranks per device (default: up to 4, dividing the ranks)\n"
		"  --algo LIST          CCORE_ALGO for this run, e.g. ring or ^mesh (any case)\n"
		"  --json FILE          also write the rows as ccore's JSON\n"
		"  --host-bound         also time one host thread per rank doing, with memcpy,\n"
		"                       the copies the op needs at the largest size, out of place\n"
		"                       and in place (allgather, broadcast, alltoall only)\n"
		"  --timed              run on the timed device model (sim backend, CCORE_SIM\n"
		"                       timed=1,virtual=1 before --sim/CCORE_SIM keys) and report\n"
		"                       simulated times; buffers are virtual, so -c 1 needs\n"
		"                       --sim virtual=0; defaults -n 1 -w 0 -c 0 (runs are\n"
		"                       deterministic); under each row, where the wall clock of\n"
		"                       the call that built the plan went (choose, schedule,\n"
		"                       verify, place, lower, load; connecting semaphores and\n"
		"                       evicting plans apart) and its planning and lowering; at\n"
		"                       the end the longest of those\n"
		"  --exec FILE          instead: run the executable FILE (.cce, built by ccore-exe)\n"
		"                       for -w + -n steps on its own topology: per collective its\n"
		"                       jobs, latency (trigger to end) and run time (timed model\n"
		"                       only), bytes moved by compute DMA and by each stream's\n"
		"                       collectives, step_time_us and tp_latency_us (mean latency of\n"
		"                       the stream-0 collectives; latencies only with --timed, \"-\"\n"
		"                       (JSON null) on the functional model and the kernel devices);\n"
		"                       --json writes them; CCORE_STREAMS, CCORE_CC_DMA_PACKET_SIZE,\n"
		"                       CCORE_DMA_PACKETIZATION_SIZE apply\n"
		"  --corrupt-rank R     testing the checks: spoil one byte of rank R's output\n"
		"                       before each check (#wrong and the exit status show it)\n"
		"  --copy               instead: device COPY throughput next to host memcpy\n"
		"  --procs N            one process per rank: start N processes of ccore-bench\n"
		"                       (ranks -g / N each; -g defaults to N), the first\n"
		"                       prints the table; under mpirun (OMPI_COMM_WORLD_RANK\n"
		"                       and _SIZE) or PMI (PMI_RANK, PMI_SIZE) each process\n"
		"                       is one of the job already: no --procs (CCORE_COMM_ID\n"
		"                       for every process, else derived from the job's name)\n"
		"  --device BACKEND     sim (default) or accel; default $CCORE_DEVICE\n"
		"  --sim CONFIG         extra simulated-fabric keys (see ccore-info --sim-help)\n"
		"  -h, --help           this text\n"
		"  --version            print the version and exit\n");
}

/* nccl-tests' flags that mean nothing here: the value that is a no-op, and why. */
static const struct refused {
	char flag;
	const char *name;
	const char *off;	/* the one value accepted; NULL: none */
	const char *why;
} refused[] = {
	{ 't', "nthreads", "1", "ccore-bench drives every rank from one thread; set the ranks with -g" },
	{ 'p', "parallel_init", "0", "one thread creates every communicator (ccore_comm_init_all)" },
	{ 'y', "stream_null", "0", "there are no CUDA streams; each collective runs on its communicator's stream" },
	{ 'T', "timeout", "0", "jobs have the device's own timeout (the sim's job_timeout_ms)" },
	{ 'G', "cudagraph", "0", "there are no CUDA graphs to capture collectives in" },
	{ 'C', "report_cputime", "0", "the times are the host's clock already (the timed model's clock with --timed)" },
	{ 'R', "local_register", "0", "buffers from ccore_mem_alloc() need no registration" },
	{ 'x', "cta_policy", NULL, "ccore has no CTAs to set a policy for" },
	{ 'D', "device_implementation", "0", "there is no device-side API to run collectives from kernels" },
	{ 'V', "device_cta_count", NULL, "ccore has no CTAs to count" },
	{ 'I', "per_iter_timing", "0", "the -n iterations are timed together (no per-iteration events)" },
	{ 'K', "per_iter_skip", "0", "it goes with -I, which is not supported: the -n iterations are timed together" },
	{ 'M', "memory", "0", "there is no GPU memory report; ccore-info shows the devices' memory" },
};

static int refuse(int c, const char *arg)
{
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		const struct refused *r = &refused[i];

		if (r->flag != c)
			continue;
		if (r->off && !strcmp(arg, r->off))
			return 0;
		fprintf(stderr, "ccore-bench: -%c/--%s %s: not supported: %s%s%s\n", c, r->name, arg,
			r->why, r->off ? "; allowed: " : "", r->off ? r->off : "");
		return 1;
	}
	return 1;
}

static int parse_size(const char *flag, const char *s, size_t *out)
{
	uint64_t v;

	if (bench_parse_size(s, 1ull << 36, &v) || !v) {
		fprintf(stderr, "ccore-bench: %s '%s': expected a whole number of bytes from 1 to 64G, as nccl-tests writes sizes: e.g. 8, 64K, 64MB, 1G, 1.5M\n",
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

static int parse_dtype(const char *s, int *out)
{
	if (!strcasecmp(s, "all")) {
		*out = -1;
		return 0;
	}
	*out = bench_dtype_parse(s);
	if (*out >= 0)
		return 0;
	fprintf(stderr, "ccore-bench: -d '%s': expected one of", s);
	for (int i = 0; i < BENCH_NDTYPES; i++)
		fprintf(stderr, " %s", bench_dtypes[i].name);
	fprintf(stderr, " all (or i8 u8 i32 u32 i64 u64 f16 f32 f64 bf16)%s\n",
		!strncasecmp(s, "f8", 2) ? "; ccore has no 8-bit floats" : "");
	return -1;
}

static int parse_redop(const char *flag, const char *s, int *out)
{
	if (!strcasecmp(s, "all")) {
		*out = -1;
		return 0;
	}
	*out = bench_redop_parse(s);
	if (*out >= 0)
		return 0;
	fprintf(stderr, "ccore-bench: %s '%s': expected one of sum prod max min avg all%s\n", flag,
		s, !strcasecmp(s, "mulsum") ? " (ccore has no pre-multiplied sum)" : "");
	return -1;
}

/* --op: a collective (ccore's --op) or a reduction (nccl-tests' --op). */
static int parse_op(const char *s, struct bench_opts *o)
{
	int v = bench_op_parse(s);

	if (v >= 0) {
		o->op = v;
		return 0;
	}
	v = bench_redop_parse(s);
	if (v >= 0 || !strcasecmp(s, "all")) {
		o->redop = v;
		return 0;
	}
	fprintf(stderr, "ccore-bench: --op '%s': expected one of allreduce allgather reducescatter alltoall broadcast reduce sendrecv (the collective), or sum prod max min avg all (the reduction, as nccl-tests' --op)\n",
		s);
	return -1;
}

static int min_bw(struct bench_opts *o)
{
	const char *v = getenv("NCCL_TESTS_MIN_BW");
	char *end;

	o->min_bw = -1;
	if (!v || !*v)
		return 0;
	o->min_bw = strtod(v, &end);
	if (*end || end == v || !(o->min_bw >= 0)) {
		fprintf(stderr, "ccore-bench: NCCL_TESTS_MIN_BW=%s: expected a bus bandwidth in GB/s, a number from 0\n",
			v);
		return -1;
	}
	return 0;
}

/* -J FILE: nccl-tests writes JSON only to a name ending in .json. */
static int check_json_name(const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	if (dot && (!slash || dot > slash) && !strcasecmp(dot, ".json"))
		return 0;
	fprintf(stderr, "ccore-bench: -J %s: nccl-tests infers the output type from the suffix and writes only JSON; name a file ending in .json\n",
		path);
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
	/* under a launcher that spreads the processes over hosts: its share */
	if (o->host_procs) {
		per_node = o->ranks / o->nprocs * o->host_procs;
		nodes = o->ranks / per_node;
	}
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
		{ "nthreads", required_argument, NULL, 't' },
		{ "ngpus", required_argument, NULL, 'g' },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepbytes", required_argument, NULL, 'i' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "iters", required_argument, NULL, 'n' },
		{ "agg_iters", required_argument, NULL, 'm' },
		{ "warmup_iters", required_argument, NULL, 'w' },
		{ "run_cycles", required_argument, NULL, 'N' },
		{ "parallel_init", required_argument, NULL, 'p' },
		{ "check", required_argument, NULL, 'c' },
		{ "op", required_argument, NULL, OPT_OP },
		{ "datatype", required_argument, NULL, 'd' },
		{ "root", required_argument, NULL, 'r' },
		{ "blocking", required_argument, NULL, 'z' },
		{ "stream_null", required_argument, NULL, 'y' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "cudagraph", required_argument, NULL, 'G' },
		{ "report_cputime", required_argument, NULL, 'C' },
		{ "report_timestamps", required_argument, NULL, 'S' },
		{ "output_file", required_argument, NULL, 'J' },
		{ "average", required_argument, NULL, 'a' },
		{ "local_register", required_argument, NULL, 'R' },
		{ "cta_policy", required_argument, NULL, 'x' },
		{ "device_implementation", required_argument, NULL, 'D' },
		{ "device_cta_count", required_argument, NULL, 'V' },
		{ "memory", required_argument, NULL, 'M' },
		{ "unalign", required_argument, NULL, 'u' },
		{ "per_iter_timing", required_argument, NULL, 'I' },
		{ "per_iter_skip", required_argument, NULL, 'K' },
		{ "op_type", required_argument, NULL, OPT_OP_TYPE },
		{ "ranks", required_argument, NULL, OPT_RANKS },
		{ "nodes", required_argument, NULL, OPT_NODES },
		{ "ranks-per-device", required_argument, NULL, OPT_RPD },
		{ "algo", required_argument, NULL, OPT_ALGO },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "copy", no_argument, NULL, OPT_COPY },
		{ "host-bound", no_argument, NULL, OPT_HOST_BOUND },
		{ "timed", no_argument, NULL, OPT_TIMED },
		{ "exec", required_argument, NULL, OPT_EXEC },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "sim", required_argument, NULL, OPT_SIM },
		{ "procs", required_argument, NULL, OPT_PROCS },
		{ "corrupt-rank", required_argument, NULL, OPT_CORRUPT_RANK },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	struct bench_opts o = {
		.op = OP_ALLREDUCE, .ranks = 8, .min_bytes = 8, .max_bytes = 64u << 20,
		.step_factor = 2, .step_bytes = 1u << 20, .iters = 20, .warmup = 5, .agg_iters = 1,
		.run_cycles = 1, .check = 1, .corrupt_rank = -1, .dtype = bench_dtype_parse("float"),
		.redop = bench_redop_parse("sum"),
		.argc = argc, .argv = argv,
	};
	const char *base = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	int c, v, bad = 0, nodes = 1, rpd = 0;
	bool copy = false, iters_set = false, warmup_set = false, factor_set = false;
	bool step_set = false, ranks_set = false;
	struct ccore_exe *exe = NULL;
	char sim[1024];

	/* run as nccl-tests' program (a link to ccore-bench): that collective */
	if (strstr(base, "_perf") && bench_op_parse(base) >= 0)
		o.op = bench_op_parse(base);
	while ((c = getopt_long(argc, argv, "t:g:b:e:i:f:n:m:w:N:p:I:K:c:o:d:r:z:y:T:hG:C:a:R:x:D:V:J:S:M:u:",
				opts, NULL)) != -1) {
		switch (c) {
		case 'g':
		case OPT_RANKS:
			bad |= parse_int(c == 'g' ? "-g" : "--ranks", optarg, 1, 1024, &o.ranks);
			ranks_set = true;
			break;
		case OPT_PROCS: bad |= parse_int("--procs", optarg, 1, 1024, &o.nprocs); break;
		case OPT_CORRUPT_RANK:
			bad |= parse_int("--corrupt-rank", optarg, 0, 1023, &o.corrupt_rank);
			break;
		case 'b': bad |= parse_size("-b", optarg, &o.min_bytes); break;
		case 'e': bad |= parse_size("-e", optarg, &o.max_bytes); break;
		case 'i': bad |= parse_size("-i", optarg, &o.step_bytes); step_set = true; break;
		case 'f': bad |= parse_int("-f", optarg, 1, 1024, &o.step_factor); factor_set = true; break;
		case 'n': bad |= parse_int("-n", optarg, 1, 1000000, &o.iters); iters_set = true; break;
		case 'm': bad |= parse_int("-m", optarg, 1, 1024, &o.agg_iters); break;
		case 'w': bad |= parse_int("-w", optarg, 0, 1000000, &o.warmup); warmup_set = true; break;
		case 'N':
			if (!strcmp(optarg, "0")) {
				fprintf(stderr, "ccore-bench: -N 0: not supported: nccl-tests' 0 runs the table forever; give a number of cycles from 1 to 1000000\n");
				bad = 1;
				break;
			}
			bad |= parse_int("-N", optarg, 1, 1000000, &o.run_cycles);
			break;
		case 'c': bad |= parse_int("-c", optarg, 0, 1000, &o.check); o.check_set = true; break;
		case 'd': bad |= parse_dtype(optarg, &o.dtype); break;
		case 'o':
		case OPT_OP_TYPE: bad |= parse_redop(c == 'o' ? "-o" : "--op_type", optarg, &o.redop); break;
		case OPT_OP: bad |= parse_op(optarg, &o); break;
		case 'r': bad |= parse_int("-r", optarg, 0, 1023, &o.root); break;
		case 'z': bad |= parse_int("-z", optarg, 0, 3, &o.blocking); break;
		case 'a': bad |= parse_int("-a", optarg, 0, 3, &v); break;
		case 'u': bad |= parse_int("-u", optarg, 0, 1 << 20, &o.unalign); break;
		case 'S': bad |= parse_int("-S", optarg, 0, 1, &v); o.timestamps = v; break;
		case 'J': o.nccl_json = optarg; bad |= check_json_name(optarg); break;
		case OPT_NODES: bad |= parse_int("--nodes", optarg, 1, 64, &nodes); break;
		case OPT_RPD: bad |= parse_int("--ranks-per-device", optarg, 1, 64, &rpd); break;
		case OPT_ALGO: o.algo = optarg; break;
		case OPT_JSON: o.json = optarg; break;
		case OPT_COPY: copy = true; break;
		case OPT_HOST_BOUND: o.host_bound = true; break;
		case OPT_TIMED: o.timed = true; break;
		case OPT_EXEC: o.exec = optarg; break;
		case OPT_DEVICE: o.backend = optarg; break;
		case OPT_SIM: o.sim = optarg; break;
		case 'h': usage(stdout); return 0;
		case 't': case 'p': case 'y': case 'T': case 'G': case 'C': case 'R': case 'x':
		case 'D': case 'V': case 'I': case 'K': case 'M':
			bad |= refuse(c, optarg);
			break;
		case OPT_VERSION: printf("ccore-bench (ccore) %s\n", CCORE_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	/* nccl-tests adds -i when the factor is 1, its default; ours is 2 */
	if (step_set && !factor_set)
		o.step_factor = 1;
	o.program = bench_op_programs[o.op];
	if (!bad)
		bad = min_bw(&o) ? 1 : 0;
	if (!bad && optind < argc) {
		fprintf(stderr, "ccore-bench: unexpected argument '%s'\n", argv[optind]);
		bad = 1;
	}
	if (!bad && o.min_bytes > o.max_bytes) {
		fprintf(stderr, "ccore-bench: -b %zu is larger than -e %zu\n", o.min_bytes,
			o.max_bytes);
		bad = 1;
	}
	if (!bad && o.nprocs && (copy || o.exec || o.timed || o.host_bound || nodes > 1)) {
		fprintf(stderr, "ccore-bench: --procs runs the collective table one process per rank on this host; it does not go with %s\n",
			copy ? "--copy" : o.exec ? "--exec" : o.timed ? "--timed" :
			o.host_bound ? "--host-bound" : "--nodes (one host)");
		bad = 1;
	}
	if (!bad && bench_procs_role(&o, ranks_set) < 0)
		bad = 1;
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
	if (!bad && o.corrupt_rank >= o.ranks) {
		fprintf(stderr, "ccore-bench: --corrupt-rank %d out of range (0..%d)\n", o.corrupt_rank,
			o.ranks - 1);
		bad = 1;
	}
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
	if (!bad && (copy || o.exec) && o.nccl_json) {
		fprintf(stderr, "ccore-bench: -J writes nccl-tests' table of a collective; it does not go with %s\n",
			copy ? "--copy" : "--exec (use --json)");
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
			o.check = 0;
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
	if (o.nprocs) {
		char rpd_env[16];

		/* the processes place their ranks as one process would (rank_place) */
		snprintf(rpd_env, sizeof(rpd_env), "%u", o.topo.ranks_per_device);
		setenv("CCORE_RANKS_PER_DEVICE", rpd_env, 0);
	}
	if (exe) {
		int rc = bench_exec(&o, exe);

		ccore_exe_free(exe);
		return rc;
	}
	if (o.nprocs && o.proc < 0)
		return bench_procs_launch(&o);
	return copy ? bench_copy(&o) : bench_collective(&o);
}
