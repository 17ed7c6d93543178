// SPDX-License-Identifier: MIT
/*
 * Streams: the jobs posted on one CC core of a rank, waited for in order.
 *
 * A collective a rank posts waits in its stream (pending) until every rank
 * has posted it and it is launched; ccore_stream_sync() waits for both:
 * first for the stream's pending collectives to be launched (other threads
 * post them), then for its launched jobs on the device.  Only the first wait
 * depends on other ranks, so only it has the peer timeout.
 */
#include "comm.h"
#include "plan/xchg.h"
#include "util/clock.h"
#include "util/grow.h"
#include "lock.h"
#include "log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STREAM_WAIT_NS (120ll * 1000000000)

/* $CCORE_PEER_TIMEOUT_MS: how long a sync waits for other ranks to post. */
#define PEER_TIMEOUT_DEFAULT_MS 60000u
#define PEER_TIMEOUT_MAX_MS 86400000u

static int64_t peer_timeout_ns = (int64_t)PEER_TIMEOUT_DEFAULT_MS * 1000000;

int64_t stream_peer_timeout_ns(void)
{
	return peer_timeout_ns;
}

int stream_peer_timeout_init(void)
{
	const char *v = getenv("CCORE_PEER_TIMEOUT_MS");
	unsigned long ms;
	char *end;

	peer_timeout_ns = (int64_t)PEER_TIMEOUT_DEFAULT_MS * 1000000;
	if (!v || !*v)
		return 0;
	ms = strtoul(v, &end, 10);
	if (*end || *v == '-' || ms < 1 || ms > PEER_TIMEOUT_MAX_MS)
		return ccore_error(-EINVAL,
				   "CCORE_PEER_TIMEOUT_MS=%s: expected milliseconds from 1 to %u (default %u)",
				   v, PEER_TIMEOUT_MAX_MS, PEER_TIMEOUT_DEFAULT_MS);
	peer_timeout_ns = (int64_t)ms * 1000000;
	return 0;
}

int stream_alloc(struct ccore_comm *c, uint32_t id, struct ccore_stream **out)
{
	struct clique *q = c->q;
	struct ccore_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return ccore_error(-ENOMEM, "out of memory");
	s->comm = c;
	s->id = id;
	s->slot = stream_cfg_slot(&q->scfg, id);
	s->cc = q->ranks[c->rank].core * q->rt->cc_cores + s->slot;
	*out = s;
	return 0;
}

void stream_free(struct ccore_stream *s)
{
	free(s->jobs);
	free(s->failed_msg);
	free(s);
}

int ccore_stream_create(struct ccore_comm *c, uint32_t id, struct ccore_stream **out)
{
	int rc;

	if (!c || !out)
		return ccore_error(-EINVAL, "ccore_stream_create: comm and out must be set");
	rc = stream_alloc(c, id, out);
	if (!rc && (*out)->slot != id)
		log_msg(LOG_INFO, "rank %u: stream %u is served as stream 0 (CC core 0): the communicator uses %u stream%s (%s)",
			c->rank, id, c->q->scfg.streams, c->q->scfg.streams == 1 ? "" : "s",
			c->q->scfg.streams_src);
	return rc;
}

/* The lock is held; -ETIMEDOUT with a message naming what is missing. */
int stream_wait_posted(struct ccore_stream *s, const char *fn)
{
	int64_t deadline = rt_now_ns() + peer_timeout_ns;
	char what[1024];

	while (s->pending)
		if (rt_wait_launch(deadline) && s->pending) {
			clique_describe_pending(s->comm->q, s, what, sizeof(what));
			return ccore_error(-ETIMEDOUT,
					   "%s: rank %u stream %u: %s after %lld ms (CCORE_PEER_TIMEOUT_MS)",
					   fn, s->comm->rank, s->id, what,
					   (long long)(peer_timeout_ns / 1000000));
		}
	return 0;
}

int ccore_stream_destroy(struct ccore_stream *s)
{
	if (!s || s->is_default)
		return ccore_error(-EINVAL, "ccore_stream_destroy: not a stream made by ccore_stream_create");
	rt_lock();
	/* what was posted on it and not launched can no longer run */
	clique_drop_posted(s->comm->q, s->comm->rank, s);
	plan_flush(s->comm->q);
	stream_drain(s);
	rt_unlock();
	stream_free(s);
	return 0;
}

struct ccore_stream *ccore_comm_stream(struct ccore_comm *c)
{
	if (!c)
		ccore_error(-EINVAL, "ccore_comm_stream: comm is NULL");
	return c ? c->stream0 : NULL;
}

struct ccore_stream *comm_stream(struct ccore_comm *c, struct ccore_stream *s)
{
	return s ? s : c->stream0;
}

void ops_retire(struct op *ops, uint32_t n, int rc)
{
	for (uint32_t r = 0; r < n; r++) {
		struct ccore_stream *s = ops[r].stream;

		if (!s)
			continue;
		s->pending--;
		if (rc && !s->failed) {
			s->failed = rc;
			s->failed_by = pthread_self();
			free(s->failed_msg);
			s->failed_msg = strdup(ccore_last_error());
		}
	}
	rt_launched();
}

/* Keep at most this many jobs of a stream queued on its CC core. */
#define STREAM_MAX_QUEUED 128

/* With ranks in other processes: how often a wait looks whether they still run. */
#define PEER_CHECK_NS (100ll * 1000000)
/* ... and how long, in steps, a failed job looks for a peer's death to name. */
#define PEER_GRACE_NS (200ll * 1000000)
#define PEER_GRACE_STEP_NS (10 * 1000000)

/*
 * Whether a peer's process is gone: the shared sim's dead process slots,
 * and the peers' bootstrap socket names (the kernel driver's processes);
 * its error naming them, else 0.  @waited_ns: how long the job waited.
 */
static int peer_gone(struct ccore_stream *s, int64_t waited_ns)
{
	struct ccore_comm *c = s->comm;
	struct clique *q = c->q;
	char dead[256];
	uint32_t gone;

	if (q->pids && comm_dead_ranks(c, dead, sizeof(dead)))
		return ccore_error(-EPIPE, "a collective on rank %u stream %u cannot finish: the process of %s died (the shared sim released what it held); destroy this communicator, a new one (new unique id) works",
				   c->rank, s->id, dead);
	if (xchg_peer_gone(q, &gone))
		return ccore_error(-ECONNRESET, "rank %u stream %u: rank %u is gone (its process exited or was killed) while a collective of this rank waited on it, %lld ms; the communicator cannot go on: destroy it and make a new one",
				   c->rank, s->id, gone, (long long)(waited_ns / 1000000));
	return 0;
}

static int job_wait(struct ccore_stream *s, uint64_t job)
{
	struct ccore_comm *c = s->comm;
	struct clique *q = c->q;
	bool peers = q->local || q->pids;
	int64_t left = STREAM_WAIT_NS, slice;
	int status, rc, death;

	/*
	 * A job of a rank whose peer's process died waits for semaphores
	 * nobody will raise: with peers in other processes wait in slices,
	 * and between them look whether they are still there.
	 */
	for (;;) {
		slice = peers && left > PEER_CHECK_NS ? PEER_CHECK_NS : left;
		rc = ccore_dev_job_wait(comm_dev(c), job, slice, &status);
		if (!peers || (rc != -ETIMEDOUT && rc != -EPIPE))
			break;
		death = peer_gone(s, STREAM_WAIT_NS - left + slice);
		if (death)
			return death;
		left -= slice;
		if (rc == -EPIPE || left <= 0)
			break;
	}

	if (!rc && status) {
		/*
		 * A peer's process that died mid-transfer (say, stepping this
		 * rank's engine for it) can fail the job before its exit is
		 * complete: a failure here looks a while for a death to name.
		 */
		int64_t grace = __atomic_load_n(&s->grace_spent, __ATOMIC_RELAXED) ? 0 : PEER_GRACE_NS;

		for (int64_t t = 0; peers && !rc && t <= grace; t += PEER_GRACE_STEP_NS) {
			rc = peer_gone(s, STREAM_WAIT_NS - left + t);
			if (!rc && t < grace)
				nanosleep(&(struct timespec){ 0, PEER_GRACE_STEP_NS }, NULL);
		}
		/* once none was found, the stream's next failures (the queue
		 * behind this one) do not look again (threads may sync at once) */
		if (peers && !rc)
			__atomic_store_n(&s->grace_spent, true, __ATOMIC_RELAXED);
		if (!rc)
			rc = ccore_error(status, "a collective on rank %u stream %u failed on its CC core: %d",
					 s->comm->rank, s->id, status);
	}
	return rc;
}

static void drop_jobs(struct ccore_stream *s, uint32_t n)
{
	if (!n)
		return;
	memmove(s->jobs, s->jobs + n, (s->njobs - n) * sizeof(*s->jobs));
	s->njobs -= n;
	s->jobs_dropped += n;
}

/*
 * Backpressure: a CC core queues a bounded number of jobs, so before
 * adding one more wait for the oldest half.
 */
int stream_throttle(struct ccore_stream *s)
{
	uint32_t half = STREAM_MAX_QUEUED / 2;
	int rc = 0;

	if (s->njobs < STREAM_MAX_QUEUED)
		return 0;
	for (uint32_t i = 0; i < half && !rc; i++)
		rc = job_wait(s, s->jobs[i]);
	drop_jobs(s, half);
	return rc;
}

int stream_add_job(struct ccore_stream *s, uint64_t job)
{
	if (rt_grow((void **)&s->jobs, &s->cap, s->njobs, sizeof(*s->jobs), 16))
		return ccore_error(-ENOMEM, "out of memory");
	s->jobs[s->njobs++] = job;
	return 0;
}

int stream_drain_upto(struct ccore_stream *s, uint64_t end)
{
	uint32_t n = end > s->jobs_dropped ? (uint32_t)(end - s->jobs_dropped) : 0;
	int rc = 0;

	if (n > s->njobs)
		n = s->njobs;
	for (uint32_t i = 0; i < n; i++) {
		int r = job_wait(s, s->jobs[i]);

		rc = rc ?: r;
	}
	drop_jobs(s, n);
	return rc;
}

int stream_drain(struct ccore_stream *s)
{
	return stream_drain_upto(s, s->jobs_dropped + s->njobs);
}

/*
 * The first failure a launch left on @s, once, to a thread other than the
 * one whose call returned it (one thread driving every rank heard already).
 */
static int take_failure(struct ccore_stream *s)
{
	int rc = s->failed;

	if (rc && pthread_equal(s->failed_by, pthread_self()))
		rc = 0;
	if (rc)
		ccore_error(rc, "%s", s->failed_msg ? s->failed_msg : "a launch failed");
	s->failed = 0;
	return rc;
}

int ccore_stream_sync(struct ccore_stream *s)
{
	uint64_t few[32], *jobs = NULL, upto;
	uint32_t n;
	int rc;

	if (!s)
		return ccore_error(-EINVAL, "ccore_stream_sync: stream is NULL");
	rt_lock();
	rc = stream_wait_posted(s, "ccore_stream_sync");
	if (rc) {
		rt_unlock();
		return rc;
	}
	/* wait for the jobs launched so far without the lock: other threads
	 * keep posting and launching meanwhile */
	n = s->njobs;
	upto = s->jobs_dropped + n;
	if (n) {
		jobs = n <= 32 ? few : malloc(n * sizeof(*jobs));
		if (jobs)
			memcpy(jobs, s->jobs, n * sizeof(*jobs));
		else
			rc = stream_drain(s);
	}
	rt_unlock();
	for (uint32_t i = 0; jobs && i < n; i++) {
		int r = job_wait(s, jobs[i]);

		rc = rc ?: r;
	}
	if (jobs != few)
		free(jobs);
	rt_lock();
	/* throttling may have dropped some of them already */
	if (upto > s->jobs_dropped)
		drop_jobs(s, (uint32_t)(upto - s->jobs_dropped));
	if (!rc)
		rc = take_failure(s);
	rt_unlock();
	return rc;
}

int ccore_stream_query(struct ccore_stream *s)
{
	int status, rc = 0;

	if (!s)
		return ccore_error(-EINVAL, "ccore_stream_query: stream is NULL");
	rt_lock();
	if (s->pending)
		rc = -EAGAIN;
	for (uint32_t i = 0; i < s->njobs && !rc; i++)
		if (ccore_dev_job_wait(comm_dev(s->comm), s->jobs[i], 0, &status) == -ETIMEDOUT)
			rc = -EAGAIN;
	rt_unlock();
	return rc;
}
