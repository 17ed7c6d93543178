#!/bin/sh
# ccore-bench one process per rank: --procs N (its own launcher) prints the
# same table with the same checks as one process, and the processes of a
# launcher (mpirun's OMPI_COMM_WORLD_RANK/SIZE, PMI_RANK/SIZE, started here
# by hand so that no MPI is needed) do too; bad uses say what is allowed.
# Prints TAP.  Installed as BUILD/tests/tools/bench_procs_test.
bin=$(cd "$(dirname "$0")/../../bin" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tool_test_start

bench="$bin/ccore-bench"
small="-b 8 -e 64K -f 16 -n 3 -w 1"

# rows: size, count, type and the two #wrong columns of every row
rows() { awk '/^ +[0-9]/ { print $1, $2, $3, $9, $13 }' "$1"; }

# shellcheck disable=SC2086
for op in allreduce allgather reducescatter alltoall broadcast reduce sendrecv; do
	"$bench" --op $op -g 4 $small > "$tmp/one.$op" 2>"$tmp/one.err"
	one=$?
	"$bench" --op $op --procs 4 $small > "$tmp/mp.$op" 2>"$tmp/mp.err"
	mp=$?
	if [ $one = 0 ] && [ $mp = 0 ] && [ "$(rows "$tmp/one.$op")" = "$(rows "$tmp/mp.$op")" ] &&
	   grep -q "Out of bounds values : 0 OK" "$tmp/mp.$op" && [ -n "$(rows "$tmp/mp.$op")" ]; then
		ok "--procs 4 --op $op: the rows and checks of one process"
	else
		not_ok "--procs 4 --op $op" "exit $one / $mp" "$(cat "$tmp/mp.$op" "$tmp/mp.err")"
	fi
done
# shellcheck disable=SC2086
expect 0 "Out of bounds values : 0 OK" -- "$bench" --procs 2 -g 4 -d all $small

# a wrong element in another process's rank counts in the first's table
# shellcheck disable=SC2086
"$bench" -g 4 --corrupt-rank 3 $small > "$tmp/one.bad" 2>&1
one=$?
# shellcheck disable=SC2086
"$bench" --procs 4 --corrupt-rank 3 $small > "$tmp/mp.bad" 2>&1
mp=$?
if [ $one != 0 ] && [ $mp != 0 ] && [ "$(rows "$tmp/one.bad")" = "$(rows "$tmp/mp.bad")" ] &&
   [ "$(rows "$tmp/mp.bad" | awk '$4 != 1 || $5 != 1' | wc -l)" = 0 ] &&
   grep -q "Out of bounds values : [1-9][0-9]* FAILED" "$tmp/mp.bad"; then
	ok "--procs 4 --corrupt-rank 3: rank 3's wrong elements in the first process's table, as in one"
else
	not_ok "--procs 4 --corrupt-rank 3" "exit $one / $mp" "$(cat "$tmp/one.bad" "$tmp/mp.bad")"
fi
expect 2 "--corrupt-rank 4 out of range (0..3)" -- "$bench" -g 4 --corrupt-rank 4

# as mpirun starts them: every process told its rank and size, none a launcher
port=$((20000 + $$ % 20000))
for r in 0 1 2; do
	# shellcheck disable=SC2086
	OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=3 CCORE_COMM_ID=127.0.0.1:$port \
		"$bench" $small > "$tmp/ompi.$r" 2>&1 &
	eval "pid$r=\$!"
done
st=0
for r in 0 1 2; do
	eval "wait \$pid$r" || st=1
done
if [ $st = 0 ] && grep -q "Out of bounds values : 0 OK" "$tmp/ompi.0" &&
   grep -q "nGpus 3" "$tmp/ompi.0" && ! grep -q "Out of bounds" "$tmp/ompi.1"; then
	ok "3 processes with OMPI_COMM_WORLD_RANK/SIZE: rank 0 prints the table"
else
	not_ok "3 processes with OMPI_COMM_WORLD_RANK/SIZE" "$(cat "$tmp/ompi.0" "$tmp/ompi.1")"
fi

expect 2 "--procs '0': expected a whole number from 1 to 1024" -- "$bench" --procs 0
expect 2 "5 ranks in 2 processes: every process runs as many ranks" -- "$bench" --procs 2 -g 5
expect 2 "--procs runs the collective table one process per rank on this host; it does not go with --copy" -- "$bench" --procs 2 --copy
expect 2 "it does not go with --timed" -- "$bench" --procs 2 --timed
expect 2 "--procs 2 under mpirun (Open MPI): the launcher starts the processes already" -- env OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 "$bench" --procs 2
expect 2 "OMPI_COMM_WORLD_RANK=\"2\" is not a number from 0 to 1" -- env OMPI_COMM_WORLD_RANK=2 OMPI_COMM_WORLD_SIZE=2 "$bench"
expect 2 "PMI_SIZE is set but PMI_RANK is not" -- env PMI_SIZE=2 "$bench"
expect 0 "--procs N" -- "$bench" --help
done_testing
