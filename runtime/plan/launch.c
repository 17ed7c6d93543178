// SPDX-License-Identifier: MIT
/* Launching a cached plan: one trigger per rank with a part. */
#include "plan.h"

const struct drm_ccore_insn *plan_rank_program(const struct plan *p, uint32_t r, uint32_t *ninsns,
					       struct ccore_dev **dev, uint32_t *cc)
{
	if (!p->active[r] || !p->lr[r].dev)
		return NULL;
	*ninsns = p->low->ranks[r].ninsns;
	*dev = p->lr[r].dev;
	*cc = p->lr[r].cc;
	return p->low->ranks[r].insns;
}

int plan_submit(struct ccore_dev *dev, uint32_t prog, struct ccore_stream *s)
{
	uint64_t job;
	int rc = stream_throttle(s) ?: ccore_dev_submit(dev, prog, DRM_CCORE_JOB_F_TRIGGER, &job);

	return rc ? rc : stream_add_job(s, job);
}

const struct lowered_rank *plan_image(const struct plan *p, uint32_t r, uint32_t ahead)
{
	if (!p->low->odd)
		return &p->low->ranks[r];
	return (p->runs[r] + ahead) & 1 ? &p->low->odd[r] : &p->low->ranks[r];
}

void plan_ran(struct plan *p, uint32_t r)
{
	if (p->runs)
		p->runs[r]++;
}

int plan_launch(struct clique *q, const struct op *ops)
{
	struct plan *p;
	int rc = plan_get(q, ops, false, &p);

	for (uint32_t r = 0; p && r < q->n && !rc; r++)
		if (p->active[r] && clique_local(q, r)) {
			rc = plan_submit(p->lr[r].dev, plan_image(p, r, 0)->prog, ops[r].stream);
			if (!rc)
				plan_ran(p, r);
		}
	return rc;
}

uint32_t plan_rank_rings(const struct plan *p, uint32_t r, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;

	if (!p->low || !p->active[r])
		return 0;
	for (uint32_t k = 0; k < LOWER_RINGS; k++)
		for (uint32_t e = 0; e < LOWER_MAX_ENGINES; e++) {
			if (p->low->ranks[r].rings[k][e] && n < max)
				out[n++] = p->low->ranks[r].rings[k][e];
			if (p->low->odd && p->low->odd[r].rings[k][e] && n < max)
				out[n++] = p->low->odd[r].rings[k][e];
		}
	return n;
}

uint32_t plan_ring_handles(const struct clique *q, uint32_t r, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;

	for (const struct plan *p = q->plans; p; p = p->next)
		n += plan_rank_rings(p, r, out + n, max - n);
	return n;
}
