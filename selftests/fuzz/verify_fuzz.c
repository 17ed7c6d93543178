// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the model's verifier, the security boundary the
 * kernel driver and the sim backend share (model/ccm_verify.c,
 * model/ccm_compute_verify.c), and for what it lets through: make fuzz
 * FUZZ_TARGET=verify.
 *
 * An input is a header (struct fuzz_input) followed by descriptors for one
 * ring, a CC program and a compute program, each checked as a submission
 * would be: translated against a context's address space, semaphores and
 * rings.  What the verifier accepts then runs on a small inline fabric of
 * the model for a bounded number of steps, so anything it should have
 * refused and the model mishandles (a division by zero, an access outside
 * a buffer, overflow) shows as an ASan or UBSan report, a job or compute
 * program reported done twice as an abort, and unbounded work per step
 * as a libFuzzer timeout.  Every input gets a fresh fabric: the
 * scheduler's order is seeded and a job may spin forever, so nothing may
 * carry over.
 *
 * selftests/fuzz/make-verify-corpus.py writes the seed corpus in this
 * format; keep the two in step.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccm.h"
#include "ccm_verify.h"
#include "ccore_firmware.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* struct fuzz_input.flags */
enum {
	IN_DESCS = 1,		/* submit the descriptors to the ring */
	IN_START = 2,		/* RING_SUBMIT's START: the host starts them all */
	IN_PROGRAM = 4,		/* load the CC program and queue it as a job */
	IN_TRIGGER = 8,		/* trigger the job's CC core (else only the program may) */
	IN_COMPUTE = 16,	/* submit the compute program */
	IN_DMA_ERROR = 32,	/* inject a DMA error on the context's core */
	IN_CC_HANG = 64,	/* hang the job's CC core */
};

/* struct fuzz_input.model: functional (0), or timed (ccm_timed.c, ccm_xfer.c) */
enum { MODEL_TIMED = 1, MODEL_IDEAL = 2 };

/*
 * The input's header, little-endian as the host is; then ndesc struct
 * drm_ccore_desc, ninsn struct drm_ccore_insn, nce struct
 * drm_ccore_ce_insn (fewer if the input ends first).  Devices, cores and
 * rings are taken modulo the fabric's shape (the callers of the verifier
 * check them first); the ring's slots, packet size and index fields go to
 * ccm_ring_claim() as the ioctl's would, and the verifier sees what it
 * accepted.
 */
struct fuzz_input {
	u8 flags;
	u8 dev, core, cc;		/* the context's ring and CC core */
	u8 engine, ring;		/* the descriptors' ring */
	u8 ce_engine, ce_ring;		/* the compute program's DMA ring (not reduced) */
	u32 slots;
	u32 packet_size;
	s64 index_stride;
	u32 index_count;
	u32 seed;			/* the inline scheduler's (struct ccm_config) */
	u16 ndesc, ninsn, nce;
	u8 trigger_count;
	u8 model;			/* MODEL_*: which execution the model runs */
	u8 pattern_len;			/* first bytes of pattern that fill every buffer */
	u8 pattern[15];
};
_Static_assert(sizeof(struct fuzz_input) == 56 && offsetof(struct fuzz_input, model) == 39,
	       "make-verify-corpus.py packs 56 bytes, the model at 39");

/* The fabric: 2 devices of 2 cores, 2 CC cores, 2 engines of 4 rings each. */
#define FZ_DEVS 2
#define FZ_CORES 2
#define FZ_CC 2
#define FZ_ENGINES 2
#define FZ_RINGS 4
#define FZ_SEMS 64
#define FZ_SEM_BLOCK 8		/* the context's semaphores on each core */
/* Steps a fabric runs an input for: each is at most 64 CC instructions or
 * 16 packets of one buffer at most, milliseconds in all. */
#define FZ_STEPS 512

/* The context's buffers, mapped in this order (the corpus knows the VAs). */
static const struct { u32 dev; u64 size; } fz_bufs[] = {
	{ 0, 4096 }, { 0, 4096 }, { 0, 100 }, { 1, 4096 },
};
#define FZ_NBUFS (sizeof(fz_bufs) / sizeof(fz_bufs[0]))

static struct ccm_vm fz_vm;
static u8 *fz_host[FZ_NBUFS];
/* who owns the context's rings and semaphores, and another context */
static int fz_owner, fz_other;

static struct ccm_fabric *fz_fabric;
static bool fz_verbose;

/* VERIFY_FUZZ_VERBOSE=1: say what each step of an input did (for seeds). */
static int note(const char *what, int rc, const struct ccm_err *err)
{
	if (fz_verbose)
		fprintf(stderr, "verify_fuzz: %s: %s%s\n", what, rc ? "refused: " : "ok",
			rc ? err->msg : "");
	return rc;
}

static bool fz_sem_owned(void *owner, u32 ref)
{
	return ccm_sem_owner(fz_fabric, ref) == owner;
}

static bool fz_ring_owned(void *owner, u32 dev, u32 core, u32 engine, u32 ring)
{
	return ccm_ring_owner(fz_fabric, dev, core, engine, ring) == owner;
}

/* The model's promise to its host: each job and compute program ends once. */
static u32 fz_jobs_done, fz_computes_done;

static void job_done(void *host, u64 cookie, int status)
{
	(void)host;
	(void)status;
	if (cookie != 1 || ++fz_jobs_done > 1)
		abort();
}

static void compute_done(void *host, u32 dev, u32 core, int status)
{
	(void)host;
	(void)dev;
	(void)core;
	(void)status;
	if (++fz_computes_done > 1)
		abort();
}

static const struct ccm_host_ops fz_ops = { .job_done = job_done, .compute_done = compute_done };

static void fz_setup_once(void)
{
	static bool done;
	u64 va;
	u32 i;

	if (done)
		return;
	done = true;
	fz_verbose = getenv("VERIFY_FUZZ_VERBOSE") != NULL;
	ccm_vm_init(&fz_vm);
	for (i = 0; i < FZ_NBUFS; i++) {
		/* exactly the buffer's size: ASan catches a byte past it */
		fz_host[i] = malloc(fz_bufs[i].size);
		if (!fz_host[i] || ccm_vm_map(&fz_vm, fz_bufs[i].size, fz_host[i], fz_bufs[i].dev,
					      NULL, &va))
			abort();
	}
}

/* A fresh fabric with the dispatcher on every CC core, the context's
 * semaphores on every core and another context's block behind them. */
static struct ccm_fabric *fz_fabric_new(const struct fuzz_input *in)
{
	struct ccm_config cfg;
	struct ccm_err err;
	struct ccm_fabric *f;
	u32 dev, core, first, i;

	ccm_config_default(&cfg);
	cfg.devices_per_node = FZ_DEVS;
	cfg.torus_x = FZ_DEVS;
	cfg.cores = FZ_CORES;
	cfg.cc_cores = FZ_CC;
	cfg.engines = FZ_ENGINES;
	cfg.rings = FZ_RINGS;
	cfg.sems = FZ_SEMS;
	cfg.hbm_size = 1 << 20;
	cfg.max_ring_size = 16;
	cfg.max_program_size = 128;
	cfg.workers = 0;
	cfg.seed = in->seed;
	cfg.timed = !!(in->model & MODEL_TIMED);
	cfg.ideal = cfg.timed && (in->model & MODEL_IDEAL);
	f = ccm_fabric_create(&cfg, &fz_ops, NULL, &err);
	if (!f)
		abort();
	for (i = 0; i < ccore_firmware_blob_count; i++)
		if (!strcmp(ccore_firmware_blobs[i].name, "dispatcher") &&
		    ccm_load_firmware(f, ccore_firmware_blobs[i].insns,
				      ccore_firmware_blobs[i].count, &err))
			abort();
	for (dev = 0; dev < FZ_DEVS; dev++)
		for (core = 0; core < FZ_CORES; core++)
			if (ccm_sem_alloc(f, dev, core, FZ_SEM_BLOCK, &fz_owner, &first, &err) ||
			    ccm_sem_alloc(f, dev, core, FZ_SEM_BLOCK, &fz_other, &first, &err))
				abort();
	/* a ring of the other context the verifier must refuse */
	if (ccm_ring_claim(f, 0, 0, FZ_ENGINES - 1, FZ_RINGS - 1, 4, 4096, 0, 0, &fz_other,
			   &err))
		abort();
	ccm_fabric_run_steps(f, FZ_STEPS);	/* the dispatchers block on their triggers */
	return f;
}

/* Consume @n bytes of the input, or NULL if it has fewer. */
static const void *take(const uint8_t **data, size_t *size, size_t n)
{
	const void *p = *data;

	if (*size < n)
		return NULL;
	*data += n;
	*size -= n;
	return p;
}

/* Copy up to @max records of @rec bytes; returns how many there were. */
static u32 take_records(const uint8_t **data, size_t *size, void *out, u32 max, size_t rec)
{
	u32 n = (u32)(*size / rec < max ? *size / rec : max);

	memcpy(out, take(data, size, n * rec), n * rec);
	return n;
}

static void fill_buffers(const struct fuzz_input *in)
{
	u32 i, len = in->pattern_len % (sizeof(in->pattern) + 1);
	u64 k;

	for (i = 0; i < FZ_NBUFS; i++)
		for (k = 0; k < fz_bufs[i].size; k++)
			fz_host[i][k] = len ? in->pattern[k % len] : (u8)(k * 37 + i);
}

/* The descriptors, translated and written if every one passes. */
static bool run_descs(struct ccm_verify_ctx *v, const struct fuzz_input *in,
		      const struct drm_ccore_desc *descs, u32 n)
{
	struct ccm_hwdesc hw[16];
	struct ccm_err err;
	u32 i;

	for (i = 0; i < n; i++)
		if (note("descriptor", ccm_desc_translate(v, &descs[i], i, &hw[i], &err), &err))
			return false;
	return n && !note("ring write", ccm_ring_write(fz_fabric, v->dev, v->core,
						       in->engine % FZ_ENGINES,
						       in->ring % FZ_RINGS, hw, n, &err), &err);
}

static void run_program(struct ccm_verify_ctx *v, const struct fuzz_input *in,
			const struct drm_ccore_insn *insns, u32 n)
{
	u32 cc = v->core * FZ_CC + in->cc % FZ_CC, base;
	struct ccm_err err;

	if (note("program", ccm_program_verify(v, insns, n, &err), &err) ||
	    note("load", ccm_cc_load(fz_fabric, v->dev, cc, insns, n, &base, &err), &err) ||
	    note("enqueue", ccm_cc_enqueue(fz_fabric, v->dev, cc, base, 1, &err), &err))
		return;
	if (in->flags & IN_CC_HANG)
		ccm_inject_cc_hang(fz_fabric, v->dev, cc, &err);
	if (in->flags & IN_TRIGGER)
		ccm_cc_trigger(fz_fabric, v->dev, cc, in->trigger_count ? in->trigger_count : 1);
}

static void run_compute(struct ccm_verify_ctx *v, const struct fuzz_input *in,
			const struct drm_ccore_ce_insn *insns, u32 n)
{
	struct ccm_hwdesc descs[128];
	struct ccm_err err;
	u32 ndma;

	/* the compute DMA ring, claimed as COMPUTE_SUBMIT's caller would have */
	if (in->ce_engine < FZ_ENGINES && in->ce_ring < FZ_RINGS &&
	    !ccm_ring_owner(fz_fabric, v->dev, v->core, in->ce_engine, in->ce_ring))
		ccm_ring_claim(fz_fabric, v->dev, v->core, in->ce_engine, in->ce_ring, 16, 4096, 0,
			       0, &fz_owner, &err);
	v->index_stride = 0;
	v->index_count = 0;
	if (note("compute program", ccm_compute_verify(v, insns, n, in->ce_engine, in->ce_ring,
						       descs, &ndma, &err), &err))
		return;
	note("compute submit", ccm_compute_submit(fz_fabric, v->dev, v->core, insns, n,
						  in->ce_engine, in->ce_ring, descs, ndma,
						  &fz_owner, &err), &err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct drm_ccore_desc descs[16];
	static struct drm_ccore_insn insns[128];
	static struct drm_ccore_ce_insn ce[128];
	struct ccm_verify_ctx v = {
		.vm = &fz_vm, .sem_owned = fz_sem_owned, .ring_owned = fz_ring_owned,
		.owner = &fz_owner,
	};
	const struct fuzz_input *hdr = take(&data, &size, sizeof(*hdr));
	struct fuzz_input in;
	struct ccm_err err;
	u32 ndesc, ninsn, nce;
	bool claimed;
	u64 steps;

	if (!hdr)
		return 0;
	memcpy(&in, hdr, sizeof(in));
	ndesc = take_records(&data, &size, descs, in.ndesc < 16 ? in.ndesc : 16, sizeof(*descs));
	ninsn = take_records(&data, &size, insns, in.ninsn < 128 ? in.ninsn : 128,
			     sizeof(*insns));
	nce = take_records(&data, &size, ce, in.nce < 128 ? in.nce : 128, sizeof(*ce));
	fz_setup_once();
	fill_buffers(&in);
	fz_jobs_done = 0;
	fz_computes_done = 0;
	fz_fabric = fz_fabric_new(&in);
	v.f = fz_fabric;
	v.dev = in.dev % FZ_DEVS;
	v.core = in.core % FZ_CORES;

	/* the ring as RING_CREATE makes it; the verifier sees what it took */
	claimed = !note("ring claim", ccm_ring_claim(fz_fabric, v.dev, v.core,
						     in.engine % FZ_ENGINES, in.ring % FZ_RINGS,
						     in.slots, in.packet_size, in.index_stride,
						     in.index_count, &fz_owner, &err), &err);
	if (claimed) {
		v.index_stride = in.index_stride;
		v.index_count = in.index_count;
		if ((in.flags & IN_DESCS) && run_descs(&v, &in, descs, ndesc) &&
		    (in.flags & IN_START))
			note("start", ccm_ring_start(fz_fabric, v.dev, v.core,
						     in.engine % FZ_ENGINES, in.ring % FZ_RINGS,
						     ndesc, &err), &err);
	}
	if ((in.flags & IN_PROGRAM) && ninsn)
		run_program(&v, &in, insns, ninsn);
	if ((in.flags & IN_COMPUTE) && nce)
		run_compute(&v, &in, ce, nce);
	if (in.flags & IN_DMA_ERROR)
		ccm_inject_dma_error(fz_fabric, v.dev, v.core, &err);
	steps = ccm_fabric_run_steps(fz_fabric, FZ_STEPS);
	if (fz_verbose)
		fprintf(stderr, "verify_fuzz: ran %llu steps\n", (unsigned long long)steps);
	ccm_fabric_destroy(fz_fabric);
	fz_fabric = NULL;
	return 0;
}
