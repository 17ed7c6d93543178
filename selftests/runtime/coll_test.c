// SPDX-License-Identifier: GPL-2.0
/*
 * The collectives, end to end through the public API on the sim backend:
 * every op x every algorithm that serves it x N in {1,2,3,4,5,7,8,16} x
 * counts 0, 1, a prime, non-divisible ones x in and out of place (f32 sum,
 * u8 for data movement); every dtype x reduce op for the reducing ops; then
 * a seeded random sample of the rest of the cross product, with unaligned
 * buffer offsets.  Inputs are verifiable (ccore_verifiable.h), so every
 * result is checked exactly.  Also: a collective makes no progress while
 * the CC cores are held — the runtime never moves data itself.
 *
 * Over 800 lines on purpose: it is one program, also built for the QEMU
 * guest (coll_accel), whose cases share the sweep's worlds and checks.
 *
 * The backend is the runtime's choice ($CCORE_DEVICE, else sim); on the
 * kernel driver (accel) the cases that need the sim backend's shaping
 * (CCORE_SIM, several nodes) skip, and one set of communicators is open at
 * a time, as a kernel device's rings are shared by every file that opens
 * it.  CCORE_TEST_COLLS, CCORE_TEST_ALGOS and CCORE_TEST_RANKS
 * (comma-separated names) narrow the first sweep, CCORE_TEST_COUNTS
 * replaces its counts.  Built with -DCCORE_TEST_ACCEL this file is
 * build/tests/kernel/coll_accel, the QEMU guest's run on the kernel driver
 * (see the end of the file).
 */
#include "tsim.h"
#include "ccore_verifiable.h"
#include "coll_call.h"
#include "algos/algo.h"
#include "comm.h"
#include "plan/plan.h"

#include <unistd.h>

#define MAXN 16
#define MAX_COUNT 5000
#define BUF_BYTES ((size_t)MAX_COUNT * MAXN * 8 + 64)
/* small_counts_every_algorithm_and_topology's worlds are wider, its counts small */
#define WORLD_MAX_RANKS 128

static const uint32_t ranks_list[] = { 1, 2, 3, 4, 5, 7, 8, 16 };

struct world {
	uint32_t n;
	struct ccore_comm *c[WORLD_MAX_RANKS];
	ccore_ptr sb[WORLD_MAX_RANKS], rb[WORLD_MAX_RANKS];
};

static struct world worlds[sizeof(ranks_list) / sizeof(ranks_list[0])];

/* The backend ccore_comm_init_all opens: $CCORE_DEVICE, else sim. */
static const char *backend(void)
{
	const char *b = getenv("CCORE_DEVICE");

	return b && *b ? b : "sim";
}

static void need_sim(const char *why)
{
	char msg[256];

	if (strcmp(backend(), "sim")) {
		snprintf(msg, sizeof(msg), "needs the sim backend: %s", why);
		ccore_test_skip(msg);
	}
}

static void drop_worlds(void)
{
	for (size_t i = 0; i < sizeof(worlds) / sizeof(worlds[0]); i++) {
		for (uint32_t r = 0; r < worlds[i].n; r++)
			ccore_comm_destroy(worlds[i].c[r]);
		worlds[i].n = 0;
	}
}

/* Ranks spread over devices so transfers cross devices and stay inside. */
static struct ccore_topology topo_for(uint32_t n)
{
	uint32_t rpd = n >= 8 ? 4 : n == 4 ? 2 : n;

	return (struct ccore_topology){ 1, n / rpd, rpd };
}

static struct world *world(uint32_t n)
{
	for (size_t i = 0; i < sizeof(ranks_list) / sizeof(ranks_list[0]); i++) {
		struct world *w = &worlds[i];
		struct ccore_topology t;

		if (ranks_list[i] != n)
			continue;
		if (w->n)
			return w;
		/* every world opens the devices anew; a kernel device's ring
		 * indices and CC memory are shared by all its open files */
		if (strcmp(backend(), "sim"))
			drop_worlds();
		t = topo_for(n);
		if (ccore_comm_init_all(&t, w->c))
			FAIL("init %u ranks: %s", n, ccore_last_error());
		for (uint32_t r = 0; r < n; r++)
			if (ccore_mem_alloc(w->c[r], BUF_BYTES, &w->sb[r]) ||
			    ccore_mem_alloc(w->c[r], BUF_BYTES, &w->rb[r]))
				FAIL("alloc: %s", ccore_last_error());
		w->n = n;
		return w;
	}
	FAIL("no world for %u ranks", n);
}

struct run {
	uint8_t coll;
	const char *algo;
	uint32_t n;
	uint64_t count;
	enum ccore_dtype dt;
	enum ccore_redop op;
	bool in_place;
	uint32_t root;
	size_t offset;		/* bytes added to every buffer pointer */
};

static void describe(const struct run *x, char *buf, size_t len)
{
	snprintf(buf, len, "%s algo=%s N=%u count=%llu %s %s %s root=%u offset=%zu",
		 cs_coll_name(x->coll), x->algo ?: "(the tuner's)", x->n,
		 (unsigned long long)x->count,
		 ccore_dtype_name(x->dt), ccore_redop_name(x->op),
		 x->in_place ? "in-place" : "out-of-place", x->root, x->offset);
}

/* @x as the call each rank makes (enum cs_coll is enum ccore_coll_op's order, from 0) */
static struct coll_call call_of(const struct run *x)
{
	return (struct coll_call){
		.op = (enum ccore_coll_op)(ccore_op_allreduce + x->coll), .count = x->count,
		.dtype = x->dt, .redop = x->op, .root = (int)x->root, .in_place = x->in_place,
	};
}

static void ptrs(const struct world *w, const struct run *x, uint32_t r, ccore_ptr *s,
		 ccore_ptr *rv)
{
	struct coll_call c = call_of(x);

	coll_call_ptrs(&c, (int)r, w->sb[r] + x->offset, w->rb[r] + x->offset, s, rv);
}

static int post(const struct world *w, const struct run *x, uint32_t r)
{
	struct coll_call c = call_of(x);
	ccore_ptr s, rv;

	ptrs(w, x, r, &s, &rv);
	return coll_call_post(&c, (int)r, (int)w->n, s, rv, w->c[r], NULL);
}

static long check(const struct world *w, const struct run *x)
{
	struct coll_call c = call_of(x);
	long wrong = 0;

	/* one rank's Send/Recv ring shift has nothing to check */
	if (x->coll == CS_SENDRECV && w->n == 1)
		return 0;
	for (uint32_t r = 0; r < w->n; r++) {
		ccore_ptr s, rv;

		ptrs(w, x, r, &s, &rv);
		wrong += coll_call_wrong(&c, (int)r, (int)w->n, ccore_mem_host(w->c[r], rv));
	}
	return wrong;
}

static unsigned long long runs_done;

/* Fill the inputs, post @x on every rank of @w and wait: the return code. */
static int launch(struct world *w, const struct run *x)
{
	int rc;

	if (x->algo)
		setenv("CCORE_ALGO", x->algo, 1);
	else
		unsetenv("CCORE_ALGO");
	for (uint32_t r = 0; r < w->n; r++) {
		struct coll_call c = call_of(x);
		ccore_ptr s, rv;

		ptrs(w, x, r, &s, &rv);
		memset(ccore_mem_host(w->c[r], w->rb[r]), 0x5c, BUF_BYTES);
		coll_call_fill(&c, (int)r, (int)w->n, ccore_mem_host(w->c[r], s));
	}
	rc = ccore_group_start();
	for (uint32_t r = 0; r < w->n && !rc; r++)
		rc = post(w, x, r);
	rc = rc ?: ccore_group_end();
	for (uint32_t r = 0; r < w->n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->c[r]));
	return rc;
}

/* After a launch that returned 0: the algorithm that ran and every element. */
static void verify(const struct world *w, const struct run *x, const char *what)
{
	long wrong;

	if (x->count && x->algo && strcmp(ccore_comm_last_algo(w->c[0]), x->algo))
		FAIL("%s: ran %s instead", what, ccore_comm_last_algo(w->c[0]));
	wrong = check(w, x);
	if (wrong)
		FAIL("%s: %ld wrong elements", what, wrong);
	runs_done++;
}

static void run_in(struct world *w, const struct run *x)
{
	char what[256];
	int rc;

	describe(x, what, sizeof(what));
	if (x->coll == CS_SENDRECV && w->n == 1)
		return;		/* no other rank to send to */
	rc = launch(w, x);
	if (rc)
		FAIL("%s: %d: %s", what, rc, ccore_last_error());
	verify(w, x, what);
}

static void run_one(const struct run *x)
{
	run_in(world(x->n), x);
}

/* Algorithms that serve @coll for @n ranks with default options. */
static uint32_t algos_for(uint8_t coll, uint32_t n, uint64_t count, const struct algo **out)
{
	/* the options the runtime derives from the placement of topo_for(n) */
	struct ccore_topology t = topo_for(n);
	struct algo_opts o = { .slices = 1, .channels = 1, .ranks_per_device = t.ranks_per_device,
			       .ranks_per_node = t.ranks_per_device * t.devices_per_node };
	struct cs_shape sh = { .coll = coll, .nranks = n, .count = count, .root = n > 2 ? 2 : 0,
			       .peer = n > 1 ? 1 : 0 };
	uint32_t k = 0;

	for (unsigned int i = 0; i < algo_count(); i++) {
		const struct algo *a = algo_at(i);

		if ((a->colls & (1u << coll)) && !a->rejects(&sh, &o))
			out[k++] = a;
	}
	return k;
}

static void teardown_worlds(void)
{
	drop_worlds();
	unsetenv("CCORE_ALGO");
}

/* Is @name one of the comma-separated names in $@var?  Unset or empty: yes. */
static bool listed(const char *var, const char *name)
{
	const char *p = getenv(var);
	size_t len = strlen(name), n;

	if (!p || !*p)
		return true;
	for (; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		if (n == len && !strncmp(p, name, n))
			return true;
	}
	return false;
}

static bool known_coll(const char *name)
{
	return cs_coll_parse(name) >= 0;
}

static bool known_algo(const char *name)
{
	for (unsigned int i = 0; i < algo_count(); i++)
		if (!strcmp(algo_at(i)->name, name))
			return true;
	return false;
}

static bool known_ranks(const char *name)
{
	char num[16];

	for (size_t i = 0; i < sizeof(ranks_list) / sizeof(ranks_list[0]); i++) {
		snprintf(num, sizeof(num), "%u", ranks_list[i]);
		if (!strcmp(num, name))
			return true;
	}
	return false;
}

/* Every name in $@var must be one @known accepts. */
static void check_list(const char *var, bool (*known)(const char *), const char *expected)
{
	const char *v = getenv(var);
	char tok[64];
	size_t n;

	for (const char *p = v ? v : ""; *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		snprintf(tok, sizeof(tok), "%.*s", (int)(n < 63 ? n : 63), p);
		if (!known(tok))
			FAIL("%s=%s: '%s' is not %s", var, v, tok, expected);
	}
}

/* $CCORE_TEST_COUNTS, else @def: the counts the sweep runs. */
static size_t sweep_counts(uint64_t *out, size_t max, const uint64_t *def, size_t ndef)
{
	const char *v = getenv("CCORE_TEST_COUNTS");
	size_t k = 0;
	char *end;

	if (!v || !*v) {
		memcpy(out, def, ndef * sizeof(*def));
		return ndef;
	}
	for (const char *p = v; *p; p = end + (*end == ',')) {
		unsigned long long c = strtoull(p, &end, 10);

		if (end == p || (*end && *end != ',') || c > MAX_COUNT || k == max)
			FAIL("CCORE_TEST_COUNTS=%s: expected up to %zu counts 0..%u, comma-separated",
			     v, max, MAX_COUNT);
		out[k++] = c;
	}
	return k;
}

TEST(every_op_algorithm_and_rank_count)
{
	static const uint64_t default_counts[] = { 0, 1, 13, 1000 };
	const struct algo *all[64], *as[64];
	uint64_t counts[16];
	size_t ncounts = sweep_counts(counts, 16, default_counts, 4);
	char num[16];

	check_list("CCORE_TEST_COLLS", known_coll, "a collective (allreduce, allgather, reducescatter, alltoall, broadcast, reduce, sendrecv)");
	check_list("CCORE_TEST_ALGOS", known_algo, "an algorithm");
	check_list("CCORE_TEST_RANKS", known_ranks, "a rank count of this test (1,2,3,4,5,7,8,16)");
	ccore_test_log("backend %s; colls %s, algos %s, ranks %s, counts %s", backend(),
		       getenv("CCORE_TEST_COLLS") ?: "all", getenv("CCORE_TEST_ALGOS") ?: "all",
		       getenv("CCORE_TEST_RANKS") ?: "all", getenv("CCORE_TEST_COUNTS") ?: "0,1,13,1000");
	runs_done = 0;
	/* rank counts outermost: one world after the other */
	for (size_t ni = 0; ni < sizeof(ranks_list) / sizeof(ranks_list[0]); ni++) {
		snprintf(num, sizeof(num), "%u", ranks_list[ni]);
		if (!listed("CCORE_TEST_RANKS", num))
			continue;
		for (uint8_t coll = 0; coll < CS_NCOLL; coll++) {
			uint32_t n = ranks_list[ni], na = 0, nall = algos_for(coll, n, 13, all);

			if (!listed("CCORE_TEST_COLLS", cs_coll_name(coll)))
				continue;
			for (uint32_t a = 0; a < nall; a++)
				if (listed("CCORE_TEST_ALGOS", all[a]->name))
					as[na++] = all[a];
			for (uint32_t a = 0; a < na; a++)
				for (size_t ci = 0; ci < ncounts; ci++)
					for (int ip = 0; ip < 2; ip++) {
						struct run x = {
							.coll = coll, .algo = as[a]->name, .n = n,
							.count = counts[ci], .in_place = ip,
							.root = n > 2 ? 2 : 0,
							.dt = coll == CS_ALLREDUCE || coll == CS_REDUCESCATTER ||
							      coll == CS_REDUCE_COLL ? ccore_f32 : ccore_u8,
							.op = ccore_sum,
						};

						if (coll == CS_SENDRECV && ip)
							continue;
						run_one(&x);
					}
		}
	}
	ccore_test_log("%llu collectives checked", runs_done);
	teardown_worlds();
	if (!runs_done)
		FAIL("CCORE_TEST_COLLS, CCORE_TEST_ALGOS and CCORE_TEST_RANKS together select no collective");
}

/* Two nodes: the hierarchical algorithms serve only multi-node groups. */
static void multi_node_worlds(enum ccore_dtype dt)
{
	static const struct ccore_topology topos[] = { { 2, 1, 2 }, { 2, 2, 2 }, { 2, 2, 4 } };
	static const uint64_t counts[] = { 1, 13, 1000 };
	const struct algo *as[64];
	struct algo_opts o = { .slices = 1, .channels = 1 };

	need_sim("multi-node fabrics (a kernel fabric is one node)");
	runs_done = 0;
	for (size_t ti = 0; ti < sizeof(topos) / sizeof(topos[0]); ti++) {
		struct world w = { .n = topos[ti].nodes * topos[ti].devices_per_node *
				   topos[ti].ranks_per_device };
		uint32_t hier_runs = 0;

		if (ccore_comm_init_all(&topos[ti], w.c))
			FAIL("init: %s", ccore_last_error());
		for (uint32_t r = 0; r < w.n; r++)
			if (ccore_mem_alloc(w.c[r], BUF_BYTES, &w.sb[r]) ||
			    ccore_mem_alloc(w.c[r], BUF_BYTES, &w.rb[r]))
				FAIL("alloc: %s", ccore_last_error());
		o.ranks_per_device = topos[ti].ranks_per_device;
		o.ranks_per_node = topos[ti].ranks_per_device * topos[ti].devices_per_node;
		for (uint8_t coll = 0; coll < CS_NCOLL; coll++) {
			struct cs_shape sh = { .coll = coll, .nranks = w.n, .count = 13, .root = 1,
					       .peer = 0 };
			uint32_t na = 0;

			for (unsigned int i = 0; i < algo_count(); i++)
				if ((algo_at(i)->colls & (1u << coll)) && !algo_at(i)->rejects(&sh, &o))
					as[na++] = algo_at(i);
			for (uint32_t a = 0; a < na; a++)
				for (size_t ci = 0; ci < 3; ci++)
					for (int ip = 0; ip < 2 - (coll == CS_SENDRECV); ip++) {
						struct run x = {
							.coll = coll, .algo = as[a]->name, .n = w.n,
							.count = counts[ci], .in_place = ip, .root = 1,
							.dt = dt, .op = ccore_sum,
						};

						run_in(&w, &x);
						hier_runs += !strncmp(as[a]->name, "hier", 4);
					}
		}
		for (uint32_t r = 0; r < w.n; r++)
			ccore_comm_destroy(w.c[r]);
		ccore_test_log("%u nodes x %u devices x %u ranks: hierarchical runs %u",
			       topos[ti].nodes, topos[ti].devices_per_node,
			       topos[ti].ranks_per_device, hier_runs);
		ASSERT_GT(hier_runs, 0);
	}
	ccore_test_log("%llu collectives checked", runs_done);
	unsetenv("CCORE_ALGO");
}

TEST(multi_node_worlds_run_every_algorithm)
{
	multi_node_worlds(ccore_bf16);
}

/*
 * The same with every reduction between nodes staged (runtime/sched/
 * cs_stage.c), as it is when nodes are hosts joined by a network: the
 * sender's bytes land in the receiver's scratch and the receiver reduces
 * them.  Here on one fabric, so that the staged plans are checked on
 * every algorithm without a network.
 */
TEST(multi_node_worlds_staged_across_nodes_run_every_algorithm)
{
	unsigned long before = plans_staged, dbuf_before = plans_double_buffered;

	plan_stage_nodes_for_test = true;
	multi_node_worlds(ccore_i32);
	plan_stage_nodes_for_test = false;
	ccore_test_log("%lu plans staged, %lu double-buffered", plans_staged - before,
		       plans_double_buffered - dbuf_before);
	ASSERT_GT(plans_staged - before, 50);
}

/*
 * Small and awkward counts on awkward topologies: 1 to 7 nodes, primes of
 * devices and of ranks per device, up to 64 ranks.  Counts 0, 1, 2, N - 1,
 * N, N + 1, every count 11..63 and some primes.  Every algorithm of every
 * collective, forced with CCORE_ALGO, either runs with every element right
 * or is refused when the collective is planned, with -ENOENT and a message
 * naming it; no other failure.  The tuner's own choice always runs.  On
 * the worlds past 16 ranks only the hierarchical AllReduce runs every
 * count (the rest, slow to simulate there, the edge counts and the
 * primes); past 32 ranks only it and the tuner's choices run.  The
 * hierarchical AllReduce must serve every count on 2 nodes, also at
 * 2 x 8 x 8, where the tuner's AllReduce of 37 elements runs too.
 */
static const struct ccore_topology sweep_topos[] = {
	{ 1, 1, 3 }, { 1, 5, 1 }, { 1, 2, 6 }, { 1, 1, 13 },
	{ 2, 1, 12 }, { 2, 2, 8 }, { 2, 3, 5 }, { 2, 4, 8 },
	{ 2, 1, 2 }, { 2, 7, 1 }, { 3, 1, 5 }, { 3, 2, 2 },
	{ 5, 1, 3 }, { 7, 1, 2 },
};

#define SWEEP_FULL_RANKS 16	/* worlds up to this run every count with every algorithm */
#define SWEEP_MANY_RANKS 32	/* past this only the tuner's choices and hier AllReduce */
#define SWEEP_EDGE_COUNTS 6	/* 0, 1, 2, N - 1, N, N + 1 come first */

static size_t sweep_counts_for(uint32_t n, uint64_t *out)
{
	static const uint64_t primes[] = { 67, 97, 131, 257 };
	size_t k = 0;

	out[k++] = 0;
	out[k++] = 1;
	out[k++] = 2;
	out[k++] = n - 1;
	out[k++] = n;
	out[k++] = n + 1;
	for (size_t i = 0; i < sizeof(primes) / sizeof(primes[0]); i++)
		out[k++] = primes[i];
	for (uint64_t c = 11; c <= 63; c++)
		out[k++] = c;
	return k;
}

/* Forced: runs right or is refused at plan time naming it; 1 if refused. */
static int sweep_one(struct world *w, const struct run *x)
{
	char what[256];
	int rc;

	describe(x, what, sizeof(what));
	rc = launch(w, x);
	if (!rc) {
		verify(w, x, what);
		return 0;
	}
	if (!x->algo)
		FAIL("%s: the tuner chose an algorithm that failed: %d: %s", what, rc,
		     ccore_last_error());
	if (rc != -ENOENT || !strstr(ccore_last_error(), "no algorithm can serve") ||
	    !strstr(ccore_last_error(), x->algo))
		FAIL("%s: neither ran nor was refused at plan time: %d: %s", what, rc,
		     ccore_last_error());
	return 1;
}

static void sweep_world_open(struct world *w, const struct ccore_topology *t)
{
	char sim[32];

	w->n = t->nodes * t->devices_per_node * t->ranks_per_device;
	/* past 64 ranks a communicator needs more than the default 256 */
	snprintf(sim, sizeof(sim), "sems=%u", 2 * w->n + 64);
	setenv("CCORE_SIM", w->n > 64 ? sim : "", 1);
	if (ccore_comm_init_all(t, w->c))
		FAIL("init %ux%ux%u: %s", t->nodes, t->devices_per_node, t->ranks_per_device,
		     ccore_last_error());
	unsetenv("CCORE_SIM");
	for (uint32_t r = 0; r < w->n; r++)
		if (ccore_mem_alloc(w->c[r], BUF_BYTES, &w->sb[r]) ||
		    ccore_mem_alloc(w->c[r], BUF_BYTES, &w->rb[r]))
			FAIL("alloc: %s", ccore_last_error());
}

static void sweep_world_close(struct world *w)
{
	for (uint32_t r = 0; r < w->n; r++)
		ccore_comm_destroy(w->c[r]);
	w->n = 0;
}

/* @coll with @algo (NULL: the tuner's) on @nc counts; how many were refused. */
static uint32_t sweep_algo(struct world *w, uint8_t coll, const char *algo, const uint64_t *counts,
			   size_t nc)
{
	uint32_t refused = 0;

	for (size_t ci = 0; ci < nc; ci++) {
		struct run x = {
			.coll = coll, .algo = algo, .n = w->n, .count = counts[ci],
			.root = w->n - 1, .dt = ccore_i32, .op = ccore_sum,
			/* both ways for the edge counts, alternating for the rest */
			.in_place = coll != CS_SENDRECV && (ci + coll) % 2,
		};

		if (coll == CS_SENDRECV && w->n == 1)
			continue;
		refused += (uint32_t)sweep_one(w, &x);
		if (ci < SWEEP_EDGE_COUNTS && coll != CS_SENDRECV) {
			x.in_place = !x.in_place;
			refused += (uint32_t)sweep_one(w, &x);
		}
	}
	return refused;
}

TEST(small_counts_every_algorithm_and_topology)
{
	static const uint64_t wide_counts[] = { 11, 37, 63, 127, 129 };
	static struct world w;
	unsigned long long refused = 0;
	uint64_t counts[80];

	need_sim("multi-node fabrics and CCORE_SIM");
	runs_done = 0;
	for (size_t ti = 0; ti < sizeof(sweep_topos) / sizeof(sweep_topos[0]); ti++) {
		const struct ccore_topology *t = &sweep_topos[ti];
		size_t nc;

		sweep_world_open(&w, t);
		nc = sweep_counts_for(w.n, counts);
		for (uint8_t coll = 0; coll < CS_NCOLL; coll++) {
			size_t few = w.n <= SWEEP_FULL_RANKS ? nc : SWEEP_EDGE_COUNTS + 4;

			refused += sweep_algo(&w, coll, NULL, counts, few);
			for (unsigned int a = 0; a < algo_count(); a++) {
				const struct algo *al = algo_at(a);
				bool hier = !strcmp(al->name, "hier") && coll == CS_ALLREDUCE;
				uint32_t no;

				if (!(al->colls & (1u << coll)) ||
				    (w.n > SWEEP_MANY_RANKS && !hier))
					continue;
				no = sweep_algo(&w, coll, al->name, counts, hier ? nc : few);
				refused += no;
				/* two nodes of several ranks: hier serves every count */
				if (hier && t->nodes == 2 &&
				    t->devices_per_node * t->ranks_per_device > 1)
					ASSERT_EQ(no, 0);
			}
		}
		sweep_world_close(&w);
	}
	/* 128 ranks, where the tuner chose hier for 37 elements */
	sweep_world_open(&w, &(struct ccore_topology){ 2, 8, 8 });
	sweep_algo(&w, CS_ALLREDUCE, NULL, wide_counts, 2);
	ccore_test_log("%u ranks: the tuner's AllReduce of 37 elements ran %s", w.n,
		       ccore_comm_last_algo(w.c[0]));
	ASSERT_EQ(sweep_algo(&w, CS_ALLREDUCE, "hier", wide_counts, 5), 0);
	sweep_world_close(&w);
	ccore_test_log("%llu collectives checked, %llu forced algorithms refused", runs_done,
		       refused);
	unsetenv("CCORE_ALGO");
}

/*
 * Hierarchical AllReduce in loop form through the plan path, where its
 * schedule is made rank by rank as the lowering reads it (cs.h): every
 * result checked, in place and not, and the plan was loop form.
 */
TEST(hier_loop_form_runs_a_schedule_made_as_it_is_read)
{
	/* multiples of 4 ranks per node times 4 nodes: no leftover */
	static const uint64_t counts[] = { 16, 48, 640, 4096 };
	static struct world w;
	struct ccore_plan_timing pt;

	need_sim("multi-node fabrics");
	setenv("CCORE_LOOPS", "1", 1);
	sweep_world_open(&w, &(struct ccore_topology){ 4, 2, 2 });
	ASSERT_EQ(sweep_algo(&w, CS_ALLREDUCE, "hier", counts, 4), 0);
	ASSERT_EQ(ccore_comm_plan_timing(w.c[0], &pt), 0);
	ASSERT_TRUE(pt.loops);
	sweep_world_close(&w);
	unsetenv("CCORE_LOOPS");
	unsetenv("CCORE_ALGO");
}

TEST(every_dtype_and_reduce_op)
{
	static const uint8_t colls[] = { CS_ALLREDUCE, CS_REDUCESCATTER, CS_REDUCE_COLL };
	const struct algo *as[64];

	runs_done = 0;
	for (size_t k = 0; k < sizeof(colls); k++)
		for (uint32_t n = 3; n <= 8; n += 5) {
			uint32_t na = algos_for(colls[k], n, 13, as);

			for (uint32_t a = 0; a < na; a++)
				for (int dt = ccore_i8; dt <= ccore_f64; dt++)
					for (int op = ccore_sum; op <= ccore_avg; op++) {
						struct run x = {
							.coll = colls[k], .algo = as[a]->name, .n = n,
							.count = 37, .dt = dt, .op = op, .root = 1,
							.in_place = (dt + op) % 2,
						};

						run_one(&x);
					}
		}
	ccore_test_log("%llu collectives checked", runs_done);
	teardown_worlds();
}

TEST(seeded_random_sample_of_the_rest)
{
	uint64_t seed = tsim_seed(), st = seed | 1;
	const struct algo *as[64];
	int samples = getenv("CCORE_SWEEP_SAMPLES") ? atoi(getenv("CCORE_SWEEP_SAMPLES")) : 300;

	runs_done = 0;
	for (int i = 0; i < samples; i++) {
		struct run x;
		uint32_t na;

		st ^= st << 13, st ^= st >> 7, st ^= st << 17;
		x.coll = (uint8_t)(st % CS_NCOLL);
		x.n = ranks_list[(st >> 8) % 8];
		x.count = (st >> 16) % MAX_COUNT;
		x.dt = (enum ccore_dtype)(1 + (st >> 32) % 10);
		x.op = (enum ccore_redop)(1 + (st >> 40) % 5);
		x.in_place = (st >> 44) & 1 && x.coll != CS_SENDRECV;
		x.root = (uint32_t)((st >> 45) % x.n);
		x.offset = (st >> 50) % 2 ? 1 + (st >> 51) % 7 : 0;
		na = algos_for(x.coll, x.n, x.count, as);
		if (!na)
			continue;
		x.algo = as[(st >> 56) % na]->name;
		run_one(&x);
	}
	ccore_test_log("%llu random collectives checked", runs_done);
	teardown_worlds();
}

TEST(no_progress_while_cc_cores_are_held)
{
	struct run x = { .coll = CS_ALLREDUCE, .algo = "ring", .n = 4, .count = 1000,
			 .dt = ccore_f32, .op = ccore_sum };
	struct world *w = world(4);
	struct clique *q = w->c[0]->q;
	uint32_t hold[MAXN], prog[MAXN];
	uint64_t job[MAXN];
	int status;

	setenv("CCORE_ALGO", "ring", 1);
	/* park every rank's stream-0 CC core in a job waiting on a semaphore */
	for (uint32_t r = 0; r < 4; r++) {
		struct ccore_dev *d = comm_dev(w->c[r]);
		struct drm_ccore_insn p[2] = {
			{ .opcode = DRM_CCORE_OP_ACQUIRE, .imm = 1 },
			{ .opcode = DRM_CCORE_OP_RET },
		};

		hold[r] = tsim_sem(d, q->ranks[r].core, 1);
		p[0].sem = hold[r];
		ASSERT_EQ(ccore_dev_program_load(d, w->c[r]->stream0->cc, p, 2, &prog[r]), 0);
		ASSERT_EQ(ccore_dev_submit(d, prog[r], DRM_CCORE_JOB_F_TRIGGER, &job[r]), 0);
	}
	for (uint32_t r = 0; r < 4; r++) {
		memset(ccore_mem_host(w->c[r], w->rb[r]), 0x5c, 4000);
		ccore_verifiable_fill(ccore_mem_host(w->c[r], w->sb[r]), 1000, x.dt, x.op, (int)r, 0);
	}
	for (uint32_t r = 0; r < 4; r++)
		ASSERT_EQ(post(w, &x, r), 0);
	usleep(100000);
	/* the collective is posted and triggered, yet nothing moved */
	for (uint32_t r = 0; r < 4; r++) {
		const uint8_t *out = ccore_mem_host(w->c[r], w->rb[r]);

		for (int i = 0; i < 4000; i++)
			if (out[i] != 0x5c)
				FAIL("rank %u byte %d changed while its CC core was held", r, i);
		ASSERT_EQ(ccore_stream_query(ccore_comm_stream(w->c[r])), -EAGAIN);
	}
	for (uint32_t r = 0; r < 4; r++)
		ASSERT_EQ(ccore_dev_sem_write(comm_dev(w->c[r]), hold[r], DRM_CCORE_SEM_ADD, 1), 0);
	for (uint32_t r = 0; r < 4; r++) {
		ASSERT_EQ(ccore_dev_job_wait(comm_dev(w->c[r]), job[r], 10 * TSIM_SEC, &status), 0);
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w->c[r])), 0);
	}
	ASSERT_EQ(check(w, &x), 0);
	teardown_worlds();
}

TEST(api_errors_name_the_argument)
{
	struct world *w = world(2);
	ccore_ptr s = w->sb[0], r = w->rb[0];

	ASSERT_EQ(ccore_all_reduce(s, r, 10, (enum ccore_dtype)42, ccore_sum, w->c[0], NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "dtype 42 is not one of");
	ASSERT_EQ(ccore_all_reduce(s, r, 10, ccore_f32, (enum ccore_redop)9, w->c[0], NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "redop 9 is not one of");
	ASSERT_EQ(ccore_all_reduce(s, r, 10, ccore_f32, ccore_sum, NULL, NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "comm is NULL");
	ASSERT_EQ(ccore_all_reduce(s + BUF_BYTES - 8, r, 10, ccore_f32, ccore_sum, w->c[0], NULL),
		  -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "send buffer");
	ASSERT_EQ(ccore_all_reduce(0x1234, r, 10, ccore_f32, ccore_sum, w->c[0], NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "not inside one device allocation");
	ASSERT_EQ(ccore_broadcast(s, r, 10, ccore_f32, 5, w->c[0], NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "root 5 out of range (0..1)");
	ASSERT_EQ(ccore_send(s, 10, ccore_f32, 0, w->c[0], NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "peer 0 is this rank");
	ASSERT_EQ(ccore_group_end(), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "without ccore_group_start");
	/* mismatched collectives across ranks are an error, not a hang */
	ASSERT_EQ(ccore_all_reduce(s, r, 10, ccore_f32, ccore_sum, w->c[0], NULL), 0);
	ASSERT_EQ(ccore_all_reduce(s, r, 11, ccore_f32, ccore_sum, w->c[1], NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "every rank must call the same collective");
	/* a bad CCORE_ALGO names the problem */
	setenv("CCORE_ALGO", "ring,warp", 1);
	ASSERT_EQ(ccore_all_reduce(s, r, 10, ccore_f32, ccore_sum, w->c[0], NULL), 0);
	ASSERT_EQ(ccore_all_reduce(s, r, 10, ccore_f32, ccore_sum, w->c[1], NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_ALGO: unknown algorithm 'warp'");
	setenv("CCORE_ALGO", "allreduce:^ring;reducescatter:ring", 1);
	ASSERT_EQ(ccore_all_gather(s, r, 4, ccore_f32, w->c[0], NULL), 0);
	ASSERT_EQ(ccore_all_gather(s, r, 4, ccore_f32, w->c[1], NULL), 0);
	ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w->c[0])), 0);
	ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w->c[1])), 0);
	setenv("CCORE_ALGO", "bogus:ring", 1);
	ASSERT_EQ(ccore_all_reduce(s, r, 10, ccore_f32, ccore_sum, w->c[0], NULL), 0);
	ASSERT_EQ(ccore_all_reduce(s, r, 10, ccore_f32, ccore_sum, w->c[1], NULL), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "unknown collective 'bogus'");
	setenv("CCORE_ALGO", "reducescatter:ring", 1);
	ASSERT_EQ(ccore_all_to_all(s, r, 4, ccore_f32, w->c[0], NULL), 0);
	teardown_worlds();
}

/* Every rank's AllReduce of @count floats; the algorithm that ran. */
static const char *all_reduce_algo(struct world *w, uint32_t n, size_t count)
{
	int rc = ccore_group_start();

	for (uint32_t r = 0; r < n && !rc; r++)
		rc = ccore_all_reduce(w->sb[r], w->rb[r], count, ccore_f32, ccore_sum, w->c[r], NULL);
	rc = rc ?: ccore_group_end();
	for (uint32_t r = 0; r < n && !rc; r++)
		rc = ccore_stream_sync(ccore_comm_stream(w->c[r]));
	return rc ? ccore_last_error() : ccore_comm_last_algo(w->c[0]);
}

/* CCORE_ALGO's names match without regard to case, as NCCL_ALGO's do. */
TEST(ccore_algo_ignores_case)
{
	struct world *w = world(4);

	setenv("CCORE_ALGO", "RING", 1);
	ASSERT_EQ(strcmp(all_reduce_algo(w, 4, 64), "ring"), 0);
	setenv("CCORE_ALGO", "AllReduce:Mesh;AllGather:RING", 1);
	ASSERT_EQ(strcmp(all_reduce_algo(w, 4, 128), "mesh"), 0);
	setenv("CCORE_ALGO", "allreduce:^RING,Mesh", 1);
	ASSERT_NE(strcmp(all_reduce_algo(w, 4, 256), "ring"), 0);
	ASSERT_NE(strcmp(all_reduce_algo(w, 4, 512), "mesh"), 0);
	/* an unknown name still lists the known ones */
	setenv("CCORE_ALGO", "Warp", 1);
	ASSERT_STR_CONTAINS(all_reduce_algo(w, 4, 1024), "CCORE_ALGO: unknown algorithm 'Warp' (known: ring,");
	unsetenv("CCORE_ALGO");
	teardown_worlds();
}

TEST(registered_user_memory_works_as_buffers)
{
	struct world *w = world(4);
	void *host[4];
	ccore_ptr p[4], bad;

	for (uint32_t r = 0; r < 4; r++) {
		host[r] = aligned_alloc(4096, 8192);
		ASSERT_EQ(ccore_mem_register(w->c[r], host[r], 8192, &p[r]), 0);
		ccore_verifiable_fill(host[r], 2048, ccore_f32, ccore_sum, (int)r, 0);
	}
	ASSERT_EQ(ccore_mem_register(w->c[0], (char *)host[0] + 8, 4096, &bad), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "multiples of the 4096-byte page");
	setenv("CCORE_ALGO", "ring", 1);
	for (uint32_t r = 0; r < 4; r++)
		ASSERT_EQ(ccore_all_reduce(p[r], p[r], 2048, ccore_f32, ccore_sum, w->c[r], NULL), 0);
	for (uint32_t r = 0; r < 4; r++)
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w->c[r])), 0);
	/* the result is in the caller's own memory: no copy in or out */
	for (uint32_t r = 0; r < 4; r++)
		ASSERT_EQ(ccore_verifiable_check_reduced(host[r], 2048, ccore_f32, ccore_sum, 4, 0), 0);
	for (uint32_t r = 0; r < 4; r++) {
		ASSERT_EQ(ccore_mem_free(w->c[r], p[r]), 0);
		free(host[r]);
	}
	teardown_worlds();
}

TEST(split_by_color_and_key)
{
	struct world *w = world(8);
	struct ccore_comm *sub[8];
	int color[8], key[8];

	/* evens and odds, each ordered by descending old rank */
	for (int r = 0; r < 8; r++) {
		color[r] = r % 2;
		key[r] = -r;
	}
	color[7] = -1;	/* rank 7 takes no part */
	ASSERT_EQ(ccore_comm_split(w->c, 8, color, key, sub), 0);
	ASSERT_TRUE(sub[7] == NULL);
	ASSERT_EQ(ccore_comm_count(sub[0]), 4);
	ASSERT_EQ(ccore_comm_count(sub[1]), 3);
	ASSERT_EQ(ccore_comm_rank(sub[6]), 0);
	ASSERT_EQ(ccore_comm_rank(sub[0]), 3);
	ASSERT_EQ(ccore_comm_rank(sub[5]), 0);
	/* an AllReduce on the evens sums only their inputs */
	for (int r = 0; r < 8; r += 2)
		ccore_verifiable_fill(ccore_mem_host(w->c[r], w->sb[r]), 100, ccore_f32, ccore_sum,
				      ccore_comm_rank(sub[r]), 0);
	setenv("CCORE_ALGO", "ring", 1);
	for (int r = 0; r < 8; r += 2)
		ASSERT_EQ(ccore_all_reduce(w->sb[r], w->rb[r], 100, ccore_f32, ccore_sum, sub[r], NULL), 0);
	for (int r = 0; r < 8; r += 2)
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(sub[r])), 0);
	for (int r = 0; r < 8; r += 2)
		ASSERT_EQ(ccore_verifiable_check_reduced(ccore_mem_host(w->c[r], w->rb[r]), 100,
							 ccore_f32, ccore_sum, 4, 0), 0);
	for (int r = 0; r < 7; r++)
		ASSERT_EQ(ccore_comm_destroy(sub[r]), 0);
	color[0] = 0;
	ASSERT_EQ(ccore_comm_split(w->c, 3, color, key, sub), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "pass all 8 ranks");
	teardown_worlds();
}

/*
 * A full plan cache makes room: from schedules (CCORE_LOOPS=0) the CC
 * cores' instruction memory fills, in loop form the ring indices (two per
 * plan in place); either way the plans built last report time evicting.
 */
TEST(plan_cache_makes_room_in_cc_memory)
{
	static const char *const loops[] = { "0", "1" };
	struct ccore_topology t = { 1, 2, 4 };
	struct ccore_plan_timing pt;
	struct ccore_comm *c[8];
	ccore_ptr b[8];

	need_sim("CCORE_SIM=program_size=700 shrinks the CC cores' memory");
	for (int l = 0; l < 2; l++) {
		/* a small instruction memory: a few plans fill it */
		setenv("CCORE_SIM", "program_size=700", 1);
		ASSERT_EQ(ccore_comm_init_all(&t, c), 0);
		unsetenv("CCORE_SIM");
		setenv("CCORE_ALGO", "ring", 1);
		setenv("CCORE_LOOPS", loops[l], 1);
		for (int r = 0; r < 8; r++)
			ASSERT_EQ(ccore_mem_alloc(c[r], 1 << 20, &b[r]), 0);
		for (size_t count = 1000; count < 40000; count += 1000) {
			for (int r = 0; r < 8; r++) {
				ccore_verifiable_fill(ccore_mem_host(c[r], b[r]), count, ccore_f32,
						      ccore_sum, r, 0);
				ASSERT_EQ(ccore_all_reduce(b[r], b[r], count, ccore_f32, ccore_sum, c[r],
							   NULL), 0);
			}
			for (int r = 0; r < 8; r++)
				ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(c[r])), 0);
			for (int r = 0; r < 8; r++)
				ASSERT_EQ(ccore_verifiable_check_reduced(ccore_mem_host(c[r], b[r]),
									 count, ccore_f32, ccore_sum,
									 8, 0), 0);
		}
		ASSERT_EQ(ccore_comm_plan_timing(c[0], &pt), 0);
		ASSERT_EQ(pt.loops, (uint32_t)l);
		ASSERT_TRUE(pt.evict_us > 0);
		for (int r = 0; r < 8; r++)
			ASSERT_EQ(ccore_comm_destroy(c[r]), 0);
		unsetenv("CCORE_ALGO");
		unsetenv("CCORE_LOOPS");
	}
}

TEST(a_group_is_fused_into_one_job_per_rank)
{
	struct world *w = world(4);
	const size_t n = 300;
	ccore_ptr ar[4], ag[4], rs[4];

	setenv("CCORE_ALGO", "ring", 1);
	for (uint32_t r = 0; r < 4; r++) {
		ar[r] = w->sb[r];
		ag[r] = w->sb[r] + 4 * n * 4;
		rs[r] = w->sb[r] + 8 * n * 4;
		ccore_verifiable_fill(ccore_mem_host(w->c[r], ar[r]), n, ccore_f32, ccore_sum, (int)r, 0);
		ccore_verifiable_fill(ccore_mem_host(w->c[r], ag[r]), n, ccore_f32, ccore_sum, (int)r, 0);
		ccore_verifiable_fill(ccore_mem_host(w->c[r], rs[r]), 4 * n, ccore_f32, ccore_sum,
				      (int)r, 0);
	}
	ASSERT_EQ(ccore_group_start(), 0);
	for (uint32_t r = 0; r < 4; r++) {
		ASSERT_EQ(ccore_all_reduce(ar[r], w->rb[r], n, ccore_f32, ccore_sum, w->c[r], NULL), 0);
		ASSERT_EQ(ccore_all_gather(ag[r], w->rb[r] + n * 4, n, ccore_f32, w->c[r], NULL), 0);
		ASSERT_EQ(ccore_reduce_scatter(rs[r], w->rb[r] + 5 * n * 4, n, ccore_f32, ccore_sum,
					       w->c[r], NULL), 0);
	}
	ASSERT_EQ(ccore_group_end(), 0);
	/* three collectives, one job per rank */
	for (uint32_t r = 0; r < 4; r++)
		ASSERT_EQ(w->c[r]->stream0->njobs, 1);
	for (uint32_t r = 0; r < 4; r++)
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w->c[r])), 0);
	for (uint32_t r = 0; r < 4; r++) {
		const char *out = ccore_mem_host(w->c[r], w->rb[r]);

		ASSERT_EQ(ccore_verifiable_check_reduced(out, n, ccore_f32, ccore_sum, 4, 0), 0);
		for (uint32_t j = 0; j < 4; j++)
			ASSERT_EQ(ccore_verifiable_check_from(out + (1 + j) * n * 4, n, ccore_f32,
							      ccore_sum, (int)j, 0), 0);
		ASSERT_EQ(ccore_verifiable_check_reduced(out + 5 * n * 4, n, ccore_f32, ccore_sum, 4,
							 r * n), 0);
	}
	teardown_worlds();
}

/*
 * More collectives in a group than the group keeps without allocating
 * (plan/group.c): every one still launches, in order, with its own data.
 */
TEST(a_group_of_twenty_collectives_completes_every_one)
{
	enum { CALLS = 20 };
	struct world *w = world(4);
	const size_t n = 48;

	for (uint32_t r = 0; r < 4; r++)
		for (int k = 0; k < CALLS; k++)
			ccore_verifiable_fill(ccore_mem_host(w->c[r], w->sb[r] + k * n * 4), n,
					      ccore_f32, ccore_sum, (int)r, (uint64_t)k * n);
	ASSERT_EQ(ccore_group_start(), 0);
	for (int k = 0; k < CALLS; k++)
		for (uint32_t r = 0; r < 4; r++)
			ASSERT_EQ(ccore_all_reduce(w->sb[r] + k * n * 4, w->rb[r] + k * n * 4, n,
						   ccore_f32, ccore_sum, w->c[r], NULL), 0);
	ASSERT_EQ(ccore_group_end(), 0);
	for (uint32_t r = 0; r < 4; r++)
		ASSERT_EQ(ccore_stream_sync(ccore_comm_stream(w->c[r])), 0);
	for (uint32_t r = 0; r < 4; r++)
		for (int k = 0; k < CALLS; k++)
			if (ccore_verifiable_check_reduced(ccore_mem_host(w->c[r], w->rb[r] + k * n * 4),
							   n, ccore_f32, ccore_sum, 4, (uint64_t)k * n))
				FAIL("rank %u, collective %d of the group: wrong result", r, k);
	teardown_worlds();
}

TEST(bad_knobs_fail_init_and_name_the_variable)
{
	struct ccore_topology t = { 1, 1, 2 };
	struct ccore_comm *c[2];

	setenv("CCORE_DEBUG", "LOUD", 1);
	ASSERT_EQ(ccore_comm_init_all(&t, c), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_DEBUG=LOUD: expected WARN, INFO or TRACE");
	unsetenv("CCORE_DEBUG");
	setenv("CCORE_ALGO", "allreduce:^", 1);
	ASSERT_EQ(ccore_comm_init_all(&t, c), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_ALGO: a clause names no algorithm");
	setenv("CCORE_ALGO", "ring;alltoall:fast", 1);
	ASSERT_EQ(ccore_comm_init_all(&t, c), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "unknown algorithm 'fast' (known: ring,");
	unsetenv("CCORE_ALGO");
	ASSERT_EQ(ccore_comm_init_all(&t, c), 0);
	ASSERT_EQ(ccore_comm_destroy(c[0]), 0);
	ASSERT_EQ(ccore_comm_destroy(c[1]), 0);
}

TEST(a_fabric_too_small_for_the_topology_fails_init)
{
	struct ccore_topology t = { 1, 1, 2 };
	struct ccore_comm *c[2];

	need_sim("CCORE_SIM shapes only its fabric");
	setenv("CCORE_SIM", "cores=1", 1);
	ASSERT_EQ(ccore_comm_init_all(&t, c), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "topology needs 1 devices with 2 cores each");
	unsetenv("CCORE_SIM");
}

#ifdef CCORE_TEST_ACCEL
/*
 * build/tests/kernel/coll_accel: the QEMU guest's collectives on the kernel
 * driver (selftests/qemu/run.sh, after setup.sh made a fabric of 4
 * devices; the guest is slow, so a subset): Ring, Mesh, RDH and, for
 * AllToAll, their counterparts pairwise (out of place its rounds are
 * independent: every pair at once, a mesh) and Bruck (log2 N rounds, as
 * RDH) x AllReduce, AllGather, ReduceScatter, AllToAll x N = 2
 * and 4 x a few counts, in and out of place; every dtype x reduce op (the
 * kernel's float reductions); the cases on buffers the kernel shares
 * (registered user memory, a fused group, CC cores held by another job);
 * and the sim-only cases, to show they skip.  The variables may be set to
 * run something else; naming cases runs those instead.
 */
static const char *const accel_cases[] = {
	"every_op_algorithm_and_rank_count",
	"multi_node_worlds_run_every_algorithm",
	"every_dtype_and_reduce_op",
	"no_progress_while_cc_cores_are_held",
	"api_errors_name_the_argument",
	"registered_user_memory_works_as_buffers",
	"split_by_color_and_key",
	"plan_cache_makes_room_in_cc_memory",
	"a_group_is_fused_into_one_job_per_rank",
	"bad_knobs_fail_init_and_name_the_variable",
	"a_fabric_too_small_for_the_topology_fails_init",
	NULL,
};

__attribute__((constructor)) static void coll_accel_defaults(void)
{
	setenv("CCORE_DEVICE", "accel", 0);
	setenv("CCORE_TEST_COLLS", "allreduce,allgather,reducescatter,alltoall", 0);
	setenv("CCORE_TEST_ALGOS", "ring,mesh,rdh,pairwise,bruck", 0);
	setenv("CCORE_TEST_RANKS", "2,4", 0);
	setenv("CCORE_TEST_COUNTS", "1,13,1000,5000", 0);
	ccore_test_default_cases(accel_cases);
}
#endif
