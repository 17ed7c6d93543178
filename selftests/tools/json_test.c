// SPDX-License-Identifier: MIT
/*
 * The tools' JSON writer (tools/common/json.c): documents with every kind
 * of string escape, invalid UTF-8, NaN and infinities, read back by
 * python3's json module, which must get exactly the values written; the
 * compact form byte for byte (scripts grep it); and misuse reported by
 * json_finish().  Prints TAP.
 */
#include "json.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int n, failed;

static void ok(int pass, const char *what)
{
	printf("%sok %d %s\n", pass ? "" : "not ", ++n, what);
	failed += !pass;
}

/* The document @write makes, as a string (caller frees). */
static char *render(void (*write)(struct json *), int indent, int *finish_rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f, indent);
	write(&j);
	*finish_rc = json_finish(&j);
	fclose(f);
	return buf;
}

/* python3 reads @doc and runs @check on it as `d`: 1 if it passes. */
static int python_reads(const char *doc, const char *check)
{
	char path[] = "/tmp/json_test.XXXXXX", cmd[64];
	int fd = mkstemp(path), rc;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL, *py;

	if (!f)
		return 0;
	fputs(doc, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "python3 - %s", path);
	py = popen(cmd, "w");
	if (!py) {
		unlink(path);
		return 0;
	}
	fprintf(py, "import json, sys\n"
		"d = json.load(open(sys.argv[1], encoding='utf-8'))\n%s\n", check);
	rc = pclose(py);
	unlink(path);
	return rc == 0;
}

static void escapes(struct json *j)
{
	json_object_begin(j);
	json_kv_string(j, "quote\"key", "a \"quoted\" \\ back\\slash / slash");
	json_kv_string(j, "controls", "\x01\b\f\n\r\t\x1f\x7f end");
	/* é, the euro sign, an emoji: UTF-8 passes through */
	json_kv_string(j, "utf8", "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* a lone 0xff, an overlong '/', a surrogate half, a cut-off sequence */
	json_kv_string(j, "bad", "\xff|\xc0\xaf|\xed\xa0\x80|\xe2\x82");
	json_kv_string(j, "null", NULL);
	json_kv_string(j, "empty", "");
	json_object_end(j);
}

static void numbers(struct json *j)
{
	json_array_begin(j);
	json_double(j, NAN, 3);
	json_double(j, INFINITY, 3);
	json_double(j, -INFINITY, -1);
	json_double(j, 1.5, 3);
	json_double(j, 0.1, -1);
	json_uint(j, UINT64_MAX);
	json_int(j, INT64_MIN);
	json_bool(j, true);
	json_bool(j, false);
	json_null(j);
	json_object_begin(j);
	json_object_end(j);
	json_array_begin(j);
	json_array_end(j);
	json_array_end(j);
}

static void compact(struct json *j)
{
	json_object_begin(j);
	json_kv_int(j, "a", 1);
	json_key(j, "b");
	json_array_begin(j);
	json_bool(j, true);
	json_null(j);
	json_array_end(j);
	json_kv_double(j, "c", 2.25, 2);
	json_object_end(j);
}

static void string_arrays(struct json *j)
{
	static const char *const words[] = { "a", "b\"c", NULL, "unseen" };

	json_object_begin(j);
	json_kv_strings(j, "two", words, 2);
	json_kv_strings(j, "to_null", words, SIZE_MAX);
	json_kv_strings(j, "none", words, 0);
	json_kv_strings(j, "no_array", NULL, 3);
	json_object_end(j);
}

static void unclosed(struct json *j)
{
	json_object_begin(j);
	json_kv_int(j, "a", 1);
}

static void value_without_key(struct json *j)
{
	json_object_begin(j);
	json_int(j, 1);
	json_object_end(j);
}

static void mismatched(struct json *j)
{
	json_array_begin(j);
	json_object_end(j);
}

int main(void)
{
	int rc;
	char *doc;

	printf("TAP version 13\n");
	for (int indent = 0; indent <= 2; indent += 2) {
		doc = render(escapes, indent, &rc);
		ok(!rc && python_reads(doc,
			"assert d == {'quote\"key': 'a \"quoted\" \\\\ back\\\\slash / slash',\n"
			"  'controls': '\\x01\\b\\f\\n\\r\\t\\x1f\\x7f end',\n"
			"  'utf8': '\\u00e9 \\u20ac \\U0001F600',\n"
			"  'bad': '\\ufffd|\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd',\n"
			"  'null': None, 'empty': ''}, d"),
		   indent ? "escapes read back exactly (pretty)" : "escapes read back exactly (compact)");
		free(doc);
	}
	doc = render(escapes, 0, &rc);
	ok(!strchr(doc, '\x01') && strchr(doc, '\n') == doc + strlen(doc) - 1 &&
	   strstr(doc, "\\u0001"),
	   "a control character is written as \\u0001, the only newline ends the document");
	free(doc);
	doc = render(numbers, 0, &rc);
	ok(!rc && python_reads(doc,
		"assert d == [None, None, None, 1.5, 0.1, 18446744073709551615,\n"
		"  -9223372036854775808, True, False, None, {}, []], d"),
	   "NaN and infinities are null; 64-bit integers and doubles exact");
	free(doc);
	doc = render(compact, 0, &rc);
	ok(!rc && !strcmp(doc, "{\"a\":1,\"b\":[true,null],\"c\":2.25}\n"),
	   "the compact form has no spaces");
	free(doc);
	doc = render(compact, 2, &rc);
	ok(!rc && !strcmp(doc, "{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ],\n  \"c\": 2.25\n}\n"),
	   "the pretty form indents by 2");
	free(doc);
	doc = render(string_arrays, 0, &rc);
	ok(!rc && !strcmp(doc, "{\"two\":[\"a\",\"b\\\"c\"],\"to_null\":[\"a\",\"b\\\"c\"],"
			   "\"none\":[],\"no_array\":[]}\n"),
	   "json_kv_strings writes n strings, stopping at a NULL");
	free(doc);
	doc = render(unclosed, 0, &rc);
	ok(rc == -1, "json_finish reports an object left open");
	free(doc);
	doc = render(value_without_key, 0, &rc);
	ok(rc == -1, "json_finish reports a value without its key");
	free(doc);
	doc = render(mismatched, 0, &rc);
	ok(rc == -1, "json_finish reports an array closed as an object");
	free(doc);
	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
