// SPDX-License-Identifier: MIT
/* Placing the ranks of one process per rank on hosts, devices and cores (rank_place.h). */
#include "rank_place.h"
#include "util/fnv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first line of @path into @buf ("" if unreadable). */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

const char *(*rank_host_for_test)(uint32_t rank);

void rank_host_self(uint32_t rank, struct rank_host *h)
{
	const char *env = getenv("CCORE_HOSTID");

	if (rank_host_for_test && rank_host_for_test(rank))
		env = rank_host_for_test(rank);
	char name[64] = "", boot[40], ns[40] = "";
	ssize_t n;

	memset(h, 0, sizeof(*h));
	h->rank = rank;
	h->pid = (uint32_t)getpid();
	read_line("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	h->process = fnv1a_str(fnv1a(FNV1A_BASIS, &h->pid, sizeof(h->pid)), boot, sizeof(boot));
	if (env && *env) {
		snprintf(h->host, sizeof(h->host), "%s", env);
		return;
	}
	/* a host is a kernel: its name, its boot and its UTS namespace
	 * (containers on one kernel may share a name, not devices) */
	gethostname(name, sizeof(name) - 1);
	n = readlink("/proc/self/ns/uts", ns, sizeof(ns) - 1);
	ns[n > 0 ? n : 0] = 0;
	snprintf(h->host, sizeof(h->host), "%.60s/%.36s/%.24s", name, boot, ns);
}

int rank_per_device(uint32_t *out)
{
	const char *env = getenv("CCORE_RANKS_PER_DEVICE");
	char *end;
	unsigned long v;

	*out = 1;
	if (!env)
		return 0;
	v = strtoul(env, &end, 10);
	if (!*env || *end || v < 1 || v > 65536)
		return ccore_error(-EINVAL, "CCORE_RANKS_PER_DEVICE=\"%s\" is not a number of ranks per device (1..65536)",
				   env);
	*out = (uint32_t)v;
	return 0;
}

bool rank_hosts_apart(const struct rank_host *hosts, uint32_t n, uint32_t me)
{
	for (uint32_t r = 0; r < n; r++)
		if (strncmp(hosts[r].host, hosts[me].host, sizeof(hosts[r].host)) &&
		    hosts[r].process != hosts[me].process)
			return true;
	return false;
}

bool rank_host_shared(const struct rank_host *hosts, uint32_t n, uint32_t me)
{
	for (uint32_t r = 0; r < n; r++)
		if (!strncmp(hosts[r].host, hosts[me].host, sizeof(hosts[r].host)) &&
		    hosts[r].pid != hosts[me].pid)
			return true;
	return false;
}

int rank_place(const struct rank_host *hosts, uint32_t n, struct ccore_topology *topo,
	       struct clique_rank *ranks)
{
	uint32_t *host_of = calloc(n, sizeof(*host_of)), *count = calloc(n, sizeof(*count));
	uint32_t nhosts = 0, per, R;
	int rc = rank_per_device(&R);

	if (!host_of || !count) {
		rc = ccore_error(-ENOMEM, "out of memory");
		goto out;
	}
	if (rc)
		goto out;
	for (uint32_t r = 0; r < n; r++) {
		uint32_t h = 0;

		while (h < r && strncmp(hosts[h].host, hosts[r].host, sizeof(hosts[r].host)))
			h++;
		/* the host's number: that of the first rank on it */
		host_of[r] = h < r ? host_of[h] : nhosts++;
		ranks[r].core = count[host_of[r]]++;	/* its local rank, for now */
	}
	per = count[0];
	for (uint32_t h = 1; h < nhosts; h++)
		if (count[h] != per) {
			uint32_t a = 0, b = 0;

			while (host_of[a] != 0)
				a++;
			while (host_of[b] != h)
				b++;
			rc = ccore_error(-EINVAL, "hosts run different numbers of ranks: %u on host \"%s\" (rank %u's), %u on host \"%s\" (rank %u's); every host must run as many",
					 per, hosts[a].host, a, count[h], hosts[b].host, b);
			goto out;
		}
	if (per % R) {
		rc = ccore_error(-EINVAL, "CCORE_RANKS_PER_DEVICE=%u does not divide the %u ranks each host runs",
				 R, per);
		goto out;
	}
	*topo = (struct ccore_topology){ .nodes = nhosts, .devices_per_node = per / R,
					 .ranks_per_device = R };
	for (uint32_t r = 0; r < n; r++) {
		uint32_t l = ranks[r].core;

		ranks[r].dev = host_of[r] * (per / R) + l / R;
		ranks[r].core = l % R;
	}
out:
	free(host_of);
	free(count);
	return rc;
}
