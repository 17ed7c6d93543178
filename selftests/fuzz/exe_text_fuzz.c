// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the text description reader (make fuzz
 * FUZZ_TARGET=exe_text).  Any input: ccore_exe_parse_text() returns
 * cleanly.  A description it accepts saves to bytes the loader accepts and
 * saves again unchanged, and whose dump reads back into the same bytes;
 * anything else aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void save_or_abort(const struct ccore_exe *exe, void **buf, size_t *len)
{
	if (ccore_exe_save(exe, buf, len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ccore_exe *exe, *loaded, *again;
	void *bin, *bin2, *bin3;
	size_t len, len2, len3;
	char *text;

	if (ccore_exe_parse_text("fuzz", (const char *)data, size, &exe))
		return 0;
	save_or_abort(exe, &bin, &len);
	if (ccore_exe_load(bin, len, &loaded))
		abort();
	save_or_abort(loaded, &bin2, &len2);
	if (ccore_exe_print_text(loaded, &text) ||
	    ccore_exe_parse_text("dump", text, strlen(text), &again))
		abort();
	save_or_abort(again, &bin3, &len3);
	if (len2 != len || memcmp(bin2, bin, len) || len3 != len || memcmp(bin3, bin, len))
		abort();
	free(bin);
	free(bin2);
	free(bin3);
	free(text);
	ccore_exe_free(again);
	ccore_exe_free(loaded);
	ccore_exe_free(exe);
	return 0;
}
