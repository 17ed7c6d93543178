// SPDX-License-Identifier: MIT
/*
 * What the collective benchmark prints, laid out as nccl-tests lays it out
 * (src/util.cu there) so that scripts written for nccl-tests read it: the
 * header comment lines, one row per size with the columns at nccl-tests'
 * widths (ccore's algorithm as one more column at the end), the summary
 * lines and "# Collective test concluded"; -J FILE the same as nccl-tests'
 * JSON (version 3); --json FILE ccore's own rows.
 */
#include "bench.h"
#include "../common/json.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* nccl-tests' JSON file version this writer follows */
#define NCCL_TESTS_JSON_VERSION 3

extern char **environ;

struct bench_report {
	const struct bench_opts *o;
	FILE *nccl_file, *ccore_file;
	struct json nj, cj;
	int ccore_rows;
};

/* @v in @width characters, as nccl-tests' getFloatStr(): fewer decimals if it must. */
static void float_str(double v, int width, char *buf, size_t len)
{
	if (snprintf(buf, len, "%*.2f", width, v) <= width)
		return;
	if (snprintf(buf, len, "%*.1f", width, v) <= width)
		return;
	if (snprintf(buf, len, "%*.0f", width, v) <= width)
		return;
	snprintf(buf, len, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

static void now_str(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm);
}

/*
 * -J FILE as nccl-tests opens it: never over an existing file (FILE.0,
 * FILE.1, ... instead), and saying where it writes.
 */
static FILE *open_new(const char *path, char *used, size_t len)
{
	snprintf(used, len, "%s", path);
	for (int i = 0; i < 1000; i++) {
		int fd = open(used, O_WRONLY | O_CREAT | O_EXCL, 0644);

		if (fd >= 0)
			return fdopen(fd, "w");
		if (errno != EEXIST)
			return NULL;
		snprintf(used, len, "%s.%d", path, i);
	}
	return NULL;
}

struct bench_report *bench_report_open(const struct bench_opts *o)
{
	struct bench_report *r = calloc(1, sizeof(*r));
	char used[4096];

	if (!r) {
		fprintf(stderr, "ccore-bench: out of memory\n");
		return NULL;
	}
	r->o = o;
	if (o->json && !(r->ccore_file = fopen(o->json, "w"))) {
		fprintf(stderr, "ccore-bench: --json %s: %s\n", o->json, strerror(errno));
		free(r);
		return NULL;
	}
	if (o->nccl_json) {
		r->nccl_file = open_new(o->nccl_json, used, sizeof(used));
		if (!r->nccl_file) {
			fprintf(stderr, "ccore-bench: -J %s: %s\n", used, strerror(errno));
			if (r->ccore_file)
				fclose(r->ccore_file);
			free(r);
			return NULL;
		}
		printf("# Writing JSON output to %s\n", used);
	}
	json_init(&r->nj, r->nccl_file, 0);
	json_init(&r->cj, r->ccore_file, 2);
	return r;
}

static void nccl_json_start(struct bench_report *r, const struct bench_report_info *in)
{
	const struct bench_opts *o = r->o;
	struct json *j = &r->nj;
	char when[64];

	now_str(when, sizeof(when));
	json_object_begin(j);
	json_kv_int(j, "version", NCCL_TESTS_JSON_VERSION);
	json_kv_string(j, "start_time", when);
	json_kv_strings(j, "args", (const char *const *)o->argv, (size_t)o->argc);
	json_kv_strings(j, "env", (const char *const *)environ, SIZE_MAX);
	json_kv_int(j, "nccl_version", 0);	/* no NCCL here */
	json_key(j, "config");
	json_object_begin(j);
	json_kv_int(j, "nthreads", 1);
	json_kv_int(j, "ngpus", in->ranks);
	json_kv_uint(j, "minimum_bytes", o->min_bytes);
	json_kv_uint(j, "maximum_bytes", o->max_bytes);
	if (o->step_factor > 1)
		json_kv_uint(j, "step_factor", (unsigned long long)o->step_factor);
	else
		json_kv_uint(j, "step_bytes", o->step_bytes);
	json_kv_int(j, "warmup_iters", o->warmup);
	json_kv_int(j, "iterations", o->iters);
	json_kv_int(j, "aggregated_iterations", o->agg_iters);
	json_kv_int(j, "validation", in->checked ? o->check : 0);
	json_kv_int(j, "graph", 0);
	/* nccl-tests writes its booleans as the strings "true" and "false" */
	json_kv_string(j, "blocking_collectives", o->blocking ? "true" : "false");
	json_kv_string(j, "per_iter_timing", "false");
	json_kv_int(j, "per_iter_skip", 0);
	json_kv_string(j, "parallel_init", "false");
	json_key(j, "devices");
	json_array_begin(j);
	for (int rank = 0; rank < in->ranks; rank++) {
		char hex[32], info[96];

		snprintf(hex, sizeof(hex), "%04x:%02x:%02x", in->node_of[rank], in->device_of[rank], 0);
		snprintf(info, sizeof(info), "ccore %s node %d device %d", in->backend,
			 in->node_of[rank], in->device_of[rank]);
		json_object_begin(j);
		json_kv_int(j, "rank", rank);
		json_kv_int(j, "group", 0);
		json_kv_int(j, "pid", (long long)getpid());
		json_kv_string(j, "hostname", in->hostname);
		json_kv_int(j, "device", in->device_of[rank]);
		json_kv_string(j, "device_hex", hex);
		json_kv_string(j, "device_info", info);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
	/* what ccore adds: readers of nccl-tests' keys never look here */
	json_key(j, "ccore");
	json_object_begin(j);
	json_kv_string(j, "collective", bench_op_names[o->op]);
	json_kv_int(j, "ranks", in->ranks);
	json_kv_uint(j, "nodes", o->topo.nodes);
	json_kv_uint(j, "devices_per_node", o->topo.devices_per_node);
	json_kv_uint(j, "ranks_per_device", o->topo.ranks_per_device);
	json_kv_string(j, "algo", o->algo);
	json_kv_bool(j, "timed", o->timed);
	json_kv_double(j, "host_memcpy_gbps", in->host_gbps, 3);
	json_object_end(j);
	json_key(j, "results");
	json_array_begin(j);
}

void bench_report_header(struct bench_report *r, const struct bench_report_info *in)
{
	const struct bench_opts *o = r->o;
	char line[2048];
	size_t len = 0;

	printf("# Collective test starting: %s\n", o->program);
	printf("# nThread 1 nGpus %d minBytes %zu maxBytes %zu step: %zu(%s) warmup iters: %d iters: %d agg iters: %d validation: %d graph: 0 unalign: %d\n",
	       in->ranks, o->min_bytes, o->max_bytes,
	       o->step_factor > 1 ? (size_t)o->step_factor : o->step_bytes,
	       o->step_factor > 1 ? "factor" : "bytes", o->warmup, o->iters, o->agg_iters,
	       in->checked ? o->check : 0, o->unalign);
	if (o->blocking)
		printf("# Blocking Enabled: wait after each collective (-z %d)\n", o->blocking);
	printf("# ccore-bench %s: %d ranks (%u node(s) x %u device(s) x %u ranks), %s\n",
	       bench_op_names[o->op], in->ranks, o->topo.nodes, o->topo.devices_per_node,
	       o->topo.ranks_per_device, o->algo ? o->algo : "algorithm chosen by ccore");
	if (o->timed)
		printf("# timed: simulated times, virtual microseconds of the timed device model (CCORE_SIM %s)%s\n",
		       getenv("CCORE_SIM") ? getenv("CCORE_SIM") : "",
		       in->checked ? "" : "; results not checked");
	else
		printf("# host memcpy bandwidth (same run): %.2f GB/s\n", in->host_gbps);
	printf("#\n# Using devices\n");
	/* one line per rank, cut as nccl-tests cuts its buffer */
	for (int rank = 0; rank < in->ranks && len < sizeof(line); rank++)
		len += (size_t)snprintf(line + len, sizeof(line) - len,
					"#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] ccore %s node %d device %d\n",
					rank, 0, (int)getpid(), in->hostname, in->device_of[rank],
					in->node_of[rank], in->device_of[rank], 0, in->backend,
					in->node_of[rank], in->device_of[rank]);
	if (len >= sizeof(line))
		strcpy(line + sizeof(line) - 5, "...\n");
	fputs(line, stdout);
	printf("#\n");
	printf("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n",
	       "", "", "", "", "");
	printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s  %s\n", "size",
	       "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
	       "busbw", "#wrong", o->timestamps ? 19 : 0, o->timestamps ? "timestamp" : "", "algo");
	printf("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)",
	       "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)",
	       "", o->timestamps ? 19 : 0, o->timestamps ? "%Y-%m-%d %H:%M:%S" : "");
	if (r->nccl_file)
		nccl_json_start(r, in);
	if (r->ccore_file) {
		json_object_begin(&r->cj);
		json_kv_string(&r->cj, "op", bench_op_names[o->op]);
		json_kv_int(&r->cj, "ranks", in->ranks);
		json_kv_double(&r->cj, "host_memcpy_gbps", in->host_gbps, 3);
		json_key(&r->cj, "rows");
		json_array_begin(&r->cj);
	}
}

static void print_half(const struct bench_half *h)
{
	char t[16], a[16], b[16];

	if (h->skipped) {
		printf("  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
		return;
	}
	float_str(h->time_us, 7, t, sizeof(t));
	float_str(h->algbw, 6, a, sizeof(a));
	float_str(h->busbw, 6, b, sizeof(b));
	if (h->checked)
		printf("  %7s  %6s  %6s  %6g", t, a, b, (double)h->wrong);
	else
		printf("  %7s  %6s  %6s    N/A", t, a, b);
}

static void nccl_json_half(struct json *j, const char *key, const struct bench_half *h)
{
	json_key(j, key);
	if (h->skipped) {
		json_null(j);
		return;
	}
	json_object_begin(j);
	json_kv_double(j, "time", h->time_us, 6);
	json_kv_double(j, "alg_bw", h->algbw, 6);
	json_kv_double(j, "bus_bw", h->busbw, 6);
	if (h->checked)
		json_kv_double(j, "nwrong", (double)h->wrong, 6);
	else
		json_kv_null(j, "nwrong");
	json_object_end(j);
}

static void ccore_json_half(struct bench_report *r, const struct bench_row *row,
			    const struct bench_half *h, bool in_place)
{
	struct json *j = &r->cj;

	if (h->skipped)
		return;
	json_object_begin(j);
	json_kv_uint(j, "size", row->bytes);
	json_kv_uint(j, "count", row->count);
	json_kv_string(j, "type", bench_dtype_name(row->dtype));
	json_kv_string(j, "redop", row->redop);
	json_kv_int(j, "root", row->root);
	json_kv_bool(j, "in_place", in_place);
	json_kv_double(j, "time_us", h->time_us, 3);
	json_kv_double(j, "algbw", h->algbw, 4);
	json_kv_double(j, "busbw", h->busbw, 4);
	if (h->checked)
		json_kv_int(j, "wrong", h->wrong);
	else
		json_kv_null(j, "wrong");
	json_kv_string(j, "algo", row->algo);
	json_kv_double(j, "host_memcpy_gbps", row->host_gbps, 3);
	json_object_end(j);
}

void bench_report_row(struct bench_report *r, const struct bench_row *row)
{
	char root[16];

	snprintf(root, sizeof(root), "%6i", row->root);
	printf("%12zu  %12zu  %8s  %6s  %6s", row->bytes, row->count, bench_dtype_name(row->dtype),
	       row->redop, root);
	print_half(&row->oop);
	print_half(&row->ip);
	if (r->o->timestamps) {
		char when[64];

		now_str(when, sizeof(when));
		printf("%21s", when);
	}
	printf("  %s\n", row->algo && *row->algo ? row->algo : "-");
	fflush(stdout);
	if (r->nccl_file) {
		struct json *j = &r->nj;

		json_object_begin(j);
		json_kv_uint(j, "size", row->bytes);
		json_kv_uint(j, "count", row->count);
		json_kv_string(j, "type", bench_dtype_name(row->dtype));
		json_kv_string(j, "redop", row->redop);
		json_kv_string(j, "root", root);	/* nccl-tests writes it as printed */
		nccl_json_half(j, "out_of_place", &row->oop);
		nccl_json_half(j, "in_place", &row->ip);
		json_kv_int(j, "actual_iterations", r->o->iters);
		json_kv_string(j, "experiment_name", "");
		json_kv_string(j, "algo", row->algo);
		json_object_end(j);
	}
	if (r->ccore_file) {
		ccore_json_half(r, row, &row->oop, false);
		ccore_json_half(r, row, &row->ip, true);
	}
}

int bench_report_footer(struct bench_report *r, const struct bench_summary *s)
{
	const char *bw_verdict = "";
	bool bw_ok = r->o->min_bw < 0 || s->avg_busbw >= r->o->min_bw * 0.9;

	if (r->o->min_bw >= 0)
		bw_verdict = bw_ok ? "OK" : "FAILED";
	if (s->checked)
		printf("# %-20s : %d %s\n", "Out of bounds values", s->errors,
		       s->errors ? "FAILED" : "OK");
	else
		printf("# %-20s : N/A (results not checked: %s)\n", "Out of bounds values",
		       s->why_unchecked);
	printf("# %-20s : %g %s%s\n", "Avg bus bandwidth", s->avg_busbw, bw_verdict,
	       s->checked ? "" : "(results not checked)");
	printf("#\n# Collective test concluded: %s\n#\n", r->o->program);
	if (r->nccl_file) {
		struct json *j = &r->nj;

		json_array_end(j);
		json_key(j, "out_of_bounds");
		json_object_begin(j);
		if (s->checked) {
			json_kv_int(j, "count", s->errors);
			json_kv_string(j, "okay", s->errors ? "false" : "true");
		} else {
			json_kv_null(j, "count");
			json_kv_string(j, "okay", "unchecked");
		}
		json_object_end(j);
		json_key(j, "average_bus_bandwidth");
		json_object_begin(j);
		json_kv_double(j, "bandwidth", s->avg_busbw, 6);
		json_kv_string(j, "okay", r->o->min_bw < 0 ? "unchecked" : bw_ok ? "true" : "false");
		json_object_end(j);
	}
	if (r->ccore_file) {
		json_array_end(&r->cj);
		json_kv_double(&r->cj, "avg_busbw", s->avg_busbw, 4);
		if (s->checked)
			json_kv_int(&r->cj, "wrong", s->wrong);
		else
			json_kv_null(&r->cj, "wrong");
		if (s->host_bound) {
			json_kv_uint(&r->cj, "host_bound_size", s->largest);
			json_kv_double(&r->cj, "host_bound_oop_busbw", s->host_bound_oop, 4);
			json_kv_double(&r->cj, "host_bound_ip_busbw", s->host_bound_ip, 4);
		}
	}
	return bw_ok ? 0 : -1;
}

int bench_report_close(struct bench_report *r, const char *error)
{
	int rc = 0;

	if (r->nccl_file) {
		struct json *j = &r->nj;
		char when[64];

		/* a run that failed before its header has no document open */
		if (j->depth == 0) {
			json_object_begin(j);
			json_kv_int(j, "version", NCCL_TESTS_JSON_VERSION);
		}
		while (j->depth > 1)
			j->object[j->depth - 1] ? json_object_end(j) : json_array_end(j);
		json_key(j, "errors");
		json_array_begin(j);
		if (error)
			json_string(j, error);
		json_array_end(j);
		now_str(when, sizeof(when));
		json_kv_string(j, "end_time", when);
		json_object_end(j);
		rc |= json_finish(j);
		rc |= fclose(r->nccl_file);
	}
	if (r->ccore_file) {
		struct json *j = &r->cj;

		if (j->depth == 0)
			json_object_begin(j);
		while (j->depth > 1)
			j->object[j->depth - 1] ? json_object_end(j) : json_array_end(j);
		if (error)
			json_kv_string(j, "error", error);
		json_object_end(j);
		rc |= json_finish(j);
		rc |= fclose(r->ccore_file);
	}
	free(r);
	if (rc)
		fprintf(stderr, "ccore-bench: writing the JSON output failed\n");
	return rc ? -1 : 0;
}
