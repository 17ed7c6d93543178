// SPDX-License-Identifier: MIT
/*
 * ccore-bench as one process of a job of one process per rank
 * (Documentation/processes.rst): started by its own launcher (--procs N:
 * this process makes the unique id, starts N processes of itself with it
 * in the environment and waits for them; the first prints the table), or
 * by mpirun or another PMI launcher (OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/
 * SIZE), whose processes agree on CCORE_COMM_ID instead of passing an id:
 * no MPI call is needed.
 */
#include "bench.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ENV_ID "CCORE_BENCH_UNIQUE_ID"
#define ENV_PROC "CCORE_BENCH_PROC"
#define ENV_NPROCS "CCORE_BENCH_NPROCS"

/* $@name as a number in [lo, hi]; -2 if unset; -1 after saying it is bad. */
static int env_int(const char *name, int lo, int hi)
{
	const char *v = getenv(name);
	char *end;
	long x;

	if (!v)
		return -2;
	x = strtol(v, &end, 10);
	if (!*v || *end || x < lo || x > hi) {
		fprintf(stderr, "ccore-bench: %s=\"%s\" is not a number from %d to %d\n", name, v,
			lo, hi);
		return -1;
	}
	return (int)x;
}

/*
 * A launcher's rank and size variables: mpirun's, then PMI's; and how
 * many processes it put on this host, where it says (@host_procs 0: it
 * does not).
 */
static int launcher_rank(int *proc, int *nprocs, int *host_procs, const char **who)
{
	static const char *const vars[][4] = {
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
		  "mpirun (Open MPI)" },
		{ "PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS", "a PMI launcher" },
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		int size = env_int(vars[i][1], 1, 1024), rank;

		if (size == -2)
			continue;
		rank = env_int(vars[i][0], 0, size > 0 ? size - 1 : 0);
		if (size < 0 || rank < 0) {
			if (rank == -2)
				fprintf(stderr, "ccore-bench: %s is set but %s is not\n", vars[i][1],
					vars[i][0]);
			return -1;
		}
		*host_procs = env_int(vars[i][2], 1, size);
		if (*host_procs == -1)
			return -1;
		if (*host_procs < 0 || size % *host_procs)
			*host_procs = 0;	/* hosts of unequal shares: rank_place says so */
		*proc = rank;
		*nprocs = size;
		*who = vars[i][3];
		return 1;
	}
	return 0;
}

/*
 * Under mpirun without CCORE_COMM_ID: one every process of the job
 * derives alike from the launcher's job name, on this host (a job across
 * hosts sets CCORE_COMM_ID=RANK0_HOST:PORT itself).
 */
static int derive_comm_id(void)
{
	static const char *const jobs[] = { "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
					    "PMI_JOBID", "SLURM_JOB_ID" };
	char v[64];

	if (getenv("CCORE_COMM_ID"))
		return 0;
	for (size_t i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
		const char *j = getenv(jobs[i]);
		uint32_t h = 2166136261u;

		if (!j || !*j)
			continue;
		for (; *j; j++)
			h = (h ^ (uint8_t)*j) * 16777619u;
		snprintf(v, sizeof(v), "127.0.0.1:%u", 20000 + h % 30000);
		setenv("CCORE_COMM_ID", v, 1);
		return 0;
	}
	fprintf(stderr, "ccore-bench: under a launcher without CCORE_COMM_ID and no job name to derive one from (PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid, PMI_JOBID, SLURM_JOB_ID): set CCORE_COMM_ID=HOST:PORT of rank 0 for every process (mpirun -x CCORE_COMM_ID=127.0.0.1:29500 ...)\n");
	return -1;
}

int bench_procs_role(struct bench_opts *o, bool ranks_set)
{
	const char *who = "--procs";
	int proc = env_int(ENV_PROC, 0, 1023), nprocs = env_int(ENV_NPROCS, 1, 1024), rc;

	o->proc = -1;
	if (proc == -1 || nprocs == -1)
		return -1;
	if (proc >= 0 && nprocs > 0) {
		o->nprocs = nprocs;
	} else {
		rc = launcher_rank(&proc, &nprocs, &o->host_procs, &who);
		if (rc <= 0) {
			/* alone, or the launcher of --procs N */
			if (rc == 0 && o->nprocs && !ranks_set)
				o->ranks = o->nprocs;
			return rc;
		}
		if (o->nprocs) {
			fprintf(stderr, "ccore-bench: --procs %d under %s: the launcher starts the processes already; drop --procs\n",
				o->nprocs, who);
			return -1;
		}
		if (derive_comm_id())
			return -1;
		o->nprocs = nprocs;
	}
	if (!ranks_set)
		o->ranks = o->nprocs;
	if (o->ranks % o->nprocs) {
		fprintf(stderr, "ccore-bench: %d ranks in %d processes: every process runs as many ranks (-g must be a multiple of the processes)\n",
			o->ranks, o->nprocs);
		return -1;
	}
	if (proc >= o->nprocs) {
		fprintf(stderr, "ccore-bench: process %d of %d does not exist\n", proc, o->nprocs);
		return -1;
	}
	o->proc = proc;
	o->first_rank = proc * (o->ranks / o->nprocs);
	o->nlocal = o->ranks / o->nprocs;
	return 0;
}

int bench_procs_unique_id(struct ccore_unique_id *id)
{
	const char *hex = getenv(ENV_ID);

	if (!hex) {
		/* under mpirun: every process derives it from CCORE_COMM_ID */
		return ccore_get_unique_id(id);
	}
	if (strlen(hex) != 2 * sizeof(*id)) {
		fprintf(stderr, "ccore-bench: %s: %zu hex digits, not %zu (set by --procs)\n",
			ENV_ID, strlen(hex), 2 * sizeof(*id));
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(*id); i++) {
		unsigned int x;

		if (sscanf(hex + 2 * i, "%2x", &x) != 1) {
			fprintf(stderr, "ccore-bench: %s: not hex at digit %zu (set by --procs)\n",
				ENV_ID, 2 * i);
			return -EINVAL;
		}
		((unsigned char *)id)[i] = (unsigned char)x;
	}
	return 0;
}

int bench_procs_launch(const struct bench_opts *o)
{
	struct ccore_unique_id id;
	char hex[2 * sizeof(id) + 1], num[16];
	pid_t *pids = calloc((size_t)o->nprocs, sizeof(*pids));
	int worst = 0;

	if (!pids || ccore_get_unique_id(&id)) {
		fprintf(stderr, "ccore-bench: --procs: no unique id: %s\n",
			pids ? ccore_last_error() : "out of memory");
		free(pids);
		return 1;
	}
	for (size_t i = 0; i < sizeof(id); i++)
		snprintf(hex + 2 * i, 3, "%02x", ((unsigned char *)&id)[i]);
	setenv(ENV_ID, hex, 1);
	snprintf(num, sizeof(num), "%d", o->nprocs);
	setenv(ENV_NPROCS, num, 1);
	fflush(NULL);
	for (int p = 0; p < o->nprocs; p++) {
		pids[p] = fork();
		if (pids[p] < 0) {
			fprintf(stderr, "ccore-bench: --procs: fork: %s\n", strerror(errno));
			worst = 1;
			break;
		}
		if (pids[p] == 0) {
			snprintf(num, sizeof(num), "%d", p);
			setenv(ENV_PROC, num, 1);
			execv("/proc/self/exe", o->argv);
			fprintf(stderr, "ccore-bench: --procs: exec: %s\n", strerror(errno));
			_exit(127);
		}
	}
	for (int p = 0; p < o->nprocs && pids[p] > 0; p++) {
		int status, code;

		waitpid(pids[p], &status, 0);
		code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
		if (WIFSIGNALED(status))
			fprintf(stderr, "ccore-bench: --procs: process %d (pid %d) died of signal %d\n",
				p, pids[p], WTERMSIG(status));
		else if (code)
			fprintf(stderr, "ccore-bench: --procs: process %d (pid %d) exited with %d\n", p,
				pids[p], code);
		worst = code > worst ? code : worst;
	}
	free(pids);
	return worst;
}
