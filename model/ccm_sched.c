// SPDX-License-Identifier: GPL-2.0
/*
 * The model's scheduler: CC cores and DMA engines are agents stepped by a
 * small pool of workers sized to the host, not one thread per engine.  With
 * zero workers the model runs inline on the thread that waits, picking the
 * next ready agent with a seeded generator: deterministic for a given seed.
 *
 * A host thread that waits for the model (or has just triggered work) runs
 * ready agents itself; workers take heavy DMA work at once and leave light
 * work to the host threads for a while (CCM_STEAL_AGE_NS), so small
 * collectives need no hand-off between threads and big ones still spread
 * over the pool.
 * Each step is bounded (a few packets, a few dozen instructions) so agents
 * share workers fairly; the timed mode replaces the run queue with an
 * event queue ordered by virtual time and reuses the same step functions.
 */
#include "ccm_internal.h"

enum ccm_step_result ccm_agent_step(struct ccm_agent *a)
{
	if (a->kind == CCM_AGENT_ENGINE)
		return ccm_engine_step((struct ccm_engine *)a);
	if (a->kind == CCM_AGENT_COMPUTE)
		return ccm_compute_step((struct ccm_compute *)a);
	return ccm_cc_step((struct ccm_cc *)a);
}

/*
 * @fresh: just woken (a helping host gets it first); else long-running.
 * Woken by a step, it takes the time its runner noted lately (the cycle
 * counter costs as much as a light step here): stale by a few light steps
 * or one heavy one at most, so it only looks older than it is.
 */
static void queue_push(struct ccm_sched *s, struct ccm_agent *a, bool fresh)
{
	u64 stamp = 0;

	if (fresh)
		stamp = s->running ? s->recent : ccm_cycles();
	/* worth_locking() and own_turn_hint() peek at them without the lock */
	__atomic_store_n(&s->stamp[(s->head + s->count) % s->cap], stamp, __ATOMIC_RELAXED);
	__atomic_store_n(&s->queue[(s->head + s->count) % s->cap], a, __ATOMIC_RELAXED);
	__atomic_store_n(&s->count, s->count + 1, __ATOMIC_RELEASE);	/* spinners read it */
}

static u64 xorshift64(u64 *state)
{
	u64 x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

/* FIFO with workers; seeded random choice inline. */
static struct ccm_agent *queue_pop(struct ccm_sched *s)
{
	struct ccm_fabric *f = s->f;
	struct ccm_agent *a;
	u32 pick, slot, head_slot;

	if (f->cfg.workers == 0 && s->count > 1) {
		pick = (u32)(xorshift64(&s->rng) % s->count);
		slot = (s->head + pick) % s->cap;
		head_slot = s->head;
		a = s->queue[slot];
		s->queue[slot] = s->queue[head_slot];
		__atomic_store_n(&s->stamp[slot], s->stamp[head_slot], __ATOMIC_RELAXED);
	} else {
		a = s->queue[s->head];
	}
	__atomic_store_n(&s->head, (s->head + 1) % s->cap, __ATOMIC_RELAXED);
	__atomic_store_n(&s->count, s->count - 1, __ATOMIC_RELEASE);
	return a;
}

void ccm_agent_wake(struct ccm_agent *a)
{
	ccm_agent_wake_heavy(a, false);
}

void ccm_agent_wake_after(struct ccm_agent *a, u64 delay_ps)
{
	struct ccm_fabric *f = a->f;

	if (!ccm_timed(f)) {
		ccm_agent_wake_heavy(a, false);
		return;
	}
	ccm_agent_wake_at(a, f->tm.cur + delay_ps);
}

void ccm_agent_wake_at(struct ccm_agent *a, u64 at)
{
	struct ccm_fabric *f = a->f;

	ccm_mutex_lock(&f->sched.lock);
	ccm_timed_wake(a, at);
	ccm_mutex_unlock(&f->sched.lock);
}

/*
 * The wakes a step makes on this thread, pushed when it ends: one trip
 * through the scheduler lock for all of them instead of one each (a small
 * collective's steps wake about one agent apiece).
 */
struct wake_batch {
	struct ccm_sched *s;
	u32 n;
	struct ccm_agent *a[16];
	bool heavy[16];
};

#ifdef CCM_THREAD_LOCAL
static CCM_THREAD_LOCAL struct wake_batch *step_wakes;
#endif

static bool defer_wake(struct ccm_sched *s, struct ccm_agent *a, bool heavy)
{
#ifdef CCM_THREAD_LOCAL
	struct wake_batch *b = step_wakes;

	if (b && b->s == s && b->n < CCM_ARRAY_SIZE(b->a)) {
		b->a[b->n] = a;
		b->heavy[b->n++] = heavy;
		return true;
	}
#endif
	return false;
}

/* Queue @a; with the scheduler lock held. */
static void queue_and_wake(struct ccm_sched *s, struct ccm_agent *a, bool heavy)
{
	queue_push(s, a, !heavy);
	/* light work is left to host threads (a host that stops helping
	 * nudges the workers: ccm_fabric_nudge); sleeping workers look again
	 * on their own (see worker_main) */
	if (s->sleepers && heavy)
		ccm_cond_broadcast(&s->work);
}

/* Wake @a; with the scheduler lock held. */
static void wake_locked(struct ccm_sched *s, struct ccm_agent *a, bool heavy)
{
	if (a->state == CCM_AGENT_IDLE) {
		a->state = CCM_AGENT_QUEUED;
		queue_and_wake(s, a, heavy);
	} else if (a->state == CCM_AGENT_RUNNING) {
		a->rerun = true;
	}
}

static void host_kick_one(struct ccm_sched *s, bool fence);

/*
 * An agent of another process of a shared fabric: unless host threads
 * of that process poll (they, or another process's, run it), its workers
 * may all sleep and no thread of theirs helps, so it is theirs at once
 * (heavy) and they are woken (a futex in shared memory).
 */
static void wake_remote(struct ccm_sched *s, struct ccm_agent *a)
{
	ccm_mutex_lock(&s->lock);
	if (!s->stop)
		wake_locked(s, a, !ccm_hosts_polling(s));
	ccm_mutex_unlock(&s->lock);
	/* its host threads poll their queue or sleep on @host */
	host_kick_one(s, true);
}

void ccm_agent_wake_heavy(struct ccm_agent *a, bool heavy)
{
	struct ccm_sched *s = ccm_agent_sched(a);

	if (ccm_timed(a->f)) {
		ccm_agent_wake_after(a, 0);
		return;
	}
	if (!s)
		return;		/* unclaimed: woken when claimed (ccm_core_claim()) */
	if (defer_wake(s, a, heavy))
		return;
	if (a->f->procs && s != ccm_my_sched(a->f)) {
		wake_remote(s, a);
		return;
	}
	ccm_mutex_lock(&s->lock);
	wake_locked(s, a, heavy);
	ccm_mutex_unlock(&s->lock);
}

static void host_kick_one(struct ccm_sched *s, bool fence)
{
	/* Pairs with the increment in ccm_fabric_wait(): either the waiter
	 * sees our state change or we see the waiter. */
#ifdef CCM_OS_PTHREAD
	/* ThreadSanitizer has no fences; a locked read-modify-write is one */
	(void)fence;
	if (!__atomic_fetch_add(&s->host_waiters, 0, __ATOMIC_SEQ_CST))
		return;
#else
	if (fence)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&s->host_waiters, __ATOMIC_SEQ_CST))
		return;
#endif
	/* polling waiters only need the generation to move */
	__atomic_add_fetch(&s->gen, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&s->host_sleepers, __ATOMIC_SEQ_CST))
		return;
	ccm_mutex_lock(&s->lock);
	ccm_cond_broadcast(&s->host);
	ccm_mutex_unlock(&s->lock);
}

/*
 * @progress: a semaphore or ring changed, which on a shared fabric only
 * waiters for more than a job's end care about: waking every process's
 * waiters for each of a collective's semaphore steps made each step write
 * a cache line every process polls.  Never in timed mode (its callers see to that).
 */
static void host_kick(struct ccm_fabric *f, bool fence, bool progress)
{
	struct ccm_sched *s;
	u64 live;
	u32 i;

	if (!f->procs) {
		host_kick_one(&f->sched, fence);
		return;
	}
	/* pairs with the increment in fabric_wait(); ThreadSanitizer has no
	 * fences, and refuses shared fabrics (ccm_shared_user.c) */
#ifndef CCM_OS_PTHREAD
	if (progress)
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
	/* a shared fabric: what changed may be waited for in any process */
	for (live = ccm_load64(&f->live); live; live &= live - 1) {
		i = (u32)__builtin_ctzll(live);
		s = &f->procs[i].sched;
		if (__atomic_load_n(&f->procs[i].state, __ATOMIC_ACQUIRE) != CCM_PROC_LIVE ||
		    (progress && !__atomic_load_n(&s->host_progress_waiters, __ATOMIC_SEQ_CST)))
			continue;
		host_kick_one(s, fence);
	}
}

/*
 * Timed mode kicks nobody: whoever waits runs the model inline.  Tested
 * here, before any call: a semaphore's every change kicks.
 */
void ccm_host_kick(struct ccm_fabric *f)
{
	if (!ccm_timed(f))
		host_kick(f, true, false);
}

void ccm_host_kick_sc(struct ccm_fabric *f)
{
	if (!ccm_timed(f))
		host_kick(f, false, true);
}

void ccm_host_kick_sched(struct ccm_sched *s)
{
	if (!ccm_timed(s->f))
		host_kick_one(s, true);
}

void ccm_host_kick_mine(struct ccm_fabric *f)
{
	if (ccm_timed(f))
		return;
	if (!f->procs)
		host_kick(f, true, false);
	else if (ccm_my_sched(f))
		host_kick_one(ccm_my_sched(f), true);
}

/* Agents ready to run (timed: events queued); with the lock held. */
static u32 pending(struct ccm_sched *s)
{
	return ccm_timed(s->f) ? ccm_timed_pending(s->f) : s->count;
}

/*
 * Does an agent that may run again go back heavy (workers take it at once,
 * a sleeping one is woken through the kernel)?  Not while host threads of
 * its queue poll or help (ccm_fabric_help()), if it only stopped to report
 * or another process stepped it: they, or a thief, run it next.  (A CC
 * core's step after each job's end taken by a worker on another CPU made
 * a small collective in one process take 12 µs instead of 3.3 every other
 * run; a sleeping worker woken for it cost a futex call a step.)
 */
static bool requeue_heavy(struct ccm_sched *s, enum ccm_step_result r,
			  struct ccm_agent **stepping)
{
	if (r == CCM_STEP_BLOCKED)
		return false;
	if (r == CCM_STEP_RUNNABLE && !stepping)
		return true;
	return !ccm_hosts_polling(s) && !s->helping;
}

void ccm_sched_run_noted(struct ccm_sched *s, struct ccm_agent **stepping)
{
	struct ccm_fabric *f = s->f;
	struct ccm_agent *a;
	enum ccm_step_result r;

	if (ccm_timed(f)) {
		ccm_timed_run_one(f);
		return;
	}
	a = queue_pop(s);
	a->state = CCM_AGENT_RUNNING;
	a->rerun = false;
	s->running++;
	if (stepping)
		__atomic_store_n(stepping, a, __ATOMIC_RELEASE);
#ifdef CCM_THREAD_LOCAL
	struct wake_batch wakes = { .s = s }, *outer = step_wakes;

	step_wakes = &wakes;
#endif
	ccm_mutex_unlock(&s->lock);
	if (stepping)
		ccm_steal_stepping();

	r = ccm_agent_step(a);

	ccm_mutex_lock(&s->lock);
#ifdef CCM_THREAD_LOCAL
	step_wakes = outer;
	for (u32 i = 0; i < wakes.n; i++)
		wake_locked(s, wakes.a[i], wakes.heavy[i]);
#endif
	s->running--;
	if (r != CCM_STEP_BLOCKED || a->rerun) {
		a->state = CCM_AGENT_QUEUED;
		queue_and_wake(s, a, requeue_heavy(s, r, stepping));
	} else {
		a->state = CCM_AGENT_IDLE;
	}
	if (stepping)
		__atomic_store_n(stepping, NULL, __ATOMIC_RELEASE);
}

/*
 * Run one agent step; called with the scheduler lock held, drops it and
 * takes it again.
 */
static void run_one(struct ccm_sched *s)
{
	ccm_sched_run_noted(s, NULL);
}

static bool agent_stealable(const struct ccm_agent *a)
{
	/* a compute engine reports to its own process's host; a CC core
	 * holding all the news it can waits for its owner; an engine that
	 * sends to other hosts is its owner's: another process's thread
	 * cannot reach the owner's network, its post would wait for the
	 * owner's pump to wake (ccm_nic.c) */
	if (a->kind == CCM_AGENT_ENGINE)
		return !__atomic_load_n(&((const struct ccm_engine *)a)->nic_user, __ATOMIC_RELAXED);
	return a->kind != CCM_AGENT_COMPUTE &&
	       (a->kind != CCM_AGENT_CC || !ccm_cc_news_full((const struct ccm_cc *)a));
}

bool ccm_sched_head_stealable(struct ccm_sched *s)
{
	return agent_stealable(s->queue[s->head]);
}

/*
 * How long light work may wait at the head of its process's queue for the
 * process stepping everyone's before the owner's waiting thread runs it
 * anyway: that process's thread may be off its CPU, or stopped.
 */
#define CCM_RUNNER_WAIT_NS 20000

/* Has the head of @s, at @head, waited CCM_RUNNER_WAIT_NS?  (Lock-free.) */
static bool head_waited(struct ccm_sched *s, u32 head)
{
	return ccm_cycles() - __atomic_load_n(&s->stamp[head % s->cap], __ATOMIC_RELAXED) >=
	       s->runner_wait_cycles;
}

/*
 * May this thread step the head of its own queue @s (locked, not empty)?
 * On a shared fabric what any process may step waits for the process
 * stepping those (ccm_steal_user.c), which may become this one, a while.
 */
static bool own_turn(struct ccm_sched *s)
{
	return !s->f->procs || !ccm_sched_head_stealable(s) || ccm_steal_may_run(s->f) ||
	       head_waited(s, s->head);
}

/* own_turn() as a lock-free hint (the head may change meanwhile). */
static bool own_turn_hint(struct ccm_sched *s)
{
	const struct ccm_agent *a;
	u32 head;

	if (!__atomic_load_n(&s->count, __ATOMIC_ACQUIRE))
		return false;
	if (!s->f->procs || !ccm_steal_others_run(s->f))
		return true;
	head = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
	a = __atomic_load_n(&s->queue[head % s->cap], __ATOMIC_RELAXED);
	/* emptied meanwhile: a slot never filled holds NULL */
	return !a || !agent_stealable(a) || head_waited(s, head);
}

void ccm_sched_requeue_lost(struct ccm_sched *s, struct ccm_agent *a)
{
	if (a->state != CCM_AGENT_RUNNING)
		return;
	s->running--;
	a->state = CCM_AGENT_QUEUED;
	queue_and_wake(s, a, true);
}

/* How long an idle worker polls the run queue before it sleeps. */
#define CCM_SPIN_ROUNDS 200
/*
 * Workers leave freshly woken light agents (CC cores, engines started on
 * small descriptors) to host threads for this long: a small collective then
 * runs start to finish on the thread that triggers or waits for it, with no
 * hand-off, while work nobody waits for still progresses in the background.
 * Heavy work — engines started on big descriptors, agents that used up a
 * step's budget — is theirs at once, and only heavy work wakes a sleeping
 * worker.
 */
#define CCM_STEAL_AGE_NS 100000
/* How long an idle worker of a shared fabric sleeps before it looks again. */
#define CCM_SHARED_WORKER_NAP_NS 10000000
/* How long a waiting host thread polls before it sleeps (pause rounds). */
#define CCM_WAIT_SPIN_ROUNDS 20000

static u64 steal_age(struct ccm_sched *s)
{
	return s->steal_cycles;
}

static bool head_aged(struct ccm_sched *s)
{
	return ccm_cycles() - s->stamp[s->head] >= steal_age(s);
}

/* A lock-free peek: is there work a worker may take?  (A hint only.) */
static bool worth_locking(struct ccm_sched *s)
{
	u32 head;

	if (!__atomic_load_n(&s->count, __ATOMIC_ACQUIRE))
		return false;
	head = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
	return ccm_cycles() - __atomic_load_n(&s->stamp[head % s->cap], __ATOMIC_RELAXED) >=
	       steal_age(s);
}

static void worker_main(void *arg)
{
	struct ccm_sched *s = arg;
	u32 spins = 0;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		ccm_yield();
		if (worth_locking(s)) {
			ccm_mutex_lock(&s->lock);
			while (s->count && head_aged(s) && !s->stop) {
				s->recent = ccm_cycles();
				run_one(s);
			}
			ccm_mutex_unlock(&s->lock);
			spins = 0;
			continue;
		}
		if (spins++ < CCM_SPIN_ROUNDS) {
			/* poll without the lock: a wake then costs no syscall;
			 * shared, the CPU likely has other processes to run:
			 * give it up at once rather than pause on it */
			if (s->f->procs) {
				ccm_poll_yield();
				continue;
			}
			for (u32 i = 0; i < 64; i++)
				__builtin_ia32_pause();
			continue;
		}
		ccm_mutex_lock(&s->lock);
		if (!s->stop) {
			s->sleepers++;
			/* with light work queued, come back when it is old
			 * enough; shared, look now and then anyway: light work
			 * queued later wakes nobody, and the thread that would
			 * step it may be stopped holding that role
			 * (ccm_steal_may_run()) */
			if (s->count)
				ccm_cond_wait_until(&s->work, &s->lock,
						    ccm_now_ns() + CCM_STEAL_AGE_NS);
			else if (s->f->procs)
				ccm_cond_wait_until(&s->work, &s->lock,
						    ccm_now_ns() + CCM_SHARED_WORKER_NAP_NS);
			else
				ccm_cond_wait(&s->work, &s->lock);
			s->sleepers--;
		}
		ccm_mutex_unlock(&s->lock);
		spins = 0;
	}
}

int ccm_sched_init_one(struct ccm_fabric *f, struct ccm_sched *s)
{
	const struct ccm_config *c = &f->cfg;

	/* every agent: engines, CC cores and the compute engine of each core */
	s->cap = f->ndev * c->cores * (c->engines + c->cc_cores + 1);
	s->queue = ccm_calloc(s->cap, sizeof(*s->queue));
	s->stamp = ccm_calloc(s->cap, sizeof(*s->stamp));
	if (!s->queue || !s->stamp)
		return -ENOMEM;
	s->steal_cycles = ccm_cycles_per_us() * CCM_STEAL_AGE_NS / 1000;
	s->runner_wait_cycles = ccm_cycles_per_us() * CCM_RUNNER_WAIT_NS / 1000;
	ccm_mutex_init(&s->lock);
	ccm_cond_init(&s->work);
	ccm_cond_init(&s->host);
	ccm_cond_init(&s->nic);
	s->rng = c->seed ? c->seed : 0x9e3779b97f4a7c15ull;
	s->f = f;
	return 0;
}

int ccm_sched_init(struct ccm_fabric *f)
{
	int rc;

	/* a shared fabric's run queues are its processes' (ccm_fabric_attach()) */
	if (f->procs)
		return 0;
	rc = ccm_sched_init_one(f, &f->sched);
	return rc ? rc : ccm_timed(f) ? ccm_timed_init(f) : 0;
}

void ccm_sched_start_one(struct ccm_sched *s, struct ccm_thread *threads, u32 n)
{
	u32 i;

	s->threads = threads;
	for (i = 0; i < n; i++) {
		if (ccm_thread_start(&s->threads[i], worker_main, s))
			break;
		s->nthreads++;
	}
}

void ccm_sched_start(struct ccm_fabric *f)
{
	struct ccm_thread *threads;

	if (!f->cfg.workers || ccm_timed(f) || f->procs)
		return;
	threads = ccm_calloc(f->cfg.workers, sizeof(*threads));
	if (threads)
		ccm_sched_start_one(&f->sched, threads, f->cfg.workers);
}

/* Stop @s's workers; the caller frees their threads. */
void ccm_sched_stop_one(struct ccm_sched *s)
{
	u32 i;

	if (!s->queue)
		return;
	ccm_mutex_lock(&s->lock);
	__atomic_store_n(&s->stop, true, __ATOMIC_RELEASE);	/* workers poll it */
	ccm_cond_broadcast(&s->work);
	ccm_mutex_unlock(&s->lock);
	for (i = 0; i < s->nthreads; i++)
		ccm_thread_join(&s->threads[i]);
	s->nthreads = 0;
}

void ccm_fabric_stop(struct ccm_fabric *f)
{
	struct ccm_sched *s = &f->sched;

	if (f->procs) {
		ccm_shared_stop(f);
		return;
	}
	ccm_sched_stop_one(s);
	ccm_free(s->threads);
	s->threads = NULL;
}

void ccm_sched_fini_one(struct ccm_sched *s)
{
	if (!s->queue)
		return;
	ccm_cond_destroy(&s->work);
	ccm_cond_destroy(&s->host);
	ccm_cond_destroy(&s->nic);
	ccm_mutex_destroy(&s->lock);
	ccm_free(s->queue);
	ccm_free(s->stamp);
	s->queue = NULL;
}

void ccm_sched_fini(struct ccm_fabric *f)
{
	if (f->procs || !f->sched.queue)
		return;
	ccm_fabric_stop(f);
	ccm_sched_fini_one(&f->sched);
	ccm_timed_fini(f);
}

/* Is the head of the queue a DMA engine with big work (the workers')? */
static bool heavy_engine(struct ccm_sched *s)
{
	return !s->stamp[s->head] && s->queue[s->head]->kind == CCM_AGENT_ENGINE;
}

void ccm_fabric_help(struct ccm_fabric *f, s64 budget_ns)
{
	struct ccm_sched *s = ccm_my_sched(f);
	u64 start, budget;

	if (!f->cfg.workers)
		return;		/* inline mode runs only when waited for */
	/* the cycle counter: reading the clock would cost more than a step */
	budget = ccm_cycles_per_us() * (u64)budget_ns / 1000;
	start = ccm_cycles();
	ccm_mutex_lock(&s->lock);
	s->recent = start;
	s->helping++;
	/* not heavy DMA: that is the workers', and a submitter must not be
	 * held up for a whole big step */
	for (u32 steps = 0; s->count && !heavy_engine(s); steps++) {
		/* the cycle counter costs about as much as a light step */
		if (steps % 4 == 3) {
			s->recent = ccm_cycles();
			if (s->recent - start >= budget)
				break;
		}
		run_one(s);
	}
	s->helping--;
	ccm_mutex_unlock(&s->lock);
	ccm_fabric_nudge(f);
}

void ccm_fabric_nudge(struct ccm_fabric *f)
{
	struct ccm_sched *s = ccm_my_sched(f);

	if (!f->cfg.workers || !__atomic_load_n(&s->count, __ATOMIC_ACQUIRE) ||
	    ccm_steal_others_poll(f, s))
		return;
	ccm_mutex_lock(&s->lock);
	/* a worker awake will see the work age and take it */
	if (s->count && s->sleepers == f->cfg.workers)
		ccm_cond_broadcast(&s->work);
	ccm_mutex_unlock(&s->lock);
}

bool ccm_fabric_quiescent(struct ccm_fabric *f)
{
	struct ccm_sched *s = ccm_my_sched(f);
	bool q;

	ccm_mutex_lock(&s->lock);
	q = pending(s) == 0 && s->running == 0;
	ccm_mutex_unlock(&s->lock);
	return q;
}

u64 ccm_fabric_run_steps(struct ccm_fabric *f, u64 steps)
{
	struct ccm_sched *s = ccm_my_sched(f);
	u64 done = 0;

	if (f->cfg.workers)
		return 0;
	ccm_mutex_lock(&s->lock);
	while (done < steps && pending(s)) {
		run_one(s);
		done++;
	}
	ccm_mutex_unlock(&s->lock);
	return done;
}

static int wait_inline(struct ccm_fabric *f, bool (*cond)(void *), void *arg,
		       s64 deadline_ns)
{
	struct ccm_sched *s = &f->sched;	/* shared fabrics have workers */
	u32 steps = 0;
	int rc = 0;

	ccm_mutex_lock(&s->lock);
	for (;;) {
		ccm_mutex_unlock(&s->lock);
		if (cond(arg))
			return 0;
		ccm_mutex_lock(&s->lock);
		/* the clock is read every 64 steps: it costs more than a step */
		if ((!pending(s) && !s->running) ||
		    (++steps % 64 == 0 && ccm_now_ns() >= deadline_ns)) {
			rc = -ETIMEDOUT;
			break;
		}
		/* another host thread runs the step that may finish ours */
		if (!pending(s)) {
			ccm_yield();
			continue;
		}
		run_one(s);
	}
	ccm_mutex_unlock(&s->lock);
	return cond(arg) ? 0 : rc;
}

/*
 * @cond runs without any model lock held (it may take the host's own locks);
 * a generation count bumped by every kick closes the window between a false
 * @cond and going to sleep.
 */
int ccm_host_sleep(struct ccm_sched *s, u64 gen, bool mind_queue, s64 deadline_ns)
{
	int rc = 0;

	ccm_mutex_lock(&s->lock);
	__atomic_add_fetch(&s->host_sleepers, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->gen, __ATOMIC_SEQ_CST) == gen && !(mind_queue && s->count) &&
	    !ccm_cond_wait_until(&s->host, &s->lock, deadline_ns))
		rc = -ETIMEDOUT;
	__atomic_sub_fetch(&s->host_sleepers, 1, __ATOMIC_SEQ_CST);
	ccm_mutex_unlock(&s->lock);
	return rc;
}

static int fabric_wait(struct ccm_fabric *f, bool (*cond)(void *), void *arg,
		       s64 deadline_ns, bool job_only)
{
	struct ccm_sched *s = ccm_my_sched(f);
	u32 steps = 0;
	int rc = 0;
	u64 gen;

	if (!f->cfg.workers)
		return wait_inline(f, cond, arg, deadline_ns);

	if (!job_only)
		__atomic_add_fetch(&s->host_progress_waiters, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&s->host_waiters, 1, __ATOMIC_SEQ_CST);
	for (;;) {
		bool ran;

		ccm_yield();
		gen = __atomic_load_n(&s->gen, __ATOMIC_SEQ_CST);
		if (f->procs)
			ccm_fabric_deliver(f);
		if (cond(arg))
			break;
		ccm_mutex_lock(&s->lock);
		/* a waiting host thread helps: small collectives then need no
		 * hand-off to a worker at all */
		ran = s->count != 0 && own_turn(s);
		if (ran) {
			if (steps % 4 == 0)
				s->recent = ccm_cycles();
			run_one(s);
		}
		ccm_mutex_unlock(&s->lock);
		/* shared: nothing of ours to run, so run other processes'
		 * (what we wait for is likely theirs) */
		ran = ran || (f->procs && ccm_steal_one(f));
		/* poll a while before sleeping: waking a sleeper is slow */
		for (u32 i = 0; !ran && i < CCM_WAIT_SPIN_ROUNDS; i++) {
			if (__atomic_load_n(&s->gen, __ATOMIC_ACQUIRE) != gen || own_turn_hint(s))
				break;
			/* shared: what it waits for may need this CPU, and
			 * other processes' cores may be ready to run here;
			 * with nothing to run, another process may step them */
			if (f->procs) {
				ran = ccm_steal_one(f);
				if (!ran) {
					ccm_steal_done(f);
					ccm_poll_yield();
				}
				continue;
			}
			__builtin_ia32_pause();
		}
		if (ran) {
			/* there may always be work (CC cores spinning): the
			 * deadline still holds, the clock read now and then */
			if (++steps % 64 == 0 && ccm_now_ns() >= deadline_ns) {
				rc = cond(arg) ? 0 : -ETIMEDOUT;
				break;
			}
			continue;
		}
		/* the deadline holds though work of ours keeps it from
		 * sleeping (its turn may not come: ccm_steal_may_run()) */
		if (ccm_now_ns() >= deadline_ns) {
			rc = cond(arg) ? 0 : -ETIMEDOUT;
			break;
		}
		/* one sleep, then @cond again: a wake-up may be a signal the
		 * caller's @cond checks for (the kernel's waits) */
		rc = ccm_host_sleep(s, gen, true, deadline_ns);
		if (rc) {
			rc = cond(arg) ? 0 : rc;
			break;
		}
	}
	__atomic_sub_fetch(&s->host_waiters, 1, __ATOMIC_SEQ_CST);
	ccm_steal_done(f);
	if (!job_only)
		__atomic_sub_fetch(&s->host_progress_waiters, 1, __ATOMIC_SEQ_CST);
	/* light work this thread would have run must not wait for a worker
	 * asleep with no timeout: other host threads may never come */
	ccm_fabric_nudge(f);
	return rc;
}

int ccm_fabric_wait(struct ccm_fabric *f, bool (*cond)(void *), void *arg,
		    s64 deadline_ns)
{
	return fabric_wait(f, cond, arg, deadline_ns, false);
}

int ccm_fabric_wait_job(struct ccm_fabric *f, bool (*cond)(void *), void *arg,
			s64 deadline_ns)
{
	return fabric_wait(f, cond, arg, deadline_ns, true);
}
