// SPDX-License-Identifier: MIT
/*
 * --copy: the device model's COPY throughput, through the whole path
 * (trigger -> dispatcher -> ring program -> DMA engines -> completion),
 * next to host memcpy of the same size measured in the same run.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENGINES 16

struct copy_setup {
	struct ccore_dev *dev;
	uint32_t src, dst, prog;
	uint32_t rings[MAX_ENGINES];
	unsigned int engines;
};

static int build(struct copy_setup *s, uint64_t src_va, uint64_t dst_va, size_t bytes)
{
	struct drm_ccore_insn prog[2 * MAX_ENGINES + 1];
	size_t part = bytes / s->engines, off;
	unsigned int e, n = 0;
	int rc;

	memset(prog, 0, sizeof(prog));
	for (e = 0; e < s->engines; e++) {
		struct drm_ccore_desc d = {
			.op = DRM_CCORE_DESC_COPY,
			.len = e + 1 == s->engines ? bytes - part * e : part,
		};

		off = part * e;
		d.dst = dst_va + off;
		d.src0 = src_va + off;
		rc = ccore_dev_ring_create(s->dev, 0, e, 0, 4, 0, 0, &s->rings[e]) ?:
		     ccore_dev_ring_submit(s->dev, s->rings[e], &d, 1, 0);
		if (rc)
			return rc;
		prog[n++] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_START, .engine = (uint8_t)e, .imm = 1 };
	}
	for (e = 0; e < s->engines; e++)
		prog[n++] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RWAIT, .engine = (uint8_t)e };
	prog[n++] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RET };
	return ccore_dev_program_load(s->dev, 0, prog, n, &s->prog);
}

static int run_once(struct copy_setup *s)
{
	uint64_t job;
	int status = 0, rc;

	rc = ccore_dev_submit(s->dev, s->prog, DRM_CCORE_JOB_F_TRIGGER, &job) ?:
	     ccore_dev_job_wait(s->dev, job, 60ll * 1000000000, &status);
	return rc ? rc : status;
}

static int measure(struct ccore_system *sys, unsigned int engines, size_t bytes, int iters,
		   bool check, double host_gbps)
{
	struct copy_setup s = { .dev = ccore_system_device(sys, 0), .engines = engines };
	uint64_t src_va, dst_va;
	double best = 1e30, t;
	unsigned char *src, *dst;
	int i, rc, wrong = 0;

	rc = ccore_dev_bo_create(s.dev, bytes, &s.src, &src_va) ?:
	     ccore_dev_bo_create(s.dev, bytes, &s.dst, &dst_va);
	if (rc)
		return rc;
	src = ccore_dev_bo_map(s.dev, s.src);
	dst = ccore_dev_bo_map(s.dev, s.dst);
	for (size_t k = 0; k < bytes; k++)
		src[k] = (unsigned char)(k * 131 + 7);
	memset(dst, 0, bytes);	/* fault the pages in, as the memcpy reference does */
	rc = build(&s, src_va, dst_va, bytes);
	for (i = 0; !rc && i < iters + 1; i++) {
		t = bench_now_us();
		rc = run_once(&s);
		t = bench_now_us() - t;
		if (i > 0 && t < best)	/* the first run is warm-up */
			best = t;
	}
	if (!rc && check)
		wrong = memcmp(src, dst, bytes) != 0;
	if (!rc) {
		double gbps = (double)bytes / best / 1e3;

		printf("%8u %12zu %10.1f %8.2f %12.2f %8.2f %6d\n", engines, bytes, best, gbps,
		       host_gbps, gbps / host_gbps, wrong);
	}
	ccore_dev_program_free(s.dev, s.prog);
	for (unsigned int e = 0; e < engines; e++)
		ccore_dev_ring_destroy(s.dev, s.rings[e]);
	ccore_dev_bo_close(s.dev, s.src);
	ccore_dev_bo_close(s.dev, s.dst);
	return rc ? rc : wrong;
}

int bench_copy(const struct bench_opts *o)
{
	struct ccore_system *sys;
	size_t bytes = o->max_bytes;
	uint64_t engines = 1;
	double host;
	int rc;

	if (ccore_system_open(o->backend, o->sim, &sys))
		return fprintf(stderr, "ccore-bench: %s\n", ccore_last_error()), 1;
	ccore_dev_param(ccore_system_device(sys, 0), DRM_CCORE_PARAM_ENGINES_PER_CORE, &engines);
	host = bench_host_memcpy_gbps(bytes);
	printf("# ccore-bench --copy: device COPY through trigger, dispatcher, ring program and DMA engines,\n");
	printf("# against host memcpy of the same size in the same run (best of %d iterations)\n",
	       o->iters);
	printf("# %6s %12s %10s %8s %12s %8s %6s\n", "engines", "bytes", "time_us", "GB/s",
	       "memcpy_GB/s", "ratio", "wrong");
	rc = measure(sys, 1, bytes, o->iters, o->check, host);
	if (!rc && engines > 1)
		rc = measure(sys, (unsigned int)(engines > MAX_ENGINES ? MAX_ENGINES : engines),
			     bytes, o->iters, o->check, host);
	if (rc < 0)
		fprintf(stderr, "ccore-bench: %s\n", ccore_last_error());
	ccore_system_close(sys);
	return rc ? 1 : 0;
}
