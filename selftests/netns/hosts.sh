#!/bin/sh
# Hosts on one machine: N network namespaces joined by veth pairs to a
# bridge (itself in a namespace of its own, so the machine's own network
# is never touched), then a command run in each of them, or once outside
# them; the namespaces are removed whatever happens (a trap).
#
# Usage: selftests/netns/hosts.sh [OPTIONS] -- COMMAND [ARG...]
#   -n, --hosts N     how many hosts, 2 to 8 (default 2)
#   --outside         run COMMAND once, here, with $CCORE_TEST_NETNS naming
#                     the namespaces (a program that enters them itself)
#   --mtu BYTES       the veth pairs' MTU (default 1500)
#   --name PREFIX     the namespaces' names: PREFIXsw (the bridge's) and
#                     PREFIXh0.. (default cc and this shell's pid: runs side
#                     by side never meet); letters and digits, 1 to 12
#   -h, --help        this text
#
# In each host namespace COMMAND runs with $CCORE_HOST_INDEX (0..N-1),
# $CCORE_HOSTS (N), $CCORE_HOST_ADDRS (every host's address, in order),
# $CCORE_HOSTID (host0, host1, ...: hostnames are equal in namespaces)
# and FI_TCP_IFACE=eth0 (libfabric's tcp provider on the veth, not lo).
# Host i is 10.231.0.(i+1)/24 on its eth0.
#
# Exit status: COMMAND's (the first failing one's), 4 when this cannot
# run here: no root / CAP_NET_ADMIN, or no ip(8); then it says why on
# stdout as "# SKIP <reason>" for the TAP tests that call it.
set -u

hosts=2
outside=0
mtu=1500
tag="cc$$"
usage() { sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "hosts.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	-n|--hosts) [ $# -ge 2 ] || die "$1 needs a number"; hosts=$2; shift 2 ;;
	--outside) outside=1; shift ;;
	--mtu) [ $# -ge 2 ] || die "$1 needs a number"; mtu=$2; shift 2 ;;
	--name) [ $# -ge 2 ] || die "$1 needs a prefix"; tag=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
case "$hosts" in
[2-8]) ;;
*) die "--hosts $hosts: expected 2 to 8" ;;
esac
case "$mtu" in
''|*[!0-9]*) die "--mtu $mtu: expected bytes, 1280 to 65535" ;;
esac
if [ "$mtu" -lt 1280 ] || [ "$mtu" -gt 65535 ]; then
	die "--mtu $mtu: expected bytes, 1280 to 65535"
fi
case "$tag" in
''|*[!A-Za-z0-9]*) die "--name '$tag': expected letters and digits, 1 to 12" ;;
esac
[ ${#tag} -le 12 ] || die "--name '$tag': expected letters and digits, 1 to 12"
[ $# -ge 1 ] || die "no command given (see --help)"

skip() { echo "# SKIP $*"; exit 4; }
command -v ip >/dev/null 2>&1 || skip "no ip(8) here (Debian: iproute2)"
[ "$(id -u)" -eq 0 ] || skip "needs root (CAP_NET_ADMIN) to make network namespaces"

sw="${tag}sw"
ns() { echo "${tag}h$1"; }

pids=""
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	# what still runs in the hosts (an interrupted run) goes first
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	i=0
	while [ "$i" -lt "$hosts" ]; do
		ip netns del "$(ns "$i")" 2>/dev/null
		i=$((i + 1))
	done
	ip netns del "$sw" 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if ! ip netns add "$sw" 2>/dev/null; then
	skip "cannot make network namespaces here (no CAP_NET_ADMIN?)"
fi
ip -n "$sw" link add br0 type bridge || exit 3
ip -n "$sw" link set br0 up || exit 3
addrs=""
i=0
while [ "$i" -lt "$hosts" ]; do
	h=$(ns "$i")
	addr="10.231.0.$((i + 1))"
	ip netns add "$h" || exit 3
	ip -n "$sw" link add "p$i" mtu "$mtu" type veth peer name eth0 mtu "$mtu" netns "$h" || exit 3
	ip -n "$sw" link set "p$i" master br0 up || exit 3
	ip -n "$h" addr add "$addr/24" dev eth0 || exit 3
	ip -n "$h" link set eth0 up || exit 3
	ip -n "$h" link set lo up || exit 3
	addrs="$addrs${addrs:+ }$addr"
	i=$((i + 1))
done

# the bridge (no STP) forwards once both ends of every pair are up
i=0
while [ "$i" -lt "$hosts" ]; do
	tries=0
	until ip -n "$(ns "$i")" -o link show eth0 | grep -q 'state UP'; do
		tries=$((tries + 1))
		[ "$tries" -lt 50 ] || { echo "hosts.sh: host $i's eth0 never came up" >&2; exit 3; }
		sleep 0.1
	done
	i=$((i + 1))
done

if [ "$outside" -eq 1 ]; then
	names=""
	i=0
	while [ "$i" -lt "$hosts" ]; do
		names="$names${names:+ }$(ns "$i")"
		i=$((i + 1))
	done
	CCORE_TEST_NETNS="$names" CCORE_HOST_ADDRS="$addrs" "$@"
	exit $?
fi

i=0
while [ "$i" -lt "$hosts" ]; do
	CCORE_HOST_INDEX=$i CCORE_HOSTS=$hosts CCORE_HOST_ADDRS="$addrs" CCORE_HOSTID="host$i" \
		FI_TCP_IFACE=eth0 ip netns exec "$(ns "$i")" "$@" &
	pids="$pids $!"
	i=$((i + 1))
done
status=0
for p in $pids; do
	wait "$p"
	rc=$?
	[ "$status" -eq 0 ] && status=$rc
done
exit "$status"
