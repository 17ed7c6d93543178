// SPDX-License-Identifier: GPL-2.0
/*
 * Per-operation return-code counts, in a shared anonymous mapping so the
 * worker processes (and their replacements after a kill) all add to the
 * one table the parent prints.  What a run reached is read from it: an
 * ioctl that only ever says -EINVAL was not fuzzed past its argument
 * checks.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kfuzz.h"

/* errno values go up to about 133; anything above counts as "other". */
#define KF_CODES 136

static uint64_t (*counts)[KF_CODES];

static const char *const op_names[KF_NOPS] = {
	[KF_GET_PARAM] = "GET_PARAM", [KF_SET_PARAM] = "SET_PARAM",
	[KF_BO_CREATE] = "BO_CREATE", [KF_BO_MMAP_OFFSET] = "BO_MMAP_OFFSET",
	[KF_BO_INFO] = "BO_INFO", [KF_RING_CREATE] = "RING_CREATE",
	[KF_RING_DESTROY] = "RING_DESTROY", [KF_RING_SUBMIT] = "RING_SUBMIT",
	[KF_RING_STATS] = "RING_STATS", [KF_SEM_ALLOC] = "SEM_ALLOC",
	[KF_SEM_FREE] = "SEM_FREE", [KF_SEM_ACCESS] = "SEM_ACCESS",
	[KF_SEM_WAIT] = "SEM_WAIT", [KF_PROGRAM_LOAD] = "PROGRAM_LOAD",
	[KF_PROGRAM_FREE] = "PROGRAM_FREE", [KF_SUBMIT] = "SUBMIT",
	[KF_JOB_WAIT] = "JOB_WAIT", [KF_CC_TRIGGER] = "CC_TRIGGER",
	[KF_SEM_EXPORT] = "SEM_EXPORT", [KF_SEM_IMPORT] = "SEM_IMPORT",
	[KF_COMPUTE_SUBMIT] = "COMPUTE_SUBMIT", [KF_COMPUTE_WAIT] = "COMPUTE_WAIT",
	[KF_GET_LAST_ERROR] = "GET_LAST_ERROR",
	[KF_VERSION] = "VERSION", [KF_GET_MAGIC] = "GET_MAGIC",
	[KF_GET_UNIQUE] = "GET_UNIQUE", [KF_GET_CAP] = "GET_CAP",
	[KF_SET_CLIENT_CAP] = "SET_CLIENT_CAP", [KF_GEM_CLOSE] = "GEM_CLOSE",
	[KF_GEM_FLINK] = "GEM_FLINK", [KF_GEM_OPEN] = "GEM_OPEN",
	[KF_PRIME_HANDLE_TO_FD] = "PRIME_HANDLE_TO_FD",
	[KF_PRIME_FD_TO_HANDLE] = "PRIME_FD_TO_HANDLE",
	[KF_SYNCOBJ_CREATE] = "SYNCOBJ_CREATE", [KF_SYNCOBJ_DESTROY] = "SYNCOBJ_DESTROY",
	[KF_SYNCOBJ_HANDLE_TO_FD] = "SYNCOBJ_HANDLE_TO_FD",
	[KF_SYNCOBJ_FD_TO_HANDLE] = "SYNCOBJ_FD_TO_HANDLE",
	[KF_SYNCOBJ_WAIT] = "SYNCOBJ_WAIT", [KF_SYNCOBJ_RESET] = "SYNCOBJ_RESET",
	[KF_SYNCOBJ_SIGNAL] = "SYNCOBJ_SIGNAL",
	[KF_SYNCOBJ_TIMELINE_WAIT] = "SYNCOBJ_TIMELINE_WAIT",
	[KF_SYNCOBJ_QUERY] = "SYNCOBJ_QUERY", [KF_SYNCOBJ_TRANSFER] = "SYNCOBJ_TRANSFER",
	[KF_SYNCOBJ_TIMELINE_SIGNAL] = "SYNCOBJ_TIMELINE_SIGNAL",
	[KF_RANDOM_NR] = "random-nr", [KF_MMAP] = "mmap",
	[KF_SYNC_FILE_INFO] = "SYNC_IOC_FILE_INFO", [KF_NEW_DEVICE] = "new_device",
	[KF_DEL_DEVICE] = "del_device", [KF_SYSFS_WRITE] = "sysfs-write",
	[KF_DEBUGFS_WRITE] = "debugfs-write",
	[KF_NIC_REMOTE_MAP] = "NIC_REMOTE_MAP", [KF_NIC_REMOTE_SEMS] = "NIC_REMOTE_SEMS",
	[KF_NIC_TAKE] = "NIC_TAKE", [KF_NIC_DONE] = "NIC_DONE", [KF_NIC_DELIVER] = "NIC_DELIVER",
	[KF_NIC_POLL] = "poll",
};

/*
 * Between inaccessible guard pages: no neighbouring mapping (a buffer the
 * fuzzer registers, a mapped BO) can run into the table.
 */
int kf_stats_init(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = (sizeof(*counts) * KF_NOPS + page - 1) / page * page;
	uint8_t *p = mmap(NULL, size + 2 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	if (mmap(p + page, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) == MAP_FAILED)
		return -errno;
	counts = (void *)(p + page);
	memset(counts, 0, size);	/* its pages exist before any worker runs */
	return 0;
}

void kf_count(enum kf_op op, int rc)
{
	int code = rc < 0 ? -rc : 0;

	if (!counts || op >= KF_NOPS)
		return;
	if (code >= KF_CODES)
		code = KF_CODES - 1;
	__atomic_add_fetch(&counts[op][code], 1, __ATOMIC_RELAXED);
}

uint64_t kf_stats_total(void)
{
	uint64_t sum = 0;
	int op, code;

	for (op = 0; counts && op < KF_NOPS; op++)
		for (code = 0; code < KF_CODES; code++)
			sum += counts[op][code];
	return sum;
}

void kf_stats_print(FILE *out, const char *prefix)
{
	int op, code;

	for (op = 0; counts && op < KF_NOPS; op++) {
		uint64_t sum = 0;

		for (code = 0; code < KF_CODES; code++)
			sum += counts[op][code];
		if (!sum)
			continue;
		fprintf(out, "%s%s:", prefix, op_names[op]);
		for (code = 0; code < KF_CODES; code++) {
			const char *name;

			if (!counts[op][code])
				continue;
			name = code ? strerrorname_np(code) : NULL;
			if (!code)
				fprintf(out, " 0=%llu", (unsigned long long)counts[op][code]);
			else if (name && code < KF_CODES - 1)
				fprintf(out, " -%s=%llu", name, (unsigned long long)counts[op][code]);
			else
				fprintf(out, " -%d=%llu", code, (unsigned long long)counts[op][code]);
		}
		fputc('\n', out);
	}
}
