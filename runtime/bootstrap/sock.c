// SPDX-License-Identifier: MIT
/*
 * The bootstrap's sockets (sock.h): addresses, $CCORE_COMM_ID,
 * $CCORE_SOCKET_IFNAME, and blocking steps as poll() loops against a
 * deadline, so that no step waits longer than its caller allows.
 */
#include "bootstrap/sock.h"
#include "ccore_internal.h"
#include "util/clock.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sock_poll_ms(int64_t deadline)
{
	int64_t left = deadline - rt_now_ns();

	if (left <= 0)
		return 0;
	if (left > (int64_t)INT32_MAX * 1000000)
		return INT32_MAX;
	return (int)((left + 999999) / 1000000);
}

const char *sock_addr_str(const struct boot_addr *a, char buf[SOCK_ADDR_STRLEN])
{
	char ip[INET6_ADDRSTRLEN] = "?";
	unsigned int port = ntohs(a->port);

	if (a->family == 4) {
		inet_ntop(AF_INET, a->ip, ip, sizeof(ip));
		snprintf(buf, SOCK_ADDR_STRLEN, "%s:%u", ip, port);
	} else if (a->family == 6) {
		inet_ntop(AF_INET6, a->ip, ip, sizeof(ip));
		if (a->scope_id)
			snprintf(buf, SOCK_ADDR_STRLEN, "[%s%%%u]:%u", ip, (unsigned int)ntohl(a->scope_id),
				 port);
		else
			snprintf(buf, SOCK_ADDR_STRLEN, "[%s]:%u", ip, port);
	} else {
		snprintf(buf, SOCK_ADDR_STRLEN, "(no address, family %u)", a->family);
	}
	return buf;
}

int sock_addr_equal(const struct boot_addr *a, const struct boot_addr *b)
{
	return a->family == b->family && a->port == b->port && a->scope_id == b->scope_id &&
	       !memcmp(a->ip, b->ip, a->family == 4 ? 4 : 16);
}

static void addr_from_sa(struct boot_addr *a, const struct sockaddr *sa)
{
	memset(a, 0, sizeof(*a));
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		a->family = 4;
		a->port = in->sin_port;
		memcpy(a->ip, &in->sin_addr, 4);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		a->family = 6;
		a->port = in6->sin6_port;
		a->scope_id = htonl(in6->sin6_scope_id);
		memcpy(a->ip, &in6->sin6_addr, 16);
	}
}

static socklen_t addr_to_sa(const struct boot_addr *a, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == 4) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = a->port;
		memcpy(&in->sin_addr, a->ip, 4);
		return sizeof(*in);
	}
	if (a->family == 6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = a->port;
		in6->sin6_scope_id = ntohl(a->scope_id);
		memcpy(&in6->sin6_addr, a->ip, 16);
		return sizeof(*in6);
	}
	return 0;
}

static int comm_id_bad(const char *v, const char *why)
{
	return ccore_error(-EINVAL,
			   "CCORE_COMM_ID=%s: %s; expected host:port or [IPv6 address]:port, the port from 1 to 65535 (the root's address: rank 0 listens there)",
			   v, why);
}

int sock_comm_id(struct boot_addr *out, const char **value)
{
	const char *v = getenv("CCORE_COMM_ID"), *colon, *host_end, *host_start = v;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char host[256], *end;
	unsigned long port;
	size_t host_len;
	int rc;

	*value = v;
	if (!v || !*v)
		return 1;
	if (v[0] == '[') {
		host_end = strchr(v, ']');
		if (!host_end)
			return comm_id_bad(v, "no ']' after the IPv6 address");
		if (host_end[1] != ':')
			return comm_id_bad(v, "no ':port' after ']'");
		colon = host_end + 1;
		host_start = v + 1;
		host_len = (size_t)(host_end - host_start);
		hints.ai_family = AF_INET6;
		hints.ai_flags = AI_NUMERICHOST;
	} else {
		colon = strrchr(v, ':');
		if (!colon)
			return comm_id_bad(v, "no ':port'");
		host_len = (size_t)(colon - v);
		if (memchr(v, ':', host_len))
			return comm_id_bad(v, "an IPv6 address goes in brackets");
	}
	if (!host_len)
		return comm_id_bad(v, "no host before the port");
	if (host_len >= sizeof(host))
		return comm_id_bad(v, "the host name is too long");
	memcpy(host, host_start, host_len);
	host[host_len] = '\0';
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || colon[1] == '-' || colon[1] == '+' || port < 1 || port > 65535)
		return comm_id_bad(v, "the port is not a number from 1 to 65535");
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc)
		return ccore_error(-EINVAL,
				   "CCORE_COMM_ID=%s: cannot resolve the host '%s': %s; expected host:port or [IPv6 address]:port",
				   v, host, gai_strerror(rc));
	addr_from_sa(out, res->ai_addr);
	freeaddrinfo(res);
	out->port = htons((uint16_t)port);
	return 0;
}

/* $CCORE_SOCKET_IFNAME, parsed (NCCL's syntax). */
struct ifname_rule {
	const char *value;
	bool exclude;		/* "^": every interface but those */
	bool exact;		/* "=": whole names, not prefixes */
	char items[16][IF_NAMESIZE];
	unsigned int n;
};

static int ifname_bad(const char *v, const char *why)
{
	return ccore_error(-EINVAL,
			   "CCORE_SOCKET_IFNAME=%s: %s; expected comma-separated interface name prefixes (eth,ib), '^' first to exclude them (^docker,lo), '=' first for whole names (=eth0, ^=docker0)",
			   v, why);
}

static int ifname_parse(const char *v, struct ifname_rule *r)
{
	const char *p = v;

	r->value = v;
	if (*p == '^') {
		r->exclude = true;
		p++;
	}
	if (*p == '=') {
		r->exact = true;
		p++;
	}
	for (;;) {
		size_t len = strcspn(p, ",");

		if (!len)
			return ifname_bad(v, "an empty name");
		if (len >= IF_NAMESIZE)
			return ifname_bad(v, "a name longer than an interface name can be (15)");
		if (r->n == sizeof(r->items) / sizeof(r->items[0]))
			return ifname_bad(v, "more than 16 names");
		memcpy(r->items[r->n], p, len);
		r->items[r->n++][len] = '\0';
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

static bool ifname_allows(const struct ifname_rule *r, const char *name)
{
	bool match = false;

	for (unsigned int i = 0; i < r->n && !match; i++)
		match = r->exact ? !strcmp(name, r->items[i])
				 : !strncmp(name, r->items[i], strlen(r->items[i]));
	return match != r->exclude;
}

static bool usable(const struct ifaddrs *ifa)
{
	return (ifa->ifa_flags & IFF_UP) && ifa->ifa_addr &&
	       (ifa->ifa_addr->sa_family == AF_INET || ifa->ifa_addr->sa_family == AF_INET6);
}

/* Rank of an address within its interface: IPv4, global IPv6, link-local. */
static int preference(const struct sockaddr *sa)
{
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

	if (sa->sa_family == AF_INET)
		return 3;
	return IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr) ? 1 : 2;
}

/* The best address of interface @name. */
static const struct ifaddrs *best_of(const struct ifaddrs *all, const char *name)
{
	const struct ifaddrs *best = NULL;

	for (const struct ifaddrs *ifa = all; ifa; ifa = ifa->ifa_next)
		if (usable(ifa) && !strcmp(ifa->ifa_name, name) &&
		    (!best || preference(ifa->ifa_addr) > preference(best->ifa_addr)))
			best = ifa;
	return best;
}

/* "lo, eth0" into @buf: the up interfaces with an address, for messages. */
static void list_up(const struct ifaddrs *all, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (const struct ifaddrs *ifa = all; ifa && n < size; ifa = ifa->ifa_next) {
		if (!usable(ifa) || best_of(all, ifa->ifa_name) != ifa)
			continue;
		n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", ifa->ifa_name);
	}
	if (!n)
		snprintf(buf, size, "none");
}

int sock_pick_addr(struct boot_addr *out)
{
	const char *v = getenv("CCORE_SOCKET_IFNAME");
	struct ifname_rule rule = { 0 };
	const struct ifaddrs *pick = NULL;
	struct ifaddrs *all;
	char names[256];

	if (v && *v) {
		int rc = ifname_parse(v, &rule);

		if (rc)
			return rc;
	}
	if (getifaddrs(&all))
		return ccore_error(-errno, "bootstrap: cannot list the network interfaces: %s",
				   strerror(errno));
	for (const struct ifaddrs *ifa = all; ifa && !pick; ifa = ifa->ifa_next) {
		if (!usable(ifa))
			continue;
		if (rule.n ? ifname_allows(&rule, ifa->ifa_name) : !(ifa->ifa_flags & IFF_LOOPBACK))
			pick = best_of(all, ifa->ifa_name);
	}
	for (const struct ifaddrs *ifa = all; ifa && !pick && !rule.n; ifa = ifa->ifa_next)
		if (usable(ifa))
			pick = best_of(all, ifa->ifa_name);
	if (!pick) {
		list_up(all, names, sizeof(names));
		freeifaddrs(all);
		if (rule.n)
			return ccore_error(-ENODEV,
					   "CCORE_SOCKET_IFNAME=%s: no up interface with an IPv4 or IPv6 address %s; up interfaces: %s",
					   v, rule.exclude ? "is left once those are excluded" : "matches",
					   names);
		return ccore_error(-ENODEV, "bootstrap: no up interface with an IPv4 or IPv6 address");
	}
	addr_from_sa(out, pick->ifa_addr);
	out->port = 0;
	freeifaddrs(all);
	return 0;
}

int sock_listen(struct boot_addr *a, int *fd)
{
	struct sockaddr_storage ss;
	socklen_t len = addr_to_sa(a, &ss);
	int one = 1, s, rc;

	if (!len)
		return -EAFNOSUPPORT;
	s = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	/* a fixed port ($CCORE_COMM_ID) is free again right after a job */
	if (a->port)
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (struct sockaddr *)&ss, len) || listen(s, SOMAXCONN))
		goto fail;
	len = sizeof(ss);
	if (getsockname(s, (struct sockaddr *)&ss, &len))
		goto fail;
	addr_from_sa(a, (struct sockaddr *)&ss);
	*fd = s;
	return 0;
fail:
	rc = -errno;
	close(s);
	return rc;
}

int sock_accept(int lfd, int64_t deadline, int *fd)
{
	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		int s = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC), one = 1;

		if (s >= 0) {
			setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
			*fd = s;
			return 0;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		    errno != ECONNABORTED)
			return -errno;
		if (rt_now_ns() >= deadline)
			return -ETIMEDOUT;
		if (poll(&p, 1, sock_poll_ms(deadline)) < 0 && errno != EINTR)
			return -errno;
	}
}

/* One connection attempt: 0, or -errno of why it failed. */
static int connect_once(const struct sockaddr_storage *ss, socklen_t len, int64_t deadline,
			int *fd)
{
	struct pollfd p;
	int s = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), err = 0;
	int one = 1;
	socklen_t elen = sizeof(err);

	if (s < 0)
		return -errno;
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(s, (const struct sockaddr *)ss, len) == 0)
		goto done;
	if (errno != EINPROGRESS) {
		err = errno;
		goto fail;
	}
	p = (struct pollfd){ .fd = s, .events = POLLOUT };
	for (;;) {
		int n = poll(&p, 1, sock_poll_ms(deadline));

		if (n > 0)
			break;
		if (n < 0 && errno != EINTR) {
			err = errno;
			goto fail;
		}
		if (n == 0 && rt_now_ns() >= deadline) {
			err = ETIMEDOUT;
			goto fail;
		}
	}
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &elen))
		err = errno;
	if (err)
		goto fail;
done:
	*fd = s;
	return 0;
fail:
	close(s);
	return -err;
}

int sock_connect(const struct boot_addr *a, int64_t deadline, int retry_refused, int *fd)
{
	struct sockaddr_storage ss;
	socklen_t len = addr_to_sa(a, &ss);
	int64_t backoff_ns = 1000000;

	if (!len)
		return -EAFNOSUPPORT;
	for (;;) {
		int rc = connect_once(&ss, len, deadline, fd);
		int64_t left;

		if (!rc || !retry_refused || rc != -ECONNREFUSED)
			return rc;
		left = deadline - rt_now_ns();
		if (left <= 0)
			return -ETIMEDOUT;
		/* the root is not up yet: try again, backing off to 100 ms */
		if (backoff_ns > left)
			backoff_ns = left;
		nanosleep(&(struct timespec){ .tv_sec = backoff_ns / 1000000000,
					      .tv_nsec = backoff_ns % 1000000000 }, NULL);
		if (backoff_ns < 100000000)
			backoff_ns *= 2;
	}
}

/* Wait for @events on @fd until @deadline: 0, or -ETIMEDOUT. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		int n = poll(&p, 1, sock_poll_ms(deadline));

		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n == 0 && rt_now_ns() >= deadline)
			return -ETIMEDOUT;
	}
}

int sock_write(int fd, const void *buf, size_t len, int64_t deadline)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		int rc;

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (errno == EPIPE || errno == ECONNRESET)
			return -errno;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

int sock_read(int fd, void *buf, size_t len, int64_t deadline)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = recv(fd, p, len, MSG_DONTWAIT);
		int rc;

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -EPIPE;
		if (errno == ECONNRESET)
			return -errno;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		rc = wait_fd(fd, POLLIN, deadline);
		if (rc)
			return rc;
	}
	return 0;
}
