/* SPDX-License-Identifier: MIT */
/*
 * The state lower_loops.c lowers a rank's repeats with, shared with the
 * credit planning (lower_credits.c).
 */
#ifndef CCORE_LOWER_LOOPS_H
#define CCORE_LOWER_LOOPS_H

#include "lower.h"

#define REG_HOPS 0
#define REG_INDEX 1
#define RING_DEPTH 4
#define MAX_PEERS 8
#define MAX_MEMO 16

struct lane {
	bool used, indexed, templated, drained;
	uint32_t engine;
	int64_t unit;			/* indexed: elements per index */
	uint32_t index_count;
	struct drm_ccore_desc *desc;
	uint32_t nd, cap;
};

/* A peer's streams: our sends to it and its receives from us, or the reverse. */
struct peer_streams {
	uint32_t peer;
	const struct cs_stream *ours, *theirs;
	uint32_t hint;			/* theirs' run of the last match */
};

/* A semaphore or a peer's buffer address the callbacks gave. */
struct sem_memo {
	uint32_t r, peer, kind, user, sem;
};

struct va_memo {
	uint32_t q, buf;
	uint64_t va;
};

/* A credit grant or a drain between repeats: before repeat @before. */
struct grant {
	uint32_t before, peer, n;
};

struct drain {
	uint32_t before, ring, engine, peer;
};

/* A run of iterations being lowered as one loop. */
struct group {
	bool open;
	struct lane *lane;
	uint32_t hops;
	int64_t index0, next, dir;
	struct drm_ccore_insn *body;
	uint32_t nbody;
};

struct loop_emit {
	const struct cs_sched *s;
	struct cs_streams *ix;
	const struct lower_ctx *c;
	const struct cs_rank *rk;
	uint32_t r, n, es;
	struct drm_ccore_insn *insn;
	uint32_t ni, icap;
	struct lane lane[LOWER_RINGS][LOWER_MAX_ENGINES];
	struct peer_streams to[MAX_PEERS], from[MAX_PEERS];
	uint32_t nto, nfrom;
	uint32_t peers_by_engine[MAX_PEERS], npeers;	/* in order of first send */
	struct drm_ccore_desc *scratch;	/* two iterations' descriptors */
	uint32_t scap;
	void *work;			/* rep, marks and mark_peer below */
	size_t work_size;
	const struct cs_repeat **rep;	/* per template: its repeat (cs_repeat_of(), looked up once) */
	uint32_t *marks;		/* per template: markers per iteration (sends) */
	uint32_t *mark_peer;		/* per template: whom they credit */
	struct group g;
	/* credits granted, rings drained, between repeats (in that order) */
	struct grant *grants;
	struct drain *drains;
	uint32_t ngrants, ndrains;
	/* what the callbacks answered, asked again per iteration: a few each */
	struct sem_memo sems[MAX_MEMO];
	struct va_memo vas[MAX_MEMO];
	uint32_t nsems, nvas;
	int rc;
};


/*
 * Credits per peer: what the prologue grants; and the marked receives so
 * far: a sender spends credits in receive order, so their anchors must
 * come in that order, on one engine (whose ring completes in order).
 */
struct peer_credit {
	uint32_t peer, free;
	bool marked;
	uint32_t engine;
	const struct cs_repeat *rq, *ra;	/* the last marked receive's repeat, its anchor's */
	int32_t it;				/* and its anchor's iteration offset */
	uint32_t last_anchor;			/* that anchor */
	uint64_t end;				/* the unrolled place of its last instance */
	uint32_t before;			/* its last grant between repeats: before this one */
};

/* Mark @e as not loop form (-EOPNOTSUPP) unless it failed already; its error. */
int loop_unsupported(struct loop_emit *e);
/* The engine of rank e->r's sends to @peer, ~0u if it sends it nothing. */
uint32_t loop_engine_of(struct loop_emit *e, uint32_t peer);
/*
 * Plan rank e->r's credits: free ones per peer into @pc (the prologue's),
 * marked ones noted on their anchor send (e->marks, e->mark_peer), those
 * between repeats in e->grants and e->drains; anything else is not loop
 * form.  0 or e->rc.
 */
int loop_plan_credits(struct loop_emit *e, struct peer_credit *pc, uint32_t *npc);

#endif
