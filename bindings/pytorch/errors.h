// SPDX-License-Identifier: MIT
/*
 * A failed libccore call as a C++ exception: what failed, ccore_last_error()'s
 * text (this thread's) and the errno's, so that Python's RuntimeError names
 * the cause.
 */
#pragma once

#include <string>

namespace ccore_torch {

[[noreturn]] void fail_ccore(int rc, const std::string &what);

static inline void check_ccore(int rc, const std::string &what)
{
	if (rc)
		fail_ccore(rc, what);
}

} // namespace ccore_torch
