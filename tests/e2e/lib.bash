# lib.bash: helpers shared by the e2e suites (podman.bats, containerd.bats).
#
# The suites drive the real clients against build/clasp. E2E_RUNTIME=runc (or crun) runs the very
# same scenarios with that runtime instead, to tell a clasp bug from a limit of this machine;
# the scenarios that only clasp can pass (its annotations, its messages) are skipped then.

E2E_REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
E2E_RUNTIME=${E2E_RUNTIME:-clasp}

# The runtime under test: $CLASP (the Makefile exports it) or build/clasp, or the named runtime
# from PATH.
e2e_runtime_path() {
  case "$E2E_RUNTIME" in
    clasp) echo "${CLASP:-$E2E_REPO/build/clasp}" ;;
    *) command -v "$E2E_RUNTIME" ;;
  esac
}

# clasp_only: for scenarios about clasp's own features (annotations, its error texts).
clasp_only() {
  [ "$E2E_RUNTIME" = clasp ] || skip "clasp-only scenario (E2E_RUNTIME=$E2E_RUNTIME)"
}

# bats 1.8 (Debian 12) cannot `skip` from setup_file, so a suite that cannot run records why
# (e2e_skip_file, then setup_file returns 0) and every test's setup() skips with that message.
e2e_skip_file() {
  export E2E_SKIP_REASON="$1"
  return 1
}
e2e_skip_if_needed() {
  [ -z "${E2E_SKIP_REASON:-}" ] || skip "$E2E_SKIP_REASON"
}

# e2e_require_root: podman and containerd run rootful here (rootless is another issue's suite).
e2e_require_root() {
  [ "$(id -u)" = 0 ] || e2e_skip_file "the e2e suites drive rootful podman/containerd: run them as root"
}

# e2e_require CMD PACKAGE: make sure CMD exists, installing Debian's PACKAGE with apt-get when it
# is missing; skip the whole file (call it from setup_file) only when the package cannot be had.
e2e_require() {
  local cmd=$1 pkg=$2 out
  command -v "$cmd" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    out=$(DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y "$pkg" 2>&1) ||
      out=$( (DEBIAN_FRONTEND=noninteractive timeout 300 apt-get update &&
              DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y "$pkg") 2>&1)
  fi
  command -v "$cmd" >/dev/null 2>&1 && return 0
  e2e_skip_file "$pkg is not installed and could not be installed (apt-get install -y $pkg: $(printf '%s' "${out:-not root or no apt-get}" | tail -n1))"
}

# e2e_require_clasp: the suites test the built binary; build it once if needed.
e2e_require_clasp() {
  [ "$E2E_RUNTIME" = clasp ] || { e2e_runtime_path >/dev/null || e2e_skip_file "$E2E_RUNTIME not found"; return; }
  [ -x "$(e2e_runtime_path)" ] || make -C "$E2E_REPO" all >/dev/null
  [ -x "$(e2e_runtime_path)" ] || { echo "$(e2e_runtime_path) could not be built" >&2; return 1; }
}

# make_recording_runtime DIR REAL LOG: write DIR/clasp, a wrapper that appends each call's argv
# (and the resources JSON of `update`, from stdin or from the file) to LOG, then runs REAL with the same
# arguments. It is named clasp because podman only passes --log-format=json to runtimes whose
# basename containers.conf lists in runtime_supports_json.
make_recording_runtime() {
  local dir=$1 real=$2 log=$3
  mkdir -p "$dir"
  cat >"$dir/clasp" <<EOF
#!/bin/sh
log='$log' real='$real'
printf '%s' "\$*" >>"\$log"; echo >>"\$log"
prev=
for a in "\$@"; do
  if [ "\$a" = --resources=- ] || { [ "\$prev" = --resources ] && [ "\$a" = - ]; }; then
    in=\$(cat); printf '  stdin: %s\n' "\$in" >>"\$log"
    printf '%s' "\$in" | exec "\$real" "\$@"
  fi
  case "\$a" in --resources=?*) printf '  file: %s\n' "\$(cat "\${a#--resources=}")" >>"\$log" ;; esac
  prev=\$a
done
exec "\$real" "\$@"
EOF
  chmod 0755 "$dir/clasp"
}

# in_tty CMD...: run CMD with a pseudo-terminal as its stdin/stdout (script(1)), returning its
# status. The output has CRLF line ends; strip_cr removes them. script's own stdin is a pipe
# that stays open (not /dev/null): on EOF script would pass ^D to the client, which may then
# stop relaying the container's output before it has all arrived.
in_tty() {
  local cmd="" a fd pid rc=0
  for a in "$@"; do cmd+=" $(printf '%q' "$a")"; done
  exec {fd}< <(exec sleep 120)
  pid=$!
  script -qefc "$cmd" /dev/null <&"$fd" || rc=$?
  exec {fd}<&-
  kill "$pid" 2>/dev/null
  return "$rc"
}
strip_cr() { tr -d '\r'; }

# wait_until TIMEOUT_SECONDS CMD...: poll CMD every 0.1s until it succeeds.
wait_until() {
  local limit=$(( $1 * 10 )) i=0
  shift
  until "$@" >/dev/null 2>&1; do
    i=$((i + 1))
    [ "$i" -ge "$limit" ] && return 1
    sleep 0.1
  done
}

# umount_under DIR: unmount whatever is still mounted below DIR (our own mounts only), deepest first.
umount_under() {
  local dir=$1 m
  for m in $(awk -v d="$dir" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

# runtime_delete_under DIR [ROOT]: podman passes no --root, so its containers' state lives in the
# runtime's default root; force-delete every container there whose bundle lies under DIR (this
# suite's private podman storage), so an interrupted run leaves nothing in /run/clasp.
runtime_delete_under() {
  local dir=$1 root=${2:-/run/clasp} rt id
  rt=$(e2e_runtime_path)
  [ -x "$rt" ] && [ -d "$root" ] || return 0
  for id in $("$rt" --root "$root" list --format json 2>/dev/null |
      jq -r --arg d "$dir/" '.[]? | select(.bundle | startswith($d)) | .id'); do
    timeout 20 "$rt" --root "$root" delete --force "$id" >/dev/null 2>&1 || true
  done
}

# rmdir_empty_cgroups NAME: remove the empty cgroup directories called NAME (and their empty
# children, deepest first) that a client created below the cgroup roots: podman's libpod_parent
# and its conmon group. rmdir fails harmlessly on a group that still has members.
rmdir_empty_cgroups() {
  local d
  for d in /sys/fs/cgroup/"$1" /sys/fs/cgroup/*/"$1"; do
    [ -d "$d" ] || continue
    find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null || true
  done
}
