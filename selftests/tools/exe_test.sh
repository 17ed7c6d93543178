#!/bin/sh
# ccore-exe: build / dump / check round trip on the example and the seed
# descriptions, the checked-in fuzz corpus is up to date, and every error
# path (bad usage: status 2; bad files: status 1 with FILE:LINE or the
# field).  Prints TAP.  Installed as BUILD/tests/tools/exe_test; the tools
# are in BUILD/bin, the sources above it.
bin=$(cd "$(dirname "$0")/../../bin" && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tool_test_start examples/tp_fsdp.txt
exe="$bin/ccore-exe"

# round trip: build(dump(x)) == x, byte for byte
for desc in "$root/examples/tp_fsdp.txt" "$root"/selftests/fuzz/seeds/*.txt; do
	name=$(basename "$desc" .txt)
	if "$exe" build "$desc" -o "$tmp/$name.cce" &&
		"$exe" dump "$tmp/$name.cce" -o "$tmp/$name.txt" &&
		"$exe" build "$tmp/$name.txt" -o "$tmp/$name.2.cce" &&
		cmp -s "$tmp/$name.cce" "$tmp/$name.2.cce"; then
		ok "$name: build, dump, build gives the same bytes"
	else
		not_ok "$name: build, dump, build gives the same bytes"
	fi
	# the checked-in corpus was built from the same description
	if cmp -s "$tmp/$name.cce" "$root/selftests/fuzz/corpus/valid_$name.cce"; then
		ok "$name: selftests/fuzz/corpus/valid_$name.cce is up to date"
	else
		not_ok "$name: selftests/fuzz/corpus/valid_$name.cce is stale" \
			"run selftests/fuzz/make-corpus.sh and commit the corpus"
	fi
done
expect 0 "tp_fsdp.cce: valid: 8 ranks (1 nodes x 2 devices x 4 ranks per device), 8 tensors, 4 collectives, 384 instructions (96 triggers), streams 0 1" -- "$exe" check "$tmp/tp_fsdp.cce"
expect 0 "collective fsdp_ag_odd allgather dtype=bf16 count=512K stream=1 send=w_shard_odd recv=w_odd groups={{0,4},{1,5},{2,6},{3,7}}" -- "$exe" dump "$tmp/tp_fsdp.cce"
for bad in "$root"/selftests/fuzz/corpus/bad_*.cce; do
	expect 1 "ccore-exe: $bad: " -- "$exe" check "$bad"
done
expect 1 "bad_count.cce: collective 0 (ar): send tensor 'grad' offset 0 + 4294967296 bytes exceeds its 4096 bytes" -- "$exe" dump "$root/selftests/fuzz/corpus/bad_count.cce"

# usage
expect 0 "Usage: ccore-exe build DESC.txt -o FILE.cce" -- "$exe" --help
expect 2 "Usage: ccore-exe" -- "$exe"
expect 2 "unknown command 'frob'; allowed: build, dump, check" -- "$exe" frob x
expect 2 "unknown option '--fast'; allowed: -o FILE, -h, --help, --version" -- "$exe" check --fast x.cce
expect 2 "build needs -o FILE.cce" -- "$exe" build "$root/examples/tp_fsdp.txt"
expect 2 "dump needs a file: ccore-exe dump FILE.cce" -- "$exe" dump
expect 2 "-o needs a file name" -- "$exe" build x.txt -o
expect 2 "check writes nothing; -o goes with build and dump" -- "$exe" check x.cce -o y
expect 2 "unexpected argument 'z'" -- "$exe" check x.cce z
expect 1 "cannot open '$tmp/none.txt'" -- "$exe" build "$tmp/none.txt" -o "$tmp/o.cce"
expect 1 "cannot create '$tmp/no/dir.cce'" -- "$exe" build "$root/examples/tp_fsdp.txt" -o "$tmp/no/dir.cce"

# bad descriptions: FILE:LINE and what is allowed
printf 'topology nodes=1 devices=1 ranks-per-device=2\n# comment\ntensor x 8K colour=red\n' > "$tmp/key.txt"
expect 1 "$tmp/key.txt:3: unknown key 'colour'; allowed: init=zero|pattern|index dtype=T redop=OP" -- "$exe" build "$tmp/key.txt" -o "$tmp/o.cce"
printf 'topology nodes=1 devices=1 ranks-per-device=2\ntensor x 8K\ntensor y 8K\ncollective tp_ag allgather dtype=f32 count=2K send=x recv=y groups=all\n' > "$tmp/range.txt"
expect 1 "$tmp/range.txt:4: collective 0 (tp_ag): recv tensor 'y' offset 0 + 16384 bytes exceeds its 8192 bytes" -- "$exe" build "$tmp/range.txt" -o "$tmp/o.cce"
[ ! -e "$tmp/o.cce" ] && ok "nothing written for a bad description" || not_ok "nothing written for a bad description"
printf 'topology nodes=1 devices=1 ranks-per-device=2\nrank 0\n  wait\n' > "$tmp/wait.txt"
expect 1 "$tmp/wait.txt:3: expected 'wait COLLECTIVE'" -- "$exe" build "$tmp/wait.txt" -o "$tmp/o.cce"
printf 'CCOREEXE' > "$tmp/short.cce"
expect 1 "executable: 8 bytes is too short; the header alone is 64 bytes" -- "$exe" check "$tmp/short.cce"

done_testing
