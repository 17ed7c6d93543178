// SPDX-License-Identifier: MIT
/*
 * The bootstrap root: a thread that collects every rank's hello (magic,
 * rank, nranks, listening address), checks that they make one job, and
 * answers each rank with every rank's address.  It serves one job and
 * ends: once every rank has its answer, or once the job has failed and
 * every rank that came was told why (a duplicate rank, ranks disagreeing
 * on nranks, ranks missing when the timeout ran out).
 *
 * The roots of this process are kept in a list so that a rank here, or a
 * launcher with boot_root_wait(), joins the thread (none is detached).
 */
#include "bootstrap/wire.h"
#include "ccore_internal.h"
#include "log.h"
#include "util/clock.h"

#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* A connecting process has this long to say who it is. */
#define HELLO_MS 2000

struct root {
	struct root *next;
	uint64_t magic;
	struct boot_addr addr;
	int timeout_ms;
	int lfd;
	int stop_fd;		/* written to end the thread early */
	pthread_t thread;
	bool claimed;		/* a thread is joining it */

	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	int result;
	char err[768];
};

static pthread_mutex_t roots_lock = PTHREAD_MUTEX_INITIALIZER;
static struct root *roots;

/* The ranks that came, while the root waits for the others. */
struct member {
	int fd;			/* -1: not (yet) here */
	struct boot_addr listen;
};

struct job {
	struct root *r;
	uint32_t nranks;	/* 0 until the first rank comes */
	uint32_t first_rank;
	struct member *m;
	uint32_t arrived;	/* members with an fd */
	uint32_t seen;		/* hellos of this job, duplicates included */
	int fatal;		/* the job failed: every rank gets err */
	int timeout_ms;
	int64_t deadline;
};

static int reply(int fd, int status, const void *body, uint32_t len, int64_t deadline)
{
	struct boot_root_reply h = {
		.proto = htonl(BOOT_PROTO), .status = (int32_t)htonl((uint32_t)status),
		.len = htonl(len),
	};

	return sock_write(fd, &h, sizeof(h), deadline) ?: sock_write(fd, body, len, deadline);
}

static void reply_error(struct job *j, int fd)
{
	size_t len = strlen(j->r->err);

	/* best effort: a rank that is gone learns nothing */
	reply(fd, j->fatal, j->r->err, (uint32_t)len, rt_now_ns() + (int64_t)HELLO_MS * 1000000);
}

/* The job failed: say why to every rank here, and to those still to come. */
static void job_fail(struct job *j, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void job_fail(struct job *j, int rc, const char *fmt, ...)
{
	char where[SOCK_ADDR_STRLEN];
	size_t n;
	va_list ap;

	n = (size_t)snprintf(j->r->err, sizeof(j->r->err), "the root at %s: ",
			     sock_addr_str(&j->r->addr, where));
	va_start(ap, fmt);
	vsnprintf(j->r->err + n, sizeof(j->r->err) - n, fmt, ap);
	va_end(ap);
	j->fatal = rc;
	for (uint32_t i = 0; i < j->nranks; i++) {
		if (j->m[i].fd < 0)
			continue;
		reply_error(j, j->m[i].fd);
		close(j->m[i].fd);
		j->m[i].fd = -1;
	}
}

/* "rank 3 " or "ranks 3,5-7 ": the members present (@here) or missing. */
static void rank_list(const struct job *j, bool here, char *buf, size_t size)
{
	bool *in = calloc(j->nranks, sizeof(*in));

	if (!in) {
		snprintf(buf, size, "(out of memory)");
		return;
	}
	for (uint32_t i = 0; i < j->nranks; i++)
		in[i] = (j->m[i].fd >= 0) == here;
	boot_ranks_str(in, (int)j->nranks, buf, size);
	free(in);
}

/* Check @h against the job so far; take the connection @fd or fail the job. */
static void admit(struct job *j, int fd, const struct boot_root_hello *h)
{
	uint32_t rank = ntohl(h->rank), nranks = ntohl(h->nranks);
	char a[SOCK_ADDR_STRLEN], b[SOCK_ADDR_STRLEN];

	if (!j->nranks) {
		static const char no_ranks[] = "a job of 0 ranks", no_memory[] = "out of memory";

		j->m = nranks ? malloc(nranks * sizeof(*j->m)) : NULL;
		if (!j->m) {
			if (nranks)
				reply(fd, -ENOMEM, no_memory, sizeof(no_memory) - 1, j->deadline);
			else
				reply(fd, -EINVAL, no_ranks, sizeof(no_ranks) - 1, j->deadline);
			close(fd);
			return;
		}
		for (uint32_t i = 0; i < nranks; i++)
			j->m[i].fd = -1;
		j->nranks = nranks;
		j->first_rank = rank;
		/* every rank within the timeout of the first, which it sets */
		j->timeout_ms = (int)ntohl(h->timeout_ms);
		if (j->timeout_ms < 1 || j->timeout_ms > BOOT_TIMEOUT_MAX_MS)
			j->timeout_ms = j->r->timeout_ms;
		j->deadline = rt_now_ns() + (int64_t)j->timeout_ms * 1000000;
	}
	j->seen++;
	if (j->fatal) {
		reply_error(j, fd);
		close(fd);
		return;
	}
	if (nranks != j->nranks)
		job_fail(j, -EINVAL, "rank %u says the job has %u ranks, rank %u said %u", rank, nranks,
			 j->first_rank, j->nranks);
	else if (rank >= j->nranks)
		job_fail(j, -EINVAL, "rank %u is out of range: the job has %u ranks (0 to %u)", rank,
			 j->nranks, j->nranks - 1);
	else if (j->m[rank].fd >= 0)
		job_fail(j, -EINVAL,
			 "rank %u joined twice: first listening at %s, then at %s (every rank must be given once)",
			 rank, sock_addr_str(&j->m[rank].listen, a), sock_addr_str(&h->listen, b));
	if (j->fatal) {
		reply_error(j, fd);
		close(fd);
		return;
	}
	j->m[rank].fd = fd;
	j->m[rank].listen = h->listen;
	j->arrived++;
}

/* One connection: who is it?  Not ours, or another job's, is turned away. */
static void greet(struct job *j, int fd)
{
	struct boot_root_hello h;
	char peer[SOCK_ADDR_STRLEN], where[SOCK_ADDR_STRLEN];
	int64_t deadline = rt_now_ns() + (int64_t)HELLO_MS * 1000000;
	int rc = sock_read(fd, &h, sizeof(h), deadline);

	if (!rc && ntohl(h.proto) != BOOT_PROTO)
		rc = -EPROTO;
	if (rc) {
		log_msg(LOG_WARN, "bootstrap root at %s: closed a connection that did not say hello (%s)",
			sock_addr_str(&j->r->addr, where), strerror(-rc));
		close(fd);
		return;
	}
	if (h.magic != j->r->magic) {
		char why[192];
		int n = snprintf(why, sizeof(why),
				 "the root at %s serves another job (the magic in the unique id differs): every rank of a job must be given the same id",
				 sock_addr_str(&j->r->addr, where));

		log_msg(LOG_WARN, "bootstrap root at %s: refused rank %u listening at %s: another job's",
			where, ntohl(h.rank), sock_addr_str(&h.listen, peer));
		reply(fd, -EPERM, why, (uint32_t)n, deadline);
		close(fd);
		return;
	}
	admit(j, fd, &h);
}

/* Every rank is here: every rank gets every address. */
static void answer(struct job *j)
{
	struct boot_addr *all = malloc(j->nranks * sizeof(*all));
	int64_t deadline = rt_now_ns() + (int64_t)j->timeout_ms * 1000000;

	if (!all) {
		job_fail(j, -ENOMEM, "out of memory for %u addresses", j->nranks);
		return;
	}
	for (uint32_t i = 0; i < j->nranks; i++)
		all[i] = j->m[i].listen;
	for (uint32_t i = 0; i < j->nranks; i++) {
		int rc = reply(j->m[i].fd, 0, all, j->nranks * (uint32_t)sizeof(*all), deadline);

		/* that rank finds out itself; the others can go on */
		if (rc)
			log_msg(LOG_WARN, "bootstrap root: could not answer rank %u: %s", i,
				strerror(-rc));
		close(j->m[i].fd);
		j->m[i].fd = -1;
	}
	free(all);
}

static void serve(struct job *j)
{
	char where[SOCK_ADDR_STRLEN], have[256], missing[256];

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = j->r->lfd, .events = POLLIN },
			{ .fd = j->r->stop_fd, .events = POLLIN },
		};
		int n, fd, rc;

		if (!j->fatal && j->nranks && j->arrived == j->nranks) {
			answer(j);
			return;
		}
		if (j->fatal && j->seen >= j->nranks)
			return;
		n = poll(p, 2, sock_poll_ms(j->deadline));
		if (n < 0 && errno != EINTR) {
			job_fail(j, -errno, "poll failed: %s", strerror(errno));
			return;
		}
		if (p[1].revents) {
			if (!j->fatal)
				job_fail(j, -ECANCELED, "stopped before every rank came");
			return;
		}
		if (n == 0 && rt_now_ns() >= j->deadline) {
			if (j->fatal)
				return;
			if (!j->nranks) {
				job_fail(j, -ETIMEDOUT, "timed out after %d ms: no rank came",
					 j->timeout_ms);
				return;
			}
			rank_list(j, false, missing, sizeof(missing));
			rank_list(j, true, have, sizeof(have));
			job_fail(j, -ETIMEDOUT,
				 "timed out after %d ms waiting for %s to reach the root (%u of %u came: %s)",
				 j->timeout_ms, missing, j->arrived, j->nranks, have);
			return;
		}
		if (!(p[0].revents & POLLIN))
			continue;
		rc = sock_accept(j->r->lfd, rt_now_ns(), &fd);
		if (rc == -ETIMEDOUT)
			continue;
		if (rc) {
			log_msg(LOG_WARN, "bootstrap root at %s: accept failed: %s",
				sock_addr_str(&j->r->addr, where), strerror(-rc));
			continue;
		}
		greet(j, fd);
	}
}

static void *root_main(void *arg)
{
	struct root *r = arg;
	struct job j = {
		.r = r, .timeout_ms = r->timeout_ms,
		.deadline = rt_now_ns() + (int64_t)r->timeout_ms * 1000000,
	};

	serve(&j);
	for (uint32_t i = 0; i < j.nranks; i++)
		if (j.m[i].fd >= 0)
			close(j.m[i].fd);
	free(j.m);
	pthread_mutex_lock(&r->lock);
	r->done = true;
	r->result = j.fatal;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

static void root_free(struct root *r)
{
	close(r->lfd);
	close(r->stop_fd);
	pthread_cond_destroy(&r->cond);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

int root_start(struct boot_addr *addr, uint64_t magic, int timeout_ms)
{
	struct root *r = calloc(1, sizeof(*r));
	int rc;

	if (!r)
		return -ENOMEM;
	r->magic = magic;
	r->timeout_ms = timeout_ms;
	r->stop_fd = -1;
	rc = sock_listen(addr, &r->lfd);
	if (rc) {
		free(r);
		return rc;
	}
	r->addr = *addr;
	r->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (r->stop_fd < 0) {
		rc = -errno;
		close(r->lfd);
		free(r);
		return rc;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	rc = -pthread_create(&r->thread, NULL, root_main, r);
	if (rc) {
		root_free(r);
		return rc;
	}
	pthread_mutex_lock(&roots_lock);
	r->next = roots;
	roots = r;
	pthread_mutex_unlock(&roots_lock);
	return 0;
}

int root_join(uint64_t magic, int timeout_ms, char *err, size_t errlen)
{
	struct root *r, **pp;
	struct timespec until;
	int rc;

	pthread_mutex_lock(&roots_lock);
	for (r = roots; r && (r->magic != magic || r->claimed); r = r->next)
		;
	if (r)
		r->claimed = true;
	pthread_mutex_unlock(&roots_lock);
	if (!r)
		return -ENOENT;

	until = rt_realtime_in_ms(timeout_ms);
	pthread_mutex_lock(&r->lock);
	while (!r->done && pthread_cond_timedwait(&r->cond, &r->lock, &until) != ETIMEDOUT)
		;
	if (!r->done) {
		uint64_t one = 1;

		/* it ends at once, telling the ranks here that it stopped */
		if (write(r->stop_fd, &one, sizeof(one)) != sizeof(one))
			log_msg(LOG_WARN, "bootstrap root: cannot stop it: %s", strerror(errno));
	}
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);

	pthread_mutex_lock(&roots_lock);
	for (pp = &roots; *pp != r; pp = &(*pp)->next)
		;
	*pp = r->next;
	pthread_mutex_unlock(&roots_lock);
	rc = r->result;
	if (err)
		snprintf(err, errlen, "%s", rc ? r->err : "");
	root_free(r);
	return rc;
}
