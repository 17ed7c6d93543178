// SPDX-License-Identifier: MIT
/*
 * CC programs and jobs on the sim backend: programs are verified before
 * they reach a CC core's memory and pin, while loaded, the semaphore
 * blocks and the rings they name; a job queues a program for the resident
 * dispatcher; a job that outlives its timeout gets its CC core reset and
 * fails with -ETIMEDOUT instead of hanging.
 */
#include "sim.h"

#include <stdlib.h>

/*
 * Pin what a verified program names, for as long as it is loaded: its
 * semaphores cannot be freed and its rings not destroyed under it.
 */
static int program_pin(struct sim_ctx *c, struct sim_prog *p, const struct drm_ccore_insn *insns,
		       u32 core)
{
	struct sim_ring *r;
	u32 i;
	int rc;

	for (i = 0; i < p->count; i++) {
		const struct drm_ccore_insn *in = &insns[i];

		rc = ccm_insn_uses_sem(in) ? sim_sem_pin(c, &p->sems, in->sem) : 0;
		if (rc)
			return rc;
		if (!ccm_insn_uses_ring(in))
			continue;
		r = sim_ring_find(c, core, in->engine, in->ring);
		rc = r ? sim_set_add(&p->rings, r) : 0;
		if (rc < 0)
			return rc;
		if (rc)
			r->u.programs++;
	}
	return 0;
}

/* Unload @p and drop what it pinned. */
static void program_unload(struct sim_ctx *c, struct sim_prog *p)
{
	u32 i;

	ccm_cc_unload(c->sys->f, c->dev, p->cc, p->base);
	sim_sem_unpin_all(&p->sems);
	for (i = 0; i < p->rings.count; i++)
		((struct sim_ring *)p->rings.items[i])->u.programs--;
	sim_set_fini(&p->rings);
	free(p);
}

int sim_program_load(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_program_load *a = arg;
	const struct ccm_config *cfg = ccm_fabric_config(c->sys->f);
	const struct drm_ccore_insn *insns = (const void *)(uintptr_t)a->insns;
	struct ccm_verify_ctx v = {
		.f = c->sys->f, .dev = c->dev, .vm = &c->vm,
		.sem_owned = sim_sem_usable, .ring_owned = sim_ring_owned, .owner = c,
	};
	struct ccm_err err = { .index = CCM_NO_INDEX };
	struct sim_prog *p;
	int rc;

	a->bad_index = CCM_NO_INDEX;
	rc = ccm_uapi_program_load(cfg, a, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_PROGRAM_LOAD, rc, &err);
	if (!insns)
		return ccore_error(-EFAULT, "PROGRAM_LOAD: insns pointer is NULL");
	v.core = a->cc_core / cfg->cc_cores;
	rc = sim_core_mine(c, DRM_IOCTL_CCORE_PROGRAM_LOAD, v.core);
	if (rc)
		return rc;
	rc = ccm_program_verify(&v, insns, a->count, &err);
	if (rc) {
		ccm_uapi_verify_failed(rc, DRM_CCORE_REASON_INSN_INVALID,
				       DRM_CCORE_REASON_INSN_NOT_OWNED, &err);
		a->bad_index = err.index;
		return sim_fail(DRM_IOCTL_CCORE_PROGRAM_LOAD, rc, &err);
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return ccore_error(-ENOMEM, "PROGRAM_LOAD: out of memory");
	rc = ccm_cc_load(c->sys->f, c->dev, a->cc_core, insns, a->count, &p->base, &err);
	if (rc) {
		free(p);
		return sim_fail(DRM_IOCTL_CCORE_PROGRAM_LOAD, rc, &err);
	}
	p->cc = a->cc_core;
	p->count = a->count;
	rc = program_pin(c, p, insns, v.core) ?: sim_handle_add(&c->progs, p, &a->handle);
	if (rc) {
		program_unload(c, p);
		return ccore_error(rc, "PROGRAM_LOAD: out of memory");
	}
	return 0;
}

int sim_program_free(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_program_free *a = arg;
	struct sim_prog *p = sim_handle_get(&c->progs, a->handle);
	struct ccm_err err;
	int rc;

	/* jobs other processes ran to the end count as ended */
	ccm_fabric_deliver(c->sys->f);
	rc = ccm_uapi_program_free(a, p != NULL,
				   p ? __atomic_load_n(&p->pending, __ATOMIC_ACQUIRE) : 0, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_PROGRAM_FREE, rc, &err);
	sim_handle_remove(&c->progs, a->handle);
	program_unload(c, p);
	return 0;
}

int sim_submit(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_submit *a = arg;
	const struct ccm_config *cfg = ccm_fabric_config(c->sys->f);
	struct ccm_err err = { 0 };
	struct sim_prog *p;
	struct sim_job *j;
	int rc;

	ccm_fabric_deliver(c->sys->f);	/* frees the slots of jobs ended */
	rc = ccm_uapi_submit(a, &err);
	if (!rc && (a->in_syncobj || a->out_syncobj))
		rc = ccm_reject(&err, -EOPNOTSUPP, DRM_CCORE_REASON_SYNCOBJ, 0,
				"syncobjs are a kernel-driver feature; the sim backend waits with JOB_WAIT (set in_syncobj and out_syncobj to 0)");
	p = rc ? NULL : sim_handle_get(&c->progs, a->program);
	if (!rc && !p)
		rc = ccm_uapi_no_handle(DRM_CCORE_REASON_PROGRAM_HANDLE, a->program, &err);
	j = &c->jobs[c->next_seq % SIM_JOB_SLOTS];
	if (!rc && j->seq && !__atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
		rc = ccm_uapi_jobs_full(-EBUSY, SIM_JOB_SLOTS, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_SUBMIT, rc, &err);
	*j = (struct sim_job){
		.seq = c->next_seq, .cc = p->cc, .prog = p,
		.submit_cycles = ccm_cycles(),
		.timeout_ns = (u64)(a->timeout_ms ? a->timeout_ms : cfg->job_timeout_ms) * 1000000,
	};
	__atomic_add_fetch(&p->pending, 1, __ATOMIC_ACQ_REL);
	rc = ccm_cc_enqueue(c->sys->f, c->dev, p->cc, p->base, (u64)(uintptr_t)j, &err);
	if (rc) {
		__atomic_sub_fetch(&p->pending, 1, __ATOMIC_ACQ_REL);
		j->seq = 0;
		return sim_fail(DRM_IOCTL_CCORE_SUBMIT, rc, &err);
	}
	if (a->flags & DRM_CCORE_JOB_F_TRIGGER)
		ccm_cc_trigger(c->sys->f, c->dev, p->cc, 1);
	a->job = c->next_seq++;
	return 0;
}

int sim_cc_trigger(struct sim_ctx *c, void *arg)
{
	struct drm_ccore_cc_trigger *a = arg;
	struct ccm_err err;
	int rc = ccm_uapi_cc_trigger(ccm_fabric_config(c->sys->f), a, &err);

	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_CC_TRIGGER, rc, &err);
	ccm_cc_trigger(c->sys->f, c->dev, a->cc_core, a->count);
	return 0;
}

static bool job_done(void *p)
{
	return __atomic_load_n(&((struct sim_job *)p)->done, __ATOMIC_ACQUIRE);
}

/* A CC core that faulted stays stopped until reset; the driver would
 * reset it from the fault interrupt, the sim does so when the failed job
 * is collected.  Jobs queued behind it fail with -ECANCELED. */
static void recover_faulted(struct sim_ctx *c, u32 cc)
{
	struct ccm_cc_info info;

	ccm_cc_info(c->sys->f, c->dev, cc, &info);
	if (info.state == CCM_CC_FAULT)
		ccm_cc_reset(c->sys->f, c->dev, cc, -ECANCELED);
}

/*
 * When @j's own timeout runs out, on CLOCK_MONOTONIC.  The cycle counters
 * of two CPUs may disagree a little (seen on VMs): a waiter on another CPU
 * than the submitter can read an earlier count than the submit's, which
 * must count as no time passed, not as 2^64 cycles.
 */
static s64 job_deadline_ns(const struct sim_job *j)
{
	u64 now = ccm_cycles();
	u64 since_us = now > j->submit_cycles ?
		       (now - j->submit_cycles) / ccm_cycles_per_us() : 0;

	return ccm_now_ns() - (s64)(since_us * 1000) + (s64)j->timeout_ns;
}

int sim_job_wait(struct sim_ctx *c, struct drm_ccore_job_wait *a)
{
	struct sim_job *j = &c->jobs[a->job % SIM_JOB_SLOTS];
	struct ccm_err err;
	char why[384];
	s64 deadline, own;
	bool done;
	int rc;

	rc = ccm_uapi_job_wait(a, a->job && j->seq == a->job, SIM_JOB_SLOTS, &err);
	if (rc)
		return sim_fail(DRM_IOCTL_CCORE_JOB_WAIT, rc, &err);
	/* done already (small jobs usually are): no clock to read */
	ccm_fabric_deliver(c->sys->f);
	done = job_done(j);
	own = done ? 0 : job_deadline_ns(j);
	deadline = done || a->timeout_ns < own ? a->timeout_ns : own;
	rc = sim_wait_job(c, job_done, j, deadline);
	if (rc == -EPIPE || rc == -EHOSTUNREACH) {
		/* a process or host it may wait for is gone: its CC core is free again */
		ccm_cc_reset(c->sys->f, c->dev, j->cc, rc);
		return rc;
	}
	if (rc && deadline == own) {
		/* The job's own timeout: recover its CC core, fail the job. */
		ccm_cc_reset(c->sys->f, c->dev, j->cc, -ETIMEDOUT);
		rc = 0;
	}
	if (rc)
		return ccore_error(rc, "JOB_WAIT: job %llu still running at the deadline",
				   (unsigned long long)a->job);
	a->status = j->status;
	if (a->status == -EIO)
		recover_faulted(c, j->cc);
	/* a DMA error of the NIC's: the host it could not reach is the news */
	if (a->status == -EIO && sim_net_broken(c->sys, why, sizeof(why)))
		return ccore_error(-EHOSTUNREACH, "JOB_WAIT: job %llu failed: %s",
				   (unsigned long long)a->job, why);
	return 0;
}

int sim_job_times(struct sim_ctx *c, u64 job, struct ccore_job_times *out)
{
	struct sim_job *j = &c->jobs[job % SIM_JOB_SLOTS];

	ccm_fabric_deliver(c->sys->f);
	if (!job || j->seq != job || !__atomic_load_n(&j->done, __ATOMIC_ACQUIRE))
		return ccore_error(-EINVAL, "job times: job %llu is unknown, too old or not finished",
				   (unsigned long long)job);
	out->trigger_ps = j->trigger_ps;
	out->start_ps = j->start_ps;
	out->end_ps = j->end_ps;
	return 0;
}

/* Called with the model stopped: no job can still be running. */
void sim_job_fini(struct sim_ctx *c)
{
	struct sim_prog *p;
	u32 h;

	for (h = 1; h <= c->progs.cap; h++) {
		p = sim_handle_remove(&c->progs, h);
		if (p)
			program_unload(c, p);
	}
	sim_handles_fini(&c->progs);
}
