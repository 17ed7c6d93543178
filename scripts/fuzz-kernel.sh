#!/bin/bash
# make fuzz-kernel: a long random run of the ccore ioctl fuzzer
# (selftests/kfuzz) in its own QEMU boot with slub_debug=FZPU and KFENCE
# sampling every millisecond; prints the seeds, the per-ioctl return-code
# counts and a clean/unclean verdict.
#
# Usage: scripts/fuzz-kernel.sh [--seconds N] [--seeds "1 2 3"] [--procs P] [--skip-known]
#                               [--modules DIR]
#   --seconds N    fuzzing time in all, split over the seeds (default 600)
#   --seeds LIST   seeds, blank- or comma-separated (default "1 2 3")
#   --procs P      worker processes per seed (default 4)
#   --skip-known   avoid the triggers of issue 14's findings (to look for
#                  new bugs on a driver without their fixes)
#   --modules DIR  the ccore.ko to fuzz (default build/driver)
# Needs build/driver/ccore.ko, build/firmware and build/tests/kernel
# (make all driver).  The console log is kept in build/qemu-fuzz/.
# Exit status 0 only if the run was clean.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

seconds=600
seeds="1 2 3"
procs=4
skip_known=""
modules=()
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=${2:?--seconds needs a number}; shift ;;
	--seeds) seeds=${2:?--seeds needs a list}; shift ;;
	--procs) procs=${2:?--procs needs a number}; shift ;;
	--skip-known) skip_known=--skip-known ;;
	--modules) modules=(--modules "${2:?--modules needs a directory}"); shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; echo "fuzz-kernel: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done
die() { echo "fuzz-kernel: $*" >&2; exit 2; }
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || die "--seconds '$seconds': expected whole seconds"
[[ "$procs" =~ ^[1-9][0-9]*$ ]] || die "--procs '$procs': expected 1..32"
seeds=$(echo "$seeds" | tr ', ' '\n' | grep . | paste -sd, -)
[[ "$seeds" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--seeds: expected numbers, blank- or comma-separated"
nseeds=$(echo "$seeds" | tr ',' '\n' | wc -l)

root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/qemu-fuzz
# each seed's run is killed 60 s after its share; the unload and the boot
# take a minute at most
test_timeout=$((seconds + 60 * nseeds + 120))
echo "fuzz-kernel: seeds $seeds, ${seconds}s in all, $procs processes each" \
	"${skip_known:+(known findings avoided)}"
set +e
"$root/selftests/qemu/run.sh" "${modules[@]}" --test kfuzz_test.sh \
	--test-args "--seconds $seconds --seeds $seeds --procs $procs $skip_known random log unload" \
	--test-timeout "$test_timeout" --timeout $((test_timeout + 120)) \
	--extra-append "slub_debug=FZPU kfence.sample_interval=1" --out "$out" |
	grep -v '^#   \[' # the boot log, on failure: it is in the console log
rc=${PIPESTATUS[0]}
set -e
if [ "$rc" -eq 0 ]; then
	echo "fuzz-kernel: CLEAN: seeds $seeds, ${seconds}s: no splat, every worker died when" \
		"killed, ccore.ko unloaded"
else
	echo "fuzz-kernel: UNCLEAN (see above and $out/console.log)"
fi
exit "$rc"
