# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# TAP for the shell tests, sourced by each: ok, not_ok, skip and check
# number the cases in $n and count the failures in $failed.  In the QEMU
# guest it is helpers/tap.sh next to the test; on the host ../lib/tap.sh
# (BUILD/tests/lib/ beside BUILD/tests/tools/, or selftests/lib/ in the
# sources).

n=0
failed=0

# tool_test_start [MARK]: how the host's tests of the tools begin
# (installed as BUILD/tests/tools/NAME, with this file as
# BUILD/tests/lib/tap.sh): the TAP header and $tmp, a directory removed at
# exit.  A test that reads the sources names MARK, a file in them: $root is
# the source tree above the test holding it, or where there is none, an
# empty plan says so, status 0 (on the host that is a skip).
tool_test_start() {
	echo "TAP version 13"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	[ $# -eq 0 ] && return
	root=$(cd "$(dirname "$0")" && while [ ! -f "$1" ] && [ "$PWD" != / ]; do cd ..; done; pwd)
	if [ ! -f "$root/$1" ]; then
		echo "1..0 # SKIP the sources ($(dirname "$1")/) are not above $0"
		exit 0
	fi
}

ok() { # NAME
	n=$((n + 1))
	echo "ok $n $1"
}

not_ok() { # NAME WHY...: every line of every WHY as a comment
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $1"
	shift
	for why in "$@"; do printf '%s\n' "$why" | sed 's/^/# /'; done
}

skip() { # NAME WHY
	n=$((n + 1))
	echo "ok $n $1 # SKIP $2"
}

# skip_all WHY: nothing can run here, so an empty plan saying why (in the
# guest: kselftest's skip, status 4)
skip_all() {
	echo "1..0 # SKIP $1"
	exit 4
}

# need_built FILE...: skip_all unless every FILE is there
need_built() {
	for f in "$@"; do
		[ -e "$f" ] || skip_all "$f is missing (make builds it)"
	done
}

# check NAME FUNCTION: the function prints why it failed and returns 1
check() {
	if why=$($2 2>&1); then
		ok "$1"
	else
		not_ok "$1" "$why"
	fi
}

# result STATUS NAME [WHY]: ok if STATUS (a command's $?) is 0
result() {
	if [ "$1" = 0 ]; then
		ok "$2"
	else
		not_ok "$2" "${3:-}"
	fi
}

# expect STATUS TEXT -- COMMAND...: COMMAND exits STATUS and prints TEXT
# (stdout and stderr together)
expect() {
	want=$1 text=$2
	shift 3
	out=$("$@" 2>&1)
	got=$?
	if [ "$got" -eq "$want" ] && printf '%s' "$out" | grep -qF -- "$text"; then
		ok "$*"
	else
		not_ok "$*" "exit $got (want $want); output: $out"
	fi
}

# done_testing: the plan and the counts; the exit status says whether all passed
done_testing() {
	echo "1..$n"
	echo "# $((n - failed)) passed, $failed failed, 0 skipped"
	[ "$failed" -eq 0 ]
}
