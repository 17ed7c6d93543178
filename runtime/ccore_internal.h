/* SPDX-License-Identifier: MIT */
/* libccore internals shared across runtime/ files. */
#ifndef CCORE_INTERNAL_H
#define CCORE_INTERNAL_H

#include "ccore_device.h"

#include <errno.h>

/* Set the last error and return @rc (a negative errno). */
int ccore_error(int rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * An export token (below, dev_token.c): opaque bytes one process sends
 * another, and maybe a file descriptor that travels beside them (the
 * kernel driver's dma-buf and semaphore fds, over the bootstrap's fd
 * channel): @fd is the sender's until sent, the receiver's once received.
 * Tokens name the same export when their bytes are equal.
 */
#define CCORE_TOKEN_BYTES 64
struct ccore_token {
	unsigned char bytes[CCORE_TOKEN_BYTES];
	uint32_t has_fd;	/* 0: no fd */
	int32_t fd;
};

struct ccore_backend_ops {
	const char *name;
	int (*ioctl)(struct ccore_dev *dev, unsigned long request, void *arg);
	void *(*bo_map)(struct ccore_dev *dev, uint32_t handle);
	/* Export @handle / block @first of @from so that @dev can import it. */
	int (*bo_share)(struct ccore_dev *dev, struct ccore_dev *from, uint32_t handle,
			uint32_t *new_handle);
	int (*sem_share)(struct ccore_dev *dev, struct ccore_dev *from, uint32_t first);
	/*
	 * Export tokens that travel between processes (dev_token.c): NULL
	 * leaves the in-process token, which only the process that made it
	 * imports.  A backend whose devices processes share sets all four.
	 */
	int (*bo_export)(struct ccore_dev *dev, uint32_t handle, uint64_t dev_addr,
			 struct ccore_token *tok);
	int (*bo_import_token)(struct ccore_dev *dev, const struct ccore_token *tok,
			       uint32_t *handle, uint64_t *dev_addr);
	int (*sem_export)(struct ccore_dev *dev, uint32_t first, struct ccore_token *tok);
	int (*sem_import_token)(struct ccore_dev *dev, const struct ccore_token *tok);
	/* Timed model only (NULL elsewhere): a finished job's virtual times. */
	int (*job_times)(struct ccore_dev *dev, uint64_t job, struct ccore_job_times *out);
	/* Timed model only (NULL elsewhere): its virtual clock now, in ps. */
	int (*now_ps)(struct ccore_system *sys, uint64_t *ps);
	void (*close)(struct ccore_system *sys);
	/* Shared systems only (NULL elsewhere): ccore_system_claim_core(), and
	 * this process's slot and the slots found dead. */
	int (*claim_core)(struct ccore_system *sys, uint32_t dev, uint32_t core);
	int (*slots)(struct ccore_system *sys, uint32_t *slot, uint64_t *dead);
	int (*slot_pid)(struct ccore_system *sys, uint32_t slot, uint32_t *pid);
	/* Close an exported buffer or semaphore token (NULL: it is an fd). */
	int (*token_close)(struct ccore_dev *dev, int32_t token);
};

struct ccore_dev {
	const struct ccore_backend_ops *ops;
	struct ccore_system *sys;
	unsigned int index;
};

struct ccore_system {
	const struct ccore_backend_ops *ops;
	unsigned int ndev;
	struct ccore_dev **devs;
	struct ccm_fabric *model;
};

int ccore_sim_open(const char *config, struct ccore_system **out);
int ccore_sim_open_shared(const char *key, const struct ccore_shared_opts *opts,
			  struct ccore_system **out);
/*
 * The device model behind a sim system, for tools and tests that look at
 * the simulated hardware itself (NULL for other backends: on accel the
 * model runs in the kernel, out of reach).  Not public: a program sees a
 * device only through the uAPI.
 */
struct ccm_fabric *ccore_system_model(struct ccore_system *sys);
/* The devices of one fabric of the kernel driver (runtime/accel/). */
int ccore_accel_open(struct ccore_system **out);
/* The timed model's virtual clock (ps); -ENODEV with a message elsewhere. */
int device_virtual_now_ps(struct ccore_system *sys, uint64_t *ps);
/* Name of a DRM_IOCTL_* request, for messages. */
const char *ccore_ioctl_name(unsigned long request);
/* Name of an enum drm_ccore_reason ("RING_BUSY"), and what it means:
 * what was wrong and what is allowed (runtime/reason.c). */
const char *ccore_reason_name(uint32_t reason);
const char *ccore_reason_text(uint32_t reason);

/*
 * Export tokens (dev_token.c): what one process gives another so that the
 * other's device may use a buffer or a semaphore block of this one's, as
 * opaque bytes it sends through the bootstrap.  The backend decides what
 * a token is and how far it travels: today a token names a device of this
 * process's system, so it imports only within the process that made it
 * (-EXDEV elsewhere); the shared sim makes it work across the processes of
 * a host, the kernel driver with dma-buf and semaphore fds.
 */
/* A token for buffer @handle of @dev (its device address @dev_addr). */
int dev_token_bo_export(struct ccore_dev *dev, uint32_t handle, uint64_t dev_addr,
			struct ccore_token *tok);
/*
 * Make the buffer of @tok usable by @dev's descriptors: *@handle (0 when
 * the buffer is @dev's own: nothing to close) and where @dev sees it.
 */
int dev_token_bo_import(struct ccore_dev *dev, const struct ccore_token *tok,
			      uint32_t *handle, uint64_t *dev_addr);
/* A token for semaphore block @first of @dev. */
int dev_token_sem_export(struct ccore_dev *dev, uint32_t first, struct ccore_token *tok);
/* Let @dev signal the block of @tok (nothing to do if it is @dev's own). */
int dev_token_sem_import(struct ccore_dev *dev, const struct ccore_token *tok);
/* Close @tok's fd, if it has one (the sender once sent, the receiver once imported). */
void dev_token_close_fd(struct ccore_token *tok);

#endif
