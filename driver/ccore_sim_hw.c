// SPDX-License-Identifier: GPL-2.0
/*
 * The simulated hardware: the hardware ops table on the device model, and
 * the life of a fabric (created with its resident firmware loaded on every
 * CC core, destroyed when the last device that uses it is gone).
 */
#include <linux/firmware.h>
#include <linux/slab.h>

#include "ccore_drv.h"
#include "ccore_sim.h"

#define CCORE_FW_NAME "ccore/dispatcher.bin"
#define CCORE_FW_MAGIC "CCPG"
#define CCORE_FW_VERSION 1
#define CCORE_FW_HEADER 16

static struct ccm_fabric *fab(struct ccore_hw *hw)
{
	return to_ccore_sim(hw)->f;
}

static int sim_mem_reserve(struct ccore_hw *hw, u32 dev, u64 bytes, struct ccm_err *err)
{
	return ccm_device_mem_reserve(fab(hw), dev, bytes, err);
}

static void sim_mem_release(struct ccore_hw *hw, u32 dev, u64 bytes)
{
	ccm_device_mem_release(fab(hw), dev, bytes);
}

static u64 sim_mem_used(struct ccore_hw *hw, u32 dev)
{
	return ccm_device_mem_used(fab(hw), dev);
}

static u32 sim_packet_size(struct ccore_hw *hw, u32 dev, bool compute)
{
	return compute ? ccm_device_dma_packetization(fab(hw), dev) :
			 ccm_device_cc_packet_size(fab(hw), dev);
}

static int sim_set_packet_size(struct ccore_hw *hw, u32 dev, bool compute, u32 bytes,
			       struct ccm_err *err)
{
	return compute ? ccm_device_set_dma_packetization(fab(hw), dev, bytes, err) :
			 ccm_device_set_cc_packet_size(fab(hw), dev, bytes, err);
}

static int sim_ring_claim(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			  u32 slots, u32 packet_size, s64 index_stride, u32 index_count,
			  void *owner, struct ccm_err *err)
{
	return ccm_ring_claim(fab(hw), dev, core, engine, ring, slots, packet_size, index_stride,
			      index_count, owner, err);
}

static int sim_ring_release(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			    struct ccm_err *err)
{
	return ccm_ring_release(fab(hw), dev, core, engine, ring, err);
}

static void *sim_ring_owner(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring)
{
	return ccm_ring_owner(fab(hw), dev, core, engine, ring);
}

static int sim_ring_write(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			  const struct ccm_hwdesc *descs, u32 count, struct ccm_err *err)
{
	return ccm_ring_write(fab(hw), dev, core, engine, ring, descs, count, err);
}

static int sim_ring_start(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			  u32 count, struct ccm_err *err)
{
	return ccm_ring_start(fab(hw), dev, core, engine, ring, count, err);
}

static void sim_ring_stats(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			   struct ccm_ring_stats *st)
{
	ccm_ring_stats(fab(hw), dev, core, engine, ring, st);
}

static bool sim_ring_idle(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring)
{
	return ccm_ring_idle(fab(hw), dev, core, engine, ring);
}

static void sim_ring_abort(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring)
{
	ccm_ring_abort(fab(hw), dev, core, engine, ring);
}

static int sim_sem_alloc(struct ccore_hw *hw, u32 dev, u32 core, u32 count, void *owner,
			 u32 *first, struct ccm_err *err)
{
	return ccm_sem_alloc(fab(hw), dev, core, count, owner, first, err);
}

static int sim_sem_free(struct ccore_hw *hw, u32 first, void *owner, struct ccm_err *err)
{
	return ccm_sem_free(fab(hw), first, owner, err);
}

static void *sim_sem_owner(struct ccore_hw *hw, u32 ref)
{
	return ccm_sem_owner(fab(hw), ref);
}

static bool sim_sem_valid(struct ccore_hw *hw, u32 ref)
{
	return ccm_sem_valid(fab(hw), ref);
}

static u32 sim_sem_read(struct ccore_hw *hw, u32 ref)
{
	return ccm_sem_read(fab(hw), ref);
}

static void sim_sem_write(struct ccore_hw *hw, u32 ref, u32 op, u32 value)
{
	if (op == DRM_CCORE_SEM_SET)
		ccm_sem_set(fab(hw), ref, value);
	else if (op == DRM_CCORE_SEM_ADD)
		ccm_sem_add(fab(hw), ref, value);
}

/* The simulated DMA engines work on kernel addresses: translation is the
 * model's, with the driver's ownership checks passed in @v.
 */
static int sim_desc_translate(struct ccore_hw *hw, const struct ccm_verify_ctx *v,
			      const struct drm_ccore_desc *d, u32 index, struct ccm_hwdesc *out,
			      struct ccm_err *err)
{
	struct ccm_verify_ctx vf = *v;

	vf.f = fab(hw);
	return ccm_desc_translate(&vf, d, index, out, err);
}

static int sim_program_verify(struct ccore_hw *hw, const struct ccm_verify_ctx *v,
			      const struct drm_ccore_insn *insns, u32 count, struct ccm_err *err)
{
	struct ccm_verify_ctx vf = *v;

	vf.f = fab(hw);
	return ccm_program_verify(&vf, insns, count, err);
}

static int sim_compute_verify(struct ccore_hw *hw, const struct ccm_verify_ctx *v,
			      const struct drm_ccore_ce_insn *insns, u32 count, u32 engine,
			      u32 ring, struct ccm_hwdesc *descs, u32 *ndma, struct ccm_err *err)
{
	struct ccm_verify_ctx vf = *v;

	vf.f = fab(hw);
	return ccm_compute_verify(&vf, insns, count, engine, ring, descs, ndma, err);
}

static int sim_compute_submit(struct ccore_hw *hw, u32 dev, u32 core,
			      const struct drm_ccore_ce_insn *insns, u32 count, u32 engine,
			      u32 ring, const struct ccm_hwdesc *descs, u32 ndma, void *owner,
			      struct ccm_err *err)
{
	return ccm_compute_submit(fab(hw), dev, core, insns, count, engine, ring, descs, ndma,
				  owner, err);
}

static bool sim_compute_idle(struct ccore_hw *hw, u32 dev, u32 core)
{
	return ccm_compute_idle(fab(hw), dev, core);
}

static void sim_compute_abort(struct ccore_hw *hw, u32 dev, u32 core, void *owner, int status)
{
	ccm_compute_abort(fab(hw), dev, core, owner, status);
}

static void sim_compute_info(struct ccore_hw *hw, u32 dev, u32 core,
			     struct ccm_compute_info *info)
{
	ccm_compute_info(fab(hw), dev, core, info);
}

static int sim_cc_load(struct ccore_hw *hw, u32 dev, u32 cc, const struct drm_ccore_insn *insns,
		       u32 count, u32 *base, struct ccm_err *err)
{
	return ccm_cc_load(fab(hw), dev, cc, insns, count, base, err);
}

static void sim_cc_unload(struct ccore_hw *hw, u32 dev, u32 cc, u32 base)
{
	ccm_cc_unload(fab(hw), dev, cc, base);
}

static int sim_cc_enqueue(struct ccore_hw *hw, u32 dev, u32 cc, u32 base, u64 cookie,
			  struct ccm_err *err)
{
	return ccm_cc_enqueue(fab(hw), dev, cc, base, cookie, err);
}

static void sim_cc_trigger(struct ccore_hw *hw, u32 dev, u32 cc, u32 count)
{
	ccm_cc_trigger(fab(hw), dev, cc, count);
}

static void sim_cc_reset(struct ccore_hw *hw, u32 dev, u32 cc, int status)
{
	ccm_cc_reset(fab(hw), dev, cc, status);
}

static void sim_cc_info(struct ccore_hw *hw, u32 dev, u32 cc, struct ccm_cc_info *info)
{
	ccm_cc_info(fab(hw), dev, cc, info);
}

static int sim_wait(struct ccore_hw *hw, bool (*cond)(void *arg), void *arg, s64 deadline)
{
	int rc = ccm_fabric_wait(fab(hw), cond, arg, deadline);

	/* what the waiter leaves queued must still run: nobody may wait */
	ccm_fabric_nudge(fab(hw));
	return rc;
}

/* As long as one packet takes at most: the caller returns to userspace
 * soon, the workers take over what is left.
 */
#define CCORE_SIM_HELP_NS 20000

static void sim_kick(struct ccore_hw *hw)
{
	ccm_fabric_help(fab(hw), CCORE_SIM_HELP_NS);
	ccm_fabric_nudge(fab(hw));
}

static bool sim_dev_remote(struct ccore_hw *hw, u32 dev)
{
	return ccm_dev_remote(fab(hw), dev);
}

static bool sim_nic_posted(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring)
{
	return ccm_nic_ring_posted(fab(hw), dev, core, engine, ring);
}

static int sim_nic_take(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			u64 max_len, struct ccm_nic_xfer *x)
{
	return ccm_nic_take_ring(fab(hw), dev, core, engine, ring, max_len, x);
}

static void sim_nic_done(struct ccore_hw *hw, const struct ccm_nic_xfer *x, int status)
{
	ccm_nic_done(fab(hw), x, status);
}

static void sim_nic_cancel(struct ccore_hw *hw, u32 dev, u32 core, u32 engine, u32 ring,
			   int status)
{
	ccm_nic_cancel(fab(hw), dev, core, engine, ring, status);
}

static int sim_nic_arrived(struct ccore_hw *hw, u32 sem, u32 value, bool set)
{
	return ccm_nic_arrived(fab(hw), sem, value, set);
}

static int sim_inject_dma_error(struct ccore_hw *hw, u32 dev, u32 core, struct ccm_err *err)
{
	return ccm_inject_dma_error(fab(hw), dev, core, err);
}

static int sim_inject_cc_hang(struct ccore_hw *hw, u32 dev, u32 cc, struct ccm_err *err)
{
	return ccm_inject_cc_hang(fab(hw), dev, cc, err);
}

static void sim_link_stats(struct ccore_hw *hw, u32 dev, struct ccm_link_stats *st)
{
	ccm_link_stats(fab(hw), dev, st);
}

static void sim_hw_get(struct ccore_hw *hw)
{
	ccore_sim_get(to_ccore_sim(hw));
}

static void sim_hw_put(struct ccore_hw *hw)
{
	ccore_sim_put(to_ccore_sim(hw));
}

const struct ccore_hw_ops ccore_sim_hw_ops = {
	.get = sim_hw_get,
	.put = sim_hw_put,
	.mem_reserve = sim_mem_reserve,
	.mem_release = sim_mem_release,
	.mem_used = sim_mem_used,
	.packet_size = sim_packet_size,
	.set_packet_size = sim_set_packet_size,
	.ring_claim = sim_ring_claim,
	.ring_release = sim_ring_release,
	.ring_owner = sim_ring_owner,
	.ring_write = sim_ring_write,
	.ring_start = sim_ring_start,
	.ring_stats = sim_ring_stats,
	.ring_idle = sim_ring_idle,
	.ring_abort = sim_ring_abort,
	.sem_alloc = sim_sem_alloc,
	.sem_free = sim_sem_free,
	.sem_owner = sim_sem_owner,
	.sem_valid = sim_sem_valid,
	.sem_read = sim_sem_read,
	.sem_write = sim_sem_write,
	.desc_translate = sim_desc_translate,
	.program_verify = sim_program_verify,
	.compute_verify = sim_compute_verify,
	.compute_submit = sim_compute_submit,
	.compute_idle = sim_compute_idle,
	.compute_abort = sim_compute_abort,
	.compute_info = sim_compute_info,
	.cc_load = sim_cc_load,
	.cc_unload = sim_cc_unload,
	.cc_enqueue = sim_cc_enqueue,
	.cc_trigger = sim_cc_trigger,
	.cc_reset = sim_cc_reset,
	.cc_info = sim_cc_info,
	.wait = sim_wait,
	.kick = sim_kick,
	.dev_remote = sim_dev_remote,
	.nic_posted = sim_nic_posted,
	.nic_take = sim_nic_take,
	.nic_done = sim_nic_done,
	.nic_cancel = sim_nic_cancel,
	.nic_arrived = sim_nic_arrived,
	.inject_dma_error = sim_inject_dma_error,
	.inject_cc_hang = sim_inject_cc_hang,
	.link_stats = sim_link_stats,
};

static void sim_job_done(void *host, u64 cookie, int status)
{
	ccore_job_done(host, cookie, status);
}

/* From an engine's thread: the proxies sleep in poll() on the fabric's files. */
static bool sim_nic_posted_host(void *host, u32 dev, u32 core)
{
	struct ccore_hw *hw = host;

	wake_up_interruptible_all(&hw->nic_wq);
	return true;
}

const struct ccm_host_ops ccore_sim_host_ops = {
	.job_done = sim_job_done,
	.nic_posted = sim_nic_posted_host,
};

/* The firmware image: "CCPG", version, instruction count, reserved, then
 * the instructions, all little-endian (see runtime/isa/ccas_fw.c).
 */
static int load_firmware(struct ccore_sim *sim, struct device *dev)
{
	const struct firmware *fw;
	struct drm_ccore_insn *insns;
	struct ccm_err err = {};
	const __le32 *hdr;
	u32 count, i;
	int rc;

	rc = request_firmware(&fw, CCORE_FW_NAME, dev);
	if (rc) {
		dev_err(dev, "firmware %s not found (%d)\n", CCORE_FW_NAME, rc);
		return rc;
	}
	hdr = (const __le32 *)fw->data;
	rc = -EINVAL;
	if (fw->size < CCORE_FW_HEADER || memcmp(fw->data, CCORE_FW_MAGIC, 4) ||
	    le32_to_cpu(hdr[1]) != CCORE_FW_VERSION || hdr[3]) {
		dev_err(dev, "%s: not a version %u CC program image\n", CCORE_FW_NAME,
			CCORE_FW_VERSION);
		goto out;
	}
	count = le32_to_cpu(hdr[2]);
	if (fw->size != CCORE_FW_HEADER + (size_t)count * sizeof(*insns)) {
		dev_err(dev, "%s: %zu bytes, header says %u instructions\n", CCORE_FW_NAME,
			fw->size, count);
		goto out;
	}
	insns = kmemdup(fw->data + CCORE_FW_HEADER, count * sizeof(*insns), GFP_KERNEL);
	rc = -ENOMEM;
	if (!insns)
		goto out;
	for (i = 0; i < count; i++) {
		insns[i].sem = le32_to_cpu((__force __le32)insns[i].sem);
		insns[i].imm = le32_to_cpu((__force __le32)insns[i].imm);
		insns[i].target = (s32)le32_to_cpu((__force __le32)insns[i].target);
	}
	rc = ccm_load_firmware(sim->f, insns, count, &err);
	if (rc)
		dev_err(dev, "%s: %s\n", CCORE_FW_NAME, err.msg);
	else
		sim->hw.fw_size = count;
	kfree(insns);
out:
	release_firmware(fw);
	return rc;
}

/* Module parameters give new fabrics their packet-size defaults. */
static unsigned int cc_dma_packet_size = 65536;
module_param(cc_dma_packet_size, uint, 0444);
MODULE_PARM_DESC(cc_dma_packet_size,
		 "Default CC DMA packet size of new devices, bytes (512..65536, default 65536)");
static unsigned int dma_packetization_size = 4096;
module_param(dma_packetization_size, uint, 0444);
MODULE_PARM_DESC(dma_packetization_size,
		 "Default compute DMA packetization size of new devices, bytes (512..65536, default 4096)");
static unsigned int job_timeout_ms = 10000;
module_param(job_timeout_ms, uint, 0444);
MODULE_PARM_DESC(job_timeout_ms, "Default job timeout, ms (1..3600000, default 10000)");

static int sim_config(struct ccm_config *cfg, u32 num_devices, const char *options,
		      struct device *dev)
{
	struct ccm_err err = {};
	char defaults[96];

	ccm_config_default(cfg);
	cfg->workers = clamp(num_online_cpus(), 1u, 8u);
	snprintf(defaults, sizeof(defaults), "cc_packet=%u,dma_packet=%u,job_timeout_ms=%u",
		 cc_dma_packet_size, dma_packetization_size, job_timeout_ms);
	if (ccm_config_parse(cfg, defaults, &err)) {
		dev_err(dev, "module parameters: %s\n", err.msg);
		return -EINVAL;
	}
	if (options && *options && ccm_config_parse(cfg, options, &err)) {
		dev_err(dev, "options \"%s\": %s\n", options, err.msg);
		return -EINVAL;
	}
	/* one host of several (here=N) holds node N; else the instance is one node */
	if (cfg->nodes != 1 && cfg->here == CCM_ALL_NODES) {
		dev_err(dev, "options: nodes=%u without here=N; the devices of one instance form one node\n",
			cfg->nodes);
		return -EINVAL;
	}
	if (!cfg->workers) {
		dev_err(dev, "options: workers=0 (inline) needs a waiting thread; in the kernel use 1..64\n");
		return -EINVAL;
	}
	cfg->devices_per_node = num_devices;
	if (cfg->topology == DRM_CCORE_TOPO_TORUS &&
	    cfg->torus_x * cfg->torus_y != num_devices) {
		dev_err(dev, "options: torus %ux%u does not hold %u devices\n", cfg->torus_x,
			cfg->torus_y, num_devices);
		return -EINVAL;
	}
	if (ccm_config_check(cfg, &err)) {
		dev_err(dev, "%s\n", err.msg);
		return -EINVAL;
	}
	return 0;
}

/**
 * ccore_sim_create() - a simulated fabric of @num_devices devices
 * @id: instance id (the bus device's)
 * @num_devices: devices in the node (the node on this host, with "here")
 * @options: "key=value,..." as ccore-info --sim-help lists, or NULL
 * @dev: the bus device, for messages and firmware loading
 *
 * Return: the fabric with one reference held, or an ERR_PTR.
 */
struct ccore_sim *ccore_sim_create(u32 id, u32 num_devices, const char *options,
				   struct device *dev)
{
	struct ccm_err err = {};
	struct ccore_sim *sim;
	int rc;

	sim = kzalloc(sizeof(*sim), GFP_KERNEL);
	if (!sim)
		return ERR_PTR(-ENOMEM);
	rc = sim_config(&sim->hw.cfg, num_devices, options, dev);
	if (rc)
		goto err_free;
	sim->hw.ops = &ccore_sim_hw_ops;
	sim->hw.id = id;
	/* every node's devices are the fabric's; only this host's get accel devices */
	sim->hw.num_devices = num_devices * sim->hw.cfg.nodes;
	mutex_init(&sim->hw.lock);
	init_waitqueue_head(&sim->hw.nic_wq);
	kref_init(&sim->kref);
	sim->hw.devices = kcalloc(num_devices, sizeof(*sim->hw.devices), GFP_KERNEL);
	rc = -ENOMEM;
	if (!sim->hw.devices)
		goto err_free;
	sim->f = ccm_fabric_create(&sim->hw.cfg, &ccore_sim_host_ops, &sim->hw, &err);
	rc = -EINVAL;
	if (!sim->f) {
		dev_err(dev, "%s\n", err.msg);
		goto err_free;
	}
	rc = load_firmware(sim, dev);
	if (rc) {
		ccm_fabric_destroy(sim->f);
		goto err_free;
	}
	return sim;

err_free:
	kfree(sim->hw.devices);
	kfree(sim);
	return ERR_PTR(rc);
}

void ccore_sim_get(struct ccore_sim *sim)
{
	kref_get(&sim->kref);
}

static void sim_release(struct kref *kref)
{
	struct ccore_sim *sim = container_of(kref, struct ccore_sim, kref);

	ccm_fabric_destroy(sim->f);
	mutex_destroy(&sim->hw.lock);
	kfree(sim->hw.devices);
	kfree(sim);
}

void ccore_sim_put(struct ccore_sim *sim)
{
	kref_put(&sim->kref, sim_release);
}
