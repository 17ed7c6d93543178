/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/ccore.yaml */
/* YNL-GEN kernel header */

#ifndef _LINUX_CCORE_GEN_H
#define _LINUX_CCORE_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/ccore_genl.h>

int ccore_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int ccore_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

enum {
	CCORE_NLGRP_EVENTS,
};

extern struct genl_family ccore_nl_family;

#endif /* _LINUX_CCORE_GEN_H */
