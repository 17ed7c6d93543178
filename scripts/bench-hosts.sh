#!/bin/sh
# Across hosts, side by side: ccore against Open MPI on 2 hosts x 4 ranks,
# the hosts network namespaces joined by veth pairs and a bridge
# (selftests/netns/hosts.sh), one process per rank, both started by the
# same mpirun (selftests/netns/ns-agent.sh puts its daemon and processes
# into the namespaces, so each is a node of its own).  Open MPI runs
# btl self,vader,tcp (shared memory within a host, tcp over the veth
# pair) with its default coll tuned and with coll han; ccore runs
# ccore-bench with every element checked.  Then the raw libfabric put
# bandwidth over the same pair (ccore-netbw), one way and at 64 MiB both
# ways at once (as an AllReduce has it), what ccore's AllReduce gets
# across against both, and the 8-byte latency of the three as medians of
# alternating trials.  Prints each table and the
# ratios.  Needs root (CAP_NET_ADMIN) and Open MPI (make bench-hosts
# installs it).
#
# Usage: scripts/bench-hosts.sh [BUILD_DIR]
# Environment: BH_OPS (default "allreduce allgather reducescatter"),
# BH_MIN (8), BH_MAX (268435456), BH_ITERS (10), BH_LAT_ITERS (2000),
# BH_LAT_TRIALS (3), BH_RANKS_PER_HOST (4).
set -eu
build=$(cd "${1:-build}" && pwd)
top=$(cd "$(dirname "$0")/.." && pwd)
ops=${BH_OPS:-allreduce allgather reducescatter}
min=${BH_MIN:-8}
max=${BH_MAX:-268435456}
iters=${BH_ITERS:-10}
lat_iters=${BH_LAT_ITERS:-2000}
lat_trials=${BH_LAT_TRIALS:-3}
per_host=${BH_RANKS_PER_HOST:-4}
agent="$top/selftests/netns/ns-agent.sh"

if [ -z "${CCORE_TEST_NETNS:-}" ]; then
	mkdir -p "$build/mpi"
	mpicc -O2 -o "$build/mpi/ompi_coll" "$top/tools/mpi-compare/ompi_coll.c"
	exec "$top/selftests/netns/hosts.sh" --hosts 2 --outside -- "$0" "$build"
fi

# --- inside hosts.sh: $CCORE_TEST_NETNS names the two hosts' namespaces ---
out="$build/mpi/hosts"
mkdir -p "$out"
printf '10.231.0.1 slots=%d\n10.231.0.2 slots=%d\n' "$per_host" "$per_host" > "$out/hostfile"
np=$((2 * per_host))
# Open MPI keeps its buffers' pages: glibc's trimming would make it fault
# them in again every iteration
export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296
export MALLOC_TOP_PAD_=268435456
export CCORE_COMM_ID=10.231.0.1:29517
# mpirun_hosts ARGS...: one process per rank, per_host on each host.  The
# processes are more than the CPUs, so they yield when idle rather than
# spin (spinning, Open MPI's tcp takes 50 ms for 8 bytes here).
mpirun_hosts() {
	"$agent" --local 0 mpirun --allow-run-as-root --hostfile "$out/hostfile" -np "$np" \
		--mca plm_rsh_agent "$agent" --mca btl self,vader,tcp \
		--mca btl_tcp_if_include 10.231.0.0/24 --mca oob_tcp_if_include 10.231.0.0/24 \
		--mca mpi_yield_when_idle 1 -x CCORE_TEST_NETNS -x CCORE_COMM_ID \
		-x MALLOC_MMAP_THRESHOLD_ -x MALLOC_TRIM_THRESHOLD_ -x MALLOC_TOP_PAD_ "$@"
}
han="--mca coll_han_priority 100"
# ompi [han] OP MIN MAX ITERS: "size time_us busbw"
ompi() {
	extra=""
	[ "$1" = han ] && { extra=$han; shift; }
	# shellcheck disable=SC2086
	mpirun_hosts $extra "$build/mpi/ompi_coll" "$@" 2>/dev/null
}
# ccore OP MIN MAX ITERS [ARGS...]: ccore-bench's rows as "size time_us busbw"
ccore() {
	op=$1 lo=$2 hi=$3 it=$4
	shift 4
	mpirun_hosts "$build/bin/ccore-bench" --op "$op" -b "$lo" -e "$hi" -n "$it" -w 3 "$@" \
		2>&1 | tee "$out/ccore.$op.log" | awk '/^ +[0-9]/ { print $1, $6, $8, $9 }'
}

for op in $ops; do
	echo "== $op, f32, 2 hosts x $per_host ranks over veth: Open MPI $(mpirun --version 2>&1 | head -1 | sed 's/.*) //') (tcp between hosts; coll tuned, coll han) vs ccore"
	ompi "$op" "$min" "$max" "$iters" > "$out/tuned.$op"
	ompi han "$op" "$min" "$max" "$iters" > "$out/han.$op"
	ccore "$op" "$min" "$max" "$iters" > "$out/ccore.$op"
	printf '%12s %11s %9s %11s %9s %11s %9s %7s %8s %8s\n' size tuned_us tuned_bw han_us han_bw \
		ccore_us ccore_bw wrong x_tuned x_han
	# join wants its inputs sorted as text, the table is by size
	for side in tuned han ccore; do
		sort -k1,1 -o "$out/$side.$op" "$out/$side.$op"
	done
	join "$out/tuned.$op" "$out/han.$op" | join - "$out/ccore.$op" | sort -n |
		awk '{ printf "%12d %11.1f %9.3f %11.1f %9.3f %11.1f %9.3f %7s %8.2f %8.2f\n", $1, $2, $3, $4, $5, $6, $7, $8, ($3 > 0 ? $7 / $3 : 0), ($5 > 0 ? $7 / $5 : 0) }'
	echo "# busbw in GB/s as nccl-tests computes it; x_tuned, x_han: ccore's busbw / Open MPI's; wrong: ccore's wrong elements"
done

ns0=$(echo "$CCORE_TEST_NETNS" | cut -d' ' -f1)
ns1=$(echo "$CCORE_TEST_NETNS" | cut -d' ' -f2)
# put_pair SENDER_NS RECEIVER_NS SENDER_ADDRESS PORT ARGS...: ccore-netbw
# from one host to the other, the sender's table on stdout
put_pair() {
	from=$1 to=$2 id="$3:$4"
	shift 4
	nsenter --net="$to" -- env FI_TCP_IFACE=eth0 CCORE_COMM_ID="$id" \
		"$build/bin/ccore-netbw" --rank 1 "$@" > /dev/null 2>&1 &
	nsenter --net="$from" -- env FI_TCP_IFACE=eth0 CCORE_COMM_ID="$id" \
		"$build/bin/ccore-netbw" --rank 0 "$@"
	wait
}

echo "== raw libfabric put bandwidth, host 0 to host 1 over the same veth pair (ccore-netbw)"
put_pair "$ns0" "$ns1" 10.231.0.1 29600 -b "$min" -e "$max" | tee "$out/netbw"

# The same put with both directions busy at once, as an AllReduce between
# two hosts has them (each host sends its half): the pairs share the CPUs
# that carry both (on a small host the kernel's TCP work is most of it).
net_bytes=${BH_NET_BYTES:-67108864}
if [ "$(awk -v m="$max" -v b="$net_bytes" 'BEGIN { print (m >= b) }')" = 1 ]; then
	echo "== raw put bandwidth of $net_bytes-byte puts with both directions busy at once"
	put_pair "$ns0" "$ns1" 10.231.0.1 29601 -b "$net_bytes" -e "$net_bytes" -n 16 \
		> "$out/bidir.0" 2>&1 &
	put_pair "$ns1" "$ns0" 10.231.0.2 29602 -b "$net_bytes" -e "$net_bytes" -n 16 \
		> "$out/bidir.1" 2>&1 &
	wait
	awk -v b="$net_bytes" '$1 == b { printf "host %d to host %d: %.3f GB/s\n", FILENAME ~ /bidir.1$/, FILENAME !~ /bidir.1$/, $4 }' \
		"$out/bidir.0" "$out/bidir.1" | tee "$out/bidir"
fi

# What crosses the network: the bytes host 0's processes sent to host 1
# (CCORE_DEBUG=info has each process say at its end), per AllReduce of
# BH_NET_BYTES, from two runs of different lengths (so set-up and warm-up
# cancel out), against the time of one: the rate it moves data between the
# hosts, and that as a share of the raw put bandwidth above.
# sent ITERS: host 0's bytes over the whole run, and the run's time per call (us)
sent() {
	CCORE_DEBUG=info mpirun_hosts -x CCORE_DEBUG "$build/bin/ccore-bench" --op allreduce \
		-b "$net_bytes" -e "$net_bytes" -n "$1" -w 1 -c 0 > "$out/net.$1" 2>&1 || true
	awk '/sim: host 0 process [0-9]+ sent [0-9]+ bytes/ { for (i = 1; i < NF; i++) if ($(i + 1) == "bytes") b += $i }
	     /^ +[0-9]/ { t = ($6 + $10) / 2 } END { printf "%.0f %.2f\n", b, t }' "$out/net.$1"
}
if [ "$(awk -v m="$max" -v b="$net_bytes" 'BEGIN { print (m >= b) }')" = 1 ]; then
	echo "== what crosses the network in ccore's AllReduce of $net_bytes bytes (host 0 to host 1)"
	short=$(sent 2)
	long=$(sent 6)
	raw=$(awk -v b="$net_bytes" '$1 == b { print $4 }' "$out/netbw")
	both=$(awk 'NR == 1 { print $(NF - 1) + 0 }' "$out/bidir" 2>/dev/null)
	awk -v b2="${short% *}" -v b6="${long% *}" -v t="${long#* }" -v raw="$raw" -v both="${both:-0}" 'BEGIN {
		per = (b6 - b2) / 8	# 2 x 4 calls more: out of place and in place
		rate = per / t / 1e3
		printf "%.1f MiB per call in %.1f us: %.3f GB/s crossing, %.0f%% of the raw put bandwidth (%.3f GB/s), %.0f%% of it with both directions busy (%.3f GB/s)\n",
			per / 1048576, t, rate, (raw > 0 ? 100 * rate / raw : 0), raw,
			(both > 0 ? 100 * rate / both : 0), both }'
fi

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo "== AllReduce latency, 8 bytes, 2 hosts x $per_host ranks: $lat_trials alternating trials of $lat_iters iterations (us)"
: > "$out/lat_tuned"
: > "$out/lat_han"
: > "$out/lat_ccore"
for t in $(seq "$lat_trials"); do
	ompi allreduce 8 8 "$lat_iters" | awk '{ print $2 }' >> "$out/lat_tuned"
	ompi han allreduce 8 8 "$lat_iters" | awk '{ print $2 }' >> "$out/lat_han"
	ccore allreduce 8 8 "$lat_iters" -c 0 | awk '{ print $2 }' >> "$out/lat_ccore"
	printf 'trial %d: tuned %s  han %s  ccore %s\n' "$t" "$(tail -1 "$out/lat_tuned")" \
		"$(tail -1 "$out/lat_han")" "$(tail -1 "$out/lat_ccore")"
done
mt=$(median < "$out/lat_tuned")
mh=$(median < "$out/lat_han")
mc=$(median < "$out/lat_ccore")
echo "median: tuned $mt us, han $mh us, ccore $mc us; ccore / tuned $(awk -v a="$mc" -v b="$mt" 'BEGIN { printf "%.2f", a / b }'), ccore / han $(awk -v a="$mc" -v b="$mh" 'BEGIN { printf "%.2f", a / b }')"
