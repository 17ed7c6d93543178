// SPDX-License-Identifier: MIT
/*
 * SVG output of ccore-plan: charts (time or busbw against size, one line
 * per algorithm) and space-time diagrams of a schedule, drawn like the
 * traces in shared/reference: one row per rank, one column per logical
 * step, an arrow per transfer.
 */
#include "svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

#define NCOLORS (sizeof(palette) / sizeof(palette[0]))

/* --- charts ------------------------------------------------------------- */

#define CW 720.0	/* plot area */
#define CH 420.0
#define ML 80.0		/* margins: left, right (legend), top, bottom */
#define MR 170.0
#define MT 40.0
#define MB 60.0

struct axis {
	int log;
	double lo, hi;
};

static double axis_pos(const struct axis *a, double v, double len)
{
	double t;

	if (a->log)
		t = (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
	else
		t = (v - a->lo) / (a->hi - a->lo);
	return t * len;
}

/* Bytes as the nccl-tests tables show them: 1K, 64M, 1G. */
static void size_label(double v, char *buf, size_t len)
{
	static const char *const unit[] = { "", "K", "M", "G", "T" };
	unsigned int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%g%s", v, unit[u]);
}

/*
 * A tick value in one notation along a whole axis: plain below 10000,
 * then k, M, G, T suffixes (never "1e+06" beside "100000").
 */
static void num_label(double v, char *buf, size_t len)
{
	static const char *const unit[] = { "", "k", "M", "G", "T" };
	unsigned int u = 0;

	if (fabs(v) < 1e4) {
		snprintf(buf, len, "%.*f", fabs(v) >= 1 || v == 0 ? 0 : (int)ceil(-log10(fabs(v))), v);
		return;
	}
	while (fabs(v) >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%g%s", v, unit[u]);
}

static int chart_range(const struct svg_chart *c, struct axis *x, struct axis *y)
{
	unsigned int s, i;
	int any = 0;

	x->lo = y->lo = INFINITY;
	x->hi = y->hi = -INFINITY;
	for (s = 0; s < c->nseries; s++) {
		for (i = 0; i < c->series[s].n; i++) {
			double xv = c->series[s].x[i], yv = c->series[s].y[i];

			if (yv <= 0 || (c->log_x && xv <= 0))
				continue;
			any = 1;
			x->lo = fmin(x->lo, xv);
			x->hi = fmax(x->hi, xv);
			y->lo = fmin(y->lo, yv);
			y->hi = fmax(y->hi, yv);
		}
	}
	if (!any)
		return -1;
	x->log = c->log_x;
	y->log = c->log_y;
	/* whole decades (or powers of two) around the data */
	if (x->log) {
		x->lo = exp2(floor(log2(x->lo)));
		x->hi = exp2(ceil(log2(x->hi)));
	}
	if (y->log) {
		y->lo = pow(10, floor(log10(y->lo)));
		y->hi = pow(10, ceil(log10(y->hi)));
	} else {
		y->lo = 0;
	}
	if (x->hi <= x->lo)
		x->hi = x->log ? x->lo * 2 : x->lo + 1;
	if (y->hi <= y->lo)
		y->hi = y->log ? y->lo * 10 : y->lo + 1;
	return 0;
}

static void chart_axes(FILE *out, const struct svg_chart *c, const struct axis *x,
		       const struct axis *y)
{
	char lab[32];
	double v, p;
	int i;

	fprintf(out, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"none\" stroke=\"#444\"/>\n",
		ML, MT, CW, CH);
	/* x ticks: powers of two, labelled every other one when crowded */
	if (x->log) {
		int n = (int)lround(log2(x->hi / x->lo));
		int every = n > 16 ? 2 : 1;

		for (i = 0; i <= n; i++) {
			v = x->lo * exp2(i);
			p = ML + axis_pos(x, v, CW);
			fprintf(out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#ddd\"/>\n",
				p, MT, p, MT + CH);
			if (i % every)
				continue;
			size_label(v, lab, sizeof(lab));
			fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
				p, MT + CH + 16, lab);
		}
	} else {
		for (i = 0; i <= 10; i++) {
			v = x->lo + (x->hi - x->lo) * i / 10;
			p = ML + CW * i / 10;
			num_label(v, lab, sizeof(lab));
			fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"11\" text-anchor=\"middle\">%s</text>\n",
				p, MT + CH + 16, lab);
		}
	}
	/* y ticks: decades, or tenths of the range */
	for (i = 0;; i++) {
		if (y->log) {
			v = y->lo * pow(10, i);
			if (v > y->hi * 1.0001)
				break;
		} else {
			if (i > 10)
				break;
			v = y->lo + (y->hi - y->lo) * i / 10;
		}
		p = MT + CH - axis_pos(y, v, CH);
		fprintf(out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#ddd\"/>\n",
			ML, p, ML + CW, p);
		num_label(v, lab, sizeof(lab));
		fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"11\" text-anchor=\"end\">%s</text>\n",
			ML - 6, p + 4, lab);
	}
	fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"14\" text-anchor=\"middle\">%s</text>\n",
		ML + CW / 2, MT - 14, c->title ? c->title : "");
	fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"12\" text-anchor=\"middle\">%s</text>\n",
		ML + CW / 2, MT + CH + 40, c->xlabel ? c->xlabel : "");
	fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 %g %g)\">%s</text>\n",
		ML - 55, MT + CH / 2, ML - 55, MT + CH / 2, c->ylabel ? c->ylabel : "");
}

/* The series named @name, or NULL. */
static const struct svg_series *series_named(const struct svg_chart *c, const char *name,
					     unsigned int *index)
{
	unsigned int s;

	for (s = 0; name && s < c->nseries; s++)
		if (!strcmp(c->series[s].name, name)) {
			*index = s;
			return &c->series[s];
		}
	return NULL;
}

/* The y of series @se at @xv, or 0 if it has no point there. */
static double series_at(const struct svg_series *se, double xv)
{
	unsigned int i;

	for (i = 0; i < se->n; i++)
		if (se->x[i] == xv)
			return se->y[i];
	return 0;
}

/*
 * The tuner's choice: a dot on the chosen algorithm's line at each x, in
 * its colour, and a dashed line where the choice changes (at the first x
 * of the new choice), labelled with it.
 */
static void chart_choice(FILE *out, const struct svg_chart *c, const struct axis *x,
				 const struct axis *y)
{
	const char *prev = NULL;
	unsigned int i, s;
	char lab[32];

	for (i = 0; i < c->nchosen; i++) {
		const struct svg_series *se = series_named(c, c->chosen[i], &s);
		double yv = se ? series_at(se, c->chosen_x[i]) : 0;
		double px, py;

		if (yv <= 0 || c->chosen_x[i] < x->lo || c->chosen_x[i] > x->hi)
			continue;
		px = ML + axis_pos(x, c->chosen_x[i], CW);
		py = MT + CH - axis_pos(y, yv, CH);
		size_label(c->chosen_x[i], lab, sizeof(lab));
		if (prev && strcmp(prev, se->name)) {
			fprintf(out, "<line x1=\"%.1f\" y1=\"%g\" x2=\"%.1f\" y2=\"%g\" stroke=\"#444\" stroke-dasharray=\"4 3\"><title>crossover at %s: %s -> %s</title></line>\n",
				px, MT, px, MT + CH, lab, prev, se->name);
			fprintf(out, "<text x=\"%.1f\" y=\"%g\" font-size=\"10\" transform=\"rotate(-90 %.1f %g)\">%s: %s</text>\n",
				px - 3, MT + CH - 4, px - 3, MT + CH - 4, lab, se->name);
		}
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\" stroke=\"black\"><title>%s at %s: the tuner's choice</title></circle>\n",
			px, py, palette[s % NCOLORS], se->name, lab);
		prev = se->name;
	}
}

int svg_write_chart(FILE *out, const struct svg_chart *c)
{
	struct axis x, y;
	unsigned int s, i;
	double ly;

	if (chart_range(c, &x, &y))
		return -1;
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\">\n",
		ML + CW + MR, MT + CH + MB);
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	chart_axes(out, c, &x, &y);
	for (s = 0; s < c->nseries; s++) {
		const struct svg_series *se = &c->series[s];
		const char *col = palette[s % NCOLORS];
		int pen = 0;

		fprintf(out, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\" d=\"", col);
		for (i = 0; i < se->n; i++) {
			if (se->y[i] <= 0) {
				pen = 0;	/* a gap where the algorithm does not apply */
				continue;
			}
			fprintf(out, "%c%.1f %.1f ", pen ? 'L' : 'M', ML + axis_pos(&x, se->x[i], CW),
				MT + CH - axis_pos(&y, se->y[i], CH));
			pen = 1;
		}
		fprintf(out, "\"/>\n");
		fprintf(out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"%s\" stroke-width=\"3\"/>\n",
			ML + CW + 16, MT + 14 + 18.0 * s, ML + CW + 36, MT + 14 + 18.0 * s, col);
		fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"12\">%s</text>\n", ML + CW + 42,
			MT + 18 + 18.0 * s, se->name);
	}
	ly = MT + 18 + 18.0 * c->nseries + 12;
	if (c->nchosen) {
		chart_choice(out, c, &x, &y);
		fprintf(out, "<circle cx=\"%g\" cy=\"%g\" r=\"4.5\" fill=\"#fff\" stroke=\"black\"/>\n",
			ML + CW + 26, ly - 4);
		fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"12\">the tuner's choice</text>\n",
			ML + CW + 42, ly);
		fprintf(out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#444\" stroke-dasharray=\"4 3\"/>\n",
			ML + CW + 26, ly + 6, ML + CW + 26, ly + 22);
		fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"12\">crossover</text>\n",
			ML + CW + 42, ly + 18);
	}
	fprintf(out, "</svg>\n");
	return 0;
}

/* --- space-time diagrams --------------------------------------------------- */

static int is_recv(uint8_t op)
{
	return op == CS_RECV_OP || op == CS_RECV_REDUCE;
}

/* The receive matching rank @r's send @i: the k-th send from r to p meets
 * the k-th receive at p from r. */
static int match_recv(const struct cs_sched *s, uint32_t r, uint32_t i, uint32_t *ri)
{
	const struct cs_rank *rk = &s->ranks[r];
	uint32_t p = rk->steps[i].peer, k = 0, j;
	const struct cs_rank *pk;

	for (j = 0; j < i; j++)
		if (rk->steps[j].op == CS_SEND_OP && rk->steps[j].peer == p)
			k++;
	if (p >= s->shape.nranks)
		return -1;
	pk = &s->ranks[p];
	for (j = 0; j < pk->n; j++) {
		if (!is_recv(pk->steps[j].op) || pk->steps[j].peer != r)
			continue;
		if (k-- == 0) {
			*ri = j;
			return 0;
		}
	}
	return -1;
}

static int conflicts(const struct cs_sched *s, uint32_t r, uint32_t a, uint32_t b)
{
	struct cs_access x[3], y[3];
	int nx = cs_step_accesses(&s->shape, r, &s->ranks[r].steps[a], x);
	int ny = cs_step_accesses(&s->shape, r, &s->ranks[r].steps[b], y);

	return cs_accesses_conflict(x, nx, y, ny);
}

static void free_rounds(unsigned int **rounds, uint32_t n)
{
	uint32_t r;

	if (!rounds)
		return;
	for (r = 0; r < n; r++)
		free(rounds[r]);
	free(rounds);
}

/*
 * The logical step ("round") of every step of @s: one round after the
 * latest of its dependencies and of the earlier steps of its rank whose
 * data it reads or overwrites, and a receive no earlier than its matching
 * send.  @rounds[r][i] for rank r's step i; returns the number of rounds,
 * or -1 if a send has no matching receive.
 */
static int schedule_rounds(const struct cs_sched *s, unsigned int **rounds)
{
	uint32_t n = s->shape.nranks, r, i, d, ri;
	unsigned int v, max = 0;
	int changed = 1;

	for (r = 0; r < n; r++) {
		rounds[r] = calloc(s->ranks[r].n ? s->ranks[r].n : 1, sizeof(**rounds));
		if (!rounds[r])
			return -1;
	}
	/* monotone: rounds only grow, and are bounded by the step count */
	while (changed) {
		changed = 0;
		for (r = 0; r < n; r++) {
			const struct cs_rank *rk = &s->ranks[r];

			for (i = 0; i < rk->n; i++) {
				v = 1;
				for (d = 0; d < rk->steps[i].ndeps; d++)
					if (rounds[r][rk->steps[i].deps[d]] + 1 > v)
						v = rounds[r][rk->steps[i].deps[d]] + 1;
				/* and after every earlier step it conflicts with:
				 * the data it reads or overwrites */
				for (d = 0; d < i; d++)
					if (rounds[r][d] + 1 > v && conflicts(s, r, d, i))
						v = rounds[r][d] + 1;
				if (v > rounds[r][i]) {
					rounds[r][i] = v;
					changed = 1;
				}
				if (rk->steps[i].op != CS_SEND_OP)
					continue;
				if (match_recv(s, r, i, &ri))
					return -1;
				if (rounds[r][i] > rounds[rk->steps[i].peer][ri]) {
					rounds[rk->steps[i].peer][ri] = rounds[r][i];
					changed = 1;
				}
			}
		}
	}
	for (r = 0; r < n; r++)
		for (i = 0; i < s->ranks[r].n; i++)
			if (rounds[r][i] > max)
				max = rounds[r][i];
	return (int)max;
}

static const char *op_color(uint8_t op)
{
	switch (op) {
	case CS_SEND_OP: return "#1f77b4";
	case CS_RECV_OP: return "#2ca02c";
	case CS_RECV_REDUCE: return "#ff7f0e";
	case CS_REDUCE: return "#9467bd";
	case CS_DIVIDE: return "#8c564b";
	default: return "#7f7f7f";
	}
}

static const char *op_name(uint8_t op)
{
	static const char *const names[] = { "copy", "reduce", "send", "recv", "recv-reduce",
					     "divide" };

	return op < sizeof(names) / sizeof(names[0]) ? names[op] : "?";
}

/*
 * What the dots' colours and the arrows mean, in one row along the bottom
 * at @y: one entry per kind of step, then the arrow.
 */
static void spacetime_legend(FILE *out, double y)
{
	static const uint8_t ops[] = { CS_SEND_OP, CS_RECV_OP, CS_RECV_REDUCE, CS_REDUCE,
				       CS_DIVIDE, CS_COPY };
	double x = 10;
	unsigned int i;

	for (i = 0; i < sizeof(ops); i++) {
		fprintf(out, "<circle cx=\"%g\" cy=\"%g\" r=\"4\" fill=\"%s\"/>\n", x + 4, y - 4,
			op_color(ops[i]));
		fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"11\">%s</text>\n", x + 12, y,
			op_name(ops[i]));
		x += 24 + 7 * strlen(op_name(ops[i]));
	}
	fprintf(out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#1f77b4\" stroke-width=\"1.5\" marker-end=\"url(#a)\"/>\n",
		x, y - 4, x + 24, y - 4);
	fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"11\">a transfer, send to receive</text>\n",
		x + 30, y);
}

#define COLW 56.0
#define ROWH 34.0
#define SL 90.0		/* left margin: rank labels */
#define ST 60.0

int svg_write_spacetime(FILE *out, const struct cs_sched *s, const char *title, char *err,
			size_t errlen)
{
	uint32_t n = s->shape.nranks, r, i, ri;
	unsigned int **rounds = calloc(n ? n : 1, sizeof(*rounds));
	double w, h;
	int nr;

	if (!rounds) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	nr = schedule_rounds(s, rounds);
	if (nr < 0) {
		free_rounds(rounds, n);
		snprintf(err, errlen, "the schedule has a send without a matching receive");
		return -1;
	}
	w = SL + COLW * (nr + 1) + 40;
	if (w < 640)
		w = 640;	/* room for the title and the legend */
	h = ST + ROWH * n + 56;	/* and the legend's row */
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" font-family=\"sans-serif\">\n",
		w, h);
	fprintf(out, "<defs><marker id=\"a\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0 0L10 5L0 10z\" fill=\"#1f77b4\"/></marker></defs>\n");
	fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
	fprintf(out, "<text x=\"%g\" y=\"24\" font-size=\"14\">%s</text>\n", SL, title ? title : "");
	for (i = 1; i <= (uint32_t)nr; i++)
		fprintf(out, "<text x=\"%g\" y=\"%g\" font-size=\"11\" text-anchor=\"middle\">step %u</text>\n",
			SL + COLW * i, ST - 14, i);
	for (r = 0; r < n; r++) {
		double y = ST + ROWH * r + ROWH / 2;

		fprintf(out, "<text x=\"10\" y=\"%g\" font-size=\"12\">rank %u</text>\n", y + 4, r);
		fprintf(out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#ccc\"/>\n", SL - 20,
			y, w - 20, y);
	}
	/* transfers first, so the steps are drawn over them */
	for (r = 0; r < n; r++) {
		const struct cs_rank *rk = &s->ranks[r];

		for (i = 0; i < rk->n; i++) {
			const struct cs_step *st = &rk->steps[i];

			if (st->op != CS_SEND_OP || match_recv(s, r, i, &ri))
				continue;
			fprintf(out, "<line x1=\"%g\" y1=\"%g\" x2=\"%g\" y2=\"%g\" stroke=\"#1f77b4\" stroke-width=\"1.5\" marker-end=\"url(#a)\"><title>rank %u -> rank %u: %llu elements</title></line>\n",
				SL + COLW * rounds[r][i], ST + ROWH * r + ROWH / 2,
				SL + COLW * rounds[st->peer][ri] + COLW * 0.6,
				ST + ROWH * st->peer + ROWH / 2, r, st->peer,
				(unsigned long long)st->count);
		}
	}
	for (r = 0; r < n; r++) {
		const struct cs_rank *rk = &s->ranks[r];

		for (i = 0; i < rk->n; i++) {
			double x = SL + COLW * rounds[r][i] + (is_recv(rk->steps[i].op) ? COLW * 0.6 : 0);

			fprintf(out, "<circle cx=\"%g\" cy=\"%g\" r=\"4\" fill=\"%s\"><title>rank %u step %u: %s %llu elements</title></circle>\n",
				x, ST + ROWH * r + ROWH / 2, op_color(rk->steps[i].op), r, i,
				op_name(rk->steps[i].op),
				(unsigned long long)rk->steps[i].count);
		}
	}
	spacetime_legend(out, h - 16);
	fprintf(out, "</svg>\n");
	free_rounds(rounds, n);
	return 0;
}
