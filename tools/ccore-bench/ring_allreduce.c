// SPDX-License-Identifier: MIT
/*
 * The ring AllReduce demo: N ranks (logical cores across the simulated
 * devices) run a hand-built ring program each.  Reduce-scatter then
 * all-gather, N-1 steps each; every step is one pre-built descriptor that
 * reduces (or copies) a chunk straight into the next rank's buffer and
 * signals the next rank's semaphore; each rank ACQUIREs its own semaphore
 * before sending what it just received.  All data is moved by the device.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rank {
	struct ccore_dev *dev;
	unsigned int core;
	uint32_t bo, sem, ring, prog;
	uint64_t va;		/* own buffer, in own context */
	uint64_t next_va;	/* next rank's buffer, in own context */
	float *host;
	uint64_t job;
};

struct ring_ar {
	struct ccore_system *sys;
	struct rank *r;
	int n;
	uint64_t cc_cores;
};

static int setup_ranks(struct ring_ar *a, size_t max_bytes)
{
	uint64_t cores = 0;
	int i, rc = 0;
	uint32_t h;

	ccore_dev_param(ccore_system_device(a->sys, 0), DRM_CCORE_PARAM_NUM_CORES, &cores);
	ccore_dev_param(ccore_system_device(a->sys, 0), DRM_CCORE_PARAM_CC_CORES_PER_CORE,
			&a->cc_cores);
	if (a->n < 1 || (uint64_t)a->n > cores * ccore_system_num_devices(a->sys))
		return fprintf(stderr, "ccore-bench: --ranks %d out of range (1..%llu: devices x cores)\n",
			       a->n, (unsigned long long)(cores * ccore_system_num_devices(a->sys))),
		       -EINVAL;
	for (i = 0; i < a->n && !rc; i++) {
		struct rank *r = &a->r[i];

		r->dev = ccore_system_device(a->sys, (unsigned int)(i / (int)cores));
		r->core = (unsigned int)(i % (int)cores);
		rc = ccore_dev_bo_create(r->dev, max_bytes ? max_bytes : 4, &r->bo, &r->va) ?:
		     ccore_dev_sem_alloc(r->dev, r->core, 1, &r->sem);
		r->host = ccore_dev_bo_map(r->dev, r->bo);
	}
	/* Let each rank write its successor's buffer and signal its semaphore. */
	for (i = 0; i < a->n && !rc; i++) {
		struct rank *r = &a->r[i], *nx = &a->r[(i + 1) % a->n];

		if (r->dev == nx->dev) {
			r->next_va = nx->va;
			continue;
		}
		rc = ccore_dev_bo_import(r->dev, nx->dev, nx->bo, &h, &r->next_va) ?:
		     ccore_dev_sem_import(r->dev, nx->dev, nx->sem);
	}
	return rc;
}

static void chunk(size_t count, int n, int c, size_t *off, size_t *len)
{
	size_t per = (count + (size_t)n - 1) / (size_t)n, start = per * (size_t)c;

	*off = start < count ? start : count;
	*len = start < count ? (count - start < per ? count - start : per) : 0;
}

static struct drm_ccore_desc step_desc(const struct rank *r, const struct rank *nx, bool reduce,
				       size_t off, size_t len)
{
	struct drm_ccore_desc d = { 0 };

	if (len == 0) {		/* nothing to move: only pass the token on */
		d.op = DRM_CCORE_DESC_SEM_WRITE;
		d.dst = nx->sem;
		d.value = 1;
		return d;
	}
	d.op = reduce ? DRM_CCORE_DESC_REDUCE : DRM_CCORE_DESC_COPY;
	d.flags = DRM_CCORE_DESC_F_SIGNAL;
	d.signal_sem = nx->sem;
	d.signal_value = 1;
	d.len = len * sizeof(float);
	d.dst = r->next_va + off * sizeof(float);
	if (reduce) {
		d.dtype = DRM_CCORE_DTYPE_F32;
		d.redop = DRM_CCORE_REDOP_SUM;
		d.src0 = d.dst;
		d.src1 = r->va + off * sizeof(float);
	} else {
		d.src0 = r->va + off * sizeof(float);
	}
	return d;
}

static int build_rank(struct ring_ar *a, int i, size_t count)
{
	struct rank *r = &a->r[i], *nx = &a->r[(i + 1) % a->n];
	int n = a->n, steps = 2 * (n - 1), k, c, p = 0, rc;
	struct drm_ccore_desc *d = calloc((size_t)steps + 1, sizeof(*d));
	struct drm_ccore_insn *prog = calloc((size_t)steps * 2 + 4, sizeof(*prog));
	uint32_t cc = r->core * (uint32_t)a->cc_cores;
	size_t off, len;

	if (!d || !prog)
		return free(d), free(prog), -ENOMEM;
	for (k = 0; k < steps; k++) {
		c = k < n - 1 ? ((i - k) % n + n) % n : ((i + 1 - (k - n + 1)) % n + n) % n;
		chunk(count, n, c, &off, &len);
		d[k] = step_desc(r, nx, k < n - 1, off, len);
		if (k > 0)
			prog[p++] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ACQUIRE, .sem = r->sem, .imm = 1 };
		prog[p++] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_START, .imm = 1 };
	}
	if (steps) {
		prog[p++] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ACQUIRE, .sem = r->sem, .imm = 1 };
		prog[p++] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RWAIT };
	}
	prog[p++] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RET };
	rc = 0;
	if (steps)
		rc = ccore_dev_ring_create(r->dev, r->core, 0, 0, (uint32_t)steps, 0, 0, &r->ring) ?:
		     ccore_dev_ring_submit(r->dev, r->ring, d, (uint32_t)steps, 0);
	if (!rc)
		rc = ccore_dev_program_load(r->dev, cc, prog, (uint32_t)p, &r->prog);
	free(d);
	free(prog);
	return rc;
}

static void teardown_programs(struct ring_ar *a)
{
	for (int i = 0; i < a->n; i++) {
		ccore_dev_program_free(a->r[i].dev, a->r[i].prog);
		if (a->n > 1)
			ccore_dev_ring_destroy(a->r[i].dev, a->r[i].ring);
	}
}

static int run_once(struct ring_ar *a)
{
	int i, rc = 0, status;

	for (i = 0; i < a->n && !rc; i++)
		rc = ccore_dev_submit(a->r[i].dev, a->r[i].prog, DRM_CCORE_JOB_F_TRIGGER,
				      &a->r[i].job);
	for (i = 0; i < a->n && !rc; i++) {
		rc = ccore_dev_job_wait(a->r[i].dev, a->r[i].job, 60ll * 1000000000, &status);
		if (!rc && status)
			rc = status;
	}
	return rc;
}

static float input(int rank, size_t i)
{
	return (float)((rank + 1) * (int)(i % 13 + 1));
}

static void fill(struct ring_ar *a, size_t count)
{
	for (int r = 0; r < a->n; r++)
		for (size_t i = 0; i < count; i++)
			a->r[r].host[i] = input(r, i);
}

static long count_wrong(struct ring_ar *a, size_t count)
{
	long wrong = 0;

	for (size_t i = 0; i < count; i++) {
		float want = 0;

		for (int r = 0; r < a->n; r++)
			want += input(r, i);
		for (int r = 0; r < a->n; r++)
			wrong += a->r[r].host[i] != want;
	}
	return wrong;
}

static int run_size(struct ring_ar *a, const struct bench_opts *o, size_t bytes, double *busbw)
{
	size_t count = bytes / sizeof(float);
	double t, algbw;
	long wrong = 0;
	int i, rc = 0;

	for (i = 0; i < a->n && !rc; i++)
		rc = build_rank(a, i, count);
	for (i = 0; i < o->warmup && !rc; i++)
		rc = run_once(a);
	if (!rc && o->check)
		fill(a, count);
	t = bench_now_us();
	for (i = 0; i < o->iters && !rc; i++) {
		rc = run_once(a);
		if (!rc && o->check && i == 0) {
			/* Check the first run on known inputs, then keep going. */
			wrong = count_wrong(a, count);
			t = bench_now_us();
		}
	}
	t = (bench_now_us() - t) / (o->check && o->iters > 1 ? o->iters - 1 : o->iters);
	teardown_programs(a);
	if (rc)
		return rc;
	algbw = (double)bytes / t / 1e3;
	*busbw = algbw * 2.0 * (a->n - 1) / a->n;
	printf("%12zu %12zu %8s %6s %6s %9.1f %7.2f %7.2f %6ld\n", bytes, count, "float", "sum",
	       "-1", t, algbw, *busbw, wrong);
	fflush(stdout);
	return wrong ? 1 : 0;
}

int bench_ring_allreduce(const struct bench_opts *o)
{
	struct ring_ar a = { .n = o->ranks };
	double sum = 0, busbw = 0;
	int sizes = 0, rc = 0;
	size_t bytes;

	if (ccore_system_open(o->backend, o->sim, &a.sys))
		return fprintf(stderr, "ccore-bench: %s\n", ccore_last_error()), 1;
	a.r = calloc((size_t)(a.n > 0 ? a.n : 1), sizeof(*a.r));
	rc = a.r ? setup_ranks(&a, o->max_bytes) : -ENOMEM;
	if (!rc) {
		printf("# ccore-bench: ring AllReduce (hand-built ring programs), %d ranks on %u %s device(s), in place\n",
		       a.n, ccore_system_num_devices(a.sys), ccore_system_backend(a.sys));
		printf("# host memcpy bandwidth (same run): %.2f GB/s\n",
		       bench_host_memcpy_gbps(o->max_bytes > (64u << 20) ? o->max_bytes : (64u << 20)));
		printf("#%11s %12s %8s %6s %6s %9s %7s %7s %6s\n", "size", "count", "type", "redop",
		       "root", "time", "algbw", "busbw", "#wrong");
		printf("#%11s %12s %8s %6s %6s %9s %7s %7s %6s\n", "(B)", "(elements)", "", "", "",
		       "(us)", "(GB/s)", "(GB/s)", "");
	}
	for (bytes = o->min_bytes; !rc && bytes <= o->max_bytes; bytes *= (size_t)o->step_factor) {
		rc = run_size(&a, o, bytes - bytes % sizeof(float), &busbw);
		sum += busbw;
		sizes++;
		if (o->step_factor < 2)
			break;
	}
	if (rc < 0)
		fprintf(stderr, "ccore-bench: %s\n", ccore_last_error());
	else if (sizes)
		printf("# Out of bounds values : %d %s\n# Avg bus bandwidth    : %g\n", rc ? 1 : 0,
		       rc ? "FAILED" : "OK", sum / sizes);
	ccore_system_close(a.sys);
	free(a.r);
	return rc ? 1 : 0;
}
