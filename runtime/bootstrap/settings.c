// SPDX-License-Identifier: MIT
/*
 * The settings that decide plans, and the check at init that every rank
 * runs with the same: each process plans its own ranks, and ranks that
 * chose differently (another algorithm, slice count, packet size) would
 * wait for each other forever or move the wrong bytes.
 *
 * The table below is the one list of the runtime's environment variables:
 * selftests/boot/boot_test.c checks that every CCORE_* name the runtime's
 * sources mention is in it, so a new knob must be classified here.
 */
#include "bootstrap/wire.h"
#include "ccore_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct boot_setting settings[] = {
	{ "CCORE_ALGO", 1, "chooses or excludes algorithms" },
	{ "CCORE_SLICES", 1, "pipeline slices per block" },
	{ "CCORE_LOOPS", 1, "loop form or schedule form of the programs" },
	{ "CCORE_PAT_BUFFER", 1, "PAT's staging buffer, so its steps" },
	{ "CCORE_TUNER_ALPHA_US", 1, "the cost model's latencies" },
	{ "CCORE_TUNER_BW_GBPS", 1, "the cost model's bandwidths" },
	{ "CCORE_TUNER_MSG_US", 1, "the cost model's per-message cost" },
	{ "CCORE_TUNER_REDUCE_GBPS", 1, "the cost model's reduction rate" },
	{ "CCORE_TUNER_IDEAL", 1, "the cost model's single-tier form" },
	{ "CCORE_TUNER_FILE", 1, "a tuning file overriding the cost model (its contents compared too)" },
	{ "CCORE_STREAMS", 1, "CC streams, so which CC core runs what" },
	{ "CCORE_CC_DMA_PACKET_SIZE", 1, "packet size of the collectives' DMA rings" },
	{ "CCORE_DMA_PACKETIZATION_SIZE", 1, "packet size of the compute DMA rings" },
	{ "CCORE_DEVICE", 1, "the backend, whose costs the tuner prices" },
	{ "CCORE_SIM", 1, "the simulated fabric's shape and costs (whole value, workers= included)" },
	{ "CCORE_RANKS_PER_DEVICE", 1, "where ranks run, so the topology the tuner prices" },
	{ "CCORE_HOSTID", 0, "which host a rank says it is on; hosts differ" },
	{ "CCORE_VERIFY", 0, "checks schedules, the same plans either way" },
	{ "CCORE_DEBUG", 0, "what is logged" },
	{ "CCORE_PEER_TIMEOUT_MS", 0, "how long a sync waits for peers" },
	{ "CCORE_ACCEL_FABRIC", 0, "which kernel fabric a host opens; hosts may differ" },
	{ "CCORE_BOOT_TIMEOUT_MS", 0, "how long bootstrap calls wait" },
	{ "CCORE_COMM_ID", 0, "the root's address; a rank without it is given the id" },
	{ "CCORE_SOCKET_IFNAME", 0, "a host's interface; hosts may differ" },
	{ "CCORE_NET", 1, "whether hosts talk over the network at all" },
	{ "CCORE_NET_PROVIDER", 1, "the libfabric provider; hosts must speak the same" },
	{ "CCORE_NET_TIMEOUT_MS", 0, "how long a network peer may stall" },
	{ "CCORE_NET_ALPHA_US", 1, "the network tier's latency the tuner prices" },
	{ "CCORE_NET_BW_GBPS", 1, "the network tier's bandwidth the tuner prices" },
	{ "CCORE_NET_MEASURE", 1, "whether the network tier is measured, so what the tuner prices" },
};

#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

const struct boot_setting *boot_settings(size_t *n)
{
	*n = NSETTINGS;
	return settings;
}

/* What is compared: each plan setting's value, then the tuning file's contents. */
struct compared {
	const char *name;
	char *value;		/* NULL: unset */
};

/* "fnv1a-64 0x..." of the file, or why it cannot be read. */
static char *file_digest(const char *path)
{
	uint64_t h = 1469598103934665603ull;
	unsigned char chunk[4096];
	char *out = malloc(96);
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!out) {
		if (f)
			fclose(f);
		return NULL;
	}
	if (!f) {
		snprintf(out, 96, "unreadable (%s)", strerror(errno));
		return out;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		for (size_t i = 0; i < n; i++)
			h = (h ^ chunk[i]) * 1099511628211ull;
	fclose(f);
	snprintf(out, 96, "fnv1a-64 %016llx", (unsigned long long)h);
	return out;
}

/* This rank's record: per value a set flag byte, the value, a NUL. */
static char *record(const struct boot_value *v, size_t nv, size_t *len)
{
	size_t n = 0;
	char *buf;

	for (size_t i = 0; i < nv; i++)
		n += 2 + (v[i].value ? strlen(v[i].value) : 0);
	buf = malloc(n);
	if (!buf)
		return NULL;
	n = 0;
	for (size_t i = 0; i < nv; i++) {
		buf[n++] = v[i].value != NULL;
		n += (size_t)sprintf(buf + n, "%s", v[i].value ? v[i].value : "") + 1;
	}
	*len = n;
	return buf;
}

/* Rank @r's value of item @k, from its record at @rec (NULL: unset). */
static const char *item(const char *rec, size_t k)
{
	for (size_t i = 0; i < k; i++)
		rec += 2 + strlen(rec + 1);
	return rec[0] ? rec + 1 : NULL;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* "NAME differs between ranks: ranks 0,2 \"ring\", ranks 1,3 unset" for item @k. */
static void describe(FILE *f, const char *name, char **recs, int n, size_t k, bool *done,
		     bool *in)
{
	char ranks[4096];

	memset(done, 0, (size_t)n * sizeof(*done));
	fprintf(f, "%s differs between ranks:", name);
	for (int r = 0, first = 1; r < n; r++) {
		const char *v = item(recs[r], k);

		if (done[r])
			continue;
		memset(in, 0, (size_t)n * sizeof(*in));
		for (int s = r; s < n; s++)
			if (same(v, item(recs[s], k)))
				done[s] = in[s] = true;
		boot_ranks_str(in, n, ranks, sizeof(ranks));
		if (v)
			fprintf(f, "%s %s \"%s\"", first ? "" : ",", ranks, v);
		else
			fprintf(f, "%s %s unset", first ? "" : ",", ranks);
		first = 0;
	}
}

/* Every rank's record of @nv values into @recs (rows of @all). */
static int gather(struct boot *b, const char *mine, size_t len, size_t nv, char **all,
		  char ***recs)
{
	int n = boot_nranks(b), rank = boot_rank(b), rc;
	uint64_t *lens = calloc((size_t)n, sizeof(*lens));
	size_t max = 0;

	if (!lens)
		return -ENOMEM;
	lens[rank] = len;
	rc = boot_allgather(b, lens, sizeof(*lens));
	for (int r = 0; !rc && r < n; r++)
		max = lens[r] > max ? lens[r] : max;
	free(lens);
	if (rc)
		return rc;
	/* zeros after the last record: one of fewer values reads as unset */
	*all = calloc((size_t)n * max + 2 * nv, 1);
	*recs = calloc((size_t)n, sizeof(**recs));
	if (!*all || !*recs)
		return -ENOMEM;
	memcpy(*all + (size_t)rank * max, mine, len);
	rc = boot_allgather(b, *all, max);
	for (int r = 0; r < n; r++)
		(*recs)[r] = *all + (size_t)r * max;
	return rc;
}

int boot_check_values(struct boot *b, const struct boot_value *v, size_t nv, const char *rule)
{
	int n = boot_nranks(b), rank = boot_rank(b), rc;
	size_t len = 0, msg_size = 0;
	char *mine = record(v, nv, &len), *all = NULL, **recs = NULL, *msg = NULL;
	bool *done = calloc((size_t)n, sizeof(*done)), *in = calloc((size_t)n, sizeof(*in));
	FILE *f = NULL;

	rc = mine && done && in ? gather(b, mine, len, nv, &all, &recs) : -ENOMEM;
	if (!rc && !(f = open_memstream(&msg, &msg_size)))
		rc = -ENOMEM;
	for (size_t k = 0, differing = 0; !rc && k < nv; k++) {
		bool differ = false;

		for (int r = 1; r < n && !differ; r++)
			differ = !same(item(recs[0], k), item(recs[r], k));
		if (!differ)
			continue;
		if (differing++)
			fputs("; ", f);
		describe(f, v[k].name, recs, n, k, done, in);
	}
	if (f && fclose(f))
		rc = rc ?: -ENOMEM;
	if (rc == -ENOMEM)
		ccore_error(rc, "bootstrap rank %d: comparing values: out of memory", rank);
	else if (!rc && msg_size)
		rc = ccore_error(-EINVAL, "bootstrap rank %d: %s (%s)", rank, msg, rule);
	free(mine);
	free(all);
	free(recs);
	free(msg);
	free(done);
	free(in);
	return rc;
}

int boot_check_settings(struct boot *b)
{
	struct boot_value v[NSETTINGS + 1];
	const char *tf = getenv("CCORE_TUNER_FILE");
	char *digest = NULL;
	size_t nv = 0;
	int rc;

	for (size_t i = 0; i < NSETTINGS; i++) {
		const char *value = getenv(settings[i].name);

		if (!settings[i].decides_plan)
			continue;
		/* the runtime reads an empty value as unset */
		v[nv++] = (struct boot_value){ settings[i].name, value && *value ? value : NULL };
	}
	if (tf && *tf && !(digest = file_digest(tf)))
		return ccore_error(-ENOMEM, "bootstrap rank %d: settings: out of memory",
				   boot_rank(b));
	v[nv++] = (struct boot_value){ "CCORE_TUNER_FILE (its contents)", digest };
	rc = boot_check_values(b, v, nv,
			       "the settings that decide plans must be the same on every rank");
	free(digest);
	return rc;
}
