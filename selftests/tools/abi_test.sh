#!/bin/sh
# What libccore exports (Documentation/library.rst): libccore.so.0 and the
# public libccore.a define no global name but the ccore_* functions the
# public headers declare, and every one of those; the shared library's
# SONAME and links follow ccore.h's version; every tool's --version prints
# it.  The check itself is shown to catch a leaked name.  Prints TAP.
# Installed as BUILD/tests/tools/abi_test; the library is in BUILD/lib, the
# tools in BUILD/bin, the sources above it.
build=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=SCRIPTDIR/../lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
tool_test_start runtime/include/ccore.h

version=$(awk '$2 ~ /^CCORE_(MAJOR|MINOR|PATCH)$/ { v = v sep $3; sep = "." } END { print v }' \
	"$root/runtime/include/ccore.h")
major=${version%%.*}
so=$build/lib/libccore.so
drm_cflags=$(pkg-config --cflags libdrm 2>/dev/null || echo -I/usr/include/libdrm)

# The functions the public headers declare: their preprocessed text, where
# comments are gone, holds each as "ccore_NAME (".
printf '#include "ccore.h"\n#include "ccore_device.h"\n#include "ccore_verifiable.h"\n' |
	${CC:-cc} -E -P -I"$root/runtime/include" -I"$root/uapi/drm" $drm_cflags -x c - |
	grep -oE '\bccore_[a-z0-9_]+ *\(' | tr -d ' (' | sort -u >"$tmp/declared"

# exports FILE NM-FLAGS...: the global names FILE defines, one a line; the
# shared library's without "@@VERSION" and without its version nodes (nm
# lists a node such as ccore_0 as an absolute symbol: not a name a program
# can meet)
exports() {
	f=$1
	shift
	nm "$@" --defined-only "$f" | awk 'NF == 3 && !($2 == "A" && $3 ~ /^ccore_[0-9.]+$/) {
		sub(/@.*/, "", $3); print $3 }' | sort -u
}

# only_public FILE NM-FLAGS...: FILE exports exactly the declared functions
only_public() {
	exports "$@" >"$tmp/exported" || return 1
	leaked=$(grep -v '^ccore_' "$tmp/exported")
	extra=$(comm -13 "$tmp/declared" "$tmp/exported")
	missing=$(comm -23 "$tmp/declared" "$tmp/exported")
	[ -z "$leaked$extra$missing" ] && return 0
	[ -n "$leaked" ] && echo "not ccore_*:" $leaked
	[ -n "$extra" ] && echo "not in the public headers:" $extra
	[ -n "$missing" ] && echo "declared but not exported:" $missing
	return 1
}

decl=$(wc -l <"$tmp/declared")
if [ "$decl" -gt 50 ] && grep -qx ccore_get_version "$tmp/declared"; then
	ok "the public headers declare $decl functions, ccore_get_version among them"
else
	not_ok "the public headers declare the API" "found $decl:" "$(cat "$tmp/declared")"
fi

if why=$(only_public "$so" -D); then
	ok "libccore.so exports exactly the $decl public functions"
else
	not_ok "libccore.so exports exactly the public functions" "$why"
fi
if why=$(only_public "$build/lib/libccore.a" -g); then
	ok "libccore.a defines exactly the $decl public functions as globals"
else
	not_ok "libccore.a defines exactly the public functions as globals" "$why"
fi
nodes=$(nm -D --defined-only "$so" | awk '$3 ~ /^ccore_/ { sub(/.*@@?/, "", $3); print $3 }' | sort -u)
[ "$nodes" = "$(printf 'ccore_0\nccore_0.4')" ] && ok "every export is of version node ccore_0 or ccore_0.4" ||
	not_ok "every export is of version node ccore_0 or ccore_0.4" "nodes: $nodes"
# the functions added in 0.4 are at its node, so a program using them fails
# to load on a 0.3 library instead of failing at the call
at04=$(nm -D --defined-only "$so" | awk '$3 ~ /@@ccore_0\.4$/ { sub(/@.*/, "", $3); print $3 }' | sort | tr '\n' ' ')
want04="ccore_comm_init_rank ccore_comm_init_ranks ccore_comm_split_rank ccore_get_unique_id "
[ "$at04" = "$want04" ] && ok "ccore_0.4 holds the functions 0.4 added: $at04" ||
	not_ok "ccore_0.4 holds the functions 0.4 added" "found: $at04" "want: $want04"

soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libccore.so.$major" ] && ok "SONAME libccore.so.$major" ||
	not_ok "SONAME libccore.so.$major" "SONAME: '$soname'"
links="$(readlink "$so") $(readlink "$build/lib/libccore.so.$major")"
[ "$links" = "libccore.so.$major libccore.so.$version" ] && [ -f "$build/lib/libccore.so.$version" ] &&
	ok "libccore.so -> libccore.so.$major -> libccore.so.$version" ||
	not_ok "libccore.so -> libccore.so.$major -> libccore.so.$version" "links: $links"
# the library says what links it: libdrm (ccore.pc's Requires.private)
needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
case "$needed" in
*libdrm.so*) ok "libccore.so needs libdrm ($needed)" ;;
*) not_ok "libccore.so needs libdrm" "NEEDED: $needed" ;;
esac

# The check catches a leak: a library exporting one internal name fails it.
cat >"$tmp/leak.c" <<'LEAK'
#include "ccore.h"
int ccore_get_version(int *version) { *version = CCORE_VERSION_CODE; return 0; }
int log_init(void);
int log_init(void) { return 0; }
LEAK
if ${CC:-cc} -shared -fPIC -I"$root/runtime/include" "$tmp/leak.c" -o "$tmp/libleak.so" 2>"$tmp/cc.err"; then
	if why=$(only_public "$tmp/libleak.so" -D); then
		not_ok "a library exporting log_init fails the check" "it passed"
	else
		case "$why" in
		*"not ccore_*: log_init"*) ok "a library exporting log_init fails the check, naming it" ;;
		*) not_ok "a library exporting log_init fails the check, naming it" "$why" ;;
		esac
	fi
else
	not_ok "a library exporting log_init fails the check" "$(cat "$tmp/cc.err")"
fi

# --version on every tool: "NAME (ccore) VERSION"
for tool in "$build"/bin/ccore-*; do
	name=$(basename "$tool")
	out=$("$tool" --version 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] && [ "$out" = "$name (ccore) $version" ] && ok "$name --version: $out" ||
		not_ok "$name --version prints '$name (ccore) $version'" "exit $rc, output: $out"
done

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
