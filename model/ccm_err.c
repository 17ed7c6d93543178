// SPDX-License-Identifier: GPL-2.0
/* Failure reporting: every rejection says what was wrong and what is allowed. */
#include "ccm.h"

#ifndef __KERNEL__
#endif

int ccm_fail(struct ccm_err *err, int errno_neg, u32 index, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return errno_neg;
	err->index = index;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return errno_neg;
}
