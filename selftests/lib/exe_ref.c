// SPDX-License-Identifier: GPL-2.0
/*
 * The reference run of an executable, on the host: what every rank's
 * tensors must hold after a step.  Ranks run their instruction streams in
 * turn; a DMA copies at once, a collective happens when the last member of
 * its group triggers it (from the send buffers as they are then), and a
 * wait blocks until that has happened.  A program that reads a buffer a
 * running collective writes (or the other way round) is racy on the device
 * and may differ; the loader does not reject it, tests should not use one.
 */
#include "exe_ref.h"

#include <stdlib.h>
#include <string.h>

#include "ccm.h"
#include "ccore.h"

struct ref {
	const struct ccore_exe *exe;
	uint8_t **t;			/* [rank * ntensors + tensor] */
	uint32_t *pc, *trig;		/* [rank], [rank * ncolls + coll] */
	uint32_t *applied;		/* [coll * nranks + group] */
};

static uint8_t *buf(struct ref *f, uint32_t r, uint32_t t)
{
	return f->t[(size_t)r * f->exe->ntensors + t];
}

/* Reduce the members' @bytes at byte @off of their send buffers into @acc. */
static void reduce(struct ref *f, const struct ccore_exe_coll *c, const uint32_t *m, uint64_t off,
		   uint64_t bytes, uint8_t *acc)
{
	memcpy(acc, buf(f, m[0], c->send) + c->send_offset + off, bytes);
	for (uint32_t j = 1; j < c->group_size; j++)
		ccm_reduce(c->dtype, c->redop, acc, acc, buf(f, m[j], c->send) + c->send_offset + off,
			   bytes);
}

/* One occurrence of @c on group @g: results staged, then written (in place safe). */
static int apply(struct ref *f, const struct ccore_exe_coll *c, uint32_t g)
{
	const uint32_t *m = &c->ranks[(size_t)g * c->group_size];
	uint32_t G = c->group_size;
	uint64_t es = ccore_dtype_size((enum ccore_dtype)c->dtype), cb = c->count * es;
	uint64_t out = ccore_exe_recv_bytes(c);
	uint8_t *stage = calloc(G, out ? out : 1);

	if (!stage || c->redop == ccore_avg) {
		free(stage);
		return -1;
	}
	for (uint32_t i = 0; i < G; i++) {
		uint8_t *o = stage + (size_t)i * out;

		switch (c->op) {
		case ccore_op_allgather:
			for (uint32_t j = 0; j < G; j++)
				memcpy(o + j * cb, buf(f, m[j], c->send) + c->send_offset, cb);
			break;
		case ccore_op_reducescatter:
			reduce(f, c, m, i * cb, cb, o);
			break;
		case ccore_op_allreduce:
		case ccore_op_reduce:
			reduce(f, c, m, 0, cb, o);
			break;
		case ccore_op_alltoall:
			for (uint32_t j = 0; j < G; j++)
				memcpy(o + j * cb, buf(f, m[j], c->send) + c->send_offset + i * cb, cb);
			break;
		default:	/* broadcast, sendrecv: the root's send */
			memcpy(o, buf(f, m[c->root], c->send) + c->send_offset, cb);
			break;
		}
	}
	for (uint32_t i = 0; i < G; i++) {
		bool writes = !((c->op == ccore_op_reduce && i != c->root) ||
				(c->op == ccore_op_sendrecv && i == c->root));

		if (writes)
			memcpy(buf(f, m[i], c->recv) + c->recv_offset, stage + (size_t)i * out, out);
	}
	free(stage);
	return 0;
}

/* Run occurrences of @c on @r's group while every member has triggered one. */
static int settle(struct ref *f, uint32_t r, uint32_t ci)
{
	const struct ccore_exe_coll *c = &f->exe->colls[ci];
	uint32_t pos, n = f->exe->nranks, nc = f->exe->ncolls;
	int g = ccore_exe_group_of(c, r, &pos);
	uint32_t *done;

	if (g < 0)
		return -1;
	done = &f->applied[(size_t)ci * n + (uint32_t)g];
	for (;;) {
		for (uint32_t i = 0; i < c->group_size; i++)
			if (f->trig[(size_t)c->ranks[(size_t)g * c->group_size + i] * nc + ci] <= *done)
				return 0;
		if (apply(f, c, (uint32_t)g))
			return -1;
		(*done)++;
	}
}

/* Run rank @r until it blocks or ends; 1 if it moved. */
static int step_rank(struct ref *f, uint32_t r, int *rc)
{
	const struct ccore_exe_rank *er = &f->exe->ranks[r];
	uint32_t n = f->exe->nranks, nc = f->exe->ncolls, pos;
	int moved = 0;

	while (f->pc[r] < er->ninsns && !*rc) {
		const struct ccore_exe_insn *in = &er->insns[f->pc[r]];
		int g;

		if (in->op == CCORE_EXE_DMA) {
			memmove(buf(f, r, in->dst) + in->dst_offset, buf(f, r, in->src) + in->src_offset,
				in->bytes);
		} else if (in->op == CCORE_EXE_TRIGGER) {
			f->trig[(size_t)r * nc + in->coll]++;
			*rc = settle(f, r, in->coll);
		} else if (in->op == CCORE_EXE_WAIT) {
			g = ccore_exe_group_of(&f->exe->colls[in->coll], r, &pos);
			if (g < 0 || f->applied[(size_t)in->coll * n + (uint32_t)g] <
				     f->trig[(size_t)r * nc + in->coll])
				break;
		}
		f->pc[r]++;
		moved = 1;
	}
	return moved;
}

uint8_t **exe_ref_run(const struct ccore_exe *exe)
{
	struct ref f = { .exe = exe };
	uint32_t n = exe->nranks, nc = exe->ncolls;
	bool progress = true, left = true;
	int rc = 0;

	f.t = calloc((size_t)n * (exe->ntensors ? exe->ntensors : 1), sizeof(*f.t));
	f.pc = calloc(n, sizeof(*f.pc));
	f.trig = calloc((size_t)n * (nc ? nc : 1), sizeof(*f.trig));
	f.applied = calloc((size_t)n * (nc ? nc : 1), sizeof(*f.applied));
	if (!f.t || !f.pc || !f.trig || !f.applied)
		rc = -1;
	for (uint32_t r = 0; r < n && !rc; r++)
		for (uint32_t t = 0; t < exe->ntensors && !rc; t++) {
			uint8_t *b = malloc(exe->tensors[t].bytes ? exe->tensors[t].bytes : 1);

			f.t[(size_t)r * exe->ntensors + t] = b;
			if (!b)
				rc = -1;
			else
				ccore_exe_fill(&exe->tensors[t], r, b);
		}
	while (!rc && progress && left) {
		progress = false;
		left = false;
		for (uint32_t r = 0; r < n && !rc; r++) {
			progress |= step_rank(&f, r, &rc) != 0;
			left |= f.pc[r] < exe->ranks[r].ninsns;
		}
	}
	free(f.pc);
	free(f.trig);
	free(f.applied);
	if (rc || left) {	/* out of memory, avg, or a deadlock */
		exe_ref_free(exe, f.t);
		return NULL;
	}
	return f.t;
}

void exe_ref_free(const struct ccore_exe *exe, uint8_t **t)
{
	for (size_t i = 0; t && i < (size_t)exe->nranks * exe->ntensors; i++)
		free(t[i]);
	free(t);
}
