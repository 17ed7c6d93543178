// SPDX-License-Identifier: MIT
/*
 * Mesh and single-step mesh (IN "Mesh", "Single-step Mesh").
 */
#include "cost.h"

/*
 * Mesh's sum of the n - 1 arrivals (mesh.c's gather_sum()): the first is
 * reduced on arrival; once all are in, the rank's local ring adds the
 * other n - 2 pairwise, ceil(log2(n - 2)) + 1 levels each waiting for the
 * one before, the n - 2 reductions one after another on its engine.
 */
static struct tune_cost mesh_sum(const struct tune_topo *t, uint32_t n, double b)
{
	struct tune_cost c = { 0, tune_reduce_us(t, (n - 1) * b) }, one;

	if (t->ideal || n < 3)
		return c;
	one = tune_step_local(t, b, 1);
	c.lat_us += (log2up(n - 2) + 1) * one.lat_us + (n - 2) * 2 * t->insn_us;
	c.xfer_us += (n - 2) * one.xfer_us;
	return c;
}

static struct tune_cost mesh(const struct tune_topo *t, uint8_t coll, uint32_t n, double M,
			     bool oneshot)
{
	struct tune_cost c = { 0, 0 }, step;
	double b = oneshot ? M : M / n;

	if (n < 2)
		return c;
	step = tune_step_mesh(t, b);	/* AllReduce's two exchanges are alike */
	if (coll != CS_ALLGATHER) {	/* scatter blocks (or everything), reduce */
		tune_add(&c, step, 1);
		tune_add(&c, mesh_sum(t, n, b), 1);
	}
	if (coll != CS_REDUCESCATTER && !oneshot)
		tune_add(&c, step, 1);
	return c;
}

double cost_mesh(const struct algo *a, const struct tune_topo *t, const struct tune_call *c)
{
	(void)a;
	return tune_total(mesh(t, c->coll, c->nranks, c->bytes, false));
}

double cost_mesh_oneshot(const struct algo *a, const struct tune_topo *t,
			 const struct tune_call *c)
{
	(void)a;
	return tune_total(mesh(t, c->coll, c->nranks, c->bytes, true));
}
