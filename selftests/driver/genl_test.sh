#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The ccore generic netlink family (Documentation/netlink/ccore.yaml), run
# in the QEMU guest as root with ccore.ko loaded: dev-get lists every
# device of every fabric (ccore-info --netlink), follows devices being added
# and removed, and survives dumps racing del_device; the "events" group
# reports a job timeout and a CC-core fault, each followed by the core's
# recovery (ccore-info --watch), and the counters in dev-get count them.
# Last, it unloads and reloads ccore.ko (a watch must end when the family
# goes), recreating the fabrics that were there.  Prints TAP.
#
#   genl_test.sh [FABRIC_ID]	(default 4343, or $CCORE_GENL_TEST_ID)
#
# helpers/ccore-info, helpers/genl_request (sends one raw dev-get request)
# and helpers/genl_provoke (makes a job fail) are linked statically: the
# runner copies shared libraries for test binaries only.
# Exit status: 0 all passed, 1 some failed, 4 skipped (no ccore_sim bus).

here=$(cd "$(dirname "$0")" && pwd)
info=$here/helpers/ccore-info
provoke=$here/helpers/genl_provoke
request=$here/helpers/genl_request
bus=/sys/bus/ccore_sim
fid=${1:-${CCORE_GENL_TEST_ID:-4343}}
tmp=$(mktemp -d)
ntests=17

# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$here/helpers/tap.sh"

cleanup() {
	[ -z "${watcher:-}" ] || kill "$watcher" 2>/dev/null
	for f in $fid $((fid + 1)) $((fid + 2)); do
		[ ! -e "$bus/devices/ccore_sim$f" ] || echo "$f" >"$bus/del_device" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "TAP version 13"
[ -d "$bus" ] || skip_all "no $bus (is ccore.ko loaded?)"
need_built "$info" "$provoke" "$request"
echo "1..$ntests"

# Our own fabric of two devices, whatever setup.sh created.
[ ! -e "$bus/devices/ccore_sim$fid" ] || echo "$fid" >"$bus/del_device"
echo "$fid 2" >"$bus/new_device"

# ccore devices the kernel has, from sysfs: "FABRIC accelN" per line
sysfs_devices() {
	for a in /sys/class/accel/accel*; do
		[ -e "$a/device" ] || continue
		p=$(readlink "$a/device")
		# the parent is ccore_simFABRIC, or ccore_simFABRIC.INDEX
		f=${p##*/ccore_sim}
		case "${p##*/}" in
		ccore_sim*) echo "${f%%.*} ${a##*/}" ;;
		esac
	done | sort
}

# the same from ccore-info --netlink's table
netlink_devices() {
	"$info" --netlink | awk 'NR > 3 && NF >= 3 { print $1, $3 }' | sort
}

t_list() {
	out=$("$info" --netlink) || { echo "ccore-info --netlink failed: $out"; return 1; }
	for d in 0 1; do
		echo "$out" | awk -v f="$fid" -v d="$d" '$1 == f && $2 == d { found = 1 } END { exit !found }' ||
			{ echo "fabric $fid device $d missing from:"; echo "$out"; return 1; }
	done
}
check "ccore-info --netlink lists the new fabric's devices" t_list

t_all() {
	want=$(sysfs_devices)
	got=$(netlink_devices)
	[ -n "$want" ] || { echo "no ccore device in /sys/class/accel"; return 1; }
	[ "$want" = "$got" ] || { echo "sysfs: $want"; echo "netlink: $got"; return 1; }
}
check "dev-get dump has every device of every fabric, with its accel minor" t_all

t_json() {
	out=$("$info" --netlink --json) || { echo "failed: $out"; return 1; }
	case "$out" in
	'{"devices":[{"fabric":'*'"recoveries":'*']}') ;;
	*) echo "not the expected JSON: $out"; return 1 ;;
	esac
	echo "$out" | grep -q "\"fabric\":$fid,\"device\":1," ||
		{ echo "no fabric $fid device 1 in: $out"; return 1; }
}
check "ccore-info --netlink --json" t_json

# accel minor of device $1 of our fabric
accel_of() {
	"$info" --netlink | awk -v f="$fid" -v d="$1" '$1 == f && $2 == d { print $3 }'
}

# N of the accelN of device $1 of our fabric
minor_of() {
	a=$(accel_of "$1")
	echo "${a#accel}"
}

# expect_request WANT ARGS...: genl_request ARGS prints exactly WANT
expect_request() {
	want=$1
	shift
	got=$("$request" "$@" 2>&1)
	[ "$got" = "$want" ] || { echo "genl_request $*: '$got', expected '$want'"; return 1; }
}

# attribute numbers (uapi/linux/ccore_genl.h)
A_FABRIC=1
A_INDEX=2

t_do() {
	expect_request "dev fabric=$fid dev=1 accel=$(minor_of 1)" \
		"do" "$A_FABRIC=$fid" "$A_INDEX=1"
}
check "dev-get do returns the one device asked for" t_do

t_do_errors() {
	expect_request "error -EINVAL" "do" "$A_FABRIC=$fid" || return 1
	expect_request "error -EINVAL" "do" "$A_INDEX=0" || return 1
	expect_request "error -ENODEV" "do" "$A_FABRIC=$fid" "$A_INDEX=2" || return 1
	expect_request "error -ENODEV" "do" "$A_FABRIC=$((fid + 100))" "$A_INDEX=0"
}
check "dev-get do: a missing attribute is -EINVAL, no such device -ENODEV" t_do_errors

t_strict() {
	# an attribute the policy does not know, beyond its last one, or of
	# the wrong size: all refused (strict validation)
	expect_request "error -EINVAL" "do" "$A_FABRIC=$fid" "$A_INDEX=0" "3=0" || return 1
	expect_request "error -EINVAL" "do" "$A_FABRIC=$fid" "$A_INDEX=0" "99=0" || return 1
	expect_request "error -EINVAL" "do" "$A_FABRIC=$fid/2" "$A_INDEX=0" || return 1
	expect_request "error -EINVAL" "do" "$A_FABRIC=$fid/8" "$A_INDEX=0" || return 1
	expect_request "error -EINVAL" dump "$A_INDEX=0" || return 1
	expect_request "error -EINVAL" dump "0=0"
}
check "unknown and malformed attributes are refused" t_strict

t_dump_filter() {
	expect_request "dev fabric=$fid dev=0 accel=$(minor_of 0)
dev fabric=$fid dev=1 accel=$(minor_of 1)" dump "$A_FABRIC=$fid" || return 1
	expect_request "" dump "$A_FABRIC=$((fid + 100))"
}
check "dev-get dump of one fabric" t_dump_filter

# watch OUTFILE ARGS...: start a watcher, wait until it has subscribed
watch_start() {
	o=$1
	shift
	"$info" --watch "$@" >"$o" 2>"$o.err" &
	watcher=$!
	i=0
	while ! grep -q "watching" "$o.err" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$watcher" 2>/dev/null; then
			echo "the watcher did not start: $(cat "$o.err")"
			return 1
		fi
		sleep 0.1
	done
}

# watch_end: its exit status
watch_end() {
	wait "$watcher"
	watch_rc=$?
	watcher=
	return $watch_rc
}

t_timeout_events() {
	dev=$(accel_of 0)
	[ -n "$dev" ] || { echo "no accel minor for fabric $fid device 0"; return 1; }
	watch_start "$tmp/w1" --count 2 --timeout 30 || return 1
	out=$("$provoke" "/dev/accel/$dev" hang 1 2>&1) ||
		{ kill "$watcher"; echo "genl_provoke: $out"; return 1; }
	job=${out#job }
	job=${job%%:*}
	watch_end || { echo "the watcher exited with $?: $(cat "$tmp/w1.err")"; return 1; }
	grep -Eq "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{3}Z job-timeout fabric=$fid dev=0 cc=1 status=-ETIMEDOUT job=$job accel=${dev#accel}\$" "$tmp/w1" ||
		{ echo "no job-timeout line for job $job"; return 1; }
	grep -Eq " cc-recovered fabric=$fid dev=0 cc=1 status=-ETIMEDOUT( job=$job)? accel=" "$tmp/w1" ||
		{ echo "no cc-recovered line"; return 1; }
	[ "$(wc -l <"$tmp/w1")" -eq 2 ] || { echo "not 2 lines"; return 1; }
	head -n 1 "$tmp/w1" | grep -q " job-timeout " || { echo "cc-recovered came first"; return 1; }
}
check "--watch: a job timeout gives job-timeout, then cc-recovered" t_timeout_events
sed 's/^/# /' "$tmp/w1" 2>/dev/null

t_fault_events() {
	dev=$(accel_of 1)
	watch_start "$tmp/w2" --json --count 2 --timeout 30 || return 1
	out=$("$provoke" "/dev/accel/$dev" fault 0 2>&1) ||
		{ kill "$watcher"; echo "genl_provoke: $out"; return 1; }
	watch_end || { echo "the watcher exited with $?: $(cat "$tmp/w2.err")"; return 1; }
	grep -q "^{\"time\":\"[^\"]*Z\",\"event\":\"dma-error\",\"fabric\":$fid,\"dev\":1,\"cc\":0,\"status\":-5,\"errno\":\"EIO\",\"accel\":${dev#accel},\"job\":[0-9]*}\$" "$tmp/w2" ||
		{ echo "no dma-error object"; return 1; }
	grep -q "\"event\":\"cc-recovered\",\"fabric\":$fid,\"dev\":1,\"cc\":0,\"status\":-5," "$tmp/w2" ||
		{ echo "no cc-recovered object"; return 1; }
}
check "--watch --json: a CC-core fault gives dma-error, then cc-recovered" t_fault_events
sed 's/^/# /' "$tmp/w2" 2>/dev/null

t_counters() {
	out=$("$info" --netlink --json) || { echo "failed: $out"; return 1; }
	echo "$out" | grep -q "\"fabric\":$fid,\"device\":0,[^}]*\"job_timeouts\":1,\"dma_errors\":0,\"recoveries\":1}" ||
		{ echo "device 0 counters: $out"; return 1; }
	echo "$out" | grep -q "\"fabric\":$fid,\"device\":1,[^}]*\"job_timeouts\":0,\"dma_errors\":1,\"recoveries\":1}" ||
		{ echo "device 1 counters: $out"; return 1; }
}
check "dev-get counts the timeout, the fault and both recoveries" t_counters

t_quiet_timeout() {
	start=$(date +%s)
	"$info" --watch --timeout 1 >"$tmp/w3" 2>"$tmp/w3.err" ||
		{ echo "exit $?: $(cat "$tmp/w3.err")"; return 1; }
	end=$(date +%s)
	[ ! -s "$tmp/w3" ] || { echo "printed: $(cat "$tmp/w3")"; return 1; }
	[ $((end - start)) -le 5 ] || { echo "took $((end - start)) s"; return 1; }
}
check "--watch --timeout 1 with no events exits 0" t_quiet_timeout

t_count_one() {
	# --count 1 stops at the first of the two events
	dev=$(accel_of 0)
	watch_start "$tmp/w4" --count 1 --timeout 30 || return 1
	"$provoke" "/dev/accel/$dev" hang 0 >/dev/null || { kill "$watcher"; return 1; }
	watch_end || { echo "the watcher exited with $?"; return 1; }
	[ "$(wc -l <"$tmp/w4")" -eq 1 ] || { echo "printed: $(cat "$tmp/w4")"; return 1; }
}
check "--watch --count 1 exits after one event" t_count_one

t_removed() {
	echo "$fid" >"$bus/del_device" || return 1
	out=$("$info" --netlink) || { echo "failed: $out"; return 1; }
	if echo "$out" | awk -v f="$fid" '$1 == f { found = 1 } END { exit !found }'; then
		echo "fabric $fid still listed:"
		echo "$out"
		return 1
	fi
	[ "$(sysfs_devices)" = "$(netlink_devices)" ] || { echo "sysfs and netlink differ"; return 1; }
}
check "a deleted fabric leaves the dump" t_removed

t_big() {
	# two fabrics of 64 devices: the dump no longer fits one message
	echo "$((fid + 1)) 64" >"$bus/new_device" || return 1
	echo "$((fid + 2)) 64" >"$bus/new_device" || return 1
	want=$(sysfs_devices)
	got=$(netlink_devices)
	[ "$(echo "$got" | wc -l)" -ge 128 ] || { echo "only $(echo "$got" | wc -l) devices"; return 1; }
	[ "$want" = "$got" ] || { echo "sysfs and netlink differ"; return 1; }
}
check "a dump of more devices than one message holds" t_big

t_race() {
	# dumps in a loop while fabrics come and go: every dump succeeds
	(
		i=0
		while [ ! -e "$tmp/stop" ]; do
			"$info" --netlink >/dev/null || { echo "dump $i failed" >"$tmp/race.err"; exit 1; }
			i=$((i + 1))
		done
		echo "$i" >"$tmp/dumps"
	) &
	dumper=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		echo "$fid 64" >"$bus/new_device" || { touch "$tmp/stop"; wait $dumper; return 1; }
		echo "$fid" >"$bus/del_device" || { touch "$tmp/stop"; wait $dumper; return 1; }
	done
	touch "$tmp/stop"
	wait $dumper || { cat "$tmp/race.err"; return 1; }
}
check "dumps racing new_device and del_device" t_race
echo "# $(cat "$tmp/dumps" 2>/dev/null) dumps raced 10 new/del_device cycles"
for f in $((fid + 1)) $((fid + 2)); do echo "$f" >"$bus/del_device"; done

t_no_listener() {
	# events with nobody subscribed: nothing to see but no trouble either
	echo "$fid 1" >"$bus/new_device" || return 1
	dev=$(accel_of 0)
	out=$("$provoke" "/dev/accel/$dev" hang 0 2>&1) || { echo "$out"; return 1; }
	out=$("$info" --netlink --json)
	echo "$fid" >"$bus/del_device"
	echo "$out" | grep -q "\"fabric\":$fid,\"device\":0,[^}]*\"job_timeouts\":1," ||
		{ echo "counters: $out"; return 1; }
}
check "a timeout with no listener still counts" t_no_listener

# Last: unloading the module ends a watch with a clear message.  The
# fabrics there before are recreated afterwards, with their options.
t_unload() {
	saved=""
	for d in "$bus"/devices/ccore_sim*; do
		[ -f "$d/num_devices" ] || continue
		saved="$saved${saved:+
}${d##*ccore_sim} $(cat "$d/num_devices") $(cat "$d/options")"
	done
	watch_start "$tmp/w5" --timeout 60 || return 1
	echo "$saved" | while read -r id _; do
		[ -z "$id" ] || echo "$id" >"$bus/del_device"
	done
	out=$(rmmod ccore 2>&1)
	rc=$?
	wrc=0
	if [ $rc -eq 0 ]; then
		watch_end
		wrc=$?
	else
		kill "$watcher"
		watch_end
	fi
	insmod "$ko" || { echo "insmod $ko failed"; return 1; }
	echo "$saved" | while read -r line; do
		[ -z "$line" ] || echo "$line" >"$bus/new_device"
	done
	[ $rc -eq 0 ] || { echo "rmmod ccore failed: $out"; return 1; }
	[ "$wrc" -eq 1 ] || { echo "the watcher exited with $wrc"; return 1; }
	grep -q "^ccore-info: the ccore generic netlink family went away (ccore.ko unloaded)\$" \
		"$tmp/w5.err" || { echo "stderr: $(cat "$tmp/w5.err")"; return 1; }
}
ko=/lib/modules/$(uname -r)/extra/ccore.ko
if [ -f "$ko" ]; then
	check "--watch exits 1 when ccore.ko is unloaded" t_unload
else
	n=$((n + 1))
	echo "ok $n --watch exits 1 when ccore.ko is unloaded # SKIP no $ko to load again"
fi

[ "$n" -eq "$ntests" ] || echo "# ran $n cases, planned $ntests"
echo "# $((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
