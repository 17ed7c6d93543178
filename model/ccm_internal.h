/* SPDX-License-Identifier: GPL-2.0 */
/* The device model's internal state; only model/ sources include this. */
#ifndef CCM_INTERNAL_H
#define CCM_INTERNAL_H

#include "ccm.h"

/* Work done by one agent step before others get a turn. */
#define CCM_ENGINE_BUDGET_PACKETS 16
#define CCM_CC_BUDGET_INSNS 64
#define CCM_CC_QUEUE 256
/* A START of at least this many bytes is heavy work (see ccm_sched.c). */
#define CCM_HEAVY_BYTES (256 * 1024)
/*
 * A COPY descriptor of at least this many bytes writes past the host's
 * caches (ccm_copy_stream()), as a DMA engine writes memory: its bytes
 * would not stay cached for their next reader anyway, and a plain copy
 * first reads every destination line it writes.
 */
#define CCM_STREAM_BYTES (4u << 20)

static inline bool ccm_overlap(const u8 *a, const u8 *b, u64 len)
{
	return a < b + len && b < a + len;
}

enum ccm_agent_kind { CCM_AGENT_ENGINE, CCM_AGENT_CC, CCM_AGENT_COMPUTE };
/* Instructions a compute engine runs in one step. */
#define CCM_CE_BUDGET_INSNS 64
enum ccm_agent_state { CCM_AGENT_IDLE, CCM_AGENT_QUEUED, CCM_AGENT_RUNNING };
/*
 * What an agent's step left: nothing to do until woken, more (it used its
 * budget: heavy, a worker's at once), or more after it stopped to tell the
 * host something (AGAIN: light while host threads poll its queue, which
 * run it next on the CPU that has its state in cache).
 */
enum ccm_step_result { CCM_STEP_BLOCKED, CCM_STEP_RUNNABLE, CCM_STEP_AGAIN };

struct ccm_fabric;
struct ccm_device;
struct ccm_core;

/*
 * A CC core or DMA engine as the scheduler sees it.  @state and @rerun are
 * protected by the scheduler lock; an agent is stepped by one worker at a
 * time, and a wake while it runs makes it run again (no lost wakeups).
 */
struct ccm_agent {
	u8 kind;
	u8 state;
	bool rerun;
	u8 proc;		/* shared fabric: its process's slot + 1, 0: unclaimed */
	struct ccm_fabric *f;
	/*
	 * Timed mode (ccm_timed.c): @t is the agent's clock (when it may
	 * next act), @key when it is due in the event queue (its entry
	 * there has sequence number @kseq), @due when it wants to run again
	 * by itself after a step, @rerun_at the earliest wake that came
	 * while it ran.
	 */
	u64 t, key, kseq, due, rerun_at;
};

/* Timed mode: a time that never comes. */
#define CCM_NEVER (~0ull)

/* Timed mode: a descriptor in flight, and where (indexed rings) it lands. */
struct ccm_arrival {
	u64 at;				/* virtual time of its arrival */
	s64 disp;			/* its slot's displacement when it was issued */
};

struct ccm_ring {
	void *owner;			/* NULL: slot is free */
	u32 packet_size;
	u32 slots;
	struct ccm_hwdesc *descs;
	/*
	 * Indexed rings (@index_count > 0): @disp has one entry per slot, the
	 * bytes the START or STARTI that started the slot last added to its
	 * addresses (index * @index_stride).  NULL otherwise.
	 */
	s64 *disp;
	s64 index_stride;
	u32 index_count;
	u32 written;			/* published with release */
	u64 started;			/* atomic; may run ahead of completed */
	u64 completed;			/* atomic; written by the engine only */
	u64 bytes, packets, errors;	/* atomic counters */
	u64 discarded;			/* atomic: started, dropped (DMA error, abort) */
	u32 abort;			/* atomic: ccm_ring_abort() asked to drop */
	u64 signalled;			/* atomic: completed and their signal fired */
	/*
	 * Cursors run from 0 to @written and wrap to 0 only when used at
	 * @written: a descriptor appended after a batch ran is the next one
	 * to start, not the first written.
	 */
	u32 exec_slot;			/* engine-private */
	u64 exec_off;
	u32 start_slot;			/* host/CC side, under the engine lock */
	/*
	 * Timed mode (ccm_xfer.c), engine-private: the descriptor whose bytes
	 * are moving (issue cursor @exec_slot), and those whose bytes are
	 * through but not yet arrived (completion cursor @xcslot, their
	 * arrival times in the queue @xq).
	 */
	struct ccm_engine *eng;
	u8 xphase;			/* enum ccm_xfer_phase */
	u8 xtier;			/* enum ccm_link_tier of its route */
	u16 xfrom, xto;			/* route: data flows from device to device */
	u32 xweight;			/* its share of a link: packet size / 512 */
	u64 xevent;			/* when its bytes are through */
	u64 xleft;			/* bytes still to move */
	u64 xlast;			/* when @xleft was brought up to date */
	u64 xnum, xden;			/* rate: @xnum / @xden bytes per picosecond */
	u64 xalpha;			/* its latency, once its bytes are through */
	u64 xissued;			/* descriptors issued (or dropped) so far */
	u64 xfree;			/* ideal: when the ring's bytes are through */
	u64 xarrive;			/* the last arrival queued */
	u32 xcslot;			/* completion cursor */
	s64 xdisp;			/* displacement of the descriptor moving */
	u32 xq_head, xq_n, xq_cap;
	struct ccm_arrival *xq;		/* in flight, oldest first */
	/*
	 * ideal: per started descriptor not yet issued, oldest first, when
	 * its bytes are through its core's port (reserved at START, in the
	 * order the core started them), 0 if it uses no port
	 */
	u32 xr_head, xr_n, xr_cap;
	u64 *xr;
	/* the current descriptor goes to another host (ccm_nic.c) */
	u8 nic;				/* atomic: its state there */
	int nic_status;			/* what the proxy said, once done */
	u32 nic_gen;			/* atomic: posts so far; a take names its post */
};

enum ccm_xfer_phase { CCM_XFER_NONE, CCM_XFER_ACTIVE };

/*
 * Timed mode: something transfers share (a DMA engine, a link direction,
 * a NIC direction).  Active transfers share its bandwidth in proportion
 * to their packet sizes: the fluid limit of round-robin by packet.
 */
struct ccm_res {
	u32 gbps;
	u32 weight;			/* sum of the active transfers' weights */
	u32 n, cap;
	struct ccm_ring **act;		/* the active transfers */
};

struct ccm_engine {
	struct ccm_agent agent;
	struct ccm_core *core;
	u32 index;
	struct ccm_mutex lock;		/* claim/write/start/release */
	u32 rr;				/* ring that gets the next turn */
	u32 busy;			/* atomic: rings that may have work */
	/*
	 * atomic: has posted to the NIC; only its owner's threads step it then
	 * (ccm_sched_head_stealable()), which hand posts to the network at once
	 */
	bool nic_user;
	struct ccm_ring rings[CCM_MAX_RINGS];
	struct ccm_res res;		/* timed mode: the engine's bandwidth */
};

struct ccm_job_slot {
	u32 base;
	u64 cookie;
};

struct ccm_prog_region {
	u32 base, count;
};

/* What a CC core's step has to tell its host, after the core's lock. */
struct ccm_cc_events {
	bool job_done;
	u64 cookie;
	int status;
	u64 job_start_ps, job_trigger_ps;
	bool notify;
	u32 notify_value;
};

/* A CC core's news kept for its owner: a job's end, a NOTIFY. */
struct ccm_news {
	u64 cookie;
	s32 status;
	u32 notify_value;
	bool job_done, notify;
};

/*
 * How many a core keeps before it waits for its owner; one more fits: a
 * DMA error ending the running job after a NOTIFY filled them.
 */
#define CCM_CC_NEWS 8

struct ccm_cc {
	struct ccm_agent agent;
	struct ccm_core *core;
	u32 index;			/* device-wide CC core index */
	struct ccm_mutex lock;		/* everything below */
	struct drm_ccore_insn *imem;
	u32 fw_size;
	struct ccm_prog_region *regions;	/* loaded programs, sorted */
	u32 nregions;
	u32 state;			/* enum ccm_cc_state */
	u32 pc;
	u32 regs[DRM_CCORE_NUM_REGS];
	u32 stack[DRM_CCORE_CALL_DEPTH];
	bool stack_job[DRM_CCORE_CALL_DEPTH];
	u32 depth;
	u32 trigger;			/* atomic */
	struct ccm_job_slot queue[CCM_CC_QUEUE];
	u32 qhead, qcount;
	bool job_running;
	u64 job_cookie;
	u64 job_start_ps;		/* timed: when the running job started */
	u64 job_trigger_ps;		/* timed: when the trigger it ran on came */
	/* timed: when the triggers not yet taken came, oldest first */
	u64 trig_ps[CCM_CC_QUEUE];
	u32 trig_head, trig_count;
	u64 insns, notifies;
	u32 last_notify;
	char fault[CCM_ERR_LEN];
	bool hang_armed;		/* ccm_inject_cc_hang(): hang the next job */
	bool hung;			/* the running job hangs until reset */
	u64 dma_errors, hangs, resets;
	/*
	 * What the core last blocked on (atomic, set before it looks): a
	 * change elsewhere need not wake it.  See ccm_core_wake_sem().
	 */
	u32 wait_kind;			/* enum ccm_wait_kind */
	u32 wait_sem;			/* CCM_WAIT_SEM: the semaphore */
	/*
	 * Shared fabric: news from steps another process ran (it cannot call
	 * this core's host), oldest first, until the owner reports it
	 * (ccm_news.c).  Full, the core waits for its owner to step it.
	 */
	struct ccm_news held[CCM_CC_NEWS + 1];
	u32 held_head, held_count;
};

/*
 * A compute engine (ccm_compute.c): runs one program at a time, its DMA
 * instructions starting descriptors that ccm_compute_submit() wrote to
 * ring @engine/@ring of its core.
 */
struct ccm_compute {
	struct ccm_agent agent;
	struct ccm_core *core;
	struct ccm_mutex lock;		/* everything below */
	struct drm_ccore_ce_insn *prog;
	u32 count, pc;
	u32 engine, ring;		/* its DMA ring, if it has DMA */
	bool has_dma;
	bool running;			/* atomic for readers without the lock */
	void *owner;
	int status;
	char fault[CCM_ERR_LEN];
	u64 start_ps, end_ps;
	bool started;
	u64 insns, busy_ns, dma_bytes;
	u64 programs, total_insns, total_busy_ns, total_dma_bytes;
	u32 wait_kind;			/* atomic: enum ccm_wait_kind */
	u32 wait_sem;
};

enum ccm_wait_kind {
	CCM_WAIT_ANY,			/* wake on any change of its core */
	CCM_WAIT_SEM,			/* a local semaphore */
	CCM_WAIT_RING,			/* a ring of its core to drain */
	CCM_WAIT_DIRECT,		/* a trigger or a job: woken directly */
};

struct ccm_core {
	struct ccm_device *dev;
	u32 index;
	u32 *sems;			/* atomic values */
	void **sem_owner;
	bool *sem_first;		/* first of an allocated block */
	struct ccm_mutex sem_lock;	/* allocation only */
	struct ccm_engine *engines;
	struct ccm_cc *cc;
	struct ccm_compute compute;
	u32 dma_error_armed;		/* atomic: ccm_inject_dma_error() */
	u32 nic_posted[CCM_MAX_ENGINES];	/* atomic: per engine, rings waiting for the NIC */
	u32 owner;			/* shared fabric: the claiming slot + 1, 0: none */
};

struct ccm_device {
	struct ccm_fabric *f;
	u32 index;
	u32 node;
	u32 cc_packet_size;
	u32 dma_packetization;
	u64 mem_used;			/* atomic */
	struct ccm_core *cores;
	u64 link_out[3], link_in[3];	/* atomic, per tier */
};

struct ccm_sched {
	struct ccm_fabric *f;
	struct ccm_mutex lock;
	struct ccm_cond work;		/* workers: an agent was queued */
	struct ccm_cond host;		/* host waiters: something changed */
	struct ccm_agent **queue;	/* ring buffer of queued agents */
	u64 *stamp;			/* ccm_cycles() when each was queued, 0: long-running */
	u64 steal_cycles;		/* CCM_STEAL_AGE_NS in cycles */
	u64 runner_wait_cycles;		/* CCM_RUNNER_WAIT_NS in cycles */
	u64 recent;			/* ccm_cycles() lately, while steps run */
	u32 head, count, cap;
	u32 running;
	u32 sleepers;			/* workers waiting on @work */
	u32 helping;			/* host threads in ccm_fabric_help() */
	u32 host_waiters;		/* atomic */
	u32 host_sleepers;		/* atomic: waiters blocked on @host */
	/*
	 * atomic: waiters for more than a job's end (a semaphore, a ring,
	 * compute): on a shared fabric only they hear of semaphore and ring
	 * changes (ccm_host_kick_sc()).
	 */
	u32 host_progress_waiters;
	u64 gen;			/* bumped by ccm_host_kick() */
	/* the NIC's proxy waits apart: kicks for the host do not wake it (ccm_nic.c) */
	struct ccm_cond nic;
	u32 nic_sleepers;		/* atomic */
	u64 nic_gen;			/* atomic: bumped by a post the proxy must take */
	bool stop;
	struct ccm_thread *threads;
	u32 nthreads;
	u64 rng;			/* inline mode: order of ready agents */
};

/* Link directions of a device in timed mode: +x, -x, +y, -y, NIC out, NIC in. */
#define CCM_LINK_DIRS 6

/* Timed mode: an entry of the event queue (stale once @seq != a->kseq). */
struct ccm_tevent {
	u64 key, seq;
	struct ccm_agent *a;
};

/* Timed mode: the virtual clock, its event queue and the link parameters. */
struct ccm_timed {
	u64 now;			/* the last event's time (never goes back) */
	u64 cur;			/* when what runs now happens: wakes carry it */
	u64 min_key;			/* atomic: the earliest queued event, or CCM_NEVER */
	u64 seq;			/* ties between equal times go in queueing order */
	struct ccm_tevent *heap;
	u32 nheap, cap;
	u64 alpha_ps[3];		/* per tier (ideal: alpha_node everywhere) */
	u32 gbps[3];			/* per tier */
	u64 insn_ps, sem_ps;
	bool ideal, virt;
	struct ccm_res *links;		/* CCM_LINK_DIRS per device */
	/* ideal: when each logical core's port is next free to send */
	u64 *port_out;
};

/*
 * A process slot of a shared fabric (ccm_shared_user.c): its run queue,
 * which its own workers and host threads run, holds the agents of the
 * cores it claimed.
 */
enum ccm_proc_state { CCM_PROC_FREE, CCM_PROC_LIVE, CCM_PROC_DEAD, CCM_PROC_REAPING };

/*
 * @thieves, @stealing, @stepping and @news: other processes stepping this
 * one's agents (ccm_steal_user.c).
 */
struct ccm_proc {
	u32 state;			/* atomic: enum ccm_proc_state */
	u32 pid;
	u32 dead_pid;			/* the last process found dead in this slot */
	struct ccm_sched sched;
	u64 thieves;			/* atomic: slots stepping one of its agents now */
	u32 stealing;			/* atomic: one of its threads steals now */
	u32 steal_next;			/* the slot it tries first next time */
	u32 news;			/* atomic: its cores hold news for it (ccm_news.c) */
	struct ccm_agent *stepping;	/* atomic: the agent of another slot it steps */
};

/*
 * @ops and @host are the creating process's; a shared fabric (@procs set)
 * keeps each process's own in that process (ccm_host_ops_of()).
 */
struct ccm_fabric {
	struct ccm_config cfg;
	const struct ccm_host_ops *ops;
	void *host;
	u32 ndev;
	struct ccm_device *devs;
	struct ccm_sched sched;
	struct ccm_timed tm;
	struct ccm_proc *procs;		/* CCM_MAX_PROCS, or NULL: not shared */
	u32 deaths;			/* atomic: processes found dead so far */
	u32 broken_steps;		/* atomic: stolen steps their thief died in */
	u32 stealer;			/* atomic: slot + 1 of the one process stepping others' agents, 0: none */
	u64 died;			/* atomic: slots whose process died, until reused */
	u64 live;			/* atomic: slots attached (what a kick visits) */
};

#ifdef __KERNEL__
static inline struct ccm_sched *ccm_shared_my_sched(struct ccm_fabric *f)
{
	return &f->sched;
}

static inline const struct ccm_host_ops *ccm_shared_host_ops(const struct ccm_fabric *f,
							     const struct ccm_core *core,
							     void **host)
{
	return NULL;
}

static inline void ccm_shared_stop(struct ccm_fabric *f)
{
}

static inline bool ccm_steal_one(struct ccm_fabric *f)
{
	return false;
}

static inline void ccm_steal_stepping(void)
{
}

static inline bool ccm_steal_others_poll(struct ccm_fabric *f, struct ccm_sched *mine)
{
	return false;
}

static inline void ccm_steal_done(struct ccm_fabric *f)
{
}

static inline bool ccm_steal_may_run(struct ccm_fabric *f)
{
	return true;
}

static inline bool ccm_steal_others_run(struct ccm_fabric *f)
{
	return false;
}
#else
/* Stop this process's workers of shared @f (it stays attached). */
void ccm_shared_stop(struct ccm_fabric *f);
/* ccm_shared_user.c: this process's run queue of shared @f (NULL: none). */
struct ccm_sched *ccm_shared_my_sched(struct ccm_fabric *f);
/* The callbacks of this process, if @core is one of its cores, else NULL. */
const struct ccm_host_ops *ccm_shared_host_ops(const struct ccm_fabric *f,
					       const struct ccm_core *core, void **host);
/*
 * ccm_steal_user.c: step one ready agent of another process of shared @f
 * (false: none to step); keep thieves out of, or repair after, a slot.
 */
bool ccm_steal_one(struct ccm_fabric *f);
/* A stolen step begins (where ccm_inject_thief_death() strikes). */
void ccm_steal_stepping(void);
/*
 * Does a host thread of another process than @mine's poll?  It steps what
 * this process leaves queued, so no worker of ours need be woken for it.
 */
bool ccm_steal_others_poll(struct ccm_fabric *f, struct ccm_sched *mine);
/*
 * This process stops stepping the others' agents (it found nothing to
 * run, or its wait ended): another may.
 */
void ccm_steal_done(struct ccm_fabric *f);
/*
 * May a host thread of this process step an agent any process may step
 * (its own included)?  Only one process does at a time, the one holding
 * @f->stealer; this takes it if it is free.
 */
bool ccm_steal_may_run(struct ccm_fabric *f);
/* Does another process hold @f->stealer (a hint, without taking it)? */
bool ccm_steal_others_run(struct ccm_fabric *f);
void ccm_steal_wait_thieves(struct ccm_fabric *f, u32 slot);
void ccm_steal_repair(struct ccm_fabric *f, u32 dead);
#endif

/* The run queue this thread's process runs. */
static inline struct ccm_sched *ccm_my_sched(struct ccm_fabric *f)
{
	return f->procs ? ccm_shared_my_sched(f) : &f->sched;
}

/*
 * The run queue of @a: the fabric's, or in a shared fabric that of the
 * process whose cores it belongs to (NULL: no process claimed them).
 */
static inline struct ccm_sched *ccm_agent_sched(const struct ccm_agent *a)
{
	if (!a->f->procs)
		return &a->f->sched;
	return a->proc ? &a->f->procs[a->proc - 1].sched : NULL;
}

/* Do host threads of @s poll (not sleep)?  They run light work soon. */
static inline bool ccm_hosts_polling(struct ccm_sched *s)
{
	return __atomic_load_n(&s->host_waiters, __ATOMIC_ACQUIRE) >
	       __atomic_load_n(&s->host_sleepers, __ATOMIC_ACQUIRE);
}

/* Whom to tell about what @core did (NULL: nobody in this process). */
static inline const struct ccm_host_ops *ccm_host_ops_of(const struct ccm_fabric *f,
							 const struct ccm_core *core,
							 void **host)
{
	if (f->procs)
		return ccm_shared_host_ops(f, core, host);
	*host = f->host;
	return f->ops;
}

static inline bool ccm_timed(const struct ccm_fabric *f)
{
	return f->cfg.timed;
}

/* a * b / c without overflow in between (c != 0), and rounded up. */
static inline u64 ccm_muldiv64_up(u64 a, u64 b, u64 c)
{
	u64 q = ccm_muldiv64(a, b, c);

	return q + ((unsigned __int128)q * c != (unsigned __int128)a * b);
}

/* ccm_sched.c */
int ccm_sched_init(struct ccm_fabric *f);
int ccm_sched_init_one(struct ccm_fabric *f, struct ccm_sched *s);
/* Start @n workers on @s in @threads (the caller's, freed after stop). */
void ccm_sched_start_one(struct ccm_sched *s, struct ccm_thread *threads, u32 n);
void ccm_sched_stop_one(struct ccm_sched *s);
void ccm_sched_fini_one(struct ccm_sched *s);
/* With @s's lock held: may another process step the agent at its head? */
bool ccm_sched_head_stealable(struct ccm_sched *s);
/*
 * With @s's lock held: step the agent at its head, noting it in @stepping
 * meanwhile (a reaper finds it there if this process dies in the step).
 */
void ccm_sched_run_noted(struct ccm_sched *s, struct ccm_agent **stepping);
/* With @s's lock held: queue @a again, whose step a dead process left. */
void ccm_sched_requeue_lost(struct ccm_sched *s, struct ccm_agent *a);
void ccm_sched_start(struct ccm_fabric *f);
void ccm_sched_fini(struct ccm_fabric *f);
void ccm_agent_wake(struct ccm_agent *a);
/* @heavy: long work that workers may take at once (big DMA descriptors). */
void ccm_agent_wake_heavy(struct ccm_agent *a, bool heavy);
/* Tell host waiters something they may wait for changed. */
void ccm_host_kick(struct ccm_fabric *f);
/*
 * The same right after a sequentially consistent change (a semaphore's,
 * a ring's counters), which every wait condition on it reads with a
 * sequentially consistent load (ccm_sem_read(), ccm_ring_idle()): no fence
 * needed.
 */
void ccm_host_kick_sc(struct ccm_fabric *f);
/*
 * Tell only the host waiters of run queue @s, or of this process's: a
 * job's end is told only in its owner's process (ccm_cc.c, ccm_news.c), so
 * on a shared fabric other processes need not hear of it.
 */
void ccm_host_kick_sched(struct ccm_sched *s);
void ccm_host_kick_mine(struct ccm_fabric *f);
/*
 * Sleep on @s's host condition unless a kick moved its generation past
 * @gen (or, with @mind_queue, agents wait to be run): -ETIMEDOUT past
 * @deadline_ns.
 */
int ccm_host_sleep(struct ccm_sched *s, u64 gen, bool mind_queue, s64 deadline_ns);
/* Wake @a, in timed mode @delay_ps after now (a semaphore's latency). */
void ccm_agent_wake_after(struct ccm_agent *a, u64 delay_ps);
/* Timed mode: wake @a at virtual time @at (not before its own clock). */
void ccm_agent_wake_at(struct ccm_agent *a, u64 at);
/* One step of a CC core or DMA engine. */
enum ccm_step_result ccm_agent_step(struct ccm_agent *a);

/* ccm_timed.c: the virtual clock and its event queue (timed mode) */
int ccm_timed_init(struct ccm_fabric *f);
void ccm_timed_fini(struct ccm_fabric *f);
/* Called with the scheduler lock held. */
void ccm_timed_wake(struct ccm_agent *a, u64 at);
/* Queued agents (with the lock held). */
u32 ccm_timed_pending(const struct ccm_fabric *f);
/* Run the earliest agent; called with the scheduler lock held, keeps it. */
void ccm_timed_run_one(struct ccm_fabric *f);
/* An agent (CC core, compute engine) may act now: nothing is due before
 * its clock; sets the time its effects happen at. */
bool ccm_timed_may_run(struct ccm_agent *a);
static inline bool ccm_timed_cc_may_run(struct ccm_cc *cc)
{
	return ccm_timed_may_run(&cc->agent);
}
/* A CC core executed an instruction. */
static inline void ccm_timed_cc_insn(struct ccm_cc *cc)
{
	cc->agent.t += cc->agent.f->tm.insn_ps;
}

/* ccm_xfer.c: transfers in timed mode (tiers, routes, link contention) */
enum ccm_step_result ccm_xfer_engine_step(struct ccm_engine *e);
/* A DMA error dropped everything @r had started (ring_error()). */
void ccm_xfer_ring_dropped(struct ccm_ring *r);
/* Ideal setting: @count descriptors of @r from @slot on were started now. */
int ccm_xfer_started(struct ccm_engine *e, struct ccm_ring *r, u32 slot, u32 count);
int ccm_res_add(struct ccm_res *res, struct ccm_ring *r);
void ccm_res_remove(struct ccm_res *res, struct ccm_ring *r);

/* ccm_engine.c / ccm_cc.c */
/* The ring's current descriptor (the cursor wraps at what was written). */
const struct ccm_hwdesc *ccm_ring_current(struct ccm_ring *r);
/* Move @len bytes at @off of @r's descriptor @slot displaced by @disp
 * (none if virtual), counted as @packets packets. */
void ccm_ring_move(struct ccm_engine *e, struct ccm_ring *r, u32 slot, s64 disp, u64 off,
		   u64 len, u64 packets);
/* @r's descriptor @slot is done: count it complete, then signal. */
void ccm_ring_signal(struct ccm_engine *e, struct ccm_ring *r, u32 slot);
/* An armed DMA error fails @r's current descriptor: true if it did. */
bool ccm_ring_fault(struct ccm_engine *e, struct ccm_ring *r);
/* The next busy ring round-robin from the engine's turn, or NULL. */
struct ccm_ring *ccm_engine_pick_ring(struct ccm_engine *e);
int ccm_engine_init(struct ccm_engine *e, struct ccm_core *core, u32 index);
void ccm_engine_fini(struct ccm_engine *e);
enum ccm_step_result ccm_engine_step(struct ccm_engine *e);
/*
 * Drop what every ring of @e started and free them, with no agent running
 * @e (a shared fabric's process died: ccm_fabric_reap()).
 */
void ccm_engine_drop_all(struct ccm_engine *e);
struct ccm_ring *ccm_core_ring(struct ccm_core *core, u32 engine, u32 ring);
/*
 * STARTI: start the next @count descriptors of ring @ring of @engine of
 * @core at @index.  -EINVAL (an index or count out of range) or -ENOENT
 * (no descriptors) with the reason in @err; -EAGAIN, nothing started,
 * while fewer than @count slots are free.
 */
int ccm_ring_starti(struct ccm_core *core, u32 engine, u32 ring, u32 count, u32 index,
		    struct ccm_err *err);
/* Started descriptors not yet completed, failed or discarded. */
bool ccm_ring_busy(const struct ccm_ring *r);
/* Every started descriptor failed, was discarded, or completed and its
 * signal fired (ccm_ring_busy() turns false before the signal). */
bool ccm_ring_settled(const struct ccm_ring *r);
int ccm_cc_init(struct ccm_cc *cc, struct ccm_core *core, u32 index);
void ccm_cc_fini(struct ccm_cc *cc);
enum ccm_step_result ccm_cc_step(struct ccm_cc *cc);
/* Tell @cc's host @ev, with no lock held (or keep it for the owner). */
void ccm_cc_report(struct ccm_cc *cc, const struct ccm_cc_events *ev);
/*
 * ccm_news.c: keep @ev for @cc's owner if another process stepped it
 * (false: the caller reports); is @cc's news full for this stepper; report
 * what it holds if this is its owner (true: did); drop it unless this is
 * its owner (@cc's lock held).
 */
bool ccm_cc_hold_news(struct ccm_cc *cc, const struct ccm_cc_events *ev);
bool ccm_cc_news_full(const struct ccm_cc *cc);
bool ccm_cc_deliver(struct ccm_cc *cc);
void ccm_cc_drop_foreign_news(struct ccm_cc *cc);
/* Semaphore @ref of @core changed: wake the CC cores that may wait on it. */
void ccm_core_wake_sem(struct ccm_core *core, u32 ref);
/* A ring of @core progressed: wake the CC cores that may wait on it. */
void ccm_core_wake_ring(struct ccm_core *core);
/* CC core @cc of @dev (device-wide index), or NULL with an error naming the ranges. */
struct ccm_cc *ccm_cc_of(const struct ccm_fabric *f, u32 dev, u32 cc, struct ccm_err *err);
/* A DMA engine of @core failed a descriptor: fault every CC core of @core
 * running a job with @msg, failing the job with -EIO as a runtime fault does. */
void ccm_cc_dma_error(struct ccm_core *core, const char *msg);

/* ccm_compute.c */
int ccm_compute_init(struct ccm_compute *ce, struct ccm_core *core);
void ccm_compute_fini(struct ccm_compute *ce);
enum ccm_step_result ccm_compute_step(struct ccm_compute *ce);
/* Semaphore @ref (or, @ring, a ring) of @core changed: wake its compute
 * engine if it may wait on it. */
void ccm_compute_wake(struct ccm_core *core, bool ring, u32 ref);
/* True if the running program of @core's compute engine uses the ring. */
bool ccm_compute_uses_ring(struct ccm_core *core, u32 engine, u32 ring);
/* A DMA error on ring @engine/@ring of @core: its compute program fails. */
void ccm_compute_dma_error(struct ccm_core *core, u32 engine, u32 ring, const char *msg);
/* Replace the descriptors of an idle ring (ccm_engine.c); -EBUSY if busy. */
int ccm_ring_replace(struct ccm_engine *e, u32 ring, const struct ccm_hwdesc *descs, u32 count,
		     void *owner, struct ccm_err *err);

/* ccm_fault.c: take an armed fault (one-shot); true if it fires now. */
bool ccm_fault_take_dma_error(struct ccm_core *core);
/* Called with @cc's lock held, as @cc starts a job. */
bool ccm_fault_take_cc_hang(struct ccm_cc *cc);

/* ccm_sem.c */
u32 *ccm_sem_slot(const struct ccm_fabric *f, u32 ref);

/* ccm_nic.c: descriptors to other hosts */
/* -EINVAL naming @what of device @dev if it is on another host (then nothing of it is here). */
int ccm_not_here(const struct ccm_fabric *f, u32 dev, const char *what, struct ccm_err *err);
/*
 * Semaphore @sem_ref is on another host.  Inline, as the two below: every
 * descriptor asks, and a fabric of every node (the common case) answers
 * at its first test.
 */
static inline bool ccm_sem_remote(const struct ccm_fabric *f, u32 sem_ref)
{
	return f->cfg.here != CCM_ALL_NODES && ccm_dev_remote(f, DRM_CCORE_SEM_REF_DEV(sem_ref));
}

/* @d's effect lands on another host: the NIC carries it. */
static inline bool ccm_nic_desc(const struct ccm_fabric *f, const struct ccm_hwdesc *d)
{
	if (f->cfg.here == CCM_ALL_NODES)
		return false;
	if (d->op == DRM_CCORE_DESC_SEM_WRITE)
		return ccm_sem_remote(f, d->sem_target);
	return !d->dst;
}

/* Semaphore @sem_ref is here (its changes are this fabric's to make). */
static inline bool ccm_nic_effect_here(const struct ccm_fabric *f, u32 sem_ref)
{
	return !ccm_sem_remote(f, sem_ref);
}

/* @r waits for the NIC: the engine has nothing to do on it. */
bool ccm_nic_parked(const struct ccm_ring *r);
/* The engine at @r's current descriptor @d (NIC's): true if @r moved on. */
bool ccm_nic_packet(struct ccm_engine *e, struct ccm_ring *r, const struct ccm_hwdesc *d);
/* The NIC could not send @r's current descriptor: a DMA error, @status saying why. */
void ccm_ring_nic_error(struct ccm_engine *e, struct ccm_ring *r, int status);

/* ccm_fabric.c */
struct ccm_fabric *ccm_fabric_create_in(const struct ccm_config *cfg,
					const struct ccm_host_ops *ops, void *host, bool shared,
					struct ccm_err *err);
struct ccm_device *ccm_dev(const struct ccm_fabric *f, u32 dev);
struct ccm_core *ccm_core_of(const struct ccm_fabric *f, u32 dev, u32 core);
/* ccm_core_of(), failing with -EINVAL in @err naming the ranges. */
struct ccm_core *ccm_core_get(const struct ccm_fabric *f, u32 dev, u32 core,
			      struct ccm_err *err);
void ccm_link_account(struct ccm_fabric *f, u32 from, u32 to, u64 bytes);

#endif
