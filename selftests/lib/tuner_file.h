/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A CCORE_TUNER_FILE for a test: written to a new file in /tmp, named in
 * the environment when the test wants the runtime to read it, removed
 * after.  One at a time.  Each helper fails the current test when the
 * file cannot be written.
 */
#ifndef TUNER_FILE_H
#define TUNER_FILE_H

/* The first line of every tuning file */
#define TUNER_FILE_HEADER "op,min_bytes,max_bytes,nodes,ranks,algorithm,slices,channels\n"

/* @text in a new file: its path, valid until tuner_file_remove(). */
const char *tuner_file_write(const char *text);
/* @text in a new file that CCORE_TUNER_FILE names. */
void tuner_file_use(const char *text);
/* Every call, whatever its collective, size or shape, runs @algo with
 * @slices slices and one channel. */
void tuner_file_force(const char *algo, unsigned int slices);
/* CCORE_TUNER_FILE unset and the last file removed. */
void tuner_file_remove(void);

#endif
