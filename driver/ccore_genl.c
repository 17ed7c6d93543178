// SPDX-License-Identifier: GPL-2.0
/* The "ccore" generic netlink family: device state dumps and events. */
#include "ccore_drv.h"

int ccore_genl_init(void)
{
	return 0;
}

void ccore_genl_fini(void)
{
}

void ccore_genl_event(struct ccore_device *cdev, u32 event, u32 cc, int status)
{
}
