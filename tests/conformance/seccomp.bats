#!/usr/bin/env bats
# config-linux.md v1.3.0, "Seccomp" and "The Container Process State": every MUST of the section,
# with the sentence (shortened) in the test name, checked through the runtime on busybox bundles.

load ../integration/helpers

HELPERS=${CLASP_HELPERS:-$REPO_DIR/build/helpers}

setup() {
	common_setup
	AGENT_PID=
	# A writable /tmp, so an allowed mkdir succeeds.
	update_config '.mounts += [{destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=1777"]}]'
}

teardown() {
	if [ -n "${AGENT_PID:-}" ] && kill -0 "$AGENT_PID" 2>/dev/null; then
		kill "$AGENT_PID" 2>/dev/null || true
		wait "$AGENT_PID" 2>/dev/null || true
	fi
	# A runtime may keep a compiled-filter cache under its root (clasp: .seccomp-cache): not state.
	rm -rf "${CT_ROOT:?}/.seccomp-cache"
	common_teardown
}

profile() { update_config ".linux.seccomp = $1"; }

# A seccomp agent that records how the runtime talks to it, without answering notifications
# (the containers here never make a notified call). For each accepted connection it writes one
# JSON line to OUT: every recvmsg (offset, bytes, number of fds), whether EOF was seen, the
# payload, and what each received fd is. `agent SOCKET OUT CONNECTIONS [stream|dgram|seqpacket]`.
agent_source() {
	cat <<'EOF'
import array, json, os, socket, sys
path, out, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
kind = {"stream": socket.SOCK_STREAM, "dgram": socket.SOCK_DGRAM,
        "seqpacket": socket.SOCK_SEQPACKET}[sys.argv[4] if len(sys.argv) > 4 else "stream"]
s = socket.socket(socket.AF_UNIX, kind)
s.settimeout(25)
s.bind(path)
if kind == socket.SOCK_DGRAM:
    open(out + ".ready", "w").close()
    try:
        data, anc, flags, addr = s.recvmsg(1 << 20, socket.CMSG_SPACE(64))
        with open(out, "a") as f:
            f.write(json.dumps({"dgram": data.decode(errors="replace")}) + "\n")
    except socket.timeout:
        pass
    sys.exit(0)
s.listen(8)
open(out + ".ready", "w").close()
for _ in range(count):
    c, _ = s.accept()
    c.settimeout(20)
    chunks, payload, links, eof = [], b"", [], False
    while True:
        fds = array.array("i")
        try:
            data, anc, flags, addr = c.recvmsg(1 << 16, socket.CMSG_SPACE(16 * fds.itemsize))
        except socket.timeout:
            break
        n = 0
        for level, typ, cdata in anc:
            if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                got = array.array("i")
                got.frombytes(cdata[: len(cdata) - (len(cdata) % got.itemsize)])
                for fd in got:
                    links.append(os.readlink("/proc/self/fd/%d" % fd))
                    n += 1
        if not data and not anc:
            eof = True
            break
        chunks.append([len(payload), len(data), n])
        payload += data
    with open(out, "a") as f:
        f.write(json.dumps({"chunks": chunks, "eof": eof, "fd_links": links,
                            "payload": payload.decode(errors="replace")}) + "\n")
    c.close()
EOF
}

# start_agent SOCKET CONNECTIONS [KIND]: AGENT_OUT gets one line per connection.
start_agent() {
	local sock=$1 n=$2 kind=${3:-stream} i
	command -v python3 >/dev/null || skip "python3 is needed for the recording seccomp agent"
	AGENT_OUT=$BATS_TEST_TMPDIR/agent.out
	agent_source >"$BATS_TEST_TMPDIR/agent.py"
	: >"$AGENT_OUT"
	timeout 40 python3 "$BATS_TEST_TMPDIR/agent.py" "$sock" "$AGENT_OUT" "$n" "$kind" \
		2>"$BATS_TEST_TMPDIR/agent.err" 3>&- </dev/null &
	AGENT_PID=$!
	for ((i = 0; i < 200; i++)); do
		[ -e "$AGENT_OUT.ready" ] && return 0
		sleep 0.05
	done
	echo "agent did not start: $(cat "$BATS_TEST_TMPDIR/agent.err")" >&2
	return 1
}

# wait_agent_lines N: until AGENT_OUT has N lines.
wait_agent_lines() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(wc -l <"$AGENT_OUT")" -ge "$1" ] && return 0
		sleep 0.05
	done
	echo "agent wrote $(wc -l <"$AGENT_OUT") of $1 lines: $(cat "$AGENT_OUT" "$BATS_TEST_TMPDIR/agent.err")" >&2
	return 1
}

notify_profile() {
	profile "{defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"$1\", ${2:+listenerMetadata: \"$2\",}
		syscalls: [{names: [\"mkdir\", \"mkdirat\"], action: \"SCMP_ACT_NOTIFY\"}]}"
}

# rejected: create must fail with a message and leave nothing behind.
rejected() {
	local id
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ] || {
		echo "create accepted $(jq -c .linux.seccomp "$BUNDLE/config.json")"
		return 1
	}
	[ -n "$output" ] || {
		echo "create failed without printing an error"
		return 1
	}
	assert_no_trace "$id"
}

@test "seccomp: \"actions ... are translated to corresponding values\" (each action's kernel effect)" {
	# ERRNO, TRACE (no tracer: ENOSYS), ALLOW and LOG let the shell go on; KILL*, TRAP kill mkdir
	# with SIGSYS (status 128+31).
	local pair action want
	for pair in 'SCMP_ACT_ERRNO:rc=1' 'SCMP_ACT_TRACE:rc=1' 'SCMP_ACT_LOG:rc=0' 'SCMP_ACT_KILL:rc=159' \
		'SCMP_ACT_KILL_THREAD:rc=159' 'SCMP_ACT_KILL_PROCESS:rc=159' 'SCMP_ACT_TRAP:rc=159'; do
		action=${pair%%:*} want=${pair#*:}
		profile "{defaultAction: \"SCMP_ACT_ALLOW\", syscalls: [{names: [\"mkdir\", \"mkdirat\"], action: \"$action\"}]}"
		in_container 'mkdir /tmp/d; echo rc=$?'
		[ "$status" -eq 0 ] || { echo "$action: $output"; return 1; }
		[[ "$output" == *"$want"* ]] || { echo "$action: wanted $want: $output"; return 1; }
		case $action in
		SCMP_ACT_ERRNO) [[ "$output" == *"Operation not permitted"* ]] ;;
		SCMP_ACT_TRACE) [[ "$output" == *"Function not implemented"* ]] ;;
		esac
	done
}

@test "seccomp: the spec's example profile (getcwd, chmod → SCMP_ACT_ERRNO) works" {
	profile '{"defaultAction": "SCMP_ACT_ALLOW", "architectures": ["SCMP_ARCH_X86", "SCMP_ARCH_X32"],
		"syscalls": [{"names": ["getcwd", "chmod"], "action": "SCMP_ACT_ERRNO"}]}'
	[ "$(uname -m)" = x86_64 ] || skip "the example's architectures are x86's"
	in_container 'touch /tmp/f; chmod 600 /tmp/f; echo chmod=$?; ls /tmp >/dev/null && echo ls-ok'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	[[ "$output" == *chmod=1* ]]
	[[ "$output" == *ls-ok* ]]
}

@test "defaultErrnoRet: \"The default is EPERM\"; a set value is returned" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO"}]}'
	in_container 'mkdir /tmp/d'
	[ "$status" -eq 1 ]
	[[ "$output" == *"Operation not permitted"* ]]
	# defaultErrnoRet on an ERRNO default: unlisted syscalls (mkdir) get it. Everything else
	# busybox and the runtime touch is allowed by an explicit list (all but mkdir/mkdirat).
	local names
	names=$(grep -E '^#define __NR_[a-z0-9_]+ ' /usr/include/x86_64-linux-gnu/asm/unistd_64.h 2>/dev/null |
		awk '{sub("__NR_", "", $2); print $2}' | grep -vxE 'mkdir|mkdirat' | jq -R . | jq -sc .)
	[ "$names" != "[]" ] && [ -n "$names" ] || skip "no asm/unistd_64.h to list syscalls"
	profile "{defaultAction: \"SCMP_ACT_ERRNO\", defaultErrnoRet: 38, syscalls: [{names: $names, action: \"SCMP_ACT_ALLOW\"}]}"
	in_container 'mkdir /tmp/d'
	[ "$status" -eq 1 ]
	[[ "$output" == *"Function not implemented"* ]]
}

@test "errnoRet: \"The default is EPERM\"; ERRNO and TRACE take an errnoRet" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_ERRNO", errnoRet: 38}]}'
	in_container 'mkdir /tmp/d'
	[ "$status" -eq 1 ]
	[[ "$output" == *"Function not implemented"* ]]
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir", "mkdirat"], action: "SCMP_ACT_TRACE", errnoRet: 7}]}'
	in_container 'mkdir /tmp/d; echo rc=$?'
	[ "$status" -eq 0 ]
	[[ "$output" == *rc=1* ]]
}

@test "defaultErrnoRet: \"When the action doesn't support an errno, the runtime MUST print and error and fail\"" {
	local a
	for a in SCMP_ACT_ALLOW SCMP_ACT_KILL SCMP_ACT_KILL_PROCESS SCMP_ACT_KILL_THREAD SCMP_ACT_TRAP SCMP_ACT_LOG; do
		profile "{defaultAction: \"$a\", defaultErrnoRet: 5, syscalls: [{names: [\"mkdir\"], action: \"SCMP_ACT_ERRNO\"}]}"
		rejected || { echo "defaultAction $a"; return 1; }
	done
}

@test "errnoRet: \"When the action doesn't support an errno, the runtime MUST print and error and fail\"" {
	local a
	for a in SCMP_ACT_KILL SCMP_ACT_KILL_PROCESS SCMP_ACT_KILL_THREAD SCMP_ACT_TRAP SCMP_ACT_LOG; do
		profile "{defaultAction: \"SCMP_ACT_ALLOW\", syscalls: [{names: [\"mkdir\"], action: \"$a\", errnoRet: 5}]}"
		rejected || { echo "action $a"; return 1; }
	done
	profile '{defaultAction: "SCMP_ACT_ERRNO", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ALLOW", errnoRet: 5}]}'
	rejected
	profile "{defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"$BATS_TEST_TMPDIR/x.sock\",
		syscalls: [{names: [\"mkdir\"], action: \"SCMP_ACT_NOTIFY\", errnoRet: 5}]}"
	rejected
}

@test "syscalls: \"names MUST contain at least one entry\" (an empty names is refused)" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO"}, {names: [], action: "SCMP_ACT_ERRNO"}]}'
	rejected
}

@test "listenerMetadata: \"MUST NOT be set if listenerPath is not set\" (refused)" {
	profile '{defaultAction: "SCMP_ACT_ALLOW", listenerMetadata: "m", syscalls: [{names: ["mkdir"], action: "SCMP_ACT_ERRNO"}]}'
	rejected
}

@test "listenerPath: \"If the SCMP_ACT_NOTIFY action is not used this value is ignored\"" {
	profile "{defaultAction: \"SCMP_ACT_ALLOW\", listenerPath: \"$BATS_TEST_TMPDIR/nobody.sock\",
		syscalls: [{names: [\"mkdir\", \"mkdirat\"], action: \"SCMP_ACT_ERRNO\"}]}"
	in_container 'mkdir /tmp/d; echo rc=$?'
	[ "$status" -eq 0 ]
	[[ "$output" == *rc=1* ]]
}

@test "listenerPath: \"This socket MUST use AF_UNIX domain and SOCK_STREAM type\"" {
	local sock=$BATS_TEST_TMPDIR/a.sock id
	start_agent "$sock" 1 stream
	notify_profile "$sock"
	update_config '.process.args = ["true"]'
	id=$(new_id)
	create "$id"
	[ "$status" -eq 0 ]
	wait_agent_lines 1
	[ "$(jq -r '.payload | fromjson | .state.id' "$AGENT_OUT")" = "$id" ]
	wait "$AGENT_PID"
	AGENT_PID=
	# A datagram socket at listenerPath is not what the runtime must talk to: create fails.
	rm -f "$sock" "$AGENT_OUT.ready"
	start_agent "$sock" 1 dgram
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
	[ ! -s "$AGENT_OUT" ]
}

@test "listenerPath: \"The runtime MUST send exactly one container process state per connection\"" {
	local sock=$BATS_TEST_TMPDIR/a.sock id
	start_agent "$sock" 1
	notify_profile "$sock"
	update_config '.process.args = ["true"]'
	id=$(new_id)
	create "$id"
	[ "$status" -eq 0 ]
	wait_agent_lines 1
	# The whole payload is one JSON document: one object, nothing after it.
	[ "$(jq -r .payload "$AGENT_OUT" | jq -s length)" = 1 ]
	[ "$(jq -r '.payload | fromjson | type' "$AGENT_OUT")" = object ]
}

@test "listenerPath: \"The connection MUST NOT be reused and it MUST be closed after sending\"" {
	local sock=$BATS_TEST_TMPDIR/a.sock id1 id2
	start_agent "$sock" 2
	notify_profile "$sock"
	update_config '.process.args = ["true"]'
	id1=$(new_id)
	create "$id1"
	[ "$status" -eq 0 ]
	# Closed: the agent sees EOF while the container is still only created.
	wait_agent_lines 1
	[ "$(sed -n 1p "$AGENT_OUT" | jq .eof)" = true ]
	[ "$(ct_status "$id1")" = created ]
	id2=$(new_id)
	create "$id2"
	[ "$status" -eq 0 ]
	# Not reused: the second container's state comes over a second connection.
	wait_agent_lines 2
	[ "$(sed -n 1p "$AGENT_OUT" | jq -r '.payload | fromjson | .state.id')" = "$id1" ]
	[ "$(sed -n 2p "$AGENT_OUT" | jq -r '.payload | fromjson | .state.id')" = "$id2" ]
	[ "$(sed -n 2p "$AGENT_OUT" | jq .eof)" = true ]
}

@test "listenerPath: \"If sending to this socket fails, the runtime MUST generate an error\"" {
	# Nothing listening at the path.
	notify_profile "$BATS_TEST_TMPDIR/nobody.sock"
	rejected
	# A regular file at the path.
	: >"$BATS_TEST_TMPDIR/file.sock"
	notify_profile "$BATS_TEST_TMPDIR/file.sock"
	rejected
	# A socket nobody accepts on any more (bound, listening backlog closed): the agent is gone.
	local sock=$BATS_TEST_TMPDIR/gone.sock
	start_agent "$sock" 1
	kill "$AGENT_PID"
	wait "$AGENT_PID" 2>/dev/null || true
	AGENT_PID=
	notify_profile "$sock"
	rejected
}

@test "container process state: \"MUST send ... as regular payload serialized in JSON and file descriptors MUST be sent using SCM_RIGHTS\"" {
	local sock=$BATS_TEST_TMPDIR/a.sock id
	start_agent "$sock" 1
	notify_profile "$sock" "md-1"
	update_config '.process.args = ["true"]'
	id=$(new_id)
	create "$id"
	[ "$status" -eq 0 ]
	wait_agent_lines 1
	cat "$AGENT_OUT"
	jq -e '.payload | fromjson' "$AGENT_OUT" >/dev/null
	# One fd, the one the seccomp syscall returned: a seccomp notify fd.
	[ "$(jq '.fd_links | length' "$AGENT_OUT")" = 1 ]
	[ "$(jq -r '.fd_links[0]' "$AGENT_OUT")" = "anon_inode:seccomp notify" ]
	# Its name in fds, at the same index.
	[ "$(jq -c '.payload | fromjson | .fds' "$AGENT_OUT")" = '["seccompFd"]' ]
}

@test "container process state: \"If more than one sendmsg(2) is used, the file descriptors MUST be sent only in the first call\"" {
	local sock=$BATS_TEST_TMPDIR/a.sock id
	start_agent "$sock" 1
	notify_profile "$sock"
	update_config '.process.args = ["true"]'
	id=$(new_id)
	create "$id"
	[ "$status" -eq 0 ]
	wait_agent_lines 1
	cat "$AGENT_OUT"
	# The fds arrive with the data at offset 0, and with no other part of the payload.
	[ "$(jq -c '.chunks[0][0], .chunks[0][2]' "$AGENT_OUT" | tr '\n' ' ')" = "0 1 " ]
	[ "$(jq '[.chunks[1:][] | .[2]] | add // 0' "$AGENT_OUT")" = 0 ]
}

@test "container process state: ociVersion, fds [\"seccompFd\"], pid (as seen by the runtime), metadata, state" {
	local sock=$BATS_TEST_TMPDIR/a.sock id p
	start_agent "$sock" 1
	notify_profile "$sock" "MKNOD=/dev/null;x"
	update_config '.process.args = ["true"] | .annotations = {"myKey": "myValue"}'
	id=$(new_id)
	create "$id"
	[ "$status" -eq 0 ]
	wait_agent_lines 1
	p=$(jq -r .payload "$AGENT_OUT")
	echo "$p"
	[ "$(jq -r '.ociVersion | type' <<<"$p")" = string ]
	[ -n "$(jq -r .ociVersion <<<"$p")" ]
	[ "$(jq -c .fds <<<"$p")" = '["seccompFd"]' ]
	[ "$(jq -r .metadata <<<"$p")" = "MKNOD=/dev/null;x" ]
	[ "$(jq -r '.pid | type' <<<"$p")" = number ]
	[ "$(jq -r .pid <<<"$p")" = "$(ct_pid "$id")" ]
	[ "$(jq -r .state.id <<<"$p")" = "$id" ]
	[ "$(jq -r .state.pid <<<"$p")" = "$(ct_pid "$id")" ]
	[ "$(jq -r .state.bundle <<<"$p")" = "$BUNDLE" ]
	[ -n "$(jq -r '.state.ociVersion // empty' <<<"$p")" ]
	[[ "$(jq -r .state.status <<<"$p")" =~ ^(creating|created)$ ]]
	[ "$(jq -r .state.annotations.myKey <<<"$p")" = myValue ]
}

@test "seccompFd: \"the seccomp file descriptor returned by the seccomp syscall\" answers notifications" {
	[ -x "$HELPERS/seccomp-listener" ] || skip "build the helpers (make helpers)"
	local sock=$BATS_TEST_TMPDIR/l.sock out=$BATS_TEST_TMPDIR/l.out
	"$HELPERS/seccomp-listener" -t 30 -n 0 -e 38 "$sock" >"$out" 2>&1 3>&- </dev/null &
	AGENT_PID=$!
	local i
	for ((i = 0; i < 200; i++)); do [ -S "$sock" ] && break; sleep 0.05; done
	notify_profile "$sock"
	in_container 'mkdir /tmp/d'
	[ "$status" -eq 1 ]
	[[ "$output" == *"Function not implemented"* ]]
	for ((i = 0; i < 200; i++)); do kill -0 "$AGENT_PID" 2>/dev/null || break; sleep 0.05; done
	wait "$AGENT_PID"
	AGENT_PID=
	grep -q 'name=mkdir .*-> errno 38' "$out"
}
