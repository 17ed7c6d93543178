/* SPDX-License-Identifier: MIT */
/*
 * Pictures for ccore-plan, as standalone SVG: a chart of time (or busbw)
 * against message size per algorithm, and a space-time diagram of one
 * schedule (ranks down, logical steps across, each transfer an arrow).
 */
#ifndef CCORE_PLAN_SVG_H
#define CCORE_PLAN_SVG_H

#include <stdio.h>

#include "sched/cs.h"

/* One line of a chart: @n points (x[i], y[i]); y <= 0 is "no value". */
struct svg_series {
	const char *name;
	const double *x, *y;
	unsigned int n;
};

struct svg_chart {
	const char *title;
	const char *xlabel, *ylabel;
	int log_x, log_y;		/* logarithmic axes */
	const struct svg_series *series;
	unsigned int nseries;
	/* the tuner's choice at x = chosen_x[i]: the name of a series (or NULL);
	 * marked on its line, and each change of it drawn as a crossover */
	const double *chosen_x;
	const char *const *chosen;
	unsigned int nchosen;
};

/* Write @c as an SVG document; 0, or -1 if there is nothing to draw. */
int svg_write_chart(FILE *out, const struct svg_chart *c);

/* Write the space-time diagram of @s; 0, or -1 with @err set. */
int svg_write_spacetime(FILE *out, const struct cs_sched *s, const char *title,
			char *err, size_t errlen);

#endif
