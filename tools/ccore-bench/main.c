// SPDX-License-Identifier: MIT
/* ccore-bench: benchmarks of the ccore device model and runtime. */
#include "bench.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ccore-bench [--copy] [options]\n"
		"\n"
		"Default mode: ring AllReduce over simulated ranks, printed as an nccl-tests\n"
		"table (in place, float, sum).\n"
		"  --copy            instead: device COPY throughput vs host memcpy (max size)\n"
		"\n"
		"  --ranks N         ranks (logical cores across devices), default 8\n"
		"  -b, --minbytes S  smallest size, default 8 (K/M/G suffixes)\n"
		"  -e, --maxbytes S  largest size, default 64M\n"
		"  -f, --stepfactor F  multiply the size by F each step, default 2\n"
		"  -n, --iters N     timed iterations per size, default 20\n"
		"  -w, --warmup_iters N  untimed iterations first, default 2\n"
		"  -c, --check 0|1   check results, default 1\n"
		"  --device BACKEND  sim (default) or accel; default $CCORE_DEVICE\n"
		"  --sim CONFIG      simulated fabric (see ccore-info --sim-help); default $CCORE_SIM\n"
		"  -h, --help        this text\n");
}

static int parse_size(const char *flag, const char *s, size_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		goto bad;
	switch (*end) {
	case 'K': case 'k': v <<= 10; end++; break;
	case 'M': case 'm': v <<= 20; end++; break;
	case 'G': case 'g': v <<= 30; end++; break;
	default: break;
	}
	if (*end || v == 0 || v > (1ull << 40))
		goto bad;
	*out = (size_t)v;
	return 0;
bad:
	fprintf(stderr, "ccore-bench: %s '%s': expected a size from 1 to 1T bytes, e.g. 8, 64K, 1M\n",
		flag, s);
	return -1;
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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "copy", no_argument, NULL, 'C' },
		{ "ranks", required_argument, NULL, 'r' },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup_iters", required_argument, NULL, 'w' },
		{ "check", required_argument, NULL, 'c' },
		{ "device", required_argument, NULL, 'D' },
		{ "sim", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct bench_opts o = {
		.ranks = 8, .min_bytes = 8, .max_bytes = 64u << 20, .step_factor = 2,
		.iters = 20, .warmup = 2, .check = true,
	};
	bool copy = false;
	int c, v, bad = 0;

	while ((c = getopt_long(argc, argv, "b:e:f:n:w:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'C': copy = true; break;
		case 'r': bad |= parse_int("--ranks", optarg, 1, 4096, &o.ranks); break;
		case 'b': bad |= parse_size("-b", optarg, &o.min_bytes); break;
		case 'e': bad |= parse_size("-e", optarg, &o.max_bytes); break;
		case 'f': bad |= parse_int("-f", optarg, 1, 1024, &o.step_factor); break;
		case 'n': bad |= parse_int("-n", optarg, 1, 1000000, &o.iters); break;
		case 'w': bad |= parse_int("-w", optarg, 0, 1000000, &o.warmup); break;
		case 'c': bad |= parse_int("-c", optarg, 0, 1, &v); o.check = v; break;
		case 'D': o.backend = optarg; break;
		case 's': o.sim = optarg; break;
		case 'h': usage(stdout); return 0;
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
	if (bad)
		return 2;
	return copy ? bench_copy(&o) : bench_ring_allreduce(&o);
}
