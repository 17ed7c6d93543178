/* SPDX-License-Identifier: MIT */
/* Communicators, streams and the ranks they span (internal). */
#ifndef CCORE_COMM_H
#define CCORE_COMM_H

#include "rt.h"
#include "sched/cs.h"
#include "select.h"
#include "sems.h"
#include "stream_cfg.h"

#include <pthread.h>

struct plan;

/* A group's fused program on one rank, freed when its job is done. */
struct fused {
	struct ccore_dev *dev;
	struct ccore_stream *stream;
	uint32_t prog;
	uint64_t job_end;		/* its job is the stream's job job_end - 1 */
};

struct clique_rank {
	uint32_t dev, core;
};

/* A posted collective, waiting for the other ranks. */
struct op {
	uint8_t coll;
	uint64_t send, recv;
	uint64_t count;
	uint32_t dtype, redop;
	uint32_t root, peer;
	struct ccore_stream *stream;
};

struct op_queue {
	struct op *ops;
	uint32_t head, n, cap;
};

/*
 * The collectives posted on one stream id, per rank: they are matched
 * across ranks in posting order within the lane, so threads posting on
 * different streams of a rank never depend on each other's timing.
 */
struct post_lane {
	uint32_t stream_id;
	struct op_queue *ranks;		/* [rank] */
};

/* All ranks of one communicator. */
struct clique {
	struct rt *rt;
	struct clique *rt_next;		/* the next communicator on rt->cliques */
	uint32_t n;
	struct clique_rank *ranks;
	struct ccore_comm **comms;
	uint32_t alive;
	struct stream_cfg scfg;		/* streams in use, packet sizes */
	struct sem_pool *pools;		/* [stream * n + rank] semaphores (sems.h) */
	struct post_lane *lanes;	/* collectives, per stream id */
	uint32_t nlanes;
	struct op_queue *sends, *recvs;	/* per (sender * n + receiver) */
	struct plan *plans;		/* most recently used first */
	uint32_t nplans;
	struct fused *fused;		/* programs of fused groups */
	uint32_t nfused, fused_cap;
	const char *last_algo;
	struct ccore_plan_timing timing;	/* of the last plan built */
	uint32_t torus_x, torus_y;	/* the fabric's node shape (0: not asked yet) */
	struct tune_hw hw;		/* its costs (GET_PARAM), asked with the shape */
	/*
	 * One process per rank (comm_rank.c): the ranks this process runs
	 * (local[r]), each with its bootstrap; NULL when every rank is here
	 * (ccore_comm_init_all).  How plans reach the peers' buffers and
	 * semaphores (plan/xchg.h): directly, or exchanged with the other
	 * processes when a plan is built.
	 */
	bool *local;
	uint32_t nlocal;
	struct boot **boots;		/* [rank], local ranks only */
	/* [rank] the pid of each rank of this host when its ranks run in
	 * several processes sharing its devices (0: another host's); NULL
	 * otherwise.  A wait finds a peer's death by it (comm_dead.c). */
	uint32_t *pids;
	/* [rank] its node, when transfers between nodes cross a network
	 * (clique_hosts()); NULL until asked */
	uint32_t *hosts;
	const struct xchg_ops *xchg;
	struct xchg_state *xs;
	bool exchanging;		/* a build waits for peers, the lock dropped */
	uint64_t boot_msgs, boot_bytes;	/* bootstrap traffic after init */
	/* ccore_comm_split_rank on a communicator of ccore_comm_init_all:
	 * each rank's color and key until the last rank's call splits */
	struct {
		int *color, *key;
		bool *in;
		struct ccore_comm **out;
		uint32_t count;
		uint64_t round;			/* rounds done */
		int rc;
		char *msg;
	} split;
	/* the last choice, for repeats of one call while the knobs stay */
	struct {
		bool valid;
		uint64_t env;		/* fingerprint of the CCORE_* environment */
		char **env_seen;	/* environ's entries when @env was taken */
		size_t env_n;
		struct cs_shape sh;
		uint32_t dtype;
		struct algo_opts opts;
		struct select_choice ch;
		double choose_us;	/* what making the choice took */
	} memo;
};

/* Does this process run rank @r of @q? */
static inline bool clique_local(const struct clique *q, uint32_t r)
{
	return !q->local || q->local[r];
}

/*
 * With the lock held: wait while a build of @q exchanges with other
 * processes (the lock is dropped meanwhile).
 */
void clique_wait_exchange(struct clique *q);
/*
 * Ranks of @c's communicator, in other processes sharing the devices,
 * whose process died: how many, described in @buf ("rank 2 (pid 123)").
 * 0 where the devices are not shared.
 */
uint32_t comm_dead_ranks(const struct ccore_comm *c, char *buf, size_t len);
/* The bootstrap messages and bytes @c's communicator sent and received after init. */
int comm_boot_traffic(const struct ccore_comm *c, uint64_t *msgs, uint64_t *bytes);

struct ccore_stream {
	struct ccore_comm *comm;
	uint32_t id;			/* as the caller named it */
	uint32_t slot;			/* the stream it is served as (< streams) */
	uint32_t cc;			/* device-wide CC core */
	uint64_t *jobs;			/* launched, oldest first */
	uint32_t njobs, cap;
	uint64_t jobs_dropped;		/* taken off the front of jobs so far */
	uint32_t pending;		/* posted here, not launched yet */
	int failed;			/* a launch of its collectives failed: why */
	char *failed_msg;
	pthread_t failed_by;		/* the thread that call returned it to */
	bool grace_spent;		/* a failed job looked for a peer's death, found none (atomic) */
	bool is_default;
};

struct ccore_comm {
	struct clique *q;
	uint32_t rank;
	struct ccore_stream *stream0;
	uint32_t splits;		/* ccore_comm_split_rank calls so far */
};

/* comm.c: a clique of @n ranks on @rt (ranks and local set by the caller) */
int clique_new(struct rt *rt, uint32_t n, const struct stream_cfg *scfg, struct clique **out);
void clique_free(struct clique *q);
/* comm.c: ccore_comm_split_rank on a communicator of ccore_comm_init_all */
int comm_split_rank_in_process(struct ccore_comm *c, int color, int key, struct ccore_comm **out);
/* comm.c: the communicators of @q's local ranks, out[r] for each local rank r */
int comms_create(struct clique *q, struct ccore_comm **out);

/* A stream of @c: its CC core from the communicator's stream map. */
int stream_alloc(struct ccore_comm *c, uint32_t id, struct ccore_stream **out);
struct ccore_stream *comm_stream(struct ccore_comm *c, struct ccore_stream *s);
int stream_add_job(struct ccore_stream *s, uint64_t job);
int stream_throttle(struct ccore_stream *s);
/*
 * With the runtime lock held: wait until no collective posted on @s waits
 * for other ranks any more; -ETIMEDOUT after $CCORE_PEER_TIMEOUT_MS, with
 * a message naming @fn, the collective and the ranks that did not post.
 */
int stream_wait_posted(struct ccore_stream *s, const char *fn);
/* With the runtime lock held: wait for the stream's launched jobs. */
int stream_drain(struct ccore_stream *s);
/* The same for its jobs before the @end-th it ever launched. */
int stream_drain_upto(struct ccore_stream *s, uint64_t end);
/* Free a stream whose jobs are done. */
void stream_free(struct ccore_stream *s);
/*
 * Posted collectives @ops[0..n-1] (one per rank, stream NULL where a rank
 * has no part) are launched or dropped: their streams no longer wait for
 * them; a failure @rc (with the last error) is reported by each stream's
 * next ccore_stream_sync().
 */
void ops_retire(struct op *ops, uint32_t n, int rc);
/* $CCORE_PEER_TIMEOUT_MS, parsed (comm init); the wait for peers to post. */
int stream_peer_timeout_init(void);
int64_t stream_peer_timeout_ns(void);
/*
 * With the lock held: forget what rank @rank posted on stream @s (on any
 * of its streams if NULL) that was not launched yet; the stream or the
 * rank is going away.
 */
void clique_drop_posted(struct clique *q, uint32_t rank, const struct ccore_stream *s);
/*
 * With the lock held: the ranks that have not posted @s's oldest pending
 * collective, as a message (comm.c knows the queues).
 */
void clique_describe_pending(const struct clique *q, const struct ccore_stream *s, char *buf,
			     size_t len);
struct ccore_dev *comm_dev(const struct ccore_comm *c);

/* compute_dma.c: a compute DMA ring of rank @c's core (the executable
 * runner's), packet size the communicator's DMA packetization size */
struct comm_ring {
	uint32_t ring;			/* ring index, held on every engine of the core */
	uint32_t handle;
};
int comm_compute_ring_create(struct ccore_comm *c, uint32_t engine, uint32_t slots,
			     struct comm_ring *out);
int comm_compute_ring_destroy(struct ccore_comm *c, const struct comm_ring *r);

/* coll.c */
int coll_post(struct ccore_comm *c, const struct op *op);
/* plan/launch.c: plan (or find the cached plan of) @ops and launch it */
int plan_launch(struct clique *q, const struct op *ops);
/* plan/group.c: is this thread inside a group; then keep @ops (one per
 * rank, taken over) until the group's end */
bool group_open(void);
int group_defer(struct clique *q, struct op *ops);
/* plan/group.c: free @q's fused group programs once their jobs are done */
void plan_fused_release(struct clique *q);
/*
 * The executable runner (runtime/exec/exe_run.c): plan and load @ops
 * without launching; the plan stays cached until plan_unpin().  NULL
 * when no rank has anything to do.
 */
struct plan;
struct drm_ccore_insn;
int plan_prepare(struct clique *q, const struct op *ops, struct plan **out);
void plan_unpin(struct plan *p);
/* Handles of the DMA rings rank @r's part of @p uses (at most @max). */
uint32_t plan_rank_rings(const struct plan *p, uint32_t r, uint32_t *out, uint32_t max);
/* Rank @r's program (NULL if it has no part), its device and CC core. */
const struct drm_ccore_insn *plan_rank_program(const struct plan *p, uint32_t r, uint32_t *ninsns,
					       struct ccore_dev **dev, uint32_t *cc);
/*
 * While a capture is set on this thread, a collective every rank has
 * posted is planned (plan_prepare) and handed to @fn instead of launched.
 */
struct coll_capture {
	int (*fn)(void *arg, struct clique *q, struct plan *p);
	void *arg;
};
void coll_capture_set(const struct coll_capture *cap);
void plan_flush(struct clique *q);
/* Handles of the DMA rings rank @r's cached plans hold (at most @max). */
uint32_t plan_ring_handles(const struct clique *q, uint32_t r, uint32_t *out, uint32_t max);

/*
 * Run @fn on each of @n items of @size bytes at @items at once, a thread
 * each (one: on this thread); @started[i] says whether item i ran (no
 * thread could start for it otherwise).  -ENOMEM: none ran.
 */
int comm_run_each(void *(*fn)(void *), void *items, size_t size, uint32_t n, bool *started);

#endif
