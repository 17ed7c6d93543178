// SPDX-License-Identifier: GPL-2.0
/*
 * The timed device model in the ideal setting (CCORE_SIM ideal=1: one tier,
 * no contention, no CC-core or semaphore overheads, a rank's local copies
 * and reductions free) against the α-β formulas of the reference
 * (/work/shared/reference: CA = collective-algorithms.txt, IN =
 * internode-collectives.txt), within 1%: every algorithm the reference
 * gives a formula for, N in {4, 8, 16, 64, 256, 1024}, M from 1 KiB to
 * 1 GiB.  Each run goes through the real runtime (plan, lower, CC programs,
 * DMA rings) on virtual buffers; a tuning file forces the algorithm with
 * one slice and one channel, so every block is one descriptor, as the
 * closed forms count it.  The expected times are written here from the
 * reference, not taken from runtime/tune/cost_*.c; that the tuner's
 * formulas (CCORE_TUNER_IDEAL=1, asked through ccore_plan_query()) agree
 * with them is checked at the same points.
 *
 * M is nccl-tests' size: the per-rank buffer of AllReduce, Broadcast and
 * Reduce, the N-block buffer of AllGather (output), ReduceScatter (input)
 * and AllToAll.  Elements are bytes (u8), so 1 KiB over 1024 ranks is one
 * element per block.
 *
 * The whole grid takes about 14 minutes of CPU and 6 GB (planning PAT and
 * the N^2 transfers of Mesh and pairwise at N = 1024); by default a sample
 * runs (see sampled()): every case at its largest M, and at N = 1024 those
 * that plan there in well under a second.  CCORE_TEST_FULL=1 runs every
 * point.  Each case logs the points it ran.
 */
#include "ccore_test.h"
#include "timed_world.h"
#include "tuner_file.h"
#include "ccore.h"

#include <math.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

#define ALPHA_US 2.0
#define BW_GBYTES 100.0		/* 800 Gbit/s: 100 bytes per ns */
#define KIB 1024.0
#define GIB (1024.0 * 1024 * 1024)

enum op { AG, RS, AR, A2A, BC, RD };

static const char *const op_names[] = {
	"allgather", "reducescatter", "allreduce", "alltoall", "broadcast", "reduce",
};

static const enum ccore_coll_op plan_ops[] = {
	ccore_op_allgather, ccore_op_reducescatter, ccore_op_allreduce,
	ccore_op_alltoall, ccore_op_broadcast, ccore_op_reduce,
};

/* --- the reference's formulas (α = ALPHA_US, BW = BW_GBYTES) ------------ */

static double alpha(void)
{
	return ALPHA_US;
}

/* M / BW in µs */
static double beta(double m)
{
	return m / (BW_GBYTES * 1e3);
}

static double lg(int n)
{
	int l = 0;

	while ((1 << l) < n)
		l++;
	return l;
}

/* CA §6: (N-1)α + (N-1)/N·M/BW, for AG and RS alike */
static double ring_agrs(int n, double m)
{
	return (n - 1) * alpha() + (n - 1.0) / n * beta(m);
}

/* CA §5.1: 2(N-1)α + 2(N-1)/N·M/BW */
static double ring_ar(int n, double m)
{
	return 2 * (n - 1) * alpha() + 2 * (n - 1.0) / n * beta(m);
}

/*
 * IN "Mesh": one step whose traffic per rank is (N-1)·C, C = M/N, all of
 * it through the rank's one port: α + (N-1)/N·M/BW for AG and RS.
 */
static double mesh_agrs(int n, double m)
{
	return alpha() + (n - 1.0) / n * beta(m);
}

/* IN "Mesh AllReduce": RS then AG, two steps, 2·(N-1)·C */
static double mesh_ar(int n, double m)
{
	return 2 * alpha() + 2 * (n - 1.0) / n * beta(m);
}

/* IN "Single-step Mesh": one step, (N-1)·N·C = (N-1)·M through one port */
static double mesh_oneshot(int n, double m)
{
	return alpha() + (n - 1) * beta(m);
}

/* CA App. B.4: log2(N)α + (N-1)/N·M/BW (recursive doubling AG, halving RS) */
static double rdh_agrs(int n, double m)
{
	return lg(n) * alpha() + (n - 1.0) / n * beta(m);
}

/* CA App. B.2 (Rabenseifner): 2 log2(N)α + 2(N-1)/N·M/BW */
static double rdh_ar(int n, double m)
{
	return 2 * lg(n) * alpha() + 2 * (n - 1.0) / n * beta(m);
}

/* CA App. A: ⌈log2 N⌉α + (N-1)/N·M/BW */
static double pat_agrs(int n, double m)
{
	return lg(n) * alpha() + (n - 1.0) / n * beta(m);
}

/* CA §7.2: (N-1)α + (N-1)/N·M/BW */
static double pairwise(int n, double m)
{
	return (n - 1) * alpha() + (n - 1.0) / n * beta(m);
}

/* CA §3.2 and §4.2, P = 1: ⌈log2 N⌉(α + M/BW) */
static double binomial(int n, double m)
{
	return lg(n) * (alpha() + beta(m));
}

/* CA §3.1 and §4.1, P = 1: (N + P - 2)(α + M/(P·BW)) = (N-1)(α + M/BW) */
static double chain(int n, double m)
{
	return (n - 1) * (alpha() + beta(m));
}

/* --- the cases -------------------------------------------------------------- */

struct fcase {
	const char *algo;
	enum op op;
	double (*want)(int n, double m);
	/*
	 * Extra CCORE_SIM keys where the formula assumes something the
	 * default device does not give (none now: the ideal setting has
	 * Mesh's one port per rank whatever the engines).
	 */
	const char *sim;	/* NULL: none */
	double max_m_1024;	/* 0: 1 GiB; else the largest M at N = 1024 */
	const char *pat_buffer;	/* CCORE_PAT_BUFFER for the case, or NULL */
	/*
	 * Left out of the default sample at N = 1024, to keep it to a few
	 * seconds: planning and lowering there take from half a second of
	 * CPU (RDH AG/RS, binomial and chain Reduce) to 2-4 s (Ring's 2N(N-1)
	 * transfers), 5-15 s (Mesh's and pairwise's N(N-1)) and over a
	 * minute (PAT).
	 */
	bool slow;
};

static const struct fcase cases[] = {
	{ .algo = "ring", .op = AG, .want = ring_agrs, .slow = true },
	{ .algo = "ring", .op = RS, .want = ring_agrs, .slow = true },
	{ .algo = "ring", .op = AR, .want = ring_ar, .slow = true },
	{ .algo = "mesh", .op = AG, .want = mesh_agrs, .slow = true },
	{ .algo = "mesh", .op = RS, .want = mesh_agrs, .slow = true },
	{ .algo = "mesh", .op = AR, .want = mesh_ar, .slow = true },
	/*
	 * Single-step Mesh stages the N-2 copies of M it cannot reduce on
	 * arrival: (N-2)·M of device memory per rank, which at N = 1024
	 * fits the model's largest HBM (1 TiB per device, 8 ranks each)
	 * only up to M = 64 MiB (32 MiB on the grid).
	 */
	{ .algo = "mesh_oneshot", .op = AR, .want = mesh_oneshot,
	  .max_m_1024 = 64.0 * 1024 * 1024, .slow = true },
	/* every N of the grid is a power of two, as RDH's formula needs */
	{ .algo = "rdh", .op = AG, .want = rdh_agrs, .slow = true },
	{ .algo = "rdh", .op = RS, .want = rdh_agrs, .slow = true },
	{ .algo = "rdh", .op = AR, .want = rdh_ar },
	/*
	 * No DBT: §5.2's 2Lα + L·M/BW gives an interior rank a port for each
	 * of its two children (the reference's port budget); the ideal model
	 * has one port per rank, through which the two halves go one after
	 * the other.  ideal_sweep_test checks DBT's price against the timed
	 * model instead.
	 */
	/*
	 * PAT's formula is its fully aggregated schedule (the reversed
	 * Bruck), which needs a staging buffer for the largest message (N/2
	 * blocks, twice over, about 2M): by default PAT stages four blocks
	 * and runs linear steps.
	 */
	{ .algo = "pat", .op = AG, .want = pat_agrs, .pat_buffer = "4G", .slow = true },
	{ .algo = "pat", .op = RS, .want = pat_agrs, .pat_buffer = "4G", .slow = true },
	{ .algo = "pairwise", .op = A2A, .want = pairwise, .slow = true },
	{ .algo = "binomial", .op = BC, .want = binomial },
	{ .algo = "binomial", .op = RD, .want = binomial, .slow = true },
	{ .algo = "chain", .op = BC, .want = chain },
	{ .algo = "chain", .op = RD, .want = chain, .slow = true },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static const int grid_n[] = { 4, 8, 16, 64, 256, 1024 };
#define NN (sizeof(grid_n) / sizeof(grid_n[0]))
/* 1 KiB, 32 KiB, 1 MiB, 32 MiB, 1 GiB */
#define NM 5

static double grid_m(unsigned int j)
{
	return KIB * (double)(1u << (5 * j));
}

static bool full_grid(void)
{
	const char *v = getenv("CCORE_TEST_FULL");

	return v && *v && strcmp(v, "0");
}

/* Index of the largest size case @k runs at @n ranks. */
static unsigned int last_m(const struct fcase *k, int n)
{
	unsigned int j = NM - 1;

	while (j && n == 1024 && k->max_m_1024 && grid_m(j) > k->max_m_1024)
		j--;
	return j;
}

/*
 * The default sample of case @c: every size at N = 4 and 16; the smallest
 * and the largest at 64; at 256 one of them, by turns from case to case;
 * at 1024 the other one, unless the case is slow there.
 */
static bool sampled(unsigned int c, unsigned int i, unsigned int j)
{
	const struct fcase *k = &cases[c];
	int n = grid_n[i];
	unsigned int big = last_m(k, n);

	if (n == 4 || n == 16)
		return true;
	if (n == 64)
		return j == 0 || j == big;
	if (n == 256)
		return j == (c % 2 ? big : 0);
	if (n == 1024 && !k->slow)
		return j == (c % 2 ? 0 : big);
	return false;
}

/* --- running them ------------------------------------------------------------ */

/*
 * @n ranks: up to 64 devices of one rank (at most 255 devices, so 8 per
 * device on 2 nodes at 1024); one tier, so where they sit does not matter.
 */
static void world_open(struct timed_world *w, int n, const char *sim)
{
	int devs = n < 64 ? n : 64, nodes = n > 64 ? 2 : 1;
	struct ccore_topology t = { (uint32_t)nodes, (uint32_t)devs, (uint32_t)(n / devs / nodes) };
	char cfg[320];

	snprintf(cfg, sizeof(cfg),
		 "ideal=1,virtual=1,alpha_node_ns=%d,bw_node_gbps=%d,hbm=1024G,sems=%d,"
		 "program_size=65536,job_timeout_ms=3600000%s%s", (int)(ALPHA_US * 1000), (int)(BW_GBYTES * 8),
		 2 * n + 64, *sim ? "," : "", sim);
	timed_world_open(w, &t, cfg, (size_t)GIB);
}

/* The nccl count of @op for an M-byte (u8) size on @n ranks. */
static size_t count_of(enum op op, int n, double m)
{
	return op == AG || op == RS || op == A2A ? (size_t)m / (size_t)n : (size_t)m;
}

/* Virtual microseconds of one @op of size @m on every rank, checking @algo ran. */
static double run_us(struct timed_world *w, enum op op, double m, const char *algo)
{
	size_t cnt = count_of(op, w->n, m);
	uint64_t t0 = timed_world_now_ps(w);
	int rc = ccore_group_start();

	for (int r = 0; r < w->n && !rc; r++) {
		struct ccore_comm *c = w->c[r];
		ccore_ptr s = w->sb[r], d = w->rb[r];

		switch (op) {
		case AG:
			rc = ccore_all_gather(s, d, cnt, ccore_u8, c, NULL);
			break;
		case RS:
			rc = ccore_reduce_scatter(s, d, cnt, ccore_u8, ccore_sum, c, NULL);
			break;
		case AR:
			rc = ccore_all_reduce(s, d, cnt, ccore_u8, ccore_sum, c, NULL);
			break;
		case A2A:
			rc = ccore_all_to_all(s, d, cnt, ccore_u8, c, NULL);
			break;
		case BC:
			rc = ccore_broadcast(s, d, cnt, ccore_u8, 0, c, NULL);
			break;
		case RD:
			rc = ccore_reduce(s, d, cnt, ccore_u8, ccore_sum, 0, c, NULL);
			break;
		}
	}
	rc = rc ?: ccore_group_end();
	for (int r = 0; r < w->n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->c[r]));
	if (rc)
		FAIL("%s %s of %.0f bytes on %d ranks: %s", algo, op_names[op], m, w->n,
		     ccore_last_error());
	if (strcmp(ccore_comm_last_algo(w->c[0]), algo))
		FAIL("%s ran %s, not %s", op_names[op], ccore_comm_last_algo(w->c[0]), algo);
	return (double)(timed_world_now_ps(w) - t0) / 1e6;
}

/* The tuner's ideal formula for the same call (1 slice: the tuning file). */
static double tuner_us(struct timed_world *w, enum op op, double m, const char *algo)
{
	struct ccore_plan_info info;

	if (ccore_plan_query(w->c[0], plan_ops[op], count_of(op, w->n, m), ccore_u8, &info))
		FAIL("ccore_plan_query: %s", ccore_last_error());
	if (strcmp(info.algo, algo) || info.slices != 1)
		FAIL("the tuner would run %s with %u slices, not %s with 1", info.algo,
		     info.slices, algo);
	return info.predicted_us;
}

static void expect_close(const char *who, const struct fcase *k, int n, double m, double got,
			 double want)
{
	if (got < want * 0.99 || got > want * 1.01)
		FAIL("%s %s, N=%d, M=%.0f: %s %.3f us, the reference's formula %.3f us (off by %+.2f%%)",
		     k->algo, op_names[k->op], n, m, who, got, want, (got / want - 1) * 100);
}

/* CPU seconds: the host is shared, its wall clock says little */
static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * Every case whose sim keys are @sim, at every N: one fabric per N, each
 * case's points on it, logged as "N=4: 1K 32K ... ".
 */
static void run_cases(const char *sim)
{
	bool full = full_grid();

	setenv("CCORE_TUNER_IDEAL", "1", 1);
	setenv("CCORE_TUNER_ALPHA_US", "2", 1);
	setenv("CCORE_TUNER_BW_GBPS", "100", 1);
	for (unsigned int i = 0; i < NN; i++) {
		int n = grid_n[i];
		struct timed_world *w = NULL;

		for (unsigned int c = 0; c < NCASES; c++) {
			const struct fcase *k = &cases[c];
			char ran[128] = "";
			size_t len = 0;
			double t0 = cpu_s(), worst = 0;

			if (strcmp(k->sim ? k->sim : "", sim))
				continue;
			for (unsigned int j = 0; j < NM; j++) {
				double m = grid_m(j), got, want, model;

				if (j > last_m(k, n) || (!full && !sampled(c, i, j)))
					continue;
				if (!w) {
					w = calloc(1, sizeof(*w));
					if (!w)
						FAIL("out of memory");
					world_open(w, n, sim);
				}
				tuner_file_force(k->algo, 1);
				if (k->pat_buffer)
					setenv("CCORE_PAT_BUFFER", k->pat_buffer, 1);
				got = run_us(w, k->op, m, k->algo);
				model = tuner_us(w, k->op, m, k->algo);
				unsetenv("CCORE_PAT_BUFFER");
				tuner_file_remove();
				want = k->want(n, m);
				expect_close("timed", k, n, m, got, want);
				expect_close("the tuner's formula", k, n, m, model, want);
				if (fabs(got / want - 1) > worst)
					worst = fabs(got / want - 1);
				len += (size_t)snprintf(ran + len, sizeof(ran) - len, " %.0f%s",
							m >= GIB ? m / GIB : m >= 1048576 ? m / 1048576 : m / KIB,
							m >= GIB ? "G" : m >= 1048576 ? "M" : "K");
			}
			if (len)
				ccore_test_log("%-12s %-13s N=%-4d M:%s  worst %.4f%%, %.2f s CPU", k->algo,
					       op_names[k->op], n, ran, worst * 100, cpu_s() - t0);
		}
		if (w) {
			timed_world_close(w);
			free(w);
		}
	}
	unsetenv("CCORE_TUNER_IDEAL");
	unsetenv("CCORE_TUNER_ALPHA_US");
	unsetenv("CCORE_TUNER_BW_GBPS");
}

/* The cases on the default device (several DMA engines per rank). */
TEST(ideal_matches_formulas)
{
	ccore_test_log("%s grid (CCORE_TEST_FULL=1 runs all of it)",
		       full_grid() ? "the whole" : "a sample of the");
	run_cases("");
}
