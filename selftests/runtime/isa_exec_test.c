// SPDX-License-Identifier: GPL-2.0
/*
 * Every CC-ISA instruction executed by a CC core of the device model, each
 * with an effect the host can observe (semaphores, memory, core state).
 */
#include "tsim.h"

#include <unistd.h>

static struct tsim t;
static struct ccore_dev *d0;
static uint32_t s;	/* four semaphores on device 0, core 0 */

static void setup(void)
{
	tsim_open(&t, "devices=2,cores=2,workers=2");
	d0 = t.dev[0];
	s = tsim_sem(d0, 0, 4);
}

TEST(nop_ret_completes_job)
{
	struct ccm_cc_info info;
	uint32_t p;

	setup();
	p = tsim_load(d0, 0, "nop\nnop\nret\n");
	ASSERT_EQ(tsim_run(d0, p), 0);
	/* back in the dispatcher, soon blocked on the next trigger */
	for (int i = 0; i < 1000; i++) {
		ccm_cc_info(t.f, 0, 0, &info);
		if (info.state == CCM_CC_WAITING && info.pc == 0)
			break;
		usleep(1000);
	}
	ASSERT_EQ(info.state, CCM_CC_WAITING);
	ASSERT_EQ(info.pc, 0);
	/* dispatcher: acquire, next; program: nop, nop, ret; dispatcher: jump */
	ASSERT_GE(info.insns, 6);
	tsim_close(&t);
}

TEST(set_add_local)
{
	setup();
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 0, "set " SEMF ", 5\nadd " SEMF ", 7\nret\n",
					    S3(s), S3(s))), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 12);
	tsim_close(&t);
}

TEST(wait_blocks_until_value_and_does_not_consume)
{
	uint32_t p;
	uint64_t job;
	int status;

	setup();
	p = tsim_load(d0, 0, "wait " SEMF ", 2\nadd " SEMF ", 1\nret\n", S3(s), S3(s + 1));
	job = tsim_submit(d0, p, 0);
	tsim_sem_set(d0, s, 1);
	/* Still blocked: a short wait must time out and the add not happen. */
	ASSERT_EQ(ccore_dev_job_wait(d0, job, 20000000, &status), -ETIMEDOUT);
	ASSERT_EQ(tsim_sem_value(d0, s + 1), 0);
	tsim_sem_set(d0, s, 2);
	ASSERT_EQ(tsim_wait(d0, job), 0);
	ASSERT_EQ(tsim_sem_value(d0, s + 1), 1);
	ASSERT_EQ(tsim_sem_value(d0, s), 2);
	tsim_close(&t);
}

TEST(acquire_consumes)
{
	uint32_t p;
	uint64_t job;
	int status;

	setup();
	tsim_sem_set(d0, s, 3);
	p = tsim_load(d0, 0, "acquire " SEMF ", 2\nret\n", S3(s));
	ASSERT_EQ(tsim_run(d0, p), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 1);
	job = tsim_submit(d0, p, 0);
	ASSERT_EQ(ccore_dev_job_wait(d0, job, 20000000, &status), -ETIMEDOUT);
	tsim_sem_set(d0, s, 5);
	ASSERT_EQ(tsim_wait(d0, job), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 3);
	tsim_close(&t);
}

TEST(remote_set_add_cross_device)
{
	struct ccore_dev *d1;
	uint32_t r;

	setup();
	d1 = t.dev[1];
	r = tsim_sem(d1, 1, 1);		/* device 1, core 1 */
	ASSERT_EQ(ccore_dev_sem_import(d0, d1, r), 0);
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 0, "set " SEMF ", 40\nadd " SEMF ", 2\nret\n",
					    S3(r), S3(r))), 0);
	ASSERT_EQ(tsim_sem_value(d1, r), 42);
	tsim_close(&t);
}

TEST(remote_signal_wakes_cc_core_on_other_device)
{
	struct ccore_dev *d1;
	uint32_t r, waiter, signaller;
	uint64_t job;

	setup();
	d1 = t.dev[1];
	r = tsim_sem(d1, 0, 1);
	ASSERT_EQ(ccore_dev_sem_import(d0, d1, r), 0);
	/* device 1 waits on its own semaphore; device 0's CC core signals it */
	waiter = tsim_load(d1, 1, "acquire " SEMF ", 1\nret\n", S3(r));
	job = tsim_submit(d1, waiter, 0);
	signaller = tsim_load(d0, 2, "add " SEMF ", 1\nret\n", S3(r));
	ASSERT_EQ(tsim_run(d0, signaller), 0);
	ASSERT_EQ(tsim_wait(d1, job), 0);
	ASSERT_EQ(tsim_sem_value(d1, r), 0);
	tsim_close(&t);
}

TEST(start_rwait_move_data_and_wrap)
{
	struct drm_ccore_desc d = { .op = DRM_CCORE_DESC_COPY, .len = 4096 };
	uint32_t a, b, ring, p;
	uint64_t va, vb;
	uint8_t *ha, *hb;

	setup();
	ha = tsim_bo(d0, 4096, &a, &va);
	hb = tsim_bo(d0, 4096, &b, &vb);
	memset(ha, 0x5a, 4096);
	d.dst = vb;
	d.src0 = va;
	ring = tsim_ring(d0, 0, 1, 3, 4, 1024);
	ASSERT_EQ(ccore_dev_ring_submit(d0, ring, &d, 1, 0), 0);
	p = tsim_load(d0, 0, "start ring(1,3), 1\nrwait ring(1,3)\nret\n");
	ASSERT_EQ(tsim_run(d0, p), 0);
	ASSERT_EQ(hb[0], 0x5a);
	ASSERT_EQ(hb[4095], 0x5a);
	/* the same pre-built descriptor runs again on the next START */
	memset(ha, 0x33, 4096);
	ASSERT_EQ(tsim_run(d0, p), 0);
	ASSERT_EQ(hb[100], 0x33);
	struct drm_ccore_ring_stats st;
	ASSERT_EQ(ccore_dev_ring_stats(d0, ring, &st), 0);
	ASSERT_EQ(st.completed, 2);
	ASSERT_EQ(st.packets, 8);	/* 4096 / 1024 per run */
	ASSERT_EQ(st.bytes, 8192);
	tsim_close(&t);
}

TEST(jump_skips)
{
	setup();
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 0, "jump over\nadd " SEMF ", 100\nover: add " SEMF
					    ", 1\nret\n", S3(s), S3(s))), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 1);
	tsim_close(&t);
}

TEST(bge_taken_and_not_taken)
{
	uint32_t p;

	setup();
	p = tsim_load(d0, 0,
		      "bge " SEMF ", 5, big\nadd " SEMF ", 1\nret\nbig: add " SEMF ", 10\nret\n",
		      S3(s), S3(s + 1), S3(s + 1));
	tsim_sem_set(d0, s, 5);
	ASSERT_EQ(tsim_run(d0, p), 0);
	ASSERT_EQ(tsim_sem_value(d0, s + 1), 10);
	tsim_sem_set(d0, s, 4);
	ASSERT_EQ(tsim_run(d0, p), 0);
	ASSERT_EQ(tsim_sem_value(d0, s + 1), 11);
	tsim_close(&t);
}

TEST(movi_addi_loop)
{
	struct ccm_cc_info info;

	setup();
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 0, "movi r3, 4\naddi r3, 1\nmovi r5, 77\n"
					    "again: add " SEMF ", 1\nloop r3, again\nret\n",
					    S3(s))), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 5);
	ccm_cc_info(t.f, 0, 0, &info);
	ASSERT_EQ(info.regs[3], 0);
	ASSERT_EQ(info.regs[5], 77);
	tsim_close(&t);
}

TEST(call_ret_nest)
{
	setup();
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 0,
					    "call f\nadd " SEMF ", 1\nret\n"
					    "f: add " SEMF ", 10\ncall g\nret\n"
					    "g: add " SEMF ", 100\nret\n",
					    S3(s), S3(s), S3(s))), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 111);
	tsim_close(&t);
}

TEST(call_overflow_faults_and_core_recovers)
{
	struct ccm_cc_info info;
	uint32_t p;

	setup();
	p = tsim_load(d0, 0, "f: call f\nret\n");
	ASSERT_EQ(tsim_run(d0, p), -EIO);
	/* the fault is recorded, the core back in its dispatcher */
	ccm_cc_info(t.f, 0, 0, &info);
	ASSERT_NE(info.state, CCM_CC_FAULT);
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 0, "add " SEMF ", 1\nret\n", S3(s))), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 1);
	tsim_close(&t);
}

TEST(notify_reaches_host)
{
	struct ccm_cc_info info;

	setup();
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 1, "notify 42\nret\n")), 0);
	ccm_cc_info(t.f, 0, 1, &info);
	ASSERT_EQ(info.notifies, 1);
	ASSERT_EQ(info.last_notify, 42);
	tsim_close(&t);
}

TEST(halt_stops_core_until_job_timeout_recovers_it)
{
	struct ccm_cc_info info;
	uint64_t job;

	setup();
	job = tsim_submit(d0, tsim_load(d0, 0, "halt\n"), 50);
	/* the job never returns: its 50 ms timeout resets the CC core */
	ASSERT_EQ(tsim_wait(d0, job), -ETIMEDOUT);
	ccm_cc_info(t.f, 0, 0, &info);
	ASSERT_NE(info.state, CCM_CC_IDLE);
	ASSERT_EQ(tsim_run(d0, tsim_load(d0, 0, "add " SEMF ", 3\nret\n", S3(s))), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 3);
	tsim_close(&t);
}

TEST(next_runs_jobs_in_order_one_per_trigger)
{
	uint32_t p1, p2;
	uint64_t j1, j2;
	int status;
	struct drm_ccore_submit a = { 0 };

	setup();
	p1 = tsim_load(d0, 0, "set " SEMF ", 1\nret\n", S3(s));
	p2 = tsim_load(d0, 0, "wait " SEMF ", 1\nset " SEMF ", 2\nret\n", S3(s), S3(s));
	/* queue both without triggering: nothing runs */
	a.program = p1;
	ASSERT_EQ(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SUBMIT, &a), 0);
	j1 = a.job;
	a.program = p2;
	ASSERT_EQ(ccore_dev_ioctl(d0, DRM_IOCTL_CCORE_SUBMIT, &a), 0);
	j2 = a.job;
	ASSERT_EQ(ccore_dev_job_wait(d0, j1, 20000000, &status), -ETIMEDOUT);
	ASSERT_EQ(tsim_sem_value(d0, s), 0);
	ASSERT_EQ(ccore_dev_trigger(d0, 0, 1), 0);
	ASSERT_EQ(tsim_wait(d0, j1), 0);
	ASSERT_EQ(ccore_dev_job_wait(d0, j2, 20000000, &status), -ETIMEDOUT);
	ASSERT_EQ(ccore_dev_trigger(d0, 0, 1), 0);
	ASSERT_EQ(tsim_wait(d0, j2), 0);
	ASSERT_EQ(tsim_sem_value(d0, s), 2);
	tsim_close(&t);
}

TEST(inline_mode_is_deterministic)
{
	struct ccm_cc_info a, b;
	uint32_t p;
	int run;

	for (run = 0; run < 2; run++) {
		tsim_open(&t, "devices=2,cores=2,workers=0,seed=7");
		d0 = t.dev[0];
		s = tsim_sem(d0, 0, 1);
		p = tsim_load(d0, 0, "movi r0, 10\nl: add " SEMF ", 1\nloop r0, l\nret\n", S3(s));
		ASSERT_EQ(tsim_run(d0, p), 0);
		ccm_cc_info(t.f, 0, 0, run ? &b : &a);
		tsim_close(&t);
	}
	ASSERT_EQ(a.insns, b.insns);
	ASSERT_EQ(a.pc, b.pc);
}
