/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/ccore.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_CCORE_GENL_H
#define _UAPI_LINUX_CCORE_GENL_H

#define CCORE_FAMILY_NAME	"ccore"
#define CCORE_FAMILY_VERSION	1

/**
 * enum ccore_event - What happened to a CC core.
 * @CCORE_EVENT_JOB_TIMEOUT: A job ran past its timeout; the CC core is being
 *   reset and the job fails with -ETIMEDOUT.
 * @CCORE_EVENT_DMA_ERROR: A DMA transfer of a job faulted; the job fails with
 *   -EIO and the CC core stops until it is recovered.
 * @CCORE_EVENT_CC_RECOVERED: A CC core was reset after a timeout or a fault
 *   and takes the next queued job; the status is that of the failure it
 *   recovered from.
 */
enum ccore_event {
	CCORE_EVENT_JOB_TIMEOUT = 1,
	CCORE_EVENT_DMA_ERROR,
	CCORE_EVENT_CC_RECOVERED,
};

/**
 * enum ccore_a_dev - One accelerator device.
 * @CCORE_A_DEV_FABRIC_ID: (u32) Fabric (simulated bus device) the device
 *   belongs to.
 * @CCORE_A_DEV_DEV_INDEX: (u32) Index of the device within its fabric.
 * @CCORE_A_DEV_ACCEL_MINOR: (u32) N of the device's /dev/accel/accelN.
 * @CCORE_A_DEV_NUM_DEVICES: (u32) Devices in the fabric.
 * @CCORE_A_DEV_CORES: (u32) Logical cores (ranks) of the device.
 * @CCORE_A_DEV_CC_CORES: (u32) CC cores of the device, over all its logical
 *   cores; events name them 0 to cc-cores - 1.
 * @CCORE_A_DEV_CC_CORES_PER_CORE: (u32) CC cores of each logical core.
 * @CCORE_A_DEV_MEM_USED: (u32 or u64 by length) Device memory (HBM) reserved
 *   by buffer objects, in bytes.
 * @CCORE_A_DEV_CC_DMA_PACKET_SIZE: (u32) Default DMA packet size of CC rings,
 *   in bytes.
 * @CCORE_A_DEV_DMA_PACKETIZATION_SIZE: (u32) Default DMA packet size of
 *   compute rings, in bytes.
 * @CCORE_A_DEV_JOB_TIMEOUTS: (u32 or u64 by length) Jobs that ran past their
 *   timeout.
 * @CCORE_A_DEV_DMA_ERRORS: (u32 or u64 by length) Jobs failed by a DMA fault.
 * @CCORE_A_DEV_RECOVERIES: (u32 or u64 by length) CC-core resets after a
 *   timeout or a fault.
 * @__CCORE_A_DEV_MAX: One past the last attribute.
 * @CCORE_A_DEV_MAX: The last attribute.
 */
enum ccore_a_dev {
	CCORE_A_DEV_FABRIC_ID = 1,
	CCORE_A_DEV_DEV_INDEX,
	CCORE_A_DEV_ACCEL_MINOR,
	CCORE_A_DEV_NUM_DEVICES,
	CCORE_A_DEV_CORES,
	CCORE_A_DEV_CC_CORES,
	CCORE_A_DEV_CC_CORES_PER_CORE,
	CCORE_A_DEV_MEM_USED,
	CCORE_A_DEV_CC_DMA_PACKET_SIZE,
	CCORE_A_DEV_DMA_PACKETIZATION_SIZE,
	CCORE_A_DEV_JOB_TIMEOUTS,
	CCORE_A_DEV_DMA_ERRORS,
	CCORE_A_DEV_RECOVERIES,

	__CCORE_A_DEV_MAX,
	CCORE_A_DEV_MAX = (__CCORE_A_DEV_MAX - 1)
};

/**
 * enum ccore_a_event - One CC-core event.
 * @CCORE_A_EVENT_TYPE: (u32) What happened.
 * @CCORE_A_EVENT_FABRIC_ID: (u32) Fabric of the device.
 * @CCORE_A_EVENT_DEV_INDEX: (u32) Index of the device within its fabric.
 * @CCORE_A_EVENT_ACCEL_MINOR: (u32) N of the device's /dev/accel/accelN.
 * @CCORE_A_EVENT_CC: (u32) CC core of the device, 0 to cc-cores - 1.
 * @CCORE_A_EVENT_STATUS: (s32) Negative errno of the failure: -ETIMEDOUT for
 *   a timeout, -EIO for a DMA fault.
 * @CCORE_A_EVENT_JOB_ID: (u32 or u64 by length) Id of the job that failed, as
 *   SUBMIT returned it to the file that submitted it. Absent when no single
 *   job is to blame.
 * @__CCORE_A_EVENT_MAX: One past the last attribute.
 * @CCORE_A_EVENT_MAX: The last attribute.
 */
enum ccore_a_event {
	CCORE_A_EVENT_TYPE = 1,
	CCORE_A_EVENT_FABRIC_ID,
	CCORE_A_EVENT_DEV_INDEX,
	CCORE_A_EVENT_ACCEL_MINOR,
	CCORE_A_EVENT_CC,
	CCORE_A_EVENT_STATUS,
	CCORE_A_EVENT_JOB_ID,

	__CCORE_A_EVENT_MAX,
	CCORE_A_EVENT_MAX = (__CCORE_A_EVENT_MAX - 1)
};

/**
 * enum ccore_cmd - Commands and notifications of the ccore family.
 * @CCORE_CMD_DEV_GET: Get one device by fabric and index, or dump every
 *   device.
 * @CCORE_CMD_JOB_TIMEOUT: A job timed out (event job-timeout). Notification
 *   to multicast group events.
 * @CCORE_CMD_DMA_ERROR: A job's DMA faulted (event dma-error). Notification
 *   to multicast group events.
 * @CCORE_CMD_CC_RECOVERED: A CC core was reset and runs again (event
 *   cc-recovered). Notification to multicast group events.
 * @__CCORE_CMD_MAX: One past the last command.
 * @CCORE_CMD_MAX: The last command.
 */
enum ccore_cmd {
	CCORE_CMD_DEV_GET = 1,
	CCORE_CMD_JOB_TIMEOUT,
	CCORE_CMD_DMA_ERROR,
	CCORE_CMD_CC_RECOVERED,

	__CCORE_CMD_MAX,
	CCORE_CMD_MAX = (__CCORE_CMD_MAX - 1)
};

#define CCORE_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_CCORE_GENL_H */
