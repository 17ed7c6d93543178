// SPDX-License-Identifier: GPL-2.0
/*
 * The uAPI header must compile on its own, with nothing included before it,
 * as strict C99 and as strict C++11: userspace in either language includes
 * it directly.  The Makefile runs this file through
 *   gcc -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only
 *   g++ -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only
 * so it includes only the header and sticks to what both languages accept
 * (no designated initializers, no _Static_assert, no static_assert).
 */
#include "ccore_accel.h"

/*
 * Use the types, enums and macros the way a caller would.  static inline:
 * neither language warns that it is unused, and it needs no prototype.
 */
static inline unsigned long ccore_header_use(struct drm_ccore_desc *desc,
					     struct drm_ccore_insn *insn,
					     const struct drm_ccore_param_args *param)
{
	/* compile-time checks that C99 and C++11 both understand */
	char desc_is_48_bytes[sizeof(struct drm_ccore_desc) == 48 ? 1 : -1];
	char insn_is_16_bytes[sizeof(struct drm_ccore_insn) == 16 ? 1 : -1];
	enum drm_ccore_dtype dtype = DRM_CCORE_DTYPE_BF16;
	enum drm_ccore_redop redop = DRM_CCORE_REDOP_SUM;
	__u32 sem = DRM_CCORE_SEM_REF(1, 2, 3);

	(void)desc_is_48_bytes;
	(void)insn_is_16_bytes;
	desc->op = DRM_CCORE_DESC_REDUCE;
	desc->dtype = (__u8)dtype;
	desc->redop = (__u8)redop;
	desc->flags = DRM_CCORE_DESC_F_SIGNAL;
	desc->signal_sem = sem;
	desc->signal_value = 1;
	desc->len = param->value;

	insn->opcode = DRM_CCORE_OP_WAIT;
	insn->sem = DRM_CCORE_SEM_REF_IDX(sem);
	insn->imm = 1;
	insn->target = -1;

	return DRM_IOCTL_CCORE_GET_PARAM + DRM_IOCTL_CCORE_RING_SUBMIT;
}
