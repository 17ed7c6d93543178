/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Simulated devices: a bus like netdevsim's (/sys/bus/ccore_sim/new_device
 * and del_device) whose devices are fabrics of the device model, each
 * registering one accel device per simulated accelerator.
 */
#ifndef CCORE_SIM_H
#define CCORE_SIM_H

#include <linux/device.h>
#include <linux/kref.h>

#include "ccore_hw.h"

struct ccore_sim {
	struct ccore_hw hw;		/* first: hw <-> sim casts */
	struct kref kref;		/* the bus device's and each drm device's */
	struct ccm_fabric *f;
};

static inline struct ccore_sim *to_ccore_sim(struct ccore_hw *hw)
{
	return container_of(hw, struct ccore_sim, hw);
}

/* Fabric index of the first device on this host (config "here"). */
static inline u32 ccore_sim_first_device(const struct ccore_sim *sim)
{
	return sim->hw.cfg.here == CCM_ALL_NODES ? 0 :
	       sim->hw.cfg.here * sim->hw.cfg.devices_per_node;
}

extern const struct ccore_hw_ops ccore_sim_hw_ops;
extern const struct ccm_host_ops ccore_sim_host_ops;

struct ccore_sim *ccore_sim_create(u32 id, u32 num_devices, const char *options,
				   struct device *dev);
void ccore_sim_get(struct ccore_sim *sim);
void ccore_sim_put(struct ccore_sim *sim);

int ccore_sim_init(void);
void ccore_sim_exit(void);

#endif
