/* SPDX-License-Identifier: MIT */
/*
 * Verifiable inputs for testing collectives, as nccl-tests uses: element i
 * of rank r's input depends only on (r, first + i), with values chosen per
 * reduce op so that every dtype represents every partial result exactly
 * (sums of 0..2 per rank, products of +-1, max/min of small integers), so
 * results can be checked exactly for any number of ranks up to 64.
 */
#ifndef CCORE_VERIFIABLE_H
#define CCORE_VERIFIABLE_H

#include "ccore.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fill @buf[0..count) with rank @rank's input at positions first.. */
CCORE_API
void ccore_verifiable_fill(void *buf, size_t count, enum ccore_dtype dt, enum ccore_redop op,
			   int rank, size_t first);
/* Elements of @buf[0..count) that differ from the reduction over ranks
 * 0..nranks-1 of the inputs at positions first.. */
CCORE_API
long ccore_verifiable_check_reduced(const void *buf, size_t count, enum ccore_dtype dt,
				    enum ccore_redop op, int nranks, size_t first);
/* Elements of @buf[0..count) that differ from rank @rank's input at first.. */
CCORE_API
long ccore_verifiable_check_from(const void *buf, size_t count, enum ccore_dtype dt,
				 enum ccore_redop op, int rank, size_t first);

#ifdef __cplusplus
}
#endif

#endif
