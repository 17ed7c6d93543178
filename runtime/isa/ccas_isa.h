/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal to runtime/isa: the opcode table.  Each opcode lists the operands
 * its assembly form takes, in order; from that follow which instruction
 * fields it uses (all others must be zero) and its usage line.  The
 * assembler, the disassembler and ccore-as --help all follow this one table
 * (Documentation/cc-isa.rst restates it).
 */
#ifndef CCAS_ISA_H
#define CCAS_ISA_H

#include <stddef.h>

#include "ccas.h"

/* Operand kinds, in the order they appear in the source. */
enum ccas_opnd {
	CCAS_OPND_SEM = 1,	/* sem(DEV,CORE,IDX) or trigger -> @sem */
	CCAS_OPND_IMM,		/* number or .equ name -> @imm */
	CCAS_OPND_RING,		/* ring(ENGINE,RING) -> @engine, @ring */
	CCAS_OPND_REG,		/* r0..r7 -> @reg */
	CCAS_OPND_LABEL,	/* label -> @target, relative */
};

#define CCAS_MAX_OPNDS 3

/* Instruction fields besides @opcode, as a bit mask. */
#define CCAS_FIELD_REG		(1u << 0)
#define CCAS_FIELD_ENGINE	(1u << 1)
#define CCAS_FIELD_RING		(1u << 2)
#define CCAS_FIELD_SEM		(1u << 3)
#define CCAS_FIELD_IMM		(1u << 4)
#define CCAS_FIELD_TARGET	(1u << 5)

/* Highest ring index an instruction may name (rings per engine - 1). */
#define CCAS_RING_MAX 15u

/**
 * struct ccas_opinfo - one opcode
 * @name: lowercase mnemonic
 * @opcode: &enum drm_ccore_opcode value
 * @nopnds: number of operands
 * @opnds: their kinds (&enum ccas_opnd)
 */
struct ccas_opinfo {
	const char *name;
	unsigned char opcode;
	unsigned char nopnds;
	unsigned char opnds[CCAS_MAX_OPNDS];
};

/* The opcode @opcode, or NULL if undefined. */
const struct ccas_opinfo *ccas_opinfo(unsigned int opcode);
/* The opcode whose mnemonic is the @len bytes at @name, or NULL. */
const struct ccas_opinfo *ccas_opinfo_by_name(const char *name, size_t len);
/* CCAS_FIELD_* mask of the fields @op uses. */
unsigned int ccas_opinfo_fields(const struct ccas_opinfo *op);
/* Upper-case placeholder of an operand kind for usage lines ("SEM"). */
const char *ccas_opnd_placeholder(unsigned int kind);
/* Write "wait SEM, IMM"; returns the snprintf() length. */
int ccas_opinfo_usage(const struct ccas_opinfo *op, char *buf, size_t len);
/*
 * Write @op's mnemonic and its op->nopnds operands @opnds as an instruction
 * is written: "wait s0, 1"; returns the snprintf() length.
 */
int ccas_opinfo_format(const struct ccas_opinfo *op, const char *const *opnds, char *buf,
		       size_t len);

/*
 * Why @in cannot be written as "mnemonic operands" (unknown opcode, a field
 * the opcode does not use is not zero, an operand out of range), or NULL if
 * it can.  Branch targets are not checked: that needs the program.
 */
const char *ccas_insn_why_raw(const struct drm_ccore_insn *in);

#endif
