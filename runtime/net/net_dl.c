// SPDX-License-Identifier: MIT
/*
 * libfabric, loaded the first time the network is used (dlopen), so that
 * libccore needs it only where ranks talk across hosts: a job on one
 * host, or a statically linked tool, runs without it.  The transport
 * calls five of its functions, defined here to forward to the library's;
 * everything else is reached through the objects they return.
 */
#include "net/net_int.h"
#include "ccore_internal.h"
#include "log.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#define NET_FABRIC_SO "libfabric.so.1"

static struct {
	void *handle;
	int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
		       struct fi_info **);
	void (*freeinfo)(struct fi_info *);
	struct fi_info *(*dupinfo)(const struct fi_info *);
	int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
	const char *(*strerror)(int);
	char why[256];
} lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;

/*
 * Debian's libfabric links the PSM libraries, whose constructors take
 * over SIGINT, SIGILL, SIGABRT, SIGBUS, SIGSEGV and SIGTERM: their
 * handler writes a backtrace file into the working directory and exits
 * with status 1.  A program that links libccore would then neither dump
 * core nor report the signal when it crashes, and its own handlers would
 * be gone.  Loading the network must leave the program's signals as they
 * were, so every disposition the load changed is put back.
 */
static void *dlopen_keeping_signals(const char *so)
{
	static struct sigaction before[NSIG];
	static bool known[NSIG];
	char changed[128] = "";
	size_t used = 0;
	void *handle;

	for (int sig = 1; sig < NSIG; sig++)
		known[sig] = !sigaction(sig, NULL, &before[sig]);
	handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction now;

		if (!known[sig] || sigaction(sig, NULL, &now) ||
		    (now.sa_handler == before[sig].sa_handler &&
		     now.sa_flags == before[sig].sa_flags))
			continue;
		sigaction(sig, &before[sig], NULL);
		used += (size_t)snprintf(changed + used, used < sizeof(changed) ?
					 sizeof(changed) - used : 0, " %d", sig);
	}
	if (used)
		log_msg(LOG_INFO, "net: %s changed the handlers of signals%s; put back",
			so, changed);
	return handle;
}

static void load(void)
{
	lib.handle = dlopen_keeping_signals(NET_FABRIC_SO);
	if (!lib.handle) {
		snprintf(lib.why, sizeof(lib.why), "%s", dlerror());
		return;
	}
	*(void **)&lib.getinfo = dlsym(lib.handle, "fi_getinfo");
	*(void **)&lib.freeinfo = dlsym(lib.handle, "fi_freeinfo");
	*(void **)&lib.dupinfo = dlsym(lib.handle, "fi_dupinfo");
	*(void **)&lib.fabric = dlsym(lib.handle, "fi_fabric");
	*(void **)&lib.strerror = dlsym(lib.handle, "fi_strerror");
	if (!lib.getinfo || !lib.freeinfo || !lib.dupinfo || !lib.fabric || !lib.strerror) {
		snprintf(lib.why, sizeof(lib.why), "%s lacks fi_getinfo ... fi_strerror",
			 NET_FABRIC_SO);
		lib.getinfo = NULL;
	}
}

int net_fabric_load(void)
{
	pthread_once(&once, load);
	if (!lib.getinfo)
		return ccore_error(-ENOSYS, "net: %s could not be loaded (install libfabric1): %s",
				   NET_FABRIC_SO, lib.why);
	return 0;
}

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
	       const struct fi_info *hints, struct fi_info **info)
{
	return net_fabric_load() ? -FI_ENOSYS :
	       lib.getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info *info)
{
	if (!net_fabric_load())
		lib.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
	return net_fabric_load() ? NULL : lib.dupinfo(info);
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
	return net_fabric_load() ? -FI_ENOSYS : lib.fabric(attr, fabric, context);
}

const char *fi_strerror(int errnum)
{
	return net_fabric_load() ? "libfabric not loaded" : lib.strerror(errnum);
}
