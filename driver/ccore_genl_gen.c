// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/ccore.yaml */
/* YNL-GEN kernel source */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "ccore_genl_gen.h"

#include <uapi/linux/ccore_genl.h>

/* CCORE_CMD_DEV_GET - do */
static const struct nla_policy ccore_dev_get_do_nl_policy[CCORE_A_DEV_DEV_INDEX + 1] = {
	[CCORE_A_DEV_FABRIC_ID] = { .type = NLA_U32, },
	[CCORE_A_DEV_DEV_INDEX] = { .type = NLA_U32, },
};

/* CCORE_CMD_DEV_GET - dump */
static const struct nla_policy ccore_dev_get_dump_nl_policy[CCORE_A_DEV_FABRIC_ID + 1] = {
	[CCORE_A_DEV_FABRIC_ID] = { .type = NLA_U32, },
};

/* Ops table for ccore */
static const struct genl_split_ops ccore_nl_ops[] = {
	{
		.cmd		= CCORE_CMD_DEV_GET,
		.doit		= ccore_nl_dev_get_doit,
		.policy		= ccore_dev_get_do_nl_policy,
		.maxattr	= CCORE_A_DEV_DEV_INDEX,
		.flags		= GENL_CMD_CAP_DO,
	},
	{
		.cmd		= CCORE_CMD_DEV_GET,
		.dumpit		= ccore_nl_dev_get_dumpit,
		.policy		= ccore_dev_get_dump_nl_policy,
		.maxattr	= CCORE_A_DEV_FABRIC_ID,
		.flags		= GENL_CMD_CAP_DUMP,
	},
};

static const struct genl_multicast_group ccore_nl_mcgrps[] = {
	[CCORE_NLGRP_EVENTS] = { "events", },
};

struct genl_family ccore_nl_family __ro_after_init = {
	.name		= CCORE_FAMILY_NAME,
	.version	= CCORE_FAMILY_VERSION,
	.netnsok	= true,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.split_ops	= ccore_nl_ops,
	.n_split_ops	= ARRAY_SIZE(ccore_nl_ops),
	.mcgrps		= ccore_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(ccore_nl_mcgrps),
};
