// SPDX-License-Identifier: GPL-2.0
/* A context's device address space (see ccm_vm.h). */
#include "ccm_vm.h"
#include "ccm.h"

void ccm_vm_init(struct ccm_vm *vm)
{
	memset(vm, 0, sizeof(*vm));
	vm->next_va = CCM_VM_BASE;
}

void ccm_vm_fini(struct ccm_vm *vm)
{
	ccm_free(vm->maps);
	memset(vm, 0, sizeof(*vm));
}

static int vm_add(struct ccm_vm *vm, u64 size, u8 *host, u32 dev, void *bo, u64 *va)
{
	u64 span = (size + CCM_VM_PAGE - 1) & ~(CCM_VM_PAGE - 1);

	if (size == 0 || span < size)
		return -EINVAL;
	if (vm->count == vm->cap &&
	    ccm_grow((void **)&vm->maps, &vm->cap, vm->count, sizeof(*vm->maps), 16))
		return -ENOMEM;
	/* Addresses only grow, so appending keeps the array sorted. */
	*va = vm->next_va;
	vm->maps[vm->count++] = (struct ccm_vm_map){
		.va = *va, .size = size, .host = host, .dev = dev, .bo = bo,
	};
	vm->next_va += span + CCM_VM_PAGE;
	return 0;
}

/* Only another host's memory has no bytes here: ccm_vm_find() relies on it. */
int ccm_vm_map(struct ccm_vm *vm, u64 size, u8 *host, u32 dev, void *bo, u64 *va)
{
	return host ? vm_add(vm, size, host, dev, bo, va) : -EINVAL;
}

int ccm_vm_map_remote(struct ccm_vm *vm, u64 size, u32 dev, u64 remote, u64 *va)
{
	int rc = vm_add(vm, size, NULL, dev, NULL, va);

	if (!rc)
		vm->maps[vm->count - 1].remote = remote;
	return rc;
}

static s64 vm_index(const struct ccm_vm *vm, u64 va)
{
	u32 lo = 0, hi = vm->count;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (vm->maps[mid].va <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (s64)lo - 1;	/* last mapping starting at or below va */
}

int ccm_vm_unmap(struct ccm_vm *vm, u64 va)
{
	s64 i = vm_index(vm, va);

	if (i < 0 || vm->maps[i].va != va)
		return -ENOENT;
	memmove(&vm->maps[i], &vm->maps[i + 1], (vm->count - (u32)i - 1) * sizeof(*vm->maps));
	vm->count--;
	return 0;
}

const struct ccm_vm_map *ccm_vm_find_any(const struct ccm_vm *vm, u64 va, u64 len)
{
	s64 i = vm_index(vm, va);
	const struct ccm_vm_map *m;

	if (i < 0)
		return NULL;
	m = &vm->maps[i];
	if (va - m->va > m->size || len > m->size - (va - m->va))
		return NULL;
	return m;
}

const struct ccm_vm_map *ccm_vm_find(const struct ccm_vm *vm, u64 va, u64 len)
{
	const struct ccm_vm_map *m = ccm_vm_find_any(vm, va, len);

	return m && m->host ? m : NULL;
}
