// SPDX-License-Identifier: GPL-2.0
/* Failure reporting: every rejection says what was wrong and what is allowed. */
#include "ccm.h"

static __printf(6, 0) int ccm_vfail(struct ccm_err *err, int errno_neg, u32 index, u32 reason,
				     u64 limit, const char *fmt, va_list ap)
{
	if (!err)
		return errno_neg;
	err->index = index;
	err->reason = reason;
	err->limit = limit;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return errno_neg;
}

int ccm_fail(struct ccm_err *err, int errno_neg, u32 index, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = ccm_vfail(err, errno_neg, index, DRM_CCORE_REASON_NONE, 0, fmt, ap);
	va_end(ap);
	return rc;
}

int ccm_reject(struct ccm_err *err, int errno_neg, u32 reason, u64 limit, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = ccm_vfail(err, errno_neg, CCM_NO_INDEX, reason, limit, fmt, ap);
	va_end(ap);
	return rc;
}
