# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The guest's ccore_sim fabrics, for the shell tests that unload ccore.ko:
# fabrics_save deletes every fabric there is and keeps its "ID NDEV OPTIONS"
# line in $fabrics_saved; fabrics_restore creates them again (ccore.ko
# loaded).  In the guest it is helpers/fabrics.sh next to the test.

fabrics_save() {
	fabrics_saved=""
	for d in /sys/bus/ccore_sim/devices/ccore_sim*; do
		[ -f "$d/num_devices" ] || continue
		fabrics_saved="$fabrics_saved${fabrics_saved:+
}${d##*ccore_sim} $(cat "$d/num_devices") $(cat "$d/options")"
	done
	echo "$fabrics_saved" | while read -r id _; do
		[ -n "$id" ] && echo "$id" >/sys/bus/ccore_sim/del_device
	done
}

fabrics_restore() {
	echo "$fabrics_saved" | sort -n | while read -r line; do
		[ -n "$line" ] && echo "$line" >/sys/bus/ccore_sim/new_device
	done
}
