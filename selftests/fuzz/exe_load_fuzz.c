// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the executable loader (make fuzz).  Any input:
 * ccore_exe_load() must return cleanly (ASan/UBSan watch every read).  An
 * input it accepts must round-trip: saved again it is the same bytes, and
 * its text description parses back into the same bytes; anything else
 * aborts, which the fuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_bytes(const struct ccore_exe *exe, const uint8_t *data, size_t size)
{
	void *buf;
	size_t len;

	if (ccore_exe_save(exe, &buf, &len) || len != size || memcmp(buf, data, size))
		abort();
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ccore_exe *exe, *again;
	char *text;

	if (ccore_exe_load(data, size, &exe))
		return 0;
	same_bytes(exe, data, size);
	if (ccore_exe_print_text(exe, &text))
		abort();
	if (ccore_exe_parse_text("dump", text, strlen(text), &again))
		abort();
	same_bytes(again, data, size);
	free(text);
	ccore_exe_free(again);
	ccore_exe_free(exe);
	return 0;
}
