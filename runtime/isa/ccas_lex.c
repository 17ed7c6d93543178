// SPDX-License-Identifier: GPL-2.0
/* Tokenizer for CC assembly. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ccas_lex.h"

/* Longest token text an error message quotes in full. */
#define CCAS_TOK_SHOW 40

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool ends_code(char c)
{
	return c == '\0' || c == '\n' || c == ';' || c == '#';
}

const char *ccas_lex_line(struct ccas_lex *lx, const char *line)
{
	const char *nl = strchr(line, '\n');

	lx->p = line;
	lx->end = line;
	while (!ends_code(*lx->end))
		lx->end++;
	return nl ? nl + 1 : NULL;
}

static size_t span(const char *p, const char *end, bool (*ok)(char))
{
	size_t n = 0;

	while (p + n < end && ok(p[n]))
		n++;
	return n;
}

static bool is_ident_char(char c)
{
	return is_alpha(c) || is_digit(c) || c == '.';
}

static bool is_number_char(char c)
{
	return is_alpha(c) || is_digit(c);
}

void ccas_lex_next(struct ccas_lex *lx, struct ccas_tok *t)
{
	while (lx->p < lx->end && is_space(*lx->p))
		lx->p++;
	t->s = lx->p;
	if (lx->p == lx->end) {
		t->kind = CCAS_TOK_EOL;
		t->len = 0;
		return;
	}
	if (is_alpha(*lx->p) || *lx->p == '.') {
		t->kind = CCAS_TOK_IDENT;
		t->len = span(lx->p, lx->end, is_ident_char);
	} else if (is_digit(*lx->p)) {
		/* Swallow trailing letters so "12ab" is one bad number. */
		t->kind = CCAS_TOK_NUMBER;
		t->len = span(lx->p, lx->end, is_number_char);
	} else {
		t->kind = strchr("(),:-", *lx->p) ? CCAS_TOK_PUNCT : CCAS_TOK_OTHER;
		t->len = 1;
	}
	lx->p += t->len;
}

void ccas_lex_peek2(const struct ccas_lex *lx, struct ccas_tok *t)
{
	struct ccas_lex copy = *lx;

	ccas_lex_next(&copy, t);
	ccas_lex_next(&copy, t);
}

bool ccas_tok_is(const struct ccas_tok *t, const char *s)
{
	return t->kind != CCAS_TOK_EOL && strlen(s) == t->len &&
	       memcmp(t->s, s, t->len) == 0;
}

void ccas_tok_describe(const struct ccas_tok *t, char *buf, size_t len)
{
	size_t o = 0, n = t->len > CCAS_TOK_SHOW ? CCAS_TOK_SHOW : t->len;

	if (!len)
		return;
	if (t->kind == CCAS_TOK_EOL) {
		snprintf(buf, len, "end of line");
		return;
	}
	buf[0] = '\0';
	o += (size_t)snprintf(buf, len, "'");
	for (size_t i = 0; i < n && o < len; i++) {
		unsigned char c = (unsigned char)t->s[i];

		/* Never copy control bytes or broken UTF-8 into a message. */
		if (c >= 0x20 && c < 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "%c", c);
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
	}
	if (o < len)
		snprintf(buf + o, len - o, "%s'", n < t->len ? "..." : "");
}

static int hex_digit(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ccas_tok_number(const struct ccas_tok *t, unsigned long long *v)
{
	unsigned int base = 10;
	size_t i = 0;
	bool big = false;

	*v = 0;
	if (t->kind != CCAS_TOK_NUMBER)
		return -EINVAL;
	if (t->len > 2 && t->s[0] == '0' && (t->s[1] == 'x' || t->s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	for (; i < t->len; i++) {
		int d = hex_digit(t->s[i]);

		if (d < 0 || (unsigned int)d >= base)
			return -EINVAL;
		/* Keep checking digits after overflow: "9999999999z" is bad. */
		*v = *v * base + (unsigned int)d;
		if (*v > UINT32_MAX) {
			big = true;
			*v = (unsigned long long)UINT32_MAX + 1;
		}
	}
	if (big) {
		*v = UINT64_MAX;
		return -ERANGE;
	}
	return 0;
}
