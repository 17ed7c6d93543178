/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccm: the ccore device model, the hardware in software.
 *
 * A fabric is a set of devices (nodes of devices linked in a ring or 2D
 * torus, nodes joined by NICs).  Each device has logical cores; each core
 * has CC cores, DMA engines with up to 16 rings, and a semaphore bank.
 * CC cores and DMA engines are state machines stepped by a small worker
 * pool (or, with workers == 0, inline and deterministically by whoever
 * waits).  Descriptors reach the model already validated and translated
 * (see ccm_verify.h); the model itself trusts nothing else it is given and
 * bounds-checks every index.
 */
#ifndef CCM_H
#define CCM_H

#include "ccm_os.h"
#include "ccore_accel.h"

#define CCM_MAX_RINGS 16
#define CCM_MAX_DEVICES 255
/* devices of one node's ring or torus (the ideal setting routes nothing: CCM_MAX_DEVICES) */
#define CCM_MAX_NODE_DEVICES 64
#define CCM_MAX_CORES 64
#define CCM_MAX_CC_CORES 8
#define CCM_MAX_ENGINES 16
#define CCM_MAX_SEMS 65535
#define CCM_ERR_LEN 256
#define CCM_NO_INDEX 0xffffffffu
#define CCM_ALL_NODES 0xffffffffu

/**
 * struct ccm_err - why a model call failed
 * @index: descriptor or instruction index at fault, or CCM_NO_INDEX
 * @reason: the uAPI rule broken (enum drm_ccore_reason), or
 *	DRM_CCORE_REASON_NONE where the failure names none
 * @limit: the bound that rule enforces, where the reason says
 * @msg: human-readable reason naming the bad field and what is allowed
 */
struct ccm_err {
	u32 index;
	u32 reason;
	u64 limit;
	char msg[CCM_ERR_LEN];
};

/*
 * Double the array *@arr of *@cap elements of @size bytes (to @first when
 * empty), keeping its first @count; -ENOMEM leaves it as it was.
 */
int ccm_grow(void **arr, u32 *cap, u32 count, size_t size, u32 first);

/* Record a failure in @err (may be NULL) and return @errno_neg. */
__printf(4, 5)
int ccm_fail(struct ccm_err *err, int errno_neg, u32 index, const char *fmt, ...);
/* The same for a broken uAPI rule: @reason (enum drm_ccore_reason), @limit. */
__printf(5, 6)
int ccm_reject(struct ccm_err *err, int errno_neg, u32 reason, u64 limit, const char *fmt, ...);

/**
 * struct ccm_config - the shape and limits of a fabric
 *
 * Every field can be set with ccm_config_parse() ("key=value,...").
 */
struct ccm_config {
	u32 nodes;
	u32 devices_per_node;
	u32 topology;		/* DRM_CCORE_TOPO_* */
	u32 torus_x, torus_y;	/* torus: x * y == devices_per_node */
	u32 cores;		/* logical cores (ranks) per device */
	u32 cc_cores;		/* CC cores per logical core, >= 2 */
	u32 engines;		/* DMA engines per logical core */
	u32 rings;		/* rings per engine, <= 16 */
	u32 sems;		/* semaphores per core (some are reserved) */
	u64 hbm_size;		/* device memory per device */
	u32 min_packet_size;
	u32 max_packet_size;
	u32 cc_dma_packet_size;	/* default CC ring packet size */
	u32 dma_packetization_size;	/* default compute ring packet size */
	u32 max_ring_size;	/* descriptor slots */
	u32 max_program_size;	/* instructions per CC core */
	u32 job_timeout_ms;	/* default job timeout */
	u32 workers;		/* 0: inline deterministic; else worker threads */
	/*
	 * CCM_ALL_NODES: every node's devices are on this host.  Else only
	 * node @here's: the others' memory and semaphores are on other hosts,
	 * reached through the NIC (ccm_nic.c).
	 */
	u32 here;
	u64 seed;		/* inline mode: order in which ready agents run */
	/* timed mode (ccm_timed.c, ccm_xfer.c); unused in functional mode */
	u32 timed;		/* 1: discrete-event virtual clock, inline */
	u32 virt;		/* 1: buffers have no host memory, no bytes move */
	u32 ideal;		/* 1: one tier (alpha_node, bw_node), no contention, no overheads */
	u32 alpha_dev_ns, alpha_node_ns, alpha_net_ns;	/* per hop, per tier */
	u32 bw_dev_gbps, bw_node_gbps, bw_net_gbps;	/* per link direction, per tier */
	u32 bw_engine_gbps;	/* a DMA engine's throughput (also local copies) */
	u32 cc_insn_ns;		/* a CC-core instruction */
	u32 sem_ns;		/* a semaphore change reaching a waiting CC core */
};

void ccm_config_default(struct ccm_config *cfg);
/* Parse "key=value,key=value" onto @cfg; errors name the key and range. */
int ccm_config_parse(struct ccm_config *cfg, const char *spec, struct ccm_err *err);
int ccm_config_check(const struct ccm_config *cfg, struct ccm_err *err);
/* Write the keys ccm_config_parse() accepts, with their ranges. */
int ccm_config_help(char *buf, size_t len);
/*
 * GET_PARAM's answer for DRM_CCORE_PARAM_* @param from @c alone; -ENOENT
 * for the params that depend on the device or change (its index, the
 * fabric's size, packet sizes, the firmware): the backend answers those.
 */
int ccm_config_param(const struct ccm_config *c, u32 param, u64 *value);

/**
 * struct ccm_hwdesc - a validated, translated descriptor as a ring holds it
 *
 * Addresses are host pointers into device memory; the *_dev fields name the
 * device each operand's memory belongs to: reading or writing another
 * device's memory crosses the links from or to the engine's device.
 */
struct ccm_hwdesc {
	u8 op, dtype, redop, flags;
	u32 signal_sem;
	u32 signal_value;
	u32 value;
	u64 len;
	u8 *dst;
	const u8 *src0;
	const u8 *src1;
	u32 sem_target;		/* SEM_WRITE */
	u16 dst_dev, src0_dev, src1_dev;
	u64 dst_remote;		/* dst on another host (dst NULL): its address there */
};

struct ccm_fabric;
struct ccm_arena;

/**
 * struct ccm_host_ops - how the model reports to its host
 * @job_done: a job's program returned (status 0) or faulted (negative)
 * @notify: a CC core executed NOTIFY
 * @compute_done: a compute engine's program ended (see ccm_compute_submit())
 * @job_times: timed mode, just before @job_done: the virtual times (ps) of
 *	the trigger the job ran on, of its start (its program called) and of
 *	its end
 *
 * All are called from worker context with no model lock held; they must
 * not block.  Host waiters are woken through ccm_fabric_wait() anyway.
 */
struct ccm_host_ops {
	void (*job_done)(void *host, u64 cookie, int status);
	void (*notify)(void *host, u32 dev, u32 cc_core, u32 value);
	void (*compute_done)(void *host, u32 dev, u32 core, int status);
	void (*job_times)(void *host, u64 cookie, u64 trigger_ps, u64 start_ps, u64 end_ps);
	/*
	 * A descriptor of @dev/@core went to the NIC queue (ccm_nic.c), told
	 * in the thread that stepped its engine when that thread is the core
	 * owner's: the proxy may take it there and then (ccm_nic_take()), or
	 * the driver wake its pollers.  False (or no hook): the owner's pump
	 * is woken (ccm_nic_sleep()).
	 */
	bool (*nic_posted)(void *host, u32 dev, u32 core);
};

struct ccm_fabric *ccm_fabric_create(const struct ccm_config *cfg,
				     const struct ccm_host_ops *ops, void *host,
				     struct ccm_err *err);
/* Stop the workers: nothing runs afterwards (before freeing host memory). */
void ccm_fabric_stop(struct ccm_fabric *f);
void ccm_fabric_destroy(struct ccm_fabric *f);
const struct ccm_config *ccm_fabric_config(const struct ccm_fabric *f);
u32 ccm_fabric_num_devices(const struct ccm_fabric *f);

/*
 * Runtime-writable device defaults (the packet-size knobs).  Rules: the CC
 * packet size may only be lowered from max_packet_size, the compute
 * packetization only raised from its built-in default.
 */
int ccm_device_set_cc_packet_size(struct ccm_fabric *f, u32 dev, u32 bytes,
				  struct ccm_err *err);
int ccm_device_set_dma_packetization(struct ccm_fabric *f, u32 dev, u32 bytes,
				     struct ccm_err *err);
u32 ccm_device_cc_packet_size(const struct ccm_fabric *f, u32 dev);
u32 ccm_device_dma_packetization(const struct ccm_fabric *f, u32 dev);
/* Check a ring packet size: power of two within the device limits. */
int ccm_check_packet_size(const struct ccm_config *cfg, u32 bytes, const char *what,
			  struct ccm_err *err);

/* Device memory accounting (the host allocates the bytes). */
int ccm_device_mem_reserve(struct ccm_fabric *f, u32 dev, u64 bytes, struct ccm_err *err);
void ccm_device_mem_release(struct ccm_fabric *f, u32 dev, u64 bytes);
u64 ccm_device_mem_used(const struct ccm_fabric *f, u32 dev);

/* --- rings ----------------------------------------------------------------
 * A ring slot (dev, core, engine, ring) is claimed by one owner at a time.
 */
/*
 * @errors counts descriptors that failed (a DMA error), @discarded those
 * started behind a failed one and dropped; an idle ring has
 * started == completed + errors + discarded.
 */
struct ccm_ring_stats {
	u32 packet_size;
	u32 size;		/* slots */
	u32 written;		/* descriptors written */
	u64 bytes, packets, started, completed, errors;
	u64 discarded;
	s64 index_stride;	/* an indexed ring's (index_count > 0) */
	u32 index_count;
};

/*
 * An indexed ring (@index_count > 0, see struct drm_ccore_ring_create)
 * displaces the addresses of its data descriptors by index *
 * @index_stride bytes, the index given by the START (0) or STARTI that
 * started them.  The limits are the uAPI's.
 */
int ccm_ring_claim(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		   u32 slots, u32 packet_size, s64 index_stride, u32 index_count, void *owner,
		   struct ccm_err *err);
/* The owner given to ccm_ring_claim(), or NULL for a free ring slot. */
void *ccm_ring_owner(const struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring);
/* Fails with -EBUSY while descriptors are in flight. */
int ccm_ring_release(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		     struct ccm_err *err);
/* Append descriptors (already translated) to an idle ring; -ENOSPC past
 * the slots, -EBUSY while descriptors are in flight. */
int ccm_ring_write(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		   const struct ccm_hwdesc *descs, u32 count, struct ccm_err *err);
/*
 * Start the next @count written descriptors (wrapping), as START does: an
 * indexed ring's at index 0.  Unlike STARTI this does not wait for free
 * slots: a slot started again before it completed takes index 0.  @count
 * is at most the descriptors written (-EINVAL past them): one START goes
 * round the ring at most once.
 */
int ccm_ring_start(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		   u32 count, struct ccm_err *err);
int ccm_ring_stats(const struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		   struct ccm_ring_stats *st);
bool ccm_ring_idle(const struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring);
/*
 * Drop everything started on the ring and not yet complete, the descriptor
 * moving included: no more bytes move and nothing more is signalled; they
 * count as discarded.  The functional engine drops them at its next packet
 * boundary, so the ring is idle within one packet (the driver's close
 * path).  The timed model runs only when waited for: -EOPNOTSUPP there.
 */
int ccm_ring_abort(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring);

/* --- semaphores -------------------------------------------------------- */
bool ccm_sem_valid(const struct ccm_fabric *f, u32 ref);
/* Allocate @count consecutive free semaphores of a core for @owner. */
int ccm_sem_alloc(struct ccm_fabric *f, u32 dev, u32 core, u32 count, void *owner,
		  u32 *first, struct ccm_err *err);
/* Free the block starting at @first; only its owner may. */
int ccm_sem_free(struct ccm_fabric *f, u32 first, void *owner, struct ccm_err *err);
/*
 * Free every semaphore of @owner on device @dev, the only one it allocates
 * on (on context close: a scan of one device's cores, not the fabric's).
 */
void ccm_sem_free_owner(struct ccm_fabric *f, u32 dev, void *owner);
void *ccm_sem_owner(const struct ccm_fabric *f, u32 ref);
u32 ccm_sem_read(const struct ccm_fabric *f, u32 ref);
void ccm_sem_set(struct ccm_fabric *f, u32 ref, u32 value);
void ccm_sem_add(struct ccm_fabric *f, u32 ref, u32 value);

/* --- CC cores -----------------------------------------------------------
 * cc is the device-wide CC core index: core * cc_cores + CC core of core.
 */
enum ccm_cc_state {
	CCM_CC_IDLE,		/* halted or never started */
	CCM_CC_RUNNING,		/* executing or ready */
	CCM_CC_WAITING,		/* blocked on a semaphore, ring, trigger or queue */
	CCM_CC_FAULT,		/* stopped on a runtime fault until reset */
};

struct ccm_cc_info {
	enum ccm_cc_state state;
	u32 pc;
	u32 regs[DRM_CCORE_NUM_REGS];
	u32 depth;
	u32 trigger;		/* pending triggers */
	u32 queued;		/* scheduled programs not yet started */
	u64 insns;		/* instructions executed */
	u64 notifies;
	u32 last_notify;
	char fault[CCM_ERR_LEN];
	u64 dma_errors;		/* DMA errors that faulted this CC core's job */
	u64 hangs;		/* jobs that hung (ccm_inject_cc_hang()) */
	u64 resets;		/* ccm_cc_reset() calls: recoveries */
};

/* Load the resident firmware at pc 0 of every CC core and start them. */
int ccm_load_firmware(struct ccm_fabric *f, const struct drm_ccore_insn *insns, u32 count,
		      struct ccm_err *err);
/* Copy a verified program into a CC core's instruction memory. */
int ccm_cc_load(struct ccm_fabric *f, u32 dev, u32 cc, const struct drm_ccore_insn *insns,
		u32 count, u32 *base, struct ccm_err *err);
void ccm_cc_unload(struct ccm_fabric *f, u32 dev, u32 cc, u32 base);
/* Queue the program at @base as a job; NEXT in the dispatcher calls it. */
int ccm_cc_enqueue(struct ccm_fabric *f, u32 dev, u32 cc, u32 base, u64 cookie,
		   struct ccm_err *err);
void ccm_cc_trigger(struct ccm_fabric *f, u32 dev, u32 cc, u32 count);
/*
 * Stop a CC core (running, waiting, hung or faulted), complete its running
 * job, unless a fault already completed it, and its queued jobs with
 * @status, drop pending triggers, restart the firmware.  Each job completes
 * once.  Used after a job timeout or a fault; injected faults not yet taken
 * stay armed.
 */
void ccm_cc_reset(struct ccm_fabric *f, u32 dev, u32 cc, int status);
void ccm_cc_info(const struct ccm_fabric *f, u32 dev, u32 cc, struct ccm_cc_info *info);

/* --- compute engines (ccm_compute.c) --------------------------------------
 * One per logical core.  A compute program (struct drm_ccore_ce_insn[],
 * verified with ccm_compute_verify()) computes, copies through a DMA ring
 * of its core, triggers CC cores and waits on semaphores; see
 * Documentation/device-model.rst, "Compute engines".
 */

/* The longest COMPUTE instruction: an hour. */
#define CCM_CE_MAX_DURATION_NS 3600000000000ull

/**
 * struct ccm_compute_info - a compute engine and its last program
 * @running: a program is running
 * @owner: who submitted the last program (NULL: none yet)
 * @pc: the instruction it is at
 * @status: of the last program once ended: 0, -EIO, or the abort status
 * @fault: why it failed, naming the instruction (empty if it did not)
 * @insns: the last program's instructions executed
 * @busy_ns: its COMPUTE nanoseconds
 * @dma_bytes: the bytes of its DMA instructions
 * @start_ps: timed mode: the virtual time it started at
 * @end_ps: timed mode: the virtual time it ended at
 * @programs: programs ended since the fabric was created
 * @total_insns: instructions executed since then
 * @total_busy_ns: COMPUTE nanoseconds since then
 * @total_dma_bytes: DMA instruction bytes since then
 */
struct ccm_compute_info {
	bool running;
	void *owner;
	u32 pc;
	int status;
	char fault[CCM_ERR_LEN];
	u64 insns, busy_ns, dma_bytes;
	u64 start_ps, end_ps;
	u64 programs, total_insns, total_busy_ns, total_dma_bytes;
};

/*
 * Run a verified program (@ndma descriptors from ccm_compute_verify()) on
 * the compute engine of @core, on behalf of @owner.  The descriptors
 * replace the contents of ring @engine/@ring of @core, which @owner must
 * have claimed, idle, with @ndma slots or more.  -EBUSY while the engine
 * runs a program.
 */
int ccm_compute_submit(struct ccm_fabric *f, u32 dev, u32 core,
		       const struct drm_ccore_ce_insn *insns, u32 count, u32 engine,
		       u32 ring, const struct ccm_hwdesc *descs, u32 ndma, void *owner,
		       struct ccm_err *err);
/* True when the compute engine of @core runs no program. */
bool ccm_compute_idle(const struct ccm_fabric *f, u32 dev, u32 core);
/* Stop the running program if @owner's (NULL: anyone's): it ends with
 * @status (negative). */
void ccm_compute_abort(struct ccm_fabric *f, u32 dev, u32 core, void *owner, int status);
int ccm_compute_info(const struct ccm_fabric *f, u32 dev, u32 core,
		     struct ccm_compute_info *info);

/* --- fault injection (ccm_fault.c) ---------------------------------------
 * One-shot faults for the driver's debugfs and its timeout and recovery
 * tests.  Arming an armed fault again changes nothing; a fault stays armed
 * until it fires.
 */

/**
 * ccm_inject_dma_error() - fail the next descriptor a core's engines start
 * @f: the fabric
 * @dev: device index
 * @core: logical core of @dev
 * @err: why it failed (may be NULL)
 *
 * The next descriptor any DMA engine of @core starts fails with a DMA error
 * instead of running: no bytes move, no semaphore is written or signalled,
 * the ring's @errors counter increments and the ring stops (the descriptors
 * started behind it are discarded and the ring is idle; what was written
 * stays for the next START).  Every CC core of @core running a job faults
 * (CCM_CC_FAULT, ccm_cc_info().fault names the device, core, engine, ring
 * and descriptor) and its job completes with -EIO, as a runtime fault does.
 *
 * Return: 0, or -EINVAL for a @dev or @core that does not exist.
 */
int ccm_inject_dma_error(struct ccm_fabric *f, u32 dev, u32 core, struct ccm_err *err);

/**
 * ccm_inject_cc_hang() - hang the next job a CC core starts
 * @f: the fabric
 * @dev: device index
 * @cc: device-wide CC core index
 * @err: why it failed (may be NULL)
 *
 * The next job CC core @cc starts never completes: the core stays
 * CCM_CC_RUNNING at the job's first instruction and executes nothing, as if
 * its firmware deadlocked, until ccm_cc_reset() completes the job with the
 * status given there and restarts the core.
 *
 * Return: 0, or -EINVAL for a @dev or @cc that does not exist.
 */
int ccm_inject_cc_hang(struct ccm_fabric *f, u32 dev, u32 cc, struct ccm_err *err);

/**
 * ccm_inject_thief_death() - die inside the next step stolen from another process
 *
 * Shared fabrics only (userspace): the next step this process runs of
 * another process's agent (model/ccm_steal_user.c) kills this process
 * (SIGKILL) after the step began and before it ended, as a kill at the
 * wrong moment would; its reaper must then fail that core's jobs and put
 * the agent back.
 */
void ccm_inject_thief_death(void);

/**
 * ccm_inject_runner_stop() - stop when next taking the role of stepping everyone's agents
 *
 * Shared fabrics only (userspace): the next time this process becomes the
 * one that steps the light agents of every process (model/ccm_steal_user.c)
 * it stops itself (SIGSTOP) holding that role, as a process descheduled,
 * stopped by a debugger or frozen would; the other processes' own work
 * must still run.
 */
void ccm_inject_runner_stop(void);

/* --- the NIC (ccm_nic.c): descriptors to other hosts ---------------------- */

/* Device @dev is on another host (config "here"). */
bool ccm_dev_remote(const struct ccm_fabric *f, u32 dev);

/**
 * struct ccm_nic_xfer - a descriptor the NIC carries to another host
 * @dev: device of the engine that posted it
 * @core: its logical core
 * @engine: the engine
 * @ring: the ring, parked on it until ccm_nic_done()
 * @data: a COPY: @len bytes at @src (this host's) to address @to on
 *	device @to_dev's host (ccm_vm_map_remote()); else a SEM_WRITE
 * @src: the bytes
 * @len: how many
 * @to_dev: the device they land on
 * @to: where, as that host knows it
 * @has_sem: a semaphore of that host changes after the bytes: a
 *	SEM_WRITE's target or the COPY's signal (@sem set to @value if
 *	@set, else raised by it)
 * @sem: its reference
 * @value: the value
 * @set: set rather than add
 */
struct ccm_nic_xfer {
	u32 dev, core, engine, ring;
	bool data;
	const u8 *src;
	u64 len;
	u32 to_dev;
	u64 to;
	bool has_sem;
	u32 sem, value;
	bool set;
	u32 gen;	/* which post of the ring: a done for an older one does nothing */
};

/* Descriptors of @dev/@core wait for the host's proxy to take them. */
bool ccm_nic_pending(const struct ccm_fabric *f, u32 dev, u32 core);
/*
 * Take one (the core's owner's proxy; the fabric's host waiters are
 * kicked when one is posted): 0, or -EAGAIN if none waits.  @src stays
 * valid until ccm_nic_done().
 */
int ccm_nic_take(struct ccm_fabric *f, u32 dev, u32 core, struct ccm_nic_xfer *x);
/* Ring @ring of engine @engine of @dev/@core is parked, its descriptor not yet taken. */
bool ccm_nic_ring_posted(const struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring);
/*
 * Take that ring's descriptor (a host whose proxies each serve their own
 * rings): 0, -EAGAIN if it has none waiting, or -EMSGSIZE (left posted,
 * @x filled) if it carries more than @max_len bytes.
 */
int ccm_nic_take_ring(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring,
		      u64 max_len, struct ccm_nic_xfer *x);
/*
 * Whoever would carry that ring's descriptor is gone: posted or taken,
 * it fails with @status (negative) as ccm_nic_done() would fail it.
 */
void ccm_nic_cancel(struct ccm_fabric *f, u32 dev, u32 core, u32 engine, u32 ring, int status);
/*
 * @x was sent (@status 0: the bytes and the semaphore change are there,
 * in the order sent) or could not be (negative: the descriptor fails as
 * a DMA error does).  Its ring goes on.
 */
void ccm_nic_done(struct ccm_fabric *f, const struct ccm_nic_xfer *x, int status);
/* Another host's @x arrived here: change semaphore @sem; -EINVAL if it is not here. */
int ccm_nic_arrived(struct ccm_fabric *f, u32 sem, u32 value, bool set);
/*
 * The proxy's pump waits so for the posts the nic_posted hook did not
 * take (struct ccm_host_ops): asleep until a core of this process posts
 * one, ccm_nic_kick_mine() or @deadline_ns, with no model steps and no
 * spinning; the host's own wake-ups do not wake it.
 */
int ccm_nic_sleep(struct ccm_fabric *f, bool (*cond)(void *), void *arg, s64 deadline_ns);
/* Wake this process's ccm_nic_sleep() (its proxy stops, say). */
void ccm_nic_kick_mine(struct ccm_fabric *f);

/* --- links --------------------------------------------------------------- */
enum ccm_link_tier {
	CCM_TIER_LOCAL,		/* same device */
	CCM_TIER_DEVICE,	/* devices of one node */
	CCM_TIER_NODE,		/* across nodes */
};

struct ccm_link_stats {
	u64 bytes_out[3];	/* per tier, bytes this device sent */
	u64 bytes_in[3];
};

enum ccm_link_tier ccm_route_tier(const struct ccm_fabric *f, u32 from, u32 to);
/* Intra-node hops between two devices (ring or torus distance). */
u32 ccm_route_hops(const struct ccm_fabric *f, u32 from, u32 to);
void ccm_link_stats(const struct ccm_fabric *f, u32 dev, struct ccm_link_stats *st);
/* Devices linked directly to @dev inside its node; returns the count. */
u32 ccm_link_neighbours(const struct ccm_fabric *f, u32 dev, u32 *out, u32 max);

/* --- running ------------------------------------------------------------- */
/*
 * Wait until @cond(arg) is true or the absolute CLOCK_MONOTONIC @deadline_ns
 * passes (-ETIMEDOUT).  With workers, sleeps until the model reports
 * progress; inline, runs the model on the calling thread, and fails with
 * -ETIMEDOUT at once if the model goes quiescent with @cond still false.
 */
int ccm_fabric_wait(struct ccm_fabric *f, bool (*cond)(void *arg), void *arg,
		    s64 deadline_ns);
/*
 * The same for a condition that only a job's end changes (the host's
 * job_done callback): on a shared fabric, semaphore and ring changes in
 * other processes then do not wake it.
 */
int ccm_fabric_wait_job(struct ccm_fabric *f, bool (*cond)(void *arg), void *arg,
			s64 deadline_ns);
/*
 * With workers: run ready light agents on the calling thread for up to
 * @budget_ns (a submitter lending a hand; small jobs then finish without a
 * hand-off; heavy DMA stays with the workers).  Does nothing inline, where
 * only waits run the model.
 */
void ccm_fabric_help(struct ccm_fabric *f, s64 budget_ns);
/*
 * Light work is left to host threads, so work a host started and then
 * stopped helping with (after ccm_fabric_help, or when its wait ended) may
 * sit queued while every worker sleeps.  This wakes one to take it.
 */
void ccm_fabric_nudge(struct ccm_fabric *f);
/*
 * A shared fabric: report what this process's CC cores did while other
 * processes stepped them (they cannot call this process's host).  Waits
 * do it; a host that checks a job's state without waiting calls it first.
 */
void ccm_fabric_deliver(struct ccm_fabric *f);
/*
 * Timed mode: the virtual time in picoseconds (0 at creation; it only
 * moves while the model runs).  Always 0 in functional mode.
 */
u64 ccm_fabric_now_ps(const struct ccm_fabric *f);
static inline u64 ccm_fabric_now_ns(const struct ccm_fabric *f)
{
	return ccm_fabric_now_ps(f) / 1000;
}
/* Inline mode only: run at most @steps agent steps; returns steps run. */
u64 ccm_fabric_run_steps(struct ccm_fabric *f, u64 steps);
/* True when no CC core or engine can make progress right now. */
bool ccm_fabric_quiescent(struct ccm_fabric *f);

/* --- reductions (ccm_reduce.c) -------------------------------------------- */
/* Size in bytes of a DRM_CCORE_DTYPE_*, 0 if unknown. */
u32 ccm_dtype_size(u32 dtype);
const char *ccm_dtype_name(u32 dtype);
const char *ccm_redop_name(u32 redop);
/* dst[i] = a[i] (redop) b[i] over @bytes; dst may alias a or b. */
void ccm_reduce(u32 dtype, u32 redop, void *dst, const void *a, const void *b, u64 bytes);
/* dst[i] = src[i] / divisor over @bytes (integers: the element's value over the
 * exact divisor, truncated toward zero; see ccm_div.c); dst may alias. */
void ccm_div(u32 dtype, void *dst, const void *src, u64 bytes, u32 divisor);
float ccm_f16_to_f32(u16 h);
u16 ccm_f32_to_f16(float f);
float ccm_bf16_to_f32(u16 h);
u16 ccm_f32_to_bf16(float f);

/* --- shared fabrics (userspace, ccm_shared_user.c) ------------------------
 * A fabric created in an arena (ccm_arena.h) that every process of a host
 * maps at the same address.  Each process attaches, takes a slot, claims
 * cores and runs only their agents on its own workers; a wake for another
 * process's agent goes to that process's run queue.
 */
#define CCM_MAX_PROCS 64

/* Create @cfg's fabric in arena @arena, for processes to attach to. */
struct ccm_fabric *ccm_fabric_create_shared(const struct ccm_config *cfg,
					    struct ccm_arena *arena, struct ccm_err *err);
/*
 * This process joins shared @f: a slot of its own, its callbacks @ops and
 * @host for the jobs of its cores, its workers (cfg.workers).  One
 * attachment per process and fabric.
 */
int ccm_fabric_attach(struct ccm_fabric *f, const struct ccm_host_ops *ops, void *host,
		      u32 *slot, struct ccm_err *err);
/* Stop this process's workers, release its cores and slot. */
void ccm_fabric_detach(struct ccm_fabric *f);
/* This process's slot in @f, or CCM_NO_INDEX. */
u32 ccm_fabric_slot(const struct ccm_fabric *f);
/* Claim core @core of @dev for this process: -EBUSY if another has it. */
int ccm_core_claim(struct ccm_fabric *f, u32 dev, u32 core, struct ccm_err *err);
/* The slot that claimed core @core of @dev, or CCM_NO_INDEX. */
u32 ccm_core_owner(const struct ccm_fabric *f, u32 dev, u32 core);
/* The pid of the process in @slot (0: free). */
u32 ccm_fabric_slot_pid(const struct ccm_fabric *f, u32 slot);
/*
 * Look for processes that died while attached: their slots turn dead, the
 * mask (bit = slot) is returned of those this call found.  Dead slots stay
 * dead until ccm_fabric_reap().
 */
u64 ccm_fabric_find_dead(struct ccm_fabric *f);
/*
 * Slots whose process was found dead, reaped or not, until a process
 * attaches in their place (bit = slot).
 */
u64 ccm_fabric_dead_slots(const struct ccm_fabric *f);
/* The pid of the process last found dead in @slot (0: none). */
u32 ccm_fabric_dead_pid(const struct ccm_fabric *f, u32 slot);
/* How many deaths were found so far (a waiter compares before and after). */
u32 ccm_fabric_deaths(const struct ccm_fabric *f);
/* Steps of another process's agent that a dead process left half done. */
u32 ccm_fabric_broken_steps(const struct ccm_fabric *f);
/*
 * Stop the cores of dead @slot (their jobs end, rings and compute stop,
 * nothing of theirs runs again), unclaim them and free the slot.  True
 * for the one caller that did (others find it reaped or being reaped).
 */
bool ccm_fabric_reap(struct ccm_fabric *f, u32 slot);

#endif
