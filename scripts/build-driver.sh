#!/bin/bash
# Build ccore.ko against Debian's 6.12 kernel headers.
#
# The top-level Kbuild is the build; Kbuild writes objects next to their
# sources, so this builds it in a staging directory (build/kmod) that
# mirrors the repository with symlinks (Kbuild, driver/, model/, uapi/):
# the source tree stays clean.  The result is copied to build/driver/.
# (From the repository root, `make -C /lib/modules/RELEASE/build M=$PWD
# modules` builds the same module in place.)
#
#   scripts/build-driver.sh [--sparse] [--kver RELEASE] [--print-kdir]
set -euo pipefail

usage() {
	cat <<'USAGE'
Usage: scripts/build-driver.sh [--sparse] [--kver RELEASE] [--print-kdir]

Build build/driver/ccore.ko against /lib/modules/RELEASE/build (default:
the newest installed 6.12 Debian kernel headers).

  --sparse        also run sparse on every source (make C=2); any report
                  fails the build
  --kver RELEASE  kernel release to build for
  --print-kdir    print the kernel build directory it would use and stop
                  (for `make -C DIR M=$PWD modules` from the repository root)
  -h, --help      this text
USAGE
}

root=$(cd "$(dirname "$0")/.." && pwd)
sparse=0
kver=
print_kdir=0
while [ $# -gt 0 ]; do
	case "$1" in
	--sparse) sparse=1 ;;
	--kver) kver=${2:?--kver needs a release}; shift ;;
	--print-kdir) print_kdir=1 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "build-driver.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
if [ -z "$kver" ]; then
	kver=$(ls -d /lib/modules/6.12.*/build 2>/dev/null | sort -V | tail -1 | cut -d/ -f4)
fi
kdir=/lib/modules/$kver/build
if [ -z "$kver" ] || [ ! -d "$kdir" ]; then
	echo "build-driver.sh: no 6.12 kernel headers in /lib/modules (run scripts/kernel-deps.sh)" >&2
	exit 1
fi
if [ "$print_kdir" = 1 ]; then
	echo "$kdir"
	exit 0
fi

stage=$root/build/kmod
mkdir -p "$stage/driver" "$stage/model" "$stage/uapi/drm" "$stage/uapi/linux" "$root/build/driver"
# stale links of removed sources would still be compiled: rebuild the links
find "$stage" -type l -delete
ln -s "$root/Kbuild" "$stage/Kbuild"
for f in "$root"/driver/*.[ch]; do ln -s "$f" "$stage/driver/"; done
for f in "$root"/model/*.[ch]; do ln -s "$f" "$stage/model/"; done
ln -s "$root/uapi/drm/ccore_accel.h" "$stage/uapi/drm/"
ln -s "$root/uapi/linux/ccore_genl.h" "$stage/uapi/linux/"

log=$stage/build.log
args=(-C "$kdir" M="$stage" W=1 modules)
[ "$sparse" = 1 ] && args+=(C=2 CHECK=sparse)
if ! make -j"$(nproc)" "${args[@]}" >"$log" 2>&1; then
	cat "$log" >&2
	exit 1
fi
# W=1 warnings and sparse reports are failures too
if grep -E 'warning:|error:' "$log" >&2; then
	echo "build-driver.sh: the build above reported warnings" >&2
	exit 1
fi
cp "$stage/ccore.ko" "$root/build/driver/ccore.ko"
echo "build-driver.sh: build/driver/ccore.ko for $kver"
