// SPDX-License-Identifier: GPL-2.0
/*
 * genl_request: send one dev-get request of the "ccore" generic netlink
 * family, with any attributes, valid or not, and print what came back
 * (selftests/driver/genl_test.sh).
 *
 *   genl_request do|dump [TYPE=VALUE[/LEN]]...
 *
 * TYPE is the attribute number (CCORE_A_DEV_*), VALUE goes in LEN bytes
 * (1, 2, 4 or 8; default 4).  Prints one "dev fabric=F dev=D accel=N"
 * line per device, or "error -ENAME" for an error answer, and exits 0 for
 * devices, 1 for an error answer, 2 for bad usage or no family.  Linked
 * statically: the QEMU guest has no libnl.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ccore_genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

struct answer {
	int done, error;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[CCORE_A_DEV_MAX + 1];

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, CCORE_A_DEV_MAX, NULL) < 0 ||
	    !tb[CCORE_A_DEV_FABRIC_ID] || !tb[CCORE_A_DEV_DEV_INDEX] ||
	    !tb[CCORE_A_DEV_ACCEL_MINOR]) {
		printf("malformed\n");
		return NL_SKIP;
	}
	printf("dev fabric=%u dev=%u accel=%u\n", nla_get_u32(tb[CCORE_A_DEV_FABRIC_ID]),
	       nla_get_u32(tb[CCORE_A_DEV_DEV_INDEX]), nla_get_u32(tb[CCORE_A_DEV_ACCEL_MINOR]));
	return NL_OK;
}

static int on_finish(struct nl_msg *msg, void *arg)
{
	struct answer *a = arg;

	(void)msg;
	a->done = 1;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	return on_finish(msg, arg);
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct answer *a = arg;
	const char *name = strerrorname_np(-e->error);

	(void)nla;
	a->error = e->error;
	a->done = 1;
	if (name)
		printf("error -%s\n", name);
	else
		printf("error %d\n", e->error);
	return NL_STOP;
}

int main(int argc, char **argv)
{
	struct answer a = { 0 };
	struct nl_sock *sk;
	struct nl_msg *msg;
	int dump, family, i, rc;

	if (argc < 2 || (strcmp(argv[1], "do") && strcmp(argv[1], "dump"))) {
		fprintf(stderr, "usage: genl_request do|dump [TYPE=VALUE[/LEN]]...\n");
		return 2;
	}
	dump = !strcmp(argv[1], "dump");
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk) < 0) {
		fprintf(stderr, "genl_request: no generic netlink socket\n");
		return 2;
	}
	family = genl_ctrl_resolve(sk, CCORE_FAMILY_NAME);
	if (family < 0) {
		fprintf(stderr, "genl_request: no %s family: %s\n", CCORE_FAMILY_NAME,
			nl_geterror(family));
		return 2;
	}
	msg = nlmsg_alloc();
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
				 (dump ? NLM_F_DUMP : 0) | NLM_F_ACK, CCORE_CMD_DEV_GET,
				 CCORE_FAMILY_VERSION))
		return 2;
	for (i = 2; i < argc; i++) {
		unsigned long type, len = 4;
		unsigned long long v;
		uint8_t buf[8];
		char *end;

		type = strtoul(argv[i], &end, 0);
		if (*end != '=')
			goto usage;
		v = strtoull(end + 1, &end, 0);
		if (*end == '/')
			len = strtoul(end + 1, &end, 0);
		if (*end || (len != 1 && len != 2 && len != 4 && len != 8))
			goto usage;
		/* little-endian hosts: the low LEN bytes of v */
		memcpy(buf, &v, sizeof(buf));
		if (nla_put(msg, type, len, buf) < 0)
			return 2;
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &a);
	nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, on_finish, &a);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &a);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_error, &a);
	rc = nl_send_auto(sk, msg);
	while (rc >= 0 && !a.done)
		rc = nl_recvmsgs_default(sk);
	if (rc < 0 && !a.error) {
		fprintf(stderr, "genl_request: %s\n", nl_geterror(rc));
		return 2;
	}
	nlmsg_free(msg);
	nl_socket_free(sk);
	return a.error ? 1 : 0;
usage:
	fprintf(stderr, "genl_request: '%s': expected TYPE=VALUE[/LEN], LEN 1, 2, 4 or 8\n",
		argv[i]);
	return 2;
}
