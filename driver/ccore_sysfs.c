// SPDX-License-Identifier: GPL-2.0
/* sysfs: the packet-size knobs and per-ring counters of each device. */
#include "ccore_drv.h"

const struct attribute_group *ccore_dev_groups[] = {
	NULL,
};
