// SPDX-License-Identifier: GPL-2.0
/*
 * Buffer objects.  Device memory is GEM shmem, accounted against the
 * device's memory size; registered user memory is pinned user pages; a
 * buffer of another device of the same fabric, imported through dma-buf,
 * is a thin object that keeps the exporter's alive.  Every buffer is mapped
 * into the kernel for as long as it lives (the simulated DMA engines work
 * on kernel addresses) and into the address space of each file that has a
 * handle to it: that address space is what descriptors may touch.
 */
#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <drm/drm_drv.h>
#include <drm/drm_gem.h>
#include <drm/drm_prime.h>

#include "ccore_drv.h"

/* The file's address space gains or loses the object with its handle. */
static int ccore_bo_open(struct drm_gem_object *obj, struct drm_file *file)
{
	struct ccore_file *cfile = file->driver_priv;
	struct ccore_bo *bo = to_ccore_bo(obj);
	struct ccore_hw *hw = cfile->cdev->hw;
	u64 va;
	int rc;

	mutex_lock(&hw->lock);
	rc = ccm_vm_map(&cfile->vm, obj->size, bo->vaddr, bo->mem_dev, obj, &va);
	mutex_unlock(&hw->lock);
	return rc;
}

static void ccore_bo_close(struct drm_gem_object *obj, struct drm_file *file)
{
	struct ccore_file *cfile = file->driver_priv;
	struct ccore_hw *hw = cfile->cdev->hw;
	u32 i;

	mutex_lock(&hw->lock);
	for (i = 0; i < cfile->vm.count; i++) {
		if (cfile->vm.maps[i].bo == obj) {
			ccm_vm_unmap(&cfile->vm, cfile->vm.maps[i].va);
			break;
		}
	}
	mutex_unlock(&hw->lock);
}

/* Called with hw->lock held; 0 if the file has no handle to @obj. */
static u64 ccore_bo_va(struct ccore_file *cfile, struct drm_gem_object *obj)
{
	u32 i;

	for (i = 0; i < cfile->vm.count; i++)
		if (cfile->vm.maps[i].bo == obj)
			return cfile->vm.maps[i].va;
	return 0;
}

/*
 * Every buffer holds a reference on its device (ccore_bo_hold_device()):
 * a buffer imported elsewhere, or kept by another device's ring, can
 * outlive the exporter's files and the device's removal, and its release
 * still needs the device's memory accounting and GEM state.
 */
static void ccore_bo_hold_device(struct ccore_bo *bo)
{
	drm_dev_get(&bo->cdev->drm);
}

/*
 * The kernel mapping of a shmem buffer, taken and dropped as
 * drm_gem_vmap_unlocked() and drm_gem_vunmap_unlocked() do: the object's
 * .vmap and .vunmap under its reservation lock.  6.16 renamed those two
 * helpers (to drm_gem_vmap() and drm_gem_vunmap()); the callbacks kept
 * their contract, so the module builds before and after the rename.
 */
static int ccore_bo_vmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	int rc;

	dma_resv_lock(obj->resv, NULL);
	rc = obj->funcs->vmap(obj, map);
	dma_resv_unlock(obj->resv);
	if (!rc && iosys_map_is_null(map))
		rc = -ENOMEM;
	return rc;
}

static void ccore_bo_vunmap(struct drm_gem_object *obj, struct iosys_map *map)
{
	dma_resv_lock(obj->resv, NULL);
	obj->funcs->vunmap(obj, map);
	dma_resv_unlock(obj->resv);
}

static void ccore_shmem_free(struct drm_gem_object *obj)
{
	struct ccore_bo *bo = to_ccore_bo(obj);
	struct iosys_map map = IOSYS_MAP_INIT_VADDR(bo->vaddr);
	struct drm_device *drm = obj->dev;

	if (bo->vaddr)
		ccore_bo_vunmap(obj, &map);
	if (bo->accounted)
		bo->cdev->hw->ops->mem_release(bo->cdev->hw, bo->mem_dev, bo->accounted);
	drm_gem_shmem_free(&bo->shmem);
	drm_dev_put(drm);
}

/*
 * For fdinfo's drm-resident-memory: every buffer is pinned and mapped into
 * the kernel for as long as it lives (shmem pages by the vmap, user pages
 * by pin_user_pages(), imports by their exporter), and none is ever
 * purgeable.
 */
static enum drm_gem_object_status ccore_bo_status(struct drm_gem_object *obj)
{
	return DRM_GEM_OBJECT_RESIDENT;
}

static const struct drm_gem_object_funcs ccore_shmem_funcs = {
	.free = ccore_shmem_free,
	.open = ccore_bo_open,
	.close = ccore_bo_close,
	.status = ccore_bo_status,
	.print_info = drm_gem_shmem_object_print_info,
	.pin = drm_gem_shmem_object_pin,
	.unpin = drm_gem_shmem_object_unpin,
	.get_sg_table = drm_gem_shmem_object_get_sg_table,
	.vmap = drm_gem_shmem_object_vmap,
	.vunmap = drm_gem_shmem_object_vunmap,
	.mmap = drm_gem_shmem_object_mmap,
	.vm_ops = &drm_gem_shmem_vm_ops,
};

/* User pages and imports: no shmem behind them, nothing to mmap. */
static void ccore_private_free(struct drm_gem_object *obj)
{
	struct ccore_bo *bo = to_ccore_bo(obj);
	struct drm_device *drm = obj->dev;

	if (bo->kind == CCORE_BO_USERPTR) {
		vunmap(bo->vaddr);
		unpin_user_pages(bo->pages, bo->npages);
		kvfree(bo->pages);
	} else if (bo->backing) {
		drm_gem_object_put(bo->backing);
	}
	drm_gem_object_release(obj);
	kfree(bo);
	drm_dev_put(drm);
}

/*
 * Nor through a dma-buf made from them: without .mmap, mmap() of that
 * dma-buf takes drm_gem_prime_mmap()'s fallback, which goes through the
 * primary minor an accel device does not have (a NULL dereference).
 */
static int ccore_private_mmap(struct drm_gem_object *obj, struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct drm_gem_object_funcs ccore_private_funcs = {
	.free = ccore_private_free,
	.open = ccore_bo_open,
	.close = ccore_bo_close,
	.status = ccore_bo_status,
	.mmap = ccore_private_mmap,
};

struct drm_gem_object *ccore_gem_create_object(struct drm_device *drm, size_t size)
{
	struct ccore_bo *bo = kzalloc(sizeof(*bo), GFP_KERNEL);

	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->shmem.base.funcs = &ccore_shmem_funcs;
	bo->cdev = to_ccore_device(drm);
	bo->mem_dev = bo->cdev->index;
	return &bo->shmem.base;
}

/*
 * A dma-buf this module exported is one of our buffers: the same device
 * takes the object itself, another device of the same fabric a thin
 * object over the same memory.  Foreign dma-bufs are not supported: the
 * simulated engines need a kernel mapping a foreign exporter may not give.
 */
struct drm_gem_object *ccore_gem_prime_import(struct drm_device *drm, struct dma_buf *dma_buf)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct drm_gem_object *src;
	struct ccore_bo *bo, *src_bo;

	if (dma_buf->owner != THIS_MODULE) {
		drm_dbg_driver(drm, "PRIME import: only ccore buffers can be imported\n");
		return ERR_PTR(-EINVAL);
	}
	src = dma_buf->priv;
	if (src->dev == drm) {
		drm_gem_object_get(src);
		return src;
	}
	if (to_ccore_device(src->dev)->hw != cdev->hw) {
		drm_dbg_driver(drm, "PRIME import: buffer of another fabric\n");
		return ERR_PTR(-EXDEV);
	}
	src_bo = to_ccore_bo(src);
	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	drm_gem_private_object_init(drm, &bo->shmem.base, src->size);
	bo->shmem.base.funcs = &ccore_private_funcs;
	bo->kind = CCORE_BO_IMPORT;
	bo->cdev = cdev;
	ccore_bo_hold_device(bo);
	bo->vaddr = src_bo->vaddr;
	bo->mem_dev = src_bo->mem_dev;
	drm_gem_object_get(src);
	bo->backing = src;
	return &bo->shmem.base;
}

static int bo_create_shmem(struct ccore_device *cdev, struct drm_file *file,
			   struct drm_ccore_bo_create *a)
{
	struct ccore_hw *hw = cdev->hw;
	struct drm_gem_shmem_object *shmem;
	struct ccm_err err = {};
	struct iosys_map map;
	struct ccore_bo *bo;
	u64 span;
	int rc;

	if (!a->size || a->size > hw->cfg.hbm_size)
		return -EINVAL;
	span = PAGE_ALIGN(a->size);
	rc = hw->ops->mem_reserve(hw, cdev->index, span, &err);
	if (rc)
		return ccore_reject(file, "BO_CREATE", rc, &err);
	shmem = drm_gem_shmem_create(&cdev->drm, a->size);
	if (IS_ERR(shmem)) {
		hw->ops->mem_release(hw, cdev->index, span);
		return PTR_ERR(shmem);
	}
	bo = to_ccore_bo(&shmem->base);
	ccore_bo_hold_device(bo);
	bo->kind = CCORE_BO_SHMEM;
	bo->accounted = span;
	rc = ccore_bo_vmap(&shmem->base, &map);
	if (!rc) {
		bo->vaddr = map.vaddr;
		rc = drm_gem_handle_create(file, &shmem->base, &a->handle);
	}
	drm_gem_object_put(&shmem->base);
	return rc;
}

/* The caller's memory as a buffer: pinned, nothing accounted. */
static int bo_create_userptr(struct ccore_device *cdev, struct drm_file *file,
			     struct drm_ccore_bo_create *a)
{
	struct ccore_bo *bo;
	long pinned;
	int rc;

	if (!a->userptr || !PAGE_ALIGNED(a->userptr) || !a->size || !PAGE_ALIGNED(a->size) ||
	    a->size > cdev->hw->cfg.hbm_size)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(a->userptr), a->size))
		return -EFAULT;
	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return -ENOMEM;
	bo->kind = CCORE_BO_USERPTR;
	bo->cdev = cdev;
	bo->mem_dev = cdev->index;
	bo->npages = a->size >> PAGE_SHIFT;
	bo->pages = kvmalloc_array(bo->npages, sizeof(*bo->pages), GFP_KERNEL);
	if (!bo->pages) {
		kfree(bo);
		return -ENOMEM;
	}
	pinned = pin_user_pages_fast(a->userptr, bo->npages, FOLL_WRITE | FOLL_LONGTERM,
				     bo->pages);
	if (pinned != bo->npages) {
		if (pinned > 0)
			unpin_user_pages(bo->pages, pinned);
		kvfree(bo->pages);
		kfree(bo);
		return pinned < 0 ? pinned : -EFAULT;
	}
	bo->vaddr = vmap(bo->pages, bo->npages, VM_MAP, PAGE_KERNEL);
	drm_gem_private_object_init(&cdev->drm, &bo->shmem.base, a->size);
	bo->shmem.base.funcs = &ccore_private_funcs;
	ccore_bo_hold_device(bo);
	rc = bo->vaddr ? drm_gem_handle_create(file, &bo->shmem.base, &a->handle) : -ENOMEM;
	drm_gem_object_put(&bo->shmem.base);
	return rc;
}

int ccore_ioctl_bo_create(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_bo_create *a = data;
	struct drm_gem_object *obj;
	int rc;

	if (a->flags & ~DRM_CCORE_BO_F_USERPTR)
		return -EINVAL;
	if (a->flags & DRM_CCORE_BO_F_USERPTR)
		rc = bo_create_userptr(cdev, file, a);
	else
		rc = a->userptr ? -EINVAL : bo_create_shmem(cdev, file, a);
	if (rc)
		return rc;
	obj = drm_gem_object_lookup(file, a->handle);
	if (!obj)
		return -ENOENT;
	mutex_lock(&cdev->hw->lock);
	a->dev_addr = ccore_bo_va(cfile, obj);
	mutex_unlock(&cdev->hw->lock);
	drm_gem_object_put(obj);
	return 0;
}

int ccore_ioctl_bo_mmap_offset(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct drm_ccore_bo_mmap_offset *a = data;
	struct drm_gem_object *obj;
	int rc;

	if (a->pad)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, a->handle);
	if (!obj)
		return -ENOENT;
	/* user memory is mapped already; imports are mapped by their exporter */
	rc = to_ccore_bo(obj)->kind == CCORE_BO_SHMEM ? drm_gem_create_mmap_offset(obj) : -EINVAL;
	if (!rc)
		a->offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return rc;
}

int ccore_ioctl_bo_info(struct drm_device *drm, void *data, struct drm_file *file)
{
	struct ccore_device *cdev = to_ccore_device(drm);
	struct ccore_file *cfile = file->driver_priv;
	struct drm_ccore_bo_info *a = data;
	struct drm_gem_object *obj;

	obj = drm_gem_object_lookup(file, a->handle);
	if (!obj)
		return -ENOENT;
	a->device_index = to_ccore_bo(obj)->mem_dev;
	a->size = obj->size;
	mutex_lock(&cdev->hw->lock);
	a->dev_addr = ccore_bo_va(cfile, obj);
	mutex_unlock(&cdev->hw->lock);
	drm_gem_object_put(obj);
	return 0;
}
