// SPDX-License-Identifier: GPL-2.0
/* A CCORE_TUNER_FILE for a test (tuner_file.h). */
#include "tuner_file.h"
#include "ccore_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

const char *tuner_file_write(const char *text)
{
	size_t len = strlen(text);
	int fd;

	snprintf(path, sizeof(path), "/tmp/ccore_tune_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		FAIL("cannot create a tuning file in /tmp");
	if (write(fd, text, len) != (ssize_t)len) {
		close(fd);
		FAIL("cannot write the tuning file %s", path);
	}
	close(fd);
	return path;
}

void tuner_file_use(const char *text)
{
	setenv("CCORE_TUNER_FILE", tuner_file_write(text), 1);
}

void tuner_file_force(const char *algo, unsigned int slices)
{
	char text[256];

	snprintf(text, sizeof(text), TUNER_FILE_HEADER "*,*,*,*,*,%s,%u,1\n", algo, slices);
	tuner_file_use(text);
}

void tuner_file_remove(void)
{
	unsetenv("CCORE_TUNER_FILE");
	unlink(path);
}
