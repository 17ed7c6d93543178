/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CC-core firmware programs built into libccore.
 *
 * Every firmware-programs/NAME.ccs is assembled at build time by
 * "ccore-as --c-array" into one generated C file that defines the table
 * below; the embedded backend loads the programs from it.  The kernel
 * driver gets the same programs as ccore/NAME.bin images through
 * request_firmware() instead.
 */
#ifndef CCORE_FIRMWARE_H
#define CCORE_FIRMWARE_H

#include "ccore_accel.h"

/**
 * struct ccore_firmware_blob - one assembled firmware program
 * @name: the source's file name without directory and ".ccs",
 *	e.g. "dispatcher"
 * @insns: its instructions (NULL if @count is 0)
 * @count: number of instructions
 */
struct ccore_firmware_blob {
	const char *name;
	const struct drm_ccore_insn *insns;
	unsigned int count;
};

/* Every firmware program, in the order ccore-as was given the sources. */
extern const struct ccore_firmware_blob ccore_firmware_blobs[];
extern const unsigned int ccore_firmware_blob_count;

#endif
