// SPDX-License-Identifier: MIT
/*
 * ccore-plan --regret (see regret.h).  At every grid point each algorithm
 * that can serve the call runs on the timed model with the slices and
 * channels the tuner gives it; the choice is what the runtime itself
 * would run (ccore_plan_query(), the cost model through select.c), never
 * recomputed here.  Regret = chosen's timed time / the best's - 1.
 */
#include "regret.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algos/algo.h"
#include "sched/cs.h"
#include "timed.h"
#include "tune/tuner.h"

struct grid_topo {
	const char *name;
	uint32_t nodes, x, y, rpd;
};

/*
 * A ring of devices, a small multi-rank device pair, Trn2-like nodes, and
 * more nodes of a smaller kind (4 Trn2 nodes, 256 ranks, would take the
 * grid past a few minutes: AllToAll and the trees at 1 GiB).
 */
static const struct grid_topo full_topos[] = {
	{ "ring of 8 devices", 1, 8, 1, 1 },
	{ "2 devices x 4 ranks", 1, 2, 1, 4 },
	{ "Trn2 node (4x4 torus x 4)", 1, 4, 4, 4 },
	{ "2 Trn2 nodes", 2, 4, 4, 4 },
	{ "4 nodes (2x2 torus x 2)", 4, 2, 2, 2 },
};

static const struct grid_topo quick_topos[] = {
	{ "ring of 8 devices", 1, 8, 1, 1 },
	{ "Trn2 node (4x4 torus x 4)", 1, 4, 4, 4 },
};

static const int grid_ops[] = {
	CS_ALLREDUCE, CS_ALLGATHER, CS_REDUCESCATTER, CS_ALLTOALL, CS_BROADCAST, CS_REDUCE_COLL,
};

#define WORST 10

struct point {
	const char *topo;
	int coll;
	uint64_t bytes;
	const char *chosen, *best;
	double chosen_us, best_us, regret;
};

struct tally {
	uint32_t points, good;
	struct point worst[WORST];
	uint32_t nworst;
};

/* Keep the WORST points with the largest regret, largest first. */
static void keep_worst(struct tally *t, const struct point *p)
{
	uint32_t k = t->nworst < WORST ? t->nworst++ : WORST - 1;

	if (k == WORST - 1 && t->nworst == WORST && t->worst[k].regret >= p->regret)
		return;
	for (; k > 0 && t->worst[k - 1].regret < p->regret; k--)
		t->worst[k] = t->worst[k - 1];
	t->worst[k] = *p;
}

/* Can @al serve @coll on @w's layout (its registry rejects())? */
static int applies(const struct algo *al, int coll, const struct grid_topo *g, uint32_t n,
		   uint64_t bytes)
{
	struct cs_shape sh = { .coll = (uint8_t)coll, .nranks = n, .count = bytes / 4,
			       .root = 0, .peer = 1 };
	struct algo_opts o = { .slices = 1, .channels = 1,
			       .ranks_per_node = g->nodes > 1 ? n / g->nodes : 0,
			       .ranks_per_device = g->rpd };

	if (!(al->colls & (1u << coll)))
		return 0;
	if (coll == CS_ALLGATHER || coll == CS_REDUCESCATTER || coll == CS_ALLTOALL)
		sh.count /= n;
	return !al->rejects || !al->rejects(&sh, &o);
}

/* One grid point: every algorithm timed, the tuner's choice looked up. */
static int point(struct timed_world *w, const struct grid_topo *g, int coll, uint64_t bytes,
		 struct tally *t)
{
	uint32_t n = timed_ranks(w);
	struct point p = { .topo = g->name, .coll = coll, .bytes = bytes, .chosen_us = -1,
			   .best_us = -1 };
	struct ccore_plan_info info;
	const char *err;

	if (timed_choice(w, coll, bytes, &info)) {
		err = timed_error();
		fprintf(stderr, "ccore-plan: --regret: %s, %s, %llu bytes: no choice: %s\n",
			g->name, cs_coll_name((unsigned int)coll), (unsigned long long)bytes, err);
		return -1;
	}
	p.chosen = info.algo;
	for (unsigned int i = 0; i < algo_count(); i++) {
		const struct algo *al = algo_at(i);
		double us;

		if (!applies(al, coll, g, n, bytes))
			continue;
		if (timed_run(w, coll, bytes, 0, al->name, &us)) {
			err = timed_error();
			/* its temporaries do not fit the device's memory: it cannot run */
			if (strstr(err, "memory exhausted"))
				continue;
			fprintf(stderr, "ccore-plan: --regret: %s, %s, %llu bytes, %s: %s\n",
				g->name, cs_coll_name((unsigned int)coll),
				(unsigned long long)bytes, al->name, err);
			return -1;
		}
		if (p.best_us < 0 || us < p.best_us) {
			p.best_us = us;
			p.best = al->name;
		}
		if (!strcmp(al->name, info.algo))
			p.chosen_us = us;
	}
	if (p.chosen_us < 0) {
		fprintf(stderr, "ccore-plan: --regret: %s, %s, %llu bytes: the tuner chose %s, which cannot run it\n",
			g->name, cs_coll_name((unsigned int)coll), (unsigned long long)bytes,
			info.algo);
		return -1;
	}
	p.regret = p.chosen_us / p.best_us - 1;
	t->points++;
	t->good += p.regret <= REGRET_OK;
	keep_worst(t, &p);
	printf("  %-26s %-13s %11llu  %-12s %3u %2u %12.3f  %-12s %12.3f %8.2f%%%s\n", g->name,
	       cs_coll_name((unsigned int)coll), (unsigned long long)bytes, info.algo,
	       info.slices, info.channels, p.chosen_us, p.best, p.best_us, 100 * p.regret,
	       p.regret > REGRET_OK ? "  <- over 5%" : "");
	fflush(stdout);
	return 0;
}

int regret_run(int quick, const struct tune_hw *hw)
{
	const struct grid_topo *topos = quick ? quick_topos : full_topos;
	unsigned int ntopos = quick ? sizeof(quick_topos) / sizeof(quick_topos[0]) :
				      sizeof(full_topos) / sizeof(full_topos[0]);
	/* quick: three sizes, one per regime; full: 1 KiB to 1 GiB, every 4x */
	uint64_t first = quick ? 4096 : 1024, last = quick ? 16u << 20 : 1ull << 30;
	unsigned int mult = quick ? 64 : 4;
	struct tally t = { 0 };
	clock_t c0 = clock();
	double pct;

	printf("# tuner regret on the timed model: each algorithm run at the tuner's slices and\n"
	       "# channels for it; chosen = what the runtime would run (ccore_plan_query)\n");
	printf("# %-26s %-13s %11s  %-12s %3s %2s %12s  %-12s %12s %9s\n", "topology", "op",
	       "bytes", "chosen", "sl", "ch", "chosen_us", "best", "best_us", "regret");
	for (unsigned int k = 0; k < ntopos; k++) {
		const struct grid_topo *g = &topos[k];
		struct tune_topo tt;
		struct timed_world *w;

		tuner_topo(g->nodes, g->x, g->y, g->rpd, hw, &tt);
		w = timed_open(&tt, last);
		if (!w) {
			fprintf(stderr, "ccore-plan: --regret: %s: %s\n", g->name, timed_error());
			return 2;
		}
		for (unsigned int o = 0; o < sizeof(grid_ops) / sizeof(grid_ops[0]); o++)
			for (uint64_t b = first; b <= last; b *= mult) {
				uint64_t unit = 4ull * timed_ranks(w);
				uint64_t bytes = b < unit ? unit : b - b % unit;

				if (point(w, g, grid_ops[o], bytes, &t)) {
					timed_close(w);
					return 2;
				}
			}
		timed_close(w);
		printf("# %s: %.1f s of CPU so far\n", g->name, (double)(clock() - c0) / CLOCKS_PER_SEC);
	}
	pct = t.points ? 100.0 * t.good / t.points : 0;
	printf("# worst points:\n");
	for (uint32_t i = 0; i < t.nworst; i++)
		printf("#   %-26s %-13s %11llu  chose %-12s %12.3f us, best %-12s %12.3f us: %+.2f%%\n",
		       t.worst[i].topo, cs_coll_name((unsigned int)t.worst[i].coll),
		       (unsigned long long)t.worst[i].bytes, t.worst[i].chosen, t.worst[i].chosen_us,
		       t.worst[i].best, t.worst[i].best_us, 100 * t.worst[i].regret);
	printf("regret <= %.0f%% at %u of %u points (%.1f%%; target %.0f%%): %s\n",
	       100 * REGRET_OK, t.good, t.points, pct, 100 * REGRET_TARGET,
	       pct >= 100 * REGRET_TARGET ? "met" : "NOT met");
	printf("# %.1f s of CPU\n", (double)(clock() - c0) / CLOCKS_PER_SEC);
	return pct >= 100 * REGRET_TARGET ? 0 : 1;
}
