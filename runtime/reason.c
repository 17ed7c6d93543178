// SPDX-License-Identifier: MIT
/*
 * The uAPI's reasons (enum drm_ccore_reason): which rule a failed ioctl
 * broke, by name and in words, for the messages of both backends.
 */
#include "ccore_internal.h"

#include <stddef.h>

static const struct {
	const char *name;
	const char *text;
} reasons[] = {
	[DRM_CCORE_REASON_NONE] = { "NONE", "no rule named" },
	[DRM_CCORE_REASON_PAD] = { "PAD", "a pad or reserved field is not zero; they must be" },
	[DRM_CCORE_REASON_FLAGS] = { "FLAGS", "unknown flags; only the flags the ioctl documents are allowed" },
	[DRM_CCORE_REASON_CORE] = { "CORE", "the logical core does not exist; cores are 0..NUM_CORES-1" },
	[DRM_CCORE_REASON_ENGINE_RING] = { "ENGINE_RING", "the DMA engine or ring does not exist; engines are 0..ENGINES_PER_CORE-1, rings 0..RINGS_PER_ENGINE-1" },
	[DRM_CCORE_REASON_RING_SIZE] = { "RING_SIZE", "the ring size is out of range; 1..MAX_RING_SIZE descriptor slots" },
	[DRM_CCORE_REASON_PACKET_SIZE] = { "PACKET_SIZE", "the packet size must be a power of two in MIN..MAX_PACKET_SIZE, or 0 for the device default" },
	[DRM_CCORE_REASON_RING_INDEX] = { "RING_INDEX", "index_count must be 0 (not indexed, with index_stride 0) or 1..DRM_CCORE_MAX_INDEX_COUNT, |index_stride| at most DRM_CCORE_MAX_INDEX_STRIDE" },
	[DRM_CCORE_REASON_RING_CLAIMED] = { "RING_CLAIMED", "that ring of the engine is already claimed, by this file or another one (another process or runtime instance on the device)" },
	[DRM_CCORE_REASON_RING_HANDLE] = { "RING_HANDLE", "no ring with that handle in this file" },
	[DRM_CCORE_REASON_RING_PROGRAMS] = { "RING_PROGRAMS", "loaded programs start or wait for the ring; free them first" },
	[DRM_CCORE_REASON_RING_IN_FLIGHT] = { "RING_IN_FLIGHT", "the ring has descriptors in flight or is a running compute program's DMA ring; it must be idle" },
	[DRM_CCORE_REASON_DESC_COUNT] = { "DESC_COUNT", "the descriptor count must be 1..2^20" },
	[DRM_CCORE_REASON_RING_FULL] = { "RING_FULL", "more descriptors than the ring has free slots" },
	[DRM_CCORE_REASON_DESC_INVALID] = { "DESC_INVALID", "the descriptor is not valid: op, dtype, redop, flags, length, or an address outside this file's buffers and imports (on an indexed ring, at any index)" },
	[DRM_CCORE_REASON_DESC_SEM] = { "DESC_SEM", "the descriptor names a semaphore this file neither allocated nor imported" },
	[DRM_CCORE_REASON_SEM_COUNT] = { "SEM_COUNT", "the semaphore count must be 1..SEMS_PER_CORE" },
	[DRM_CCORE_REASON_SEM_NO_SPACE] = { "SEM_NO_SPACE", "not that many free consecutive semaphores on the core (other files on the device hold the rest)" },
	[DRM_CCORE_REASON_SEM_NOT_BLOCK] = { "SEM_NOT_BLOCK", "the semaphore is not the first of a block this file allocated" },
	[DRM_CCORE_REASON_SEM_PINNED] = { "SEM_PINNED", "loaded programs or written rings name the block; free or destroy them first" },
	[DRM_CCORE_REASON_SEM_OP] = { "SEM_OP", "op must be READ (0), SET (1) or ADD (2)" },
	[DRM_CCORE_REASON_SEM_INVALID] = { "SEM_INVALID", "the semaphore does not exist: its device, core or index is out of range" },
	[DRM_CCORE_REASON_SEM_NOT_USABLE] = { "SEM_NOT_USABLE", "the semaphore is not yours: this file neither allocated it nor imported its block" },
	[DRM_CCORE_REASON_FD_BAD] = { "FD_BAD", "the fd is not an open file" },
	[DRM_CCORE_REASON_FD_NOT_SEM] = { "FD_NOT_SEM", "the fd is not one SEM_EXPORT returned" },
	[DRM_CCORE_REASON_FD_OTHER_FABRIC] = { "FD_OTHER_FABRIC", "the fd names semaphores of another fabric; only devices of one fabric share them" },
	[DRM_CCORE_REASON_CC_CORE] = { "CC_CORE", "the CC core does not exist; CC cores are 0..NUM_CORES*CC_CORES_PER_CORE-1" },
	[DRM_CCORE_REASON_INSN_COUNT] = { "INSN_COUNT", "the instruction count must be 1..MAX_PROGRAM_SIZE" },
	[DRM_CCORE_REASON_INSN_INVALID] = { "INSN_INVALID", "the instruction is not valid: opcode, operands or branch target" },
	[DRM_CCORE_REASON_INSN_NOT_OWNED] = { "INSN_NOT_OWNED", "the instruction names a semaphore or ring this file does not own" },
	[DRM_CCORE_REASON_CC_MEMORY_FULL] = { "CC_MEMORY_FULL", "the CC core's instruction memory has no room for the program; free programs loaded there" },
	[DRM_CCORE_REASON_PROGRAM_HANDLE] = { "PROGRAM_HANDLE", "no program with that handle in this file" },
	[DRM_CCORE_REASON_PROGRAM_BUSY] = { "PROGRAM_BUSY", "the program has jobs queued or running; wait for them first" },
	[DRM_CCORE_REASON_TIMEOUT] = { "TIMEOUT", "timeout_ms must be 1..3600000 (an hour), or 0 for the device default" },
	[DRM_CCORE_REASON_JOBS_FULL] = { "JOBS_FULL", "the file has the most unfinished jobs it may have; wait for some first" },
	[DRM_CCORE_REASON_SYNCOBJ] = { "SYNCOBJ", "the in or out syncobj does not exist or has no fence (the sim backend has no syncobjs: pass 0)" },
	[DRM_CCORE_REASON_JOB_UNKNOWN] = { "JOB_UNKNOWN", "the job is unknown to this file or older than the ones it keeps" },
	[DRM_CCORE_REASON_TRIGGER_COUNT] = { "TRIGGER_COUNT", "the trigger count must be 1..65535" },
	[DRM_CCORE_REASON_NIC_NOT_REMOTE] = { "NIC_NOT_REMOTE", "the device or semaphore block is not on another host (this host's, nonexistent, spanning cores, or a fabric that holds every node)" },
	[DRM_CCORE_REASON_NIC_SIZE] = { "NIC_SIZE", "the size is out of range (1..the limit, not wrapping)" },
	[DRM_CCORE_REASON_NIC_LIMIT] = { "NIC_LIMIT", "the file has as many remote mappings or semaphore blocks as it may (256)" },
	[DRM_CCORE_REASON_NIC_NOTHING] = { "NIC_NOTHING", "no transfer of this file's rings waits for NIC_TAKE; poll() the file for it" },
	[DRM_CCORE_REASON_NIC_BUFFER] = { "NIC_BUFFER", "the next transfer has more bytes than NIC_TAKE's buffer holds (limit: its size); it stays queued" },
	[DRM_CCORE_REASON_NIC_XFER] = { "NIC_XFER", "no transfer this file took and has not reported has that ring and sequence" },
	[DRM_CCORE_REASON_NIC_STATUS] = { "NIC_STATUS", "NIC_DONE's status must be 0 or a negative errno (-4095..-1)" },
	[DRM_CCORE_REASON_NIC_TARGET] = { "NIC_TARGET", "NIC_DELIVER's range is not inside one buffer of this file (own or imported memory, not a remote mapping)" },
};

const char *ccore_reason_name(uint32_t reason)
{
	return reason < sizeof(reasons) / sizeof(reasons[0]) && reasons[reason].name ?
	       reasons[reason].name : "unknown";
}

const char *ccore_reason_text(uint32_t reason)
{
	return reason < sizeof(reasons) / sizeof(reasons[0]) && reasons[reason].text ?
	       reasons[reason].text : "a reason this runtime does not know (the driver is newer)";
}
