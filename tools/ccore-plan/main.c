// SPDX-License-Identifier: MIT
/*
 * ccore-plan: what would run for a collective, and why.  For (op, N, size,
 * topology) it lists every algorithm with its alpha-beta time (the tuner's
 * cost model, runtime/tune/) and why the others cannot serve, names the
 * tuner's choice, sweeps sizes for the crossover points, and draws charts
 * and space-time diagrams as SVG.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ccore.h"
#include "algos/algo.h"
#include "sched/cs.h"
#include "regret.h"
#include "select.h"
#include "sim/sim_costs.h"
#include "svg.h"
#include "timed.h"
#include "tune/hw.h"
#include "tune/net_tier.h"
#include "tune/tuner.h"
#include "util/size.h"
#include "../common/json.h"
#include "args.h"

/* The runtime's bound (select.c): 64, and a slice holds an element at least. */
static uint32_t max_slices(const struct cs_shape *sh)
{
	uint64_t block = sh->coll == CS_ALLREDUCE ? sh->count / (sh->nranks ? sh->nranks : 1) :
			 sh->count;

	return block < 1 ? 1 : block > 64 ? 64 : (uint32_t)block;
}


static int chunked(int coll)
{
	return coll == CS_ALLGATHER || coll == CS_REDUCESCATTER || coll == CS_ALLTOALL;
}

static struct cs_shape shape_of(const struct plan_args *a, uint64_t bytes)
{
	struct cs_shape sh = {
		.coll = (uint8_t)a->coll, .nranks = a->ranks, .count = bytes / 4,
		.root = a->root, .peer = a->ranks > 1 ? (a->root + 1) % a->ranks : 0,
	};

	if (chunked(a->coll))
		sh.count /= a->ranks;
	return sh;
}

static void topo_of(const struct plan_args *a, const struct tune_hw *hw, struct tune_topo *t)
{
	if (a->ideal) {
		tune_topo_ideal(t, a->ranks, a->alpha_us, a->bw_gbps);
		return;
	}
	tuner_topo(a->nodes, a->torus_x, a->torus_y, a->ranks_per_device, hw, t);
}

/*
 * @t's layout and, between nodes, the network's figures as priced, each
 * saying where it comes from.
 */
static void describe(const struct plan_args *a, const struct tune_topo *t, char *buf, size_t len)
{
	const char *ta = getenv("CCORE_TUNER_ALPHA_US"), *tb = getenv("CCORE_TUNER_BW_GBPS");
	size_t used;

	tune_topo_describe(t, buf, len);
	if (t->ideal || t->nodes < 2)
		return;
	used = strlen(buf);
	snprintf(buf + used, len - used, "; network α %.4g µs (%s), %.4g GB/s (%s)",
		 t->alpha_us[TUNE_NET],
		 ta && *ta ? "CCORE_TUNER_ALPHA_US" : a->have_net_alpha ? "--topology" :
		 "the device's", t->bw_gbps[TUNE_NET],
		 tb && *tb ? "CCORE_TUNER_BW_GBPS" : a->have_net_bw ? "--topology" : "the device's");
}

/* The simulated device's parameters: the sim's defaults and $CCORE_SIM's keys. */
static int hw_of(struct tune_hw *hw)
{
	const char *user = getenv("CCORE_SIM");
	struct ccm_config c;
	struct ccm_err err = { 0 };

	ccm_config_default(&c);
	c.timed = 1;
	if (user && *user && ccm_config_parse(&c, user, &err)) {
		fprintf(stderr, "ccore-plan: CCORE_SIM=%s: %s\n", user, err.msg);
		return -1;
	}
	tune_hw_from_config(&c, hw);
	return 0;
}

static int draw(const struct plan_args *a, const struct algo *al)
{
	struct algo_opts o = { .slices = a->slices, .channels = 1,
			       .pat_buffer = select_pat_buffer(4) };
	struct cs_shape sh = shape_of(a, a->size);
	struct cs_sched *s;
	char title[160], err[160];
	FILE *out;
	int rc;

	s = al->gen(&sh, &o);
	if (cs_unusable(s)) {
		fprintf(stderr, "ccore-plan: %s could not generate the schedule: %s\n", al->name,
			cs_unusable(s));
		cs_free(s);
		return 1;
	}
	out = fopen(a->diagram, "w");
	if (!out) {
		fprintf(stderr, "ccore-plan: --diagram %s: %s\n", a->diagram, strerror(errno));
		cs_free(s);
		return 1;
	}
	snprintf(title, sizeof(title), "%s %s, %u ranks, %llu bytes, %u slice%s", al->name,
		 cs_coll_name(sh.coll), sh.nranks, (unsigned long long)a->size, a->slices,
		 a->slices == 1 ? "" : "s");
	rc = svg_write_spacetime(out, s, title, err, sizeof(err));
	if (fclose(out) || rc) {
		fprintf(stderr, "ccore-plan: --diagram %s: %s\n", a->diagram,
			rc ? err : strerror(errno));
		cs_free(s);
		return 1;
	}
	cs_free(s);
	return 0;
}

/* Every algorithm serving the op at @bytes: its time, or why it cannot. */
struct row {
	const struct algo *al;
	const char *why;
	struct tune_call call;	/* the tuner's slices and channels */
	double us;		/* at those */
	double ref_us;		/* the reference formula: 1 slice, 1 channel */
	double timed_us;	/* the timed model's, at the tuner's slices; < 0: none */
	char *timed_why;	/* why there is none (heap, rows_free()) */
};

static unsigned int plan_rows(const struct plan_args *a, const struct tune_topo *t,
			      uint64_t bytes, struct row *rows, unsigned int max)
{
	struct cs_shape sh = shape_of(a, bytes);
	struct algo_opts o = { .slices = 1, .channels = 1,
			       .ranks_per_node = a->nodes > 1 ? a->ranks / a->nodes : 0,
			       .ranks_per_device = a->ranks_per_device,
			       .pat_buffer = select_pat_buffer(4) };
	unsigned int i, n = 0;

	for (i = 0; i < algo_count() && n < max; i++) {
		const struct algo *al = algo_at(i);
		struct row *r = &rows[n];

		if (!(al->colls & (1u << sh.coll)) || (a->algo && strcasecmp(a->algo, al->name)))
			continue;
		*r = (struct row){ .al = al, .us = -1, .timed_us = -1 };
		r->why = al->rejects ? al->rejects(&sh, &o) : NULL;
		r->call = (struct tune_call){ .coll = sh.coll, .nranks = a->ranks,
					      .bytes = (double)bytes, .slices = 1, .channels = 1,
					      .peer_dist = 1, .elem_size = 4,
					      .pat_buffer = o.pat_buffer };
		if (!r->why && !tune_formula(al, t, &r->call, &r->ref_us, &r->why) &&
		    tuner_best(al, t, &r->call, max_slices(&sh), &r->us))
			r->why = "the cost model has no time for it";
		n++;
	}
	return n;
}

/* A row's time by the cost model, or (@timed) by the timed model; < 0: none. */
static double row_us(const struct row *r, bool timed)
{
	return timed ? r->timed_us : r->us;
}

/* The row that applies with the shortest time (row_us()); NULL if none has one. */
static const struct row *fastest(const struct row *rows, unsigned int n, bool timed)
{
	const struct row *b = NULL;

	for (unsigned int i = 0; i < n; i++)
		if (!rows[i].why && row_us(&rows[i], timed) >= 0 &&
		    (!b || row_us(&rows[i], timed) < row_us(b, timed)))
			b = &rows[i];
	return b;
}

/* The timed model's time of every row that applies (@w NULL: timed_error() says why not). */
static void timed_rows(const struct plan_args *a, struct timed_world *w, uint64_t bytes,
		       struct row *rows, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		if (rows[i].why)
			continue;
		free(rows[i].timed_why);
		rows[i].timed_why = NULL;
		if (!w || timed_run(w, a->coll, bytes, a->root, rows[i].al->name,
				    &rows[i].timed_us)) {
			rows[i].timed_us = -1;
			rows[i].timed_why = strdup(timed_error());
		}
	}
}

static void rows_free(struct row *rows, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		free(rows[i].timed_why);
		rows[i].timed_why = NULL;
	}
}

static int plan_one(const struct plan_args *a, const struct tune_topo *t)
{
	struct row rows[64];
	unsigned int n = plan_rows(a, t, a->size, rows, 64), i;
	const struct row *b = fastest(rows, n, false);
	char desc[256];

	if (!n) {
		fprintf(stderr, "ccore-plan: no algorithm called '%s' serves %s\n",
			a->algo ? a->algo : "", cs_coll_name((unsigned int)a->coll));
		return 1;
	}
	if (a->timed) {
		struct timed_world *w = timed_open(t, a->size);

		timed_rows(a, w, a->size, rows, n);
		timed_close(w);
	}
	describe(a, t, desc, sizeof(desc));
	if (a->json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_object_begin(&j);
		json_kv_string(&j, "op", cs_coll_name((unsigned int)a->coll));
		json_kv_uint(&j, "ranks", a->ranks);
		json_kv_uint(&j, "size", (unsigned long long)a->size);
		json_kv_string(&j, "topology", desc);
		json_kv_string(&j, "chosen", b ? b->al->name : NULL);
		json_key(&j, "algorithms");
		json_array_begin(&j);
		for (i = 0; i < n; i++) {
			json_object_begin(&j);
			json_kv_string(&j, "algo", rows[i].al->name);
			json_kv_bool(&j, "applies", !rows[i].why);
			if (rows[i].why) {
				json_kv_string(&j, "why", rows[i].why);
			} else {
				json_kv_double(&j, "formula_us", rows[i].ref_us, 4);
				json_kv_double(&j, "tuned_us", rows[i].us, 4);
				json_kv_uint(&j, "slices", rows[i].call.slices);
				json_kv_uint(&j, "channels", rows[i].call.channels);
				if (rows[i].timed_us >= 0) {
					json_kv_double(&j, "timed_us", rows[i].timed_us, 4);
				} else if (a->timed) {
					json_kv_null(&j, "timed_us");
					json_kv_string(&j, "timed_why",
						       rows[i].timed_why ?: "out of memory");
				}
			}
			json_object_end(&j);
		}
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
	} else {
		printf("# %s, %u ranks, %llu bytes; %s\n", cs_coll_name((unsigned int)a->coll),
		       a->ranks, (unsigned long long)a->size, desc);
		printf("# %-12s %14s %14s %14s %6s %8s\n", "algorithm", "formula_us", "tuned_us",
		       "timed_us", "slices", "channels");
		for (i = 0; i < n; i++) {
			char timed[32];

			if (rows[i].why) {
				printf("  %-12s %14s %14s %14s %6s %8s  %s\n", rows[i].al->name, "-",
				       "-", "-", "-", "-", rows[i].why);
				continue;
			}
			if (rows[i].timed_us >= 0)
				snprintf(timed, sizeof(timed), "%.3f", rows[i].timed_us);
			else
				snprintf(timed, sizeof(timed), "-");
			printf("  %-12s %14.3f %14.3f %14s %6u %8u%s", rows[i].al->name,
			       rows[i].ref_us, rows[i].us, timed, rows[i].call.slices,
			       rows[i].call.channels, &rows[i] == b ? "  <- chosen" : "");
			if (rows[i].timed_us < 0 && a->timed)
				printf("  (timed: %s)", rows[i].timed_why ?: "out of memory");
			printf("\n");
		}
		printf("# formula_us: the reference alpha-beta time (1 slice, 1 channel);\n"
		       "# tuned_us: at the slices and channels the tuner would use;\n"
		       "# timed_us: the timed device model running it at those%s\n",
		       a->timed ? "" : " (--no-timed: not run)");
		if (!b)
			printf("# no algorithm can run this\n");
	}
	rows_free(rows, n);
	return 0;
}

static int plan_sweep(const struct plan_args *a, const struct tune_topo *t)
{
	struct row rows[64];
	unsigned int nsizes = 0, n = 0, i, k;
	double xs[64], ys[64][64];
	const char *chosen[64];
	struct svg_series series[64];
	const char *prev = NULL;
	uint64_t b;
	char desc[256];

	struct timed_world *w = NULL;
	char *err = NULL;
	struct json j;

	if (a->timed) {
		w = timed_open(t, a->max);
		err = w ? NULL : strdup(timed_error());
	}
	describe(a, t, desc, sizeof(desc));
	json_init(&j, stdout, 0);
	if (a->json) {
		json_object_begin(&j);
		json_kv_string(&j, "op", cs_coll_name((unsigned int)a->coll));
		json_kv_uint(&j, "ranks", a->ranks);
		json_kv_string(&j, "topology", desc);
		json_key(&j, "sizes");
		json_array_begin(&j);
	} else {
		printf("# %s, %u ranks; %s\n# %14s  %-12s %12s", cs_coll_name((unsigned int)a->coll),
		       a->ranks, desc, "size", "best", "formula_us");
		printf(a->timed ? "  %-12s %12s\n" : "\n", "timed_best", "timed_us");
	}
	for (b = a->min; b <= a->max && nsizes < 64; b *= 2) {
		const struct row *best;
		uint64_t bytes = b < 4 * (uint64_t)a->ranks ? 4 * (uint64_t)a->ranks : b;

		bytes -= bytes % (4 * (uint64_t)a->ranks);
		rows_free(rows, n);
		n = plan_rows(a, t, bytes, rows, 64);
		best = fastest(rows, n, false);
		if (a->timed)
			timed_rows(a, w, bytes, rows, n);
		xs[nsizes] = (double)bytes;
		chosen[nsizes] = best ? best->al->name : NULL;
		for (i = 0; i < n; i++)
			ys[i][nsizes] = rows[i].why ? -1 : rows[i].us;
		if (a->json) {
			json_object_begin(&j);
			json_kv_uint(&j, "size", (unsigned long long)bytes);
			json_kv_string(&j, "chosen", best ? best->al->name : NULL);
			json_key(&j, "algorithms");
			json_array_begin(&j);
			for (i = 0; i < n; i++) {
				if (rows[i].why)
					continue;
				json_object_begin(&j);
				json_kv_string(&j, "algo", rows[i].al->name);
				json_kv_double(&j, "formula_us", rows[i].us, 4);
				if (rows[i].timed_us >= 0)
					json_kv_double(&j, "timed_us", rows[i].timed_us, 4);
				json_object_end(&j);
			}
			json_array_end(&j);
			json_object_end(&j);
		} else if (best) {
			const struct row *tb = a->timed ? fastest(rows, n, true) : NULL;

			printf("  %14llu  %-12s %12.3f", (unsigned long long)bytes, best->al->name,
			       best->us);
			if (tb)
				printf("  %-12s %12.3f", tb->al->name, tb->timed_us);
			else if (a->timed)
				printf("  %-12s %12s", "-", "-");
			printf("%s\n", prev && strcmp(prev, best->al->name) ? "  <- crossover" : "");
		}
		if (best && !a->json && prev && strcmp(prev, best->al->name))
			fprintf(stdout, "# crossover at %llu bytes: %s -> %s\n",
				(unsigned long long)bytes, prev, best->al->name);
		prev = best ? best->al->name : prev;
		nsizes++;
		if (b > UINT64_MAX / 2)
			break;
	}
	if (a->json) {
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
	}
	rows_free(rows, n);
	timed_close(w);
	if (a->timed && !w)
		fprintf(stderr, "ccore-plan: no timed runs: %s\n", err ?: "out of memory");
	free(err);
	if (a->svg) {
		struct svg_chart c = { .xlabel = "size (bytes)", .ylabel = "time (us, alpha-beta)",
				       .log_x = 1, .log_y = 1, .series = series,
				       .chosen_x = xs, .chosen = chosen, .nchosen = nsizes };
		char title[160];
		FILE *out = fopen(a->svg, "w");

		for (i = 0; i < n; i++)
			for (k = 0; k < nsizes; k++)
				if (ys[i][k] > 0) {
					series[c.nseries++] = (struct svg_series){
						rows[i].al->name, xs, ys[i], nsizes };
					break;
				}
		snprintf(title, sizeof(title), "%s, %u ranks: time per algorithm",
			 cs_coll_name((unsigned int)a->coll), a->ranks);
		c.title = title;
		if (!out || svg_write_chart(out, &c) || fclose(out)) {
			fprintf(stderr, "ccore-plan: --svg %s: %s\n", a->svg,
				out ? "no algorithm applies at any size" : strerror(errno));
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct plan_args a;
	struct tune_hw hw;
	struct tune_topo t;
	struct row rows[64];
	const struct row *b;
	int rc = parse_args(argc, argv, &a);

	if (rc)
		return rc;
	if (tuner_init() || select_init()) {
		fprintf(stderr, "ccore-plan: %s\n", ccore_last_error());
		return 1;
	}
	if (hw_of(&hw))
		return 2;
	if (a.regret)
		return regret_run(a.quick, &hw);
	/* the network between nodes as --topology gives it, as the runtime's agreed figures */
	tune_hw_set_net(&hw, &(struct tune_net){ a.net_alpha_us, a.net_bw_gbps,
						 a.have_net_alpha ? TUNE_NET_GIVEN : TUNE_NET_DEVICE,
						 a.have_net_bw ? TUNE_NET_GIVEN : TUNE_NET_DEVICE });
	topo_of(&a, &hw, &t);
	if (a.sweep)
		return plan_sweep(&a, &t);
	rc = plan_one(&a, &t);
	if (rc || !a.diagram)
		return rc;
	b = fastest(rows, plan_rows(&a, &t, a.size, rows, 64), false);
	if (!b) {
		fprintf(stderr, "ccore-plan: %s cannot run this shape; nothing to draw\n", a.algo);
		return 1;
	}
	return draw(&a, b->al);
}
