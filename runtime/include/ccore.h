/* SPDX-License-Identifier: MIT */
/*
 * libccore public API.
 *
 * Conventions: functions return 0 or a negative errno; on failure
 * ccore_last_error() returns text (per thread) that names the bad argument
 * and the allowed values.
 */
#ifndef CCORE_H
#define CCORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CCORE_VERSION_MAJOR 0
#define CCORE_VERSION_MINOR 1

/* Text describing the last failure on this thread ("" if none). */
const char *ccore_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
