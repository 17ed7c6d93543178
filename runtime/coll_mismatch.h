/* SPDX-License-Identifier: MIT */
/* Ranks whose posted calls disagree: the error naming how (internal). */
#ifndef CCORE_COLL_MISMATCH_H
#define CCORE_COLL_MISMATCH_H

#include "comm.h"

/*
 * -EINVAL with a message giving rank 0's @first and rank @r's @o in full
 * and each field they differ in with both values ("differing: redop (rank
 * 0: sum, rank 3: max)").
 */
int coll_mismatch_error(const struct op *first, const struct op *o, uint32_t r);
/* The same for a send @s and the receive @rv it pairs with (count, dtype). */
int coll_p2p_mismatch_error(const struct op *s, const struct op *rv);

#endif
