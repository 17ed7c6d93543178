// SPDX-License-Identifier: GPL-2.0
/* What a process holds (proc_counts.h). */
#include "proc_counts.h"

#include <dirent.h>
#include <string.h>

int count_dir_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int count_open_fds(void)
{
	int n = count_dir_entries("/proc/self/fd");

	return n < 0 ? n : n - 1;	/* opendir's own fd */
}
