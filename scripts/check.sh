#!/bin/bash
# The test part of `make check`, once everything is built:
#   1. userspace tests, normal and sanitizer builds (selftests/run.sh):
#      everything under ASan/UBSan, the threaded tests under TSan
#   2. make install into a temporary DESTDIR, and examples/allreduce.c
#      built from it through pkg-config, shared and static, and run
#      (selftests/install/install_test.sh)
#   3. the kernel module: warning-free with W=1 and sparse (C=2), and the
#      standard `make -C KDIR M=$PWD modules` from the repository root
#   4. checkpatch.pl --strict on driver/, the netlink code generated from
#      its YNL spec, the sysfs ABI file describes every sysfs file of the
#      driver, the documentation renders cleanly, README and make help
#      read whole (scripts/docs-lint.sh)
#   5. the verifier fuzzer (selftests/fuzz/verify_fuzz.c, built by make
#      check in BUILD_DIR/fuzz) for 20 s from its corpus, fixed seed
#   6. the kernel selftests and the runtime on the accel backend, in QEMU
#      (selftests/qemu/run.sh)
# and one closing line summing them: "N passed, N failed, N skipped".
#
# Usage: scripts/check.sh BUILD_DIR ASAN_BUILD_DIR [TSAN_BUILD_DIR]
set -uo pipefail

usage="Usage: scripts/check.sh BUILD_DIR ASAN_BUILD_DIR [TSAN_BUILD_DIR]  (run by make check)"
case "${1:-}" in -h | --help) echo "$usage"; exit 0 ;; esac
if [ $# -ne 2 ] && [ $# -ne 3 ]; then
	echo "$usage" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
passed=0
failed=0
skipped=0

# Add a suite's closing "N passed, N failed, N skipped" line to the totals.
count() {
	local line
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$1" | tail -1)
	if [ -z "$line" ]; then
		echo "not ok - $2 ended without a summary line"
		failed=$((failed + 1))
		return
	fi
	set -- $line
	passed=$((passed + $1))
	failed=$((failed + $3))
	skipped=$((skipped + $5))
}

# A one-case step: "ok - NAME" or "not ok - NAME" with its output.
step() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		echo "ok - $name"
		passed=$((passed + 1))
	else
		printf '%s\n' "$out" | sed 's/^/# /'
		echo "not ok - $name"
		failed=$((failed + 1))
	fi
}

# The reStructuredText documentation renders without a warning.
docs() {
	local f rc=0
	for f in Documentation/*.rst; do
		/usr/bin/python3 -m docutils --halt=warning "$f" /dev/null || rc=1
	done
	return $rc
}

checkpatch() {
	local out
	out=$(perl build/linux-src/scripts/checkpatch.pl --strict --no-tree --terse -f \
		driver/*.c driver/*.h 2>&1 | grep -v '^total: 0 errors, 0 warnings, 0 checks')
	[ -z "$out" ] || { printf '%s\n' "$out"; return 1; }
}

# The standard out-of-tree build, `make -C KDIR M=$PWD modules` from the
# repository root (the top-level Kbuild), in a copy of the sources Kbuild
# needs, so the objects it writes beside them stay out of the repository.
kbuild_root() {
	local kdir copy rc=0
	kdir=$(scripts/build-driver.sh --print-kdir) || return 1
	copy=$(mktemp -d)
	git ls-files -z --cached --others --exclude-standard -- Kbuild driver model uapi |
		tar -cf - --null -T - | tar -xf - -C "$copy" || rc=1
	if [ $rc -eq 0 ]; then
		(cd "$copy" && make -j"$(nproc)" -C "$kdir" M="$PWD" modules) || rc=1
	fi
	if [ $rc -eq 0 ] && ! modinfo -F name "$copy/ccore.ko" | grep -qx ccore; then
		echo "no ccore.ko at the root of the copy"
		rc=1
	fi
	rm -rf "$copy"
	return $rc
}

# A short run of the verifier fuzzer: any crash, sanitizer report or input
# slower than 10 s fails it (the inputs it finds are thrown away).
verify_fuzz() {
	local fuzzer=$1/fuzz/fuzzers/verify work rc
	[ -x "$fuzzer" ] || { echo "$fuzzer is missing (make FUZZ_TARGET=verify fuzz-build)"; return 1; }
	work=$(mktemp -d)
	UBSAN_OPTIONS=print_stacktrace=1 "$fuzzer" -seed=1 -max_total_time=20 -timeout=10 -print_final_stats=1 \
		-dict=selftests/fuzz/verify.dict -artifact_prefix="$work/" \
		"$work" selftests/fuzz/verify-corpus 2>&1 | grep -v -E '^#[0-9]+.(NEW|REDUCE|pulse)'
	rc=${PIPESTATUS[0]}
	rm -rf "$work"
	return "$rc"
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "# ==== userspace tests ($*)"
selftests/run.sh "$@" | tee "$log"
count "$log" "userspace tests"

echo "# ==== make install, and a program built from it through pkg-config"
selftests/install/install_test.sh "$1" | tee "$log"
count "$log" "install test"

echo "# ==== kernel module"
step "ccore.ko builds with W=1 and sparse, no warnings" scripts/build-driver.sh --sparse
step "make -C KDIR M=\$PWD modules builds ccore.ko from the repository root" kbuild_root
step "checkpatch.pl --strict reports nothing on driver/" checkpatch
step "netlink code and header match Documentation/netlink/ccore.yaml" scripts/ynl-regen.sh --check
step "Documentation/ABI/testing/sysfs-driver-ccore describes every sysfs file of the driver" \
	selftests/driver/sysfs_abi_check.py --self-test
step "Documentation/*.rst renders without warnings" docs
step "README and make help: whole sentences, tables whole, no issue numbers" scripts/docs-lint.sh

echo "# ==== the verifier fuzzer"
step "verify_fuzz: 20 s from selftests/fuzz/verify-corpus, no crash" verify_fuzz "$1"

echo "# ==== QEMU: kernel selftests and the accel backend"
selftests/qemu/run.sh | tee "$log"
count "$log" "QEMU tests"

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
