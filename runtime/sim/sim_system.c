// SPDX-License-Identifier: MIT
/*
 * The sim backend's system: creates the device model from a configuration,
 * loads the resident firmware on every CC core, opens one context per
 * device and routes each uAPI request to its family's handler.
 */
#include "sim.h"
#include "ccore_firmware.h"

#include <stdio.h>
#include <stdlib.h>

/*
 * The calling thread's last failed ioctl, as GET_LAST_ERROR answers it on
 * the context it failed on.  sim_fail() arms it with the reason of the
 * call in progress; sim_ioctl() completes it once the call failed.
 */
static _Thread_local struct {
	u64 ctx;		/* the context's serial, 0: nothing recorded */
	bool armed;
	struct drm_ccore_last_error e;
} sim_last;
static u64 sim_ctx_serial;	/* of the last context opened (atomic) */

int sim_fail(unsigned long request, int rc, const struct ccm_err *err)
{
	sim_last.armed = true;
	sim_last.e.reason = err->reason;
	sim_last.e.index = err->index;
	sim_last.e.limit = err->limit;
	if (err->reason == DRM_CCORE_REASON_NONE)
		return ccore_error(rc, "%s: %s", ccore_ioctl_name(request), err->msg);
	return ccore_error(rc, "%s: %s (reason %s)", ccore_ioctl_name(request), err->msg,
			   ccore_reason_name(err->reason));
}

/* After ioctl @req of @c returned @rc. */
static void last_error_end(const struct sim_ctx *c, unsigned long req, int rc)
{
	bool armed = sim_last.armed;

	sim_last.armed = false;
	if (rc >= 0)
		return;
	if (!armed)
		sim_last.e = (struct drm_ccore_last_error){ .index = CCM_NO_INDEX };
	sim_last.ctx = c->serial;
	sim_last.e.ioctl = _IOC_NR(req);
	sim_last.e.error = rc;
}

static int get_last_error(const struct sim_ctx *c, struct drm_ccore_last_error *a)
{
	if (a->flags || a->pad)
		return ccore_error(-EINVAL, "GET_LAST_ERROR: flags 0x%x and pad %u must be zero",
				   a->flags, a->pad);
	if (sim_last.ctx == c->serial)
		*a = sim_last.e;
	else
		*a = (struct drm_ccore_last_error){ .ioctl = ~0u, .index = CCM_NO_INDEX };
	return 0;
}

static void sim_job_done(void *host, u64 cookie, int status)
{
	struct sim_job *j = (struct sim_job *)(uintptr_t)cookie;

	(void)host;
	j->status = status;
	__atomic_sub_fetch(&j->prog->pending, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
}

static void sim_job_times_done(void *host, u64 cookie, u64 trigger_ps, u64 start_ps,
			       u64 end_ps)
{
	struct sim_job *j = (struct sim_job *)(uintptr_t)cookie;

	(void)host;
	j->trigger_ps = trigger_ps;
	j->start_ps = start_ps;
	j->end_ps = end_ps;
}

static bool sim_timed(const struct sim_system *s)
{
	return ccm_fabric_config(s->f)->timed;
}

static int sim_dev_job_times(struct ccore_dev *dev, uint64_t job, struct ccore_job_times *out)
{
	if (!sim_timed(to_ctx(dev)->sys))
		return ccore_error(-ENODEV, "job times: only the sim backend's timed model (CCORE_SIM timed=1) keeps them");
	return sim_job_times(to_ctx(dev), job, out);
}

const struct ccm_host_ops sim_host_ops = {
	.job_done = sim_job_done,
	.job_times = sim_job_times_done,
	.nic_posted = sim_net_posted,
	/* NOTIFY is counted by the model (ccm_cc_info); no host listener yet */
};

int sim_token_new(struct sim_system *s, const struct sim_token *t, s32 *fd)
{
	struct sim_shared *sh = s->sh;
	struct sim_token *tok = sh->tokens;
	u16 gen;
	u32 i;

	if (sh->free_token) {
		i = sh->free_token - 1;
		sh->free_token = tok[i].next_free;
	} else {
		if (sh->ntokens == SIM_TOKEN_SLOTS)
			return -EMFILE;
		/* doubling: thousands of ranks export and import a lot */
		if (sh->ntokens == sh->tokens_cap) {
			u32 cap = sh->tokens_cap ? sh->tokens_cap * 2 : 64;

			tok = ccm_realloc(sh->tokens, sh->tokens_cap * sizeof(*tok),
					  cap * sizeof(*tok));
			if (!tok)
				return -ENOMEM;
			sh->tokens = tok;
			sh->tokens_cap = cap;
		}
		i = sh->ntokens++;
	}
	gen = (u16)((tok[i].gen + 1) % SIM_TOKEN_GENS);
	tok[i] = *t;
	tok[i].open = true;
	tok[i].gen = gen;
	tok[i].slot = s->slot;
	*fd = (s32)(SIM_TOKEN_BASE + ((u32)gen << 16) + i);
	return 0;
}

static struct sim_token *token_of(const struct sim_system *s, s32 fd)
{
	const struct sim_shared *sh = s->sh;
	u32 i = (u32)(fd - SIM_TOKEN_BASE) & 0xffff;

	if (fd < SIM_TOKEN_BASE || i >= sh->ntokens || !sh->tokens[i].open ||
	    sh->tokens[i].gen != (u32)(fd - SIM_TOKEN_BASE) >> 16)
		return NULL;
	return &sh->tokens[i];
}

const struct sim_token *sim_token_get(const struct sim_system *s, s32 fd)
{
	return token_of(s, fd);
}

void sim_token_why(const struct sim_system *s, s32 fd, char *buf, size_t len)
{
	const struct sim_shared *sh = s->sh;
	u32 i = (u32)(fd - SIM_TOKEN_BASE) & 0xffff;

	if (fd >= SIM_TOKEN_BASE && i < sh->ntokens && sh->tokens[i].open)
		snprintf(buf, len, "fd %d is stale: that export was closed and its token reused (generation %u, now %u)",
			 fd, (u32)(fd - SIM_TOKEN_BASE) >> 16, sh->tokens[i].gen);
	else if (fd >= SIM_TOKEN_BASE && i < sh->ntokens)
		snprintf(buf, len, "fd %d is closed: that export was closed", fd);
	else
		snprintf(buf, len, "fd %d is not an open file descriptor (no export of this fabric%s)",
			 fd, sim_shared(s) ? " by any process sharing it" : "");
}

int sim_token_bad(const struct sim_system *s, const char *name, s32 fd)
{
	char why[CCM_ERR_LEN];

	sim_token_why(s, fd, why, sizeof(why));
	return ccore_error(-EBADF, "%s: %s", name, why);
}

int sim_token_close(struct sim_system *s, s32 fd)
{
	struct sim_shared *sh = s->sh;
	struct sim_token *t = token_of(s, fd);
	u32 i;
	u16 gen;

	if (!t)
		return sim_token_bad(s, "close", fd);
	/* a dma-buf keeps its memory; an exported semaphore block holds nothing */
	if (!t->sem)
		sim_mem_put_slot(s, t->mem, t->slot);
	i = (u32)(t - sh->tokens);
	gen = t->gen;
	*t = (struct sim_token){ .next_free = sh->free_token, .gen = gen };
	sh->free_token = i + 1;
	return 0;
}

/* Close an fd the sharing below exported, once imported (or not). */
static void close_token(struct ccore_dev *dev, s32 fd)
{
	struct sim_system *s = to_ctx(dev)->sys;

	ccm_mutex_lock(&s->sh->lock);
	sim_token_close(s, fd);
	ccm_mutex_unlock(&s->sh->lock);
}

static int sim_dev_token_close(struct ccore_dev *dev, int32_t token)
{
	struct sim_system *s = to_ctx(dev)->sys;
	int rc;

	ccm_arena_current = s->arena;
	ccm_mutex_lock(&s->sh->lock);
	rc = sim_token_close(s, token);
	ccm_mutex_unlock(&s->sh->lock);
	ccm_arena_current = NULL;
	return rc;
}

static bool starts_work(unsigned long req, const void *arg)
{
	switch (req) {
	case DRM_IOCTL_CCORE_CC_TRIGGER:
		return true;
	case DRM_IOCTL_CCORE_SUBMIT:
		return ((const struct drm_ccore_submit *)arg)->flags & DRM_CCORE_JOB_F_TRIGGER;
	case DRM_IOCTL_CCORE_RING_SUBMIT:
		return ((const struct drm_ccore_ring_submit *)arg)->flags & DRM_CCORE_SUBMIT_F_START;
	case DRM_IOCTL_CCORE_SEM_ACCESS:
		return ((const struct drm_ccore_sem_access *)arg)->op != DRM_CCORE_SEM_READ;
	case DRM_IOCTL_CCORE_COMPUTE_SUBMIT:
		return true;
	default:
		return false;
	}
}

/* RING_CREATE as built before index_stride: its first 32 bytes. */
#define SIM_RING_CREATE_V1 \
	_IOC(_IOC_READ | _IOC_WRITE, DRM_IOCTL_BASE, DRM_COMMAND_BASE + DRM_CCORE_RING_CREATE, \
	     offsetof(struct drm_ccore_ring_create, index_stride))

static int sim_ioctl_call(struct ccore_dev *dev, unsigned long req, void *arg);

static int sim_ioctl(struct ccore_dev *dev, unsigned long req, void *arg)
{
	int rc;

	if (req == DRM_IOCTL_CCORE_GET_LAST_ERROR && arg)
		return get_last_error(to_ctx(dev), arg);
	rc = sim_ioctl_call(dev, req, arg);
	last_error_end(to_ctx(dev), req, rc);
	return rc;
}

typedef int sim_request_fn(struct sim_ctx *c, void *arg);

/* The ring, semaphore and job requests (sim_{ring,sem,job}.c), run locked. */
static const struct {
	unsigned long req;
	sim_request_fn *fn;
} object_requests[] = {
	{ DRM_IOCTL_CCORE_RING_CREATE, sim_ring_create },
	{ DRM_IOCTL_CCORE_RING_DESTROY, sim_ring_destroy },
	{ DRM_IOCTL_CCORE_RING_SUBMIT, sim_ring_submit },
	{ DRM_IOCTL_CCORE_RING_STATS, sim_ring_stats },
	{ DRM_IOCTL_CCORE_SEM_ALLOC, sim_sem_alloc },
	{ DRM_IOCTL_CCORE_SEM_FREE, sim_sem_free },
	{ DRM_IOCTL_CCORE_SEM_ACCESS, sim_sem_access },
	{ DRM_IOCTL_CCORE_SEM_EXPORT, sim_sem_export },
	{ DRM_IOCTL_CCORE_SEM_IMPORT, sim_sem_import },
	{ DRM_IOCTL_CCORE_PROGRAM_LOAD, sim_program_load },
	{ DRM_IOCTL_CCORE_PROGRAM_FREE, sim_program_free },
	{ DRM_IOCTL_CCORE_SUBMIT, sim_submit },
	{ DRM_IOCTL_CCORE_CC_TRIGGER, sim_cc_trigger },
};

static sim_request_fn *object_request(unsigned long req)
{
	size_t i;

	for (i = 0; i < sizeof(object_requests) / sizeof(object_requests[0]); i++)
		if (object_requests[i].req == req)
			return object_requests[i].fn;
	return NULL;
}

static int sim_ioctl_call(struct ccore_dev *dev, unsigned long req, void *arg)
{
	struct sim_ctx *c = to_ctx(dev);
	struct sim_system *s = c->sys;
	sim_request_fn *handler;
	int rc;

	if (!arg)
		return ccore_error(-EFAULT, "%s: argument pointer is NULL", ccore_ioctl_name(req));
	/* a shorter struct from an older caller reads as zero-extended, as
	 * drm_ioctl() does, and only its own bytes are written back */
	if (req == SIM_RING_CREATE_V1) {
		struct drm_ccore_ring_create full = { 0 };

		memcpy(&full, arg, _IOC_SIZE(req));
		rc = sim_ioctl_call(dev, DRM_IOCTL_CCORE_RING_CREATE, &full);
		memcpy(arg, &full, _IOC_SIZE(req));
		return rc;
	}
	/* Waits must not hold the lock: the model reports completions. */
	if (req == DRM_IOCTL_CCORE_SEM_WAIT)
		return sim_sem_wait(c, arg);
	if (req == DRM_IOCTL_CCORE_JOB_WAIT)
		return sim_job_wait(c, arg);
	if (req == DRM_IOCTL_CCORE_COMPUTE_WAIT)
		return sim_compute_wait(c, arg);

	/* a shared fabric's objects come from its arena */
	ccm_arena_current = s->arena;
	ccm_mutex_lock(&s->sh->lock);
	switch (req) {
	case DRM_IOCTL_CCORE_GET_PARAM:
	case DRM_IOCTL_CCORE_SET_PARAM:
		rc = sim_param_ioctl(c, req, arg);
		break;
	case DRM_IOCTL_CCORE_BO_CREATE:
	case DRM_IOCTL_CCORE_BO_MMAP_OFFSET:
	case DRM_IOCTL_CCORE_BO_INFO:
	case DRM_IOCTL_GEM_CLOSE:
	case DRM_IOCTL_PRIME_HANDLE_TO_FD:
	case DRM_IOCTL_PRIME_FD_TO_HANDLE:
		rc = sim_bo_ioctl(c, req, arg);
		break;
	case DRM_IOCTL_CCORE_COMPUTE_SUBMIT:
		rc = sim_compute_submit(c, arg);
		break;
	default:
		handler = object_request(req);
		rc = handler ? handler(c, arg) :
			       ccore_error(-ENOTTY, "unknown ioctl request 0x%lx", req);
		break;
	}
	ccm_mutex_unlock(&s->sh->lock);
	ccm_arena_current = NULL;
	/* work the host just started: lend a hand before returning, as light
	 * work is left to host threads (see model/ccm_sched.c) */
	if (!rc && starts_work(req, arg))
		ccm_fabric_help(s->f, SIM_HELP_NS);
	return rc;
}

static void *sim_bo_map(struct ccore_dev *dev, uint32_t handle)
{
	struct sim_ctx *c = to_ctx(dev);
	struct sim_bo *bo;
	void *p = NULL;

	ccm_mutex_lock(&c->sys->sh->lock);
	bo = sim_handle_get(&c->bos, handle);
	if (bo && bo->mem->virt)
		ccore_error(-ENXIO, "map: buffer %u is virtual (timed sim with virtual=1): it has no host memory",
			    handle);
	else if (bo)
		p = bo->mem->host;
	else
		ccore_error(-ENOENT, "map: no buffer object with handle %u", handle);
	ccm_mutex_unlock(&c->sys->sh->lock);
	return p;
}

static int sim_bo_share(struct ccore_dev *dev, struct ccore_dev *from, uint32_t handle,
			uint32_t *new_handle)
{
	struct drm_prime_handle exp = { .handle = handle, .flags = DRM_CLOEXEC };
	struct drm_prime_handle imp = { 0 };
	int rc;

	rc = sim_ioctl(from, DRM_IOCTL_PRIME_HANDLE_TO_FD, &exp);
	if (rc)
		return rc;
	imp.fd = exp.fd;
	rc = sim_ioctl(dev, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp);
	/* as a process closes the dma-buf fd: the import keeps the memory */
	close_token(from, exp.fd);
	if (rc)
		return rc;
	*new_handle = imp.handle;
	return 0;
}

static int sim_sem_share(struct ccore_dev *dev, struct ccore_dev *from, uint32_t first)
{
	struct drm_ccore_sem_export exp = { .first = first };
	struct drm_ccore_sem_import imp = { 0 };
	int rc;

	rc = sim_ioctl(from, DRM_IOCTL_CCORE_SEM_EXPORT, &exp);
	if (rc)
		return rc;
	imp.fd = exp.fd;
	rc = sim_ioctl(dev, DRM_IOCTL_CCORE_SEM_IMPORT, &imp);
	close_token(from, exp.fd);
	return rc;
}

/*
 * After every context's programs and rings: they pin others' blocks.  A
 * shared system's context and its blocks stay in the arena: others' rings
 * and programs may still pin them.
 */
void sim_ctx_fini(struct sim_ctx *c)
{
	sim_bo_fini(c);
	sim_sem_fini(c);
	sim_xtoken_fini(c);
	ccm_vm_fini(&c->vm);
	free(c->compute_deadline);
	free(c->jobs);
	c->jobs = NULL;
	c->compute_deadline = NULL;
	if (!sim_shared(c->sys))
		ccm_free(c);
}

static int sim_now_ps(struct ccore_system *base, uint64_t *ps)
{
	struct sim_system *s = (struct sim_system *)base;

	if (!sim_timed(s))
		return ccore_error(-ENODEV, "virtual time needs the sim backend with timed=1 (CCORE_SIM)");
	*ps = ccm_fabric_now_ps(s->f);
	return 0;
}

static void sim_close(struct ccore_system *base)
{
	struct sim_system *s = (struct sim_system *)base;
	u32 i;

	if (sim_shared(s)) {
		sim_shared_close(s);
		return;
	}
	/* Stop the workers first: nothing may touch memory being freed. */
	if (s->f)
		ccm_fabric_stop(s->f);
	for (i = 0; i < base->ndev; i++)
		if (s->ctx && s->ctx[i]) {
			sim_job_fini(s->ctx[i]);
			sim_ring_fini(s->ctx[i]);
		}
	for (i = 0; i < base->ndev; i++)
		if (s->ctx && s->ctx[i])
			sim_ctx_fini(s->ctx[i]);
	for (i = 0; i < s->sh->ntokens; i++)
		if (s->sh->tokens[i].open && !s->sh->tokens[i].sem)
			sim_mem_put(s, s->sh->tokens[i].mem);
	ccm_fabric_destroy(s->f);
	free(s->ctx);
	free(base->devs);
	ccm_free(s->sh->tokens);
	ccm_mutex_destroy(&s->sh->lock);
	free(s->sh);
	free(s);
}

#define SIM_OPS_COMMON \
	.name = "sim", \
	.ioctl = sim_ioctl, \
	.bo_map = sim_bo_map, \
	.bo_share = sim_bo_share, \
	.sem_share = sim_sem_share, \
	.job_times = sim_dev_job_times, \
	.now_ps = sim_now_ps, \
	.close = sim_close, \
	.claim_core = sim_claim_core, \
	.slots = sim_slots, \
	.slot_pid = sim_slot_pid, \
	.token_close = sim_dev_token_close,

const struct ccore_backend_ops sim_ops = {
	SIM_OPS_COMMON
};

/* Processes share its devices: the exchange carries the shared sim's tokens. */
const struct ccore_backend_ops sim_shared_ops = {
	SIM_OPS_COMMON
	.bo_export = sim_xtoken_bo_export,
	.bo_import_token = sim_xtoken_bo_import,
	.sem_export = sim_xtoken_sem_export,
	.sem_import_token = sim_xtoken_sem_import,
};

int ccore_sim_open_shared(const char *key, const struct ccore_shared_opts *opts,
			  struct ccore_system **out)
{
	return sim_shared_open(key, opts, out);
}

int sim_load_firmware(struct sim_system *s)
{
	struct ccm_err err = { 0 };
	unsigned int i;
	int rc;

	for (i = 0; i < ccore_firmware_blob_count; i++) {
		if (strcmp(ccore_firmware_blobs[i].name, "dispatcher"))
			continue;
		rc = ccm_load_firmware(s->f, ccore_firmware_blobs[i].insns,
				       ccore_firmware_blobs[i].count, &err);
		if (rc)
			return ccore_error(rc, "sim: loading the dispatcher firmware: %s", err.msg);
		s->sh->fw_size = ccore_firmware_blobs[i].count;
		return 0;
	}
	return ccore_error(-ENOENT, "sim: no dispatcher firmware was built in");
}

/* A context lives in the arena of a shared system: others find its blocks. */
int sim_ctx_open(struct sim_system *s, u32 dev)
{
	struct sim_ctx *c;

	ccm_arena_current = s->arena;
	c = ccm_zalloc(sizeof(*c));
	ccm_arena_current = NULL;
	if (!c)
		return -ENOMEM;
	c->jobs = calloc(SIM_JOB_SLOTS, sizeof(*c->jobs));
	c->compute_deadline = calloc(ccm_fabric_config(s->f)->cores, sizeof(*c->compute_deadline));
	if (!c->jobs || !c->compute_deadline) {
		free(c->jobs);
		free(c->compute_deadline);
		ccm_free(c);
		return -ENOMEM;
	}
	c->slot = s->slot;
	c->base.ops = sim_shared(s) ? &sim_shared_ops : &sim_ops;
	c->base.sys = &s->base;
	c->base.index = dev;
	c->sys = s;
	c->dev = dev;
	c->next_seq = 1;
	c->serial = __atomic_add_fetch(&sim_ctx_serial, 1, __ATOMIC_RELAXED);
	ccm_vm_init(&c->vm);
	s->ctx[dev] = c;
	s->base.devs[dev] = &c->base;
	return 0;
}

int ccore_sim_open(const char *config, struct ccore_system **out)
{
	struct ccm_config cfg;
	struct ccm_err err = { 0 };
	struct sim_system *s;
	u32 i;
	int rc;

	ccm_config_default(&cfg);
	/* Sized to the host: the thread that waits helps, so one worker per
	 * remaining CPU (at least one, at most 8). */
	cfg.workers = ccm_host_cpus() > 8 ? 8 : ccm_host_cpus() > 1 ? ccm_host_cpus() - 1 : 1;
	if (config && ccm_config_parse(&cfg, config, &err))
		return ccore_error(-EINVAL, "sim configuration \"%s\": %s", config, err.msg);
	s = calloc(1, sizeof(*s));
	if (s)
		s->sh = calloc(1, sizeof(*s->sh));
	if (!s || !s->sh) {
		free(s);
		return ccore_error(-ENOMEM, "sim: out of memory");
	}
	ccm_mutex_init(&s->sh->lock);
	s->base.ops = &sim_ops;
	s->f = ccm_fabric_create(&cfg, &sim_host_ops, s, &err);
	if (!s->f) {
		ccm_mutex_destroy(&s->sh->lock);
		free(s->sh);
		free(s);
		return ccore_error(-EINVAL, "sim: %s", err.msg);
	}
	s->sh->f = s->f;
	s->base.model = s->f;
	s->base.ndev = ccm_fabric_num_devices(s->f);
	s->base.devs = calloc(s->base.ndev, sizeof(*s->base.devs));
	s->ctx = calloc(s->base.ndev, sizeof(*s->ctx));
	rc = s->base.devs && s->ctx ? 0 : -ENOMEM;
	for (i = 0; !rc && i < s->base.ndev; i++)
		rc = sim_ctx_open(s, i);
	if (rc)
		ccore_error(rc, "sim: out of memory opening devices");
	else
		rc = sim_load_firmware(s);
	if (rc) {
		sim_close(&s->base);
		return rc;
	}
	*out = &s->base;
	return 0;
}
