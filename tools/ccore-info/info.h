/* SPDX-License-Identifier: MIT */
/* ccore-info: the kernel driver's generic netlink family (netlink.c). */
#ifndef CCORE_INFO_H
#define CCORE_INFO_H

#include <stdbool.h>

/**
 * struct watch_opts - what --watch prints and when it stops
 * @json: one JSON object per line instead of text
 * @count: stop after this many events; 0: never
 * @timeout: stop (successfully) after this many seconds; 0: never
 */
struct watch_opts {
	bool json;
	unsigned long count;
	double timeout;
};

/* Return: the exit status (0, or 1 with a message on stderr). */
int nl_list_devices(bool json);
int nl_watch(const struct watch_opts *o);

/* --net: the network between hosts (net.c); the exit status. */
int net_info(bool as_json);

#endif
