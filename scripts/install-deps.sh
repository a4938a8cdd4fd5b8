#!/bin/sh
# Install what clasp needs to build and test, when missing. Only on Debian or
# Ubuntu, and only as root; elsewhere say what is missing and go on.
# Usage: scripts/install-deps.sh [build|test|demo]
set -eu
what=${1:-test}

pkgs="gcc make pkg-config libyajl-dev libseccomp-dev libcap-dev"
case "$what" in
test) pkgs="$pkgs bats busybox-static jq curl iproute2 util-linux procps clang libclang-rt-14-dev cppcheck clang-tidy valgrind perl" ;;
demo) pkgs="$pkgs busybox-static jq" ;;
esac

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
	echo "clasp: missing packages:$missing (install them, or run this as root on Debian/Ubuntu)" >&2
	exit 1
fi
echo "clasp: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A stale package list on a fresh machine makes installs fail: refresh once.
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
