// SPDX-License-Identifier: GPL-2.0
/* debugfs: ring and semaphore state, fault injection. */
#include <linux/debugfs.h>

#include "ccore_drv.h"

void ccore_debugfs_init(struct ccore_device *cdev)
{
}
