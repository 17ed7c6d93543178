// SPDX-License-Identifier: MIT
/* The names the text description and the error messages use. */
#include "exec/exe.h"

#include <string.h>

static const char *const op_names[] = {
	[ccore_op_allreduce] = "allreduce", [ccore_op_allgather] = "allgather",
	[ccore_op_reducescatter] = "reducescatter", [ccore_op_alltoall] = "alltoall",
	[ccore_op_broadcast] = "broadcast", [ccore_op_reduce] = "reduce",
	[ccore_op_sendrecv] = "sendrecv",
};

static const char *const init_names[] = {
	[CCORE_EXE_INIT_ZERO] = "zero", [CCORE_EXE_INIT_PATTERN] = "pattern",
	[CCORE_EXE_INIT_INDEX] = "index",
};

static const char *const insn_names[] = {
	[CCORE_EXE_COMPUTE] = "compute", [CCORE_EXE_DMA] = "dma",
	[CCORE_EXE_TRIGGER] = "trigger", [CCORE_EXE_WAIT] = "wait",
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *name_of(const char *const *names, size_t n, uint32_t v)
{
	return v < n ? names[v] : NULL;
}

static int parse_name(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && s && !strcmp(s, names[i]))
			return (int)i;
	return -1;
}

const char *ccore_exe_op_name(uint32_t op)
{
	return name_of(op_names, N(op_names), op);
}

int ccore_exe_op_parse(const char *s)
{
	return parse_name(op_names, N(op_names), s);
}

const char *ccore_exe_init_name(uint32_t init)
{
	return name_of(init_names, N(init_names), init);
}

int ccore_exe_init_parse(const char *s)
{
	return parse_name(init_names, N(init_names), s);
}

const char *ccore_exe_insn_name(uint32_t op)
{
	return name_of(insn_names, N(insn_names), op);
}
