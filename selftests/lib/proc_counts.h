/* SPDX-License-Identifier: GPL-2.0 */
/* What a process holds, counted to show a test left nothing behind. */
#ifndef CCORE_PROC_COUNTS_H
#define CCORE_PROC_COUNTS_H

/* Entries of directory @path but "." and ".."; -1 if it cannot be read. */
int count_dir_entries(const char *path);
/* This process's open file descriptors (opendir's own not counted); -1 on failure. */
int count_open_fds(void);

#endif
