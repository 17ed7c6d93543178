// SPDX-License-Identifier: MIT
/*
 * Reductions across hosts, staged (cs.h).  A RECV_REDUCE makes its sender
 * read the receiver's accumulator and write the sum into the receiver's
 * memory; across hosts the NIC only writes (model/ccm_nic.c).  Staged, the
 * sender's bytes land in a TMP slot of the receiver's own (src2, beyond
 * the schedule's scratch) and the receiver reduces them into dst itself
 * before it goes on, as the reference's inter-node reductions are staged.
 * The step stays a RECV_REDUCE, so what it computes, what waits for it
 * and the pairing of transfers are unchanged.  Every process stages
 * alike (a sender's lowering reads its receiver's steps), from the same
 * hosts.
 */
#include "cs.h"

static bool crosses(const uint32_t *host_of, uint32_t r, const struct cs_step *st)
{
	return st->op == CS_RECV_REDUCE && host_of[st->peer] != host_of[r];
}

bool cs_needs_staging(const struct cs_sched *s, const uint32_t *host_of)
{
	for (uint32_t r = 0; host_of && r < s->shape.nranks; r++) {
		const struct cs_rank *rk = &s->ranks[r];

		for (uint32_t i = 0; i < rk->n; i++) {
			const struct cs_step *st = &rk->steps[i];
			const struct cs_repeat *rp;

			if (st->staged || st->op != CS_RECV_REDUCE)
				continue;
			if (crosses(host_of, r, st))
				return true;
			/* a template's peer moves by iteration: any may cross */
			rp = rk->nreps ? cs_repeat_of(rk, i) : NULL;
			if (rp && rp->peer_stride)
				return true;
		}
	}
	return false;
}

struct cs_sched *cs_stage_remote(const struct cs_sched *s, const uint32_t *host_of)
{
	struct cs_sched *x = cs_expand(s);
	uint64_t most = 0;

	if (!x || cs_unusable(x)) {
		cs_free(x);
		return NULL;
	}
	for (uint32_t r = 0; r < x->shape.nranks; r++) {
		struct cs_rank *rk = &x->ranks[r];
		uint64_t added = 0;

		for (uint32_t i = 0; i < rk->n; i++) {
			struct cs_step *st = &rk->steps[i];

			if (!crosses(host_of, r, st) || st->staged)
				continue;
			st->staged = 1;
			st->src2 = cs_at(CS_TMP, s->tmp_count + added);
			added += st->count;
		}
		most = added > most ? added : most;
	}
	x->tmp_count = s->tmp_count + most;
	return x;
}
