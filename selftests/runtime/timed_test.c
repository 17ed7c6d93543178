// SPDX-License-Identifier: GPL-2.0
/*
 * The timed device model (CCORE_SIM timed=1): determinism of virtual time
 * through the real runtime, link contention in the realistic setting, and
 * what the ideal setting charges for a rank's own work.
 * Buffers are virtual: no bytes move.  The ideal setting against the
 * reference's formulas is timed_formulas_test.c.
 */
#include "tsim.h"
#include "timed_world.h"
#include "ccore.h"
#include "algos/algo.h"
#include "sched/cs.h"
#include "tune/formula.h"
#include "tune/model.h"

#include <unistd.h>

#define ALPHA_NS 2000
#define BW_GBPS 800		/* 100 bytes per ns */

enum op { AG, RS, AR };

static const char *const op_names[] = { "allgather", "reducescatter", "allreduce" };

static void world_open(struct timed_world *w, int nodes, int devices, int per_dev, const char *sim,
		       size_t bytes)
{
	struct ccore_topology t = { (uint32_t)nodes, (uint32_t)devices, (uint32_t)per_dev };

	timed_world_open(w, &t, sim, bytes);
}

/* Virtual microseconds of one @op of @bytes (the nccl-tests size), in place or not. */
static double run_us_ip(struct timed_world *w, enum op op, size_t bytes, const char *algo,
			bool in_place)
{
	size_t count = bytes / 4;
	uint64_t t0 = timed_world_now_ps(w);
	int rc = ccore_group_start();

	for (int r = 0; r < w->n && !rc; r++) {
		if (op == AG && in_place)
			rc = ccore_all_gather(w->rb[r] + (size_t)r * (count / w->n) * 4, w->rb[r],
					      count / w->n, ccore_f32, w->c[r], NULL);
		else if (op == AG)
			rc = ccore_all_gather(w->sb[r], w->rb[r], count / w->n, ccore_f32, w->c[r], NULL);
		else if (op == RS)
			rc = ccore_reduce_scatter(w->sb[r], w->rb[r], count / w->n, ccore_f32,
						  ccore_sum, w->c[r], NULL);
		else
			rc = ccore_all_reduce(w->sb[r], w->rb[r], count, ccore_f32, ccore_sum,
					      w->c[r], NULL);
	}
	rc = rc ?: ccore_group_end();
	for (int r = 0; r < w->n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->c[r]));
	if (rc)
		FAIL("%s of %zu bytes on %d ranks: %s", op_names[op], bytes, w->n,
		     ccore_last_error());
	if (algo && strcmp(ccore_comm_last_algo(w->c[0]), algo))
		FAIL("%s ran %s, not %s", op_names[op], ccore_comm_last_algo(w->c[0]), algo);
	return (double)(timed_world_now_ps(w) - t0) / 1e6;
}

static double run_us(struct timed_world *w, enum op op, size_t bytes, const char *algo)
{
	return run_us_ip(w, op, bytes, algo, false);
}

static void expect_close(const char *what, int n, size_t bytes, double got, double want)
{
	if (got < want * 0.99 || got > want * 1.01)
		FAIL("%s N=%d M=%zu: timed %.3f us, formula %.3f us (off by %.2f%%)", what, n,
		     bytes, got, want, (got / want - 1) * 100);
}

/*
 * The same runs on two fresh fabrics take the same virtual time, to the
 * picosecond (a second run may differ from the first: the CC core that
 * finished last is still a few instructions behind).
 */
TEST(deterministic)
{
	double t[2][2];

	setenv("CCORE_ALGO", "ring", 1);
	for (int k = 0; k < 2; k++) {
		struct timed_world w;

		world_open(&w, 2, 4, 2, "timed=1,virtual=1", 4u << 20);
		t[k][0] = run_us(&w, AR, 4u << 20, "ring");
		t[k][1] = run_us(&w, AR, 4u << 20, "ring");
		timed_world_close(&w);
	}
	unsetenv("CCORE_ALGO");
	ccore_test_log("16 ranks on 2 nodes, 4 MiB ring AllReduce: %.6f us, again %.6f us; on a fresh fabric %.6f us, %.6f us",
		       t[0][0], t[0][1], t[1][0], t[1][1]);
	ASSERT_TRUE(t[0][0] > 0);
	ASSERT_TRUE(t[0][0] == t[1][0]);
	ASSERT_TRUE(t[0][1] == t[1][1]);
}

/* --- contention, on the device layer ------------------------------------ */

#define XFER (8u << 20)

struct xfer {
	struct ccore_dev *from;
	unsigned int core, to_dev;
};

/*
 * Start one COPY of XFER bytes per entry of @x (device @x.from, core
 * @x.core, engine 0, ring 0) into a buffer of device @x.to_dev, all at
 * once; the virtual microseconds until every one is done.
 */
static double copies_us(const char *cfg, const unsigned int (*x)[3], unsigned int n)
{
	struct drm_ccore_desc d = { .op = DRM_CCORE_DESC_COPY, .len = XFER };
	uint32_t src, dst, imp, ring[4];
	uint64_t sva, dva, iva, t0;
	struct tsim t;
	double us;

	tsim_open(&t, cfg);
	t0 = ccm_fabric_now_ps(t.f);
	for (unsigned int i = 0; i < n; i++) {
		struct ccore_dev *from = t.dev[x[i][0]], *to = t.dev[x[i][2]];

		ASSERT_EQ(ccore_dev_bo_create(from, XFER, &src, &sva), 0);
		ASSERT_EQ(ccore_dev_bo_create(to, XFER, &dst, &dva), 0);
		ASSERT_EQ(ccore_dev_bo_import(from, to, dst, &imp, &iva), 0);
		ring[i] = tsim_ring(from, x[i][1], 0, 0, 1, 65536);
		d.src0 = sva;
		d.dst = x[i][0] == x[i][2] ? dva : iva;
		/* no model step runs in between: they all start at t0 */
		ASSERT_EQ(ccore_dev_ring_submit(from, ring[i], &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	}
	while (ccm_fabric_run_steps(t.f, 1000))
		;
	for (unsigned int i = 0; i < n; i++) {
		struct drm_ccore_ring_stats st;

		ASSERT_EQ(ccore_dev_ring_stats(t.dev[x[i][0]], ring[i], &st), 0);
		ASSERT_EQ(st.completed, 1);
	}
	us = (double)(ccm_fabric_now_ps(t.f) - t0) / 1e6;
	tsim_close(&t);
	return us;
}

/*
 * Two transfers over one link direction take twice as long as one (beyond
 * the latency); over different link directions, or in the ideal setting,
 * as long as one.
 */
TEST(link_contention_is_real)
{
	static const char *cfg = "timed=1,virtual=1,devices=3,cores=2,alpha_node_ns=1000,"
				 "bw_node_gbps=800,bw_engine_gbps=8000";
	static const unsigned int one[][3] = { { 0, 0, 1 } };
	/* devices 0 -> 1 from two cores: both on link 0 -> 1 (+x) */
	static const unsigned int same[][3] = { { 0, 0, 1 }, { 0, 1, 1 } };
	/* 0 -> 1 goes +x, 0 -> 2 the other way round (-x) */
	static const unsigned int apart[][3] = { { 0, 0, 1 }, { 0, 1, 2 } };
	double alpha = 1.0, t1 = copies_us(cfg, one, 1), t2 = copies_us(cfg, same, 2);
	double ta = copies_us(cfg, apart, 2), bytes_us = XFER * 8.0 / 800 / 1e3;
	double ti = copies_us("ideal=1,virtual=1,devices=3,cores=2,alpha_node_ns=1000,bw_node_gbps=800",
			      same, 2);

	ccore_test_log("8 MiB over one link: alone %.3f us, two sharing it %.3f us, two on different links %.3f us, two ideal %.3f us",
		       t1, t2, ta, ti);
	expect_close("one transfer", 1, XFER, t1, alpha + bytes_us);
	expect_close("two sharing a link", 2, XFER, t2 - alpha, 2 * (t1 - alpha));
	expect_close("two on different links", 2, XFER, ta, t1);
	expect_close("two, ideal", 2, XFER, ti, t1);
}

/*
 * One COPY of XFER bytes by core 0 of device 0 into a buffer of device
 * @to_dev, signalling a semaphore of core @sig_core of that device (-1:
 * no signal); the virtual microseconds until it completes.
 */
static double one_copy_us(const char *cfg, unsigned int to_dev, int sig_core)
{
	struct drm_ccore_desc d = { .op = DRM_CCORE_DESC_COPY, .len = XFER };
	uint32_t src, dst, imp, ring, sem = 0;
	uint64_t sva, dva, iva, t0;
	struct drm_ccore_ring_stats st;
	struct tsim t;
	double us;

	tsim_open(&t, cfg);
	ASSERT_EQ(ccore_dev_bo_create(t.dev[0], XFER, &src, &sva), 0);
	ASSERT_EQ(ccore_dev_bo_create(t.dev[to_dev], XFER, &dst, &dva), 0);
	d.src0 = sva;
	d.dst = dva;
	if (to_dev) {
		ASSERT_EQ(ccore_dev_bo_import(t.dev[0], t.dev[to_dev], dst, &imp, &iva), 0);
		d.dst = iva;
	}
	if (sig_core >= 0) {
		sem = tsim_sem(t.dev[0], (unsigned int)sig_core, 1);
		d.flags = DRM_CCORE_DESC_F_SIGNAL;
		d.signal_sem = sem;
		d.signal_value = 1;
	}
	ring = tsim_ring(t.dev[0], 0, 0, 0, 1, 65536);
	t0 = ccm_fabric_now_ps(t.f);
	ASSERT_EQ(ccore_dev_ring_submit(t.dev[0], ring, &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	while (ccm_fabric_run_steps(t.f, 1000))
		;
	ASSERT_EQ(ccore_dev_ring_stats(t.dev[0], ring, &st), 0);
	ASSERT_EQ(st.completed, 1);
	if (sig_core >= 0)
		ASSERT_EQ(tsim_sem_value(t.dev[0], sem), 1);
	us = (double)(ccm_fabric_now_ps(t.f) - t0) / 1e6;
	tsim_close(&t);
	return us;
}

/*
 * In the ideal setting a rank's own copy (within its device, signalling
 * nobody or its own core) takes no time, as the alpha-beta model counts
 * the wire only; a copy that another core of the device is told about is
 * a transfer between ranks and costs alpha + M/BW, as one to another
 * device does.
 */
TEST(ideal_local_work_is_free)
{
	static const char *cfg = "ideal=1,virtual=1,devices=2,cores=2,alpha_node_ns=1000,"
				 "bw_node_gbps=800";
	double hop = 1.0 + XFER * 8.0 / 800 / 1e3;
	double own = one_copy_us(cfg, 0, -1), own_sig = one_copy_us(cfg, 0, 0);
	double other_core = one_copy_us(cfg, 0, 1), other_dev = one_copy_us(cfg, 1, -1);

	ccore_test_log("8 MiB, ideal: own copy %.3f us (signalled %.3f us), to another core of the device %.3f us, to another device %.3f us",
		       own, own_sig, other_core, other_dev);
	ASSERT_TRUE(own == 0 && own_sig == 0);
	expect_close("to another core", 2, XFER, other_core, hop);
	expect_close("to another device", 2, XFER, other_dev, hop);
}

/*
 * Hierarchical AllReduce across 4 nodes (2 ranks each, the default tiers:
 * α 15 µs between nodes) pipelines its slices like the flat ring: with 8
 * slices it takes clearly less time than with one.  Its ring between
 * nodes has all-gather receives that wait for sends (credited by marker,
 * behind those sends) from a peer whose reduce-scatter receives wait for
 * the intra-node phase (credited by the CC core); were the markers all or
 * nothing per peer, every slice would drain the ring and pay α: 8 slices
 * took twice the time of one.
 */
TEST(hierarchical_slices_pipeline_across_nodes)
{
	struct timed_world w;
	double one, eight;

	world_open(&w, 4, 1, 2, "timed=1,virtual=1", 1 << 20);
	setenv("CCORE_ALGO", "hier", 1);
	setenv("CCORE_SLICES", "1", 1);
	one = run_us(&w, AR, 1 << 20, "hier");
	setenv("CCORE_SLICES", "8", 1);
	eight = run_us(&w, AR, 1 << 20, "hier");
	unsetenv("CCORE_SLICES");
	unsetenv("CCORE_ALGO");
	timed_world_close(&w);
	ccore_test_log("hier AllReduce 1 MiB, 4 nodes x 2 ranks: 1 slice %.3f us, 8 slices %.3f us",
		       one, eight);
	ASSERT_TRUE(eight < 0.8 * one);
}

/* --- the cost model with tiers against the timed model ------------------ */

static const uint8_t op_coll[] = {
	[ccore_op_allreduce] = CS_ALLREDUCE, [ccore_op_allgather] = CS_ALLGATHER,
	[ccore_op_reducescatter] = CS_REDUCESCATTER, [ccore_op_alltoall] = CS_ALLTOALL,
	[ccore_op_broadcast] = CS_BROADCAST,
};

/* Virtual microseconds of @algo running @op of nccl-tests size @bytes in @slices. */
static double algo_us(struct timed_world *w, enum ccore_coll_op op, size_t bytes,
		      const char *algo, unsigned int slices)
{
	size_t count = bytes / 4, part = count / (size_t)w->n;
	uint64_t t0 = timed_world_now_ps(w);
	char sl[16];
	int rc;

	snprintf(sl, sizeof(sl), "%u", slices);
	setenv("CCORE_ALGO", algo, 1);
	setenv("CCORE_SLICES", sl, 1);
	rc = ccore_group_start();
	for (int r = 0; r < w->n && !rc; r++)
		rc = timed_post(op, w->sb[r], w->rb[r],
				op == ccore_op_allreduce || op == ccore_op_broadcast ? count : part,
				w->c[r]);
	rc = rc ?: ccore_group_end();
	for (int r = 0; r < w->n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->c[r]));
	unsetenv("CCORE_ALGO");
	unsetenv("CCORE_SLICES");
	if (rc)
		FAIL("%s of %zu bytes: %s", algo, bytes, ccore_last_error());
	if (strcmp(ccore_comm_last_algo(w->c[0]), algo))
		FAIL("ran %s, not %s", ccore_comm_last_algo(w->c[0]), algo);
	return (double)(timed_world_now_ps(w) - t0) / 1e6;
}

/*
 * With the sim's default tiers (α 0.5/1.5 µs, 400/160 GB/s, 4 engines of
 * 250 GB/s) the cost model prices these schedules as the timed model runs
 * them, within 10%: DBT step by step through its two trees, binomial
 * Broadcast slice by slice on the engines the lowering gives the root's
 * children, pairwise AllToAll and PAT AllGather as longest paths through
 * their rounds, Mesh's exchange ending with its latest landing, RDH's
 * ReduceScatter adding its last step on arrival, a ring pass every link
 * but the cheapest (a NIC's slower transfer is met once per pass, not at
 * every step).  (Each of the first four
 * was priced 1.25 to 2.5 times too slow when every step paid its slowest
 * route; across nodes Mesh ran 3.7 times slower than its model when every
 * rank went through its peers as r + 1, r + 2, ...)
 */
TEST(tiered_formulas_follow_the_timed_model)
{
	static const struct {
		unsigned int nodes, devices, x, per_dev;
		const char *algo;
		enum ccore_coll_op op;
		size_t bytes;
		unsigned int slices;
	} cases[] = {
		{ 1, 16, 4, 4, "dbt", ccore_op_allreduce, 1 << 20, 4 },
		{ 1, 16, 4, 4, "binomial", ccore_op_broadcast, 4 << 20, 64 },
		{ 1, 16, 4, 4, "pairwise", ccore_op_alltoall, 256 << 10, 1 },
		{ 1, 16, 4, 4, "pat", ccore_op_allgather, 64 << 10, 1 },
		{ 1, 16, 4, 4, "mesh", ccore_op_allgather, 16 << 10, 1 },
		{ 1, 8, 8, 1, "mesh", ccore_op_allgather, 256 << 10, 1 },
		{ 1, 2, 2, 4, "rdh", ccore_op_reducescatter, 256 << 10, 1 },
		/* Mesh across nodes, in mesh.c's node-interleaved order */
		{ 2, 16, 4, 4, "mesh", ccore_op_allgather, 256 << 10, 1 },
		/* rings whose links differ: a block meets each NIC once */
		{ 2, 16, 4, 4, "kangaring", ccore_op_allgather, 1 << 20, 1 },
		{ 2, 2, 2, 1, "ring", ccore_op_allgather, 400000, 1 },
	};
	struct timed_world w;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned int D = cases[i].devices, X = cases[i].x, Y = D / X;
		struct tune_call call = { .coll = op_coll[cases[i].op], .bytes = (double)cases[i].bytes,
					  .slices = cases[i].slices, .channels = 1, .elem_size = 4 };
		struct tune_topo t;
		const char *why;
		char sim[128];
		double model, timed;

		/* semaphores for every peer of a rank, as ccore-plan asks */
		unsigned int sems = 2 * cases[i].nodes * D * cases[i].per_dev + 64;

		if (Y > 1)
			snprintf(sim, sizeof(sim), "timed=1,virtual=1,sems=%u,topology=torus,torus=%ux%u",
				 sems, X, Y);
		else
			snprintf(sim, sizeof(sim), "timed=1,virtual=1,sems=%u", sems);
		world_open(&w, (int)cases[i].nodes, (int)D, (int)cases[i].per_dev, sim,
			   cases[i].bytes);
		tune_topo_default(&t, cases[i].nodes, X, Y, cases[i].per_dev);
		call.nranks = (uint32_t)w.n;
		ASSERT_TRUE(algo_find(cases[i].algo, call.coll) != NULL);
		ASSERT_EQ(tune_formula(algo_find(cases[i].algo, call.coll), &t, &call, &model, &why),
			  0);
		timed = algo_us(&w, cases[i].op, cases[i].bytes, cases[i].algo, cases[i].slices);
		timed_world_close(&w);
		ccore_test_log("%-8s %-13s %3d ranks on %u node%s, %8zu bytes, %2u slices: model %9.3f us, timed %9.3f us (%+.1f%%)",
			       cases[i].algo, cs_coll_name(call.coll), w.n, cases[i].nodes,
			       cases[i].nodes > 1 ? "s" : "", cases[i].bytes,
			       cases[i].slices, model, timed, (model / timed - 1) * 100);
		ASSERT_TRUE(model > 0.9 * timed && model < 1.1 * timed);
	}
}
