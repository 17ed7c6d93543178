/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host reference run of an executable (exe_ref.c): every rank's
 * tensors after one step, as [rank * ntensors + tensor] buffers, or NULL
 * (out of memory, an avg reduction, or a program that never ends).
 */
#ifndef EXE_REF_H
#define EXE_REF_H

#include <stdint.h>

#include "exec/exe.h"

uint8_t **exe_ref_run(const struct ccore_exe *exe);
void exe_ref_free(const struct ccore_exe *exe, uint8_t **t);

#endif
