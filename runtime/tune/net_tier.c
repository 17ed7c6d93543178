// SPDX-License-Identifier: MIT
/* The network tier's figures: parsed, remembered per process, priced (net_tier.h). */
#include "net_tier.h"
#include "ccore_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static double cached_alpha_us, cached_bw_gbps;
static bool have_cache;

/* A number in [@min, @max] (@min excluded when @open_min) into *@v. */
static int number(const char *s, double min, bool open_min, double max, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (!*s || end == s || *end || errno || *v != *v || *v > max ||
	    (open_min ? *v <= min : *v < min))
		return -1;
	return 0;
}

int tune_net_parse_alpha(const char *name, const char *s, double *us)
{
	if (number(s, 0, false, TUNE_NET_ALPHA_MAX_US, us))
		return ccore_error(-EINVAL, "%s=%s: expected the network's latency per hop in µs, a number from 0 to %.0f",
				   name, s, TUNE_NET_ALPHA_MAX_US);
	return 0;
}

int tune_net_parse_bw(const char *name, const char *s, double *gbps)
{
	if (number(s, 0, true, TUNE_NET_BW_MAX_GBPS, gbps))
		return ccore_error(-EINVAL, "%s=%s: expected the network's bandwidth per NIC direction in GB/s, a number above 0 and at most %.0f",
				   name, s, TUNE_NET_BW_MAX_GBPS);
	return 0;
}

int tune_net_env(struct tune_net_env *e)
{
	const char *a = getenv("CCORE_NET_ALPHA_US"), *b = getenv("CCORE_NET_BW_GBPS");
	const char *m = getenv("CCORE_NET_MEASURE");

	*e = (struct tune_net_env){ .measure = TUNE_NET_MEASURE_ONCE };
	if (a && *a) {
		if (tune_net_parse_alpha("CCORE_NET_ALPHA_US", a, &e->alpha_us))
			return -EINVAL;
		e->has_alpha = true;
	}
	if (b && *b) {
		if (tune_net_parse_bw("CCORE_NET_BW_GBPS", b, &e->bw_gbps))
			return -EINVAL;
		e->has_bw = true;
	}
	if (m && *m) {
		if (!strcmp(m, "always"))
			e->measure = TUNE_NET_MEASURE_ALWAYS;
		else if (!strcmp(m, "off"))
			e->measure = TUNE_NET_MEASURE_OFF;
		else if (strcmp(m, "once"))
			return ccore_error(-EINVAL, "CCORE_NET_MEASURE=%s: expected once (the first communicator across hosts measures the network), always or off",
					   m);
	}
	return 0;
}

bool tune_net_cached(double *alpha_us, double *bw_gbps)
{
	bool have;

	pthread_mutex_lock(&cache_lock);
	have = have_cache;
	*alpha_us = cached_alpha_us;
	*bw_gbps = cached_bw_gbps;
	pthread_mutex_unlock(&cache_lock);
	return have;
}

void tune_net_remember(double alpha_us, double bw_gbps)
{
	pthread_mutex_lock(&cache_lock);
	cached_alpha_us = alpha_us;
	cached_bw_gbps = bw_gbps;
	have_cache = true;
	pthread_mutex_unlock(&cache_lock);
}

void tune_hw_set_net(struct tune_hw *hw, const struct tune_net *net)
{
	/* an ideal device is one tier by definition */
	if (hw->ideal)
		return;
	hw->across_hosts = true;
	if (net->alpha_from != TUNE_NET_DEVICE)
		hw->alpha_us[TUNE_NET] = net->alpha_us;
	if (net->bw_from != TUNE_NET_DEVICE)
		hw->bw_gbps[TUNE_NET] = net->bw_gbps;
}

const char *tune_net_source_name(enum tune_net_source s, bool alpha)
{
	switch (s) {
	case TUNE_NET_MEASURED:
		return "measured at this communicator's init";
	case TUNE_NET_CACHED:
		return "measured at an earlier communicator's init";
	case TUNE_NET_GIVEN:
		return alpha ? "CCORE_NET_ALPHA_US" : "CCORE_NET_BW_GBPS";
	case TUNE_NET_DEVICE:
	default:
		return "the device's default";
	}
}

void tune_net_describe(const struct tune_net *net, const struct tune_hw *hw, char *buf,
		       unsigned long len)
{
	struct tune_hw priced = *hw;

	tune_hw_set_net(&priced, net);
	snprintf(buf, len, "α %.3g µs (%s), %.4g GB/s (%s)", priced.alpha_us[TUNE_NET],
		 tune_net_source_name(net->alpha_from, true), priced.bw_gbps[TUNE_NET],
		 tune_net_source_name(net->bw_from, false));
}

const char *tune_net_measure_name(enum tune_net_measure m)
{
	return m == TUNE_NET_MEASURE_ALWAYS ? "always" : m == TUNE_NET_MEASURE_OFF ? "off" : "once";
}
