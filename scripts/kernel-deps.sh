#!/bin/bash
# Install what building and testing the kernel driver needs, only what is
# missing, and print the kernel release to build against and boot.
#
# Usage: scripts/kernel-deps.sh               install if needed; the last
#                                             stdout line is the release
#        scripts/kernel-deps.sh --print-kver  print the release of the newest
#                                             installed 6.12 image that has
#                                             its headers; install nothing
#
# The target kernel is Debian bookworm's 6.12 (linux-image-6.12.*+deb12-amd64,
# the normal signed flavour) with exactly matching headers. Debian security
# updates bump its ABI number (6.12.115 -> 6.12.117 ...) and drop old ones from
# the archive, so the version is chosen from what apt offers, never hardcoded.
#
# Also extracts the few files of the kernel source tree the project uses
# (checkpatch and the kselftest harness headers) into build/linux-src/.
#
# Everything but the release goes to stderr, so KVER=$(scripts/kernel-deps.sh)
# works. Nothing touches the network when everything is already there.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
src_out="$here/build/linux-src"
src_tarball=/usr/src/linux-source-6.12.tar.xz

tools=(qemu-system-x86 busybox-static cpio kmod sparse linux-source-6.12
       libdrm-dev libnl-genl-3-dev python3-yaml python3-jsonschema python3-docutils)

# Only the normal flavour: -rt, -cloud, -dbg and -unsigned never match.
image_re='^linux-image-6\.12\.[0-9]+\+deb12-amd64$'

src_files=(scripts/checkpatch.pl scripts/spelling.txt
           scripts/const_structs.checkpatch
           tools/testing/selftests/kselftest_harness.h
           tools/testing/selftests/kselftest.h)

log() { echo "kernel-deps: $*" >&2; }

# Command substitution rather than "| grep -q": an early grep exit would
# SIGPIPE the producer, which pipefail reports as failure.
installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# Releases (e.g. 6.12.117+deb12-amd64) of installed images whose headers
# are installed too, newest first. Both must be there: a module built
# against one release does not load into another.
# dpkg-query exits 1 when no package matches (a machine without any 6.12
# image yet); that is an empty list, not a failure of the pipeline.
installed_kvers() {
	{ dpkg-query -W -f='${Package} ${Status}\n' 'linux-image-6.12.*' 2>/dev/null || true; } |
		awk '$NF == "installed" && $2 == "install" { print $1 }' |
		{ grep -E "$image_re" || true; } | sed 's/^linux-image-//' | sort -rV |
		while read -r k; do
			if installed "linux-headers-$k"; then echo "$k"; fi
		done
}

# Newest release whose image and headers both have an install candidate.
# apt-cache pkgnames also lists names only mentioned by other packages
# (old ABIs already gone from the archive), hence the candidate check.
newest_available_kver() {
	apt-cache pkgnames linux-image-6.12. | { grep -E "$image_re" || true; } |
		sed 's/^linux-image-//' | sort -rV |
		while read -r k; do
			if has_candidate "linux-image-$k" && has_candidate "linux-headers-$k"; then
				echo "$k"
				break
			fi
		done
}

has_candidate() {
	local c
	c=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	[ -n "$c" ] && [ "$c" != "(none)" ]
}

if [ "${1:-}" = "--print-kver" ]; then
	# The same choice as below, so that the module is built for the kernel
	# that selftests/qemu/run.sh boots.
	k=$(installed_kvers | head -n 1)
	if [ -z "$k" ]; then
		log "no linux-image-6.12.*+deb12-amd64 with its headers installed; run scripts/kernel-deps.sh"
		exit 1
	fi
	echo "$k"
	exit 0
elif [ $# -gt 0 ]; then
	usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
	if [ "$1" = "--help" ] || [ "$1" = "-h" ]; then
		usage
		exit 0
	fi
	usage >&2
	log "unknown option '$1'"
	exit 2
fi

missing=()
for p in "${tools[@]}"; do
	installed "$p" || missing+=("$p")
done

kver=$(installed_kvers | head -n 1)

if [ ${#missing[@]} -gt 0 ] || [ -z "$kver" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		sudo=()
	elif command -v sudo >/dev/null 2>&1; then
		sudo=(sudo)
	else
		log "need root (or sudo) to install packages"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	# Another make target may be running apt at the same time: wait for the
	# dpkg lock rather than failing on it.
	apt_opts=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
	log "apt-get update"
	"${sudo[@]}" apt-get "${apt_opts[@]}" update -qq >&2
	if [ -z "$kver" ]; then
		kver=$(newest_available_kver)
		if [ -z "$kver" ]; then
			log "apt offers no linux-image-6.12.*+deb12-amd64 with matching headers"
			exit 1
		fi
		missing+=("linux-image-$kver" "linux-headers-$kver")
	fi
	log "installing ${missing[*]}"
	# No recommends: they would pull in apparmor, X libraries for QEMU, ...
	"${sudo[@]}" apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends \
		"${missing[@]}" >&2
fi

# The kernel source package ships one big tarball; take out only the files
# we use. tar has to decompress up to each member anyway, so this is done
# once and skipped while the files are there.
need_src=0
for f in "${src_files[@]}"; do
	[ -s "$src_out/$f" ] || need_src=1
done
if [ "$need_src" -eq 1 ]; then
	log "extracting ${src_files[*]} from $src_tarball"
	mkdir -p "$here/build"
	tmp=$(mktemp -d "$here/build/.linux-src.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# The tarball's top directory is linux-source-6.12/; strip it.
	members=()
	for f in "${src_files[@]}"; do members+=("linux-source-6.12/$f"); done
	tar -xJf "$src_tarball" -C "$tmp" --strip-components=1 "${members[@]}"
	mkdir -p "$src_out"
	chmod 755 "$tmp"
	cp -a "$tmp/." "$src_out/"
fi

echo "$kver"
