/* SPDX-License-Identifier: MIT */
/*
 * ccore executables (.cce, Documentation/executable.rst): the in-memory
 * form, and the functions that load, validate, save, and read and print
 * the text description of one.
 *
 * A runner walks it as: for each rank, its instruction stream
 * (exe->ranks[r].insns); for each collective, its replica groups
 * (group_count groups of group_size ranks in ranks[]), its buffers (tensor
 * and byte offset; send_bytes/recv_bytes) and its stream id.  Tensors exist
 * once per rank, all of the same size.
 *
 * Every function returns 0 or a negative errno with ccore_last_error()
 * naming what was wrong and what is allowed.
 */
#ifndef CCORE_EXE_H
#define CCORE_EXE_H

#include <stddef.h>
#include <stdint.h>

#include "ccore.h"

/* Limits of format version 1 (see Documentation/executable.rst). */
#define CCORE_EXE_VERSION_MAJOR 1
#define CCORE_EXE_VERSION_MINOR 0
#define CCORE_EXE_NAME_MAX 63		/* bytes of a tensor or collective name */
#define CCORE_EXE_MAX_RANKS 4096
#define CCORE_EXE_MAX_RANKS_PER_DEVICE 64
#define CCORE_EXE_MAX_STREAMS 8		/* stream ids 0..7, as CC cores per core */
#define CCORE_EXE_MAX_TENSORS 65536
#define CCORE_EXE_MAX_COLLS 65536
#define CCORE_EXE_MAX_INSNS (1u << 20)	/* per rank */
#define CCORE_EXE_MAX_TENSOR_BYTES (1ull << 40)
#define CCORE_EXE_MAX_COMPUTE_NS 10000000000ull	/* 10 s */

/* How a tensor's bytes start out on each rank. */
enum ccore_exe_init {
	CCORE_EXE_INIT_ZERO = 0,	/* every byte 0 */
	CCORE_EXE_INIT_PATTERN = 1,	/* ccore_verifiable_fill(dtype, redop, rank, 0) */
	CCORE_EXE_INIT_INDEX = 2,	/* element i of rank r is r * elements + i */
};

enum ccore_exe_insn_op {
	CCORE_EXE_COMPUTE = 1,	/* compute work of duration_ns */
	CCORE_EXE_DMA = 2,	/* compute DMA: bytes from src+src_offset to dst+dst_offset */
	CCORE_EXE_TRIGGER = 3,	/* pseudo trigger collective (PTC2-like) */
	CCORE_EXE_WAIT = 4,	/* wait for the matching trigger's completion */
};

struct ccore_exe_tensor {
	char name[CCORE_EXE_NAME_MAX + 1];
	uint64_t bytes;			/* on every rank */
	uint32_t init;			/* enum ccore_exe_init */
	uint32_t dtype;			/* pattern, index: enum ccore_dtype; zero: 0 */
	uint32_t redop;			/* pattern: enum ccore_redop; else 0 */
	uint32_t line;			/* text description line, 0 if none (not saved) */
};

struct ccore_exe_coll {
	char name[CCORE_EXE_NAME_MAX + 1];
	uint32_t op;			/* enum ccore_coll_op */
	uint32_t dtype;			/* enum ccore_dtype */
	uint32_t redop;			/* allreduce, reducescatter, reduce; else 0 */
	uint64_t count;			/* elements, with NCCL's meaning per op */
	uint32_t root;			/* broadcast, reduce: root's position in each
					 * group; sendrecv: the sender's (0 or 1) */
	uint32_t stream;		/* 0..CCORE_EXE_MAX_STREAMS-1 */
	uint32_t send, recv;		/* tensor indices */
	uint64_t send_offset, recv_offset;
	uint32_t group_count, group_size;
	uint32_t *ranks;		/* group g is ranks[g * group_size ...] */
	uint32_t line;			/* text description line, 0 if none (not saved) */
};

struct ccore_exe_insn {
	uint32_t op;			/* enum ccore_exe_insn_op */
	uint32_t coll;			/* TRIGGER, WAIT: collective index */
	uint32_t src, dst;		/* DMA: tensor indices */
	uint64_t src_offset, dst_offset, bytes;	/* DMA */
	uint64_t duration_ns;		/* COMPUTE */
	uint32_t line;			/* text description line, 0 if none (not saved) */
};

struct ccore_exe_rank {
	uint32_t ninsns, cap;
	struct ccore_exe_insn *insns;
};

struct ccore_exe {
	struct ccore_topology topo;	/* what it was built for */
	uint32_t nranks;		/* nodes * devices_per_node * ranks_per_device */
	uint32_t ntensors, ncolls;
	uint32_t tensors_cap, colls_cap;
	struct ccore_exe_tensor *tensors;
	struct ccore_exe_coll *colls;
	struct ccore_exe_rank *ranks;	/* [nranks] */
};

/* An empty executable for @topo (no tensors, collectives, instructions). */
int ccore_exe_new(const struct ccore_topology *topo, struct ccore_exe **out);
void ccore_exe_free(struct ccore_exe *exe);

/* Append; the new element is zeroed but for what is given.  -ENOMEM or
 * -E2BIG past the limits above. */
int ccore_exe_add_tensor(struct ccore_exe *exe, const struct ccore_exe_tensor *t);
/* Copies @c, and its ranks[group_count * group_size]. */
int ccore_exe_add_coll(struct ccore_exe *exe, const struct ccore_exe_coll *c);
int ccore_exe_add_insn(struct ccore_exe *exe, uint32_t rank, const struct ccore_exe_insn *in);

/*
 * Every rule of Documentation/executable.rst ("Validation") on an
 * executable in memory.  On failure *@line (if not NULL) is the text
 * description line of what was wrong, 0 if unknown.
 */
int ccore_exe_validate(const struct ccore_exe *exe, uint32_t *line);
/* The trigger and wait rules: the last part of ccore_exe_validate(), on an
 * executable that passed the others. */
int ccore_exe_check_order(const struct ccore_exe *exe, uint32_t *line);

/* Bytes a collective reads from its send and writes to its recv tensor. */
uint64_t ccore_exe_send_bytes(const struct ccore_exe_coll *c);
uint64_t ccore_exe_recv_bytes(const struct ccore_exe_coll *c);
/* The group of @c that @rank is in (and its position there, the rank in
 * that group's communicator), or -1 if none. */
int ccore_exe_group_of(const struct ccore_exe_coll *c, uint32_t rank, uint32_t *pos);

/* The .cce bytes of a valid executable (malloc'd, *@buf to free()). */
int ccore_exe_save(const struct ccore_exe *exe, void **buf, size_t *len);
/* Parse and validate .cce bytes; never reads outside @buf[0..len). */
int ccore_exe_load(const void *buf, size_t len, struct ccore_exe **out);

/*
 * The text description (Documentation/executable.rst, "Text description"):
 * parse @text (@len bytes; errors say "@file:LINE: ...") into a validated
 * executable, and print one back (malloc'd, NUL-terminated).
 */
int ccore_exe_parse_text(const char *file, const char *text, size_t len,
			 struct ccore_exe **out);
int ccore_exe_print_text(const struct ccore_exe *exe, char **text);

/* Names used by the text description; NULL / -1 if unknown. */
const char *ccore_exe_op_name(uint32_t op);
int ccore_exe_op_parse(const char *s);
const char *ccore_exe_init_name(uint32_t init);
int ccore_exe_init_parse(const char *s);
const char *ccore_exe_insn_name(uint32_t op);

/* Fill @buf (the tensor's bytes) with tensor @t's initial contents on @rank. */
void ccore_exe_fill(const struct ccore_exe_tensor *t, uint32_t rank, void *buf);

#endif
