// SPDX-License-Identifier: GPL-2.0
/*
 * Running executables (runtime/exec/exe_run.c): every pseudo-collective
 * trigger becomes a trigger of the CC core its collective's stream runs
 * on, waits become waits on the collective's completion semaphore, and a
 * whole executable — collectives on two streams, compute DMA, compute —
 * gives the right bytes on the functional model, then the same on the
 * timed model with its step time, latencies and per-stream ring bytes;
 * and several executables, the TP + FSDP example (examples/tp_fsdp.txt)
 * among them, leave every tensor of every rank as the host reference run
 * (selftests/lib/exe_ref.c) does.
 *
 * The backend is the runtime's choice ($CCORE_DEVICE, else sim).  Built
 * with -DCCORE_TEST_ACCEL this file is build/tests/kernel/exe_run_accel,
 * run in the QEMU guest on the kernel driver's devices (setup.sh's fabric
 * 0: 2 devices): trigger rewriting and the data checks run there too (the
 * reference runs of files from the source tree only where it is); what
 * needs the timed model (per-job virtual times) skips.
 */
#include "tsim.h"
#include "exec/exe_run.h"
#include "exe_ref.h"

#include <libgen.h>
#include <limits.h>
#include <unistd.h>

#ifdef CCORE_TEST_ACCEL
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

/* @name (relative to the repository), found upwards from this binary. */
static char *repo_file(const char *name, size_t *len)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	FILE *fp = NULL;
	char *text;

	if (n <= 0)
		FAIL("readlink /proc/self/exe");
	dir[n] = '\0';
	for (int up = 0; up < 8 && !fp; up++) {
		snprintf(path, sizeof(path), "%s/%s", dirname(dir), name);
		fp = fopen(path, "r");
	}
	if (!fp)
		FAIL("%s not found above the test binary", name);
	text = calloc(1, 1 << 20);
	*len = fread(text, 1, (1 << 20) - 1, fp);
	fclose(fp);
	return text;
}

/* One step of @text on the devices leaves every tensor as the reference's. */
static bool matches_reference(const char *name, const char *text, size_t len)
{
	struct ccore_exe *exe;
	struct exe_run *x;
	uint8_t **want;

	if (ccore_exe_parse_text(name, text, len, &exe))
		FAIL("%s: %s", name, ccore_last_error());
	want = exe_ref_run(exe);
	if (!want) {	/* avg: the reference has no division */
		ccore_exe_free(exe);
		return false;
	}
	if (exe_run_open(exe, &x))
		FAIL("%s: open: %s", name, ccore_last_error());
	for (int step = 0; step < 2; step++) {
		exe_run_reset_tensors(x);
		if (exe_run_step(x, NULL))
			FAIL("%s: step %d: %s", name, step, ccore_last_error());
		for (uint32_t r = 0; r < exe->nranks; r++)
			for (uint32_t t = 0; t < exe->ntensors; t++) {
				const uint8_t *got = exe_run_tensor(x, r, t);
				const uint8_t *ref = want[(size_t)r * exe->ntensors + t];

				for (uint64_t b = 0; b < exe->tensors[t].bytes; b++)
					if (got[b] != ref[b])
						FAIL("%s step %d: rank %u tensor %s byte %llu: 0x%02x, reference 0x%02x",
						     name, step, r, exe->tensors[t].name,
						     (unsigned long long)b, got[b], ref[b]);
			}
	}
	exe_run_close(x);
	exe_ref_free(exe, want);
	ccore_exe_free(exe);
	return true;
}

/* Every op, distinct data on every rank, overlapping streams and groups. */
static const char mixed[] =
	"topology nodes=1 devices=2 ranks-per-device=2\n"
	"tensor a 4K init=index dtype=i32\n"
	"tensor b 16K init=index dtype=i32\n"
	"tensor o1 16K\n"
	"tensor o2 16K\n"
	"tensor o3 4K\n"
	"tensor o4 4K\n"
	"tensor o5 4K init=index dtype=i32\n"
	"tensor o6 4K\n"
	"collective ag allgather dtype=i32 count=1K stream=0 send=a recv=o1 groups={{3,1,2,0}}\n"
	"collective rs reducescatter dtype=i32 count=1K redop=sum stream=1 send=b recv=o3 groups={{0,1,2,3}}\n"
	"collective a2a alltoall dtype=i32 count=1K stream=0 send=b recv=o2 groups={{0,1,2,3}}\n"
	"collective bc broadcast dtype=i32 count=1K root=1 stream=1 send=a recv=o4 groups={{0,1},{2,3}}\n"
	"collective rd reduce dtype=i32 count=1K redop=max root=0 stream=0 send=a recv=o5 groups={{0,2},{1,3}}\n"
	"collective p2p sendrecv dtype=i32 count=1K root=1 stream=1 send=o1 recv=o6 groups={{0,1},{3,2}}\n"
	"rank all\n"
	"  trigger ag\n"
	"  trigger rs\n"
	"  trigger bc\n"
	"  wait ag\n"
	"  trigger a2a\n"
	"  trigger rd\n"
	"  wait rs\n"
	"  wait bc\n"
	"  wait rd\n"
	"  dma o3 a 4K\n"
	"  trigger p2p\n"
	"  wait a2a\n"
	"  wait p2p\n";

/* An executable of @n ring AllReduces over 4 ranks, each triggered and waited for. */
static struct ccore_exe *n_allreduces(int n)
{
	char text[4096];
	size_t at = 0;
	struct ccore_exe *exe;

	at += (size_t)snprintf(text + at, sizeof(text) - at,
			       "topology nodes=1 devices=2 ranks-per-device=2\n");
	for (int k = 0; k < n; k++)
		at += (size_t)snprintf(text + at, sizeof(text) - at,
				       "tensor s%d 4K init=index dtype=i32\ntensor r%d 4K\n", k, k);
	for (int k = 0; k < n; k++)
		at += (size_t)snprintf(text + at, sizeof(text) - at,
				       "collective ar%d allreduce dtype=i32 count=1K redop=sum stream=0 send=s%d recv=r%d groups={{0,1,2,3}}\n",
				       k, k, k);
	at += (size_t)snprintf(text + at, sizeof(text) - at, "rank all\n");
	for (int k = 0; k < n; k++)
		at += (size_t)snprintf(text + at, sizeof(text) - at, "  trigger ar%d\n  wait ar%d\n",
				       k, k);
	ASSERT_LT(at, sizeof(text) - 1);
	if (ccore_exe_parse_text("allreduces", text, at, &exe))
		FAIL("parse: %s", ccore_last_error());
	return exe;
}

static void run_n_allreduces(int n, const char *loops)
{
	struct ccore_exe *exe = n_allreduces(n);
	struct exe_step_stats st;
	struct exe_run *x;

	clear_env();
	setenv("CCORE_ALGO", "ring", 1);
	if (loops)
		setenv("CCORE_LOOPS", loops, 1);
	if (exe_run_open(exe, &x))
		FAIL("%d AllReduces, CCORE_LOOPS=%s: open: %s", n, loops ? loops : "", ccore_last_error());
	exe_run_reset_tensors(x);
	if (exe_run_step(x, &st))
		FAIL("step: %s", ccore_last_error());
	for (uint32_t r = 0; r < 4; r++)
		for (uint32_t k = 0; k < (uint32_t)n; k++) {
			const int32_t *sum = exe_run_tensor(x, r, 2 * k + 1);

			for (uint32_t i = 0; i < ELEMS; i++) {
				/* rank q's s[i] is q * ELEMS + i */
				int32_t want = (int32_t)(6 * ELEMS + 4 * i);

				if (sum[i] != want)
					FAIL("rank %u: r%u[%u] = %d, want %d", r, k, i, sum[i], want);
			}
		}
	exe_run_close(x);
	unsetenv("CCORE_ALGO");
	unsetenv("CCORE_LOOPS");
	ccore_exe_free(exe);
}

/*
 * An executable holds the plans of all its collectives, and each plan its
 * ring indices (16 per core).  In loop form a ring AllReduce takes three
 * per rank where its schedule takes one: by default an executable's plans
 * come from their schedules, so 15 AllReduces load; forced into loop form
 * (CCORE_LOOPS=1), those that find no room fall back to their schedules.
 */
TEST(executables_keep_to_one_ring_index_per_plan)
{
	run_n_allreduces(15, NULL);
	run_n_allreduces(6, "1");
}

TEST(executables_match_the_reference)
{
	static const char *const seeds[] = { "examples/tp_fsdp.txt", "selftests/fuzz/seeds/every_op.txt",
					     "selftests/fuzz/seeds/subsets.txt",
					     "selftests/fuzz/seeds/allreduce_2.txt" };
	unsigned int compared = 0;

	clear_env();
	setenv("CCORE_SIM", "cc_cores=4", 1);
	ASSERT_TRUE(matches_reference("mixed", mixed, sizeof(mixed) - 1));
	compared++;
	/* the kernel's fabric has 2 CC cores per core and no source tree */
	for (unsigned int i = 0; i < sizeof(seeds) / sizeof(seeds[0]) && on_sim(); i++) {
		size_t len;
		char *text = repo_file(seeds[i], &len);

		compared += matches_reference(seeds[i], text, len);
		free(text);
	}
	ccore_test_log("%u executables match the reference run", compared);
	ASSERT_TRUE(compared >= (on_sim() ? 4u : 1u));
	clear_env();
}
