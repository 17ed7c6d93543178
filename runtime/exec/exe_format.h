/* SPDX-License-Identifier: MIT */
/*
 * The .cce byte layout shared by the loader and the saver: offsets of every
 * field, little-endian accessors.  Documentation/executable.rst is the
 * specification; keep the two in step.
 */
#ifndef CCORE_EXE_FORMAT_H
#define CCORE_EXE_FORMAT_H

#include <stdint.h>

#define CCE_MAGIC "CCOREEXE"
#define CCE_MAGIC_LEN 8

/* header */
#define CCE_HDR_SIZE 64
#define CCE_HDR_MAGIC 0
#define CCE_HDR_VMAJOR 8	/* u16 */
#define CCE_HDR_VMINOR 10	/* u16 */
#define CCE_HDR_HDRSIZE 12
#define CCE_HDR_FLAGS 16
#define CCE_HDR_NRANKS 20
#define CCE_HDR_NODES 24
#define CCE_HDR_DEVICES 28
#define CCE_HDR_RPD 32
#define CCE_HDR_NSECTIONS 36
#define CCE_HDR_SECTAB 40	/* u64 */
#define CCE_HDR_FILESIZE 48	/* u64 */
#define CCE_HDR_RESERVED 56	/* u64 */

/* section table entries */
#define CCE_SEC_SIZE 32
#define CCE_SEC_TYPE 0
#define CCE_SEC_FLAGS 4
#define CCE_SEC_OFFSET 8	/* u64 */
#define CCE_SEC_BYTES 16	/* u64 */
#define CCE_SEC_COUNT 24
#define CCE_SEC_ENTSIZE 28

enum cce_section {
	CCE_SEC_STRINGS = 1,
	CCE_SEC_TENSORS = 2,
	CCE_SEC_COLLS = 3,
	CCE_SEC_GROUPS = 4,
	CCE_SEC_RANKS = 5,
	CCE_SEC_CODE = 6,
};
#define CCE_NSECTIONS 6

/* TENSORS entries */
#define CCE_TEN_SIZE 24
#define CCE_TEN_NAME 0
#define CCE_TEN_INIT 4
#define CCE_TEN_DTYPE 8
#define CCE_TEN_REDOP 12
#define CCE_TEN_BYTES 16	/* u64 */

/* COLLECTIVES entries */
#define CCE_COL_SIZE 72
#define CCE_COL_NAME 0
#define CCE_COL_OP 4
#define CCE_COL_DTYPE 8
#define CCE_COL_REDOP 12
#define CCE_COL_COUNT 16	/* u64 */
#define CCE_COL_ROOT 24
#define CCE_COL_STREAM 28
#define CCE_COL_SEND 32
#define CCE_COL_RECV 36
#define CCE_COL_SENDOFF 40	/* u64 */
#define CCE_COL_RECVOFF 48	/* u64 */
#define CCE_COL_NGROUPS 56
#define CCE_COL_GROUPSIZE 60
#define CCE_COL_FIRSTRANK 64
#define CCE_COL_RESERVED 68

/* GROUPS entries: one u32 rank */
#define CCE_GRP_SIZE 4

/* RANKS entries */
#define CCE_RNK_SIZE 8
#define CCE_RNK_FIRST 0
#define CCE_RNK_COUNT 4

/* CODE entries */
#define CCE_INS_SIZE 40
#define CCE_INS_OP 0
#define CCE_INS_A 4		/* TRIGGER, WAIT: collective; DMA: src tensor */
#define CCE_INS_B 8		/* DMA: dst tensor */
#define CCE_INS_RESERVED 12
#define CCE_INS_X 16		/* u64 COMPUTE: duration_ns; DMA: src offset */
#define CCE_INS_Y 24		/* u64 DMA: dst offset */
#define CCE_INS_Z 32		/* u64 DMA: bytes */

static inline uint32_t cce_get16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static inline uint32_t cce_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t cce_get64(const uint8_t *p)
{
	return (uint64_t)cce_get32(p) | (uint64_t)cce_get32(p + 4) << 32;
}

static inline void cce_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void cce_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void cce_put64(uint8_t *p, uint64_t v)
{
	cce_put32(p, (uint32_t)v);
	cce_put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint64_t cce_align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

#endif
