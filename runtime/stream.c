// SPDX-License-Identifier: MIT
/* Streams: the jobs posted on one CC core of a rank, waited for in order. */
#include "comm.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

#define STREAM_WAIT_NS (120ll * 1000000000)

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

int ccore_stream_destroy(struct ccore_stream *s)
{
	if (!s || s->is_default)
		return ccore_error(-EINVAL, "ccore_stream_destroy: not a stream made by ccore_stream_create");
	plan_flush(s->comm->q);
	ccore_stream_sync(s);
	free(s->jobs);
	free(s);
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

/* Keep at most this many jobs of a stream queued on its CC core. */
#define STREAM_MAX_QUEUED 128

/*
 * Backpressure: a CC core queues a bounded number of jobs, so before
 * adding one more wait for the oldest half.
 */
int stream_throttle(struct ccore_stream *s)
{
	struct ccore_dev *dev;
	uint32_t half = STREAM_MAX_QUEUED / 2;
	int status, rc = 0;

	if (s->njobs < STREAM_MAX_QUEUED)
		return 0;
	dev = comm_dev(s->comm);
	for (uint32_t i = 0; i < half && !rc; i++) {
		rc = ccore_dev_job_wait(dev, s->jobs[i], STREAM_WAIT_NS, &status);
		if (!rc && status)
			rc = ccore_error(status, "a collective on rank %u failed on its CC core: %d",
					 s->comm->rank, status);
	}
	memmove(s->jobs, s->jobs + half, (s->njobs - half) * sizeof(*s->jobs));
	s->njobs -= half;
	return rc;
}

int stream_add_job(struct ccore_stream *s, uint64_t job)
{
	if (s->njobs == s->cap) {
		uint32_t cap = s->cap ? s->cap * 2 : 16;
		uint64_t *j = realloc(s->jobs, cap * sizeof(*j));

		if (!j)
			return ccore_error(-ENOMEM, "out of memory");
		s->jobs = j;
		s->cap = cap;
	}
	s->jobs[s->njobs++] = job;
	return 0;
}

int ccore_stream_sync(struct ccore_stream *s)
{
	struct ccore_dev *dev;
	int rc = 0, status;

	if (!s)
		return ccore_error(-EINVAL, "ccore_stream_sync: stream is NULL");
	dev = comm_dev(s->comm);
	for (uint32_t i = 0; i < s->njobs; i++) {
		int r = ccore_dev_job_wait(dev, s->jobs[i], STREAM_WAIT_NS, &status);

		if (!r && status)
			r = ccore_error(status, "a collective on rank %u failed on its CC core: %d",
					s->comm->rank, status);
		if (!rc)
			rc = r;
	}
	s->njobs = 0;
	return rc;
}

int ccore_stream_query(struct ccore_stream *s)
{
	struct ccore_dev *dev;
	int status;

	if (!s)
		return ccore_error(-EINVAL, "ccore_stream_query: stream is NULL");
	dev = comm_dev(s->comm);
	for (uint32_t i = 0; i < s->njobs; i++)
		if (ccore_dev_job_wait(dev, s->jobs[i], 0, &status) == -ETIMEDOUT)
			return -EAGAIN;
	return 0;
}
