// SPDX-License-Identifier: MIT
/*
 * ccore-info --net: the network between hosts as this host would open it
 * (runtime/net/): the provider ($CCORE_NET_PROVIDER or probed), its
 * limits and registration modes.  Peers are known only to a job.
 */
#include "info.h"
#include "ccore_internal.h"
#include "net/net.h"
#include "../common/json.h"

#include <stdio.h>

int net_info(bool as_json)
{
	struct net_params p = { 0 };
	struct net_limits l;
	struct net *n;
	struct json j;

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
	json_object_end(&j);
	putchar('\n');
	return 0;
}
