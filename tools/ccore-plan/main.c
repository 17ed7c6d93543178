// SPDX-License-Identifier: MIT
/*
 * ccore-plan: what would run for a collective, and why.  Lists every
 * algorithm that could serve (op, N, size) and why the others cannot, and
 * draws the space-time diagram of a schedule as SVG.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/algo.h"
#include "sched/cs.h"
#include "svg.h"

struct plan_args {
	int coll;
	uint32_t ranks;
	uint64_t size;
	const char *algo;
	const char *diagram;
	uint32_t slices;
	uint32_t root;
	int json;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: ccore-plan --op OP --ranks N --size BYTES [--algo NAME] [--slices S]\n"
		"                  [--root R] [--diagram FILE.svg] [--json]\n"
		"\n"
		"Show which algorithms can run a collective of BYTES per rank (f32) on N\n"
		"ranks, and why the others cannot.\n"
		"\n"
		"  --op OP           allreduce, allgather, reducescatter, alltoall,\n"
		"                    broadcast, reduce or sendrecv\n"
		"  --ranks N         ranks, 1..4096\n"
		"  --size BYTES      message size (K, M, G suffixes; a multiple of 4)\n"
		"  --algo NAME       only this algorithm\n"
		"  --slices S        pipeline slices per chunk (default 1)\n"
		"  --root R          root rank of broadcast and reduce (default 0)\n"
		"  --diagram FILE    write the space-time diagram (ranks x steps, an arrow\n"
		"                    per transfer) of --algo's schedule as SVG\n"
		"  --json            print a JSON object instead of the table\n"
		"  -h, --help        this usage text\n");
}

static int parse_u64(const char *flag, const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end != s) {
		if (*end == 'K' || *end == 'k')
			v <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			v <<= 20, end++;
		else if (*end == 'G' || *end == 'g')
			v <<= 30, end++;
	}
	if (end == s || *end || errno || v > max || s[0] == '-') {
		fprintf(stderr, "ccore-plan: %s '%s': expected a number from 0 to %llu\n", flag, s,
			(unsigned long long)max);
		return -1;
	}
	*out = v;
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	memset(a, 0, sizeof(*a));
	a->coll = -1;
	a->slices = 1;
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
		case 'h':
			usage(stdout);
			exit(0);
		default:
			fprintf(stderr, "ccore-plan: see --help\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ccore-plan: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (a->coll < 0 || !a->ranks || !a->size) {
		fprintf(stderr, "ccore-plan: --op, --ranks and --size are required (see --help)\n");
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

static struct cs_shape shape_of(const struct plan_args *a)
{
	struct cs_shape sh = {
		.coll = (uint8_t)a->coll, .nranks = a->ranks, .count = a->size / 4,
		.root = a->root, .peer = a->ranks > 1 ? (a->root + 1) % a->ranks : 0,
	};

	return sh;
}

static int draw(const struct plan_args *a, const struct algo *al)
{
	struct algo_opts o = { .slices = a->slices, .channels = 1 };
	struct cs_shape sh = shape_of(a);
	struct cs_sched *s;
	char title[160], err[160];
	FILE *out;
	int rc;

	s = al->gen(&sh, &o);
	if (!s || s->oom) {
		fprintf(stderr, "ccore-plan: out of memory generating the %s schedule\n", al->name);
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

int main(int argc, char **argv)
{
	struct plan_args a;
	struct cs_shape sh;
	struct algo_opts o;
	const struct algo *al, *chosen = NULL;
	unsigned int i, shown = 0;
	const char *why;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc;
	sh = shape_of(&a);
	o = (struct algo_opts){ .slices = a.slices, .channels = 1 };
	if (a.json)
		printf("{\"op\":\"%s\",\"ranks\":%u,\"size\":%llu,\"algorithms\":[",
		       cs_coll_name(sh.coll), a.ranks, (unsigned long long)a.size);
	else
		printf("# %s, %u ranks, %llu bytes per rank\n# %-12s %s\n", cs_coll_name(sh.coll),
		       a.ranks, (unsigned long long)a.size, "algorithm", "applies");
	for (i = 0; i < algo_count(); i++) {
		al = algo_at(i);
		if (!(al->colls & (1u << sh.coll)) || (a.algo && strcmp(a.algo, al->name)))
			continue;
		why = al->rejects ? al->rejects(&sh, &o) : NULL;
		if (!why && !chosen)
			chosen = al;
		if (a.json)
			printf("%s{\"algo\":\"%s\",\"applies\":%s%s%s%s}", shown ? "," : "", al->name,
			       why ? "false" : "true", why ? ",\"why\":\"" : "", why ? why : "",
			       why ? "\"" : "");
		else
			printf("  %-12s %s\n", al->name, why ? why : "yes");
		shown++;
	}
	if (a.json)
		printf("]}\n");
	if (!shown) {
		fprintf(stderr, "ccore-plan: no algorithm called '%s' serves %s\n",
			a.algo ? a.algo : "", cs_coll_name(sh.coll));
		return 1;
	}
	if (a.diagram) {
		if (!chosen) {
			fprintf(stderr, "ccore-plan: %s cannot run this shape; nothing to draw\n",
				a.algo);
			return 1;
		}
		return draw(&a, chosen);
	}
	return 0;
}
