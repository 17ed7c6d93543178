/* SPDX-License-Identifier: MIT */
/*
 * libccore public API.
 *
 * Shaped like NCCL: one communicator per rank, one call per rank for each
 * collective; the ranks run one per process (ccore_comm_init_rank, the
 * usual way), several per process (ccore_comm_init_ranks) or all in one
 * (ccore_comm_init_all).  A collective is planned and launched when every
 * rank of the communicator in this process has posted it (or at
 * ccore_group_end()).  Calls are asynchronous on a
 * stream; ccore_stream_sync() waits.
 *
 * Threads: any thread may call any function; one thread per rank (each
 * posting its own rank's calls and syncing its own stream) is the usual
 * pattern.  Collectives are matched across ranks per stream id, in each
 * rank's posting order on it.  ccore_stream_sync() returns once everything
 * posted on the stream completed, including collectives still waiting for
 * other ranks to post; after $CCORE_PEER_TIMEOUT_MS (default 60000) of
 * waiting for them it fails with -ETIMEDOUT naming the collective and the
 * ranks that did not post.  A launch that fails is reported to the call
 * that launched it and by every other rank's next sync.  Groups are per
 * thread.  Documentation/collectives.rst, "Threads".
 *
 * Conventions: functions return 0 or a negative errno; on failure
 * ccore_last_error() returns text (per thread) naming the bad argument and
 * the allowed values.  Buffers are device addresses (ccore_ptr) in the
 * rank's device; pointer arithmetic on them is allowed.  A count or size
 * whose bytes do not fit in 64 bits or exceed the device memory (no buffer
 * is larger) is -EOVERFLOW.
 */
#ifndef CCORE_H
#define CCORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of these headers, as NCCL gives its own: CCORE_VERSION_CODE
 * is MAJOR * 10000 + MINOR * 100 + PATCH; ccore_get_version() gives the
 * library's (they differ when a program runs on a newer libccore.so.0 than
 * it was built with).  Within one MAJOR the ABI only grows
 * (Documentation/library.rst).
 */
#define CCORE_MAJOR 0
#define CCORE_MINOR 4
#define CCORE_PATCH 0
#define CCORE_VERSION(major, minor, patch) ((major) * 10000 + (minor) * 100 + (patch))
#define CCORE_VERSION_CODE CCORE_VERSION(CCORE_MAJOR, CCORE_MINOR, CCORE_PATCH)
#define CCORE_STR_(x) #x
#define CCORE_STR(x) CCORE_STR_(x)
/* "0.4.0", for --version */
#define CCORE_VERSION_STRING \
	CCORE_STR(CCORE_MAJOR) "." CCORE_STR(CCORE_MINOR) "." CCORE_STR(CCORE_PATCH)

/* What libccore exports: every function of the public headers, nothing else. */
#if defined(__GNUC__) && __GNUC__ >= 4
#define CCORE_API __attribute__((visibility("default")))
#else
#define CCORE_API
#endif

/* *@version = the library's CCORE_VERSION_CODE; -EINVAL if @version is NULL. */
CCORE_API
int ccore_get_version(int *version);

/* Text describing the last failure on this thread ("" if none). */
CCORE_API
const char *ccore_last_error(void);

typedef uint64_t ccore_ptr;

enum ccore_dtype {
	ccore_i8 = 1, ccore_u8, ccore_i32, ccore_u32, ccore_i64, ccore_u64,
	ccore_f16, ccore_bf16, ccore_f32, ccore_f64,
};

/*
 * Integers wrap (two's complement).  avg is the sum divided by the number of
 * ranks N; for integers the wrapped sum (signed for i8/i32/i64) over N as an
 * exact integer, truncated toward zero (i8: -128 over 128 ranks is -1).
 */
enum ccore_redop { ccore_sum = 1, ccore_prod, ccore_max, ccore_min, ccore_avg };

CCORE_API
size_t ccore_dtype_size(enum ccore_dtype t);
CCORE_API
const char *ccore_dtype_name(enum ccore_dtype t);
CCORE_API
const char *ccore_redop_name(enum ccore_redop op);
/* Parse "f32", "bf16", ... / "sum", "avg", ...; -1 if unknown. */
CCORE_API
int ccore_dtype_parse(const char *s);
CCORE_API
int ccore_redop_parse(const char *s);

/*
 * Where ranks live: nodes x devices_per_node devices, ranks_per_device
 * ranks (logical cores) on each; rank r is core r % ranks_per_device of
 * device r / ranks_per_device.  The devices come from the backend
 * ($CCORE_DEVICE); the sim backend is shaped to fit (plus $CCORE_SIM).
 */
struct ccore_topology {
	uint32_t nodes;
	uint32_t devices_per_node;
	uint32_t ranks_per_device;
};

struct ccore_comm;
struct ccore_stream;

/* Create comms[0..N-1], N = nodes * devices_per_node * ranks_per_device. */
CCORE_API
int ccore_comm_init_all(const struct ccore_topology *topo, struct ccore_comm **comms);
/*
 * Split the @n communicators @comms (all ranks of one communicator) by
 * color: ranks with equal color >= 0 form a new communicator, ordered by
 * key then old rank; out[i] is rank i's new communicator (NULL if its color
 * is negative).  comms[i] must be rank i, n the communicator's size.
 */
CCORE_API
int ccore_comm_split(struct ccore_comm *const *comms, int n, const int *color, const int *key,
		     struct ccore_comm **out);
CCORE_API
int ccore_comm_destroy(struct ccore_comm *comm);
/* The rank of @comm and its number of ranks; -EINVAL if @comm is NULL. */
CCORE_API
int ccore_comm_rank(const struct ccore_comm *comm);
CCORE_API
int ccore_comm_count(const struct ccore_comm *comm);

/* Device memory on the rank's device. */
CCORE_API
int ccore_mem_alloc(struct ccore_comm *comm, size_t bytes, ccore_ptr *ptr);
CCORE_API
int ccore_mem_free(struct ccore_comm *comm, ccore_ptr ptr);
/*
 * Register the caller's memory (page-aligned address and size) for use as
 * device buffers of this rank, without copying; deregister with
 * ccore_mem_free().  The memory must outlive the registration.
 */
CCORE_API
int ccore_mem_register(struct ccore_comm *comm, void *host, size_t bytes, ccore_ptr *ptr);
/* Host view of device memory (map); NULL if @ptr is not an allocation. */
CCORE_API
void *ccore_mem_host(struct ccore_comm *comm, ccore_ptr ptr);

/*
 * Multi-stream CC and DMA packet sizes, settled when the communicators are
 * created (Documentation/collectives.rst, "Streams and packet sizes").
 *
 * A communicator uses S streams, 1 <= S <= C, C the CC cores of a logical
 * core: stream s < S runs on CC core s of the rank's core; CC cores S..C-1
 * are stream 0's too (its spare cores); a stream id >= S is served as
 * stream 0 (same CC core, ordered with it).  S > C is an error.
 *
 * Each stream's collectives build their DMA rings with that stream's CC
 * packet size (a power of two, at most 64 KiB: it can only be lowered);
 * compute DMA rings use the DMA packetization size (at least 4 KiB: it can
 * only be raised, up to the device's maximum).  A bigger packet is a bigger
 * share of a DMA engine.  Each value comes from, first found: the config
 * below, the environment (CCORE_STREAMS, CCORE_CC_DMA_PACKET_SIZE one value
 * or one per stream "65536,4096", CCORE_DMA_PACKETIZATION_SIZE), the
 * device's default (sysfs), the built-in (1 stream, 64 KiB, 4 KiB).  A bad
 * value fails communicator creation with a message naming it.
 */
#define CCORE_MAX_CC_CORES 16

/*
 * Start from CCORE_COMM_CONFIG_INIT, then set fields: it sets size and
 * version to the struct this program is built with, so that libccore reads
 * it correctly when fields are added later (a newer library leaves the
 * fields this program does not know unset; an older one refuses a field it
 * does not know that is set).  A struct without them is refused (-EINVAL).
 */
struct ccore_comm_config {
	size_t size;				/* sizeof(struct ccore_comm_config) */
	uint32_t version;			/* CCORE_VERSION_CODE */
	uint32_t streams;			/* S; 0: not set here */
	uint32_t cc_packet_size[CCORE_MAX_CC_CORES];	/* per stream; 0: not set */
	uint32_t dma_packetization_size;	/* compute DMA rings; 0: not set */
};

/* Every field in order (C and C++ alike); 0 is "not set". */
#define CCORE_COMM_CONFIG_INIT \
	{ sizeof(struct ccore_comm_config), CCORE_VERSION_CODE, 0, { 0 }, 0 }

/* ccore_comm_init_all with a config (NULL: the environment and defaults). */
CCORE_API
int ccore_comm_init_all_config(const struct ccore_topology *topo,
			       const struct ccore_comm_config *config, struct ccore_comm **comms);

/*
 * One process per rank, as NCCL: one process makes a unique id
 * (ccore_get_unique_id) and hands its bytes to every process of the job
 * (a pipe, a file, MPI_Bcast), or every process sets $CCORE_COMM_ID=
 * host:port instead; then each process creates its rank's communicator
 * with ccore_comm_init_rank (or its ranks' with ccore_comm_init_ranks).
 * Documentation/processes.rst.
 */
#define CCORE_UNIQUE_ID_BYTES 128
struct ccore_unique_id {
	unsigned char internal[CCORE_UNIQUE_ID_BYTES];
};

/*
 * Fill @id: with $CCORE_COMM_ID set, derived from it; else this process
 * starts a listener thread (the root, on $CCORE_SOCKET_IFNAME's
 * interface) that serves the job's ranks once and ends.
 */
CCORE_API
int ccore_get_unique_id(struct ccore_unique_id *id);

/*
 * Create rank @rank (0..@nranks-1) of a communicator of @nranks ranks,
 * each in its own process (or thread), all given the same @id.  Blocks
 * until every rank has called it ($CCORE_BOOT_TIMEOUT_MS, default 60 s).
 * @config as in ccore_comm_init_all_config (NULL: the environment and
 * defaults).  Every rank checks that the settings deciding plans
 * (CCORE_ALGO, the tuner's knobs, streams and packet sizes, the config's
 * fields, ...) are the same on every rank; a mismatch, a rank given twice,
 * a different @nranks or another job's id fails init on every rank with a
 * message naming it.  Placement: ranks are grouped by host (hostname and
 * boot id, or $CCORE_HOSTID), every host must run as many; a rank's local
 * rank l (its order among its host's ranks) runs on device
 * l / R of its host, core l % R, R = $CCORE_RANKS_PER_DEVICE (default 1).
 */
CCORE_API
int ccore_comm_init_rank(struct ccore_comm **comm, int nranks, const struct ccore_unique_id *id,
			 int rank, const struct ccore_comm_config *config);
/*
 * The same for a process that runs @nlocal ranks of the communicator:
 * comms[i] becomes rank ranks[i] (distinct, 0..@nranks-1).  Their
 * collectives launch once every one of them has posted, as
 * ccore_comm_init_all's do.
 */
CCORE_API
int ccore_comm_init_ranks(struct ccore_comm **comms, int nranks, const struct ccore_unique_id *id,
			  int nlocal, const int *ranks, const struct ccore_comm_config *config);
/*
 * Split a communicator of ccore_comm_init_rank(s), as ncclCommSplit: every
 * rank calls it with its own @color and @key; ranks of equal color >= 0
 * form a new communicator, ordered by key then old rank, on the devices
 * they had; *@out is NULL for a negative color.  Blocks until every rank
 * of @comm has called it.  @config as in ccore_comm_init_rank (NULL: the
 * environment).  On a communicator of ccore_comm_init_all each rank's
 * thread calls it (@config NULL); the last call splits for all, as
 * ccore_comm_split does; after $CCORE_PEER_TIMEOUT_MS waiting it fails
 * naming the ranks that did not call.
 */
CCORE_API
int ccore_comm_split_rank(struct ccore_comm *comm, int color, int key,
			  const struct ccore_comm_config *config, struct ccore_comm **out);

/* What a communicator settled on, and where each value came from. */
struct ccore_stream_map {
	uint32_t streams;			/* S */
	uint32_t cc_cores;			/* C: CC cores per logical core */
	const char *streams_source;		/* "config", "CCORE_STREAMS" or "built-in" */
	uint32_t cc_core_stream[CCORE_MAX_CC_CORES];	/* [c < C]: the stream CC core c serves */
	uint32_t cc_packet_size[CCORE_MAX_CC_CORES];	/* [s < S]: bytes per packet */
	/* "config", "CCORE_CC_DMA_PACKET_SIZE" or "device default" */
	const char *cc_packet_source[CCORE_MAX_CC_CORES];
	uint32_t dma_packetization_size;	/* compute DMA rings: bytes per packet */
	const char *dma_packetization_source;	/* as cc_packet_source, CCORE_DMA_PACKETIZATION_SIZE */
};

/* The map of @comm (device defaults as the rank's device has them now). */
CCORE_API
int ccore_comm_stream_map(const struct ccore_comm *comm, struct ccore_stream_map *out);
/* The CC core (0..C-1 of the rank's logical core) stream @id runs on. */
CCORE_API
int ccore_comm_stream_cc_core(const struct ccore_comm *comm, uint32_t id, uint32_t *cc_core);
/*
 * The packet size compute DMA rings of @comm's rank get (create them with
 * DRM_CCORE_RING_F_COMPUTE and this packet size).
 */
CCORE_API
int ccore_comm_dma_packetization_size(const struct ccore_comm *comm, uint32_t *bytes);

/*
 * Streams: the jobs a rank posts on one CC core, run in order; which CC
 * core is the stream map's (above).  NULL means stream 0.
 */
CCORE_API
int ccore_stream_create(struct ccore_comm *comm, uint32_t id, struct ccore_stream **out);
CCORE_API
int ccore_stream_destroy(struct ccore_stream *s);
/*
 * Wait until everything posted on the stream has completed, including
 * collectives other ranks have not posted yet: -ETIMEDOUT after
 * $CCORE_PEER_TIMEOUT_MS of waiting for them (the collectives stay posted).
 * Also returns, once, a failure of a launch of this stream's collectives
 * that another thread's call made.
 */
CCORE_API
int ccore_stream_sync(struct ccore_stream *s);
/* 0 when everything posted on the stream has completed, -EAGAIN if not
 * (also while a collective waits for other ranks to post). */
CCORE_API
int ccore_stream_query(struct ccore_stream *s);
/* The default stream 0 of @comm. */
CCORE_API
struct ccore_stream *ccore_comm_stream(struct ccore_comm *comm);

/* Collectives: nccl semantics for counts, roots and in-place buffers. */
CCORE_API
int ccore_all_reduce(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
		     enum ccore_redop op, struct ccore_comm *comm, struct ccore_stream *s);
CCORE_API
int ccore_all_gather(ccore_ptr send, ccore_ptr recv, size_t sendcount, enum ccore_dtype dt,
		     struct ccore_comm *comm, struct ccore_stream *s);
CCORE_API
int ccore_reduce_scatter(ccore_ptr send, ccore_ptr recv, size_t recvcount, enum ccore_dtype dt,
			 enum ccore_redop op, struct ccore_comm *comm, struct ccore_stream *s);
CCORE_API
int ccore_all_to_all(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
		     struct ccore_comm *comm, struct ccore_stream *s);
CCORE_API
int ccore_broadcast(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt, int root,
		    struct ccore_comm *comm, struct ccore_stream *s);
CCORE_API
int ccore_reduce(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
		 enum ccore_redop op, int root, struct ccore_comm *comm, struct ccore_stream *s);
CCORE_API
int ccore_send(ccore_ptr send, size_t count, enum ccore_dtype dt, int peer,
	       struct ccore_comm *comm, struct ccore_stream *s);
CCORE_API
int ccore_recv(ccore_ptr recv, size_t count, enum ccore_dtype dt, int peer,
	       struct ccore_comm *comm, struct ccore_stream *s);

/* Calls between start and end launch together at end (nesting allowed). */
CCORE_API
int ccore_group_start(void);
CCORE_API
int ccore_group_end(void);

/*
 * What would run, without running it: the algorithm, slices and channels
 * a collective of @count elements of @dtype on @comm would get now
 * (CCORE_ALGO, then $CCORE_TUNER_FILE, then the cost model; rooted
 * collectives with root 0, Send/Recv from rank 0 to rank 1, out of place),
 * with the cost model's predicted time and every candidate's.  @count as
 * in the collective's call.  0, or a negative errno with ccore_last_error().
 */
enum ccore_coll_op {
	ccore_op_allreduce = 1, ccore_op_allgather, ccore_op_reducescatter,
	ccore_op_alltoall, ccore_op_broadcast, ccore_op_reduce, ccore_op_sendrecv,
};

#define CCORE_PLAN_MAX_CANDIDATES 16

struct ccore_plan_candidate {
	const char *algo;		/* e.g. "ring" */
	uint32_t slices, channels;	/* its best by the model */
	double predicted_us;
};

struct ccore_plan_info {
	const char *algo;		/* what would run, as ccore_comm_last_algo() names it */
	uint32_t slices, channels;
	double predicted_us;		/* the cost model's time; < 0 if it has no formula */
	const char *source;		/* "cost model", "CCORE_ALGO" or "CCORE_TUNER_FILE" */
	uint32_t tuner_file_line;	/* the line of $CCORE_TUNER_FILE that matched */
	double bytes;			/* the size the model priced (nccl-tests' size) */
	uint32_t ncandidates;		/* algorithms with a formula, fastest first */
	struct ccore_plan_candidate candidates[CCORE_PLAN_MAX_CANDIDATES];
};

CCORE_API
int ccore_plan_query(const struct ccore_comm *comm, enum ccore_coll_op op, size_t count,
		     enum ccore_dtype dtype, struct ccore_plan_info *out);

/*
 * What ran: the algorithm the last collective launched on @comm used (for
 * tools and tests), e.g. "ring".
 */
CCORE_API
const char *ccore_comm_last_algo(const struct ccore_comm *comm);

/*
 * Where the wall-clock time of the last plan built on @comm went (for
 * benchmarks): a collective's first call on new buffers builds a plan, a
 * repeat reuses it and leaves this unchanged.  Microseconds per phase, in
 * order: the tuner's choice (next to nothing when the last one is reused), the
 * algorithm's schedule, its verification (CCORE_VERIFY only), placing the
 * ranks (semaphores, scratch, ring indices, peer addresses), lowering into
 * CC programs and DMA descriptors, and loading rings and programs into the
 * devices.  -ENOENT if no plan was built yet.
 */
struct ccore_plan_timing {
	double choose_us, schedule_us, verify_us, place_us, lower_us, load_us;
	uint64_t steps;			/* schedule steps over all ranks */
	uint64_t insns, descs;		/* CC instructions, DMA descriptors */
	uint64_t plans_built;		/* on this communicator so far */
	/* 1: the last plan is in loop form (its steps: the rolled schedule's
	 * templates, 0 without one) */
	uint32_t loops;
	/* of place_us (of lower_us in loop form): making the semaphores for
	 * peers a rank had none for yet on the stream, each imported into
	 * its peer's device only; 0 when the plan needed no new ones */
	double connect_us;
	/* of place_us and lower_us: dropping least recently used plans to
	 * make room (ring indices, scratch, CC-core memory) */
	double evict_us;
};

CCORE_API
int ccore_comm_plan_timing(const struct ccore_comm *comm, struct ccore_plan_timing *out);

/*
 * The timed sim backend (CCORE_SIM with timed=1): the device model's
 * virtual time in picoseconds, which moves only while the model runs.
 * -ENODEV on other backends and on the functional model.
 */
CCORE_API
int ccore_comm_virtual_time_ps(const struct ccore_comm *comm, uint64_t *ps);

#ifdef __cplusplus
}
#endif

#endif
