// SPDX-License-Identifier: MIT
/*
 * ccore-info --net: the network between hosts as this host would open it
 * (runtime/net/): the provider ($CCORE_NET_PROVIDER or probed), its
 * limits and registration modes, and the figures the tuner prices it at
 * (runtime/tune/net_tier.h: CCORE_NET_ALPHA_US, CCORE_NET_BW_GBPS, else
 * measured at a communicator's init, else the device's).  Peers, and what
 * a job measured, are known only to the job (CCORE_DEBUG=info logs it).
 */
#include "info.h"
#include "ccore_internal.h"
#include "net/net.h"
#include "sim/sim_costs.h"
#include "tune/net_tier.h"
#include "../common/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The network tier's figures as a communicator across hosts would price them. */
struct tier {
	struct tune_net_env env;
	struct tune_hw hw;		/* the simulated device's: where neither given nor measured */
};

static int tier_of(struct tier *t)
{
	const char *user = getenv("CCORE_SIM");
	struct ccm_config c;
	struct ccm_err err = { 0 };

	if (tune_net_env(&t->env)) {
		fprintf(stderr, "ccore-info: %s\n", ccore_last_error());
		return -1;
	}
	ccm_config_default(&c);
	c.timed = 1;
	if (user && *user && ccm_config_parse(&c, user, &err)) {
		fprintf(stderr, "ccore-info: CCORE_SIM=%s: %s\n", user, err.msg);
		return -1;
	}
	tune_hw_from_config(&c, &t->hw);
	return 0;
}

/* Where one figure comes from: given, measured at init, or the device's. */
static const char *tier_from(const struct tier *t, bool given)
{
	return given ? NULL : t->env.measure == TUNE_NET_MEASURE_OFF ? "device" : "measured";
}

static void tier_text_one(const struct tier *t, bool alpha)
{
	bool given = alpha ? t->env.has_alpha : t->env.has_bw;
	double v = given ? (alpha ? t->env.alpha_us : t->env.bw_gbps) :
		   alpha ? t->hw.alpha_us[TUNE_NET] : t->hw.bw_gbps[TUNE_NET];
	const char *from = tier_from(t, given), *unit = alpha ? "µs" : "GB/s";

	/* padded by hand: α is two bytes */
	printf("  %s", alpha ? "network α       " : "network bw      ");
	if (!from)
		printf("%g %s (%s)\n", v, unit, alpha ? "CCORE_NET_ALPHA_US" : "CCORE_NET_BW_GBPS");
	else if (!strcmp(from, "device"))
		printf("%g %s (the device's; CCORE_NET_MEASURE=off)\n", v, unit);
	else
		printf("measured at a communicator's init across hosts, rank 0's for every rank (CCORE_NET_MEASURE=%s); the device's %g %s until then\n",
		       tune_net_measure_name(t->env.measure), v, unit);
}

static void tier_json(struct json *j, const struct tier *t)
{
	const char *af = tier_from(t, t->env.has_alpha), *bf = tier_from(t, t->env.has_bw);

	json_key(j, "tier");
	json_object_begin(j);
	json_key(j, "alpha_us");
	json_double(j, t->env.has_alpha ? t->env.alpha_us : t->hw.alpha_us[TUNE_NET], 3);
	json_key(j, "alpha_from");
	json_string(j, af ? af : "CCORE_NET_ALPHA_US");
	json_key(j, "bw_gbps");
	json_double(j, t->env.has_bw ? t->env.bw_gbps : t->hw.bw_gbps[TUNE_NET], 3);
	json_key(j, "bw_from");
	json_string(j, bf ? bf : "CCORE_NET_BW_GBPS");
	json_key(j, "measure");
	json_string(j, tune_net_measure_name(t->env.measure));
	json_object_end(j);
}

int net_info(bool as_json)
{
	struct net_params p = { 0 };
	struct net_limits l;
	struct net *n;
	struct json j;
	struct tier t;

	if (tier_of(&t))
		return 1;
	if (net_open(&p, &n)) {
		fprintf(stderr, "ccore-info: the network: %s\n", ccore_last_error());
		return 1;
	}
	net_get_limits(n, &l);
	net_close(n);
	if (!as_json) {
		printf("network between hosts (libfabric)\n");
		printf("  provider        %s (fabric %s, domain %s)\n", l.provider, l.fabric, l.domain);
		printf("  max message     %llu bytes; puts cut to %llu\n",
		       (unsigned long long)l.max_msg_size, (unsigned long long)l.max_chunk);
		printf("  inject size     %zu bytes\n", l.inject_size);
		printf("  cq data         %zu bytes\n", l.cq_data_size);
		printf("  mr key          %zu bytes, modes %s\n", l.mr_key_size, l.mr_mode_names);
		printf("  timeout         %d ms (CCORE_NET_TIMEOUT_MS)\n", l.timeout_ms);
		printf("the tuner's network tier\n");
		tier_text_one(&t, true);
		tier_text_one(&t, false);
		return 0;
	}
	json_init(&j, stdout, 2);
	json_object_begin(&j);
	json_key(&j, "provider");
	json_string(&j, l.provider);
	json_key(&j, "fabric");
	json_string(&j, l.fabric);
	json_key(&j, "domain");
	json_string(&j, l.domain);
	json_key(&j, "max_msg_size");
	json_uint(&j, l.max_msg_size);
	json_key(&j, "max_chunk");
	json_uint(&j, l.max_chunk);
	json_key(&j, "inject_size");
	json_uint(&j, l.inject_size);
	json_key(&j, "cq_data_size");
	json_uint(&j, l.cq_data_size);
	json_key(&j, "mr_key_size");
	json_uint(&j, l.mr_key_size);
	json_key(&j, "mr_mode");
	json_string(&j, l.mr_mode_names);
	json_key(&j, "timeout_ms");
	json_int(&j, l.timeout_ms);
	tier_json(&j, &t);
	json_object_end(&j);
	putchar('\n');
	return 0;
}
