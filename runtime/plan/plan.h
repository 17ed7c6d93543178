/* SPDX-License-Identifier: MIT */
/*
 * The planner's own view of a plan (internal to runtime/plan/): what the
 * cache keeps, and the functions its files share.  The rest of the
 * runtime sees plans through comm.h.
 *
 *   choose.c    a call's shape and the choice of algorithm, slices, channels
 *   topology.c  ranks per device and node, the fabric's shape, for the choice
 *   cache.c     the cache: lookup, least-recently-used eviction, pins
 *   build.c     lowering the choice into programs, shrinking what does not fit
 *   place.c     scratch, ring indices, peer addresses and semaphores per rank
 *   xchg*.c     how peers are reached: in this process, or exchanged with
 *               other processes when a plan is built (xchg.h)
 *   launch.c    one trigger per rank of a cached plan
 *   group.c     groups: collectives deferred to ccore_group_end(), fused
 */
#ifndef CCORE_PLAN_PLAN_H
#define CCORE_PLAN_PLAN_H

#include "comm.h"
#include "lower/lower.h"
#include "util/clock.h"

/* Rank q's buffers as rank r names them (va[buf], 0: none), keyed r * n + q + 1. */
struct peer_entry {
	uint64_t key;
	uint64_t va[CS_NBUF];
};

struct plan_peers {
	struct peer_entry *e;
	uint32_t cap, used;
};

struct plan {
	struct plan *next;
	struct op *ops;			/* the key: per rank */
	uint32_t n;
	const struct algo *algo;
	struct algo_opts opts;		/* what it runs with */
	struct algo_opts asked;		/* the choice, its key (opts may be less) */
	const struct algo *asked_algo;	/* the choice, its key (algo may differ) */
	struct select_choice why;	/* the tuner's choice, for the log */
	struct lower_rank *lr;
	struct lower_ctx ctx;
	struct plan_peers peers;	/* peer addresses by pair (peers.c) */
	struct clique *q;
	int peer_rc;			/* first failure resolving a pair or semaphores */
	bool loops;			/* lowered in loop form, without a schedule */
	bool credits_by_desc;		/* lower_ctx's, for programs that would not fit */
	struct lowered *low;
	bool *active;			/* ranks with steps */
	uint32_t pins;			/* executables holding it: never evicted */
	/* what the build exchanged with other processes (xchg_boot.c): it
	 * owns the local ranks' scratch, which peers name */
	struct xrec *xrec;
	/*
	 * Runs alternate between two halves of the scratch, each an image of
	 * its own (lower_ctx.dbuf): credits from other hosts are implied.
	 * @runs counts each rank's launches (the record's where there is one,
	 * so a plan rebuilt from it goes on with the same half).
	 */
	bool dbuf;
	uint64_t *runs, *own_runs;
};

/* Largest scratch (per rank, bytes) a plan doubles to imply credits across hosts. */
#define PLAN_DBUF_MAX_BYTES (1u << 20)

/* The image rank @r's run @ahead launches from now takes (0: the next). */
const struct lowered_rank *plan_image(const struct plan *p, uint32_t r, uint32_t ahead);
/* Rank @r's run was launched: the next takes the other image of a double-buffered plan. */
void plan_ran(struct plan *p, uint32_t r);

/* The stream slot rank @r's part runs on (0 if it has none here). */
static inline uint32_t plan_rank_slot(const struct plan *p, uint32_t r)
{
	return p->ops[r].stream ? p->ops[r].stream->slot : 0;
}

/* xchg_boot.c: rank @r's scratch as a record keeps it */
uint64_t xchg_rec_tmp(const struct xrec *rec, uint32_t r);
/* xchg_boot.c: the launches of the record's plan so far, per rank */
uint64_t *xchg_rec_runs(struct xrec *rec);

/* Microseconds since *@t, which moves on to now. */
static inline double lap_us(int64_t *t)
{
	int64_t now = rt_now_ns(), d = now - *t;

	*t = now;
	return (double)d / 1e3;
}

/* choose.c: the shape of a call every rank posted (in place or not, agreed) */
int plan_shape(struct clique *q, const struct op *ops, struct cs_shape *sh);
/* choose.c: the choice for @sh, remembered for repeats while the knobs stay */
int plan_choose_memo(struct clique *q, const struct cs_shape *sh, uint32_t dtype,
		     struct algo_opts *o, struct select_choice *ch, double *choose_us);

/* topology.c: ranks per device (@node false) or per node if the layout is
 * equal consecutive groups, else 0 */
uint32_t clique_group_size(const struct clique *q, bool node);
/*
 * Each rank's node when transfers between nodes cross a network, so that
 * reductions across them are staged (cs_stage.c); NULL when they do not
 * (or out of memory: then nothing is staged and the NIC refuses what it
 * cannot carry).  plan_stage_nodes_for_test stages between the nodes of
 * one fabric, where no network is needed, to test the staged plans.
 */
const uint32_t *clique_hosts(struct clique *q);
extern bool plan_stage_nodes_for_test;
/* Plans built with reductions staged (for tests to see them happen). */
extern unsigned long plans_staged;
/* Plans built with double-buffered scratch (plan.h, struct plan.dbuf). */
extern unsigned long plans_double_buffered;
/* topology.c: the cost model's topology for @q's ranks laid out as in @o */
void clique_topo(struct clique *q, const struct algo_opts *o, struct tune_topo *t);

/* cache.c: the cached plan for @ops, built if need be (NULL: nothing to do) */
int plan_get(struct clique *q, const struct op *ops, bool pinned, struct plan **out);
void plan_free(struct clique *q, struct plan *p);
/* cache.c: make room, dropping the least recently used unpinned plan of
 * @q or else of another communicator on the same devices; false if none */
bool plan_evict_one(struct clique *q);

/* build.c: lower the choice @ch, @opts for @ops into a new plan */
int plan_build(struct clique *q, const struct op *ops, const struct cs_shape *shp,
	       const struct select_choice *ch, const struct algo_opts *opts, bool pinned,
	       struct plan **out);

/* place.c: devices, cores, scratch of @tmp_count elements and @rings ring
 * indices for the ranks in p->active; plan_unplace() undoes it */
int plan_place(struct clique *q, struct plan *p, uint64_t tmp_count, uint32_t rings);
void plan_unplace(struct clique *q, struct plan *p);
/* peers.c: the entry of pair (@r, @q), made (*@fresh) if new; NULL out of memory */
struct peer_entry *plan_peers_find(struct plan_peers *t, uint32_t n, uint32_t r, uint32_t q,
				   bool *fresh);
void plan_peers_clear(struct plan_peers *t);
void plan_peers_free(struct plan_peers *t);
/* place.c: the peer addresses schedule @s's sends name */
int plan_resolve_peers(struct plan *p, const struct cs_sched *s);
/* place.c: the semaphores @s names, made before lowering */
int plan_sems(struct clique *q, struct plan *p, const struct cs_sched *s);
/* place.c: the lowering's callbacks (lower_ctx), resolving on first use */
uint64_t plan_peer_va(void *arg, uint32_t r, uint32_t q, uint32_t buf);
uint32_t plan_sem(void *arg, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
		  uint32_t user);

/* launch.c: one job of program @prog on stream @s */
int plan_submit(struct ccore_dev *dev, uint32_t prog, struct ccore_stream *s);

#endif
