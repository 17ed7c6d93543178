// SPDX-License-Identifier: GPL-2.0
/*
 * Valid hardware formats built from a file's model: DMA descriptors over
 * its buffers and semaphores, and CC programs that wait, loop, call and
 * START its rings.  Valid is the point: the verifier must let them through
 * for the engine, the CC cores and the teardown paths to be fuzzed at all;
 * the callers mutate some afterwards.
 */
#include <string.h>

#include "kfuzz.h"

static const uint32_t dtype_sizes[] = { 0, 1, 1, 4, 4, 8, 8, 2, 2, 4, 8 };

/* Divisors, those that once divided by zero (multiples of 256) included. */
static const uint32_t divisors[] = {
	1, 2, 3, 7, 255, 256, 257, 512, 65535, 65536, 0x7fffffff, 0x80000000u,
};

/*
 * A buffer range of @len bytes that stays inside its buffer at every index
 * of @ring (its addresses move by index * stride); false if none fits.
 */
static bool pick_indexed(struct kf_rng *r, const struct kf_file *f, const struct kf_ring *ring,
			 uint64_t len, __u64 *addr)
{
	uint64_t span = 0, off;
	const struct kf_bo *bo;
	int tries;

	if (ring && ring->index_count > 1) {
		int64_t s = ring->index_stride;

		span = (uint64_t)(ring->index_count - 1) * (uint64_t)(s < 0 ? -s : s);
	}
	for (tries = 0; tries < 4 && f->nbos; tries++) {
		bo = &f->bos[kf_below(r, (uint32_t)f->nbos)];
		if (bo->size < span + len)
			continue;
		off = kf_below(r, (uint32_t)(bo->size - span - len + 1));
		if (ring && ring->index_stride < 0)
			off += span;
		*addr = bo->addr + off;
		return true;
	}
	return false;
}

/* The smallest buffer's size, capped: a length every buffer can hold. */
static uint64_t common_len(struct kf_rng *r, const struct kf_file *f)
{
	uint64_t min = ~0ull;
	int i;

	for (i = 0; i < f->nbos; i++)
		if (f->bos[i].size < min)
			min = f->bos[i].size;
	if (!f->nbos)
		return 64;
	if (min > 16384)
		min = 16384;
	return 1 + kf_below(r, (uint32_t)min);
}

static void gen_data_desc(struct kf_rng *r, const struct kf_file *f, const struct kf_ring *ring,
			  struct drm_ccore_desc *d)
{
	uint32_t pick = kf_below(r, 10), size = 1;
	uint64_t len = common_len(r, f);

	if (pick < 5) {
		d->op = DRM_CCORE_DESC_COPY;
	} else if (pick < 8) {
		d->op = DRM_CCORE_DESC_REDUCE;
		d->dtype = 1 + kf_below(r, 10);
		d->redop = 1 + kf_below(r, 4);
	} else {
		d->op = DRM_CCORE_DESC_DIV;
		d->dtype = 1 + kf_below(r, 10);
		d->value = divisors[kf_below(r, sizeof(divisors) / sizeof(divisors[0]))];
	}
	if (d->dtype) {
		size = dtype_sizes[d->dtype];
		len = len < size ? size : len - len % size;
	}
	d->len = len;
	if (!pick_indexed(r, f, ring, len, &d->dst) || !pick_indexed(r, f, ring, len, &d->src0))
		d->len = 0;	/* nothing fits: let the verifier say so */
	if (d->op == DRM_CCORE_DESC_REDUCE && !pick_indexed(r, f, ring, len, &d->src1))
		d->src1 = 0;
}

/*
 * A COPY into a remote mapping (NIC_REMOTE_MAP): the NIC carries it, so
 * its ring parks until the file takes it; sometimes a REDUCE, which the
 * verifier must refuse (a remote mapping has no bytes here).
 */
static bool gen_remote_desc(struct kf_rng *r, const struct kf_file *f, struct drm_ccore_desc *d)
{
	uint64_t len = 0, src, dst;

	if (!f->nremotes || !kf_chance(r, 25))
		return false;
	if (!kf_pick_range(r, f, &src, &len) || !kf_pick_remote(r, f, &dst, &len))
		return false;
	d->op = kf_chance(r, 90) ? DRM_CCORE_DESC_COPY : DRM_CCORE_DESC_REDUCE;
	if (d->op == DRM_CCORE_DESC_REDUCE) {
		d->dtype = 1;
		d->redop = 1;
		d->src1 = src;
	}
	d->len = len;
	d->src0 = src;
	d->dst = dst;
	return true;
}

/* A semaphore of another host the file may signal (NIC_REMOTE_SEMS), or 0. */
static uint32_t remote_sem(struct kf_rng *r, const struct kf_file *f)
{
	const struct kf_sems *s;

	if (!f->nremote_sems || !kf_chance(r, 40))
		return 0;
	s = &f->remote_sems[kf_below(r, (uint32_t)f->nremote_sems)];
	return s->first + kf_below(r, s->count ? s->count : 1);
}

void kf_gen_descs(struct kf_rng *r, const struct kf_file *f, const struct kf_ring *ring,
		  struct drm_ccore_desc *d, uint32_t n)
{
	uint32_t i, far;

	memset(d, 0, sizeof(*d) * n);
	for (i = 0; i < n; i++) {
		/* another host's semaphore: the write's target, or a signal's */
		far = remote_sem(r, f);
		if (far && kf_chance(r, 50)) {
			d[i].op = DRM_CCORE_DESC_SEM_WRITE;
			d[i].dst = far;
			d[i].value = kf_below(r, 4);
			far = 0;
		} else if (gen_remote_desc(r, f, &d[i])) {
			/* a COPY the NIC carries */
		} else if (kf_chance(r, 20) && f->nsems) {
			d[i].op = DRM_CCORE_DESC_SEM_WRITE;
			d[i].dst = kf_pick_sem(r, f);
			d[i].value = kf_below(r, 4);
			if (kf_chance(r, 30))
				d[i].flags |= DRM_CCORE_DESC_F_SEM_SET;
		} else {
			gen_data_desc(r, f, ring, &d[i]);
		}
		if ((f->nsems || far) && kf_chance(r, 30)) {
			d[i].flags |= DRM_CCORE_DESC_F_SIGNAL;
			d[i].signal_sem = far ? far : kf_pick_sem(r, f);
			d[i].signal_value = 1 + kf_below(r, 3);
		}
	}
}

/* A semaphore of @f on CC core @cc's own core (WAIT, ACQUIRE, BGE), or the trigger. */
static uint32_t local_sem(struct kf_rng *r, const struct kf_file *f, uint32_t cc)
{
	uint32_t core = cc / (f->cc_per_core ? f->cc_per_core : 1);
	int i, start = (int)kf_below(r, (uint32_t)(f->nsems ? f->nsems : 1));

	for (i = 0; i < f->nsems; i++) {
		const struct kf_sems *s = &f->sems[(start + i) % f->nsems];

		if (DRM_CCORE_SEM_REF_CORE(s->first) == core &&
		    DRM_CCORE_SEM_REF_DEV(s->first) == f->dev_index)
			return s->first + kf_below(r, s->count ? s->count : 1);
	}
	return DRM_CCORE_SEM_TRIGGER;
}

/* A ring of @f on @core, or NULL. */
static const struct kf_ring *core_ring(struct kf_rng *r, const struct kf_file *f, uint32_t core,
				       bool indexed)
{
	int i, start = (int)kf_below(r, (uint32_t)(f->nrings ? f->nrings : 1));

	for (i = 0; i < f->nrings; i++) {
		const struct kf_ring *ring = &f->rings_[(start + i) % f->nrings];

		if (ring->core == core && (!indexed || ring->index_count))
			return ring;
	}
	return NULL;
}

uint32_t kf_gen_program(struct kf_rng *r, const struct kf_file *f, uint32_t cc,
			struct drm_ccore_insn *p, uint32_t max)
{
	uint32_t core = cc / (f->cc_per_core ? f->cc_per_core : 1);
	uint32_t n = 0, want = 1 + kf_below(r, max > 16 ? 12 : max - 4);
	const struct kf_ring *ring;

	memset(p, 0, sizeof(*p) * max);
	while (n + 5 < max && n < want) {
		struct drm_ccore_insn *in = &p[n];

		switch (kf_below(r, 13)) {
		case 0:
			in->opcode = DRM_CCORE_OP_NOP;
			n++;
			break;
		case 1:
		case 2:
			in->opcode = kf_chance(r, 50) ? DRM_CCORE_OP_WAIT : DRM_CCORE_OP_ACQUIRE;
			in->sem = local_sem(r, f, cc);
			in->imm = kf_below(r, 2);
			n++;
			break;
		case 3:
			in->opcode = kf_chance(r, 50) ? DRM_CCORE_OP_SET : DRM_CCORE_OP_ADD;
			in->sem = kf_pick_sem(r, f);
			in->imm = kf_below(r, 3);
			n++;
			break;
		case 4:
		case 5:
			ring = core_ring(r, f, core, false);
			if (!ring)
				break;
			in->opcode = DRM_CCORE_OP_START;
			in->engine = (uint8_t)ring->engine;
			in->ring = (uint8_t)ring->ring;
			in->imm = 1 + kf_below(r, ring->size * 2);
			p[n + 1].opcode = DRM_CCORE_OP_RWAIT;
			p[n + 1].engine = in->engine;
			p[n + 1].ring = in->ring;
			n += kf_chance(r, 70) ? 2 : 1;
			break;
		case 6:
			ring = core_ring(r, f, core, true);
			if (!ring)
				break;
			in->opcode = DRM_CCORE_OP_MOVI;
			in->reg = (uint8_t)kf_below(r, DRM_CCORE_NUM_REGS);
			in->imm = kf_below(r, ring->index_count + 1);
			p[n + 1].opcode = DRM_CCORE_OP_STARTI;
			p[n + 1].reg = in->reg;
			p[n + 1].engine = (uint8_t)ring->engine;
			p[n + 1].ring = (uint8_t)ring->ring;
			p[n + 1].imm = 1 + kf_below(r, ring->size);
			n += 2;
			break;
		case 7:	/* MOVI r, k; NOP; LOOP r, -1 */
			in->opcode = DRM_CCORE_OP_MOVI;
			in->reg = (uint8_t)kf_below(r, DRM_CCORE_NUM_REGS);
			in->imm = 1 + kf_below(r, 20);
			p[n + 1].opcode = DRM_CCORE_OP_ADDI;
			/* another register: the loop's count stays small */
			p[n + 1].reg = (uint8_t)((in->reg + 1) % DRM_CCORE_NUM_REGS);
			p[n + 1].imm = (uint32_t)kf_next(r);
			p[n + 2].opcode = DRM_CCORE_OP_LOOP;
			p[n + 2].reg = in->reg;
			p[n + 2].target = -1;
			n += 3;
			break;
		case 8:	/* BGE over the next instruction */
			in->opcode = DRM_CCORE_OP_BGE;
			in->sem = local_sem(r, f, cc);
			in->imm = kf_below(r, 2);
			in->target = 2;
			p[n + 1].opcode = DRM_CCORE_OP_NOTIFY;
			p[n + 1].imm = (uint32_t)kf_next(r);
			n += 2;
			break;
		case 9:	/* CALL +2; JUMP +3; NOTIFY; RET */
			in->opcode = DRM_CCORE_OP_CALL;
			in->target = 2;
			p[n + 1].opcode = DRM_CCORE_OP_JUMP;
			p[n + 1].target = 3;
			p[n + 2].opcode = DRM_CCORE_OP_NOTIFY;
			p[n + 3].opcode = DRM_CCORE_OP_RET;
			n += 4;
			break;
		case 10:
			in->opcode = DRM_CCORE_OP_NOTIFY;
			in->imm = (uint32_t)kf_next(r);
			n++;
			break;
		default:
			in->opcode = DRM_CCORE_OP_ADDI;
			in->reg = (uint8_t)kf_below(r, DRM_CCORE_NUM_REGS);
			in->imm = (uint32_t)kf_boundary(r);
			n++;
			break;
		}
	}
	/* mostly return to the dispatcher; now and then halt or spin */
	switch (kf_below(r, 20)) {
	case 0:
		p[n++].opcode = DRM_CCORE_OP_HALT;
		break;
	case 1:
		p[n++].opcode = DRM_CCORE_OP_JUMP;	/* JUMP 0: spins until reset */
		break;
	default:
		p[n++].opcode = DRM_CCORE_OP_RET;
		break;
	}
	return n;
}
