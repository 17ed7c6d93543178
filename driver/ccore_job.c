// SPDX-License-Identifier: GPL-2.0
/*
 * CC programs and jobs.  A program is verified before it reaches a CC
 * core's memory.  A job queues a program for the core's resident
 * dispatcher and completes through a dma_fence (and, if asked, the
 * syncobj it is put in).  Every job has a timeout: when it passes, the CC
 * core is reset, the fence carries -ETIMEDOUT and the core takes the next
 * job; a job that faults (-EIO) gets its core recovered the same way.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <drm/drm_syncobj.h>

#include "ccore_drv.h"

static const char *job_fence_driver_name(struct dma_fence *fence)
{
	return CCORE_DRIVER_NAME;
}

static const char *job_fence_timeline_name(struct dma_fence *fence)
{
	return "cc-core";
}

/*
 * A job's fence may outlive its file, its device and every other user of
 * the module (in a sync_file or a syncobj): each fence holds a reference on
 * the module so that these ops stay, dropped once the fence is freed after
 * its RCU grace period (ccore_exit() waits for that with rcu_barrier()).
 */
static void job_free_rcu(struct rcu_head *rcu)
{
	struct dma_fence *fence = container_of(rcu, struct dma_fence, rcu);

	kfree(container_of(fence, struct ccore_job, fence));
	module_put(THIS_MODULE);
}

static void job_fence_release(struct dma_fence *fence)
{
	call_rcu(&fence->rcu, job_free_rcu);
}

static const struct dma_fence_ops ccore_job_fence_ops = {
	.get_driver_name = job_fence_driver_name,
	.get_timeline_name = job_fence_timeline_name,
	.release = job_fence_release,
};

/*
 * Job work (start, recovery, timeout) runs here, so that unloading the
 * module can wait until the last of it has returned: a work item may drop
 * the last reference on its job and so on the module (ccore_jobs_exit()).
 */
static struct workqueue_struct *ccore_jobs_wq;

int ccore_jobs_init(void)
{
	ccore_jobs_wq = alloc_workqueue("ccore-jobs", 0, 0);
	return ccore_jobs_wq ? 0 : -ENOMEM;
}

/* After the last job fence is gone: nothing can queue work any more. */
void ccore_jobs_exit(void)
{
	destroy_workqueue(ccore_jobs_wq);
	/* the fences' RCU frees, each putting the module, have all run */
	rcu_barrier();
}

static void job_put(struct ccore_job *job)
{
	dma_fence_put(&job->fence);
}

/* Count @job among the file's unfinished jobs, if there is room. */
static int job_activate(struct ccore_file *cfile, struct ccore_job *job, struct ccm_err *err)
{
	int rc = 0;

	spin_lock_irq(&cfile->active_lock);
	if (cfile->nactive >= CCORE_JOBS_ACTIVE_MAX) {
		rc = ccm_uapi_jobs_full(-EAGAIN, CCORE_JOBS_ACTIVE_MAX, err);
	} else {
		list_add_tail(&job->active, &cfile->active);
		cfile->nactive++;
	}
	spin_unlock_irq(&cfile->active_lock);
	return rc;
}

/*
 * The job has finished and nothing runs on its behalf any more (recovery
 * included): it no longer reaches its program, its file or its device.
 * The file's close waits for this, whether the job is still in the job
 * history or not.
 */
static void job_retire(struct ccore_job *job)
{
	struct ccore_file *cfile = job->cfile;
	struct dma_fence *in;
	unsigned long flags;

	spin_lock_irqsave(&cfile->active_lock, flags);
	in = job->in_fence;
	job->in_fence = NULL;
	list_del_init(&job->active);
	/* woken under the lock: the closing file may go once it sees none */
	if (!--cfile->nactive)
		wake_up_all(&cfile->active_done);
	spin_unlock_irqrestore(&cfile->active_lock, flags);
	dma_fence_put(in);
}

/*
 * Pin what a verified program names, for as long as it is loaded: its
 * semaphores cannot be freed and its rings not destroyed under it.
 * Called with hw->lock held.
 */
static int program_pin(struct ccore_file *cfile, struct ccore_program *p,
		       const struct drm_ccore_insn *insns)
{
	struct ccore_hw *hw = cfile->cdev->hw;
	u32 core = p->cc / hw->cfg.cc_cores;
	struct ccore_ring *r, **rings;
	u32 i, k;
	int rc;

	for (i = 0; i < p->count; i++) {
		const struct drm_ccore_insn *in = &insns[i];

		if (ccm_insn_uses_sem(in)) {
			rc = ccore_sem_pin(hw, &p->sems, in->sem);
			if (rc)
				return rc;
		}
		if (!ccm_insn_uses_ring(in))
			continue;
		r = ccore_ring_find(cfile, core, in->engine, in->ring);
		for (k = 0; r && k < p->nrings; k++)
			if (p->rings[k] == r)
				r = NULL;
		if (!r)
			continue;
		rings = krealloc_array(p->rings, p->nrings + 1, sizeof(*rings), GFP_KERNEL);
		if (!rings)
			return -ENOMEM;
		p->rings = rings;
		p->rings[p->nrings++] = r;
		r->u.programs++;
	}
	return 0;
}

/* Unload @p and drop what it pinned; called with hw->lock held. */
static void program_unload(struct ccore_device *cdev, struct ccore_program *p)
{
	struct ccore_hw *hw = cdev->hw;
	u32 k;

	hw->ops->cc_unload(hw, cdev->index, p->cc, p->base);
	ccore_sem_unpin_all(hw, &p->sems);
	for (k = 0; k < p->nrings; k++)
		p->rings[k]->u.programs--;
	kfree(p->rings);
	kfree(p);
}

int ccore_ioctl_program_load(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_program_load *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccm_verify_ctx v = {
		.dev = cdev->index, .vm = &cfile->vm, .sem_owned = ccore_sem_usable,
		.ring_owned = ccore_ring_owned, .owner = cfile,
	};
	struct ccm_err err = { .index = CCM_NO_INDEX };
	struct drm_ccore_insn *insns;
	struct ccore_program *p;
	int rc;

	a->bad_index = CCM_NO_INDEX;
	rc = ccm_uapi_program_load(&hw->cfg, a, &err);
	if (rc)
		return ccore_reject(file, "PROGRAM_LOAD", rc, &err);
	insns = vmemdup_array_user(u64_to_user_ptr(a->insns), a->count, sizeof(*insns));
	if (IS_ERR(insns))
		return PTR_ERR(insns);
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		kvfree(insns);
		return -ENOMEM;
	}
	v.core = a->cc_core / hw->cfg.cc_cores;
	mutex_lock(&hw->lock);
	rc = hw->ops->program_verify(hw, &v, insns, a->count, &err);
	if (rc)
		ccm_uapi_verify_failed(rc, DRM_CCORE_REASON_INSN_INVALID,
				       DRM_CCORE_REASON_INSN_NOT_OWNED, &err);
	else
		rc = hw->ops->cc_load(hw, cdev->index, a->cc_core, insns, a->count, &p->base,
				      &err);
	if (!rc) {
		p->cc = a->cc_core;
		p->count = a->count;
		rc = program_pin(cfile, p, insns);
		if (!rc)
			rc = xa_alloc(&cfile->programs, &a->handle, p, xa_limit_32b, GFP_KERNEL);
		if (rc)
			program_unload(cdev, p);
		p = NULL;
	} else {
		a->bad_index = err.index;
		rc = ccore_reject(file, "PROGRAM_LOAD", rc, &err);
	}
	mutex_unlock(&hw->lock);
	kfree(p);
	kvfree(insns);
	return rc;
}

int ccore_ioctl_program_free(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_program_free *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccore_program *p;
	struct ccm_err err = {};
	int rc;

	mutex_lock(&hw->lock);
	p = xa_load(&cfile->programs, a->handle);
	rc = ccm_uapi_program_free(a, !!p, p ? atomic_read(&p->pending) : 0, &err);
	if (!rc) {
		xa_erase(&cfile->programs, a->handle);
		program_unload(cdev, p);
	}
	mutex_unlock(&hw->lock);
	return rc ? ccore_reject(file, "PROGRAM_FREE", rc, &err) : 0;
}

/*
 * A faulted core stays stopped until reset.  The failed job's fence is
 * signalled first, so the reset may come after its owner has already
 * queued the next job: whoever queues a job or recovers the core resets
 * it if it is still faulted, under hw->lock, so a job queued after one
 * reset is never dropped by another.
 */
static void cc_recover(struct ccore_device *cdev, u32 cc)
{
	struct ccore_hw *hw = cdev->hw;
	struct ccm_cc_info info;

	mutex_lock(&hw->lock);
	hw->ops->cc_info(hw, cdev->index, cc, &info);
	if (info.state == CCM_CC_FAULT) {
		hw->ops->cc_reset(hw, cdev->index, cc, -ECANCELED);
		atomic64_inc(&cdev->recoveries);
		ccore_genl_event(cdev, CCORE_EVENT_CC_RECOVERED, cc, -EIO);
	}
	mutex_unlock(&hw->lock);
}

/* Recover outside the model's completion path, which must not re-enter
 * the model.
 */
static void job_recover_work(struct work_struct *work)
{
	struct ccore_job *job = container_of(work, struct ccore_job, start);

	cc_recover(job->cdev, job->cc);
	job_retire(job);
	job_put(job);
}

/**
 * ccore_job_done() - the hardware finished a job
 * @hw: its fabric
 * @cookie: the job, as given to cc_enqueue
 * @status: 0, or the negative errno the job failed with
 *
 * Drops the reference the hardware held.
 */
void ccore_job_done(struct ccore_hw *hw, u64 cookie, int status)
{
	struct ccore_job *job = (struct ccore_job *)(uintptr_t)cookie;

	if (status)
		dma_fence_set_error(&job->fence, status);
	dma_fence_signal(&job->fence);
	atomic_dec(&job->program->pending);
	if (cancel_delayed_work(&job->timeout))
		job_put(job);
	if (status == -EIO) {
		atomic64_inc(&job->cdev->dma_errors);
		ccore_genl_job_event(job->cdev, CCORE_EVENT_DMA_ERROR, job->cc, status, job->id);
		/* the hardware's reference moves to the recovery work */
		INIT_WORK(&job->start, job_recover_work);
		queue_work(ccore_jobs_wq, &job->start);
		return;
	}
	job_retire(job);
	job_put(job);
}

static void job_timeout_work(struct work_struct *work)
{
	struct ccore_job *job = container_of(to_delayed_work(work), struct ccore_job, timeout);
	struct ccore_device *cdev = job->cdev;

	if (!dma_fence_is_signaled(&job->fence)) {
		drm_info(&cdev->drm, "job %llu on CC core %u timed out; resetting the core\n",
			 job->id, job->cc);
		atomic64_inc(&cdev->job_timeouts);
		ccore_genl_job_event(cdev, CCORE_EVENT_JOB_TIMEOUT, job->cc, -ETIMEDOUT, job->id);
		cdev->hw->ops->cc_reset(cdev->hw, cdev->index, job->cc, -ETIMEDOUT);
		atomic64_inc(&cdev->recoveries);
		ccore_genl_job_event(cdev, CCORE_EVENT_CC_RECOVERED, job->cc, -ETIMEDOUT,
				     job->id);
	}
	job_put(job);
}

/*
 * Hand the job to its CC core, which takes the caller's reference; on
 * failure (the core's queue is full) the caller keeps it.
 */
static int job_enqueue(struct ccore_job *job)
{
	struct ccore_hw *hw = job->cdev->hw;
	struct ccm_err err = {};
	int rc;

	cc_recover(job->cdev, job->cc);
	/* the timeout's reference; it may be armed after the job finished */
	dma_fence_get(&job->fence);
	rc = hw->ops->cc_enqueue(hw, job->cdev->index, job->cc, job->program->base,
				 (u64)(uintptr_t)job, &err);
	if (rc) {
		dma_fence_put(&job->fence);
		return ccore_fail(job->cdev, "SUBMIT", rc, &err);
	}
	queue_delayed_work(ccore_jobs_wq, &job->timeout, msecs_to_jiffies(job->timeout_ms));
	/*
	 * Done already (ccore_job_done() found no timeout to cancel): a
	 * timeout left armed would hold the module for as long as it runs.
	 */
	if (dma_fence_is_signaled(&job->fence) && cancel_delayed_work(&job->timeout))
		dma_fence_put(&job->fence);
	if (job->trigger) {
		hw->ops->cc_trigger(hw, job->cdev->index, job->cc, 1);
		hw->ops->kick(hw);
	}
	return 0;
}

static void job_start_work(struct work_struct *work)
{
	struct ccore_job *job = container_of(work, struct ccore_job, start);
	int rc = -ECANCELED;

	/* the input fence is put when the job retires: close may look at it */
	if (!READ_ONCE(job->cfile->closing))
		rc = job_enqueue(job);
	if (rc)
		ccore_job_done(job->cdev->hw, (u64)(uintptr_t)job, rc);
}

static void job_in_fence_signalled(struct dma_fence *fence, struct dma_fence_cb *cb)
{
	struct ccore_job *job = container_of(cb, struct ccore_job, in_cb);

	queue_work(ccore_jobs_wq, &job->start);
}

static struct ccore_job *job_new(struct ccore_device *cdev, struct ccore_file *cfile,
				 struct ccore_program *p)
{
	struct ccore_job *job = kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT);

	if (!job)
		return NULL;
	/* the ioctl's file pins the module; the fence pins it from now on */
	__module_get(THIS_MODULE);
	spin_lock_init(&job->lock);
	INIT_LIST_HEAD(&job->active);
	job->cdev = cdev;
	job->cfile = cfile;
	job->program = p;
	job->cc = p->cc;
	dma_fence_init(&job->fence, &ccore_job_fence_ops, &job->lock,
		       cdev->fence_context + p->cc, atomic64_inc_return(&cdev->fence_seqno));
	INIT_DELAYED_WORK(&job->timeout, job_timeout_work);
	INIT_WORK(&job->start, job_start_work);
	return job;
}

/* Record the job under its id; the oldest beyond the history goes. */
static void job_record(struct ccore_file *cfile, struct ccore_job *job)
{
	struct ccore_job *old;

	job->id = cfile->next_job++;
	dma_fence_get(&job->fence);
	if (xa_err(xa_store(&cfile->jobs, job->id, job, GFP_KERNEL))) {
		job_put(job);
		return;
	}
	if (job->id > CCORE_JOB_HISTORY) {
		old = xa_erase(&cfile->jobs, job->id - CCORE_JOB_HISTORY);
		if (old)
			job_put(old);
	}
}

static int job_syncobjs(struct drm_file *file, struct drm_ccore_submit *a, struct ccore_job *job,
			struct ccm_err *err)
{
	struct drm_syncobj *out;
	int rc;

	if (a->in_syncobj) {
		rc = drm_syncobj_find_fence(file, a->in_syncobj, 0, 0, &job->in_fence);
		if (rc)
			return ccm_reject(err, rc, DRM_CCORE_REASON_SYNCOBJ, 0,
					  "in_syncobj %u does not exist or has no fence",
					  a->in_syncobj);
	}
	if (a->out_syncobj) {
		out = drm_syncobj_find(file, a->out_syncobj);
		if (!out)
			return ccm_reject(err, -ENOENT, DRM_CCORE_REASON_SYNCOBJ, 0,
					  "out_syncobj %u does not exist", a->out_syncobj);
		drm_syncobj_replace_fence(out, &job->fence);
		drm_syncobj_put(out);
	}
	return 0;
}

int ccore_ioctl_submit(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_submit *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct ccore_program *p;
	struct ccm_err err = {};
	struct ccore_job *job;
	int rc;

	rc = ccm_uapi_submit(a, &err);
	if (rc)
		return ccore_reject(file, "SUBMIT", rc, &err);
	mutex_lock(&hw->lock);
	p = xa_load(&cfile->programs, a->program);
	job = p ? job_new(cdev, cfile, p) : NULL;
	if (!job) {
		mutex_unlock(&hw->lock);
		if (p)
			return -ENOMEM;
		rc = ccm_uapi_no_handle(DRM_CCORE_REASON_PROGRAM_HANDLE, a->program, &err);
		return ccore_reject(file, "SUBMIT", rc, &err);
	}
	job->trigger = a->flags & DRM_CCORE_JOB_F_TRIGGER;
	job->timeout_ms = a->timeout_ms ? a->timeout_ms : hw->cfg.job_timeout_ms;
	rc = job_activate(cfile, job, &err);
	if (!rc) {
		rc = job_syncobjs(file, a, job, &err);
		if (rc)
			job_retire(job);
	}
	if (rc) {
		mutex_unlock(&hw->lock);
		dma_fence_put(job->in_fence);
		job_put(job);
		return ccore_reject(file, "SUBMIT", rc, &err);
	}
	atomic_inc(&p->pending);
	job_record(cfile, job);
	a->job = job->id;
	mutex_unlock(&hw->lock);

	if (job->in_fence &&
	    !dma_fence_add_callback(job->in_fence, &job->in_cb, job_in_fence_signalled))
		return 0;	/* job_start_work enqueues it */
	rc = job_enqueue(job);
	if (rc) {
		/* not queued: the job never was; its fence fails for syncobj waiters */
		mutex_lock(&hw->lock);
		if (xa_erase(&cfile->jobs, job->id))
			job_put(job);
		mutex_unlock(&hw->lock);
		atomic_dec(&p->pending);
		dma_fence_set_error(&job->fence, rc);
		dma_fence_signal(&job->fence);
		job_retire(job);
		job_put(job);
	}
	return rc;
}

struct job_wait_arg {
	struct dma_fence *fence;
};

static bool job_finished(void *p)
{
	struct job_wait_arg *w = p;

	return dma_fence_is_signaled(w->fence) || signal_pending(current);
}

int ccore_ioctl_job_wait(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_job_wait *a = data;
	struct ccore_hw *hw = cdev->hw;
	struct job_wait_arg w = {};
	struct ccm_err err = {};
	struct ccore_job *job;
	int rc;

	mutex_lock(&hw->lock);
	job = a->pad ? NULL : xa_load(&cfile->jobs, a->job);
	if (job)
		w.fence = dma_fence_get(&job->fence);
	mutex_unlock(&hw->lock);
	rc = ccm_uapi_job_wait(a, !!job, CCORE_JOB_HISTORY, &err);
	if (rc)
		return ccore_reject(file, "JOB_WAIT", rc, &err);
	/* a job's own timeout resets its core: the wait ends by then */
	rc = hw->ops->wait(hw, job_finished, &w, max_t(s64, a->timeout_ns, 0));
	if (dma_fence_is_signaled(w.fence)) {
		a->status = w.fence->error;
		rc = 0;
	} else if (signal_pending(current)) {
		rc = -ERESTARTSYS;
	}
	dma_fence_put(w.fence);
	return rc;
}

int ccore_ioctl_cc_trigger(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct drm_ccore_cc_trigger *a = data;
	struct ccm_err err = {};
	int rc = ccm_uapi_cc_trigger(&cdev->hw->cfg, a, &err);

	if (rc)
		return ccore_reject(file, "CC_TRIGGER", rc, &err);
	cdev->hw->ops->cc_trigger(cdev->hw, cdev->index, a->cc_core, a->count);
	cdev->hw->ops->kick(cdev->hw);
	return 0;
}

/*
 * Cancel @job if it still waits for its input fence: its start work sees
 * the file closing.  The input fence is taken under the lock that retiring
 * the job puts it with.
 */
static void job_cancel_start(struct ccore_file *cfile, struct ccore_job *job)
{
	struct dma_fence *in;

	spin_lock_irq(&cfile->active_lock);
	in = job->in_fence ? dma_fence_get(job->in_fence) : NULL;
	spin_unlock_irq(&cfile->active_lock);
	if (in && dma_fence_remove_callback(in, &job->in_cb))
		queue_work(ccore_jobs_wq, &job->start);
	dma_fence_put(in);
}

/*
 * The next unfinished job of @cfile from @todo (where the caller moved the
 * file's list) with a reference held, or NULL.  Jobs retire meanwhile (the
 * caller may sleep between calls); none are added, the file being closed.
 */
static struct ccore_job *job_next_active(struct ccore_file *cfile, struct list_head *todo)
{
	struct ccore_job *job;

	spin_lock_irq(&cfile->active_lock);
	job = list_first_entry_or_null(todo, struct ccore_job, active);
	if (job) {
		/* back on the file's list: retiring takes it off either */
		list_move_tail(&job->active, &cfile->active);
		dma_fence_get(&job->fence);
	}
	spin_unlock_irq(&cfile->active_lock);
	return job;
}

static void jobs_take_active(struct ccore_file *cfile, struct list_head *todo)
{
	spin_lock_irq(&cfile->active_lock);
	list_splice_init(&cfile->active, todo);
	spin_unlock_irq(&cfile->active_lock);
}

static void job_reset_core(struct ccore_file *cfile, struct ccore_job *job)
{
	struct ccore_hw *hw = cfile->cdev->hw;

	if (!dma_fence_is_signaled(&job->fence))
		hw->ops->cc_reset(hw, cfile->cdev->index, job->cc, -ECANCELED);
}

static bool jobs_retired(struct ccore_file *cfile)
{
	bool none;

	spin_lock_irq(&cfile->active_lock);
	none = !cfile->nactive;
	spin_unlock_irq(&cfile->active_lock);
	return none;
}

/*
 * At close nothing may keep running for the file, however many jobs it
 * submitted since (the job history forgets old ones, this does not): jobs
 * still waiting for an input fence are cancelled, and every CC core with
 * one of its jobs queued or running is reset (other files' jobs queued
 * there fail too: CC cores are shared, and a core cannot drop one job from
 * its queue).  A reset fails the jobs at once, so the wait is short; only
 * then do the programs go.
 */
void ccore_jobs_fini(struct ccore_file *cfile)
{
	struct ccore_device *cdev = cfile->cdev;
	struct ccore_hw *hw = cdev->hw;
	struct ccore_program *p;
	struct ccore_job *job;
	unsigned long id;
	LIST_HEAD(todo);

	jobs_take_active(cfile, &todo);
	while ((job = job_next_active(cfile, &todo))) {
		job_cancel_start(cfile, job);
		job_put(job);
	}
	/* one wait for all their start work, however many jobs a file has */
	flush_workqueue(ccore_jobs_wq);
	/* cancelled ones are done: the rest are queued or running */
	jobs_take_active(cfile, &todo);
	while ((job = job_next_active(cfile, &todo))) {
		job_reset_core(cfile, job);
		job_put(job);
	}
	while (!wait_event_timeout(cfile->active_done, jobs_retired(cfile), 10 * HZ))
		drm_warn(&cdev->drm, "closing file still has %u jobs running after a reset\n",
			 cfile->nactive);
	xa_for_each(&cfile->jobs, id, job) {
		if (cancel_delayed_work_sync(&job->timeout))
			job_put(job);
		job_put(job);
	}
	xa_destroy(&cfile->jobs);
	mutex_lock(&hw->lock);
	xa_for_each(&cfile->programs, id, p)
		program_unload(cdev, p);
	mutex_unlock(&hw->lock);
	xa_destroy(&cfile->programs);
}
