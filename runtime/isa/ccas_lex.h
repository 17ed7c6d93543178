/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internal to runtime/isa: the assembly tokenizer.  The syntax is line
 * based, so the lexer works on one line at a time and a comment (';' or
 * '#') simply ends the line.
 */
#ifndef CCAS_LEX_H
#define CCAS_LEX_H

#include <stdbool.h>
#include <stddef.h>

enum ccas_tok_kind {
	CCAS_TOK_EOL,		/* end of the line's code */
	CCAS_TOK_IDENT,		/* [A-Za-z_.][A-Za-z0-9_.]* */
	CCAS_TOK_NUMBER,	/* a digit, then [A-Za-z0-9_]*; not yet checked */
	CCAS_TOK_PUNCT,		/* one of ( ) , : - */
	CCAS_TOK_OTHER,		/* any other single byte */
};

struct ccas_tok {
	enum ccas_tok_kind kind;
	const char *s;
	size_t len;
};

/**
 * struct ccas_lex - position in the current line
 * @p: next unread byte
 * @end: end of the line's code (its newline, comment or NUL)
 *
 * A plain value: copy it to look ahead.
 */
struct ccas_lex {
	const char *p;
	const char *end;
};

/*
 * Start on the line at @line.  Returns the start of the following line, or
 * NULL if this is the last one.
 */
const char *ccas_lex_line(struct ccas_lex *lx, const char *line);
/* Consume the next token into @t. */
void ccas_lex_next(struct ccas_lex *lx, struct ccas_tok *t);
/* The token after the next one, without consuming anything. */
void ccas_lex_peek2(const struct ccas_lex *lx, struct ccas_tok *t);
/* True if @t is exactly the text @s. */
bool ccas_tok_is(const struct ccas_tok *t, const char *s);
/* @t as error messages show it: 'text' (escaped, shortened) or end of line. */
void ccas_tok_describe(const struct ccas_tok *t, char *buf, size_t len);
/*
 * Value of a number token: decimal, or hex after 0x.  Returns 0, -ERANGE
 * if it exceeds 32 bits (@v then is UINT64_MAX), -EINVAL if malformed.
 */
int ccas_tok_number(const struct ccas_tok *t, unsigned long long *v);

#endif
