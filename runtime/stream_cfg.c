// SPDX-License-Identifier: MIT
/*
 * Streams and DMA packet sizes of a communicator (stream_cfg.h): the
 * config, CCORE_STREAMS, CCORE_CC_DMA_PACKET_SIZE and
 * CCORE_DMA_PACKETIZATION_SIZE read and checked, the stream of each CC
 * core, and the log line saying so.
 */
#include "stream_cfg.h"
#include "abi.h"
#include "log.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CFG_NAME "ccore_comm_config"

/* A decimal number of len characters (no sign, no spaces); false if not. */
static bool parse_u32(const char *s, size_t len, uint32_t *out)
{
	uint64_t v = 0;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > UINT32_MAX)
			return false;
	}
	*out = (uint32_t)v;
	return true;
}

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The rules of one kind of packet size: its range and which way it may move. */
struct pkt_rule {
	const char *what;
	uint32_t lo, hi, def;
	bool lower_only;		/* CC: only lowered; compute: only raised */
};

static void pkt_allowed(const struct pkt_rule *r, char *buf, size_t len)
{
	if (r->lower_only)
		snprintf(buf, len, "a power of two from %u to %u bytes (the %s may only be lowered from its default and maximum %u)",
			 r->lo, r->hi, r->what, r->def);
	else
		snprintf(buf, len, "a power of two from %u (the %s may only be raised from its default %u) to the device maximum %u bytes",
			 r->lo, r->what, r->def, r->hi);
}

/*
 * Check @v, given as @item, of @name=@value; -EINVAL naming all of it if it
 * breaks @r.  @extra is appended to the allowed values ("" for none).
 */
static int pkt_check(const struct pkt_rule *r, const char *name, const char *value,
		     const char *item, uint32_t v, bool parsed, const char *extra)
{
	char allowed[256], why[128];

	if (!*item)
		snprintf(why, sizeof(why), "a value is empty");
	else if (!parsed)
		snprintf(why, sizeof(why), "'%s' is not a number of bytes", item);
	else if (!is_pow2(v))
		snprintf(why, sizeof(why), "%u is not a power of two", v);
	else if (v > r->hi)
		snprintf(why, sizeof(why), r->lower_only ? "%u is above %u: it can only be lowered" :
			 "%u is above the device maximum %u", v, r->hi);
	else if (v < r->lo)
		snprintf(why, sizeof(why), r->lower_only ? "%u is below the device minimum %u" :
			 "%u is below %u: it can only be raised", v, r->lo);
	else
		return 0;
	pkt_allowed(r, allowed, sizeof(allowed));
	return ccore_error(-EINVAL, "%s=%s: %s; allowed: %s%s", name, value, why, allowed, extra);
}

/* A variable that is set is checked even where the config overrides it. */
static int streams_resolve(const struct ccore_comm_config *cfg, struct stream_cfg *o)
{
	const char *env = getenv("CCORE_STREAMS");
	uint32_t v;

	o->streams = 1;
	o->streams_src = "built-in";
	if (env && *env) {
		if (!parse_u32(env, strlen(env), &v) || !v)
			return ccore_error(-EINVAL, "CCORE_STREAMS=%s: not a number of streams; allowed: 1 to %u (the CC cores of a logical core)",
					   env, o->cc_cores);
		if (v > o->cc_cores)
			return ccore_error(-EINVAL, "CCORE_STREAMS=%s: more streams than the %u CC cores of a logical core; allowed: 1 to %u",
					   env, o->cc_cores, o->cc_cores);
		o->streams = v;
		o->streams_src = "CCORE_STREAMS";
	}
	if (cfg && cfg->streams) {
		if (cfg->streams > o->cc_cores)
			return ccore_error(-EINVAL, CFG_NAME ".streams=%u: more streams than the %u CC cores of a logical core; allowed: 1 to %u",
					   cfg->streams, o->cc_cores, o->cc_cores);
		o->streams = cfg->streams;
		o->streams_src = "config";
	}
	return 0;
}

/* CCORE_CC_DMA_PACKET_SIZE: one value for every stream, or one per stream. */
static int cc_env(const struct pkt_rule *r, const char *env, struct stream_cfg *o)
{
	const char *name = "CCORE_CC_DMA_PACKET_SIZE";
	uint32_t vals[CCORE_MAX_CC_CORES], n = 0;
	char extra[128], item[32];
	const char *p = env;

	snprintf(extra, sizeof(extra), ", one value for every stream or one per stream (%u stream%s, %s)",
		 o->streams, o->streams == 1 ? "" : "s", o->streams_src);
	for (;;) {
		size_t len = strcspn(p, ",");
		uint32_t v = 0;
		bool ok;
		int rc;

		if (n == o->streams && len)
			return ccore_error(-EINVAL, "%s=%s: more values than the %u stream%s in use (%s%s); allowed: one value for every stream or one per stream",
					   name, env, o->streams, o->streams == 1 ? "" : "s",
					   o->streams_src,
					   !strcmp(o->streams_src, "built-in") ? ": CCORE_STREAMS sets more" : "");
		snprintf(item, sizeof(item), "%.*s", (int)(len < 24 ? len : 24), p);
		ok = parse_u32(p, len, &v);
		rc = pkt_check(r, name, env, item, v, ok, extra);
		if (rc)
			return rc;
		vals[n++] = v;
		if (!p[len])
			break;
		p += len + 1;
	}
	if (n != 1 && n != o->streams)
		return ccore_error(-EINVAL, "%s=%s: %u values for %u streams (%s); allowed: one value for every stream or one per stream",
				   name, env, n, o->streams, o->streams_src);
	for (uint32_t s = 0; s < o->streams; s++) {
		o->cc_packet[s] = vals[n == 1 ? 0 : s];
		o->cc_packet_src[s] = name;
	}
	return 0;
}

static int cc_resolve(const struct ccore_comm_config *cfg, uint32_t min_pkt, uint32_t max_pkt,
		      struct stream_cfg *o)
{
	const struct pkt_rule r = {
		"CC DMA packet size", min_pkt, max_pkt < STREAM_CC_PACKET_MAX ? max_pkt :
		STREAM_CC_PACKET_MAX, STREAM_CC_PACKET_MAX, true,
	};
	const char *env = getenv("CCORE_CC_DMA_PACKET_SIZE");
	char name[64], value[16];
	int rc;

	for (uint32_t s = 0; s < CCORE_MAX_CC_CORES; s++)
		o->cc_packet_src[s] = "device default";
	if (env && *env) {
		rc = cc_env(&r, env, o);
		if (rc)
			return rc;
	}
	for (uint32_t s = 0; cfg && s < CCORE_MAX_CC_CORES; s++) {
		uint32_t v = cfg->cc_packet_size[s];

		if (!v)
			continue;
		snprintf(name, sizeof(name), CFG_NAME ".cc_packet_size[%u]", s);
		snprintf(value, sizeof(value), "%u", v);
		if (s >= o->streams)
			return ccore_error(-EINVAL, "%s=%u: the communicator uses %u stream%s (%s); allowed: packet sizes for streams 0 to %u, 0 elsewhere",
					   name, v, o->streams, o->streams == 1 ? "" : "s",
					   o->streams_src, o->streams - 1);
		rc = pkt_check(&r, name, value, value, v, true, "");
		if (rc)
			return rc;
		o->cc_packet[s] = v;
		o->cc_packet_src[s] = "config";
	}
	return 0;
}

static int dma_resolve(const struct ccore_comm_config *cfg, uint32_t min_pkt, uint32_t max_pkt,
		       struct stream_cfg *o)
{
	const struct pkt_rule r = {
		"DMA packetization size", min_pkt > STREAM_DMA_PACKET_MIN ? min_pkt :
		STREAM_DMA_PACKET_MIN, max_pkt, STREAM_DMA_PACKET_MIN, false,
	};
	const char *env = getenv("CCORE_DMA_PACKETIZATION_SIZE");
	char value[16], item[32];
	uint32_t v = 0;
	int rc;

	o->dma_src = "device default";
	if (env && *env) {
		size_t len = strlen(env);
		bool ok = parse_u32(env, len, &v);

		snprintf(item, sizeof(item), "%.*s", (int)(len < 24 ? len : 24), env);
		rc = pkt_check(&r, "CCORE_DMA_PACKETIZATION_SIZE", env, item, v, ok, ", one value");
		if (rc)
			return rc;
		o->dma_packet = v;
		o->dma_src = "CCORE_DMA_PACKETIZATION_SIZE";
	}
	if (cfg && cfg->dma_packetization_size) {
		v = cfg->dma_packetization_size;
		snprintf(value, sizeof(value), "%u", v);
		rc = pkt_check(&r, CFG_NAME ".dma_packetization_size", value, value, v, true, "");
		if (rc)
			return rc;
		o->dma_packet = v;
		o->dma_src = "config";
	}
	return 0;
}

int stream_cfg_config_in(const struct ccore_comm_config *cfg, struct ccore_comm_config *own)
{
	static const struct abi_struct config_abi = {
		CFG_NAME, "CCORE_COMM_CONFIG_INIT", sizeof(struct ccore_comm_config),
		sizeof(struct ccore_comm_config), CCORE_VERSION(0, 3, 0),
	};

	return abi_struct_in(&config_abi, own, cfg);
}

int stream_cfg_resolve(const struct ccore_comm_config *cfg, uint32_t cc_cores,
		       uint32_t min_pkt, uint32_t max_pkt, struct stream_cfg *out)
{
	struct stream_cfg o = { .cc_cores = cc_cores };
	struct ccore_comm_config own;
	int rc;

	if (cfg) {
		rc = stream_cfg_config_in(cfg, &own);
		if (rc)
			return rc;
		cfg = &own;
	}
	if (!cc_cores || cc_cores > CCORE_MAX_CC_CORES)
		return ccore_error(-EINVAL, "the device has %u CC cores per logical core; libccore handles 1 to %u",
				   cc_cores, CCORE_MAX_CC_CORES);
	rc = streams_resolve(cfg, &o) ?: cc_resolve(cfg, min_pkt, max_pkt, &o) ?:
	     dma_resolve(cfg, min_pkt, max_pkt, &o);
	if (!rc)
		*out = o;
	return rc;
}

int stream_cfg_for_dev(struct ccore_dev *dev, const struct ccore_comm_config *cfg,
		       struct stream_cfg *out)
{
	uint64_t cc = 0, lo = 0, hi = 0;
	int rc = ccore_dev_param(dev, DRM_CCORE_PARAM_CC_CORES_PER_CORE, &cc) ?:
		 ccore_dev_param(dev, DRM_CCORE_PARAM_MIN_PACKET_SIZE, &lo) ?:
		 ccore_dev_param(dev, DRM_CCORE_PARAM_MAX_PACKET_SIZE, &hi);

	return rc ? rc : stream_cfg_resolve(cfg, (uint32_t)cc, (uint32_t)lo, (uint32_t)hi, out);
}

uint32_t stream_cfg_slot(const struct stream_cfg *sc, uint32_t id)
{
	return id < sc->streams ? id : 0;
}

int stream_cfg_map(const struct stream_cfg *sc, struct ccore_dev *dev,
		   struct ccore_stream_map *out)
{
	uint64_t cc_def = 0, dma_def = 0;
	int rc = ccore_dev_param(dev, DRM_CCORE_PARAM_CC_DMA_PACKET_SIZE, &cc_def) ?:
		 ccore_dev_param(dev, DRM_CCORE_PARAM_DMA_PACKETIZATION_SIZE, &dma_def);

	if (rc)
		return rc;
	*out = (struct ccore_stream_map){
		.streams = sc->streams, .cc_cores = sc->cc_cores,
		.streams_source = sc->streams_src,
		.dma_packetization_size = sc->dma_packet ? sc->dma_packet : (uint32_t)dma_def,
		.dma_packetization_source = sc->dma_src,
	};
	/* CC cores past the streams in use are stream 0's spares */
	for (uint32_t c = 0; c < sc->cc_cores; c++)
		out->cc_core_stream[c] = stream_cfg_slot(sc, c);
	for (uint32_t s = 0; s < sc->streams; s++) {
		out->cc_packet_size[s] = sc->cc_packet[s] ? sc->cc_packet[s] : (uint32_t)cc_def;
		out->cc_packet_source[s] = sc->cc_packet_src[s];
	}
	return 0;
}

void stream_cfg_log(const struct stream_cfg *sc, struct ccore_dev *dev)
{
	struct ccore_stream_map m;
	char line[1024];
	size_t at = 0;

	if (log_level() < LOG_INFO || stream_cfg_map(sc, dev, &m))
		return;
	at += (size_t)snprintf(line + at, sizeof(line) - at, "%u stream%s (%s) on %u CC cores per core:",
			       m.streams, m.streams == 1 ? "" : "s", m.streams_source, m.cc_cores);
	for (uint32_t c = 0; c < m.cc_cores && at < sizeof(line); c++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, " CC core %u -> stream %u%s%s",
				       c, m.cc_core_stream[c], c >= m.streams ? " (spare)" : "",
				       c + 1 < m.cc_cores ? "," : ";");
	for (uint32_t s = 0; s < m.streams && at < sizeof(line); s++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, " stream %u CC DMA packet %u B (%s),",
				       s, m.cc_packet_size[s], m.cc_packet_source[s]);
	if (at < sizeof(line))
		snprintf(line + at, sizeof(line) - at, " compute DMA packetization %u B (%s)",
			 m.dma_packetization_size, m.dma_packetization_source);
	log_msg(LOG_INFO, "%s", line);
}

int ccore_dev_stream_map(struct ccore_dev *dev, const struct ccore_comm_config *config,
			 struct ccore_stream_map *out)
{
	struct stream_cfg sc;
	int rc;

	if (!dev || !out)
		return ccore_error(-EINVAL, "ccore_dev_stream_map: dev and out must be set");
	rc = stream_cfg_for_dev(dev, config, &sc);
	return rc ? rc : stream_cfg_map(&sc, dev, out);
}
