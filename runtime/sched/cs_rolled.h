/* SPDX-License-Identifier: MIT */
/* The verifier's checks of repeats, rolled (cs_verify_rolled.c), for cs_verify(). */
#ifndef CCORE_CS_ROLLED_H
#define CCORE_CS_ROLLED_H

#include "cs.h"

/* Structure, matching and iteration footprints of @s at any size; 0 or -EINVAL. */
int cs_verify_rolled(const struct cs_sched *s, char *err, size_t errlen);

#endif
