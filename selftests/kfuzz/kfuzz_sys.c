// SPDX-License-Identifier: GPL-2.0
/*
 * What the fuzzer needs of the system around the driver: ioctls, the accel
 * devices and their ccore_sim fabrics, sysfs writes, the kernel log and
 * taint, and loading and unloading ccore.ko (all as root in the guest).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

#include "kfuzz.h"
#include "ccore_sim_place.h"

#define SIM_BUS "/sys/bus/ccore_sim"

int kf_ioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) < 0 ? -errno : 0;
}

int kf_ioc(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : 0;
}

int64_t kf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * KF_NSEC_PER_SEC + ts.tv_nsec;
}

void kf_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int kf_accel_minors(int *minors, int max)
{
	uint32_t index;
	int m, n = 0, fabric;

	for (m = 0; m < KF_MAX_ACCEL && n < max; m++)
		if (!ccore_sim_place(m, &fabric, &index))
			minors[n++] = m;
	return n;
}

int kf_fabric_minor(int fabric, uint32_t index)
{
	uint32_t i;
	int m, f;

	for (m = 0; m < KF_MAX_ACCEL; m++)
		if (!ccore_sim_place(m, &f, &i) && f == fabric && i == index)
			return m;
	return -1;
}

int kf_minor_fabric(int minor)
{
	return ccore_sim_fabric(minor);
}

int kf_open_minor(int minor)
{
	char path[48];
	int fd;

	snprintf(path, sizeof(path), "/dev/accel/accel%d", minor);
	fd = open(path, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int kf_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int rc = 0;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int kf_new_fabric(int id, int ndev, const char *options)
{
	char line[300];

	snprintf(line, sizeof(line), "%d %d %s", id, ndev, options ? options : "");
	return kf_write_file(SIM_BUS "/new_device", line);
}

int kf_del_fabric(int id)
{
	char line[24];

	snprintf(line, sizeof(line), "%d", id);
	return kf_write_file(SIM_BUS "/del_device", line);
}

int kf_del_fabric_if(int id)
{
	char path[96];

	snprintf(path, sizeof(path), SIM_BUS "/devices/ccore_sim%d", id);
	return access(path, F_OK) ? 0 : kf_del_fabric(id);
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int rc = -1;

	if (!f)
		return -1;
	if (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		rc = 0;
	}
	fclose(f);
	return rc;
}

void kf_fabrics_save(struct kf_fabrics *s)
{
	DIR *d = opendir(SIM_BUS "/devices");
	struct dirent *e;
	char path[PATH_MAX], buf[256];
	int id;

	memset(s, 0, sizeof(*s));
	if (!d)
		return;
	while ((e = readdir(d)) && s->count < 16) {
		if (sscanf(e->d_name, "ccore_sim%d", &id) != 1 || strchr(e->d_name, '.'))
			continue;
		snprintf(path, sizeof(path), SIM_BUS "/devices/%s/num_devices", e->d_name);
		if (read_line(path, buf, sizeof(buf)))
			continue;
		s->id[s->count] = id;
		s->ndev[s->count] = atoi(buf);
		snprintf(path, sizeof(path), SIM_BUS "/devices/%s/options", e->d_name);
		if (read_line(path, s->options[s->count], sizeof(s->options[0])))
			s->options[s->count][0] = '\0';
		s->count++;
	}
	closedir(d);
	/* readdir's order is the directory's: restore in id order, as created */
	for (int i = 1; i < s->count; i++)
		for (int j = i; j > 0 && s->id[j - 1] > s->id[j]; j--) {
			int t = s->id[j];
			char o[256];

			s->id[j] = s->id[j - 1];
			s->id[j - 1] = t;
			t = s->ndev[j];
			s->ndev[j] = s->ndev[j - 1];
			s->ndev[j - 1] = t;
			memcpy(o, s->options[j], sizeof(o));
			memcpy(s->options[j], s->options[j - 1], sizeof(o));
			memcpy(s->options[j - 1], o, sizeof(o));
		}
}

int kf_fabrics_delete(const struct kf_fabrics *s)
{
	int i, rc = 0;

	for (i = 0; i < s->count; i++)
		rc = kf_del_fabric(s->id[i]) ?: rc;
	return rc;
}

int kf_fabrics_restore(const struct kf_fabrics *s)
{
	int i, rc = 0;

	for (i = 0; i < s->count; i++)
		rc = kf_new_fabric(s->id[i], s->ndev[i], s->options[i]) ?: rc;
	return rc;
}

bool kf_module_loaded(void)
{
	return access("/sys/module/ccore", F_OK) == 0;
}

int kf_module_unload(void)
{
	return syscall(SYS_delete_module, "ccore", O_NONBLOCK) ? -errno : 0;
}

int kf_module_load(void)
{
	struct utsname u;
	char path[PATH_MAX];
	int fd, rc;

	uname(&u);
	snprintf(path, sizeof(path), "/lib/modules/%s/extra/ccore.ko", u.release);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = syscall(SYS_finit_module, fd, "", 0) ? -errno : 0;
	close(fd);
	return rc;
}

void kf_klog_mark(const char *tag)
{
	char line[160];

	snprintf(line, sizeof(line), "kfuzz-mark: %s\n", tag);
	kf_write_file("/dev/kmsg", line);
}

/*
 * What run.sh's checker flags, the hung-task detector's report, and a
 * ring the driver had to leave running at close (its memory kept): no
 * sequence of calls may get a ring there, however it parks or resets.
 */
static const char *const splats[] = {
	"WARNING:", "BUG:", "BUG ", "Oops", "KFENCE", "general protection",
	"Poison overwritten", "blocked for more than", "UBSAN:", "divide error",
	"Call Trace", "lockup", "hung_task_timeout_secs", "did not stop after an abort",
};

int kf_klog_bad_since(const char *tag, char *first, size_t len)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char mark[160], *buf, *from, *p, *line;
	int n, bad = 0;
	size_t k;

	if (first && len)
		first[0] = '\0';
	if (size <= 0)
		return 0;
	buf = malloc((size_t)size + 1);
	if (!buf)
		return 0;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n < 0)
		n = 0;
	buf[n] = '\0';
	snprintf(mark, sizeof(mark), "kfuzz-mark: %s\n", tag);
	from = buf;
	while ((p = strstr(from, mark)))
		from = p + strlen(mark);
	for (line = from; *line; line = p) {
		p = strchr(line, '\n');
		p = p ? p + 1 : line + strlen(line);
		for (k = 0; k < sizeof(splats) / sizeof(splats[0]); k++) {
			char *hit = memmem(line, (size_t)(p - line), splats[k], strlen(splats[k]));

			if (!hit)
				continue;
			if (!bad++ && first && len)
				snprintf(first, len, "%.*s", (int)(p - line - 1), line);
			break;
		}
	}
	free(buf);
	return bad;
}

unsigned long kf_tainted(void)
{
	char buf[32];

	return read_line("/proc/sys/kernel/tainted", buf, sizeof(buf)) ? 0 :
	       strtoul(buf, NULL, 10);
}

void kf_slab_validate(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	struct dirent *e;
	char path[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/validate", e->d_name);
		kf_write_file(path, "1");
	}
	closedir(d);
}
