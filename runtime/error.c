// SPDX-License-Identifier: MIT
/* The per-thread last error behind ccore_last_error(). */
#include "ccore_internal.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[512];

const char *ccore_last_error(void)
{
	return last_error;
}

int ccore_error(int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	return rc;
}
