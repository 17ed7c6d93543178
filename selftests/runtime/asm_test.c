// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the CC ISA toolchain (runtime/isa): encodings of every opcode,
 * the exact disassemble/assemble round trip (also of random bytes), every
 * kind of assembly error, and the program image format.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ccore_test.h"
#include "isa/ccas.h"

#define ERR_LEN 512

/* Assemble @src as "t.ccs" and fail the test on error. */
static size_t must_assemble(const char *src, struct drm_ccore_insn **out)
{
	char err[ERR_LEN];
	size_t n = 0;
	int ret = ccas_assemble(src, "t.ccs", out, &n, err, sizeof(err));

	if (ret)
		FAIL("assembling failed (%d): %s", ret, err);
	ASSERT_TRUE(*out != NULL);
	return n;
}

static void expect_insn(const struct drm_ccore_insn *got, __u8 opcode,
			__u8 reg, __u8 engine, __u8 ring, __u32 sem, __u32 imm,
			__s32 target)
{
	ASSERT_EQ(got->opcode, opcode);
	ASSERT_EQ(got->reg, reg);
	ASSERT_EQ(got->engine, engine);
	ASSERT_EQ(got->ring, ring);
	ASSERT_U64_EQ(got->sem, sem);
	ASSERT_U64_EQ(got->imm, imm);
	ASSERT_EQ(got->target, target);
}

/* One instruction of every opcode (and every operand form). */
static const char every_opcode_src[] =
	"; every opcode once\n"
	".equ N, 42\n"
	"top:\tnop\t\t\t\t# 0\n"
	"\thalt\n"
	"\twait sem(1,2,3), 7\n"
	"\tacquire trigger, 1\n"
	"\tset sem(255,255,65535), 0xffffffff\n"
	"\tadd sem(0,1,5), 4294967295\n"
	"\tstart ring(0,3), 4\n"
	"\trwait ring(255,15)\n"
	"\tjump end\n"
	"\tbge sem(3,0,9), 2, top\n"
	"\tmovi r0, 0x10\n"
	"\taddi r7, N\n"
	"here:\tloop r3, here\n"
	"\tcall top\n"
	"\tret\n"
	"\tnext\n"
	"end:\tnotify 0xDEADBEEF\n"
	"\tstarti ring(2,15), r7, 65536\n";

TEST(every_opcode_encoding)
{
	struct drm_ccore_insn *p;
	size_t n = must_assemble(every_opcode_src, &p);

	ASSERT_EQ(n, 18);
	expect_insn(&p[0], DRM_CCORE_OP_NOP, 0, 0, 0, 0, 0, 0);
	expect_insn(&p[1], DRM_CCORE_OP_HALT, 0, 0, 0, 0, 0, 0);
	expect_insn(&p[2], DRM_CCORE_OP_WAIT, 0, 0, 0,
		    DRM_CCORE_SEM_REF(1, 2, 3), 7, 0);
	expect_insn(&p[3], DRM_CCORE_OP_ACQUIRE, 0, 0, 0, CCAS_SEM_TRIGGER, 1, 0);
	expect_insn(&p[4], DRM_CCORE_OP_SET, 0, 0, 0, 0xffffffffu,
		    0xffffffffu, 0);
	expect_insn(&p[5], DRM_CCORE_OP_ADD, 0, 0, 0,
		    DRM_CCORE_SEM_REF(0, 1, 5), 4294967295u, 0);
	expect_insn(&p[6], DRM_CCORE_OP_START, 0, 0, 3, 0, 4, 0);
	expect_insn(&p[7], DRM_CCORE_OP_RWAIT, 0, 255, 15, 0, 0, 0);
	expect_insn(&p[8], DRM_CCORE_OP_JUMP, 0, 0, 0, 0, 0, 16 - 8);
	expect_insn(&p[9], DRM_CCORE_OP_BGE, 0, 0, 0,
		    DRM_CCORE_SEM_REF(3, 0, 9), 2, -9);
	expect_insn(&p[10], DRM_CCORE_OP_MOVI, 0, 0, 0, 0, 16, 0);
	expect_insn(&p[11], DRM_CCORE_OP_ADDI, 7, 0, 0, 0, 42, 0);
	expect_insn(&p[12], DRM_CCORE_OP_LOOP, 3, 0, 0, 0, 0, 0);
	expect_insn(&p[13], DRM_CCORE_OP_CALL, 0, 0, 0, 0, 0, -13);
	expect_insn(&p[14], DRM_CCORE_OP_RET, 0, 0, 0, 0, 0, 0);
	expect_insn(&p[15], DRM_CCORE_OP_NEXT, 0, 0, 0, 0, 0, 0);
	expect_insn(&p[16], DRM_CCORE_OP_NOTIFY, 0, 0, 0, 0, 0xdeadbeefu, 0);
	expect_insn(&p[17], DRM_CCORE_OP_STARTI, 7, 2, 15, 0, 65536, 0);
	free(p);
}

TEST(opcode_names)
{
	static const char *const names[] = {
		"nop", "halt", "wait", "acquire", "set", "add", "start",
		"rwait", "jump", "bge", "movi", "addi", "loop", "call", "ret",
		"next", "notify", "starti",
	};

	for (unsigned int i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		ASSERT_STR_CONTAINS(ccas_opcode_name(i), names[i]);
	ASSERT_TRUE(ccas_opcode_name(DRM_CCORE_OP_STARTI + 1) == NULL);
	ASSERT_TRUE(ccas_opcode_name(255) == NULL);
	ASSERT_TRUE(ccas_opcode_name(0x100) == NULL);
}

/* Disassemble @p, reassemble, and require identical bytes. */
static void check_roundtrip(const struct drm_ccore_insn *p, size_t n)
{
	struct drm_ccore_insn *q = NULL;
	char err[ERR_LEN];
	char *text = ccas_disassemble(p, n);
	size_t m = 0;
	int ret;

	ASSERT_TRUE(text != NULL);
	ret = ccas_assemble(text, "disasm", &q, &m, err, sizeof(err));
	if (ret) {
		ccore_test_log("disassembly:\n%s", text);
		free(text);
		FAIL("disassembly does not assemble: %s", err);
	}
	if (m != n || memcmp(p, q, n * sizeof(*p)) != 0) {
		ccore_test_log("disassembly:\n%s", text);
		for (size_t i = 0; i < n && i < m; i++)
			if (memcmp(&p[i], &q[i], sizeof(*p)))
				ccore_test_log("first difference at %zu", i);
		free(text);
		free(q);
		FAIL("round trip changed the program (%zu -> %zu insns)", n, m);
	}
	free(text);
	free(q);
}

TEST(roundtrip_every_opcode)
{
	struct drm_ccore_insn *p;
	size_t n = must_assemble(every_opcode_src, &p);
	char *text = ccas_disassemble(p, n);

	ASSERT_STR_CONTAINS(text, "L0:\n");
	ASSERT_STR_CONTAINS(text, "\twait sem(1,2,3), 7 ");
	ASSERT_STR_CONTAINS(text, "\tacquire trigger, 1 ");
	ASSERT_STR_CONTAINS(text, "\tstart ring(0,3), 4 ");
	ASSERT_STR_CONTAINS(text, "\trwait ring(255,15) ");
	ASSERT_STR_CONTAINS(text, "\tjump L16 ");
	ASSERT_STR_CONTAINS(text, "\tbge sem(3,0,9), 2, L0 ");
	ASSERT_STR_CONTAINS(text, "\tloop r3, L12 ");
	ASSERT_STR_CONTAINS(text, "\tnotify 0xdeadbeef ");
	ASSERT_STR_CONTAINS(text, "\tstarti ring(2,15), r7, 0x10000 ");
	ASSERT_TRUE(strstr(text, ".insn") == NULL);
	free(text);
	check_roundtrip(p, n);
	free(p);
}

/* splitmix64: small, good enough, and reproducible from the logged seed. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t test_seed(void)
{
	const char *env = getenv("CCORE_TEST_SEED");

	if (env && *env)
		return strtoull(env, NULL, 0);
	return (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
}

/* An instruction the mnemonic syntax can mostly express, sometimes not. */
static void random_near_valid(uint64_t *s, struct drm_ccore_insn *in,
			      size_t i, size_t n)
{
	uint64_t r = rng_next(s);

	memset(in, 0, sizeof(*in));
	in->opcode = (__u8)(r % (DRM_CCORE_OP_STARTI + 1));
	in->reg = (__u8)((r >> 8) % DRM_CCORE_NUM_REGS);
	in->engine = (__u8)(r >> 16);
	in->ring = (__u8)((r >> 24) % 16);
	in->sem = (r >> 32) & 1 ? CCAS_SEM_TRIGGER : (__u32)rng_next(s);
	in->imm = (r >> 33) & 1 ? (__u32)(r >> 40) % 100 : (__u32)rng_next(s);
	in->target = (__s32)((long long)(rng_next(s) % n) - (long long)i);
	/* Clear what the opcode does not use by reassembling its own text. */
	switch (in->opcode) {
	case DRM_CCORE_OP_NOP: case DRM_CCORE_OP_HALT:
	case DRM_CCORE_OP_RET: case DRM_CCORE_OP_NEXT:
		*in = (struct drm_ccore_insn){ .opcode = in->opcode };
		break;
	case DRM_CCORE_OP_WAIT: case DRM_CCORE_OP_ACQUIRE:
	case DRM_CCORE_OP_SET: case DRM_CCORE_OP_ADD:
		in->reg = in->engine = in->ring = 0;
		in->target = 0;
		break;
	case DRM_CCORE_OP_START:
		in->reg = 0;
		in->sem = 0;
		in->target = 0;
		break;
	case DRM_CCORE_OP_RWAIT:
		in->reg = 0;
		in->sem = in->imm = 0;
		in->target = 0;
		break;
	case DRM_CCORE_OP_STARTI:
		in->sem = 0;
		in->target = 0;
		break;
	case DRM_CCORE_OP_JUMP: case DRM_CCORE_OP_CALL:
		in->reg = in->engine = in->ring = 0;
		in->sem = in->imm = 0;
		break;
	case DRM_CCORE_OP_BGE:
		in->reg = in->engine = in->ring = 0;
		break;
	case DRM_CCORE_OP_MOVI: case DRM_CCORE_OP_ADDI:
		in->engine = in->ring = 0;
		in->sem = 0;
		in->target = 0;
		break;
	case DRM_CCORE_OP_LOOP:
		in->engine = in->ring = 0;
		in->sem = in->imm = 0;
		break;
	default:	/* notify */
		in->reg = in->engine = in->ring = 0;
		in->sem = 0;
		in->target = 0;
		break;
	}
	/* Now and then break it in one byte, so raw .insn gets exercised. */
	if (rng_next(s) % 8 == 0)
		((unsigned char *)in)[rng_next(s) % sizeof(*in)] ^=
			(unsigned char)(1u << (rng_next(s) % 8));
}

TEST(roundtrip_random)
{
	uint64_t seed = test_seed(), s = seed;
	struct drm_ccore_insn *p = calloc(256, sizeof(*p));

	ccore_test_log("seed %llu (set CCORE_TEST_SEED to reproduce)",
		       (unsigned long long)seed);
	ASSERT_TRUE(p != NULL);
	for (int iter = 0; iter < 400; iter++) {
		size_t n = (size_t)(rng_next(&s) % 257);
		int pure_noise = iter % 4 == 0;

		for (size_t i = 0; i < n; i++) {
			if (pure_noise || rng_next(&s) % 5 == 0) {
				for (size_t b = 0; b < sizeof(p[i]); b++)
					((unsigned char *)&p[i])[b] =
						(unsigned char)rng_next(&s);
			} else {
				random_near_valid(&s, &p[i], i, n);
			}
		}
		check_roundtrip(p, n);
	}
	free(p);
}

TEST(roundtrip_edge_values)
{
	struct drm_ccore_insn p[6];

	memset(p, 0, sizeof(p));
	/* Branch offsets at the extremes of 32 bits: never labels. */
	p[0].opcode = DRM_CCORE_OP_JUMP;
	p[0].target = INT32_MIN;
	p[1].opcode = DRM_CCORE_OP_CALL;
	p[1].target = INT32_MAX;
	/* One past the end, and just before the start. */
	p[2].opcode = DRM_CCORE_OP_LOOP;
	p[2].target = 4;
	p[3].opcode = DRM_CCORE_OP_BGE;
	p[3].target = -4;
	/* Branch to itself, and to the very end. */
	p[4].opcode = DRM_CCORE_OP_JUMP;
	p[5].opcode = DRM_CCORE_OP_JUMP;
	p[5].target = 0;
	check_roundtrip(p, 6);
	memset(p, 0xff, sizeof(p));
	check_roundtrip(p, 6);
}

TEST(disassemble_raw_forms)
{
	struct drm_ccore_insn p[6];
	char *text;

	memset(p, 0, sizeof(p));
	p[0].opcode = 0x42;				/* unknown opcode */
	p[1].opcode = DRM_CCORE_OP_NOP;
	p[1].imm = 1;					/* unused field set */
	p[2].opcode = DRM_CCORE_OP_MOVI;
	p[2].reg = 8;					/* no such register */
	p[3].opcode = DRM_CCORE_OP_RWAIT;
	p[3].ring = 16;					/* no such ring */
	p[4].opcode = DRM_CCORE_OP_JUMP;
	p[4].target = 2;				/* leaves the program */
	p[5].opcode = DRM_CCORE_OP_RET;
	text = ccas_disassemble(p, 6);
	ASSERT_STR_CONTAINS(text, ".insn 0x42, 0, 0, 0, 0x00000000, 0, 0");
	ASSERT_STR_CONTAINS(text, "unknown opcode");
	ASSERT_STR_CONTAINS(text, ".insn 0x00, 0, 0, 0, 0x00000000, 1, 0");
	ASSERT_STR_CONTAINS(text, "unused field imm is not zero");
	ASSERT_STR_CONTAINS(text, "register out of range");
	ASSERT_STR_CONTAINS(text, "ring out of range");
	ASSERT_STR_CONTAINS(text, ".insn 0x08, 0, 0, 0, 0x00000000, 0, 2");
	ASSERT_STR_CONTAINS(text, "branch target outside the program");
	ASSERT_STR_CONTAINS(text, "\tret ");
	free(text);
	check_roundtrip(p, 6);

	text = ccas_disassemble(p, 0);
	ASSERT_TRUE(text != NULL);
	ASSERT_EQ(strlen(text), 0);
	free(text);
}

TEST(format_insn)
{
	struct drm_ccore_insn in = { .opcode = DRM_CCORE_OP_START, .ring = 3,
				     .imm = 4 };
	char buf[128];

	ASSERT_EQ(ccas_format_insn(&in, buf, sizeof(buf)), strlen(buf));
	ASSERT_STR_CONTAINS(buf, "start ring(0,3), 4");
	ASSERT_EQ(strlen(buf), strlen("start ring(0,3), 4"));

	in = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_BGE,
				      .sem = DRM_CCORE_SEM_REF(1, 2, 3),
				      .imm = 70000, .target = -2 };
	ccas_format_insn(&in, buf, sizeof(buf));
	ASSERT_STR_CONTAINS(buf, "bge sem(1,2,3), 0x11170, .-2");
	in = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_CALL, .target = 5 };
	ccas_format_insn(&in, buf, sizeof(buf));
	ASSERT_STR_CONTAINS(buf, "call .+5");
	in = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_STARTI, .reg = 6, .engine = 1,
				      .ring = 2, .imm = 3 };
	ccas_format_insn(&in, buf, sizeof(buf));
	ASSERT_STR_CONTAINS(buf, "starti ring(1,2), r6, 3");
	in.sem = 5;		/* STARTI does not use sem: raw */
	ccas_format_insn(&in, buf, sizeof(buf));
	ASSERT_STR_CONTAINS(buf, ".insn 0x11, 6, 1, 2, 0x00000005, 3, 0");
	in = (struct drm_ccore_insn){ .opcode = DRM_CCORE_OP_WAIT,
				      .sem = CCAS_SEM_TRIGGER, .imm = 1 };
	ccas_format_insn(&in, buf, sizeof(buf));
	ASSERT_STR_CONTAINS(buf, "wait trigger, 1");
	in.target = -1;		/* WAIT does not use target: raw */
	ccas_format_insn(&in, buf, sizeof(buf));
	ASSERT_STR_CONTAINS(buf, ".insn 0x02, 0, 0, 0, 0xffffffff, 1, -1");

	/* Truncation: NUL-terminated, full length returned like snprintf(). */
	ASSERT_EQ(ccas_format_insn(&in, buf, 8), 38);
	ASSERT_EQ(strlen(buf), 7);
}

TEST(syntax_features)
{
	static const char src[] =
		"# constants may build on constants defined above\r\n"
		".equ DEV, 2\n"
		".equ SEMX, 0X1f\n"
		".equ COPY, SEMX\n"
		"\n"
		"a: b:\n"
		"c:	wait sem(DEV, 0, COPY) , 1 ; spaces around commas\n"
		"	   start  ring( 1 , 15 ),0\n"
		"	.insn 0x0c, 7, 0, 0, 0, 0, -1\n"
		"	loop r7, b\n"
		"	jump fwd\n"
		"fwd:	halt\n"
		"	; a trailing label names nothing, which is fine\n"
		"tail:\n";
	struct drm_ccore_insn *p;
	size_t n = must_assemble(src, &p);

	ASSERT_EQ(n, 6);
	expect_insn(&p[0], DRM_CCORE_OP_WAIT, 0, 0, 0,
		    DRM_CCORE_SEM_REF(2, 0, 0x1f), 1, 0);
	expect_insn(&p[1], DRM_CCORE_OP_START, 0, 1, 15, 0, 0, 0);
	expect_insn(&p[2], DRM_CCORE_OP_LOOP, 7, 0, 0, 0, 0, -1);
	expect_insn(&p[3], DRM_CCORE_OP_LOOP, 7, 0, 0, 0, 0, -3);
	expect_insn(&p[4], DRM_CCORE_OP_JUMP, 0, 0, 0, 0, 0, 1);
	expect_insn(&p[5], DRM_CCORE_OP_HALT, 0, 0, 0, 0, 0, 0);
	free(p);

	/* Empty and comment-only sources are empty programs, not errors. */
	n = must_assemble("", &p);
	ASSERT_EQ(n, 0);
	free(p);
	n = must_assemble("; nothing\n\n   # at all", &p);
	ASSERT_EQ(n, 0);
	free(p);
}

TEST(many_labels)
{
	/* Enough labels to make the symbol table grow several times. */
	size_t cap = 4000 * 40, o = 0;
	char *src = malloc(cap);
	struct drm_ccore_insn *p;
	size_t n;

	ASSERT_TRUE(src != NULL);
	for (int i = 0; i < 4000; i++)
		o += (size_t)snprintf(src + o, cap - o, "l%d: jump l%d\n", i,
				      3999 - i);
	n = must_assemble(src, &p);
	free(src);
	ASSERT_EQ(n, 4000);
	for (int i = 0; i < 4000; i++)
		ASSERT_EQ(p[i].target, 3999 - 2 * i);
	check_roundtrip(p, n);
	free(p);
}

struct err_case {
	const char *src;
	const char *where;	/* "t.ccs:LINE: " */
	const char *expected;	/* what was expected */
	const char *got;	/* ", got ..." */
};

static const struct err_case err_cases[] = {
	/* unknown mnemonics and directives */
	{ "nop\n\tjmp x\n", "t.ccs:2: ", "expected an instruction mnemonic (nop, halt,", ", got 'jmp'" },
	{ "NOP\n", "t.ccs:1: ", "expected an instruction mnemonic (mnemonics are lowercase)", ", got 'NOP'" },
	{ "5\n", "t.ccs:1: ", "expected an instruction mnemonic", ", got '5'" },
	{ ".word 5\n", "t.ccs:1: ", "expected a directive (.equ or .insn)", ", got '.word'" },
	/* wrong operand kind */
	{ "wait r3, 1\n", "t.ccs:1: ", "expected a semaphore like sem(0,1,5) or 'trigger'", ", got 'r3'" },
	{ "start trigger, 1\n", "t.ccs:1: ", "expected a ring like ring(0,3)", ", got 'trigger'" },
	{ "movi 3, 1\n", "t.ccs:1: ", "expected a register r0..r7", ", got '3'" },
	{ "jump 3\n", "t.ccs:1: ", "expected a label", ", got '3'" },
	{ "notify trigger\n", "t.ccs:1: ", "expected an immediate 0..4294967295 or a .equ constant defined above", ", got 'trigger'" },
	{ "wait sem(1,2), 1\n", "t.ccs:1: ", "expected ',' after CORE in sem(DEV,CORE,IDX)", ", got ')'" },
	{ "wait sem(1,2,3, 1\n", "t.ccs:1: ", "expected ')' to close sem(DEV,CORE,IDX)", ", got ','" },
	{ "wait sem 1, 1\n", "t.ccs:1: ", "expected '(' after 'sem' in sem(DEV,CORE,IDX)", ", got '1'" },
	{ "rwait ring(1 2)\n", "t.ccs:1: ", "expected ',' after ENGINE in ring(ENGINE,RING)", ", got '2'" },
	{ "starti ring(0,1), 4\n", "t.ccs:1: ", "expected a register r0..r7", ", got '4'" },
	{ "starti r2, ring(0,1), 4\n", "t.ccs:1: ", "expected a ring like ring(0,3)", ", got 'r2'" },
	/* wrong operand count */
	{ "wait trigger\n", "t.ccs:1: ", "expected ',' and then IMM (usage: wait SEM, IMM)", ", got end of line" },
	{ "bge trigger, 1\n", "t.ccs:1: ", "expected ',' and then LABEL (usage: bge SEM, IMM, LABEL)", ", got end of line" },
	{ "notify\n", "t.ccs:1: ", "expected an immediate 0..4294967295", ", got end of line" },
	{ "starti ring(0,1), r2\n", "t.ccs:1: ", "expected ',' and then IMM (usage: starti RING, REG, IMM)", ", got end of line" },
	{ "wait trigger, 1, 2\n", "t.ccs:1: ", "expected end of line after the operands (usage: wait SEM, IMM)", ", got ','" },
	{ "ret 1\n", "t.ccs:1: ", "expected end of line ('ret' takes no operands)", ", got '1'" },
	/* garbage after operands */
	{ "rwait ring(0,1) foo\n", "t.ccs:1: ", "expected end of line after the operands (usage: rwait RING)", ", got 'foo'" },
	{ "nop $\n", "t.ccs:1: ", "expected end of line ('nop' takes no operands)", ", got '$'" },
	{ "nop \x01\n", "t.ccs:1: ", "takes no operands", ", got '\\x01'" },
	/* out-of-range numbers */
	{ "movi r8, 1\n", "t.ccs:1: ", "expected a register r0..r7", ", got 'r8'" },
	{ "movi r01, 1\n", "t.ccs:1: ", "expected a register r0..r7", ", got 'r01'" },
	{ "start ring(0,16), 1\n", "t.ccs:1: ", "expected a ring index 0..15", ", got '16'" },
	{ "rwait ring(256,0)\n", "t.ccs:1: ", "expected an engine 0..255", ", got '256'" },
	{ "set sem(256,0,0), 1\n", "t.ccs:1: ", "expected a device index 0..255", ", got '256'" },
	{ "set sem(0,0x100,0), 1\n", "t.ccs:1: ", "expected a core index 0..255", ", got '0x100'" },
	{ "set sem(0,0,65536), 1\n", "t.ccs:1: ", "expected a semaphore index 0..65535", ", got '65536'" },
	{ "notify 4294967296\n", "t.ccs:1: ", "expected an immediate 0..4294967295", ", got '4294967296'" },
	{ "notify 99999999999999999999999\n", "t.ccs:1: ", "expected an immediate 0..4294967295", ", got '99999999999999999999999'" },
	{ "notify 12ab\n", "t.ccs:1: ", "expected an immediate 0..4294967295 (decimal or 0x hex)", ", got '12ab'" },
	{ "notify 0x\n", "t.ccs:1: ", "(decimal or 0x hex)", ", got '0x'" },
	{ ".equ R, 16\nstart ring(0,R), 1\n", "t.ccs:2: ", "expected a ring index 0..15", ", got 'R' (= 16)" },
	{ ".insn 256, 0, 0, 0, 0, 0, 0\n", "t.ccs:1: ", "expected an opcode 0..255", ", got '256'" },
	{ ".insn 0, 0, 0, 0, 0, 0, 2147483648\n", "t.ccs:1: ", "expected a branch offset -2147483648..2147483647", ", got '2147483648'" },
	{ ".insn 0, 0, 0, 0, 0, 0, -2147483649\n", "t.ccs:1: ", "expected a branch offset -2147483648..2147483647", ", got '-2147483649'" },
	{ ".insn 1, 2\n", "t.ccs:1: ", "expected ',' and then ENGINE (usage: .insn OPCODE, REG, ENGINE, RING, SEM, IMM, TARGET)", ", got end of line" },
	/* constants */
	{ "notify FOO\n", "t.ccs:1: ", "expected an immediate 0..4294967295 or a .equ constant defined above", ", got 'FOO'" },
	{ "notify A\n.equ A, 1\n", "t.ccs:1: ", "or a .equ constant defined above", ", got 'A'" },
	{ ".equ X, 1\n.equ X, 2\n", "t.ccs:2: ", "expected a new constant name (already defined at line 1)", ", got 'X'" },
	{ "X: nop\n.equ X, 1\n", "t.ccs:2: ", "expected a name not used by a label (label at line 1)", ", got 'X'" },
	{ ".equ trigger, 1\n", "t.ccs:1: ", "expected a constant name that is not a register or the keyword trigger, sem or ring", ", got 'trigger'" },
	{ ".equ 5, 1\n", "t.ccs:1: ", "expected a constant name (a letter or '_', then letters, digits or '_')", ", got '5'" },
	{ ".equ X 1\n", "t.ccs:1: ", "expected ',' and then VALUE (usage: .equ NAME, VALUE)", ", got '1'" },
	{ "L: notify L\n", "t.ccs:1: ", "not a label (labels are only branch targets)", ", got 'L'" },
	/* labels */
	{ "jump nowhere\n", "t.ccs:1: ", "expected a label defined in this file", ", got 'nowhere'" },
	{ ".equ X, 0\nnop\njump X\n", "t.ccs:3: ", "expected a label defined in this file", ", got 'X'" },
	{ "jump end\nend:\n", "t.ccs:1: ", "expected a label on an instruction (branch targets must stay inside the program)", ", got 'end'" },
	{ "a: nop\n\na: nop\n", "t.ccs:3: ", "expected a label name not used before (first defined at line 1)", ", got 'a'" },
	{ "a: a: nop\n", "t.ccs:1: ", "expected a label name not used before", ", got 'a'" },
	{ "r1: nop\n", "t.ccs:1: ", "expected a label name that is not a register", ", got 'r1'" },
	{ "x.y: nop\n", "t.ccs:1: ", "expected a label name (a letter or '_'", ", got 'x.y'" },
	/* line numbers survive comments, blank lines and CRLF */
	{ "nop\r\n; c\r\n# c\r\n\r\nbogus\r\n", "t.ccs:5: ", "expected an instruction mnemonic", ", got 'bogus'" },
};

TEST(error_messages)
{
	for (size_t i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		struct drm_ccore_insn *p = NULL;
		char err[ERR_LEN];
		size_t n = 1234;
		int ret = ccas_assemble(c->src, "t.ccs", &p, &n, err, sizeof(err));

		if (ret != -EINVAL)
			FAIL("case %zu: returned %d, want -EINVAL", i, ret);
		ASSERT_TRUE(p == NULL);
		ASSERT_EQ(n, 1234);
		if (strncmp(err, c->where, strlen(c->where)) != 0)
			FAIL("case %zu: \"%s\" does not start with \"%s\"", i,
			     err, c->where);
		ASSERT_STR_CONTAINS(err, c->expected);
		ASSERT_STR_CONTAINS(err, c->got);
		/* The token comes last: nothing follows "got ..." but itself. */
		ASSERT_EQ(strlen(strstr(err, c->got)), strlen(c->got));
	}
}

TEST(error_reporting_edges)
{
	struct drm_ccore_insn *p = NULL;
	char err[ERR_LEN], tiny[12];
	char long_tok[200];
	size_t n;

	/* No file name: a placeholder, still with the line. */
	ASSERT_EQ(ccas_assemble("nop\nfoo\n", NULL, &p, &n, err, sizeof(err)),
		  -EINVAL);
	ASSERT_STR_CONTAINS(err, "<input>:2: ");
	/* No buffer, or a tiny one: fails cleanly, stays NUL-terminated. */
	ASSERT_EQ(ccas_assemble("foo\n", "t.ccs", &p, &n, NULL, 0), -EINVAL);
	ASSERT_EQ(ccas_assemble("foo\n", "t.ccs", &p, &n, tiny, sizeof(tiny)),
		  -EINVAL);
	ASSERT_LT(strlen(tiny), sizeof(tiny));
	ASSERT_STR_CONTAINS(tiny, "t.ccs:1:");
	/* A very long token is shortened in the message. */
	memset(long_tok, 'z', sizeof(long_tok) - 1);
	long_tok[sizeof(long_tok) - 1] = '\0';
	ASSERT_EQ(ccas_assemble(long_tok, "t.ccs", &p, &n, err, sizeof(err)),
		  -EINVAL);
	ASSERT_STR_CONTAINS(err, "zzz...'");
	ASSERT_LT(strlen(err), 400);
	/* The first error in source order wins, even an undefined label. */
	ASSERT_EQ(ccas_assemble("jump x\nbogus\n", "t.ccs", &p, &n, err,
				sizeof(err)), -EINVAL);
	ASSERT_STR_CONTAINS(err, "t.ccs:1: ");
}

/* The image of @p written through a memory stream; caller frees. */
static char *image_bytes(const struct drm_ccore_insn *p, size_t n, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ASSERT_TRUE(f != NULL);
	ASSERT_EQ(ccas_write_image(f, p, n), 0);
	ASSERT_EQ(fclose(f), 0);
	return buf;
}

TEST(image_roundtrip)
{
	static const unsigned char want[] = {
		'C', 'C', 'P', 'G', 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0,
		0x09, 0x01, 0x02, 0x03, 0x05, 0x00, 0x04, 0x03,
		0x78, 0x56, 0x34, 0x12, 0xfe, 0xff, 0xff, 0xff,
		0x0f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	struct drm_ccore_insn p[2] = {
		{ .opcode = DRM_CCORE_OP_BGE, .reg = 1, .engine = 2, .ring = 3,
		  .sem = DRM_CCORE_SEM_REF(3, 4, 5), .imm = 0x12345678,
		  .target = -2 },
		{ .opcode = DRM_CCORE_OP_NEXT },
	};
	struct drm_ccore_insn *q = NULL;
	char err[ERR_LEN];
	size_t len = 0, n = 0;
	char *img = image_bytes(p, 2, &len);

	/* Little-endian, field by field, whatever the host. */
	ASSERT_EQ(len, sizeof(want));
	ASSERT_MEM_EQ(img, want, sizeof(want));
	ASSERT_EQ(ccas_read_image(img, len, &q, &n, err, sizeof(err)), 0);
	ASSERT_EQ(n, 2);
	ASSERT_MEM_EQ(p, q, sizeof(p));
	free(q);
	free(img);

	/* An empty program is a valid image, read as a non-NULL array. */
	img = image_bytes(NULL, 0, &len);
	ASSERT_EQ(len, CCAS_IMAGE_HEADER_SIZE);
	ASSERT_EQ(ccas_read_image(img, len, &q, &n, err, sizeof(err)), 0);
	ASSERT_EQ(n, 0);
	ASSERT_TRUE(q != NULL);
	free(q);
	free(img);
}

TEST(image_roundtrip_random)
{
	uint64_t seed = test_seed() ^ 0x5a5a, s = seed;
	struct drm_ccore_insn p[64], *q = NULL;
	char err[ERR_LEN];
	size_t len, n;
	char *img;

	ccore_test_log("seed %llu", (unsigned long long)seed);
	for (size_t i = 0; i < sizeof(p); i++)
		((unsigned char *)p)[i] = (unsigned char)rng_next(&s);
	img = image_bytes(p, 64, &len);
	ASSERT_EQ(ccas_read_image(img, len, &q, &n, err, sizeof(err)), 0);
	ASSERT_EQ(n, 64);
	ASSERT_MEM_EQ(p, q, sizeof(p));
	free(q);
	free(img);
}

/*
 * Read the first @len bytes of a valid two-instruction image (48 bytes,
 * followed by 16 zero bytes) with byte @off replaced by @val.
 */
static int read_patched(size_t off, unsigned char val, size_t len,
			char *err, size_t errlen)
{
	struct drm_ccore_insn p[2] = { { .opcode = DRM_CCORE_OP_NOP } };
	struct drm_ccore_insn *q = NULL;
	size_t img_len, n = 77;
	char *img = image_bytes(p, 2, &img_len);
	int ret;

	ASSERT_EQ(img_len, 48);
	img = realloc(img, 64);
	ASSERT_TRUE(img != NULL);
	memset(img + 48, 0, 16);
	img[off] = (char)val;
	ret = ccas_read_image(img, len, &q, &n, err, errlen);
	free(img);
	if (ret) {
		/* A rejected image leaves the outputs alone. */
		ASSERT_TRUE(q == NULL);
		ASSERT_EQ(n, 77);
	}
	free(q);
	return ret;
}

TEST(image_rejects)
{
	/* byte @off of the image set to @val, its first @len bytes read: @err */
	static const struct {
		size_t off;
		unsigned char val;
		size_t len;
		const char *err;
	} cases[] = {
		{ 0, 'X', 48, "bad magic 'XCPG', expected 'CCPG'" },
		{ 1, 0x7f, 48, "bad magic 'C\\x7fPG'" },
		{ 4, 2, 48, "unsupported image version 2, expected 1" },
		{ 14, 1, 48, "reserved header field is 0x10000, must be zero" },
		/* count says 3, two instructions follow */
		{ 8, 3, 48, "truncated image: header says 3 instructions (64 bytes), file has 48 bytes" },
		/* count says 1, two instructions follow */
		{ 8, 1, 48, "size mismatch: header says 1 instructions (32 bytes), file has 16 extra bytes" },
		/* count 0xff000002 must not overflow the size computation */
		{ 11, 0xff, 48, "truncated image: header says 4278190082 instructions" },
		/* trailing bytes after the instructions */
		{ 0, 'C', 49, "file has 1 extra bytes" },
		{ 0, 'C', 64, "file has 16 extra bytes" },
		/* the last byte missing */
		{ 0, 'C', 47, "truncated image: header says 2 instructions (48 bytes), file has 47 bytes" },
	};
	char err[ERR_LEN];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = read_patched(cases[i].off, cases[i].val, cases[i].len, err, sizeof(err));

		if (rc != -EINVAL)
			FAIL("byte %zu = %#x, %zu bytes read: got %d, want -EINVAL (%s)", cases[i].off,
			     cases[i].val, cases[i].len, rc, cases[i].err);
		ASSERT_STR_CONTAINS(err, cases[i].err);
	}
	/* the untouched image is fine */
	ASSERT_EQ(read_patched(0, 'C', 48, err, sizeof(err)), 0);
}

TEST(image_rejects_short_header)
{
	struct drm_ccore_insn *q = NULL;
	char err[ERR_LEN];
	size_t n;

	ASSERT_EQ(ccas_read_image("CCPG\1\0\0", 7, &q, &n, err, sizeof(err)),
		  -EINVAL);
	ASSERT_STR_CONTAINS(err, "truncated image: 7 bytes, a header alone is 16");
	ASSERT_EQ(ccas_read_image(NULL, 0, &q, &n, err, sizeof(err)), -EINVAL);
	ASSERT_STR_CONTAINS(err, "truncated image: 0 bytes");
	ASSERT_EQ(ccas_read_image(NULL, 0, &q, &n, NULL, 0), -EINVAL);
}

TEST(image_write_limits)
{
	FILE *f = fopen("/dev/full", "wb");
	struct drm_ccore_insn in = { 0 };

	if (!f)
		ccore_test_skip("no /dev/full");
	setvbuf(f, NULL, _IONBF, 0);	/* surface the error at fwrite() */
	ASSERT_EQ(ccas_write_image(f, &in, 1), -EIO);
	fclose(f);
	if (sizeof(size_t) > 4)
		ASSERT_EQ(ccas_write_image(stdout, &in,
					   (size_t)UINT32_MAX + 1), -EINVAL);
}
