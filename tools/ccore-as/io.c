// SPDX-License-Identifier: GPL-2.0
/* ccore-as: reading inputs and writing outputs atomically. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccore_as.h"

int ccore_as_read_file(const char *path, char **data, size_t *len)
{
	bool is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	size_t n = 0, cap = 4096;
	char *buf = NULL, *p;

	if (!f) {
		fprintf(stderr, "ccore-as: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* Read in chunks: the input may be a pipe of unknown size. */
	for (;;) {
		p = realloc(buf, cap + 1);
		if (!p) {
			fprintf(stderr, "ccore-as: %s: out of memory\n", path);
			goto fail;
		}
		buf = p;
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
	}
	if (ferror(f)) {
		fprintf(stderr, "ccore-as: %s: read error\n", path);
		goto fail;
	}
	if (!is_stdin)
		fclose(f);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
fail:
	free(buf);
	if (!is_stdin)
		fclose(f);
	return -1;
}

int ccore_as_out_open(struct ccore_as_out *o, const char *path)
{
	size_t n = strlen(path) + 32;
	int fd;

	o->path = path;
	o->tmp = NULL;
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->tmp = malloc(n);
	if (!o->tmp) {
		fprintf(stderr, "ccore-as: %s: out of memory\n", path);
		return -1;
	}
	snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
	/* open(), not mkstemp(): the result should honour the umask. */
	fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, 0666);
	o->f = fd < 0 ? NULL : fdopen(fd, "wb");
	if (!o->f) {
		fprintf(stderr, "ccore-as: %s: %s\n", o->tmp, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

int ccore_as_out_commit(struct ccore_as_out *o)
{
	int err = 0;

	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		err = errno ? errno : EIO;
	if (o->tmp) {
		if (fclose(o->f) != 0 && !err)
			err = errno ? errno : EIO;
		if (!err && rename(o->tmp, o->path) != 0)
			err = errno;
		if (err)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	if (err)
		fprintf(stderr, "ccore-as: %s: write error: %s\n", o->path,
			strerror(err));
	return err ? -1 : 0;
}

void ccore_as_out_abort(struct ccore_as_out *o)
{
	if (!o->tmp)
		return;
	fclose(o->f);
	unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
}
