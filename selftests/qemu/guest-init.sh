#!/bin/sh
# PID 1 of the QEMU test guest (copied into the initramfs as /init by
# selftests/qemu/run.sh, which writes everything under /etc/ccore-qemu/).
#
# Loads the kernel modules, runs setup.sh, runs every test binary with a
# timeout, unloads our modules, dumps dmesg, powers off. The host parses the
# console, so every step is reported by a "### ccore-qemu: ..." marker line;
# the host decides pass/fail, this script only reports.
#
# No "set -e": if PID 1 exits the kernel panics, and we always want to reach
# the dmesg dump and poweroff.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root LANG=C

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
# Loopback up: processes of one job meet through the TCP bootstrap (mproc_accel).
ip link set lo up
# The kernel may start PID 1 without a console if /dev/console was missing
# from the initramfs; devtmpfs has it now.
exec </dev/null >/dev/console 2>&1

conf=/etc/ccore-qemu
# TEST_TIMEOUT, TEST_ARGS, UNLOAD (written by run.sh)
# shellcheck source=/dev/null
. "$conf/config"

mark() { echo "### ccore-qemu: $*"; }

mark "init uptime=$(cut -d' ' -f1 /proc/uptime)"

# A task stuck uninterruptibly is a driver bug: report it well before the
# host's total timeout (the default 120 s is longer than most test runs).
echo 30 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
# Nothing in the guest can load modules on demand; say so quickly instead of
# letting the kernel exec a modprobe that does not know the module.
echo /bin/false >/proc/sys/kernel/modprobe 2>/dev/null

dump_dmesg() {
	mark "dmesg-begin"
	dmesg
	mark "dmesg-end"
}

# guarded LABEL CMD...: run CMD in its own session (so that a timeout also
# kills whatever it forked: the kselftest harness runs each case in a
# child) and return its status. A watchdog kills it after TEST_TIMEOUT; if
# it still has not exited 20 s later it is stuck in the kernel (insmod,
# rmmod and tests alike can be): show the blocked tasks and dmesg, and power
# off rather than wait for the host's total timeout.
guarded() {
	label=$1
	shift
	setsid "$@" </dev/null &
	pid=$!
	(
		# Take the sleep down with the watchdog when CMD ends in time.
		trap 'kill "$s" 2>/dev/null; exit 0' TERM
		sleep "$TEST_TIMEOUT" &
		s=$!
		wait "$s"
		kill -0 "$pid" 2>/dev/null || exit 0
		mark "timeout $label after ${TEST_TIMEOUT}s"
		kill -KILL "-$pid" 2>/dev/null
		sleep 20 &
		s=$!
		wait "$s"
		kill -0 "$pid" 2>/dev/null || exit 0
		mark "stuck $label"
		echo w >/proc/sysrq-trigger
		dump_dmesg
		mark "abort"
		poweroff -f
	) &
	wd=$!
	wait "$pid"
	rc=$?
	kill "$wd" 2>/dev/null
	# Leftovers of the session (a harness child whose parent died).
	kill -KILL "-$pid" 2>/dev/null
	return "$rc"
}

# NAME.PARAM=VALUE words of the kernel command line, as "PARAM=VALUE":
# modprobe would apply them (e.g. drm.debug=0x1ff via --extra-append), the
# kernel itself does so only for built-in code, and insmod never.
cmdline_params() {
	# shellcheck disable=SC2013  # words, not lines, are wanted
	for w in $(cat /proc/cmdline); do
		case "$w" in "$1".*=*) printf '%s ' "${w#"$1".}" ;; esac
	done
}

# Dependencies first, then ours, in the order run.sh computed.
# Each line: PATH NAME [PARAMS...] (PARAMS from modules.list)
while read -r path name params; do
	[ -n "$path" ] || continue
	# shellcheck disable=SC2046,SC2086  # params are separate words by design
	guarded "insmod $name" insmod "$path" $params $(cmdline_params "$name") ||
		mark "fail insmod $name rc=$?"
done <"$conf/modules"

if [ -f "$conf/setup.sh" ]; then
	mark "setup-begin"
	guarded setup.sh sh "$conf/setup.sh" || mark "fail setup.sh rc=$?"
	mark "setup-end"
fi

while read -r rel; do
	[ -n "$rel" ] || continue
	mark "test-begin $rel"
	# Tests start in their own directory, to find data files beside them.
	# (never "exit" here: PID 1 exiting is a kernel panic)
	cd "/tests/${rel%/*}" 2>/dev/null || cd /tests || true
	# shellcheck disable=SC2086  # TEST_ARGS are separate words by design
	# A test may need longer than the default: TEST.timeout beside it
	# holds its own limit in seconds (the larger of the two applies).
	default_timeout=$TEST_TIMEOUT
	own=$(cat "/tests/$rel.timeout" 2>/dev/null)
	case "$own" in '' | *[!0-9]*) ;; *) [ "$own" -le "$TEST_TIMEOUT" ] || TEST_TIMEOUT=$own ;; esac
	guarded "$rel" "/tests/$rel" $TEST_ARGS
	rc=$?
	TEST_TIMEOUT=$default_timeout
	mark "test-end $rel rc=$rc"
	cd / || true
done <"$conf/tests"

# Unloading runs the driver's teardown paths, where leaks and use-after-free
# tend to show up: last loaded, first unloaded. After an oops (taint D) the
# dead task's locks and references are never released, and rmmod would only
# hang on them.
if [ "$UNLOAD" = 1 ] && [ $(($(cat /proc/sys/kernel/tainted) & 128)) -ne 0 ]; then
	mark "unload skipped: the kernel oopsed"
elif [ "$UNLOAD" = 1 ]; then
	sed '1!G;h;$!d' "$conf/ours" | while read -r name; do
		[ -d "/sys/module/$name" ] || continue
		guarded "rmmod $name" rmmod "$name" || mark "fail rmmod $name rc=$?"
	done
fi

mark "tainted $(cat /proc/sys/kernel/tainted)"
dump_dmesg
mark "end uptime=$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
