// SPDX-License-Identifier: MIT
/*
 * Trees and chains: double binary tree AllReduce (CA §5.2, App. C),
 * binomial and chain Broadcast and Reduce (CA §3, §4, App. C), each a
 * longest path through its steps as dbt.c, tree.c and chain.c run them.
 */
#include "cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The slowest level of a tree whose edges join ranks 2^k apart. */
static struct tune_cost tree_slot(const struct tune_topo *t, uint32_t n, double bytes)
{
	struct tune_cost worst = { 0, 0 };

	for (uint32_t k = 0; (1u << k) < n; k++) {
		struct tune_cost c = tune_step_xor(t, 1u << k, bytes, 1);

		if (tune_total(c) > tune_total(worst))
			worst = c;
	}
	return worst;
}

/* The later of two times (finite, not negative: fmax() without its call). */
static inline double later(double a, double b)
{
	return a > b ? a : b;
}

/*
 * DBT with tiers, as dbt.c runs it: in time steps, a rank's program at
 * step t issues its sends (the up-send after the local reduction that
 * finishes its sum, if it has two children) and then waits for every
 * receive of step t.  So a send leaves when its sender is done with step
 * t - 1, and a rank is done with step t when the last of its receives
 * has landed: a longest path through the trees, step by step, each edge
 * its route's α and the slice's transfer (one after the other on the
 * sender's ring to that peer).  Slice i goes up at height + i and down at
 * the root's height + i + depth - 1; the pipeline's period is a
 * parent-child round trip, not the slowest transfer.  An edge is busy
 * from its first step for P steps: only where one starts or ends does
 * the step's set of transfers change (marked in @change), and only there
 * is it gathered and priced again.
 */
static int dbt_tiered(const struct tune_topo *t, uint32_t n, double M, uint32_t P,
		      struct tune_cost *out)
{
	uint32_t *par = calloc(6 * (size_t)n, sizeof(*par)), *h = par + 2 * (size_t)n;
	uint32_t *d = h + 2 * (size_t)n, top[2] = { 0, 0 }, end, k = 0;
	double *block = calloc(14 * (size_t)n, sizeof(*block)), *T = block, *Tn = T + n;
	double *busy = Tn + n, *x = busy + 4 * (size_t)n, *lat = x + 4 * (size_t)n, done = 0;
	double b = M / 2 / P;
	uint32_t *from = calloc(20 * (size_t)n, sizeof(*from)), *to = from + 4 * (size_t)n;
	uint32_t *edge = to + 4 * (size_t)n, *was = edge + 4 * (size_t)n, nwas = 0;
	uint32_t *port = was + 4 * (size_t)n;	/* per transfer: its index in busy */
	uint8_t *kids = calloc(6 * (size_t)n, 1), *sum = kids + 2 * (size_t)n, *change = NULL;
	double loc = local_us(t, b);
	int rc = -1;

	if (!par || !block || !from || !kids || algo_dbt_tree(n, 0, par, h, d) ||
	    algo_dbt_tree(n, 1, par + n, h + n, d + n))
		goto out;
	for (uint32_t w = 0; w < 2; w++)
		for (uint32_t r = 0; r < n; r++) {
			uint32_t p = par[w * n + r];

			if (p == UINT32_MAX) {
				top[w] = h[w * n + r];
				continue;
			}
			kids[w * n + p]++;
			/* α of edge 2w n + r (up from r) and (2w + 1) n + r (down to r) */
			lat[2 * w * n + r] = cost_lone(t, r, p, b).lat_us;
			lat[(2 * w + 1) * n + r] = cost_lone(t, p, r, b).lat_us;
		}
	end = 2 * (top[0] > top[1] ? top[0] : top[1]) + P;
	change = calloc((size_t)end + 1, 1);
	if (!change)
		goto out;
	change[0] = 1;
	for (uint32_t w = 0; w < 2; w++)
		for (uint32_t r = 0; r < n; r++) {
			int64_t first[2] = { h[w * n + r], (int64_t)top[w] + d[w * n + r] - 1 };

			if (par[w * n + r] == UINT32_MAX)
				continue;
			for (int j = 0; j < 2; j++)
				for (int64_t at = first[j]; at <= first[j] + P; at += P)
					if (at >= 0 && at <= end)
						change[at] = 1;
		}
	for (uint32_t s = 0; s <= end; s++) {
		double *swap;

		/* the step's transfers: edge (2w + 1) n + r down to r, 2w n + r up from r */
		if (change[s])
			k = 0;
		for (uint32_t w = 0; w < 2 && change[s]; w++)
			for (uint32_t r = 0; r < n; r++) {
				uint32_t p = par[w * n + r];
				int64_t up = (int64_t)s - h[w * n + r];
				int64_t down = (int64_t)s - top[w] - d[w * n + r] + 1;

				if (p == UINT32_MAX)
					continue;
				if (up >= 0 && up < P) {
					from[k] = r;
					to[k] = p;
					edge[k++] = 2 * w * n + r;
				}
				if (down >= 0 && down < P) {
					from[k] = p;
					to[k] = r;
					edge[k++] = (2 * w + 1) * n + r;
				}
			}
		/* the same transfers as the step before (the steady state): the same shares */
		if (change[s] && (k != nwas || memcmp(edge, was, k * sizeof(*edge)))) {
			if (tune_flows_us(t, k, from, to, b, x))
				goto out;
			memcpy(was, edge, k * sizeof(*edge));
			nwas = k;
			for (uint32_t i = 0; i < k; i++) {
				uint32_t w = edge[i] / (2 * n), a = from[i];
				bool up = edge[i] % (2 * n) < n;

				/* an up-send waits for its sum; the root's sends down too */
				sum[i] = kids[w * n + a] == 2 && (up || par[w * n + a] == UINT32_MAX);
				/* ideal: a rank's sends share its one port */
				port[i] = t->ideal ? a : edge[i];
			}
		}
		memcpy(Tn, T, n * sizeof(*T));
		for (uint32_t i = 0; i < k; i++) {
			double go = T[from[i]] + (sum[i] ? loc : 0), *q = &busy[port[i]];

			*q = later(go, *q) + x[i];
			Tn[to[i]] = later(Tn[to[i]], *q + lat[edge[i]]);
		}
		swap = T;
		T = Tn;
		Tn = swap;
	}
	for (uint32_t r = 0; r < n; r++)
		done = later(done, T[r]);
	*out = (struct tune_cost){ 0, done };
	rc = 0;
out:
	free(par);
	free(block);
	free(from);
	free(kids);
	free(change);
	return rc;
}

static struct tune_cost dbt(const struct algo *a, const struct tune_topo *t, uint32_t n, double M,
			    uint32_t P, uint32_t es)
{
	uint32_t L = 2 * log2up(n);
	struct tune_cost slot, c = { 0, 0 }, floor = { 0, 0 };

	/*
	 * Ideal and pipelined, the two trees' slices take turns at a rank's
	 * port, its local reductions wait on a ring shared with sends, and
	 * the sends down wait for credits (dbt.c's "Order and credits"):
	 * dbt_tiered()'s step-by-step path is within a few % of that, the
	 * schedule walked is what runs (per rank and slice: two trees' up to
	 * three receives, three sends and a reduction)
	 */
	if (t->ideal && P > 1 && !cost_walked(t, a, CS_ALLREDUCE, n, M, P, es, 14, &c))
		return c;
	if (!dbt_tiered(t, n, M, P, &c))
		return c;
	slot = tree_slot(t, n, M / (2.0 * P));
	/*
	 * App. C with L = 2 ceil(log2 N) and M/(2P) per slot, as §5.2 says,
	 * gives (L + P - 1)(α + M/(2P·BW)): right at P = 1, but its limit
	 * M/(2BW) is half §5.2's stated asymptote M/BW (an interior rank
	 * takes two children's halves per slot).  The floor keeps M/BW.
	 */
	tune_add(&c, slot, L + P - 1);
	c.xfer_us += (L / 2 + P - 1) * tune_reduce_us(t, M / P);
	floor.lat_us = L * slot.lat_us;
	floor.xfer_us = tree_slot(t, n, M).xfer_us;
	return tune_total(c) >= tune_total(floor) ? c : floor;
}

/*
 * Chain Broadcast and Reduce with tiers, as chain.c runs them: a slice is
 * forwarded once it has landed, so the first one pays every hop of the
 * chain (α of the hop, its transfer, the hand-off) and the others follow
 * one period apart.  Back-to-back descriptors on a ring overlap their α,
 * so the period is the slowest hop's transfer time per slice.
 */
static struct tune_cost chain_tiered(const struct tune_topo *t, uint8_t coll, uint32_t n,
				     double M, uint32_t P)
{
	struct tune_cost c = { 0, 0 }, h;
	double period = 0;

	/* hop r -> r + 1 of rank 0's chain (Reduce goes the other way, alike) */
	for (uint32_t r = 0; r + 1 < n; r++) {
		h = cost_lone(t, r, r + 1, M / P);
		c.lat_us += h.lat_us + (coll == CS_REDUCE_COLL ? t->sem_us : 0);
		c.xfer_us += h.xfer_us;
		period = fmax(period, h.xfer_us);
	}
	/* a forwarding rank issues an ACQUIRE, then an ACQUIRE and a START, per slice */
	c.xfer_us += (P - 1) * fmax(period, (n > 2 ? 3 : 2) * t->insn_us);
	return c;
}

/* Rank @v's children in tree.c's binomial tree rooted at 0, nearest first. */
static uint32_t binomial_kids(uint32_t v, uint32_t n, uint32_t *kid)
{
	uint64_t low = v ? (v & -v) : (uint64_t)1 << 32;
	uint32_t k = 0;

	for (uint64_t m = 1; m < low && v + m < n; m <<= 1)
		kid[k++] = (uint32_t)(v + m);
	return k;
}

/*
 * Binomial Broadcast and Reduce with tiers, as tree.c runs them (root 0),
 * slice by slice.  Broadcast: a rank's program passes the receive of a
 * slice when it lands, then starts its sends to its children, farthest
 * first, each on the ring of that child's engine (the lowering gives the
 * k-th peer engine local + 1 + k), one slice after the other on a ring;
 * out of place the root copies its input last, on its local engine.
 * Reduce: a rank receive-reduces its children's slices nearest first,
 * each after the one before (the credit for the next child is granted
 * when the previous one has landed, a hand-off away), then sends its sum
 * up; a child's program waits for that credit.  Every transfer at its
 * share of the links the tree's edges load.
 */
static int binomial_tiered(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
			   uint32_t P, struct tune_cost *out)
{
	/* the ideal setting's one port per rank: all its sends on one "ring" */
	uint32_t E = t->engines && !t->ideal ? t->engines : 1, kid[32], nk;
	double *x = calloc(5 * (size_t)n + (size_t)n * E, sizeof(*x)), *at = x + n;
	double *prog = at + n, *lat = prog + n, *lx = lat + n, *ring = lx + n, b = M / P, done = 0;
	uint32_t *from = calloc(4 * (size_t)n, sizeof(*from)), *to = from + n;
	uint32_t *lf = to + n, *lt = lf + n;
	bool bcast = coll == CS_BROADCAST;

	if (!x || !from)
		goto fail;
	/* edge v: parent -> v (Broadcast) or v -> parent (Reduce) */
	for (uint32_t v = 0; v < n; v++) {
		uint32_t p = v ? v - (v & -v) : 0;

		from[v] = bcast ? p : v;
		to[v] = bcast ? v : p;
		lat[v] = v ? cost_lone(t, from[v], to[v], b).lat_us : 0;
	}
	/*
	 * Broadcast: a rank's sends to its children overlap; Reduce: a rank's
	 * children send one after the other, so only the edges of one level
	 * (children 2^k away) share links.
	 */
	if (bcast && tune_flows_us(t, n, from, to, b, x))
		goto fail;
	for (uint32_t m = 1; !bcast && m < n; m <<= 1) {
		uint32_t k = 0;

		for (uint32_t v = m; v < n; v += 2 * m, k++) {
			lf[k] = v;
			lt[k] = v - m;
		}
		if (tune_flows_us(t, k, lf, lt, b, lx))
			goto fail;
		for (uint32_t v = m, j = 0; v < n; v += 2 * m)
			x[v] = lx[j++];
	}
	for (uint32_t i = 0; i < P; i++) {
		if (bcast) {
			for (uint32_t v = 0; v < n; v++) {
				/* at[0] stays 0; an ACQUIRE, then an ACQUIRE and a START per send */
				prog[v] = fmax(prog[v], at[v]) + (v ? t->insn_us : 0);
				nk = binomial_kids(v, n, kid);
				for (uint32_t k = nk; k-- > 0;) {
					double *rg = &ring[v * E + (v + n + nk - k) % E];

					prog[v] += 2 * t->insn_us;
					*rg = fmax(*rg, prog[v]) + x[kid[k]];
					at[kid[k]] = *rg + lat[kid[k]];
				}
			}
			continue;
		}
		for (uint32_t v = n; v-- > 0;) {
			double pass = prog[v];

			nk = binomial_kids(v, n, kid);
			for (uint32_t k = 0; k < nk; k++) {
				uint32_t c = kid[k];
				/* the first child's credits were granted up front */
				double go = k ? fmax(prog[c], pass + t->insn_us + t->sem_us) : prog[c];
				double *rg = &ring[c * E];

				prog[c] = go;
				*rg = fmax(*rg, go) + x[c];
				pass = fmax(pass, *rg + lat[c]);
			}
			prog[v] = pass;
		}
	}
	for (uint32_t v = 0; v < n; v++)
		done = fmax(done, bcast ? at[v] : prog[v]);
	if (bcast)	/* the root's own copy, after its sends on its local engine */
		done = fmax(done, fmax(prog[0], ring[n % E]) + local_us(t, M));
	free(x);
	free(from);
	*out = (struct tune_cost){ 0, done };
	return 0;
fail:
	free(x);
	free(from);
	return -1;
}

/* Pipelined Broadcast / Reduce: binomial tree or chain (App. C). */
static struct tune_cost rooted(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
			       uint32_t P, bool chain)
{
	struct tune_cost c = { 0, 0 }, slot;
	uint32_t L = chain ? n - 1 : log2up(n);

	if (n < 2)
		return c;
	if (chain)
		return chain_tiered(t, coll, n, M, P);
	if (!binomial_tiered(t, coll, n, M, P, &c))
		return c;
	slot = chain ? tune_step_ring(t, M / P, 1, 1) : tree_slot(t, n, M / P);
	if (coll == CS_REDUCE_COLL)
		slot.xfer_us += tune_reduce_us(t, M / P);
	tune_add(&c, slot, L + P - 1);
	return c;
}

double cost_dbt(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	return tune_total(dbt(a, t, c->nranks, c->bytes, slices_of(c), elem_size_of(c)));
}

double cost_binomial(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(rooted(t, c->coll, c->nranks, c->bytes, slices_of(c), false));
}

double cost_chain(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(rooted(t, c->coll, c->nranks, c->bytes, slices_of(c), true));
}
