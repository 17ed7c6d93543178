#!/bin/sh
# Install ccore into the root file system of a syzkaller VM image (the
# directory tools/create-image.sh of syzkaller builds, or the image mounted):
# the Debian kernel's modules, ccore.ko, its firmware, loading at boot and
# a service that creates the fabrics the descriptions expect (IDs 0 and 1,
# two devices each: /dev/accel/accel0..3), before sshd lets syzkaller in.
#
# Usage: tools/syzkaller/install-into-image.sh [OPTIONS] ROOT
#
#   --kver RELEASE    kernel the VM boots (default: the release
#                     build/driver/ccore.ko was built for)
#   --module FILE     the module (default: build/driver/ccore.ko)
#   --firmware DIR    firmware tree holding ccore/ (default: build/firmware)
#   --fabric "ID N"   a fabric to create at boot instead of "0 2" and "1 2"
#                     (repeatable; also takes new_device options)
#   -h, --help        this text
#
# Needs write access to ROOT (run it as root for a mounted image) and the
# kernel's modules in /lib/modules/RELEASE on this host unless ROOT has them
# (scripts/kernel-deps.sh installs that kernel here).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
module="$top/build/driver/ccore.ko"
firmware="$top/build/firmware"
kver=""
fabrics=""
root=""

usage() { sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "install-into-image: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case "$1" in
	--kver) kver=${2:?--kver needs a release}; shift ;;
	--module) module=${2:?--module needs a file}; shift ;;
	--firmware) firmware=${2:?--firmware needs a directory}; shift ;;
	--fabric)
		echo "${2:?--fabric needs \"ID NUM_DEVICES\"}" | grep -Eq '^[0-9]+ [0-9]+( [^ ]+)?$' ||
			die "--fabric '$2': expected \"ID NUM_DEVICES [key=value,...]\""
		fabrics="$fabrics${fabrics:+;}$2"; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) [ -z "$root" ] || die "unexpected argument '$1' (ROOT is '$root')"; root=$1 ;;
	esac
	shift
done
[ -n "$root" ] || { usage >&2; die "expected the image's ROOT directory"; }
[ -d "$root/etc" ] || die "$root: not a root file system (no etc/)"
[ -f "$module" ] || die "$module: no such module (build it: make driver)"
[ -f "$firmware/ccore/dispatcher.bin" ] ||
	die "$firmware/ccore/dispatcher.bin: missing (build it: make)"
if [ -z "$kver" ]; then
	kver=$(modinfo -F vermagic "$module" | cut -d' ' -f1)
	[ -n "$kver" ] || die "$module: no vermagic; give --kver"
fi
[ -n "$fabrics" ] || fabrics="0 2;1 2"

mods="$root/lib/modules/$kver"
if [ ! -d "$mods/kernel" ]; then
	[ -d "/lib/modules/$kver/kernel" ] ||
		die "/lib/modules/$kver: not on this host; install linux-image-$kver"
	mkdir -p "$root/lib/modules"
	cp -a "/lib/modules/$kver" "$root/lib/modules/"
	rm -f "$mods/build" "$mods/source"
fi
install -D -m 644 "$module" "$mods/extra/ccore.ko"
depmod -b "$root" "$kver"
install -D -m 644 "$firmware/ccore/dispatcher.bin" "$root/lib/firmware/ccore/dispatcher.bin"
mkdir -p "$root/etc/modules-load.d" "$root/etc/systemd/system/multi-user.target.wants"
echo ccore >"$root/etc/modules-load.d/ccore.conf"

creates=$(echo "$fabrics" | tr ';' '\n' | sed 's|.*|echo "&" >/sys/bus/ccore_sim/new_device|' |
	paste -sd';' | sed 's/;/ \&\& /g')
cat >"$root/etc/systemd/system/ccore-fabrics.service" <<EOF
[Unit]
Description=ccore simulated fabrics for fuzzing
After=systemd-modules-load.service
Before=ssh.service

[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/bin/sh -c '$creates'

[Install]
WantedBy=multi-user.target
EOF
ln -sf ../ccore-fabrics.service "$root/etc/systemd/system/multi-user.target.wants/"
echo "install-into-image: $root: ccore.ko for $kver, firmware," \
	"fabrics: $(echo "$fabrics" | sed 's/;/, /g')"
