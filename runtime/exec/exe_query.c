// SPDX-License-Identifier: MIT
/* What a runner asks of a collective: its buffer sizes, a rank's group. */
#include "exec/exe.h"

uint64_t ccore_exe_send_bytes(const struct ccore_exe_coll *c)
{
	uint64_t b = c->count * ccore_dtype_size((enum ccore_dtype)c->dtype);

	if (c->op == ccore_op_reducescatter || c->op == ccore_op_alltoall)
		b *= c->group_size;
	return b;
}

uint64_t ccore_exe_recv_bytes(const struct ccore_exe_coll *c)
{
	uint64_t b = c->count * ccore_dtype_size((enum ccore_dtype)c->dtype);

	if (c->op == ccore_op_allgather || c->op == ccore_op_alltoall)
		b *= c->group_size;
	return b;
}

int ccore_exe_group_of(const struct ccore_exe_coll *c, uint32_t rank, uint32_t *pos)
{
	uint64_t n = (uint64_t)c->group_count * c->group_size;

	for (uint64_t k = 0; k < n; k++) {
		if (c->ranks[k] == rank) {
			if (pos)
				*pos = (uint32_t)(k % c->group_size);
			return (int)(k / c->group_size);
		}
	}
	return -1;
}
