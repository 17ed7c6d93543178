/* SPDX-License-Identifier: MIT */
/* ccore-plan's command line: what it asks for, parsed and checked (args.c). */
#ifndef CCORE_PLAN_ARGS_H
#define CCORE_PLAN_ARGS_H

#include <stdint.h>

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
	double net_alpha_us, net_bw_gbps;	/* --topology net-alpha-us, net-bw-gbps */
	int have_net_alpha, have_net_bw;
	int sweep;
	uint64_t min, max;
	int timed;		/* 1: the timed-model column; 0: --no-timed */
	int timed_set;
	int regret;		/* 1: --regret, 2: --regret --quick */
	int quick;
};

/*
 * Parse and check @argv into @a: 0, or 2 for bad input (a message on
 * stderr names the flag and what it accepts).  --help and --version
 * print and exit.
 */
int parse_args(int argc, char **argv, struct plan_args *a);

#endif
