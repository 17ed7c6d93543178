// SPDX-License-Identifier: MIT
/*
 * ccore-plan's command line: --help, every flag parsed with a message
 * naming it and what it accepts, and the combinations checked.
 */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ccore.h"
#include "algos/algo.h"
#include "sched/cs.h"
#include "select.h"
#include "tune/net_tier.h"
#include "util/size.h"
#include "args.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: ccore-plan --op OP --ranks N --size BYTES [--topology SPEC]\n"
		"                  [--ideal [--alpha-us A] [--bw-gbps B]] [--algo NAME]\n"
		"                  [--json] [--diagram FILE.svg]\n"
		"       ccore-plan --op OP --ranks N --sweep [--min BYTES] [--max BYTES]\n"
		"                  [--topology SPEC] [--ideal ...] [--svg FILE.svg] [--json]\n"
		"       ccore-plan --regret [--quick]\n"
		"\n"
		"Every algorithm that can run the collective, with its alpha-beta time\n"
		"(the tuner's cost model), its time on the timed device model (the\n"
		"runtime running it on a simulated fabric of the same shape, α and\n"
		"bandwidths, buffers virtual), why the others cannot, and the tuner's\n"
		"choice.\n"
		"BYTES is the size column of ccore-bench and nccl-tests: per rank for\n"
		"allreduce, broadcast and reduce, the whole N-chunk buffer for allgather,\n"
		"reducescatter and alltoall (f32 elements).\n"
		"\n"
		"  --op OP           allreduce, allgather, reducescatter, alltoall,\n"
		"                    broadcast, reduce or sendrecv (any case)\n"
		"  --ranks N         ranks, 1..4096\n"
		"  --size BYTES      message size (K, M, G suffixes; a multiple of 4)\n"
		"  --topology SPEC   nodes=X,torus=AxB,ranks-per-device=R (any of them;\n"
		"                    X*A*B*R must be N); default: one node, N devices in\n"
		"                    a ring, one rank each.  Tiers: within a device,\n"
		"                    between devices of a node, between nodes.  With\n"
		"                    nodes=2 or more, net-alpha-us=A (0..1000000) and\n"
		"                    net-bw-gbps=B (above 0, up to 1000000) price the\n"
		"                    network between nodes, e.g. the figures measured\n"
		"                    at a communicator's init (CCORE_DEBUG=info logs\n"
		"                    them): nodes=2,net-alpha-us=25,net-bw-gbps=2.8\n"
		"  --ideal           one tier, no contention, no per-message overhead:\n"
		"                    the reference formulas exactly\n"
		"  --alpha-us A      --ideal: latency per hop, us (default 1.5)\n"
		"  --bw-gbps B       --ideal: link bandwidth, GB/s (default 160)\n"
		"  --algo NAME       only this algorithm (any case)\n"
		"  --slices S        pipeline slices per chunk for --diagram (default 1)\n"
		"  --root R          root rank of broadcast and reduce (default 0)\n"
		"  --sweep           sizes from --min to --max (default 1K..1G), doubling:\n"
		"                    the best algorithm at each and the crossover points\n"
		"  --svg FILE        with --sweep: a chart of time against size per algorithm,\n"
		"                    the tuner's choice dotted, each crossover dashed\n"
		"  --diagram FILE    the space-time diagram (ranks x steps, an arrow per\n"
		"                    transfer) of --algo's schedule, as SVG, with a legend\n"
		"  --timed           with --sweep: also run every size on the timed model\n"
		"  --no-timed        only the cost model (one size runs the timed model\n"
		"                    by default; at thousands of ranks it takes seconds)\n"
		"  --regret          the tuner's regret on the timed model over a grid: for\n"
		"                    allreduce, allgather, reducescatter, alltoall, broadcast\n"
		"                    and reduce on a ring of 8 devices, 2 devices x 4 ranks,\n"
		"                    1 and 2 Trn2-like nodes (4x4 torus x 4 ranks) and 4\n"
		"                    nodes of 2x2 devices x 2 ranks,\n"
		"                    1 KiB to 1 GiB every 4x, every algorithm runs on the\n"
		"                    timed model; per point the runtime's choice, the best\n"
		"                    and the regret (chosen/best - 1), then the worst points\n"
		"                    and \"regret <= 5%% at X of Y points\".  Exit status 1\n"
		"                    if under 95%% of points are within 5%% (about 30 s of\n"
		"                    CPU)\n"
		"  --quick           with --regret: 36 points, a second or two\n"
		"  --json            a JSON object: chosen and algorithms\n"
		"                    [{algo, formula_us, tuned_us, timed_us}]\n"
		"  -h, --help        this usage text\n"
		"  --version         print the version and exit\n"
		"\n"
		"The model's parameters are the simulated device's (the sim's defaults,\n"
		"changed by $CCORE_SIM keys such as alpha_node_ns, bw_node_gbps,\n"
		"bw_engine_gbps, sem_ns: ccore-info --sim-help), the network's figures\n"
		"of --topology, then CCORE_TUNER_* (see README); the same model picks the\n"
		"runtime's default algorithm.\n"
		"CCORE_PAT_BUFFER (bytes) sets PAT's staging buffer, which decides how\n"
		"many steps it takes.\n");
}

/* A whole number from @min to @max (a K, M or G suffix allowed) into *@out. */
static int parse_u64(const char *flag, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (size_parse(s, &v) || v < min || v > max) {
		fprintf(stderr, "ccore-plan: %s '%s': expected a number from %llu to %llu\n", flag, s,
			(unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_positive(const char *flag, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v > 0) || v > 1e9) {
		fprintf(stderr, "ccore-plan: %s '%s': expected a number greater than 0\n", flag, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* nodes=X,torus=AxB,ranks-per-device=R,net-alpha-us=A,net-bw-gbps=B, in any order, any subset. */
static int parse_topology(const char *spec, struct plan_args *a)
{
	char buf[128], *tok, *save = NULL, *val;
	uint64_t v;

	if (strlen(spec) >= sizeof(buf)) {
		fprintf(stderr, "ccore-plan: --topology too long\n");
		return -1;
	}
	strcpy(buf, spec);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		val = strchr(tok, '=');
		if (!val)
			goto bad;
		*val++ = '\0';
		if (!strcmp(tok, "torus")) {
			char *by = strchr(val, 'x');
			uint64_t x, y;

			/* each side checked whole: sscanf's %u wrapped 4294967298 to 2 */
			if (by)
				*by++ = '\0';
			if (!by || size_parse(val, &x) || size_parse(by, &y) || !x || !y ||
			    x > 64 || y > 64) {
				fprintf(stderr, "ccore-plan: --topology torus=%s%s%s: expected AxB, 1..64 each\n",
					val, by ? "x" : "", by ? by : "");
				return -1;
			}
			a->torus_x = (uint32_t)x;
			a->torus_y = (uint32_t)y;
		} else if (!strcmp(tok, "net-alpha-us") || !strcmp(tok, "net-bw-gbps")) {
			bool alpha = !strcmp(tok, "net-alpha-us");
			int bad = alpha ?
				  tune_net_parse_alpha("--topology net-alpha-us", val, &a->net_alpha_us) :
				  tune_net_parse_bw("--topology net-bw-gbps", val, &a->net_bw_gbps);

			if (bad) {
				fprintf(stderr, "ccore-plan: %s\n", ccore_last_error());
				return -1;
			}
			*(alpha ? &a->have_net_alpha : &a->have_net_bw) = 1;
		} else if (!strcmp(tok, "nodes") || !strcmp(tok, "ranks-per-device")) {
			if (parse_u64(tok, val, 1, 4096, &v))
				goto bad;
			*(!strcmp(tok, "nodes") ? &a->nodes : &a->ranks_per_device) = (uint32_t)v;
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	fprintf(stderr, "ccore-plan: --topology '%s': expected nodes=X,torus=AxB,ranks-per-device=R (each 1 or more),net-alpha-us=A,net-bw-gbps=B\n",
		spec);
	return -1;
}

/* Fill in what --topology left out; the layout must hold N ranks. */
static int topology_check(struct plan_args *a)
{
	uint32_t per;

	if (!a->nodes)
		a->nodes = 1;
	if (!a->ranks_per_device)
		a->ranks_per_device = 1;
	if (!a->torus_x) {
		per = a->nodes * a->ranks_per_device;
		a->torus_x = per && a->ranks % per == 0 ? a->ranks / per : 0;
		a->torus_y = 1;
	}
	if (!a->torus_x ||
	    (uint64_t)a->nodes * a->torus_x * a->torus_y * a->ranks_per_device != a->ranks) {
		fprintf(stderr, "ccore-plan: --topology: nodes %u x devices %ux%u x ranks-per-device %u is not --ranks %u\n",
			a->nodes, a->torus_x, a->torus_y ? a->torus_y : 1, a->ranks_per_device,
			a->ranks);
		return -1;
	}
	return 0;
}

int parse_args(int argc, char **argv, struct plan_args *a)
{
	static const struct option opts[] = {
		{ "op", required_argument, NULL, 'o' },
		{ "ranks", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "algo", required_argument, NULL, 'a' },
		{ "slices", required_argument, NULL, 'S' },
		{ "root", required_argument, NULL, 'r' },
		{ "diagram", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "topology", required_argument, NULL, 't' },
		{ "ideal", no_argument, NULL, 'I' },
		{ "alpha-us", required_argument, NULL, 'A' },
		{ "bw-gbps", required_argument, NULL, 'B' },
		{ "sweep", no_argument, NULL, 'W' },
		{ "min", required_argument, NULL, 'm' },
		{ "max", required_argument, NULL, 'M' },
		{ "svg", required_argument, NULL, 'g' },
		{ "timed", no_argument, NULL, 'T' },
		{ "no-timed", no_argument, NULL, 'U' },
		{ "regret", no_argument, NULL, 'R' },
		{ "quick", no_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v = 0;
	int c;

	memset(a, 0, sizeof(*a));
	a->coll = -1;
	a->slices = 1;
	a->alpha_us = 1.5;
	a->bw_gbps = 160;
	a->min = 1024;
	a->max = 1ull << 30;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			a->coll = cs_coll_parse(optarg);
			if (a->coll < 0) {
				fprintf(stderr, "ccore-plan: --op '%s': expected allreduce, allgather, reducescatter, alltoall, broadcast, reduce or sendrecv\n",
					optarg);
				return 2;
			}
			break;
		case 'n':
			if (parse_u64("--ranks", optarg, 1, 4096, &v))
				return 2;
			a->ranks = (uint32_t)v;
			break;
		case 's':
			if (parse_u64("--size", optarg, 0, 1ull << 40, &a->size))
				return 2;
			break;
		case 'a':
			a->algo = optarg;
			break;
		case 'S':
			if (parse_u64("--slices", optarg, 1, 64, &v))
				return 2;
			a->slices = (uint32_t)v;
			break;
		case 'r':
			if (parse_u64("--root", optarg, 0, 4095, &v))
				return 2;
			a->root = (uint32_t)v;
			break;
		case 'd':
			a->diagram = optarg;
			break;
		case 'j':
			a->json = 1;
			break;
		case 't':
			if (parse_topology(optarg, a))
				return 2;
			break;
		case 'I':
			a->ideal = 1;
			break;
		case 'A':
		case 'B':
			if (parse_positive(c == 'A' ? "--alpha-us" : "--bw-gbps", optarg,
					   c == 'A' ? &a->alpha_us : &a->bw_gbps))
				return 2;
			*(c == 'A' ? &a->have_alpha : &a->have_bw) = 1;
			break;
		case 'W':
			a->sweep = 1;
			break;
		case 'm':
		case 'M':
			if (parse_u64(c == 'm' ? "--min" : "--max", optarg, 0, 1ull << 40,
				      c == 'm' ? &a->min : &a->max))
				return 2;
			break;
		case 'g':
			a->svg = optarg;
			break;
		case 'T':
		case 'U':
			a->timed = c == 'T';
			a->timed_set = 1;
			break;
		case 'R':
			a->regret = 1;
			break;
		case 'Q':
			a->quick = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("ccore-plan (ccore) %s\n", CCORE_VERSION_STRING);
			exit(0);
		default:
			fprintf(stderr, "ccore-plan: see --help\n");
			return 2;
		}
	}
	/* one size runs every algorithm on the timed model; a sweep only if asked */
	if (!a->timed_set)
		a->timed = !a->sweep;
	if (optind < argc) {
		fprintf(stderr, "ccore-plan: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (a->quick && !a->regret) {
		fprintf(stderr, "ccore-plan: --quick goes with --regret\n");
		return 2;
	}
	if (a->regret) {
		if (a->coll >= 0 || a->ranks || a->size || a->sweep || a->ideal || a->algo ||
		    a->diagram || a->json || a->nodes || a->torus_x || a->ranks_per_device ||
		    a->have_net_alpha || a->have_net_bw) {
			fprintf(stderr, "ccore-plan: --regret runs its own grid: it takes only --quick\n");
			return 2;
		}
		return 0;
	}
	if (a->coll < 0 || !a->ranks || (!a->size && !a->sweep)) {
		fprintf(stderr, "ccore-plan: --op, --ranks and --size (or --sweep) are required (see --help)\n");
		return 2;
	}
	if (a->sweep && (a->size || a->diagram)) {
		fprintf(stderr, "ccore-plan: --sweep goes without --size and --diagram\n");
		return 2;
	}
	if (a->svg && !a->sweep) {
		fprintf(stderr, "ccore-plan: --svg draws a --sweep; for one size use --diagram\n");
		return 2;
	}
	if (a->sweep && (!a->min || a->min > a->max)) {
		fprintf(stderr, "ccore-plan: --min %llu and --max %llu: expected 1 <= min <= max\n",
			(unsigned long long)a->min, (unsigned long long)a->max);
		return 2;
	}
	if ((a->have_alpha || a->have_bw) && !a->ideal) {
		fprintf(stderr, "ccore-plan: --alpha-us and --bw-gbps set the --ideal model; the tiered one reads CCORE_TUNER_*\n");
		return 2;
	}
	if (topology_check(a))
		return 2;
	if ((a->have_net_alpha || a->have_net_bw) && (a->ideal || a->nodes < 2)) {
		fprintf(stderr, "ccore-plan: --topology net-alpha-us and net-bw-gbps price the network between nodes: %s\n",
			a->ideal ? "--ideal has one tier (its --alpha-us, --bw-gbps)" :
				   "give nodes=2 or more");
		return 2;
	}
	if (a->size % 4) {
		fprintf(stderr, "ccore-plan: --size %llu is not a multiple of 4 (f32 elements)\n",
			(unsigned long long)a->size);
		return 2;
	}
	if (a->root >= a->ranks) {
		fprintf(stderr, "ccore-plan: --root %u out of range (0..%u)\n", a->root, a->ranks - 1);
		return 2;
	}
	if (a->diagram && !a->algo) {
		fprintf(stderr, "ccore-plan: --diagram needs --algo (the schedule to draw)\n");
		return 2;
	}
	return 0;
}

/* BYTES counts all N chunks for these: the API's count is one chunk. */
