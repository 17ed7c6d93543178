// SPDX-License-Identifier: MIT
/*
 * The Open MPI side of the comparisons (scripts/bench-compare.sh, one
 * host; scripts/bench-hosts.sh, across hosts): one collective of floats
 * over the same sizes and iteration counts as ccore-bench, printing
 * "size time_us busbw" per size as rank 0 sees it.
 *
 * Sizes and busbw follow nccl-tests, so the rows join ccore-bench's: the
 * size is the whole buffer (AllGather's output, ReduceScatter's input) and
 * busbw is algbw times 2(n-1)/n for AllReduce, (n-1)/n for the others.
 *
 * Usage: ompi_coll OP [MIN [MAX [ITERS [WARMUP]]]]
 *        OP: allreduce, allgather or reducescatter
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum coll { ALLREDUCE, ALLGATHER, REDUCESCATTER };

static int parse_coll(const char *name, enum coll *c)
{
	static const char *const names[] = { "allreduce", "allgather", "reducescatter" };

	for (int i = 0; i < 3; i++) {
		if (!strcmp(name, names[i])) {
			*c = (enum coll)i;
			return 0;
		}
	}
	return -1;
}

/* One call of @c on @bytes, the whole buffer as nccl-tests counts it. */
static void run(enum coll c, const float *send, float *recv, size_t bytes, int n)
{
	int count = (int)(bytes / sizeof(float));

	switch (c) {
	case ALLREDUCE:
		MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		break;
	case ALLGATHER:
		MPI_Allgather(send, count / n, MPI_FLOAT, recv, count / n, MPI_FLOAT,
			      MPI_COMM_WORLD);
		break;
	case REDUCESCATTER:
		MPI_Reduce_scatter_block(send, recv, count / n, MPI_FLOAT, MPI_SUM,
					 MPI_COMM_WORLD);
		break;
	}
}

int main(int argc, char **argv)
{
	size_t min = 8, max = 64u << 20;
	int iters = 20, warmup = 5, rank, n;
	enum coll c;
	float *send, *recv;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc < 2 || parse_coll(argv[1], &c)) {
		if (rank == 0)
			fprintf(stderr, "usage: ompi_coll allreduce|allgather|reducescatter [MIN [MAX [ITERS [WARMUP]]]]\n");
		MPI_Finalize();
		return 2;
	}
	if (argc > 2)
		min = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		max = strtoull(argv[3], NULL, 10);
	if (argc > 4)
		iters = atoi(argv[4]);
	if (argc > 5)
		warmup = atoi(argv[5]);
	send = malloc(max);
	recv = malloc(max);
	if (!send || !recv || !min || iters < 1) {
		if (rank == 0)
			fprintf(stderr, "ompi_coll: MIN and ITERS must be 1 or more, MAX small enough to allocate\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (size_t i = 0; i < max / sizeof(float); i++)
		send[i] = (float)(rank + 1);
	for (size_t bytes = min; bytes <= max; bytes *= 2) {
		double t, factor = c == ALLREDUCE ? 2.0 * (n - 1) / n : (double)(n - 1) / n;

		/* nccl-tests' sizes: a whole number of floats for every rank */
		if (c != ALLREDUCE && bytes < sizeof(float) * (size_t)n)
			continue;
		for (int i = 0; i < warmup; i++)
			run(c, send, recv, bytes, n);
		MPI_Barrier(MPI_COMM_WORLD);
		t = MPI_Wtime();
		for (int i = 0; i < iters; i++)
			run(c, send, recv, bytes, n);
		t = (MPI_Wtime() - t) / iters * 1e6;
		if (rank == 0)
			printf("%zu %.2f %.4f\n", bytes, t, (double)bytes / t / 1e3 * factor);
		fflush(stdout);
	}
	free(send);
	free(recv);
	MPI_Finalize();
	return 0;
}
