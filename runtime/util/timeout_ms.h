/* SPDX-License-Identifier: MIT */
/*
 * A timeout in milliseconds that the caller may pass and an environment
 * variable may set, as the bootstrap's and the network's are: the caller's
 * when not 0, else the variable's when set, else the default.  One parser,
 * so that both take the same values and name a bad one the same way.
 */
#ifndef CCORE_UTIL_TIMEOUT_MS_H
#define CCORE_UTIL_TIMEOUT_MS_H

/*
 * *@out = @ms (1 to @max), or $@env (1 to @max), or @def; -EINVAL naming
 * the bad value (@what names the timeout: "network timeout 0 ms: ...").
 */
int timeout_ms_pick(int ms, const char *what, const char *env, int def, int max, int *out);

#endif
