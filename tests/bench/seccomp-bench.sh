#!/bin/bash
# seccomp-bench.sh [N]: the cost of seccomp setup with podman's default profile.
#  1. clasp's library alone (tests/bench/seccomp_bench.c, N iterations, default 200):
#     seccomp_prepare() without cache, cold cache, warm cache, and the seccomp(2) load.
#  2. unless RUNTIMES="" : `run` of busybox /bin/true by runc and crun (and CLASP=path
#     if set) with the same config without and with the profile, through
#     /work/shared/bench/compare.sh-style harness ($BENCH, default ../../../shared/bench),
#     N containers per runtime; the difference of the medians is the seccomp cost.
# Needs root for part 2; the profile comes from tests/bench/seccomp-profile-to-oci.sh
# (Debian package golang-github-containers-common provides podman's seccomp.json).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
N=${1:-200}
work=$(mktemp -d /tmp/clasp-seccomp-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

profile=$work/podman-seccomp-oci.json
if [ -r /usr/share/containers/seccomp.json ]; then
  "$here/seccomp-profile-to-oci.sh" >"$profile"
else
  cp "$top/tests/fixtures/podman-seccomp-oci.json" "$profile"
fi

cd "$top"
make -s build/libclasp.a
cc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -D_GNU_SOURCE -Isrc \
  $(pkg-config --cflags yajl libseccomp 2>/dev/null) -o "$work/seccomp_bench" \
  tests/bench/seccomp_bench.c build/libclasp.a -lyajl -lseccomp -lcap
echo "== clasp library: seccomp setup for podman's default profile"
"$work/seccomp_bench" "$profile" "$N"

RUNTIMES=${RUNTIMES-runc crun}
[ -n "$RUNTIMES" ] || exit 0
BENCH=${BENCH:-$top/../shared/bench}
[ -x "$BENCH/compare.sh" ] || { echo "no $BENCH/compare.sh; skipping the runtime comparison" >&2; exit 0; }
set -- $RUNTIMES ${CLASP:+$CLASP}
A=$1; shift
(cd "$work" && runc spec && mv config.json plain.json)
jq --slurpfile s "$profile" '.linux.seccomp = $s[0]' "$work/plain.json" >"$work/seccomp.json"
for c in plain seccomp; do
  echo "== run /bin/true, config: $c"
  CONFIG=$work/$c.json REFS="$*" FLOORS= MODES=run ROUNDS=10 "$BENCH/compare.sh" "$A" "$N" 2>&1 |
    grep -v '^#' | sed -n '/^runtime/,/^$/p'
done
