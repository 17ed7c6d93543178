// SPDX-License-Identifier: MIT
/* Loading and running an executable on the devices (see exe_run.h). */
#include "exe_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ccore_device.h"
#include "ccore_internal.h"
#include "comm.h"

/* The engine compute DMA goes through: the one a rank's local copies use. */
#define EXE_COMPUTE_ENGINE 0
/* How long a step may take before it is an error (the job timeout's scale). */
#define EXE_STEP_TIMEOUT_NS (3600ll * 1000000000ll)

/* One replica-group layout, split once and shared by its collectives. */
struct layout {
	uint32_t group_count, group_size;
	const uint32_t *ranks;		/* the first collective's: same contents */
	struct ccore_comm **comm;	/* [nranks]: rank's group communicator */
	uint32_t *pos;			/* [nranks]: its rank there */
	struct ccore_stream **stream;	/* [nranks * MAX_STREAMS], made on first use */
};

/* Rank r's part of collective c: its wrapper program and where it runs. */
struct part {
	struct ccore_dev *dev;
	uint32_t cc;			/* device-wide CC core */
	uint32_t prog;			/* program handle */
	uint32_t done_sem;		/* reference: +1 when a run of it completes */
	struct plan *plan;		/* NULL if the collective has nothing to do */
	uint32_t group_rank;
};

struct rank_run {
	struct ccore_dev *dev;
	uint32_t core;
	ccore_ptr *tensor;		/* [ntensors] */
	uint32_t done_first;		/* block of ncolls + 1 semaphores */
	uint32_t dma_sem;		/* the last: +1 per compute DMA done */
	struct drm_ccore_ce_insn *prog;
	uint32_t nprog;
	uint32_t *jobs_coll;		/* collective of each trigger, in order */
	uint32_t njobs;
	uint64_t *job_ids;		/* [njobs] of the last step */
	struct comm_ring ring;		/* compute DMA */
	bool has_ring;
	uint32_t ndma;
};

struct exe_run {
	const struct ccore_exe *exe;
	uint32_t n;
	struct ccore_comm **comm;	/* [n] world */
	struct layout *layouts;
	uint32_t nlayouts;
	uint32_t *coll_layout;		/* [ncolls] */
	struct part *parts;		/* [n * ncolls] */
	struct rank_run *ranks;		/* [n] */
	struct exe_coll_stats *stats;	/* [ncolls] */
	struct plan **pinned;		/* one per (collective, group) planned */
	uint32_t npinned;
	uint32_t capture_coll;		/* while planning: the collective */
};

static struct part *part_of(struct exe_run *x, uint32_t r, uint32_t c)
{
	return &x->parts[(size_t)r * x->exe->ncolls + c];
}

static struct ccore_dev *rank_dev(struct exe_run *x, uint32_t r)
{
	return comm_dev(x->comm[r]);
}

/* --- communicators ----------------------------------------------------- */

static int open_world(struct exe_run *x)
{
	const struct ccore_exe *exe = x->exe;
	struct ccore_comm_config cfg = CCORE_COMM_CONFIG_INIT;
	uint32_t streams = 1;

	for (uint32_t c = 0; c < exe->ncolls; c++)
		if (exe->colls[c].stream + 1 > streams)
			streams = exe->colls[c].stream + 1;
	/* the environment's choice wins over the executable's need */
	if (!getenv("CCORE_STREAMS"))
		cfg.streams = streams;
	x->comm = calloc(x->n, sizeof(*x->comm));
	if (!x->comm)
		return ccore_error(-ENOMEM, "out of memory");
	return ccore_comm_init_all_config(&exe->topo, &cfg, x->comm);
}

static bool same_groups(const struct layout *l, const struct ccore_exe_coll *c)
{
	return l->group_count == c->group_count && l->group_size == c->group_size &&
	       !memcmp(l->ranks, c->ranks, (size_t)c->group_count * c->group_size * sizeof(uint32_t));
}

static int split_layout(struct exe_run *x, const struct ccore_exe_coll *c, struct layout *l)
{
	int *color = malloc(x->n * sizeof(int)), *key = malloc(x->n * sizeof(int));
	int rc = 0;

	*l = (struct layout){ .group_count = c->group_count, .group_size = c->group_size,
			      .ranks = c->ranks };
	l->comm = calloc(x->n, sizeof(*l->comm));
	l->pos = calloc(x->n, sizeof(*l->pos));
	l->stream = calloc((size_t)x->n * CCORE_EXE_MAX_STREAMS, sizeof(*l->stream));
	if (!color || !key || !l->comm || !l->pos || !l->stream) {
		rc = ccore_error(-ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t r = 0; r < x->n; r++)
		color[r] = -1, key[r] = 0;
	for (uint32_t g = 0; g < c->group_count; g++)
		for (uint32_t i = 0; i < c->group_size; i++) {
			uint32_t r = c->ranks[g * c->group_size + i];

			color[r] = (int)g;
			key[r] = (int)i;
			l->pos[r] = i;
		}
	rc = ccore_comm_split(x->comm, (int)x->n, color, key, l->comm);
out:
	free(color);
	free(key);
	return rc;
}

static int open_layouts(struct exe_run *x)
{
	const struct ccore_exe *exe = x->exe;
	int rc = 0;

	x->coll_layout = calloc(exe->ncolls ? exe->ncolls : 1, sizeof(*x->coll_layout));
	x->layouts = calloc(exe->ncolls ? exe->ncolls : 1, sizeof(*x->layouts));
	if (!x->coll_layout || !x->layouts)
		return ccore_error(-ENOMEM, "out of memory");
	for (uint32_t c = 0; c < exe->ncolls && !rc; c++) {
		uint32_t l = 0;

		while (l < x->nlayouts && !same_groups(&x->layouts[l], &exe->colls[c]))
			l++;
		if (l == x->nlayouts) {
			rc = split_layout(x, &exe->colls[c], &x->layouts[l]);
			x->nlayouts++;
		}
		x->coll_layout[c] = l;
	}
	return rc;
}

static int layout_stream(struct layout *l, uint32_t r, uint32_t id, struct ccore_stream **out)
{
	struct ccore_stream **s = &l->stream[(size_t)r * CCORE_EXE_MAX_STREAMS + id];
	int rc = *s ? 0 : ccore_stream_create(l->comm[r], id, s);

	*out = *s;
	return rc;
}

/* --- tensors ------------------------------------------------------------- */

static int open_tensors(struct exe_run *x)
{
	const struct ccore_exe *exe = x->exe;
	int rc = 0;

	for (uint32_t r = 0; r < x->n && !rc; r++) {
		struct rank_run *rr = &x->ranks[r];

		rr->tensor = calloc(exe->ntensors ? exe->ntensors : 1, sizeof(*rr->tensor));
		if (!rr->tensor)
			return ccore_error(-ENOMEM, "out of memory");
		for (uint32_t t = 0; t < exe->ntensors && !rc; t++)
			rc = ccore_mem_alloc(x->comm[r], exe->tensors[t].bytes, &rr->tensor[t]);
	}
	if (!rc)
		exe_run_reset_tensors(x);
	return rc;
}

void *exe_run_tensor(struct exe_run *x, uint32_t rank, uint32_t tensor)
{
	if (rank >= x->n || tensor >= x->exe->ntensors)
		return NULL;
	return ccore_mem_host(x->comm[rank], x->ranks[rank].tensor[tensor]);
}

void exe_run_reset_tensors(struct exe_run *x)
{
	for (uint32_t r = 0; r < x->n; r++)
		for (uint32_t t = 0; t < x->exe->ntensors; t++) {
			void *host = exe_run_tensor(x, r, t);

			/* virtual buffers of the timed model have no bytes */
			if (host)
				ccore_exe_fill(&x->exe->tensors[t], r, host);
		}
}

/* --- planning the collectives ------------------------------------------ */

static int captured(void *arg, struct clique *q, struct plan *p)
{
	struct exe_run *x = arg;
	struct layout *l = &x->layouts[x->coll_layout[x->capture_coll]];

	if (p)
		x->pinned[x->npinned++] = p;
	/* every member of the group planned at once: @q is its clique */
	for (uint32_t r = 0; r < x->n; r++) {
		struct part *pt = part_of(x, r, x->capture_coll);

		if (!l->comm[r] || l->comm[r]->q != q)
			continue;
		pt->plan = p;
		pt->group_rank = l->pos[r];
	}
	return 0;
}

/* Rank @r's call of collective @c on its group communicator. */
static int post(struct exe_run *x, uint32_t r, uint32_t c)
{
	const struct ccore_exe_coll *co = &x->exe->colls[c];
	struct layout *l = &x->layouts[x->coll_layout[c]];
	struct rank_run *rr = &x->ranks[r];
	ccore_ptr send = rr->tensor[co->send] + co->send_offset;
	ccore_ptr recv = rr->tensor[co->recv] + co->recv_offset;
	struct ccore_comm *g = l->comm[r];
	enum ccore_dtype dt = (enum ccore_dtype)co->dtype;
	enum ccore_redop op = (enum ccore_redop)co->redop;
	struct ccore_stream *s;
	int rc;

	rc = layout_stream(l, r, co->stream, &s);
	if (rc)
		return rc;
	switch (co->op) {
	case ccore_op_allreduce:
		return ccore_all_reduce(send, recv, co->count, dt, op, g, s);
	case ccore_op_allgather:
		return ccore_all_gather(send, recv, co->count, dt, g, s);
	case ccore_op_reducescatter:
		return ccore_reduce_scatter(send, recv, co->count, dt, op, g, s);
	case ccore_op_alltoall:
		return ccore_all_to_all(send, recv, co->count, dt, g, s);
	case ccore_op_broadcast:
		return ccore_broadcast(send, recv, co->count, dt, (int)co->root, g, s);
	case ccore_op_reduce:
		return ccore_reduce(send, recv, co->count, dt, op, (int)co->root, g, s);
	default:
		/* sendrecv: the group's two ranks, @root the sender */
		if (l->pos[r] == co->root)
			return ccore_send(send, co->count, dt, (int)(1 - co->root), g, s);
		return ccore_recv(recv, co->count, dt, (int)co->root, g, s);
	}
}

/*
 * Rank @r's program for collective @c: the collective's own (its last
 * instruction, RET, dropped), one ADD to the completion semaphore, RET.
 */
static int load_part(struct exe_run *x, uint32_t r, uint32_t c)
{
	struct part *pt = part_of(x, r, c);
	const struct drm_ccore_insn *body = NULL;
	struct drm_ccore_insn *insns;
	uint32_t n = 0;
	int rc;

	if (pt->plan)
		body = plan_rank_program(pt->plan, pt->group_rank, &n, &pt->dev, &pt->cc);
	if (!body) {
		struct layout *l = &x->layouts[x->coll_layout[c]];
		struct ccore_stream *s;

		rc = layout_stream(l, r, x->exe->colls[c].stream, &s);
		if (rc)
			return rc;
		pt->dev = rank_dev(x, r);
		pt->cc = s->cc;
		n = 1;	/* just the RET the collective's program would end with */
	}
	insns = calloc(n + 1, sizeof(*insns));
	if (!insns)
		return ccore_error(-ENOMEM, "out of memory");
	if (body)
		memcpy(insns, body, (n - 1) * sizeof(*insns));
	pt->done_sem = x->ranks[r].done_first + c;
	insns[n - 1] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_ADD, .sem = pt->done_sem,
						.imm = 1 };
	insns[n] = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_RET };
	rc = ccore_dev_program_load(pt->dev, pt->cc, insns, n + 1, &pt->prog);
	free(insns);
	return rc;
}

static int plan_colls(struct exe_run *x)
{
	const struct ccore_exe *exe = x->exe;
	struct coll_capture cap = { captured, x };
	int rc = 0;

	for (uint32_t r = 0; r < x->n && !rc; r++)
		rc = ccore_dev_sem_alloc(rank_dev(x, r), x->ranks[r].core, exe->ncolls + 1,
						 &x->ranks[r].done_first);
	for (uint32_t c = 0; c < exe->ncolls; c++)
		x->npinned += exe->colls[c].group_count;
	x->pinned = calloc(x->npinned ? x->npinned : 1, sizeof(*x->pinned));
	x->npinned = 0;
	if (!x->pinned)
		return ccore_error(-ENOMEM, "out of memory");
	for (uint32_t r = 0; r < x->n && !rc; r++)
		x->ranks[r].dma_sem = x->ranks[r].done_first + exe->ncolls;
	coll_capture_set(&cap);
	for (uint32_t c = 0; c < exe->ncolls && !rc; c++) {
		const struct ccore_exe_coll *co = &exe->colls[c];

		x->capture_coll = c;
		for (uint32_t i = 0; i < co->group_count * co->group_size && !rc; i++)
			rc = post(x, co->ranks[i], c);
	}
	coll_capture_set(NULL);
	for (uint32_t c = 0; c < exe->ncolls && !rc; c++) {
		const struct ccore_exe_coll *co = &exe->colls[c];

		for (uint32_t i = 0; i < co->group_count * co->group_size && !rc; i++)
			rc = load_part(x, co->ranks[i], c);
	}
	return rc;
}

/* --- compute programs ---------------------------------------------------- */

static int build_rank(struct exe_run *x, uint32_t r)
{
	const struct ccore_exe_rank *er = &x->exe->ranks[r];
	struct rank_run *rr = &x->ranks[r];
	uint32_t *seen = calloc(x->exe->ncolls ? x->exe->ncolls : 1, sizeof(*seen));
	int rc = 0;

	uint32_t fenced = 0;

	/* at most a fence before each instruction, and END */
	rr->prog = calloc(2 * er->ninsns + 1, sizeof(*rr->prog));
	rr->jobs_coll = calloc(er->ninsns ? er->ninsns : 1, sizeof(*rr->jobs_coll));
	rr->job_ids = calloc(er->ninsns ? er->ninsns : 1, sizeof(*rr->job_ids));
	if (!seen || !rr->prog || !rr->jobs_coll || !rr->job_ids) {
		free(seen);
		return ccore_error(-ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < er->ninsns && !rc; i++) {
		const struct ccore_exe_insn *in = &er->insns[i];
		struct drm_ccore_ce_insn *out = &rr->prog[rr->nprog++];
		struct part *pt;

		switch (in->op) {
		case CCORE_EXE_COMPUTE:
			*out = (struct drm_ccore_ce_insn){ .opcode = DRM_CCORE_CE_COMPUTE,
							   .duration_ns = in->duration_ns };
			break;
		case CCORE_EXE_DMA:
			*out = (struct drm_ccore_ce_insn){
				.opcode = DRM_CCORE_CE_DMA, .flags = DRM_CCORE_CE_F_SIGNAL,
				.sem = rr->dma_sem, .value = 1, .len = in->bytes,
				.src = rr->tensor[in->src] + in->src_offset,
				.dst = rr->tensor[in->dst] + in->dst_offset };
			rr->ndma++;
			break;
		case CCORE_EXE_TRIGGER:
			/* a collective sees the bytes of every DMA before it */
			if (fenced < rr->ndma) {
				*out++ = (struct drm_ccore_ce_insn){ .opcode = DRM_CCORE_CE_WAIT_SEM,
								     .sem = rr->dma_sem,
								     .value = rr->ndma };
				rr->nprog++;
				fenced = rr->ndma;
			}
			/* the PTC2 rewritten: a plain write triggering the CC core
			 * the collective's job is queued on */
			pt = part_of(x, r, in->coll);
			*out = (struct drm_ccore_ce_insn){ .opcode = DRM_CCORE_CE_TRIGGER,
							   .cc_core = pt->cc };
			rr->jobs_coll[rr->njobs++] = in->coll;
			seen[in->coll]++;
			break;
		default:	/* WAIT: the latest trigger's completion */
			pt = part_of(x, r, in->coll);
			*out = (struct drm_ccore_ce_insn){ .opcode = DRM_CCORE_CE_WAIT_SEM,
							   .sem = pt->done_sem,
							   .value = seen[in->coll] };
			break;
		}
	}
	free(seen);
	rr->prog[rr->nprog++] = (struct drm_ccore_ce_insn){ .opcode = DRM_CCORE_CE_END };
	if (!rc && rr->ndma) {
		rc = comm_compute_ring_create(x->comm[r], EXE_COMPUTE_ENGINE, rr->ndma, &rr->ring);
		rr->has_ring = !rc;
	}
	return rc;
}

int exe_run_open(const struct ccore_exe *exe, struct exe_run **out)
{
	struct exe_run *x = calloc(1, sizeof(*x));
	int rc;

	*out = NULL;
	if (!x)
		return ccore_error(-ENOMEM, "out of memory");
	x->exe = exe;
	x->n = exe->nranks;
	x->ranks = calloc(x->n, sizeof(*x->ranks));
	x->parts = calloc((size_t)x->n * (exe->ncolls ? exe->ncolls : 1), sizeof(*x->parts));
	x->stats = calloc(exe->ncolls ? exe->ncolls : 1, sizeof(*x->stats));
	if (!x->ranks || !x->parts || !x->stats) {
		rc = ccore_error(-ENOMEM, "out of memory");
		goto fail;
	}
	rc = open_world(x);
	if (rc) {
		free(x->comm);
		x->comm = NULL;
		goto fail;
	}
	for (uint32_t r = 0; r < x->n; r++) {
		x->ranks[r].dev = rank_dev(x, r);
		x->ranks[r].core = x->comm[r]->q->ranks[x->comm[r]->rank].core;
	}
	rc = open_layouts(x) ?: open_tensors(x) ?: plan_colls(x);
	for (uint32_t r = 0; r < x->n && !rc; r++)
		rc = build_rank(x, r);
	if (rc)
		goto fail;
	*out = x;
	return 0;
fail:
	exe_run_close(x);
	return rc;
}

/* --- a step ---------------------------------------------------------------- */

static double wall_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int start_step(struct exe_run *x)
{
	int rc = 0;

	/* completion semaphores count this step's runs from zero */
	for (uint32_t r = 0; r < x->n && !rc; r++)
		for (uint32_t c = 0; c <= x->exe->ncolls && !rc; c++)
			rc = ccore_dev_sem_write(x->ranks[r].dev, x->ranks[r].done_first + c,
						 DRM_CCORE_SEM_SET, 0);
	/* each CC core's jobs in the order its triggers will come */
	for (uint32_t r = 0; r < x->n && !rc; r++) {
		struct rank_run *rr = &x->ranks[r];

		for (uint32_t j = 0; j < rr->njobs && !rc; j++) {
			struct part *pt = part_of(x, r, rr->jobs_coll[j]);

			rc = ccore_dev_submit(pt->dev, pt->prog, 0, &rr->job_ids[j]);
		}
	}
	for (uint32_t r = 0; r < x->n && !rc; r++) {
		struct rank_run *rr = &x->ranks[r];
		uint32_t bad = ~0u;

		rc = ccore_dev_compute_submit(rr->dev, rr->core, rr->prog, rr->nprog,
					      rr->has_ring ? EXE_COMPUTE_ENGINE : 0,
					      rr->has_ring ? rr->ring.ring : 0, 0, &bad);
		if (rc && bad != ~0u)
			rc = ccore_error(rc, "rank %u: compute program instruction %u: %s", r, bad,
					 ccore_last_error());
	}
	return rc;
}

static void add_times(struct exe_run *x, uint32_t r, uint32_t *timed_jobs, double *tp,
		      uint32_t *ntp, double *other, uint32_t *nother)
{
	struct rank_run *rr = &x->ranks[r];

	for (uint32_t j = 0; j < rr->njobs; j++) {
		uint32_t c = rr->jobs_coll[j];
		struct part *pt = part_of(x, r, c);
		struct ccore_job_times t;
		double lat;

		if (ccore_dev_job_times(pt->dev, rr->job_ids[j], &t))
			continue;
		lat = (double)(t.end_ps - t.trigger_ps) / 1e6;
		timed_jobs[c]++;
		x->stats[c].latency_us += lat;
		x->stats[c].run_us += (double)(t.end_ps - t.start_ps) / 1e6;
		if (x->exe->colls[c].stream == 0) {
			*tp += lat;
			(*ntp)++;
		} else {
			*other += lat;
			(*nother)++;
		}
	}
}

int exe_run_step(struct exe_run *x, struct exe_step_stats *st)
{
	bool timed = rt_timed(x->comm[0]->q->rt);
	uint64_t first = UINT64_MAX, last = 0, dma = 0, busy = 0;
	double t0 = wall_us(), tp = 0, other = 0;
	uint32_t ntp = 0, nother = 0, *timed_jobs;
	int rc = start_step(x);

	for (uint32_t r = 0; r < x->n && !rc; r++) {
		struct drm_ccore_compute_wait w;

		rc = ccore_dev_compute_wait(x->ranks[r].dev, x->ranks[r].core, EXE_STEP_TIMEOUT_NS,
					    &w);
		if (!rc && w.status)
			rc = ccore_error(w.status, "rank %u: its instruction stream failed: %s", r,
					 w.status == -ETIMEDOUT ? "timed out" : "DMA error");
		if (rc)
			break;
		first = w.start_ns < first ? w.start_ns : first;
		last = w.end_ns > last ? w.end_ns : last;
		dma += w.dma_bytes;
		busy += w.busy_ns;
	}
	for (uint32_t r = 0; r < x->n && !rc; r++)
		for (uint32_t j = 0; j < x->ranks[r].njobs && !rc; j++) {
			struct part *pt = part_of(x, r, x->ranks[r].jobs_coll[j]);
			int status = 0;

			rc = ccore_dev_job_wait(pt->dev, x->ranks[r].job_ids[j], EXE_STEP_TIMEOUT_NS,
						&status);
			if (!rc && status)
				rc = ccore_error(status, "rank %u: collective %s failed",
						 r, x->exe->colls[x->ranks[r].jobs_coll[j]].name);
		}
	if (rc || !st)
		return rc;
	timed_jobs = calloc(x->exe->ncolls ? x->exe->ncolls : 1, sizeof(*timed_jobs));
	if (!timed_jobs)
		return ccore_error(-ENOMEM, "out of memory");
	memset(x->stats, 0, x->exe->ncolls * sizeof(*x->stats));
	/* every job ran and was waited for, whatever the backend */
	for (uint32_t r = 0; r < x->n; r++)
		for (uint32_t j = 0; j < x->ranks[r].njobs; j++)
			x->stats[x->ranks[r].jobs_coll[j]].jobs++;
	*st = (struct exe_step_stats){ .timed = timed, .compute_dma_bytes = dma,
				       .compute_busy_us = (double)busy / 1e3,
				       .ncolls = x->exe->ncolls, .colls = x->stats };
	st->step_us = timed ? (double)(last - first) / 1e3 : wall_us() - t0;
	if (timed)
		for (uint32_t r = 0; r < x->n; r++)
			add_times(x, r, timed_jobs, &tp, &ntp, &other, &nother);
	for (uint32_t c = 0; c < x->exe->ncolls; c++)
		if (timed_jobs[c]) {
			x->stats[c].latency_us /= timed_jobs[c];
			x->stats[c].run_us /= timed_jobs[c];
		}
	free(timed_jobs);
	st->tp_latency_us = ntp ? tp / ntp : 0;
	st->other_latency_us = nother ? other / nother : 0;
	return 0;
}

/* --- counters ----------------------------------------------------------------- */

static uint64_t ring_bytes(struct ccore_dev *dev, uint32_t handle)
{
	struct drm_ccore_ring_stats s = { .handle = handle };

	return ccore_dev_ring_stats(dev, handle, &s) ? 0 : s.bytes;
}

int exe_run_ring_bytes(struct exe_run *x, uint32_t rank, uint64_t *compute,
		       uint64_t per_stream[CCORE_EXE_MAX_STREAMS])
{
	struct rank_run *rr;
	struct plan *seen[64];
	uint32_t nseen = 0;

	if (rank >= x->n)
		return ccore_error(-EINVAL, "rank %u out of range (0..%u)", rank, x->n - 1);
	rr = &x->ranks[rank];
	*compute = rr->has_ring ? ring_bytes(rr->dev, rr->ring.handle) : 0;
	memset(per_stream, 0, CCORE_EXE_MAX_STREAMS * sizeof(*per_stream));
	for (uint32_t c = 0; c < x->exe->ncolls; c++) {
		struct part *pt = part_of(x, rank, c);
		uint32_t h[16], n;
		bool dup = false;

		if (!pt->plan)
			continue;
		/* collectives of one shape share a plan: count its rings once */
		for (uint32_t i = 0; i < nseen; i++)
			dup |= seen[i] == pt->plan;
		if (dup)
			continue;
		if (nseen < 64)
			seen[nseen++] = pt->plan;
		n = plan_rank_rings(pt->plan, pt->group_rank, h, 16);
		for (uint32_t i = 0; i < n; i++)
			per_stream[x->exe->colls[c].stream] += ring_bytes(pt->dev, h[i]);
	}
	return 0;
}

const struct drm_ccore_ce_insn *exe_run_program(struct exe_run *x, uint32_t rank,
						uint32_t *count)
{
	if (rank >= x->n)
		return NULL;
	*count = x->ranks[rank].nprog;
	return x->ranks[rank].prog;
}

int exe_run_stream_map(struct exe_run *x, struct ccore_stream_map *out)
{
	return ccore_comm_stream_map(x->comm[0], out);
}

void exe_run_close(struct exe_run *x)
{
	if (!x)
		return;
	for (uint32_t r = 0; x->comm && r < x->n; r++) {
		struct rank_run *rr = &x->ranks[r];

		if (rr->has_ring)
			comm_compute_ring_destroy(x->comm[r], &rr->ring);
		for (uint32_t c = 0; c < x->exe->ncolls; c++) {
			struct part *pt = part_of(x, r, c);

			if (pt->prog)
				ccore_dev_program_free(pt->dev, pt->prog);
		}
		if (rr->done_first)
			ccore_dev_sem_free(rr->dev, rr->done_first);
		for (uint32_t t = 0; rr->tensor && t < x->exe->ntensors; t++)
			if (rr->tensor[t])
				ccore_mem_free(x->comm[r], rr->tensor[t]);
		free(rr->tensor);
		free(rr->prog);
		free(rr->jobs_coll);
		free(rr->job_ids);
	}
	for (uint32_t i = 0; i < x->npinned; i++)
		plan_unpin(x->pinned[i]);
	for (uint32_t l = 0; l < x->nlayouts; l++) {
		struct layout *ly = &x->layouts[l];

		for (uint32_t i = 0; ly->stream && i < x->n * CCORE_EXE_MAX_STREAMS; i++)
			if (ly->stream[i])
				ccore_stream_destroy(ly->stream[i]);
		for (uint32_t r = 0; ly->comm && r < x->n; r++)
			if (ly->comm[r])
				ccore_comm_destroy(ly->comm[r]);
		free(ly->comm);
		free(ly->pos);
		free(ly->stream);
	}
	for (uint32_t r = 0; x->comm && r < x->n; r++)
		ccore_comm_destroy(x->comm[r]);
	free(x->comm);
	free(x->layouts);
	free(x->coll_layout);
	free(x->parts);
	free(x->ranks);
	free(x->stats);
	free(x->pinned);
	free(x);
}
