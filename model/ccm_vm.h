/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A context's device address space: buffer objects (own or imported) mapped
 * at device virtual addresses.  Mappings are kept sorted; a page-sized gap
 * separates neighbours so an overrun never lands in the next buffer.
 */
#ifndef CCM_VM_H
#define CCM_VM_H

#include "ccm_os.h"

#define CCM_VM_BASE 0x100000000ull
#define CCM_VM_PAGE 4096ull

struct ccm_vm_map {
	u64 va;
	u64 size;
	u8 *host;	/* bytes behind the mapping; NULL: on another host */
	u32 dev;	/* device whose memory it is */
	void *bo;	/* the owner's buffer object */
	u64 remote;	/* on another host: the address there of its first byte */
};

struct ccm_vm {
	struct ccm_vm_map *maps;
	u32 count, cap;
	u64 next_va;
};

void ccm_vm_init(struct ccm_vm *vm);
void ccm_vm_fini(struct ccm_vm *vm);
/* Map @size bytes of this host at @host (not NULL) at a fresh address, in @va. */
int ccm_vm_map(struct ccm_vm *vm, u64 size, u8 *host, u32 dev, void *bo, u64 *va);
/*
 * Map @size bytes of device @dev on another host, whose first byte is at
 * @remote there (what that host's NIC takes, see ccm_nic.c): descriptors
 * may only write them, through the NIC.
 */
int ccm_vm_map_remote(struct ccm_vm *vm, u64 size, u32 dev, u64 remote, u64 *va);
int ccm_vm_unmap(struct ccm_vm *vm, u64 va);
/*
 * The mapping of this host's memory that wholly contains [va, va + len),
 * or NULL: also for another host's memory, which has no bytes here.
 */
const struct ccm_vm_map *ccm_vm_find(const struct ccm_vm *vm, u64 va, u64 len);
/*
 * As ccm_vm_find(), another host's mappings too (host NULL): only for
 * callers that route those to the NIC, or name them in a refusal.
 */
const struct ccm_vm_map *ccm_vm_find_any(const struct ccm_vm *vm, u64 va, u64 len);

#endif
