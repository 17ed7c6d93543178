// SPDX-License-Identifier: GPL-2.0
/*
 * The "ccore" generic netlink family (Documentation/netlink/ccore.yaml):
 * dev-get reports the registered devices of every fabric, and the
 * "events" multicast group reports CC-core timeouts, DMA faults and
 * recoveries as they happen.  The policies, the ops table and the family
 * are generated from the spec into ccore_genl_gen.c (scripts/ynl-regen.sh);
 * this file has the handlers.
 *
 * Devices are not per network namespace: dumps answer in every namespace
 * (the family is netnsok) and events go to listeners in all of them.
 */
#include <net/genetlink.h>
#include <net/net_namespace.h>

#include "ccore_drv.h"
#include "ccore_genl_gen.h"

/* a dump's progress, between the messages it fills */
struct ccore_genl_dump_ctx {
	u64 next;	/* registry id of the next device to report */
};

/* what a registry walk reports, and to whom */
struct ccore_genl_fill {
	struct sk_buff *skb;
	const struct genl_info *info;
	struct netlink_callback *cb;	/* dumps only */
	u32 gen;			/* registry generation, for dumps */
	u32 fabric, index;
	bool match_fabric, match_index;
	bool found;
};

static int dev_fill(struct ccore_device *cdev, void *arg)
{
	struct ccore_genl_fill *f = arg;
	struct ccore_hw *hw = cdev->hw;
	u32 cc_pkt, dma_pkt;
	struct sk_buff *skb = f->skb;
	void *hdr;
	u64 mem;

	if ((f->match_fabric && hw->id != f->fabric) ||
	    (f->match_index && cdev->index != f->index))
		return 0;
	f->found = true;

	mutex_lock(&hw->lock);
	mem = hw->ops->mem_used(hw, cdev->index);
	cc_pkt = hw->ops->packet_size(hw, cdev->index, false);
	dma_pkt = hw->ops->packet_size(hw, cdev->index, true);
	mutex_unlock(&hw->lock);

	hdr = __genlmsg_iput(skb, f->info, f->cb ? NLM_F_MULTI : 0);
	if (!hdr)
		return -EMSGSIZE;
	if (f->cb) {
		f->cb->seq = f->gen;
		genl_dump_check_consistent(f->cb, hdr);
	}
	if (nla_put_u32(skb, CCORE_A_DEV_FABRIC_ID, hw->id) ||
	    nla_put_u32(skb, CCORE_A_DEV_DEV_INDEX, cdev->index) ||
	    nla_put_u32(skb, CCORE_A_DEV_ACCEL_MINOR, cdev->drm.accel->index) ||
	    nla_put_u32(skb, CCORE_A_DEV_NUM_DEVICES, hw->num_devices) ||
	    nla_put_u32(skb, CCORE_A_DEV_CORES, hw->cfg.cores) ||
	    nla_put_u32(skb, CCORE_A_DEV_CC_CORES, ccore_hw_num_cc(hw)) ||
	    nla_put_u32(skb, CCORE_A_DEV_CC_CORES_PER_CORE, hw->cfg.cc_cores) ||
	    nla_put_uint(skb, CCORE_A_DEV_MEM_USED, mem) ||
	    nla_put_u32(skb, CCORE_A_DEV_CC_DMA_PACKET_SIZE, cc_pkt) ||
	    nla_put_u32(skb, CCORE_A_DEV_DMA_PACKETIZATION_SIZE, dma_pkt) ||
	    nla_put_uint(skb, CCORE_A_DEV_JOB_TIMEOUTS, atomic64_read(&cdev->job_timeouts)) ||
	    nla_put_uint(skb, CCORE_A_DEV_DMA_ERRORS, atomic64_read(&cdev->dma_errors)) ||
	    nla_put_uint(skb, CCORE_A_DEV_RECOVERIES, atomic64_read(&cdev->recoveries))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* dev-get do: the device FABRIC_ID, DEV_INDEX (both required) */
int ccore_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ccore_genl_fill f = { .info = info, .match_fabric = true, .match_index = true };
	u64 pos = 0;
	int rc;

	if (GENL_REQ_ATTR_CHECK(info, CCORE_A_DEV_FABRIC_ID) ||
	    GENL_REQ_ATTR_CHECK(info, CCORE_A_DEV_DEV_INDEX))
		return -EINVAL;
	f.fabric = nla_get_u32(info->attrs[CCORE_A_DEV_FABRIC_ID]);
	f.index = nla_get_u32(info->attrs[CCORE_A_DEV_DEV_INDEX]);

	f.skb = genlmsg_new(GENLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!f.skb)
		return -ENOMEM;
	rc = ccore_devices_walk(&pos, NULL, dev_fill, &f);
	if (!rc && !f.found) {
		NL_SET_ERR_MSG_FMT(info->extack, "no device %u in fabric %u", f.index, f.fabric);
		rc = -ENODEV;
	}
	if (rc) {
		nlmsg_free(f.skb);
		return rc;
	}
	return genlmsg_reply(f.skb, info);
}

/* dev-get dump: every device, or those of fabric FABRIC_ID */
int ccore_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct ccore_genl_dump_ctx *ctx = (struct ccore_genl_dump_ctx *)cb->ctx;
	const struct genl_info *info = genl_info_dump(cb);
	struct ccore_genl_fill f = { .skb = skb, .info = info, .cb = cb };

	NL_ASSERT_DUMP_CTX_FITS(struct ccore_genl_dump_ctx);
	if (info->attrs[CCORE_A_DEV_FABRIC_ID]) {
		f.fabric = nla_get_u32(info->attrs[CCORE_A_DEV_FABRIC_ID]);
		f.match_fabric = true;
	}
	/* -EMSGSIZE: the message is full, the next one resumes at ctx->next */
	return ccore_devices_walk(&ctx->next, &f.gen, dev_fill, &f);
}

/* Anyone subscribed to "events", in any namespace? */
static bool ccore_genl_listened(void)
{
	bool any = false;
	struct net *net;

	rcu_read_lock();
	for_each_net_rcu(net) {
		if (genl_has_listeners(&ccore_nl_family, net, CCORE_NLGRP_EVENTS)) {
			any = true;
			break;
		}
	}
	rcu_read_unlock();
	return any;
}

/**
 * ccore_genl_job_event() - multicast a CC-core event to group "events"
 * @cdev: the device
 * @event: enum ccore_event
 * @cc: the CC core
 * @status: negative errno of the failure
 * @job: id of the job to blame, 0 if none
 *
 * Never sleeps, so it may be called with any lock held: the job completion
 * path runs in the model's workers, which may hold the model's locks (and
 * a real device would complete jobs from its interrupt handling), and
 * CC-core recovery holds hw->lock.  The message is allocated with
 * GFP_ATOMIC and sent at once, which also keeps the events of one CC core
 * in order (a deferred send would need its own ordering).  An event the
 * allocation fails for is lost; listeners learn of lost multicast messages
 * through ENOBUFS anyway, and the counters in dev-get stay exact.
 */
void ccore_genl_job_event(struct ccore_device *cdev, u32 event, u32 cc, int status, u64 job)
{
	struct ccore_hw *hw = cdev->hw;
	struct sk_buff *skb;
	size_t size;
	void *hdr;
	u8 cmd;

	switch (event) {
	case CCORE_EVENT_JOB_TIMEOUT:
		cmd = CCORE_CMD_JOB_TIMEOUT;
		break;
	case CCORE_EVENT_DMA_ERROR:
		cmd = CCORE_CMD_DMA_ERROR;
		break;
	case CCORE_EVENT_CC_RECOVERED:
		cmd = CCORE_CMD_CC_RECOVERED;
		break;
	default:
		WARN_ONCE(1, "ccore: unknown event %u\n", event);
		return;
	}
	if (!ccore_genl_listened())
		return;

	size = 6 * nla_total_size(sizeof(u32)) + nla_total_size(sizeof(u64));
	skb = genlmsg_new(size, GFP_ATOMIC);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &ccore_nl_family, 0, cmd);
	if (!hdr ||
	    nla_put_u32(skb, CCORE_A_EVENT_TYPE, event) ||
	    nla_put_u32(skb, CCORE_A_EVENT_FABRIC_ID, hw->id) ||
	    nla_put_u32(skb, CCORE_A_EVENT_DEV_INDEX, cdev->index) ||
	    nla_put_u32(skb, CCORE_A_EVENT_ACCEL_MINOR, cdev->drm.accel->index) ||
	    nla_put_u32(skb, CCORE_A_EVENT_CC, cc) ||
	    nla_put_s32(skb, CCORE_A_EVENT_STATUS, status) ||
	    (job && nla_put_uint(skb, CCORE_A_EVENT_JOB_ID, job))) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	/* consumes skb; -ESRCH: the last listener just left */
	genlmsg_multicast_allns(&ccore_nl_family, skb, 0, CCORE_NLGRP_EVENTS);
}

/**
 * ccore_genl_event() - multicast a CC-core event no single job is to blame for
 * @cdev: the device
 * @event: enum ccore_event
 * @cc: the CC core
 * @status: negative errno of the failure
 *
 * As ccore_genl_job_event(), without a job id.
 */
void ccore_genl_event(struct ccore_device *cdev, u32 event, u32 cc, int status)
{
	ccore_genl_job_event(cdev, event, cc, status, 0);
}

int ccore_genl_init(void)
{
	return genl_register_family(&ccore_nl_family);
}

void ccore_genl_fini(void)
{
	genl_unregister_family(&ccore_nl_family);
}
