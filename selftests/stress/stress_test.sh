#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Module and device lifetime stress, run in the QEMU guest as root: load
# ccore.ko, create a simulated fabric, leave jobs, running copies and
# exported semaphores and buffers in flight on every device (stress_holder),
# delete the fabric with all of that still open, kill the holder, unload
# the module - CYCLES times.  Then nothing may be left: no module, no
# sysfs or debugfs entries, and the kernel's slab object count no higher
# than half-way through (a leak of one object per cycle shows).
#
# Usage: stress_test.sh [CYCLES]   (default 100; TAP on stdout)
# helpers/stress_holder is linked statically: the runner copies shared
# libraries for tests only.
# Devices that existed before are recreated afterwards, with their options.

cycles=${1:-100}
here=$(cd "$(dirname "$0")" && pwd)
holder=$here/helpers/stress_holder
ko=/lib/modules/$(uname -r)/extra/ccore.ko
ntests=6
# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$here/helpers/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/fabrics.sh
. "$here/helpers/fabrics.sh"

echo "TAP version 13"
[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -f "$ko" ] || skip_all "no $ko"
[ -x "$holder" ] || skip_all "no $holder"
echo "1..$ntests"

# Active objects over every slab cache, once freed dentries and inodes
# are dropped and RCU-deferred frees have run.
slab_settle() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	sleep 1
}

slab_objects() {
	slab_settle
	awk 'NR > 2 { s += $2 } END { print s }' /proc/slabinfo
}

slab_snapshot() {
	awk 'NR > 2 { print $1, $2 }' /proc/slabinfo >"$1"
}

# The fabrics already there, deleted now and restored at the end.
fabrics_save
rmmod ccore 2>/dev/null

# One cycle; prints what went wrong, if anything.
cycle() {
	insmod "$ko" || { echo "insmod failed"; return 1; }
	echo "7 2 cores=2" >/sys/bus/ccore_sim/new_device || { echo "new_device failed"; return 1; }
	devs=""
	for c in /sys/bus/ccore_sim/devices/ccore_sim7/ccore_sim7.*/accel/accel*; do
		devs="$devs /dev/accel/${c##*/}"
	done
	fifo=/tmp/stress_holder.$$
	rm -f "$fifo"
	mkfifo "$fifo"
	# shellcheck disable=SC2086  # one argument per device
	"$holder" $devs >"$fifo" &
	pid=$!
	read -r ready <"$fifo"
	rm -f "$fifo"
	[ "$ready" = ready ] || { echo "holder did not start ($devs)"; kill "$pid"; return 1; }
	# delete the fabric with files open and jobs in flight
	echo 7 >/sys/bus/ccore_sim/del_device || { echo "del_device failed"; return 1; }
	[ -e /sys/class/accel/accel0 ] && { echo "accel0 still in sysfs after del_device"; return 1; }
	kill "$pid"
	wait "$pid" 2>/dev/null
	refs=$(cat /sys/module/ccore/refcnt)
	[ "$refs" = 0 ] || { echo "module refcount $refs after the holder exited"; return 1; }
	rmmod ccore || { echo "rmmod failed"; return 1; }
	return 0
}

# Slab counts are read after the first half of the cycles (once caches
# have warmed up) and at the end: a leak of even one object per cycle grows
# the count over the second half by at least as many objects as cycles.
half=$((cycles / 2))
base=""
i=0
err=""
while [ "$i" -lt "$cycles" ]; do
	err=$(cycle 2>&1) || break
	i=$((i + 1))
	if [ "$i" = "$half" ] && [ "$half" -ge 10 ]; then
		base=$(slab_objects)
		slab_snapshot /tmp/slab.base
	fi
done
if [ "$i" = "$cycles" ]; then
	ok "$cycles cycles of load, new_device, work in flight, del_device, kill, rmmod"
else
	not_ok "cycle $((i + 1)) of $cycles" "$err"
fi

[ -e /sys/module/ccore ] && not_ok "module gone" "/sys/module/ccore still there" ||
	ok "module gone"
[ -e /sys/bus/ccore_sim ] && not_ok "bus gone" "/sys/bus/ccore_sim still there" ||
	ok "bus gone"
left=$(ls /sys/class/accel 2>/dev/null)
[ -n "$left" ] && not_ok "no accel devices left" "left: $left" || ok "no accel devices left"
[ -e /sys/kernel/debug/ccore ] && not_ok "debugfs gone" "/sys/kernel/debug/ccore still there" ||
	ok "debugfs gone"

end=$(slab_objects)
if [ -z "$base" ]; then
	ok "slab objects # SKIP fewer than 20 cycles"
else
	grow=$((end - base))
	limit=$((cycles - half))
	echo "# slab objects: $base after $half cycles, $end after $cycles (grew $grow)"
	slab_snapshot /tmp/slab.end
	# the caches that grew most, to tell a leak from noise
	awk 'NR == FNR { b[$1] = $2; next } $2 - b[$1] > 10 { print "#   " $1 " +" $2 - b[$1] }' \
		/tmp/slab.base /tmp/slab.end
	[ "$grow" -lt "$limit" ] && ok "slab objects back to where they were" ||
		not_ok "slab objects back to where they were" \
			"grew by $grow over the last $limit cycles: a leak per cycle"
fi

# leave the fabrics as we found them
insmod "$ko"
fabrics_restore
[ "$failed" = 0 ]
