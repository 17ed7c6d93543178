// SPDX-License-Identifier: GPL-2.0
/*
 * The bootstrap (runtime/bootstrap/) between real processes: each case forks
 * one process per rank over loopback, and every process reports back
 * through a pipe what it checked and the bootstrap's error text, which the
 * case asserts on.  Every process also checks that it ends with the file
 * descriptors and threads it started with (a root thread joined, every
 * socket closed, every fd passed closed); the sanitizer build's leak
 * check runs in each one.
 *
 * Over 800 lines on purpose: the process harness (fork, report pipe,
 * descriptor and thread counts) serves every case here and no other test.
 */
#include "ccore_test.h"
#include "proc_counts.h"
#include "bootstrap/boot.h"
#include "ccore.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAXP 8
/* a process that takes longer than this is killed and the case fails */
#define JOB_LIMIT_MS 15000
/* what a rank of a healthy job waits at most; failing cases use less */
#define OK_TIMEOUT_MS 10000
#define FAIL_TIMEOUT_MS 1000

/*
 * ThreadSanitizer runs a thread of its own once a process has made one:
 * under it, only the file descriptors are counted.
 */
#ifdef __SANITIZE_THREAD__
#define THREADS_COUNTED 0
#else
#define THREADS_COUNTED 1
#endif

static int count_threads(void)
{
	return THREADS_COUNTED ? count_dir_entries("/proc/self/task") : 0;
}

/* --- one process per rank ---------------------------------------------------- */

/* What a process tells the case: its exit code, and text (errors, notes). */
struct proc {
	pid_t pid;
	int status;		/* from waitpid */
	char msg[2048];
};

/* What a rank process is given. */
struct rank_ctx {
	int idx;		/* which process of the job */
	int id_fd;		/* read (or write) the unique id here */
	int go[2];		/* a pipe for ordering processes within a case */
	const void *arg;
	char *msg;
	size_t size;
};

typedef int (*rank_fn)(struct rank_ctx *c);

/* In a child: say @fmt into its report; returns 1 (a failure code). */
static int say(struct rank_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(struct rank_ctx *c, const char *fmt, ...)
{
	size_t n = strlen(c->msg);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->msg + n, c->size - n, fmt, ap);
	va_end(ap);
	return 1;
}

/* In a child: fail the process with what went wrong. */
#define CHILD_CHECK(c, cond, ...)                                                   \
	do {                                                                        \
		if (!(cond))                                                        \
			return say(c, "%s:%d: %s: ", __FILE__, __LINE__, #cond),    \
			       say(c, __VA_ARGS__);                                 \
	} while (0)

/* In a child: wait for the case's go from @who (c->go); 0, or 1 having said why. */
static int wait_go(struct rank_ctx *c, const char *who)
{
	struct pollfd pf = { .fd = c->go[0], .events = POLLIN };
	char go;

	CHILD_CHECK(c, poll(&pf, 1, JOB_LIMIT_MS) == 1 && read(c->go[0], &go, 1) == 1,
		    "no go from %s", who);
	return 0;
}

/*
 * Run @n processes of @fn, each with the read end of a pipe for ids
 * (@id_writer: the process that writes them, -1: the case's own code does,
 * through *@id_wfd, before waiting).  Fills @p; the case asserts.
 */
static void run_job(int n, rank_fn fn, const void *arg, struct proc *p, int id_writer,
		    void (*launcher)(int id_wfd, int n))
{
	int idp[2], gop[2], res[MAXP][2], fds = count_open_fds();
	struct timespec t0;

	ASSERT_LE(n, MAXP);
	ASSERT_EQ(pipe2(idp, O_CLOEXEC), 0);
	ASSERT_EQ(pipe2(gop, O_CLOEXEC), 0);
	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < n; i++) {
		ASSERT_EQ(pipe2(res[i], O_CLOEXEC), 0);
		p[i].msg[0] = '\0';
		p[i].pid = fork();
		ASSERT_GE(p[i].pid, 0);
		if (p[i].pid == 0) {
			static char msg[2048];
			struct rank_ctx c = {
				.idx = i, .arg = arg, .msg = msg, .size = sizeof(msg),
				.id_fd = i == id_writer ? idp[1] : idp[0],
				.go = { gop[0], gop[1] },
			};
			int code;

			close(res[i][0]);
			close(i == id_writer ? idp[0] : idp[1]);
			alarm(JOB_LIMIT_MS / 1000 + 5);
			code = fn(&c);
			if (write(res[i][1], msg, strlen(msg)) < 0)
				code = 2;
			/* exit, not _exit: the sanitizer's leak check runs here too */
			exit(code);
		}
		close(res[i][1]);
	}
	close(idp[0]);
	close(gop[0]);
	close(gop[1]);
	if (launcher)
		launcher(idp[1], n);
	close(idp[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n; i++) {
		size_t got = 0;

		for (;;) {
			struct timespec t;
			struct pollfd pf = { .fd = res[i][0], .events = POLLIN };
			ssize_t r;
			long ms;

			clock_gettime(CLOCK_MONOTONIC, &t);
			ms = JOB_LIMIT_MS - ((t.tv_sec - t0.tv_sec) * 1000 +
					     (t.tv_nsec - t0.tv_nsec) / 1000000);
			if (ms <= 0 || poll(&pf, 1, (int)ms) <= 0) {
				for (int k = 0; k < n; k++)
					kill(p[k].pid, SIGKILL);
				snprintf(p[i].msg + got, sizeof(p[i].msg) - got, " (killed: ran over %d ms)",
					 JOB_LIMIT_MS);
				break;
			}
			r = read(res[i][0], p[i].msg + got, sizeof(p[i].msg) - 1 - got);
			if (r <= 0)
				break;
			got += (size_t)r;
		}
		p[i].msg[got] = '\0';
		close(res[i][0]);
	}
	for (int i = 0; i < n; i++)
		waitpid(p[i].pid, &p[i].status, 0);
	ASSERT_EQ(count_open_fds(), fds);
}

static bool exited_ok(const struct proc *p)
{
	return WIFEXITED(p->status) && WEXITSTATUS(p->status) == 0;
}

/* Every process exited 0. */
static void assert_all_ok(const struct proc *p, int n)
{
	for (int i = 0; i < n; i++)
		if (!exited_ok(&p[i]))
			FAIL("process %d: status 0x%x: %s", i, p[i].status, p[i].msg);
}

/* Process @i exited 3 (the bootstrap failed, as the case wants) saying @needle. */
static void assert_failed_with(const struct proc *p, int i, const char *needle)
{
	if (!WIFEXITED(p[i].status) || WEXITSTATUS(p[i].status) != 3)
		FAIL("process %d: expected the bootstrap to fail (exit 3), status 0x%x: %s", i,
		     p[i].status, p[i].msg);
	if (!strstr(p[i].msg, needle))
		FAIL("process %d: expected \"%s\" in \"%s\"", i, needle, p[i].msg);
	ccore_test_log("process %d: %s", i, p[i].msg);
}

static int read_id(int fd, struct boot_id *id)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < sizeof(*id)) {
		ssize_t r;

		if (poll(&pf, 1, JOB_LIMIT_MS) <= 0)
			return -ETIMEDOUT;
		r = read(fd, id->bytes + got, sizeof(*id) - got);
		if (r <= 0)
			return -EPIPE;
		got += (size_t)r;
	}
	return 0;
}

static int write_ids(int fd, const struct boot_id *id, int count)
{
	for (int i = 0; i < count; i++)
		if (write(fd, id, sizeof(*id)) != (ssize_t)sizeof(*id))
			return -errno;
	return 0;
}

/*
 * In a child of a two-rank case: rank 0 makes the id and hands it over,
 * both join over loopback with the short timeout; 0, or 1 having said why.
 */
static int pair_join(struct rank_ctx *c, struct boot **b)
{
	struct boot_id id;

	setenv("CCORE_SOCKET_IFNAME", "lo", 1);
	if (c->idx == 0) {
		CHILD_CHECK(c, !boot_unique_id(&id), "%s", ccore_last_error());
		CHILD_CHECK(c, !write_ids(c->id_fd, &id, 1), "writing the id");
	} else {
		CHILD_CHECK(c, !read_id(c->id_fd, &id), "no id");
	}
	CHILD_CHECK(c, !boot_init(&id, c->idx, 2, FAIL_TIMEOUT_MS, b), "%s", ccore_last_error());
	return 0;
}

/* A port nobody listens on now, for CCORE_COMM_ID. */
static int free_port(int family)
{
	struct sockaddr_storage ss = { .ss_family = (sa_family_t)family };
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in)
					  : sizeof(struct sockaddr_in6);
	int s = socket(family, SOCK_STREAM, 0), port;

	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	if (s < 0 || bind(s, (struct sockaddr *)&ss, len) ||
	    getsockname(s, (struct sockaddr *)&ss, &len))
		FAIL("no free port: %s", strerror(errno));
	port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
				       : ((struct sockaddr_in6 *)&ss)->sin6_port);
	close(s);
	return port;
}

/* --- what the ranks do ---------------------------------------------------------- */

/* How a job's processes get their id, rank and settings. */
struct job_spec {
	int nranks;		/* what each rank says (nranks_of overrides) */
	int timeout_ms;
	const char *comm_id;	/* set: every process derives the id from it */
	bool launcher;		/* the case's code makes the id (run_job's launcher) */
	int rank_of[MAXP];	/* process -> rank (default: its index) */
	int nranks_of[MAXP];	/* process -> nranks it says (0: nranks) */
	bool corrupt_magic[MAXP];
	int kill_after_init;	/* process + 1 that dies after init (0: none) */
	const char *algo_of[MAXP];	/* CCORE_ALGO per process (NULL: unset) */
	bool wait_go[MAXP];	/* before boot_init, until a stray was refused */
	const char *tuner_file;	/* CCORE_TUNER_FILE of every process */
	int exchange;		/* 1: the data checks of a healthy job */
};

static unsigned char pattern(int rank, size_t i, int salt)
{
	return (unsigned char)(rank * 31 + (int)(i % 251) * 7 + salt);
}

/* Allgather blocks of @size, twice (the second reuses the ring), checking every byte. */
static int check_allgather(struct rank_ctx *c, struct boot *b, size_t size, int salt)
{
	int n = boot_nranks(b), rank = boot_rank(b), rc;
	unsigned char *buf = calloc((size_t)n, size);

	CHILD_CHECK(c, buf, "out of memory");
	for (size_t i = 0; i < size; i++)
		buf[(size_t)rank * size + i] = pattern(rank, i, salt);
	rc = boot_allgather(b, buf, size);
	if (rc) {
		free(buf);
		return say(c, "allgather %zu: %s", size, ccore_last_error());
	}
	for (int r = 0; r < n; r++)
		for (size_t i = 0; i < size; i++)
			if (buf[(size_t)r * size + i] != pattern(r, i, salt)) {
				free(buf);
				return say(c, "allgather %zu: rank %d's byte %zu is wrong", size, r, i);
			}
	free(buf);
	return 0;
}

/*
 * Every rank sends every other two messages, tags 2 then 1, and receives
 * them in the other order: the tags keep them apart.
 */
static int check_p2p(struct rank_ctx *c, struct boot *b)
{
	int n = boot_nranks(b), rank = boot_rank(b);
	unsigned char out[2][100], in[100];

	for (int t = 0; t < 2; t++)
		for (size_t i = 0; i < sizeof(out[t]); i++)
			out[t][i] = pattern(rank, i, 50 + t);
	for (int p = 0; p < n; p++) {
		if (boot_send(b, p, 2, out[1], sizeof(out[1])) ||
		    boot_send(b, p, 1, out[0], 40 + (size_t)rank))
			return say(c, "send to %d: %s", p, ccore_last_error());
	}
	for (int q = 0; q < n; q++) {
		int p = (rank + q) % n;

		for (int t = 0; t < 2; t++) {
			size_t len = t ? sizeof(in) : 40 + (size_t)p;

			memset(in, 0, sizeof(in));
			if (boot_recv(b, p, t ? 2 : 1, in, len))
				return say(c, "recv from %d tag %d: %s", p, t ? 2 : 1, ccore_last_error());
			for (size_t i = 0; i < len; i++)
				CHILD_CHECK(c, in[i] == pattern(p, i, 50 + t),
					    "message from rank %d tag %d: byte %zu wrong", p, t ? 2 : 1, i);
		}
	}
	return 0;
}

/*
 * Every rank sends every other a large message before receiving any: two
 * ranks 48 MiB, more than loopback's socket buffers hold (up to 32 MiB
 * received and 4 MiB sent here), so each send completes only because the
 * peer, blocked in its own send, takes in what arrives meanwhile.  More
 * ranks send 1 MiB each, to each other all at once.
 */
static int check_p2p_large(struct rank_ctx *c, struct boot *b)
{
	int n = boot_nranks(b), rank = boot_rank(b);
	size_t size = n == 2 ? 48 << 20 : 1 << 20;
	unsigned char *out = malloc(size), *in = malloc(size);
	int code = 0;

	CHILD_CHECK(c, out && in, "out of memory");
	for (size_t i = 0; i < size; i++)
		out[i] = pattern(rank, i, 77);
	for (int q = 1; q < n && !code; q++)
		if (boot_send(b, (rank + q) % n, 3, out, size))
			code = say(c, "large send to %d: %s", (rank + q) % n, ccore_last_error());
	for (int q = 1; q < n && !code; q++) {
		int p = (rank + n - q) % n;

		if (boot_recv(b, p, 3, in, size)) {
			code = say(c, "large recv from %d: %s", p, ccore_last_error());
			break;
		}
		for (size_t i = 0; i < size && !code; i++)
			if (in[i] != pattern(p, i, 77))
				code = say(c, "large message from rank %d: byte %zu wrong", p, i);
	}
	free(out);
	free(in);
	return code;
}

/*
 * File descriptors over the fd channel: every rank sends every other the
 * read end of a pipe holding one byte per peer, its rank (tag 5), a
 * message of two fds nobody takes (tag 6: closed with the bootstrap) and
 * one of one fd taken as two (tag 7: fails naming both counts); each
 * reads a byte from every peer's pipe, which must be the peer's rank.
 * Every peer's channel is bound.  The fd count at the end shows that
 * nothing stays open.
 */
static int check_fds(struct rank_ctx *c, struct boot *b)
{
	int n = boot_nranks(b), rank = boot_rank(b), pipefd[2], got[2];
	unsigned char mine = (unsigned char)rank, theirs;

	CHILD_CHECK(c, !pipe(pipefd), "pipe: %s", strerror(errno));
	for (int q = 1; q < n; q++) {
		int p = (rank + q) % n, two[2] = { pipefd[0], pipefd[0] };

		CHILD_CHECK(c, write(pipefd[1], &mine, 1) == 1, "pipe write");
		CHILD_CHECK(c, !boot_send_fds(b, p, 5, &pipefd[0], 1) &&
			    !boot_send_fds(b, p, 6, two, 2) && !boot_send_fds(b, p, 7, two, 1),
			    "fds to %d: %s", p, ccore_last_error());
	}
	close(pipefd[0]);
	close(pipefd[1]);
	for (int q = 1; q < n; q++) {
		int p = (rank + n - q) % n;

		CHILD_CHECK(c, !boot_recv_fds(b, p, 5, got, 1), "fds from %d: %s", p,
			    ccore_last_error());
		CHILD_CHECK(c, read(got[0], &theirs, 1) == 1, "reading rank %d's pipe", p);
		close(got[0]);
		CHILD_CHECK(c, theirs == p, "rank %d's pipe holds %d", p, theirs);
		CHILD_CHECK(c, boot_recv_fds(b, p, 7, got, 2) == -EPROTO &&
			    strstr(ccore_last_error(), "expected 2 fds") &&
			    strstr(ccore_last_error(), "it sent 1"),
			    "a wrong count: %s", ccore_last_error());
		CHILD_CHECK(c, boot_peer_bound(b, p) == 1, "rank %d's fd channel not bound", p);
	}
	return 0;
}

/* A rank of @spec: exit 0 (all checked), 3 (the bootstrap failed: msg is its error), else 1. */
static int rank_main(struct rank_ctx *c)
{
	const struct job_spec *s = c->arg;
	int fds = count_open_fds(), threads = count_threads(), rc, code = 0;
	int rank = s->rank_of[c->idx] ? s->rank_of[c->idx] - 1 : c->idx;
	int nranks = s->nranks_of[c->idx] ? s->nranks_of[c->idx] : s->nranks;
	struct boot_id id;
	struct boot *b;

	setenv("CCORE_SOCKET_IFNAME", "lo", 1);
	if (s->algo_of[c->idx])
		setenv("CCORE_ALGO", s->algo_of[c->idx], 1);
	else
		unsetenv("CCORE_ALGO");
	if (s->tuner_file)
		setenv("CCORE_TUNER_FILE", s->tuner_file, 1);
	if (s->comm_id) {
		setenv("CCORE_COMM_ID", s->comm_id, 1);
		rc = boot_unique_id(&id);
		CHILD_CHECK(c, !rc, "boot_unique_id from CCORE_COMM_ID: %s", ccore_last_error());
	} else if (c->idx == 0 && !s->launcher) {
		rc = boot_unique_id(&id);
		CHILD_CHECK(c, !rc, "boot_unique_id: %s", ccore_last_error());
		CHILD_CHECK(c, count_threads() == threads + THREADS_COUNTED,
			    "no root thread: %d threads", count_threads());
		CHILD_CHECK(c, !write_ids(c->id_fd, &id, MAXP), "writing the id: %s", strerror(errno));
	} else {
		CHILD_CHECK(c, !read_id(c->id_fd, &id), "no id from the pipe");
	}
	if (s->corrupt_magic[c->idx])
		id.bytes[8] ^= 0x5a;	/* the magic: boot/wire.h */
	if (s->wait_go[c->idx] && wait_go(c, "the stray"))
		return 1;

	rc = boot_init(&id, rank, nranks, s->timeout_ms, &b);
	if (s->corrupt_magic[c->idx])
		CHILD_CHECK(c, write(c->go[1], "gogogogo", MAXP) == MAXP, "no go");
	if (rc) {
		say(c, "%s", ccore_last_error());
		code = 3;
		goto out;
	}
	if (s->kill_after_init == c->idx + 1)
		raise(SIGKILL);
	if (s->kill_after_init) {
		/* the others find the dead rank in their next call */
		struct timespec pause = { 0, 100 * 1000000 };
		int victim = s->kill_after_init - 1;

		nanosleep(&pause, NULL);
		/* and this host sees its fd channel gone */
		CHILD_CHECK(c, boot_peer_bound(b, victim) == 0, "rank %d's fd channel still bound",
			    victim);
	}
	if (s->exchange) {
		code = check_allgather(c, b, 64, 1) ?: check_allgather(c, b, 1, 2) ?:
		       check_allgather(c, b, 256 * 1024, 3) ?: check_p2p(c, b) ?:
		       check_p2p_large(c, b) ?: check_fds(c, b);
		if (!code && boot_barrier(b))
			code = say(c, "barrier: %s", ccore_last_error());
		if (code) {
			boot_close(b);
			goto out;
		}
	}
	rc = boot_check_settings(b);
	if (!rc)
		rc = boot_barrier(b);
	if (rc) {
		say(c, "%s", ccore_last_error());
		code = 3;
	}
	boot_close(b);
out:
	if (!s->comm_id && c->idx == 0 && !s->launcher) {
		/* the root ran here; a rank of the job joined it, none is left */
		CHILD_CHECK(c, boot_root_wait(&id, 100) == -ENOENT, "the root is still here");
	}
	CHILD_CHECK(c, count_open_fds() == fds, "%d fds open at the end, %d at the start", count_open_fds(),
		    fds);
	CHILD_CHECK(c, count_threads() == threads, "%d threads at the end, %d at the start",
		    count_threads(), threads);
	return code;
}

/* The case's own process makes the id (a launcher that runs no rank). */
static void launch_id(int id_wfd, int n)
{
	int fds = count_open_fds(), threads = count_threads();
	struct boot_id id;

	setenv("CCORE_SOCKET_IFNAME", "lo", 1);
	ASSERT_EQ(boot_unique_id(&id), 0);
	ASSERT_EQ(write_ids(id_wfd, &id, n), 0);
	/* the root serves the ranks, then ends */
	if (boot_root_wait(&id, OK_TIMEOUT_MS))
		FAIL("boot_root_wait: %s", ccore_last_error());
	ASSERT_EQ(count_open_fds(), fds);
	ASSERT_EQ(count_threads(), threads);
	ASSERT_EQ(boot_root_wait(&id, 100), -ENOENT);
	unsetenv("CCORE_SOCKET_IFNAME");
}

static void run_spec(const struct job_spec *s, int nprocs, struct proc *p)
{
	run_job(nprocs, rank_main, s, p, s->comm_id || s->launcher ? -1 : 0,
		s->launcher ? launch_id : NULL);
}

/* Run @s in @nprocs processes: each fails naming @needle. */
static void expect_all_fail(const struct job_spec *s, int nprocs, const char *needle)
{
	struct proc p[MAXP];

	run_spec(s, nprocs, p);
	for (int i = 0; i < nprocs; i++)
		assert_failed_with(p, i, needle);
}

static void healthy(int n, const char *comm_id)
{
	struct job_spec s = { .nranks = n, .timeout_ms = OK_TIMEOUT_MS, .comm_id = comm_id,
			      .exchange = 1 };
	struct proc p[MAXP];

	run_spec(&s, n, p);
	assert_all_ok(p, n);
}

/* --- healthy jobs --------------------------------------------------------------- */

TEST(pipe_2) { healthy(2, NULL); }
TEST(pipe_3) { healthy(3, NULL); }
TEST(pipe_4) { healthy(4, NULL); }
TEST(pipe_8) { healthy(8, NULL); }

static void comm_id_job(int n, int family)
{
	char v[64];

	snprintf(v, sizeof(v), family == AF_INET ? "127.0.0.1:%d" : "[::1]:%d", free_port(family));
	healthy(n, v);
}

TEST(comm_id_2) { comm_id_job(2, AF_INET); }
TEST(comm_id_3) { comm_id_job(3, AF_INET); }
TEST(comm_id_4) { comm_id_job(4, AF_INET); }
TEST(comm_id_8) { comm_id_job(8, AF_INET); }
TEST(comm_id_ipv6) { comm_id_job(3, AF_INET6); }

TEST(launcher_root)
{
	struct job_spec s = { .nranks = 3, .timeout_ms = OK_TIMEOUT_MS, .launcher = true,
			      .exchange = 1 };
	struct proc p[MAXP];

	run_spec(&s, 3, p);
	assert_all_ok(p, 3);
}

/* --- broken jobs ---------------------------------------------------------------- */

TEST(wrong_magic)
{
	/*
	 * process 3 is a stray with another job's id: refused while the root
	 * still waits for ranks 1 and 2; the job runs
	 */
	struct job_spec s = { .nranks = 3, .timeout_ms = OK_TIMEOUT_MS, .exchange = 1,
			      .rank_of = { [3] = 2 }, .corrupt_magic = { [3] = true },
			      .wait_go = { false, true, true, false } };
	struct proc p[MAXP];

	run_spec(&s, 4, p);
	assert_all_ok(p, 3);
	assert_failed_with(p, 3, "serves another job");
}

TEST(duplicate_rank)
{
	struct job_spec s = { .nranks = 3, .timeout_ms = FAIL_TIMEOUT_MS * 3,
			      .rank_of = { [2] = 2 } };

	expect_all_fail(&s, 3, "rank 1 joined twice");
}

TEST(nranks_disagree)
{
	struct job_spec s = { .nranks = 3, .timeout_ms = FAIL_TIMEOUT_MS,
			      .nranks_of = { [2] = 4 } };

	expect_all_fail(&s, 3, "says the job has");
}

TEST(rank_never_arrives)
{
	struct job_spec s = { .nranks = 4, .timeout_ms = FAIL_TIMEOUT_MS };

	expect_all_fail(&s, 3, "waiting for rank 3 to reach the root (3 of 4 came: ranks 0-2)");
}

TEST(comm_id_rank0_missing)
{
	char v[64];
	struct job_spec s = { .nranks = 3, .timeout_ms = FAIL_TIMEOUT_MS, .comm_id = v,
			      .rank_of = { 2, 3 } };

	snprintf(v, sizeof(v), "127.0.0.1:%d", free_port(AF_INET));
	expect_all_fail(&s, 2, "rank 0 runs it; did rank 0 start?");
}

static void killed(int n, int victim)
{
	struct job_spec s = { .nranks = n, .timeout_ms = FAIL_TIMEOUT_MS * 3,
			      .kill_after_init = victim + 1 };
	struct proc p[MAXP];
	char needle[32];

	run_spec(&s, n, p);
	snprintf(needle, sizeof(needle), "rank %d is gone", victim);
	for (int i = 0; i < n; i++) {
		if (i == victim) {
			ASSERT_TRUE(WIFSIGNALED(p[i].status) && WTERMSIG(p[i].status) == SIGKILL);
			continue;
		}
		assert_failed_with(p, i, needle);
	}
}

TEST(killed_after_init) { killed(4, 2); }
TEST(killed_root_rank) { killed(3, 0); }

TEST(algo_mismatch)
{
	struct job_spec s = { .nranks = 4, .timeout_ms = OK_TIMEOUT_MS,
			      .algo_of = { "ring", NULL, "ring", NULL } };

	expect_all_fail(&s, 4, "CCORE_ALGO differs between ranks: ranks 0,2 \"ring\", ranks 1,3 unset (the settings");
}

/* One path, other contents: each process reads its own /proc/self/stat. */
TEST(tuner_file_contents)
{
	struct job_spec s = { .nranks = 2, .timeout_ms = OK_TIMEOUT_MS,
			      .tuner_file = "/proc/self/stat",
			      .algo_of = { "", NULL } };
	struct proc p[MAXP];

	run_spec(&s, 2, p);
	for (int i = 0; i < 2; i++) {
		assert_failed_with(p, i, "CCORE_TUNER_FILE (its contents) differs between ranks: rank 0 \"fnv1a-64 ");
		/* the same path, and empty is unset: neither differs */
		ASSERT_FALSE(strstr(p[i].msg, "CCORE_TUNER_FILE differs"));
		ASSERT_FALSE(strstr(p[i].msg, "CCORE_ALGO"));
	}
}

TEST(algo_agree)
{
	struct job_spec s = { .nranks = 3, .timeout_ms = OK_TIMEOUT_MS,
			      .algo_of = { "ring;allreduce:^mesh", "ring;allreduce:^mesh",
					   "ring;allreduce:^mesh" } };
	struct proc p[MAXP];

	run_spec(&s, 3, p);
	assert_all_ok(p, 3);
}

/* Values of the caller's own: the same pass, several differing are named together. */
static int values_main(struct rank_ctx *c)
{
	const char *comm_id = c->arg;
	int fds = count_open_fds(), r = c->idx;
	struct boot_value same[] = { { "nodes", "1" }, { "unset", NULL } };
	struct boot_value differ[] = {
		{ "nodes", "1" }, { "parity", r % 2 ? "odd" : "even" }, { "cfg", r == 2 ? NULL : "a" },
	};
	struct boot_id id;
	struct boot *b;
	int rc;

	setenv("CCORE_SOCKET_IFNAME", "lo", 1);
	setenv("CCORE_COMM_ID", comm_id, 1);
	CHILD_CHECK(c, !boot_unique_id(&id), "%s", ccore_last_error());
	CHILD_CHECK(c, !boot_init(&id, r, 3, OK_TIMEOUT_MS, &b), "%s", ccore_last_error());
	rc = boot_check_values(b, same, 2, "every rank must agree");
	CHILD_CHECK(c, !rc, "the same values differ: %s", ccore_last_error());
	rc = boot_check_values(b, differ, 3, "every rank must agree");
	CHILD_CHECK(c, rc == -EINVAL, "differing values pass: %d", rc);
	say(c, "%s", ccore_last_error());
	/* a value check is no failure of the bootstrap */
	CHILD_CHECK(c, !boot_barrier(b), "%s", ccore_last_error());
	boot_close(b);
	CHILD_CHECK(c, count_open_fds() == fds, "fds leaked");
	return 3;
}

TEST(values_differ)
{
	char v[64];
	struct proc p[3];

	snprintf(v, sizeof(v), "127.0.0.1:%d", free_port(AF_INET));
	run_job(3, values_main, v, p, -1, NULL);
	for (int i = 0; i < 3; i++)
		assert_failed_with(p, i, ": parity differs between ranks: ranks 0,2 \"even\", rank 1 \"odd\"; cfg differs between ranks: ranks 0,1 \"a\", rank 2 unset (every rank must agree)");
}

/* Point to point: a receive nobody sends to times out naming the peer and the tag. */
static int recv_timeout_main(struct rank_ctx *c)
{
	int fds = count_open_fds(), threads = count_threads();
	struct boot *b;
	char buf[16];
	int rc;

	if (pair_join(c, &b))
		return 1;
	if (c->idx == 0) {
		/* 8 bytes where rank 1 expects 16 */
		CHILD_CHECK(c, !boot_send(b, 1, 7, "12345678", 8), "%s", ccore_last_error());
		rc = boot_recv(b, 1, 5, buf, sizeof(buf));
	} else {
		/* once rank 0 timed out: its message is here before its abort */
		nanosleep(&(struct timespec){ 1, 300 * 1000000L }, NULL);
		rc = boot_recv(b, 0, 7, buf, 16);
	}
	CHILD_CHECK(c, rc, "the receive succeeded");
	say(c, "%s", ccore_last_error());
	/* after an error, every call repeats it */
	CHILD_CHECK(c, boot_barrier(b) == rc, "a second call returned something else");
	boot_close(b);
	CHILD_CHECK(c, count_open_fds() == fds && count_threads() == threads, "fds or threads leaked");
	return 3;
}

TEST(recv_timeout_and_length)
{
	struct proc p[2];

	run_job(2, recv_timeout_main, NULL, p, 0, NULL);
	assert_failed_with(p, 0, "timed out after 1000 ms waiting for rank 1 to send a message with tag 5 (16 bytes)");
	assert_failed_with(p, 1, "rank 0 sent 8 bytes as a message with tag 7 (16 bytes), rank 1 expected 16");
}

/*
 * A send larger than the socket buffers to a rank that calls nothing for
 * longer than the timeout: the error says how much went, and the peer,
 * once back, finds the sender gone (no abort spliced into the cut frame).
 */
static int send_timeout_main(struct rank_ctx *c)
{
	/* far past what loopback TCP buffers (tcp_rmem's 32 MiB and tcp_wmem's 4 MiB
	 * by default), however much autotuning grants */
	size_t size = (size_t)256 << 20;
	unsigned char *buf = calloc(1, size);
	int fds = count_open_fds(), rc;
	struct boot *b;

	CHILD_CHECK(c, buf, "out of memory");
	if (pair_join(c, &b))
		return 1;
	if (c->idx == 0) {
		rc = boot_send(b, 1, 3, buf, size);
		/* the receiver reads only once the send gave up, however late it began */
		CHILD_CHECK(c, write(c->go[1], "g", 1) == 1, "no go");
	} else {
		if (wait_go(c, "the sender"))
			return 1;
		rc = boot_recv(b, 0, 3, buf, size);
	}
	free(buf);
	CHILD_CHECK(c, rc, "the transfer succeeded");
	say(c, "%s", ccore_last_error());
	boot_close(b);
	CHILD_CHECK(c, count_open_fds() == fds, "fds leaked");
	return 3;
}

TEST(send_timeout)
{
	struct proc p[2];

	run_job(2, send_timeout_main, NULL, p, 0, NULL);
	assert_failed_with(p, 0, "send: timed out after 1000 ms waiting for rank 1 to take a message with tag 3 (268435456 bytes) (");
	assert_failed_with(p, 0, " of 268435472 bytes sent)");
	assert_failed_with(p, 1, "recv: rank 0 is gone before it sent a message with tag 3 (268435456 bytes): its connection closed without a goodbye");
}

/* --- in this process ------------------------------------------------------------ */

/* A job of one rank, from CCORE_COMM_ID: the root runs here for the time of init. */
TEST(single_rank)
{
	int fds = count_open_fds(), threads = count_threads(), v = 42;
	char value[64];
	struct boot_id id;
	struct boot *b;

	snprintf(value, sizeof(value), "127.0.0.1:%d", free_port(AF_INET));
	setenv("CCORE_COMM_ID", value, 1);
	setenv("CCORE_SOCKET_IFNAME", "=lo", 1);
	ASSERT_EQ(boot_unique_id(&id), 0);
	ASSERT_EQ(count_threads(), threads);
	if (boot_init(&id, 0, 1, OK_TIMEOUT_MS, &b))
		FAIL("boot_init: %s", ccore_last_error());
	ASSERT_EQ(boot_allgather(b, &v, sizeof(v)), 0);
	ASSERT_EQ(boot_barrier(b), 0);
	ASSERT_EQ(boot_send(b, 0, 3, &v, sizeof(v)), 0);
	v = 0;
	ASSERT_EQ(boot_recv(b, 0, 3, &v, sizeof(v)), 0);
	ASSERT_EQ(v, 42);
	ASSERT_EQ(boot_recv(b, 0, 3, &v, sizeof(v)), -ENOMSG);
	ASSERT_EQ(boot_check_settings(b), 0);
	boot_close(b);
	unsetenv("CCORE_COMM_ID");
	unsetenv("CCORE_SOCKET_IFNAME");
	ASSERT_EQ(count_open_fds(), fds);
	ASSERT_EQ(count_threads(), threads);
}

/* A root nobody comes to is stopped by boot_root_wait, its thread joined. */
TEST(root_wait_stops)
{
	int fds = count_open_fds(), threads = count_threads();
	struct boot_id id;

	setenv("CCORE_SOCKET_IFNAME", "lo", 1);
	ASSERT_EQ(boot_unique_id(&id), 0);
	ASSERT_EQ(count_threads(), threads + THREADS_COUNTED);
	ASSERT_EQ(boot_root_wait(&id, 50), -ECANCELED);
	ASSERT_STR_CONTAINS(ccore_last_error(), "stopped before every rank came");
	unsetenv("CCORE_SOCKET_IFNAME");
	ASSERT_EQ(count_open_fds(), fds);
	ASSERT_EQ(count_threads(), threads);
}

TEST(bad_comm_id)
{
	static const char *const bad[] = {
		"nohost", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536",
		"127.0.0.1:12x", ":1234", "::1:1234", "[::1]1234", "[::1:1234",
		"[127.0.0.1]:1234", "127.0.0.1:-5", "[]:1234",
	};
	struct boot_id id;
	char needle[80];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("CCORE_COMM_ID", bad[i], 1);
		if (boot_unique_id(&id) != -EINVAL)
			FAIL("CCORE_COMM_ID=%s accepted", bad[i]);
		snprintf(needle, sizeof(needle), "CCORE_COMM_ID=%s: ", bad[i]);
		ASSERT_STR_CONTAINS(ccore_last_error(), needle);
		ASSERT_STR_CONTAINS(ccore_last_error(), "host:port or [IPv6 address]:port");
	}
	unsetenv("CCORE_COMM_ID");
}

/* Rank 0 must listen at CCORE_COMM_ID: an address of another host is an error naming it. */
TEST(comm_id_not_here)
{
	struct boot_id id;
	struct boot *b;

	setenv("CCORE_COMM_ID", "192.0.2.77:4567", 1);
	setenv("CCORE_SOCKET_IFNAME", "lo", 1);
	ASSERT_EQ(boot_unique_id(&id), 0);
	ASSERT_LT(boot_init(&id, 0, 2, FAIL_TIMEOUT_MS, &b), 0);
	ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_COMM_ID=192.0.2.77:4567: rank 0 cannot run the root there");
	unsetenv("CCORE_COMM_ID");
	unsetenv("CCORE_SOCKET_IFNAME");
}

TEST(bad_socket_ifname)
{
	static const char *const bad[] = {
		",lo", "lo,", "^", "=", "^=", "lo,,eth", "averyveryverylongname0",
	};
	struct boot_id id;
	char needle[80];

	unsetenv("CCORE_COMM_ID");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("CCORE_SOCKET_IFNAME", bad[i], 1);
		if (boot_unique_id(&id) != -EINVAL)
			FAIL("CCORE_SOCKET_IFNAME=%s accepted", bad[i]);
		snprintf(needle, sizeof(needle), "CCORE_SOCKET_IFNAME=%s: ", bad[i]);
		ASSERT_STR_CONTAINS(ccore_last_error(), needle);
		ASSERT_STR_CONTAINS(ccore_last_error(), "'^' first to exclude");
	}
	setenv("CCORE_SOCKET_IFNAME", "nosuchif", 1);
	ASSERT_EQ(boot_unique_id(&id), -ENODEV);
	ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_SOCKET_IFNAME=nosuchif: no up interface");
	ASSERT_STR_CONTAINS(ccore_last_error(), "up interfaces: lo");
	setenv("CCORE_SOCKET_IFNAME", "=l", 1);	/* whole names only */
	ASSERT_EQ(boot_unique_id(&id), -ENODEV);
	unsetenv("CCORE_SOCKET_IFNAME");
}

TEST(bad_timeout_and_args)
{
	static const char *const bad[] = { "0", "-1", "abc", "86400001", "10ms" };
	struct boot_id id;
	struct boot *b;
	char value[64];

	snprintf(value, sizeof(value), "127.0.0.1:%d", free_port(AF_INET));
	setenv("CCORE_COMM_ID", value, 1);
	ASSERT_EQ(boot_unique_id(&id), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv("CCORE_BOOT_TIMEOUT_MS", bad[i], 1);
		ASSERT_EQ(boot_init(&id, 0, 1, 0, &b), -EINVAL);
		ASSERT_STR_CONTAINS(ccore_last_error(), "CCORE_BOOT_TIMEOUT_MS=");
		ASSERT_STR_CONTAINS(ccore_last_error(), "expected milliseconds from 1 to 86400000");
	}
	unsetenv("CCORE_BOOT_TIMEOUT_MS");
	ASSERT_EQ(boot_init(&id, 0, 1, -5, &b), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "bootstrap timeout -5 ms");
	ASSERT_EQ(boot_init(&id, 2, 2, 0, &b), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "rank 2: expected 0 to 1");
	ASSERT_EQ(boot_init(&id, 0, 0, 0, &b), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "nranks 0");
	memset(&id, 0, sizeof(id));
	ASSERT_EQ(boot_init(&id, 0, 1, 0, &b), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "not one boot_unique_id made");
	unsetenv("CCORE_COMM_ID");
}

TEST(bad_p2p_args)
{
	char value[64];
	struct boot_id id;
	struct boot *b;
	int v = 0;

	snprintf(value, sizeof(value), "127.0.0.1:%d", free_port(AF_INET));
	setenv("CCORE_COMM_ID", value, 1);
	setenv("CCORE_SOCKET_IFNAME", "lo", 1);
	ASSERT_EQ(boot_unique_id(&id), 0);
	ASSERT_EQ(boot_init(&id, 0, 1, OK_TIMEOUT_MS, &b), 0);
	ASSERT_EQ(boot_send(b, 1, 0, &v, sizeof(v)), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "peer 1: expected a rank from 0 to 0");
	ASSERT_EQ(boot_recv(b, -1, 0, &v, sizeof(v)), -EINVAL);
	ASSERT_EQ(boot_send(b, 0, 0x80000001u, &v, sizeof(v)), -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "tag 2147483649: expected 0 to 2147483647");
	/* argument errors do not break the bootstrap */
	ASSERT_EQ(boot_barrier(b), 0);
	boot_close(b);
	unsetenv("CCORE_COMM_ID");
	unsetenv("CCORE_SOCKET_IFNAME");
}

/*
 * The settings table is the one list of the runtime's variables: every
 * "CCORE_*" string in runtime/ names one of its entries.
 */
TEST(settings_table_complete)
{
	static const char *const not_variables[] = { "CCORE_COMM_CONFIG_INIT" };
	size_t n, found = 0;
	const struct boot_setting *t = boot_settings(&n);
	char cmd[512], name[128];
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "grep -rhoE '\"CCORE_[A-Z0-9_]+\"' '%s/runtime' --include=*.c --include=*.h | tr -d '\"' | sort -u",
		 CCORE_SRCDIR);
	f = popen(cmd, "r");
	ASSERT_TRUE(f);
	while (fgets(name, sizeof(name), f)) {
		bool known = false;

		name[strcspn(name, "\n")] = '\0';
		for (size_t i = 0; i < n; i++)
			known |= !strcmp(t[i].name, name);
		for (size_t i = 0; i < sizeof(not_variables) / sizeof(not_variables[0]); i++)
			known |= !strcmp(not_variables[i], name);
		if (!known) {
			pclose(f);
			FAIL("%s is read by the runtime but missing from runtime/bootstrap/settings.c's table: say whether it decides plans",
			     name);
		}
		found++;
	}
	ASSERT_EQ(pclose(f), 0);
	ASSERT_GE(found, 20);
	for (size_t i = 0; i < n; i++)
		ASSERT_TRUE(t[i].why && *t[i].why);
}
