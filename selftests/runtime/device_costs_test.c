// SPDX-License-Identifier: GPL-2.0
/*
 * What a device costs, through the uAPI: GET_PARAM answers every
 * DRM_CCORE_PARAM_* cost (α and bandwidth per tier, DMA engine, CC
 * instruction, semaphore, timed/virtual/ideal) from the fabric's
 * configuration, and the tuner's parameters read from the device
 * (tune_hw_from_device, what plans use on any backend) are those it reads
 * from the configuration itself (tune_hw_from_config, what ccore-plan
 * uses).  The kernel driver answers through the same code
 * (model/ccm_param.c); accel_backend checks it in the QEMU guest.
 */
#include "ccore_test.h"
#include "ccore_device.h"
#include "sim/sim_costs.h"

#include <string.h>

/* Configurations with every cost away from its default somewhere. */
static const char *const configs[] = {
	"",
	"timed=1",
	"timed=1,virtual=1",
	"timed=1,ideal=1,alpha_node_ns=2000,bw_node_gbps=400",
	"alpha_dev_ns=7,alpha_node_ns=11,alpha_net_ns=13,bw_dev_gbps=17,bw_node_gbps=19,bw_net_gbps=23,bw_engine_gbps=29,cc_insn_ns=31,sem_ns=37",
	"timed=1,alpha_dev_ns=7,alpha_node_ns=11,alpha_net_ns=13,bw_dev_gbps=17,bw_node_gbps=19,bw_net_gbps=23,bw_engine_gbps=29,cc_insn_ns=31,sem_ns=37,engines=2",
};

static void config_of(const char *spec, struct ccm_config *c)
{
	struct ccm_err err = { 0 };

	ccm_config_default(c);
	if (ccm_config_parse(c, spec, &err))
		FAIL("config '%s': %s", spec, err.msg);
}

static uint64_t param(struct ccore_dev *d, uint32_t p)
{
	uint64_t v = 0;

	if (ccore_dev_param(d, p, &v))
		FAIL("GET_PARAM %u: %s", p, ccore_last_error());
	return v;
}

TEST(get_param_reports_the_fabric_costs)
{
	for (unsigned int i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		struct ccore_system *s;
		struct ccore_dev *d;
		struct ccm_config c;

		config_of(configs[i], &c);
		if (ccore_system_open("sim", configs[i], &s))
			FAIL("sim '%s': %s", configs[i], ccore_last_error());
		d = ccore_system_device(s, 0);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_TIMED), c.timed);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_VIRTUAL_MEMORY), c.timed && c.virt);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_IDEAL), c.timed && c.ideal);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_ALPHA_DEV_NS), c.alpha_dev_ns);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_ALPHA_NODE_NS), c.alpha_node_ns);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_ALPHA_NET_NS), c.alpha_net_ns);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_BW_DEV_GBPS), c.bw_dev_gbps);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_BW_NODE_GBPS), c.bw_node_gbps);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_BW_NET_GBPS), c.bw_net_gbps);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_BW_ENGINE_GBPS), c.bw_engine_gbps);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_CC_INSN_NS), c.cc_insn_ns);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_SEM_NS), c.sem_ns);
		ASSERT_U64_EQ(param(d, DRM_CCORE_PARAM_ENGINES_PER_CORE), c.engines);
		ccore_system_close(s);
	}
}

TEST(the_tuner_reads_the_device_as_it_reads_the_config)
{
	for (unsigned int i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		struct tune_hw from_dev, from_cfg;
		struct ccore_system *s;
		struct ccm_config c;

		config_of(configs[i], &c);
		tune_hw_from_config(&c, &from_cfg);
		if (ccore_system_open("sim", configs[i], &s))
			FAIL("sim '%s': %s", configs[i], ccore_last_error());
		tune_hw_from_device(ccore_system_device(s, 0), &from_dev);
		ccore_system_close(s);
		for (int t = 0; t < TUNE_NTIERS; t++) {
			ASSERT_TRUE(from_dev.alpha_us[t] == from_cfg.alpha_us[t]);
			ASSERT_TRUE(from_dev.bw_gbps[t] == from_cfg.bw_gbps[t]);
		}
		ASSERT_TRUE(from_dev.engine_gbps == from_cfg.engine_gbps);
		ASSERT_EQ(from_dev.engines, from_cfg.engines);
		ASSERT_TRUE(from_dev.sem_us == from_cfg.sem_us);
		ASSERT_TRUE(from_dev.insn_us == from_cfg.insn_us);
		ASSERT_EQ(from_dev.ideal, from_cfg.ideal);
		ASSERT_EQ(from_dev.host, from_cfg.host);
		/* and they are the configuration's: not the defaults */
		ASSERT_TRUE(from_cfg.alpha_us[TUNE_NODE] ==
			    c.alpha_node_ns / 1e3);
		ASSERT_TRUE(from_cfg.bw_gbps[TUNE_NET] ==
			    (c.timed && c.ideal ? c.bw_node_gbps : c.bw_net_gbps) / 8.0);
		ASSERT_EQ(from_cfg.host, !c.timed);
	}
}

TEST(an_unknown_param_names_the_range)
{
	struct ccore_system *s;
	uint64_t v;

	if (ccore_system_open("sim", "", &s))
		FAIL("sim: %s", ccore_last_error());
	ASSERT_EQ(ccore_dev_param(ccore_system_device(s, 0), DRM_CCORE_PARAM_SEM_NS + 1, &v),
		  -EINVAL);
	ASSERT_STR_CONTAINS(ccore_last_error(), "GET_PARAM: unknown param 33 (0..32)");
	ccore_system_close(s);
}
