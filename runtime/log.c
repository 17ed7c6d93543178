// SPDX-License-Identifier: MIT
/* Logging controlled by CCORE_DEBUG (see log.h). */
#include "log.h"
#include "ccore_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

static int level;

int log_init(void)
{
	const char *v = getenv("CCORE_DEBUG");

	if (!v || !*v || !strcasecmp(v, "WARN"))
		level = LOG_WARN;
	else if (!strcasecmp(v, "INFO"))
		level = LOG_INFO;
	else if (!strcasecmp(v, "TRACE"))
		level = LOG_TRACE;
	else
		return ccore_error(-EINVAL, "CCORE_DEBUG=%s: expected WARN, INFO or TRACE", v);
	return 0;
}

int log_level(void)
{
	if (!level)
		log_init();
	return level;
}

void log_msg(int lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl > log_level())
		return;
	fprintf(stderr, "ccore %s: ", lvl == LOG_WARN ? "WARN" : lvl == LOG_INFO ? "INFO" : "TRACE");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
