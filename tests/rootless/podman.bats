#!/usr/bin/env bats
# podman.bats: rootless podman (Debian's 4.3, through conmon) with clasp as its OCI runtime, run
# by the suite's unprivileged test user: storage in the user's home (vfs, the driver rootless podman
# uses without fuse-overlayfs), the runroot in /run/user/UID, the cgroupfs manager, no network, and
# a local image imported from a busybox rootfs tarball (tests/e2e/images.sh). bats runs as root only
# to create and remove the user; every podman command runs as that user.
#   CLASP=$PWD/build/clasp bats tests/rootless/podman.bats

load helpers
load ../e2e/lib
bats_require_minimum_version 1.5.0

BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-120}
IMG=localhost/clasp-rootless/busybox:latest

# pm ARGS...: podman as the test user, with clasp as the runtime (its basename is what
# runtime_supports_json matches, so podman decodes clasp's JSON error log).
pm() { RT_TIMEOUT=90 as_user podman --runtime "$RUNTIME" "$@" </dev/null; }

# prun ARGS...: a throwaway container on no network.
prun() { pm run --rm --network=none "$@"; }

# pm_state_is NAME STATE: the container's podman status is STATE.
pm_state_is() { [ "$(pm inspect -f '{{.State.Status}}' "$1" 2>/dev/null)" = "$2" ]; }

# NETDEVS: the shell snippet printing the process's network interfaces, one a line. From
# /proc/net/dev, which follows the process's network namespace: rootless podman binds the host's
# /sys, whose class/net still lists the host's interfaces.
NETDEVS='tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "'

setup_file() {
  [ "$(id -u)" = 0 ] || { e2e_skip_file "the rootless suite runs as root to create its test user"; return 0; }
  e2e_require podman podman && e2e_require conmon conmon && e2e_require newuidmap uidmap &&
    e2e_require_clasp || return 0
  rl_setup_file
  local home=/home/$RL_USER
  mkdir -p "$home/.config/containers"
  # Storage under the user's home and runroot; vfs works in any user namespace (overlay would
  # need fuse-overlayfs and /dev/fuse).
  cat >"$home/.config/containers/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$home/.local/share/containers/storage"
runroot = "$RL_RUN/containers"
EOF
  # No default ulimits: the user cannot raise its hard limits. No network anywhere by default.
  cat >"$home/.config/containers/containers.conf" <<EOF
[containers]
netns = "none"
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime_supports_json = ["clasp", "runc", "crun"]
EOF
  chown -R "$RL_USER:" "$home/.config"
  local tar
  tar=$(sh "$BATS_TEST_DIRNAME/../e2e/images.sh" rootfs-tar "$RL_DIR/img")
  chmod -R a+rX "$RL_DIR/img"
  pm import -q "$tar" "$IMG" >/dev/null
  export IMG
}

teardown_file() {
  [ -n "${RL_USER:-}" ] || return 0
  pm rm -af -t 0 >/dev/null 2>&1 || true
  pm system reset -f >/dev/null 2>&1 || true
  # rl_teardown_file kills what is left of the user's processes (podman's pause process) and
  # removes the user with its home (the storage), its /run/user/UID and the suite's directory.
  rl_teardown_file
}

setup() { e2e_skip_if_needed; }

teardown() {
  [ -n "${RL_USER:-}" ] || return 0
  pm rm -af -t 0 >/dev/null 2>&1 || true
}

@test "rootless podman: the storage is the user's and the runtime is clasp" {
  run --separate-stderr pm info --format '{{.Host.Security.Rootless}} {{.Store.GraphDriverName}} {{.Store.GraphRoot}} {{.Host.CgroupManager}}'
  [ "$status" -eq 0 ]
  [ "$output" = "true vfs /home/$RL_USER/.local/share/containers/storage cgroupfs" ]
  run --separate-stderr pm run -d --network=none "$IMG" true
  [ "$status" -eq 0 ]
  run --separate-stderr pm inspect -f '{{.OCIRuntime}}' "$output"
  [ "$output" = "$RUNTIME" ] || [ "$output" = clasp ]
}

@test "rootless podman run: output and exit status" {
  run --separate-stderr prun "$IMG" sh -c 'echo hello from $(cat /proc/1/comm); exit 0'
  echo "$output $stderr"
  [ "$status" -eq 0 ]
  [ "$output" = "hello from sh" ]
  run prun "$IMG" sh -c 'echo to-stderr >&2; exit 7'
  [ "$status" -eq 7 ]
  [[ "$output" == *to-stderr* ]]
  run -127 prun "$IMG" nosuchcmd
  [[ "$output" == *nosuchcmd* ]]
}

@test "rootless podman run -d, logs, inspect" {
  run --separate-stderr pm run -d --name logs1 --network=none "$IMG" sh -c 'echo out-line; echo err-line >&2; exit 3'
  echo "$output $stderr"
  [ "$status" -eq 0 ]
  wait_until 30 pm_state_is logs1 exited
  run pm logs logs1
  [ "$status" -eq 0 ]
  [[ "$output" == *out-line* ]]
  [[ "$output" == *err-line* ]]
  run --separate-stderr pm inspect -f '{{.State.ExitCode}}' logs1
  [ "$output" = 3 ]
}

@test "rootless podman exec: runs in the container, with exit status" {
  run --separate-stderr pm run -d --name ex1 --network=none "$IMG" sleep 300
  [ "$status" -eq 0 ]
  run --separate-stderr pm exec ex1 sh -c 'echo in-exec; tr "\0" " " </proc/1/cmdline; echo; id -u'
  echo "$output $stderr"
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = in-exec ]
  [ "${lines[1]}" = "sleep 300 " ]
  [ "${lines[2]}" = 0 ]
  run pm exec ex1 sh -c 'exit 5'
  [ "$status" -eq 5 ]
}

@test "rootless podman stop and rm" {
  # sleep as pid 1 ignores SIGTERM: stop falls back to SIGKILL after the timeout.
  run --separate-stderr pm run -d --name st1 --network=none "$IMG" sleep 300
  [ "$status" -eq 0 ]
  run --separate-stderr pm stop -t 2 st1
  echo "$output $stderr"
  [ "$status" -eq 0 ]
  run --separate-stderr pm inspect -f '{{.State.Status}}' st1
  [ "$output" = exited ]
  # A shell that handles SIGTERM stops at once, with its own status.
  run --separate-stderr pm run -d --name st2 --network=none "$IMG" sh -c 'trap "exit 9" TERM; while :; do sleep 0.1; done'
  [ "$status" -eq 0 ]
  run --separate-stderr pm stop -t 20 st2
  [ "$status" -eq 0 ]
  run --separate-stderr pm inspect -f '{{.State.ExitCode}}' st2
  [ "$output" = 9 ]
  run --separate-stderr pm rm st1 st2
  [ "$status" -eq 0 ]
  run pm inspect st1
  [ "$status" -ne 0 ]
  # Nothing of clasp's state is left behind for removed containers.
  run --separate-stderr pm ps -aq
  [ -z "$output" ]
}

@test "rootless podman --annotation fs.scope=workspace: workspace writable, host canary unreadable" {
  local ws=$RL_DIR/ws canary=$RL_DIR/canary
  mkdir -p "$ws" "$canary"
  echo top-secret >"$canary/secret"
  chown -R "$RL_USER:" "$ws" "$canary"
  # The canary is readable by the user on the host: only the sandbox keeps it out.
  [ "$(as_user cat "$canary/secret")" = top-secret ]
  local A=(--annotation ing.paperclip.fs.scope=workspace --annotation "ing.paperclip.fs.workspace=$ws"
           --annotation ing.paperclip.fs.workspace-target=/workspace)
  run prun "${A[@]}" "$IMG" sh -c "echo from-agent >/workspace/out; touch /rootfile 2>&1; cat $canary/secret 2>&1; head -1 /etc/hosts; true"
  echo "$output"
  [ "$status" -eq 0 ]
  [ "$(cat "$ws/out")" = from-agent ]
  [ "$(stat -c %U "$ws/out")" = "$RL_USER" ]
  [[ "$output" == *"/rootfile: Read-only file system"* ]]
  [[ "$output" == *"No such file or directory"* ]]
  [[ "$output" == *localhost* ]]     # podman's own /etc/hosts (its userdata dir) is let through
  [[ "$output" != *top-secret* ]]
  # exec enters the same confinement.
  run --separate-stderr pm run -d --name sb1 --network=none "${A[@]}" "$IMG" sleep 300
  [ "$status" -eq 0 ]
  run pm exec sb1 sh -c "cat /workspace/out; echo more >>/workspace/out; cat $canary/secret 2>&1; true"
  echo "$output"
  [[ "$output" == *from-agent* ]]
  [[ "$output" != *top-secret* ]]
  [ "$(tail -n1 "$ws/out")" = more ]
  # An undeclared host bind is refused with the sandbox's message.
  run prun "${A[@]}" -v "$canary:/canary:ro" "$IMG" cat /canary/secret
  [ "$status" -ne 0 ]
  [[ "$output" == *'bind mount of host path "'"$canary"'" at "/canary" is not allowed'* ]]
  [[ "$output" != *top-secret* ]]
}

@test "rootless podman --annotation net.scope=deny: only lo, even with --network=host" {
  run --separate-stderr prun --annotation ing.paperclip.net.scope=deny "$IMG" sh -c "$NETDEVS"
  echo "$output $stderr"
  [ "$status" -eq 0 ]
  [ "$output" = lo ]
  # With the host's network namespace the container would see the host's interfaces; the
  # annotation gives it its own, with only lo.
  run --separate-stderr pm run --rm --network=host "$IMG" sh -c "$NETDEVS"
  [ "$status" -eq 0 ]
  [ "$(echo "$output" | wc -l)" -gt 1 ]
  run --separate-stderr pm run --rm --network=host --annotation ing.paperclip.net.scope=deny "$IMG" sh -c "$NETDEVS"
  echo "$output $stderr"
  [ "$status" -eq 0 ]
  [ "$output" = lo ]
}
