// SPDX-License-Identifier: MIT
/* libccore failures as exceptions (errors.h). */
#include "errors.h"

#include <ccore.h>

#include <cstring>
#include <stdexcept>

namespace ccore_torch {

void fail_ccore(int rc, const std::string &what)
{
	const char *detail = ccore_last_error();

	throw std::runtime_error(what + " failed: " +
				 (detail && *detail ? detail : "(no detail)") + " (" +
				 std::strerror(-rc) + ")");
}

} // namespace ccore_torch
