/* SPDX-License-Identifier: MIT */
/*
 * The tools' one JSON writer (RFC 8259).  The caller says what comes next
 * (an object, a key, a value); the writer puts the commas, escapes strings
 * (quote, backslash, control characters; UTF-8 passes through, a byte that
 * is not part of valid UTF-8 becomes U+FFFD) and writes numbers JSON can
 * hold: NaN and infinities become null.
 */
#ifndef CCORE_TOOLS_JSON_H
#define CCORE_TOOLS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *out;
	int indent;		/* spaces per level; 0: all on one line, no spaces */
	int depth;
	bool has_items[JSON_MAX_DEPTH];	/* the open container has a member */
	bool object[JSON_MAX_DEPTH];	/* it is an object, not an array */
	bool after_key;		/* a key was written, its value comes next */
	bool misused;		/* a value without a key in an object, too deep, ... */
};

/* Write to @out; @indent 0 for one compact line, else pretty with @indent spaces. */
void json_init(struct json *j, FILE *out, int indent);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);	/* NULL: null */
void json_int(struct json *j, long long v);
void json_uint(struct json *j, unsigned long long v);
/* @v with @decimals digits after the point; %g-like if @decimals < 0 */
void json_double(struct json *j, double v, int decimals);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
/*
 * End the document with a newline: 0, or -1 if it was not well formed
 * (containers left open, a misplaced value) or the stream has an error.
 */
int json_finish(struct json *j);

/* A key and its value. */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, long long v);
void json_kv_uint(struct json *j, const char *key, unsigned long long v);
void json_kv_double(struct json *j, const char *key, double v, int decimals);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_kv_null(struct json *j, const char *key);
/*
 * A key and an array of the strings of @s: @n of them, or fewer if a NULL
 * comes first (SIZE_MAX for an array that a NULL ends, such as environ).
 */
void json_kv_strings(struct json *j, const char *key, const char *const *s, size_t n);

/* @s as a JSON string, quotes included, to @out (as json_string() writes it). */
void json_write_string(FILE *out, const char *s);

#endif
