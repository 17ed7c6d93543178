// SPDX-License-Identifier: GPL-2.0
/*
 * Running executables (runtime/exec/exe_run.c): every pseudo-collective
 * trigger becomes a trigger of the CC core its collective's stream runs
 * on, waits become waits on the collective's completion semaphore, and a
 * whole executable — collectives on two streams, compute DMA, compute —
 * gives the right bytes on the functional model, then the same on the
 * timed model with its step time, latencies and per-stream ring bytes.
 *
 * The backend is the runtime's choice ($CCORE_DEVICE, else sim).  Built
 * with -DEXE_RUN_TEST_ACCEL this file is build/tests/kernel/exe_run_accel,
 * run in the QEMU guest on the kernel driver's devices (setup.sh's fabric
 * 0: 2 devices): trigger rewriting and the data check run there too; what
 * needs the timed model (per-job virtual times) skips.
 */
#include "tsim.h"
#include "exec/exe_run.h"

#ifdef EXE_RUN_TEST_ACCEL
__attribute__((constructor)) static void exe_run_accel_default(void)
{
	setenv("CCORE_DEVICE", "accel", 0);
}
#endif

static bool on_sim(void)
{
	const char *b = getenv("CCORE_DEVICE");

	return !b || !*b || !strcmp(b, "sim");
}

#define ELEMS 1024u

static const char desc[] =
	"topology nodes=1 devices=2 ranks-per-device=2\n"
	"tensor a 4K init=index dtype=i32\n"
	"tensor g 16K\n"
	"tensor b 16K\n"
	"tensor s 4K init=index dtype=i32\n"
	"tensor r 4K\n"
	"collective ag allgather dtype=i32 count=1K stream=0 send=a recv=g groups={{0,1,2,3}}\n"
	"collective ar allreduce dtype=i32 count=1K redop=sum stream=1 send=s recv=r groups={{0,1},{2,3}}\n"
	"rank all\n"
	"  trigger ag\n"
	"  trigger ar\n"
	"  wait ag\n"
	"  dma g b 16K\n"
	"  compute 1us\n"
	"  wait ar\n"
	"  trigger ag\n"
	"  wait ag\n";

static struct ccore_exe *parse(void)
{
	struct ccore_exe *exe;

	if (ccore_exe_parse_text("test", desc, sizeof(desc) - 1, &exe))
		FAIL("parse: %s", ccore_last_error());
	return exe;
}

static void clear_env(void)
{
	unsetenv("CCORE_STREAMS");
	unsetenv("CCORE_SIM");
}

/*
 * Every TRIGGER goes to the CC core of its collective's stream, in order.
 * C, the CC cores per core, is the device's: 2 on the kernel's devices.
 */
static void check_triggers(struct exe_run *x, uint32_t streams)
{
	static const uint32_t colls_in_order[] = { 0, 1, 0 };	/* ag, ar, ag */
	struct ccore_stream_map m;

	if (exe_run_stream_map(x, &m))
		FAIL("stream map: %s", ccore_last_error());
	ASSERT_EQ(m.streams, streams);
	ASSERT_TRUE(m.cc_cores >= 2);
	for (uint32_t r = 0; r < 4; r++) {
		const struct drm_ccore_ce_insn *p;
		uint32_t n, k = 0, cc[2];

		p = exe_run_program(x, r, &n);
		/* rank r is core r % 2: its CC cores are core * C .. */
		cc[0] = (r % 2) * m.cc_cores + 0;
		cc[1] = (r % 2) * m.cc_cores + (streams > 1 ? 1 : 0);
		for (uint32_t i = 0; i < n; i++) {
			if (p[i].opcode != DRM_CCORE_CE_TRIGGER)
				continue;
			if (k >= 3)
				FAIL("rank %u: more than 3 triggers", r);
			ASSERT_EQ(p[i].cc_core, cc[colls_in_order[k]]);
			k++;
		}
		ASSERT_EQ(k, 3);
		ASSERT_EQ(p[n - 1].opcode, DRM_CCORE_CE_END);
	}
}

static void check_data(struct exe_run *x)
{
	for (uint32_t r = 0; r < 4; r++) {
		const int32_t *g = exe_run_tensor(x, r, 1), *b = exe_run_tensor(x, r, 2);
		const int32_t *sum = exe_run_tensor(x, r, 4);
		uint32_t pair = r / 2 * 2;

		for (uint32_t i = 0; i < 4 * ELEMS; i++) {
			/* rank q's a[i] is q * ELEMS + i: gathered in rank order */
			if (g[i] != (int32_t)i || b[i] != (int32_t)i)
				FAIL("rank %u: g[%u] = %d, b[%u] = %d, want %u", r, i, g[i], i, b[i], i);
		}
		for (uint32_t i = 0; i < ELEMS; i++) {
			int32_t want = (int32_t)(pair * ELEMS + i + (pair + 1) * ELEMS + i);

			if (sum[i] != want)
				FAIL("rank %u: r[%u] = %d, want %d", r, i, sum[i], want);
		}
	}
}

TEST(triggers_go_to_the_streams_cc_cores)
{
	struct ccore_exe *exe = parse();
	struct exe_run *x;

	clear_env();
	setenv("CCORE_SIM", "cc_cores=2", 1);
	if (exe_run_open(exe, &x))
		FAIL("open: %s", ccore_last_error());
	check_triggers(x, 2);
	exe_run_close(x);
	/* one stream: stream 1's collective is served by stream 0's CC core */
	setenv("CCORE_STREAMS", "1", 1);
	if (exe_run_open(exe, &x))
		FAIL("open: %s", ccore_last_error());
	check_triggers(x, 1);
	exe_run_close(x);
	clear_env();
	ccore_exe_free(exe);
}

TEST(functional_step_moves_the_right_bytes)
{
	struct ccore_exe *exe = parse();
	uint64_t compute, per[CCORE_EXE_MAX_STREAMS];
	struct exe_step_stats st;
	struct exe_run *x;

	clear_env();
	setenv("CCORE_SIM", "cc_cores=2", 1);
	if (exe_run_open(exe, &x))
		FAIL("open: %s", ccore_last_error());
	for (int step = 0; step < 3; step++) {
		exe_run_reset_tensors(x);
		if (exe_run_step(x, &st))
			FAIL("step %d: %s", step, ccore_last_error());
		check_data(x);
		ASSERT_EQ(st.compute_dma_bytes, 4 * 16384ull);
		ASSERT_TRUE(!st.timed);
		/* jobs are counted on every backend, latencies only timed */
		ASSERT_EQ(st.ncolls, 2);
		ASSERT_EQ(st.colls[0].jobs, 8);	/* ag: 4 ranks x 2 triggers */
		ASSERT_EQ(st.colls[1].jobs, 4);
		ASSERT_TRUE(st.colls[0].latency_us == 0 && st.tp_latency_us == 0);
	}
	/* the device's ring counters: rank 0's 16 KiB of compute DMA per step,
	 * and both streams' collectives moved bytes */
	if (exe_run_ring_bytes(x, 0, &compute, per))
		FAIL("ring bytes: %s", ccore_last_error());
	ASSERT_EQ(compute, 3 * 16384ull);
	ASSERT_TRUE(per[0] > 0 && per[1] > 0);
	exe_run_close(x);
	clear_env();
	ccore_exe_free(exe);
}

TEST(timed_step_reports_times_and_bytes)
{
	struct ccore_exe *exe = parse();
	struct exe_step_stats st;
	uint64_t compute, per[CCORE_EXE_MAX_STREAMS];
	struct exe_run *x;

	if (!on_sim())
		ccore_test_skip("needs the sim backend's timed model: per-job virtual times "
				"(trigger, start, end) exist only there");
	clear_env();
	setenv("CCORE_SIM", "cc_cores=2,timed=1", 1);
	if (exe_run_open(exe, &x))
		FAIL("open: %s", ccore_last_error());
	if (exe_run_step(x, &st))
		FAIL("step: %s", ccore_last_error());
	check_data(x);
	ASSERT_TRUE(st.timed);
	/* at least the 1 us of compute, and every job's latency counted */
	ASSERT_TRUE(st.step_us >= 1.0);
	ASSERT_EQ(st.colls[0].jobs, 8);	/* ag: 4 ranks x 2 triggers */
	ASSERT_EQ(st.colls[1].jobs, 4);
	ASSERT_TRUE(st.colls[0].latency_us > 0 && st.colls[1].latency_us > 0);
	ASSERT_TRUE(st.colls[0].latency_us >= st.colls[0].run_us);
	ASSERT_TRUE(st.tp_latency_us == st.colls[0].latency_us);
	if (exe_run_ring_bytes(x, 0, &compute, per))
		FAIL("ring bytes: %s", ccore_last_error());
	ASSERT_EQ(compute, 16384ull);
	ASSERT_TRUE(per[0] > 0 && per[1] > 0);
	exe_run_close(x);
	clear_env();
	ccore_exe_free(exe);
}
