#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ccore-bench --exec on the kernel driver's devices, in the QEMU guest
# (selftests/qemu/run.sh; setup.sh made fabric 0 of 2 devices): build the
# TP + FSDP example (examples/tp_fsdp.txt) with ccore-exe, run one step of
# it with --device accel, and check what it prints: the topology, the
# stream map, every collective's job count, no per-job times (they need
# the timed model), and the same bytes per stream and of compute DMA as
# the sim backend's timed model counts for the same plans.  Also that
# --timed with --device accel is refused.  Prints TAP.
#
# helpers/ccore-bench and helpers/ccore-exe are linked statically (the
# runner copies shared libraries for test binaries only) and
# helpers/tp_fsdp.txt is the example, copied there by make.
# Exit status: 0 all passed, 1 some failed, 4 skipped (no device).

here=$(cd "$(dirname "$0")" && pwd)
bench=$here/helpers/ccore-bench
exe=$here/helpers/ccore-exe
desc=$here/helpers/tp_fsdp.txt
tmp=$(mktemp -d)
ntests=7
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$here/helpers/tap.sh"

echo "TAP version 13"
[ -e /dev/accel/accel0 ] || skip_all "no /dev/accel/accel0 (is ccore.ko loaded, setup.sh run?)"
need_built "$bench" "$exe" "$desc"
echo "1..$ntests"

# Output lines with runs of blanks squeezed, for exact comparisons.
squeeze() { tr -s ' ' <"$1" | sed 's/^ //'; }

# has FILE LINE: FILE (squeezed) has LINE exactly
has() {
	squeeze "$1" | grep -qxF "$2" && return 0
	echo "no line '$2' in:"
	cat "$1"
	return 1
}

t_build() {
	"$exe" build "$desc" -o "$tmp/x.cce" >"$tmp/build.out" 2>&1 || {
		cat "$tmp/build.out"
		return 1
	}
}
check "ccore-exe builds the example" t_build

t_run() {
	CCORE_DEVICE='' "$bench" --exec "$tmp/x.cce" --device accel -n 1 -w 0 \
		--json "$tmp/accel.json" >"$tmp/accel.out" 2>&1 && return 0
	echo "ccore-bench --exec --device accel failed:"
	cat "$tmp/accel.out"
	return 1
}
check "ccore-bench --exec runs it on the kernel devices" t_run

t_header() {
	has "$tmp/accel.out" "# executable: 8 ranks (1 nodes x 2 devices x 4 ranks per device), 4 collectives, wall-clock times" &&
		has "$tmp/accel.out" "# streams 2 (config); CC packet size per stream: 65536 65536; compute DMA packet size 4096"
}
check "it reports the topology and the stream map" t_header

# Per layer a TP AllGather and ReduceScatter on each of 8 ranks (4 layers),
# the FSDP AllGathers twice each; per-job times are "-" off the timed model.
t_jobs() {
	has "$tmp/accel.out" "tp_ag 0 32 - -" || return 1
	has "$tmp/accel.out" "tp_rs 0 32 - -" || return 1
	has "$tmp/accel.out" "fsdp_ag_even 1 16 - -" || return 1
	has "$tmp/accel.out" "fsdp_ag_odd 1 16 - -" || return 1
	squeeze "$tmp/accel.out" | grep -q '^step_time_us [0-9][0-9.]* tp_latency_us -$' && return 0
	echo "no 'step_time_us N tp_latency_us -' line:"
	cat "$tmp/accel.out"
	return 1
}
check "every collective ran its jobs, without per-job times" t_jobs

t_json() {
	for field in '"timed":false' '"tp_latency_us":null' '"compute_dma_bytes":134217728' \
		'{"name":"tp_ag","stream":0,"jobs":32,"latency_us":null,"run_us":null}'; do
		grep -qF "$field" "$tmp/accel.json" || {
			echo "no $field in the JSON:"
			cat "$tmp/accel.json"
			return 1
		}
	done
}
check "the JSON has the job counts, the bytes and null latencies" t_json

# The timed model moves no bytes but counts them: the same plans on the
# kernel devices must have moved as many, stream by stream.
t_bytes() {
	CCORE_DEVICE='' "$bench" --exec "$tmp/x.cce" --timed >"$tmp/sim.out" 2>&1 || {
		echo "ccore-bench --exec --timed failed:"
		cat "$tmp/sim.out"
		return 1
	}
	want=$(grep '^# bytes moved' "$tmp/sim.out")
	got=$(grep '^# bytes moved' "$tmp/accel.out")
	case "$want" in *"compute DMA 134217728, stream 0 collectives "*", stream 1 collectives "*) ;;
	*) echo "the timed model's bytes line: '$want'"; return 1 ;;
	esac
	[ "$got" = "$want" ] && return 0
	echo "kernel devices: '$got'"
	echo "timed model:    '$want'"
	return 1
}
check "the kernel devices moved the bytes the model counts" t_bytes

t_timed_refused() {
	out=$("$bench" --exec "$tmp/x.cce" --device accel --timed 2>&1)
	rc=$?
	want="ccore-bench: --timed runs the sim backend's timed model, not --device accel"
	[ "$rc" -eq 2 ] && [ "$out" = "$want" ] && return 0
	echo "status $rc (want 2), output: $out"
	return 1
}
check "--timed with --device accel is refused" t_timed_refused

[ "$n" -eq "$ntests" ] || not_ok "ran $n checks, planned $ntests"
[ "$failed" -eq 0 ]
