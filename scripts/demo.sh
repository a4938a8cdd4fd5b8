#!/bin/sh
# make demo: a busybox bundle under build/demo, confined by clasp, printing
# what the container shows about itself. Runs as root.
set -eu
clasp=${1:?usage: demo.sh CLASP DIR}
dir=${2:?usage: demo.sh CLASP DIR}
here=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" != 0 ]; then
	echo "make demo: run as root (sudo make demo)" >&2
	exit 1
fi
rm -rf "$dir"
mkdir -p "$dir"
"$here/tests/fixtures/make-rootfs.sh" "$dir/rootfs"
"$clasp" spec --bundle "$dir"
# The default spec runs an interactive shell on a terminal; the demo runs a
# script without one instead.
cat >"$dir/rootfs/demo.sh" <<'SCRIPT'
echo "== inside a clasp container"
echo "hostname:      $(hostname)"
echo "id:            $(id)"
echo "pid of init:   $$"
echo "processes:     $(ps -o pid= | wc -l) visible"
grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status
echo "root mount:    $(awk '$5 == "/" {print $6}' /proc/self/mountinfo)"
echo "network:       $(ls /sys/class/net | tr '\n' ' ')"
if touch /probe 2>/dev/null; then echo "rootfs:        writable"; else echo "rootfs:        read-only"; fi
SCRIPT
sed -i -e 's/"terminal": true/"terminal": false/' \
	-e 's|"sh"$|"sh", "/demo.sh"|' \
	-e 's/"readonly": false/"readonly": true/' "$dir/config.json"
id="clasp-demo-$$"
echo "== clasp run -b $dir $id"
"$clasp" run -b "$dir" "$id"
