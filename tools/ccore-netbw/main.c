// SPDX-License-Identifier: MIT
/*
 * ccore-netbw: the raw put bandwidth of the network transport
 * (runtime/net/) between two processes, usually on two hosts: rank 0
 * puts to rank 1, which answers each round with a signal; the table is
 * the bytes of a round over its time.  Run with --help.
 */
#include "bootstrap/boot.h"
#include "ccore.h"
#include "net/net.h"
#include "util/clock.h"
#include "util/size.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
	"Usage: ccore-netbw --rank R [OPTIONS]\n"
	"The raw put bandwidth of the network transport between two processes\n"
	"(two hosts): rank 0 puts rounds of ITERS puts of each size to rank 1,\n"
	"which answers every round with a signal; the time of a round is from\n"
	"the first put to that answer.  Both ranks meet at $CCORE_COMM_ID\n"
	"(host:port, where rank 0 listens) and take the same options.\n"
	"\n"
	"  -r, --rank R        0 (sends, prints the table) or 1 (receives)\n"
	"  -b, --minbytes N    smallest size (default 8; K, M, G suffixes)\n"
	"  -e, --maxbytes N    largest size (default 256M)\n"
	"  -f, --stepfactor F  multiply the size by F each step, 2 to 1024 (default 2)\n"
	"  -n, --iters N       puts in a round, 1 to 10000 (default 20; fewer where\n"
	"                      a round would exceed 1 GiB, at least 2)\n"
	"  -c, --check         rank 1 checks the last put of each size bit-exact\n"
	"  --chunk N           cut writes to N bytes (default: the provider's limit)\n"
	"  --version           print the version and exit\n"
	"  -h, --help          this text\n"
	"\n"
	"$CCORE_NET_PROVIDER, $CCORE_NET and $CCORE_NET_TIMEOUT_MS apply\n"
	"(Documentation/network.rst).  Exit status 0, 1 on a failure, 2 on bad usage.\n";

#define ROUND_BYTES_MAX (1ull << 30)
#define SEM_DATA 0
#define SEM_ACK 1

struct opts {
	int rank;
	uint64_t minbytes, maxbytes, chunk;
	unsigned int factor, iters;
	bool check;
};

/* Signals counted per semaphore; put_done errors remembered. */
struct counts {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t sig[2];
	uint64_t done, failed;
	char why[512];
};

static struct counts counts = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.cond = PTHREAD_COND_INITIALIZER,
};

static void on_signal(void *arg, int peer, const struct net_signal *sig)
{
	(void)arg;
	(void)peer;
	pthread_mutex_lock(&counts.lock);
	if (sig->sem < 2)
		counts.sig[sig->sem] += sig->value;
	pthread_cond_broadcast(&counts.cond);
	pthread_mutex_unlock(&counts.lock);
}

static void on_done(void *arg, uint64_t cookie, int err, const char *why)
{
	(void)arg;
	(void)cookie;
	pthread_mutex_lock(&counts.lock);
	counts.done++;
	if (err && !counts.failed++)
		snprintf(counts.why, sizeof(counts.why), "%s", why);
	pthread_cond_broadcast(&counts.cond);
	pthread_mutex_unlock(&counts.lock);
}

static void on_peer_failed(void *arg, int peer, int err, const char *why)
{
	(void)peer;
	on_done(arg, 0, err, why);
}

/* Wait until signals of @sem reach @want (or a failure); 0 or -1. */
static int wait_signals(unsigned int sem, uint64_t want)
{
	int rc = 0;

	pthread_mutex_lock(&counts.lock);
	while (counts.sig[sem] < want && !counts.failed)
		pthread_cond_wait(&counts.cond, &counts.lock);
	if (counts.failed) {
		fprintf(stderr, "ccore-netbw: %s\n", counts.why);
		rc = -1;
	}
	pthread_mutex_unlock(&counts.lock);
	return rc;
}

static uint8_t pattern(uint64_t off, uint64_t size)
{
	return (uint8_t)(((off + size) * 0x9e3779b97f4a7c15ull) >> 56);
}

static int parse_size(const char *opt, const char *v, uint64_t min, uint64_t *out)
{
	if (size_parse(v, out) || *out < min) {
		fprintf(stderr, "ccore-netbw: %s %s: expected bytes, at least %llu (K, M, G suffixes)\n",
			opt, v, (unsigned long long)min);
		return -1;
	}
	return 0;
}

static int parse_uint(const char *opt, const char *v, unsigned int min, unsigned int max,
		      unsigned int *out)
{
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	if (!*v || *end || *v == '-' || n < min || n > max) {
		fprintf(stderr, "ccore-netbw: %s %s: expected %u to %u\n", opt, v, min, max);
		return -1;
	}
	*out = (unsigned int)n;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "rank", required_argument, NULL, 'r' },
		{ "minbytes", required_argument, NULL, 'b' },
		{ "maxbytes", required_argument, NULL, 'e' },
		{ "stepfactor", required_argument, NULL, 'f' },
		{ "iters", required_argument, NULL, 'n' },
		{ "check", no_argument, NULL, 'c' },
		{ "chunk", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int rank = 2;
	int c;

	*o = (struct opts){ .minbytes = 8, .maxbytes = 256ull << 20, .factor = 2, .iters = 20 };
	while ((c = getopt_long(argc, argv, "r:b:e:f:n:ch", longopts, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case 'r': bad = parse_uint("--rank", optarg, 0, 1, &rank); break;
		case 'b': bad = parse_size("--minbytes", optarg, 1, &o->minbytes); break;
		case 'e': bad = parse_size("--maxbytes", optarg, 1, &o->maxbytes); break;
		case 'f': bad = parse_uint("--stepfactor", optarg, 2, 1024, &o->factor); break;
		case 'n': bad = parse_uint("--iters", optarg, 1, 10000, &o->iters); break;
		case 'c': o->check = true; break;
		case 'C': bad = parse_size("--chunk", optarg, 1, &o->chunk); break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': printf("ccore-netbw (ccore) %s\n", CCORE_VERSION_STRING); exit(0);
		default: bad = -1; break;
		}
		if (bad) {
			fprintf(stderr, "ccore-netbw: see --help\n");
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "ccore-netbw: unexpected argument '%s' (see --help)\n", argv[optind]);
		return -1;
	}
	if (rank > 1) {
		fprintf(stderr, "ccore-netbw: --rank is required: 0 or 1 (see --help)\n");
		return -1;
	}
	if (o->minbytes > o->maxbytes) {
		fprintf(stderr, "ccore-netbw: --minbytes %llu is above --maxbytes %llu\n",
			(unsigned long long)o->minbytes, (unsigned long long)o->maxbytes);
		return -1;
	}
	o->rank = (int)rank;
	return 0;
}

static unsigned int iters_for(const struct opts *o, uint64_t size)
{
	uint64_t n = o->iters;

	if (n * size > ROUND_BYTES_MAX)
		n = ROUND_BYTES_MAX / size;
	return n < 2 ? 2 : (unsigned int)n;
}

/* Rank 0: rounds of puts of every size, timed to rank 1's answer. */
static int sender(struct net *n, const struct opts *o, char *mem)
{
	struct net_signal data = { SEM_DATA, 1, 0 };
	uint64_t acks = 0;

	printf("#%12s %10s %12s %12s\n", "size(B)", "puts", "time(us)", "bw(GB/s)");
	for (uint64_t size = o->minbytes; size <= o->maxbytes; size *= o->factor) {
		unsigned int iters = iters_for(o, size);
		int64_t t0, t1;

		for (uint64_t i = 0; i < size; i++)
			mem[i] = (char)pattern(i, size);
		/* a round untimed first: connections and caches warm */
		for (int round = 0; round < 2; round++) {
			t0 = rt_now_ns();
			for (unsigned int i = 0; i < iters; i++)
				if (net_put(n, 0, 0, 0, 0, 0, size, &data, i)) {
					fprintf(stderr, "ccore-netbw: %s\n", ccore_last_error());
					return -1;
				}
			if (wait_signals(SEM_ACK, ++acks))
				return -1;
			t1 = rt_now_ns();
		}
		printf(" %12llu %10u %12.1f %12.3f\n", (unsigned long long)size, iters,
		       (double)(t1 - t0) / 1e3 / iters, (double)size * iters / (double)(t1 - t0));
		fflush(stdout);
		if (size > o->maxbytes / o->factor)
			break;
	}
	return 0;
}

/* Rank 1: answer each round; with --check, the last put of each size is whole. */
static int receiver(struct net *n, const struct opts *o, char *mem)
{
	struct net_signal ack = { SEM_ACK, 1, 0 };
	uint64_t got = 0;

	for (uint64_t size = o->minbytes; size <= o->maxbytes; size *= o->factor) {
		unsigned int iters = iters_for(o, size);

		for (int round = 0; round < 2; round++) {
			got += iters;
			if (wait_signals(SEM_DATA, got))
				return -1;
			if (o->check && round == 1)
				for (uint64_t i = 0; i < size; i++)
					if ((uint8_t)mem[i] != pattern(i, size)) {
						fprintf(stderr, "ccore-netbw: size %llu: byte %llu is 0x%02x, sent 0x%02x\n",
							(unsigned long long)size, (unsigned long long)i,
							(uint8_t)mem[i], pattern(i, size));
						return -1;
					}
			if (net_signal(n, 0, &ack, 0)) {
				fprintf(stderr, "ccore-netbw: %s\n", ccore_last_error());
				return -1;
			}
		}
		if (size > o->maxbytes / o->factor)
			break;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct net_params p = { .cb = { on_done, on_signal, on_peer_failed, NULL } };
	struct net_blob blobs[2];
	struct boot_id id;
	struct net_limits lim;
	struct boot *b = NULL;
	struct net *n = NULL;
	unsigned int region;
	struct opts o;
	char *mem = NULL;
	int rc, peer;

	if (parse_opts(argc, argv, &o))
		return 2;
	if (!getenv("CCORE_COMM_ID")) {
		fprintf(stderr, "ccore-netbw: set CCORE_COMM_ID=host:port (rank 0's address; see --help)\n");
		return 2;
	}
	p.max_chunk = o.chunk;
	p.id = (uint32_t)o.rank;
	rc = boot_unique_id(&id);
	if (!rc)
		rc = boot_init(&id, o.rank, 2, 0, &b);
	if (!rc)
		rc = net_open(&p, &n);
	if (!rc) {
		mem = aligned_alloc(4096, (o.maxbytes + 4095) & ~4095ull);
		rc = mem ? 0 : -ENOMEM;
		if (mem)
			memset(mem, 0, o.maxbytes);
	}
	if (!rc)
		rc = net_reg(n, mem, o.maxbytes, &region);
	if (!rc)
		rc = net_local_blob(n, &blobs[o.rank]);
	if (!rc)
		rc = boot_allgather(b, blobs, sizeof(blobs[0]));
	if (!rc)
		rc = net_connect(n, &blobs[1 - o.rank], o.rank ? "host of rank 0" : "host of rank 1",
				 &peer);
	if (!rc)
		rc = boot_barrier(b);
	if (rc) {
		fprintf(stderr, "ccore-netbw: %s\n", rc == -ENOMEM ? "out of memory" : ccore_last_error());
		rc = 1;
		goto out;
	}
	net_get_limits(n, &lim);
	if (!o.rank)
		printf("# ccore-netbw: provider %s, fabric %s, domain %s, chunk %llu B, mr_mode %s\n",
		       lim.provider, lim.fabric, lim.domain, (unsigned long long)lim.max_chunk,
		       lim.mr_mode_names);
	rc = o.rank ? receiver(n, &o, mem) : sender(n, &o, mem);
	/* neither leaves while the other may still need its endpoint */
	if (boot_barrier(b) && !rc)
		fprintf(stderr, "ccore-netbw: final barrier: %s\n", ccore_last_error());
	rc = rc ? 1 : 0;
out:
	net_close(n);
	boot_close(b);
	free(mem);
	return rc;
}
