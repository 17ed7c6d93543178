/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal userspace test harness: TEST() registers a case, ASSERT_*() fails
 * it with file:line and the values, main() runs every case (or those named
 * on the command line) and prints TAP.  Exit status: 0 when nothing failed.
 */
#ifndef CCORE_TEST_H
#define CCORE_TEST_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ccore_test_case {
	const char *name;
	void (*fn)(void);
	struct ccore_test_case *next;
};

void ccore_test_register(struct ccore_test_case *tc);
void ccore_test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void ccore_test_skip(const char *why) __attribute__((noreturn));
/* The cases to run when none is named on the command line (NULL-terminated;
 * default: every case).  Call it from a constructor. */
void ccore_test_default_cases(const char *const *names);
/* Printed as a TAP comment under the current case. */
void ccore_test_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define TEST(name)                                                        \
	static void test_##name(void);                                    \
	static struct ccore_test_case tc_##name = { #name, test_##name, 0 }; \
	__attribute__((constructor)) static void reg_##name(void)         \
	{                                                                 \
		ccore_test_register(&tc_##name);                          \
	}                                                                 \
	static void test_##name(void)

#define FAIL(...) ccore_test_fail(__FILE__, __LINE__, __VA_ARGS__)

#define ASSERT_TRUE(c)                                                    \
	do {                                                              \
		if (!(c))                                                 \
			FAIL("expected true: %s", #c);                    \
	} while (0)
#define ASSERT_FALSE(c) ASSERT_TRUE(!(c))

#define ASSERT_CMP_(a, op, b)                                             \
	do {                                                              \
		long long va_ = (long long)(a), vb_ = (long long)(b);     \
		if (!(va_ op vb_))                                        \
			FAIL("%s %s %s: %lld vs %lld", #a, #op, #b, va_, vb_); \
	} while (0)
#define ASSERT_EQ(a, b) ASSERT_CMP_(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_CMP_(a, !=, b)
#define ASSERT_LT(a, b) ASSERT_CMP_(a, <, b)
#define ASSERT_LE(a, b) ASSERT_CMP_(a, <=, b)
#define ASSERT_GT(a, b) ASSERT_CMP_(a, >, b)
#define ASSERT_GE(a, b) ASSERT_CMP_(a, >=, b)

#define ASSERT_U64_EQ(a, b)                                               \
	do {                                                              \
		uint64_t ua_ = (uint64_t)(a), ub_ = (uint64_t)(b);        \
		if (ua_ != ub_)                                           \
			FAIL("%s == %s: %" PRIu64 " vs %" PRIu64, #a, #b,  \
			     ua_, ub_);                                   \
	} while (0)

#define ASSERT_STR_CONTAINS(hay, needle)                                  \
	do {                                                              \
		const char *h_ = (hay), *n_ = (needle);                   \
		if (!h_ || !strstr(h_, n_))                               \
			FAIL("expected \"%s\" in \"%s\"", n_, h_ ? h_ : "(null)"); \
	} while (0)

#define ASSERT_MEM_EQ(a, b, n)                                            \
	do {                                                              \
		if (memcmp((a), (b), (n)) != 0)                           \
			FAIL("%s and %s differ in %zu bytes", #a, #b,      \
			     (size_t)(n));                                \
	} while (0)

#endif
