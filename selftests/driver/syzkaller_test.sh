#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What the syzkaller descriptions (tools/syzkaller/dev_ccore.txt) assume of a
# running system, checked on the driver: every file they open exists, every
# glob matches, new_device takes each valid option and refuses each refused
# one, and the sysfs and debugfs files take numbers as syzkaller writes them
# (fmt[dec] is "%020u", fmt[oct] "%023o").  The file names and option lists
# come from helpers/dev_ccore.probes, which `make` writes from the
# description (syz-check.py --guest-probes), so they cannot drift apart.
# Needs root, ccore.ko loaded, debugfs mounted and fabric 0 (setup.sh).
# Prints TAP.
#
#   syzkaller_test.sh [FABRIC_ID]	(default 7, the last ID the descriptions use)
#
# Exit status: 0 all passed, 1 some failed, 4 skipped (no ccore_sim bus).

bus=/sys/bus/ccore_sim
dbg=/sys/kernel/debug/ccore
fid=${1:-7}
here=$(cd "$(dirname "$0")" && pwd)
probes=$here/helpers/dev_ccore.probes

# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$here/helpers/tap.sh"

echo "TAP version 13"
[ -w "$bus/new_device" ] || skip_all "no $bus/new_device (ccore.ko not loaded, or not root)"
[ -r "$probes" ] || skip_all "no $probes (make writes it)"

strings_of() { # LIST
	sed -n "s/^strings $1 //p" "$probes"
}

devices_of() { # FABRIC_ID: "INDEX SYSFS_DIR" per device
	for d in /sys/class/accel/accel*; do
		[ "$(cat "$d/fabric_id" 2>/dev/null)" = "$1" ] || continue
		echo "$(cat "$d/device_index") $(readlink -f "$d")"
	done | sort -n
}

# new_device and del_device lines as write$ccore_sim_new_device and
# write$ccore_sim_del_device build them.
new_fabric() { # ID NUM [OPTIONS]
	printf '%020u %020u%s\n' "$1" "$2" "${3:+ $3}" >"$bus/new_device"
}

del_fabric() { # ID
	printf '%023o\n' "$1" >"$bus/del_device"
}

t_files() {
	bad=""
	for path in $(sed -n 's/^open //p' "$probes"); do
		# syz_open_dev puts a digit of its id at each #: 0 for fabric 0's first device
		path=$(echo "$path" | tr '#' 0)
		[ -e "$path" ] || bad="$bad $path"
	done
	[ -z "$bad" ] || { echo "missing:$bad"; return 1; }
}
check "every file the descriptions open exists" t_files

t_globs() {
	bad=""
	for glob in $(sed -n 's/^glob //p' "$probes"); do
		# shellcheck disable=SC2086 # the glob is meant to expand
		set -- $glob
		[ -e "$1" ] || bad="$bad $glob"
	done
	[ -z "$bad" ] || { echo "match nothing:$bad"; return 1; }
}
check "every glob of the descriptions matches" t_globs

t_new_del() {
	new_fabric "$fid" 2 || { echo "new_device refused '$fid 2' as %020u"; return 1; }
	got=$(devices_of "$fid" | wc -l)
	[ "$got" -eq 2 ] || { echo "fabric $fid has $got devices, expected 2"; return 1; }
	del_fabric "$fid" || { echo "del_device refused $fid as %023o"; return 1; }
	[ -z "$(devices_of "$fid")" ] || { echo "fabric $fid still there"; return 1; }
}
check "new_device takes %020u, del_device %023o" t_new_del

t_valid_options() {
	bad=""
	for opt in $(strings_of ccore_sim_valid_options); do
		if new_fabric "$fid" 2 "$opt" 2>/dev/null; then
			del_fabric "$fid" || { echo "del_device $fid failed after $opt"; return 1; }
		else
			bad="$bad $opt"
		fi
	done
	[ -z "$bad" ] || { echo "new_device refused:$bad (see dmesg)"; return 1; }
}
check "new_device takes every valid option" t_valid_options

t_refused_options() {
	bad=""
	for opt in $(strings_of ccore_sim_refused_options); do
		if new_fabric "$fid" 2 "$opt" 2>/dev/null; then
			bad="$bad $opt"
			del_fabric "$fid"
		fi
	done
	[ -z "$bad" ] || { echo "new_device took:$bad"; return 1; }
}
check "new_device refuses every refused option" t_refused_options

t_knobs() {
	new_fabric "$fid" 1 || { echo "new_device failed"; return 1; }
	d=$(devices_of "$fid" | awk '{ print $2 }')
	rc=0
	printf '%020u\n' 1024 >"$d/cc_dma_packet_size" || rc=1
	printf '%020u\n' 8192 >"$d/dma_packetization_size" || rc=1
	got="$(cat "$d/cc_dma_packet_size") $(cat "$d/dma_packetization_size")"
	del_fabric "$fid"
	if [ $rc -ne 0 ] || [ "$got" != "1024 8192" ]; then
		echo "the knobs read '$got' (rc $rc)"
		return 1
	fi
}
check "the packet-size knobs take %020u" t_knobs

t_inject() {
	[ -d "$dbg" ] || { echo "no $dbg"; return 1; }
	new_fabric "$fid" 1 || { echo "new_device failed"; return 1; }
	rc=0
	printf '%020u\n' 0 >"$dbg/fabric$fid/dev0/inject_dma_error" || rc=1
	printf '%020u\n' 1 >"$dbg/fabric$fid/dev0/inject_cc_hang" || rc=1
	del_fabric "$fid"
	[ $rc -eq 0 ] || { echo "an inject file refused %020u"; return 1; }
}
check "the fault-injection files take %020u" t_inject

# tidy up after a failure midway
devices_of "$fid" | grep -q . && del_fabric "$fid" 2>/dev/null

[ "$n" -eq 7 ] || echo "# ran $n cases, planned 7"
[ $failed -eq 0 ]
