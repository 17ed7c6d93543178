/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hardware behind the driver, as an ops table: the simulated fabric
 * (ccore_sim.c) implements it today; a PCI device would plug in beside it.
 * Descriptor and program formats, limits and status types are the device
 * model's (model/ccm.h), which documents the hardware.
 *
 * Every op is called with hw->lock held unless it says otherwise.
 */
#ifndef CCORE_HW_H
#define CCORE_HW_H

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "ccm.h"
#include "ccm_verify.h"

struct ccore_hw;
struct ccore_device;

struct ccore_hw_ops {
	/* references: every accel device of the fabric holds one */
	void (*get)(struct ccore_hw *hw);
	void (*put)(struct ccore_hw *hw);

	/* device memory accounting */
	int (*mem_reserve)(struct ccore_hw *hw, u32 dev, u64 bytes, struct ccm_err *err);
	void (*mem_release)(struct ccore_hw *hw, u32 dev, u64 bytes);
	u64 (*mem_used)(struct ccore_hw *hw, u32 dev);

	/* packet-size knobs: CC rings (may only be lowered), compute rings
	 * (may only be raised)
	 */
	u32 (*packet_size)(struct ccore_hw *hw, u32 dev, bool compute);
	int (*set_packet_size)(struct ccore_hw *hw, u32 dev, bool compute, u32 bytes,
			       struct ccm_err *err);

	/* DMA rings */
	int (*ring_claim)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			  u32 slots, u32 packet_size, s64 index_stride, u32 index_count,
			  void *owner, struct ccm_err *err);
	int (*ring_release)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			    struct ccm_err *err);
	void *(*ring_owner)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring);
	int (*ring_write)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			  const struct ccm_hwdesc *descs, u32 count, struct ccm_err *err);
	int (*ring_start)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			  u32 count, struct ccm_err *err);
	/* lock not needed */
	void (*ring_stats)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			   struct ccm_ring_stats *st);
	bool (*ring_idle)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring);
	/* drop what the ring has started: it goes idle within one packet */
	void (*ring_abort)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring);

	/* semaphores, named by DRM_CCORE_SEM_REF() */
	int (*sem_alloc)(struct ccore_hw *hw, u32 dev, u32 core, u32 count, void *owner,
			 u32 *first, struct ccm_err *err);
	int (*sem_free)(struct ccore_hw *hw, u32 first, void *owner, struct ccm_err *err);
	void *(*sem_owner)(struct ccore_hw *hw, u32 ref);
	bool (*sem_valid)(struct ccore_hw *hw, u32 ref);
	/* lock not needed */
	u32 (*sem_read)(struct ccore_hw *hw, u32 ref);
	void (*sem_write)(struct ccore_hw *hw, u32 ref, u32 op, u32 value);

	/* validation and translation into the hardware's formats */
	int (*desc_translate)(struct ccore_hw *hw, const struct ccm_verify_ctx *v,
			      const struct drm_ccore_desc *d, u32 index, struct ccm_hwdesc *out,
			      struct ccm_err *err);
	int (*program_verify)(struct ccore_hw *hw, const struct ccm_verify_ctx *v,
			      const struct drm_ccore_insn *insns, u32 count, struct ccm_err *err);

	int (*compute_verify)(struct ccore_hw *hw, const struct ccm_verify_ctx *v,
			      const struct drm_ccore_ce_insn *insns, u32 count, u32 engine,
			      u32 ring, struct ccm_hwdesc *descs, u32 *ndma,
			      struct ccm_err *err);

	/* compute engines: run a verified program (locked), then lock-free */
	int (*compute_submit)(struct ccore_hw *hw, u32 dev, u32 core,
			      const struct drm_ccore_ce_insn *insns, u32 count, u32 engine,
			      u32 ring, const struct ccm_hwdesc *descs, u32 ndma, void *owner,
			      struct ccm_err *err);
	bool (*compute_idle)(struct ccore_hw *hw, u32 dev, u32 core);
	void (*compute_abort)(struct ccore_hw *hw, u32 dev, u32 core, void *owner, int status);
	void (*compute_info)(struct ccore_hw *hw, u32 dev, u32 core,
			     struct ccm_compute_info *info);

	/* CC cores */
	int (*cc_load)(struct ccore_hw *hw, u32 dev, u32 cc, const struct drm_ccore_insn *insns,
		       u32 count, u32 *base, struct ccm_err *err);
	void (*cc_unload)(struct ccore_hw *hw, u32 dev, u32 cc, u32 base);
	/* lock not needed from here on */
	int (*cc_enqueue)(struct ccore_hw *hw, u32 dev, u32 cc, u32 base, u64 cookie,
			  struct ccm_err *err);
	void (*cc_trigger)(struct ccore_hw *hw, u32 dev, u32 cc, u32 count);
	/* stop the CC core, fail its running and queued jobs with @status */
	void (*cc_reset)(struct ccore_hw *hw, u32 dev, u32 cc, int status);
	void (*cc_info)(struct ccore_hw *hw, u32 dev, u32 cc, struct ccm_cc_info *info);

	/* wait until @cond(arg) or the ktime_get_ns() @deadline; may run
	 * hardware work on the calling thread
	 */
	int (*wait)(struct ccore_hw *hw, bool (*cond)(void *arg), void *arg, s64 deadline);
	/* work the host just started: run some of it now */
	void (*kick)(struct ccore_hw *hw);

	/*
	 * The NIC (model/ccm_nic.c), on a fabric that is one host of several:
	 * lock held, but for @nic_posted and @nic_arrived
	 */
	bool (*dev_remote)(struct ccore_hw *hw, u32 dev);
	bool (*nic_posted)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring);
	int (*nic_take)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			u64 max_len, struct ccm_nic_xfer *x);
	void (*nic_done)(struct ccore_hw *hw, const struct ccm_nic_xfer *x, int status);
	void (*nic_cancel)(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			   int status);
	int (*nic_arrived)(struct ccore_hw *hw, u32 sem, u32 value, bool set);

	/* fault injection (debugfs) */
	int (*inject_dma_error)(struct ccore_hw *hw, u32 dev, u32 core, struct ccm_err *err);
	int (*inject_cc_hang)(struct ccore_hw *hw, u32 dev, u32 cc, struct ccm_err *err);
	void (*link_stats)(struct ccore_hw *hw, u32 dev, struct ccm_link_stats *st);
};

/**
 * struct ccore_hw - one fabric: the devices that share links and semaphores
 * @ops: the hardware's operations
 * @cfg: its shape and limits
 * @lock: serialises control operations on every device of the fabric
 * @devices: the accel devices, @cfg.devices_per_node * @cfg.nodes of them
 * @num_devices: how many
 * @fw_size: instructions of the resident firmware on every CC core
 * @id: instance number (the simulated bus's device id)
 * @nic_wq: woken when a ring parks on a descriptor for the NIC (the
 *	proxies poll() their files)
 */
struct ccore_hw {
	const struct ccore_hw_ops *ops;
	struct ccm_config cfg;
	struct mutex lock;		/* control ops on all devices */
	struct ccore_device **devices;
	u32 num_devices;
	u32 fw_size;
	u32 id;
	wait_queue_head_t nic_wq;
};

static inline u32 ccore_hw_num_cc(const struct ccore_hw *hw)
{
	return hw->cfg.cores * hw->cfg.cc_cores;
}

#endif
