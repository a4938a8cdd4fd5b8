#!/usr/bin/env bats
# podman.bats: Debian's podman (4.3, through conmon) with clasp as its OCI runtime, as a user runs it.
# Private --root/--runroot/--tmpdir under BATS_FILE_TMPDIR, the cgroupfs cgroup manager, no network,
# a local image built from busybox-static (images.sh). E2E_RUNTIME=runc runs the same scenarios
# with runc for comparison.

load lib
bats_require_minimum_version 1.5.0

BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-90}
IMG=localhost/clasp-e2e/busybox:latest

# pm ARGS...: podman with this suite's private directories; $PM is the same as a command (for
# sh -c, pipes and in_tty).
pm() { timeout 60 "$PM" "$@"; }

# prun ARGS...: a throwaway container on no network.
prun() { pm run --rm --network none "$@"; }

setup_file() {
  e2e_require_root && e2e_require podman podman && e2e_require conmon conmon && e2e_require_clasp ||
    return 0
  export PM_DIR="$BATS_FILE_TMPDIR/pm"
  mkdir -p "$PM_DIR/bin" "$PM_DIR/tmp"
  # podman (containers/image) keeps root's blob-info cache in /var/lib/containers/cache whatever
  # --root says; remove it afterwards if this suite is what created it.
  [ -e /var/lib/containers ] || touch "$PM_DIR/made-var-lib-containers"
  [ -e /etc/cni/net.d/cni.lock ] || touch "$PM_DIR/made-cni-lock"
  # The runtime is reached through the recording wrapper (named clasp for runtime_supports_json),
  # so that the last test can check what podman sent.
  export PM_CALLS="$PM_DIR/calls.log"
  : >"$PM_CALLS"
  make_recording_runtime "$PM_DIR/bin" "$(e2e_runtime_path)" "$PM_CALLS"
  export PM_RUNTIME="$PM_DIR/bin/clasp"
  # Private storage, run, tmp and network-config directories: nothing of the host's podman
  # state is used or changed. overlay, because the sandbox recognises podman's per-container
  # files by their .../overlay-containers/<ID>/userdata layout.
  export PM="$PM_DIR/bin/podman-e2e"
  printf '#!/bin/sh\nexec podman --root "%s" --runroot "%s" --tmpdir "%s" --network-config-dir "%s" --storage-driver overlay --cgroup-manager cgroupfs --events-backend file --runtime "%s" "$@"\n' \
    "$PM_DIR/root" "$PM_DIR/runroot" "$PM_DIR/tmp" "$PM_DIR/net" "$PM_RUNTIME" >"$PM"
  chmod 0755 "$PM"
  # default_ulimits: this machine has no CAP_SYS_RESOURCE, so podman's default nofile/nproc
  # (above the hard limits) could not be granted; ask for what is allowed.
  export CONTAINERS_CONF="$PM_DIR/containers.conf"
  cat >"$CONTAINERS_CONF" <<EOF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]
# No CNI bridge, iptables rules or /run/netns on the host, even where a test forgets --network.
netns = "none"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime_supports_json = ["clasp", "runc", "crun"]
EOF
  local tar
  tar=$(sh "$BATS_TEST_DIRNAME/images.sh" rootfs-tar "$BATS_FILE_TMPDIR/img")
  pm import -q "$tar" "$IMG" >/dev/null
}

setup() { e2e_skip_if_needed; }

teardown_file() {
  [ -n "${PM_DIR:-}" ] && [ -d "$PM_DIR" ] || return 0
  pm rm -af -t 0 >/dev/null 2>&1 || true
  pm system reset -f >/dev/null 2>&1 || true
  runtime_delete_under "$PM_DIR"
  [ -n "${E2E_KEEP_CALLS:-}" ] && cp "$PM_CALLS" "$E2E_KEEP_CALLS"
  umount_under "$PM_DIR"
  rmdir_empty_cgroups libpod_parent
  [ -e "$PM_DIR/made-var-lib-containers" ] && rm -rf /var/lib/containers
  # Some podman code paths take the default CNI config dir's lock despite --network-config-dir.
  [ -e "$PM_DIR/made-cni-lock" ] && rm -f /etc/cni/net.d/cni.lock
  rm -rf "$PM_DIR"
}

# --- run, exit codes, logs ---

@test "podman run attached: output and exit status" {
  run prun "$IMG" sh -c 'echo hello from $(cat /proc/1/comm); exit 0'
  [ "$status" -eq 0 ]
  [ "$output" = "hello from sh" ]
  run prun "$IMG" sh -c 'echo to-stderr >&2; exit 7'
  [ "$status" -eq 7 ]
  [[ "$output" == *to-stderr* ]]
}

@test "podman run: a missing command exits 127, a non-executable one 126, with a clean message" {
  run -127 prun "$IMG" nosuchcmd
  [[ "$output" == *nosuchcmd* ]]
  [[ "$output" != *'{"'* ]]          # the runtime's JSON log line was decoded, not echoed
  run prun "$IMG" /bin/notexec
  [ "$status" -eq 126 ]
  [[ "$output" == *"permission denied"* ]]
}

@test "podman run -d, logs, inspect, rm" {
  run pm run -d --name logs1 --network none "$IMG" sh -c 'echo out-line; echo err-line >&2; exit 3'
  echo "$output"
  [ "$status" -eq 0 ]
  wait_until 20 sh -c "[ \"\$($PM inspect -f '{{.State.Status}}' logs1)\" = exited ]"
  run pm logs logs1
  [ "$status" -eq 0 ]
  [[ "$output" == *out-line* ]]
  [[ "$output" == *err-line* ]]
  run pm inspect -f '{{.State.ExitCode}}' logs1
  [ "$output" = 3 ]
  run pm rm logs1
  [ "$status" -eq 0 ]
}

@test "podman run -it: the process has a terminal" {
  run in_tty "$PM" run -it --rm --network none "$IMG" sh -c 'tty; [ -t 0 ] && echo stdin-is-tty; exit 4'
  output=$(printf '%s' "$output" | strip_cr)
  [ "$status" -eq 4 ]
  [[ "$output" == */dev/pts/* ]]
  [[ "$output" == *stdin-is-tty* ]]
}

@test "podman run -i and exec -i: stdin reaches the process unchanged" {
  run sh -c "printf 'line one\nline two\n' | timeout 60 $PM run -i --rm --network none $IMG sh -c 'wc -l; [ -t 0 ] || echo not-a-tty'"
  [ "$status" -eq 0 ]
  [ "$output" = "2
not-a-tty" ]
}

@test "podman create, start -a, restart, wait; --env, --workdir, --hostname" {
  pm create --name cs1 --network none -e FOO=bar -w /tmp --hostname agent-box "$IMG" \
    sh -c 'echo "$FOO $(pwd) $(hostname)"; exit 9' >/dev/null
  run pm start -a cs1
  [ "$status" -eq 9 ]
  [ "$output" = "bar /tmp agent-box" ]
  run pm restart cs1
  [ "$status" -eq 0 ]
  run pm wait cs1
  [ "$output" = 9 ]
  run pm logs cs1
  [ "${#lines[@]}" -eq 2 ]
  pm rm cs1 >/dev/null
}

@test "podman exec --user, --workdir, --env; exec into a stopped one is refused" {
  pm run -d --name ex2 --network none "$IMG" sleep 300 >/dev/null
  run pm exec --user 1000 -w /home/tester -e X=1 ex2 sh -c 'echo "$(id -u) $(pwd) $X"'
  [ "$output" = "1000 /home/tester 1" ]
  pm stop -t 0 ex2 >/dev/null
  run pm exec ex2 true
  [ "$status" -ne 0 ]
  [[ "$output" == *"running containers"* ]]
  pm rm ex2 >/dev/null
}

# --- a running container: exec, top, pause, update, kill, stop, rm -f ---

@test "podman exec, exec -it, top" {
  pm run -d --name ex1 --network none "$IMG" sleep 300 >/dev/null
  run pm exec ex1 sh -c 'echo in-exec; cat /proc/1/comm'
  [ "$status" -eq 0 ]
  [ "$output" = "in-exec
sleep" ]
  run pm exec ex1 sh -c 'exit 5'
  [ "$status" -eq 5 ]
  run -127 pm exec ex1 nosuchcmd
  run in_tty "$PM" exec -it ex1 sh -c 'tty; exit 6'
  [ "$status" -eq 6 ]
  [[ "$output" == */dev/pts/* ]]
  run pm top ex1
  [ "$status" -eq 0 ]
  [[ "$output" == *"sleep 300"* ]]
  pm rm -f -t 0 ex1 >/dev/null
}

@test "podman pause and unpause" {
  pm run -d --name pz1 --network none "$IMG" sleep 300 >/dev/null
  run pm pause pz1
  [ "$status" -eq 0 ]
  run pm inspect -f '{{.State.Status}}' pz1
  [ "$output" = paused ]
  run pm unpause pz1
  [ "$status" -eq 0 ]
  run pm inspect -f '{{.State.Status}}' pz1
  [ "$output" = running ]
  run pm exec pz1 echo alive
  [ "$output" = alive ]
  # podman kill (SIGKILL) of a paused container: the runtime must thaw it for the kill to land.
  pm pause pz1 >/dev/null
  run pm kill pz1
  [ "$status" -eq 0 ]
  run pm wait pz1
  [ "$output" = 137 ]
  run pm inspect -f '{{.State.Status}}' pz1
  [ "$output" = exited ]
  pm rm -f -t 0 pz1 >/dev/null
}

@test "podman update --memory changes the running container's limit" {
  pm run -d --name up1 --network none --memory 64m "$IMG" sleep 300 >/dev/null
  local f=/sys/fs/cgroup/memory/memory.limit_in_bytes
  [ -e /sys/fs/cgroup/memory.max ] && f=/sys/fs/cgroup/memory.max
  run pm exec up1 cat "$f"
  [ "$output" = 67108864 ]
  run pm update --memory 96m up1
  [ "$status" -eq 0 ]
  run pm exec up1 cat "$f"
  [ "$output" = 100663296 ]
  pm rm -f -t 0 up1 >/dev/null
}

@test "podman kill -s delivers the signal; stop sends SIGTERM, then SIGKILL" {
  pm run -d --name k1 --network none "$IMG" \
    sh -c 'trap "echo got-usr1" USR1; trap "echo got-term; exit 42" TERM; while :; do sleep 0.1; done' >/dev/null
  wait_until 10 sh -c "$PM top k1 | grep -q sleep"
  run pm kill -s USR1 k1
  [ "$status" -eq 0 ]
  wait_until 10 sh -c "$PM logs k1 | grep -q got-usr1"
  # A shell that traps TERM exits on stop with its own status.
  run pm stop -t 10 k1
  [ "$status" -eq 0 ]
  run pm inspect -f '{{.State.ExitCode}}' k1
  [ "$output" = 42 ]
  run pm logs k1
  [[ "$output" == *got-term* ]]
  # sleep as PID 1 ignores SIGTERM: stop waits for the timeout, then kills.
  pm run -d --name k2 --network none "$IMG" sleep 300 >/dev/null
  local t0=$SECONDS
  run pm stop -t 1 k2
  [ "$status" -eq 0 ]
  [ $((SECONDS - t0)) -ge 1 ]
  run pm inspect -f '{{.State.Status}} {{.State.ExitCode}}' k2
  [ "$output" = "exited 137" ]
  pm rm k1 k2 >/dev/null
}

@test "podman rm -f removes a running container" {
  pm run -d --name rmf1 --network none "$IMG" sleep 300 >/dev/null
  run pm rm -f -t 0 rmf1
  [ "$status" -eq 0 ]
  run pm ps -a --format '{{.Names}}'
  [[ "$output" != *rmf1* ]]
}

@test "podman pod: containers join the infra container's namespaces by path" {
  run pm pod create --name pod1 --network none --share net,ipc,uts,pid
  [ "$status" -eq 0 ]
  pm run -d --pod pod1 --name inpod1 "$IMG" sleep 300 >/dev/null
  run pm run --rm --pod pod1 "$IMG" sh -c 'hostname; ps -o comm | grep -c sleep'
  [ "$status" -eq 0 ]
  [ "${lines[0]}" = pod1 ]
  [ "${lines[1]}" = 1 ]
  run pm pod rm -f -t 0 pod1
  [ "$status" -eq 0 ]
}

# --- limits and security options, as seen from inside ---

@test "podman --memory, --pids-limit, --cpus are visible in the container's cgroup" {
  if [ -e /sys/fs/cgroup/cgroup.controllers ]; then
    run prun --memory 64m --pids-limit 50 --cpus 0.5 "$IMG" \
      sh -c 'cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/pids.max /sys/fs/cgroup/cpu.max'
    [ "$status" -eq 0 ]
    [ "$output" = "67108864
50
50000 100000" ]
  else
    run prun --memory 64m --pids-limit 50 --cpus 0.5 "$IMG" \
      sh -c 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us'
    [ "$status" -eq 0 ]
    [ "$output" = "67108864
50
50000
100000" ]
  fi
}

@test "podman --pids-limit is enforced" {
  run prun --pids-limit 10 "$IMG" sh -c 'for i in $(seq 30); do sleep 5 & done; wait; echo done'
  [[ "$output" == *"an't fork"* || "$output" == *"Resource temporarily unavailable"* ]]
}

@test "podman --user" {
  run prun --user 1000:1000 "$IMG" id
  [ "$status" -eq 0 ]
  [[ "$output" == "uid=1000(tester) gid=1000(tester)"* ]]
  run prun --user nobody "$IMG" id -u
  [ "$output" = 65534 ]
}

@test "podman --read-only and --tmpfs" {
  run prun --read-only --tmpfs /scratch "$IMG" sh -c 'touch /x 2>&1; touch /scratch/y && echo scratch-ok; grep " /scratch " /proc/mounts'
  [ "$status" -eq 0 ]
  [[ "$output" == *"Read-only file system"* ]]
  [[ "$output" == *scratch-ok* ]]
  [[ "$output" == *"tmpfs /scratch tmpfs"* ]]
}

@test "podman -v host:ctr:ro" {
  local d="$BATS_FILE_TMPDIR/vol"
  mkdir -p "$d" && echo host-data >"$d/f"
  run prun -v "$d:/data:ro" "$IMG" sh -c 'cat /data/f; touch /data/g 2>&1; true'
  [ "$status" -eq 0 ]
  [[ "$output" == *host-data* ]]
  [[ "$output" == *"Read-only file system"* ]]
  [ ! -e "$d/g" ]
}

@test "podman --cap-drop and --cap-add" {
  run prun --cap-drop all "$IMG" grep CapEff /proc/self/status
  [[ "$output" == *"0000000000000000"* ]]
  # NET_ADMIN is bit 12.
  run prun --cap-drop all --cap-add NET_ADMIN "$IMG" grep CapEff /proc/self/status
  [[ "$output" == *"0000000000001000"* ]]
  run prun --cap-drop CHOWN "$IMG" sh -c 'chown 1000 /tmp 2>&1; echo rc=$?'
  [[ "$output" == *"rc=1"* ]]
}

@test "podman --security-opt no-new-privileges and the default seccomp profile" {
  run prun --security-opt no-new-privileges "$IMG" grep NoNewPrivs /proc/self/status
  [[ "$output" == *"NoNewPrivs:"*1 ]]
  run prun "$IMG" grep '^Seccomp:' /proc/self/status
  [[ "$output" == *"Seccomp:"*2 ]]
  run prun --security-opt seccomp=unconfined "$IMG" grep '^Seccomp:' /proc/self/status
  [[ "$output" == *"Seccomp:"*0 ]]
}

# --- clasp's sandbox annotations through podman ---

@test "podman --annotation fs.scope=workspace: workspace writable, rootfs read-only, host paths refused" {
  clasp_only
  local ws="$BATS_FILE_TMPDIR/ws" canary="$BATS_FILE_TMPDIR/canary"
  mkdir -p "$ws" "$canary" && echo top-secret >"$canary/secret" && rm -f "$ws/out"
  local A=(--annotation ing.paperclip.fs.scope=workspace --annotation "ing.paperclip.fs.workspace=$ws"
           --annotation ing.paperclip.fs.workspace-target=/workspace)
  run prun "${A[@]}" "$IMG" sh -c "echo from-agent >/workspace/out; touch /rootfile 2>&1; touch /tmp/t && echo tmp-ok; cat $canary/secret 2>&1; hostname >/dev/null && head -1 /etc/hosts"
  [ "$status" -eq 0 ]
  [ "$(cat "$ws/out")" = from-agent ]
  [[ "$output" == *"/rootfile: Read-only file system"* ]]
  [[ "$output" == *tmp-ok* ]]
  [[ "$output" == *"No such file or directory"* ]]
  [[ "$output" != *top-secret* ]]
  # podman exec enters the same confinement.
  pm run -d --name sb1 --network none "${A[@]}" "$IMG" sleep 300 >/dev/null
  run pm exec sb1 sh -c "cat /workspace/out; touch /rootfile2 2>&1; cat $canary/secret 2>&1; true"
  [[ "$output" == *from-agent* ]]
  [[ "$output" == *"/rootfile2: Read-only file system"* ]]
  [[ "$output" != *top-secret* ]]
  pm rm -f -t 0 sb1 >/dev/null
  # A bind mount of an undeclared host path is refused, with the sandbox's own message.
  run prun "${A[@]}" -v "$canary:/canary:ro" "$IMG" cat /canary/secret
  [ "$status" -ne 0 ]
  [[ "$output" == *'bind mount of host path "'"$canary"'" at "/canary" is not allowed; declare it in ing.paperclip.fs.extra-paths'* ]]
  [[ "$output" != *top-secret* ]]
}

@test "podman --annotation with a JSON list needs CSV quoting: fs.extra-paths" {
  clasp_only
  local ws="$BATS_FILE_TMPDIR/ws2" ref="$BATS_FILE_TMPDIR/ref"
  mkdir -p "$ws" "$ref" && echo ref-data >"$ref/data"
  run prun --annotation ing.paperclip.fs.scope=workspace --annotation "ing.paperclip.fs.workspace=$ws" \
    --annotation "\"ing.paperclip.fs.extra-paths=[\"\"$ref\"\"]\"" \
    "$IMG" sh -c "cat $ref/data; touch $ref/x 2>&1; true"
  [ "$status" -eq 0 ]
  [[ "$output" == *ref-data* ]]
  [[ "$output" == *"Read-only file system"* ]]
  [ ! -e "$ref/x" ]
}

@test "podman --annotation net.scope=deny: only lo, even with --network host" {
  clasp_only
  run pm run --rm --network host --annotation ing.paperclip.net.scope=deny "$IMG" ls /sys/class/net
  [ "$status" -eq 0 ]
  [ "$output" = lo ]
}

@test "podman --annotation net.scope=allowlist: only the listed host, through clasp's egress proxy" {
  clasp_only
  local www="$BATS_FILE_TMPDIR/www" port=$((20000 + RANDOM % 20000)) hp
  mkdir -p "$www" && echo hello-from-host >"$www/index.html"
  busybox httpd -f -p "127.0.0.1:$port" -h "$www" 3>&- &
  hp=$!
  run prun --annotation ing.paperclip.net.scope=allowlist \
    --annotation "\"ing.paperclip.net.allowlist=[\"\"127.0.0.1:$port\"\"]\"" \
    "$IMG" sh -c "wget -qO- http://127.0.0.1:$port/; echo allowed=\$?; wget -qO- http://127.0.0.2:$port/ 2>&1; echo denied=\$?"
  kill "$hp"; wait "$hp" 2>/dev/null || true
  [ "$status" -eq 0 ]
  [[ "$output" == *hello-from-host*allowed=0* ]]
  [[ "$output" == *"403 Forbidden"*denied=1* ]]
}

@test "podman: runtime errors reach the user as clean messages" {
  clasp_only
  run prun --annotation ing.paperclip.fs.scope=bogus "$IMG" true
  [ "$status" -ne 0 ]
  [[ "$output" == *'ing.paperclip.fs.scope: expected "workspace", got "bogus"'* ]]
  [[ "$output" != *'{"'* ]]
  run prun --annotation ing.paperclip.fs.scoop=workspace "$IMG" true
  [ "$status" -ne 0 ]
  [[ "$output" == *'ing.paperclip.fs.scoop: unknown annotation under ing.paperclip.'* ]]
  # No systemd cgroup driver yet: the message says what to use instead.
  run pm --cgroup-manager systemd run --rm --network none "$IMG" true
  [ "$status" -ne 0 ]
  [[ "$output" == *"cgroupfs"* ]]
}

# --- docs/podman.md, followed literally (in a private mount namespace, so the host is untouched) ---

@test "podman: contrib/podman/containers.conf.d/clasp.conf installed as docs/podman.md says" {
  clasp_only
  local conf="$E2E_REPO/contrib/podman/containers.conf.d/clasp.conf"
  [ -f "$conf" ] || skip "contrib/podman/containers.conf.d/clasp.conf not written yet"
  local etc="$PM_DIR/etc-containers" bin="$PM_DIR/usr-local-bin"
  rm -rf "$etc" "$bin"
  cp -a /etc/containers "$etc"
  install -D -m 0644 "$conf" "$etc/containers.conf.d/clasp.conf"
  # Only because this machine lacks CAP_SYS_RESOURCE (see docs/podman.md, "Troubleshooting").
  printf '[containers]\ndefault_ulimits = ["nofile=1024:1024", "nproc=4096:4096"]\n' \
    >"$etc/containers.conf.d/zz-ulimits.conf"
  mkdir -p "$bin" && cp "$(e2e_runtime_path)" "$bin/clasp"
  run timeout 60 unshare -m --propagation private sh -c '
    mount --bind "$1" /etc/containers && mount --bind "$2" /usr/local/bin || exit 99
    unset CONTAINERS_CONF
    P="podman --root $3/root --runroot $3/runroot --tmpdir $3/tmp --network-config-dir $3/net --storage-driver overlay --events-backend file"
    $P --runtime clasp info --format "{{.Host.OCIRuntime.Path}} {{.Host.CgroupManager}}"
    $P --runtime clasp run --rm --network none "$4" grep Seccomp: /proc/self/status
    $P --runtime clasp run --rm --network none --annotation ing.paperclip.fs.scope=oops "$4" true
  ' sh "$etc" "$bin" "$PM_DIR" "$IMG"
  [[ "$output" == *"/usr/local/bin/clasp cgroupfs"* ]]
  [[ "$output" == *"Seccomp:"*2* ]]
  [[ "$output" == *'ing.paperclip.fs.scope: expected "workspace", got "oops"'* ]]
  rm -rf "$etc" "$bin"
}

# --- what podman sent (the recording wrapper logged every call of this file) ---

@test "podman's calls: --log-format=json, create/start/exec/kill/pause/resume/update/delete" {
  run cat "$PM_CALLS"
  [[ "$output" == *"--log-format=json --log "*"/oci-log create --bundle "*"/userdata --pid-file "* ]]
  [[ "$output" == *"exec --pid-file "*" --process "*" --detach "* ]]
  [[ "$output" == *"--detach --tty --console-socket "* ]]
  [[ "$output" == *"start "* ]]
  [[ "$output" == *"pause "* ]]
  [[ "$output" == *"resume "* ]]
  [[ "$output" == *"update --resources="* ]]
  [[ "$output" == *"kill "*" 10"* ]]
  [[ "$output" == *"kill "*" 15"* ]]
  [[ "$output" == *"kill "*" 9"* ]]
  [[ "$output" == *"delete --force "* ]]
}
