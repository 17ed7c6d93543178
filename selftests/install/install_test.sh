#!/bin/sh
# make install into a temporary DESTDIR, then use it as a program would
# (README, "Use libccore from your program"): the layout, ccore.pc, the
# public headers compiling on their own in C and C++ through pkg-config,
# examples/allreduce.c built by examples/Makefile through
# `pkg-config --cflags --libs ccore` against the shared library (run with
# LD_LIBRARY_PATH) and `pkg-config --static` against the static one, both
# run and their output checked; PREFIX honoured; make uninstall leaving
# nothing.  Prints TAP.  Run by scripts/check.sh (make check).
#
# Usage: selftests/install/install_test.sh BUILD_DIR   (built by make all)
set -u
case "${1:-}" in
-h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
if [ $# -ne 1 ] || [ ! -d "$1/lib" ]; then
	echo "Usage: selftests/install/install_test.sh BUILD_DIR  (a build directory of make all)" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$root/selftests/lib/tap.sh"

version=$(awk '$2 ~ /^CCORE_(MAJOR|MINOR|PATCH)$/ { v = v sep $3; sep = "." } END { print v }' \
	"$root/runtime/include/ccore.h")
major=${version%%.*}
dest=$tmp/dest
prefix=$dest/usr/local
# make in the sources, on the build directory given
mk() {
	make --no-print-directory -C "$root" BUILD="$build" "$@"
}

echo "TAP version 13"
if out=$(mk DESTDIR="$dest" install 2>&1); then
	ok "make install DESTDIR=... (PREFIX /usr/local)"
else
	not_ok "make install DESTDIR=... (PREFIX /usr/local)" "$out"
	echo "1..$n"
	exit 1
fi

layout() {
	for f in lib/libccore.so.$version lib/libccore.a lib/pkgconfig/ccore.pc \
		include/ccore/ccore.h include/ccore/ccore_device.h include/ccore/ccore_verifiable.h \
		include/ccore/ccore_accel.h lib/firmware/ccore/dispatcher.bin; do
		[ -f "$prefix/$f" ] || { echo "missing: $f"; return 1; }
	done
	[ "$(readlink "$prefix/lib/libccore.so.$major")" = "libccore.so.$version" ] &&
		[ "$(readlink "$prefix/lib/libccore.so")" = "libccore.so.$major" ] ||
		{ echo "links:"; ls -l "$prefix/lib"; return 1; }
	for tool in "$build"/bin/ccore-*; do
		name=$(basename "$tool")
		out=$("$prefix/bin/$name" --version) && [ "$out" = "$name (ccore) $version" ] ||
			{ echo "bin/$name --version: $out"; return 1; }
	done
	cmp "$build/firmware/ccore/dispatcher.bin" "$prefix/lib/firmware/ccore/dispatcher.bin"
}
check "installed: libccore.so.$version and its links, libccore.a, headers, ccore.pc, tools, firmware" layout

installed_exports() {
	bad=$(nm -D --defined-only "$prefix/lib/libccore.so" |
		awk 'NF == 3 && $3 !~ /^ccore_/')
	bad=$bad$(nm -g --defined-only "$prefix/lib/libccore.a" | awk 'NF == 3 && $3 !~ /^ccore_/')
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}
check "the installed libccore.so and libccore.a define only ccore_* globals" installed_exports

pc_file() {
	pc=$prefix/lib/pkgconfig/ccore.pc
	grep -qx 'prefix=/usr/local' "$pc" && grep -qx "Version: $version" "$pc" &&
		grep -qx 'Requires.private: libdrm' "$pc" && grep -qx 'Libs.private: -pthread -lm' "$pc" ||
		{ cat "$pc"; return 1; }
}
check "ccore.pc: prefix /usr/local, version $version, libdrm, -pthread -lm" pc_file

# The install as a staged root: pkg-config prefixes ccore.pc's paths with
# it.  It does so for libdrm's too (Requires.private), so the root gets
# links to the system's libdrm headers and library directory.
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
PKG_CONFIG_SYSROOT_DIR=$dest
export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
drm_inc=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=includedir libdrm)
drm_lib=$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=libdir libdrm)
mkdir -p "$dest$drm_inc" "$(dirname "$dest$drm_lib")"
ln -s "$drm_inc/libdrm" "$dest$drm_inc/libdrm"
ln -s "$drm_lib" "$dest$drm_lib"

flags() {
	cflags=$(pkg-config --cflags ccore) && libs=$(pkg-config --libs ccore) &&
		static=$(pkg-config --static --libs ccore) || return 1
	case "$cflags $libs" in
	*"-I$prefix/include/ccore"*"-L$prefix/lib -lccore"*) ;;
	*) echo "cflags: $cflags; libs: $libs"; return 1 ;;
	esac
	case "$static" in
	*-lccore*-pthread*-lm*-ldrm*) ;;
	*) echo "static libs: $static"; return 1 ;;
	esac
}
check "pkg-config --cflags --libs [--static] ccore point into the install" flags

headers() {
	cat >"$tmp/h.c" <<'HDR'
#include <ccore.h>
#include <ccore_device.h>
#include <ccore_verifiable.h>
int config_size(void);
int config_size(void)
{
	struct ccore_comm_config config = CCORE_COMM_CONFIG_INIT;

	return (int)config.size;
}
HDR
	# shellcheck disable=SC2046
	cc -std=c11 -pedantic -Wall -Wextra -Werror $(pkg-config --cflags ccore) -fsyntax-only "$tmp/h.c" &&
		c++ -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror $(pkg-config --cflags ccore) \
			-fsyntax-only "$tmp/h.c"
}
check "the installed headers and CCORE_COMM_CONFIG_INIT compile in C11 and C++11 (-Wall -Wextra -pedantic)" headers

# run_example NAME PROGRAM [ENV...]: the example's lines, exit status 0
run_example() {
	out=$(env "$@" 2>&1) || { echo "exit $?: $out"; return 1; }
	printf '%s\n' "$out" | grep -qE '^allreduce: 4 ranks, 262144 floats each, sum with [a-z_]+: correct$' &&
		printf '%s\n' "$out" | grep -qx "allreduce: libccore $version (built with $version)" ||
		{ echo "$out"; return 1; }
}

shared() {
	mk_out=$(make --no-print-directory -C "$root/examples" O="$tmp" all 2>&1) || { echo "$mk_out"; return 1; }
	readelf -d "$tmp/allreduce" | grep -q "NEEDED.*\[libccore.so.$major\]" ||
		{ readelf -d "$tmp/allreduce"; return 1; }
	run_example LD_LIBRARY_PATH="$prefix/lib" "$tmp/allreduce"
}
check "examples/allreduce.c through pkg-config, shared: builds, needs libccore.so.$major, runs correctly" shared

static() {
	mk_out=$(make --no-print-directory -C "$root/examples" O="$tmp" static 2>&1) || { echo "$mk_out"; return 1; }
	! readelf -d "$tmp/allreduce-static" 2>/dev/null | grep -q NEEDED ||
		{ readelf -d "$tmp/allreduce-static"; return 1; }
	# nothing of the build tree or the install is needed to run it
	run_example LD_LIBRARY_PATH= "$tmp/allreduce-static"
}
check "examples/allreduce.c through pkg-config --static: builds fully static, runs correctly" static

other_prefix() {
	out=$(mk DESTDIR="$tmp/d2" PREFIX=/opt/ccore install 2>&1) || { echo "$out"; return 1; }
	[ -f "$tmp/d2/opt/ccore/lib/libccore.so.$version" ] && [ -f "$tmp/d2/opt/ccore/bin/ccore-bench" ] &&
		grep -qx 'prefix=/opt/ccore' "$tmp/d2/opt/ccore/lib/pkgconfig/ccore.pc" &&
		grep -qx "libdir=\${prefix}/lib" "$tmp/d2/opt/ccore/lib/pkgconfig/ccore.pc" ||
		{ find "$tmp/d2"; return 1; }
}
check "make install PREFIX=/opt/ccore puts everything and ccore.pc's prefix there" other_prefix

uninstall() {
	out=$(mk DESTDIR="$dest" uninstall 2>&1) || { echo "$out"; return 1; }
	left=$(find "$prefix" ! -type d)
	[ -z "$left" ] || { echo "left behind: $left"; return 1; }
}
check "make uninstall removes every file it installed" uninstall

# README shows the example whole: the same text as examples/allreduce.c
readme_example() {
	awk '/^### Use libccore from your program$/ { sec = 1 } sec && /^```c$/ { code = 1; next }
		code && /^```$/ { exit } code' "$root/README.md" >"$tmp/readme.c"
	diff -u "$root/examples/allreduce.c" "$tmp/readme.c"
}
check "README's \"Use libccore from your program\" shows examples/allreduce.c as it is" readme_example

echo "1..$n"
echo "$((n - failed)) passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
