#!/bin/sh
# Run every test binary of each build directory given (normal, sanitizer),
# print their TAP, and finish with one "N passed, N failed" line.
# Usage: selftests/run.sh BUILD_DIR...
set -u
passed=0
failed=0
skipped=0
bad_bins=""
for build in "$@"; do
	# tests/kernel holds the QEMU guest's tests (selftests/qemu/run.sh)
	for t in $(find "$build/tests" -path "$build/tests/kernel" -prune -o \
		-type f -perm -u+x -print 2>/dev/null | sort); do
		echo "# ---- $t"
		out=$("$t" 2>&1)
		rc=$?
		printf '%s\n' "$out"
		p=$(printf '%s\n' "$out" | grep -c '^ok .*' || true)
		s=$(printf '%s\n' "$out" | grep -c '^ok .* # SKIP' || true)
		f=$(printf '%s\n' "$out" | grep -c '^not ok ' || true)
		passed=$((passed + p - s))
		skipped=$((skipped + s))
		failed=$((failed + f))
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			# crashed or exited non-zero without reporting a failure
			echo "not ok - $t exited with status $rc"
			failed=$((failed + 1))
			bad_bins="$bad_bins $t"
		fi
	done
done
[ -n "$bad_bins" ] && echo "# binaries that died:$bad_bins"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
