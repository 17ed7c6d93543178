// SPDX-License-Identifier: GPL-2.0
/*
 * Multi-stream CC and the DMA packet-size knobs (ccore.h, "Multi-stream
 * CC"): which CC core serves which stream for every S and C, that a
 * collective really runs on its stream's CC core, every rule and error of
 * CCORE_STREAMS, CCORE_CC_DMA_PACKET_SIZE and CCORE_DMA_PACKETIZATION_SIZE
 * and of the config, their precedence (config > environment > device
 * default), that the rings a collective's lowering builds carry its
 * stream's packet size and compute rings the packetization size (asked
 * from the backend), and on the timed model that the bigger packets win.
 *
 * The backend is the runtime's choice ($CCORE_DEVICE, else sim); on the
 * kernel driver (accel; built with -DCCORE_TEST_ACCEL this file is
 * build/tests/kernel/streams_accel, run in the QEMU guest) the cases that
 * shape the device or look inside the model skip.
 */
#include "tsim.h"
#include "comm.h"

#include <unistd.h>

#define N 2
/* A config as CCORE_COMM_CONFIG_INIT starts it, with the fields given set. */
#define CONFIG(...) { .size = sizeof(struct ccore_comm_config), .version = CCORE_VERSION_CODE, \
		      __VA_ARGS__ }
#define COUNT (256u * 1024)	/* f32: 1 MiB per rank */

static const char *const knobs[] = {
	"CCORE_SIM", "CCORE_STREAMS", "CCORE_CC_DMA_PACKET_SIZE",
	"CCORE_DMA_PACKETIZATION_SIZE", "CCORE_ALGO",
};

static void clear_knobs(void)
{
	for (size_t i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		unsetenv(knobs[i]);
}

#define MAX_ID 8

struct world {
	struct ccore_comm *c[N];
	ccore_ptr buf[N];
	/* kept: destroying a stream drops the plans, and with them their rings */
	struct ccore_stream *s[MAX_ID][N];
};

static bool on_sim(void)
{
	const char *b = getenv("CCORE_DEVICE");

	return !b || !*b || !strcmp(b, "sim");
}

static void need_sim(const char *why)
{
	char msg[256];

	if (!on_sim()) {
		snprintf(msg, sizeof(msg), "needs the sim backend: %s", why);
		ccore_test_skip(msg);
	}
}

/* Two ranks on one device shaped by @sim (CCORE_SIM). */
static int try_open_sim(struct world *w, const char *sim, const struct ccore_comm_config *cfg)
{
	struct ccore_topology t = { 1, 1, N };

	setenv("CCORE_SIM", sim, 1);
	memset(w, 0, sizeof(*w));
	return ccore_comm_init_all_config(&t, cfg, w->c);
}

/* Two ranks on one device with @cc_cores CC cores per core. */
static int try_open(struct world *w, uint32_t cc_cores, const struct ccore_comm_config *cfg)
{
	char sim[64];

	/* the kernel's devices have the model's default, 2 */
	if (cc_cores != 2)
		need_sim("a device of other than 2 CC cores per core");
	snprintf(sim, sizeof(sim), "cc_cores=%u", cc_cores);
	return try_open_sim(w, sim, cfg);
}

static void fill(struct world *w)
{
	for (uint32_t r = 0; r < N; r++) {
		float *h;

		if (ccore_mem_alloc(w->c[r], COUNT * sizeof(float), &w->buf[r]))
			FAIL("alloc: %s", ccore_last_error());
		h = ccore_mem_host(w->c[r], w->buf[r]);
		for (uint32_t i = 0; i < COUNT; i++)
			h[i] = (float)(r + 1);
	}
}

static void open_world(struct world *w, uint32_t cc_cores, const struct ccore_comm_config *cfg)
{
	if (try_open(w, cc_cores, cfg))
		FAIL("init: %s", ccore_last_error());
	fill(w);
}

static void close_world(struct world *w)
{
	for (uint32_t id = 0; id < MAX_ID; id++)
		for (uint32_t r = 0; r < N; r++)
			if (w->s[id][r])
				ASSERT_EQ(ccore_stream_destroy(w->s[id][r]), 0);
	/* a kernel device keeps its defaults: put the built-in ones back */
	ccore_dev_set_param(comm_dev(w->c[0]), DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, 65536);
	ccore_dev_set_param(comm_dev(w->c[0]), DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE, 4096);
	for (uint32_t r = 0; r < N; r++)
		ccore_comm_destroy(w->c[r]);
	clear_knobs();
}

/* The device model in-process; NULL on accel (it runs in the kernel). */
static struct ccm_fabric *model(struct world *w)
{
	return ccore_system_model(w->c[0]->q->rt->sys);
}

/* An in-place AllReduce (sum) on stream @id of every rank, synced. */
static void allreduce_on(struct world *w, uint32_t id)
{
	struct ccore_stream **s = w->s[id];

	for (uint32_t r = 0; r < N; r++)
		if (!s[r] && ccore_stream_create(w->c[r], id, &s[r]))
			FAIL("stream %u: %s", id, ccore_last_error());
	for (uint32_t r = 0; r < N; r++)
		if (ccore_all_reduce(w->buf[r], w->buf[r], COUNT, ccore_f32, ccore_sum, w->c[r], s[r]))
			FAIL("allreduce on stream %u: %s", id, ccore_last_error());
	for (uint32_t r = 0; r < N; r++)
		ASSERT_EQ(ccore_stream_sync(s[r]), 0);
}

/* Instructions each CC core of rank 0's core has executed. */
static void cc_insns(struct world *w, uint32_t cc_cores, uint64_t *out)
{
	uint32_t core = w->c[0]->q->ranks[0].core;

	for (uint32_t c = 0; c < cc_cores; c++) {
		struct ccm_cc_info info;

		ccm_cc_info(model(w), 0, core * cc_cores + c, &info);
		out[c] = info.insns;
	}
}

TEST(map_for_every_s_and_c)
{
	static const uint32_t cs[] = { 2, 4, 8 };
	/* the kernel's devices have 2 */
	size_t ncs = on_sim() ? sizeof(cs) / sizeof(cs[0]) : 1;

	for (size_t k = 0; k < ncs; k++) {
		for (uint32_t s = 1; s <= cs[k]; s++) {
			struct ccore_stream_map m;
			struct world w;
			char v[16];

			clear_knobs();
			snprintf(v, sizeof(v), "%u", s);
			setenv("CCORE_STREAMS", v, 1);
			if (try_open(&w, cs[k], NULL))
				FAIL("C=%u S=%u: %s", cs[k], s, ccore_last_error());
			ASSERT_EQ(ccore_comm_stream_map(w.c[1], &m), 0);
			ASSERT_EQ(m.streams, s);
			ASSERT_EQ(m.cc_cores, cs[k]);
			ASSERT_STR_CONTAINS(m.streams_source, "CCORE_STREAMS");
			/* each stream its own CC core; the surplus serve stream 0 */
			for (uint32_t c = 0; c < cs[k]; c++)
				ASSERT_EQ(m.cc_core_stream[c], c < s ? c : 0);
			for (uint32_t id = 0; id < cs[k] + 3; id++) {
				uint32_t cc = ~0u;

				ASSERT_EQ(ccore_comm_stream_cc_core(w.c[0], id, &cc), 0);
				ASSERT_EQ(cc, id < s ? id : 0);
			}
			close_world(&w);
		}
	}
}

TEST(default_is_one_stream_with_every_cc_core)
{
	uint32_t cc = on_sim() ? 4 : 2;	/* the kernel's devices have 2 */
	struct ccore_stream_map m;
	struct world w;

	clear_knobs();
	ASSERT_EQ(try_open(&w, cc, NULL), 0);
	ASSERT_EQ(ccore_comm_stream_map(w.c[0], &m), 0);
	ASSERT_EQ(m.streams, 1);
	ASSERT_STR_CONTAINS(m.streams_source, "built-in");
	ASSERT_EQ(m.cc_cores, cc);
	for (uint32_t c = 0; c < cc; c++)
		ASSERT_EQ(m.cc_core_stream[c], 0);
	close_world(&w);
}

TEST(config_streams_beats_environment)
{
	struct ccore_comm_config cfg = CONFIG(.streams = 3);
	struct ccore_stream_map m;
	struct world w;

	clear_knobs();
	setenv("CCORE_STREAMS", "2", 1);
	ASSERT_EQ(try_open(&w, 4, &cfg), 0);
	ASSERT_EQ(ccore_comm_stream_map(w.c[0], &m), 0);
	ASSERT_EQ(m.streams, 3);
	ASSERT_STR_CONTAINS(m.streams_source, "config");
	ASSERT_EQ(m.cc_core_stream[2], 2);
	ASSERT_EQ(m.cc_core_stream[3], 0);
	close_world(&w);
}

TEST(bad_stream_counts_are_errors)
{
	static const char *const bad[] = { "0", "5", "abc", "-1", "2 ", "99999999999" };
	struct ccore_comm_config cfg = CONFIG(.streams = 5);
	struct world w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[64];

		clear_knobs();
		setenv("CCORE_STREAMS", bad[i], 1);
		snprintf(want, sizeof(want), "CCORE_STREAMS=%s: ", bad[i]);
		EXPECT_ERR(try_open(&w, 4, NULL), -EINVAL, want);
		ASSERT_STR_CONTAINS(ccore_last_error(), "allowed: 1 to 4");
	}
	clear_knobs();
	EXPECT_ERR(try_open(&w, 4, &cfg), -EINVAL, "ccore_comm_config.streams=5: more streams than the 4 CC cores");
	ASSERT_STR_CONTAINS(ccore_last_error(), "allowed: 1 to 4");
	/* a bad variable is an error even where the config overrides it */
	cfg.streams = 2;
	setenv("CCORE_STREAMS", "9", 1);
	EXPECT_ERR(try_open(&w, 4, &cfg), -EINVAL, "CCORE_STREAMS=9");
	clear_knobs();
}

/* A collective on stream id runs on CC core id (id < S), else on CC core 0. */
TEST(collectives_run_on_their_streams_cc_core)
{
	uint64_t before[4], after[4];
	float expect = 1 + 2;	/* ranks hold 1 and 2: the sum, then doubling */
	struct world w;

	need_sim("counts each CC core's instructions in the model");
	clear_knobs();
	setenv("CCORE_STREAMS", "2", 1);
	open_world(&w, 4, NULL);
	for (uint32_t id = 0; id < 4; id++) {
		uint32_t want = id < 2 ? id : 0;
		float *h = ccore_mem_host(w.c[1], w.buf[1]);

		cc_insns(&w, 4, before);
		allreduce_on(&w, id);
		cc_insns(&w, 4, after);
		/* the program is several instructions; the firmware's dispatch
		 * loop finishing the previous job is one */
		for (uint32_t c = 0; c < 4; c++) {
			if (c == want)
				ASSERT_GE(after[c] - before[c], 5);
			else
				ASSERT_LE(after[c] - before[c], 1);
		}
		ASSERT_TRUE(h[0] == expect && h[COUNT - 1] == expect);
		expect *= N;
	}
	close_world(&w);
}

struct bad_value {
	const char *streams, *value, *why;
};

TEST(cc_packet_size_errors)
{
	static const struct bad_value bad[] = {
		{ NULL, "abc", "'abc' is not a number of bytes" },
		{ NULL, "-4096", "'-4096' is not a number of bytes" },
		{ NULL, "0x1000", "'0x1000' is not a number of bytes" },
		{ NULL, "100000", "100000 is not a power of two" },
		{ NULL, "131072", "131072 is above 65536: it can only be lowered" },
		{ NULL, "256", "256 is below the device minimum 512" },
		{ NULL, "0", "0 is not a power of two" },
		{ "2", ",4096", "a value is empty" },
		{ "2", "4096,", "a value is empty" },
		{ "3", "4096,,4096", "a value is empty" },
		{ NULL, "65536,4096", "more values than the 1 stream in use" },
		{ "2", "65536,4096,4096", "more values than the 2 streams in use" },
		{ "3", "65536,4096", "2 values for 3 streams" },
		{ "2", "65536,3000", "3000 is not a power of two" },
	};
	struct world w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[96];

		clear_knobs();
		if (bad[i].streams)
			setenv("CCORE_STREAMS", bad[i].streams, 1);
		setenv("CCORE_CC_DMA_PACKET_SIZE", bad[i].value, 1);
		snprintf(want, sizeof(want), "CCORE_CC_DMA_PACKET_SIZE=%s: %s", bad[i].value,
			 bad[i].why);
		EXPECT_ERR(try_open(&w, 4, NULL), -EINVAL, want);
		ASSERT_STR_CONTAINS(ccore_last_error(), "one value for every stream or one per stream");
		if (!strstr(bad[i].why, "values"))
			ASSERT_STR_CONTAINS(ccore_last_error(), "from 512 to 65536 bytes");
	}
	clear_knobs();
}

TEST(cc_packet_size_config_errors)
{
	struct ccore_comm_config cfg = CONFIG(.cc_packet_size = { 3000 });
	struct world w;

	clear_knobs();
	EXPECT_ERR(try_open(&w, 2, &cfg), -EINVAL, "ccore_comm_config.cc_packet_size[0]=3000: 3000 is not a power of two");
	cfg.cc_packet_size[0] = 1u << 17;
	EXPECT_ERR(try_open(&w, 2, &cfg), -EINVAL, "can only be lowered");
	/* a packet size for a stream the communicator does not use */
	cfg.cc_packet_size[0] = 0;
	cfg.cc_packet_size[1] = 4096;
	EXPECT_ERR(try_open(&w, 2, &cfg), -EINVAL, "ccore_comm_config.cc_packet_size[1]=4096: the communicator uses 1 stream");
	clear_knobs();
}

TEST(dma_packetization_size_errors)
{
	static const struct bad_value bad[] = {
		{ NULL, "2048", "2048 is below 4096: it can only be raised" },
		{ NULL, "131072", "131072 is above the device maximum 65536" },
		{ NULL, "12288", "12288 is not a power of two" },
		{ NULL, "8192,16384", "'8192,16384' is not a number of bytes" },
		{ NULL, "8K", "'8K' is not a number of bytes" },
	};
	struct ccore_comm_config cfg = CONFIG(.dma_packetization_size = 1024);
	struct world w;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[96];

		clear_knobs();
		setenv("CCORE_DMA_PACKETIZATION_SIZE", bad[i].value, 1);
		snprintf(want, sizeof(want), "CCORE_DMA_PACKETIZATION_SIZE=%s: %s", bad[i].value,
			 bad[i].why);
		EXPECT_ERR(try_open(&w, 2, NULL), -EINVAL, want);
		ASSERT_STR_CONTAINS(ccore_last_error(), "from 4096");
		ASSERT_STR_CONTAINS(ccore_last_error(), "to the device maximum 65536 bytes");
	}
	clear_knobs();
	EXPECT_ERR(try_open(&w, 2, &cfg), -EINVAL, "ccore_comm_config.dma_packetization_size=1024: 1024 is below 4096");
	clear_knobs();
}

/* Every value: config > environment > device default (sysfs) > built-in. */
TEST(packet_size_precedence)
{
	struct ccore_comm_config cfg = CONFIG(.streams = 2, .cc_packet_size = { 0, 2048 },
					      .dma_packetization_size = 32768);
	struct ccore_stream_map m;
	struct world w;
	uint32_t dma;

	clear_knobs();
	ASSERT_EQ(try_open(&w, 2, NULL), 0);
	ASSERT_EQ(ccore_comm_stream_map(w.c[0], &m), 0);
	ASSERT_EQ(m.cc_packet_size[0], 65536);
	ASSERT_STR_CONTAINS(m.cc_packet_source[0], "device default");
	ASSERT_EQ(m.dma_packetization_size, 4096);
	ASSERT_STR_CONTAINS(m.dma_packetization_source, "device default");
	/* the device's default (sysfs) as it is now */
	ASSERT_EQ(ccore_dev_set_param(comm_dev(w.c[0]), DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, 8192), 0);
	ASSERT_EQ(ccore_dev_set_param(comm_dev(w.c[0]), DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE,
				      16384), 0);
	ASSERT_EQ(ccore_comm_stream_map(w.c[0], &m), 0);
	ASSERT_EQ(m.cc_packet_size[0], 8192);
	ASSERT_EQ(ccore_comm_dma_packetization_size(w.c[0], &dma), 0);
	ASSERT_EQ(dma, 16384);
	close_world(&w);

	setenv("CCORE_STREAMS", "2", 1);
	setenv("CCORE_CC_DMA_PACKET_SIZE", "4096", 1);
	setenv("CCORE_DMA_PACKETIZATION_SIZE", "8192", 1);
	ASSERT_EQ(try_open(&w, 2, NULL), 0);
	ASSERT_EQ(ccore_dev_set_param(comm_dev(w.c[0]), DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, 8192), 0);
	ASSERT_EQ(ccore_comm_stream_map(w.c[0], &m), 0);
	/* one value is every stream's */
	ASSERT_EQ(m.cc_packet_size[0], 4096);
	ASSERT_EQ(m.cc_packet_size[1], 4096);
	ASSERT_STR_CONTAINS(m.cc_packet_source[1], "CCORE_CC_DMA_PACKET_SIZE");
	ASSERT_EQ(ccore_comm_dma_packetization_size(w.c[0], &dma), 0);
	ASSERT_EQ(dma, 8192);
	close_world(&w);

	setenv("CCORE_STREAMS", "1", 1);
	setenv("CCORE_CC_DMA_PACKET_SIZE", "4096", 1);
	setenv("CCORE_DMA_PACKETIZATION_SIZE", "8192", 1);
	ASSERT_EQ(try_open(&w, 2, &cfg), 0);
	ASSERT_EQ(ccore_comm_stream_map(w.c[0], &m), 0);
	ASSERT_EQ(m.streams, 2);
	ASSERT_EQ(m.cc_packet_size[0], 4096);
	ASSERT_STR_CONTAINS(m.cc_packet_source[0], "CCORE_CC_DMA_PACKET_SIZE");
	ASSERT_EQ(m.cc_packet_size[1], 2048);
	ASSERT_STR_CONTAINS(m.cc_packet_source[1], "config");
	ASSERT_EQ(m.dma_packetization_size, 32768);
	ASSERT_STR_CONTAINS(m.dma_packetization_source, "config");
	close_world(&w);
}

/* The rings rank @r's cached plans hold: packet size, bytes, packets. */
struct ring_set {
	uint32_t n;
	uint32_t packet[64];
	uint64_t bytes[64], packets[64];
	uint32_t slot[64];		/* ring handle */
};

static void claimed_rings(struct world *w, uint32_t r, struct ring_set *out)
{
	out->n = plan_ring_handles(w->c[r]->q, r, out->slot, 64);
	for (uint32_t i = 0; i < out->n; i++) {
		struct drm_ccore_ring_stats st = { 0 };

		ASSERT_EQ(ccore_dev_ring_stats(comm_dev(w->c[r]), out->slot[i], &st), 0);
		out->packet[i] = st.packet_size;
		out->bytes[i] = st.bytes;
		out->packets[i] = st.packets;
	}
}

static bool had(const struct ring_set *s, uint32_t slot)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->slot[i] == slot)
			return true;
	return false;
}

/* Rings new in @after carry @pkt, moved bytes, in packets of at most @pkt. */
static void check_new_rings(const struct ring_set *before, const struct ring_set *after,
			    uint32_t pkt)
{
	uint32_t fresh = 0;

	for (uint32_t i = 0; i < after->n; i++) {
		if (had(before, after->slot[i]))
			continue;
		fresh++;
		ASSERT_EQ(after->packet[i], pkt);
		ASSERT_GT(after->bytes[i], 0);
		ASSERT_GE(after->packets[i] * pkt, after->bytes[i]);
	}
	ASSERT_GT(fresh, 0);
}

TEST(rings_carry_their_streams_packet_size)
{
	struct ring_set r0, r1, r2;
	struct world w;

	clear_knobs();
	setenv("CCORE_STREAMS", "2", 1);
	setenv("CCORE_CC_DMA_PACKET_SIZE", "65536,4096", 1);
	setenv("CCORE_ALGO", "ring", 1);
	open_world(&w, 2, NULL);
	for (uint32_t r = 0; r < N; r++) {
		claimed_rings(&w, r, &r0);
		ASSERT_EQ(r0.n, 0);
	}
	allreduce_on(&w, 0);
	claimed_rings(&w, 0, &r1);
	check_new_rings(&r0, &r1, 65536);
	allreduce_on(&w, 1);
	claimed_rings(&w, 0, &r2);
	check_new_rings(&r1, &r2, 4096);
	/* a stream id past the streams in use is stream 0: its packet size */
	r1 = r2;
	allreduce_on(&w, 7);
	claimed_rings(&w, 0, &r2);
	check_new_rings(&r1, &r2, 65536);
	close_world(&w);
}

/* With no knob set a ring gets the device's default (sysfs) when built. */
TEST(rings_follow_the_device_default)
{
	struct ring_set r0, r1;
	struct world w;

	clear_knobs();
	open_world(&w, 2, NULL);
	ASSERT_EQ(ccore_dev_set_param(comm_dev(w.c[0]), DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, 2048), 0);
	claimed_rings(&w, 0, &r0);
	allreduce_on(&w, 0);
	claimed_rings(&w, 0, &r1);
	check_new_rings(&r0, &r1, 2048);
	close_world(&w);
}

/*
 * Priority: two AllReduces at once, one per stream, on the timed model.
 * They share the DMA engines, which switch ring at packet boundaries, so
 * the stream with the bigger packets finishes first.  @t0: the virtual
 * time once stream 0's collective was done; @t1: once both were.
 */
static void race(const char *packets, uint64_t *t0, uint64_t *t1)
{
	struct ccore_topology t = { 1, 1, N };
	struct ccore_stream *s[2][N];
	struct ccore_comm *c[N];
	ccore_ptr b[2][N];

	need_sim("the timed model");
	clear_knobs();
	setenv("CCORE_SIM", "cc_cores=2,timed=1,virtual=1", 1);
	setenv("CCORE_STREAMS", "2", 1);
	setenv("CCORE_CC_DMA_PACKET_SIZE", packets, 1);
	setenv("CCORE_ALGO", "ring", 1);
	if (ccore_comm_init_all(&t, c))
		FAIL("init: %s", ccore_last_error());
	for (uint32_t k = 0; k < 2; k++)
		for (uint32_t r = 0; r < N; r++)
			if (ccore_mem_alloc(c[r], 16u << 20, &b[k][r]) ||
			    ccore_stream_create(c[r], k, &s[k][r]))
				FAIL("setup: %s", ccore_last_error());
	for (uint32_t k = 0; k < 2; k++)
		for (uint32_t r = 0; r < N; r++)
			if (ccore_all_reduce(b[k][r], b[k][r], 4u << 20, ccore_f32, ccore_sum, c[r], s[k][r]))
				FAIL("allreduce: %s", ccore_last_error());
	for (uint32_t r = 0; r < N; r++)
		ASSERT_EQ(ccore_stream_sync(s[0][r]), 0);
	ASSERT_EQ(ccore_comm_virtual_time_ps(c[0], t0), 0);
	for (uint32_t r = 0; r < N; r++)
		ASSERT_EQ(ccore_stream_sync(s[1][r]), 0);
	ASSERT_EQ(ccore_comm_virtual_time_ps(c[0], t1), 0);
	for (uint32_t k = 0; k < 2; k++)
		for (uint32_t r = 0; r < N; r++)
			ASSERT_EQ(ccore_stream_destroy(s[k][r]), 0);
	for (uint32_t r = 0; r < N; r++)
		ccore_comm_destroy(c[r]);
	clear_knobs();
}

TEST(bigger_packets_finish_first)
{
	uint64_t hi0, hi1, lo0, lo1, eq0, eq1;

	race("65536,4096", &hi0, &hi1);
	race("4096,65536", &lo0, &lo1);
	race("65536", &eq0, &eq1);
	ccore_test_log("stream 0 done at %.1f us with 64K:4K, %.1f us with 4K:64K, %.1f us with 64K:64K; stream 1 at %.1f, %.1f, %.1f us",
		       hi0 / 1e6, lo0 / 1e6, eq0 / 1e6, hi1 / 1e6, lo1 / 1e6, eq1 / 1e6);
	/* 16:1 shares: stream 0 nearly as fast as alone; equal: both last */
	ASSERT_LT(hi0 * 4, eq0 * 3);
	ASSERT_GE(lo0, eq0);
	ASSERT_LT(eq1 - eq0, eq0 / 20);
}

/* A compute ring copying @bytes once: its packet size and packets moved. */
static void compute_copy(struct world *w, uint32_t bytes, uint32_t *pkt, uint64_t *packets)
{
	struct drm_ccore_desc d = { .op = DRM_CCORE_DESC_COPY, .len = bytes,
				    .src0 = w->buf[0], .dst = w->buf[0] + bytes };
	struct drm_ccore_ring_stats st = { 0 };
	struct comm_ring ring;

	if (comm_compute_ring_create(w->c[0], 1, 4, &ring))
		FAIL("compute ring: %s", ccore_last_error());
	ASSERT_EQ(ccore_dev_ring_submit(comm_dev(w->c[0]), ring.handle, &d, 1,
					DRM_CCORE_SUBMIT_F_START), 0);
	/* the inline model runs only when stepped; the kernel's on its own */
	for (int i = 0; i < 10000; i++) {
		ASSERT_EQ(ccore_dev_ring_stats(comm_dev(w->c[0]), ring.handle, &st), 0);
		if (st.completed || st.errors)
			break;
		if (model(w) && !ccm_fabric_run_steps(model(w), 64))
			break;
		if (!model(w))
			usleep(1000);
	}
	ASSERT_EQ(st.completed, 1);
	ASSERT_U64_EQ(st.bytes, bytes);
	*pkt = st.packet_size;
	*packets = st.packets;
	ASSERT_EQ(comm_compute_ring_destroy(w->c[0], &ring), 0);
}

TEST(compute_rings_carry_the_packetization_size)
{
	const uint32_t bytes = 512u * 1024;
	uint64_t packets;
	uint32_t pkt;
	struct world w;

	clear_knobs();
	ASSERT_EQ(try_open_sim(&w, "workers=0", NULL), 0);
	fill(&w);
	EXPECT_ERR(comm_compute_ring_create(w.c[0], 99, 4, &(struct comm_ring){ 0 }), -EINVAL,
		   "compute ring: engine 99 out of range (0..3)");
	compute_copy(&w, bytes, &pkt, &packets);
	ASSERT_EQ(pkt, 4096);		/* the device default */
	ASSERT_U64_EQ(packets, bytes / 4096);
	/* the device's default as it is when the ring is made */
	ASSERT_EQ(ccore_dev_set_param(comm_dev(w.c[0]), DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE,
				      16384), 0);
	compute_copy(&w, bytes, &pkt, &packets);
	ASSERT_EQ(pkt, 16384);
	close_world(&w);

	setenv("CCORE_DMA_PACKETIZATION_SIZE", "65536", 1);
	ASSERT_EQ(try_open_sim(&w, "workers=0", NULL), 0);
	fill(&w);
	compute_copy(&w, bytes, &pkt, &packets);
	ASSERT_EQ(pkt, 65536);
	ASSERT_U64_EQ(packets, bytes / 65536);
	close_world(&w);
}

#ifdef CCORE_TEST_ACCEL
/* build/tests/kernel/streams_accel: the same on the kernel driver. */
__attribute__((constructor)) static void streams_accel_defaults(void)
{
	setenv("CCORE_DEVICE", "accel", 0);
}
#endif

/* A split communicator keeps its parent's streams and packet sizes. */
TEST(split_keeps_the_parents_map)
{
	struct ccore_comm_config cfg = CONFIG(.streams = 2, .cc_packet_size = { 8192, 1024 });
	const int color[N] = { 0, 0 }, key[N] = { 1, 0 };
	struct ccore_comm *out[N];
	struct ccore_stream_map m;
	struct world w;
	uint32_t cc;

	clear_knobs();
	ASSERT_EQ(try_open(&w, 2, &cfg), 0);
	ASSERT_EQ(ccore_comm_split(w.c, N, color, key, out), 0);
	/* the knobs changing later does not change it */
	setenv("CCORE_STREAMS", "1", 1);
	ASSERT_EQ(ccore_comm_stream_map(out[0], &m), 0);
	ASSERT_EQ(m.streams, 2);
	ASSERT_EQ(m.cc_packet_size[0], 8192);
	ASSERT_EQ(m.cc_packet_size[1], 1024);
	ASSERT_EQ(ccore_comm_stream_cc_core(out[1], 1, &cc), 0);
	ASSERT_EQ(cc, 1);
	for (uint32_t r = 0; r < N; r++)
		ASSERT_EQ(ccore_comm_destroy(out[r]), 0);
	close_world(&w);
}

TEST(null_arguments_are_errors)
{
	struct ccore_stream_map m;
	uint32_t v;

	EXPECT_ERR(ccore_comm_stream_map(NULL, &m), -EINVAL, "ccore_comm_stream_map: comm and out must be set");
	EXPECT_ERR(ccore_comm_stream_cc_core(NULL, 0, &v), -EINVAL, "ccore_comm_stream_cc_core: comm and cc_core must be set");
	EXPECT_ERR(ccore_comm_dma_packetization_size(NULL, &v), -EINVAL, "ccore_comm_dma_packetization_size: comm and bytes must be set");
	EXPECT_ERR(ccore_dev_stream_map(NULL, NULL, &m), -EINVAL, "ccore_dev_stream_map: dev and out must be set");
}
