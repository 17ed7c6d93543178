// SPDX-License-Identifier: MIT
/*
 * ccore-plan: what would run for a collective, and why.  For (op, N, size,
 * topology) it lists every algorithm with its alpha-beta time (the tuner's
 * cost model, runtime/tune/) and why the others cannot serve, names the
 * tuner's choice, sweeps sizes for the crossover points, and draws charts
 * and space-time diagrams as SVG.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ccore.h"
#include "algos/algo.h"
#include "sched/cs.h"
#include "regret.h"
#include "select.h"
#include "svg.h"
#include "timed.h"
#include "tune/hw.h"
#include "tune/tuner.h"
#include "util/size.h"
#include "../common/json.h"

/* The runtime's bound (select.c): 64, and a slice holds an element at least. */
static uint32_t max_slices(const struct cs_shape *sh)
{
	uint64_t block = sh->coll == CS_ALLREDUCE ? sh->count / (sh->nranks ? sh->nranks : 1) :
			 sh->count;

	return block < 1 ? 1 : block > 64 ? 64 : (uint32_t)block;
}

struct plan_args {
	int coll;
	uint32_t ranks;
	uint64_t size;
	const char *algo;
	const char *diagram;
	const char *svg;
	uint32_t slices;
	uint32_t root;
	int json;
	int ideal;
	double alpha_us, bw_gbps;
	int have_alpha, have_bw;
	uint32_t nodes, torus_x, torus_y, ranks_per_device;
	int sweep;
	uint64_t min, max;
	int timed;		/* 1: the timed-model column; 0: --no-timed */
	int timed_set;
	int regret;		/* 1: --regret, 2: --regret --quick */
	int quick;
};

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
		"                    between devices of a node, between nodes\n"
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
		"bw_engine_gbps, sem_ns: ccore-info --sim-help), then CCORE_TUNER_* (see\n"
		"README); the same model picks the runtime's default algorithm.\n"
		"CCORE_PAT_BUFFER (bytes) sets PAT's staging buffer, which decides how\n"
		"many steps it takes.\n");
}

static int parse_u64(const char *flag, const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (size_parse(s, &v) || v > max) {
		fprintf(stderr, "ccore-plan: %s '%s': expected a number from 0 to %llu\n", flag, s,
			(unsigned long long)max);
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

/* nodes=X,torus=AxB,ranks-per-device=R, in any order, any subset. */
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
		} else if (!strcmp(tok, "nodes") || !strcmp(tok, "ranks-per-device")) {
			if (parse_u64(tok, val, 4096, &v) || !v)
				goto bad;
			*(!strcmp(tok, "nodes") ? &a->nodes : &a->ranks_per_device) = (uint32_t)v;
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	fprintf(stderr, "ccore-plan: --topology '%s': expected nodes=X,torus=AxB,ranks-per-device=R (each 1 or more)\n",
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

static int parse_args(int argc, char **argv, struct plan_args *a)
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
	uint64_t v;
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
			if (parse_u64("--ranks", optarg, 4096, &v) || v == 0) {
				if (v == 0)
					fprintf(stderr, "ccore-plan: --ranks must be 1 or more\n");
				return 2;
			}
			a->ranks = (uint32_t)v;
			break;
		case 's':
			if (parse_u64("--size", optarg, 1ull << 40, &a->size))
				return 2;
			break;
		case 'a':
			a->algo = optarg;
			break;
		case 'S':
			if (parse_u64("--slices", optarg, 64, &v) || v == 0) {
				if (v == 0)
					fprintf(stderr, "ccore-plan: --slices must be 1..64\n");
				return 2;
			}
			a->slices = (uint32_t)v;
			break;
		case 'r':
			if (parse_u64("--root", optarg, 4095, &v))
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
			if (parse_u64(c == 'm' ? "--min" : "--max", optarg, 1ull << 40,
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
		    a->diagram || a->json || a->nodes || a->torus_x || a->ranks_per_device) {
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
static int chunked(int coll)
{
	return coll == CS_ALLGATHER || coll == CS_REDUCESCATTER || coll == CS_ALLTOALL;
}

static struct cs_shape shape_of(const struct plan_args *a, uint64_t bytes)
{
	struct cs_shape sh = {
		.coll = (uint8_t)a->coll, .nranks = a->ranks, .count = bytes / 4,
		.root = a->root, .peer = a->ranks > 1 ? (a->root + 1) % a->ranks : 0,
	};

	if (chunked(a->coll))
		sh.count /= a->ranks;
	return sh;
}

static void topo_of(const struct plan_args *a, const struct tune_hw *hw, struct tune_topo *t)
{
	if (a->ideal) {
		tune_topo_ideal(t, a->ranks, a->alpha_us, a->bw_gbps);
		return;
	}
	tuner_topo(a->nodes, a->torus_x, a->torus_y, a->ranks_per_device, hw, t);
}

/* The simulated device's parameters: the sim's defaults and $CCORE_SIM's keys. */
static int hw_of(struct tune_hw *hw)
{
	const char *user = getenv("CCORE_SIM");
	struct ccm_config c;
	struct ccm_err err = { 0 };

	ccm_config_default(&c);
	c.timed = 1;
	if (user && *user && ccm_config_parse(&c, user, &err)) {
		fprintf(stderr, "ccore-plan: CCORE_SIM=%s: %s\n", user, err.msg);
		return -1;
	}
	tune_hw_from_config(&c, hw);
	return 0;
}

static int draw(const struct plan_args *a, const struct algo *al)
{
	struct algo_opts o = { .slices = a->slices, .channels = 1,
			       .pat_buffer = select_pat_buffer(4) };
	struct cs_shape sh = shape_of(a, a->size);
	struct cs_sched *s;
	char title[160], err[160];
	FILE *out;
	int rc;

	s = al->gen(&sh, &o);
	if (cs_unusable(s)) {
		fprintf(stderr, "ccore-plan: %s could not generate the schedule: %s\n", al->name,
			cs_unusable(s));
		cs_free(s);
		return 1;
	}
	out = fopen(a->diagram, "w");
	if (!out) {
		fprintf(stderr, "ccore-plan: --diagram %s: %s\n", a->diagram, strerror(errno));
		cs_free(s);
		return 1;
	}
	snprintf(title, sizeof(title), "%s %s, %u ranks, %llu bytes, %u slice%s", al->name,
		 cs_coll_name(sh.coll), sh.nranks, (unsigned long long)a->size, a->slices,
		 a->slices == 1 ? "" : "s");
	rc = svg_write_spacetime(out, s, title, err, sizeof(err));
	if (fclose(out) || rc) {
		fprintf(stderr, "ccore-plan: --diagram %s: %s\n", a->diagram,
			rc ? err : strerror(errno));
		cs_free(s);
		return 1;
	}
	cs_free(s);
	return 0;
}

/* Every algorithm serving the op at @bytes: its time, or why it cannot. */
struct row {
	const struct algo *al;
	const char *why;
	struct tune_call call;	/* the tuner's slices and channels */
	double us;		/* at those */
	double ref_us;		/* the reference formula: 1 slice, 1 channel */
	double timed_us;	/* the timed model's, at the tuner's slices; < 0: none */
	char *timed_why;	/* why there is none (heap, rows_free()) */
};

static unsigned int plan_rows(const struct plan_args *a, const struct tune_topo *t,
			      uint64_t bytes, struct row *rows, unsigned int max)
{
	struct cs_shape sh = shape_of(a, bytes);
	struct algo_opts o = { .slices = 1, .channels = 1,
			       .ranks_per_node = a->nodes > 1 ? a->ranks / a->nodes : 0,
			       .ranks_per_device = a->ranks_per_device,
			       .pat_buffer = select_pat_buffer(4) };
	unsigned int i, n = 0;

	for (i = 0; i < algo_count() && n < max; i++) {
		const struct algo *al = algo_at(i);
		struct row *r = &rows[n];

		if (!(al->colls & (1u << sh.coll)) || (a->algo && strcasecmp(a->algo, al->name)))
			continue;
		*r = (struct row){ .al = al, .us = -1, .timed_us = -1 };
		r->why = al->rejects ? al->rejects(&sh, &o) : NULL;
		r->call = (struct tune_call){ .coll = sh.coll, .nranks = a->ranks,
					      .bytes = (double)bytes, .slices = 1, .channels = 1,
					      .peer_dist = 1, .elem_size = 4,
					      .pat_buffer = o.pat_buffer };
		if (!r->why && !tune_formula(al, t, &r->call, &r->ref_us, &r->why) &&
		    tuner_best(al, t, &r->call, max_slices(&sh), &r->us))
			r->why = "the cost model has no time for it";
		n++;
	}
	return n;
}

static const struct row *best_row(const struct row *rows, unsigned int n)
{
	const struct row *b = NULL;

	for (unsigned int i = 0; i < n; i++)
		if (!rows[i].why && rows[i].us >= 0 && (!b || rows[i].us < b->us))
			b = &rows[i];
	return b;
}

/* The timed model's time of every row that applies (@w NULL: timed_error() says why not). */
static void timed_rows(const struct plan_args *a, struct timed_world *w, uint64_t bytes,
		       struct row *rows, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if (rows[i].why)
			continue;
		free(rows[i].timed_why);
		rows[i].timed_why = NULL;
		if (!w || timed_run(w, a->coll, bytes, a->root, rows[i].al->name,
				    &rows[i].timed_us)) {
			rows[i].timed_us = -1;
			rows[i].timed_why = strdup(timed_error());
		}
	}
}

static void rows_free(struct row *rows, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		free(rows[i].timed_why);
		rows[i].timed_why = NULL;
	}
}

/* The row with the shortest timed-model time; NULL if none ran. */
static const struct row *fastest_timed(const struct row *rows, unsigned int n)
{
	const struct row *b = NULL;

	for (unsigned int i = 0; i < n; i++)
		if (!rows[i].why && rows[i].timed_us >= 0 && (!b || rows[i].timed_us < b->timed_us))
			b = &rows[i];
	return b;
}

static int plan_one(const struct plan_args *a, const struct tune_topo *t)
{
	struct row rows[64];
	unsigned int n = plan_rows(a, t, a->size, rows, 64), i;
	const struct row *b = best_row(rows, n);
	char desc[256];

	if (!n) {
		fprintf(stderr, "ccore-plan: no algorithm called '%s' serves %s\n",
			a->algo ? a->algo : "", cs_coll_name((unsigned int)a->coll));
		return 1;
	}
	if (a->timed) {
		struct timed_world *w = timed_open(t, a->size);

		timed_rows(a, w, a->size, rows, n);
		timed_close(w);
	}
	tune_topo_describe(t, desc, sizeof(desc));
	if (a->json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_object_begin(&j);
		json_kv_string(&j, "op", cs_coll_name((unsigned int)a->coll));
		json_kv_uint(&j, "ranks", a->ranks);
		json_kv_uint(&j, "size", (unsigned long long)a->size);
		json_kv_string(&j, "topology", desc);
		json_kv_string(&j, "chosen", b ? b->al->name : NULL);
		json_key(&j, "algorithms");
		json_array_begin(&j);
		for (i = 0; i < n; i++) {
			json_object_begin(&j);
			json_kv_string(&j, "algo", rows[i].al->name);
			json_kv_bool(&j, "applies", !rows[i].why);
			if (rows[i].why) {
				json_kv_string(&j, "why", rows[i].why);
			} else {
				json_kv_double(&j, "formula_us", rows[i].ref_us, 4);
				json_kv_double(&j, "tuned_us", rows[i].us, 4);
				json_kv_uint(&j, "slices", rows[i].call.slices);
				json_kv_uint(&j, "channels", rows[i].call.channels);
				if (rows[i].timed_us >= 0) {
					json_kv_double(&j, "timed_us", rows[i].timed_us, 4);
				} else if (a->timed) {
					json_kv_null(&j, "timed_us");
					json_kv_string(&j, "timed_why",
						       rows[i].timed_why ?: "out of memory");
				}
			}
			json_object_end(&j);
		}
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
	} else {
		printf("# %s, %u ranks, %llu bytes; %s\n", cs_coll_name((unsigned int)a->coll),
		       a->ranks, (unsigned long long)a->size, desc);
		printf("# %-12s %14s %14s %14s %6s %8s\n", "algorithm", "formula_us", "tuned_us",
		       "timed_us", "slices", "channels");
		for (i = 0; i < n; i++) {
			char timed[32];

			if (rows[i].why) {
				printf("  %-12s %14s %14s %14s %6s %8s  %s\n", rows[i].al->name, "-",
				       "-", "-", "-", "-", rows[i].why);
				continue;
			}
			if (rows[i].timed_us >= 0)
				snprintf(timed, sizeof(timed), "%.3f", rows[i].timed_us);
			else
				snprintf(timed, sizeof(timed), "-");
			printf("  %-12s %14.3f %14.3f %14s %6u %8u%s", rows[i].al->name,
			       rows[i].ref_us, rows[i].us, timed, rows[i].call.slices,
			       rows[i].call.channels, &rows[i] == b ? "  <- chosen" : "");
			if (rows[i].timed_us < 0 && a->timed)
				printf("  (timed: %s)", rows[i].timed_why ?: "out of memory");
			printf("\n");
		}
		printf("# formula_us: the reference alpha-beta time (1 slice, 1 channel);\n"
		       "# tuned_us: at the slices and channels the tuner would use;\n"
		       "# timed_us: the timed device model running it at those%s\n",
		       a->timed ? "" : " (--no-timed: not run)");
		if (!b)
			printf("# no algorithm can run this\n");
	}
	rows_free(rows, n);
	return 0;
}

static int plan_sweep(const struct plan_args *a, const struct tune_topo *t)
{
	struct row rows[64];
	unsigned int nsizes = 0, n = 0, i, k;
	double xs[64], ys[64][64];
	const char *chosen[64];
	struct svg_series series[64];
	const char *prev = NULL;
	uint64_t b;
	char desc[256];

	struct timed_world *w = NULL;
	char *err = NULL;
	struct json j;

	if (a->timed) {
		w = timed_open(t, a->max);
		err = w ? NULL : strdup(timed_error());
	}
	tune_topo_describe(t, desc, sizeof(desc));
	json_init(&j, stdout, 0);
	if (a->json) {
		json_object_begin(&j);
		json_kv_string(&j, "op", cs_coll_name((unsigned int)a->coll));
		json_kv_uint(&j, "ranks", a->ranks);
		json_kv_string(&j, "topology", desc);
		json_key(&j, "sizes");
		json_array_begin(&j);
	} else {
		printf("# %s, %u ranks; %s\n# %14s  %-12s %12s", cs_coll_name((unsigned int)a->coll),
		       a->ranks, desc, "size", "best", "formula_us");
		printf(a->timed ? "  %-12s %12s\n" : "\n", "timed_best", "timed_us");
	}
	for (b = a->min; b <= a->max && nsizes < 64; b *= 2) {
		const struct row *best;
		uint64_t bytes = b < 4 * (uint64_t)a->ranks ? 4 * (uint64_t)a->ranks : b;

		bytes -= bytes % (4 * (uint64_t)a->ranks);
		rows_free(rows, n);
		n = plan_rows(a, t, bytes, rows, 64);
		best = best_row(rows, n);
		if (a->timed)
			timed_rows(a, w, bytes, rows, n);
		xs[nsizes] = (double)bytes;
		chosen[nsizes] = best ? best->al->name : NULL;
		for (i = 0; i < n; i++)
			ys[i][nsizes] = rows[i].why ? -1 : rows[i].us;
		if (a->json) {
			json_object_begin(&j);
			json_kv_uint(&j, "size", (unsigned long long)bytes);
			json_kv_string(&j, "chosen", best ? best->al->name : NULL);
			json_key(&j, "algorithms");
			json_array_begin(&j);
			for (i = 0; i < n; i++) {
				if (rows[i].why)
					continue;
				json_object_begin(&j);
				json_kv_string(&j, "algo", rows[i].al->name);
				json_kv_double(&j, "formula_us", rows[i].us, 4);
				if (rows[i].timed_us >= 0)
					json_kv_double(&j, "timed_us", rows[i].timed_us, 4);
				json_object_end(&j);
			}
			json_array_end(&j);
			json_object_end(&j);
		} else if (best) {
			const struct row *tb = a->timed ? fastest_timed(rows, n) : NULL;

			printf("  %14llu  %-12s %12.3f", (unsigned long long)bytes, best->al->name,
			       best->us);
			if (tb)
				printf("  %-12s %12.3f", tb->al->name, tb->timed_us);
			else if (a->timed)
				printf("  %-12s %12s", "-", "-");
			printf("%s\n", prev && strcmp(prev, best->al->name) ? "  <- crossover" : "");
		}
		if (best && !a->json && prev && strcmp(prev, best->al->name))
			fprintf(stdout, "# crossover at %llu bytes: %s -> %s\n",
				(unsigned long long)bytes, prev, best->al->name);
		prev = best ? best->al->name : prev;
		nsizes++;
		if (b > UINT64_MAX / 2)
			break;
	}
	if (a->json) {
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
	}
	rows_free(rows, n);
	timed_close(w);
	if (a->timed && !w)
		fprintf(stderr, "ccore-plan: no timed runs: %s\n", err ?: "out of memory");
	free(err);
	if (a->svg) {
		struct svg_chart c = { .xlabel = "size (bytes)", .ylabel = "time (us, alpha-beta)",
				       .log_x = 1, .log_y = 1, .series = series,
				       .chosen_x = xs, .chosen = chosen, .nchosen = nsizes };
		char title[160];
		FILE *out = fopen(a->svg, "w");

		for (i = 0; i < n; i++)
			for (k = 0; k < nsizes; k++)
				if (ys[i][k] > 0) {
					series[c.nseries++] = (struct svg_series){
						rows[i].al->name, xs, ys[i], nsizes };
					break;
				}
		snprintf(title, sizeof(title), "%s, %u ranks: time per algorithm",
			 cs_coll_name((unsigned int)a->coll), a->ranks);
		c.title = title;
		if (!out || svg_write_chart(out, &c) || fclose(out)) {
			fprintf(stderr, "ccore-plan: --svg %s: %s\n", a->svg,
				out ? "no algorithm applies at any size" : strerror(errno));
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct plan_args a;
	struct tune_hw hw;
	struct tune_topo t;
	struct row rows[64];
	const struct row *b;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc;
	if (tuner_init() || select_init()) {
		fprintf(stderr, "ccore-plan: %s\n", ccore_last_error());
		return 1;
	}
	if (hw_of(&hw))
		return 2;
	if (a.regret)
		return regret_run(a.quick, &hw);
	topo_of(&a, &hw, &t);
	if (a.sweep)
		return plan_sweep(&a, &t);
	rc = plan_one(&a, &t);
	if (rc || !a.diagram)
		return rc;
	b = best_row(rows, plan_rows(&a, &t, a.size, rows, 64));
	if (!b) {
		fprintf(stderr, "ccore-plan: %s cannot run this shape; nothing to draw\n", a.algo);
		return 1;
	}
	return draw(&a, b->al);
}
