// SPDX-License-Identifier: MIT
/*
 * Export tokens of buffers and semaphore blocks (ccore_internal.h): the
 * backend's own (its bo_export ... ops) where it has them.  Else a token
 * made here names the exporting device by its system and index and
 * carries the process that made it: only that process can import it (a
 * private sim system lives in its memory).  The host's shared sim and the
 * kernel driver set the ops (runtime/sim/sim_xtoken.c; dma-buf and
 * semaphore fds beside the bytes: runtime/accel/accel_token.c).  An import
 * elsewhere is -EXDEV naming why.
 */
#include "ccore_internal.h"

#include <string.h>
#include <unistd.h>

#define TOKEN_MAGIC 0x63746f6bu	/* "ctok" */

enum token_kind { TOKEN_BO = 1, TOKEN_SEM = 2 };

struct token_body {
	uint32_t magic, kind;
	uint64_t pid;
	uint64_t sys;			/* the exporter's struct ccore_system */
	uint32_t dev, id;		/* device index, handle or first semaphore */
	uint64_t dev_addr;		/* a buffer's address on its own device */
};

_Static_assert(sizeof(struct token_body) <= CCORE_TOKEN_BYTES, "token too large");

static void make(struct ccore_dev *dev, enum token_kind kind, uint32_t id, uint64_t dev_addr,
		 struct ccore_token *tok)
{
	struct token_body b = {
		.magic = TOKEN_MAGIC, .kind = kind, .pid = (uint64_t)getpid(),
		.sys = (uint64_t)(uintptr_t)dev->sys, .dev = dev->index, .id = id,
		.dev_addr = dev_addr,
	};

	memset(tok, 0, sizeof(*tok));
	memcpy(tok->bytes, &b, sizeof(b));
	tok->fd = -1;
}

/* The device of @tok in @dev's system; -EXDEV with the reason if there is none. */
static int exporter(struct ccore_dev *dev, const struct ccore_token *tok, enum token_kind kind,
		    struct token_body *b, struct ccore_dev **from)
{
	memcpy(b, tok->bytes, sizeof(*b));
	if (b->magic != TOKEN_MAGIC || b->kind != kind)
		return ccore_error(-EINVAL, "import: not a %s export token (garbled in transit?)",
				   kind == TOKEN_BO ? "buffer" : "semaphore");
	if (b->pid != (uint64_t)getpid() || b->sys != (uint64_t)(uintptr_t)dev->sys)
		return ccore_error(-EXDEV, "import: the %s token comes from %s (pid %llu) whose %s devices are private to it (a communicator whose ranks were all one process's); tokens cross processes only on a shared system",
				   kind == TOKEN_BO ? "buffer" : "semaphore",
				   b->pid != (uint64_t)getpid() ? "another process" : "another device system of this process",
				   (unsigned long long)b->pid, dev->ops->name);
	if (b->dev >= dev->sys->ndev)
		return ccore_error(-EINVAL, "import: token names device %u of %u", b->dev,
				   dev->sys->ndev);
	*from = dev->sys->devs[b->dev];
	return 0;
}

int dev_token_bo_export(struct ccore_dev *dev, uint32_t handle, uint64_t dev_addr,
			struct ccore_token *tok)
{
	if (dev->ops->bo_export)
		return dev->ops->bo_export(dev, handle, dev_addr, tok);
	make(dev, TOKEN_BO, handle, dev_addr, tok);
	return 0;
}

int dev_token_bo_import(struct ccore_dev *dev, const struct ccore_token *tok,
			      uint32_t *handle, uint64_t *dev_addr)
{
	struct ccore_dev *from;
	struct token_body b;
	int rc;

	if (dev->ops->bo_import_token)
		return dev->ops->bo_import_token(dev, tok, handle, dev_addr);
	rc = exporter(dev, tok, TOKEN_BO, &b, &from);
	if (rc)
		return rc;
	if (from == dev) {
		/* its own buffer: the device names it where it is */
		*handle = 0;
		*dev_addr = b.dev_addr;
		return 0;
	}
	return ccore_dev_bo_import(dev, from, b.id, handle, dev_addr);
}

int dev_token_sem_export(struct ccore_dev *dev, uint32_t first, struct ccore_token *tok)
{
	if (dev->ops->sem_export)
		return dev->ops->sem_export(dev, first, tok);
	make(dev, TOKEN_SEM, first, 0, tok);
	return 0;
}

void dev_token_close_fd(struct ccore_token *tok)
{
	if (tok->has_fd)
		close(tok->fd);
	tok->has_fd = 0;
	tok->fd = -1;
}

int dev_token_sem_import(struct ccore_dev *dev, const struct ccore_token *tok)
{
	struct ccore_dev *from;
	struct token_body b;
	int rc;

	if (dev->ops->sem_import_token)
		return dev->ops->sem_import_token(dev, tok);
	rc = exporter(dev, tok, TOKEN_SEM, &b, &from);
	if (rc)
		return rc;
	return from == dev ? 0 : ccore_dev_sem_import(dev, from, b.id);
}
