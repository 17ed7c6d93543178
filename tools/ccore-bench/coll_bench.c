// SPDX-License-Identifier: MIT
/*
 * The collective benchmark, modelled on nccl-tests: for each size, the
 * out-of-place and the in-place collective, checked on verifiable inputs,
 * then timed over -n iterations after -w warm-up ones; the nccl-tests table
 * with the same bus-bandwidth factors, the average bus bandwidth, and the
 * host memcpy bandwidth measured in the same run; with --host-bound, what
 * host threads reach doing the same copies at the largest size.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define MAX_RANKS 1024

struct bctx {
	const struct bench_opts *o;
	struct ccore_comm **comm;
	ccore_ptr *sbuf, *rbuf;
	int n;
	size_t es;
	FILE *json;
	int json_rows;
	double host_gbps;
	bool virt;		/* --timed with virtual buffers: no host view */
	double sim_wall_s;	/* --timed: wall-clock seconds the simulations took */
	double launch_wall_s;	/* --timed: of which planning, lowering, launching */
	/* --timed: the plan whose planning and lowering took longest */
	double most_plan_ms;
	size_t most_plan_bytes;
	char most_plan_algo[32];
	bool host_bound;	/* measured: busbw of the host threads' copies */
	double host_bound_oop, host_bound_ip;
	/* per size */
	size_t count;		/* the count argument of the call */
	size_t in_elems, out_elems;	/* per rank */
};

static const double bus_factor_num[OP_COUNT] = { 2, 1, 1, 1, 0, 0, 0 };

static double busbw_factor(enum bench_op op, int n)
{
	if (op == OP_BROADCAST || op == OP_REDUCE || op == OP_SENDRECV || n == 1)
		return 1;
	return bus_factor_num[op] * (n - 1) / n;
}

static void shape(struct bctx *b, size_t bytes)
{
	size_t elems = bytes / b->es, n = (size_t)b->n;

	switch (b->o->op) {
	case OP_ALLGATHER:
		b->count = elems / n;
		b->in_elems = b->count;
		b->out_elems = b->count * n;
		break;
	case OP_REDUCESCATTER:
		b->count = elems / n;
		b->in_elems = b->count * n;
		b->out_elems = b->count;
		break;
	case OP_ALLTOALL:
		b->count = elems / n;
		b->in_elems = b->out_elems = b->count * n;
		break;
	default:
		b->count = b->in_elems = b->out_elems = elems;
		break;
	}
}

/* Send and receive pointers of rank @r, out of place or in place. */
static void bufs(const struct bctx *b, int r, bool in_place, ccore_ptr *s, ccore_ptr *rv)
{
	*s = b->sbuf[r];
	*rv = b->rbuf[r];
	if (!in_place)
		return;
	*s = *rv = b->rbuf[r];
	if (b->o->op == OP_ALLGATHER)
		*s = b->rbuf[r] + (size_t)r * b->count * b->es;
	else if (b->o->op == OP_REDUCESCATTER)
		*rv = b->rbuf[r] + (size_t)r * b->count * b->es;
}

static int post_rank(struct bctx *b, int r, bool in_place)
{
	const struct bench_opts *o = b->o;
	struct ccore_comm *c = b->comm[r];
	ccore_ptr s, rv;

	bufs(b, r, in_place, &s, &rv);
	switch (o->op) {
	case OP_ALLREDUCE:
		return ccore_all_reduce(s, rv, b->count, o->dtype, o->redop, c, NULL);
	case OP_ALLGATHER:
		return ccore_all_gather(s, rv, b->count, o->dtype, c, NULL);
	case OP_REDUCESCATTER:
		return ccore_reduce_scatter(s, rv, b->count, o->dtype, o->redop, c, NULL);
	case OP_ALLTOALL:
		return ccore_all_to_all(s, rv, b->count, o->dtype, c, NULL);
	case OP_BROADCAST:
		return ccore_broadcast(s, rv, b->count, o->dtype, o->root, c, NULL);
	case OP_REDUCE:
		return ccore_reduce(s, rv, b->count, o->dtype, o->redop, o->root, c, NULL);
	default:
		return ccore_send(s, b->count, o->dtype, (r + 1) % b->n, c, NULL) ?:
		       ccore_recv(rv, b->count, o->dtype, (r + b->n - 1) % b->n, c, NULL);
	}
}

static int run_once(struct bctx *b, bool in_place)
{
	int rc = ccore_group_start();

	for (int r = 0; r < b->n && !rc; r++)
		rc = post_rank(b, r, in_place);
	if (!rc)
		rc = ccore_group_end();
	return rc;
}

static int sync_all(struct bctx *b)
{
	int rc = 0;

	for (int r = 0; r < b->n; r++) {
		int x = ccore_stream_sync(ccore_comm_stream(b->comm[r]));

		rc = rc ? rc : x;
	}
	return rc;
}

static void fill_inputs(struct bctx *b, bool in_place)
{
	const struct bench_opts *o = b->o;

	for (int r = 0; r < b->n; r++) {
		ccore_ptr s, rv;

		bufs(b, r, in_place, &s, &rv);
		/* poison the output so stale results cannot pass */
		memset(ccore_mem_host(b->comm[r], b->rbuf[r]), 0x7b, b->out_elems * b->es +
		       (o->op == OP_REDUCESCATTER && in_place ? b->in_elems * b->es : 0));
		ccore_verifiable_fill(ccore_mem_host(b->comm[r], s), b->in_elems, o->dtype, o->redop,
			   o->op == OP_BROADCAST ? o->root : r, 0);
	}
}

static long check_outputs(struct bctx *b, bool in_place)
{
	const struct bench_opts *o = b->o;
	long wrong = 0;

	for (int r = 0; r < b->n; r++) {
		ccore_ptr s, rv;
		const char *out;

		bufs(b, r, in_place, &s, &rv);
		out = ccore_mem_host(b->comm[r], rv);
		switch (o->op) {
		case OP_ALLREDUCE:
			wrong += ccore_verifiable_check_reduced(out, b->count, o->dtype, o->redop, b->n, 0);
			break;
		case OP_REDUCE:
			if (r == o->root)
				wrong += ccore_verifiable_check_reduced(out, b->count, o->dtype, o->redop, b->n, 0);
			break;
		case OP_REDUCESCATTER:
			wrong += ccore_verifiable_check_reduced(out, b->count, o->dtype, o->redop, b->n,
						     (size_t)r * b->count);
			break;
		case OP_ALLGATHER:
			for (int j = 0; j < b->n; j++)
				wrong += ccore_verifiable_check_from(out + (size_t)j * b->count * b->es, b->count,
							  o->dtype, o->redop, j, 0);
			break;
		case OP_ALLTOALL:
			for (int j = 0; j < b->n; j++)
				wrong += ccore_verifiable_check_from(out + (size_t)j * b->count * b->es, b->count,
							  o->dtype, o->redop, j, (size_t)r * b->count);
			break;
		case OP_BROADCAST:
			wrong += ccore_verifiable_check_from(out, b->count, o->dtype, o->redop, o->root, 0);
			break;
		default:
			wrong += ccore_verifiable_check_from(out, b->count, o->dtype, o->redop,
						  (r + b->n - 1) % b->n, 0);
			break;
		}
	}
	return wrong;
}

struct result {
	double time_us, algbw, busbw;
	long wrong;
	bool skipped;
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
	ccore_comm_virtual_time_ps(b->comm[0], &ps);
	return (double)ps / 1e6;
}

/* Plans built so far on the communicator (see ccore_comm_plan_timing()). */
static uint64_t plans_built(const struct bctx *b)
{
	struct ccore_plan_timing t;

	return ccore_comm_plan_timing(b->comm[0], &t) ? 0 : t.plans_built;
}

/*
 * One launch of every rank's call; if it built a plan, @res keeps how long
 * the call took (all ranks, up to their programs triggered) and the
 * plan's phases.
 */
static int run_timed_call(struct bctx *b, bool in_place, struct result *res)
{
	uint64_t before = plans_built(b);
	double w = bench_now_us();
	int rc = run_once(b, in_place);
	double us = bench_now_us() - w;

	b->launch_wall_s += us / 1e6;
	if (!rc && plans_built(b) != before && !res->built) {
		res->built = true;
		res->call_us = us;
		ccore_comm_plan_timing(b->comm[0], &res->plan);
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
		res->skipped = true;	/* a ring shift cannot run in place */
		return 0;
	}
	for (int i = 0; i < o->warmup && !rc; i++)
		rc = run_timed_call(b, in_place, res);
	rc = rc ?: sync_all(b);
	if (!rc && o->check) {
		fill_inputs(b, in_place);
		rc = run_timed_call(b, in_place, res) ?: sync_all(b);
		if (!rc)
			res->wrong = check_outputs(b, in_place);
	}
	t = clock_us(b);
	for (int i = 0; i < o->iters && !rc; i++)
		rc = run_timed_call(b, in_place, res);
	rc = rc ?: sync_all(b);
	t = (clock_us(b) - t) / o->iters;
	b->sim_wall_s += (bench_now_us() - wall) / 1e6;
	res->time_us = t;
	res->algbw = (double)bytes / t / 1e3;
	res->busbw = res->algbw * busbw_factor(o->op, b->n);
	return rc;
}

static void json_row(struct bctx *b, size_t bytes, size_t count, bool in_place,
		     const struct result *r)
{
	const struct bench_opts *o = b->o;

	if (!b->json || r->skipped)
		return;
	fprintf(b->json,
		"%s\n    {\"size\": %zu, \"count\": %zu, \"type\": \"%s\", \"redop\": \"%s\", \"root\": %d, \"in_place\": %s, \"time_us\": %.3f, \"algbw\": %.4f, \"busbw\": %.4f, \"wrong\": %ld, \"algo\": \"%s\", \"host_memcpy_gbps\": %.3f}",
		b->json_rows++ ? "," : "", bytes, count, ccore_dtype_name(o->dtype),
		ccore_redop_name(o->redop),
		o->op == OP_BROADCAST || o->op == OP_REDUCE ? o->root : -1,
		in_place ? "true" : "false", r->time_us, r->algbw, r->busbw, r->wrong,
		ccore_comm_last_algo(b->comm[0]), b->host_gbps);
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
	snprintf(b->most_plan_algo, sizeof(b->most_plan_algo), "%s", ccore_comm_last_algo(b->comm[0]));
}

static void print_result(const struct result *r)
{
	if (r->skipped)
		printf(" %9s %7s %7s %6s", "N/A", "N/A", "N/A", "N/A");
	else
		printf(" %9.1f %7.2f %7.2f %6ld", r->time_us, r->algbw, r->busbw, r->wrong);
}

static void header(const struct bctx *b)
{
	const struct bench_opts *o = b->o;

	printf("# ccore-bench %s: %d ranks (%u node(s) x %u device(s) x %u ranks), %s, -b %zu -e %zu -f %d -n %d -w %d -c %d\n",
	       bench_op_names[o->op], b->n, o->topo.nodes, o->topo.devices_per_node,
	       o->topo.ranks_per_device, o->algo ? o->algo : "algorithm chosen by ccore",
	       o->min_bytes, o->max_bytes, o->step_factor, o->iters, o->warmup, o->check);
	if (o->timed)
		printf("# timed: simulated times, virtual microseconds of the timed device model (CCORE_SIM %s)%s\n",
		       getenv("CCORE_SIM") ? getenv("CCORE_SIM") : "",
		       b->virt ? "; virtual buffers, nothing checked" : "");
	else
		printf("# host memcpy bandwidth (same run): %.2f GB/s\n", b->host_gbps);
	printf("#\n#%72s%32s\n", "out-of-place", "in-place");
	printf("#%11s %12s %8s %6s %6s %9s %7s %7s %6s %9s %7s %7s %6s  %s\n", "size", "count",
	       "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
	       "busbw", "#wrong", "algo");
	printf("#%11s %12s %8s %6s %6s %9s %7s %7s %6s %9s %7s %7s %6s\n", "(B)", "(elements)",
	       "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
}

/* --host-bound at @bytes, the largest size: comment lines after the table. */
static int host_bound(struct bctx *b, size_t bytes)
{
	const struct bench_opts *o = b->o;
	double f = busbw_factor(o->op, b->n);
	struct bench_host_bound t;
	int rc;

	fprintf(stderr, "ccore-bench: host-bound %s %zu bytes...\n", bench_op_names[o->op], bytes);
	rc = bench_host_bound(o, bytes, &t);
	if (rc)
		return rc;
	b->host_bound = true;
	b->host_bound_oop = (double)bytes / t.oop_us / 1e3 * f;
	b->host_bound_ip = (double)bytes / t.ip_us / 1e3 * f;
	printf("# host-bound at %zu B, one thread per rank, mean of -n %d runs after -w %d: %.1f us out of place, %.1f us in place\n",
	       bytes, o->iters, o->warmup, t.oop_us, t.ip_us);
	printf("# host-bound (%d thread%s doing the same copies with memcpy): out-of-place busbw %.2f GB/s (%.2fx memcpy), in-place busbw %.2f GB/s (%.2fx memcpy)\n",
	       b->n, b->n == 1 ? "" : "s", b->host_bound_oop, b->host_bound_oop / b->host_gbps,
	       b->host_bound_ip, b->host_bound_ip / b->host_gbps);
	return 0;
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
	rc = ccore_comm_init_all(&o->topo, b->comm);
	for (int r = 0; r < b->n && !rc; r++) {
		rc = ccore_mem_alloc(b->comm[r], o->max_bytes, &b->sbuf[r]) ?:
		     ccore_mem_alloc(b->comm[r], o->max_bytes, &b->rbuf[r]);
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
			ccore_verifiable_fill(ccore_mem_host(b->comm[r], b->sbuf[r]),
					      o->max_bytes / b->es, o->dtype, o->redop, r, 0);
			memset(ccore_mem_host(b->comm[r], b->rbuf[r]), 0x11, o->max_bytes);
		}
	}
	return rc;
}

static void teardown(struct bctx *b)
{
	for (int r = 0; b->comm && r < b->n; r++)
		if (b->comm[r])
			ccore_comm_destroy(b->comm[r]);
	free(b->comm);
	free(b->sbuf);
	free(b->rbuf);
}

int bench_collective(const struct bench_opts *o)
{
	struct bctx b = { .o = o, .n = o->ranks, .es = ccore_dtype_size(o->dtype) };
	struct result oop, ip;
	double sum = 0;
	long wrong = 0;
	int sizes = 0, rc, hb_rc = 0;
	size_t largest = 0;

	if (o->json && !(b.json = fopen(o->json, "w"))) {
		fprintf(stderr, "ccore-bench: --json %s: %s\n", o->json, strerror(errno));
		return 2;
	}
	rc = setup(&b);
	if (rc == -ENXIO && b.virt) {
		fprintf(stderr, "ccore-bench: --timed buffers are virtual (no bytes move): -c 1 cannot check them; add --sim virtual=0 for real buffers, or -c 0\n");
		teardown(&b);
		return 2;
	}
	if (!rc) {
		/* the host's memcpy means nothing next to simulated times */
		if (!o->timed)
			b.host_gbps = bench_host_memcpy_gbps(o->max_bytes < (64u << 20) ? (64u << 20)
										  : o->max_bytes);
		header(&b);
		if (b.json)
			fprintf(b.json, "{\n  \"op\": \"%s\", \"ranks\": %d, \"host_memcpy_gbps\": %.3f,\n  \"rows\": [",
				bench_op_names[o->op], b.n, b.host_gbps);
	}
	for (size_t bytes = o->min_bytes; !rc && bytes <= o->max_bytes;
	     bytes = o->step_factor > 1 ? bytes * (size_t)o->step_factor : o->max_bytes + 1) {
		size_t printed;

		shape(&b, bytes);
		printed = b.out_elems > b.in_elems ? b.out_elems : b.in_elems;
		if (o->op == OP_ALLREDUCE || o->op == OP_BROADCAST || o->op == OP_REDUCE ||
		    o->op == OP_SENDRECV)
			printed = b.count;
		fprintf(stderr, "ccore-bench: %s %zu bytes...\n", bench_op_names[o->op],
			printed * b.es);
		rc = measure(&b, printed * b.es, false, &oop) ?: measure(&b, printed * b.es, true, &ip);
		if (rc)
			break;
		printf("%12zu %12zu %8s %6s %6d", printed * b.es, printed, ccore_dtype_name(o->dtype),
		       ccore_redop_name(o->redop),
		       o->op == OP_BROADCAST || o->op == OP_REDUCE ? o->root : -1);
		print_result(&oop);
		print_result(&ip);
		printf("  %s\n", ccore_comm_last_algo(b.comm[0]));
		if (o->timed) {
			print_plan("out-of-place", &oop);
			print_plan("in-place", &ip);
			note_plan(&b, &oop, printed * b.es);
			note_plan(&b, &ip, printed * b.es);
		}
		fflush(stdout);
		json_row(&b, printed * b.es, printed, false, &oop);
		json_row(&b, printed * b.es, printed, true, &ip);
		largest = printed * b.es;
		sum += ip.skipped ? oop.busbw : (oop.busbw + ip.busbw) / 2;
		wrong += oop.wrong + ip.wrong;
		sizes++;
	}
	if (rc) {
		fprintf(stderr, "ccore-bench: %s\n", ccore_last_error());
	} else {
		printf("# Out of bounds values : %ld %s\n", wrong, wrong ? "FAILED" : "OK");
		printf("# Avg bus bandwidth    : %g\n", sizes ? sum / sizes : 0.0);
		if (o->timed) {
			struct rusage ru;

			getrusage(RUSAGE_SELF, &ru);
			printf("# timed: wall clock %.3f s in all, of which %.3f s planning, lowering and launching, %.3f s simulating; peak RSS %.1f MiB\n",
			       b.sim_wall_s, b.launch_wall_s, b.sim_wall_s - b.launch_wall_s,
			       (double)ru.ru_maxrss / 1024);
			if (b.most_plan_ms > 0)
				printf("# timed: planning and lowering took at most %.1f ms per plan (%zu bytes, %s; connecting, evicting and loading not counted)\n",
				       b.most_plan_ms, b.most_plan_bytes, b.most_plan_algo);
		}
	}
	fflush(stdout);
	teardown(&b);	/* first: --host-bound maps as much memory again */
	if (!rc && o->host_bound)
		hb_rc = host_bound(&b, largest);
	if (b.json) {
		fprintf(b.json, "\n  ],\n  \"avg_busbw\": %.4f, \"wrong\": %ld",
			sizes ? sum / sizes : 0.0, wrong);
		if (b.host_bound)
			fprintf(b.json, ",\n  \"host_bound_size\": %zu, \"host_bound_oop_busbw\": %.4f, \"host_bound_ip_busbw\": %.4f",
				largest, b.host_bound_oop, b.host_bound_ip);
		fprintf(b.json, "\n}\n");
		fclose(b.json);
	}
	return rc || wrong || hb_rc ? 1 : 0;
}
