// SPDX-License-Identifier: GPL-2.0
/* Kernel half of the model's OS shim: slab, mutexes, wait queues, kthreads. */
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/fpu/api.h>

#include "ccm_os.h"

void *ccm_zalloc(size_t size)
{
	return kvzalloc(size, GFP_KERNEL);
}

void *ccm_calloc(size_t n, size_t size)
{
	return kvcalloc(n, size, GFP_KERNEL);
}

void ccm_free(void *p)
{
	kvfree(p);
}

void *ccm_big_zalloc(size_t size)
{
	return vzalloc(size);
}

void ccm_big_free(void *p, size_t size)
{
	vfree(p);
}

void ccm_copy_stream(void *dst, const void *src, size_t len)
{
	memcpy(dst, src, len);
}

void ccm_mutex_init(struct ccm_mutex *m)
{
	mutex_init(&m->m);
}

void ccm_mutex_destroy(struct ccm_mutex *m)
{
	mutex_destroy(&m->m);
}

void ccm_mutex_lock(struct ccm_mutex *m)
{
	mutex_lock(&m->m);
}

void ccm_mutex_unlock(struct ccm_mutex *m)
{
	mutex_unlock(&m->m);
}

void ccm_cond_init(struct ccm_cond *c)
{
	init_waitqueue_head(&c->wq);
	c->gen = 0;
}

void ccm_cond_destroy(struct ccm_cond *c)
{
}

static bool cond_moved(struct ccm_cond *c, unsigned long gen)
{
	return READ_ONCE(c->gen) != gen;
}

/* TASK_IDLE: model workers sleep for long stretches without a hung-task
 * report and without counting as load. */
void ccm_cond_wait(struct ccm_cond *c, struct ccm_mutex *m)
{
	unsigned long gen = c->gen;

	mutex_unlock(&m->m);
	wait_event_idle(c->wq, cond_moved(c, gen));
	mutex_lock(&m->m);
}

/*
 * Returns false when the absolute ktime_get_ns() deadline passed.  The
 * model's timed waits are short (about 100 us), hence the hrtimer.
 * Model workers sleep in TASK_IDLE; a host thread (an ioctl waiting for
 * the model) sleeps interruptibly, and a signal ends its sleep as a wake-up
 * would: its wait condition sees the signal.  Not as the deadline would: a
 * wait that must go on although the task was killed (a closing file
 * waiting for its aborted rings) keeps its deadline.
 */
bool ccm_cond_wait_until(struct ccm_cond *c, struct ccm_mutex *m, s64 deadline_ns)
{
	unsigned long gen = c->gen;
	s64 left = deadline_ns - ccm_now_ns();
	long rc;

	if (left <= 0)
		return false;
	mutex_unlock(&m->m);
	if (current->flags & PF_KTHREAD)
		rc = __wait_event_hrtimeout(c->wq, cond_moved(c, gen), ns_to_ktime(left),
					    TASK_IDLE);
	else
		rc = __wait_event_hrtimeout(c->wq, cond_moved(c, gen), ns_to_ktime(left),
					    TASK_INTERRUPTIBLE);
	mutex_lock(&m->m);
	return rc != -ETIME || cond_moved(c, gen);
}

void ccm_cond_broadcast(struct ccm_cond *c)
{
	WRITE_ONCE(c->gen, c->gen + 1);
	wake_up_all(&c->wq);
}

static int thread_trampoline(void *p)
{
	struct ccm_thread *t = p;

	t->fn(t->arg);
	/* The module may be unloaded right after join returns: exit from
	 * core kernel code, not from ours. */
	kthread_complete_and_exit(&t->done, 0);
}

int ccm_thread_start(struct ccm_thread *t, void (*fn)(void *), void *arg)
{
	struct task_struct *task;

	t->fn = fn;
	t->arg = arg;
	init_completion(&t->done);
	task = kthread_run(thread_trampoline, t, "ccore-model");
	if (IS_ERR(task))
		return PTR_ERR(task);
	t->task = task;
	return 0;
}

void ccm_thread_join(struct ccm_thread *t)
{
	wait_for_completion(&t->done);
}

unsigned int ccm_host_cpus(void)
{
	return num_online_cpus();
}

void ccm_fpu_begin(void)
{
	kernel_fpu_begin();
}

void ccm_fpu_end(void)
{
	kernel_fpu_end();
}
