#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# sysfs and debugfs of the ccore driver (Documentation/driver.rst): the
# packet-size knobs and their rules, the device facts, the per-ring
# counters, the debugfs dumps and fault-injection files, and that deleting
# a simulated device leaves no file behind.  Needs root, ccore.ko loaded
# and debugfs mounted (debugfs cases skip without it).  Prints TAP.
#
#   sysfs_test.sh [FABRIC_ID]	(default 4242, or $CCORE_SYSFS_TEST_ID)
#
# Exit status: 0 all passed, 1 some failed, 4 skipped (no ccore_sim bus).

bus=/sys/bus/ccore_sim
dbg=/sys/kernel/debug/ccore
fid=${1:-${CCORE_SYSFS_TEST_ID:-4242}}

# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$(cd "$(dirname "$0")" && pwd)/helpers/tap.sh"

# A write that must be refused with EINVAL, and leave the value as it was.
write_einval() { # FILE VALUE
	before=$(cat "$1")
	out=$( (echo "$2" >"$1") 2>&1)
	rc=$?
	after=$(cat "$1" 2>/dev/null)
	if [ $rc -eq 0 ]; then
		echo "writing '$2' to $1 succeeded"
		return 1
	fi
	case "$out" in
	*"Invalid argument"*) ;;
	*) echo "writing '$2' to $1: '$out', expected Invalid argument"; return 1 ;;
	esac
	if [ "$after" != "$before" ]; then
		echo "$1 changed from $before to $after on a refused write"
		return 1
	fi
}

write_ok() { # FILE VALUE [EXPECTED]
	if ! out=$( (echo "$2" >"$1") 2>&1); then
		echo "writing '$2' to $1: $out"
		return 1
	fi
	got=$(cat "$1")
	if [ -n "$3" ] && [ "$got" != "$3" ]; then
		echo "$1 reads $got after writing $2, expected $3"
		return 1
	fi
}

expect() { # FILE VALUE
	got=$(cat "$1" 2>&1)
	if [ "$got" != "$2" ]; then
		echo "$1 is '$got', expected '$2'"
		return 1
	fi
}

is_number() {
	case "$1" in
	'' | *[!0-9]*) return 1 ;;
	esac
}

# Every FILE must read as a number.
numbers() { # FILE...
	for f in "$@"; do
		v=$(cat "$f")
		is_number "$v" || { echo "$f: '$v'"; return 1; }
	done
}

count() { # PATH...: how many exist
	c=0
	for f in "$@"; do
		[ ! -e "$f" ] || c=$((c + 1))
	done
	echo $c
}

# The accel devices of fabric $1, as "INDEX PATH" lines, PATH resolved.
devices_of() {
	for d in /sys/class/accel/accel*; do
		[ "$(cat "$d/fabric_id" 2>/dev/null)" = "$1" ] || continue
		echo "$(cat "$d/device_index") $(readlink -f "$d")"
	done | sort -n
}

new_fabric() { # ID NUM [OPTIONS]
	echo "$1 $2${3:+ $3}" >"$bus/new_device"
}

del_fabric() { # ID
	echo "$1" >"$bus/del_device"
}

echo "TAP version 13"
[ -w "$bus/new_device" ] || skip_all "no $bus/new_device (ccore.ko not loaded, or not root)"
echo "1..25"
have_dbg=0
[ -d "$dbg" ] && have_dbg=1

# --- a fabric of two devices -------------------------------------------------

t_create() {
	new_fabric "$fid" 2 || { echo "new_device '$fid 2' failed"; return 1; }
	list=$(devices_of "$fid")
	[ "$(echo "$list" | wc -l)" -eq 2 ] || { echo "devices of fabric $fid: $list"; return 1; }
}
check "new_device: fabric $fid has two accel devices" t_create
dev0=$(devices_of "$fid" | awk '$1 == 0 { print $2 }')
dev1=$(devices_of "$fid" | awk '$1 == 1 { print $2 }')
[ -n "$dev0" ] || dev0=/nonexistent0
[ -n "$dev1" ] || dev1=/nonexistent1
echo "# devices: $dev0 $dev1"
cores=$(cat "$dev0/cores" 2>/dev/null)
cc_cores=$(cat "$dev0/cc_cores" 2>/dev/null)
is_number "$cores" || cores=1
is_number "$cc_cores" || cc_cores=2

t_facts() {
	expect "$dev0/device_index" 0 && expect "$dev1/device_index" 1 &&
		expect "$dev0/num_devices" 2 && expect "$dev1/num_devices" 2 &&
		expect "$dev0/fabric_id" "$fid" || return 1
	numbers "$dev0/cores" "$dev0/cc_cores" "$dev0/memory_used" || return 1
	if [ "$(cat "$dev0/cores")" -lt 1 ] || [ "$(cat "$dev0/cc_cores")" -lt 2 ]; then
		echo "cores $(cat "$dev0/cores"), cc_cores $(cat "$dev0/cc_cores")"
		return 1
	fi
}
check "device facts: device_index, num_devices, fabric_id, cores, cc_cores, memory_used" t_facts

t_counters() {
	for f in job_timeouts dma_errors recoveries; do
		expect "$dev0/$f" 0 || return 1
	done
}
check "job_timeouts, dma_errors, recoveries start at 0" t_counters

t_ro() {
	for f in device_index num_devices fabric_id cores cc_cores memory_used \
		job_timeouts dma_errors recoveries; do
		if (echo 1 >"$dev0/$f") 2>/dev/null; then
			echo "$f accepted a write"
			return 1
		fi
	done
}
check "device facts are read-only" t_ro

# --- packet-size knobs ---------------------------------------------------------

t_cc_default() { expect "$dev0/cc_dma_packet_size" 65536; }
check "cc_dma_packet_size defaults to 65536" t_cc_default

t_dma_default() { expect "$dev0/dma_packetization_size" 4096; }
check "dma_packetization_size defaults to 4096" t_dma_default

t_cc_lower() { write_ok "$dev0/cc_dma_packet_size" 4096 4096; }
check "cc_dma_packet_size: lowering to 4096 works" t_cc_lower

t_cc_raise() { write_einval "$dev0/cc_dma_packet_size" 131072; }
check "cc_dma_packet_size: 131072 (above 64 KiB) is EINVAL" t_cc_raise

t_cc_bad() {
	for v in 5000 256 0 abc -1 4096x 99999999999 ""; do
		write_einval "$dev0/cc_dma_packet_size" "$v" || return 1
	done
}
check "cc_dma_packet_size: non-powers of two, too small and garbage are EINVAL" t_cc_bad

t_cc_nonl() {
	printf 2048 >"$dev0/cc_dma_packet_size" && expect "$dev0/cc_dma_packet_size" 2048 &&
		write_ok "$dev0/cc_dma_packet_size" 65536 65536
}
check "cc_dma_packet_size: a write without newline works; 65536 restores the default" t_cc_nonl

t_dma_lower() { write_einval "$dev0/dma_packetization_size" 2048; }
check "dma_packetization_size: lowering to 2048 is EINVAL" t_dma_lower

t_dma_raise() { write_ok "$dev0/dma_packetization_size" 8192 8192; }
check "dma_packetization_size: raising to 8192 works" t_dma_raise

t_dma_bad() {
	for v in 131072 12288 abc "" 8192junk; do
		write_einval "$dev0/dma_packetization_size" "$v" || return 1
	done
}
check "dma_packetization_size: above 64 KiB, non-powers of two and garbage are EINVAL" t_dma_bad

t_indep() {
	write_ok "$dev0/cc_dma_packet_size" 1024 1024 &&
		expect "$dev1/cc_dma_packet_size" 65536 &&
		expect "$dev1/dma_packetization_size" 4096
}
check "packet sizes are per device" t_indep

# --- rings/ --------------------------------------------------------------------

t_rings() {
	r=$dev0/rings
	[ -d "$r" ] || { echo "no $r"; return 1; }
	nb=$(count "$r"/*_bytes)
	np=$(count "$r"/*_packets)
	ne=$(count "$r"/*_errors)
	all=$(count "$r"/*)
	if [ "$nb" -lt "$cores" ] || [ "$nb" -ne "$np" ] || [ "$nb" -ne "$ne" ] ||
		[ "$all" -ne $((3 * nb)) ]; then
		echo "rings/: $nb bytes, $np packets, $ne errors, $all files"
		return 1
	fi
	last=$((cores - 1))
	for f in c0e0r0_bytes c0e0r0_packets c0e0r0_errors c${last}e0r0_bytes; do
		expect "$r/$f" 0 || return 1
	done
	[ ! -e "$r/c${cores}e0r0_bytes" ] || { echo "c${cores}e0r0_bytes exists"; return 1; }
	numbers "$r"/*
}
check "rings/: bytes, packets and errors of every ring, all 0" t_rings

t_rings_shape() {
	fid2=$((fid + 1))
	new_fabric "$fid2" 1 "cores=2,engines=3,rings=5" || { echo "new_device failed"; return 1; }
	d=$(devices_of "$fid2" | awk '{ print $2 }')
	n2=$(count "$d"/rings/*)
	del_fabric "$fid2"
	[ "$n2" -eq $((2 * 3 * 5 * 3)) ] || { echo "$n2 files in rings/, expected 90"; return 1; }
	[ -z "$(devices_of "$fid2")" ] || { echo "fabric $fid2 still has devices"; return 1; }
}
check "rings/ follows the shape (cores=2,engines=3,rings=5: 90 files)" t_rings_shape

# --- debugfs -------------------------------------------------------------------

dd0=$dbg/fabric$fid/dev0
t_dbg_files() {
	for f in rings semaphores cc_cores compute_engines inject_dma_error inject_cc_hang; do
		[ -e "$dd0/$f" ] || { echo "no $dd0/$f"; return 1; }
	done
	[ -d "$dbg/fabric$fid/dev1" ] || { echo "no $dbg/fabric$fid/dev1"; return 1; }
}

t_dbg_dumps() {
	cat "$dd0/rings" "$dd0/semaphores" >/dev/null || return 1
	[ -z "$(cat "$dd0/rings")" ] || { echo "rings of an idle device: $(cat "$dd0/rings")"; return 1; }
	[ -z "$(cat "$dd0/semaphores")" ] || { echo "semaphores: $(cat "$dd0/semaphores")"; return 1; }
	lines=$(grep -c '^cc=[0-9]* core=[0-9]* state=[a-z]* pc=[0-9]* .* fault="' "$dd0/cc_cores")
	want=$((cores * cc_cores))
	[ "$lines" -eq "$want" ] || { echo "cc_cores: $lines lines, expected $want"; cat "$dd0/cc_cores"; return 1; }
	lines=$(grep -c '^core=[0-9]* state=idle pc=[0-9]* status=-*[0-9]* programs=[0-9]* .* fault="' \
		"$dd0/compute_engines")
	[ "$lines" -eq "$cores" ] || { echo "compute_engines: $lines lines, expected $cores"; cat "$dd0/compute_engines"; return 1; }
}

t_dbg_dma() {
	out=$( (echo 0 >"$dd0/inject_dma_error") 2>&1) || { echo "core 0: $out"; return 1; }
	out=$( (echo "$((cores - 1))" >"$dd0/inject_dma_error") 2>&1) || { echo "last core: $out"; return 1; }
	for v in "$cores" 4294967295 abc "" -1; do
		out=$( (echo "$v" >"$dd0/inject_dma_error") 2>&1) && { echo "'$v' accepted"; return 1; }
		case "$out" in *"Invalid argument"*) ;; *) echo "'$v': $out"; return 1 ;; esac
	done
}

t_dbg_hang() {
	ncc=$((cores * cc_cores))
	out=$( (echo 0 >"$dd0/inject_cc_hang") 2>&1) || { echo "CC core 0: $out"; return 1; }
	out=$( (echo "$((ncc - 1))" >"$dd0/inject_cc_hang") 2>&1) || { echo "last CC core: $out"; return 1; }
	for v in "$ncc" abc "" 1x; do
		out=$( (echo "$v" >"$dd0/inject_cc_hang") 2>&1) && { echo "'$v' accepted"; return 1; }
		case "$out" in *"Invalid argument"*) ;; *) echo "'$v': $out"; return 1 ;; esac
	done
}

if [ $have_dbg = 1 ]; then
	check "debugfs: fabric$fid/dev0 and dev1 with rings, semaphores, cc_cores, compute_engines, inject_*" t_dbg_files
	check "debugfs: rings and semaphores empty on an idle device, cc_cores one line per CC core, compute_engines one per core" t_dbg_dumps
	check "debugfs: inject_dma_error takes a logical core, bad ones are EINVAL" t_dbg_dma
	check "debugfs: inject_cc_hang takes a CC core, bad ones are EINVAL" t_dbg_hang
else
	for t in files dumps inject_dma_error inject_cc_hang; do
		skip "debugfs: $t" "no $dbg (debugfs not mounted)"
	done
fi

# --- removal ---------------------------------------------------------------------

t_del() {
	del_fabric "$fid" || { echo "del_device $fid failed"; return 1; }
	for d in "$dev0" "$dev1"; do
		[ ! -e "$d" ] || { echo "$d still exists"; return 1; }
	done
	[ -z "$(devices_of "$fid")" ] || { echo "fabric $fid still listed in /sys/class/accel"; return 1; }
}
check "del_device removes the accel devices and their sysfs files" t_del

t_del_dbg() {
	[ $have_dbg = 1 ] || return 0
	[ ! -e "$dbg/fabric$fid" ] || { echo "$dbg/fabric$fid still exists"; return 1; }
	[ -d "$dbg" ] || { echo "$dbg is gone"; return 1; }
}
check "del_device removes the fabric's debugfs directory" t_del_dbg

# Create and delete fabrics of 1..3 devices, checking for leftovers each time.
t_stress() {
	i=0
	while [ $i -lt 20 ]; do
		nd=$((i % 3 + 1))
		new_fabric "$fid" "$nd" || { echo "round $i: new_device failed"; return 1; }
		got=$(devices_of "$fid" | wc -l)
		[ "$got" -eq "$nd" ] || { echo "round $i: $got devices, expected $nd"; return 1; }
		del_fabric "$fid" || { echo "round $i: del_device failed"; return 1; }
		[ -z "$(devices_of "$fid")" ] || { echo "round $i: devices left"; return 1; }
		[ ! -e "$dbg/fabric$fid" ] || { echo "round $i: debugfs left"; return 1; }
		i=$((i + 1))
	done
}
check "20 rounds of new_device/del_device leave nothing behind" t_stress

# Readers inside the files while the device goes: removal waits for them,
# later reads fail cleanly (the runner checks dmesg for splats).
t_race() {
	new_fabric "$fid" 2 || { echo "new_device failed"; return 1; }
	d=$(devices_of "$fid" | awk '$1 == 0 { print $2 }')
	(
		while :; do
			cat "$d"/rings/* "$d"/cc_dma_packet_size "$d"/memory_used \
				"$dbg/fabric$fid/dev0/rings" "$dbg/fabric$fid/dev0/cc_cores" \
				"$dbg/fabric$fid/dev0/semaphores" >/dev/null 2>&1
			echo 8192 >"$d/cc_dma_packet_size" 2>/dev/null
		done
	) &
	reader=$!
	sleep 1
	del_fabric "$fid"
	rc=$?
	kill "$reader"
	wait "$reader" 2>/dev/null
	[ $rc -eq 0 ] || { echo "del_device failed"; return 1; }
	if [ -n "$(devices_of "$fid")" ] || [ -e "$dbg/fabric$fid" ]; then
		echo "files left after deleting under readers"
		return 1
	fi
}
check "del_device while readers and writers are inside the files" t_race

t_module_param() {
	p=/sys/module/ccore/parameters
	[ -r "$p/cc_dma_packet_size" ] || { echo "no $p/cc_dma_packet_size"; return 1; }
	numbers "$p/cc_dma_packet_size" "$p/dma_packetization_size" "$p/job_timeout_ms"
}
check "module parameters are readable" t_module_param

# tidy up after a failure midway
devices_of "$fid" | grep -q . && del_fabric "$fid" 2>/dev/null

[ "$n" -eq 25 ] || echo "# ran $n cases, planned 25"
[ $failed -eq 0 ]
