#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The ccore ioctl fuzzer in the QEMU guest, as root: every replay of issue
# 14's findings (helpers/ccore_kfuzz --scenario NAME, each in its own
# process), a random run per seed, then the kernel log since the start must
# be clean (no WARNING, BUG, Oops, KFENCE report, poisoned object, hung
# task) and ccore.ko must unload and load again.  The guest should boot with
# slub_debug=FZPU and a low kfence.sample_interval (run.sh does).
#
# Usage: kfuzz_test.sh [--seconds N] [--seeds S1,S2,...] [--procs P] [ITEM...]
#   --seconds N   random-run seconds in all, split over the seeds
#                 (default $KFUZZ_SECONDS, else 60)
#   --seeds LIST  random-run seeds, comma-separated (default 1,2)
#   --procs P     worker processes per random run (default 4)
#   --skip-known  random runs avoid the findings' triggers (ccore_kfuzz
#                 --skip-known): to look for new bugs on an unfixed driver
#   ITEM          a scenario name (ccore_kfuzz --list; NAME/CASE: only its
#                 cases named with CASE), "scenarios" (all of them),
#                 "random", "log" or "unload"; default all of these
# TAP on stdout.  Fabrics that existed before are there again afterwards.

here=$(cd "$(dirname "$0")" && pwd)
fuzz=$here/helpers/ccore_kfuzz

seconds=${KFUZZ_SECONDS:-60}
seeds=1,2
procs=4
skip_known=""
items=""
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=$2; shift ;;
	--seeds) seeds=$2; shift ;;
	--procs) procs=$2; shift ;;
	--skip-known) skip_known=--skip-known ;;
	-h | --help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "kfuzz_test.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	*) items="$items $1" ;;
	esac
	shift
done
case "$seconds" in '' | *[!0-9]*)
	echo "kfuzz_test.sh: --seconds '$seconds': expected whole seconds" >&2; exit 2 ;;
esac
[ -n "$items" ] || items="scenarios random log unload"
# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$here/helpers/tap.sh"
# shellcheck source=SCRIPTDIR/../lib/fabrics.sh
. "$here/helpers/fabrics.sh"

echo "TAP version 13"
[ "$(id -u)" = 0 ] || skip_all "needs root"
[ -x "$fuzz" ] || skip_all "no $fuzz"
[ -e /sys/module/ccore ] || skip_all "ccore is not loaded"

# The plan: each scenario, each seed, the log and the unload.
scenarios=$("$fuzz" --list | cut -d' ' -f1)
want_scenarios=""
plan=0
for it in $items; do
	case "$it" in
	scenarios) want_scenarios="$want_scenarios $scenarios" ;;
	random) plan=$((plan + $(echo "$seeds" | tr ',' '\n' | grep -c .))) ;;
	log | unload) plan=$((plan + 1)) ;;
	*)
		if ! echo "$scenarios" | grep -qx "${it%%/*}"; then
			# shellcheck disable=SC2086  # the names on one line
			echo "kfuzz_test.sh: no item '$it' (scenarios:" $scenarios")" >&2
			exit 2
		fi
		want_scenarios="$want_scenarios $it"
		;;
	esac
done
for s in $want_scenarios; do plan=$((plan + 1)); done
echo "1..$plan"

mark="kfuzz-test-$$-$(cut -d' ' -f1 /proc/uptime)"
echo "kfuzz-mark: $mark" >/dev/kmsg

# run_item NAME LIMIT CMD...: CMD's TAP result line (if it prints one) or
# its exit status becomes case NAME; its other output, diagnostics.
run_item() {
	name=$1 limit=$2
	shift 2
	out=/tmp/kfuzz.$$.out
	start=$(cut -d' ' -f1 /proc/uptime)
	timeout -s KILL "$limit" "$@" >"$out" 2>&1
	rc=$?
	took=$(awk -v a="$start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
	grep -v '^\(ok\|not ok\|1\.\.\|TAP version\)' "$out" | sed 's/^\([^#]\)/# \1/'
	result=$(grep '^\(not \)\{0,1\}ok ' "$out" | tail -1)
	if [ "$rc" -ge 128 ]; then
		not_ok "$name" "killed by signal $((rc - 128)) after ${took}s" \
			"(a kernel oops kills the caller; signal 9: over ${limit}s, stuck?)"
	elif [ -n "$result" ]; then
		case "$result" in
		"not ok"*) not_ok "$name # ${result#*# }" ;;
		*) ok "$name (${took}s)" ;;
		esac
	elif [ "$rc" -eq 0 ]; then
		ok "$name (${took}s)"
	else
		not_ok "$name" "exit status $rc after ${took}s"
	fi
	rm -f "$out"
}

for s in $want_scenarios; do
	run_item "$s" 90 "$fuzz" --scenario "$s"
done

for it in $items; do
	[ "$it" = random ] || continue
	nseeds=$(echo "$seeds" | tr ',' '\n' | grep -c .)
	per=$((seconds / nseeds))
	[ "$per" -gt 0 ] || per=1
	for seed in $(echo "$seeds" | tr ',' ' '); do
		run_item "random seed $seed, ${per}s, $procs processes" $((per + 60)) \
			"$fuzz" --seed "$seed" --seconds "$per" --procs "$procs" $skip_known
	done
done

# Since the start: what the runner's dmesg scan also flags, here per test.
splats='WARNING:|BUG[: ]|Oops|KFENCE|Poison overwritten|general protection|UBSAN:|lockup'
splats="$splats|blocked for more than|hung_task_timeout_secs|divide error"
log_clean() {
	since=$(dmesg | sed -n "/kfuzz-mark: $mark/,\$p")
	bad=$(echo "$since" | grep -E "$splats" | head -5)
	[ -n "$bad" ] || return 0
	echo "$bad"
	# the first report whole (RIP, registers, call trace): a CI log keeps
	# only this test's lines, and the console is gone with the machine
	echo "the first report, up to its end-of-trace line (80 lines at most):"
	echo "$since" | awk -v re="$splats" '
		!on && $0 ~ re { on = 1 }
		on { print; if (++n >= 80 || /---\[ end trace/) exit }'
	return 1
}

# The fabrics there now ("ID NDEV OPTIONS" lines), deleted and restored
# around an rmmod and insmod.
unload_reload() {
	fabrics_save
	i=0
	until rmmod ccore 2>/dev/null; do
		i=$((i + 1))
		if [ "$i" -ge 100 ]; then
			echo "rmmod ccore fails after 10 s: refcnt $(cat /sys/module/ccore/refcnt)"
			break
		fi
		sleep 0.1
	done
	gone=1
	[ ! -e /sys/module/ccore ] || gone=0
	# the later tests need the fabrics back, whether or not it unloaded
	if [ "$gone" = 1 ] && ! insmod "/lib/modules/$(uname -r)/extra/ccore.ko"; then
		echo "insmod failed"
		return 1
	fi
	fabrics_restore
	[ "$gone" = 1 ]
}

for it in $items; do
	case "$it" in
	log) check "kernel log clean since the start (splats, poison, hung tasks)" log_clean ;;
	unload) check "ccore.ko unloads after the fuzzing, and loads again" unload_reload ;;
	esac
done
[ "$failed" = 0 ]
