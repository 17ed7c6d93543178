/* SPDX-License-Identifier: GPL-2.0 */
/* Internal to ccore-as: file handling and the C array writer. */
#ifndef CCORE_AS_H
#define CCORE_AS_H

#include <stddef.h>
#include <stdio.h>

#include "isa/ccas.h"

/*
 * Read all of @path ("-": standard input) into a malloc'd buffer with a
 * NUL appended.  On failure prints "ccore-as: PATH: reason" and returns -1.
 */
int ccore_as_read_file(const char *path, char **data, size_t *len);

/**
 * struct ccore_as_out - an output file written atomically
 * @f: stream to write
 * @path: final name ("-": standard output)
 * @tmp: temporary name renamed to @path on success (NULL for stdout)
 *
 * A failed run must not leave a half-written or stale-but-newer output
 * behind for make to trust, hence write-then-rename.
 */
struct ccore_as_out {
	FILE *f;
	const char *path;
	char *tmp;
};

int ccore_as_out_open(struct ccore_as_out *o, const char *path);
/* Flush, close and rename into place; prints the error and returns -1. */
int ccore_as_out_commit(struct ccore_as_out *o);
/* Close and delete the temporary file. */
void ccore_as_out_abort(struct ccore_as_out *o);

/**
 * struct ccore_as_prog - one assembled input of --c-array
 * @path: source file
 * @insns: its instructions
 * @count: how many
 */
struct ccore_as_prog {
	const char *path;
	struct drm_ccore_insn *insns;
	size_t count;
};

/*
 * Write the C source defining ccore_firmware_blobs[] for @n programs.
 * Returns 0, or -1 after printing why (e.g. two sources with one name).
 */
int ccore_as_write_c_array(FILE *f, const struct ccore_as_prog *progs,
			   size_t n);

#endif
