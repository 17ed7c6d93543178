// SPDX-License-Identifier: MIT
/*
 * The collective benchmark, modelled on nccl-tests: for each size, the
 * out-of-place and the in-place collective, checked on verifiable inputs,
 * then timed over -n iterations (of -m collectives each) after -w warm-up
 * ones, for each data type and reduction asked for; sizes and counts as
 * nccl-tests sets them, its bus-bandwidth factors, and the host memcpy
 * bandwidth measured in the same run; with --host-bound, what host threads
 * reach doing the same copies at the largest size.  report.c prints it.
 */
#include "bench.h"
#include "../common/coll_call.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct bctx {
	const struct bench_opts *o;
	struct ccore_comm **comm;	/* [rank], this process's ranks lo..hi-1 */
	ccore_ptr *sbuf, *rbuf;
	int n, lo, hi;
	enum ccore_dtype dtype;	/* of the sizes being run */
	enum ccore_redop redop;
	size_t es;
	double host_gbps;
	bool virt;		/* --timed with virtual buffers: no host view */
	double sim_wall_s;	/* --timed: wall-clock seconds the simulations took */
	double launch_wall_s;	/* --timed: of which planning, lowering, launching */
	/* --timed: the plan whose planning and lowering took longest */
	double most_plan_ms;
	size_t most_plan_bytes;
	char most_plan_algo[32];
	/* per size */
	size_t count;		/* the count argument of the call */
	size_t in_elems, out_elems;	/* per rank */
};

/*
 * nccl-tests' bus bandwidth factors (its *GetBw()): 2(n-1)/n for
 * AllReduce, (n-1)/n for AllGather, ReduceScatter and AllToAll, 1 for the
 * rooted collectives and SendRecv.
 */
static double busbw_factor(enum bench_op op, int n)
{
	switch (op) {
	case OP_ALLREDUCE:
		return 2.0 * (n - 1) / n;
	case OP_ALLGATHER:
	case OP_REDUCESCATTER:
	case OP_ALLTOALL:
		return (double)(n - 1) / n;
	default:
		return 1;
	}
}

/*
 * The call's count for @bytes, as nccl-tests' *GetCollByteCount(): the
 * whole buffer for AllReduce, Broadcast, Reduce and SendRecv; a rank's
 * block for AllGather, ReduceScatter and AllToAll (a peer's block),
 * rounded down to a multiple of 16 bytes.
 */
static void shape(struct bctx *b, size_t bytes)
{
	size_t elems = bytes / b->es, n = (size_t)b->n;
	size_t block = (elems / n) & ~(16 / b->es - 1);

	switch (b->o->op) {
	case OP_ALLGATHER:
		b->count = block;
		b->in_elems = block;
		b->out_elems = block * n;
		break;
	case OP_REDUCESCATTER:
		b->count = block;
		b->in_elems = block * n;
		b->out_elems = block;
		break;
	case OP_ALLTOALL:
		b->count = block;
		b->in_elems = b->out_elems = block * n;
		break;
	default:
		b->count = b->in_elems = b->out_elems = elems;
		break;
	}
}

_Static_assert(ccore_op_allreduce + OP_SENDRECV == ccore_op_sendrecv,
	       "enum bench_op is enum ccore_coll_op's order, from 0");

/* The call every rank makes at this size, out of place or in place. */
static struct coll_call call_of(const struct bctx *b, bool in_place)
{
	return (struct coll_call){
		.op = (enum ccore_coll_op)(ccore_op_allreduce + b->o->op), .count = b->count,
		.dtype = b->dtype, .redop = b->redop, .root = b->o->root, .in_place = in_place,
	};
}

/* Send and receive pointers of rank @r for @c, -u elements into its buffers. */
static void bufs(const struct bctx *b, int r, const struct coll_call *c, ccore_ptr *s,
		 ccore_ptr *rv)
{
	size_t skew = (size_t)b->o->unalign * b->es;

	coll_call_ptrs(c, r, b->sbuf[r] + skew, b->rbuf[r] + skew, s, rv);
}

static int run_once(struct bctx *b, bool in_place)
{
	struct coll_call c = call_of(b, in_place);
	int rc = ccore_group_start();

	for (int r = b->lo; r < b->hi && !rc; r++) {
		ccore_ptr s, rv;

		bufs(b, r, &c, &s, &rv);
		rc = coll_call_post(&c, r, b->n, s, rv, b->comm[r], NULL);
	}
	if (!rc)
		rc = ccore_group_end();
	return rc;
}

static int sync_all(struct bctx *b)
{
	int rc = 0;

	for (int r = b->lo; r < b->hi; r++) {
		int x = ccore_stream_sync(ccore_comm_stream(b->comm[r]));

		rc = rc ? rc : x;
	}
	return rc;
}

static void fill_inputs(struct bctx *b, bool in_place)
{
	const struct bench_opts *o = b->o;
	struct coll_call c = call_of(b, in_place);

	for (int r = b->lo; r < b->hi; r++) {
		ccore_ptr s, rv;
		size_t poison;

		bufs(b, r, &c, &s, &rv);
		/*
		 * Poison the receive buffer so stale results cannot pass: the
		 * output, or in place for ReduceScatter the input it lies in
		 * (not both: that ran past the buffer at the largest size).
		 */
		poison = o->op == OP_REDUCESCATTER && in_place ? b->in_elems : b->out_elems;
		memset(ccore_mem_host(b->comm[r], b->rbuf[r] + (size_t)o->unalign * b->es), 0x7b,
		       poison * b->es);
		coll_call_fill(&c, r, b->n, ccore_mem_host(b->comm[r], s));
	}
}

/*
 * One process per rank (--procs, mpirun): each process checks its own
 * ranks, and the table shows the job's sum, as nccl-tests sums with MPI:
 * here an AllReduce of the counts over the benchmark's own communicators.
 * Every process then also stops checking at the same run.
 */
static int job_wrong(struct bctx *b, long *wrong)
{
	ccore_ptr *cnt;
	int rc = 0, r;

	if (b->lo == 0 && b->hi == b->n)
		return 0;	/* every rank is here */
	cnt = calloc((size_t)b->n, sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	for (r = b->lo; r < b->hi && !rc; r++) {
		rc = ccore_mem_alloc(b->comm[r], sizeof(int64_t), &cnt[r]);
		if (!rc)
			*(int64_t *)ccore_mem_host(b->comm[r], cnt[r]) = r == b->lo ? *wrong : 0;
	}
	rc = rc ?: ccore_group_start();
	for (r = b->lo; r < b->hi && !rc; r++)
		rc = ccore_all_reduce(cnt[r], cnt[r], 1, ccore_i64, ccore_sum, b->comm[r], NULL);
	rc = rc ?: ccore_group_end();
	rc = rc ?: sync_all(b);
	if (!rc)
		*wrong = (long)*(int64_t *)ccore_mem_host(b->comm[b->lo], cnt[b->lo]);
	for (r = b->lo; r < b->hi; r++)
		if (cnt[r])
			ccore_mem_free(b->comm[r], cnt[r]);
	free(cnt);
	return rc;
}

static int check_outputs(struct bctx *b, bool in_place, long *wrong)
{
	struct coll_call c = call_of(b, in_place);

	*wrong = 0;
	for (int r = b->lo; r < b->hi; r++) {
		ccore_ptr s, rv;

		bufs(b, r, &c, &s, &rv);
		if (r == b->o->corrupt_rank)
			*(unsigned char *)ccore_mem_host(b->comm[r], rv) ^= 0xff;
		*wrong += coll_call_wrong(&c, r, b->n, ccore_mem_host(b->comm[r], rv));
	}
	return job_wrong(b, wrong);
}

struct result {
	struct bench_half h;
	/* --timed: the call that built this size's plan, and its phases */
	bool built;
	double call_us;
	struct ccore_plan_timing plan;
};

/* --timed: the model's virtual time in microseconds; else the host's clock. */
static double clock_us(struct bctx *b)
{
	uint64_t ps = 0;

	if (!b->o->timed)
		return bench_now_us();
	ccore_comm_virtual_time_ps(b->comm[b->lo], &ps);
	return (double)ps / 1e6;
}

/* Plans built so far on the communicator (see ccore_comm_plan_timing()). */
static uint64_t plans_built(const struct bctx *b)
{
	struct ccore_plan_timing t;

	return ccore_comm_plan_timing(b->comm[b->lo], &t) ? 0 : t.plans_built;
}

/*
 * One launch of every rank's call (-m of them in one group); if it built
 * a plan, @res keeps how long the call took (all ranks, up to their
 * programs triggered) and the plan's phases.  -z: wait for it.
 */
static int run_timed_call(struct bctx *b, bool in_place, int agg, struct result *res)
{
	/* once the plan is built only --timed's footer needs the call's
	 * time: two clock reads and two plan-timing queries were a tenth of
	 * an 8-byte call in a process of one rank */
	bool timing = !res->built || b->o->timed;
	uint64_t before = timing ? plans_built(b) : 0;
	double w = timing ? bench_now_us() : 0;
	int rc = agg > 1 ? ccore_group_start() : 0;

	for (int i = 0; i < agg && !rc; i++)
		rc = run_once(b, in_place);
	if (agg > 1 && !rc)
		rc = ccore_group_end();
	if (!rc && b->o->blocking)
		rc = sync_all(b);
	if (!timing)
		return rc;
	w = bench_now_us() - w;
	b->launch_wall_s += w / 1e6;
	if (!rc && plans_built(b) != before && !res->built) {
		res->built = true;
		res->call_us = w;
		ccore_comm_plan_timing(b->comm[b->lo], &res->plan);
	}
	return rc;
}

static int measure(struct bctx *b, size_t bytes, bool in_place, struct result *res)
{
	const struct bench_opts *o = b->o;
	double t, wall = bench_now_us();
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if (in_place && o->op == OP_SENDRECV) {
		res->h.skipped = true;	/* a ring shift cannot run in place */
		return 0;
	}
	for (int i = 0; i < o->warmup && !rc; i++)
		rc = run_timed_call(b, in_place, 1, res);
	rc = rc ?: sync_all(b);
	/* -c N: N checked runs, as nccl-tests stops at the first wrong one */
	res->h.checked = o->check > 0 && !b->virt;
	for (int i = 0; res->h.checked && i < o->check && !rc && !res->h.wrong; i++) {
		fill_inputs(b, in_place);
		rc = run_timed_call(b, in_place, 1, res) ?: sync_all(b);
		rc = rc ?: check_outputs(b, in_place, &res->h.wrong);
	}
	t = clock_us(b);
	for (int i = 0; i < o->iters && !rc; i++)
		rc = run_timed_call(b, in_place, o->agg_iters, res);
	rc = rc ?: sync_all(b);
	t = (clock_us(b) - t) / o->iters / o->agg_iters;
	b->sim_wall_s += (bench_now_us() - wall) / 1e6;
	res->h.time_us = t;
	/* an empty call moves nothing: 0, not 0/0 (the timed model takes no time for it) */
	res->h.algbw = bytes ? (double)bytes / t / 1e3 : 0;
	res->h.busbw = res->h.algbw * busbw_factor(o->op, b->n);
	return rc;
}

/*
 * --timed: where the wall clock of the call that built the plan went, as
 * a comment line under the size's row.
 */
/*
 * Planning and lowering of the plan @p: the call's phases but connecting
 * the communicator, evicting other plans and loading.
 */
static double plan_lower_ms(const struct ccore_plan_timing *p)
{
	return (p->choose_us + p->schedule_us + p->verify_us + p->place_us - p->connect_us +
		p->lower_us - p->evict_us) / 1e3;
}

static void print_plan(const char *which, const struct result *r)
{
	const struct ccore_plan_timing *p = &r->plan;
	char steps[32] = "loop form";

	if (!r->built)
		return;
	if (!p->loops)
		snprintf(steps, sizeof(steps), "%llu steps", (unsigned long long)p->steps);
	printf("#   plan %-12s %9.1f ms from the call to programs triggered: choose %.1f, schedule %.1f, verify %.1f, place %.1f (of which connect %.1f), lower %.1f, load %.1f ms, evicting %.1f of these; planning and lowering %.1f ms; %s, %llu instructions, %llu descriptors\n",
	       which, r->call_us / 1e3, p->choose_us / 1e3, p->schedule_us / 1e3,
	       p->verify_us / 1e3, p->place_us / 1e3, p->connect_us / 1e3, p->lower_us / 1e3,
	       p->load_us / 1e3, p->evict_us / 1e3, plan_lower_ms(p), steps, (unsigned long long)p->insns, (unsigned long long)p->descs);
}

static void note_plan(struct bctx *b, const struct result *r, size_t bytes)
{
	if (!r->built || plan_lower_ms(&r->plan) <= b->most_plan_ms)
		return;
	b->most_plan_ms = plan_lower_ms(&r->plan);
	b->most_plan_bytes = bytes;
	snprintf(b->most_plan_algo, sizeof(b->most_plan_algo), "%s", ccore_comm_last_algo(b->comm[b->lo]));
}

/* --host-bound at @bytes, the largest size: comment lines after the table. */
static int host_bound(struct bctx *b, size_t bytes, struct bench_summary *sum)
{
	const struct bench_opts *o = b->o;
	double f = busbw_factor(o->op, b->n);
	struct bench_host_bound t;
	int rc;

	fprintf(stderr, "ccore-bench: host-bound %s %zu bytes...\n", bench_op_names[o->op], bytes);
	rc = bench_host_bound(o, bytes, &t);
	if (rc)
		return rc;
	sum->host_bound = true;
	sum->host_bound_oop = (double)bytes / t.oop_us / 1e3 * f;
	sum->host_bound_ip = (double)bytes / t.ip_us / 1e3 * f;
	printf("# host-bound at %zu B, one thread per rank, mean of -n %d runs after -w %d: %.1f us out of place, %.1f us in place\n",
	       bytes, o->iters, o->warmup, t.oop_us, t.ip_us);
	printf("# host-bound (%d thread%s doing the same copies with memcpy): out-of-place busbw %.2f GB/s (%.2fx memcpy), in-place busbw %.2f GB/s (%.2fx memcpy)\n",
	       b->n, b->n == 1 ? "" : "s", sum->host_bound_oop, sum->host_bound_oop / b->host_gbps,
	       sum->host_bound_ip, sum->host_bound_ip / b->host_gbps);
	return 0;
}

/* Room for the largest size at -u elements in (of the widest type). */
static size_t buf_bytes(const struct bench_opts *o)
{
	return o->max_bytes + (size_t)o->unalign * 8;
}

/* Every rank here, or this process's of one process per rank (procs.c). */
static int init_comms(struct bctx *b)
{
	const struct bench_opts *o = b->o;
	struct ccore_unique_id id;
	int ranks[1024], rc;

	if (!o->nprocs)
		return ccore_comm_init_all(&o->topo, b->comm);
	for (int i = 0; i < o->nlocal; i++)
		ranks[i] = o->first_rank + i;
	rc = bench_procs_unique_id(&id);
	return rc ?: ccore_comm_init_ranks(b->comm + b->lo, o->ranks, &id, o->nlocal, ranks, NULL);
}

static int setup(struct bctx *b)
{
	const struct bench_opts *o = b->o;
	int rc;

	b->comm = calloc((size_t)b->n, sizeof(*b->comm));
	b->sbuf = calloc((size_t)b->n, sizeof(*b->sbuf));
	b->rbuf = calloc((size_t)b->n, sizeof(*b->rbuf));
	if (!b->comm || !b->sbuf || !b->rbuf)
		return -ENOMEM;
	rc = init_comms(b);
	for (int r = b->lo; r < b->hi && !rc; r++) {
		rc = ccore_mem_alloc(b->comm[r], buf_bytes(o), &b->sbuf[r]) ?:
		     ccore_mem_alloc(b->comm[r], buf_bytes(o), &b->rbuf[r]);
		/* timed with virtual buffers: there is no memory to give */
		if (!rc && o->timed && !ccore_mem_host(b->comm[r], b->sbuf[r])) {
			b->virt = true;
			if (o->check)
				return -ENXIO;
			continue;
		}
		/* give every page real memory, as nccl-tests initialises its
		 * buffers: untouched pages all read as one shared zero page */
		if (!rc) {
			memset(ccore_mem_host(b->comm[r], b->sbuf[r]), 0x11, buf_bytes(o));
			memset(ccore_mem_host(b->comm[r], b->rbuf[r]), 0x11, buf_bytes(o));
		}
	}
	return rc;
}

static void teardown(struct bctx *b)
{
	for (int r = b->lo; b->comm && r < b->hi; r++)
		if (b->comm[r])
			ccore_comm_destroy(b->comm[r]);
	free(b->comm);
	free(b->sbuf);
	free(b->rbuf);
	b->comm = NULL;
	b->sbuf = b->rbuf = NULL;
}

/* The next size: times -f, or plus -i (nccl-tests' choice between the two). */
static size_t next_size(const struct bench_opts *o, size_t bytes)
{
	size_t f = (size_t)o->step_factor;

	if (f > 1)
		return bytes > o->max_bytes / f ? o->max_bytes + 1 : bytes * f;
	return bytes + o->step_bytes;
}

/* The nccl-tests rows of every size of -b..-e for @b's type and reduction. */
static int run_sizes(struct bctx *b, struct bench_report *rep, struct bench_summary *sum,
		     double *bw_sum, int *halves)
{
	const struct bench_opts *o = b->o;
	struct result oop, ip;
	int rc = 0;

	b->es = ccore_dtype_size(b->dtype);
	for (size_t bytes = o->min_bytes; !rc && bytes <= o->max_bytes;
	     bytes = next_size(o, bytes)) {
		struct bench_row row = {
			.dtype = b->dtype, .host_gbps = b->host_gbps,
			.redop = bench_op_reduces(o->op) ? bench_redop_name(b->redop) : "none",
			.root = o->op == OP_BROADCAST || o->op == OP_REDUCE ? o->root : -1,
		};

		shape(b, bytes);
		row.count = b->count;
		row.bytes = (b->in_elems > b->out_elems ? b->in_elems : b->out_elems) * b->es;
		if (!b->lo)
			fprintf(stderr, "ccore-bench: %s %s %zu bytes...\n", bench_op_names[o->op],
				bench_dtype_name(b->dtype), row.bytes);
		rc = measure(b, row.bytes, false, &oop) ?: measure(b, row.bytes, true, &ip);
		if (rc)
			break;
		row.oop = oop.h;
		row.ip = ip.h;
		row.algo = ccore_comm_last_algo(b->comm[b->lo]);
		bench_report_row(rep, &row);
		if (o->timed) {
			print_plan("out-of-place", &oop);
			print_plan("in-place", &ip);
			note_plan(b, &oop, row.bytes);
			note_plan(b, &ip, row.bytes);
		}
		for (int k = 0; k < 2; k++) {
			const struct bench_half *h = k ? &row.ip : &row.oop;

			if (h->skipped)
				continue;
			*bw_sum += h->busbw;
			(*halves)++;
			sum->errors += h->checked && h->wrong;
			sum->wrong += h->wrong;
		}
		sum->largest = row.bytes;
	}
	return rc;
}

static void timed_footer(const struct bctx *b)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("# timed: wall clock %.3f s in all, of which %.3f s planning, lowering and launching, %.3f s simulating; peak RSS %.1f MiB\n",
	       b->sim_wall_s, b->launch_wall_s, b->sim_wall_s - b->launch_wall_s,
	       (double)ru.ru_maxrss / 1024);
	if (b->most_plan_ms > 0)
		printf("# timed: planning and lowering took at most %.1f ms per plan (%zu bytes, %s; connecting, evicting and loading not counted)\n",
		       b->most_plan_ms, b->most_plan_bytes, b->most_plan_algo);
}

/* The header's facts: where each rank is, the host, the backend. */
static void report_info(const struct bctx *b, struct bench_report_info *in, int *node_of,
			int *device_of, char *host, size_t host_len)
{
	const struct ccore_topology *t = &b->o->topo;
	const char *backend = getenv("CCORE_DEVICE");

	for (int r = 0; r < b->n; r++) {
		int dev = r / (int)t->ranks_per_device;

		node_of[r] = dev / (int)t->devices_per_node;
		device_of[r] = dev % (int)t->devices_per_node;
	}
	if (gethostname(host, host_len))
		snprintf(host, host_len, "localhost");
	host[host_len - 1] = '\0';
	*in = (struct bench_report_info){
		.ranks = b->n, .node_of = node_of, .device_of = device_of,
		.backend = backend && *backend ? backend : "sim", .hostname = host,
		.host_gbps = b->host_gbps, .checked = b->o->check > 0 && !b->virt,
	};
}

/* -N cycles of every -d type and -o reduction (one pass where none reduces). */
static int run_all(struct bctx *b, struct bench_report *rep, struct bench_summary *sum,
		   double *bw_sum, int *halves)
{
	const struct bench_opts *o = b->o;
	bool reduces = bench_op_reduces(o->op);
	int rc = 0;

	for (int cycle = 0; !rc && cycle < o->run_cycles; cycle++)
		for (int d = 0; !rc && d < BENCH_NDTYPES; d++) {
			if (o->dtype >= 0 && d != o->dtype)
				continue;
			for (int k = 0; !rc && k < BENCH_NREDOPS; k++) {
				if (reduces ? o->redop >= 0 && k != o->redop : k > 0)
					continue;
				b->dtype = bench_dtypes[d].dtype;
				/* where nothing is reduced k stays 0: -o, unused, is kept */
				b->redop = bench_redops[reduces || o->redop < 0 ? k : o->redop].redop;
				rc = run_sizes(b, rep, sum, bw_sum, halves);
			}
		}
	return rc;
}

int bench_collective(const struct bench_opts *o)
{
	struct bench_opts quiet;
	struct bctx b = { .o = o, .n = o->ranks, .hi = o->ranks, .es = 1 };
	struct bench_summary sum = { 0 };
	struct bench_report_info info = { 0 };
	struct bench_report *rep;
	int *node_of = calloc((size_t)o->ranks, sizeof(int));
	int *device_of = calloc((size_t)o->ranks, sizeof(int));
	double bw_sum = 0;
	int halves = 0, rc, hb_rc = 0, bw_rc = 0;
	char host[256], err[512] = "";

	if (o->nprocs) {
		/* one process of a job: the first prints the table */
		b.lo = o->first_rank;
		b.hi = o->first_rank + o->nlocal;
		if (b.lo && !freopen("/dev/null", "w", stdout))
			return 2;
		if (b.lo) {
			quiet = *o;
			quiet.json = quiet.nccl_json = NULL;
			o = &quiet;
			b.o = o;
		}
	}
	rep = node_of && device_of ? bench_report_open(o) : NULL;
	if (!rep) {
		free(node_of);
		free(device_of);
		return 2;
	}
	rc = setup(&b);
	if (rc == -ENXIO && b.virt) {
		snprintf(err, sizeof(err), "--timed buffers are virtual (no bytes move): -c %d cannot check them; add --sim virtual=0 for real buffers, or -c 0",
			 o->check);
		fprintf(stderr, "ccore-bench: %s\n", err);
		teardown(&b);
		bench_report_close(rep, err);
		free(node_of);
		free(device_of);
		return 2;
	}
	if (!rc) {
		/* the host's memcpy means nothing next to simulated times */
		if (!o->timed)
			b.host_gbps = bench_host_memcpy_gbps(o->max_bytes < (64u << 20) ? (64u << 20)
										  : o->max_bytes);
		report_info(&b, &info, node_of, device_of, host, sizeof(host));
		bench_report_header(rep, &info);
		rc = run_all(&b, rep, &sum, &bw_sum, &halves);
	}
	if (rc) {
		snprintf(err, sizeof(err), "%s", ccore_last_error());
		fprintf(stderr, "ccore-bench: %s\n", err);
	} else if (o->timed) {
		timed_footer(&b);
	}
	fflush(stdout);
	teardown(&b);	/* first: --host-bound maps as much memory again */
	if (!rc) {
		if (o->host_bound)
			hb_rc = host_bound(&b, sum.largest, &sum);
		sum.checked = info.checked;
		sum.why_unchecked = o->check ? "--timed buffers are virtual" :
				    o->check_set ? "-c 0" : "--timed defaults to -c 0";
		sum.avg_busbw = halves ? bw_sum / halves : 0;
		bw_rc = bench_report_footer(rep, &sum);
	}
	if (bench_report_close(rep, rc ? err : NULL))
		rc = rc ?: -EIO;
	free(node_of);
	free(device_of);
	return rc || sum.errors || hb_rc || bw_rc ? 1 : 0;
}
