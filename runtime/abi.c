// SPDX-License-Identifier: MIT
/*
 * The library's version and the checks of a caller's sized config struct
 * (abi.h).
 */
#include "abi.h"

#include <string.h>

int ccore_get_version(int *version)
{
	if (!version)
		return ccore_error(-EINVAL, "ccore_get_version: version is NULL");
	*version = CCORE_VERSION_CODE;
	return 0;
}

/* The fields every sized struct starts with (ccore.h). */
struct abi_head {
	size_t size;
	uint32_t version;
};

#define V_ARGS(v) (v) / 10000, (v) / 100 % 100, (v) % 100

int abi_struct_in(const struct abi_struct *abi, void *dst, const void *src)
{
	const unsigned char *bytes = src;
	struct abi_head h;

	memcpy(&h, src, sizeof(h));	/* the caller's struct may be of any layout */
	if (!h.size || !h.version)
		return ccore_error(-EINVAL, "struct %s: %s is 0, the struct was not initialized; start from %s, which sets size and version",
				   abi->name, !h.size ? "size" : "version", abi->init);
	if (h.size < abi->first_size)
		return ccore_error(-EINVAL, "struct %s: size %zu is smaller than any published layout (the first, libccore %u.%u.%u, has %zu bytes); start from %s",
				   abi->name, h.size, V_ARGS(abi->first_version), abi->first_size,
				   abi->init);
	if (h.version / 10000 != CCORE_MAJOR || h.version < abi->first_version)
		return ccore_error(-EINVAL, "struct %s: version %u (%u.%u.%u) is not one this libccore %s reads; allowed: %u.%u.%u to any %u.x (set by %s)",
				   abi->name, h.version, V_ARGS(h.version), CCORE_VERSION_STRING,
				   V_ARGS(abi->first_version), CCORE_MAJOR, abi->init);
	for (size_t i = abi->size; i < h.size; i++)
		if (bytes[i])
			return ccore_error(-EINVAL, "struct %s: byte %zu of the caller's %zu is set, but this libccore %s knows only the first %zu (a field of libccore %u.%u.%u); leave it 0 or run on a newer library",
					   abi->name, i, h.size, CCORE_VERSION_STRING, abi->size,
					   V_ARGS(h.version));
	memset(dst, 0, abi->size);
	memcpy(dst, src, h.size < abi->size ? h.size : abi->size);
	return 0;
}
