// SPDX-License-Identifier: GPL-2.0
/* The double-buffered plans' test sequence (dbuf_seq.h). */
#include "dbuf_seq.h"

#include <string.h>

const struct dbuf_slot dbuf_slots[DBUF_SLOTS] = {
	{ 2, "hier" }, { 3, NULL }, { 2, "rdh" }, { 64, NULL }, { 5, "ring" }, { 1, "mesh_oneshot" },
};

uint32_t dbuf_initial(uint32_t r, uint32_t e, uint32_t k)
{
	return 2 * (131 * r + 7 * e + 1000 * k) + !r;
}

void dbuf_model_run(uint32_t (*want)[DBUF_COUNT], uint32_t nranks, uint64_t count)
{
	uint32_t sum[DBUF_COUNT] = { 0 };

	for (uint32_t r = 0; r < nranks; r++)
		for (uint64_t e = 0; e < count; e++)
			sum[e] += want[r][e];
	for (uint32_t r = 0; r < nranks; r++)
		memcpy(want[r], sum, count * sizeof(*sum));
}

static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

bool dbuf_next(uint32_t *rng, const uint32_t *launched, struct dbuf_pick *out)
{
	bool room = false;

	for (uint32_t k = 0; k < DBUF_SLOTS; k++)
		room |= launched[k] < DBUF_MAX_RUNS;
	/* a draw over a plan's limit is drawn again; one run always fits where there is room */
	while (room) {
		out->slot = next_rand(rng) % DBUF_SLOTS;
		out->again = 1 + next_rand(rng) % 3;
		out->grouped = next_rand(rng) % 4 == 0;
		if (launched[out->slot] + out->again <= DBUF_MAX_RUNS)
			return true;
	}
	return false;
}
