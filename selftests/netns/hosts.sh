#!/bin/sh
# Hosts on one machine: N network namespaces joined by veth pairs to a
# bridge (itself in a namespace of its own, so the machine's own network
# is never touched), then a command run in each of them, or once outside
# them; the namespaces are removed whatever happens (a trap).
#
# Usage: selftests/netns/hosts.sh [OPTIONS] -- COMMAND [ARG...]
#   -n, --hosts N     how many hosts, 2 to 8 (default 2)
#   --outside         run COMMAND once, here, with $CCORE_TEST_NETNS naming
#                     the namespaces' files, /proc/PID/ns/net (a program
#                     that enters them itself, setns(2)), and
#                     $CCORE_TEST_SWITCH the bridge's (host i's link is pI
#                     there: ip link set p1 down cuts host 1 off)
#   --mtu BYTES       the veth pairs' MTU (default 1500)
#   --name PREFIX     the namespaces' holder processes are named
#                     ccns-PREFIX-sw (the bridge's) and ccns-PREFIX-h0..
#                     (default cc and this shell's pid: runs side by side
#                     never meet); letters and digits, 1 to 12
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

# A namespace is held by a process of its own (unshare --net), named
# ccns-PREFIX-NAME so it can be found, and entered with nsenter: neither
# "ip netns" nor "ip -n", which remount / and /sys (refused in a chroot)
# and leave a mount behind.
holders=""
pids=""
# hold NAME: a namespace, its holder's pid in $held
hold() {
	# shellcheck disable=SC2016 # $0 is bash's, in the namespace
	unshare --net -- bash -c 'exec -a "ccns-$0" sleep 86400' "$tag-$1" </dev/null >/dev/null 2>&1 &
	held=$!
	holders="$holders $held"
}
in_ns() {
	p=$1
	shift
	nsenter --net="/proc/$p/ns/net" "$@"
}

# shellcheck disable=SC2317 # run by the trap
cleanup() {
	# what still runs in the hosts (an interrupted run) goes first
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	# a namespace goes with its holder, and its veth ends with it
	for p in $holders; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

if ! command -v unshare >/dev/null 2>&1 || ! command -v nsenter >/dev/null 2>&1; then
	skip "no unshare(1)/nsenter(1) here (Debian: util-linux)"
fi
hold sw
swp=$held
# the holder has entered its namespace once its net namespace differs from ours
tries=0
until [ "$(readlink "/proc/$swp/ns/net" 2>/dev/null)" != "$(readlink /proc/self/ns/net)" ] &&
	[ -n "$(readlink "/proc/$swp/ns/net" 2>/dev/null)" ]; do
	tries=$((tries + 1))
	if [ "$tries" -ge 50 ] || ! kill -0 "$swp" 2>/dev/null; then
		skip "cannot make network namespaces here (no CAP_NET_ADMIN / CAP_SYS_ADMIN?)"
	fi
	sleep 0.05
done
in_ns "$swp" ip link add br0 type bridge || exit 3
in_ns "$swp" ip link set br0 up || exit 3
addrs=""
hostp=""
i=0
while [ "$i" -lt "$hosts" ]; do
	hold "h$i"
	hp=$held
	tries=0
	until [ "$(readlink "/proc/$hp/ns/net" 2>/dev/null)" != "$(readlink /proc/self/ns/net)" ] &&
		[ -n "$(readlink "/proc/$hp/ns/net" 2>/dev/null)" ]; do
		tries=$((tries + 1))
		[ "$tries" -lt 50 ] || { echo "hosts.sh: host $i's namespace never came" >&2; exit 3; }
		sleep 0.05
	done
	hostp="$hostp${hostp:+ }$hp"
	addr="10.231.0.$((i + 1))"
	in_ns "$swp" ip link add "p$i" mtu "$mtu" type veth peer name eth0 mtu "$mtu" netns "$hp" || exit 3
	in_ns "$swp" ip link set "p$i" master br0 up || exit 3
	in_ns "$hp" ip addr add "$addr/24" dev eth0 || exit 3
	in_ns "$hp" ip link set eth0 up || exit 3
	in_ns "$hp" ip link set lo up || exit 3
	addrs="$addrs${addrs:+ }$addr"
	i=$((i + 1))
done

# the bridge (no STP) forwards once both ends of every pair are up
for hp in $hostp; do
	tries=0
	until in_ns "$hp" ip -o link show eth0 | grep -q 'state UP'; do
		tries=$((tries + 1))
		[ "$tries" -lt 50 ] || { echo "hosts.sh: a host's eth0 never came up" >&2; exit 3; }
		sleep 0.1
	done
done

if [ "$outside" -eq 1 ]; then
	paths=""
	for hp in $hostp; do
		paths="$paths${paths:+ }/proc/$hp/ns/net"
	done
	CCORE_TEST_NETNS="$paths" CCORE_TEST_SWITCH="/proc/$swp/ns/net" CCORE_HOST_ADDRS="$addrs" "$@"
	exit $?
fi

i=0
for hp in $hostp; do
	# nsenter itself in the background (not a function's subshell): the
	# cleanup's kill reaches the command, which nsenter becomes
	CCORE_HOST_INDEX=$i CCORE_HOSTS=$hosts CCORE_HOST_ADDRS="$addrs" CCORE_HOSTID="host$i" \
		FI_TCP_IFACE=eth0 nsenter --net="/proc/$hp/ns/net" "$@" &
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
