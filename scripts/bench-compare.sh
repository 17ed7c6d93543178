#!/bin/sh
# AllReduce side by side: Open MPI (shared memory, same N) and ccore, same
# sizes and iterations; prints both and the ratios, then the small-message
# latency of both as medians of alternating trials.  ccore runs twice: N
# ranks in one process (ccore_comm_init_all) and N processes of one rank
# (ccore-bench --procs N, the host's shared sim): "ccore" and "ccore_mp".
# Usage: scripts/bench-compare.sh BUILD_DIR [RANKS...]
set -eu
build=${1:-build}
shift || true
ranks=${*:-2 4 8}
min=${CMP_MIN:-8}
max=${CMP_MAX:-67108864}
iters=${CMP_ITERS:-20}
mkdir -p "$build/mpi"
mpicc -O2 -o "$build/mpi/ompi_coll" tools/mpi-compare/ompi_coll.c
run_as_root=""
[ "$(id -u)" -eq 0 ] && run_as_root="--allow-run-as-root"
# ompi N MIN MAX ITERS: Open MPI's AllReduce on N ranks, "size time_us busbw"
ompi() {
	np=$1
	shift
	# shellcheck disable=SC2086
	mpirun $run_as_root --oversubscribe -np "$np" --mca btl self,vader \
		"$build/mpi/ompi_coll" allreduce "$@" 2>/dev/null
}
# Open MPI keeps its buffers' pages: glibc's trimming would make it fault
# them in again every iteration
export MALLOC_MMAP_THRESHOLD_=4294967296 MALLOC_TRIM_THRESHOLD_=4294967296
export MALLOC_TOP_PAD_=268435456
# ccore N MIN MAX ITERS [ARGS...]: ccore-bench's AllReduce table on N ranks
ccore() {
	np=$1 lo=$2 hi=$3 it=$4
	shift 4
	"$build/bin/ccore-bench" --op allreduce --ranks "$np" -b "$lo" -e "$hi" -n "$it" -w 5 \
		-c 0 "$@" 2>/dev/null
}
for n in $ranks; do
	echo "== AllReduce, f32 sum, $n ranks: Open MPI $(mpirun --version 2>&1 | head -1 | sed 's/.*) //') vs ccore (sim), one process and $n processes"
	ompi "$n" "$min" "$max" "$iters" > "$build/mpi/ompi.$n"
	ccore "$n" "$min" "$max" "$iters" --json "$build/mpi/ccore.$n.json" |
		awk '/^ +[0-9]/ { print $1, $6, $8 }' > "$build/mpi/ccore.$n"
	ccore "$n" "$min" "$max" "$iters" --procs "$n" |
		awk '/^ +[0-9]/ { print $1, $6, $8 }' > "$build/mpi/ccore_mp.$n"
	printf '%12s %12s %12s %12s %12s %12s %12s %10s %10s %10s\n' size ompi_us ompi_busbw \
		ccore_us ccore_busbw mp_us mp_busbw busbw_x mp_busbw_x mp_vs_1p
	join "$build/mpi/ompi.$n" "$build/mpi/ccore.$n" | join - "$build/mpi/ccore_mp.$n" |
		awk '{ printf "%12d %12.2f %12.3f %12.2f %12.3f %12.2f %12.3f %10.2f %10.2f %10.2f\n", $1, $2, $3, $4, $5, $6, $7, ($3 > 0 ? $5 / $3 : 0), ($3 > 0 ? $7 / $3 : 0), ($5 > 0 ? $7 / $5 : 0) }'
	echo "# busbw_x, mp_busbw_x: ccore's busbw (one process, $n processes) / Open MPI's; mp_vs_1p: $n processes' busbw / one process's"
done

# Small-message latency: a few iterations of 8 bytes say little on a
# shared 2-core host, so run both sides in alternating trials of many
# iterations and compare the medians.  With more ranks than CPUs, each
# trial also runs the N ranks in as many processes as there are CPUs
# ("fit": no process waits for a CPU) and times the host's floor for a
# call of N processes (ccore-handoff: N processes meeting at a counter in
# shared memory, nothing else).
lat_bytes=${CMP_LAT_BYTES:-8}
lat_iters=${CMP_LAT_ITERS:-20000}
lat_trials=${CMP_LAT_TRIALS:-5}
cpus=$(nproc)
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
for n in $ranks; do
	echo "== AllReduce latency, $lat_bytes bytes, $n ranks: $lat_trials alternating trials of $lat_iters iterations (us)"
	: > "$build/mpi/lat_ompi.$n"
	: > "$build/mpi/lat_ccore.$n"
	: > "$build/mpi/lat_ccore_mp.$n"
	: > "$build/mpi/lat_ccore_fit.$n"
	: > "$build/mpi/lat_floor.$n"
	fit=""
	[ "$n" -gt "$cpus" ] && [ $((n % cpus)) -eq 0 ] && fit=$cpus
	for t in $(seq "$lat_trials"); do
		# the VM's CPUs pass a cache line in about 80 or about 330 ns,
		# for minutes at a time; every latency below follows it
		line=$("$build/bin/ccore-handoff" --line 2>/dev/null || echo '?')
		ompi "$n" "$lat_bytes" "$lat_bytes" "$lat_iters" |
			awk '{ print $2 }' >> "$build/mpi/lat_ompi.$n"
		ccore "$n" "$lat_bytes" "$lat_bytes" "$lat_iters" -w 500 |
			awk '/^ +[0-9]/ { print $6 }' >> "$build/mpi/lat_ccore.$n"
		ccore "$n" "$lat_bytes" "$lat_bytes" "$lat_iters" -w 500 --procs "$n" |
			awk '/^ +[0-9]/ { print $6 }' >> "$build/mpi/lat_ccore_mp.$n"
		more=""
		if [ -n "$fit" ]; then
			ccore "$n" "$lat_bytes" "$lat_bytes" "$lat_iters" -w 500 --procs "$fit" |
				awk '/^ +[0-9]/ { print $6 }' >> "$build/mpi/lat_ccore_fit.$n"
			"$build/bin/ccore-handoff" -p "$n" -n "$lat_iters" 2>/dev/null |
				awk -v n="$n" '$1 == n { print $2 }' >> "$build/mpi/lat_floor.$n"
			more=$(printf '  ccore in %d processes %s  floor of %d processes %s' "$fit" \
				"$(tail -1 "$build/mpi/lat_ccore_fit.$n")" "$n" \
				"$(tail -1 "$build/mpi/lat_floor.$n")")
		fi
		printf 'trial %d: ompi %s  ccore %s  ccore %d processes %s%s  (cache line between CPUs %s ns)\n' \
			"$t" "$(tail -1 "$build/mpi/lat_ompi.$n")" "$(tail -1 "$build/mpi/lat_ccore.$n")" \
			"$n" "$(tail -1 "$build/mpi/lat_ccore_mp.$n")" "$more" "$line"
	done
	mo=$(median < "$build/mpi/lat_ompi.$n")
	mc=$(median < "$build/mpi/lat_ccore.$n")
	mp=$(median < "$build/mpi/lat_ccore_mp.$n")
	echo "median: ompi $mo us, ccore $mc us, ccore $n processes $mp us; lat_x $(awk -v o="$mo" -v c="$mc" 'BEGIN { printf "%.2f", (c > 0 ? o / c : 0) }'), mp lat_x $(awk -v o="$mo" -v c="$mp" 'BEGIN { printf "%.2f", (c > 0 ? o / c : 0) }'), mp / one process $(awk -v p="$mp" -v c="$mc" 'BEGIN { printf "%.2f", (c > 0 ? p / c : 0) }')"
	if [ -n "$fit" ]; then
		mf=$(median < "$build/mpi/lat_ccore_fit.$n")
		fl=$(median < "$build/mpi/lat_floor.$n")
		echo "median, $n ranks on $cpus CPUs: ccore in $fit processes ($((n / fit)) ranks each) $mf us, / one process $(awk -v p="$mf" -v c="$mc" 'BEGIN { printf "%.2f", (c > 0 ? p / c : 0) }'); host floor for $n processes (ccore-handoff, sched_yield) $fl us, / one process $(awk -v p="$fl" -v c="$mc" 'BEGIN { printf "%.2f", (c > 0 ? p / c : 0) }')"
	fi
done
