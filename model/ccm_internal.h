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

enum ccm_agent_kind { CCM_AGENT_ENGINE, CCM_AGENT_CC };
enum ccm_agent_state { CCM_AGENT_IDLE, CCM_AGENT_QUEUED, CCM_AGENT_RUNNING };
enum ccm_step_result { CCM_STEP_BLOCKED, CCM_STEP_RUNNABLE };

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
	struct ccm_fabric *f;
};

struct ccm_ring {
	void *owner;			/* NULL: slot is free */
	u32 packet_size;
	u32 slots;
	struct ccm_hwdesc *descs;
	u32 written;			/* published with release */
	u64 started;			/* atomic; may run ahead of completed */
	u64 completed;			/* atomic; written by the engine only */
	u64 bytes, packets, errors;	/* atomic counters */
	u64 discarded;			/* atomic: started, dropped by a DMA error */
	/*
	 * Cursors run from 0 to @written and wrap to 0 only when used at
	 * @written: a descriptor appended after a batch ran is the next one
	 * to start, not the first written.
	 */
	u32 exec_slot;			/* engine-private */
	u64 exec_off;
	u32 start_slot;			/* host/CC side, under the engine lock */
};

struct ccm_engine {
	struct ccm_agent agent;
	struct ccm_core *core;
	u32 index;
	struct ccm_mutex lock;		/* claim/write/start/release */
	u32 rr;				/* ring that gets the next turn */
	u32 busy;			/* atomic: rings that may have work */
	struct ccm_ring rings[CCM_MAX_RINGS];
};

struct ccm_job_slot {
	u32 base;
	u64 cookie;
};

struct ccm_prog_region {
	u32 base, count;
};

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
	u32 dma_error_armed;		/* atomic: ccm_inject_dma_error() */
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
	struct ccm_mutex lock;
	struct ccm_cond work;		/* workers: an agent was queued */
	struct ccm_cond host;		/* host waiters: something changed */
	struct ccm_agent **queue;	/* ring buffer of queued agents */
	u64 *stamp;			/* ccm_cycles() when each was queued, 0: long-running */
	u64 steal_cycles;		/* CCM_STEAL_AGE_NS in cycles */
	u32 head, count, cap;
	u32 running;
	u32 sleepers;			/* workers waiting on @work */
	u32 host_waiters;		/* atomic */
	u32 host_sleepers;		/* atomic: waiters blocked on @host */
	u64 gen;			/* bumped by ccm_host_kick() */
	bool stop;
	struct ccm_thread *threads;
	u32 nthreads;
	u64 rng;			/* inline mode: order of ready agents */
};

struct ccm_fabric {
	struct ccm_config cfg;
	const struct ccm_host_ops *ops;
	void *host;
	u32 ndev;
	struct ccm_device *devs;
	struct ccm_sched sched;
};

/* ccm_sched.c */
int ccm_sched_init(struct ccm_fabric *f);
void ccm_sched_start(struct ccm_fabric *f);
void ccm_sched_fini(struct ccm_fabric *f);
void ccm_agent_wake(struct ccm_agent *a);
/* @heavy: long work that workers may take at once (big DMA descriptors). */
void ccm_agent_wake_heavy(struct ccm_agent *a, bool heavy);
/* Tell host waiters something they may wait for changed. */
void ccm_host_kick(struct ccm_fabric *f);

/* ccm_engine.c / ccm_cc.c */
int ccm_engine_init(struct ccm_engine *e, struct ccm_core *core, u32 index);
void ccm_engine_fini(struct ccm_engine *e);
enum ccm_step_result ccm_engine_step(struct ccm_engine *e);
struct ccm_ring *ccm_core_ring(struct ccm_core *core, u32 engine, u32 ring);
/* Started descriptors not yet completed, failed or discarded. */
bool ccm_ring_busy(const struct ccm_ring *r);
int ccm_cc_init(struct ccm_cc *cc, struct ccm_core *core, u32 index);
void ccm_cc_fini(struct ccm_cc *cc);
enum ccm_step_result ccm_cc_step(struct ccm_cc *cc);
/* Semaphore @ref of @core changed: wake the CC cores that may wait on it. */
void ccm_core_wake_sem(struct ccm_core *core, u32 ref);
/* A ring of @core progressed: wake the CC cores that may wait on it. */
void ccm_core_wake_ring(struct ccm_core *core);
/* CC core @cc of @dev (device-wide index), or NULL with an error naming the ranges. */
struct ccm_cc *ccm_cc_of(const struct ccm_fabric *f, u32 dev, u32 cc, struct ccm_err *err);
/* A DMA engine of @core failed a descriptor: fault every CC core of @core
 * running a job with @msg, failing the job with -EIO as a runtime fault does. */
void ccm_cc_dma_error(struct ccm_core *core, const char *msg);

/* ccm_fault.c: take an armed fault (one-shot); true if it fires now. */
bool ccm_fault_take_dma_error(struct ccm_core *core);
/* Called with @cc's lock held, as @cc starts a job. */
bool ccm_fault_take_cc_hang(struct ccm_cc *cc);

/* ccm_sem.c */
u32 *ccm_sem_slot(const struct ccm_fabric *f, u32 ref);

/* ccm_fabric.c */
struct ccm_device *ccm_dev(const struct ccm_fabric *f, u32 dev);
struct ccm_core *ccm_core_of(const struct ccm_fabric *f, u32 dev, u32 core);
/* ccm_core_of(), failing with -EINVAL in @err naming the ranges. */
struct ccm_core *ccm_core_get(const struct ccm_fabric *f, u32 dev, u32 core,
			      struct ccm_err *err);
void ccm_link_account(struct ccm_fabric *f, u32 from, u32 to, u64 bytes);

#endif
