// SPDX-License-Identifier: GPL-2.0
/*
 * A device's sysfs attributes exist when its "add" uevent goes out, so
 * udev rules reading ATTR{...} on "add" see them (no race with udev).
 *
 * The test listens on the kernel's uevent netlink socket while it creates
 * a simulated fabric, and on each "add" of one of the fabric's devices
 * lists the device's attribute files at once; when the fabric is complete
 * it lists them again: nothing may have appeared in between.  To look
 * before the writer of new_device can go on, the listener runs SCHED_FIFO
 * on the writer's CPU: the uevent's wakeup preempts the writer at its next
 * preemption point, which a late sysfs_create_group() has (it allocates).
 */
#include <poll.h>
#include <sched.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include "ccore_drv_test.h"

#define MAX_SEEN 16

/* What one "add" uevent named, and the attribute files there were then. */
struct seen_add {
	char devpath[256];
	char subsystem[32];
	char *files;		/* "name\n" per file, sorted */
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* Append a copy of @name to the growing array *@names of *@n. */
static void add_name(char ***names, size_t *n, const char *name)
{
	char **grown = realloc(*names, (*n + 1) * sizeof(**names));

	if (!grown)
		return;
	*names = grown;
	grown[*n] = strdup(name);
	if (grown[*n])
		(*n)++;
}

/*
 * The attribute files of the device at /sys@devpath, sorted, one per line
 * (malloc'ed): its regular files and those of its attribute-group
 * subdirectories (a subdirectory holding "uevent" is a child device, not
 * ours to list).
 */
static char *list_attrs(const char *devpath)
{
	char dir[512], sub[768], probe[1024];
	size_t n = 0, len = 1, i;
	struct dirent *e, *se;
	char **names = NULL;
	char *out, *end;
	struct stat st;
	DIR *d, *sd;

	snprintf(dir, sizeof(dir), "/sys%s", devpath);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
		if (lstat(sub, &st))
			continue;
		if (S_ISREG(st.st_mode)) {
			add_name(&names, &n, e->d_name);
			continue;
		}
		snprintf(probe, sizeof(probe), "%s/uevent", sub);
		if (!S_ISDIR(st.st_mode) || !access(probe, F_OK))
			continue;
		sd = opendir(sub);
		while (sd && (se = readdir(sd))) {
			snprintf(probe, sizeof(probe), "%s/%s", sub, se->d_name);
			if (se->d_name[0] == '.' || lstat(probe, &st) || !S_ISREG(st.st_mode))
				continue;
			snprintf(probe, sizeof(probe), "%s/%s", e->d_name, se->d_name);
			add_name(&names, &n, probe);
		}
		if (sd)
			closedir(sd);
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	out = malloc(len);
	end = out;
	for (i = 0; i < n; i++) {
		if (out)
			end += sprintf(end, "%s\n", names[i]);
		free(names[i]);
	}
	free(names);
	if (out)
		*end = '\0';
	return out;
}

/* Whether @name is a whole line of @list. */
static bool has_line(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *at;

	for (at = strstr(list, name); at; at = strstr(at + 1, name))
		if ((at == list || at[-1] == '\n') && at[len] == '\n')
			return true;
	return false;
}

/*
 * How many lines of @now are not in @then (both sorted lists from
 * list_attrs()); the first few are logged.
 */
static int missing_then(struct __test_metadata *_metadata, const char *devpath,
			const char *then, const char *now)
{
	char name[256];
	int missing = 0, len;

	while (sscanf(now, "%255[^\n]\n%n", name, &len) == 1) {
		if (!has_line(then, name) && missing++ < 5)
			TH_LOG("%s: %s appeared after the add uevent", devpath, name);
		now += len;
	}
	return missing;
}

/* The value of KEY= in a uevent message (NUL-separated), or "". */
static const char *uevent_field(const char *msg, size_t len, const char *key)
{
	size_t klen = strlen(key), off;

	for (off = 0; off < len; off += strlen(msg + off) + 1)
		if (!strncmp(msg + off, key, klen) && msg[off + klen] == '=')
			return msg + off + klen + 1;
	return "";
}

static int pin_to_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* A fabric id no one uses, from the pid so parallel runs differ. */
static int free_fabric_id(void)
{
	char path[128];
	int id;

	for (id = 5000 + getpid() % 1000; ; id++) {
		snprintf(path, sizeof(path), SIM_BUS "/devices/ccore_sim%d", id);
		if (access(path, F_OK))
			return id;
	}
}

FIXTURE(uev) {
	int sock;
	int fabric;
	bool created;
	struct seen_add seen[MAX_SEEN];
	int nseen;
};

FIXTURE_SETUP(uev)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int rcvbuf = 4 << 20;

	self->sock = -1;
	self->created = false;
	if (access(SIM_BUS "/new_device", W_OK))
		SKIP(return, "no " SIM_BUS "/new_device (ccore.ko not loaded, or not root)");
	self->sock = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	ASSERT_LE(0, self->sock) TH_LOG("uevent socket: %s", strerror(errno));
	setsockopt(self->sock, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	ASSERT_EQ(0, bind(self->sock, (struct sockaddr *)&sa, sizeof(sa)))
		TH_LOG("bind to the kernel's uevent group: %s", strerror(errno));
	self->fabric = free_fabric_id();
}

FIXTURE_TEARDOWN(uev)
{
	char id[32];
	int i;

	for (i = 0; i < self->nseen; i++)
		free(self->seen[i].files);
	if (self->created) {
		snprintf(id, sizeof(id), "%d", self->fabric);
		write_text(SIM_BUS "/del_device", id);
	}
	if (self->sock >= 0)
		close(self->sock);
}

/* Take one uevent; on an "add" below @prefix, list the device's files. */
static void take_uevent(FIXTURE_DATA(uev) *self, const char *prefix)
{
	char msg[8192];
	struct seen_add *s;
	const char *path;
	ssize_t len;

	len = recv(self->sock, msg, sizeof(msg) - 1, MSG_DONTWAIT);
	if (len <= 0)
		return;
	msg[len] = '\0';
	path = uevent_field(msg, len, "DEVPATH");
	if (strcmp(uevent_field(msg, len, "ACTION"), "add") || !strstr(path, prefix) ||
	    self->nseen == MAX_SEEN)
		return;
	s = &self->seen[self->nseen++];
	/* first the files, while the writer is still inside new_device */
	s->files = list_attrs(path);
	snprintf(s->devpath, sizeof(s->devpath), "%s", path);
	snprintf(s->subsystem, sizeof(s->subsystem), "%s",
		 uevent_field(msg, len, "SUBSYSTEM"));
}

TEST_F(uev, attributes_exist_at_add)
{
	struct sched_param sp = { .sched_priority = 50 };
	char line[64], prefix[64], *now;
	int status, i, accels = 0, buses = 0;
	struct pollfd pfd;
	pid_t writer;
	bool done = false;

	ASSERT_EQ(0, pin_to_cpu0());
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &sp))
		TH_LOG("SCHED_FIFO: %s", strerror(errno));
	snprintf(line, sizeof(line), "%d 2", self->fabric);
	snprintf(prefix, sizeof(prefix), "/ccore_sim%d", self->fabric);
	writer = fork();
	ASSERT_LE(0, writer);
	if (writer == 0) {
		/* on CPU 0 too, below the listener: each uevent preempts it */
		struct sched_param normal = { .sched_priority = 0 };

		sched_setscheduler(0, SCHED_OTHER, &normal);
		_exit(write_text(SIM_BUS "/new_device", line) ? 1 : 0);
	}
	pfd.fd = self->sock;
	pfd.events = POLLIN;
	while (!done) {
		if (poll(&pfd, 1, 100) > 0) {
			take_uevent(self, prefix);
			continue;
		}
		done = waitpid(writer, &status, WNOHANG) == writer;
	}
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
	while (poll(&pfd, 1, 0) > 0)
		take_uevent(self, prefix);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("echo '%s' > new_device failed", line);
	self->created = true;

	for (i = 0; i < self->nseen; i++) {
		struct seen_add *s = &self->seen[i];

		now = list_attrs(s->devpath);
		ASSERT_TRUE(now && s->files) TH_LOG("out of memory");
		TH_LOG("add %s (%s): %zu bytes of names then, %zu now", s->devpath, s->subsystem,
		       strlen(s->files), strlen(now));
		EXPECT_EQ(0, missing_then(_metadata, s->devpath, s->files, now));
		free(now);
		if (!strcmp(s->subsystem, "accel")) {
			accels++;
			EXPECT_TRUE(has_line(s->files, "cc_dma_packet_size"));
			EXPECT_TRUE(has_line(s->files, "fabric_id"));
			EXPECT_TRUE(has_line(s->files, "rings/c0e0r0_bytes"));
		} else if (!strcmp(s->subsystem, "ccore_sim")) {
			buses++;
			EXPECT_TRUE(has_line(s->files, "num_devices"));
			EXPECT_TRUE(has_line(s->files, "options"));
		}
	}
	EXPECT_EQ(2, accels) TH_LOG("add uevents of the fabric's accel devices");
	EXPECT_EQ(1, buses) TH_LOG("add uevents of the fabric's ccore_sim device");
}

TEST_HARNESS_MAIN
