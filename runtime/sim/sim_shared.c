// SPDX-License-Identifier: MIT
/*
 * Shared sim systems: the processes of one host open one simulated fabric.
 *
 * The fabric's whole state (the device model, device memory, struct
 * sim_shared) lives in an arena: a memfd, so nothing is named in /dev/shm
 * or on disk and the memory goes when the last process unmaps it, however
 * the job ends.  Every process maps it at the same address, so the model's
 * pointers hold everywhere.  The first process of a job key creates it and
 * serves the memfd over a UNIX socket in the abstract namespace (SCM_RIGHTS;
 * the name goes with the socket too); the others connect and map it with
 * MAP_FIXED_NOREPLACE.  Every process keeps the memfd and serves it too,
 * on a name of its slot (ccore-sim.KEY.SLOT): a process that opens the
 * fabric after its creator closed or died finds it there.  Each process claims cores and runs their agents on
 * its own workers (model/ccm_shared_user.c): launching work costs no round
 * trip through another process.  See Documentation/device-model.rst,
 * "Processes sharing a fabric".
 */
#include "sim.h"
#include "ccm_arena.h"
#include "util/fnv.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SIM_HELLO_MAGIC 0x63636f72652d7368ull	/* "ccore-sh" */
#define SIM_SMALL_HEAP (1ull << 30)
#define SIM_ATTACH_TIMEOUT_NS (30ll * 1000000000)
/* How often a waiter looks for processes that died. */
#define SIM_DEATH_CHECK_NS 10000000
#define SIM_KEY_MAX 80

struct sim_hello {
	u64 magic;
	u64 base;
	u64 size;
};

struct sim_link {
	char key[SIM_KEY_MAX + 1];
	struct sim_link *next;	/* this process's open shared systems */
	int memfd;		/* for those who attach later */
	int main_fd;		/* the creator's: the job key's own name */
	int slot_fd;		/* everyone's: the name of its slot */
	bool stopping;		/* atomic */
	pthread_t server;
	bool server_started;
	void *base;
	u64 size;
};

/* This process's open shared systems: one per job key. */
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_link *open_links;

/* Note @l open under its key; -EALREADY if this process has it open. */
static int note_open(struct sim_link *l, const char *key)
{
	struct sim_link *o;
	int rc = 0;

	pthread_mutex_lock(&open_lock);
	for (o = open_links; o; o = o->next)
		if (!strcmp(o->key, key))
			rc = -EALREADY;
	if (!rc) {
		snprintf(l->key, sizeof(l->key), "%s", key);
		l->next = open_links;
		open_links = l;
	}
	pthread_mutex_unlock(&open_lock);
	if (rc)
		return ccore_error(rc, "shared sim: this process has the fabric of job key \"%s\" open already: its ranks share that system (ccore_system_claim_core() claims more cores)",
				   key);
	return 0;
}

static void note_closed(struct sim_link *l)
{
	struct sim_link **p;

	pthread_mutex_lock(&open_lock);
	for (p = &open_links; *p; p = &(*p)->next)
		if (*p == l) {
			*p = l->next;
			break;
		}
	pthread_mutex_unlock(&open_lock);
}

static u64 key_hash(const char *key)
{
	return fnv1a_str(FNV1A_BASIS, key, SIZE_MAX);
}

u32 sim_arena_hint(const char *key)
{
	return (u32)(key_hash(key) % SIM_ARENA_HINTS);
}

static int check_key(const char *key)
{
	size_t i, n = key ? strlen(key) : 0;

	if (!n || n > SIM_KEY_MAX)
		return ccore_error(-EINVAL, "shared sim: job key \"%s\" must be 1..%d characters",
				   key ? key : "(null)", SIM_KEY_MAX);
	for (i = 0; i < n; i++)
		if (key[i] <= ' ' || key[i] > '~')
			return ccore_error(-EINVAL, "shared sim: job key \"%s\": character %zu is not printable ASCII (no spaces)",
					   key, i);
	return 0;
}

/* The abstract socket name of @key: nothing in the file system. */
static socklen_t sock_name(const char *key, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "ccore-sim.%s", key);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(sa->sun_path + 1));
}

static void send_arena(int conn, const struct sim_link *l)
{
	struct sim_hello hello = {
		.magic = SIM_HELLO_MAGIC, .base = (u64)(uintptr_t)l->base, .size = l->size,
	};
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &hello, .iov_len = sizeof(hello) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &l->memfd, sizeof(int));
	if (sendmsg(conn, &msg, MSG_NOSIGNAL) < 0)
		ccore_error(-errno, "shared sim: sending the fabric to a process: %s", strerror(errno));
}

/* Serve the memfd to every process that connects, on either name. */
static void *server_main(void *arg)
{
	struct sim_link *l = arg;
	struct pollfd p[2] = {
		{ .fd = l->slot_fd, .events = POLLIN }, { .fd = l->main_fd, .events = POLLIN },
	};
	int conn, i;

	while (!__atomic_load_n(&l->stopping, __ATOMIC_ACQUIRE)) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return NULL;
		for (i = 0; i < 2; i++) {
			if (p[i].fd < 0 || !p[i].revents)
				continue;
			conn = accept4(p[i].fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
			if (conn >= 0) {
				send_arena(conn, l);
				close(conn);
			} else if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
				p[i].fd = -1;	/* shut down at close */
			}
		}
		if (p[0].fd < 0 && p[1].fd < 0)
			return NULL;
	}
	return NULL;
}

/* Listen on @key's name (@slot: that slot's; CCM_NO_INDEX: the key's own). */
static int name_socket(const char *key, u32 slot, bool listening)
{
	struct sockaddr_un sa;
	socklen_t len;
	char name[SIM_KEY_MAX + 16];
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (slot == CCM_NO_INDEX)
		snprintf(name, sizeof(name), "%s", key);
	else
		snprintf(name, sizeof(name), "%s.%u", key, slot);
	len = sock_name(name, &sa);
	if (fd < 0)
		return -1;
	if (listening ? bind(fd, (struct sockaddr *)&sa, len) || listen(fd, 64) :
			connect(fd, (struct sockaddr *)&sa, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int recv_arena(int sock, struct sim_hello *hello, int *memfd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = hello, .iov_len = sizeof(*hello) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm;
	ssize_t n;

	do {
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	} while (n < 0 && errno == EINTR);
	cm = n == (ssize_t)sizeof(*hello) ? CMSG_FIRSTHDR(&msg) : NULL;
	if (!cm || cm->cmsg_type != SCM_RIGHTS || hello->magic != SIM_HELLO_MAGIC)
		return ccore_error(-EPROTO, "shared sim: the process serving the fabric sent no fabric (%zd bytes%s)",
				   n, n < 0 ? ", failed" : "");
	memcpy(memfd, CMSG_DATA(cm), sizeof(int));
	return 0;
}

static u64 arena_size(const struct ccm_config *cfg)
{
	u64 ndev = (u64)cfg->nodes * cfg->devices_per_node;
	u64 ncc = ndev * cfg->cores * cfg->cc_cores;
	/* instruction memory and its regions per CC core, device memory */
	u64 imem = ncc * cfg->max_program_size *
		   (sizeof(struct drm_ccore_insn) + 2 * sizeof(u32)) + ncc * 8192;

	return SIM_SMALL_HEAP + ndev * cfg->hbm_size + imem + (64ull << 20);
}

/* Map @size bytes of @fd exactly at @want, or fail (errno EEXIST: taken). */
static void *map_at(int fd, u64 size, u64 want)
{
	void *p = mmap((void *)(uintptr_t)want, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, fd, 0);

	if (p != MAP_FAILED && p != (void *)(uintptr_t)want) {
		/* a kernel without MAP_FIXED_NOREPLACE took it as a hint */
		munmap(p, size);
		p = MAP_FAILED;
		errno = EEXIST;
	}
	return p;
}

/*
 * Map @size bytes of @fd at @base, or (@base 0) at the first free slot
 * from @key's hint on, else anywhere.  Two fabrics of one process whose
 * keys share a slot (1 in 32) made the second go anywhere: among the
 * libraries and stacks, where the other processes could not map it.
 */
static void *map_arena(int fd, u64 size, u64 base, const char *key)
{
	void *p;
	u64 first;

	if (base) {
		p = map_at(fd, size, base);
		return p == MAP_FAILED ? NULL : p;
	}
	first = sim_arena_hint(key);
	p = MAP_FAILED;
	for (u64 i = 0; p == MAP_FAILED && i < SIM_ARENA_HINTS; i++)
		p = map_at(fd, size, SIM_ARENA_HINT + (first + i) % SIM_ARENA_HINTS *
				     SIM_ARENA_STRIDE);
	if (p == MAP_FAILED)
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	return p == MAP_FAILED ? NULL : p;
}

static int parse_config(const char *config, struct ccm_config *cfg)
{
	struct ccm_err err = { 0 };

	ccm_config_default(cfg);
	cfg->workers = ccm_host_cpus() > 8 ? 8 : ccm_host_cpus() > 1 ? ccm_host_cpus() - 1 : 1;
	if (config && ccm_config_parse(cfg, config, &err))
		return ccore_error(-EINVAL, "sim configuration \"%s\": %s", config, err.msg);
	return 0;
}

/* The first process: the arena, the fabric in it, the firmware. */
static int create_fabric(struct sim_system *s, const char *key, const char *config)
{
	struct sim_link *l = s->link;
	struct ccm_err err = { 0 };
	struct ccm_config cfg;
	struct sim_shared *sh;
	int rc;

	rc = parse_config(config, &cfg);
	if (rc)
		return rc;
	if (config && strlen(config) >= sizeof(sh->config))
		return ccore_error(-EINVAL, "shared sim: configuration \"%s\" longer than %zu characters",
				   config, sizeof(sh->config) - 1);
	l->size = arena_size(&cfg);
	l->memfd = memfd_create("ccore-sim", MFD_CLOEXEC);
	if (l->memfd < 0 || ftruncate(l->memfd, (off_t)l->size))
		return ccore_error(-errno, "shared sim: memfd of %llu bytes: %s",
				   (unsigned long long)l->size, strerror(errno));
	l->base = map_arena(l->memfd, l->size, 0, key);
	if (!l->base)
		return ccore_error(-errno, "shared sim: mapping %llu bytes: %s",
				   (unsigned long long)l->size, strerror(errno));
	rc = ccm_arena_init(l->base, l->size, SIM_SMALL_HEAP, &s->arena);
	if (rc == -EMFILE)
		return ccore_error(rc, "shared sim: this process has as many shared fabrics open as it may");
	if (rc)
		return ccore_error(rc, "shared sim: laying out %llu bytes: %s",
				   (unsigned long long)l->size, strerror(-rc));
	ccm_arena_current = s->arena;
	sh = ccm_zalloc(sizeof(*sh));
	if (sh)
		ccm_mutex_init(&sh->lock);
	ccm_arena_current = NULL;
	if (!sh)
		return ccore_error(-ENOMEM, "shared sim: out of memory");
	s->sh = sh;
	s->f = ccm_fabric_create_shared(&cfg, s->arena, &err);
	if (!s->f)
		return ccore_error(-EINVAL, "shared sim: %s", err.msg);
	sh->f = s->f;
	snprintf(sh->config, sizeof(sh->config), "%s", config ? config : "");
	rc = sim_load_firmware(s);
	if (rc)
		return rc;
	s->arena->root = sh;
	ccm_store32(&sh->ready, 1);
	return 0;
}

/* A later process: map the arena the creator sent, at its address. */
static int join_fabric(struct sim_system *s, int sock, const char *config)
{
	struct sim_link *l = s->link;
	struct sim_hello hello;
	int memfd = -1, rc;

	rc = recv_arena(sock, &hello, &memfd);
	if (rc)
		return rc;
	l->size = hello.size;
	l->base = map_arena(memfd, hello.size, hello.base, NULL);
	l->memfd = memfd;	/* to serve it in turn */
	if (!l->base)
		return ccore_error(-EADDRINUSE, "shared sim: the fabric lives at 0x%llx..0x%llx in every process, and that range is taken in this one (%s); open the shared fabric before mapping much else",
				   (unsigned long long)hello.base,
				   (unsigned long long)(hello.base + hello.size), strerror(errno));
	rc = ccm_arena_join(l->base, l->size, &s->arena);
	if (rc == -EMFILE)
		return ccore_error(rc, "shared sim: this process has as many shared fabrics open as it may");
	if (rc)
		return ccore_error(rc, "shared sim: what was sent is no fabric of this library version");
	s->sh = s->arena->root;
	if (!s->sh || !ccm_load32(&s->sh->ready))
		return ccore_error(-EPROTO, "shared sim: the fabric was sent before it was ready");
	s->f = s->sh->f;
	if (config && strcmp(config, s->sh->config))
		return ccore_error(-EINVAL, "shared sim: the fabric was created with configuration \"%s\", this process asks for \"%s\": every process must give the same",
				   s->sh->config, config);
	return 0;
}

/*
 * A process serving @key's fabric: its creator (the key's own name), else
 * any process attached to it (its slot's name); -1 if none.
 */
static int find_server(const char *key)
{
	int fd = name_socket(key, CCM_NO_INDEX, false);
	u32 slot;

	for (slot = 0; fd < 0 && slot < CCM_MAX_PROCS; slot++)
		fd = name_socket(key, slot, false);
	return fd;
}

/* Connect to a process serving @key's fabric, or become its creator. */
static int rendezvous(struct sim_system *s, const char *key, const char *config,
		      int64_t timeout_ns)
{
	struct sim_link *l = s->link;
	s64 deadline = ccm_now_ns() + (timeout_ns > 0 ? timeout_ns : SIM_ATTACH_TIMEOUT_NS);
	struct timespec pause = { 0, 1000000 };
	int fd, rc;

	for (;;) {
		fd = find_server(key);
		if (fd >= 0) {
			rc = join_fabric(s, fd, config);
			close(fd);
			return rc;
		}
		/* whoever binds the key's own name first creates the fabric */
		fd = name_socket(key, CCM_NO_INDEX, true);
		if (fd >= 0) {
			l->main_fd = fd;
			return create_fabric(s, key, config);
		}
		/* another process is creating it */
		if (ccm_now_ns() >= deadline)
			return ccore_error(-ETIMEDOUT, "shared sim: job key \"%s\": no process served the fabric within %lld ms",
					   key, (long long)((timeout_ns > 0 ? timeout_ns : SIM_ATTACH_TIMEOUT_NS) / 1000000));
		nanosleep(&pause, NULL);
	}
}

int sim_core_mine(struct sim_ctx *c, unsigned long req, u32 core)
{
	struct sim_system *s = c->sys;
	u32 owner;

	if (!sim_shared(s) || core >= ccm_fabric_config(s->f)->cores)
		return 0;
	owner = ccm_core_owner(s->f, c->dev, core);
	if (owner == s->slot)
		return 0;
	if (owner == CCM_NO_INDEX)
		return ccore_error(-EPERM, "%s: core %u of device %u is not claimed by this process (slot %u): claim it first (ccore_shared_opts.cores, ccore_system_claim_core)",
				   ccore_ioctl_name(req), core, c->dev, s->slot);
	return ccore_error(-EPERM, "%s: core %u of device %u belongs to process slot %u (pid %u), not to this one (slot %u)",
			   ccore_ioctl_name(req), core, c->dev, owner,
			   ccm_fabric_slot_pid(s->f, owner), s->slot);
}

/* Note what dead @slot held, for the messages of those who waited on it. */
static void note_dead(struct sim_system *s, u32 slot)
{
	char *out = s->sh->dead_cores[slot];
	size_t len = sizeof(s->sh->dead_cores[slot]), n;
	const struct ccm_config *cfg = ccm_fabric_config(s->f);
	u32 d, k, cores = 0;

	n = (size_t)snprintf(out, len, "process slot %u (pid %u", slot,
			     ccm_fabric_dead_pid(s->f, slot));
	for (d = 0; d < ccm_fabric_num_devices(s->f); d++)
		for (k = 0; k < cfg->cores; k++) {
			if (ccm_core_owner(s->f, d, k) != slot || n >= len)
				continue;
			n += (size_t)snprintf(out + n, len - n, "%s%u/%u", cores++ ? ", " : "; cores ",
					      d, k);
		}
	if (n < len)
		snprintf(out + n, len - n, ")");
}

/* Release what dead @slot's contexts held in the sim's tables. */
static void release_dead(struct sim_system *s, u32 slot)
{
	struct sim_shared *sh = s->sh;
	struct sim_mem *m, *next;
	struct sim_ctx *c;
	u32 i;

	for (i = 0; i < sh->ntokens; i++)
		if (sh->tokens[i].open && sh->tokens[i].slot == slot)
			sim_token_close(s, (s32)(SIM_TOKEN_BASE + ((u32)sh->tokens[i].gen << 16) + i));
	for (m = sh->mems; m; m = next) {
		next = m->next;

		while (m->slot_refs[slot]) {
			bool last = m->refs == 1;

			sim_mem_put_slot(s, m, slot);
			if (last)
				break;	/* freed */
		}
	}
	for (c = sh->ctxs; c; c = c->next_ctx)
		if (c->slot == slot && !c->released) {
			ccm_sem_free_owner(s->f, c->dev, c);
			c->released = true;
		}
}

u64 sim_reap_dead(struct sim_system *s)
{
	u64 found, dead;
	u32 slot;

	if (!sim_shared(s))
		return 0;
	found = ccm_fabric_find_dead(s->f);
	dead = ccm_fabric_dead_slots(s->f);
	if (!dead)
		return found;
	ccm_arena_current = s->arena;
	ccm_mutex_lock(&s->sh->lock);
	for (slot = 0; slot < CCM_MAX_PROCS; slot++) {
		if (!(dead >> slot & 1))
			continue;
		if (found >> slot & 1 || !s->sh->dead_cores[slot][0])
			note_dead(s, slot);
		/* its cores stopped first: nothing moves into memory freed below */
		if (ccm_fabric_reap(s->f, slot))
			release_dead(s, slot);
	}
	ccm_mutex_unlock(&s->sh->lock);
	ccm_arena_current = NULL;
	return found;
}

/* -EPIPE naming the processes found dead. */
static int dead_error(struct sim_system *s, const char *what)
{
	u64 dead = ccm_fabric_dead_slots(s->f);
	char names[512];
	size_t n = 0;
	u32 slot;

	names[0] = 0;
	for (slot = 0; slot < CCM_MAX_PROCS && n < sizeof(names); slot++)
		if (dead >> slot & 1)
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? "; " : "",
					      s->sh->dead_cores[slot]);
	return ccore_error(-EPIPE, "%s: a process sharing the fabric died: %s; its cores were stopped and what it held released",
			   what, names);
}

static int fabric_wait(struct sim_system *s, bool (*cond)(void *), void *arg, s64 deadline_ns,
		       bool job)
{
	return job ? ccm_fabric_wait_job(s->f, cond, arg, deadline_ns) :
		     ccm_fabric_wait(s->f, cond, arg, deadline_ns);
}

static int wait_for(struct sim_ctx *c, bool (*cond)(void *), void *arg, s64 deadline_ns,
		    const char *what, bool job)
{
	struct sim_system *s = c->sys;
	char why[384];
	u32 deaths;
	s64 slice;
	int rc;

	if (!sim_shared(s))
		return fabric_wait(s, cond, arg, deadline_ns, job);
	/* done already (a stream's older jobs usually are): no clock to read */
	if (cond(arg))
		return 0;
	deaths = ccm_fabric_deaths(s->f);
	for (;;) {
		slice = ccm_now_ns() + SIM_DEATH_CHECK_NS;
		if (slice > deadline_ns)
			slice = deadline_ns;
		rc = fabric_wait(s, cond, arg, slice, job);
		if (!rc)
			return 0;
		sim_reap_dead(s);
		if (ccm_fabric_deaths(s->f) != deaths)
			return dead_error(s, what);
		if (sim_net_broken(s, why, sizeof(why)))
			return ccore_error(-EHOSTUNREACH, "%s: %s", what, why);
		if (slice >= deadline_ns)
			break;
	}
	/* timed out: a process that died before this wait began may be why */
	if (ccm_fabric_dead_slots(s->f))
		return dead_error(s, what);
	return rc;
}

int sim_wait(struct sim_ctx *c, bool (*cond)(void *), void *arg, s64 deadline_ns,
	     const char *what)
{
	return wait_for(c, cond, arg, deadline_ns, what, false);
}

int sim_wait_job(struct sim_ctx *c, bool (*cond)(void *), void *arg, s64 deadline_ns)
{
	return wait_for(c, cond, arg, deadline_ns, "JOB_WAIT", true);
}

static int claim(struct sim_system *s, u32 dev, u32 core)
{
	struct ccm_err err = { 0 };
	int rc = ccm_core_claim(s->f, dev, core, &err);

	/* held by a process that died: reap it, then take it */
	if (rc == -EBUSY && sim_reap_dead(s))
		rc = ccm_core_claim(s->f, dev, core, &err);
	return rc ? ccore_error(rc, "shared sim: claiming core %u of device %u: %s", core, dev,
				err.msg) : 0;
}

static struct sim_system *shared_of(struct ccore_system *base, const char *what)
{
	struct sim_system *s = (struct sim_system *)base;

	if (sim_shared(s))
		return s;
	ccore_error(-ENODEV, "%s: this sim system is not shared (ccore_system_open_shared)", what);
	return NULL;
}

int sim_claim_core(struct ccore_system *base, uint32_t dev, uint32_t core)
{
	struct sim_system *s = shared_of(base, "claiming cores");

	return s ? claim(s, dev, core) : -ENODEV;
}

int sim_slots(struct ccore_system *base, uint32_t *slot, uint64_t *dead)
{
	struct sim_system *s = shared_of(base, "process slots");

	if (!s)
		return -ENODEV;
	if (slot)
		*slot = s->slot;
	if (dead) {
		sim_reap_dead(s);
		*dead = ccm_fabric_dead_slots(s->f);
	}
	return 0;
}

int sim_slot_pid(struct ccore_system *base, uint32_t slot, uint32_t *pid)
{
	struct sim_system *s = shared_of(base, "process slots");

	if (!s)
		return -ENODEV;
	if (slot >= CCM_MAX_PROCS)
		return ccore_error(-EINVAL, "process slot %u does not exist (0..%u)", slot,
				   CCM_MAX_PROCS - 1);
	*pid = ccm_fabric_slot_pid(s->f, slot);
	if (!*pid)
		*pid = ccm_fabric_dead_pid(s->f, slot);
	return 0;
}

static int attach(struct sim_system *s, const struct ccore_shared_opts *opts)
{
	struct ccm_err err = { 0 };
	u32 i;
	int rc;

	sim_reap_dead(s);
	ccm_mutex_lock(&s->sh->lock);
	rc = ccm_fabric_attach(s->f, &sim_host_ops, s, &s->slot, &err);
	if (rc) {
		ccm_mutex_unlock(&s->sh->lock);
		return ccore_error(rc, "shared sim: %s", err.msg);
	}
	s->deaths_seen = ccm_fabric_deaths(s->f);
	s->sh->dead_cores[s->slot][0] = 0;
	s->base.ops = &sim_shared_ops;
	s->base.model = s->f;
	s->base.ndev = ccm_fabric_num_devices(s->f);
	s->base.devs = calloc(s->base.ndev, sizeof(*s->base.devs));
	s->ctx = calloc(s->base.ndev, sizeof(*s->ctx));
	rc = s->base.devs && s->ctx ? 0 : -ENOMEM;
	for (i = 0; !rc && i < s->base.ndev; i++) {
		rc = sim_ctx_open(s, i);
		if (!rc) {
			s->ctx[i]->next_ctx = s->sh->ctxs;
			s->sh->ctxs = s->ctx[i];
		}
	}
	ccm_mutex_unlock(&s->sh->lock);
	if (rc)
		return ccore_error(rc, "shared sim: out of memory opening devices");
	for (i = 0; i < opts->ncores; i++) {
		rc = claim(s, opts->cores[i].dev, opts->cores[i].core);
		if (rc)
			return rc;
	}
	return 0;
}

int sim_shared_open(const char *key, const struct ccore_shared_opts *opts,
		    struct ccore_system **out)
{
	static const struct ccore_shared_opts none;
	struct sim_system *s;
	int rc;

	rc = check_key(key);
	if (rc)
		return rc;
	if (!opts)
		opts = &none;
	if (opts->ncores && !opts->cores)
		return ccore_error(-EINVAL, "shared sim: %u cores to claim but cores is NULL",
				   opts->ncores);
	s = calloc(1, sizeof(*s));
	if (s)
		s->link = calloc(1, sizeof(*s->link));
	if (!s || !s->link) {
		free(s);
		return ccore_error(-ENOMEM, "shared sim: out of memory");
	}
	s->link->memfd = -1;
	s->link->main_fd = -1;
	s->link->slot_fd = -1;
	rc = note_open(s->link, key);
	if (rc) {
		free(s->link);
		free(s);
		return rc;
	}
	rc = rendezvous(s, key, opts->sim_config ? opts->sim_config : getenv("CCORE_SIM"),
			opts->timeout_ns);
	if (!rc)
		rc = attach(s, opts);
	if (!rc) {
		/* a slot's name may linger a moment after its last holder closed:
		 * then this process serves under the key's name alone */
		s->link->slot_fd = name_socket(key, s->slot, true);
		if (pthread_create(&s->link->server, NULL, server_main, s->link))
			rc = ccore_error(-EAGAIN, "shared sim: no thread to serve the fabric");
		s->link->server_started = !rc;
	}
	if (rc) {
		char msg[1024];

		/* closing must not overwrite why it failed */
		snprintf(msg, sizeof(msg), "%s", ccore_last_error());
		sim_shared_close(s);
		return ccore_error(rc, "%s", msg);
	}
	*out = &s->base;
	return 0;
}

static void stop_serving(struct sim_link *l)
{
	__atomic_store_n(&l->stopping, true, __ATOMIC_RELEASE);
	if (l->slot_fd >= 0)
		shutdown(l->slot_fd, SHUT_RDWR);
	if (l->main_fd >= 0)
		shutdown(l->main_fd, SHUT_RDWR);
	if (l->server_started)
		pthread_join(l->server, NULL);
	if (l->slot_fd >= 0)
		close(l->slot_fd);
	if (l->main_fd >= 0)
		close(l->main_fd);
	l->slot_fd = l->main_fd = -1;
	l->server_started = false;
}

void sim_shared_close(struct sim_system *s)
{
	struct sim_link *l = s->link;
	u32 i;

	/* the proxy first: it waits on the fabric and reports to it */
	sim_net_stop(s);
	/* first: a process taking this slot next binds its name */
	stop_serving(l);
	if (s->f && ccm_fabric_slot(s->f) != CCM_NO_INDEX) {
		ccm_fabric_stop(s->f);
		ccm_arena_current = s->arena;
		ccm_mutex_lock(&s->sh->lock);
		for (i = 0; i < s->base.ndev; i++)
			if (s->ctx && s->ctx[i]) {
				sim_job_fini(s->ctx[i]);
				sim_ring_fini(s->ctx[i]);
			}
		for (i = 0; i < s->base.ndev; i++)
			if (s->ctx && s->ctx[i]) {
				sim_ctx_fini(s->ctx[i]);
				s->ctx[i]->released = true;	/* stays: others may pin its blocks */
			}
		/* its exports go with it, as its fds would */
		for (i = 0; i < s->sh->ntokens; i++)
			if (s->sh->tokens[i].open && s->sh->tokens[i].slot == s->slot)
				sim_token_close(s, (s32)(SIM_TOKEN_BASE +
							 ((u32)s->sh->tokens[i].gen << 16) + i));
		ccm_fabric_detach(s->f);
		ccm_mutex_unlock(&s->sh->lock);
		ccm_arena_current = NULL;
	}
	if (l->memfd >= 0)
		close(l->memfd);
	note_closed(l);
	if (s->arena)
		ccm_arena_forget(s->arena);
	if (l->base)
		munmap(l->base, l->size);
	free(s->ctx);
	free(s->base.devs);
	free(l);
	free(s);
}
