// SPDX-License-Identifier: MIT
/*
 * The accel backend's system: finds the ccore devices among
 * /dev/accel/accel*, groups them by fabric, opens the devices of one fabric
 * in device-index order and implements the backend operations on their
 * files (ioctls through libdrm, buffer maps, dma-buf and semaphore sharing).
 *
 * Fabrics: /sys/class/accel/accelN/fabric_id when the driver has it, else
 * the parent device (/sys/class/accel/accelN/device: the ccore_sim bus
 * device "ccore_simID" of a simulated fabric).  The lowest id is opened
 * unless $CCORE_ACCEL_FABRIC names another.
 */
#include "accel.h"
#include "util/grow.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

/* ------------------------------------------------------------------------ */
/* Operations                                                                */
/* ------------------------------------------------------------------------ */

/* Called with d->lock held. */
static void unmap_handle(struct accel_dev *d, uint32_t handle)
{
	for (uint32_t i = 0; i < d->nmaps; i++) {
		if (d->maps[i].handle != handle)
			continue;
		munmap(d->maps[i].ptr, d->maps[i].size);
		d->maps[i] = d->maps[--d->nmaps];
		return;
	}
}

static int accel_ioctl(struct ccore_dev *dev, unsigned long req, void *arg)
{
	struct accel_dev *d = to_adev(dev);
	int rc;

	if (!arg)
		return ccore_error(-EFAULT, "%s: argument pointer is NULL", ccore_ioctl_name(req));
	if (req != DRM_IOCTL_GEM_CLOSE) {
		/* drmIoctl restarts on EINTR and EAGAIN */
		rc = drmIoctl(d->fd, req, arg);
		return rc ? accel_fail(d, req, arg, errno) : 0;
	}
	/* the handle may be reused as soon as it is closed: drop its map with it */
	pthread_mutex_lock(&d->lock);
	rc = drmIoctl(d->fd, req, arg) ? accel_fail(d, req, arg, errno) : 0;
	if (!rc)
		unmap_handle(d, ((struct drm_gem_close *)arg)->handle);
	pthread_mutex_unlock(&d->lock);
	return rc;
}

static void *map_new(struct accel_dev *d, uint32_t handle)
{
	struct drm_ccore_bo_info info = { .handle = handle };
	struct drm_ccore_bo_mmap_offset mo = { .handle = handle };
	void *p;

	if (accel_ioctl(&d->base, DRM_IOCTL_CCORE_BO_INFO, &info) ||
	    accel_ioctl(&d->base, DRM_IOCTL_CCORE_BO_MMAP_OFFSET, &mo))
		return NULL;
	if (rt_grow((void **)&d->maps, &d->cap, d->nmaps, sizeof(*d->maps), 16)) {
		ccore_error(-ENOMEM, "map: out of memory");
		return NULL;
	}
	p = mmap(NULL, info.size, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd, (off_t)mo.offset);
	if (p == MAP_FAILED) {
		ccore_error(-errno, "map: mmap of buffer %u (%llu bytes) on " ACCEL_DIR "/%s: %s",
			    handle, (unsigned long long)info.size, d->node, strerror(errno));
		return NULL;
	}
	d->maps[d->nmaps++] = (struct accel_map){ .handle = handle, .ptr = p, .size = info.size };
	return p;
}

static void *accel_bo_map(struct ccore_dev *dev, uint32_t handle)
{
	struct accel_dev *d = to_adev(dev);
	void *p = NULL;
	uint32_t i;

	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->nmaps; i++)
		if (d->maps[i].handle == handle)
			p = d->maps[i].ptr;
	if (!p)
		p = map_new(d, handle);
	pthread_mutex_unlock(&d->lock);
	return p;
}

static int accel_bo_share(struct ccore_dev *dev, struct ccore_dev *from, uint32_t handle,
			  uint32_t *new_handle)
{
	struct drm_prime_handle exp = { .handle = handle, .flags = DRM_CLOEXEC | DRM_RDWR };
	struct drm_prime_handle imp = { 0 };
	int rc;

	rc = accel_ioctl(from, DRM_IOCTL_PRIME_HANDLE_TO_FD, &exp);
	if (rc)
		return rc;
	imp.fd = exp.fd;
	rc = accel_ioctl(dev, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp);
	close(exp.fd);
	if (!rc)
		*new_handle = imp.handle;
	return rc;
}

static int accel_sem_share(struct ccore_dev *dev, struct ccore_dev *from, uint32_t first)
{
	struct drm_ccore_sem_export exp = { .first = first };
	struct drm_ccore_sem_import imp = { 0 };
	int rc;

	rc = accel_ioctl(from, DRM_IOCTL_CCORE_SEM_EXPORT, &exp);
	if (rc)
		return rc;
	imp.fd = exp.fd;
	rc = accel_ioctl(dev, DRM_IOCTL_CCORE_SEM_IMPORT, &imp);
	close(exp.fd);
	return rc;
}

static void dev_free(struct accel_dev *d)
{
	if (!d)
		return;
	for (uint32_t i = 0; i < d->nmaps; i++)
		munmap(d->maps[i].ptr, d->maps[i].size);
	free(d->maps);
	/* the kernel releases everything the file owns */
	if (d->fd >= 0)
		close(d->fd);
	pthread_mutex_destroy(&d->lock);
	free(d);
}

static void accel_close(struct ccore_system *base)
{
	for (uint32_t i = 0; i < base->ndev; i++)
		dev_free(to_adev(base->devs[i]));
	free(base->devs);
	free(base);
}

static const struct ccore_backend_ops accel_ops = {
	.name = "accel",
	.ioctl = accel_ioctl,
	.bo_map = accel_bo_map,
	.bo_share = accel_bo_share,
	.sem_share = accel_sem_share,
	.bo_export = accel_bo_export,
	.bo_import_token = accel_bo_import_token,
	.sem_export = accel_sem_export,
	.sem_import_token = accel_sem_import_token,
	.close = accel_close,
};

/* ------------------------------------------------------------------------ */
/* Discovery                                                                 */
/* ------------------------------------------------------------------------ */

/* One ccore device node found. */
struct cand {
	int fd;
	char node[32];
	char fabric[128];
	bool numeric;		/* @fabric is a number, @num */
	unsigned long long num;
	uint64_t index, ndev;
};

struct scan {
	struct cand *c;
	uint32_t n, cap;
	char notes[256];	/* nodes skipped, for messages */
};

static void note(struct scan *s, const char *node, const char *what)
{
	size_t len = strlen(s->notes);

	if (len < sizeof(s->notes) - 1)
		snprintf(s->notes + len, sizeof(s->notes) - len, "%s%.24s: %.64s",
			 len ? "; " : "", node, what);
}

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\r\n")] = '\0';
	return ok && *buf;
}

static bool parse_num(const char *s, unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* Which fabric the device belongs to. */
static void fabric_of(struct cand *c)
{
	char path[PATH_MAX], *parent, *base;
	unsigned int id;
	char extra;

	snprintf(path, sizeof(path), ACCEL_SYSFS "/%s/fabric_id", c->node);
	if (!read_line(path, c->fabric, sizeof(c->fabric))) {
		snprintf(path, sizeof(path), ACCEL_SYSFS "/%s/device", c->node);
		parent = realpath(path, NULL);
		base = parent ? strrchr(parent, '/') : NULL;
		if (base && sscanf(base + 1, "ccore_sim%u%c", &id, &extra) == 1)
			snprintf(c->fabric, sizeof(c->fabric), "%u", id);
		else
			snprintf(c->fabric, sizeof(c->fabric), "%s", parent ? parent : "unknown");
		free(parent);
	}
	c->numeric = parse_num(c->fabric, &c->num);
}

static int param(int fd, uint32_t p, uint64_t *v)
{
	struct drm_ccore_param_args a = { .param = p };

	if (drmIoctl(fd, DRM_IOCTL_CCORE_GET_PARAM, &a))
		return -errno;
	*v = a.value;
	return 0;
}

static int probe(struct scan *s, const char *node)
{
	char path[64], what[48];
	drmVersionPtr v;
	struct cand c = { .fd = -1 };
	bool ours;

	snprintf(c.node, sizeof(c.node), "%.24s", node);
	snprintf(path, sizeof(path), ACCEL_DIR "/%.24s", node);
	c.fd = open(path, O_RDWR | O_CLOEXEC);
	if (c.fd < 0) {
		note(s, node, strerror(errno));
		return 0;
	}
	v = drmGetVersion(c.fd);
	ours = v && v->name && !strcmp(v->name, ACCEL_DRIVER);
	if (!ours) {
		snprintf(what, sizeof(what), "driver %.32s", v && v->name ? v->name : "unknown");
		note(s, node, what);
	}
	drmFreeVersion(v);
	if (ours && (param(c.fd, DRM_CCORE_PARAM_DEVICE_INDEX, &c.index) ||
		     param(c.fd, DRM_CCORE_PARAM_NUM_DEVICES, &c.ndev))) {
		note(s, node, "GET_PARAM failed");
		ours = false;
	}
	if (!ours) {
		close(c.fd);
		return 0;
	}
	fabric_of(&c);
	if (rt_grow((void **)&s->c, &s->cap, s->n, sizeof(*s->c), 8)) {
		close(c.fd);
		return ccore_error(-ENOMEM, "accel: out of memory");
	}
	s->c[s->n++] = c;
	return 0;
}

static int fabric_cmp(const struct cand *a, const struct cand *b)
{
	if (a->numeric != b->numeric)
		return a->numeric ? -1 : 1;
	if (a->numeric)
		return a->num < b->num ? -1 : a->num > b->num;
	return strcmp(a->fabric, b->fabric);
}

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	int rc = fabric_cmp(a, b);

	if (rc)
		return rc;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	return strcmp(a->node, b->node);
}

static bool same_fabric(const struct cand *a, const struct cand *b)
{
	return !fabric_cmp(a, b);
}

/* "0 (4 devices), 1 (2 devices)" */
static void list_fabrics(const struct scan *s, char *buf, size_t len)
{
	size_t at = 0;
	uint32_t i = 0, j;

	buf[0] = '\0';
	while (i < s->n && at < len) {
		for (j = i; j < s->n && same_fabric(&s->c[i], &s->c[j]); j++)
			;
		at += (size_t)snprintf(buf + at, len - at, "%s%s (%u device%s)", i ? ", " : "",
				       s->c[i].fabric, j - i, j - i == 1 ? "" : "s");
		i = j;
	}
}

static bool fabric_matches(const struct cand *c, const char *want)
{
	unsigned long long v;

	if (c->numeric && parse_num(want, &v))
		return v == c->num;
	return !strcmp(c->fabric, want);
}

/* The devices [first, first + count) of one fabric must be indices 0..n-1. */
static int check_fabric(const struct scan *s, uint32_t first, uint32_t count)
{
	const struct cand *c = &s->c[first];
	char have[256] = "";
	size_t at = 0;
	bool ok = c->ndev == count;

	for (uint32_t i = 0; i < count; i++) {
		ok = ok && c[i].index == i && c[i].ndev == c->ndev;
		if (at < sizeof(have))
			at += (size_t)snprintf(have + at, sizeof(have) - at, "%s%llu (%s)",
					       i ? ", " : "", (unsigned long long)c[i].index,
					       c[i].node);
	}
	if (ok)
		return 0;
	return ccore_error(-ENODEV,
			   "accel: fabric %s has NUM_DEVICES=%llu but the device indices opened are %s%s%s",
			   c->fabric, (unsigned long long)c->ndev, have, s->notes[0] ? "; skipped: " : "",
			   s->notes);
}

static int scan_nodes(struct scan *s)
{
	struct dirent *e;
	DIR *dir = opendir(ACCEL_DIR);
	unsigned int n;
	char extra;
	int rc = 0;

	if (!dir)
		return ccore_error(-ENODEV,
				   "accel: no " ACCEL_DIR " (%s): no accel devices; load ccore.ko and create a simulated fabric with echo \"ID NUM_DEVICES\" > /sys/bus/ccore_sim/new_device",
				   strerror(errno));
	while (!rc && (e = readdir(dir)))
		if (sscanf(e->d_name, "accel%u%c", &n, &extra) == 1)
			rc = probe(s, e->d_name);
	closedir(dir);
	return rc;
}

static int system_new(struct scan *s, uint32_t first, uint32_t count, struct ccore_system **out)
{
	struct accel_system *sys = calloc(1, sizeof(*sys));
	struct accel_dev *d;

	if (!sys || !(sys->base.devs = calloc(count, sizeof(*sys->base.devs)))) {
		free(sys);
		return ccore_error(-ENOMEM, "accel: out of memory");
	}
	sys->base.ops = &accel_ops;
	sys->base.model = NULL;
	snprintf(sys->fabric, sizeof(sys->fabric), "%s", s->c[first].fabric);
	for (uint32_t i = 0; i < count; i++) {
		d = calloc(1, sizeof(*d));
		if (!d) {
			accel_close(&sys->base);
			return ccore_error(-ENOMEM, "accel: out of memory");
		}
		d->base.ops = &accel_ops;
		d->base.sys = &sys->base;
		d->base.index = i;
		d->fd = s->c[first + i].fd;
		s->c[first + i].fd = -1;	/* the device owns it now */
		snprintf(d->node, sizeof(d->node), "%s", s->c[first + i].node);
		pthread_mutex_init(&d->lock, NULL);
		sys->base.devs[i] = &d->base;
		sys->base.ndev = i + 1;
	}
	*out = &sys->base;
	return 0;
}

int ccore_accel_open(struct ccore_system **out)
{
	const char *want = getenv("CCORE_ACCEL_FABRIC");
	struct scan s = { 0 };
	char found[256];
	uint32_t first = 0, count = 0, i;
	int rc;

	rc = scan_nodes(&s);
	if (!rc && !s.n)
		rc = ccore_error(-ENODEV,
				 "accel: no ccore device in " ACCEL_DIR "%s%s%s; load ccore.ko and create a simulated fabric with echo \"ID NUM_DEVICES\" > /sys/bus/ccore_sim/new_device",
				 s.notes[0] ? " (" : "", s.notes, s.notes[0] ? ")" : "");
	if (!rc) {
		qsort(s.c, s.n, sizeof(*s.c), cand_cmp);
		list_fabrics(&s, found, sizeof(found));
		if (want && *want) {
			for (first = 0; first < s.n && !fabric_matches(&s.c[first], want); first++)
				;
			if (first == s.n)
				rc = ccore_error(-EINVAL,
						 "CCORE_ACCEL_FABRIC=%s: no ccore fabric with that id; fabrics found: %s",
						 want, found);
		}
	}
	if (!rc) {
		for (count = 0; first + count < s.n && same_fabric(&s.c[first], &s.c[first + count]);
		     count++)
			;
		rc = check_fabric(&s, first, count) ?: system_new(&s, first, count, out);
	}
	for (i = 0; i < s.n; i++)
		if (s.c[i].fd >= 0)
			close(s.c[i].fd);
	free(s.c);
	return rc;
}
