// SPDX-License-Identifier: MIT
/*
 * The names ccore-bench reads and prints: collectives, data types and
 * reduction operations as nccl-tests spells them (with ccore's and NCCL's
 * own spellings as aliases), matched without regard to case, and sizes as
 * nccl-tests parses them ("64MB", "1G", "8K", "1.5M").
 */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const bench_op_names[OP_COUNT] = {
	"allreduce", "allgather", "reducescatter", "alltoall", "broadcast", "reduce", "sendrecv",
};

/* nccl-tests' program for each collective, as its table names it */
const char *const bench_op_programs[OP_COUNT] = {
	"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf",
	"broadcast_perf", "reduce_perf", "sendrecv_perf",
};

/* nccl-tests' -d order ("all" runs them in this order) and names, then aliases */
const struct bench_dtype bench_dtypes[BENCH_NDTYPES] = {
	{ "int8", ccore_i8, { "i8", "char" } },
	{ "uint8", ccore_u8, { "u8" } },
	{ "int32", ccore_i32, { "i32", "int" } },
	{ "uint32", ccore_u32, { "u32" } },
	{ "int64", ccore_i64, { "i64" } },
	{ "uint64", ccore_u64, { "u64" } },
	{ "half", ccore_f16, { "f16", "float16", "fp16" } },
	{ "float", ccore_f32, { "f32", "float32", "fp32" } },
	{ "double", ccore_f64, { "f64", "float64", "fp64" } },
	{ "bfloat16", ccore_bf16, { "bf16" } },
};

/* nccl-tests' -o order */
const struct bench_redop bench_redops[BENCH_NREDOPS] = {
	{ "sum", ccore_sum }, { "prod", ccore_prod }, { "max", ccore_max }, { "min", ccore_min },
	{ "avg", ccore_avg },
};

const char *bench_dtype_name(enum ccore_dtype t)
{
	for (int i = 0; i < BENCH_NDTYPES; i++)
		if (bench_dtypes[i].dtype == t)
			return bench_dtypes[i].name;
	return "?";
}

const char *bench_redop_name(enum ccore_redop op)
{
	for (int i = 0; i < BENCH_NREDOPS; i++)
		if (bench_redops[i].redop == op)
			return bench_redops[i].name;
	return "?";
}

bool bench_op_reduces(enum bench_op op)
{
	return op == OP_ALLREDUCE || op == OP_REDUCESCATTER || op == OP_REDUCE;
}

/* @a and @b equal without regard to case and underscores ("All_Reduce"). */
static bool same_name(const char *a, const char *b)
{
	for (;; a++, b++) {
		while (*a == '_')
			a++;
		while (*b == '_')
			b++;
		if (strncasecmp(a, b, 1))
			return false;
		if (!*a)
			return true;
	}
}

int bench_op_parse(const char *s)
{
	for (int i = 0; i < OP_COUNT; i++)
		if (same_name(s, bench_op_names[i]) || !strcasecmp(s, bench_op_programs[i]))
			return i;
	return -1;
}

int bench_dtype_parse(const char *s)
{
	for (int i = 0; i < BENCH_NDTYPES; i++) {
		if (!strcasecmp(s, bench_dtypes[i].name))
			return i;
		for (int k = 0; k < 3 && bench_dtypes[i].aliases[k]; k++)
			if (!strcasecmp(s, bench_dtypes[i].aliases[k]))
				return i;
	}
	return -1;
}

int bench_redop_parse(const char *s)
{
	for (int i = 0; i < BENCH_NREDOPS; i++)
		if (!strcasecmp(s, bench_redops[i].name))
			return i;
	return -1;
}

int bench_parse_size(const char *s, uint64_t max, uint64_t *out)
{
	double v, scale = 1;
	char *end;

	/* nccl-tests: a number, then K, M or G (binary) with an optional B */
	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return -1;
	v = strtod(s, &end);
	while (*end == ' ')
		end++;
	switch (*end) {
	case 'K': case 'k': scale = 1024.0; end++; break;
	case 'M': case 'm': scale = 1024.0 * 1024; end++; break;
	case 'G': case 'g': scale = 1024.0 * 1024 * 1024; end++; break;
	default: break;
	}
	if (scale > 1 && (*end == 'i' || *end == 'I') && (end[1] == 'B' || end[1] == 'b'))
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	v *= scale;
	if (*end || !isfinite(v) || v < 0 || v > (double)max || v != floor(v))
		return -1;
	*out = (uint64_t)v;
	return 0;
}
