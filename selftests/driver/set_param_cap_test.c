// SPDX-License-Identifier: GPL-2.0
/*
 * SET_PARAM changes a device-wide default (the packet size of every ring
 * created afterwards without one of its own), so it needs CAP_SYS_ADMIN,
 * as writing the root-only sysfs files does.  An unprivileged file still
 * reads the knobs and still picks its own rings' packet size.
 *
 * The guest runs tests as root: each unprivileged case runs in a child
 * that drops the capability (capset) or becomes nobody (setuid), keeping
 * the device file it opened before.
 */
#include <linux/capability.h>
#include <sys/syscall.h>

#include "ccore_drv_test.h"

#define NOBODY 65534

FIXTURE(cap) {
	struct ccore_dev d;
	int fd;
	uint64_t cc0, dma0;
	char sysfs_cc[128];
};

FIXTURE_SETUP(cap)
{
	if (ccore_open_first(&self->d))
		SKIP(return, NO_DEVICE_MSG);
	self->fd = self->d.fd;
	self->cc0 = param(self->fd, DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE);
	self->dma0 = param(self->fd, DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE);
	ASSERT_LT(self->d.min_packet, self->cc0) TH_LOG("the test lowers the CC packet size");
	snprintf(self->sysfs_cc, sizeof(self->sysfs_cc),
		 "/sys/class/accel/accel%d/cc_dma_packet_size", self->d.minor);
}

FIXTURE_TEARDOWN(cap)
{
	if (self->d.fd < 0)
		return;
	set_param(self->fd, DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, self->cc0);
	set_param(self->fd, DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE, self->dma0);
	close(self->fd);
}

/* Drop CAP_SYS_ADMIN from the effective, permitted and inheritable sets. */
static int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];
	int i;

	if (syscall(SYS_capget, &h, c))
		return -errno;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		uint32_t bit = CAP_TO_INDEX(CAP_SYS_ADMIN) == i ? CAP_TO_MASK(CAP_SYS_ADMIN) : 0;

		c[i].effective &= ~bit;
		c[i].permitted &= ~bit;
		c[i].inheritable &= ~bit;
	}
	return syscall(SYS_capset, &h, c) ? -errno : 0;
}

static bool has_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, c))
		return false;
	return c[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN);
}

/* What an unprivileged file may and may not do with the knobs. */
static int unprivileged_checks(FIXTURE_DATA(cap) *self)
{
	const uint32_t cc = DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE;
	const uint32_t dma = DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE;
	uint32_t min = self->d.min_packet, ring;
	struct drm_ccore_ring_stats st;

	CHILD_TRUE(!has_sys_admin());
	/* a device-wide change is refused and changes nothing */
	CHILD_EQ(-EPERM, set_param(self->fd, cc, self->cc0 / 2));
	CHILD_EQ(-EPERM, set_param(self->fd, cc, self->cc0));
	CHILD_EQ(-EPERM, set_param(self->fd, dma, self->dma0 * 2));
	CHILD_EQ(self->cc0, param(self->fd, cc));
	CHILD_EQ(self->dma0, param(self->fd, dma));
	/* a read-only or unknown param is still the bad argument it was */
	CHILD_EQ(-EINVAL, set_param(self->fd, DRM_CCORE_PARAM_NUM_CORES, 1));
	CHILD_EQ(-EINVAL, set_param(self->fd, 9999, 1));
	/* its own ring's packet size is the file's to choose */
	CHILD_EQ(0, ring_create(self->fd, 0, 0, 0, 4, min, 0, &ring));
	CHILD_EQ(0, ring_stats(self->fd, ring, &st));
	CHILD_EQ(min, st.packet_size);
	CHILD_EQ(0, ring_destroy(self->fd, ring));
	return 0;
}

static int without_cap_child(void *arg)
{
	int rc = drop_sys_admin();

	if (rc) {
		fprintf(stderr, "# capset without CAP_SYS_ADMIN: %s\n", strerror(-rc));
		return 1;
	}
	return unprivileged_checks(arg);
}

static int become_nobody(void)
{
	if (setgid(NOBODY) || setuid(NOBODY)) {
		fprintf(stderr, "# setuid(%d): %s\n", NOBODY, strerror(errno));
		return -1;
	}
	return 0;
}

static int nobody_child(void *arg)
{
	return become_nobody() ? 1 : unprivileged_checks(arg);
}

/* nobody may not write the root-only sysfs knob either */
static int nobody_sysfs_child(void *arg)
{
	FIXTURE_DATA(cap) *self = arg;
	int fd;

	if (become_nobody())
		return 1;
	fd = open(self->sysfs_cc, O_WRONLY | O_CLOEXEC);
	CHILD_EQ(-EACCES, fd < 0 ? -errno : 0);
	return 0;
}

TEST_F(cap, privileged_changes_device)
{
	const uint32_t cc = DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE;
	char buf[32] = "";
	int fd2, sfd;

	ASSERT_TRUE(has_sys_admin()) TH_LOG("the test runs as root");
	ASSERT_EQ(0, set_param(self->fd, cc, self->cc0 / 2));
	/* device-wide: another file and sysfs see it */
	fd2 = reopen(&self->d);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(self->cc0 / 2, param(fd2, cc));
	close(fd2);
	sfd = open(self->sysfs_cc, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, sfd);
	ASSERT_LT(0, read(sfd, buf, sizeof(buf) - 1));
	close(sfd);
	EXPECT_EQ(self->cc0 / 2, strtoull(buf, NULL, 10));
	ASSERT_EQ(0, set_param(self->fd, cc, self->cc0));
}

TEST_F(cap, without_cap_sys_admin)
{
	ASSERT_EQ(0, run_child(without_cap_child, self));
}

TEST_F(cap, as_nobody)
{
	ASSERT_EQ(0, run_child(nobody_child, self));
	ASSERT_EQ(0, run_child(nobody_sysfs_child, self));
}

TEST_HARNESS_MAIN
