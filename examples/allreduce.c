// SPDX-License-Identifier: MIT
/*
 * AllReduce over 4 ranks (2 simulated devices, 2 ranks each) with libccore:
 * the whole life of a program that links it.  Build it against an installed
 * libccore with examples/Makefile (pkg-config ccore); README, "Use libccore
 * from your program".
 *
 * Every rank's buffer holds rank + i % 7 at element i; after a sum
 * AllReduce every rank holds the sum over the ranks, which is checked.
 */
#include <ccore.h>

#include <stdio.h>
#include <stdlib.h>

#define RANKS 4
#define COUNT (1u << 18)	/* floats per rank: 1 MiB */

/* Print what failed (ccore_last_error() names it) and exit. */
static void check(int rc, const char *what)
{
	if (rc < 0) {
		fprintf(stderr, "allreduce: %s: %s (%d)\n", what, ccore_last_error(), rc);
		exit(1);
	}
}

int main(void)
{
	/* where the ranks live: the sim backend (the default) shapes its devices to fit */
	struct ccore_topology topo = { .nodes = 1, .devices_per_node = 2, .ranks_per_device = 2 };
	/* start from the initializer: it tells the library which layout this is */
	struct ccore_comm_config config = CCORE_COMM_CONFIG_INIT;
	struct ccore_comm *comm[RANKS];
	ccore_ptr buf[RANKS];
	long wrong = 0;
	int version;

	check(ccore_get_version(&version), "ccore_get_version");
	check(ccore_comm_init_all_config(&topo, &config, comm), "ccore_comm_init_all_config");
	for (int r = 0; r < RANKS; r++) {
		float *host;

		check(ccore_mem_alloc(comm[r], COUNT * sizeof(float), &buf[r]), "ccore_mem_alloc");
		host = ccore_mem_host(comm[r], buf[r]);
		for (unsigned int i = 0; i < COUNT; i++)
			host[i] = (float)(r + i % 7);
	}

	/* one call per rank, in place; it launches once every rank has posted */
	for (int r = 0; r < RANKS; r++)
		check(ccore_all_reduce(buf[r], buf[r], COUNT, ccore_f32, ccore_sum, comm[r], NULL),
		      "ccore_all_reduce");
	for (int r = 0; r < RANKS; r++)
		check(ccore_stream_sync(ccore_comm_stream(comm[r])), "ccore_stream_sync");

	/* sum over r of (r + i % 7) = RANKS * (RANKS - 1) / 2 + RANKS * (i % 7) */
	for (int r = 0; r < RANKS; r++) {
		const float *host = ccore_mem_host(comm[r], buf[r]);

		for (unsigned int i = 0; i < COUNT; i++)
			if (host[i] != (float)(RANKS * (RANKS - 1) / 2 + RANKS * (i % 7)))
				wrong++;
	}
	printf("allreduce: %d ranks, %u floats each, sum with %s: %s\n", RANKS, COUNT,
	       ccore_comm_last_algo(comm[0]), wrong ? "WRONG" : "correct");
	printf("allreduce: libccore %d.%d.%d (built with %s)\n", version / 10000,
	       version / 100 % 100, version % 100, CCORE_VERSION_STRING);

	for (int r = 0; r < RANKS; r++) {
		check(ccore_mem_free(comm[r], buf[r]), "ccore_mem_free");
		check(ccore_comm_destroy(comm[r]), "ccore_comm_destroy");
	}
	return wrong ? 1 : 0;
}
