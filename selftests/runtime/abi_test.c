// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI's versioning: ccore_get_version() and the version macros, and
 * the size and version of struct ccore_comm_config (runtime/abi.c): a
 * struct from CCORE_COMM_CONFIG_INIT is read, one without it, of another
 * major version, or smaller than any published layout is refused naming
 * what is wrong, a newer caller's bigger struct is read when the fields
 * this library does not know are 0; and the growth itself on two layouts
 * of a made-up struct (an older caller's smaller one reads as "not set").
 */
#include "ccore_test.h"
#include "abi.h"

#include <stddef.h>

TEST(version_code_and_macros)
{
	char want[32];
	int v = -1;

	ASSERT_EQ(ccore_get_version(&v), 0);
	ASSERT_EQ(v, CCORE_VERSION_CODE);
	ASSERT_EQ(CCORE_VERSION_CODE, CCORE_MAJOR * 10000 + CCORE_MINOR * 100 + CCORE_PATCH);
	snprintf(want, sizeof(want), "%d.%d.%d", CCORE_MAJOR, CCORE_MINOR, CCORE_PATCH);
	ASSERT_TRUE(!strcmp(CCORE_VERSION_STRING, want));
	ASSERT_EQ(ccore_get_version(NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "ccore_get_version: version is NULL");
}

static struct ccore_system *sys;

static struct ccore_dev *sim_dev(void)
{
	if (!sys && ccore_system_open("sim", "", &sys))
		FAIL("sim: %s", ccore_last_error());
	return ccore_system_device(sys, 0);
}

/* The stream map @cfg gives (the same check as ccore_comm_init_all_config). */
static int map_of(const void *cfg, struct ccore_stream_map *m)
{
	unsetenv("CCORE_STREAMS");
	return ccore_dev_stream_map(sim_dev(), cfg, m);
}

TEST(config_from_init_is_read)
{
	struct ccore_comm_config cfg = CCORE_COMM_CONFIG_INIT;
	struct ccore_stream_map m;

	ASSERT_EQ(cfg.size, sizeof(cfg));
	ASSERT_EQ(cfg.version, CCORE_VERSION_CODE);
	cfg.streams = 2;
	ASSERT_EQ(map_of(&cfg, &m), 0);
	ASSERT_EQ(m.streams, 2);
	ASSERT_TRUE(!strcmp(m.streams_source, "config"));
	ASSERT_EQ(map_of(NULL, &m), 0);
	ASSERT_EQ(m.streams, 1);
}

/* @cfg is refused with -EINVAL and a message holding @what. */
static void refused(const void *cfg, const char *what)
{
	struct ccore_stream_map m;

	ASSERT_EQ(map_of(cfg, &m), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "struct ccore_comm_config: ");
	ASSERT_STR_CONTAINS(ccore_last_error(), what);
}

TEST(config_without_init_is_refused)
{
	struct ccore_topology topo = { 1, 1, 2 };
	struct ccore_comm_config cfg;
	struct ccore_comm *comms[2];

	memset(&cfg, 0, sizeof(cfg));
	cfg.streams = 2;
	refused(&cfg, "size is 0, the struct was not initialized; start from CCORE_COMM_CONFIG_INIT");
	/* communicator creation checks it the same way */
	ASSERT_EQ(ccore_comm_init_all_config(&topo, &cfg, comms), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "size is 0");
	cfg.size = sizeof(cfg);
	refused(&cfg, "version is 0, the struct was not initialized");
}

TEST(config_of_another_version_is_refused)
{
	struct ccore_comm_config cfg = CCORE_COMM_CONFIG_INIT;
	char want[128];

	cfg.version = CCORE_VERSION(CCORE_MAJOR + 1, 0, 0);
	snprintf(want, sizeof(want), "version %d (%d.0.0) is not one this libccore %s reads; allowed: 0.3.0 to any %d.x",
		 CCORE_VERSION(CCORE_MAJOR + 1, 0, 0), CCORE_MAJOR + 1, CCORE_VERSION_STRING,
		 CCORE_MAJOR);
	refused(&cfg, want);
	/* sized structs began with 0.3.0 */
	cfg.version = CCORE_VERSION(0, 2, 0);
	refused(&cfg, "version 200 (0.2.0) is not one");
}

/* A caller built before dma_packetization_size existed: no such layout. */
TEST(config_smaller_than_any_layout_is_refused)
{
	struct ccore_comm_config cfg = CCORE_COMM_CONFIG_INIT;
	char want[160];

	cfg.size = offsetof(struct ccore_comm_config, dma_packetization_size);
	snprintf(want, sizeof(want), "size %zu is smaller than any published layout (the first, libccore 0.3.0, has %zu bytes)",
		 cfg.size, sizeof(cfg));
	refused(&cfg, want);
}

/* A caller built against a newer ccore.h, whose struct has one more field. */
struct newer_config {
	struct ccore_comm_config known;
	uint64_t future;
};

TEST(config_of_a_newer_caller)
{
	struct newer_config cfg = { CCORE_COMM_CONFIG_INIT, 0 };
	struct ccore_stream_map m;
	char want[160];

	cfg.known.size = sizeof(cfg);
	cfg.known.version = CCORE_VERSION(CCORE_MAJOR, 99, 0);
	cfg.known.streams = 2;
	/* its new field left unset: read */
	ASSERT_EQ(map_of(&cfg, &m), 0);
	ASSERT_EQ(m.streams, 2);
	/* set: refused, naming where */
	cfg.future = 1;
	snprintf(want, sizeof(want), "byte %zu of the caller's %zu is set, but this libccore %s knows only the first %zu (a field of libccore %d.99.0)",
		 offsetof(struct newer_config, future), sizeof(cfg), CCORE_VERSION_STRING,
		 sizeof(struct ccore_comm_config), CCORE_MAJOR);
	refused(&cfg, want);
}

/* Two published layouts of one struct: the growth abi_struct_in() allows. */
struct cfg_v1 {
	size_t size;
	uint32_t version;
	uint32_t a;
};

struct cfg_v2 {
	size_t size;
	uint32_t version;
	uint32_t a;
	uint64_t b;
};

static const struct abi_struct lib_v2 = {
	"cfg", "CFG_INIT", sizeof(struct cfg_v2), sizeof(struct cfg_v1), CCORE_VERSION(0, 3, 0),
};
static const struct abi_struct lib_v1 = {
	"cfg", "CFG_INIT", sizeof(struct cfg_v1), sizeof(struct cfg_v1), CCORE_VERSION(0, 3, 0),
};

TEST(older_caller_reads_as_not_set)
{
	struct cfg_v1 old = { sizeof(old), CCORE_VERSION(0, 3, 0), 7 };
	struct cfg_v2 got;

	memset(&got, 0xa5, sizeof(got));
	ASSERT_EQ(abi_struct_in(&lib_v2, &got, &old), 0);
	ASSERT_EQ(got.size, sizeof(old));
	ASSERT_EQ(got.a, 7);
	ASSERT_U64_EQ(got.b, 0);	/* the field it does not have: not set */
}

TEST(newer_caller_on_an_older_library)
{
	struct cfg_v2 newer = { sizeof(newer), CCORE_VERSION_CODE, 7, 0 };
	struct cfg_v1 got;

	ASSERT_EQ(abi_struct_in(&lib_v1, &got, &newer), 0);
	ASSERT_EQ(got.a, 7);
	newer.b = 1;
	ASSERT_EQ(abi_struct_in(&lib_v1, &got, &newer), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "struct cfg: byte 16 of the caller's 24 is set");
	ASSERT_STR_CONTAINS(ccore_last_error(), "leave it 0 or run on a newer library");
}
