// SPDX-License-Identifier: GPL-2.0
/*
 * The program image file: a 16-byte header, then the instructions.  Every
 * field is serialised byte by byte in little-endian order, so images are
 * the same whatever the host's byte order and struct padding rules.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ccas.h"

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void encode_insn(unsigned char *p, const struct drm_ccore_insn *in)
{
	p[0] = in->opcode;
	p[1] = in->reg;
	p[2] = in->engine;
	p[3] = in->ring;
	put_le32(p + 4, in->sem);
	put_le32(p + 8, in->imm);
	put_le32(p + 12, (uint32_t)in->target);
}

static void decode_insn(struct drm_ccore_insn *in, const unsigned char *p)
{
	uint32_t t = get_le32(p + 12);

	in->opcode = p[0];
	in->reg = p[1];
	in->engine = p[2];
	in->ring = p[3];
	in->sem = get_le32(p + 4);
	in->imm = get_le32(p + 8);
	/* Two's complement without relying on implementation-defined casts. */
	in->target = t <= INT32_MAX ? (__s32)t : (__s32)((int64_t)t - 4294967296LL);
}

int ccas_write_image(FILE *f, const struct drm_ccore_insn *insns, size_t count)
{
	unsigned char buf[CCAS_IMAGE_HEADER_SIZE];

	if (count > UINT32_MAX)
		return -EINVAL;
	memcpy(buf, CCAS_IMAGE_MAGIC, 4);
	put_le32(buf + 4, CCAS_IMAGE_VERSION);
	put_le32(buf + 8, (uint32_t)count);
	put_le32(buf + 12, 0);
	if (fwrite(buf, sizeof(buf), 1, f) != 1)
		return -EIO;
	for (size_t i = 0; i < count; i++) {
		encode_insn(buf, &insns[i]);
		if (fwrite(buf, CCAS_INSN_SIZE, 1, f) != 1)
			return -EIO;
	}
	return 0;
}

static int img_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int img_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The magic as printable text for a message, e.g. "\x7fELF". */
static void show_magic(const unsigned char *m, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < 4 && o < len; i++) {
		if (m[i] >= 0x20 && m[i] < 0x7f && m[i] != '\\')
			o += (size_t)snprintf(buf + o, len - o, "%c", m[i]);
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", m[i]);
	}
}

static int check_header(const unsigned char *p, size_t len, uint32_t *count,
			char *err, size_t errlen)
{
	char magic[20];
	uint64_t need;

	if (len < CCAS_IMAGE_HEADER_SIZE)
		return img_fail(err, errlen,
				"truncated image: %zu bytes, a header alone is %u",
				len, CCAS_IMAGE_HEADER_SIZE);
	if (memcmp(p, CCAS_IMAGE_MAGIC, 4) != 0) {
		show_magic(p, magic, sizeof(magic));
		return img_fail(err, errlen,
				"bad magic '%s', expected '%s': not a CC program image",
				magic, CCAS_IMAGE_MAGIC);
	}
	if (get_le32(p + 4) != CCAS_IMAGE_VERSION)
		return img_fail(err, errlen,
				"unsupported image version %u, expected %u",
				get_le32(p + 4), CCAS_IMAGE_VERSION);
	if (get_le32(p + 12) != 0)
		return img_fail(err, errlen,
				"reserved header field is 0x%x, must be zero",
				get_le32(p + 12));
	*count = get_le32(p + 8);
	need = CCAS_IMAGE_HEADER_SIZE + (uint64_t)*count * CCAS_INSN_SIZE;
	if (len < need)
		return img_fail(err, errlen,
				"truncated image: header says %u instructions (%llu bytes), file has %zu bytes",
				*count, (unsigned long long)need, len);
	if (len > need)
		return img_fail(err, errlen,
				"size mismatch: header says %u instructions (%llu bytes), file has %llu extra bytes",
				*count, (unsigned long long)need,
				(unsigned long long)(len - need));
	return 0;
}

int ccas_read_image(const void *bytes, size_t len,
		    struct drm_ccore_insn **out, size_t *count,
		    char *err, size_t errlen)
{
	const unsigned char *p = bytes;
	struct drm_ccore_insn *insns;
	uint32_t n = 0;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	ret = check_header(p, len, &n, err, errlen);
	if (ret)
		return ret;
	insns = calloc(n ? n : 1, sizeof(*insns));
	if (!insns) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory for %u instructions", n);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		decode_insn(&insns[i],
			    p + CCAS_IMAGE_HEADER_SIZE + (size_t)i * CCAS_INSN_SIZE);
	*out = insns;
	*count = n;
	return 0;
}
