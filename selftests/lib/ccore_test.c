// SPDX-License-Identifier: GPL-2.0
/* The harness behind ccore_test.h: registration, TAP output, main(). */
#include "ccore_test.h"

#include <stdarg.h>

static struct ccore_test_case *cases, **cases_tail = &cases;
static jmp_buf case_env;
static int case_status; /* 0 pass, 1 fail, 2 skip */
static char case_reason[512];
static const char *const *default_cases;

void ccore_test_register(struct ccore_test_case *tc)
{
	*cases_tail = tc;
	cases_tail = &tc->next;
}

void ccore_test_default_cases(const char *const *names)
{
	default_cases = names;
}

void ccore_test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(case_reason, sizeof(case_reason), "%s:%d: ", file, line);

	va_start(ap, fmt);
	vsnprintf(case_reason + n, sizeof(case_reason) - (size_t)n, fmt, ap);
	va_end(ap);
	case_status = 1;
	longjmp(case_env, 1);
}

void ccore_test_skip(const char *why)
{
	snprintf(case_reason, sizeof(case_reason), "%s", why);
	case_status = 2;
	longjmp(case_env, 1);
}

void ccore_test_log(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* setjmp lives in its own frame so main's counters are never clobbered. */
static int run_case(struct ccore_test_case *tc)
{
	case_status = 0;
	case_reason[0] = '\0';
	if (setjmp(case_env) == 0)
		tc->fn();
	return case_status;
}

static int selected(const char *name, int argc, char **argv)
{
	if (argc < 2 && default_cases) {
		for (int i = 0; default_cases[i]; i++)
			if (strcmp(default_cases[i], name) == 0)
				return 1;
		return 0;
	}
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], name) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int total = 0, idx = 0, passed = 0, failed = 0, skipped = 0;
	struct ccore_test_case *tc;

	if (argc == 2 && (!strcmp(argv[1], "--list") || !strcmp(argv[1], "-l"))) {
		for (tc = cases; tc; tc = tc->next)
			puts(tc->name);
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: %s [--list] [CASE...]\nRuns the named test cases (default: %s) and prints TAP.\n",
		       argv[0], default_cases ? "its default selection" : "all");
		return 0;
	}
	for (tc = cases; tc; tc = tc->next)
		total += selected(tc->name, argc, argv);
	if (total == 0) {
		fprintf(stderr, "%s: no test case matches the names given (see --list)\n", argv[0]);
		return 2;
	}
	printf("TAP version 13\n1..%d\n", total);
	fflush(stdout);
	for (tc = cases; tc; tc = tc->next) {
		if (!selected(tc->name, argc, argv))
			continue;
		idx++;
		run_case(tc);
		if (case_status == 0) {
			printf("ok %d %s\n", idx, tc->name);
			passed++;
		} else if (case_status == 2) {
			printf("ok %d %s # SKIP %s\n", idx, tc->name, case_reason);
			skipped++;
		} else {
			printf("not ok %d %s\n# %s\n", idx, tc->name, case_reason);
			failed++;
		}
		fflush(stdout);
	}
	printf("# %d passed, %d failed, %d skipped\n", passed, failed, skipped);
	return failed ? 1 : 0;
}
