// SPDX-License-Identifier: GPL-2.0
/*
 * Layout of the uAPI (uapi/drm/ccore_accel.h), pinned.
 *
 * The structs are an ABI between the kernel and every userspace built
 * against any version of the header, for 64-bit and 32-bit (compat)
 * processes alike.  So the compile-time checks below fix, for every member,
 * its type, its offset, and that it starts where the one before it ends;
 * and for every struct, that it ends with its last member (no holes, no
 * tail padding: the size is the sum of the member sizes) at a multiple of
 * 8 bytes.  With no implicit padding anywhere, i386's 4-byte alignment of
 * __u64 cannot change a layout.  The TESTs check what needs values: the
 * ioctl numbers, directions and size fields, and the helper macros.
 */
#include <stddef.h>
#include <stdint.h>

#include "ccore_test.h"
#include "ccore_accel.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* --- compile time ---------------------------------------------------------- */

#define MSIZE(s, m) sizeof(((struct s *)0)->m)

/* The member has exactly this type (not merely this size). */
#define MTYPE_IS(s, m, type)						\
	_Generic(((struct s *)0)->m, type : 1, default : 0)

/* @m is the first member: at offset 0, of type @type. */
#define FIRST(s, m, type)						\
	_Static_assert(offsetof(struct s, m) == 0 && MTYPE_IS(s, m, type), \
		       #s "." #m ": first member, " #type)

/* @m follows @prev directly, at byte @off, and has type @type. */
#define NEXT(s, prev, m, off, type)					\
	_Static_assert(offsetof(struct s, m) == (off) &&		\
		       offsetof(struct s, m) ==				\
		       offsetof(struct s, prev) + MSIZE(s, prev) &&	\
		       MTYPE_IS(s, m, type),				\
		       #s "." #m ": at " #off " right after " #prev ", " #type)

/* The struct is @size bytes, a multiple of 8, ending with @last. */
#define END(s, last, size)						\
	_Static_assert(sizeof(struct s) == (size) && (size) % 8 == 0 &&	\
		       offsetof(struct s, last) + MSIZE(s, last) == (size), \
		       #s ": " #size " bytes, ending with " #last)

FIRST(drm_ccore_desc, op, __u8);
NEXT(drm_ccore_desc, op, dtype, 1, __u8);
NEXT(drm_ccore_desc, dtype, redop, 2, __u8);
NEXT(drm_ccore_desc, redop, flags, 3, __u8);
NEXT(drm_ccore_desc, flags, signal_sem, 4, __u32);
NEXT(drm_ccore_desc, signal_sem, signal_value, 8, __u32);
NEXT(drm_ccore_desc, signal_value, value, 12, __u32);
NEXT(drm_ccore_desc, value, len, 16, __u64);
NEXT(drm_ccore_desc, len, dst, 24, __u64);
NEXT(drm_ccore_desc, dst, src0, 32, __u64);
NEXT(drm_ccore_desc, src0, src1, 40, __u64);
END(drm_ccore_desc, src1, 48);

FIRST(drm_ccore_insn, opcode, __u8);
NEXT(drm_ccore_insn, opcode, reg, 1, __u8);
NEXT(drm_ccore_insn, reg, engine, 2, __u8);
NEXT(drm_ccore_insn, engine, ring, 3, __u8);
NEXT(drm_ccore_insn, ring, sem, 4, __u32);
NEXT(drm_ccore_insn, sem, imm, 8, __u32);
NEXT(drm_ccore_insn, imm, target, 12, __s32);
END(drm_ccore_insn, target, 16);

FIRST(drm_ccore_param_args, param, __u32);
NEXT(drm_ccore_param_args, param, pad, 4, __u32);
NEXT(drm_ccore_param_args, pad, value, 8, __u64);
END(drm_ccore_param_args, value, 16);

FIRST(drm_ccore_bo_create, size, __u64);
NEXT(drm_ccore_bo_create, size, flags, 8, __u32);
NEXT(drm_ccore_bo_create, flags, handle, 12, __u32);
NEXT(drm_ccore_bo_create, handle, dev_addr, 16, __u64);
NEXT(drm_ccore_bo_create, dev_addr, userptr, 24, __u64);
END(drm_ccore_bo_create, userptr, 32);

FIRST(drm_ccore_bo_mmap_offset, handle, __u32);
NEXT(drm_ccore_bo_mmap_offset, handle, pad, 4, __u32);
NEXT(drm_ccore_bo_mmap_offset, pad, offset, 8, __u64);
END(drm_ccore_bo_mmap_offset, offset, 16);

FIRST(drm_ccore_bo_info, handle, __u32);
NEXT(drm_ccore_bo_info, handle, device_index, 4, __u32);
NEXT(drm_ccore_bo_info, device_index, size, 8, __u64);
NEXT(drm_ccore_bo_info, size, dev_addr, 16, __u64);
END(drm_ccore_bo_info, dev_addr, 24);

FIRST(drm_ccore_ring_create, core, __u32);
NEXT(drm_ccore_ring_create, core, engine, 4, __u32);
NEXT(drm_ccore_ring_create, engine, ring, 8, __u32);
NEXT(drm_ccore_ring_create, ring, size, 12, __u32);
NEXT(drm_ccore_ring_create, size, packet_size, 16, __u32);
NEXT(drm_ccore_ring_create, packet_size, flags, 20, __u32);
NEXT(drm_ccore_ring_create, flags, handle, 24, __u32);
NEXT(drm_ccore_ring_create, handle, pad, 28, __u32);
NEXT(drm_ccore_ring_create, pad, index_stride, 32, __s64);
NEXT(drm_ccore_ring_create, index_stride, index_count, 40, __u32);
NEXT(drm_ccore_ring_create, index_count, pad2, 44, __u32);
END(drm_ccore_ring_create, pad2, 48);
/* (index_count - 1) * index_stride can never overflow what holds it */
_Static_assert(DRM_CCORE_MAX_INDEX_COUNT - 1 <= INT64_MAX / DRM_CCORE_MAX_INDEX_STRIDE,
	       "index limits: the largest displacement fits an __s64");

FIRST(drm_ccore_ring_destroy, handle, __u32);
NEXT(drm_ccore_ring_destroy, handle, pad, 4, __u32);
END(drm_ccore_ring_destroy, pad, 8);

FIRST(drm_ccore_ring_submit, handle, __u32);
NEXT(drm_ccore_ring_submit, handle, count, 4, __u32);
NEXT(drm_ccore_ring_submit, count, descs, 8, __u64);
NEXT(drm_ccore_ring_submit, descs, flags, 16, __u32);
NEXT(drm_ccore_ring_submit, flags, bad_index, 20, __u32);
END(drm_ccore_ring_submit, bad_index, 24);

FIRST(drm_ccore_ring_stats, handle, __u32);
NEXT(drm_ccore_ring_stats, handle, packet_size, 4, __u32);
NEXT(drm_ccore_ring_stats, packet_size, bytes, 8, __u64);
NEXT(drm_ccore_ring_stats, bytes, packets, 16, __u64);
NEXT(drm_ccore_ring_stats, packets, started, 24, __u64);
NEXT(drm_ccore_ring_stats, started, completed, 32, __u64);
NEXT(drm_ccore_ring_stats, completed, errors, 40, __u64);
END(drm_ccore_ring_stats, errors, 48);

FIRST(drm_ccore_sem_alloc, core, __u32);
NEXT(drm_ccore_sem_alloc, core, count, 4, __u32);
NEXT(drm_ccore_sem_alloc, count, first, 8, __u32);
NEXT(drm_ccore_sem_alloc, first, pad, 12, __u32);
END(drm_ccore_sem_alloc, pad, 16);

FIRST(drm_ccore_sem_free, first, __u32);
NEXT(drm_ccore_sem_free, first, pad, 4, __u32);
END(drm_ccore_sem_free, pad, 8);

FIRST(drm_ccore_sem_access, sem, __u32);
NEXT(drm_ccore_sem_access, sem, op, 4, __u32);
NEXT(drm_ccore_sem_access, op, value, 8, __u32);
NEXT(drm_ccore_sem_access, value, pad, 12, __u32);
END(drm_ccore_sem_access, pad, 16);

FIRST(drm_ccore_sem_wait, sem, __u32);
NEXT(drm_ccore_sem_wait, sem, value, 4, __u32);
NEXT(drm_ccore_sem_wait, value, timeout_ns, 8, __s64);
END(drm_ccore_sem_wait, timeout_ns, 16);

FIRST(drm_ccore_program_load, cc_core, __u32);
NEXT(drm_ccore_program_load, cc_core, count, 4, __u32);
NEXT(drm_ccore_program_load, count, insns, 8, __u64);
NEXT(drm_ccore_program_load, insns, handle, 16, __u32);
NEXT(drm_ccore_program_load, handle, bad_index, 20, __u32);
END(drm_ccore_program_load, bad_index, 24);

FIRST(drm_ccore_program_free, handle, __u32);
NEXT(drm_ccore_program_free, handle, pad, 4, __u32);
END(drm_ccore_program_free, pad, 8);

FIRST(drm_ccore_submit, program, __u32);
NEXT(drm_ccore_submit, program, flags, 4, __u32);
NEXT(drm_ccore_submit, flags, in_syncobj, 8, __u32);
NEXT(drm_ccore_submit, in_syncobj, out_syncobj, 12, __u32);
NEXT(drm_ccore_submit, out_syncobj, timeout_ms, 16, __u32);
NEXT(drm_ccore_submit, timeout_ms, pad, 20, __u32);
NEXT(drm_ccore_submit, pad, job, 24, __u64);
END(drm_ccore_submit, job, 32);

FIRST(drm_ccore_job_wait, job, __u64);
NEXT(drm_ccore_job_wait, job, timeout_ns, 8, __s64);
NEXT(drm_ccore_job_wait, timeout_ns, status, 16, __s32);
NEXT(drm_ccore_job_wait, status, pad, 20, __u32);
END(drm_ccore_job_wait, pad, 24);

FIRST(drm_ccore_cc_trigger, cc_core, __u32);
NEXT(drm_ccore_cc_trigger, cc_core, count, 4, __u32);
END(drm_ccore_cc_trigger, count, 8);

FIRST(drm_ccore_sem_export, first, __u32);
NEXT(drm_ccore_sem_export, first, flags, 4, __u32);
NEXT(drm_ccore_sem_export, flags, fd, 8, __s32);
NEXT(drm_ccore_sem_export, fd, pad, 12, __u32);
END(drm_ccore_sem_export, pad, 16);

FIRST(drm_ccore_sem_import, fd, __s32);
NEXT(drm_ccore_sem_import, fd, flags, 4, __u32);
NEXT(drm_ccore_sem_import, flags, first, 8, __u32);
NEXT(drm_ccore_sem_import, first, count, 12, __u32);
END(drm_ccore_sem_import, count, 16);

FIRST(drm_ccore_ce_insn, opcode, __u8);
NEXT(drm_ccore_ce_insn, opcode, flags, 1, __u8);
NEXT(drm_ccore_ce_insn, flags, pad, 2, __u16);
NEXT(drm_ccore_ce_insn, pad, sem, 4, __u32);
NEXT(drm_ccore_ce_insn, sem, value, 8, __u32);
NEXT(drm_ccore_ce_insn, value, cc_core, 12, __u32);
NEXT(drm_ccore_ce_insn, cc_core, duration_ns, 16, __u64);
NEXT(drm_ccore_ce_insn, duration_ns, len, 24, __u64);
NEXT(drm_ccore_ce_insn, len, dst, 32, __u64);
NEXT(drm_ccore_ce_insn, dst, src, 40, __u64);
END(drm_ccore_ce_insn, src, 48);

FIRST(drm_ccore_compute_submit, core, __u32);
NEXT(drm_ccore_compute_submit, core, count, 4, __u32);
NEXT(drm_ccore_compute_submit, count, insns, 8, __u64);
NEXT(drm_ccore_compute_submit, insns, dma_engine, 16, __u32);
NEXT(drm_ccore_compute_submit, dma_engine, dma_ring, 20, __u32);
NEXT(drm_ccore_compute_submit, dma_ring, timeout_ms, 24, __u32);
NEXT(drm_ccore_compute_submit, timeout_ms, flags, 28, __u32);
NEXT(drm_ccore_compute_submit, flags, bad_index, 32, __u32);
NEXT(drm_ccore_compute_submit, bad_index, pad, 36, __u32);
END(drm_ccore_compute_submit, pad, 40);

FIRST(drm_ccore_compute_wait, core, __u32);
NEXT(drm_ccore_compute_wait, core, status, 4, __s32);
NEXT(drm_ccore_compute_wait, status, timeout_ns, 8, __s64);
NEXT(drm_ccore_compute_wait, timeout_ns, insns, 16, __u64);
NEXT(drm_ccore_compute_wait, insns, busy_ns, 24, __u64);
NEXT(drm_ccore_compute_wait, busy_ns, dma_bytes, 32, __u64);
NEXT(drm_ccore_compute_wait, dma_bytes, start_ns, 40, __u64);
NEXT(drm_ccore_compute_wait, start_ns, end_ns, 48, __u64);
END(drm_ccore_compute_wait, end_ns, 56);

FIRST(drm_ccore_last_error, flags, __u32);
NEXT(drm_ccore_last_error, flags, reason, 4, __u32);
NEXT(drm_ccore_last_error, reason, ioctl, 8, __u32);
NEXT(drm_ccore_last_error, ioctl, error, 12, __s32);
NEXT(drm_ccore_last_error, error, index, 16, __u32);
NEXT(drm_ccore_last_error, index, pad, 20, __u32);
NEXT(drm_ccore_last_error, pad, limit, 24, __u64);
END(drm_ccore_last_error, limit, 32);

FIRST(drm_ccore_nic_remote_map, device, __u32);
NEXT(drm_ccore_nic_remote_map, device, flags, 4, __u32);
NEXT(drm_ccore_nic_remote_map, flags, size, 8, __u64);
NEXT(drm_ccore_nic_remote_map, size, remote, 16, __u64);
NEXT(drm_ccore_nic_remote_map, remote, dev_addr, 24, __u64);
END(drm_ccore_nic_remote_map, dev_addr, 32);

FIRST(drm_ccore_nic_remote_sems, first, __u32);
NEXT(drm_ccore_nic_remote_sems, first, count, 4, __u32);
END(drm_ccore_nic_remote_sems, count, 8);

FIRST(drm_ccore_nic_take, data, __u64);
NEXT(drm_ccore_nic_take, data, data_size, 8, __u64);
NEXT(drm_ccore_nic_take, data_size, flags, 16, __u32);
NEXT(drm_ccore_nic_take, flags, what, 20, __u32);
NEXT(drm_ccore_nic_take, what, ring, 24, __u32);
NEXT(drm_ccore_nic_take, ring, seq, 28, __u32);
NEXT(drm_ccore_nic_take, seq, len, 32, __u64);
NEXT(drm_ccore_nic_take, len, to, 40, __u64);
NEXT(drm_ccore_nic_take, to, to_device, 48, __u32);
NEXT(drm_ccore_nic_take, to_device, sem, 52, __u32);
NEXT(drm_ccore_nic_take, sem, value, 56, __u32);
NEXT(drm_ccore_nic_take, value, pad, 60, __u32);
END(drm_ccore_nic_take, pad, 64);

FIRST(drm_ccore_nic_done, ring, __u32);
NEXT(drm_ccore_nic_done, ring, seq, 4, __u32);
NEXT(drm_ccore_nic_done, seq, status, 8, __s32);
NEXT(drm_ccore_nic_done, status, pad, 12, __u32);
END(drm_ccore_nic_done, pad, 16);

FIRST(drm_ccore_nic_deliver, to, __u64);
NEXT(drm_ccore_nic_deliver, to, len, 8, __u64);
NEXT(drm_ccore_nic_deliver, len, data, 16, __u64);
NEXT(drm_ccore_nic_deliver, data, flags, 24, __u32);
NEXT(drm_ccore_nic_deliver, flags, sem, 28, __u32);
NEXT(drm_ccore_nic_deliver, sem, value, 32, __u32);
NEXT(drm_ccore_nic_deliver, value, pad, 36, __u32);
END(drm_ccore_nic_deliver, pad, 40);

/* The hardware formats are what rings and program memory hold. */
_Static_assert(sizeof(struct drm_ccore_desc) == 48, "a descriptor is 48 bytes");
_Static_assert(sizeof(struct drm_ccore_insn) == 16, "an instruction is 16 bytes");
_Static_assert(sizeof(struct drm_ccore_ce_insn) == 48, "a compute instruction is 48 bytes");

/* --- run time ----------------------------------------------------------------- */

struct ioctl_def {
	const char *name;
	unsigned long cmd;	/* DRM_IOCTL_CCORE_* */
	unsigned int nr;	/* DRM_CCORE_*, relative to DRM_COMMAND_BASE */
	size_t size;		/* sizeof its argument */
	unsigned int dir;	/* _IOC_WRITE, or _IOC_READ | _IOC_WRITE with outputs */
};

#define W	_IOC_WRITE
#define WR	(_IOC_READ | _IOC_WRITE)
#define IOCTL(name, arg, dir)						\
	{ #name, DRM_IOCTL_CCORE_##name, DRM_CCORE_##name,		\
	  sizeof(struct drm_ccore_##arg), dir }

/* The direction follows from the argument: any "out:" field needs READ. */
static const struct ioctl_def ioctls[] = {
	IOCTL(GET_PARAM, param_args, WR),
	IOCTL(SET_PARAM, param_args, W),
	IOCTL(BO_CREATE, bo_create, WR),
	IOCTL(BO_MMAP_OFFSET, bo_mmap_offset, WR),
	IOCTL(BO_INFO, bo_info, WR),
	IOCTL(RING_CREATE, ring_create, WR),
	IOCTL(RING_DESTROY, ring_destroy, W),
	IOCTL(RING_SUBMIT, ring_submit, WR),
	IOCTL(RING_STATS, ring_stats, WR),
	IOCTL(SEM_ALLOC, sem_alloc, WR),
	IOCTL(SEM_FREE, sem_free, W),
	IOCTL(SEM_ACCESS, sem_access, WR),
	IOCTL(SEM_WAIT, sem_wait, W),
	IOCTL(PROGRAM_LOAD, program_load, WR),
	IOCTL(PROGRAM_FREE, program_free, W),
	IOCTL(SUBMIT, submit, WR),
	IOCTL(JOB_WAIT, job_wait, WR),
	IOCTL(CC_TRIGGER, cc_trigger, W),
	IOCTL(SEM_EXPORT, sem_export, WR),
	IOCTL(SEM_IMPORT, sem_import, WR),
	IOCTL(COMPUTE_SUBMIT, compute_submit, WR),
	IOCTL(COMPUTE_WAIT, compute_wait, WR),
	IOCTL(GET_LAST_ERROR, last_error, WR),
	IOCTL(NIC_REMOTE_MAP, nic_remote_map, WR),
	IOCTL(NIC_REMOTE_SEMS, nic_remote_sems, W),
	IOCTL(NIC_TAKE, nic_take, WR),
	IOCTL(NIC_DONE, nic_done, W),
	IOCTL(NIC_DELIVER, nic_deliver, W),
};

TEST(ioctl_numbers)
{
	for (size_t i = 0; i < ARRAY_SIZE(ioctls); i++) {
		const struct ioctl_def *d = &ioctls[i];

		/* numbered densely from 0 in declaration order, never reused */
		if (d->nr != i)
			FAIL("DRM_CCORE_%s is %#x, want %#zx", d->name, d->nr, i);
		if (DRM_COMMAND_BASE + d->nr >= DRM_COMMAND_END)
			FAIL("DRM_CCORE_%s = %#x is past the driver range", d->name, d->nr);
		if (_IOC_TYPE(d->cmd) != DRM_IOCTL_BASE)
			FAIL("DRM_IOCTL_CCORE_%s: type %#lx, want '%c'", d->name,
			     (unsigned long)_IOC_TYPE(d->cmd), DRM_IOCTL_BASE);
		if (_IOC_NR(d->cmd) != DRM_COMMAND_BASE + d->nr)
			FAIL("DRM_IOCTL_CCORE_%s: nr %#lx, want %#x", d->name,
			     (unsigned long)_IOC_NR(d->cmd), DRM_COMMAND_BASE + d->nr);
		if (_IOC_SIZE(d->cmd) != d->size)
			FAIL("DRM_IOCTL_CCORE_%s: size %lu, sizeof says %zu", d->name,
			     (unsigned long)_IOC_SIZE(d->cmd), d->size);
		if (_IOC_DIR(d->cmd) != d->dir)
			FAIL("DRM_IOCTL_CCORE_%s: direction %lu, want %u", d->name,
			     (unsigned long)_IOC_DIR(d->cmd), d->dir);
		for (size_t j = 0; j < i; j++) {
			if (ioctls[j].cmd == d->cmd)
				FAIL("DRM_IOCTL_CCORE_%s == DRM_IOCTL_CCORE_%s", d->name,
				     ioctls[j].name);
			if (ioctls[j].nr == d->nr)
				FAIL("DRM_CCORE_%s == DRM_CCORE_%s", d->name, ioctls[j].name);
		}
	}
	/* The last command number the header defines is the last listed here. */
	ASSERT_EQ(DRM_CCORE_NIC_DELIVER, ARRAY_SIZE(ioctls) - 1);
}

TEST(struct_sizes)
{
	ASSERT_EQ(sizeof(struct drm_ccore_desc), 48);
	ASSERT_EQ(sizeof(struct drm_ccore_insn), 16);
	ASSERT_EQ(sizeof(struct drm_ccore_ce_insn), 48);
	for (size_t i = 0; i < ARRAY_SIZE(ioctls); i++)
		if (ioctls[i].size % 8)
			FAIL("the argument of %s is %zu bytes", ioctls[i].name, ioctls[i].size);
}

TEST(sem_ref_macros)
{
	static const struct { unsigned int dev, core, idx; } refs[] = {
		{ 0, 0, 0 }, { 1, 2, 3 }, { 255, 255, 65535 }, { 17, 0, 65535 },
		{ 0, 63, 1 }, { 128, 7, 32768 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(refs); i++) {
		__u32 ref = DRM_CCORE_SEM_REF(refs[i].dev, refs[i].core, refs[i].idx);

		ASSERT_EQ(DRM_CCORE_SEM_REF_DEV(ref), refs[i].dev);
		ASSERT_EQ(DRM_CCORE_SEM_REF_CORE(ref), refs[i].core);
		ASSERT_EQ(DRM_CCORE_SEM_REF_IDX(ref), refs[i].idx);
	}
	/* Out-of-range parts are masked, never spilling into a neighbour. */
	ASSERT_U64_EQ(DRM_CCORE_SEM_REF(0x1ff, 0x1ff, 0x1ffff), 0xffffffffu);
	ASSERT_U64_EQ(DRM_CCORE_SEM_REF(0x100, 0x100, 0x10000), 0);
	ASSERT_U64_EQ(DRM_CCORE_SEM_REF(1, 0, 0), 1u << 24);
	ASSERT_U64_EQ(DRM_CCORE_SEM_REF(0, 1, 0), 1u << 16);
}

TEST(flags_and_enums)
{
	static const unsigned int opcodes[] = {
		DRM_CCORE_OP_NOP, DRM_CCORE_OP_HALT, DRM_CCORE_OP_WAIT,
		DRM_CCORE_OP_ACQUIRE, DRM_CCORE_OP_SET, DRM_CCORE_OP_ADD,
		DRM_CCORE_OP_START, DRM_CCORE_OP_RWAIT, DRM_CCORE_OP_JUMP,
		DRM_CCORE_OP_BGE, DRM_CCORE_OP_MOVI, DRM_CCORE_OP_ADDI,
		DRM_CCORE_OP_LOOP, DRM_CCORE_OP_CALL, DRM_CCORE_OP_RET,
		DRM_CCORE_OP_NEXT, DRM_CCORE_OP_NOTIFY, DRM_CCORE_OP_STARTI,
	};
	static const unsigned int dtypes[] = {
		DRM_CCORE_DTYPE_I8, DRM_CCORE_DTYPE_U8, DRM_CCORE_DTYPE_I32,
		DRM_CCORE_DTYPE_U32, DRM_CCORE_DTYPE_I64, DRM_CCORE_DTYPE_U64,
		DRM_CCORE_DTYPE_F16, DRM_CCORE_DTYPE_BF16, DRM_CCORE_DTYPE_F32,
		DRM_CCORE_DTYPE_F64,
	};
	static const unsigned int redops[] = {
		DRM_CCORE_REDOP_SUM, DRM_CCORE_REDOP_PROD, DRM_CCORE_REDOP_MAX,
		DRM_CCORE_REDOP_MIN,
	};

	/* Values fit the __u8 fields that carry them and are dense. */
	for (size_t i = 0; i < ARRAY_SIZE(opcodes); i++)
		ASSERT_EQ(opcodes[i], i);
	for (size_t i = 0; i < ARRAY_SIZE(dtypes); i++)
		ASSERT_EQ(dtypes[i], i + 1);	/* 0 means "no dtype" */
	for (size_t i = 0; i < ARRAY_SIZE(redops); i++)
		ASSERT_EQ(redops[i], i + 1);
	ASSERT_EQ(DRM_CCORE_DESC_COPY, 1);
	ASSERT_EQ(DRM_CCORE_DESC_REDUCE, 2);
	ASSERT_EQ(DRM_CCORE_DESC_SEM_WRITE, 3);
	ASSERT_EQ(DRM_CCORE_DESC_DIV, 4);
	ASSERT_EQ(DRM_CCORE_BO_F_USERPTR, 1);
	/* compute-engine opcodes are dense from 1: a zeroed instruction is none */
	ASSERT_EQ(DRM_CCORE_CE_COMPUTE, 1);
	ASSERT_EQ(DRM_CCORE_CE_DMA, 2);
	ASSERT_EQ(DRM_CCORE_CE_TRIGGER, 3);
	ASSERT_EQ(DRM_CCORE_CE_WAIT_SEM, 4);
	ASSERT_EQ(DRM_CCORE_CE_END, 5);
	ASSERT_EQ(DRM_CCORE_CE_F_SIGNAL, 1);

	/* Each flag one bit; the mask is exactly the defined flags. */
	ASSERT_EQ(DRM_CCORE_DESC_F_SIGNAL & DRM_CCORE_DESC_F_SEM_SET, 0);
	ASSERT_EQ(DRM_CCORE_DESC_FLAGS, DRM_CCORE_DESC_F_SIGNAL | DRM_CCORE_DESC_F_SEM_SET);
	ASSERT_EQ(__builtin_popcount(DRM_CCORE_DESC_FLAGS), 2);
	ASSERT_LE(DRM_CCORE_DESC_FLAGS, 0xff);	/* fits drm_ccore_desc.flags */
	ASSERT_EQ(__builtin_popcount(DRM_CCORE_RING_F_COMPUTE), 1);
	ASSERT_EQ(__builtin_popcount(DRM_CCORE_SUBMIT_F_START), 1);
	ASSERT_EQ(__builtin_popcount(DRM_CCORE_JOB_F_TRIGGER), 1);
	ASSERT_EQ(DRM_CCORE_NUM_REGS, 8);
	ASSERT_EQ(DRM_CCORE_CALL_DEPTH, 8);
}
