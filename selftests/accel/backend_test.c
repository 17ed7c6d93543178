// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's accel backend on the kernel driver (built as
 * build/tests/kernel/accel_backend, run in the QEMU guest after setup.sh
 * made a fabric of 2 or more devices): devices come in index order, one
 * fabric at a time; buffer maps see what the device wrote, also through a
 * dma-buf import on another device; the waits' deadlines are absolute
 * CLOCK_MONOTONIC times; every errno comes back as a message naming the
 * ioctl and what the errno means there (SET_PARAM without CAP_SYS_ADMIN
 * too; for the ring, semaphore and job ioctls, the rule the driver names
 * through GET_LAST_ERROR); closing the system releases what its files
 * held; a compute program copies, triggers and waits; an
 * indexed ring and a STARTI loop work through libdrm; the tuner prices
 * the fabric it runs on (its costs through GET_PARAM).
 */
#include "ccore_test.h"
#include "proc_counts.h"
#include "ccore_device.h"
#include "ccore_internal.h"

#include <stdbool.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define SEC 1000000000ll

static struct ccore_system *sys;
static struct ccore_dev *d0, *d1;

#define CHECK(call)                                                             \
	do {                                                                    \
		int rc_ = (call);                                               \
		if (rc_)                                                        \
			FAIL("%s: %d: %s", #call, rc_, ccore_last_error());     \
	} while (0)

#define EXPECT_ERR(call, err, text)                                             \
	do {                                                                    \
		ASSERT_EQ((call), (err));                                       \
		ASSERT_STR_CONTAINS(ccore_last_error(), text);                  \
	} while (0)

static void open_accel(void)
{
	if (sys)
		return;
	CHECK(ccore_system_open("accel", NULL, &sys));
	if (ccore_system_num_devices(sys) < 2)
		FAIL("the fabric has %u device(s); these tests need 2", ccore_system_num_devices(sys));
	d0 = ccore_system_device(sys, 0);
	d1 = ccore_system_device(sys, 1);
}

static void close_accel(void)
{
	ccore_system_close(sys);
	sys = NULL;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static int open_fds(void)
{
	int n = count_open_fds();

	if (n < 0)
		FAIL("opendir /proc/self/fd failed");
	return n;
}

/* A buffer of @len bytes on @dev, created and mapped: the mapping, its handle and address. */
static uint8_t *mapped_bo(struct ccore_dev *dev, uint64_t len, uint32_t *h, uint64_t *va)
{
	uint8_t *p;

	CHECK(ccore_dev_bo_create(dev, len, h, va));
	p = ccore_dev_bo_map(dev, *h);
	if (!p)
		FAIL("bo_map: %s", ccore_last_error());
	return p;
}

/* Copy @len bytes on @dev's engine 0 of core 0 and wait for it. */
static void device_copy(struct ccore_dev *dev, uint64_t dst, uint64_t src, uint64_t len)
{
	uint32_t sem, ring;
	struct drm_ccore_desc d = {
		.op = DRM_CCORE_DESC_COPY, .len = len, .dst = dst, .src0 = src,
		.flags = DRM_CCORE_DESC_F_SIGNAL, .signal_value = 1,
	};

	CHECK(ccore_dev_sem_alloc(dev, 0, 1, &sem));
	CHECK(ccore_dev_ring_create(dev, 0, 0, 7, 4, 0, 0, &ring));
	d.signal_sem = sem;
	CHECK(ccore_dev_ring_submit(dev, ring, &d, 1, DRM_CCORE_SUBMIT_F_START));
	CHECK(ccore_dev_sem_wait(dev, sem, 1, 10 * SEC));
	CHECK(ccore_dev_ring_destroy(dev, ring));
	CHECK(ccore_dev_sem_free(dev, sem));
}

TEST(devices_come_in_index_order)
{
	uint64_t v;

	open_accel();
	ASSERT_STR_CONTAINS(ccore_system_backend(sys), "accel");
	ASSERT_TRUE(ccore_system_model(sys) == NULL);
	for (unsigned int i = 0; i < ccore_system_num_devices(sys); i++) {
		struct ccore_dev *d = ccore_system_device(sys, i);

		ASSERT_EQ(ccore_dev_index(d), i);
		CHECK(ccore_dev_param(d, DRM_CCORE_PARAM_DEVICE_INDEX, &v));
		ASSERT_EQ(v, i);
		CHECK(ccore_dev_param(d, DRM_CCORE_PARAM_NUM_DEVICES, &v));
		ASSERT_EQ(v, ccore_system_num_devices(sys));
	}
}

TEST(a_bad_fabric_id_names_the_variable)
{
	struct ccore_system *s = NULL;

	setenv("CCORE_ACCEL_FABRIC", "4242", 1);
	EXPECT_ERR(ccore_system_open("accel", NULL, &s), -EINVAL,
		   "CCORE_ACCEL_FABRIC=4242: no ccore fabric with that id; fabrics found: ");
	unsetenv("CCORE_ACCEL_FABRIC");
}

TEST(maps_see_what_the_device_wrote)
{
	const size_t len = 3 * 4096 + 100;
	uint32_t h[2];
	uint64_t va[2];
	uint8_t *p[2];

	open_accel();
	for (int i = 0; i < 2; i++) {
		p[i] = mapped_bo(d0, len, &h[i], &va[i]);
		ASSERT_TRUE(ccore_dev_bo_map(d0, h[i]) == p[i]);	/* cached */
	}
	for (size_t i = 0; i < len; i++)
		p[0][i] = (uint8_t)(i * 7 + 1);
	memset(p[1], 0, len);
	device_copy(d0, va[1], va[0], len);
	ASSERT_MEM_EQ(p[0], p[1], len);
	for (int i = 0; i < 2; i++)
		CHECK(ccore_dev_bo_close(d0, h[i]));
}

TEST(an_imported_buffer_is_the_same_memory)
{
	uint32_t h0, h1, imp;
	uint64_t va0, va1, iva;
	uint8_t *p0, *p1;
	uint32_t sem;
	int fds;

	open_accel();
	CHECK(ccore_dev_bo_create(d0, 8192, &h0, &va0));
	CHECK(ccore_dev_bo_create(d1, 8192, &h1, &va1));
	p0 = ccore_dev_bo_map(d0, h0);
	p1 = ccore_dev_bo_map(d1, h1);
	ASSERT_TRUE(p0 && p1);
	memset(p0, 0xa5, 8192);
	memset(p1, 0, 8192);
	/* device 0 writes device 1's buffer through its import; the dma-buf
	 * and semaphore fds are closed once imported */
	fds = open_fds();
	CHECK(ccore_dev_bo_import(d0, d1, h1, &imp, &iva));
	CHECK(ccore_dev_sem_alloc(d1, 0, 1, &sem));
	CHECK(ccore_dev_sem_import(d0, d1, sem));
	ASSERT_EQ(open_fds(), fds);
	CHECK(ccore_dev_sem_free(d1, sem));
	device_copy(d0, iva, va0, 8192);
	ASSERT_MEM_EQ(p0, p1, 8192);
	/* an import is not mapped through the importer */
	ASSERT_TRUE(ccore_dev_bo_map(d0, imp) == NULL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "BO_MMAP_OFFSET: Invalid argument (EINVAL: ");
	CHECK(ccore_dev_bo_close(d0, imp));
	CHECK(ccore_dev_bo_close(d0, h0));
	CHECK(ccore_dev_bo_close(d1, h1));
}

static void *add_later(void *sem)
{
	usleep(50000);
	ccore_dev_sem_write(d0, *(uint32_t *)sem, DRM_CCORE_SEM_ADD, 1);
	return NULL;
}

TEST(waits_take_absolute_monotonic_deadlines)
{
	struct drm_ccore_insn prog[2] = {
		{ .opcode = DRM_CCORE_OP_ACQUIRE, .imm = 1 },
		{ .opcode = DRM_CCORE_OP_RET },
	};
	uint32_t sem, p;
	uint64_t job;
	int64_t t0, dt;
	int status = -1;

	open_accel();
	CHECK(ccore_dev_sem_alloc(d0, 0, 1, &sem));
	t0 = now_ns();
	EXPECT_ERR(ccore_dev_sem_wait(d0, sem, 1, SEC / 5), -ETIMEDOUT,
		   "SEM_WAIT: Connection timed out (ETIMEDOUT: semaphore");
	dt = now_ns() - t0;
	ccore_test_log("SEM_WAIT of 200 ms returned after %lld ms", (long long)(dt / 1000000));
	ASSERT_GE(dt, SEC / 5 - SEC / 100);
	ASSERT_LT(dt, 3 * SEC);
	/* the longest duration saturates rather than wrapping into the past */
	{
		pthread_t th;

		ASSERT_EQ(pthread_create(&th, NULL, add_later, &sem), 0);
		CHECK(ccore_dev_sem_wait(d0, sem, 1, INT64_MAX));
		pthread_join(th, NULL);
		CHECK(ccore_dev_sem_write(d0, sem, DRM_CCORE_SEM_SET, 0));
	}
	/* a job held by the semaphore: its wait times out, then completes */
	prog[0].sem = sem;
	CHECK(ccore_dev_program_load(d0, 0, prog, 2, &p));
	CHECK(ccore_dev_submit(d0, p, DRM_CCORE_JOB_F_TRIGGER, &job));
	t0 = now_ns();
	EXPECT_ERR(ccore_dev_job_wait(d0, job, SEC / 5, &status), -ETIMEDOUT,
		   "JOB_WAIT: Connection timed out (ETIMEDOUT: job");
	dt = now_ns() - t0;
	ASSERT_GE(dt, SEC / 5 - SEC / 100);
	ASSERT_LT(dt, 3 * SEC);
	CHECK(ccore_dev_sem_write(d0, sem, DRM_CCORE_SEM_ADD, 1));
	CHECK(ccore_dev_job_wait(d0, job, 10 * SEC, &status));
	ASSERT_EQ(status, 0);
	CHECK(ccore_dev_program_free(d0, p));
	CHECK(ccore_dev_sem_free(d0, sem));
}

TEST(errors_name_the_ioctl_and_what_the_errno_means)
{
	struct drm_ccore_insn bad[2] = { { .opcode = DRM_CCORE_OP_NOP }, { .opcode = 0x7f } };
	struct drm_gem_close gc = { .handle = 999 };
	uint32_t sem, r1, r2, p, v;
	int status;

	open_accel();
	/* a semaphore of another file is not yours until imported (core 2:
	 * a block another case shared and freed would still be granted) */
	CHECK(ccore_dev_sem_alloc(d1, 2, 2, &sem));
	EXPECT_ERR(ccore_dev_sem_read(d0, sem, &v), -EACCES,
		   "SEM_ACCESS: Permission denied (EACCES: semaphore ");
	ASSERT_STR_CONTAINS(ccore_last_error(), "is not yours");
	CHECK(ccore_dev_sem_import(d0, d1, sem));
	CHECK(ccore_dev_sem_write(d0, sem + 1, DRM_CCORE_SEM_SET, 5));
	CHECK(ccore_dev_sem_read(d1, sem + 1, &v));
	ASSERT_EQ(v, 5);
	CHECK(ccore_dev_sem_free(d1, sem));

	EXPECT_ERR(ccore_dev_ioctl(d0, DRM_IOCTL_GEM_CLOSE, &gc), -EINVAL,
		   "GEM_CLOSE: Invalid argument (EINVAL: no buffer object with handle 999");
	CHECK(ccore_dev_ring_create(d0, 1, 0, 3, 4, 0, 0, &r1));
	/* the ring, semaphore and job ioctls: the rule the driver names */
	EXPECT_ERR(ccore_dev_ring_create(d0, 1, 0, 3, 4, 0, 0, &r2), -EBUSY,
		   "RING_CREATE: Device or resource busy (EBUSY: ring 3 of engine 0 on core 1 (");
	ASSERT_STR_CONTAINS(ccore_last_error(), "reason RING_CLAIMED: that ring of the engine is already claimed");
	CHECK(ccore_dev_ring_destroy(d0, r1));
	EXPECT_ERR(ccore_dev_ring_destroy(d0, r1), -ENOENT,
		   "reason RING_HANDLE: no ring with that handle in this file");
	EXPECT_ERR(ccore_dev_job_wait(d0, 123456, SEC, &status), -EINVAL,
		   "JOB_WAIT: Invalid argument (EINVAL: job 123456: reason JOB_UNKNOWN: the job is unknown");
	EXPECT_ERR(ccore_dev_program_load(d0, 0, bad, 2, &p), -EINVAL,
		   "PROGRAM_LOAD: Invalid argument (EINVAL: instruction 1: reason INSN_INVALID: the instruction is not valid");
	EXPECT_ERR(ccore_dev_bo_create(d0, 0, &r1, NULL), -EINVAL,
		   "BO_CREATE: Invalid argument (EINVAL: size 0 out of range (1..");
	/* the device is named too */
	ASSERT_STR_CONTAINS(ccore_last_error(), "[device 0, /dev/accel/accel");
}

/* Drop CAP_SYS_ADMIN from the effective set; 0 or -errno. */
static int drop_cap_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, c))
		return -errno;
	c[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, c) ? -errno : 0;
}

/* Without CAP_SYS_ADMIN, SET_PARAM's EPERM says why and what to do instead. */
TEST(set_param_without_cap_sys_admin_says_why)
{
	const char *want = "SET_PARAM: Operation not permitted (EPERM: param 17: the packet-size "
			   "defaults are the device's, changing them needs CAP_SYS_ADMIN";
	int status;
	pid_t pid;

	open_accel();
	fflush(NULL);
	pid = fork();
	ASSERT_TRUE(pid >= 0);
	if (pid == 0) {
		/* no FAIL() here: it would return into the parent's harness */
		int rc = drop_cap_sys_admin();

		if (!rc)
			rc = ccore_dev_set_param(d0, DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, 4096);
		if (rc != -EPERM || !strstr(ccore_last_error(), want)) {
			fprintf(stderr, "# SET_PARAM without CAP_SYS_ADMIN: %d: %s\n", rc,
				ccore_last_error());
			_exit(1);
		}
		_exit(0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(closing_the_system_releases_what_it_held)
{
	struct drm_ccore_insn prog[2] = {
		{ .opcode = DRM_CCORE_OP_ACQUIRE, .imm = 1 },
		{ .opcode = DRM_CCORE_OP_RET },
	};
	uint32_t ring, sem, h, p;
	uint64_t va, job;
	int status = -1;

	open_accel();
	CHECK(ccore_dev_ring_create(d1, 0, 1, 9, 4, 0, 0, &ring));
	CHECK(ccore_dev_sem_alloc(d1, 0, 1, &sem));
	CHECK(ccore_dev_bo_create(d1, 1 << 20, &h, &va));
	ASSERT_TRUE(ccore_dev_bo_map(d1, h) != NULL);
	/* a job that waits forever on CC core 1: closing cancels it */
	prog[0].sem = sem;
	CHECK(ccore_dev_program_load(d1, 1, prog, 2, &p));
	CHECK(ccore_dev_submit(d1, p, DRM_CCORE_JOB_F_TRIGGER, &job));
	close_accel();
	/* the ring was the old files'; the new ones may claim it, and the CC
	 * core runs the next job */
	open_accel();
	CHECK(ccore_dev_ring_create(d1, 0, 1, 9, 4, 0, 0, &ring));
	CHECK(ccore_dev_ring_destroy(d1, ring));
	CHECK(ccore_dev_sem_alloc(d1, 0, 1, &sem));
	prog[0].sem = sem;
	CHECK(ccore_dev_program_load(d1, 1, prog, 2, &p));
	CHECK(ccore_dev_submit(d1, p, DRM_CCORE_JOB_F_TRIGGER, &job));
	CHECK(ccore_dev_sem_write(d1, sem, DRM_CCORE_SEM_ADD, 1));
	CHECK(ccore_dev_job_wait(d1, job, 10 * SEC, &status));
	ASSERT_EQ(status, 0);
	close_accel();
}

TEST(buffers_do_not_cross_fabrics)
{
	struct ccore_system *a = NULL, *b = NULL;
	const char *ids[] = { "0", "1" };
	uint32_t h, imp;
	int rc;

	setenv("CCORE_ACCEL_FABRIC", ids[1], 1);
	rc = ccore_system_open("accel", NULL, &b);
	unsetenv("CCORE_ACCEL_FABRIC");
	if (rc)
		ccore_test_skip("needs a second fabric with id 1 (echo \"1 2\" > /sys/bus/ccore_sim/new_device)");
	setenv("CCORE_ACCEL_FABRIC", ids[0], 1);
	rc = ccore_system_open("accel", NULL, &a);
	unsetenv("CCORE_ACCEL_FABRIC");
	if (rc) {
		ccore_system_close(b);
		FAIL("fabric 0: %s", ccore_last_error());
	}
	CHECK(ccore_dev_bo_create(ccore_system_device(b, 0), 4096, &h, NULL));
	rc = ccore_dev_bo_import(ccore_system_device(a, 0), ccore_system_device(b, 0), h, &imp,
				 NULL);
	ccore_system_close(a);
	ccore_system_close(b);
	ASSERT_EQ(rc, -EXDEV);
	ASSERT_STR_CONTAINS(ccore_last_error(), "PRIME_FD_TO_HANDLE: Invalid cross-device link (EXDEV: ");
}

/* Write @line to /sys/bus/ccore_sim/@file; false if that fails. */
static bool sim_bus(const char *file, const char *line)
{
	char path[96];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/sys/bus/ccore_sim/%s", file);
	f = fopen(path, "w");
	if (!f)
		return false;
	ok = fputs(line, f) >= 0;
	return fclose(f) == 0 && ok;
}

/* What the tuner picks for a 256 KiB f32 AllReduce on 8 ranks of two
 * devices of backend @backend (fabric @fabric on accel, @sim otherwise). */
static const char *choice(const char *backend, const char *fabric, const char *sim,
			  uint64_t *bw_node)
{
	static const struct ccore_topology topo = { 1, 2, 4 };
	struct ccore_comm *comms[8];
	struct ccore_plan_info info;
	struct ccore_system *s;
	const char *algo;

	setenv("CCORE_DEVICE", backend, 1);
	setenv("CCORE_ACCEL_FABRIC", fabric, 1);
	setenv("CCORE_SIM", sim, 1);
	CHECK(ccore_comm_init_all(&topo, comms));
	CHECK(ccore_plan_query(comms[0], ccore_op_allreduce, 65536, ccore_f32, &info));
	algo = info.algo;
	for (int r = 0; r < 8; r++)
		CHECK(ccore_comm_destroy(comms[r]));
	CHECK(ccore_system_open(backend, sim, &s));
	CHECK(ccore_dev_param(ccore_system_device(s, 0), DRM_CCORE_PARAM_BW_NODE_GBPS, bw_node));
	ccore_system_close(s);
	unsetenv("CCORE_DEVICE");
	unsetenv("CCORE_ACCEL_FABRIC");
	unsetenv("CCORE_SIM");
	return algo;
}

/*
 * The tuner prices the device it runs on: a fabric the driver made with
 * other costs (new_device's options) reports them through GET_PARAM and
 * changes the choice, and on each the choice is the one the sim backend
 * makes in-process for the same options.
 */
TEST(the_tuner_prices_the_fabric_it_runs_on)
{
	static const char *const opts[] = { "cores=4", "cores=4,bw_node_gbps=8,bw_dev_gbps=8,bw_engine_gbps=8" };
	const char *algo[2], *sim_algo;
	uint64_t bw, sim_bw;
	char line[160], id[16];

	for (int i = 0; i < 2; i++) {
		snprintf(id, sizeof(id), "%d", 40 + i);
		snprintf(line, sizeof(line), "%s 2 %s", id, opts[i]);
		if (!sim_bus("new_device", line))
			ccore_test_skip("cannot create a fabric (needs root and ccore.ko's /sys/bus/ccore_sim)");
		algo[i] = choice("accel", id, "", &bw);
		sim_algo = choice("sim", "", opts[i], &sim_bw);
		snprintf(line, sizeof(line), "%s", id);
		sim_bus("del_device", line);
		ccore_test_log("fabric %s (%s): bw_node_gbps %llu, chooses %s; the sim backend: %s",
			       id, opts[i], (unsigned long long)bw, algo[i], sim_algo);
		ASSERT_U64_EQ(bw, sim_bw);
		ASSERT_TRUE(!strcmp(algo[i], sim_algo));
	}
	ASSERT_U64_EQ(bw, 8);
	ASSERT_TRUE(strcmp(algo[0], algo[1]) != 0);
}

/* The device layer's compute-engine calls on the kernel driver. */
TEST(compute_program_copies_triggers_and_waits)
{
	const size_t len = 8192 + 24;
	struct drm_ccore_insn cc_prog[2] = {
		{ .opcode = DRM_CCORE_OP_ADD, .imm = 1 }, { .opcode = DRM_CCORE_OP_RET },
	};
	struct drm_ccore_ce_insn prog[4] = {
		{ .opcode = DRM_CCORE_CE_DMA, .len = len },
		{ .opcode = DRM_CCORE_CE_TRIGGER, .cc_core = 1 },
		{ .opcode = DRM_CCORE_CE_WAIT_SEM, .value = 1 },
		{ .opcode = DRM_CCORE_CE_END },
	};
	struct drm_ccore_compute_wait w;
	uint32_t h[2], ring, sem, p, bad;
	uint64_t va[2], job;
	uint8_t *m[2];
	int status;

	open_accel();
	for (int i = 0; i < 2; i++)
		m[i] = mapped_bo(d0, len, &h[i], &va[i]);
	for (size_t i = 0; i < len; i++)
		m[0][i] = (uint8_t)(i * 5 + 3);
	memset(m[1], 0, len);
	CHECK(ccore_dev_sem_alloc(d0, 0, 1, &sem));
	cc_prog[0].sem = sem;
	CHECK(ccore_dev_program_load(d0, 1, cc_prog, 2, &p));
	CHECK(ccore_dev_submit(d0, p, 0, &job));
	CHECK(ccore_dev_ring_create(d0, 0, 1, 2, 1, 0, DRM_CCORE_RING_F_COMPUTE, &ring));
	prog[0].dst = va[1];
	prog[0].src = va[0];
	prog[2].sem = sem;
	CHECK(ccore_dev_compute_submit(d0, 0, prog, 4, 1, 2, 0, &bad));
	ASSERT_EQ(bad, ~0u);
	CHECK(ccore_dev_compute_wait(d0, 0, 10 * SEC, &w));
	ASSERT_EQ(w.status, 0);
	ASSERT_EQ(w.insns, 4);
	ASSERT_EQ(w.dma_bytes, len);
	ASSERT_MEM_EQ(m[0], m[1], len);
	CHECK(ccore_dev_job_wait(d0, job, 10 * SEC, &status));
	ASSERT_EQ(status, 0);
	/* a bad instruction: the errno explained, the instruction named */
	prog[1].cc_core = 99;
	EXPECT_ERR(ccore_dev_compute_submit(d0, 0, prog, 4, 1, 2, 0, &bad), -EINVAL,
		   "COMPUTE_SUBMIT: Invalid argument (EINVAL: instruction 1 is not valid");
	ASSERT_EQ(bad, 1);
	CHECK(ccore_dev_ring_destroy(d0, ring));
	CHECK(ccore_dev_program_free(d0, p));
	CHECK(ccore_dev_sem_free(d0, sem));
	for (int i = 0; i < 2; i++)
		CHECK(ccore_dev_bo_close(d0, h[i]));
}

/* An indexed ring through libdrm: the fields reach the driver both ways. */
TEST(indexed_ring_and_starti)
{
	const uint32_t block = 4096, n = 4;
	struct drm_ccore_insn prog[7] = {
		{ .opcode = DRM_CCORE_OP_MOVI, .reg = 1, .imm = 0 },
		{ .opcode = DRM_CCORE_OP_MOVI, .reg = 2, .imm = n },
		{ .opcode = DRM_CCORE_OP_STARTI, .reg = 1, .ring = 11, .imm = 1 },
		{ .opcode = DRM_CCORE_OP_ADDI, .reg = 1, .imm = 1 },
		{ .opcode = DRM_CCORE_OP_LOOP, .reg = 2, .target = -2 },
		{ .opcode = DRM_CCORE_OP_RWAIT, .ring = 11 },
		{ .opcode = DRM_CCORE_OP_RET },
	};
	struct drm_ccore_desc d = { .op = DRM_CCORE_DESC_COPY, .len = block };
	uint32_t h[2], ring, bad_ring, p;
	uint64_t va[2], job;
	uint8_t *m[2];
	int status;

	open_accel();
	for (int i = 0; i < 2; i++)
		m[i] = mapped_bo(d0, n * block, &h[i], &va[i]);
	for (uint32_t i = 0; i < n * block; i++)
		m[0][i] = (uint8_t)(i / block * 40 + i % 7 + 1);
	memset(m[1], 0, n * block);
	EXPECT_ERR(ccore_dev_ring_create_indexed(d0, 0, 0, 11, 2, 0, 0, block, 0, &ring), -EINVAL,
		   "RING_CREATE: Invalid argument (EINVAL: ring 11 of engine 0 on core 0 (size 2, packet 0, flags 0x0, index_stride 4096, index_count 0): reason RING_INDEX: index_count must be 0 (not indexed, with index_stride 0)");
	CHECK(ccore_dev_ring_create_indexed(d0, 0, 0, 11, 2, 0, 0, block, n, &ring));
	/* block 1 would reach past the buffers at index 3 */
	d.dst = va[1] + block;
	d.src0 = va[0];
	EXPECT_ERR(ccore_dev_ring_submit(d0, ring, &d, 1, 0), -EINVAL,
		   "(EINVAL: descriptor 0 of ring");
	ASSERT_STR_CONTAINS(ccore_last_error(), "(on an indexed ring, at any index)");
	d.dst = va[1];
	CHECK(ccore_dev_ring_submit(d0, ring, &d, 1, 0));
	CHECK(ccore_dev_program_load(d0, 0, prog, 7, &p));
	CHECK(ccore_dev_submit(d0, p, DRM_CCORE_JOB_F_TRIGGER, &job));
	CHECK(ccore_dev_job_wait(d0, job, 10 * SEC, &status));
	ASSERT_EQ(status, 0);
	ASSERT_MEM_EQ(m[0], m[1], n * block);
	/* the plain call is the indexed one with 0, 0: STARTI faults there */
	CHECK(ccore_dev_ring_create(d0, 0, 0, 12, 2, 0, 0, &bad_ring));
	CHECK(ccore_dev_ring_submit(d0, bad_ring, &d, 1, 0));
	prog[2].ring = 12;
	prog[5].ring = 12;
	CHECK(ccore_dev_program_free(d0, p));
	CHECK(ccore_dev_program_load(d0, 0, prog, 7, &p));
	CHECK(ccore_dev_submit(d0, p, DRM_CCORE_JOB_F_TRIGGER, &job));
	CHECK(ccore_dev_job_wait(d0, job, 10 * SEC, &status));
	ASSERT_EQ(status, -EIO);
	CHECK(ccore_dev_program_free(d0, p));
	CHECK(ccore_dev_ring_destroy(d0, bad_ring));
	CHECK(ccore_dev_ring_destroy(d0, ring));
	for (int i = 0; i < 2; i++)
		CHECK(ccore_dev_bo_close(d0, h[i]));
}
