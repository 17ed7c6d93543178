// SPDX-License-Identifier: MIT
/*
 * ccore-info --netlink and --watch: the kernel driver's "ccore" generic
 * netlink family (Documentation/netlink/ccore.yaml), through libnl-genl-3.
 * --netlink dumps dev-get: every device the module registered, on every
 * fabric.  --watch joins the "events" multicast group and prints one line
 * per CC-core event as it arrives.
 */
#include "info.h"
#include "../common/json.h"

#include <linux/ccore_genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOT_REGISTERED \
	"ccore-info: the ccore generic netlink family is not registered (is ccore.ko loaded?)\n"

/* A connected socket and the family's id; exit status 1 and a message if not. */
static struct nl_sock *nl_open(int *family)
{
	struct nl_sock *sk = nl_socket_alloc();
	int rc;

	if (!sk) {
		fprintf(stderr, "ccore-info: out of memory\n");
		return NULL;
	}
	rc = genl_connect(sk);
	if (rc < 0) {
		fprintf(stderr, "ccore-info: cannot open a generic netlink socket: %s\n",
			nl_geterror(rc));
		nl_socket_free(sk);
		return NULL;
	}
	*family = genl_ctrl_resolve(sk, CCORE_FAMILY_NAME);
	if (*family < 0) {
		if (*family == -NLE_OBJ_NOTFOUND)
			fputs(NOT_REGISTERED, stderr);
		else
			fprintf(stderr, "ccore-info: cannot look up the ccore netlink family: %s\n",
				nl_geterror(*family));
		nl_socket_free(sk);
		return NULL;
	}
	return sk;
}

/* Attribute readers that check the length the kernel sent. */
static int get_u32(struct nlattr **tb, int type, uint32_t *v)
{
	if (!tb[type] || nla_len(tb[type]) != sizeof(uint32_t))
		return 0;
	*v = nla_get_u32(tb[type]);
	return 1;
}

/* "uint": 4 or 8 bytes, as nla_put_uint() chose */
static int get_uint(struct nlattr **tb, int type, uint64_t *v)
{
	if (!tb[type])
		return 0;
	if (nla_len(tb[type]) == sizeof(uint32_t))
		*v = nla_get_u32(tb[type]);
	else if (nla_len(tb[type]) == sizeof(uint64_t))
		*v = nla_get_u64(tb[type]);
	else
		return 0;
	return 1;
}

/* --- dev-get dump ---------------------------------------------------------- */

struct nl_dev {
	uint32_t fabric, index, accel, num_devices, cores, cc_cores, cc_per_core;
	uint32_t cc_pkt, dma_pkt;
	uint64_t mem_used, job_timeouts, dma_errors, recoveries;
};

struct dump_state {
	struct nl_dev *devs;
	unsigned int n, cap;
	int done, err;
};

static int on_dev(struct nl_msg *msg, void *arg)
{
	struct dump_state *st = arg;
	struct nlattr *tb[CCORE_A_DEV_MAX + 1];
	struct nl_dev d = { 0 };
	void *grown;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CCORE_A_DEV_MAX, NULL) < 0 ||
	    !get_u32(tb, CCORE_A_DEV_FABRIC_ID, &d.fabric) ||
	    !get_u32(tb, CCORE_A_DEV_DEV_INDEX, &d.index)) {
		st->err = -EPROTO;
		return NL_STOP;
	}
	get_u32(tb, CCORE_A_DEV_ACCEL_MINOR, &d.accel);
	get_u32(tb, CCORE_A_DEV_NUM_DEVICES, &d.num_devices);
	get_u32(tb, CCORE_A_DEV_CORES, &d.cores);
	get_u32(tb, CCORE_A_DEV_CC_CORES, &d.cc_cores);
	get_u32(tb, CCORE_A_DEV_CC_CORES_PER_CORE, &d.cc_per_core);
	get_u32(tb, CCORE_A_DEV_CC_DMA_PACKET_SIZE, &d.cc_pkt);
	get_u32(tb, CCORE_A_DEV_DMA_PACKETIZATION_SIZE, &d.dma_pkt);
	get_uint(tb, CCORE_A_DEV_MEM_USED, &d.mem_used);
	get_uint(tb, CCORE_A_DEV_JOB_TIMEOUTS, &d.job_timeouts);
	get_uint(tb, CCORE_A_DEV_DMA_ERRORS, &d.dma_errors);
	get_uint(tb, CCORE_A_DEV_RECOVERIES, &d.recoveries);
	if (st->n == st->cap) {
		st->cap = st->cap ? 2 * st->cap : 16;
		grown = realloc(st->devs, st->cap * sizeof(*st->devs));
		if (!grown) {
			st->err = -ENOMEM;
			return NL_STOP;
		}
		st->devs = grown;
	}
	st->devs[st->n++] = d;
	return NL_OK;
}

static int on_dump_done(struct nl_msg *msg, void *arg)
{
	struct dump_state *st = arg;

	(void)msg;
	st->done = 1;
	return NL_STOP;
}

static int on_dump_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct dump_state *st = arg;

	(void)nla;
	st->err = e->error < 0 ? e->error : -EPROTO;
	return NL_STOP;
}

static void print_devs(const struct dump_state *st, bool json)
{
	const struct nl_dev *d;
	unsigned int i;

	if (json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_object_begin(&j);
		json_key(&j, "devices");
		json_array_begin(&j);
		for (i = 0; i < st->n; i++) {
			d = &st->devs[i];
			json_object_begin(&j);
			json_kv_uint(&j, "fabric", d->fabric);
			json_kv_uint(&j, "device", d->index);
			json_kv_uint(&j, "accel", d->accel);
			json_kv_uint(&j, "num_devices", d->num_devices);
			json_kv_uint(&j, "cores", d->cores);
			json_kv_uint(&j, "cc_cores", d->cc_cores);
			json_kv_uint(&j, "cc_cores_per_core", d->cc_per_core);
			json_kv_uint(&j, "mem_used", (unsigned long long)d->mem_used);
			json_kv_uint(&j, "cc_dma_packet_size", d->cc_pkt);
			json_kv_uint(&j, "dma_packetization_size", d->dma_pkt);
			json_kv_uint(&j, "job_timeouts", (unsigned long long)d->job_timeouts);
			json_kv_uint(&j, "dma_errors", (unsigned long long)d->dma_errors);
			json_kv_uint(&j, "recoveries", (unsigned long long)d->recoveries);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_object_end(&j);
		json_finish(&j);
		return;
	}
	printf("kernel driver (generic netlink family %s): %u device(s)\n\n", CCORE_FAMILY_NAME,
	       st->n);
	if (!st->n)
		return;
	printf("%-6s %-6s %-8s %-5s %-8s %-12s %-8s %-8s %-8s %-10s %s\n", "fabric", "device",
	       "accel", "cores", "cc_cores", "mem_used", "cc_pkt", "dma_pkt", "timeouts",
	       "dma_errors", "recoveries");
	for (i = 0; i < st->n; i++) {
		char accel[24];

		d = &st->devs[i];
		snprintf(accel, sizeof(accel), "accel%u", d->accel);
		printf("%-6u %-6u %-8s %-5u %-8u %-12llu %-8u %-8u %-8llu %-10llu %llu\n",
		       d->fabric, d->index, accel, d->cores, d->cc_cores,
		       (unsigned long long)d->mem_used, d->cc_pkt, d->dma_pkt,
		       (unsigned long long)d->job_timeouts, (unsigned long long)d->dma_errors,
		       (unsigned long long)d->recoveries);
	}
}

/* One dev-get dump into @st.  Return: 0 or a negative libnl error. */
static int dump_once(struct nl_sock *sk, int family, struct dump_state *st)
{
	struct nl_msg *msg = nlmsg_alloc();
	int rc;

	st->n = 0;
	st->done = 0;
	st->err = 0;
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_DUMP,
				 CCORE_CMD_DEV_GET, CCORE_FAMILY_VERSION)) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	rc = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	/* a dump is several datagrams: read until NLMSG_DONE or an error */
	while (rc >= 0 && !st->done && !st->err)
		rc = nl_recvmsgs_default(sk);
	return rc < 0 ? rc : 0;
}

int nl_list_devices(bool json)
{
	struct dump_state st = { 0 };
	struct nl_sock *sk;
	int family, rc, tries = 0;

	sk = nl_open(&family);
	if (!sk)
		return 1;
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_dev, &st);
	nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, on_dump_done, &st);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_dump_error, &st);
	/*
	 * A dump of several messages that saw devices come or go says so
	 * (NLM_F_DUMP_INTR, once it is read to the end): ask again.
	 */
	do
		rc = dump_once(sk, family, &st);
	while (rc == -NLE_DUMP_INTR && ++tries < 10);

	if (rc == -NLE_DUMP_INTR)
		fprintf(stderr, "ccore-info: dev-get dump: devices kept coming and going during %d dumps\n",
			tries);
	else if (st.err)
		fprintf(stderr, "ccore-info: dev-get dump: %s\n", strerror(-st.err));
	else if (rc < 0)
		fprintf(stderr, "ccore-info: dev-get dump: %s\n", nl_geterror(rc));
	else
		print_devs(&st, json);
	nl_socket_free(sk);
	free(st.devs);
	return rc < 0 || st.err ? 1 : 0;
}

/* --- events ------------------------------------------------------------------ */

struct watch_state {
	const struct watch_opts *o;
	int family;
	unsigned long seen;
	int gone;	/* the family was unregistered */
};

static const char *event_name(uint8_t cmd)
{
	switch (cmd) {
	case CCORE_CMD_JOB_TIMEOUT: return "job-timeout";
	case CCORE_CMD_DMA_ERROR: return "dma-error";
	case CCORE_CMD_CC_RECOVERED: return "cc-recovered";
	default: return NULL;
	}
}

/* 2026-11-22T18:44:01.123Z: when the event reached us (UTC, milliseconds) */
static void now_iso(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

/* nlctrl's notifications: stop when our family goes (ccore.ko unloaded) */
static int on_ctrl(struct nl_msg *msg, struct watch_state *st)
{
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	if (gh->cmd != CTRL_CMD_DELFAMILY ||
	    genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTRL_ATTR_MAX, NULL) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID] || nla_len(tb[CTRL_ATTR_FAMILY_ID]) != sizeof(uint16_t) ||
	    nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]) != st->family)
		return NL_SKIP;
	st->gone = 1;
	return NL_STOP;
}

static int on_event(struct nl_msg *msg, void *arg)
{
	struct watch_state *st = arg;
	struct genlmsghdr *gh = nlmsg_data(nlmsg_hdr(msg));
	struct nlattr *tb[CCORE_A_EVENT_MAX + 1];
	uint32_t fabric = 0, dev = 0, accel = 0, cc = 0, status_u = 0;
	const char *name = event_name(gh->cmd), *ename;
	char when[40], other[24], status[32];
	uint64_t job = 0;
	int has_job, has_accel;
	int32_t s;

	if (nlmsg_hdr(msg)->nlmsg_type == GENL_ID_CTRL)
		return on_ctrl(msg, st);
	if (nlmsg_hdr(msg)->nlmsg_type != st->family ||
	    genlmsg_parse(nlmsg_hdr(msg), 0, tb, CCORE_A_EVENT_MAX, NULL) < 0)
		return NL_SKIP;
	if (!name) {
		snprintf(other, sizeof(other), "event-%u", gh->cmd);
		name = other;
	}
	get_u32(tb, CCORE_A_EVENT_FABRIC_ID, &fabric);
	get_u32(tb, CCORE_A_EVENT_DEV_INDEX, &dev);
	get_u32(tb, CCORE_A_EVENT_CC, &cc);
	get_u32(tb, CCORE_A_EVENT_STATUS, &status_u);
	has_accel = get_u32(tb, CCORE_A_EVENT_ACCEL_MINOR, &accel);
	has_job = get_uint(tb, CCORE_A_EVENT_JOB_ID, &job);
	s = (int32_t)status_u;
	ename = s < 0 ? strerrorname_np(-s) : NULL;
	if (ename)
		snprintf(status, sizeof(status), "-%s", ename);
	else
		snprintf(status, sizeof(status), "%d", s);
	now_iso(when, sizeof(when));

	if (st->o->json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_object_begin(&j);
		json_kv_string(&j, "time", when);
		json_kv_string(&j, "event", name);
		json_kv_uint(&j, "fabric", fabric);
		json_kv_uint(&j, "dev", dev);
		json_kv_uint(&j, "cc", cc);
		json_kv_int(&j, "status", s);
		json_kv_string(&j, "errno", ename ? ename : "");
		if (has_accel)
			json_kv_uint(&j, "accel", accel);
		if (has_job)
			json_kv_uint(&j, "job", (unsigned long long)job);
		json_object_end(&j);
		json_finish(&j);
	} else {
		printf("%s %s fabric=%u dev=%u cc=%u status=%s", when, name, fabric, dev, cc,
		       status);
		if (has_job)
			printf(" job=%llu", (unsigned long long)job);
		if (has_accel)
			printf(" accel=%u", accel);
		printf("\n");
	}
	fflush(stdout);
	st->seen++;
	return st->o->count && st->seen >= st->o->count ? NL_STOP : NL_OK;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int nl_watch(const struct watch_opts *o)
{
	struct watch_state st = { .o = o };
	int ctrl_grp;
	double deadline = o->timeout > 0 ? mono_now() + o->timeout : 0;
	struct pollfd pfd;
	struct nl_sock *sk;
	int family, grp, rc = 0, status = 0;

	sk = nl_open(&family);
	if (!sk)
		return 1;
	grp = genl_ctrl_resolve_grp(sk, CCORE_FAMILY_NAME, CCORE_MCGRP_EVENTS);
	if (grp < 0) {
		fprintf(stderr, "ccore-info: the ccore family has no '%s' multicast group: %s\n",
			CCORE_MCGRP_EVENTS, nl_geterror(grp));
		nl_socket_free(sk);
		return 1;
	}
	/* notifications carry no sequence number of ours */
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_event, &st);
	rc = nl_socket_add_membership(sk, grp);
	if (rc < 0) {
		fprintf(stderr, "ccore-info: cannot join the '%s' multicast group: %s\n",
			CCORE_MCGRP_EVENTS, nl_geterror(rc));
		nl_socket_free(sk);
		return 1;
	}
	/* to learn that the family went away, rather than wait forever */
	ctrl_grp = genl_ctrl_resolve_grp(sk, "nlctrl", "notify");
	if (ctrl_grp >= 0)
		nl_socket_add_membership(sk, ctrl_grp);
	st.family = family;
	fprintf(stderr, "ccore-info: watching ccore events (family %d, group %d)\n", family,
		grp);
	pfd.fd = nl_socket_get_fd(sk);
	pfd.events = POLLIN;
	while ((!o->count || st.seen < o->count) && !st.gone) {
		int ms = -1;

		if (deadline) {
			double left = deadline - mono_now();

			if (left <= 0)
				break;
			ms = (int)ceil(left * 1000);
		}
		rc = poll(&pfd, 1, ms);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			fprintf(stderr, "ccore-info: poll: %s\n", strerror(errno));
			status = 1;
			break;
		}
		if (!rc)
			continue;	/* the deadline check above ends the loop */
		rc = nl_recvmsgs_default(sk);
		/* ENOBUFS: the socket overflowed, events were dropped; go on */
		if (rc == -NLE_NOMEM) {
			fprintf(stderr, "ccore-info: events were lost (receive buffer overrun)\n");
		} else if (rc < 0) {
			fprintf(stderr, "ccore-info: receiving events: %s\n", nl_geterror(rc));
			status = 1;
			break;
		}
	}
	if (st.gone) {
		fprintf(stderr, "ccore-info: the ccore generic netlink family went away (ccore.ko unloaded)\n");
		status = 1;
	}
	nl_socket_free(sk);
	return status;
}
