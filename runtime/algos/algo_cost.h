/* SPDX-License-Identifier: MIT */
/*
 * The cost functions registry entries carry (struct algo's cost and
 * cost_rejects), one family per runtime/tune/cost_*.c.  Only the types'
 * names are needed here: algos/ does not include the cost model.
 */
#ifndef CCORE_ALGO_COST_H
#define CCORE_ALGO_COST_H

#include "algo.h"

/* cost_ring.c */
double cost_ring(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
double cost_flatring(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
/* cost_kangaring.c */
double cost_kangaring(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
/* cost_mesh.c */
double cost_mesh(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
double cost_mesh_oneshot(const struct algo *a, const struct tune_topo *t,
			 const struct tune_call *c);
/* cost_rdh.c */
double cost_rdh(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
/* cost_tree.c: DBT AllReduce, binomial and chain Broadcast and Reduce */
double cost_dbt(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
double cost_binomial(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
double cost_chain(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
/* cost_pat.c */
double cost_pat(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
/* cost_alltoall.c */
double cost_pairwise(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
double cost_bruck(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
/* cost_p2p.c */
double cost_p2p(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
/* cost_hier.c */
double cost_hier(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
double cost_hier_leaders(const struct algo *a, const struct tune_topo *t,
			 const struct tune_call *c);
/* hier-leaders' exchange between leaders: one-shot Mesh up to this many nodes, RDH past it */
#define HIER_LEADERS_MESH_NODES 8
double cost_hier_pat(const struct algo *a, const struct tune_topo *t, const struct tune_call *c);
const char *cost_rejects_hier(const struct tune_topo *t, const struct tune_call *c);

#endif
