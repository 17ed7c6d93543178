// SPDX-License-Identifier: GPL-2.0
/* The CC ISA opcode table and what follows from it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ccas_isa.h"

/* Each opcode's mnemonic and operands, indexed by opcode. */
#define OP(mnem, op, n, ...) \
	[DRM_CCORE_OP_##op] = { \
		.name = mnem, \
		.opcode = DRM_CCORE_OP_##op, \
		.nopnds = n, \
		.opnds = { __VA_ARGS__ }, \
	}

static const struct ccas_opinfo ccas_ops[] = {
	OP("nop", NOP, 0, 0),
	OP("halt", HALT, 0, 0),
	OP("wait", WAIT, 2, CCAS_OPND_SEM, CCAS_OPND_IMM),
	OP("acquire", ACQUIRE, 2, CCAS_OPND_SEM, CCAS_OPND_IMM),
	OP("set", SET, 2, CCAS_OPND_SEM, CCAS_OPND_IMM),
	OP("add", ADD, 2, CCAS_OPND_SEM, CCAS_OPND_IMM),
	OP("start", START, 2, CCAS_OPND_RING, CCAS_OPND_IMM),
	OP("rwait", RWAIT, 1, CCAS_OPND_RING),
	OP("jump", JUMP, 1, CCAS_OPND_LABEL),
	OP("bge", BGE, 3, CCAS_OPND_SEM, CCAS_OPND_IMM, CCAS_OPND_LABEL),
	OP("movi", MOVI, 2, CCAS_OPND_REG, CCAS_OPND_IMM),
	OP("addi", ADDI, 2, CCAS_OPND_REG, CCAS_OPND_IMM),
	OP("loop", LOOP, 2, CCAS_OPND_REG, CCAS_OPND_LABEL),
	OP("call", CALL, 1, CCAS_OPND_LABEL),
	OP("ret", RET, 0, 0),
	OP("next", NEXT, 0, 0),
	OP("notify", NOTIFY, 1, CCAS_OPND_IMM),
	OP("starti", STARTI, 3, CCAS_OPND_RING, CCAS_OPND_REG, CCAS_OPND_IMM),
};

#define CCAS_NUM_OPS (sizeof(ccas_ops) / sizeof(ccas_ops[0]))

const struct ccas_opinfo *ccas_opinfo(unsigned int opcode)
{
	if (opcode >= CCAS_NUM_OPS || !ccas_ops[opcode].name)
		return NULL;
	return &ccas_ops[opcode];
}

const struct ccas_opinfo *ccas_opinfo_by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < CCAS_NUM_OPS; i++) {
		const char *n = ccas_ops[i].name;

		if (n && strlen(n) == len && memcmp(n, name, len) == 0)
			return &ccas_ops[i];
	}
	return NULL;
}

const char *ccas_opcode_name(unsigned int opcode)
{
	const struct ccas_opinfo *op = ccas_opinfo(opcode);

	return op ? op->name : NULL;
}

static unsigned int opnd_fields(unsigned int kind)
{
	switch (kind) {
	case CCAS_OPND_SEM:
		return CCAS_FIELD_SEM;
	case CCAS_OPND_IMM:
		return CCAS_FIELD_IMM;
	case CCAS_OPND_RING:
		return CCAS_FIELD_ENGINE | CCAS_FIELD_RING;
	case CCAS_OPND_REG:
		return CCAS_FIELD_REG;
	case CCAS_OPND_LABEL:
		return CCAS_FIELD_TARGET;
	}
	return 0;
}

unsigned int ccas_opinfo_fields(const struct ccas_opinfo *op)
{
	unsigned int mask = 0;

	for (unsigned int i = 0; i < op->nopnds; i++)
		mask |= opnd_fields(op->opnds[i]);
	return mask;
}

const char *ccas_opnd_placeholder(unsigned int kind)
{
	switch (kind) {
	case CCAS_OPND_SEM:
		return "SEM";
	case CCAS_OPND_IMM:
		return "IMM";
	case CCAS_OPND_RING:
		return "RING";
	case CCAS_OPND_REG:
		return "REG";
	case CCAS_OPND_LABEL:
		return "LABEL";
	}
	return "?";
}

int ccas_opinfo_format(const struct ccas_opinfo *op, const char *const *opnds, char *buf,
		       size_t len)
{
	switch (op->nopnds) {
	case 0:
		return snprintf(buf, len, "%s", op->name);
	case 1:
		return snprintf(buf, len, "%s %s", op->name, opnds[0]);
	case 2:
		return snprintf(buf, len, "%s %s, %s", op->name, opnds[0], opnds[1]);
	default:
		return snprintf(buf, len, "%s %s, %s, %s", op->name, opnds[0], opnds[1],
				opnds[2]);
	}
}

int ccas_opinfo_usage(const struct ccas_opinfo *op, char *buf, size_t len)
{
	const char *p[CCAS_MAX_OPNDS] = { "", "", "" };

	for (unsigned int i = 0; i < op->nopnds; i++)
		p[i] = ccas_opnd_placeholder(op->opnds[i]);
	return ccas_opinfo_format(op, p, buf, len);
}

/* Why a field @used does not include is set in @in, or NULL. */
static const char *stray_field(const struct drm_ccore_insn *in,
			       unsigned int used)
{
	const struct { unsigned int bit; uint64_t value; const char *why; } fields[] = {
		{ CCAS_FIELD_REG, in->reg, "unused field reg is not zero" },
		{ CCAS_FIELD_ENGINE, in->engine, "unused field engine is not zero" },
		{ CCAS_FIELD_RING, in->ring, "unused field ring is not zero" },
		{ CCAS_FIELD_SEM, in->sem, "unused field sem is not zero" },
		{ CCAS_FIELD_IMM, in->imm, "unused field imm is not zero" },
		{ CCAS_FIELD_TARGET, in->target, "unused field target is not zero" },
	};

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i].value && !(used & fields[i].bit))
			return fields[i].why;
	return NULL;
}

const char *ccas_insn_why_raw(const struct drm_ccore_insn *in)
{
	const struct ccas_opinfo *op = ccas_opinfo(in->opcode);
	unsigned int used;
	const char *stray;

	if (!op)
		return "unknown opcode";
	used = ccas_opinfo_fields(op);
	stray = stray_field(in, used);
	if (stray)
		return stray;
	if ((used & CCAS_FIELD_REG) && in->reg >= DRM_CCORE_NUM_REGS)
		return "register out of range";
	if ((used & CCAS_FIELD_RING) && in->ring > CCAS_RING_MAX)
		return "ring out of range";
	return NULL;
}
