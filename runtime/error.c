// SPDX-License-Identifier: MIT
/*
 * The per-thread last error behind ccore_last_error().  A message is never
 * cut off: one longer than the thread's buffer (messages quote user text
 * such as $CCORE_SIM) goes to a heap buffer of its own size, freed when
 * the thread exits.
 */
#include "ccore_internal.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char last_error[512];
static _Thread_local char *long_error;	/* the last error when it did not fit */
static pthread_key_t long_key;
static pthread_once_t long_once = PTHREAD_ONCE_INIT;
static int long_key_rc;

static void long_key_create(void)
{
	long_key_rc = pthread_key_create(&long_key, free);
}

const char *ccore_last_error(void)
{
	return long_error ? long_error : last_error;
}

/* Keep @p (a heap message) as this thread's long error; false if it cannot. */
static bool keep_long(char *p)
{
	char *old;

	pthread_once(&long_once, long_key_create);
	if (long_key_rc)
		return false;
	old = pthread_getspecific(long_key);
	if (pthread_setspecific(long_key, p))
		return false;
	free(old);	/* after formatting: the message may have quoted it */
	long_error = p;
	return true;
}

int ccore_error(int rc, const char *fmt, ...)
{
	char msg[sizeof(last_error)], *p = NULL;
	va_list ap;
	int n;

	/* formatted apart first: the arguments may quote the last error */
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(msg)) {
		p = malloc((size_t)n + 1);
		if (p) {
			va_start(ap, fmt);
			vsnprintf(p, (size_t)n + 1, fmt, ap);
			va_end(ap);
		}
		if (p && keep_long(p))
			return rc;
		free(p);
		/* out of memory: say so rather than end mid-word */
		snprintf(msg + sizeof(msg) - 32, 32, "... (cut: out of memory)");
	}
	memcpy(last_error, msg, sizeof(msg));
	long_error = NULL;
	return rc;
}
