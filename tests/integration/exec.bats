#!/usr/bin/env bats
# exec: a new process joins a running container: its namespaces, cgroup, root, capabilities and
# seccomp filter; flags of runc's exec; exit status, terminals, pid file, concurrency, fd hygiene.

load helpers

# Every test here is bounded (bats >= 1.7 honours this).
export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-120}

# start_sleeper [ARGS for run -d]: a running container whose init sleeps; sets ID and INIT_PID.
start_sleeper() {
	update_config '.process.args = ["sleep", "1000"]'
	ID=$(new_id)
	run_d "$ID" "$@"
	[ "$status" -eq 0 ] || {
		echo "run -d failed: $output" >&2
		return 1
	}
	wait_for_state "$ID" running
	INIT_PID=$(ct_pid "$ID")
}

# with_podman_seccomp: the container gets podman's default seccomp profile.
with_podman_seccomp() {
	update_config ".process.noNewPrivileges = false | .linux.seccomp = $(cat "$FIXTURES/podman-seccomp-oci.json")"
}

# status_of PID FIELD: a field of /proc/PID/status as the host sees it.
status_of() {
	awk -v f="$2:" '$1 == f {print $2}' "/proc/$1/status"
}

start_recvtty() {
	SOCK=$BATS_TEST_TMPDIR/tty.sock
	TTY_OUT=$BATS_TEST_TMPDIR/tty.out
	local bin
	bin=$(recvtty_bin)
	timeout 30 "$bin" "$SOCK" </dev/null >"$TTY_OUT" 2>"$BATS_TEST_TMPDIR/recvtty.err" &
	RECVTTY_PID=$!
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.02; done
	[ -S "$SOCK" ]
}

HELPERS=${CLASP_HELPERS:-$REPO_DIR/build/helpers}

# listener SOCKET OUT [seccomp-listener options]: a seccomp agent in the background; sets LPID.
listener() {
	local sock=$1 out=$2 i
	shift 2
	"$HELPERS/seccomp-listener" -t 30 "$@" "$sock" >"$out" 2>"$out.err" </dev/null &
	LPID=$!
	LISTENER_PIDS+=("$LPID")
	for ((i = 0; i < 200; i++)); do
		[ -S "$sock" ] && return 0
		sleep 0.05
	done
	echo "listener did not create $sock: $(cat "$out.err")" >&2
	return 1
}
LISTENER_PIDS=()

teardown() {
	common_teardown
	[ -z "${RECVTTY_PID:-}" ] || kill "$RECVTTY_PID" 2>/dev/null || true
	local p
	for p in "${LISTENER_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
}

@test "exec joins the pid namespace and hostname, with a different pid" {
	start_sleeper
	run rt exec "$ID" sh -c 'echo "pid=$$"; hostname; readlink /proc/self/ns/pid; ps -o pid,args'
	[ "$status" -eq 0 ]
	[[ "$output" == *clasp-test* ]]
	[[ "$output" == *"sleep 1000"* ]] # the init is visible: same pid namespace
	local pid
	pid=$(echo "$output" | sed -n 's/^pid=//p')
	[ -n "$pid" ] && [ "$pid" != 1 ]
	[[ "$output" == *"$(readlink "/proc/$INIT_PID/ns/pid")"* ]]
}

@test "exec joins every namespace of the init, and its root" {
	start_sleeper
	run rt exec "$ID" sh -c 'for n in pid net ipc uts mnt cgroup user time; do echo "$n $(readlink /proc/self/ns/$n)"; done; ls /'
	[ "$status" -eq 0 ]
	local n
	for n in pid net ipc uts mnt cgroup user time; do
		[ -e "/proc/$INIT_PID/ns/$n" ] || continue
		[[ "$output" == *"$n $(readlink "/proc/$INIT_PID/ns/$n")"* ]] || {
			echo "namespace $n differs: $output" >&2
			return 1
		}
	done
	# The container's root: the rootfs has bin/busybox, and /home/tester.
	[[ "$output" == *home* ]]
}

@test "exec into a container with user, cgroup and time namespaces joins them all" {
	update_config '.linux.namespaces += [{"type":"user"},{"type":"cgroup"},{"type":"time"}]
		| .linux.uidMappings = [{"containerID":0,"hostID":100000,"size":65536}]
		| .linux.gidMappings = [{"containerID":0,"hostID":100000,"size":65536}]'
	start_sleeper
	[ "$(readlink "/proc/$INIT_PID/ns/user")" != "$(ns_host user)" ]
	run rt exec -u 1000:1000 "$ID" sh -c 'id -u; cat /proc/self/uid_map; for n in user cgroup time mnt pid; do echo "$n $(readlink /proc/self/ns/$n)"; done'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000 ]
	[[ "${lines[1]}" == *100000* ]]
	local n
	for n in user cgroup time mnt pid; do
		[[ "$output" == *"$n $(readlink "/proc/$INIT_PID/ns/$n")"* ]]
	done
}

@test "exec gets the container's capabilities and seccomp filter (Seccomp: 2)" {
	with_podman_seccomp
	start_sleeper
	run rt exec "$ID" cat /proc/self/status
	[ "$status" -eq 0 ]
	local eff
	eff=$(echo "$output" | awk '$1 == "CapEff:" {print $2}')
	[ "$eff" = "$(status_of "$INIT_PID" CapEff)" ]
	[ "$(echo "$output" | awk '$1 == "CapBnd:" {print $2}')" = "$(status_of "$INIT_PID" CapBnd)" ]
	[ "$(echo "$output" | awk '$1 == "Seccomp:" {print $2}')" = 2 ]
	# podman's profile denies swapoff whatever the capabilities.
	run rt exec "$ID" swapoff /nonexistent
	[ "$status" -ne 0 ]
	[[ "$output" == *"not permitted"* || "$output" == *"not implemented"* ]]
}

@test "exec: CapInh is 0" {
	start_sleeper
	run rt exec "$ID" grep CapInh /proc/self/status
	[ "$status" -eq 0 ]
	[[ "$output" == *0000000000000000* ]]
	# Also with --cap, which adds to bounding/effective/permitted only.
	run rt exec --cap CAP_SYS_ADMIN "$ID" grep -E 'CapInh|CapEff' /proc/self/status
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *0000000000000000* ]]
	local want
	want=$(printf '%016x' $((0x$(status_of "$INIT_PID" CapEff) | (1 << 21))))
	[[ "${lines[1]}" == *"$want"* ]]
}

@test "exec --no-new-privs sets NoNewPrivs" {
	update_config '.process.noNewPrivileges = false'
	start_sleeper
	run rt exec "$ID" grep NoNewPrivs /proc/self/status
	[[ "$output" == *0 ]]
	run rt exec --no-new-privs "$ID" grep NoNewPrivs /proc/self/status
	[ "$status" -eq 0 ]
	[[ "$output" == *1 ]]
}

@test "exec joins the container's cgroup" {
	start_sleeper
	run rt exec "$ID" cat /proc/self/cgroup
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat "/proc/$INIT_PID/cgroup")" ]
}

@test "exec -u 1000:1000 reports that id; -u 1000 keeps the gid; -g adds groups" {
	start_sleeper
	run rt exec -u 1000:1000 "$ID" id
	[ "$status" -eq 0 ]
	[[ "$output" == *"uid=1000"* && "$output" == *"gid=1000"* ]]
	run rt exec -u 1000 -g 5,6 --additional-gids 7 "$ID" sh -c 'id -u; id -g; id -G'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000 ]
	[ "${lines[1]}" = 0 ]
	[[ "${lines[2]}" == *5*6*7* ]]
}

@test "exec -u with a bad value fails clearly" {
	requires_clasp "wording"
	start_sleeper
	run rt exec -u tester:x "$ID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"--user"* ]]
}

@test "exec passes on the exit status, 128+N for a signal" {
	start_sleeper
	run rt exec "$ID" sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run rt exec "$ID" sh -c 'kill -KILL $$'
	[ "$status" -eq 137 ]
	run rt exec "$ID" true
	[ "$status" -eq 0 ]
}

@test "exec forwards signals to the process" {
	start_sleeper
	rt exec "$ID" sh -c 'trap "echo got-term; exit 3" TERM; echo ready; while :; do sleep 0.1; done' \
		>"$BATS_TEST_TMPDIR/fwd.out" 2>&1 &
	local pid=$!
	wait_for_output "$BATS_TEST_TMPDIR/fwd.out" ready
	# $pid is `timeout`; signal the runtime under it.
	local rtpid
	rtpid=$(pgrep -P "$pid" | head -n1)
	kill -TERM "$rtpid"
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 3 ]
	grep -q got-term "$BATS_TEST_TMPDIR/fwd.out"
}

@test "exec --pid-file is written with the process's host pid" {
	start_sleeper
	local pf=$BATS_TEST_TMPDIR/exec.pid
	# rt_bg: the detached process inherits stdout, so `run` would wait for it.
	rt_bg exec -d --pid-file "$pf" "$ID" sleep 5
	[ "$status" -eq 0 ]
	[ -s "$pf" ]
	local pid
	pid=$(cat "$pf")
	[ "$(readlink "/proc/$pid/ns/pid")" = "$(readlink "/proc/$INIT_PID/ns/pid")" ]
	grep -q sleep "/proc/$pid/cmdline"
	kill -KILL "$pid"
}

@test "exec -d returns at once and the process keeps running" {
	start_sleeper
	# The rootfs is read-only; /dev/shm is the container's tmpfs.
	local t0=$SECONDS
	rt_bg exec -d "$ID" sh -c 'sleep 0.3; echo later >/dev/shm/exec-d.out; sleep 5'
	[ "$status" -eq 0 ]
	[ $((SECONDS - t0)) -lt 4 ]
	sleep 1
	run rt exec "$ID" cat /dev/shm/exec-d.out
	[ "$output" = later ]
}

@test "exec --tty through a console socket" {
	start_sleeper
	start_recvtty
	run rt exec -t --console-socket "$SOCK" "$ID" sh -c 'test -t 0 && test -t 1 && echo is-a-tty; tty'
	[ "$status" -eq 0 ]
	wait_for_output "$TTY_OUT" is-a-tty
	grep -q '/dev/pts/' "$TTY_OUT"
}

@test "exec --tty without a console socket relays the terminal" {
	command -v script >/dev/null || skip "script(1) is not installed"
	start_sleeper
	run timeout 20 script -qec "$RUNTIME --root $CT_ROOT exec -t $ID sh -c 'tty; echo relayed; exit 4'" /dev/null
	[ "$status" -eq 4 ]
	[[ "$output" == *relayed* ]]
	[[ "$output" == */dev/pts/* ]]
}

@test "exec --tty with --detach needs a console socket" {
	start_sleeper
	run rt exec -d -t "$ID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"console socket"* ]]
}

@test "20 concurrent execs all succeed and leave no zombies" {
	start_sleeper
	local i pids=()
	for i in $(seq 20); do
		rt exec "$ID" sh -c "echo ok-$i" >"$BATS_TEST_TMPDIR/c.$i" 2>&1 &
		pids+=($!)
	done
	local failed=0
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || failed=$((failed + 1))
	done
	[ "$failed" -eq 0 ]
	for i in $(seq 20); do
		[ "$(cat "$BATS_TEST_TMPDIR/c.$i")" = "ok-$i" ]
	done
	run rt exec "$ID" ps -o stat,args
	[ "$status" -eq 0 ]
	echo "$output"
	! echo "$output" | awk 'NR > 1 {print $1}' | grep -q Z
	# Only the init and that ps were ever there.
	[ "$(echo "$output" | wc -l)" -eq 3 ]
}

@test "exec: /proc/self/fd shows no leaked fd" {
	start_sleeper
	run rt exec "$ID" ls /proc/self/fd
	[ "$status" -eq 0 ]
	# 0, 1, 2 and the fd ls itself opens on the directory.
	[ "$(echo "$output" | tr '\n' ' ')" = "0 1 2 3 " ]
}

@test "exec --preserve-fds passes exactly the extra fds" {
	start_sleeper
	run rt exec --preserve-fds 1 "$ID" ls /proc/self/fd 3</dev/null
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | tr '\n' ' ')" = "0 1 2 3 4 " ]
}

@test "exec refuses a cwd outside the container root (CVE-2024-21626)" {
	start_sleeper
	# fd 7 is a host directory handed in on purpose; /proc/self/fd/7 leads out of the rootfs.
	run rt exec --preserve-fds 5 --cwd /proc/self/fd/7 "$ID" pwd 3</dev/null 4</dev/null 5</dev/null 6</dev/null 7</tmp
	[ "$status" -ne 0 ]
	[[ "$output" != /tmp* ]]
	# And with no fd behind it: nothing of the runtime is open there.
	run rt exec --cwd /proc/self/fd/7 "$ID" pwd
	[ "$status" -ne 0 ]
}

@test "exec --cwd and -e override the config" {
	start_sleeper
	run rt exec --cwd /tmp -e TERM=dumb -e NEWVAR=1 "$ID" sh -c 'pwd; echo "$TERM $NEWVAR"; env | grep -c ^TERM='
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = /tmp ]
	[ "${lines[1]}" = "dumb 1" ]
	[ "${lines[2]}" = 1 ]
}

@test "exec --process FILE runs that process" {
	start_sleeper
	cat >"$BATS_TEST_TMPDIR/process.json" <<-'EOF'
		{
			"terminal": false,
			"user": {"uid": 1000, "gid": 1000, "additionalGids": [5]},
			"args": ["sh", "-c", "id -u; id -G; pwd; echo $FROM"],
			"env": ["PATH=/bin:/usr/bin", "FROM=process-json"],
			"cwd": "/tmp",
			"noNewPrivileges": true
		}
	EOF
	run rt exec --process "$BATS_TEST_TMPDIR/process.json" "$ID"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000 ]
	[[ "${lines[1]}" == *5* ]]
	[ "${lines[2]}" = /tmp ]
	[ "${lines[3]}" = process-json ]
}

@test "exec --process with a bad file names the field" {
	requires_clasp "wording"
	start_sleeper
	echo '{"args": ["true"], "cwd": 5}' >"$BATS_TEST_TMPDIR/bad.json"
	run rt exec --process "$BATS_TEST_TMPDIR/bad.json" "$ID"
	[ "$status" -ne 0 ]
	[[ "$output" == *cwd* ]]
}

@test "exec in a stopped container fails" {
	update_config '.process.args = ["true"]'
	local id
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ]
	wait_for_state "$id" stopped
	run rt exec "$id" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot exec in a stopped container"* ]]
}

@test "exec in a created, not started container fails" {
	requires_clasp "runc allows it"
	local id
	id=$(new_id)
	update_config '.process.args = ["sleep", "1000"]'
	create "$id"
	[ "$status" -eq 0 ]
	run rt exec "$id" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot exec in a created container"* ]]
}

@test "exec in an unknown container fails" {
	run rt exec "ct-$$-none" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"does not exist"* ]]
}

@test "exec in a paused container needs --ignore-paused" {
	start_sleeper
	run rt pause "$ID"
	[ "$status" -eq 0 ] || skip "pause is not available: $output"
	run rt exec "$ID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *paused* ]]
	rt exec --ignore-paused "$ID" echo after-resume >"$BATS_TEST_TMPDIR/ip.out" 2>&1 &
	local pid=$!
	sleep 0.5
	run rt resume "$ID"
	[ "$status" -eq 0 ]
	wait "$pid"
	[ "$(cat "$BATS_TEST_TMPDIR/ip.out")" = after-resume ]
}

@test "exec --apparmor and --process-label are refused clearly" {
	requires_clasp "runc supports them"
	start_sleeper
	run rt exec --apparmor unconfined "$ID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"not supported"* ]]
	run rt exec --process-label system_u:system_r:container_t:s0 "$ID" true
	[ "$status" -ne 0 ]
	[[ "$output" == *"not supported"* ]]
}

@test "exec of a missing command fails with no such file" {
	start_sleeper
	run rt exec "$ID" /bin/no-such-binary
	[ "$status" -ne 0 ]
	[[ "$output" == *"no such file or directory"* || "$output" == *"not found"* ]]
}

@test "exec needs a command" {
	start_sleeper
	run rt exec "$ID"
	[ "$status" -ne 0 ]
}

@test "exec with a NOTIFY profile hands the new process's notify fd to the listener" {
	[ -x "$HELPERS/seccomp-listener" ] || skip "build/helpers/seccomp-listener is not built"
	local sock=$BATS_TEST_TMPDIR/l.sock
	# The first agent serves the init (it lets everything run), the second one the exec.
	listener "$sock" "$BATS_TEST_TMPDIR/l1.out" -n 0 -c
	update_config "$(printf '.linux.seccomp = {"defaultAction": "SCMP_ACT_ALLOW", "listenerPath": "%s",
		"syscalls": [{"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_NOTIFY"}]}' "$sock")"
	start_sleeper
	wait_for_output "$BATS_TEST_TMPDIR/l1.out" "fds: 1"
	listener "$sock" "$BATS_TEST_TMPDIR/l2.out" -n 1 -e 38
	local l2=$LPID
	run rt exec "$ID" sh -c 'mkdir /dev/shm/d; echo rc=$?'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Function not implemented"* ]]
	wait "$l2"
	cat "$BATS_TEST_TMPDIR/l2.out"
	grep -qx 'fds: 1' "$BATS_TEST_TMPDIR/l2.out"
	grep -q '^notify: .*name=mkdir.*-> errno 38$' "$BATS_TEST_TMPDIR/l2.out"
	local state
	state=$(sed -n 's/^state: //p' "$BATS_TEST_TMPDIR/l2.out")
	[ "$(jq -r .state.id <<<"$state")" = "$ID" ]
	[ "$(jq -r .pid <<<"$state")" != "$INIT_PID" ]
}
