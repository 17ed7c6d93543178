// SPDX-License-Identifier: MIT
/* The tuner's parameters and ranking (see tuner.h). */
#include "tuner.h"
#include "algos/algo.h"
#include "ccore_internal.h"
#include "net_tier.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct params {
	double alpha_us[TUNE_NTIERS], bw_gbps[TUNE_NTIERS];
	double msg_us, reduce_gbps;
	bool ideal;
	/* which of them are set (else the device's) */
	bool has_alpha, has_bw, has_msg;
};

static struct params calibrated;
static bool have_calibration;
static struct params env;		/* calibrated, then the environment */
static struct tunefile file;
static char seen[1024];
static bool parsed;

static const char *const vars[] = {
	"CCORE_TUNER_ALPHA_US", "CCORE_TUNER_BW_GBPS", "CCORE_TUNER_MSG_US",
	"CCORE_TUNER_REDUCE_GBPS", "CCORE_TUNER_IDEAL", "CCORE_TUNER_FILE",
	/* checked here so any communicator's init refuses a bad one (used across hosts) */
	"CCORE_NET_ALPHA_US", "CCORE_NET_BW_GBPS", "CCORE_NET_MEASURE",
};

void tuner_calibrate(const double alpha_us[TUNE_NTIERS], const double bw_gbps[TUNE_NTIERS],
		     double msg_us)
{
	if (alpha_us) {
		memcpy(calibrated.alpha_us, alpha_us, sizeof(calibrated.alpha_us));
		calibrated.has_alpha = true;
	}
	if (bw_gbps) {
		memcpy(calibrated.bw_gbps, bw_gbps, sizeof(calibrated.bw_gbps));
		calibrated.has_bw = true;
	}
	if (msg_us >= 0) {
		calibrated.msg_us = msg_us;
		calibrated.has_msg = true;
	}
	have_calibration = true;
	parsed = false;
}

/* "a,b,c" or "a" into v[0..2]: numbers > 0 (@positive) or >= 0. */
static int tiers(const char *name, const char *s, double v[TUNE_NTIERS], bool positive)
{
	double x[TUNE_NTIERS];
	unsigned int n = 0;
	const char *p = s;
	char *end;
	bool ok = true;

	for (;;) {
		if (n == TUNE_NTIERS) {
			ok = false;
			break;
		}
		x[n] = strtod(p, &end);
		if (end == p || x[n] != x[n] || (positive ? x[n] <= 0 : x[n] < 0)) {
			ok = false;
			break;
		}
		n++;
		if (*end != ',')
			break;
		p = end + 1;
	}
	if (!ok || *end || (n != 1 && n != TUNE_NTIERS))
		return ccore_error(-EINVAL, "%s=%s: expected one number or three comma-separated numbers (intra-device,intra-node,inter-node), each %s",
				   name, s, positive ? "> 0" : ">= 0");
	for (unsigned int i = 0; i < TUNE_NTIERS; i++)
		v[i] = x[n == 1 ? 0 : i];
	return 0;
}

static int scalar(const char *name, const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (end == s || *end || *v != *v || *v < 0)
		return ccore_error(-EINVAL, "%s=%s: expected a number >= 0", name, s);
	return 0;
}

static int parse_env(void)
{
	const char *a = getenv(vars[0]), *b = getenv(vars[1]), *m = getenv(vars[2]);
	const char *r = getenv(vars[3]), *i = getenv(vars[4]), *f = getenv(vars[5]);
	int rc = 0;

	if (have_calibration)
		env = calibrated;
	else
		env = (struct params){ 0 };
	if (a && *a) {
		rc = tiers(vars[0], a, env.alpha_us, false);
		env.has_alpha = true;
	}
	if (!rc && b && *b) {
		rc = tiers(vars[1], b, env.bw_gbps, true);
		env.has_bw = true;
	}
	if (!rc && m && *m) {
		rc = scalar(vars[2], m, &env.msg_us);
		env.has_msg = true;
	}
	if (!rc && r && *r)
		rc = scalar(vars[3], r, &env.reduce_gbps);
	if (!rc && i && *i) {
		if (strcmp(i, "0") && strcmp(i, "1"))
			rc = ccore_error(-EINVAL, "%s=%s: expected 0 or 1", vars[4], i);
		env.ideal = !strcmp(i, "1");
	}
	if (!rc) {
		struct tune_net_env net;

		rc = tune_net_env(&net);
	}
	tunefile_free(&file);
	if (!rc && f && *f)
		rc = tunefile_load(f, &file);
	return rc;
}

int tuner_init(void)
{
	char now[sizeof(seen)];
	size_t n = 0;
	int rc;

	now[0] = '\0';
	for (size_t k = 0; k < sizeof(vars) / sizeof(vars[0]) && n < sizeof(now); k++) {
		const char *v = getenv(vars[k]);

		n += (size_t)snprintf(now + n, sizeof(now) - n, "%s\x1f", v ? v : "");
	}
	if (parsed && !strcmp(now, seen))
		return 0;
	rc = parse_env();
	parsed = !rc;
	if (!rc)
		snprintf(seen, sizeof(seen), "%s", now);
	return rc;
}

const struct tunefile *tuner_file(void)
{
	return &file;
}

void tuner_topo(uint32_t nodes, uint32_t torus_x, uint32_t torus_y, uint32_t ranks_per_device,
		const struct tune_hw *hw, struct tune_topo *t)
{
	struct tune_hw d;

	if (!parsed)
		tuner_init();
	if (!hw) {
		tune_hw_default(&d);
		hw = &d;
	}
	if (env.ideal || hw->ideal) {
		tune_topo_ideal(t, 1, env.has_alpha ? env.alpha_us[0] : hw->alpha_us[TUNE_NODE],
				env.has_bw ? env.bw_gbps[0] : hw->bw_gbps[TUNE_NODE]);
		/* keep the layout: hierarchical and KangaRing group by it */
		t->ranks_per_device = ranks_per_device ? ranks_per_device : 1;
		t->torus_x = torus_x ? torus_x : 1;
		t->torus_y = torus_y ? torus_y : 1;
		t->nodes = nodes ? nodes : 1;
		return;
	}
	tune_topo_from_hw(t, nodes, torus_x, torus_y, ranks_per_device, hw);
	if (env.has_alpha)
		memcpy(t->alpha_us, env.alpha_us, sizeof(t->alpha_us));
	if (env.has_bw)
		memcpy(t->bw_gbps, env.bw_gbps, sizeof(t->bw_gbps));
	if (env.has_msg)
		t->msg_us = env.msg_us;
	t->reduce_gbps = env.reduce_gbps;
}

int tuner_best(const struct algo *a, const struct tune_topo *t, struct tune_call *c,
	       uint32_t max_slices, double *us)
{
	uint32_t smax = a->knobs & ALGO_KNOB_SLICES ? max_slices : 1;
	uint32_t cmax = a->knobs & ALGO_KNOB_CHANNELS ? (max_slices < 8 ? max_slices : 8) : 1;
	struct tune_call best = *c, x = *c;
	double bt = -1, v;
	const char *why;

	for (x.channels = 1; x.channels <= (cmax ? cmax : 1); x.channels *= 2) {
		double prev = -1;
		uint32_t worse = 0;

		/*
		 * A pipeline's time falls with more slices until their messages'
		 * latency outweighs the overlap, then rises: past two rises in a
		 * row the rest only gets slower (and, for DBT over thousands of
		 * ranks, costs milliseconds each to price).
		 */
		for (x.slices = 1; x.slices <= (smax ? smax : 1) && worse < 2; x.slices *= 2) {
			if (tune_formula(a, t, &x, &v, &why))
				return -1;
			worse = prev >= 0 && v > prev ? worse + 1 : 0;
			prev = v;
			/* ties go to fewer messages */
			if (bt < 0 || v < bt * (1 - 1e-9)) {
				bt = v;
				best = x;
			}
		}
	}
	*c = best;
	*us = bt;
	return 0;
}

uint32_t tuner_rank(const struct tune_topo *t, const struct tune_call *c, uint32_t max_slices,
		    struct tune_candidate *out, uint32_t max)
{
	uint32_t n = 0;

	for (unsigned int i = 0; i < algo_count() && n < max; i++) {
		const struct algo *a = algo_at(i);
		struct tune_call x = *c;
		double us;

		if (!(a->colls & (1u << c->coll)) ||
		    (a->tuner_max_ranks && c->nranks > a->tuner_max_ranks) ||
		    tuner_best(a, t, &x, max_slices, &us))
			continue;
		/* insertion sort; equal times keep registry order */
		uint32_t k = n++;

		for (; k > 0 && out[k - 1].us > us; k--)
			out[k] = out[k - 1];
		out[k] = (struct tune_candidate){ a, x.slices, x.channels, us };
	}
	return n;
}
