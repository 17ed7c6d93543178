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
#include "boot/wire.h"
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
	{ "CCORE_VERIFY", 0, "checks schedules, the same plans either way" },
	{ "CCORE_DEBUG", 0, "what is logged" },
	{ "CCORE_PEER_TIMEOUT_MS", 0, "how long a sync waits for peers" },
	{ "CCORE_ACCEL_FABRIC", 0, "which kernel fabric a host opens; hosts may differ" },
	{ "CCORE_BOOT_TIMEOUT_MS", 0, "how long bootstrap calls wait" },
	{ "CCORE_COMM_ID", 0, "the root's address; a rank without it is given the id" },
	{ "CCORE_SOCKET_IFNAME", 0, "a host's interface; hosts may differ" },
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

/* This rank's record: per compared item a set flag byte, the value, a NUL. */
static char *record(size_t *len)
{
	size_t n = 0;
	char *buf, *digest = NULL;
	const char *tf = getenv("CCORE_TUNER_FILE");

	if (tf && *tf && !(digest = file_digest(tf)))
		return NULL;
	for (size_t i = 0; i < NSETTINGS; i++) {
		const char *v = settings[i].decides_plan ? getenv(settings[i].name) : NULL;

		if (settings[i].decides_plan)
			n += 2 + (v ? strlen(v) : 0);
	}
	n += 2 + (digest ? strlen(digest) : 0);
	buf = malloc(n);
	if (!buf) {
		free(digest);
		return NULL;
	}
	n = 0;
	for (size_t i = 0; i <= NSETTINGS; i++) {
		const char *v;

		if (i < NSETTINGS && !settings[i].decides_plan)
			continue;
		v = i < NSETTINGS ? getenv(settings[i].name) : digest;
		if (v && !*v)
			v = NULL;	/* the runtime reads an empty value as unset */
		buf[n++] = v != NULL;
		n += (size_t)sprintf(buf + n, "%s", v ? v : "") + 1;
	}
	free(digest);
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

/* "ranks 0,2 \"ring\", ranks 1,3 unset" for item @k into the message at @msg. */
static int describe(char **msg, size_t *len, const char *name, char **recs, int n, size_t k)
{
	bool *done = calloc((size_t)n, sizeof(*done)), *in = calloc((size_t)n, sizeof(*in));
	char *ranks = malloc(4096);
	FILE *f;
	char *buf = NULL;
	size_t size = 0;

	f = done && in && ranks ? open_memstream(&buf, &size) : NULL;
	if (!f) {
		free(done);
		free(in);
		free(ranks);
		return -ENOMEM;
	}
	fprintf(f, "%s%s differs between ranks:", *len ? "; " : "", name);
	for (int r = 0, first = 1; r < n; r++) {
		const char *v = item(recs[r], k);

		if (done[r])
			continue;
		for (int s = r; s < n; s++)
			if (same(v, item(recs[s], k)))
				done[s] = in[s] = true;
		boot_ranks_str(in, n, ranks, 4096);
		if (v)
			fprintf(f, "%s %s \"%s\"", first ? "" : ",", ranks, v);
		else
			fprintf(f, "%s %s unset", first ? "" : ",", ranks);
		first = 0;
		memset(in, 0, (size_t)n * sizeof(*in));
	}
	fclose(f);
	free(done);
	free(in);
	free(ranks);
	if (!buf)
		return -ENOMEM;
	*msg = realloc(*msg, *len + size + 1);
	if (!*msg) {
		free(buf);
		return -ENOMEM;
	}
	memcpy(*msg + *len, buf, size + 1);
	*len += size;
	free(buf);
	return 0;
}

int boot_check_settings(struct boot *b)
{
	int n = boot_nranks(b), rank = boot_rank(b), rc;
	size_t len = 0, max = 0, nitems = 1, msg_len = 0;
	uint64_t *lens = calloc((size_t)n, sizeof(*lens));
	char *mine = record(&len), *all = NULL, *msg = NULL, **recs = NULL;

	if (!lens || !mine) {
		rc = ccore_error(-ENOMEM, "bootstrap rank %d: settings: out of memory", rank);
		goto out;
	}
	lens[rank] = len;
	rc = boot_allgather(b, lens, sizeof(*lens));
	if (rc)
		goto out;
	for (int r = 0; r < n; r++)
		max = lens[r] > max ? lens[r] : max;
	for (size_t i = 0; i < NSETTINGS; i++)
		nitems += settings[i].decides_plan;
	/* zeros after the last record: one of fewer items reads as unset */
	all = calloc((size_t)n * max + 2 * nitems, 1);
	recs = calloc((size_t)n, sizeof(*recs));
	if (!all || !recs) {
		rc = ccore_error(-ENOMEM, "bootstrap rank %d: settings: out of memory", rank);
		goto out;
	}
	memcpy(all + (size_t)rank * max, mine, len);
	rc = boot_allgather(b, all, max);
	if (rc)
		goto out;
	for (int r = 0; r < n; r++)
		recs[r] = all + (size_t)r * max;
	for (size_t k = 0, i = 0; k < nitems; k++, i++) {
		const char *name = "CCORE_TUNER_FILE (its contents)";
		bool differ = false;

		while (i < NSETTINGS && !settings[i].decides_plan)
			i++;
		if (i < NSETTINGS)
			name = settings[i].name;
		for (int r = 1; r < n && !differ; r++)
			differ = !same(item(recs[0], k), item(recs[r], k));
		if (differ && describe(&msg, &msg_len, name, recs, n, k)) {
			rc = ccore_error(-ENOMEM, "bootstrap rank %d: settings: out of memory", rank);
			goto out;
		}
	}
	if (msg)
		rc = ccore_error(-EINVAL,
				 "bootstrap rank %d: %s (the settings that decide plans must be the same on every rank)",
				 rank, msg);
out:
	free(lens);
	free(mine);
	free(all);
	free(recs);
	free(msg);
	return rc;
}
