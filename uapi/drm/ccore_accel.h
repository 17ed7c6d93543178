/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ccore: collective-communication (CC) core accelerator uAPI.
 *
 * One header shared by the kernel driver (drivers/accel/ccore) and userspace
 * (libccore, both its "accel" backend and its embedded "sim" backend, which
 * implements the same ioctls in-process on the device model).
 *
 * Conventions: only __u32/__u64 (and, inside the hardware formats, __u8/__u16)
 * fields; every struct is a multiple of 8 bytes with no implicit holes; user
 * pointers are __u64; reserved fields and unknown flags must be zero or the
 * ioctl fails with -EINVAL.  Structs are only ever extended by appending.
 *
 * Over 800 lines on purpose: the uAPI is one header (as every DRM driver's
 * is), and most of it is the kernel-doc of each field, which belongs beside
 * the field.
 */
#ifndef _UAPI_CCORE_ACCEL_H_
#define _UAPI_CCORE_ACCEL_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* Ioctl numbers, relative to DRM_COMMAND_BASE.  Never reused. */
#define DRM_CCORE_GET_PARAM		0x00
#define DRM_CCORE_SET_PARAM		0x01
#define DRM_CCORE_BO_CREATE		0x02
#define DRM_CCORE_BO_MMAP_OFFSET	0x03
#define DRM_CCORE_BO_INFO		0x04
#define DRM_CCORE_RING_CREATE		0x05
#define DRM_CCORE_RING_DESTROY		0x06
#define DRM_CCORE_RING_SUBMIT		0x07
#define DRM_CCORE_RING_STATS		0x08
#define DRM_CCORE_SEM_ALLOC		0x09
#define DRM_CCORE_SEM_FREE		0x0a
#define DRM_CCORE_SEM_ACCESS		0x0b
#define DRM_CCORE_SEM_WAIT		0x0c
#define DRM_CCORE_PROGRAM_LOAD		0x0d
#define DRM_CCORE_PROGRAM_FREE		0x0e
#define DRM_CCORE_SUBMIT		0x0f
#define DRM_CCORE_JOB_WAIT		0x10
#define DRM_CCORE_CC_TRIGGER		0x11
#define DRM_CCORE_SEM_EXPORT		0x12
#define DRM_CCORE_SEM_IMPORT		0x13
#define DRM_CCORE_COMPUTE_SUBMIT	0x14
#define DRM_CCORE_COMPUTE_WAIT		0x15
#define DRM_CCORE_GET_LAST_ERROR	0x16
#define DRM_CCORE_NIC_REMOTE_MAP	0x17
#define DRM_CCORE_NIC_REMOTE_SEMS	0x18
#define DRM_CCORE_NIC_TAKE		0x19
#define DRM_CCORE_NIC_DONE		0x1a
#define DRM_CCORE_NIC_DELIVER		0x1b

/* ------------------------------------------------------------------------ */
/* Hardware formats: DMA descriptors and CC-core instructions.               */
/* ------------------------------------------------------------------------ */

/**
 * DRM_CCORE_SEM_REF() - build a semaphore reference
 * @dev: device index in the fabric (DRM_CCORE_PARAM_DEVICE_INDEX), 0..255
 * @core: logical core on that device, 0..255
 * @idx: semaphore index in that core's bank, 0..65535
 *
 * Semaphores are named by a 32-bit reference in descriptors, instructions and
 * ioctls.  A reference naming another device is a remote semaphore: writes
 * to it travel over the links.
 */
#define DRM_CCORE_SEM_REF(dev, core, idx) \
	((((__u32)(dev) & 0xff) << 24) | (((__u32)(core) & 0xff) << 16) | \
	 ((__u32)(idx) & 0xffff))
/** DRM_CCORE_SEM_REF_DEV() - device index of a semaphore reference */
#define DRM_CCORE_SEM_REF_DEV(ref)	(((ref) >> 24) & 0xff)
/** DRM_CCORE_SEM_REF_CORE() - core index of a semaphore reference */
#define DRM_CCORE_SEM_REF_CORE(ref)	(((ref) >> 16) & 0xff)
/** DRM_CCORE_SEM_REF_IDX() - bank index of a semaphore reference */
#define DRM_CCORE_SEM_REF_IDX(ref)	((ref) & 0xffff)

/**
 * DRM_CCORE_SEM_TRIGGER - in an instruction: this CC core's trigger semaphore
 *
 * Every CC core has one trigger semaphore outside the allocatable bank.
 * DRM_IOCTL_CCORE_CC_TRIGGER (and, on the device, a compute engine's
 * trigger write) adds to it; the resident dispatcher ACQUIREs it.
 */
#define DRM_CCORE_SEM_TRIGGER	0xffffffffu

/**
 * enum drm_ccore_desc_op - DMA descriptor operation
 * @DRM_CCORE_DESC_COPY: copy @len bytes from @src0 to @dst
 * @DRM_CCORE_DESC_REDUCE: dst[i] = src0[i] (op) src1[i] for @len bytes of
 *	elements of @dtype, combined with @redop; @dst may alias a source
 * @DRM_CCORE_DESC_SEM_WRITE: write @value to the semaphore named by the low
 *	32 bits of @dst (set with %DRM_CCORE_DESC_F_SEM_SET, else add)
 * @DRM_CCORE_DESC_DIV: dst[i] = src0[i] / @value for @len bytes of elements
 *	of @dtype (integers: the element's value over @value as an exact
 *	integer, truncated toward zero; @value 1..2^31); what an average
 *	needs after a sum
 */
enum drm_ccore_desc_op {
	DRM_CCORE_DESC_COPY = 1,
	DRM_CCORE_DESC_REDUCE = 2,
	DRM_CCORE_DESC_SEM_WRITE = 3,
	DRM_CCORE_DESC_DIV = 4,
};

/**
 * enum drm_ccore_dtype - element type of a REDUCE descriptor
 * @DRM_CCORE_DTYPE_I8: signed 8-bit integer
 * @DRM_CCORE_DTYPE_U8: unsigned 8-bit integer
 * @DRM_CCORE_DTYPE_I32: signed 32-bit integer
 * @DRM_CCORE_DTYPE_U32: unsigned 32-bit integer
 * @DRM_CCORE_DTYPE_I64: signed 64-bit integer
 * @DRM_CCORE_DTYPE_U64: unsigned 64-bit integer
 * @DRM_CCORE_DTYPE_F16: IEEE 754 binary16
 * @DRM_CCORE_DTYPE_BF16: bfloat16 (upper half of a binary32)
 * @DRM_CCORE_DTYPE_F32: IEEE 754 binary32
 * @DRM_CCORE_DTYPE_F64: IEEE 754 binary64
 *
 * Integer arithmetic wraps (two's complement); f16 and bf16 are computed in
 * binary32 and rounded to nearest even.
 */
enum drm_ccore_dtype {
	DRM_CCORE_DTYPE_I8 = 1,
	DRM_CCORE_DTYPE_U8 = 2,
	DRM_CCORE_DTYPE_I32 = 3,
	DRM_CCORE_DTYPE_U32 = 4,
	DRM_CCORE_DTYPE_I64 = 5,
	DRM_CCORE_DTYPE_U64 = 6,
	DRM_CCORE_DTYPE_F16 = 7,
	DRM_CCORE_DTYPE_BF16 = 8,
	DRM_CCORE_DTYPE_F32 = 9,
	DRM_CCORE_DTYPE_F64 = 10,
};

/**
 * enum drm_ccore_redop - reduction operator of a REDUCE descriptor
 * @DRM_CCORE_REDOP_SUM: a + b
 * @DRM_CCORE_REDOP_PROD: a * b
 * @DRM_CCORE_REDOP_MAX: max(a, b)
 * @DRM_CCORE_REDOP_MIN: min(a, b)
 */
enum drm_ccore_redop {
	DRM_CCORE_REDOP_SUM = 1,
	DRM_CCORE_REDOP_PROD = 2,
	DRM_CCORE_REDOP_MAX = 3,
	DRM_CCORE_REDOP_MIN = 4,
};

/** DRM_CCORE_DESC_F_SIGNAL - on completion add @signal_value to @signal_sem */
#define DRM_CCORE_DESC_F_SIGNAL		(1u << 0)
/** DRM_CCORE_DESC_F_SEM_SET - SEM_WRITE sets the semaphore instead of adding */
#define DRM_CCORE_DESC_F_SEM_SET	(1u << 1)
/** DRM_CCORE_DESC_FLAGS - every defined descriptor flag */
#define DRM_CCORE_DESC_FLAGS	(DRM_CCORE_DESC_F_SIGNAL | DRM_CCORE_DESC_F_SEM_SET)

/**
 * struct drm_ccore_desc - one DMA descriptor (48 bytes)
 *
 * Addresses are device virtual addresses of the submitting context (see
 * &drm_ccore_bo_create.dev_addr).  A descriptor may only touch buffer objects
 * its context owns or imported; submission rejects anything else.
 */
struct drm_ccore_desc {
	/** @op: one of &enum drm_ccore_desc_op */
	__u8 op;
	/** @dtype: &enum drm_ccore_dtype for REDUCE, otherwise 0 */
	__u8 dtype;
	/** @redop: &enum drm_ccore_redop for REDUCE, otherwise 0 */
	__u8 redop;
	/** @flags: DRM_CCORE_DESC_F_* */
	__u8 flags;
	/** @signal_sem: semaphore reference signalled on completion */
	__u32 signal_sem;
	/** @signal_value: amount added to @signal_sem on completion */
	__u32 signal_value;
	/** @value: SEM_WRITE value, DIV divisor, otherwise 0 */
	__u32 value;
	/** @len: bytes to move (COPY, REDUCE; multiple of the dtype size) */
	__u64 len;
	/** @dst: destination address, or semaphore reference for SEM_WRITE */
	__u64 dst;
	/** @src0: source address (first operand of REDUCE) */
	__u64 src0;
	/** @src1: second operand of REDUCE, otherwise 0 */
	__u64 src1;
};

/**
 * enum drm_ccore_opcode - CC-core instruction opcodes
 * @DRM_CCORE_OP_NOP: do nothing
 * @DRM_CCORE_OP_HALT: stop the CC core until it is reset
 * @DRM_CCORE_OP_WAIT: wait until local semaphore @sem >= @imm
 * @DRM_CCORE_OP_ACQUIRE: wait until local @sem >= @imm, then subtract @imm
 * @DRM_CCORE_OP_SET: set semaphore @sem (local or remote) to @imm
 * @DRM_CCORE_OP_ADD: add @imm to semaphore @sem (local or remote)
 * @DRM_CCORE_OP_START: start the next @imm descriptors of ring @ring of
 *	engine @engine of this core (an indexed ring's at index 0); @imm is
 *	1..the ring's size when loaded (for START and STARTI alike), and at
 *	most the descriptors written when run, else the core faults
 * @DRM_CCORE_OP_RWAIT: wait until every started descriptor of @engine/@ring
 *	has completed
 * @DRM_CCORE_OP_JUMP: pc += @target
 * @DRM_CCORE_OP_BGE: if local @sem >= @imm then pc += @target
 * @DRM_CCORE_OP_MOVI: register @reg = @imm
 * @DRM_CCORE_OP_ADDI: register @reg += @imm (modulo 2^32)
 * @DRM_CCORE_OP_LOOP: register @reg -= 1; if it is not zero, pc += @target
 * @DRM_CCORE_OP_CALL: push pc + 1, pc += @target
 * @DRM_CCORE_OP_RET: pop pc; returning from a scheduled program completes
 *	its job
 * @DRM_CCORE_OP_NEXT: call the next scheduled program (wait for one)
 * @DRM_CCORE_OP_NOTIFY: raise a host notification carrying @imm
 * @DRM_CCORE_OP_STARTI: start the next @imm descriptors of ring @ring of
 *	engine @engine with every address of their COPY, REDUCE and DIV
 *	descriptors displaced by (register @reg) * the ring's index_stride
 *	(&drm_ccore_ring_create); faults if @reg is not below the ring's
 *	index_count or @imm is 0 or more than the ring's written descriptors;
 *	waits while fewer than @imm slots are free (a started descriptor
 *	holds its slot until the engine has taken its displacement, at the
 *	latest when it completes)
 *
 * Branch targets are relative to the branching instruction and must stay
 * inside the program.  Fields an instruction does not use must be zero.
 */
enum drm_ccore_opcode {
	DRM_CCORE_OP_NOP = 0x00,
	DRM_CCORE_OP_HALT = 0x01,
	DRM_CCORE_OP_WAIT = 0x02,
	DRM_CCORE_OP_ACQUIRE = 0x03,
	DRM_CCORE_OP_SET = 0x04,
	DRM_CCORE_OP_ADD = 0x05,
	DRM_CCORE_OP_START = 0x06,
	DRM_CCORE_OP_RWAIT = 0x07,
	DRM_CCORE_OP_JUMP = 0x08,
	DRM_CCORE_OP_BGE = 0x09,
	DRM_CCORE_OP_MOVI = 0x0a,
	DRM_CCORE_OP_ADDI = 0x0b,
	DRM_CCORE_OP_LOOP = 0x0c,
	DRM_CCORE_OP_CALL = 0x0d,
	DRM_CCORE_OP_RET = 0x0e,
	DRM_CCORE_OP_NEXT = 0x0f,
	DRM_CCORE_OP_NOTIFY = 0x10,
	DRM_CCORE_OP_STARTI = 0x11,
};

/** DRM_CCORE_NUM_REGS - general registers r0..r7 of a CC core */
#define DRM_CCORE_NUM_REGS	8
/** DRM_CCORE_CALL_DEPTH - depth of a CC core's return stack */
#define DRM_CCORE_CALL_DEPTH	8

/**
 * struct drm_ccore_insn - one CC-core instruction (16 bytes)
 */
struct drm_ccore_insn {
	/** @opcode: one of &enum drm_ccore_opcode */
	__u8 opcode;
	/** @reg: register operand, 0..DRM_CCORE_NUM_REGS-1 */
	__u8 reg;
	/** @engine: DMA engine operand */
	__u8 engine;
	/** @ring: ring operand, 0..15 */
	__u8 ring;
	/** @sem: semaphore reference operand (DRM_CCORE_SEM_REF()) */
	__u32 sem;
	/** @imm: immediate operand */
	__u32 imm;
	/** @target: branch offset relative to this instruction */
	__s32 target;
};

/**
 * enum drm_ccore_ce_opcode - compute-engine instruction opcodes
 * @DRM_CCORE_CE_COMPUTE: compute for @duration_ns nanoseconds (timed mode:
 *	the engine's clock advances by exactly that; functional mode: no cost)
 * @DRM_CCORE_CE_DMA: copy @len bytes from @src to @dst, each inside one
 *	buffer of this host (not a NIC_REMOTE_MAP mapping), through the
 *	program's compute DMA ring; the engine goes on at once (the copy runs
 *	on the DMA engine, in order with the program's other DMAs) and, with
 *	%DRM_CCORE_CE_F_SIGNAL, @value is added to @sem when the copy is done
 * @DRM_CCORE_CE_TRIGGER: trigger CC core @cc_core once: the plain write a
 *	pseudo-collective trigger (PTC2) becomes, as CC_TRIGGER does
 * @DRM_CCORE_CE_WAIT_SEM: wait until semaphore @sem of this core is >= @value
 *	(a collective's completion semaphore, or a DMA's)
 * @DRM_CCORE_CE_END: the program ends once every DMA it started is done
 */
enum drm_ccore_ce_opcode {
	DRM_CCORE_CE_COMPUTE = 1,
	DRM_CCORE_CE_DMA = 2,
	DRM_CCORE_CE_TRIGGER = 3,
	DRM_CCORE_CE_WAIT_SEM = 4,
	DRM_CCORE_CE_END = 5,
};

/** DRM_CCORE_CE_F_SIGNAL - a DMA instruction adds @value to @sem when done */
#define DRM_CCORE_CE_F_SIGNAL	(1u << 0)

/**
 * struct drm_ccore_ce_insn - one compute-engine instruction (48 bytes)
 *
 * A compute program is an array of these ending with END.  Fields an
 * instruction does not use must be zero.
 */
struct drm_ccore_ce_insn {
	/** @opcode: one of &enum drm_ccore_ce_opcode */
	__u8 opcode;
	/** @flags: DMA: DRM_CCORE_CE_F_SIGNAL; otherwise 0 */
	__u8 flags;
	/** @pad: must be zero */
	__u16 pad;
	/** @sem: WAIT_SEM, or DMA with F_SIGNAL: semaphore reference */
	__u32 sem;
	/** @value: WAIT_SEM: threshold; DMA with F_SIGNAL: amount added */
	__u32 value;
	/** @cc_core: TRIGGER: core * CC_CORES_PER_CORE + CC core of this core */
	__u32 cc_core;
	/** @duration_ns: COMPUTE: nanoseconds, 1..3600000000000 */
	__u64 duration_ns;
	/** @len: DMA: bytes, 1 or more */
	__u64 len;
	/** @dst: DMA: destination device virtual address */
	__u64 dst;
	/** @src: DMA: source device virtual address */
	__u64 src;
};

/* ------------------------------------------------------------------------ */
/* Parameters                                                               */
/* ------------------------------------------------------------------------ */

/**
 * enum drm_ccore_param - device parameters
 * @DRM_CCORE_PARAM_DEVICE_INDEX: index of this device in its fabric
 * @DRM_CCORE_PARAM_NUM_DEVICES: devices in the fabric
 * @DRM_CCORE_PARAM_NODE_INDEX: node this device belongs to
 * @DRM_CCORE_PARAM_DEVICES_PER_NODE: devices in one node
 * @DRM_CCORE_PARAM_TOPOLOGY: intra-node topology, &enum drm_ccore_topology
 * @DRM_CCORE_PARAM_TORUS_X: torus width (ring: devices per node)
 * @DRM_CCORE_PARAM_TORUS_Y: torus height (ring: 1)
 * @DRM_CCORE_PARAM_NUM_CORES: logical cores (ranks) on this device
 * @DRM_CCORE_PARAM_CC_CORES_PER_CORE: CC cores per logical core
 * @DRM_CCORE_PARAM_ENGINES_PER_CORE: DMA engines per logical core
 * @DRM_CCORE_PARAM_RINGS_PER_ENGINE: rings per DMA engine (at most 16)
 * @DRM_CCORE_PARAM_SEMS_PER_CORE: semaphores per logical core
 * @DRM_CCORE_PARAM_HBM_SIZE: device memory in bytes
 * @DRM_CCORE_PARAM_MIN_PACKET_SIZE: smallest ring packet size in bytes
 * @DRM_CCORE_PARAM_MAX_PACKET_SIZE: largest ring packet size in bytes
 * @DRM_CCORE_PARAM_MAX_RING_SIZE: most descriptors one ring holds
 * @DRM_CCORE_PARAM_MAX_PROGRAM_SIZE: most instructions in a CC core's memory
 * @DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE: default packet size of CC rings;
 *	writable, may only be lowered (power of two, MIN..MAX_PACKET_SIZE)
 * @DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE: default packet size of compute
 *	DMA rings; writable, may only be raised (power of two, up to
 *	MAX_PACKET_SIZE)
 * @DRM_CCORE_PARAM_ISA_VERSION: CC ISA version (1)
 * @DRM_CCORE_PARAM_FIRMWARE_SIZE: instructions of the resident firmware
 *
 * What the device's time costs, for a runtime's cost model (the device
 * model charges exactly these in its timed mode):
 *
 * @DRM_CCORE_PARAM_TIMED: 1 if the device keeps virtual time (a simulated
 *	device's timed mode: times are the model's, not the host's), else 0
 * @DRM_CCORE_PARAM_VIRTUAL_MEMORY: 1 if buffers have no backing memory
 *	(timed mode only: no bytes move, results are not kept), else 0
 * @DRM_CCORE_PARAM_IDEAL: 1 if every hop costs ALPHA_NODE_NS and BW_NODE
 *	alone (one tier, no contention, no overheads), else 0
 * @DRM_CCORE_PARAM_ALPHA_DEV_NS: latency of a transfer between cores of
 *	one device, in nanoseconds
 * @DRM_CCORE_PARAM_ALPHA_NODE_NS: the same between devices of one node
 * @DRM_CCORE_PARAM_ALPHA_NET_NS: the same between nodes
 * @DRM_CCORE_PARAM_BW_DEV_GBPS: bandwidth within a device, per direction,
 *	in Gbit/s
 * @DRM_CCORE_PARAM_BW_NODE_GBPS: bandwidth of a link between devices of a
 *	node, per direction, in Gbit/s
 * @DRM_CCORE_PARAM_BW_NET_GBPS: bandwidth between nodes per direction, in
 *	Gbit/s
 * @DRM_CCORE_PARAM_BW_ENGINE_GBPS: throughput of one DMA engine (and of a
 *	local copy), in Gbit/s
 * @DRM_CCORE_PARAM_CC_INSN_NS: time of one CC-core instruction, in
 *	nanoseconds
 * @DRM_CCORE_PARAM_SEM_NS: time for a semaphore change to reach a waiting
 *	CC core, in nanoseconds
 *
 * Every parameter is readable by any file (GET_PARAM).  The two writable
 * ones are the device's, not the file's: SET_PARAM changes the packet size
 * of every ring any file creates afterwards with a packet_size of 0, so it
 * needs CAP_SYS_ADMIN (-EPERM otherwise), as writing the same knobs in
 * sysfs needs root.  A file that wants another packet size for its own
 * rings passes it in &drm_ccore_ring_create.packet_size, unprivileged.
 * (The embedded sim backend's device is its process's own: it does not
 * check.)
 */
enum drm_ccore_param {
	DRM_CCORE_PARAM_DEVICE_INDEX = 0,
	DRM_CCORE_PARAM_NUM_DEVICES = 1,
	DRM_CCORE_PARAM_NODE_INDEX = 2,
	DRM_CCORE_PARAM_DEVICES_PER_NODE = 3,
	DRM_CCORE_PARAM_TOPOLOGY = 4,
	DRM_CCORE_PARAM_TORUS_X = 5,
	DRM_CCORE_PARAM_TORUS_Y = 6,
	DRM_CCORE_PARAM_NUM_CORES = 7,
	DRM_CCORE_PARAM_CC_CORES_PER_CORE = 8,
	DRM_CCORE_PARAM_ENGINES_PER_CORE = 9,
	DRM_CCORE_PARAM_RINGS_PER_ENGINE = 10,
	DRM_CCORE_PARAM_SEMS_PER_CORE = 11,
	DRM_CCORE_PARAM_HBM_SIZE = 12,
	DRM_CCORE_PARAM_MIN_PACKET_SIZE = 13,
	DRM_CCORE_PARAM_MAX_PACKET_SIZE = 14,
	DRM_CCORE_PARAM_MAX_RING_SIZE = 15,
	DRM_CCORE_PARAM_MAX_PROGRAM_SIZE = 16,
	DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE = 17,
	DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE = 18,
	DRM_CCORE_PARAM_ISA_VERSION = 19,
	DRM_CCORE_PARAM_FIRMWARE_SIZE = 20,
	DRM_CCORE_PARAM_TIMED = 21,
	DRM_CCORE_PARAM_VIRTUAL_MEMORY = 22,
	DRM_CCORE_PARAM_IDEAL = 23,
	DRM_CCORE_PARAM_ALPHA_DEV_NS = 24,
	DRM_CCORE_PARAM_ALPHA_NODE_NS = 25,
	DRM_CCORE_PARAM_ALPHA_NET_NS = 26,
	DRM_CCORE_PARAM_BW_DEV_GBPS = 27,
	DRM_CCORE_PARAM_BW_NODE_GBPS = 28,
	DRM_CCORE_PARAM_BW_NET_GBPS = 29,
	DRM_CCORE_PARAM_BW_ENGINE_GBPS = 30,
	DRM_CCORE_PARAM_CC_INSN_NS = 31,
	DRM_CCORE_PARAM_SEM_NS = 32,
};

/**
 * enum drm_ccore_topology - how the devices of a node are linked
 * @DRM_CCORE_TOPO_RING: a bidirectional ring
 * @DRM_CCORE_TOPO_TORUS: a 2D torus of TORUS_X by TORUS_Y devices
 */
enum drm_ccore_topology {
	DRM_CCORE_TOPO_RING = 0,
	DRM_CCORE_TOPO_TORUS = 1,
};

/**
 * struct drm_ccore_param_args - argument of GET_PARAM and SET_PARAM
 *
 * SET_PARAM: -EINVAL for a read-only or unknown @param or a @value the
 * hardware refuses, -EPERM without CAP_SYS_ADMIN (&enum drm_ccore_param).
 */
struct drm_ccore_param_args {
	/** @param: &enum drm_ccore_param */
	__u32 param;
	/** @pad: must be zero */
	__u32 pad;
	/** @value: result of GET_PARAM, new value for SET_PARAM */
	__u64 value;
};

/* ------------------------------------------------------------------------ */
/* Buffer objects                                                            */
/* ------------------------------------------------------------------------ */

/**
 * DRM_CCORE_BO_F_USERPTR - the buffer is the caller's memory at @userptr
 * (registered, not allocated): page-aligned address and size; the memory
 * must stay valid until the buffer is closed
 */
#define DRM_CCORE_BO_F_USERPTR	(1u << 0)

/**
 * struct drm_ccore_bo_create - allocate (or register) device memory
 *
 * The buffer is mapped into the context's device address space at
 * @dev_addr, which descriptors use.  Release it with DRM_IOCTL_GEM_CLOSE.
 */
struct drm_ccore_bo_create {
	/** @size: bytes, rounded up to a page; 1..HBM_SIZE */
	__u64 size;
	/** @flags: DRM_CCORE_BO_F_* */
	__u32 flags;
	/** @handle: out: GEM handle */
	__u32 handle;
	/** @dev_addr: out: device virtual address */
	__u64 dev_addr;
	/** @userptr: with %DRM_CCORE_BO_F_USERPTR the memory, else 0 */
	__u64 userptr;
};

/**
 * struct drm_ccore_bo_mmap_offset - get the fake offset to mmap a buffer
 */
struct drm_ccore_bo_mmap_offset {
	/** @handle: GEM handle */
	__u32 handle;
	/** @pad: must be zero */
	__u32 pad;
	/** @offset: out: pass to mmap() on the device file */
	__u64 offset;
};

/**
 * struct drm_ccore_bo_info - describe a buffer object
 */
struct drm_ccore_bo_info {
	/** @handle: GEM handle */
	__u32 handle;
	/** @device_index: out: device whose memory backs the buffer */
	__u32 device_index;
	/** @size: out: size in bytes */
	__u64 size;
	/** @dev_addr: out: device virtual address in this context */
	__u64 dev_addr;
};

/* ------------------------------------------------------------------------ */
/* DMA rings                                                                 */
/* ------------------------------------------------------------------------ */

/** DRM_CCORE_RING_F_COMPUTE - compute DMA ring: default packet size is
 *  DMA_PACKETIZATION_SIZE instead of CC_DMA_PACKET_SIZE */
#define DRM_CCORE_RING_F_COMPUTE	(1u << 0)

/** DRM_CCORE_MAX_INDEX_COUNT - most indexes an indexed ring takes */
#define DRM_CCORE_MAX_INDEX_COUNT	(1u << 24)
/** DRM_CCORE_MAX_INDEX_STRIDE - largest magnitude of a ring's index_stride:
 *  (DRM_CCORE_MAX_INDEX_COUNT - 1) times it fits an __s64 */
#define DRM_CCORE_MAX_INDEX_STRIDE	(1ll << 39)

/**
 * struct drm_ccore_ring_create - claim ring @ring of engine @engine
 *
 * A DMA engine arbitrates round-robin across its rings and switches ring
 * only at packet boundaries, so the packet size is the ring's priority.
 *
 * An indexed ring (@index_count > 0) replays its descriptors at a
 * different place per STARTI: submission checks every address range of
 * a descriptor at index 0 and at index @index_count - 1 (so at every
 * index between) against the context's buffers.  Callers built before
 * @index_stride existed pass the first 32 bytes; the rest reads as zero.
 */
struct drm_ccore_ring_create {
	/** @core: logical core, 0..NUM_CORES-1 */
	__u32 core;
	/** @engine: DMA engine of that core, 0..ENGINES_PER_CORE-1 */
	__u32 engine;
	/** @ring: ring of that engine, 0..RINGS_PER_ENGINE-1 */
	__u32 ring;
	/** @size: descriptor slots, 1..MAX_RING_SIZE */
	__u32 size;
	/** @packet_size: bytes per packet, power of two in
	 *  MIN..MAX_PACKET_SIZE, or 0 for the device default */
	__u32 packet_size;
	/** @flags: DRM_CCORE_RING_F_* */
	__u32 flags;
	/** @handle: out: ring handle */
	__u32 handle;
	/** @pad: must be zero */
	__u32 pad;
	/**
	 * @index_stride: bytes added to every address (dst, src0, src1) of
	 * each COPY, REDUCE and DIV descriptor of the ring per unit of the
	 * index a STARTI gives; may be negative; SEM_WRITE descriptors and
	 * signal semaphores are never displaced.  Must be 0 when
	 * @index_count is 0, and within
	 * +-DRM_CCORE_MAX_INDEX_STRIDE
	 */
	__s64 index_stride;
	/**
	 * @index_count: STARTI may use indexes 0..@index_count-1, at most
	 * DRM_CCORE_MAX_INDEX_COUNT; 0: the ring is not indexed
	 */
	__u32 index_count;
	/** @pad2: must be zero */
	__u32 pad2;
};

/**
 * struct drm_ccore_ring_destroy - release a ring; it must be idle
 */
struct drm_ccore_ring_destroy {
	/** @handle: ring handle */
	__u32 handle;
	/** @pad: must be zero */
	__u32 pad;
};

/** DRM_CCORE_SUBMIT_F_START - start the written descriptors right away */
#define DRM_CCORE_SUBMIT_F_START	(1u << 0)

/**
 * struct drm_ccore_ring_submit - append descriptors to a ring
 *
 * Every descriptor is validated and translated before any is written; on
 * error nothing is written and @bad_index names the offending descriptor.
 * Written descriptors run when a CC core executes START on the ring (or
 * at once with %DRM_CCORE_SUBMIT_F_START).  START past the last written
 * descriptor wraps to the first, so a pre-built ring is reused by every
 * execution of its program; one START runs at most as many descriptors as
 * are written.  Closing the file aborts what its rings started.
 */
struct drm_ccore_ring_submit {
	/** @handle: ring handle */
	__u32 handle;
	/** @count: number of descriptors at @descs */
	__u32 count;
	/** @descs: user pointer to &struct drm_ccore_desc[@count] */
	__u64 descs;
	/** @flags: DRM_CCORE_SUBMIT_F_* */
	__u32 flags;
	/** @bad_index: out: index of the rejected descriptor, or ~0 */
	__u32 bad_index;
};

/**
 * struct drm_ccore_ring_stats - per-ring counters
 */
struct drm_ccore_ring_stats {
	/** @handle: ring handle */
	__u32 handle;
	/** @packet_size: out: the ring's packet size */
	__u32 packet_size;
	/** @bytes: out: bytes moved */
	__u64 bytes;
	/** @packets: out: packets moved */
	__u64 packets;
	/** @started: out: descriptors started */
	__u64 started;
	/** @completed: out: descriptors completed */
	__u64 completed;
	/** @errors: out: descriptors that failed */
	__u64 errors;
};

/* ------------------------------------------------------------------------ */
/* Semaphores                                                                */
/* ------------------------------------------------------------------------ */

/**
 * struct drm_ccore_sem_alloc - allocate @count consecutive semaphores
 *
 * The semaphores start at zero and belong to the context until freed.
 */
struct drm_ccore_sem_alloc {
	/** @core: logical core whose bank to allocate from */
	__u32 core;
	/** @count: how many, 1..SEMS_PER_CORE */
	__u32 count;
	/** @first: out: reference of the first one (DRM_CCORE_SEM_REF()) */
	__u32 first;
	/** @pad: must be zero */
	__u32 pad;
};

/**
 * struct drm_ccore_sem_free - free semaphores allocated together
 */
struct drm_ccore_sem_free {
	/** @first: reference returned by SEM_ALLOC */
	__u32 first;
	/** @pad: must be zero */
	__u32 pad;
};

/**
 * enum drm_ccore_sem_op - what SEM_ACCESS does
 * @DRM_CCORE_SEM_READ: return the value
 * @DRM_CCORE_SEM_SET: set to @value
 * @DRM_CCORE_SEM_ADD: add @value (modulo 2^32)
 */
enum drm_ccore_sem_op {
	DRM_CCORE_SEM_READ = 0,
	DRM_CCORE_SEM_SET = 1,
	DRM_CCORE_SEM_ADD = 2,
};

/**
 * struct drm_ccore_sem_access - read, set or add to a semaphore
 */
struct drm_ccore_sem_access {
	/** @sem: semaphore reference owned by the context */
	__u32 sem;
	/** @op: &enum drm_ccore_sem_op */
	__u32 op;
	/** @value: operand; out: the value after the operation */
	__u32 value;
	/** @pad: must be zero */
	__u32 pad;
};

/**
 * struct drm_ccore_sem_wait - wait until a semaphore is >= @value
 */
struct drm_ccore_sem_wait {
	/** @sem: semaphore reference owned by the context */
	__u32 sem;
	/** @value: threshold */
	__u32 value;
	/** @timeout_ns: absolute CLOCK_MONOTONIC deadline; -ETIMEDOUT after */
	__s64 timeout_ns;
};

/**
 * struct drm_ccore_sem_export - share a semaphore block with another context
 *
 * Returns a file descriptor that another context (of any device of the
 * fabric, in this or another process) passes to SEM_IMPORT to be allowed
 * to signal, wait on and read those semaphores: the way a rank lets its
 * peers signal it.  Close the fd when it has been imported.
 */
struct drm_ccore_sem_export {
	/** @first: reference returned by SEM_ALLOC */
	__u32 first;
	/** @flags: must be zero */
	__u32 flags;
	/** @fd: out: file descriptor naming the block */
	__s32 fd;
	/** @pad: must be zero */
	__u32 pad;
};

/**
 * struct drm_ccore_sem_import - accept a semaphore block exported elsewhere
 */
struct drm_ccore_sem_import {
	/** @fd: file descriptor from SEM_EXPORT */
	__s32 fd;
	/** @flags: must be zero */
	__u32 flags;
	/** @first: out: reference of the first semaphore */
	__u32 first;
	/** @count: out: semaphores in the block */
	__u32 count;
};

/* ------------------------------------------------------------------------ */
/* CC programs and jobs                                                      */
/* ------------------------------------------------------------------------ */

/**
 * struct drm_ccore_program_load - verify and load a program on a CC core
 *
 * The program is verified (opcodes, operands, branch targets, ownership of
 * every semaphore and ring it names) before the CC core may run it; on
 * error @bad_index names the offending instruction.
 */
struct drm_ccore_program_load {
	/** @cc_core: core * CC_CORES_PER_CORE + CC core of that core */
	__u32 cc_core;
	/** @count: number of instructions at @insns */
	__u32 count;
	/** @insns: user pointer to &struct drm_ccore_insn[@count] */
	__u64 insns;
	/** @handle: out: program handle */
	__u32 handle;
	/** @bad_index: out: index of the rejected instruction, or ~0 */
	__u32 bad_index;
};

/**
 * struct drm_ccore_program_free - unload a program that has no job queued
 */
struct drm_ccore_program_free {
	/** @handle: program handle */
	__u32 handle;
	/** @pad: must be zero */
	__u32 pad;
};

/** DRM_CCORE_JOB_F_TRIGGER - also trigger the CC core once (host trigger) */
#define DRM_CCORE_JOB_F_TRIGGER		(1u << 0)

/**
 * struct drm_ccore_submit - queue a program on its CC core as a job
 *
 * The resident dispatcher runs queued programs in order, one per trigger.
 * The job completes when the program returns to the dispatcher.
 */
struct drm_ccore_submit {
	/** @program: program handle */
	__u32 program;
	/** @flags: DRM_CCORE_JOB_F_* */
	__u32 flags;
	/** @in_syncobj: syncobj to wait on before queueing, or 0 */
	__u32 in_syncobj;
	/** @out_syncobj: syncobj signalled on completion, or 0 */
	__u32 out_syncobj;
	/** @timeout_ms: job timeout, 0 for the device default */
	__u32 timeout_ms;
	/** @pad: must be zero */
	__u32 pad;
	/** @job: out: job sequence number for JOB_WAIT */
	__u64 job;
};

/**
 * struct drm_ccore_job_wait - wait for a job to complete
 */
struct drm_ccore_job_wait {
	/** @job: sequence number from SUBMIT */
	__u64 job;
	/** @timeout_ns: absolute CLOCK_MONOTONIC deadline */
	__s64 timeout_ns;
	/** @status: out: 0, or a negative errno the job failed with */
	__s32 status;
	/** @pad: must be zero */
	__u32 pad;
};

/**
 * struct drm_ccore_cc_trigger - trigger a CC core, as a compute engine does
 */
struct drm_ccore_cc_trigger {
	/** @cc_core: core * CC_CORES_PER_CORE + CC core of that core */
	__u32 cc_core;
	/** @count: triggers to add, 1..65535 */
	__u32 count;
};

/* ------------------------------------------------------------------------ */
/* Compute engines                                                           */
/* ------------------------------------------------------------------------ */

/**
 * struct drm_ccore_compute_submit - run a program on a core's compute engine
 *
 * Each logical core has one compute engine running one program at a time.
 * The program is verified (opcodes, unused fields, addresses inside the
 * context's buffers, semaphores it may use, CC cores of @core) before it
 * runs; on error @bad_index names the offending instruction.  Its DMA
 * instructions become descriptors written, in order, over the contents of
 * ring @dma_ring of engine @dma_engine of @core, a ring this context
 * created (normally with %DRM_CCORE_RING_F_COMPUTE: its packet size is
 * the compute DMA's priority against the CC rings of that engine); that
 * ring must be idle, have a slot per DMA instruction, and cannot be
 * destroyed while the program runs.  Without DMA instructions @dma_engine
 * and @dma_ring are not used and must be zero.
 */
struct drm_ccore_compute_submit {
	/** @core: logical core, 0..NUM_CORES-1 */
	__u32 core;
	/** @count: instructions at @insns, 1..MAX_PROGRAM_SIZE */
	__u32 count;
	/** @insns: user pointer to &struct drm_ccore_ce_insn[@count] */
	__u64 insns;
	/** @dma_engine: engine of the compute DMA ring */
	__u32 dma_engine;
	/** @dma_ring: ring of that engine */
	__u32 dma_ring;
	/** @timeout_ms: the program fails with -ETIMEDOUT after this long,
	 *  1..3600000, or 0 for the device's job timeout */
	__u32 timeout_ms;
	/** @flags: must be zero */
	__u32 flags;
	/** @bad_index: out: index of the rejected instruction, or ~0 */
	__u32 bad_index;
	/** @pad: must be zero */
	__u32 pad;
};

/**
 * struct drm_ccore_compute_wait - wait for a core's compute program to end
 *
 * Only the context that submitted the program may wait for it; waiting
 * again returns the same result.  The counters are the program's own.
 */
struct drm_ccore_compute_wait {
	/** @core: logical core */
	__u32 core;
	/** @status: out: 0, -EIO (DMA error on its ring), -ETIMEDOUT (its
	 *  timeout passed: the engine was stopped) */
	__s32 status;
	/** @timeout_ns: absolute CLOCK_MONOTONIC deadline; -ETIMEDOUT after */
	__s64 timeout_ns;
	/** @insns: out: instructions executed */
	__u64 insns;
	/** @busy_ns: out: nanoseconds of COMPUTE executed */
	__u64 busy_ns;
	/** @dma_bytes: out: bytes of the DMA instructions executed */
	__u64 dma_bytes;
	/** @start_ns: out: timed mode: virtual time the program started at */
	__u64 start_ns;
	/** @end_ns: out: timed mode: virtual time it ended at (0 otherwise) */
	__u64 end_ns;
};

/* ------------------------------------------------------------------------ */
/* The NIC: a fabric that is one host of several                             */
/* ------------------------------------------------------------------------ */

/*
 * A simulated fabric created with "here=N" (and nodes > 1) holds every
 * node's devices, but only node N's are on this host (their accel devices
 * exist here; DRM_CCORE_PARAM_NODE_INDEX names N).  Another host's memory
 * and semaphores are reached only through the NIC: a descriptor whose
 * effect lands there (a COPY into a mapping NIC_REMOTE_MAP made, a
 * SEM_WRITE to a semaphore NIC_REMOTE_SEMS granted, or a COPY's signal
 * there) parks its ring.  The file that owns the ring is its proxy: poll()
 * on the file reports EPOLLIN while one of its rings waits; NIC_TAKE hands
 * the transfer over, the proxy carries it to the other host, whose proxy
 * applies it with NIC_DELIVER, and NIC_DONE lets the ring go on (a failed
 * status fails the descriptor as a DMA error: the job faults with -EIO).
 * A file closed with transfers posted or taken fails them.  See
 * Documentation/network.rst.
 */

/**
 * struct drm_ccore_nic_remote_map - map memory of a device on another host
 *
 * The mapping has no bytes here: descriptors may only COPY into it (its
 * bytes go through the NIC), never read or reduce it.  It lives as long
 * as the file.  At most 256 per file (-ENOSPC, reason NIC_LIMIT).
 */
struct drm_ccore_nic_remote_map {
	/**
	 * @device: device index (DRM_CCORE_PARAM_DEVICE_INDEX numbering) of
	 * a device on another host
	 */
	__u32 device;
	/** @flags: must be zero */
	__u32 flags;
	/** @size: bytes, 1..DRM_CCORE_PARAM_HBM_SIZE */
	__u64 size;
	/**
	 * @remote: the address of its first byte as that host's proxy knows
	 * it (with this driver there: an address in the delivering file's
	 * space, see NIC_DELIVER); NIC_TAKE reports it plus the offset
	 */
	__u64 remote;
	/** @dev_addr: out: where descriptors of this file name it */
	__u64 dev_addr;
};

/**
 * struct drm_ccore_nic_remote_sems - let descriptors signal another host's semaphores
 *
 * The block must lie in one core of one device on another host.
 * Descriptors of this file may then name those semaphores as a SEM_WRITE's
 * target or a COPY's signal (programs never may).  At most 256 blocks per
 * file (-ENOSPC, reason NIC_LIMIT).
 */
struct drm_ccore_nic_remote_sems {
	/** @first: DRM_CCORE_SEM_REF() of the first semaphore */
	__u32 first;
	/** @count: semaphores, 1..DRM_CCORE_PARAM_SEMS_PER_CORE */
	__u32 count;
};

/* What a transfer carries (NIC_TAKE's @what, NIC_DELIVER's @flags) */
#define DRM_CCORE_NIC_F_DATA	(1u << 0)	/* bytes */
#define DRM_CCORE_NIC_F_SEM	(1u << 1)	/* then a semaphore change */
#define DRM_CCORE_NIC_F_SET	(1u << 2)	/* the change sets rather than adds */
#define DRM_CCORE_NIC_FLAGS \
	(DRM_CCORE_NIC_F_DATA | DRM_CCORE_NIC_F_SEM | DRM_CCORE_NIC_F_SET)

/**
 * struct drm_ccore_nic_take - take the next transfer of this file's rings
 *
 * Only the file's own rings' transfers are taken; each ring has at most
 * one waiting (it is parked on it).  Fails with -EAGAIN (reason
 * NIC_NOTHING) when none waits: poll() the file for EPOLLIN.  A transfer
 * with more bytes than @data_size stays posted: -ENOSPC, reason NIC_BUFFER,
 * @limit and @len its size.  If its bytes cannot be written to @data the
 * transfer fails (its job faults) and TAKE says -EFAULT.
 */
struct drm_ccore_nic_take {
	/** @data: user buffer that receives the bytes */
	__u64 data;
	/** @data_size: its size */
	__u64 data_size;
	/** @flags: must be zero */
	__u32 flags;
	/** @what: out: DRM_CCORE_NIC_F_* */
	__u32 what;
	/** @ring: out: handle of the ring it came from */
	__u32 ring;
	/** @seq: out: names this transfer of the ring in NIC_DONE */
	__u32 seq;
	/** @len: out: bytes (F_DATA), written to @data */
	__u64 len;
	/** @to: out: where they land, as the other host knows it */
	__u64 to;
	/** @to_device: out: the device they land on */
	__u32 to_device;
	/** @sem: out: F_SEM: DRM_CCORE_SEM_REF() of the semaphore there */
	__u32 sem;
	/** @value: out: F_SEM: the value added, or set with F_SET */
	__u32 value;
	/** @pad: must be zero */
	__u32 pad;
};

/**
 * struct drm_ccore_nic_done - the proxy is done with a transfer
 *
 * -ENOENT (reason NIC_XFER) if @ring/@seq names no transfer this file
 * took and has not reported (a second DONE, a wrong ring or sequence).
 */
struct drm_ccore_nic_done {
	/** @ring: NIC_TAKE's @ring */
	__u32 ring;
	/** @seq: NIC_TAKE's @seq */
	__u32 seq;
	/**
	 * @status: 0: delivered, the ring goes on; or a negative errno
	 * (-4095..-1, else reason NIC_STATUS): the descriptor fails
	 */
	__s32 status;
	/** @pad: must be zero */
	__u32 pad;
};

/**
 * struct drm_ccore_nic_deliver - another host's transfer arrived here
 *
 * Writes @len bytes from @data at @to, then changes semaphore @sem, as
 * the sending descriptor asked.  @to..@to+@len must lie in one buffer of
 * this file's own address space (its own or imported memory, not a
 * remote mapping: reason NIC_TARGET); @sem must be a semaphore of this
 * host the file allocated or imported (SEM_INVALID, SEM_NOT_USABLE).  A
 * CC core waiting on it wakes.  If @data cannot be read, -EFAULT: the
 * 64 KiB chunks before the fault have landed, nothing after it, and the
 * semaphore does not change.
 */
struct drm_ccore_nic_deliver {
	/** @to: F_DATA: device address in this file's space */
	__u64 to;
	/** @len: F_DATA: bytes, at least 1; else 0 */
	__u64 len;
	/** @data: F_DATA: user pointer to them; else 0 */
	__u64 data;
	/**
	 * @flags: DRM_CCORE_NIC_F_*, F_DATA or F_SEM or both; F_SET only
	 * with F_SEM
	 */
	__u32 flags;
	/** @sem: F_SEM: DRM_CCORE_SEM_REF() of the semaphore; else 0 */
	__u32 sem;
	/** @value: F_SEM: value to add (or set); else 0 */
	__u32 value;
	/** @pad: must be zero */
	__u32 pad;
};

/* ------------------------------------------------------------------------ */
/* Why an ioctl failed                                                       */
/* ------------------------------------------------------------------------ */

/**
 * enum drm_ccore_reason - which rule a failed ioctl broke
 * @DRM_CCORE_REASON_NONE: no rule recorded (a failure outside the rules of
 *	the ring, semaphore and job ioctls: out of memory, a bad pointer, a
 *	wait that timed out, a DRM core ioctl); only the errno says why
 * @DRM_CCORE_REASON_PAD: a pad or reserved field is not zero
 * @DRM_CCORE_REASON_FLAGS: unknown flags; @limit: the flags allowed
 * @DRM_CCORE_REASON_CORE: the logical core does not exist; @limit: the
 *	number of cores (NUM_CORES)
 * @DRM_CCORE_REASON_ENGINE_RING: the DMA engine or its ring does not exist
 *	(ENGINES_PER_CORE, RINGS_PER_ENGINE)
 * @DRM_CCORE_REASON_RING_SIZE: a ring's size is not 1..@limit (MAX_RING_SIZE)
 * @DRM_CCORE_REASON_PACKET_SIZE: a packet size is not a power of two in
 *	MIN..MAX_PACKET_SIZE (nor 0 for the default); @limit: the maximum
 * @DRM_CCORE_REASON_RING_INDEX: index_count above @limit
 *	(DRM_CCORE_MAX_INDEX_COUNT), or index_stride beyond
 *	+-DRM_CCORE_MAX_INDEX_STRIDE or set without index_count
 * @DRM_CCORE_REASON_RING_CLAIMED: (-EBUSY) that ring of the engine is
 *	already claimed, by this file or another one
 * @DRM_CCORE_REASON_RING_HANDLE: (-ENOENT) no ring with that handle in
 *	this file
 * @DRM_CCORE_REASON_RING_PROGRAMS: (-EBUSY) loaded programs start or wait
 *	for the ring: free them first
 * @DRM_CCORE_REASON_RING_IN_FLIGHT: (-EBUSY) the ring has descriptors in
 *	flight, or is the DMA ring of a running compute program
 * @DRM_CCORE_REASON_DESC_COUNT: a ring submission's count is not 1..@limit
 * @DRM_CCORE_REASON_RING_FULL: (-ENOSPC) more descriptors than the ring
 *	has free slots; @limit: the free slots
 * @DRM_CCORE_REASON_DESC_INVALID: descriptor @index is not valid (op,
 *	dtype, redop, flags, length, or an address outside the file's
 *	buffers and imports)
 * @DRM_CCORE_REASON_DESC_SEM: (-EACCES) descriptor @index names a
 *	semaphore the file neither allocated nor imported
 * @DRM_CCORE_REASON_SEM_COUNT: a semaphore count is not 1..@limit
 *	(SEMS_PER_CORE)
 * @DRM_CCORE_REASON_SEM_NO_SPACE: (-ENOSPC) not that many free consecutive
 *	semaphores on the core
 * @DRM_CCORE_REASON_SEM_NOT_BLOCK: the semaphore is not the first of a
 *	block this file allocated
 * @DRM_CCORE_REASON_SEM_PINNED: (-EBUSY) loaded programs or written rings
 *	name the block: free or destroy them first
 * @DRM_CCORE_REASON_SEM_OP: SEM_ACCESS op is not READ, SET or ADD
 * @DRM_CCORE_REASON_SEM_INVALID: the semaphore does not exist (device,
 *	core or index out of range)
 * @DRM_CCORE_REASON_SEM_NOT_USABLE: (-EACCES) the file neither allocated
 *	the semaphore nor imported its block
 * @DRM_CCORE_REASON_FD_BAD: (-EBADF) the fd is not an open file
 * @DRM_CCORE_REASON_FD_NOT_SEM: the fd is not one SEM_EXPORT returned
 * @DRM_CCORE_REASON_FD_OTHER_FABRIC: (-EXDEV) the fd names semaphores of
 *	another fabric
 * @DRM_CCORE_REASON_CC_CORE: the CC core does not exist; @limit: the
 *	number of CC cores (NUM_CORES * CC_CORES_PER_CORE)
 * @DRM_CCORE_REASON_INSN_COUNT: a program's count is not 1..@limit
 *	(MAX_PROGRAM_SIZE)
 * @DRM_CCORE_REASON_INSN_INVALID: instruction @index is not valid (opcode,
 *	operands, branch target)
 * @DRM_CCORE_REASON_INSN_NOT_OWNED: (-EACCES) instruction @index names a
 *	semaphore or ring the file does not own
 * @DRM_CCORE_REASON_CC_MEMORY_FULL: (-ENOSPC) the CC core's instruction
 *	memory has no room for the program; @limit: its size
 * @DRM_CCORE_REASON_PROGRAM_HANDLE: (-ENOENT) no program with that handle
 *	in this file
 * @DRM_CCORE_REASON_PROGRAM_BUSY: (-EBUSY) the program has jobs queued or
 *	running
 * @DRM_CCORE_REASON_TIMEOUT: timeout_ms is above @limit (an hour)
 * @DRM_CCORE_REASON_JOBS_FULL: (-EAGAIN on the driver, -EBUSY on the sim
 *	backend) the file has @limit jobs unfinished, the most it may have
 * @DRM_CCORE_REASON_SYNCOBJ: (-ENOENT) the in or out syncobj does not
 *	exist; (-EOPNOTSUPP) the sim backend has no syncobjs
 * @DRM_CCORE_REASON_JOB_UNKNOWN: the job is unknown to this file or older
 *	than the last @limit
 * @DRM_CCORE_REASON_TRIGGER_COUNT: a trigger count is not 1..@limit
 * @DRM_CCORE_REASON_NIC_NOT_REMOTE: the device or semaphore is not on
 *	another host (the fabric holds every node, it is this host's, or
 *	it does not exist; a semaphore block spans cores)
 * @DRM_CCORE_REASON_NIC_SIZE: a size is not 1..@limit, or the range
 *	wraps around
 * @DRM_CCORE_REASON_NIC_LIMIT: (-ENOSPC) the file has @limit remote
 *	mappings or semaphore blocks, the most it may have
 * @DRM_CCORE_REASON_NIC_NOTHING: (-EAGAIN) no transfer of the file's
 *	rings waits for NIC_TAKE
 * @DRM_CCORE_REASON_NIC_BUFFER: (-ENOSPC) the next transfer has @limit
 *	bytes, more than NIC_TAKE's buffer holds
 * @DRM_CCORE_REASON_NIC_XFER: (-ENOENT) no transfer taken by this file
 *	and not yet done has that ring and sequence
 * @DRM_CCORE_REASON_NIC_STATUS: NIC_DONE's status is neither 0 nor an
 *	errno (-4095..-1)
 * @DRM_CCORE_REASON_NIC_TARGET: NIC_DELIVER's range is not inside one
 *	buffer of the file's own address space
 *
 * The errno is -EINVAL where the reason names no other.  Codes are never
 * reused; a newer driver may return codes an older runtime does not know.
 */
enum drm_ccore_reason {
	DRM_CCORE_REASON_NONE = 0,
	DRM_CCORE_REASON_PAD = 1,
	DRM_CCORE_REASON_FLAGS = 2,
	DRM_CCORE_REASON_CORE = 3,
	DRM_CCORE_REASON_ENGINE_RING = 4,
	DRM_CCORE_REASON_RING_SIZE = 5,
	DRM_CCORE_REASON_PACKET_SIZE = 6,
	DRM_CCORE_REASON_RING_INDEX = 7,
	DRM_CCORE_REASON_RING_CLAIMED = 8,
	DRM_CCORE_REASON_RING_HANDLE = 9,
	DRM_CCORE_REASON_RING_PROGRAMS = 10,
	DRM_CCORE_REASON_RING_IN_FLIGHT = 11,
	DRM_CCORE_REASON_DESC_COUNT = 12,
	DRM_CCORE_REASON_RING_FULL = 13,
	DRM_CCORE_REASON_DESC_INVALID = 14,
	DRM_CCORE_REASON_DESC_SEM = 15,
	DRM_CCORE_REASON_SEM_COUNT = 16,
	DRM_CCORE_REASON_SEM_NO_SPACE = 17,
	DRM_CCORE_REASON_SEM_NOT_BLOCK = 18,
	DRM_CCORE_REASON_SEM_PINNED = 19,
	DRM_CCORE_REASON_SEM_OP = 20,
	DRM_CCORE_REASON_SEM_INVALID = 21,
	DRM_CCORE_REASON_SEM_NOT_USABLE = 22,
	DRM_CCORE_REASON_FD_BAD = 23,
	DRM_CCORE_REASON_FD_NOT_SEM = 24,
	DRM_CCORE_REASON_FD_OTHER_FABRIC = 25,
	DRM_CCORE_REASON_CC_CORE = 26,
	DRM_CCORE_REASON_INSN_COUNT = 27,
	DRM_CCORE_REASON_INSN_INVALID = 28,
	DRM_CCORE_REASON_INSN_NOT_OWNED = 29,
	DRM_CCORE_REASON_CC_MEMORY_FULL = 30,
	DRM_CCORE_REASON_PROGRAM_HANDLE = 31,
	DRM_CCORE_REASON_PROGRAM_BUSY = 32,
	DRM_CCORE_REASON_TIMEOUT = 33,
	DRM_CCORE_REASON_JOBS_FULL = 34,
	DRM_CCORE_REASON_SYNCOBJ = 35,
	DRM_CCORE_REASON_JOB_UNKNOWN = 36,
	DRM_CCORE_REASON_TRIGGER_COUNT = 37,
	DRM_CCORE_REASON_NIC_NOT_REMOTE = 38,
	DRM_CCORE_REASON_NIC_SIZE = 39,
	DRM_CCORE_REASON_NIC_LIMIT = 40,
	DRM_CCORE_REASON_NIC_NOTHING = 41,
	DRM_CCORE_REASON_NIC_BUFFER = 42,
	DRM_CCORE_REASON_NIC_XFER = 43,
	DRM_CCORE_REASON_NIC_STATUS = 44,
	DRM_CCORE_REASON_NIC_TARGET = 45,
};

/**
 * struct drm_ccore_last_error - why the calling thread's last ioctl failed
 *
 * Every ioctl of the file that fails records, for the thread that made
 * it, which ioctl failed, its errno and &enum drm_ccore_reason; the record
 * stays until that thread's next failure on the file.  Threads never see
 * each other's records, nor files each other's.  A file keeps the records
 * of a bounded number of threads: a thread whose record was displaced by
 * others reads %DRM_CCORE_REASON_NONE with @ioctl ~0.  GET_LAST_ERROR
 * itself records nothing.
 */
struct drm_ccore_last_error {
	/** @flags: must be zero */
	__u32 flags;
	/** @reason: out: &enum drm_ccore_reason */
	__u32 reason;
	/** @ioctl: out: the failed ioctl's number, DRM_IOCTL_NR() of its
	 *  request (DRM_COMMAND_BASE + DRM_CCORE_* for ccore's own), or ~0
	 *  when the thread has no failure recorded */
	__u32 ioctl;
	/** @error: out: the negative errno it returned */
	__s32 error;
	/** @index: out: the descriptor or instruction at fault, or ~0 */
	__u32 index;
	/** @pad: must be zero */
	__u32 pad;
	/** @limit: out: the bound the rule enforces, where the reason says */
	__u64 limit;
};

#define DRM_IOCTL_CCORE_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_GET_PARAM, struct drm_ccore_param_args)
#define DRM_IOCTL_CCORE_SET_PARAM \
	DRM_IOW(DRM_COMMAND_BASE + DRM_CCORE_SET_PARAM, struct drm_ccore_param_args)
#define DRM_IOCTL_CCORE_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_BO_CREATE, struct drm_ccore_bo_create)
#define DRM_IOCTL_CCORE_BO_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_BO_MMAP_OFFSET, \
		 struct drm_ccore_bo_mmap_offset)
#define DRM_IOCTL_CCORE_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_BO_INFO, struct drm_ccore_bo_info)
#define DRM_IOCTL_CCORE_RING_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_RING_CREATE, \
		 struct drm_ccore_ring_create)
#define DRM_IOCTL_CCORE_RING_DESTROY \
	DRM_IOW(DRM_COMMAND_BASE + DRM_CCORE_RING_DESTROY, \
		struct drm_ccore_ring_destroy)
#define DRM_IOCTL_CCORE_RING_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_RING_SUBMIT, \
		 struct drm_ccore_ring_submit)
#define DRM_IOCTL_CCORE_RING_STATS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_RING_STATS, \
		 struct drm_ccore_ring_stats)
#define DRM_IOCTL_CCORE_SEM_ALLOC \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_SEM_ALLOC, struct drm_ccore_sem_alloc)
#define DRM_IOCTL_CCORE_SEM_FREE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_CCORE_SEM_FREE, struct drm_ccore_sem_free)
#define DRM_IOCTL_CCORE_SEM_ACCESS \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_SEM_ACCESS, \
		 struct drm_ccore_sem_access)
#define DRM_IOCTL_CCORE_SEM_WAIT \
	DRM_IOW(DRM_COMMAND_BASE + DRM_CCORE_SEM_WAIT, struct drm_ccore_sem_wait)
#define DRM_IOCTL_CCORE_PROGRAM_LOAD \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_PROGRAM_LOAD, \
		 struct drm_ccore_program_load)
#define DRM_IOCTL_CCORE_PROGRAM_FREE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_CCORE_PROGRAM_FREE, \
		struct drm_ccore_program_free)
#define DRM_IOCTL_CCORE_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_SUBMIT, struct drm_ccore_submit)
#define DRM_IOCTL_CCORE_JOB_WAIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_JOB_WAIT, struct drm_ccore_job_wait)
#define DRM_IOCTL_CCORE_CC_TRIGGER \
	DRM_IOW(DRM_COMMAND_BASE + DRM_CCORE_CC_TRIGGER, \
		struct drm_ccore_cc_trigger)

#define DRM_IOCTL_CCORE_SEM_EXPORT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_SEM_EXPORT, \
		 struct drm_ccore_sem_export)
#define DRM_IOCTL_CCORE_SEM_IMPORT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_SEM_IMPORT, \
		 struct drm_ccore_sem_import)
#define DRM_IOCTL_CCORE_COMPUTE_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_COMPUTE_SUBMIT, \
		 struct drm_ccore_compute_submit)
#define DRM_IOCTL_CCORE_COMPUTE_WAIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_COMPUTE_WAIT, \
		 struct drm_ccore_compute_wait)
#define DRM_IOCTL_CCORE_GET_LAST_ERROR \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_GET_LAST_ERROR, \
		 struct drm_ccore_last_error)
#define DRM_IOCTL_CCORE_NIC_REMOTE_MAP \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_NIC_REMOTE_MAP, \
		 struct drm_ccore_nic_remote_map)
#define DRM_IOCTL_CCORE_NIC_REMOTE_SEMS \
	DRM_IOW(DRM_COMMAND_BASE + DRM_CCORE_NIC_REMOTE_SEMS, \
		struct drm_ccore_nic_remote_sems)
#define DRM_IOCTL_CCORE_NIC_TAKE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_CCORE_NIC_TAKE, struct drm_ccore_nic_take)
#define DRM_IOCTL_CCORE_NIC_DONE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_CCORE_NIC_DONE, struct drm_ccore_nic_done)
#define DRM_IOCTL_CCORE_NIC_DELIVER \
	DRM_IOW(DRM_COMMAND_BASE + DRM_CCORE_NIC_DELIVER, \
		struct drm_ccore_nic_deliver)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_CCORE_ACCEL_H_ */
