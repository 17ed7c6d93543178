/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device model's OS shim: the little it needs from its host (memory,
 * locks, condition variables, threads, atomics, a monotonic clock).  The
 * model is built into the kernel module and into libccore from the same
 * sources; only this shim differs.
 */
#ifndef CCM_OS_H
#define CCM_OS_H

#ifdef __KERNEL__
#include "ccm_os_kernel.h"
#else
#include "ccm_os_user.h"
#endif

#endif
