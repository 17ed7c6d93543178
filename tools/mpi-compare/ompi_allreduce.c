// SPDX-License-Identifier: MIT
/*
 * The Open MPI side of `make bench-compare`: MPI_Allreduce of floats (sum)
 * over the same sizes and iteration counts as ccore-bench, printing
 * "size time_us busbw" per line (busbw with nccl-tests' 2(n-1)/n factor).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	size_t min = 8, max = 64u << 20;
	int iters = 20, warmup = 5, rank, n;
	float *send, *recv;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	if (argc > 1)
		min = strtoull(argv[1], NULL, 10);
	if (argc > 2)
		max = strtoull(argv[2], NULL, 10);
	if (argc > 3)
		iters = atoi(argv[3]);
	send = malloc(max);
	recv = malloc(max);
	for (size_t i = 0; i < max / sizeof(float); i++)
		send[i] = (float)(rank + 1);
	for (size_t bytes = min; bytes <= max; bytes *= 2) {
		int count = (int)(bytes / sizeof(float));
		double t;

		for (int i = 0; i < warmup; i++)
			MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		t = MPI_Wtime();
		for (int i = 0; i < iters; i++)
			MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
		t = (MPI_Wtime() - t) / iters * 1e6;
		if (rank == 0)
			printf("%zu %.2f %.4f\n", bytes, t,
			       (double)bytes / t / 1e3 * 2.0 * (n - 1) / n);
		fflush(stdout);
	}
	free(send);
	free(recv);
	MPI_Finalize();
	return 0;
}
