/* SPDX-License-Identifier: MIT */
/*
 * The sim backend: the uAPI implemented in-process on the device model.
 * One sim_ctx per device plays the part of an open /dev/accel/accelN file;
 * its handles, address space and ownership rules follow the kernel driver's
 * so the same runtime code runs on either.  File descriptors the uAPI
 * passes between contexts (dma-buf, semaphore export) are emulated as
 * tokens valid within the fabric.
 *
 * A shared system (sim_shared.c) is one fabric that several processes of a
 * host open: the model, device memory and what every process must see (the
 * contexts' semaphore blocks, the tokens, struct sim_shared) live in an
 * arena all of them map at one address; each process keeps its own handles,
 * rings, programs and jobs, and runs the cores it claimed.
 */
#ifndef CCORE_SIM_H
#define CCORE_SIM_H

#include <fcntl.h>

#include "ccore_internal.h"
#include "ccm.h"
#include "ccm_uapi.h"
#include "ccm_verify.h"

#define SIM_JOB_SLOTS 4096	/* jobs in flight per context */
#define SIM_TOKEN_BASE 0x40000000
#define SIM_HELP_NS 20000	/* work a triggering thread does itself */

/* A set of pointers, each held once (what a ring or program refers to). */
struct sim_set {
	void **items;
	u32 count, cap;
};

/* Device memory, shared by a buffer and its imports. */
struct sim_mem {
	struct sim_mem *next, *prev;	/* shared system: every allocation */
	u8 *host;
	u64 size;		/* requested */
	u64 span;		/* allocated, page multiple */
	u32 dev;
	u32 refs;		/* under the system lock */
	bool user;		/* registered user memory: not ours to free */
	bool virt;		/* timed virtual=1: no host memory behind it */
	u32 slot_refs[CCM_MAX_PROCS];	/* of @refs, those of each process slot */
};

/*
 * Where virtual buffers (timed mode, virtual=1) pretend to live: an
 * address nothing is mapped at.  Descriptors are translated as usual; the
 * model never touches the bytes and maps hand out no host view.
 */
#define SIM_VIRT_BASE ((u8 *)(uintptr_t)(1ull << 46))

struct sim_bo {
	struct sim_mem *mem;
	u64 va;
};

/*
 * A block of semaphores a context allocated.  Programs and rings are
 * checked when loaded or written and run later, so each block they name
 * is pinned while they exist: a pinned block cannot be freed (-EBUSY).
 */
struct sim_sem_block {
	struct sim_sem_block *next;
	struct ccm_uapi_sem_block u;	/* owner: the sim_ctx */
};

struct sim_ring {
	struct ccm_uapi_ring u;	/* where it is, what may not go */
	struct sim_set mems;	/* struct sim_mem its descriptors reach */
	struct sim_set sems;	/* struct sim_sem_block they signal or write */
};

struct sim_prog {
	u32 cc;
	u32 base;
	u32 count;
	u32 pending;		/* atomic: jobs queued or running */
	struct sim_set sems;	/* struct sim_sem_block its instructions use */
	struct sim_set rings;	/* struct sim_ring it starts or waits for */
};

struct sim_job {
	u64 seq;
	u32 done;		/* atomic */
	s32 status;
	u32 cc;
	/* its own timeout runs from submission: the cycle counter then (a
	 * clock read per submit would cost more than a small job's steps) */
	u64 submit_cycles;
	u64 timeout_ns;
	struct sim_prog *prog;
	u64 trigger_ps, start_ps, end_ps;	/* timed model: its trigger, its program's run */
};

/* A table of objects named by small integer handles (1..). */
struct sim_handles {
	void **slot;
	u32 cap;
};

/* A buffer or semaphore block a context exported for the exchange (sim_xtoken.c). */
struct sim_xtoken {
	u32 kind, id;
	s32 token;
};

/* A block of another host's semaphores a context may signal (sim_remote.c). */
struct sim_remote_sems {
	u32 first, count;
};

struct sim_ctx {
	struct ccore_dev base;
	struct sim_system *sys;	/* process-local: only its process follows it */
	struct sim_ctx *next_ctx;	/* shared system: every context opened */
	u32 slot;		/* shared system: its process's slot */
	bool released;		/* shared system: closed or its process died, semaphores freed */
	u32 dev;
	struct ccm_vm vm;
	struct sim_handles bos, rings, progs;
	struct sim_sem_block *blocks;	/* allocated */
	u64 *grants;		/* serials of the imported allocations */
	u32 ngrants, grants_cap;
	struct sim_remote_sems *remote_sems;	/* other hosts' blocks it may signal */
	u32 nremote_sems, remote_sems_cap;
	struct sim_job *jobs;	/* SIM_JOB_SLOTS, by seq */
	s64 *compute_deadline;	/* per core: when its compute program times out */
	u64 next_seq;
	u64 serial;		/* unique in the process: names it in GET_LAST_ERROR's records */
	struct sim_xtoken *xtokens;	/* process-local: its exchange exports */
	u32 nxtokens, xtokens_cap;
};

struct sim_token {
	bool open;		/* the emulated fd is open (else the slot is free) */
	bool sem;
	u16 gen;		/* bumped as the slot is reused: a stale token is refused */
	u32 slot;		/* the exporting process's slot (shared system) */
	struct sim_mem *mem;	/* dma-buf: a reference, held while open */
	u32 first, count;	/* semaphore block */
	u64 serial;		/* its allocation */
	u32 next_free;		/* free slots: 1 + the next one, 0 ends */
};

/* Token fds: SIM_TOKEN_BASE + generation (14 bits) << 16 + slot. */
#define SIM_TOKEN_SLOTS 65536
#define SIM_TOKEN_GENS 16384

/*
 * What every context of the fabric sees: in the arena for a shared system
 * (every process's), else in the process's heap.
 */
struct sim_shared {
	struct ccm_mutex lock;	/* every table below and in the contexts */
	struct ccm_fabric *f;
	struct sim_token *tokens;
	u32 ntokens, tokens_cap;
	u32 free_token;		/* 1 + the first free slot, 0: none */
	u64 sem_serial;		/* of the last semaphore allocation */
	u32 fw_size;		/* resident firmware instructions */
	/* shared system only */
	u32 ready;		/* atomic: the creator finished setting up */
	char config[256];	/* the fabric's configuration, as given */
	struct sim_mem *mems;
	struct sim_ctx *ctxs;
	char dead_cores[CCM_MAX_PROCS][160];	/* what a dead slot held */
};

struct sim_link;

struct sim_system {
	struct ccore_system base;
	struct ccm_fabric *f;
	struct sim_shared *sh;
	struct sim_ctx **ctx;
	/* shared system only (sim_shared.c) */
	struct ccm_arena *arena;	/* NULL: a plain, one-process system */
	u32 slot;			/* this process's */
	u32 deaths_seen;		/* ccm_fabric_deaths() last reported */
	struct sim_link *link;		/* the memfd and how others get it */
	struct sim_net *net;		/* across hosts (sim_net.c), NULL: one host */
};

static inline struct sim_ctx *to_ctx(struct ccore_dev *dev)
{
	return (struct sim_ctx *)dev;
}

/* sim_shared.c: shared systems */
/*
 * Where a shared fabric's arena goes in every process: far from the heap,
 * the libraries and the sanitizers' shadow, one TiB per slot; its
 * creator takes the first free slot from its job key's hint on.
 */
#define SIM_ARENA_HINT 0x300000000000ull
#define SIM_ARENA_STRIDE (1ull << 40)
#define SIM_ARENA_HINTS 32
u32 sim_arena_hint(const char *key);

static inline bool sim_shared(const struct sim_system *s)
{
	return s->arena != NULL;
}

/* Take a reference to @m for this process; drop it with sim_mem_put(). */
void sim_mem_get(struct sim_system *s, struct sim_mem *m);
/* A fresh struct sim_mem (in the arena of a shared system), one reference. */
struct sim_mem *sim_mem_new(struct sim_system *s);
/* -EPERM naming who has it unless this process claimed core @core of @dev. */
int sim_core_mine(struct sim_ctx *c, unsigned long req, u32 core);
/*
 * ccm_fabric_wait() that, on a shared system, also fails (-EPIPE) when a
 * process sharing the fabric dies meanwhile, naming it; @what names the
 * request in the message.
 */
int sim_wait(struct sim_ctx *c, bool (*cond)(void *), void *arg, s64 deadline_ns,
	     const char *what);
/* The same for JOB_WAIT, whose @cond only a job's end changes (ccm_fabric_wait_job()). */
int sim_wait_job(struct sim_ctx *c, bool (*cond)(void *), void *arg, s64 deadline_ns);
/* Find processes that died, release what they held; the mask found dead. */
u64 sim_reap_dead(struct sim_system *s);
int sim_shared_open(const char *key, const struct ccore_shared_opts *opts,
		    struct ccore_system **out);
void sim_shared_close(struct sim_system *s);

/* sim_xtoken.c: the exchange's tokens on a shared system (struct ccore_backend_ops) */
int sim_xtoken_bo_export(struct ccore_dev *dev, uint32_t handle, uint64_t dev_addr,
			 struct ccore_token *tok);
int sim_xtoken_bo_import(struct ccore_dev *dev, const struct ccore_token *tok, uint32_t *handle,
			 uint64_t *dev_addr);
int sim_xtoken_sem_export(struct ccore_dev *dev, uint32_t first, struct ccore_token *tok);
int sim_xtoken_sem_import(struct ccore_dev *dev, const struct ccore_token *tok);
/* The handle or block (@kind 1: buffer, 2: semaphores) goes: close its export. Locked. */
void sim_xtoken_drop(struct sim_ctx *c, int kind, u32 id);
void sim_xtoken_fini(struct sim_ctx *c);
/* A shared system's devices: sim_ops with the exchange's tokens. */
extern const struct ccore_backend_ops sim_shared_ops;
/* the shared-system operations of struct ccore_backend_ops */
int sim_claim_core(struct ccore_system *base, uint32_t dev, uint32_t core);
int sim_slots(struct ccore_system *base, uint32_t *slot, uint64_t *dead);
int sim_slot_pid(struct ccore_system *base, uint32_t slot, uint32_t *pid);
/* sim_system.c, for sim_shared.c */
extern const struct ccore_backend_ops sim_ops;
extern const struct ccm_host_ops sim_host_ops;
int sim_load_firmware(struct sim_system *s);
int sim_ctx_open(struct sim_system *s, u32 dev);
void sim_ctx_fini(struct sim_ctx *c);

/* Report a model failure as the last error of an ioctl. */
int sim_fail(unsigned long request, int rc, const struct ccm_err *err);

/* sim_handles.c */
int sim_handle_add(struct sim_handles *h, void *obj, u32 *handle);
void *sim_handle_get(const struct sim_handles *h, u32 handle);
void *sim_handle_remove(struct sim_handles *h, u32 handle);
void sim_handles_fini(struct sim_handles *h);
/* 1 if @p was added, 0 if it was there, -ENOMEM */
int sim_set_add(struct sim_set *s, void *p);
void sim_set_fini(struct sim_set *s);

/* the ioctl families, each in its own file; called with the lock held */
int sim_param_ioctl(struct sim_ctx *c, unsigned long req, void *arg);
int sim_bo_ioctl(struct sim_ctx *c, unsigned long req, void *arg);
/* the ring, semaphore and job requests, each @arg its struct drm_ccore_* */
int sim_ring_create(struct sim_ctx *c, void *arg);
int sim_ring_destroy(struct sim_ctx *c, void *arg);
int sim_ring_submit(struct sim_ctx *c, void *arg);
int sim_ring_stats(struct sim_ctx *c, void *arg);
int sim_sem_alloc(struct sim_ctx *c, void *arg);
int sim_sem_free(struct sim_ctx *c, void *arg);
int sim_sem_access(struct sim_ctx *c, void *arg);
int sim_sem_export(struct sim_ctx *c, void *arg);
int sim_sem_import(struct sim_ctx *c, void *arg);
int sim_program_load(struct sim_ctx *c, void *arg);
int sim_program_free(struct sim_ctx *c, void *arg);
int sim_submit(struct sim_ctx *c, void *arg);
int sim_cc_trigger(struct sim_ctx *c, void *arg);
int sim_compute_submit(struct sim_ctx *c, struct drm_ccore_compute_submit *a);
/* waits run without the lock */
int sim_sem_wait(struct sim_ctx *c, struct drm_ccore_sem_wait *a);
int sim_job_wait(struct sim_ctx *c, struct drm_ccore_job_wait *a);
int sim_job_times(struct sim_ctx *c, u64 job, struct ccore_job_times *out);
int sim_compute_wait(struct sim_ctx *c, struct drm_ccore_compute_wait *a);

void sim_mem_put(struct sim_system *s, struct sim_mem *m);
/* Drop a reference process slot @slot held (a token's, a dead process's). */
void sim_mem_put_slot(struct sim_system *s, struct sim_mem *m, u32 slot);
/* Verifier callback: @owner (a sim_ctx) allocated or imported @ref. */
bool sim_sem_usable(void *owner, u32 ref);
bool sim_ring_owned(void *owner, u32 dev, u32 core, u32 engine, u32 ring);
struct sim_ring *sim_ring_find(struct sim_ctx *c, u32 core, u32 engine, u32 ring);
/* Keep what checked descriptor @d reaches (memory, semaphores) while @r exists. */
int sim_ring_refs(struct sim_ctx *c, struct sim_ring *r, const struct drm_ccore_desc *d);
/* Pin the block of @ref (if any) in @pins, once. */
int sim_sem_pin(struct sim_ctx *c, struct sim_set *pins, u32 ref);
void sim_sem_unpin_all(struct sim_set *pins);
/* At system close: programs, then rings (they unpin), then the rest. */
void sim_job_fini(struct sim_ctx *c);
void sim_ring_fini(struct sim_ctx *c);
void sim_bo_fini(struct sim_ctx *c);
void sim_sem_fini(struct sim_ctx *c);
int sim_token_new(struct sim_system *s, const struct sim_token *t, s32 *fd);
const struct sim_token *sim_token_get(const struct sim_system *s, s32 fd);
/* -EBADF saying why @fd is no open token (forged, closed or stale); @what
 * names the request. */
int sim_token_bad(const struct sim_system *s, const char *what, s32 fd);
/* The same reason, written to @buf. */
void sim_token_why(const struct sim_system *s, s32 fd, char *buf, size_t len);
/* close(2) of an exported fd: drops what it holds (caller holds s->lock). */
int sim_token_close(struct sim_system *s, s32 fd);

/*
 * sim_remote.c: other hosts' memory and semaphores, which this host's
 * NIC reaches (model/ccm_nic.c).  Map @size bytes of device @dev on
 * another host, whose first byte its NIC knows as @remote, at a fresh
 * address of @d's context; let @d's descriptors signal @count semaphores
 * of another host from @first.  Unmapped when the context closes.
 */
int sim_remote_map(struct ccore_dev *d, u32 dev, u64 size, u64 remote, uint64_t *va);
int sim_remote_sems(struct ccore_dev *d, u32 first, u32 count);
/* The size of @c's semaphore block that starts at @first; 0: none. With the lock held. */
u32 sim_sem_block_size(struct sim_ctx *c, u32 first);
/* True if @c may signal @ref, another host's semaphore. */
bool sim_remote_sem_usable(const struct sim_ctx *c, u32 ref);
void sim_remote_fini(struct sim_ctx *c);

/* sim_net.c: another host's memory as the model names it (ccm_vm_map_remote()). */
u64 sim_net_remote(u32 host, u64 arena_off);
/* Where a shared system's arena is mapped (in every process of the host). */
u64 sim_arena_base(const struct sim_system *s);
/* Stop the proxy (before the fabric): what is queued fails. */
void sim_net_stop(struct sim_system *s);
/* The model's nic_posted hook: hand @dev/@core's posts to the transport now. */
bool sim_net_posted(void *host, u32 dev, u32 core);
/* 1 with why in @why if a connection to another host failed (waits then fail), else 0. */
int sim_net_broken(struct sim_system *s, char *why, size_t len);

#endif
