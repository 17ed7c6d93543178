// SPDX-License-Identifier: GPL-2.0
/*
 * DMA packet arbitration: an engine serves its busy rings round-robin and
 * switches ring only at packet boundaries, so while two rings are busy
 * their byte counts grow in the ratio of their packet sizes.
 */
#include "tsim.h"

#include <unistd.h>

#define BIG (32u << 20)

struct two_rings {
	struct tsim t;
	struct ccore_dev *d;
	uint32_t ring[2];
	uint32_t bo[4];
	uint64_t va[4];
};

/* Two rings on engine 0 of core 0, each copying BIG bytes, both started. */
static void start_two(struct two_rings *x, const char *cfg, unsigned int pkt0, unsigned int pkt1)
{
	struct drm_ccore_desc d = { .op = DRM_CCORE_DESC_COPY, .len = BIG };
	unsigned int i;

	tsim_open(&x->t, cfg);
	x->d = x->t.dev[0];
	for (i = 0; i < 4; i++)
		tsim_bo(x->d, BIG, &x->bo[i], &x->va[i]);
	x->ring[0] = tsim_ring(x->d, 0, 0, 0, 1, pkt0);
	x->ring[1] = tsim_ring(x->d, 0, 0, 5, 1, pkt1);
	for (i = 0; i < 2; i++) {
		d.src0 = x->va[2 * i];
		d.dst = x->va[2 * i + 1];
		ASSERT_EQ(ccore_dev_ring_submit(x->d, x->ring[i], &d, 1, DRM_CCORE_SUBMIT_F_START), 0);
	}
}

static void stats(struct two_rings *x, struct drm_ccore_ring_stats st[2])
{
	ASSERT_EQ(ccore_dev_ring_stats(x->d, x->ring[0], &st[0]), 0);
	ASSERT_EQ(ccore_dev_ring_stats(x->d, x->ring[1], &st[1]), 0);
}

/* Inline mode: step the model by hand and look while both rings are busy. */
static void deterministic_ratio(unsigned int pkt0, unsigned int pkt1)
{
	struct drm_ccore_ring_stats st[2];
	struct two_rings x;
	double want = (double)pkt0 / pkt1, got;

	start_two(&x, "devices=1,cores=1,workers=0", pkt0, pkt1);
	do {
		ASSERT_GT(ccm_fabric_run_steps(x.t.f, 1), 0);
		stats(&x, st);
	} while (st[0].bytes < BIG / 2 && st[1].bytes < BIG / 2);
	ASSERT_EQ(st[0].completed, 0);
	ASSERT_EQ(st[1].completed, 0);
	got = (double)st[0].bytes / (double)st[1].bytes;
	ccore_test_log("packets %u:%u -> bytes %llu:%llu, ratio %.4f (want %.4f)", pkt0, pkt1,
		       (unsigned long long)st[0].bytes, (unsigned long long)st[1].bytes, got, want);
	ASSERT_TRUE(got > want * 0.95 && got < want * 1.05);
	/* alternation is per packet: packet counts stay within one */
	ASSERT_LE(st[0].packets > st[1].packets ? st[0].packets - st[1].packets
						: st[1].packets - st[0].packets, 1);
	tsim_close(&x.t);
}

TEST(packet_64k_vs_4k_gets_16_to_1)
{
	deterministic_ratio(65536, 4096);
}

TEST(equal_packets_get_1_to_1)
{
	deterministic_ratio(4096, 4096);
}

TEST(packet_4k_vs_64k_gets_1_to_16)
{
	deterministic_ratio(4096, 65536);
}

/*
 * A consistent sample of both rings' counters while the workers run: read
 * ring 0, ring 1, ring 0 again and keep it only if ring 0 did not move.
 */
static void snapshot(struct two_rings *x, struct drm_ccore_ring_stats st[2])
{
	struct drm_ccore_ring_stats again;
	int tries;

	for (tries = 0; tries < 1000000; tries++) {
		stats(x, st);
		ASSERT_EQ(ccore_dev_ring_stats(x->d, x->ring[0], &again), 0);
		if (again.bytes == st[0].bytes)
			return;
	}
	FAIL("no consistent sample of the ring counters in %d tries", tries);
}

/*
 * With the worker pool: whichever ring was started first had the engine to
 * itself for a moment, so compare what both moved between two samples
 * taken while both were busy.
 */
static void threaded_ratio(unsigned int pkt0, unsigned int pkt1)
{
	struct drm_ccore_ring_stats a[2], b[2];
	double want = (double)pkt0 / pkt1, got;
	struct two_rings x;

	start_two(&x, "devices=1,cores=1,workers=2", pkt0, pkt1);
	do
		snapshot(&x, a);
	while (a[1].bytes == 0 || a[0].bytes == 0);
	do
		snapshot(&x, b);
	while ((b[1].bytes - a[1].bytes < BIG / 64 || b[0].bytes - a[0].bytes < BIG / 64) &&
	       !b[0].completed && !b[1].completed);
	if (b[0].completed || b[1].completed)
		FAIL("a ring finished between the samples; no contention was measured");
	got = (double)(b[0].bytes - a[0].bytes) / (double)(b[1].bytes - a[1].bytes);
	ccore_test_log("packets %u:%u -> bytes moved while both busy %llu:%llu, ratio %.4f (want %.4f)",
		       pkt0, pkt1, (unsigned long long)(b[0].bytes - a[0].bytes),
		       (unsigned long long)(b[1].bytes - a[1].bytes), got, want);
	ASSERT_TRUE(got > want * 0.95 && got < want * 1.05);
	do
		stats(&x, b);
	while (!(b[0].completed && b[1].completed));
	/* read again: a sample's counters are read one after the other, so the
	 * one that saw completed may hold bytes read a moment before */
	stats(&x, b);
	ASSERT_EQ(b[0].bytes, BIG);
	ASSERT_EQ(b[1].bytes, BIG);
	tsim_close(&x.t);
}

TEST(worker_pool_64k_vs_4k_gets_16_to_1)
{
	threaded_ratio(65536, 4096);
}

TEST(worker_pool_equal_packets_get_1_to_1)
{
	threaded_ratio(8192, 8192);
}

TEST(lone_ring_gets_whole_engine)
{
	struct drm_ccore_ring_stats st[2];
	struct two_rings x;

	start_two(&x, "devices=1,cores=1,workers=0", 65536, 4096);
	/* run to completion: ring 0 finishes first, then ring 1 runs alone */
	while (ccm_fabric_run_steps(x.t.f, 64))
		;
	stats(&x, st);
	ASSERT_EQ(st[0].bytes, BIG);
	ASSERT_EQ(st[1].bytes, BIG);
	ASSERT_EQ(st[0].packets, BIG / 65536);
	ASSERT_EQ(st[1].packets, BIG / 4096);
	tsim_close(&x.t);
}
