// SPDX-License-Identifier: MIT
/*
 * The accel backend's export tokens (ccore_internal.h): a buffer travels
 * as a dma-buf fd (PRIME_HANDLE_TO_FD), a semaphore block as the driver's
 * semaphore fd (SEM_EXPORT), beside the token's bytes over the bootstrap's
 * fd channel.  The bytes name the export (exporting process, device,
 * handle or block, and the exported file's inode: each dma-buf has its
 * own, so a handle reused for a new buffer makes a new token; semaphore
 * fds share the anonymous inode, but a communicator never reuses a
 * block); the importer's own file takes the fd (PRIME_FD_TO_HANDLE,
 * SEM_IMPORT).  The caller closes the fds: the
 * exporter once it sent them, the importer once it imported.
 */
#include "accel.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ACCEL_TOKEN_MAGIC 0x61746f6bu	/* "atok" */

enum accel_token_kind { ACCEL_TOKEN_BO = 1, ACCEL_TOKEN_SEM = 2 };

struct accel_token {
	uint32_t magic, kind;
	uint64_t pid;			/* the exporting process */
	uint64_t ino;			/* the exported file's inode */
	uint32_t dev, id;		/* device index, handle or first semaphore */
	uint64_t dev_addr;		/* a buffer's address on the fabric */
};

_Static_assert(sizeof(struct accel_token) <= CCORE_TOKEN_BYTES, "token too large");

static const char *kind_name(enum accel_token_kind kind)
{
	return kind == ACCEL_TOKEN_BO ? "buffer" : "semaphore";
}

static int token_make(struct ccore_dev *dev, enum accel_token_kind kind, uint32_t id,
		      uint64_t dev_addr, int fd, struct ccore_token *tok)
{
	struct accel_token t = { .magic = ACCEL_TOKEN_MAGIC, .kind = kind,
				 .pid = (uint64_t)getpid(), .dev = dev->index, .id = id,
				 .dev_addr = dev_addr };
	struct stat st;

	if (fstat(fd, &st)) {
		int rc = -errno;

		close(fd);
		return ccore_error(rc, "export of %s %u on " ACCEL_DIR "/%s: fstat of its fd: %s",
				   kind_name(kind), id, to_adev(dev)->node, strerror(-rc));
	}
	t.ino = (uint64_t)st.st_ino;
	memset(tok, 0, sizeof(*tok));
	memcpy(tok->bytes, &t, sizeof(t));
	tok->has_fd = 1;
	tok->fd = fd;
	return 0;
}

/* @tok's body, checked; is it this process's own export from @dev? */
static int token_read(struct ccore_dev *dev, const struct ccore_token *tok,
		      enum accel_token_kind kind, struct accel_token *t, bool *own)
{
	memcpy(t, tok->bytes, sizeof(*t));
	if (t->magic != ACCEL_TOKEN_MAGIC || t->kind != kind)
		return ccore_error(-EINVAL, "import: not an accel %s export token (a token of another backend, or garbled in transit?)",
				   kind_name(kind));
	*own = t->pid == (uint64_t)getpid() && t->dev == dev->index;
	if (!*own && !tok->has_fd)
		return ccore_error(-EBADF, "import: the %s token of process %llu (device %u, %s %u) came without its fd: it must travel over the bootstrap's fd channel",
				   kind_name(kind), (unsigned long long)t->pid, t->dev, kind_name(kind),
				   t->id);
	return 0;
}

int accel_bo_export(struct ccore_dev *dev, uint32_t handle, uint64_t dev_addr,
		    struct ccore_token *tok)
{
	struct drm_prime_handle exp = { .handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	int rc = dev->ops->ioctl(dev, DRM_IOCTL_PRIME_HANDLE_TO_FD, &exp);

	return rc ?: token_make(dev, ACCEL_TOKEN_BO, handle, dev_addr, exp.fd, tok);
}

int accel_bo_import_token(struct ccore_dev *dev, const struct ccore_token *tok,
			  uint32_t *handle, uint64_t *dev_addr)
{
	struct drm_prime_handle imp = { .fd = tok->fd };
	struct drm_ccore_bo_info info = { 0 };
	struct accel_token t;
	bool own;
	int rc = token_read(dev, tok, ACCEL_TOKEN_BO, &t, &own);

	if (rc)
		return rc;
	if (own) {
		/* its own buffer: the device names it where it is */
		*handle = 0;
		*dev_addr = t.dev_addr;
		return 0;
	}
	rc = dev->ops->ioctl(dev, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp);
	if (rc)
		return rc;
	info.handle = imp.handle;
	rc = dev->ops->ioctl(dev, DRM_IOCTL_CCORE_BO_INFO, &info);
	if (rc) {
		struct drm_gem_close cl = { .handle = imp.handle };

		dev->ops->ioctl(dev, DRM_IOCTL_GEM_CLOSE, &cl);
		return rc;
	}
	*handle = imp.handle;
	*dev_addr = info.dev_addr;
	return 0;
}

int accel_sem_export(struct ccore_dev *dev, uint32_t first, struct ccore_token *tok)
{
	struct drm_ccore_sem_export exp = { .first = first };
	int rc = dev->ops->ioctl(dev, DRM_IOCTL_CCORE_SEM_EXPORT, &exp);

	return rc ?: token_make(dev, ACCEL_TOKEN_SEM, first, 0, exp.fd, tok);
}

int accel_sem_import_token(struct ccore_dev *dev, const struct ccore_token *tok)
{
	struct drm_ccore_sem_import imp = { .fd = tok->fd };
	struct accel_token t;
	bool own;
	int rc = token_read(dev, tok, ACCEL_TOKEN_SEM, &t, &own);

	if (rc || own)
		return rc;
	rc = dev->ops->ioctl(dev, DRM_IOCTL_CCORE_SEM_IMPORT, &imp);
	if (!rc && imp.first != t.id)
		rc = ccore_error(-EPROTO, "import: semaphore block %u of process %llu (device %u) imported as %u: the runtime names a block by its exporter's reference",
				 t.id, (unsigned long long)t.pid, t.dev, imp.first);
	return rc;
}
