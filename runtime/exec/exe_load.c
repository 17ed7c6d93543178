// SPDX-License-Identifier: MIT
/*
 * Reading .cce bytes into an executable: the header, the section table and
 * every entry are bounds checked before they are read (all sizes in 64-bit
 * arithmetic, each bounded before it is added to or multiplied), then the
 * result must pass ccore_exe_validate() and be in the canonical form
 * ccore_exe_save() writes.
 */
#include "exec/exe.h"
#include "exec/exe_format.h"
#include "ccore_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const section_names[CCE_NSECTIONS + 1] = {
	[CCE_SEC_STRINGS] = "strings", [CCE_SEC_TENSORS] = "tensors",
	[CCE_SEC_COLLS] = "collectives", [CCE_SEC_GROUPS] = "groups",
	[CCE_SEC_RANKS] = "ranks", [CCE_SEC_CODE] = "code",
};

static const uint32_t entry_sizes[CCE_NSECTIONS + 1] = {
	[CCE_SEC_STRINGS] = 1, [CCE_SEC_TENSORS] = CCE_TEN_SIZE,
	[CCE_SEC_COLLS] = CCE_COL_SIZE, [CCE_SEC_GROUPS] = CCE_GRP_SIZE,
	[CCE_SEC_RANKS] = CCE_RNK_SIZE, [CCE_SEC_CODE] = CCE_INS_SIZE,
};

struct section {
	const uint8_t *p;
	uint64_t bytes;
	uint32_t count;
};

struct loader {
	const uint8_t *b;
	size_t len;
	struct section sec[CCE_NSECTIONS + 1];
};

static int check_header(const uint8_t *b, size_t len)
{
	uint32_t major, minor;

	if (len < CCE_HDR_SIZE)
		return ccore_error(-EINVAL, "executable: %zu bytes is too short; the header alone is %u bytes",
				   len, CCE_HDR_SIZE);
	if (memcmp(b + CCE_HDR_MAGIC, CCE_MAGIC, CCE_MAGIC_LEN))
		return ccore_error(-EINVAL, "executable: bad magic; a ccore executable starts with \"%s\"",
				   CCE_MAGIC);
	major = cce_get16(b + CCE_HDR_VMAJOR);
	minor = cce_get16(b + CCE_HDR_VMINOR);
	if (major != CCORE_EXE_VERSION_MAJOR || minor > CCORE_EXE_VERSION_MINOR)
		return ccore_error(-EINVAL, "executable: header version %u.%u; this loader reads %u.0 to %u.%u",
				   major, minor, CCORE_EXE_VERSION_MAJOR, CCORE_EXE_VERSION_MAJOR,
				   CCORE_EXE_VERSION_MINOR);
	if (cce_get32(b + CCE_HDR_HDRSIZE) != CCE_HDR_SIZE)
		return ccore_error(-EINVAL, "executable: header size %u; allowed %u",
				   cce_get32(b + CCE_HDR_HDRSIZE), CCE_HDR_SIZE);
	if (cce_get32(b + CCE_HDR_FLAGS) || cce_get64(b + CCE_HDR_RESERVED))
		return ccore_error(-EINVAL, "executable: header flags 0x%x and reserved 0x%llx; both must be 0",
				   cce_get32(b + CCE_HDR_FLAGS),
				   (unsigned long long)cce_get64(b + CCE_HDR_RESERVED));
	if (cce_get64(b + CCE_HDR_FILESIZE) != len)
		return ccore_error(-EINVAL, "executable: header file size %llu, but there are %zu bytes",
				   (unsigned long long)cce_get64(b + CCE_HDR_FILESIZE), len);
	if (cce_get32(b + CCE_HDR_NSECTIONS) != CCE_NSECTIONS)
		return ccore_error(-EINVAL, "executable: header section count %u; allowed %u",
				   cce_get32(b + CCE_HDR_NSECTIONS), CCE_NSECTIONS);
	if (cce_get64(b + CCE_HDR_SECTAB) != CCE_HDR_SIZE)
		return ccore_error(-EINVAL, "executable: section table offset %llu; allowed %u (right after the header)",
				   (unsigned long long)cce_get64(b + CCE_HDR_SECTAB), CCE_HDR_SIZE);
	if (len < CCE_HDR_SIZE + CCE_NSECTIONS * CCE_SEC_SIZE)
		return ccore_error(-EINVAL, "executable: %zu bytes is too short for the header and the section table (%u bytes)",
				   len, CCE_HDR_SIZE + CCE_NSECTIONS * CCE_SEC_SIZE);
	return 0;
}

/* Sections in type order, each at the next multiple of 8 after the last. */
static int read_sections(struct loader *l)
{
	uint64_t end = CCE_HDR_SIZE + CCE_NSECTIONS * CCE_SEC_SIZE;

	for (uint32_t i = 1; i <= CCE_NSECTIONS; i++) {
		const uint8_t *e = l->b + CCE_HDR_SIZE + (i - 1) * CCE_SEC_SIZE;
		uint64_t off = cce_get64(e + CCE_SEC_OFFSET), bytes = cce_get64(e + CCE_SEC_BYTES);
		uint32_t count = cce_get32(e + CCE_SEC_COUNT), esz = cce_get32(e + CCE_SEC_ENTSIZE);
		const char *name = section_names[i];

		if (cce_get32(e + CCE_SEC_TYPE) != i)
			return ccore_error(-EINVAL, "section table entry %u: type %u; allowed %u (%s): the six sections come once each, in type order",
					   i - 1, cce_get32(e + CCE_SEC_TYPE), i, name);
		if (cce_get32(e + CCE_SEC_FLAGS))
			return ccore_error(-EINVAL, "section %u (%s): flags 0x%x; must be 0", i, name,
					   cce_get32(e + CCE_SEC_FLAGS));
		if (esz != entry_sizes[i])
			return ccore_error(-EINVAL, "section %u (%s): entry size %u; allowed %u", i, name,
					   esz, entry_sizes[i]);
		if (bytes % esz || bytes / esz != count)
			return ccore_error(-EINVAL, "section %u (%s): %llu bytes is not %u entries of %u bytes",
					   i, name, (unsigned long long)bytes, count, esz);
		if (off != cce_align8(end))
			return ccore_error(-EINVAL, "section %u (%s): offset %llu; allowed %llu (the next multiple of 8 after the previous section: no gaps or overlaps)",
					   i, name, (unsigned long long)off,
					   (unsigned long long)cce_align8(end));
		if (off > l->len || bytes > l->len - off)
			return ccore_error(-EINVAL, "section %u (%s): offset %llu + %llu bytes runs past the end of the file (%zu bytes)",
					   i, name, (unsigned long long)off, (unsigned long long)bytes,
					   l->len);
		for (uint64_t k = end; k < off; k++)
			if (l->b[k])
				return ccore_error(-EINVAL, "section %u (%s): padding byte at %llu is 0x%02x; padding must be 0",
						   i, name, (unsigned long long)k, l->b[k]);
		l->sec[i] = (struct section){ l->b + off, bytes, count };
		end = off + bytes;
	}
	if (end != l->len)
		return ccore_error(-EINVAL, "executable: %llu trailing bytes after the last section (at %llu); allowed none",
				   (unsigned long long)(l->len - end), (unsigned long long)end);
	return 0;
}

/* Copy string @off of the string table into @name[CCORE_EXE_NAME_MAX + 1]. */
static int read_name(const struct loader *l, uint32_t off, char *name, const char *what,
		     uint32_t index)
{
	const struct section *s = &l->sec[CCE_SEC_STRINGS];
	size_t n;

	if (off == 0 || off >= s->bytes)
		return ccore_error(-EINVAL, "%s %u: name offset %u; allowed 1..%llu (inside the string table)",
				   what, index, off, (unsigned long long)(s->bytes ? s->bytes - 1 : 0));
	n = strnlen((const char *)s->p + off, s->bytes - off);
	if (n > CCORE_EXE_NAME_MAX)
		return ccore_error(-EINVAL, "%s %u: name at string offset %u is %zu bytes long; allowed 1..%u",
				   what, index, off, n, CCORE_EXE_NAME_MAX);
	memcpy(name, s->p + off, n);
	name[n] = 0;
	return 0;
}

static int check_strings(const struct loader *l)
{
	const struct section *s = &l->sec[CCE_SEC_STRINGS];

	if (s->bytes == 0 || s->p[0] || s->p[s->bytes - 1])
		return ccore_error(-EINVAL, "section 1 (strings): must start and end with a NUL byte");
	return 0;
}

/*
 * The array for section @sec's entries (@what: "tensors"), at most @max of
 * @size bytes each, with room for one more: *@arr and its capacity *@cap.
 */
static int section_array(const struct loader *l, uint32_t sec, const char *what, uint32_t max,
			 size_t size, void **arr, uint32_t *cap)
{
	uint32_t n = l->sec[sec].count;

	if (n > max)
		return ccore_error(-EINVAL, "section %u (%s): %u %s; allowed at most %u", sec, what,
				   n, what, max);
	*arr = calloc(n + 1, size);
	if (!*arr)
		return ccore_error(-ENOMEM, "executable: out of memory for %u %s", n, what);
	*cap = n + 1;
	return 0;
}

static int read_tensors(const struct loader *l, struct ccore_exe *exe)
{
	const struct section *s = &l->sec[CCE_SEC_TENSORS];
	int rc = section_array(l, CCE_SEC_TENSORS, "tensors", CCORE_EXE_MAX_TENSORS,
			       sizeof(*exe->tensors), (void **)&exe->tensors, &exe->tensors_cap);

	if (rc)
		return rc;
	for (uint32_t i = 0; i < s->count; i++) {
		const uint8_t *p = s->p + (uint64_t)i * CCE_TEN_SIZE;
		struct ccore_exe_tensor *t = &exe->tensors[i];

		rc = read_name(l, cce_get32(p + CCE_TEN_NAME), t->name, "tensor", i);
		if (rc)
			return rc;
		t->init = cce_get32(p + CCE_TEN_INIT);
		t->dtype = cce_get32(p + CCE_TEN_DTYPE);
		t->redop = cce_get32(p + CCE_TEN_REDOP);
		t->bytes = cce_get64(p + CCE_TEN_BYTES);
		exe->ntensors++;
	}
	return 0;
}

static int read_colls(const struct loader *l, struct ccore_exe *exe)
{
	const struct section *s = &l->sec[CCE_SEC_COLLS], *g = &l->sec[CCE_SEC_GROUPS];
	uint64_t next = 0;
	int rc = section_array(l, CCE_SEC_COLLS, "collectives", CCORE_EXE_MAX_COLLS,
			       sizeof(*exe->colls), (void **)&exe->colls, &exe->colls_cap);

	if (rc)
		return rc;
	for (uint32_t i = 0; i < s->count; i++) {
		const uint8_t *p = s->p + (uint64_t)i * CCE_COL_SIZE;
		struct ccore_exe_coll *c = &exe->colls[i];
		uint32_t first = cce_get32(p + CCE_COL_FIRSTRANK);
		uint64_t n;

		rc = read_name(l, cce_get32(p + CCE_COL_NAME), c->name, "collective", i);
		if (rc)
			return rc;
		c->op = cce_get32(p + CCE_COL_OP);
		c->dtype = cce_get32(p + CCE_COL_DTYPE);
		c->redop = cce_get32(p + CCE_COL_REDOP);
		c->count = cce_get64(p + CCE_COL_COUNT);
		c->root = cce_get32(p + CCE_COL_ROOT);
		c->stream = cce_get32(p + CCE_COL_STREAM);
		c->send = cce_get32(p + CCE_COL_SEND);
		c->recv = cce_get32(p + CCE_COL_RECV);
		c->send_offset = cce_get64(p + CCE_COL_SENDOFF);
		c->recv_offset = cce_get64(p + CCE_COL_RECVOFF);
		c->group_count = cce_get32(p + CCE_COL_NGROUPS);
		c->group_size = cce_get32(p + CCE_COL_GROUPSIZE);
		if (cce_get32(p + CCE_COL_RESERVED))
			return ccore_error(-EINVAL, "collective %u (%s): reserved field 0x%x; must be 0",
					   i, c->name, cce_get32(p + CCE_COL_RESERVED));
		n = (uint64_t)c->group_count * c->group_size;
		if (first != next)
			return ccore_error(-EINVAL, "collective %u (%s): first group rank %u; allowed %llu (groups are stored in collective order)",
					   i, c->name, first, (unsigned long long)next);
		if (n > exe->nranks || n > g->count - next)
			return ccore_error(-EINVAL, "collective %u (%s): %u groups of %u ranks; allowed %u ranks in all at most, and %llu left in the groups section",
					   i, c->name, c->group_count, c->group_size, exe->nranks,
					   (unsigned long long)(g->count - next));
		c->ranks = malloc(n ? n * sizeof(uint32_t) : 1);
		if (!c->ranks)
			return ccore_error(-ENOMEM, "executable: out of memory");
		exe->ncolls++;
		for (uint64_t k = 0; k < n; k++)
			c->ranks[k] = cce_get32(g->p + (next + k) * CCE_GRP_SIZE);
		next += n;
	}
	if (next != g->count)
		return ccore_error(-EINVAL, "section 4 (groups): %u ranks, the collectives use %llu; allowed no unused entries",
				   g->count, (unsigned long long)next);
	return 0;
}

static int read_insn(const uint8_t *p, struct ccore_exe_insn *in, uint32_t r, uint32_t k)
{
	uint32_t a = cce_get32(p + CCE_INS_A), b = cce_get32(p + CCE_INS_B);
	uint64_t x = cce_get64(p + CCE_INS_X), y = cce_get64(p + CCE_INS_Y);
	uint64_t z = cce_get64(p + CCE_INS_Z);
	int unused;

	in->op = cce_get32(p + CCE_INS_OP);
	switch (in->op) {
	case CCORE_EXE_COMPUTE:
		in->duration_ns = x;
		unused = a || b || y || z;
		break;
	case CCORE_EXE_DMA:
		in->src = a;
		in->dst = b;
		in->src_offset = x;
		in->dst_offset = y;
		in->bytes = z;
		unused = 0;
		break;
	case CCORE_EXE_TRIGGER:
	case CCORE_EXE_WAIT:
		in->coll = a;
		unused = b || x || y || z;
		break;
	default:
		return ccore_error(-EINVAL, "rank %u instruction %u: op %u; allowed 1..4 (compute, dma, trigger, wait)",
				   r, k, in->op);
	}
	if (unused || cce_get32(p + CCE_INS_RESERVED))
		return ccore_error(-EINVAL, "rank %u instruction %u (%s): a field it does not use is not 0",
				   r, k, ccore_exe_insn_name(in->op));
	return 0;
}

static int read_code(const struct loader *l, struct ccore_exe *exe)
{
	const struct section *rs = &l->sec[CCE_SEC_RANKS], *cs = &l->sec[CCE_SEC_CODE];
	uint64_t next = 0;

	if (rs->count != exe->nranks)
		return ccore_error(-EINVAL, "section 5 (ranks): %u entries; allowed %u (one per rank)",
				   rs->count, exe->nranks);
	for (uint32_t r = 0; r < exe->nranks; r++) {
		const uint8_t *p = rs->p + (uint64_t)r * CCE_RNK_SIZE;
		uint32_t first = cce_get32(p + CCE_RNK_FIRST), n = cce_get32(p + CCE_RNK_COUNT);
		struct ccore_exe_rank *rk = &exe->ranks[r];

		if (first != next)
			return ccore_error(-EINVAL, "rank %u: first instruction %u; allowed %llu (ranks' instructions are stored in rank order)",
					   r, first, (unsigned long long)next);
		if (n > CCORE_EXE_MAX_INSNS || n > cs->count - next)
			return ccore_error(-EINVAL, "rank %u: %u instructions; allowed at most %u, and %llu left in the code section",
					   r, n, CCORE_EXE_MAX_INSNS, (unsigned long long)(cs->count - next));
		rk->insns = calloc(n + 1, sizeof(*rk->insns));
		if (!rk->insns)
			return ccore_error(-ENOMEM, "executable: out of memory for %u instructions", n);
		rk->cap = n + 1;
		for (uint32_t k = 0; k < n; k++) {
			int rc = read_insn(cs->p + (next + k) * CCE_INS_SIZE, &rk->insns[k], r, k);

			if (rc)
				return rc;
			rk->ninsns++;
		}
		next += n;
	}
	if (next != cs->count)
		return ccore_error(-EINVAL, "section 6 (code): %u instructions, the ranks use %llu; allowed no unused entries",
				   cs->count, (unsigned long long)next);
	return 0;
}

/* Everything else is fixed by the rules; the string table must be as saved. */
static int check_canonical(const struct loader *l, const struct ccore_exe *exe)
{
	void *buf;
	size_t len;
	int rc = ccore_exe_save(exe, &buf, &len);

	if (rc)
		return rc;
	if (len != l->len || memcmp(buf, l->b, len)) {
		size_t i = 0;

		while (i < len && i < l->len && ((uint8_t *)buf)[i] == l->b[i])
			i++;
		rc = ccore_error(-EINVAL, "executable: not in canonical form from byte %zu: the string table holds each name once, in order of first use (tensors, then collectives)",
				 i);
	}
	free(buf);
	return rc;
}

int ccore_exe_load(const void *buf, size_t len, struct ccore_exe **out)
{
	struct loader l = { .b = buf, .len = len };
	struct ccore_topology topo;
	struct ccore_exe *exe = NULL;
	uint32_t nranks;
	int rc;

	*out = NULL;
	rc = check_header(l.b, len);
	if (!rc)
		rc = read_sections(&l);
	if (rc)
		return rc;
	topo.nodes = cce_get32(l.b + CCE_HDR_NODES);
	topo.devices_per_node = cce_get32(l.b + CCE_HDR_DEVICES);
	topo.ranks_per_device = cce_get32(l.b + CCE_HDR_RPD);
	nranks = cce_get32(l.b + CCE_HDR_NRANKS);
	rc = ccore_exe_new(&topo, &exe);
	if (rc)
		return rc;
	if (nranks != exe->nranks) {
		rc = ccore_error(-EINVAL, "executable: header ranks %u, but %u nodes x %u devices x %u ranks per device is %u",
				 nranks, topo.nodes, topo.devices_per_node, topo.ranks_per_device,
				 exe->nranks);
		goto fail;
	}
	rc = check_strings(&l);
	if (!rc)
		rc = read_tensors(&l, exe);
	if (!rc)
		rc = read_colls(&l, exe);
	if (!rc)
		rc = read_code(&l, exe);
	if (!rc)
		rc = check_canonical(&l, exe);	/* validates, through the saver */
	if (rc)
		goto fail;
	*out = exe;
	return 0;
fail:
	ccore_exe_free(exe);
	return rc;
}
