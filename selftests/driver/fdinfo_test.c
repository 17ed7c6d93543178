// SPDX-License-Identifier: GPL-2.0
/*
 * Per-file memory in /proc/<pid>/fdinfo/<fd>, the DRM usage-stats keys
 * accelerator top tools read (Documentation/gpu/drm-usage-stats.rst):
 * drm-driver, drm-client-id, drm-total-memory, drm-shared-memory,
 * drm-resident-memory, drm-purgeable-memory.  Each buffer a file creates,
 * registers or closes moves them by its size; another file's do not.
 */
#include "ccore_drv_test.h"

#define KiB 1024ull
#define MiB (1024 * KiB)

/* One file's fdinfo keys; -1: the key was not there. */
struct fdinfo {
	char driver[32];
	long long client_id;
	long long total, shared, resident, purgeable, active;
};

/* "123", "123 KiB", "123 MiB" in bytes */
static long long size_value(const char *v)
{
	char unit[8] = "";
	long long n;

	if (sscanf(v, "%lld %7s", &n, unit) < 1)
		return -2;
	if (!strcmp(unit, "KiB"))
		return n * KiB;
	if (!strcmp(unit, "MiB"))
		return n * MiB;
	return unit[0] ? -2 : n;
}

static int read_fdinfo(int fd, struct fdinfo *fi)
{
	/* the memory keys, each a size */
	const struct {
		const char *key;
		long long *bytes;
	} sizes[] = {
		{ "drm-total-memory", &fi->total },
		{ "drm-shared-memory", &fi->shared },
		{ "drm-resident-memory", &fi->resident },
		{ "drm-purgeable-memory", &fi->purgeable },
		{ "drm-active-memory", &fi->active },
	};
	char path[64], line[256], key[64], value[128];
	FILE *f;

	memset(fi, 0, sizeof(*fi));
	fi->client_id = -1;
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		*sizes[i].bytes = -1;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63[^:]:%*[ \t]%127[^\n]", key, value) != 2)
			continue;
		if (!strcmp(key, "drm-driver"))
			snprintf(fi->driver, sizeof(fi->driver), "%.31s", value);
		else if (!strcmp(key, "drm-client-id"))
			fi->client_id = atoll(value);
		for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
			if (!strcmp(key, sizes[i].key))
				*sizes[i].bytes = size_value(value);
	}
	fclose(f);
	return 0;
}

CCORE_DEV_FIXTURE(fdinfo)

/* A new file: ccore's keys, nothing in memory yet. */
TEST_F(fdinfo, keys_of_a_new_file)
{
	struct fdinfo fi, other;
	int fd2;

	ASSERT_EQ(0, read_fdinfo(self->fd, &fi));
	EXPECT_STREQ("ccore", fi.driver);
	EXPECT_LE(0, fi.client_id);
	EXPECT_EQ(0, fi.total);
	EXPECT_EQ(0, fi.shared);
	EXPECT_EQ(0, fi.active);
	/* another file is another client */
	fd2 = reopen(&self->d);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, read_fdinfo(fd2, &other));
	EXPECT_NE(fi.client_id, other.client_id);
	close(fd2);
}

TEST_F(fdinfo, buffers_move_total_and_resident)
{
	uint32_t big, odd, user;
	struct fdinfo fi;
	void *mem;

	ASSERT_EQ(0, bo_create(self->fd, 1 * MiB, &big, NULL));
	ASSERT_EQ(0, read_fdinfo(self->fd, &fi));
	EXPECT_EQ(1 * MiB, fi.total);
	EXPECT_EQ(1 * MiB, fi.resident);
	EXPECT_EQ(0, fi.purgeable);
	EXPECT_EQ(0, fi.shared);

	/* sizes are whole pages */
	ASSERT_EQ(0, bo_create(self->fd, 12 * KiB + 1, &odd, NULL));
	ASSERT_EQ(0, read_fdinfo(self->fd, &fi));
	EXPECT_EQ(1 * MiB + 16 * KiB, fi.total);
	EXPECT_EQ(1 * MiB + 16 * KiB, fi.resident);

	/* registered user memory is the file's too, and pinned */
	mem = mmap(NULL, 64 * KiB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	ASSERT_EQ(0, bo_userptr(self->fd, mem, 64 * KiB, &user, NULL));
	ASSERT_EQ(0, read_fdinfo(self->fd, &fi));
	EXPECT_EQ(1 * MiB + 80 * KiB, fi.total);
	EXPECT_EQ(1 * MiB + 80 * KiB, fi.resident);

	ASSERT_EQ(0, gem_close(self->fd, big));
	ASSERT_EQ(0, read_fdinfo(self->fd, &fi));
	EXPECT_EQ(80 * KiB, fi.total);
	EXPECT_EQ(80 * KiB, fi.resident);

	ASSERT_EQ(0, gem_close(self->fd, odd));
	ASSERT_EQ(0, gem_close(self->fd, user));
	ASSERT_EQ(0, read_fdinfo(self->fd, &fi));
	EXPECT_EQ(0, fi.total);
	munmap(mem, 64 * KiB);
}

/* Each file counts its own buffers only. */
TEST_F(fdinfo, per_file)
{
	struct fdinfo fi, other;
	uint32_t h;
	int fd2;

	fd2 = reopen(&self->d);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, bo_create(self->fd, 256 * KiB, &h, NULL));
	ASSERT_EQ(0, read_fdinfo(self->fd, &fi));
	ASSERT_EQ(0, read_fdinfo(fd2, &other));
	EXPECT_EQ(256 * KiB, fi.total);
	EXPECT_EQ(0, other.total);
	close(fd2);
}

/* A buffer exported as a dma-buf counts as shared, still in the total. */
TEST_F(fdinfo, exported_is_shared)
{
	struct drm_prime_handle ph = { .flags = DRM_CLOEXEC };
	struct fdinfo fi;
	uint32_t h;

	ASSERT_EQ(0, bo_create(self->fd, 2 * MiB, &h, NULL));
	ph.handle = h;
	ASSERT_EQ(0, ioc(self->fd, DRM_IOCTL_PRIME_HANDLE_TO_FD, &ph));
	ASSERT_EQ(0, read_fdinfo(self->fd, &fi));
	EXPECT_EQ(2 * MiB, fi.total);
	EXPECT_EQ(2 * MiB, fi.shared);
	EXPECT_EQ(2 * MiB, fi.resident);
	close(ph.fd);
}

TEST_HARNESS_MAIN
