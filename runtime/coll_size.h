/* SPDX-License-Identifier: MIT */
/* The bytes a collective's count asks for, checked (internal). */
#ifndef CCORE_COLL_SIZE_H
#define CCORE_COLL_SIZE_H

#include "sched/cs.h"

/*
 * The bytes of each rank's send and receive buffers of @sh with elements
 * of @dtype, found before anything multiplies the count: -EOVERFLOW, with
 * a message naming @fn, the count, the dtype and the largest count
 * allowed, when either does not fit in 64 bits or in one buffer of
 * @max_bytes (the device memory, HBM_SIZE).  Either out pointer may be NULL.
 */
int coll_buffer_bytes(const char *fn, const struct cs_shape *sh, uint32_t dtype,
		      uint64_t max_bytes, uint64_t *send_bytes, uint64_t *recv_bytes);

#endif
