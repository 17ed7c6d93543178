/* SPDX-License-Identifier: MIT */
/*
 * The network tier's figures (TUNE_NET's α and bandwidth) for
 * communicators across hosts: given by the environment, measured at a
 * communicator's init (runtime/comm_net_tier.c) or the device's defaults,
 * and kept per process so a later communicator need not measure again.
 * Documentation/tuning.rst, "The network tier".
 *
 *   CCORE_NET_ALPHA_US   the network's latency per hop, µs (0..1000000)
 *   CCORE_NET_BW_GBPS    one NIC direction's bandwidth, GB/s (> 0, up to 1000000)
 *   CCORE_NET_MEASURE    once (default): the first communicator across
 *                        hosts measures, later ones reuse; always: every one
 *                        measures; off: never (the device's figures)
 * A figure given is not measured.  Bad values are an error naming the
 * variable and what it allows.
 */
#ifndef CCORE_TUNE_NET_TIER_H
#define CCORE_TUNE_NET_TIER_H

#include "model.h"

#include <stdbool.h>

#define TUNE_NET_ALPHA_MAX_US 1e6
#define TUNE_NET_BW_MAX_GBPS 1e6

enum tune_net_measure { TUNE_NET_MEASURE_ONCE, TUNE_NET_MEASURE_ALWAYS, TUNE_NET_MEASURE_OFF };

/* Where a figure comes from. */
enum tune_net_source {
	TUNE_NET_DEVICE,	/* the device's default (none given or measured) */
	TUNE_NET_MEASURED,	/* measured at this communicator's init */
	TUNE_NET_CACHED,	/* measured at an earlier one's, in every process */
	TUNE_NET_GIVEN,		/* CCORE_NET_ALPHA_US / CCORE_NET_BW_GBPS */
};

/* The network tier of a communicator across hosts: every rank's the same. */
struct tune_net {
	double alpha_us, bw_gbps;	/* 0: the device's */
	enum tune_net_source alpha_from, bw_from;
};

/* What the environment says; alpha_us / bw_gbps 0 where not given. */
struct tune_net_env {
	double alpha_us, bw_gbps;
	bool has_alpha, has_bw;
	enum tune_net_measure measure;
};

/*
 * Parse one figure: @name names it in the error ("CCORE_NET_ALPHA_US",
 * "--topology net-alpha-us").  0, or -EINVAL with ccore_last_error()
 * saying what is allowed.
 */
int tune_net_parse_alpha(const char *name, const char *s, double *us);
int tune_net_parse_bw(const char *name, const char *s, double *gbps);
/* CCORE_NET_ALPHA_US, CCORE_NET_BW_GBPS and CCORE_NET_MEASURE. */
int tune_net_env(struct tune_net_env *e);

/* The figures this process agreed on last (tune_net_remember()); false if none. */
bool tune_net_cached(double *alpha_us, double *bw_gbps);
void tune_net_remember(double alpha_us, double bw_gbps);

/* Price the network tier of @hw with @net's figures (those it has; not on an ideal device):
 * its nodes are hosts joined by a network (tune_hw.across_hosts). */
void tune_hw_set_net(struct tune_hw *hw, const struct tune_net *net);

/* "measured ...", "CCORE_NET_ALPHA_US", ... for logs and tools. */
const char *tune_net_source_name(enum tune_net_source s, bool alpha);
/* "α 25 µs (CCORE_NET_ALPHA_US), 2.8 GB/s (measured ...)"; the device's figures from @hw. */
void tune_net_describe(const struct tune_net *net, const struct tune_hw *hw, char *buf,
		       unsigned long len);
/* "once", "always" or "off". */
const char *tune_net_measure_name(enum tune_net_measure m);

#endif
