// SPDX-License-Identifier: MIT
/* The tools' JSON writer (see json.h). */
#include "json.h"

#include <math.h>

void json_init(struct json *j, FILE *out, int indent)
{
	*j = (struct json){ .out = out, .indent = indent };
}

static void newline(struct json *j)
{
	if (!j->indent)
		return;
	fprintf(j->out, "\n%*s", j->depth * j->indent, "");
}

/* Before any value: the comma and indentation, or nothing after a key. */
static void before_value(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0) {
		if (j->has_items[j->depth - 1])
			fputc(',', j->out);
		j->has_items[j->depth - 1] = true;
		newline(j);
	}
}

static void container_open(struct json *j, char c, bool object)
{
	before_value(j);
	fputc(c, j->out);
	if (j->depth == JSON_MAX_DEPTH) {
		j->misused = true;
		return;
	}
	j->object[j->depth] = object;
	j->has_items[j->depth++] = false;
}

static void container_close(struct json *j, char c, bool object)
{
	if (!j->depth || j->object[j->depth - 1] != object || j->after_key) {
		j->misused = true;
		return;
	}
	j->depth--;
	if (j->has_items[j->depth])
		newline(j);
	fputc(c, j->out);
}

void json_object_begin(struct json *j)
{
	container_open(j, '{', true);
}

void json_object_end(struct json *j)
{
	container_close(j, '}', true);
}

void json_array_begin(struct json *j)
{
	container_open(j, '[', false);
}

void json_array_end(struct json *j)
{
	container_close(j, ']', false);
}

void json_key(struct json *j, const char *key)
{
	if (!j->depth || !j->object[j->depth - 1] || j->after_key) {
		j->misused = true;
		return;
	}
	if (j->has_items[j->depth - 1])
		fputc(',', j->out);
	j->has_items[j->depth - 1] = true;
	newline(j);
	json_write_string(j->out, key);
	fputs(j->indent ? ": " : ":", j->out);
	j->after_key = true;
}

/* A value where one may stand: after a key, in an array, or alone. */
static void value(struct json *j)
{
	if (!j->after_key && j->depth && j->object[j->depth - 1])
		j->misused = true;
	before_value(j);
}

/* Length of the valid UTF-8 sequence at @s (2 to 4), or 0 if it is not one. */
static int utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	int n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	/* no overlong forms, no surrogates, nothing past U+10FFFF */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void json_write_string(FILE *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', out);
	while (*s) {
		int n;

		switch (*s) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\b': fputs("\\b", out); break;
		case '\f': fputs("\\f", out); break;
		case '\n': fputs("\\n", out); break;
		case '\r': fputs("\\r", out); break;
		case '\t': fputs("\\t", out); break;
		default:
			if (*s < 0x20) {
				fprintf(out, "\\u%04x", *s);
			} else if (*s < 0x80) {
				fputc(*s, out);
			} else if ((n = utf8_len(s))) {
				fwrite(s, 1, (size_t)n, out);
				s += n;
				continue;
			} else {
				fputs("\\ufffd", out);	/* not UTF-8: the replacement character */
			}
		}
		s++;
	}
	fputc('"', out);
}

void json_string(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	value(j);
	json_write_string(j->out, s);
}

void json_int(struct json *j, long long v)
{
	value(j);
	fprintf(j->out, "%lld", v);
}

void json_uint(struct json *j, unsigned long long v)
{
	value(j);
	fprintf(j->out, "%llu", v);
}

void json_double(struct json *j, double v, int decimals)
{
	value(j);
	if (!isfinite(v))
		fputs("null", j->out);
	else if (decimals < 0)
		fprintf(j->out, "%.17g", v);
	else
		fprintf(j->out, "%.*f", decimals, v);
}

void json_bool(struct json *j, bool v)
{
	value(j);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j)
{
	value(j);
	fputs("null", j->out);
}

int json_finish(struct json *j)
{
	fputc('\n', j->out);
	if (fflush(j->out) || ferror(j->out))
		return -1;
	return j->depth || j->after_key || j->misused ? -1 : 0;
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_int(struct json *j, const char *key, long long v)
{
	json_key(j, key);
	json_int(j, v);
}

void json_kv_uint(struct json *j, const char *key, unsigned long long v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kv_double(struct json *j, const char *key, double v, int decimals)
{
	json_key(j, key);
	json_double(j, v, decimals);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

void json_kv_null(struct json *j, const char *key)
{
	json_key(j, key);
	json_null(j);
}

void json_kv_strings(struct json *j, const char *key, const char *const *s, size_t n)
{
	json_key(j, key);
	json_array_begin(j);
	for (size_t i = 0; i < n && s && s[i]; i++)
		json_string(j, s[i]);
	json_array_end(j);
}
