#!/bin/sh
# The TP + FSDP scenario (examples/tp_fsdp_contention.txt) on the timed
# model in the three settings of issue 6: defaults; compute DMA packets
# 64 KiB with CC packets 64 KiB (stream 0, TP) and 4 KiB (stream 1, FSDP)
# on 2 streams; the same on 1 stream.  Prints each run's table, then step
# time and TP latency side by side with ratios to the defaults.
# Usage: scripts/bench-exec.sh BUILD_DIR
set -eu
build=${1:-build}
exe="$build/examples/tp_fsdp_contention.cce"
mkdir -p "$build/examples"
"$build/bin/ccore-exe" build examples/tp_fsdp_contention.txt -o "$exe"
run() {
	name=$1
	shift
	echo "== $name: $*"
	env "$@" "$build/bin/ccore-bench" --exec "$exe" --timed --json "$build/examples/$name.json"
}
run defaults CCORE_STREAMS=2
run priority-2-streams CCORE_STREAMS=2 CCORE_DMA_PACKETIZATION_SIZE=65536 CCORE_CC_DMA_PACKET_SIZE=65536,4096
run priority-1-stream CCORE_STREAMS=1 CCORE_DMA_PACKETIZATION_SIZE=65536 CCORE_CC_DMA_PACKET_SIZE=65536
echo "== summary (simulated; ratio = setting / defaults)"
printf '%-20s %14s %8s %14s %8s\n' setting step_time_us ratio tp_latency_us ratio
base_step=$(sed 's/.*"step_time_us":\([0-9.]*\).*/\1/' "$build/examples/defaults.json")
base_tp=$(sed 's/.*"tp_latency_us":\([0-9.]*\).*/\1/' "$build/examples/defaults.json")
for name in defaults priority-2-streams priority-1-stream; do
	step=$(sed 's/.*"step_time_us":\([0-9.]*\).*/\1/' "$build/examples/$name.json")
	tp=$(sed 's/.*"tp_latency_us":\([0-9.]*\).*/\1/' "$build/examples/$name.json")
	awk -v n="$name" -v s="$step" -v t="$tp" -v bs="$base_step" -v bt="$base_tp" \
		'BEGIN { printf "%-20s %14.3f %8.3f %14.3f %8.3f\n", n, s, s / bs, t, t / bt }'
done
