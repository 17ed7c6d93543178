// SPDX-License-Identifier: GPL-2.0
/*
 * The timed device model (CCORE_SIM timed=1): determinism of virtual time
 * through the real runtime, and link contention in the realistic setting.
 * Buffers are virtual: no bytes move.  The ideal setting against the
 * reference's formulas is timed_formulas_test.c.
 */
#include "tsim.h"
#include "ccore.h"

#include <unistd.h>

#define MAXN 256
#define ALPHA_NS 2000
#define BW_GBPS 800		/* 100 bytes per ns */

enum op { AG, RS, AR };

static const char *const op_names[] = { "allgather", "reducescatter", "allreduce" };

struct world {
	int n;
	struct ccore_comm *c[MAXN];
	ccore_ptr sb[MAXN], rb[MAXN];
};

static void world_open(struct world *w, int nodes, int devices, int per_dev, const char *sim,
		       size_t bytes)
{
	struct ccore_topology t = { (uint32_t)nodes, (uint32_t)devices, (uint32_t)per_dev };

	w->n = nodes * devices * per_dev;
	setenv("CCORE_SIM", sim, 1);
	if (ccore_comm_init_all(&t, w->c))
		FAIL("ccore_comm_init_all %s: %s", sim, ccore_last_error());
	for (int r = 0; r < w->n; r++)
		if (ccore_mem_alloc(w->c[r], bytes, &w->sb[r]) ||
		    ccore_mem_alloc(w->c[r], bytes, &w->rb[r]))
			FAIL("ccore_mem_alloc: %s", ccore_last_error());
}

static void world_close(struct world *w)
{
	for (int r = 0; r < w->n; r++)
		ccore_comm_destroy(w->c[r]);
	unsetenv("CCORE_SIM");
}

static uint64_t now_ps(struct world *w)
{
	uint64_t ps;

	if (ccore_comm_virtual_time_ps(w->c[0], &ps))
		FAIL("virtual time: %s", ccore_last_error());
	return ps;
}

/* Virtual microseconds of one @op of @bytes (the nccl-tests size), in place or not. */
static double run_us_ip(struct world *w, enum op op, size_t bytes, const char *algo,
			bool in_place)
{
	size_t count = bytes / 4;
	uint64_t t0 = now_ps(w);
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
	return (double)(now_ps(w) - t0) / 1e6;
}

static double run_us(struct world *w, enum op op, size_t bytes, const char *algo)
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
		struct world w;

		world_open(&w, 2, 4, 2, "timed=1,virtual=1", 4u << 20);
		t[k][0] = run_us(&w, AR, 4u << 20, "ring");
		t[k][1] = run_us(&w, AR, 4u << 20, "ring");
		world_close(&w);
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
	struct world w;
	double one, eight;

	world_open(&w, 4, 1, 2, "timed=1,virtual=1", 1 << 20);
	setenv("CCORE_ALGO", "hier", 1);
	setenv("CCORE_SLICES", "1", 1);
	one = run_us(&w, AR, 1 << 20, "hier");
	setenv("CCORE_SLICES", "8", 1);
	eight = run_us(&w, AR, 1 << 20, "hier");
	unsetenv("CCORE_SLICES");
	unsetenv("CCORE_ALGO");
	world_close(&w);
	ccore_test_log("hier AllReduce 1 MiB, 4 nodes x 2 ranks: 1 slice %.3f us, 8 slices %.3f us",
		       one, eight);
	ASSERT_TRUE(eight < 0.8 * one);
}
