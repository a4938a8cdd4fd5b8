#!/usr/bin/env bats
# containerd.bats: Debian's containerd (1.6) and its io.containerd.runc.v2 shim with clasp as the
# runc binary, driven with ctr. The suite starts a private containerd (own root, state, sockets,
# namespace, runc root under BATS_FILE_TMPDIR), imports a local busybox image (images.sh) and stops
# everything in teardown_file. E2E_RUNTIME=runc runs the same scenarios with runc.

load lib
bats_require_minimum_version 1.5.0

BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-90}
IMG=localhost/clasp-e2e/busybox:latest
NS=clasp-e2e

c() { timeout 60 ctr -a "$CD_DIR/c.sock" -n "$NS" "$@"; }

# crun_ ARGS...: `ctr run` through the runc shim with the runtime under test.
crun_() {
  c run --runtime io.containerd.runc.v2 --runc-binary "$CD_RUNTIME" --runc-root "$CD_DIR/runc" "$@"
}

# task_status ID: RUNNING, PAUSED, STOPPED...
task_status() { c task ls | awk -v id="$1" '$1 == id { print $3 }'; }

# clasp_as_shim ARGS...: call the runtime the way the shim does, with the same --root.
clasp_as_shim() { timeout 30 "$(e2e_runtime_path)" --root "$CD_DIR/runc/$NS" "$@"; }

setup_file() {
  e2e_require_root && e2e_require containerd containerd && e2e_require ctr containerd &&
    e2e_require_clasp || return 0
  export CD_DIR="$BATS_FILE_TMPDIR/cd"
  mkdir -p "$CD_DIR/bin"
  [ -e /run/containerd ] || touch "$CD_DIR/made-run-containerd"
  export CD_CALLS="$CD_DIR/calls.log"
  : >"$CD_CALLS"
  make_recording_runtime "$CD_DIR/bin" "$(e2e_runtime_path)" "$CD_CALLS"
  export CD_RUNTIME="$CD_DIR/bin/clasp"
  # The CRI plugin is off (no kubelet here); its runtime handler "clasp" is what a cluster would
  # use (docs/containerd.md, docs/kubernetes.md): the same shim, with these options.
  cat >"$CD_DIR/config.toml" <<EOF
version = 2
root = "$CD_DIR/root"
state = "$CD_DIR/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$CD_DIR/c.sock"
[ttrpc]
  address = "$CD_DIR/c.sock.ttrpc"
[debug]
  address = "$CD_DIR/debug.sock"
[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.clasp]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.clasp.options]
    BinaryName = "$CD_RUNTIME"
    Root = "$CD_DIR/runc"
    SystemdCgroup = false
EOF
  # fd 3 closed, or bats would wait for the daemon to exit.
  containerd --config "$CD_DIR/config.toml" >"$CD_DIR/containerd.log" 2>&1 3>&- &
  echo $! >"$CD_DIR/containerd.pid"
  if ! wait_until 20 ctr -a "$CD_DIR/c.sock" version; then
    cat "$CD_DIR/containerd.log" >&2
    return 1
  fi
  local tar
  tar=$(sh "$BATS_TEST_DIRNAME/images.sh" oci-archive "$BATS_FILE_TMPDIR/img" "$IMG")
  c images import "$tar" >/dev/null
}

setup() { e2e_skip_if_needed; }

teardown_file() {
  [ -n "${CD_DIR:-}" ] && [ -d "$CD_DIR" ] || return 0
  local id pid
  if [ -S "$CD_DIR/c.sock" ]; then
    for id in $(c task ls -q 2>/dev/null); do
      c task kill -s KILL "$id" >/dev/null 2>&1
      c task rm -f "$id" >/dev/null 2>&1
    done
    for id in $(c containers ls -q 2>/dev/null); do c containers rm "$id" >/dev/null 2>&1; done
    c images rm "$IMG" >/dev/null 2>&1
  fi
  pid=$(cat "$CD_DIR/containerd.pid" 2>/dev/null)
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null
    wait_until 10 sh -c "! kill -0 $pid"
    kill -9 "$pid" 2>/dev/null
  fi
  # Shims outlive containerd by design; end the ones this daemon started (their -address is ours).
  for pid in $(pgrep -f "containerd-shim-runc-v2 -namespace $NS -address $CD_DIR/c.sock" 2>/dev/null); do
    kill -9 "$pid" 2>/dev/null
  done
  umount_under "$CD_DIR"
  rmdir_empty_cgroups "$NS"
  # The shim and ctr keep sockets and fifos under /run/containerd whatever the config says; remove
  # those directories only if this suite created them and they are empty.
  if [ -e "$CD_DIR/made-run-containerd" ]; then
    rmdir /run/containerd/s /run/containerd/fifo /run/containerd 2>/dev/null || true
  fi
  [ -n "${E2E_KEEP_CALLS:-}" ] && cp "$CD_CALLS" "$E2E_KEEP_CALLS"
  rm -rf "$CD_DIR"
}

@test "ctr run: output and exit status" {
  run crun_ --rm "$IMG" r1 sh -c 'echo hello from $(cat /proc/1/comm); exit 5'
  [ "$status" -eq 5 ]
  [ "$output" = "hello from sh" ]
  run crun_ --rm "$IMG" r2 true
  [ "$status" -eq 0 ]
}

@test "ctr run: a missing command fails with the runtime's message, and leaves nothing behind" {
  run crun_ --rm "$IMG" r3 nosuchcmd
  [ "$status" -ne 0 ]
  [[ "$output" == *'exec: "nosuchcmd": executable file not found in $PATH'* ]]
  run c containers ls -q
  [[ "$output" != *r3* ]]
}

@test "ctr run -t: the process has a terminal" {
  run in_tty ctr -a "$CD_DIR/c.sock" -n "$NS" run -t --rm --runtime io.containerd.runc.v2 \
    --runc-binary "$CD_RUNTIME" --runc-root "$CD_DIR/runc" "$IMG" t1 sh -c 'tty; [ -t 0 ] && echo stdin-is-tty; exit 4'
  output=$(printf '%s' "$output" | strip_cr)
  [ "$status" -eq 4 ]
  [[ "$output" == */dev/pts/* ]]
  [[ "$output" == *stdin-is-tty* ]]
}

@test "ctr run -d, task exec (also -t), ps, pause/resume, metrics, kill, delete" {
  run crun_ -d --memory-limit 67108864 "$IMG" d1 sh -c 'trap "exit 42" TERM; while :; do sleep 0.1; done'
  [ "$status" -eq 0 ]
  [ "$(task_status d1)" = RUNNING ]

  run c task exec --exec-id e1 d1 sh -c 'echo in-exec; exit 3'
  [ "$status" -eq 3 ]
  [ "$output" = in-exec ]
  run c task exec --exec-id e2 d1 nosuchcmd
  [ "$status" -ne 0 ]
  [[ "$output" == *'exec: "nosuchcmd": executable file not found in $PATH'* ]]
  run in_tty ctr -a "$CD_DIR/c.sock" -n "$NS" task exec -t --exec-id e3 d1 sh -c 'tty; sleep 0.2'
  [[ "$output" == */dev/pts/* ]]

  # ps goes through `RUNTIME ps --format json`.
  local pid
  pid=$(c task ls | awk '$1 == "d1" { print $2 }')
  run c task ps d1
  [ "$status" -eq 0 ]
  [[ "$output" == *"$pid"* ]]

  run c task pause d1
  [ "$status" -eq 0 ]
  [ "$(task_status d1)" = PAUSED ]
  if [ -e /sys/fs/cgroup/freezer/$NS/d1/freezer.state ]; then
    [ "$(cat /sys/fs/cgroup/freezer/$NS/d1/freezer.state)" = FROZEN ]
  fi
  run c task resume d1
  [ "$status" -eq 0 ]
  [ "$(task_status d1)" = RUNNING ]

  # metrics are read by the shim from the cgroup the runtime made.
  run c task metrics d1
  [ "$status" -eq 0 ]
  [[ "$output" == *"memory.limit_in_bytes"*67108864* || "$output" == *"memory.max"*67108864* ]]
  [[ "$output" == *pids.current* ]]

  run c task kill d1
  [ "$status" -eq 0 ]
  wait_until 10 sh -c "ctr -a $CD_DIR/c.sock -n $NS task ls | grep -q 'd1 .*STOPPED'"
  run c task rm d1
  [ "$status" -eq 0 ]
  [[ "$output" == *"d1"* || -z "$output" ]]
  run c containers rm d1
  [ "$status" -eq 0 ]
}

@test "ctr task kill -s KILL and kill --all" {
  crun_ -d "$IMG" k1 sh -c 'sleep 300 & sleep 300' >/dev/null
  run c task kill -a -s KILL k1
  [ "$status" -eq 0 ]
  wait_until 10 sh -c "ctr -a $CD_DIR/c.sock -n $NS task ls | grep -q 'k1 .*STOPPED'"
  run c task rm k1
  [[ "$output" == *137* || "$status" -eq 0 ]]
  c containers rm k1
  # SIGKILL to a paused task (`kill ID 9`, no --all): the runtime thaws it so the kill lands.
  crun_ -d "$IMG" k2 sleep 300 >/dev/null
  c task pause k2
  run c task kill -s KILL k2
  [ "$status" -eq 0 ]
  wait_until 10 sh -c "ctr -a $CD_DIR/c.sock -n $NS task ls | grep -q 'k2 .*STOPPED'"
  c task rm k2 >/dev/null 2>&1
  c containers rm k2
}

@test "containerd: update --resources - and list/ps --format json, as go-runc sends them" {
  crun_ -d --memory-limit 67108864 "$IMG" u1 sleep 300 >/dev/null
  run clasp_as_shim update --resources - u1 <<<'{"memory":{"limit":100663296},"pids":{"limit":64}}'
  [ "$status" -eq 0 ]
  run c task metrics u1
  [[ "$output" == *100663296* ]]
  run clasp_as_shim ps --format json u1
  [ "$status" -eq 0 ]
  [[ "$output" == "["*"]" ]]
  run clasp_as_shim list --format json
  [ "$status" -eq 0 ]
  [ "$(printf '%s' "$output" | jq -r '.[] | select(.id == "u1") | .status')" = running ]
  c task kill -s KILL u1
  wait_until 10 sh -c "ctr -a $CD_DIR/c.sock -n $NS task ls | grep -q 'u1 .*STOPPED'"
  c task rm u1 >/dev/null
  c containers rm u1
}

@test "containerd: the shim's delete --force on a container that is gone exits 0" {
  run clasp_as_shim --log "$CD_DIR/gone.log" --log-format json delete --force no-such-container
  [ "$status" -eq 0 ]
  # ... and `ctr run --rm` made the shim send delete, then delete --force, with no error shown.
  run crun_ --rm "$IMG" g1 true
  [ "$status" -eq 0 ]
  [ -z "$output" ]
  run grep -E "delete (--force )?g1\$" "$CD_CALLS"
  [ "${#lines[@]}" -eq 2 ]
}

@test "ctr run --annotation: clasp's sandbox applies (net.scope=deny, fs.scope=workspace)" {
  clasp_only
  run crun_ --rm --net-host --annotation ing.paperclip.net.scope=deny "$IMG" n1 ls /sys/class/net
  [ "$status" -eq 0 ]
  [ "$output" = lo ]
  local ws="$BATS_FILE_TMPDIR/cws"
  mkdir -p "$ws" && rm -f "$ws/out"
  run crun_ --rm --annotation ing.paperclip.fs.scope=workspace --annotation "ing.paperclip.fs.workspace=$ws" \
    --annotation ing.paperclip.fs.workspace-target=/workspace \
    "$IMG" w1 sh -c 'echo from-agent >/workspace/out; touch /rootfile 2>&1; true'
  [ "$status" -eq 0 ]
  [[ "$output" == *"Read-only file system"* ]]
  [ "$(cat "$ws/out")" = from-agent ]
  run crun_ --rm --annotation ing.paperclip.fs.scope=nope "$IMG" w2 true
  [ "$status" -ne 0 ]
  [[ "$output" == *'ing.paperclip.fs.scope: expected "workspace", got "nope"'* ]]
}

@test "containerd: contrib/containerd/config.toml.d/clasp.toml installed as docs/containerd.md says" {
  local toml="$E2E_REPO/contrib/containerd/config.toml.d/clasp.toml"
  [ -f "$toml" ] || skip "contrib/containerd/config.toml.d/clasp.toml not written yet"
  # The documented commands, on a copy of /etc/containerd bind-mounted in a private mount namespace.
  local etc="$CD_DIR/etc-containerd"
  rm -rf "$etc" && mkdir -p "$etc"
  if [ -f /etc/containerd/config.toml ]; then cp /etc/containerd/config.toml "$etc/"
  else printf 'version = 2\n' >"$etc/config.toml"; fi
  run timeout 30 unshare -m --propagation private sh -c '
    mount --bind "$1" /etc/containerd || exit 99
    install -D -m 0644 "$2" /etc/containerd/config.toml.d/clasp.toml
    sed -i "/^version = 2/a imports = [\"/etc/containerd/config.toml.d/*.toml\"]" /etc/containerd/config.toml
    containerd config dump' sh "$etc" "$toml"
  [ "$status" -eq 0 ]
  local handler
  handler=$(printf '%s\n' "$output" | sed -n '/runtimes\.clasp\]/,/^ *\[plugins.*untrusted/p')
  [[ "$handler" == *'runtime_type = "io.containerd.runc.v2"'* ]]
  [[ "$handler" == *'pod_annotations = ["ing.paperclip.*"]'* ]]
  [[ "$handler" == *'BinaryName = "/usr/local/bin/clasp"'* ]]
  [[ "$handler" == *'SystemdCgroup = false'* ]]
  rm -rf "$etc"
}

@test "containerd's calls: --root NS --log B/log.json --log-format json, then the command" {
  run cat "$CD_CALLS"
  [[ "$output" == *"--root $CD_DIR/runc/$NS --log $CD_DIR/state/io.containerd.runtime.v2.task/$NS/"*"/log.json --log-format json create --bundle "*" --pid-file "*"/init.pid "* ]]
  [[ "$output" == *"--log-format json start "* ]]
  [[ "$output" == *"--log-format json exec --process "*" --detach --pid-file "* ]]
  [[ "$output" == *"exec --process "*" --console-socket "*" --detach --pid-file "* ]]
  [[ "$output" == *"--log-format json create --bundle "*" --console-socket "* ]]
  [[ "$output" == *"--log-format json ps --format json d1"* ]]
  [[ "$output" == *"--log-format json pause d1"* ]]
  [[ "$output" == *"--log-format json resume d1"* ]]
  [[ "$output" == *"--log-format json kill d1 15"* ]]
  [[ "$output" == *"--log-format json kill --all k1 9"* ]]
  [[ "$output" == *"--log-format json delete --force "* ]]
}
