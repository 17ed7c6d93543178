// SPDX-License-Identifier: MIT
/*
 * Writing an executable as .cce bytes, in the one canonical layout the
 * loader accepts: header, section table, then the six sections in order,
 * each at the next multiple of 8, zero padding, nothing after the last.
 * The string table holds each name once, in order of first use (tensors,
 * then collectives), after a leading NUL.
 */
#include "exec/exe.h"
#include "exec/exe_format.h"
#include "exec/exe_names_index.h"
#include "ccore_internal.h"

#include <stdlib.h>
#include <string.h>

struct strtab {
	uint32_t *tensor_off, *coll_off;
	uint64_t bytes;
};

static int build_strtab(const struct ccore_exe *exe, struct strtab *st)
{
	struct exe_name_ref *refs;

	st->tensor_off = malloc(sizeof(uint32_t) * (exe->ntensors + 1));
	st->coll_off = malloc(sizeof(uint32_t) * (exe->ncolls + 1));
	if (!st->tensor_off || !st->coll_off)
		return ccore_error(-ENOMEM, "save: out of memory");
	st->bytes = 1;
	for (uint32_t i = 0; i < exe->ntensors; i++) {
		st->tensor_off[i] = (uint32_t)st->bytes;
		st->bytes += strlen(exe->tensors[i].name) + 1;
	}
	refs = exe_names_sort(exe->ntensors ? exe->tensors[0].name : "", sizeof(exe->tensors[0]),
			      exe->ntensors);
	if (!refs)
		return ccore_error(-ENOMEM, "save: out of memory");
	for (uint32_t i = 0; i < exe->ncolls; i++) {
		uint32_t j = exe_names_find(refs, exe->ntensors, exe->colls[i].name);

		if (j != UINT32_MAX) {
			st->coll_off[i] = st->tensor_off[j];
		} else {
			st->coll_off[i] = (uint32_t)st->bytes;
			st->bytes += strlen(exe->colls[i].name) + 1;
		}
	}
	free(refs);
	return 0;
}

static void put_section(uint8_t *p, uint32_t type, uint64_t off, uint64_t bytes, uint32_t entsize)
{
	cce_put32(p + CCE_SEC_TYPE, type);
	cce_put64(p + CCE_SEC_OFFSET, off);
	cce_put64(p + CCE_SEC_BYTES, bytes);
	cce_put32(p + CCE_SEC_COUNT, (uint32_t)(bytes / entsize));
	cce_put32(p + CCE_SEC_ENTSIZE, entsize);
}

static void put_insn(uint8_t *p, const struct ccore_exe_insn *in)
{
	cce_put32(p + CCE_INS_OP, in->op);
	switch (in->op) {
	case CCORE_EXE_COMPUTE:
		cce_put64(p + CCE_INS_X, in->duration_ns);
		break;
	case CCORE_EXE_DMA:
		cce_put32(p + CCE_INS_A, in->src);
		cce_put32(p + CCE_INS_B, in->dst);
		cce_put64(p + CCE_INS_X, in->src_offset);
		cce_put64(p + CCE_INS_Y, in->dst_offset);
		cce_put64(p + CCE_INS_Z, in->bytes);
		break;
	default:
		cce_put32(p + CCE_INS_A, in->coll);
		break;
	}
}

int ccore_exe_save(const struct ccore_exe *exe, void **buf, size_t *len)
{
	struct strtab st = { 0 };
	uint64_t ngroup = 0, ninsn = 0, size[CCE_NSECTIONS], off[CCE_NSECTIONS], end;
	static const uint32_t entsize[CCE_NSECTIONS] = {
		1, CCE_TEN_SIZE, CCE_COL_SIZE, CCE_GRP_SIZE, CCE_RNK_SIZE, CCE_INS_SIZE,
	};
	uint8_t *b, *p;
	int rc;

	*buf = NULL;
	*len = 0;
	rc = ccore_exe_validate(exe, NULL);
	if (rc)
		return rc;
	rc = build_strtab(exe, &st);
	if (rc)
		goto out;
	for (uint32_t i = 0; i < exe->ncolls; i++)
		ngroup += (uint64_t)exe->colls[i].group_count * exe->colls[i].group_size;
	for (uint32_t r = 0; r < exe->nranks; r++)
		ninsn += exe->ranks[r].ninsns;
	size[0] = st.bytes;
	size[1] = (uint64_t)exe->ntensors * CCE_TEN_SIZE;
	size[2] = (uint64_t)exe->ncolls * CCE_COL_SIZE;
	size[3] = ngroup * CCE_GRP_SIZE;
	size[4] = (uint64_t)exe->nranks * CCE_RNK_SIZE;
	size[5] = ninsn * CCE_INS_SIZE;
	end = CCE_HDR_SIZE + CCE_NSECTIONS * CCE_SEC_SIZE;
	for (int i = 0; i < CCE_NSECTIONS; i++) {
		off[i] = cce_align8(end);
		end = off[i] + size[i];
	}
	if (ngroup > UINT32_MAX || ninsn > UINT32_MAX || end > SIZE_MAX) {
		rc = ccore_error(-E2BIG, "save: the executable is too large for the format (%llu group ranks, %llu instructions)",
				 (unsigned long long)ngroup, (unsigned long long)ninsn);
		goto out;
	}
	b = calloc(1, (size_t)end);
	if (!b) {
		rc = ccore_error(-ENOMEM, "save: out of memory for %llu bytes", (unsigned long long)end);
		goto out;
	}
	memcpy(b + CCE_HDR_MAGIC, CCE_MAGIC, CCE_MAGIC_LEN);
	cce_put16(b + CCE_HDR_VMAJOR, CCORE_EXE_VERSION_MAJOR);
	cce_put16(b + CCE_HDR_VMINOR, CCORE_EXE_VERSION_MINOR);
	cce_put32(b + CCE_HDR_HDRSIZE, CCE_HDR_SIZE);
	cce_put32(b + CCE_HDR_NRANKS, exe->nranks);
	cce_put32(b + CCE_HDR_NODES, exe->topo.nodes);
	cce_put32(b + CCE_HDR_DEVICES, exe->topo.devices_per_node);
	cce_put32(b + CCE_HDR_RPD, exe->topo.ranks_per_device);
	cce_put32(b + CCE_HDR_NSECTIONS, CCE_NSECTIONS);
	cce_put64(b + CCE_HDR_SECTAB, CCE_HDR_SIZE);
	cce_put64(b + CCE_HDR_FILESIZE, end);
	for (int i = 0; i < CCE_NSECTIONS; i++)
		put_section(b + CCE_HDR_SIZE + i * CCE_SEC_SIZE, (uint32_t)i + 1, off[i], size[i],
			    entsize[i]);

	p = b + off[0] + 1;
	for (uint32_t i = 0; i < exe->ntensors; i++) {
		size_t n = strlen(exe->tensors[i].name) + 1;

		memcpy(p, exe->tensors[i].name, n);
		p += n;
	}
	for (uint32_t i = 0; i < exe->ncolls; i++) {
		size_t n = strlen(exe->colls[i].name) + 1;

		if (st.coll_off[i] == (uint64_t)(p - (b + off[0]))) {
			memcpy(p, exe->colls[i].name, n);
			p += n;
		}
	}
	for (uint32_t i = 0; i < exe->ntensors; i++) {
		const struct ccore_exe_tensor *t = &exe->tensors[i];

		p = b + off[1] + (uint64_t)i * CCE_TEN_SIZE;
		cce_put32(p + CCE_TEN_NAME, st.tensor_off[i]);
		cce_put32(p + CCE_TEN_INIT, t->init);
		cce_put32(p + CCE_TEN_DTYPE, t->dtype);
		cce_put32(p + CCE_TEN_REDOP, t->redop);
		cce_put64(p + CCE_TEN_BYTES, t->bytes);
	}
	ngroup = 0;
	for (uint32_t i = 0; i < exe->ncolls; i++) {
		const struct ccore_exe_coll *c = &exe->colls[i];
		uint64_t n = (uint64_t)c->group_count * c->group_size;

		p = b + off[2] + (uint64_t)i * CCE_COL_SIZE;
		cce_put32(p + CCE_COL_NAME, st.coll_off[i]);
		cce_put32(p + CCE_COL_OP, c->op);
		cce_put32(p + CCE_COL_DTYPE, c->dtype);
		cce_put32(p + CCE_COL_REDOP, c->redop);
		cce_put64(p + CCE_COL_COUNT, c->count);
		cce_put32(p + CCE_COL_ROOT, c->root);
		cce_put32(p + CCE_COL_STREAM, c->stream);
		cce_put32(p + CCE_COL_SEND, c->send);
		cce_put32(p + CCE_COL_RECV, c->recv);
		cce_put64(p + CCE_COL_SENDOFF, c->send_offset);
		cce_put64(p + CCE_COL_RECVOFF, c->recv_offset);
		cce_put32(p + CCE_COL_NGROUPS, c->group_count);
		cce_put32(p + CCE_COL_GROUPSIZE, c->group_size);
		cce_put32(p + CCE_COL_FIRSTRANK, (uint32_t)ngroup);
		for (uint64_t k = 0; k < n; k++)
			cce_put32(b + off[3] + (ngroup + k) * CCE_GRP_SIZE, c->ranks[k]);
		ngroup += n;
	}
	ninsn = 0;
	for (uint32_t r = 0; r < exe->nranks; r++) {
		const struct ccore_exe_rank *rk = &exe->ranks[r];

		p = b + off[4] + (uint64_t)r * CCE_RNK_SIZE;
		cce_put32(p + CCE_RNK_FIRST, (uint32_t)ninsn);
		cce_put32(p + CCE_RNK_COUNT, rk->ninsns);
		for (uint32_t k = 0; k < rk->ninsns; k++)
			put_insn(b + off[5] + (ninsn + k) * CCE_INS_SIZE, &rk->insns[k]);
		ninsn += rk->ninsns;
	}
	*buf = b;
	*len = (size_t)end;
out:
	free(st.tensor_off);
	free(st.coll_off);
	return rc;
}
