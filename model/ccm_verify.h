/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Validation and translation of what a context submits: descriptors (checked
 * against the context's address space and semaphores, then translated into
 * host pointers) and CC programs (checked instruction by instruction).
 * Shared by the kernel driver and the embedded backend: this is the
 * security boundary, so it lives in one place.
 */
#ifndef CCM_VERIFY_H
#define CCM_VERIFY_H

#include "ccm.h"
#include "ccm_vm.h"

/**
 * struct ccm_verify_ctx - what a submission may touch
 * @f: the fabric (limits, semaphore bank sizes)
 * @dev: device of the ring or CC core
 * @core: logical core of the ring or CC core
 * @vm: the context's address space
 * @sem_owned: true if the context may use semaphore @ref
 * @ring_owned: true if the context owns ring @engine/@ring of @core
 * @owner: passed to the callbacks
 * @index_stride: descriptors: their ring's index_stride
 * @index_count: descriptors: their ring's index_count; with 2 or more every
 *	address range must be inside one buffer at each index
 */
struct ccm_verify_ctx {
	const struct ccm_fabric *f;
	u32 dev;
	u32 core;
	const struct ccm_vm *vm;
	bool (*sem_owned)(void *owner, u32 ref);
	bool (*ring_owned)(void *owner, u32 dev, u32 core, u32 engine, u32 ring);
	void *owner;
	s64 index_stride;
	u32 index_count;
};

/* Validate descriptor @index and translate it into @out. */
int ccm_desc_translate(const struct ccm_verify_ctx *c, const struct drm_ccore_desc *d,
		       u32 index, struct ccm_hwdesc *out, struct ccm_err *err);
/*
 * True if @in names a semaphore that must stay its program's while the
 * program is loaded (the trigger semaphore is the CC core's own).
 */
bool ccm_insn_uses_sem(const struct drm_ccore_insn *in);
/* True if @in starts or waits for ring @in->engine/@in->ring. */
bool ccm_insn_uses_ring(const struct drm_ccore_insn *in);
/* Validate a whole program; err->index names the first bad instruction. */
int ccm_program_verify(const struct ccm_verify_ctx *c, const struct drm_ccore_insn *insns,
		       u32 count, struct ccm_err *err);
/*
 * Check that @ref names a semaphore the context may use; errors read
 * "@kind @i: @what 0x... ..." (kind: "descriptor" or "instruction").
 */
int ccm_verify_sem(const struct ccm_verify_ctx *c, u32 i, const char *kind, const char *what,
		   u32 ref, struct ccm_err *err);
/* The same for an instruction's: never another host's (only descriptors reach those). */
int ccm_verify_insn_sem(const struct ccm_verify_ctx *c, u32 i, const char *what, u32 ref,
			struct ccm_err *err);
/**
 * struct ccm_insn_field - a field of an instruction that some opcodes use
 * @bit: the opcode's field mask bit that allows it
 * @name: the field's name in the uAPI, for the error
 */
struct ccm_insn_field {
	u8 bit;
	const char *name;
};

/*
 * Instruction @i (opcode @op) uses only the fields of mask @allowed: any
 * other of the @n fields with a value in @vals must be 0.  The error names
 * the first field that is not.
 */
int ccm_verify_unused_fields(u32 i, const char *op, u8 allowed,
			     const struct ccm_insn_field *fields, const u64 *vals, u32 n,
			     struct ccm_err *err);
/*
 * A program of @count instructions is not empty and fits the program
 * memory; errors name @what ("program", "compute program").
 */
int ccm_verify_program_size(const struct ccm_verify_ctx *c, const char *what, u32 count,
			    struct ccm_err *err);
/*
 * Validate a compute program for the compute engine of c->core
 * (ccm_compute_verify.c) and translate its DMA instructions, in order,
 * into @descs (room for @count); *@ndma is how many there are.  Ring
 * @engine/@ring of c->core carries them and must be the context's if
 * there are any.  err->index names the first bad instruction.
 */
int ccm_compute_verify(const struct ccm_verify_ctx *c, const struct drm_ccore_ce_insn *insns,
		       u32 count, u32 engine, u32 ring, struct ccm_hwdesc *descs, u32 *ndma,
		       struct ccm_err *err);

#endif
