// SPDX-License-Identifier: GPL-2.0
/*
 * ccore_kfuzz: fuzz the ccore accel driver's ioctls from several processes,
 * or replay one of the findings it is meant to catch (see kfuzz.h for the
 * files).  Runs as root in the QEMU guest; linked statically.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfuzz.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: ccore_kfuzz [--seed N] [--seconds S] [--procs P] [OPTIONS]\n"
		"       ccore_kfuzz --scenario NAME|all\n"
		"       ccore_kfuzz --list\n"
		"\n"
		"Fuzz the ccore accel driver (/dev/accel/accelN) from P processes, each with\n"
		"several files on the ccore devices: every ccore ioctl and the generic DRM\n"
		"ones, with arguments built valid from what each file owns and then mutated;\n"
		"fds passed between the processes, processes killed during jobs and waits,\n"
		"sysfs and debugfs (fault injection) writes, fabrics created and deleted under\n"
		"open files.  Prints per-ioctl return-code counts at the end.  Exit status 1\n"
		"if a killed process would not die or the kernel log shows a splat.\n"
		"\n"
		"Random mode:\n"
		"  --seed N         what is generated follows from N (default 1)\n"
		"  --seconds S      how long (default 30)\n"
		"  --procs P        worker processes, 1..32 (default 4)\n"
		"  --files F        files each worker keeps open, 1..8 (default 3)\n"
		"  --wait-ms MS     longest deadline of any wait (default 50)\n"
		"  --no-fabrics     do not create or delete fabrics (ids 30..32)\n"
		"  --skip-known     avoid what the eight findings of issue 14 crash on\n"
		"                   (GET_MAGIC/GET_UNIQUE, huge syncobj counts, fabric\n"
		"                   deletion), to look for new bugs on an unfixed driver\n"
		"\n"
		"Scenario mode (TAP on stdout, exit status 1 if one fails):\n"
		"  --scenario NAME  replay one finding of issue 14, or all of them;\n"
		"                   NAME/CASE: only its cases whose names contain CASE\n"
		"                   (drm_core_ioctls/GET_UNIQUE)\n"
		"  --list           the scenarios\n"
		"\n"
		"Needs root, the ccore module and setup.sh's fabrics 0 and 1.\n");
}

/* @flag's argument @s as a whole number from @min to @max; false, saying so, if it is not. */
static bool int_option(const char *flag, const char *s, int min, int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "ccore_kfuzz: %s '%s': expected %d..%d\n", flag, s, min, max);
		return false;
	}
	*out = (int)v;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 'S' },
		{ "seconds", required_argument, NULL, 's' },
		{ "procs", required_argument, NULL, 'p' },
		{ "files", required_argument, NULL, 'f' },
		{ "wait-ms", required_argument, NULL, 'w' },
		{ "no-fabrics", no_argument, NULL, 'F' },
		{ "skip-known", no_argument, NULL, 'k' },
		{ "scenario", required_argument, NULL, 'n' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct kf_random_opts o = {
		.seed = 1, .seconds = 30, .procs = 4, .files = 3, .fabrics = true, .wait_ms = 50,
	};
	const char *scenario = NULL;
	unsigned long long seed;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'S':
			errno = 0;
			seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end) {
				fprintf(stderr, "ccore_kfuzz: --seed '%s': expected a number 0..2^64-1\n",
					optarg);
				return 2;
			}
			o.seed = seed;
			break;
		case 's':
			if (!int_option("--seconds", optarg, 1, 86400, &o.seconds))
				return 2;
			break;
		case 'p':
			if (!int_option("--procs", optarg, 1, 32, &o.procs))
				return 2;
			break;
		case 'f':
			if (!int_option("--files", optarg, 1, 8, &o.files))
				return 2;
			break;
		case 'w':
			if (!int_option("--wait-ms", optarg, 0, 10000, &o.wait_ms))
				return 2;
			break;
		case 'F':
			o.fabrics = false;
			break;
		case 'k':
			o.skip_known = true;
			break;
		case 'n':
			scenario = optarg;
			break;
		case 'l':
			kf_scenarios_list(stdout);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ccore_kfuzz: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (geteuid()) {
		fprintf(stderr, "ccore_kfuzz: needs root (sysfs, debugfs, the kernel log)\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (scenario)
		return kf_scenarios_run(scenario);
	return kf_random_run(&o);
}
