// SPDX-License-Identifier: MIT
/*
 * ccore-bench --exec FILE: load an executable (.cce), run its steps and
 * print the step time, the TP (stream 0) collectives' latency and each
 * collective's, with the bytes each stream's rings and the compute DMA
 * moved: the figures that explain packet-size priority.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#include "exec/exe_run.h"
#include "../common/json.h"

int bench_exec_load(const char *path, struct ccore_exe **out)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long len;
	int rc;

	if (!f) {
		fprintf(stderr, "ccore-bench: --exec %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc(len ? (size_t)len : 1)) || fread(buf, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "ccore-bench: --exec %s: cannot read it\n", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	rc = ccore_exe_load(buf, (size_t)len, out);
	free(buf);
	if (rc)
		fprintf(stderr, "ccore-bench: --exec %s: %s\n", path, ccore_last_error());
	return rc ? -1 : 0;
}

/* A per-job time: null where the backend has none (not timed). */
static void json_time(struct json *j, const char *key, bool timed, double v)
{
	if (timed)
		json_kv_double(j, key, v, 3);
	else
		json_kv_null(j, key);
}

static int json_row(FILE *f, const struct ccore_exe *exe, const struct exe_step_stats *st,
		    const uint64_t *compute, const uint64_t *streams)
{
	struct json j;

	json_init(&j, f, 0);
	json_object_begin(&j);
	json_kv_double(&j, "step_time_us", st->step_us, 3);
	json_time(&j, "tp_latency_us", st->timed, st->tp_latency_us);
	json_time(&j, "other_latency_us", st->timed, st->other_latency_us);
	json_kv_bool(&j, "timed", st->timed);
	json_kv_uint(&j, "compute_dma_bytes", (unsigned long long)*compute);
	json_key(&j, "stream_bytes");
	json_array_begin(&j);
	for (uint32_t s = 0; s < CCORE_EXE_MAX_STREAMS; s++)
		json_uint(&j, (unsigned long long)streams[s]);
	json_array_end(&j);
	json_key(&j, "collectives");
	json_array_begin(&j);
	for (uint32_t c = 0; c < st->ncolls; c++) {
		json_object_begin(&j);
		json_kv_string(&j, "name", exe->colls[c].name);
		json_kv_uint(&j, "stream", exe->colls[c].stream);
		json_kv_uint(&j, "jobs", st->colls[c].jobs);
		json_time(&j, "latency_us", st->timed, st->colls[c].latency_us);
		json_time(&j, "run_us", st->timed, st->colls[c].run_us);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_object_end(&j);
	return json_finish(&j);
}

int bench_exec(const struct bench_opts *o, const struct ccore_exe *exe)
{
	struct exe_step_stats st;
	uint64_t compute = 0, streams[CCORE_EXE_MAX_STREAMS] = { 0 };
	struct ccore_stream_map map;
	struct exe_run *x;
	double sum = 0, tp = 0;
	int rc;

	rc = exe_run_open(exe, &x);
	if (rc) {
		fprintf(stderr, "ccore-bench: --exec: %s\n", ccore_last_error());
		return 1;
	}
	for (int i = 0; i < o->warmup + o->iters && !rc; i++) {
		rc = exe_run_step(x, &st);
		if (!rc && i >= o->warmup) {
			sum += st.step_us;
			tp += st.tp_latency_us;
		}
	}
	if (rc) {
		fprintf(stderr, "ccore-bench: --exec: %s\n", ccore_last_error());
		exe_run_close(x);
		return 1;
	}
	for (uint32_t r = 0; r < exe->nranks; r++) {
		uint64_t c, s[CCORE_EXE_MAX_STREAMS];

		if (exe_run_ring_bytes(x, r, &c, s))
			continue;
		compute += c;
		for (uint32_t k = 0; k < CCORE_EXE_MAX_STREAMS; k++)
			streams[k] += s[k];
	}
	st.step_us = sum / o->iters;
	st.tp_latency_us = tp / o->iters;
	printf("# executable: %u ranks (%u nodes x %u devices x %u ranks per device), %u collectives, %s times\n",
	       exe->nranks, exe->topo.nodes, exe->topo.devices_per_node, exe->topo.ranks_per_device,
	       exe->ncolls, st.timed ? "simulated (timed model)" : "wall-clock");
	if (!exe_run_stream_map(x, &map)) {
		printf("# streams %u (%s); CC packet size per stream:", map.streams,
		       map.streams_source);
		for (uint32_t s = 0; s < map.streams; s++)
			printf(" %u", map.cc_packet_size[s]);
		printf("; compute DMA packet size %u\n", map.dma_packetization_size);
	}
	/* per-job times exist only on the timed model: "-" elsewhere */
	printf("%-20s %8s %6s %10s %10s\n", "# collective", "stream", "jobs", "latency_us", "run_us");
	for (uint32_t c = 0; c < st.ncolls; c++) {
		printf("  %-18s %8u %6u", exe->colls[c].name, exe->colls[c].stream, st.colls[c].jobs);
		if (st.timed)
			printf(" %10.3f %10.3f\n", st.colls[c].latency_us, st.colls[c].run_us);
		else
			printf(" %10s %10s\n", "-", "-");
	}
	printf("# bytes moved so far (all ranks): compute DMA %llu", (unsigned long long)compute);
	for (uint32_t s = 0; s < CCORE_EXE_MAX_STREAMS; s++)
		if (streams[s])
			printf(", stream %u collectives %llu", s, (unsigned long long)streams[s]);
	printf("\n");
	if (st.timed)
		printf("step_time_us %.3f  tp_latency_us %.3f\n", st.step_us, st.tp_latency_us);
	else
		printf("step_time_us %.3f  tp_latency_us -\n", st.step_us);
	if (o->json) {
		FILE *j = fopen(o->json, "w");

		if (!j) {
			fprintf(stderr, "ccore-bench: --json %s: %s\n", o->json, strerror(errno));
			exe_run_close(x);
			return 1;
		}
		if (json_row(j, exe, &st, &compute, streams) | fclose(j)) {
			fprintf(stderr, "ccore-bench: --json %s: writing failed\n", o->json);
			exe_run_close(x);
			return 1;
		}
	}
	exe_run_close(x);
	return 0;
}
