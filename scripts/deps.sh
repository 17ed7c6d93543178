#!/bin/sh
# Install the Debian packages a make target needs, only those missing.
# Usage: scripts/deps.sh PACKAGE...
set -eu
missing=""
for pkg in "$@"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $pkg"
	fi
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "deps: need root (or sudo) to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
