/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccas: the CC ISA toolchain library - assembler, disassembler and the
 * program image file format.  Used by tools/ccore-as (which must build
 * before libccore, so this code depends on nothing but libc and the uAPI
 * header) and by the runtime to print and load programs.
 *
 * The ISA and the syntax are specified in Documentation/cc-isa.rst.
 */
#ifndef CCAS_H
#define CCAS_H

#include <stddef.h>
#include <stdio.h>

#include "ccore_accel.h"

/*
 * The semaphore reference meaning "this CC core's trigger semaphore".  It is
 * DRM_CCORE_SEM_REF(255, 255, 65535), which no real semaphore can be, because
 * a bank never holds 65536 semaphores.
 */
#define CCAS_SEM_TRIGGER 0xffffffffu

#ifdef DRM_CCORE_SEM_TRIGGER
_Static_assert(CCAS_SEM_TRIGGER == DRM_CCORE_SEM_TRIGGER,
	       "the assembler's trigger must be the uAPI's");
#endif

/* ------------------------------------------------------------------------ */
/* Program image file                                                       */
/* ------------------------------------------------------------------------ */

#define CCAS_IMAGE_MAGIC	"CCPG"
#define CCAS_IMAGE_VERSION	1u
#define CCAS_IMAGE_HEADER_SIZE	16u
#define CCAS_INSN_SIZE		16u

/**
 * struct ccas_image_header - start of a program image file
 * @magic: the four bytes "CCPG"
 * @version: CCAS_IMAGE_VERSION
 * @count: number of instructions following the header
 * @reserved: must be zero
 *
 * The header is followed by @count instructions, each the 16 bytes of a
 * &struct drm_ccore_insn with its multi-byte fields little-endian; the file
 * ends right after them.  Every integer field here is little-endian too.
 * The kernel driver keeps its own copy of this definition: change neither
 * without the other.
 */
struct ccas_image_header {
	__u8 magic[4];
	__u32 version;
	__u32 count;
	__u32 reserved;
};

_Static_assert(sizeof(struct ccas_image_header) == CCAS_IMAGE_HEADER_SIZE,
	       "image header layout");
_Static_assert(sizeof(struct drm_ccore_insn) == CCAS_INSN_SIZE,
	       "instruction layout");

/* ------------------------------------------------------------------------ */
/* API                                                                       */
/* ------------------------------------------------------------------------ */

/**
 * ccas_assemble() - assemble CC assembly source
 * @src: NUL-terminated source text
 * @filename: name used in error messages (NULL: "<input>")
 * @out: on success, a malloc'd array the caller frees (never NULL, even
 *	for an empty program)
 * @count: on success, number of instructions in @out
 * @err: on failure, "FILE:LINE: <what was expected>, got '<token>'"
 *	(may be NULL)
 * @errlen: size of @err
 *
 * Return: 0, -EINVAL for a source error, -ENOMEM.
 */
int ccas_assemble(const char *src, const char *filename,
		  struct drm_ccore_insn **out, size_t *count,
		  char *err, size_t errlen);

/**
 * ccas_disassemble() - turn instructions back into source
 * @insns: the instructions
 * @count: how many
 *
 * The text assembles back to exactly the same bytes, whatever they are:
 * instructions that no mnemonic can express (unknown opcode, a non-zero
 * field the opcode does not use, an operand out of range, a branch leaving
 * the program) come out as raw ".insn" lines.  Branch targets become
 * labels "L<index>".
 *
 * Return: malloc'd NUL-terminated text the caller frees, or NULL if out
 * of memory.
 */
char *ccas_disassemble(const struct drm_ccore_insn *insns, size_t count);

/**
 * ccas_format_insn() - print one instruction on one line, for messages
 * @in: the instruction
 * @buf: where to write (always NUL-terminated if @len > 0)
 * @len: size of @buf
 *
 * Branch targets print relative to the instruction (e.g. "jump .-2"), as
 * there is no program to resolve labels in; everything else prints as the
 * disassembler does.
 *
 * Return: the length of the full line, like snprintf(): a result >= @len
 * means the line was truncated.
 */
int ccas_format_insn(const struct drm_ccore_insn *in, char *buf, size_t len);

/**
 * ccas_opcode_name() - mnemonic of an opcode
 * @opcode: an &enum drm_ccore_opcode value
 *
 * Return: the lowercase mnemonic, or NULL if @opcode is not defined.
 */
const char *ccas_opcode_name(unsigned int opcode);

/**
 * ccas_write_image() - write a program image file
 * @f: open stream (binary)
 * @insns: the instructions
 * @count: how many, at most UINT32_MAX
 *
 * Return: 0, -EINVAL if @count does not fit the header, -EIO if writing
 * failed.
 */
int ccas_write_image(FILE *f, const struct drm_ccore_insn *insns, size_t count);

/**
 * ccas_read_image() - parse a program image held in memory
 * @bytes: the file's contents
 * @len: their size
 * @out: on success, a malloc'd array the caller frees (never NULL)
 * @count: on success, number of instructions
 * @err: on failure, why the image was rejected (may be NULL)
 * @errlen: size of @err
 *
 * Rejects a short header, a bad magic, an unknown version, a non-zero
 * reserved field, and a size that does not match the header's count.
 *
 * Return: 0, -EINVAL for a malformed image, -ENOMEM.
 */
int ccas_read_image(const void *bytes, size_t len,
		    struct drm_ccore_insn **out, size_t *count,
		    char *err, size_t errlen);

#endif
