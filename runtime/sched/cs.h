/* SPDX-License-Identifier: MIT */
/*
 * cs: the collective schedule IR.
 *
 * A schedule says, per rank, which ordered steps move and reduce which
 * element ranges of which buffers, and which earlier steps each waits for.
 * Algorithms (runtime/algos/) generate schedules; the verifier (cs_verify.c)
 * checks a schedule's postcondition symbolically; the lowering
 * (runtime/lower/) turns it into CC programs and DMA rings.
 *
 * Buffers, per rank: SEND (the input), RECV (the output) and TMP (scratch
 * of cs_sched.tmp_count elements).  In place, SEND and RECV share one
 * allocation as nccl lays them out (see cs_inplace_layout()): AllGather's
 * input is block `rank` of its output, ReduceScatter's output is block
 * `rank` of its input, the others coincide.  Offsets and counts are in
 * elements.
 *
 * Transfers are pairs: a SEND on rank a to peer b matches, in order, the
 * RECV or RECV_REDUCE steps on rank b from peer a.  The k-th SEND a->b
 * matches the k-th receive of b from a; counts must agree.
 *   RECV         dst = peer's src
 *   RECV_REDUCE  dst = src (a local accumulator) (+) peer's src; staged
 *                (across hosts) the peer's src lands in src2 first
 * A receive step's deps are what must be done before the data may land
 * (e.g. an earlier send that still reads dst); the receiver grants the
 * sender a credit once they are complete.
 *
 * Repeats: a run of a rank's steps, the body, that runs cs_repeat.times
 * times over, stored once.  Iteration k's instance of a body step has each
 * ref moved by k * stride[buf] elements and its peer by k * peer_stride
 * (mod nranks).  Step indices name the stored steps (templates); the
 * unrolled schedule is the same steps with every body written out
 * (cs_expand()).  A dependency of body step t of iteration k names a
 * template and, in dep_iter, an iteration offset: on a step of the same
 * body it is iteration k + dep_iter (0: this one, the template earlier in
 * the body; -1: the one before, which iteration 0 does without), on a
 * step of another repeat iteration k + dep_iter of it (which must exist
 * for every k), on a step outside repeats that step (dep_iter 0).  With
 * bit d of dep_fixed set, dep_iter[d] is instead a fixed iteration of
 * another repeat, which every iteration waits for (a phase's receives
 * after the last receive of the phase before): written out, the bit stays
 * on the absolute dependency, and a receive whose dependencies are all
 * such gets its credit right after the last of them if that is a receive
 * (cs_credit_point()), the sends among them drained there.  Ring and
 * hierarchical loops are repeats: a ring AllReduce over 1024 ranks in 64
 * slices is 268 million steps unrolled, a few hundred templates rolled.
 */
#ifndef CCORE_CS_H
#define CCORE_CS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cs_buf { CS_SEND = 0, CS_RECV = 1, CS_TMP = 2, CS_NBUF = 3 };

enum cs_op {
	CS_COPY,		/* local: dst = src */
	CS_REDUCE,		/* local: dst = src (+) src2 */
	CS_SEND_OP,		/* to peer: its matching receive gets src */
	CS_RECV_OP,		/* from peer: dst = peer's src */
	CS_RECV_REDUCE,		/* from peer: dst = src (+) peer's src */
	CS_DIVIDE,		/* local: dst = src / nranks, after every earlier
				 * step; only DIVIDE steps may follow one */
};

enum cs_coll {
	CS_ALLREDUCE, CS_ALLGATHER, CS_REDUCESCATTER, CS_ALLTOALL,
	CS_BROADCAST, CS_REDUCE_COLL, CS_SENDRECV, CS_NCOLL,
};

#define CS_MAX_DEPS 6

struct cs_ref {
	uint64_t off : 56;	/* elements */
	uint64_t buf : 8;	/* enum cs_buf */
};

struct cs_step {
	uint8_t op;		/* enum cs_op */
	uint8_t ndeps;
	uint8_t dep_fixed;	/* bit d: dep_iter[d] is absolute (below) */
	/* RECV_REDUCE across hosts (cs_stage.c): the peer's data lands in
	 * src2 (a TMP slot of its own), then this rank reduces it into dst */
	uint8_t staged;
	uint32_t peer;		/* SEND/RECV*: the other rank */
	struct cs_ref dst, src, src2;
	uint64_t count;		/* elements; 0 steps are not allowed */
	uint32_t deps[CS_MAX_DEPS];	/* indices of earlier steps of this rank */
	int32_t dep_iter[CS_MAX_DEPS];	/* repeats: which iteration of deps[] (above) */
};

/*
 * How a repeat's sends travel, for the lowering (runtime/lower/
 * lower_loops.c).  Puts on one ring land in order, on different rings in
 * any order, so each lane -- a ring of the rank's -- counts its arrivals
 * at the receiver on a semaphore of its own: A(sender) as plain sends do,
 * or the pair a rank never uses for itself, A(self) or C(self).
 */
enum cs_count { CS_COUNT_PEER, CS_COUNT_SELF_A, CS_COUNT_SELF_C };

/* Steps [first, first + len) of a rank, run @times times (see above). */
struct cs_repeat {
	uint32_t first, len, times;
	int64_t stride[CS_NBUF];	/* elements per iteration, per buffer */
	int32_t peer_stride;		/* ranks per iteration, mod nranks */
	uint8_t lane;			/* its sends' ring, 0 .. 2, on their peer's engine */
	bool indexed;			/* one template, indexed by the iteration */
	uint8_t count;			/* enum cs_count: the lane's arrivals */
	/* indexed: index 0 is element index_origin of its sends' src buffer,
	 * and the lane holds index_count indices (0: up to the buffer's end) */
	uint64_t index_origin;
	uint32_t index_count;
};

struct cs_rank {
	struct cs_step *steps;
	uint32_t n, cap;
	struct cs_repeat *reps;		/* ascending, disjoint */
	uint32_t nreps, repcap;
};

/*
 * Shape of a collective.  count is what nccl calls count: elements per rank
 * of AllReduce/Broadcast/Reduce, of each rank's *output* block for
 * ReduceScatter, of each rank's *input* for AllGather, of each
 * destination's block for AllToAll, of the message for Send/Recv.
 */
struct cs_shape {
	uint8_t coll;		/* enum cs_coll */
	uint32_t nranks;
	uint64_t count;
	uint32_t root;		/* Broadcast, Reduce; Send/Recv: the sender */
	uint32_t peer;		/* Send/Recv: the receiver */
	bool in_place;
};

struct cs_sched {
	struct cs_shape shape;
	const char *algo;	/* name of the generating algorithm */
	uint64_t tmp_count;	/* TMP elements per rank */
	struct cs_rank *ranks;
	bool oom;		/* an append failed: the schedule is unusable */
	const char *fail;	/* not NULL: the generator could not build it, and why */
	struct cs_lazy *lazy;	/* not NULL: ranks made on first use (below) */
};

/*
 * A schedule made rank by rank as it is read: cs_rank_get() fills a rank
 * the first time, cs_rank_drop() lets one go once no reader needs it (it
 * is made again, the same, if one does).  Only a rolled schedule whose
 * every rank takes part is made this way (its reader is the lowering,
 * which holds a window of ranks): a plan of thousands of ranks then
 * never holds them all, and the ranks it does hold are in cache, not
 * fresh pages.  @arg is one block, freed with the schedule.
 */
struct cs_lazy {
	void (*fill)(struct cs_sched *s, uint32_t r, void *arg);
	void *arg;
	uint8_t *filled;	/* per rank */
	/* dropped ranks' arrays, for the next ranks made: freed and taken
	 * again, malloc would give the pages back and fault them in anew */
	struct cs_rank spare[256];
	uint32_t nspare;
};

/* Make @s lazy: @fill makes a rank; NULL and @arg freed if out of memory. */
struct cs_sched *cs_make_lazy(struct cs_sched *s, void (*fill)(struct cs_sched *s, uint32_t r,
								  void *arg), void *arg);
/* Rank @r of @s, made first if @s is lazy (then check cs_unusable()). */
const struct cs_rank *cs_rank_get(const struct cs_sched *s, uint32_t r);
/* A lazy schedule's rank @r no longer needed for now; nothing for others. */
void cs_rank_drop(const struct cs_sched *s, uint32_t r);
/* Every rank of @s made (a reader of the whole schedule: verifier, expansion). */
void cs_fill_all(const struct cs_sched *s);
/* Every rank made and kept: @s is a plain schedule from now on. */
void cs_settle(struct cs_sched *s);

/* Element counts of each rank's SEND and RECV buffers for a shape. */
uint64_t cs_send_count(const struct cs_shape *s);
uint64_t cs_recv_count(const struct cs_shape *s);
/* In place: offsets of SEND and RECV in the shared allocation of @rank,
 * and that allocation's size (elements). */
uint64_t cs_inplace_layout(const struct cs_shape *s, uint32_t rank, uint64_t *send_off,
			   uint64_t *recv_off);
const char *cs_coll_name(unsigned int coll);
int cs_coll_parse(const char *name);	/* -1 if unknown */

struct cs_sched *cs_new(const struct cs_shape *shape, const char *algo);
void cs_free(struct cs_sched *s);
/* What a generator returned: NULL if usable, else why not ("out of memory"
 * for NULL or an incomplete one, or the generator's reason). */
const char *cs_unusable(const struct cs_sched *s);

/* Room for @steps more steps and @reps more repeats on @rank (a hint). */
void cs_reserve(struct cs_sched *s, uint32_t rank, uint32_t steps, uint32_t reps);

/* Builders: each appends one step to @rank and returns its index. */
uint32_t cs_copy(struct cs_sched *s, uint32_t rank, struct cs_ref dst, struct cs_ref src,
		 uint64_t count);
uint32_t cs_reduce(struct cs_sched *s, uint32_t rank, struct cs_ref dst, struct cs_ref a,
		   struct cs_ref b, uint64_t count);
uint32_t cs_send(struct cs_sched *s, uint32_t rank, uint32_t peer, struct cs_ref src,
		 uint64_t count);
uint32_t cs_recv(struct cs_sched *s, uint32_t rank, uint32_t peer, struct cs_ref dst,
		 uint64_t count);
uint32_t cs_recv_reduce(struct cs_sched *s, uint32_t rank, uint32_t peer, struct cs_ref dst,
			struct cs_ref acc, uint64_t count);
/* Average: divide a fully reduced range by the number of ranks. */
uint32_t cs_divide(struct cs_sched *s, uint32_t rank, struct cs_ref dst, struct cs_ref src,
		   uint64_t count);
/* Make step @step of @rank wait for step @on of the same rank. */
void cs_dep(struct cs_sched *s, uint32_t rank, uint32_t step, uint32_t on);
/* The same for repeats: on iteration @iter (relative, see above) of @on. */
void cs_dep_iter(struct cs_sched *s, uint32_t rank, uint32_t step, uint32_t on, int32_t iter);
/* The same on iteration @iter of @on counted from 0, for every iteration of @step. */
void cs_dep_fixed(struct cs_sched *s, uint32_t rank, uint32_t step, uint32_t on, uint32_t iter);
/*
 * Make steps [@first, end) of @rank, the last ones appended, the body of a
 * repeat run @times times with @stride (per buffer, NULL: none) and
 * @peer_stride; returns its index.  A body that is empty, or begins inside
 * an earlier repeat, makes the schedule unusable (cs_sched.fail).
 */
uint32_t cs_repeat(struct cs_sched *s, uint32_t rank, uint32_t first, uint32_t times,
		   const int64_t *stride, int32_t peer_stride);

/* The lane of repeat @rep of @rank (see struct cs_repeat). */
void cs_repeat_lane(struct cs_sched *s, uint32_t rank, uint32_t rep, uint8_t lane, bool indexed,
		    enum cs_count count);
/* Where its lane's index 0 lies and how many indices it holds (struct cs_repeat). */
void cs_repeat_index(struct cs_sched *s, uint32_t rank, uint32_t rep, uint64_t origin,
		     uint32_t count);

/*
 * One rank's sends to, or receives from, one peer, in program order: runs
 * of a repeat's pattern (the templates in it that move data to or from the
 * peer), a run per repeat, or per iteration where the peer moves.
 */
struct cs_stream_run {
	uint32_t at, len;		/* its templates: cs_stream.tmpl[at ..] */
	uint64_t times, k0;		/* iterations, the first one's number */
	uint64_t before;		/* transfers in the runs before it */
	uint32_t rep;			/* the repeat its templates are in, ~0u: none */
};

/* Where a template lies in its stream: tmpl[at], in runs[run]. */
struct cs_slot {
	uint32_t at, run;
};

struct cs_stream {
	uint32_t peer;
	bool sends;
	uint32_t *tmpl;
	uint32_t nt, tcap;
	const struct cs_slot *slot;	/* per template of the rank, ~0u: none or in several
					 * (a peer stride); shared by the rank's streams */
	struct cs_stream_run *runs;
	uint32_t nruns, rcap;
	uint64_t total;
};

/*
 * Every rank's streams, each rank's built in one pass over its steps the
 * first time one is asked for: the lowering and the verifier pair a
 * rank's stream to a peer with the peer's stream back, so each is built
 * once, not once per end, and while the rank's steps are in cache.
 */
struct cs_rank_streams {
	struct cs_stream *st;		/* its send streams, then its receive streams,
					 * each by ascending peer; one allocation with
					 * their runs, slots and templates */
	uint32_t n, nsend;
	struct cs_slot *slot;		/* per step of the rank */
	bool built;
};

struct cs_walk;

struct cs_streams {
	const struct cs_sched *s;
	struct cs_rank_streams *rank;
	struct cs_walk *walk;		/* scratch of the builds */
};

/* @ix for @s, nothing built yet; 0 or -ENOMEM. */
int cs_streams_init(const struct cs_sched *s, struct cs_streams *ix);
void cs_streams_free(struct cs_streams *ix);
/* Rank @r's streams (built if need be); NULL out of memory (or its lazy rank unusable). */
const struct cs_rank_streams *cs_streams_of(struct cs_streams *ix, uint32_t r);
/* Free rank @r's streams, no longer needed for now (asked for again, built again). */
void cs_streams_drop(struct cs_streams *ix, uint32_t r);
/*
 * Rank @r's sends to @peer (@sends) or receives from it: an empty stream
 * if none; NULL out of memory.
 */
const struct cs_stream *cs_streams_find(struct cs_streams *ix, uint32_t r, bool sends,
					uint32_t peer);
/*
 * Transfer @ord (from 0): its template, iteration and repeat (~0u: none);
 * false past the end.  @hint (NULL: none), the run of the last answer,
 * makes asking in order O(1).
 */
bool cs_stream_at(const struct cs_stream *st, uint64_t ord, uint32_t *t, uint64_t *k,
		  uint32_t *rep, uint32_t *hint);
/* Which transfer template @t's iteration @k is, or UINT64_MAX if none. */
uint64_t cs_stream_ordinal(const struct cs_stream *st, uint32_t t, uint64_t k);

/* Whether any rank of @s has repeats. */
bool cs_has_repeats(const struct cs_sched *s);
/* The repeat whose body holds step @i of @rk, or NULL. */
const struct cs_repeat *cs_repeat_of(const struct cs_rank *rk, uint32_t i);
/* The same for steps @t in ascending order, *@ri (from 0) the walk's place: O(1) each. */
const struct cs_repeat *cs_repeat_walk(const struct cs_rank *rk, uint32_t t, uint32_t *ri);
/* Steps of @rk unrolled. */
uint64_t cs_unrolled_steps(const struct cs_rank *rk);
/* Iteration @k of template @t of @rk: its refs and peer moved (@n ranks). */
void cs_instance(const struct cs_rank *rk, uint32_t n, uint32_t t, uint64_t k,
		 struct cs_step *out);
/* The same where the repeat of @t is known: @rp (NULL: none). */
void cs_instance_in(const struct cs_rank *rk, const struct cs_repeat *rp, uint32_t n, uint32_t t,
		    uint64_t k, struct cs_step *out);
/* One ref of @rp's template at iteration @k, as cs_instance_in() moves it (@rp NULL: @ref). */
struct cs_ref cs_instance_ref(const struct cs_repeat *rp, struct cs_ref ref, uint64_t k);
/* The peer of a transfer @peer of @rp's template at iteration @k (@rp NULL: @peer). */
uint32_t cs_instance_peer(uint32_t peer, const struct cs_repeat *rp, uint32_t n, uint64_t k);
/*
 * @s with every repeat written out (deps on absolute steps), or NULL out
 * of memory; a repeat's dependency on an iteration that does not exist, or
 * more than UINT32_MAX steps on a rank, leave it unusable (fail says why).
 */
struct cs_sched *cs_expand(const struct cs_sched *s);
/*
 * Across hosts (@host_of: each rank's), every RECV_REDUCE from another host
 * staged (cs_stage.c, struct cs_step.staged): @s written out with TMP
 * slots for them.  NULL out of memory.  cs_needs_staging(): does @s have
 * one to stage (NULL @host_of: one host, none)?
 */
struct cs_sched *cs_stage_remote(const struct cs_sched *s, const uint32_t *host_of);
bool cs_needs_staging(const struct cs_sched *s, const uint32_t *host_of);

static inline struct cs_ref cs_at(enum cs_buf buf, uint64_t off)
{
	struct cs_ref r = { .off = off, .buf = (uint8_t)buf };

	return r;
}

/*
 * Where in @rk's program (before which step) the credit for receive @j is
 * granted: 0 (the prologue) without dependencies; right after the last one
 * if they are all receives, or all fixed (dep_fixed) and the last a
 * receive; else the first receive after its last
 * dependency (at the latest, @j itself).  The lowering and the verifier
 * share this rule.
 */
uint32_t cs_credit_point(const struct cs_rank *rk, uint32_t j);
/*
 * The same from @j's own dependencies alone, before the order per peer:
 * cs_credit_point() is the largest of this over @j and the earlier
 * receives from its peer.
 */
uint32_t cs_own_credit_point(const struct cs_rank *rk, uint32_t j);
/*
 * The same for every step of @rk at once (0 for non-receives), kept
 * non-decreasing per peer in receive order: a sender spends the credits of
 * one receiver in order, so receive k must not be granted before k-1.
 */
void cs_credit_points(const struct cs_rank *rk, uint32_t npeers, uint32_t *points);

/* The storage a step reads or writes: in place, SEND and RECV share one. */
struct cs_access {
	uint8_t store;
	uint64_t lo, hi;	/* elements */
	bool write;
};

/* Whether @op reads its src / writes its dst. */
bool cs_op_reads_src(uint8_t op);
bool cs_op_writes_dst(uint8_t op);
/* What step @st of rank @rank touches; returns how many (at most 3). */
int cs_step_accesses(const struct cs_shape *sh, uint32_t rank, const struct cs_step *st,
		     struct cs_access out[3]);
/* True if the two sets overlap and at least one side writes. */
bool cs_accesses_conflict(const struct cs_access *a, int na, const struct cs_access *b, int nb);

/* Human-readable dump, one line per step. */
void cs_print(const struct cs_sched *s, FILE *out);

/*
 * Check the schedule symbolically: structure (peers, matching, counts,
 * ranges, deps), that every transfer pairs up without deadlock, and the
 * collective's postcondition (which contributions each rank ends up holding
 * for each element).  Repeats are checked rolled, at any size: structure
 * from their first and last iterations, matching (every send a credit,
 * every receive a send) a period at a time, and that iterations touch
 * disjoint elements; the rest on the unrolled schedule where it is small
 * enough (cs_verify.c says when).  Returns 0, or -EINVAL with @err saying
 * what is wrong.
 */
int cs_verify(const struct cs_sched *s, char *err, size_t errlen);

#endif
