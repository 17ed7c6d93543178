#!/bin/sh
# Regenerate the fuzzer's seed corpus (selftests/fuzz/corpus/): the valid
# executables built from selftests/fuzz/seeds/*.txt and
# examples/tp_fsdp.txt, and malformed ones derived from them.  Check the
# result in; selftests/tools/exe_test.sh fails when it is stale.
# Usage: selftests/fuzz/make-corpus.sh [BUILD_DIR]   (default build)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
exe="$root/${1:-build}/bin/ccore-exe"
out="$root/selftests/fuzz/corpus"
[ -x "$exe" ] || { echo "make-corpus: $exe is missing; run make first" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out"/*.cce
for desc in "$root"/selftests/fuzz/seeds/*.txt "$root"/examples/tp_fsdp.txt; do
	"$exe" build "$desc" -o "$out/valid_$(basename "$desc" .txt).cce"
done
base="$out/valid_allreduce_2.cce"
# patch FILE OFFSET BYTES...: overwrite bytes (octal escapes for printf)
patch() {
	f=$1 off=$2
	shift 2
	printf "$@" | dd of="$f" bs=1 seek="$off" conv=notrunc status=none
}
head -c 100 "$base" > "$out/bad_truncated.cce"
cp "$base" "$out/bad_magic.cce" && patch "$out/bad_magic.cce" 0 'X'
cp "$base" "$out/bad_version.cce" && patch "$out/bad_version.cce" 8 '\002'
cp "$base" "$out/bad_trailing.cce" && printf '\0\0\0\0\0\0\0\0' >> "$out/bad_trailing.cce"
# section 2's offset (table entry 1, +8) moved back onto section 1
cp "$base" "$out/bad_overlap.cce" && patch "$out/bad_overlap.cce" $((64 + 32 + 8)) '\000\001'
# the AllReduce's count (collectives entry 0, +16) 0x40000000: past its tensors
off=$(od -An -tu4 -j $((64 + 2 * 32 + 8)) -N4 "$base" | tr -d ' ')
cp "$base" "$out/bad_count.cce" && patch "$out/bad_count.cce" $((off + 16)) '\000\000\000\100'
# rank 1's wait (code entry 6) turned into a second trigger
off=$(od -An -tu4 -j $((64 + 5 * 32 + 8)) -N4 "$base" | tr -d ' ')
cp "$base" "$out/bad_order.cce" && patch "$out/bad_order.cce" $((off + 6 * 40)) '\003'
ls "$out" | wc -l | sed 's/$/ corpus files/'
