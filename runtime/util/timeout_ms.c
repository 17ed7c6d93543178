// SPDX-License-Identifier: MIT
/* Timeouts from the caller or the environment (see timeout_ms.h). */
#include "util/timeout_ms.h"
#include "ccore_internal.h"

#include <errno.h>
#include <stdlib.h>

int timeout_ms_pick(int ms, const char *what, const char *env, int def, int max, int *out)
{
	const char *v = getenv(env);
	unsigned long t;
	char *end;

	if (ms < 0 || ms > max)
		return ccore_error(-EINVAL, "%s %d ms: expected 1 to %d, or 0 for $%s", what, ms,
				   max, env);
	*out = ms ? ms : def;
	if (ms || !v || !*v)
		return 0;
	t = strtoul(v, &end, 10);
	if (*end || *v == '-' || *v == '+' || t < 1 || t > (unsigned long)max)
		return ccore_error(-EINVAL, "%s=%s: expected milliseconds from 1 to %d (default %d)",
				   env, v, max, def);
	*out = (int)t;
	return 0;
}
