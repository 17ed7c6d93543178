/* SPDX-License-Identifier: MIT */
/*
 * Embedding a sub-schedule into a parent schedule (used by hier.c).
 *
 * A sub-schedule is generated for a sub-group of the parent's ranks with
 * its own shape.  Embedding one of its ranks appends that rank's steps to
 * the parent rank playing it: peers go through the group's rank list,
 * dependency indices shift by where the steps land, and each of the
 * sub-schedule's buffers (SEND, RECV, TMP) is a region of a parent buffer
 * described by a struct hier_map.  A map may be strided: sub-offsets then
 * come in segments of `seg` elements placed `stride` apart, and every step
 * must stay within one segment (ring and PAT AllGather touch one block per
 * step, so a block-strided RECV works for them).
 *
 * Seams: the new steps were ordered only among themselves.  As each one is
 * appended, the earlier steps of the parent rank it may run concurrently
 * with (by the verifier's ordering rule) and conflicts with -- same
 * storage, not both reading -- become dependencies; only the latest of
 * them, since depending on a step also orders everything before it.  A
 * receive takes such dependencies only if its credit point
 * (cs_credit_point()) stays where its generator put it or falls within
 * the earlier phases; otherwise its credit would wait for a later step,
 * which for a sub-schedule that sends before it receives (a ring) is this
 * rank's own send, on every rank of the ring at once: a deadlock.  Such a
 * receive is split instead: the data lands in a fresh TMP stage without
 * dependencies and a local copy or reduce, carrying them, moves it into
 * place.
 */
#ifndef CCORE_HIER_EMBED_H
#define CCORE_HIER_EMBED_H

#include "sched/cs.h"

struct hier_map {
	uint8_t buf;		/* parent buffer (enum cs_buf) */
	uint64_t off;		/* parent offset of sub-offset 0 */
	uint64_t seg;		/* 0: contiguous; else segment length ... */
	uint64_t stride;	/* ... and parent distance between segments */
};

/*
 * Append the steps of sub-rank @sr of @sub to parent rank @group[sr], its
 * buffers at @map[CS_SEND], @map[CS_RECV], @map[CS_TMP], ordered after the
 * parent's earlier steps they conflict with.  Split receives are staged in
 * parent TMP from @stage_base on; *@stage_used grows to cover them.  0,
 * -EINVAL when a step straddles segments of a strided map, -E2BIG when a
 * step would need more than CS_MAX_DEPS dependencies, -ENOMEM (and
 * @p->oom) when memory runs out.
 */
int hier_embed_rank(struct cs_sched *p, const struct cs_sched *sub, uint32_t sr,
		    const uint32_t *group, const struct hier_map map[CS_NBUF],
		    uint64_t stage_base, uint64_t *stage_used);

#endif
