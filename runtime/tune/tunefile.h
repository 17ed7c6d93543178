/* SPDX-License-Identifier: MIT */
/*
 * The tuning file ($CCORE_TUNER_FILE): CSV lines that override the cost
 * model where they match.  The first line is the header
 *
 *   op,min_bytes,max_bytes,nodes,ranks,algorithm,slices,channels
 *
 * then one rule per line; blank lines and lines starting with '#' are
 * skipped, spaces around fields are ignored.
 *   op          allreduce, allgather, reducescatter, alltoall, broadcast,
 *               reduce, sendrecv, or * (any)
 *   min_bytes,  the rule matches min_bytes <= M <= max_bytes, M as the
 *   max_bytes   cost model counts it (nccl-tests' size, see formula.h);
 *               a number with an optional K, M or G suffix (powers of
 *               1024), or * (no bound)
 *   nodes       nodes the communicator spans, or *
 *   ranks       ranks of the communicator, or *
 *   algorithm   a registered algorithm that serves op (any op with *)
 *   slices,     1..64, or * (the model's choice for that algorithm)
 *   channels
 * The first matching line wins.  Any bad line is an error naming
 * file:line, the field and what it allows.
 */
#ifndef CCORE_TUNE_TUNEFILE_H
#define CCORE_TUNE_TUNEFILE_H

#include <stdint.h>

struct tunefile_rule {
	int coll;			/* enum cs_coll, -1: any */
	uint64_t min_bytes, max_bytes;
	uint32_t nodes, ranks;		/* 0: any */
	char algo[32];
	uint32_t slices, channels;	/* 0: the model's choice */
	uint32_t line;
};

struct tunefile {
	char path[256];
	struct tunefile_rule *rules;
	uint32_t n;
};

/* Parse @path into @tf; -EINVAL (or -errno) with a message naming file:line. */
int tunefile_load(const char *path, struct tunefile *tf);
void tunefile_free(struct tunefile *tf);
/* The first rule matching, or NULL. */
const struct tunefile_rule *tunefile_match(const struct tunefile *tf, unsigned int coll,
					   uint64_t bytes, uint32_t nodes, uint32_t ranks);

#endif
