#!/bin/sh
# The network transport between two hosts made of network namespaces
# (selftests/netns/hosts.sh: veth pairs and a bridge): put_test's pair
# cases with one process in each host, every collective and algorithm
# across 2 and 3 hosts (mproc_test sweep_across_hosts), the tuner's
# network tier measured and agreed across 2 hosts, a link taken down
# in the middle of collectives (both ranks fail within seconds naming the
# other host; with the link back a new job runs), the raw put bandwidth
# across the veth pair up to 256 MiB (ccore-netbw, every size checked
# bit-exact), and the namespaces gone afterwards, also after a failing
# command and an interrupted run.  Needs root (CAP_NET_ADMIN); skips saying so otherwise.
# Prints TAP.  Installed as BUILD/tests/netns/net_hosts_test; the sources
# are above it.
build=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tool_test_start selftests/netns/hosts.sh
hosts="$root/selftests/netns/hosts.sh"
need_built "$build/tests/net/put_test" "$build/bin/ccore-netbw"

# The harness's own checks of its arguments need no privilege.
out=$("$hosts" --hosts 9 -- true 2>&1)
if [ $? -eq 2 ] && printf '%s' "$out" | grep -q -- '--hosts 9: expected 2 to 8'; then
	ok "hosts.sh refuses --hosts 9, naming the range"
else
	not_ok "hosts.sh refuses --hosts 9, naming the range" "$out"
fi
out=$("$hosts" 2>&1)
if [ $? -eq 2 ] && printf '%s' "$out" | grep -q 'no command given'; then
	ok "hosts.sh without a command says so"
else
	not_ok "hosts.sh without a command says so" "$out"
fi

out=$("$hosts" -- true 2>&1)
case "$out" in
"# SKIP "*)
	why=${out#\# SKIP }
	for name in put_across_hosts collectives_across_hosts network_tier_across_hosts \
		link_down_mid_collective bandwidth_across_hosts cleanup_after_failure \
		cleanup_after_interrupt; do
		skip "$name" "$why"
	done
	echo "1..$n"
	exit 0 ;;
esac

# the namespaces of the runs below, by their own prefix (other runs may go on beside)
tag="nht$$"
count_netns() { pgrep -c -f "^ccns-$tag-" 2>/dev/null || true; }

# put_test's pair cases, one process per host
out=$("$hosts" --outside -- "$build/tests/net/put_test" put_sizes put_sizes_chunked reorder_shuffled \
	peer_killed 2>&1)
rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^# 4 passed, 0 failed' &&
	printf '%s\n' "$out" | grep -q 'tcp;ofi_rxm on 10.231.0.0/24'; then
	ok "put_test across two hosts (1 B to 64 MiB, chunked, shuffled, a killed peer)"
else
	not_ok "put_test across two hosts (1 B to 64 MiB, chunked, shuffled, a killed peer)" \
		"status $rc" "$out"
fi

# every collective and algorithm across 2 and 3 hosts, a process per rank
out=$("$hosts" --hosts 3 --outside -- "$build/tests/runtime/mproc_test" sweep_across_hosts 2>&1)
rc=$?
printf '%s\n' "$out" | grep '^# N=' | sed 's/^# /# hosts: /'
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^# 1 passed, 0 failed'; then
	ok "every collective and algorithm across network namespaces (2 and 3 hosts), 0 wrong"
else
	not_ok "every collective and algorithm across network namespaces (2 and 3 hosts), 0 wrong" \
		"status $rc" "$out"
fi

# the tuner's network tier across the veth pair: measured at init and
# agreed by every rank, given figures change its choice, and with one
# device (one NIC) per host the large AllReduce crosses with the least
out=$("$hosts" --hosts 2 --outside -- "$build/tests/runtime/mproc_test" \
	network_measured_once_agreed_by_every_rank network_figures_given_change_the_choice_across_hosts \
	one_nic_per_host_the_large_allreduce_crosses_the_least 2>&1)
rc=$?
printf '%s\n' "$out" | grep '^# measured\|^# network\|^# the choice' | sed 's/^# /# tier: /'
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^# 3 passed, 0 failed'; then
	ok "the network tier measured across namespaces, agreed, given figures change the choice, one NIC per host priced"
else
	not_ok "the network tier measured across namespaces, agreed, given figures change the choice, one NIC per host priced" \
		"status $rc" "$out"
fi

# a link taken down in the middle of collectives: both ranks fail within
# seconds naming the other host; with the link back a new job runs
# shellcheck disable=SC2016
out=$(TMPDIR="$tmp" "$hosts" --outside -- sh -c '
	set -- "$0" $CCORE_TEST_NETNS
	bench=$1 h0=$2 h1=$3
	run() {
		nsenter --net="$1" env CCORE_COMM_ID="10.231.0.1:$3" PMI_RANK="$2" PMI_SIZE=2 \
			CCORE_HOSTID="host$2" FI_TCP_IFACE=eth0 CCORE_SOCKET_IFNAME=eth0 \
			"$bench" -g 2 --ranks-per-device 1 -b 1M -e 1M -n "$4" -w 1
	}
	run "$h0" 0 29700 1000000 >"$TMPDIR/r0" 2>&1 & p0=$!
	run "$h1" 1 29700 1000000 >"$TMPDIR/r1" 2>&1 & p1=$!
	sleep 3
	nsenter --net="$CCORE_TEST_SWITCH" ip link set p1 down
	t0=$(date +%s%N)
	wait $p0; rc0=$?
	wait $p1; rc1=$?
	t1=$(date +%s%N)
	nsenter --net="$CCORE_TEST_SWITCH" ip link set p1 up
	sleep 1
	run "$h0" 0 29701 5 >"$TMPDIR/n0" 2>&1 & q0=$!
	run "$h1" 1 29701 5 >"$TMPDIR/n1" 2>&1 & q1=$!
	wait $q0; n0=$?
	wait $q1; n1=$?
	echo "failed $rc0 $rc1 after $(( (t1 - t0) / 1000000 )) ms; new job $n0 $n1"
	grep -h "unreachable\|is gone" "$TMPDIR/r0" "$TMPDIR/r1" | head -2
	grep -h "Out of bounds" "$TMPDIR/n0"
' "$build/bin/ccore-bench" 2>&1)
printf '%s\n' "$out" | sed 's/^/# /'
ms=$(printf '%s\n' "$out" | sed -n 's/^failed [0-9]* [0-9]* after \([0-9]*\) ms.*/\1/p')
# statuses 1-99: an error each, not a signal (128 + N)
if printf '%s\n' "$out" | grep -q '^failed [1-9][0-9]\? [1-9][0-9]\? after .*; new job 0 0$' &&
	printf '%s\n' "$out" | grep -q 'unreachable: host [01]\|host [01].*unreachable\|rank [01] is gone' &&
	printf '%s\n' "$out" | grep -q 'Out of bounds values : 0 OK' && [ -n "$ms" ] && [ "$ms" -lt 9000 ]; then
	ok "a link down mid-collective: both ranks fail naming the other host, then a new job runs"
else
	not_ok "a link down mid-collective: both ranks fail naming the other host, then a new job runs" "$out"
fi

# the raw put bandwidth on the same path
# shellcheck disable=SC2016
out=$("$hosts" -- sh -c 'CCORE_COMM_ID=10.231.0.1:29500 exec "$0" --rank "$CCORE_HOST_INDEX" \
	--check -b 8 -e 256M' "$build/bin/ccore-netbw" 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
big=$(printf '%s\n' "$out" | awk '$1 == 268435456 { print $4 }')
if [ $rc -eq 0 ] && [ -n "$big" ]; then
	echo "# raw put bandwidth across the veth pair at 256 MiB: $big GB/s"
	ok "bandwidth across hosts, 8 B to 256 MiB, checked"
else
	not_ok "bandwidth across hosts, 8 B to 256 MiB, checked" "status $rc"
fi

# a failing command: its status, and nothing left behind
"$hosts" --name "$tag" -- sh -c 'exit 7' >/dev/null 2>&1
rc=$?
after=$(count_netns)
if [ $rc -eq 7 ] && [ "$after" -eq 0 ]; then
	ok "cleanup after a failing command (status 7 passed on)"
else
	not_ok "cleanup after a failing command (status 7 passed on)" \
		"status $rc, $after namespaces left"
fi

# an interrupted run: the hosts' processes and namespaces go
# shellcheck disable=SC2016
"$hosts" --name "$tag" -- sh -c 'echo $$ >"$0/pid$CCORE_HOST_INDEX"; exec sleep 60' "$tmp" >/dev/null 2>&1 &
pid=$!
tries=0
while [ "$(count_netns)" -lt 3 ] && [ $tries -lt 50 ]; do
	sleep 0.1
	tries=$((tries + 1))
done
during=$(count_netns)
kill -TERM "$pid"
wait "$pid"
rc=$?
after=$(count_netns)
left=""
for f in "$tmp"/pid*; do
	[ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && left="$left $(cat "$f")"
done
if [ "$during" -eq 3 ] && [ "$after" -eq 0 ] && [ -z "$left" ] &&
	[ $rc -ne 0 ]; then
	ok "cleanup after an interrupted run"
else
	not_ok "cleanup after an interrupted run" \
		"status $rc, namespaces $during during, $after after, left running:${left:- none}"
fi
echo "1..$n"
[ "$failed" -eq 0 ]
