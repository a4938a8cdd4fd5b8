#!/bin/bash
# lifecycle.sh [N]: `run` and create+start+wait+delete of busybox /bin/true by
# clasp side by side with runc, crun and the floors, in one run of the shared
# harness (../shared/bench/compare.sh, as its README intends: compare.sh
# /path/to/clasp). Then, unless SECCOMP=0, `run` with podman's default seccomp
# profile (tests/fixtures/podman-seccomp-oci.json), again in one run: clasp
# (warm cache), clasp-cold (cache emptied before every container),
# clasp-hot (the same wrapper exec without emptying), runc, crun, floor-cm.
# Results go into docs/performance.md by hand; nothing here passes or fails.
#
# Env: CLASP (default build/clasp; snapshotted into build/bench so that a
#      rebuild during the run cannot change it), BENCH (default ../shared/bench),
#      ROUNDS (compare.sh's, default 20), SECCOMP=0 to skip the second run,
#      DEFAULT=0 to skip the first. Needs root.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
N=${1:-200}
BENCH=${BENCH:-$top/../shared/bench}
CLASP=$(readlink -f "${CLASP:-$top/build/clasp}")
[ -x "$BENCH/compare.sh" ] || { echo "lifecycle.sh: no $BENCH/compare.sh" >&2; exit 1; }
[ -x "$CLASP" ] || { echo "lifecycle.sh: no $CLASP (run make)" >&2; exit 1; }

out=$top/build/bench
mkdir -p "$out"
cp "$CLASP" "$out/clasp"
for m in cold:1 hot:0; do
  cc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE \
    -DCOLD="${m#*:}" -DCLASP_PATH="\"$out/clasp\"" -o "$out/clasp-${m%%:*}" "$top/tests/bench/cachewrap.c"
done
echo "clasp: $CLASP ($(stat -c %s "$CLASP") bytes), $(date -u +%FT%TZ), $(uname -r), $(nproc) cpus"

if [ "${DEFAULT:-1}" = 1 ]; then
  echo "=== default config (runc spec), run and cycle"
  "$BENCH/compare.sh" "$out/clasp" "$N"
fi

if [ "${SECCOMP:-1}" = 1 ]; then
  work=$(mktemp -d /tmp/clasp-lifecycle.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && runc spec)
  jq --slurpfile s "$top/tests/fixtures/podman-seccomp-oci.json" '.linux.seccomp = $s[0]' \
    "$work/config.json" >"$work/seccomp.json"
  echo
  echo "=== podman's seccomp profile, run only (clasp = warm cache after its first container)"
  CONFIG=$work/seccomp.json REFS="runc crun $out/clasp-cold $out/clasp-hot" FLOORS="floor-cm" MODES=run \
    "$BENCH/compare.sh" "$out/clasp" "$N"
fi
