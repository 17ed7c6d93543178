// SPDX-License-Identifier: GPL-2.0
/*
 * The device file and buffer objects: DRM_IOCTL_VERSION, GET/SET_PARAM,
 * the generic argument checks every ccore ioctl shares (unknown request,
 * NULL and short arguments, non-zero pad and unknown flags), BO_CREATE
 * (shmem and userptr), BO_INFO, BO_MMAP_OFFSET, GEM_CLOSE, dma-buf
 * export/import between devices, device-memory accounting and unplug.
 */
#include "ccore_drv_test.h"

CCORE_DEV_FIXTURE(bo)

TEST_F(bo, version)
{
	char name[32], date[32], desc[128];
	struct drm_version v = {
		.name = name, .name_len = sizeof(name) - 1,
		.date = date, .date_len = sizeof(date) - 1,
		.desc = desc, .desc_len = sizeof(desc) - 1,
	};

	memset(name, 0, sizeof(name));
	memset(date, 0, sizeof(date));
	memset(desc, 0, sizeof(desc));
	ASSERT_EQ(0, ioc(self->fd, DRM_IOCTL_VERSION, &v));
	ASSERT_STREQ("ccore", name);
	ASSERT_EQ(1, v.version_major);
	ASSERT_GT(v.desc_len, 0);
}

TEST_F(bo, get_param)
{
	uint64_t v[DRM_CCORE_PARAM_SEM_NS + 1];
	struct drm_ccore_param_args a = { 0 };
	uint32_t p;

	for (p = 0; p <= DRM_CCORE_PARAM_SEM_NS; p++) {
		ASSERT_EQ(0, get_param(self->fd, p, &v[p])) TH_LOG("param %u", p);
	}
	ASSERT_LT(v[DRM_CCORE_PARAM_DEVICE_INDEX], v[DRM_CCORE_PARAM_NUM_DEVICES]);
	ASSERT_EQ(v[DRM_CCORE_PARAM_NODE_INDEX],
		  v[DRM_CCORE_PARAM_DEVICE_INDEX] / v[DRM_CCORE_PARAM_DEVICES_PER_NODE]);
	ASSERT_LE(v[DRM_CCORE_PARAM_TOPOLOGY], DRM_CCORE_TOPO_TORUS);
	ASSERT_EQ(v[DRM_CCORE_PARAM_DEVICES_PER_NODE],
		  v[DRM_CCORE_PARAM_TORUS_X] * v[DRM_CCORE_PARAM_TORUS_Y]);
	ASSERT_GE(v[DRM_CCORE_PARAM_NUM_CORES], 1);
	ASSERT_GE(v[DRM_CCORE_PARAM_CC_CORES_PER_CORE], 2);
	ASSERT_GE(v[DRM_CCORE_PARAM_ENGINES_PER_CORE], 1);
	ASSERT_GE(v[DRM_CCORE_PARAM_RINGS_PER_ENGINE], 1);
	ASSERT_LE(v[DRM_CCORE_PARAM_RINGS_PER_ENGINE], 16);
	ASSERT_GE(v[DRM_CCORE_PARAM_SEMS_PER_CORE], 8);
	ASSERT_GE(v[DRM_CCORE_PARAM_HBM_SIZE], 1 << 20);
	ASSERT_LE(v[DRM_CCORE_PARAM_MIN_PACKET_SIZE], v[DRM_CCORE_PARAM_MAX_PACKET_SIZE]);
	ASSERT_GE(v[DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE], v[DRM_CCORE_PARAM_MIN_PACKET_SIZE]);
	ASSERT_LE(v[DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE], v[DRM_CCORE_PARAM_MAX_PACKET_SIZE]);
	ASSERT_GE(v[DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE], v[DRM_CCORE_PARAM_MIN_PACKET_SIZE]);
	ASSERT_LE(v[DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE], v[DRM_CCORE_PARAM_MAX_PACKET_SIZE]);
	ASSERT_GE(v[DRM_CCORE_PARAM_MAX_RING_SIZE], 1);
	ASSERT_GE(v[DRM_CCORE_PARAM_MAX_PROGRAM_SIZE], 64);
	ASSERT_EQ(1, v[DRM_CCORE_PARAM_ISA_VERSION]);
	/* the dispatcher: acquire trigger, next, jump */
	ASSERT_GE(v[DRM_CCORE_PARAM_FIRMWARE_SIZE], 1);
	ASSERT_LT(v[DRM_CCORE_PARAM_FIRMWARE_SIZE], v[DRM_CCORE_PARAM_MAX_PROGRAM_SIZE]);
	/* the costs (setup.sh's fabrics: the functional model, default costs) */
	ASSERT_EQ(0, v[DRM_CCORE_PARAM_TIMED]);
	ASSERT_EQ(0, v[DRM_CCORE_PARAM_VIRTUAL_MEMORY]);
	ASSERT_EQ(0, v[DRM_CCORE_PARAM_IDEAL]);
	ASSERT_LT(v[DRM_CCORE_PARAM_ALPHA_DEV_NS], v[DRM_CCORE_PARAM_ALPHA_NODE_NS]);
	ASSERT_LT(v[DRM_CCORE_PARAM_ALPHA_NODE_NS], v[DRM_CCORE_PARAM_ALPHA_NET_NS]);
	ASSERT_GT(v[DRM_CCORE_PARAM_BW_DEV_GBPS], v[DRM_CCORE_PARAM_BW_NODE_GBPS]);
	ASSERT_GT(v[DRM_CCORE_PARAM_BW_NODE_GBPS], v[DRM_CCORE_PARAM_BW_NET_GBPS]);
	ASSERT_GE(v[DRM_CCORE_PARAM_BW_NET_GBPS], 1);
	ASSERT_GE(v[DRM_CCORE_PARAM_BW_ENGINE_GBPS], 1);
	ASSERT_GE(v[DRM_CCORE_PARAM_CC_INSN_NS], 1);
	ASSERT_GE(v[DRM_CCORE_PARAM_SEM_NS], 1);

	/* unknown parameter, non-zero pad */
	a.param = DRM_CCORE_PARAM_SEM_NS + 1;
	ASSERT_EQ(-EINVAL, ioc(self->fd, DRM_IOCTL_CCORE_GET_PARAM, &a));
	a.param = 0xffffffff;
	ASSERT_EQ(-EINVAL, ioc(self->fd, DRM_IOCTL_CCORE_GET_PARAM, &a));
	a.param = DRM_CCORE_PARAM_NUM_CORES;
	a.pad = 1;
	ASSERT_EQ(-EINVAL, ioc(self->fd, DRM_IOCTL_CCORE_GET_PARAM, &a));
}

/* The two writable knobs; every change is undone before the test ends. */
TEST_F(bo, set_param)
{
	const uint32_t cc = DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE;
	const uint32_t dma = DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE;
	uint64_t cc0 = param(self->fd, cc), dma0 = param(self->fd, dma);
	uint64_t min = self->d.min_packet, max = self->d.max_packet;
	struct drm_ccore_param_args a = { .param = cc, .value = cc0, .pad = 1 };
	uint32_t p;

	ASSERT_GE(cc0, min);
	/* CC packet size: a power of two MIN..MAX, may be lowered */
	if (cc0 > min) {
		ASSERT_EQ(0, set_param(self->fd, cc, cc0 / 2));
		ASSERT_EQ(cc0 / 2, param(self->fd, cc));
		ASSERT_EQ(0, set_param(self->fd, cc, cc0));
		ASSERT_EQ(cc0, param(self->fd, cc));
	}
	ASSERT_EQ(-EINVAL, set_param(self->fd, cc, max * 2));
	ASSERT_EQ(-EINVAL, set_param(self->fd, cc, min / 2));
	ASSERT_EQ(-EINVAL, set_param(self->fd, cc, min + 1));
	ASSERT_EQ(-EINVAL, set_param(self->fd, cc, 0));
	ASSERT_EQ(-EINVAL, set_param(self->fd, cc, 1ull << 32));
	ASSERT_EQ(cc0, param(self->fd, cc));

	/* compute packetization: may only be raised */
	if (dma0 < max) {
		ASSERT_EQ(0, set_param(self->fd, dma, dma0 * 2));
		ASSERT_EQ(dma0 * 2, param(self->fd, dma));
		ASSERT_EQ(0, set_param(self->fd, dma, dma0));
	}
	if (dma0 > min)
		ASSERT_EQ(-EINVAL, set_param(self->fd, dma, dma0 / 2));
	ASSERT_EQ(-EINVAL, set_param(self->fd, dma, max * 2));
	ASSERT_EQ(-EINVAL, set_param(self->fd, dma, dma0 + 1));
	ASSERT_EQ(dma0, param(self->fd, dma));

	/* everything else is read-only; pad must be zero */
	for (p = 0; p <= DRM_CCORE_PARAM_SEM_NS + 1; p++) {
		if (p == cc || p == dma)
			continue;
		ASSERT_EQ(-EINVAL, set_param(self->fd, p, param(self->fd, p))) TH_LOG("param %u", p);
	}
	ASSERT_EQ(-EINVAL, ioc(self->fd, DRM_IOCTL_CCORE_SET_PARAM, &a));
}

static const unsigned long all_ioctls[] = {
	DRM_IOCTL_CCORE_GET_PARAM, DRM_IOCTL_CCORE_SET_PARAM, DRM_IOCTL_CCORE_BO_CREATE,
	DRM_IOCTL_CCORE_BO_MMAP_OFFSET, DRM_IOCTL_CCORE_BO_INFO, DRM_IOCTL_CCORE_RING_CREATE,
	DRM_IOCTL_CCORE_RING_DESTROY, DRM_IOCTL_CCORE_RING_SUBMIT, DRM_IOCTL_CCORE_RING_STATS,
	DRM_IOCTL_CCORE_SEM_ALLOC, DRM_IOCTL_CCORE_SEM_FREE, DRM_IOCTL_CCORE_SEM_ACCESS,
	DRM_IOCTL_CCORE_SEM_WAIT, DRM_IOCTL_CCORE_PROGRAM_LOAD, DRM_IOCTL_CCORE_PROGRAM_FREE,
	DRM_IOCTL_CCORE_SUBMIT, DRM_IOCTL_CCORE_JOB_WAIT, DRM_IOCTL_CCORE_CC_TRIGGER,
	DRM_IOCTL_CCORE_SEM_EXPORT, DRM_IOCTL_CCORE_SEM_IMPORT, DRM_IOCTL_CCORE_COMPUTE_SUBMIT,
	DRM_IOCTL_CCORE_COMPUTE_WAIT, DRM_IOCTL_CCORE_GET_LAST_ERROR,
	DRM_IOCTL_CCORE_NIC_REMOTE_MAP, DRM_IOCTL_CCORE_NIC_REMOTE_SEMS, DRM_IOCTL_CCORE_NIC_TAKE,
	DRM_IOCTL_CCORE_NIC_DONE, DRM_IOCTL_CCORE_NIC_DELIVER,
};

TEST_F(bo, unknown_ioctl)
{
	uint64_t buf[8] = { 0 };
	unsigned int nr;

	/* the first number after the last request, and the end of the range */
	for (nr = DRM_CCORE_NIC_DELIVER + 1; nr < DRM_COMMAND_END - DRM_COMMAND_BASE; nr += 0x1b) {
		ASSERT_EQ(-ENOTTY, ioc(self->fd, DRM_IOWR(DRM_COMMAND_BASE + nr, buf), buf))
			TH_LOG("request 0x%x", nr);
	}
	ASSERT_EQ(-ENOTTY, ioc(self->fd, DRM_IOWR(DRM_COMMAND_END - 1, buf), buf));
	ASSERT_EQ(-ENOTTY, ioc(self->fd, DRM_IO(DRM_COMMAND_BASE + DRM_CCORE_NIC_DELIVER + 1), NULL));
}

TEST_F(bo, null_argument)
{
	size_t i;

	ASSERT_EQ(DRM_CCORE_NIC_DELIVER + 1, ARRAY_SIZE(all_ioctls));
	for (i = 0; i < ARRAY_SIZE(all_ioctls); i++) {
		ASSERT_EQ(-EFAULT, ioc(self->fd, all_ioctls[i], NULL))
			TH_LOG("request 0x%02lx", (unsigned long)_IOC_NR(all_ioctls[i]) - DRM_COMMAND_BASE);
	}
}

/* The request number with the argument size @size instead of the struct's. */
static unsigned long resize(unsigned long req, size_t size)
{
	return _IOC(_IOC_DIR(req), _IOC_TYPE(req), _IOC_NR(req), size);
}

/*
 * A short argument is zero-extended by the DRM core, and only the short
 * part is copied back: the missing fields read as 0.
 */
TEST_F(bo, short_argument)
{
	struct drm_ccore_param_args pa = { .param = DRM_CCORE_PARAM_NUM_CORES, .value = 77 };
	struct drm_ccore_cc_trigger tr = { .cc_core = 0, .count = 1 };
	struct drm_ccore_ring_submit rs = { 0 };
	struct drm_ccore_sem_wait sw = { 0 };
	uint32_t ring, sem;

	/* GET_PARAM with only @param: succeeds, @value not written back */
	ASSERT_EQ(0, ioc(self->fd, resize(DRM_IOCTL_CCORE_GET_PARAM, 4), &pa));
	ASSERT_EQ(77, pa.value);
	/* CC_TRIGGER without @count: count 0 is out of range */
	ASSERT_EQ(-EINVAL, ioc(self->fd, resize(DRM_IOCTL_CCORE_CC_TRIGGER, 4), &tr));

	/* RING_SUBMIT without @descs: a NULL pointer */
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 4, 0, 0, &ring));
	rs.handle = ring;
	rs.count = 1;
	rs.descs = 0x1000;
	ASSERT_EQ(-EFAULT, ioc(self->fd, resize(DRM_IOCTL_CCORE_RING_SUBMIT, 8), &rs));

	/* SEM_WAIT without @timeout_ns: a deadline of 0 is long past */
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &sem));
	sw.sem = sem;
	sw.value = 1;
	sw.timeout_ns = deadline_ms(10000);
	ASSERT_EQ(-ETIMEDOUT, ioc(self->fd, resize(DRM_IOCTL_CCORE_SEM_WAIT, 8), &sw));
	sw.value = 0;
	ASSERT_EQ(0, ioc(self->fd, resize(DRM_IOCTL_CCORE_SEM_WAIT, 8), &sw));

	/* longer than the struct: the tail is ignored */
	{
		struct { struct drm_ccore_param_args a; uint64_t extra[2]; } big = {
			.a = { .param = DRM_CCORE_PARAM_ISA_VERSION }, .extra = { ~0ull, ~0ull },
		};
		ASSERT_EQ(0, ioc(self->fd, resize(DRM_IOCTL_CCORE_GET_PARAM, sizeof(big)), &big));
		ASSERT_EQ(1, big.a.value);
	}
}

/* Every reserved field and undefined flag bit: -EINVAL before anything else. */
TEST_F(bo, pad_and_flags)
{
	int fd = self->fd;
	struct drm_ccore_bo_create bc = { .size = 4096, .flags = 2 };
	struct drm_ccore_bo_mmap_offset mo = { .pad = 1 };
	struct drm_ccore_ring_create rc = { .size = 1, .pad = 1 };
	struct drm_ccore_ring_destroy rd = { .pad = 1 };
	struct drm_ccore_ring_submit rs = { .count = 1, .flags = 2 };
	struct drm_ccore_sem_alloc sa = { .count = 1, .pad = 1 };
	struct drm_ccore_sem_free sf = { .pad = 1 };
	struct drm_ccore_sem_access sac = { .pad = 1 };
	struct drm_ccore_sem_export se = { .flags = 1 };
	struct drm_ccore_sem_import si = { .fd = -1, .flags = 1 };
	struct drm_ccore_program_free pf = { .pad = 1 };
	struct drm_ccore_submit sub = { .pad = 1 };
	struct drm_ccore_job_wait jw = { .job = 1, .pad = 1 };
	uint32_t h;

	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_BO_CREATE, &bc));
	bc.flags = 0x80000000;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_BO_CREATE, &bc));
	/* userptr without the flag */
	bc.flags = 0;
	bc.userptr = 0x10000;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_BO_CREATE, &bc));

	ASSERT_EQ(0, bo_create(fd, 4096, &h, NULL));
	mo.handle = h;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_BO_MMAP_OFFSET, &mo));

	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_RING_CREATE, &rc));
	rc.pad = 0;
	rc.flags = 2;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_RING_CREATE, &rc));
	rc.flags = 0;
	ASSERT_EQ(0, ioc(fd, DRM_IOCTL_CCORE_RING_CREATE, &rc));
	rd.handle = rc.handle;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_RING_DESTROY, &rd));
	rs.handle = rc.handle;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_RING_SUBMIT, &rs));

	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_SEM_ALLOC, &sa));
	sa.pad = 0;
	ASSERT_EQ(0, ioc(fd, DRM_IOCTL_CCORE_SEM_ALLOC, &sa));
	sf.first = sa.first;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_SEM_FREE, &sf));
	sac.sem = sa.first;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_SEM_ACCESS, &sac));
	sac.pad = 0;
	sac.op = DRM_CCORE_SEM_ADD + 1;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_SEM_ACCESS, &sac));
	se.first = sa.first;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_SEM_EXPORT, &se));
	se.flags = 0;
	se.pad = 1;
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_SEM_EXPORT, &se));
	ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_SEM_IMPORT, &si));

	{
		struct drm_ccore_insn ret = I_RET();
		uint64_t job;

		ASSERT_EQ(0, prog_load(fd, 0, &ret, 1, &pf.handle, NULL));
		ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_PROGRAM_FREE, &pf));
		sub.program = pf.handle;
		ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_SUBMIT, &sub));
		sub.pad = 0;
		sub.flags = 2;
		ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_SUBMIT, &sub));
		ASSERT_EQ(0, submit_job(fd, pf.handle, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));
		jw.job = job;
		jw.timeout_ns = deadline_ms(5000);
		ASSERT_EQ(-EINVAL, ioc(fd, DRM_IOCTL_CCORE_JOB_WAIT, &jw));
		ASSERT_EQ(0, job_wait(fd, job, deadline_ms(5000), NULL));
	}
}

TEST_F(bo, create_info)
{
	struct drm_ccore_bo_info info;
	uint32_t h1, h2, h3;
	uint64_t a1, a2, a3;

	ASSERT_EQ(0, bo_create(self->fd, 1, &h1, &a1));
	ASSERT_NE(0, h1);
	ASSERT_NE(0, a1);
	ASSERT_EQ(0, a1 % 4096);
	ASSERT_EQ(0, bo_info(self->fd, h1, &info));
	ASSERT_EQ(4096, info.size);		/* rounded up to a page */
	ASSERT_EQ(a1, info.dev_addr);
	ASSERT_EQ(self->d.index, info.device_index);

	ASSERT_EQ(0, bo_create(self->fd, 3 * 4096 + 5, &h2, &a2));
	ASSERT_EQ(0, bo_info(self->fd, h2, &info));
	ASSERT_EQ(4 * 4096, info.size);
	ASSERT_EQ(0, bo_create(self->fd, 4096, &h3, &a3));
	/* distinct handles, and address ranges that do not overlap */
	ASSERT_NE(h1, h2);
	ASSERT_NE(h2, h3);
	ASSERT_TRUE(a2 >= a1 + 4096 || a1 >= a2 + 4 * 4096);
	ASSERT_TRUE(a3 >= a2 + 4 * 4096 || a2 >= a3 + 4096);

	ASSERT_EQ(-ENOENT, bo_info(self->fd, 0, &info));
	ASSERT_EQ(-ENOENT, bo_info(self->fd, h3 + 1000, &info));
}

TEST_F(bo, create_bad_size)
{
	ASSERT_EQ(-EINVAL, bo_create(self->fd, 0, NULL, NULL));
	ASSERT_EQ(-EINVAL, bo_create(self->fd, self->d.hbm + 1, NULL, NULL));
	ASSERT_EQ(-EINVAL, bo_create(self->fd, ~0ull, NULL, NULL));
}

TEST_F(bo, mmap_read_write)
{
	const size_t size = 3 * 4096;
	uint32_t h;
	uint8_t *p, *q;
	uint64_t off1, off2;

	ASSERT_EQ(0, bo_create(self->fd, size, &h, NULL));
	ASSERT_EQ(0, bo_mmap_offset(self->fd, h, &off1));
	ASSERT_EQ(0, bo_mmap_offset(self->fd, h, &off2));
	ASSERT_EQ(off1, off2);
	ASSERT_EQ(0, off1 % 4096);
	p = bo_map(self->fd, h, size);
	ASSERT_NE(NULL, p);
	/* new buffers are zeroed */
	for (size_t i = 0; i < size; i++)
		ASSERT_EQ(0, p[i]);
	fill_pattern(p, size, 1);
	q = bo_map(self->fd, h, size);
	ASSERT_NE(NULL, q);
	ASSERT_TRUE(check_pattern(q, size, 1));
	munmap(q, size);
	munmap(p, size);
	ASSERT_EQ(-ENOENT, bo_mmap_offset(self->fd, h + 1000, &off1));
}

/* A closed handle is gone: every use is -ENOENT, its address unmapped. */
TEST_F(bo, use_after_close)
{
	struct drm_ccore_bo_info info;
	struct drm_ccore_desc d;
	uint32_t h, h2, ring, bad;
	uint64_t a, a2, off;

	ASSERT_EQ(0, bo_create(self->fd, 8192, &h, &a));
	ASSERT_EQ(0, bo_create(self->fd, 8192, &h2, &a2));
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 0, 8, 0, 0, &ring));
	d = desc_copy(a2, a, 4096);
	ASSERT_EQ(0, ring_submit(self->fd, ring, &d, 1, 0, NULL));

	ASSERT_EQ(0, gem_close(self->fd, h));
	ASSERT_EQ(-EINVAL, gem_close(self->fd, h));	/* double close */
	ASSERT_EQ(-ENOENT, bo_info(self->fd, h, &info));
	ASSERT_EQ(-ENOENT, bo_mmap_offset(self->fd, h, &off));
	/* its device addresses are no longer the context's */
	ASSERT_EQ(-EINVAL, ring_submit(self->fd, ring, &d, 1, 0, &bad));
	ASSERT_EQ(0, bad);
	d = desc_copy(a, a2, 4096);
	ASSERT_EQ(-EINVAL, ring_submit(self->fd, ring, &d, 1, 0, &bad));
	ASSERT_EQ(0, bad);
	/* the other buffer is untouched */
	ASSERT_EQ(0, bo_info(self->fd, h2, &info));
	ASSERT_EQ(a2, info.dev_addr);
	ASSERT_EQ(-EINVAL, gem_close(self->fd, 0));
}

TEST_F(bo, userptr_copy)
{
	const size_t size = 2 * 4096;
	struct drm_ccore_bo_info info;
	struct drm_ccore_desc d[2];
	uint32_t hu, hs, ring, sem;
	uint64_t au, as, off;
	uint8_t *user, *shm;

	user = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, user);
	memset(user, 0, size);
	ASSERT_EQ(0, bo_userptr(self->fd, user, size, &hu, &au));
	ASSERT_EQ(0, bo_info(self->fd, hu, &info));
	ASSERT_EQ(size, info.size);
	ASSERT_EQ(au, info.dev_addr);
	/* registered memory is already the caller's: no mmap offset */
	ASSERT_EQ(-EINVAL, bo_mmap_offset(self->fd, hu, &off));

	ASSERT_EQ(0, bo_create(self->fd, size, &hs, &as));
	shm = bo_map(self->fd, hs, size);
	ASSERT_NE(NULL, shm);
	fill_pattern(shm, 4096, 7);
	fill_pattern(user + 4096, 4096, 9);
	/* device memory -> user page 0, user page 1 -> device memory page 1 */
	d[0] = desc_copy(au, as, 4096);
	d[1] = desc_signal(desc_copy(as + 4096, au + 4096, 4096), 0, 1);
	ASSERT_EQ(0, sem_alloc(self->fd, 0, 1, &sem));
	d[1].signal_sem = sem;
	ASSERT_EQ(0, ring_create(self->fd, 0, 0, 1, 4, 0, 0, &ring));
	ASSERT_EQ(0, ring_submit(self->fd, ring, d, 2, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, sem_wait(self->fd, sem, 1, deadline_ms(5000)));
	ASSERT_EQ(0, ring_drain(self->fd, ring, 2, 5000));
	ASSERT_TRUE(check_pattern(user, 4096, 7));
	ASSERT_TRUE(check_pattern(shm + 4096, 4096, 9));
	munmap(shm, size);
	ASSERT_EQ(0, gem_close(self->fd, hu));
	munmap(user, size);
}

TEST_F(bo, userptr_bad)
{
	const size_t size = 4 * 4096;
	uint8_t *p;

	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(-EINVAL, bo_userptr(self->fd, p + 8, 4096, NULL, NULL));	/* unaligned */
	ASSERT_EQ(-EINVAL, bo_userptr(self->fd, p, 4096 + 8, NULL, NULL));	/* size */
	ASSERT_EQ(-EINVAL, bo_userptr(self->fd, p, 0, NULL, NULL));
	ASSERT_EQ(-EINVAL, bo_userptr(self->fd, NULL, 4096, NULL, NULL));
	/* memory that is not mapped, or not writable */
	ASSERT_EQ(0, munmap(p + 2 * 4096, 2 * 4096));
	ASSERT_EQ(-EFAULT, bo_userptr(self->fd, p, size, NULL, NULL));
	ASSERT_EQ(0, mprotect(p, 2 * 4096, PROT_READ));
	ASSERT_EQ(-EFAULT, bo_userptr(self->fd, p, 4096, NULL, NULL));
	munmap(p, 2 * 4096);
	/* a kernel address */
	ASSERT_EQ(-EFAULT, bo_userptr(self->fd, (void *)0xffff800000000000ull, 4096, NULL, NULL));
}

/* Device @index of our fabric, from another file; SKIP without one. */
TEST_F(bo, prime_to_other_device)
{
	struct drm_ccore_bo_info info;
	struct drm_ccore_desc d;
	struct ccore_dev d1;
	uint32_t h0, hi, hl, ring, sem;
	uint64_t a0, ai, al, off;
	uint8_t *p0, *pl;
	int dmabuf;

	if (self->d.num_devices < 2 || self->d.fabric < 0 ||
	    ccore_open_where(self->d.fabric, (self->d.index + 1) % self->d.num_devices, &d1))
		SKIP(return, "needs a second device in the fabric (echo \"0 2\" > new_device)");

	ASSERT_EQ(0, bo_create(self->fd, 8192, &h0, &a0));
	p0 = bo_map(self->fd, h0, 8192);
	ASSERT_NE(NULL, p0);
	fill_pattern(p0, 8192, 3);
	ASSERT_EQ(0, prime_export(self->fd, h0, &dmabuf));

	ASSERT_EQ(0, prime_import(d1.fd, dmabuf, &hi));
	ASSERT_EQ(0, bo_info(d1.fd, hi, &info));
	ASSERT_EQ(self->d.index, info.device_index);	/* the exporter's memory */
	ASSERT_EQ(8192, info.size);
	ai = info.dev_addr;
	ASSERT_NE(0, ai);
	/* imports are mapped through their exporter */
	ASSERT_EQ(-EINVAL, bo_mmap_offset(d1.fd, hi, &off));
	/* re-exported, mapping its dma-buf must not hurt the kernel */
	{
		int re;
		void *q;

		ASSERT_EQ(0, prime_export(d1.fd, hi, &re));
		q = mmap(NULL, 8192, PROT_READ, MAP_SHARED, re, 0);
		if (q != MAP_FAILED) {
			EXPECT_TRUE(check_pattern(q, 8192, 3));
			munmap(q, 8192);
		}
		close(re);
	}

	/* device 1 reads device 0's memory, then writes into it */
	ASSERT_EQ(0, bo_create(d1.fd, 8192, &hl, &al));
	pl = bo_map(d1.fd, hl, 8192);
	ASSERT_NE(NULL, pl);
	ASSERT_EQ(0, sem_alloc(d1.fd, 0, 1, &sem));
	ASSERT_EQ(0, ring_create(d1.fd, 0, 0, 0, 4, 0, 0, &ring));
	d = desc_signal(desc_copy(al, ai, 4096), sem, 1);
	ASSERT_EQ(0, ring_submit(d1.fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, sem_wait(d1.fd, sem, 1, deadline_ms(5000)));
	ASSERT_TRUE(check_pattern(pl, 4096, 3));
	ASSERT_EQ(0, ring_drain(d1.fd, ring, 1, 5000));
	ASSERT_EQ(0, ring_destroy(d1.fd, ring));

	fill_pattern(pl, 4096, 5);
	ASSERT_EQ(0, ring_create(d1.fd, 0, 0, 0, 4, 0, 0, &ring));
	d = desc_signal(desc_copy(ai + 4096, al, 4096), sem, 1);
	ASSERT_EQ(0, ring_submit(d1.fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, sem_wait(d1.fd, sem, 2, deadline_ms(5000)));
	ASSERT_TRUE(check_pattern(p0 + 4096, 4096, 5));

	/* the exporter's handle can go: the import keeps the memory */
	munmap(p0, 8192);
	ASSERT_EQ(0, gem_close(self->fd, h0));
	close(dmabuf);
	ASSERT_EQ(0, ring_drain(d1.fd, ring, 1, 5000));
	ASSERT_EQ(0, ring_destroy(d1.fd, ring));
	ASSERT_EQ(0, ring_create(d1.fd, 0, 0, 0, 4, 0, 0, &ring));
	d = desc_signal(desc_copy(al, ai + 4096, 4096), sem, 1);
	memset(pl, 0, 4096);
	ASSERT_EQ(0, ring_submit(d1.fd, ring, &d, 1, DRM_CCORE_SUBMIT_F_START, NULL));
	ASSERT_EQ(0, sem_wait(d1.fd, sem, 3, deadline_ms(5000)));
	ASSERT_TRUE(check_pattern(pl, 4096, 5));
	munmap(pl, 8192);
	close(d1.fd);
}

/* A dma-buf of a buffer maps like the buffer itself. */
TEST_F(bo, dmabuf_mmap)
{
	const size_t size = 8192;
	uint8_t *p, *q, *user;
	uint32_t h, hu;
	int dmabuf;

	ASSERT_EQ(0, bo_create(self->fd, size, &h, NULL));
	p = bo_map(self->fd, h, size);
	ASSERT_NE(NULL, p);
	fill_pattern(p, size, 51);
	ASSERT_EQ(0, prime_export(self->fd, h, &dmabuf));
	q = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, dmabuf, 0);
	ASSERT_NE(MAP_FAILED, q);
	ASSERT_TRUE(check_pattern(q, size, 51));
	fill_pattern(q, 4096, 52);
	ASSERT_TRUE(check_pattern(p, 4096, 52));
	munmap(q, size);
	close(dmabuf);
	munmap(p, size);

	/* registered user memory: exporting and mapping must not hurt the
	 * kernel, whatever they return
	 */
	user = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, user);
	fill_pattern(user, size, 53);
	ASSERT_EQ(0, bo_userptr(self->fd, user, size, &hu, NULL));
	if (!prime_export(self->fd, hu, &dmabuf)) {
		q = mmap(NULL, size, PROT_READ, MAP_SHARED, dmabuf, 0);
		if (q != MAP_FAILED) {
			EXPECT_TRUE(check_pattern(q, size, 53));
			munmap(q, size);
		}
		close(dmabuf);
	}
	munmap(user, size);
}

TEST_F(bo, prime_bad_fd)
{
	uint32_t h;
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ASSERT_GE(nul, 0);
	ASSERT_NE(0, prime_import(self->fd, nul, &h));
	ASSERT_EQ(-EBADF, prime_import(self->fd, 1000, &h));
	close(nul);
	ASSERT_EQ(-ENOENT, prime_export(self->fd, 12345, &nul));
}

/* --- a private fabric: memory accounting, other fabrics, unplug ---------- */

FIXTURE(fabric) {
	struct ccore_dev main;	/* the first ccore device */
	struct ccore_dev d;	/* device 0 of our fabric */
	int id;
};

FIXTURE_SETUP(fabric)
{
	char line[64];
	int id, rc = -EEXIST;

	self->id = -1;
	self->main.fd = -1;
	self->d.fd = -1;
	if (access(SIM_BUS "/new_device", W_OK))
		SKIP(return, "no " SIM_BUS "/new_device (ccore.ko loaded? root?)");
	/* 1 MiB of device memory: exhausting it costs nothing */
	for (id = 900 + getpid() % 50; id < 1000 && rc == -EEXIST; id++) {
		snprintf(line, sizeof(line), "%d 1 hbm=1M", id);
		rc = write_text(SIM_BUS "/new_device", line);
		if (!rc)
			self->id = id;
	}
	ASSERT_EQ(0, rc) TH_LOG("new_device: %s", strerror(-rc));
	ASSERT_EQ(0, ccore_open_where(self->id, 0, &self->d));
	ASSERT_EQ(1 << 20, self->d.hbm);
	if (ccore_open_first(&self->main))
		self->main.fd = -1;
}

FIXTURE_TEARDOWN(fabric)
{
	char line[16];

	if (self->d.fd >= 0)
		close(self->d.fd);
	if (self->main.fd >= 0)
		close(self->main.fd);
	if (self->id >= 0) {
		snprintf(line, sizeof(line), "%d", self->id);
		EXPECT_EQ(0, write_text(SIM_BUS "/del_device", line));
	}
}

TEST_F(fabric, memory_exhausted)
{
	uint32_t h1, h2, h3;
	int fd2;

	ASSERT_EQ(0, bo_create(self->d.fd, 512 << 10, &h1, NULL));
	ASSERT_EQ(-ENOMEM, bo_create(self->d.fd, 600 << 10, NULL, NULL));
	/* accounting is per device, not per file */
	fd2 = reopen(&self->d);
	ASSERT_GE(fd2, 0);
	ASSERT_EQ(0, bo_create(fd2, 256 << 10, &h2, NULL));
	ASSERT_EQ(-ENOMEM, bo_create(self->d.fd, 512 << 10, NULL, NULL));
	/* pages: 1 byte reserves 4 KiB */
	ASSERT_EQ(0, bo_create(fd2, 1, &h3, NULL));
	/* userptr memory is the caller's, not device memory */
	{
		void *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint32_t hu;

		ASSERT_NE(MAP_FAILED, p);
		ASSERT_EQ(0, bo_userptr(self->d.fd, p, 1 << 20, &hu, NULL));
		ASSERT_EQ(0, gem_close(self->d.fd, hu));
		munmap(p, 1 << 20);
	}
	/* freed memory comes back, also when a file closes */
	ASSERT_EQ(0, gem_close(self->d.fd, h1));
	ASSERT_EQ(0, bo_create(self->d.fd, 600 << 10, &h1, NULL));
	close(fd2);
	ASSERT_EQ(0, bo_create(self->d.fd, 256 << 10, NULL, NULL));
	ASSERT_EQ(-ENOMEM, bo_create(self->d.fd, 256 << 10, NULL, NULL));
}

/* Buffers and semaphores do not cross fabrics: -EXDEV. */
TEST_F(fabric, other_fabric)
{
	uint32_t h, hi, sem;
	int dmabuf, sfd;

	if (self->main.fd < 0 || self->main.fabric == self->id)
		SKIP(return, "needs a ccore device of another fabric");
	ASSERT_EQ(0, bo_create(self->main.fd, 4096, &h, NULL));
	ASSERT_EQ(0, prime_export(self->main.fd, h, &dmabuf));
	ASSERT_EQ(-EXDEV, prime_import(self->d.fd, dmabuf, &hi));
	close(dmabuf);
	ASSERT_EQ(0, sem_alloc(self->main.fd, 0, 2, &sem));
	ASSERT_EQ(0, sem_export(self->main.fd, sem, &sfd));
	ASSERT_EQ(-EXDEV, sem_import(self->d.fd, sfd, NULL, NULL));
	close(sfd);
}

/* Unplugging a device with an open file: its ioctls fail with -ENODEV,
 * closing it still releases everything.
 */
TEST_F(fabric, unplug_with_open_file)
{
	struct drm_ccore_insn prog[2];
	uint32_t h, ring, sem, p;
	uint64_t job, a;
	char line[16];
	uint8_t *map;

	ASSERT_EQ(0, bo_create(self->d.fd, 8192, &h, &a));
	map = bo_map(self->d.fd, h, 8192);
	ASSERT_NE(NULL, map);
	ASSERT_EQ(0, ring_create(self->d.fd, 0, 0, 0, 4, 0, 0, &ring));
	ASSERT_EQ(0, sem_alloc(self->d.fd, 0, 1, &sem));
	prog[0] = I_WAIT(sem, 1);
	prog[1] = I_RET();
	ASSERT_EQ(0, prog_load(self->d.fd, 0, prog, 2, &p, NULL));
	ASSERT_EQ(0, submit_job(self->d.fd, p, DRM_CCORE_JOB_F_TRIGGER, 0, 0, 0, &job));

	snprintf(line, sizeof(line), "%d", self->id);
	ASSERT_EQ(0, write_text(SIM_BUS "/del_device", line));
	self->id = -1;
	ASSERT_EQ(-ENODEV, bo_create(self->d.fd, 4096, NULL, NULL));
	ASSERT_EQ(-ENODEV, sem_access(self->d.fd, sem, DRM_CCORE_SEM_ADD, 1, NULL));
	ASSERT_EQ(-ENODEV, job_wait(self->d.fd, job, deadline_ms(100), NULL));
	munmap(map, 8192);
	close(self->d.fd);
	self->d.fd = -1;
}

TEST_HARNESS_MAIN
