/* SPDX-License-Identifier: MIT */
/*
 * libccore public API.
 *
 * Shaped like NCCL's single-process, many-device use: one communicator per
 * rank (ccore_comm_init_all), one call per rank for each collective; a
 * collective is planned and launched when every rank of the communicator
 * has posted it (or at ccore_group_end()).  Calls are asynchronous on a
 * stream; ccore_stream_sync() waits.
 *
 * Conventions: functions return 0 or a negative errno; on failure
 * ccore_last_error() returns text (per thread) naming the bad argument and
 * the allowed values.  Buffers are device addresses (ccore_ptr) in the
 * rank's device; pointer arithmetic on them is allowed.
 */
#ifndef CCORE_H
#define CCORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CCORE_VERSION_MAJOR 0
#define CCORE_VERSION_MINOR 2

/* Text describing the last failure on this thread ("" if none). */
const char *ccore_last_error(void);

typedef uint64_t ccore_ptr;

enum ccore_dtype {
	ccore_i8 = 1, ccore_u8, ccore_i32, ccore_u32, ccore_i64, ccore_u64,
	ccore_f16, ccore_bf16, ccore_f32, ccore_f64,
};

enum ccore_redop { ccore_sum = 1, ccore_prod, ccore_max, ccore_min, ccore_avg };

size_t ccore_dtype_size(enum ccore_dtype t);
const char *ccore_dtype_name(enum ccore_dtype t);
const char *ccore_redop_name(enum ccore_redop op);
/* Parse "f32", "bf16", ... / "sum", "avg", ...; -1 if unknown. */
int ccore_dtype_parse(const char *s);
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
int ccore_comm_init_all(const struct ccore_topology *topo, struct ccore_comm **comms);
/*
 * Split the @n communicators @comms (all ranks of one communicator) by
 * color: ranks with equal color >= 0 form a new communicator, ordered by
 * key then old rank; out[i] is rank i's new communicator (NULL if its color
 * is negative).
 */
int ccore_comm_split(struct ccore_comm *const *comms, int n, const int *color, const int *key,
		     struct ccore_comm **out);
int ccore_comm_destroy(struct ccore_comm *comm);
int ccore_comm_rank(const struct ccore_comm *comm);
int ccore_comm_count(const struct ccore_comm *comm);

/* Device memory on the rank's device. */
int ccore_mem_alloc(struct ccore_comm *comm, size_t bytes, ccore_ptr *ptr);
int ccore_mem_free(struct ccore_comm *comm, ccore_ptr ptr);
/*
 * Register the caller's memory (page-aligned address and size) for use as
 * device buffers of this rank, without copying; deregister with
 * ccore_mem_free().  The memory must outlive the registration.
 */
int ccore_mem_register(struct ccore_comm *comm, void *host, size_t bytes, ccore_ptr *ptr);
/* Host view of device memory (map); NULL if @ptr is not an allocation. */
void *ccore_mem_host(struct ccore_comm *comm, ccore_ptr ptr);

/*
 * Streams: stream @id of a rank runs on CC core (id mod CC cores per core)
 * of the rank's core.  NULL means stream 0.
 */
int ccore_stream_create(struct ccore_comm *comm, uint32_t id, struct ccore_stream **out);
int ccore_stream_destroy(struct ccore_stream *s);
/* Wait until everything posted on the stream has completed. */
int ccore_stream_sync(struct ccore_stream *s);
/* 0 when everything posted on the stream has completed, -EAGAIN if not. */
int ccore_stream_query(struct ccore_stream *s);
/* The default stream 0 of @comm. */
struct ccore_stream *ccore_comm_stream(struct ccore_comm *comm);

/* Collectives: nccl semantics for counts, roots and in-place buffers. */
int ccore_all_reduce(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
		     enum ccore_redop op, struct ccore_comm *comm, struct ccore_stream *s);
int ccore_all_gather(ccore_ptr send, ccore_ptr recv, size_t sendcount, enum ccore_dtype dt,
		     struct ccore_comm *comm, struct ccore_stream *s);
int ccore_reduce_scatter(ccore_ptr send, ccore_ptr recv, size_t recvcount, enum ccore_dtype dt,
			 enum ccore_redop op, struct ccore_comm *comm, struct ccore_stream *s);
int ccore_all_to_all(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
		     struct ccore_comm *comm, struct ccore_stream *s);
int ccore_broadcast(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt, int root,
		    struct ccore_comm *comm, struct ccore_stream *s);
int ccore_reduce(ccore_ptr send, ccore_ptr recv, size_t count, enum ccore_dtype dt,
		 enum ccore_redop op, int root, struct ccore_comm *comm, struct ccore_stream *s);
int ccore_send(ccore_ptr send, size_t count, enum ccore_dtype dt, int peer,
	       struct ccore_comm *comm, struct ccore_stream *s);
int ccore_recv(ccore_ptr recv, size_t count, enum ccore_dtype dt, int peer,
	       struct ccore_comm *comm, struct ccore_stream *s);

/* Calls between start and end launch together at end (nesting allowed). */
int ccore_group_start(void);
int ccore_group_end(void);

/*
 * What ran: the algorithm the last collective launched on @comm used (for
 * tools and tests), e.g. "ring".
 */
const char *ccore_comm_last_algo(const struct ccore_comm *comm);

#ifdef __cplusplus
}
#endif

#endif
