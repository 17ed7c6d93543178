// SPDX-License-Identifier: MIT
/*
 * The trigger and wait rules of an executable: every wait follows a trigger
 * of its collective on its rank (the k-th wait of a collective pairs with
 * the k-th trigger), every rank of a group triggers a collective equally
 * often, and the whole runs to the end without a deadlock.
 *
 * The last is checked by running the executable abstractly: compute and DMA
 * always finish; a trigger queues its collective on the rank's CC stream
 * (in order, as a CC core runs its jobs); a collective at the head of the
 * stream of every rank of its group completes; a wait passes once its
 * trigger has completed.  Work lists and a count of ready ranks per group
 * keep it linear in the instructions.
 */
#include "exec/exe.h"
#include "ccore_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define S CCORE_EXE_MAX_STREAMS
#define READY 1
#define DONE 2

struct order {
	const struct ccore_exe *exe;
	uint64_t *base;		/* [nranks + 1]: rank r's instructions are base[r].. */
	uint32_t *aux;		/* TRIGGER: its group; WAIT: its trigger (local index) */
	uint8_t *state;		/* TRIGGER: READY at its stream's head, or DONE */
	uint64_t *gbase;	/* [ncolls + 1]: collective c's groups are ready[gbase[c]..] */
	uint32_t *ready;	/* per group: its ranks with the collective READY */
	uint32_t *pc;		/* [nranks]: next instruction to run */
	uint32_t *q;		/* triggers (local index) by (rank, stream), in order */
	uint64_t *qhead, *qend;	/* [nranks * S] */
	uint32_t *rwork, nrwork;	/* ranks to advance */
	uint8_t *rin;
	uint32_t *qwork, nqwork;	/* (rank, stream) heads to examine */
	uint8_t *qin;
};

static const struct ccore_exe_insn *insn(const struct order *o, uint32_t r, uint32_t k)
{
	return &o->exe->ranks[r].insns[k];
}

static uint32_t stream_of(const struct order *o, uint32_t r, uint32_t k)
{
	return o->exe->colls[insn(o, r, k)->coll].stream;
}

/* k-th wait pairs with the k-th trigger of the same collective on the rank. */
static int pair_waits(struct order *o, uint32_t *line)
{
	const struct ccore_exe *exe = o->exe;
	uint32_t maxn = 1, *first, *last, *next;
	int rc = 0;

	for (uint32_t r = 0; r < exe->nranks; r++)
		if (exe->ranks[r].ninsns > maxn)
			maxn = exe->ranks[r].ninsns;
	first = malloc(sizeof(uint32_t) * (exe->ncolls + 1));
	last = malloc(sizeof(uint32_t) * (exe->ncolls + 1));
	next = malloc(sizeof(uint32_t) * maxn);
	if (!first || !last || !next) {
		rc = ccore_error(-ENOMEM, "validate: out of memory");
		goto out;
	}
	memset(first, 0xff, sizeof(uint32_t) * (exe->ncolls + 1));
	for (uint32_t r = 0; r < exe->nranks && !rc; r++) {
		const struct ccore_exe_rank *rk = &exe->ranks[r];

		for (uint32_t k = 0; k < rk->ninsns; k++) {
			const struct ccore_exe_insn *in = &rk->insns[k];
			uint32_t c = in->coll;

			if (in->op == CCORE_EXE_TRIGGER) {
				next[k] = NONE;
				if (first[c] == NONE)
					first[c] = k;
				else
					next[last[c]] = k;
				last[c] = k;
			} else if (in->op == CCORE_EXE_WAIT) {
				if (first[c] == NONE) {
					rc = ccore_error(-EINVAL, "rank %u instruction %u (wait): waits for collective '%s' with no trigger of it before that another wait has not taken; every wait follows its own trigger",
							 r, k, exe->colls[c].name);
					if (line)
						*line = in->line;
					break;
				}
				o->aux[o->base[r] + k] = first[c];
				first[c] = next[first[c]];
			}
		}
		for (uint32_t k = 0; k < rk->ninsns; k++)
			if (rk->insns[k].op == CCORE_EXE_TRIGGER || rk->insns[k].op == CCORE_EXE_WAIT)
				first[rk->insns[k].coll] = NONE;
	}
out:
	free(first);
	free(last);
	free(next);
	return rc;
}

/* Each trigger's group, and equal trigger counts across every group. */
static int group_triggers(struct order *o, uint64_t ntrig, uint32_t *line)
{
	const struct ccore_exe *exe = o->exe;
	uint64_t *cstart = calloc(exe->ncolls + 1, sizeof(uint64_t));
	uint32_t *byc = malloc(sizeof(uint32_t) * 2 * (ntrig + 1));
	uint32_t *grp = malloc(sizeof(uint32_t) * exe->nranks);
	uint32_t *cnt = calloc(exe->nranks, sizeof(uint32_t));
	uint64_t t = 0;
	int rc = 0;

	if (!cstart || !byc || !grp || !cnt) {
		rc = ccore_error(-ENOMEM, "validate: out of memory");
		goto out;
	}
	/* counting sort of the triggers by collective: (rank, local index) */
	for (uint32_t r = 0; r < exe->nranks; r++)
		for (uint32_t k = 0; k < exe->ranks[r].ninsns; k++)
			if (insn(o, r, k)->op == CCORE_EXE_TRIGGER)
				cstart[insn(o, r, k)->coll + 1]++;
	for (uint32_t c = 0; c < exe->ncolls; c++)
		cstart[c + 1] += cstart[c];
	for (uint32_t r = 0; r < exe->nranks; r++) {
		for (uint32_t k = 0; k < exe->ranks[r].ninsns; k++) {
			if (insn(o, r, k)->op == CCORE_EXE_TRIGGER) {
				uint64_t at = cstart[insn(o, r, k)->coll]++;

				byc[2 * at] = r;
				byc[2 * at + 1] = k;
			}
		}
	}
	memset(grp, 0xff, sizeof(uint32_t) * exe->nranks);
	for (uint32_t c = 0; c < exe->ncolls && !rc; c++) {
		const struct ccore_exe_coll *cl = &exe->colls[c];
		uint64_t n = (uint64_t)cl->group_count * cl->group_size;

		for (uint64_t i = 0; i < n; i++)
			grp[cl->ranks[i]] = (uint32_t)(i / cl->group_size);
		/* cstart[c] now ends collective c's triggers */
		for (; t < cstart[c]; t++) {
			uint32_t r = byc[2 * t], k = byc[2 * t + 1];

			if (grp[r] == NONE) {
				rc = ccore_error(-EINVAL, "rank %u instruction %u (trigger): rank %u is in none of the groups of collective '%s'",
						 r, k, r, cl->name);
				if (line)
					*line = insn(o, r, k)->line;
				break;
			}
			o->aux[o->base[r] + k] = grp[r];
			cnt[r]++;
		}
		for (uint64_t i = 0; i < n && !rc; i++) {
			uint32_t lead = cl->ranks[i - i % cl->group_size], r = cl->ranks[i];

			if (cnt[r] != cnt[lead])
				rc = ccore_error(-EINVAL, "collective %u (%s): rank %u triggers it %u time%s, rank %u of the same group (group %llu) %u time%s; every rank of a group triggers it equally often",
						 c, cl->name, lead, cnt[lead], cnt[lead] == 1 ? "" : "s",
						 r, (unsigned long long)(i / cl->group_size), cnt[r],
						 cnt[r] == 1 ? "" : "s");
		}
		for (uint64_t i = 0; i < n; i++) {
			grp[cl->ranks[i]] = NONE;
			cnt[cl->ranks[i]] = 0;
		}
	}
out:
	free(cstart);
	free(byc);
	free(grp);
	free(cnt);
	return rc;
}

/* Triggers by (rank, stream), in program order. */
static void build_queues(struct order *o)
{
	const struct ccore_exe *exe = o->exe;
	uint64_t nq = (uint64_t)exe->nranks * S;

	memset(o->qend, 0, sizeof(uint64_t) * nq);
	for (uint32_t r = 0; r < exe->nranks; r++)
		for (uint32_t k = 0; k < exe->ranks[r].ninsns; k++)
			if (insn(o, r, k)->op == CCORE_EXE_TRIGGER)
				o->qend[(uint64_t)r * S + stream_of(o, r, k)]++;
	for (uint64_t i = 0, sum = 0; i < nq; i++) {
		uint64_t n = o->qend[i];

		o->qhead[i] = sum;
		sum += n;
		o->qend[i] = o->qhead[i];
	}
	for (uint32_t r = 0; r < exe->nranks; r++)
		for (uint32_t k = 0; k < exe->ranks[r].ninsns; k++)
			if (insn(o, r, k)->op == CCORE_EXE_TRIGGER)
				o->q[o->qend[(uint64_t)r * S + stream_of(o, r, k)]++] = k;
}

static void push_rank(struct order *o, uint32_t r)
{
	if (!o->rin[r]) {
		o->rin[r] = 1;
		o->rwork[o->nrwork++] = r;
	}
}

static void push_queue(struct order *o, uint32_t rs)
{
	if (!o->qin[rs]) {
		o->qin[rs] = 1;
		o->qwork[o->nqwork++] = rs;
	}
}

/* The head trigger of (@r, @s) if it has been issued, else NONE. */
static uint32_t head(const struct order *o, uint32_t r, uint32_t s)
{
	uint64_t i = (uint64_t)r * S + s;

	if (o->qhead[i] == o->qend[i] || o->q[o->qhead[i]] >= o->pc[r])
		return NONE;
	return o->q[o->qhead[i]];
}

static void advance(struct order *o, uint32_t r)
{
	const struct ccore_exe_rank *rk = &o->exe->ranks[r];

	while (o->pc[r] < rk->ninsns) {
		uint32_t k = o->pc[r];
		const struct ccore_exe_insn *in = &rk->insns[k];

		if (in->op == CCORE_EXE_WAIT && o->state[o->base[r] + o->aux[o->base[r] + k]] != DONE)
			return;
		o->pc[r]++;
		if (in->op == CCORE_EXE_TRIGGER && head(o, r, stream_of(o, r, k)) == k)
			push_queue(o, r * S + stream_of(o, r, k));
	}
}

/*
 * The head of (@r, @s), issued, is ready: count it in its group, and
 * complete the collective when every rank of the group has it ready (each
 * has it at the head of the same stream, since a collective has one).
 */
static void examine(struct order *o, uint32_t r, uint32_t s)
{
	uint32_t k = head(o, r, s), g, c, *ready;
	const struct ccore_exe_coll *cl;

	if (k == NONE || o->state[o->base[r] + k])
		return;
	o->state[o->base[r] + k] = READY;
	c = insn(o, r, k)->coll;
	g = o->aux[o->base[r] + k];
	cl = &o->exe->colls[c];
	ready = &o->ready[o->gbase[c] + g];
	if (++*ready < cl->group_size)
		return;
	*ready = 0;
	for (uint32_t i = 0; i < cl->group_size; i++) {
		uint32_t m = cl->ranks[(uint64_t)g * cl->group_size + i];

		o->state[o->base[m] + head(o, m, s)] = DONE;
		o->qhead[(uint64_t)m * S + s]++;
		push_queue(o, m * S + s);
		push_rank(o, m);
	}
}

static void run(struct order *o)
{
	for (uint32_t r = 0; r < o->exe->nranks; r++)
		push_rank(o, r);
	while (o->nrwork || o->nqwork) {
		if (o->nrwork) {
			uint32_t r = o->rwork[--o->nrwork];

			o->rin[r] = 0;
			advance(o, r);
		} else {
			uint32_t rs = o->qwork[--o->nqwork];

			o->qin[rs] = 0;
			examine(o, rs / S, rs % S);
		}
	}
}

/* Why the head of (@r, @s) cannot complete, for the message. */
static void why_stuck(const struct order *o, uint32_t r, uint32_t s, char *buf, size_t size)
{
	const struct ccore_exe *exe = o->exe;
	uint32_t k = o->q[o->qhead[(uint64_t)r * S + s]];
	uint32_t c = insn(o, r, k)->coll, g = o->aux[o->base[r] + k];
	const struct ccore_exe_coll *cl = &exe->colls[c];

	for (uint32_t i = 0; i < cl->group_size; i++) {
		uint32_t m = cl->ranks[(uint64_t)g * cl->group_size + i], h = head(o, m, s);
		uint64_t qi = (uint64_t)m * S + s;

		if (h != NONE && insn(o, m, h)->coll == c)
			continue;
		if (o->qhead[qi] != o->qend[qi] && insn(o, m, o->q[o->qhead[qi]])->coll != c) {
			uint32_t mk = o->q[o->qhead[qi]];

			snprintf(buf, size, "on stream %u rank %u runs '%s' (instruction %u) first, rank %u of the same group runs '%s' (instruction %u) first; the ranks of a group trigger the collectives of a stream in the same order",
				 s, r, cl->name, k, m, exe->colls[insn(o, m, mk)->coll].name, mk);
		} else if (o->pc[m] < exe->ranks[m].ninsns) {
			const struct ccore_exe_insn *in = insn(o, m, o->pc[m]);

			snprintf(buf, size, "rank %u of its group has not triggered it: it waits at its instruction %u for '%s'",
				 m, o->pc[m], exe->colls[in->coll].name);
		} else {
			snprintf(buf, size, "rank %u of its group never triggers it", m);
		}
		return;
	}
	snprintf(buf, size, "it waits for nothing (internal error)");
}

/* The first rank that did not run to its end, or a trigger left in a queue. */
static int report(const struct order *o, uint32_t *line)
{
	const struct ccore_exe *exe = o->exe;
	char why[400];

	for (uint32_t r = 0; r < exe->nranks; r++) {
		uint32_t k = o->pc[r], t;
		const struct ccore_exe_insn *in;

		if (k == exe->ranks[r].ninsns)
			continue;
		in = insn(o, r, k);
		t = o->aux[o->base[r] + k];
		why_stuck(o, r, stream_of(o, r, t), why, sizeof(why));
		if (line)
			*line = in->line;
		return ccore_error(-EINVAL, "rank %u instruction %u (wait): collective '%s' (triggered at instruction %u) never completes: %s",
				   r, k, exe->colls[in->coll].name, t, why);
	}
	for (uint32_t r = 0; r < exe->nranks; r++) {
		for (uint32_t s = 0; s < S; s++) {
			uint64_t qi = (uint64_t)r * S + s;
			uint32_t k;

			if (o->qhead[qi] == o->qend[qi])
				continue;
			k = o->q[o->qhead[qi]];
			why_stuck(o, r, s, why, sizeof(why));
			if (line)
				*line = insn(o, r, k)->line;
			return ccore_error(-EINVAL, "rank %u instruction %u (trigger): collective '%s' never completes: %s",
					   r, k, exe->colls[insn(o, r, k)->coll].name, why);
		}
	}
	return 0;
}

int ccore_exe_check_order(const struct ccore_exe *exe, uint32_t *line)
{
	struct order o = { .exe = exe };
	uint64_t total = 0, ntrig = 0, nq = (uint64_t)exe->nranks * S;
	int rc;

	o.base = malloc(sizeof(uint64_t) * (exe->nranks + 1));
	if (!o.base)
		return ccore_error(-ENOMEM, "validate: out of memory");
	for (uint32_t r = 0; r < exe->nranks; r++) {
		o.base[r] = total;
		total += exe->ranks[r].ninsns;
		for (uint32_t k = 0; k < exe->ranks[r].ninsns; k++)
			ntrig += exe->ranks[r].insns[k].op == CCORE_EXE_TRIGGER;
	}
	o.base[exe->nranks] = total;
	o.aux = calloc(total + 1, sizeof(uint32_t));
	o.state = calloc(total + 1, 1);
	o.gbase = malloc(sizeof(uint64_t) * (exe->ncolls + 1));
	if (o.gbase) {
		o.gbase[0] = 0;
		for (uint32_t c = 0; c < exe->ncolls; c++)
			o.gbase[c + 1] = o.gbase[c] + exe->colls[c].group_count;
		o.ready = calloc(o.gbase[exe->ncolls] + 1, sizeof(uint32_t));
	}
	o.pc = calloc(exe->nranks, sizeof(uint32_t));
	o.q = malloc(sizeof(uint32_t) * (ntrig + 1));
	o.qhead = malloc(sizeof(uint64_t) * nq);
	o.qend = malloc(sizeof(uint64_t) * nq);
	o.rwork = malloc(sizeof(uint32_t) * exe->nranks);
	o.rin = calloc(exe->nranks, 1);
	o.qwork = malloc(sizeof(uint32_t) * nq);
	o.qin = calloc(nq, 1);
	if (!o.aux || !o.state || !o.gbase || !o.ready || !o.pc || !o.q || !o.qhead || !o.qend || !o.rwork || !o.rin ||
	    !o.qwork || !o.qin) {
		rc = ccore_error(-ENOMEM, "validate: out of memory");
		goto out;
	}
	rc = pair_waits(&o, line);
	if (!rc)
		rc = group_triggers(&o, ntrig, line);
	if (!rc) {
		build_queues(&o);
		run(&o);
		rc = report(&o, line);
	}
out:
	free(o.base);
	free(o.aux);
	free(o.state);
	free(o.gbase);
	free(o.ready);
	free(o.pc);
	free(o.q);
	free(o.qhead);
	free(o.qend);
	free(o.rwork);
	free(o.rin);
	free(o.qwork);
	free(o.qin);
	return rc;
}
