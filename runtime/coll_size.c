// SPDX-License-Identifier: MIT
/*
 * A collective's buffer sizes from the caller's count (see coll_size.h):
 * every entry point that takes a count asks here first, so no later
 * multiplication by the element size or the rank count can wrap, and a
 * size no device buffer can have fails with its reason instead of deep in
 * the lowering or at ring submission.
 */
#include "coll_size.h"
#include "ccore_internal.h"
#include "util/size.h"

#include <stdio.h>

/* The count's name in the call's prototype (ccore.h). */
static const char *count_name(uint8_t coll)
{
	return coll == CS_ALLGATHER ? "sendcount" : coll == CS_REDUCESCATTER ? "recvcount" : "count";
}

int coll_buffer_bytes(const char *fn, const struct cs_shape *sh, uint32_t dtype,
		      uint64_t max_bytes, uint64_t *send_bytes, uint64_t *recv_bytes)
{
	struct cs_shape one = *sh;
	uint64_t es = ccore_dtype_size(dtype), send_per, recv_per, per, bytes;
	char need[32] = "more than 2^64";
	const char *which;
	bool fits;

	one.count = 1;
	/* at most 8 bytes x 2^32 ranks: the factors themselves fit */
	send_per = cs_send_count(&one) * es;
	recv_per = cs_recv_count(&one) * es;
	per = send_per > recv_per ? send_per : recv_per;
	fits = size_mul(sh->count, per, &bytes);
	if (fits && bytes <= max_bytes) {
		if (send_bytes)
			*send_bytes = sh->count * send_per;
		if (recv_bytes)
			*recv_bytes = sh->count * recv_per;
		return 0;
	}
	if (fits)
		snprintf(need, sizeof(need), "%llu", (unsigned long long)bytes);
	which = send_per == recv_per ? "send and receive buffers" :
		send_per > recv_per ? "a send buffer" : "a receive buffer";
	return ccore_error(-EOVERFLOW, "%s: %s %llu of %s on %u ranks needs %s of %s bytes; allowed: at most %llu, what fills one buffer as large as the device memory (%llu bytes, HBM_SIZE)",
			   fn, count_name(sh->coll), (unsigned long long)sh->count,
			   ccore_dtype_name((enum ccore_dtype)dtype), sh->nranks, which, need,
			   (unsigned long long)(max_bytes / per), (unsigned long long)max_bytes);
}
