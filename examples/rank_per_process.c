// SPDX-License-Identifier: MIT
/*
 * AllReduce with one communicator per rank, each created by its own rank
 * with ccore_comm_init_rank(), the way jobs started by mpirun, torchrun or
 * a scheduler use libccore (README, "One process per rank";
 * Documentation/processes.rst).  Every rank's buffer holds rank + i % 7 at
 * element i; after a sum AllReduce every rank checks the sum over the ranks.
 *
 *   rank_per_process --procs N     a launcher: makes the unique id, starts
 *                                  N processes (itself, with --rank R) and
 *                                  waits for them
 *   rank_per_process --threads N   N ranks as threads of this process
 *   under a launcher:              the rank and size from $OMPI_COMM_WORLD_RANK
 *                                  and _SIZE (mpirun), $PMI_RANK and $PMI_SIZE,
 *                                  or $RANK and $WORLD_SIZE (torchrun); every
 *                                  process sets CCORE_COMM_ID=host:port, so no
 *                                  id is passed: mpirun -np 4 -x
 *                                  CCORE_COMM_ID=127.0.0.1:29500 ./rank_per_process
 */
#include <ccore.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define COUNT (1u << 16)	/* floats per rank */

static struct ccore_unique_id id;
static int nranks;

/* One rank's whole life: its communicator, a buffer, the AllReduce, the check. */
static int run_rank(int rank)
{
	struct ccore_comm *comm;
	ccore_ptr buf;
	float *host;
	long wrong = 0;
	int rc;

	rc = ccore_comm_init_rank(&comm, nranks, &id, rank, NULL);
	if (rc) {
		fprintf(stderr, "rank %d: ccore_comm_init_rank: %s (%d)\n", rank, ccore_last_error(),
			rc);
		return 1;
	}
	rc = ccore_mem_alloc(comm, COUNT * sizeof(float), &buf);
	host = rc ? NULL : ccore_mem_host(comm, buf);
	for (unsigned int i = 0; host && i < COUNT; i++)
		host[i] = (float)(rank + i % 7);
	/* in place; the call returns at once, the sync waits for the peers and the device */
	rc = rc ?: ccore_all_reduce(buf, buf, COUNT, ccore_f32, ccore_sum, comm, NULL) ?:
	     ccore_stream_sync(ccore_comm_stream(comm));
	if (rc) {
		fprintf(stderr, "rank %d: %s (%d)\n", rank, ccore_last_error(), rc);
		ccore_comm_destroy(comm);
		return 1;
	}
	for (unsigned int i = 0; i < COUNT; i++)
		wrong += host[i] != (float)(nranks * (nranks - 1) / 2 + nranks * (int)(i % 7));
	printf("rank %d of %d: %u floats, sum with %s: %s\n", rank, nranks, COUNT,
	       ccore_comm_last_algo(comm), wrong ? "WRONG" : "correct");
	ccore_comm_destroy(comm);
	return wrong ? 1 : 0;
}

static void *rank_thread(void *arg)
{
	return (void *)(long)run_rank((int)(long)arg);
}

/* --threads N: every rank in this process, a thread each. */
static int threads(void)
{
	pthread_t t[256];
	int failed = 0;

	if (ccore_get_unique_id(&id)) {
		fprintf(stderr, "ccore_get_unique_id: %s\n", ccore_last_error());
		return 1;
	}
	for (long r = 0; r < nranks; r++)
		pthread_create(&t[r], NULL, rank_thread, (void *)r);
	for (int r = 0; r < nranks; r++) {
		void *rc;

		pthread_join(t[r], &rc);
		failed |= rc != NULL;
	}
	return failed;
}

/* The id as hex, to pass on a command line. */
static void id_hex(char *out)
{
	for (size_t i = 0; i < sizeof(id.internal); i++)
		sprintf(out + 2 * i, "%02x", id.internal[i]);
}

static int id_parse(const char *hex)
{
	if (strlen(hex) != 2 * sizeof(id.internal))
		return -1;
	for (size_t i = 0; i < sizeof(id.internal); i++) {
		unsigned int b;

		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		id.internal[i] = (unsigned char)b;
	}
	return 0;
}

/* --procs N: make the id, start a process per rank (this program again), wait. */
static int procs(const char *self)
{
	char hex[2 * sizeof(id.internal) + 1], rank[16], size[16];
	int failed = 0;

	if (ccore_get_unique_id(&id)) {
		fprintf(stderr, "ccore_get_unique_id: %s\n", ccore_last_error());
		return 1;
	}
	id_hex(hex);
	snprintf(size, sizeof(size), "%d", nranks);
	for (int r = 0; r < nranks; r++) {
		pid_t pid = fork();

		if (pid == 0) {
			snprintf(rank, sizeof(rank), "%d", r);
			execl(self, self, "--rank", rank, "--nranks", size, "--id", hex, (char *)NULL);
			_exit(127);
		}
		failed |= pid < 0;
	}
	/* this process runs the root (ccore_get_unique_id): it stays until the ranks are done */
	for (int r = 0; r < nranks; r++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	}
	return failed;
}

static const char *env_first(const char *a, const char *b, const char *c)
{
	return getenv(a) ? getenv(a) : getenv(b) ? getenv(b) : getenv(c);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rank_per_process --procs N | --threads N | --rank R --nranks N --id HEX\n"
		   "       (or under mpirun/torchrun with CCORE_COMM_ID=host:port set everywhere)\n");
}

int main(int argc, char **argv)
{
	const char *rank = env_first("OMPI_COMM_WORLD_RANK", "PMI_RANK", "RANK");
	const char *size = env_first("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "WORLD_SIZE");

	if (argc == 2 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "--procs") || !strcmp(argv[1], "--threads"))) {
		nranks = atoi(argv[2]);
		if (nranks < 1 || nranks > 256) {
			fprintf(stderr, "rank_per_process: %s %s: give 1 to 256 ranks\n", argv[1], argv[2]);
			return 2;
		}
		return !strcmp(argv[1], "--procs") ? procs(argv[0]) : threads();
	}
	if (argc == 7 && !strcmp(argv[1], "--rank") && !strcmp(argv[3], "--nranks") &&
	    !strcmp(argv[5], "--id")) {
		nranks = atoi(argv[4]);
		if (id_parse(argv[6])) {
			fprintf(stderr, "rank_per_process: --id: not the %zu hex digits of a unique id\n",
				2 * sizeof(id.internal));
			return 2;
		}
		return run_rank(atoi(argv[2]));
	}
	if (argc == 1 && rank && size && getenv("CCORE_COMM_ID")) {
		/* every rank derives the id from CCORE_COMM_ID */
		nranks = atoi(size);
		if (ccore_get_unique_id(&id)) {
			fprintf(stderr, "ccore_get_unique_id: %s\n", ccore_last_error());
			return 1;
		}
		return run_rank(atoi(rank));
	}
	usage(stderr);
	return 2;
}
