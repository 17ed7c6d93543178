/* SPDX-License-Identifier: MIT */
/*
 * The ABI's growth (Documentation/library.rst): config structs a caller
 * passes start with size_t size and uint32_t version, as their
 * CCORE_*_INIT initializer sets them, so that a program built against an
 * older or newer ccore.h still hands the library a struct it can read.
 */
#ifndef CCORE_ABI_H
#define CCORE_ABI_H

#include "ccore_internal.h"

/* One sized struct of the public headers. */
struct abi_struct {
	const char *name;		/* "ccore_comm_config" */
	const char *init;		/* its initializer, "CCORE_COMM_CONFIG_INIT" */
	size_t size;			/* this library's sizeof */
	size_t first_size;		/* the sizeof of its first published layout */
	uint32_t first_version;		/* the CCORE_VERSION_CODE that published it */
};

/*
 * Copy the caller's @src into @dst, this library's layout (@abi->size
 * bytes): what an older caller's smaller struct lacks is zero ("not set"),
 * and a newer caller's bytes past @abi->size must be zero (fields this
 * library does not know, left unset).  -EINVAL with a last error naming
 * @abi->name and what is wrong with its size or version.
 */
int abi_struct_in(const struct abi_struct *abi, void *dst, const void *src);

#endif
