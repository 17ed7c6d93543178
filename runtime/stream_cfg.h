/* SPDX-License-Identifier: MIT */
/*
 * A communicator's streams and DMA packet sizes (see ccore.h, "Multi-stream
 * CC"): how many streams it uses, which CC core serves which stream, and
 * the packet size of each stream's CC rings and of compute rings, each
 * from the config, else the environment, else the device's default.
 */
#ifndef CCORE_STREAM_CFG_H
#define CCORE_STREAM_CFG_H

#include "ccore_internal.h"

/* The runtime's rules: CC packets at most, compute packets at least this. */
#define STREAM_CC_PACKET_MAX 65536u
#define STREAM_DMA_PACKET_MIN 4096u

struct stream_cfg {
	uint32_t streams, cc_cores;
	const char *streams_src;
	uint32_t cc_packet[CCORE_MAX_CC_CORES];	/* per stream; 0: device default */
	const char *cc_packet_src[CCORE_MAX_CC_CORES];
	uint32_t dma_packet;			/* 0: device default */
	const char *dma_src;
};

/*
 * Settle @out for a device of @cc_cores CC cores per logical core and ring
 * packet sizes @min_pkt..@max_pkt.  A bad value (config or environment) is
 * -EINVAL with a last error naming it, its value and what is allowed.
 */
int stream_cfg_resolve(const struct ccore_comm_config *cfg, uint32_t cc_cores,
		       uint32_t min_pkt, uint32_t max_pkt, struct stream_cfg *out);
/* The caller's @cfg in this library's layout (abi.h); -EINVAL naming what is wrong. */
int stream_cfg_config_in(const struct ccore_comm_config *cfg, struct ccore_comm_config *own);
/* The same, with the shape and limits asked from @dev. */
int stream_cfg_for_dev(struct ccore_dev *dev, const struct ccore_comm_config *cfg,
		       struct stream_cfg *out);
/* The stream stream id @id is served as: itself below S, else stream 0. */
uint32_t stream_cfg_slot(const struct stream_cfg *sc, uint32_t id);
/* The public view, device defaults filled in from @dev. */
int stream_cfg_map(const struct stream_cfg *sc, struct ccore_dev *dev,
		   struct ccore_stream_map *out);
/* Log the map at INFO (CCORE_DEBUG=INFO). */
void stream_cfg_log(const struct stream_cfg *sc, struct ccore_dev *dev);

#endif
