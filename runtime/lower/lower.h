/* SPDX-License-Identifier: MIT */
/*
 * Lowering: a verified schedule becomes, per rank, one CC program and a few
 * pre-built DMA rings on that rank's device.
 *
 * Per rank and stream the communicator provides semaphores (runtime/sems.h),
 * only for the peers the plan names:
 *   L              completions of the rank's local descriptors (counts up
 *                  within one run; the prologue resets it)
 *   A(p)           data from peer p has landed (ACQUIREd per receive)
 *   C(p)           peer p may receive from us (a credit; ACQUIREd per send
 *                  to p)
 * A send to p is one descriptor on the ring that carries all our puts to p
 * (so they land in program order): COPY into p's buffer for a plain
 * receive, REDUCE (p.dst = p.acc (+) ours) for a receive-reduce, signalling
 * p's A(us).  Before it the CC core ACQUIREs C(p).  The receiver grants
 * credits where cs_credit_point() says: in the prologue for receives without
 * dependencies, otherwise just before the receive at the credit point, once
 * the dependencies are complete.
 */
#ifndef CCORE_LOWER_H
#define CCORE_LOWER_H

#include "ccore_device.h"
#include "sched/cs.h"

#define LOWER_MAX_ENGINES 16
#define LOWER_RINGS 3

struct lower_rank {
	struct ccore_dev *dev;		/* the rank's device context */
	uint32_t core;			/* logical core */
	uint32_t cc;			/* CC core (device-wide) running the program */
	/* ring indices this plan may use on every engine: [0], and the others
	 * a loop-form plan asked for (~0u: not held); an instruction's ring
	 * field says which of them until lower_load_image() */
	uint32_t ring[LOWER_RINGS];
	uint64_t va[CS_NBUF];		/* own buffers, in own context */
	uint32_t packet_size;		/* of its rings; 0: the device's default */
};

enum lower_sem_kind { LOWER_SEM_LOCAL, LOWER_SEM_ARRIVAL, LOWER_SEM_CREDIT };

struct lower_ctx {
	uint32_t nranks;
	const struct lower_rank *ranks;
	/* address of rank @q's buffer @buf as rank @r's descriptors name it */
	uint64_t (*peer_va)(void *arg, uint32_t r, uint32_t q, uint32_t buf);
	void *arg;
	uint32_t elem_size;
	uint32_t dtype, redop;		/* DRM_CCORE_DTYPE_*, DRM_CCORE_REDOP_* */
	uint32_t engines;		/* DMA engines per core */
	uint64_t max_program;		/* CC-core instruction memory; 0: unchecked */
	/* the prologue's credits as SEM_WRITE descriptors under one START
	 * instead of an ADD per peer: programs that talk to every peer fit */
	bool credits_by_desc;
	/* semaphore @kind of rank @r for @peer (@r for L), named by rank
	 * @user's program or descriptors */
	uint32_t (*sem)(void *arg, uint32_t r, uint32_t peer, enum lower_sem_kind kind,
			uint32_t user);
	/*
	 * Each rank's host where ranks are on several, joined by a network
	 * (NULL: one host): a CC core reaches another host's semaphores only
	 * through descriptors, so credits to a peer there are SEM_WRITEs.
	 */
	const uint32_t *host_of;
	/*
	 * Double-buffered scratch: the plan's runs alternate between two
	 * halves of TMP, each @tmp_half bytes, and this image's TMP addresses
	 * (its own and its peers') are @tmp_shift bytes in.  Receives from
	 * another host that lower.c's implicit_pair() allows then take no
	 * credit.  lower_schedule() makes both images.
	 */
	bool dbuf;
	uint64_t tmp_half, tmp_shift;
};

/* Rank @p is on another host than rank @r. */
static inline bool lower_remote(const struct lower_ctx *c, uint32_t r, uint32_t p)
{
	return c->host_of && c->host_of[r] != c->host_of[p];
}

/* The descriptors of one ring of a rank's image (indexed when index_count > 0, see
 * &drm_ccore_ring_create). */
struct lower_ring_image {
	struct drm_ccore_desc *desc;
	uint32_t nd, cap;		/* cap: room at desc, for reuse (lower_loops_image()) */
	int64_t index_stride;
	uint32_t index_count;
};

/*
 * What one rank's program needs on its device: the instructions, and per
 * ring index it holds (lower_rank.ring[]) and engine a ring's descriptors.
 */
struct lower_image {
	struct drm_ccore_insn *insns;
	uint32_t ninsns, insn_cap;	/* insn_cap: room at insns, for reuse */
	struct lower_ring_image ring[LOWER_RINGS][LOWER_MAX_ENGINES];
	/* lower_loops_image()'s working memory, kept for its next call */
	void *work;
	size_t work_size;
	struct drm_ccore_desc *scratch;
	uint32_t scratch_cap;
};

struct lowered_rank {
	uint32_t prog;
	uint32_t rings[LOWER_RINGS][LOWER_MAX_ENGINES];	/* handles; 0: unused */
	uint32_t ninsns, ndescs;
	int64_t load_ns;		/* spent loading it into the device */
	struct drm_ccore_insn *insns;	/* the program, kept for fusing */
};

struct lowered {
	uint32_t nranks;
	struct lowered_rank *ranks;
	/* with lower_ctx.dbuf, the odd runs' images (on ring index [1]); else NULL */
	struct lowered_rank *odd;
	int64_t load_ns;		/* of the build, spent loading into the devices */
	bool loops;			/* repeats lowered as CC-core loops */
};

/* L of rank @r, and its A(@peer) and C(@peer) (which only @peer signals). */
static inline uint32_t lower_sem_local(const struct lower_ctx *c, uint32_t r)
{
	return c->sem(c->arg, r, r, LOWER_SEM_LOCAL, r);
}

static inline uint32_t lower_sem_arrival(const struct lower_ctx *c, uint32_t r, uint32_t peer)
{
	return c->sem(c->arg, r, peer, LOWER_SEM_ARRIVAL, peer);
}

static inline uint32_t lower_sem_credit(const struct lower_ctx *c, uint32_t r, uint32_t peer)
{
	return c->sem(c->arg, r, peer, LOWER_SEM_CREDIT, peer);
}

/* The same, named by rank @user (loop forms count phases on a rank's own
 * pair, signalled by its left neighbour). */
static inline uint32_t lower_sem_named_by(const struct lower_ctx *c, uint32_t r, uint32_t peer,
					  enum lower_sem_kind kind, uint32_t user)
{
	return c->sem(c->arg, r, peer, kind, user);
}

/*
 * Load rank @r's image into its device: create and fill its rings (on the
 * rank's ring index) and load its program.  What was loaded is in @out,
 * also on failure, for lower_release().
 */
int lower_load_image(const struct lower_ctx *c, uint32_t r, const struct lower_image *im,
		     struct lowered_rank *out);
/* A struct lowered for @nranks ranks, nothing loaded yet (NULL: no memory). */
struct lowered *lower_alloc(uint32_t nranks);

/*
 * Rank @r's image of schedule @s in loop form (lower_loops.c): its repeats
 * as CC-core loops over indexed descriptors.  -EOPNOTSUPP if @s is not in
 * loop form there (see lower_loops.c); lower_image_free() frees it.  @im
 * is zeroed, or what an earlier call left there: its buffers are reused
 * (lowering rank after rank, each rank's image is loaded before the next).
 */
int lower_loops_image(const struct cs_sched *s, struct cs_streams *ix,
		      const struct lower_ctx *c, uint32_t r, struct lower_image *im);
void lower_image_free(struct lower_image *im);
/*
 * Every rank's image of @s in loop form, loaded into @l rank by rank;
 * -EOPNOTSUPP if a rank's is not (then lower_schedule() writes the repeats
 * out).
 */
int lower_loops(const struct cs_sched *s, const struct lower_ctx *c, struct lowered *l);

/*
 * Would @s, lowered with double-buffered scratch, let a receive from
 * another host go without credits (lower.c, implicit_pair())?  The plan
 * asks before it sizes the scratch.
 */
bool lower_dbuf_helps(const struct cs_sched *s, const uint32_t *host_of);

/* Build and load everything; on failure nothing stays loaded.  -E2BIG if a
 * rank's program is larger than c->max_program.  Repeats become loops
 * (lower_loops_image()) where every rank takes them, else are written out. */
int lower_schedule(const struct cs_sched *s, const struct lower_ctx *c, struct lowered **out);
/*
 * Only build: each rank's image in turn, handed to @fn (nothing loaded; the
 * image is gone when @fn returns).  The tuner walks them (tune/walk.h).
 */
int lower_images(const struct cs_sched *s, const struct lower_ctx *c,
		 int (*fn)(void *arg, uint32_t r, const struct lower_image *im), void *arg);
/* Unload programs and destroy rings (all must be idle). */
void lower_release(struct lowered *l, const struct lower_ctx *c);

#endif
