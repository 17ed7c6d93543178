/* SPDX-License-Identifier: MIT */
/*
 * Credits in receive order (used by pat.c and hier.c).
 *
 * The lowering keeps one credit counter per (receiver, sender) pair: each
 * receive's credit is an increment at its cs_credit_point(), and the
 * sender's k-th send takes whatever credit is there and writes (or reduces)
 * straight into the k-th receive's destination.  Credits are thus spent in
 * receive order, whatever receive they were granted for: if receive k's
 * credit point came before receive k-1's, the send for k-1 would use it
 * and land before k-1's dependencies are done.  The verifier models one
 * credit per receive and does not see this, so generators whose receives
 * from one peer mix early and late credit points fix the order here.
 */
#ifndef CCORE_PAT_CREDIT_H
#define CCORE_PAT_CREDIT_H

#include "sched/cs.h"

/*
 * Make credit points non-decreasing per (rank, peer) in receive order: a
 * receive whose point comes before that of the previous receive from the
 * same peer takes on that receive's dependencies, which moves its point
 * to the same place or later, but no later than needed.
 */
void pat_credit_order(struct cs_sched *s);

#endif
