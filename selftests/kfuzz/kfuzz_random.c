// SPDX-License-Identifier: GPL-2.0
/*
 * Random mode: worker processes, each with several files on the ccore
 * devices, call random ioctls and pass dma-bufs, semaphore exports,
 * sync_files (and device files) to each other over a UNIX socket; the
 * parent SIGKILLs and replaces workers while they wait and run jobs, writes
 * sysfs and debugfs files (fault injection included), and creates and
 * deletes fabrics of its own under the open files.  At the end every
 * worker is killed: one that does not die is stuck in the kernel.
 *
 * What is generated follows from the seed: worker k's n-th life runs on
 * seed * 1000003 + n * 64 + k, and the parent's own actions on the seed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "kfuzz.h"

#define MAX_PROCS 32
#define MAX_FILES 8
#define OWN_FABRIC_FIRST 30
#define OWN_FABRICS 3
/* a killed worker must be gone by then */
#define KILL_GRACE_MS 10000

struct fd_socket {
	int send, recv;
};

static int open_random(struct kf_rng *r, struct kf_file *f)
{
	int minors[KF_MAX_ACCEL];
	int n = kf_accel_minors(minors, KF_MAX_ACCEL);

	if (!n) {
		f->fd = -1;
		return -ENODEV;
	}
	return kf_file_open(f, minors[kf_below(r, (uint32_t)n)]);
}

/* Hand an fd we hold to whichever worker receives next. */
static void pass_fd(struct kf_ctx *c, const struct fd_socket *s, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))], byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);

	(void)c;
	if (fd < 0)
		return;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	sendmsg(s->send, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void receive_fds(struct kf_ctx *c, const struct fd_socket *s)
{
	char cbuf[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(s->recv, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) <= 0)
		return;
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
		kf_pool_add(c->rng, c->pool, fd);
	}
}

static void __attribute__((noreturn))
worker(const struct kf_random_opts *o, uint64_t seed, const struct fd_socket *s)
{
	struct kf_file files[MAX_FILES];
	struct kf_fdpool pool = { .n = 0 };
	struct kf_rng rng;
	struct kf_ctx c = {
		.rng = &rng, .files = files, .pool = &pool, .wait_ms = o->wait_ms,
		.skip_known = o->skip_known,
	};
	int i, nfiles = o->files < MAX_FILES ? o->files : MAX_FILES;

	kf_rng_seed(&rng, seed);
	c.nfiles = nfiles;
	for (i = 0; i < nfiles; i++)
		open_random(&rng, &files[i]);
	for (;;) {
		struct kf_file *f = &files[kf_below(&rng, (uint32_t)nfiles)];
		uint32_t p = kf_below(&rng, 1000);

		if (f->fd < 0 || p < 15) {	/* close (work in flight) and reopen */
			kf_file_close(f);
			open_random(&rng, f);
			continue;
		}
		if (p < 40) {
			if (kf_chance(&rng, 50))
				pass_fd(&c, s, kf_chance(&rng, 20) ? f->fd :
						kf_pool_pick(&rng, &pool));
			else
				receive_fds(&c, s);
		} else if (p < 760) {
			kf_ccore_op(&c, f);
		} else {
			kf_drm_op(&c, f);
		}
	}
}

static pid_t spawn(const struct kf_random_opts *o, uint64_t seed, const struct fd_socket *s)
{
	pid_t pid = fork();

	if (pid == 0)
		worker(o, seed, s);
	return pid;
}

/* Reap @pid within @ms: false if it is still there (stuck in the kernel). */
static bool reaped(pid_t pid, long ms)
{
	int64_t end = kf_now_ns() + ms * KF_NSEC_PER_MSEC;
	int status;

	while (kf_now_ns() < end) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno == ECHILD))
			return true;
		kf_sleep_ms(5);
	}
	return false;
}

/* A line of /proc/PID/FILE per output line, prefixed, or nothing. */
static void show_proc(pid_t pid, const char *file)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("# kfuzz:   %s: %s", file, line);
	fclose(f);
}

/*
 * A worker SIGKILL did not take within the grace: say where it is in the
 * kernel (state and stack), then whether it is only slow (dies within a
 * minute) or stuck.
 */
static void report_stuck(pid_t pid)
{
	int64_t start = kf_now_ns();

	printf("# kfuzz: worker %d did not die within %d ms of SIGKILL\n", (int)pid,
	       KILL_GRACE_MS);
	show_proc(pid, "stat");
	show_proc(pid, "wchan");
	printf("\n");
	show_proc(pid, "stack");
	if (reaped(pid, 60000))
		printf("# kfuzz: worker %d died %lld ms later\n", (int)pid,
		       (long long)((kf_now_ns() - start) / KF_NSEC_PER_MSEC));
	else
		printf("# kfuzz: worker %d still alive a minute later\n", (int)pid);
	fflush(stdout);
}

static const char *const fabric_options[] = {
	"", "cores=1", "cores=2,cc_cores=2", "workers=1", "rings=2,engines=1",
	"job_timeout_ms=100", "sems=8", "hbm=1M", "ring_size=16,program_size=64",
	"topology=torus,torus=2x1", "cores=999", "bogus=1", "cc_packet=512,dma_packet=65536",
	"nodes=2,here=0", "nodes=2,here=1", "nodes=3,here=2,sems=64", "nodes=2,here=2",
	"nodes=2",
};

static void fabric_action(struct kf_rng *r, const struct kf_random_opts *o, bool *own)
{
	int k = (int)kf_below(r, OWN_FABRICS), rc;

	if (!own[k]) {
		const char *opt = fabric_options[kf_below(r, sizeof(fabric_options) /
							      sizeof(fabric_options[0]))];

		rc = kf_new_fabric(OWN_FABRIC_FIRST + k, 1 + (int)kf_below(r, 3), opt);
		kf_count(KF_NEW_DEVICE, rc);
		own[k] = !rc;
	} else if (!o->skip_known) {
		rc = kf_del_fabric(OWN_FABRIC_FIRST + k);
		kf_count(KF_DEL_DEVICE, rc);
		own[k] = rc != 0;
	}
}

static const char *const sysfs_attrs[] = {
	"cc_dma_packet_size", "dma_packetization_size", "device_index", "memory_used",
	"job_timeouts", "device/uevent", "rings/c0e0r0_bytes",
};
static const char *const sysfs_values[] = {
	"512", "1024", "4096", "65536", "131072", "0", "3", "-1", "4294967296", "abc", "",
};

static void sysfs_action(struct kf_rng *r)
{
	int minors[KF_MAX_ACCEL], n = kf_accel_minors(minors, KF_MAX_ACCEL);
	char path[160], val[24];
	int minor, fabric;

	if (!n)
		return;
	minor = minors[kf_below(r, (uint32_t)n)];
	if (kf_chance(r, 50)) {
		snprintf(path, sizeof(path), "/sys/class/accel/accel%d/%s", minor,
			 sysfs_attrs[kf_below(r, sizeof(sysfs_attrs) / sizeof(sysfs_attrs[0]))]);
		kf_count(KF_SYSFS_WRITE, kf_write_file(path, sysfs_values[kf_below(r,
			 sizeof(sysfs_values) / sizeof(sysfs_values[0]))]));
		return;
	}
	/* fault injection: a core or CC core, sometimes out of range */
	fabric = kf_minor_fabric(minor);
	snprintf(path, sizeof(path), "/sys/kernel/debug/ccore/fabric%d/dev%u/%s", fabric,
		 kf_below(r, 3), kf_chance(r, 50) ? "inject_dma_error" : "inject_cc_hang");
	snprintf(val, sizeof(val), "%u", kf_chance(r, 90) ? kf_below(r, 9) :
						   (uint32_t)kf_boundary(r));
	kf_count(KF_DEBUGFS_WRITE, kf_write_file(path, val));
}

/* Read every device's debugfs state: the show functions walk live state. */
static void debugfs_reads(void)
{
	static const char *const files[] = { "rings", "semaphores", "cc_cores",
					     "compute_engines" };
	char path[300], buf[4096];
	int fabric, dev;
	uint32_t k;

	for (fabric = 0; fabric < OWN_FABRIC_FIRST + OWN_FABRICS; fabric++) {
		for (dev = 0; dev < 3; dev++) {
			for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
				FILE *fp;

				snprintf(path, sizeof(path),
					 "/sys/kernel/debug/ccore/fabric%d/dev%d/%s", fabric, dev,
					 files[k]);
				fp = fopen(path, "re");
				if (!fp)
					break;
				while (fread(buf, 1, sizeof(buf), fp) > 0)
					;
				fclose(fp);
			}
		}
	}
}

int kf_random_run(const struct kf_random_opts *o)
{
	struct kf_rng rng;
	struct fd_socket sock;
	pid_t pids[MAX_PROCS];
	bool own[OWN_FABRICS] = { false };
	int sv[2], i, procs = o->procs < MAX_PROCS ? o->procs : MAX_PROCS, stuck = 0;
	int64_t end = kf_now_ns() + (int64_t)o->seconds * KF_NSEC_PER_SEC;
	uint64_t lives = 0, kills = 0;
	char tag[64], first[256];
	int bad;

	if (kf_stats_init()) {
		fprintf(stderr, "kfuzz: cannot map the shared counters: %s\n", strerror(errno));
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
		fprintf(stderr, "kfuzz: socketpair: %s\n", strerror(errno));
		return 2;
	}
	sock.send = sv[0];
	sock.recv = sv[1];
	kf_rng_seed(&rng, o->seed);
	snprintf(tag, sizeof(tag), "random seed %llu pid %d", (unsigned long long)o->seed,
		 (int)getpid());
	kf_klog_mark(tag);
	printf("# kfuzz: random run, seed %llu, %d s, %d processes x %d files%s\n",
	       (unsigned long long)o->seed, o->seconds, procs, o->files,
	       o->skip_known ? ", known findings avoided" : "");
	fflush(stdout);
	if (o->fabrics) {
		/* one host of a 2-node job from the start: every run fuzzes the NIC queue */
		int rc = kf_new_fabric(OWN_FABRIC_FIRST, 2, "nodes=2,here=1");

		kf_count(KF_NEW_DEVICE, rc);
		own[0] = !rc;
	}
	for (i = 0; i < procs; i++)
		pids[i] = spawn(o, o->seed * 1000003 + (lives++ % 64) * 64 + (uint64_t)i, &sock);
	while (kf_now_ns() < end) {
		uint32_t p = kf_below(&rng, 100);

		kf_sleep_ms(50 + kf_below(&rng, 250));
		if (p < 30) {	/* kill a worker in whatever it is doing */
			i = (int)kf_below(&rng, (uint32_t)procs);
			kill(pids[i], SIGKILL);
			kills++;
			if (!reaped(pids[i], KILL_GRACE_MS)) {
				report_stuck(pids[i]);
				stuck++;
				break;
			}
			pids[i] = spawn(o, o->seed * 1000003 + lives++ * 64 + (uint64_t)i, &sock);
		} else if (p < 60) {
			sysfs_action(&rng);
		} else if (p < 70) {
			debugfs_reads();
		} else if (p < 80 && o->fabrics) {
			fabric_action(&rng, o, own);
		}
	}
	for (i = 0; i < procs; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < procs; i++) {
		if (!reaped(pids[i], KILL_GRACE_MS)) {
			report_stuck(pids[i]);
			stuck++;
		}
	}
	for (i = 0; i < OWN_FABRICS && !stuck; i++)
		if (own[i])
			kf_count(KF_DEL_DEVICE, kf_del_fabric(OWN_FABRIC_FIRST + i));
	printf("# kfuzz: seed %llu: %llu calls, %llu worker lives, %llu kills\n",
	       (unsigned long long)o->seed, (unsigned long long)kf_stats_total(),
	       (unsigned long long)lives, (unsigned long long)kills);
	kf_stats_print(stdout, "#   ");
	bad = kf_klog_bad_since(tag, first, sizeof(first));
	if (bad)
		printf("# kfuzz: %d kernel log lines of splats since the start, first: %s\n", bad,
		       first);
	fflush(stdout);
	return stuck || bad ? 1 : 0;
}
