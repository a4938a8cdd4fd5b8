#!/usr/bin/env bats
# The ing.paperclip.* annotations (spec/annotations.md) through the real runtime: filesystem scope
# for an image rootfs and a host-root bundle, network deny, copy realization (write-back only at
# delete, conflicts, resume after a failed write-back), refusals that leave nothing behind, and
# the env scrub. Every test is clasp-specific.

load helpers

setup() {
	common_setup
	requires_clasp "ing.paperclip annotations"
	make_bundle --copy
	WS=$BATS_TEST_TMPDIR/ws
	mkdir -p "$WS" "$BATS_TEST_TMPDIR/ro"
	echo ws-content >"$WS/file"
	echo ro-content >"$BATS_TEST_TMPDIR/ro/file"
	CANARY_DIR=$(mktemp -d /root/clasp-canary.XXXXXX)
	echo secret >"$CANARY_DIR/canary"
}

teardown() {
	chattr -R -i "$WS" 2>/dev/null || true
	[ -z "${SERVER_PID:-}" ] || kill "$SERVER_PID" 2>/dev/null || true
	[ -z "${CANARY_DIR:-}" ] || rm -rf "$CANARY_DIR"
	rm -rf "$BATS_TEST_TMPDIR"/.clasp-copy-* 2>/dev/null || true
	common_teardown
}

# annotate KEY VALUE
annotate() {
	update_config "$(printf '.annotations[%s] = %s' "$(jq -Rn --arg v "$1" '$v')" "$(jq -Rn --arg v "$2" '$v')")"
}

scope_workspace() {
	annotate ing.paperclip.fs.scope workspace
	annotate ing.paperclip.fs.workspace "$WS"
	annotate ing.paperclip.fs.workspace-target /mnt
	annotate ing.paperclip.fs.extra-paths "[\"$BATS_TEST_TMPDIR/ro\"]"
}

host_root_bundle() {
	update_config '.root.path = "/" | .root.readonly = true'
}

copies_left() {
	ls -d "$BATS_TEST_TMPDIR"/.clasp-copy-* 2>/dev/null || true
}

# The checks shared by the image-rootfs and host-root cases. $1: the workspace path inside.
fs_checks() {
	local w=$1
	in_container "
		cat $CANARY_DIR/canary 2>&1; echo canary=\$?
		echo written >$w/new && echo ws-write=ok
		cat $BATS_TEST_TMPDIR/ro/file
		echo x >$BATS_TEST_TMPDIR/ro/file 2>/dev/null && echo ro-write=BAD || echo ro-write=refused
		touch /rootfs-write 2>/dev/null && echo rootfs-write=BAD || echo rootfs-write=refused
		echo t >/tmp/t && echo tmp-write=ok
		cat $w/file"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"No such file or directory"* ]]
	[[ "$output" == *"canary=1"* ]]
	[[ "$output" != *secret* ]]
	[[ "$output" == *"ws-write=ok"* ]]
	[[ "$output" == *"ro-content"* ]]
	[[ "$output" == *"ro-write=refused"* ]]
	[[ "$output" == *"rootfs-write=refused"* ]]
	[[ "$output" == *"tmp-write=ok"* ]]
	[[ "$output" == *"ws-content"* ]]
	[ "$(cat "$WS/new")" = written ]
	[ "$(cat "$BATS_TEST_TMPDIR/ro/file")" = ro-content ]
}

@test "fs.scope=workspace with an image rootfs: canary hidden, workspace rw, extra path ro, rootfs ro" {
	scope_workspace
	fs_checks /mnt
}

@test "fs.scope=workspace with a host-root bundle: the bubblewrap-style view" {
	host_root_bundle
	scope_workspace
	annotate ing.paperclip.fs.workspace-target "$WS"
	fs_checks "$WS"
	# system directories are there read-only, the host's home and /root are not
	in_container 'ls /usr/bin/env >/dev/null && echo usr=ok; touch /usr/x 2>/dev/null && echo usr-write=BAD; ls /root 2>&1; ls /home 2>&1; cat /etc/passwd | head -n1'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"usr=ok"* ]]
	[[ "$output" != *"usr-write=BAD"* ]]
	[[ "$output" == *"root:x:0:0"* ]]
	[ "$(grep -c 'No such file or directory' <<<"$output")" -ge 2 ]
}

@test "a foreign bind mount is refused, with nothing left behind" {
	scope_workspace
	update_config '.mounts += [{"destination": "/hostetc", "type": "bind", "source": "/etc", "options": ["rbind"]}]'
	id=$(new_id)
	create "$id"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *'bind mount of host path "/etc" at "/hostetc" is not allowed; declare it in ing.paperclip.fs.extra-paths'* ]]
	assert_no_trace "$id"
}

@test "an unknown ing.paperclip key and a wildcard allowlist entry are refused" {
	annotate ing.paperclip.fs.scop workspace
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"ing.paperclip.fs.scop: unknown annotation"* ]]
	assert_no_trace "$id"

	make_bundle --copy
	annotate ing.paperclip.net.scope allowlist
	annotate ing.paperclip.net.allowlist '["a.example", "b.example", "*.x.example"]'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"ing.paperclip.net.allowlist[2]: use an exact hostname; wildcards are not supported"* ]]
	assert_no_trace "$id"
}

@test "fs.scope without a pid namespace is refused" {
	scope_workspace
	update_config '.linux.namespaces |= map(select(.type != "pid"))'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"requires a new pid namespace"* ]]
	assert_no_trace "$id"
}

@test "net.scope=deny: only lo, and a host 127.0.0.1 server is unreachable" {
	# A host listener on 127.0.0.1 (the backlog completes connects without accept).
	timeout 60 python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$BATS_TEST_TMPDIR/port" &
	SERVER_PID=$!
	wait_for_file "$BATS_TEST_TMPDIR/port"
	port=$(cat "$BATS_TEST_TMPDIR/port")
	# the control: the host itself reaches it
	busybox nc -w 2 127.0.0.1 "$port" </dev/null
	annotate ing.paperclip.net.scope deny
	update_config '.linux.namespaces |= map(select(.type != "network"))'
	in_container "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; ip link show lo | grep -q UP && echo lo-up; busybox nc -w 2 127.0.0.1 $port </dev/null 2>/dev/null && echo connect=BAD || echo connect=failed"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(head -n1 <<<"$output")" = lo ]
	[ "$(grep -cv -e '^lo$' -e lo-up -e connect= <<<"$output")" -eq 0 ]
	[[ "$output" == *"lo-up"* ]]
	[[ "$output" == *"connect=failed"* ]]
}

@test "net.scope=deny refuses to join an existing network namespace" {
	annotate ing.paperclip.net.scope deny
	update_config '.linux.namespaces |= map(if .type == "network" then .path = "/proc/1/ns/net" else . end)'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *'joining the existing network namespace "/proc/1/ns/net" is not allowed'* ]]
	[[ "$output" == *"podman --network=none"* ]]
	assert_no_trace "$id"
}

@test "net.scope=allowlist: proxy env set, the proxy listens in the container" {
	[ -x "$REPO_DIR/build/clasp-egress" ] || skip "build/clasp-egress not built"
	annotate ing.paperclip.net.scope allowlist
	annotate ing.paperclip.net.allowlist '["example.com"]'
	update_config '.process.env += ["HTTP_PROXY=http://evil:1", "no_proxy=*", "ALL_PROXY=socks5://x"]'
	# 0100007F:7A69 is 127.0.0.1:31337 in /proc/net/tcp, which shows the container's netns
	in_container 'env | grep -i -e proxy= -e _proxy= | sort; echo listening=$(grep -c " 0100007F:7A69 " /proc/net/tcp)'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"HTTP_PROXY=http://127.0.0.1:31337"* ]]
	[[ "$output" == *"https_proxy=http://127.0.0.1:31337"* ]]
	[[ "$output" == *"NODE_USE_ENV_PROXY=1"* ]]
	[[ "$output" == *"listening=1"* ]]
	[[ "$output" != *evil* ]]
	[[ "$output" != *socks5* ]]
	[[ "$output" != *"no_proxy=*"* ]]
}

copy_mode() {
	scope_workspace
	annotate ing.paperclip.workspace.realization copy
	annotate ing.paperclip.workspace.path-aliases "[{\"path\":\"/app\",\"target\":\"$WS\"}]"
}

@test "copy realization: changes reach the host only at delete, exactly once" {
	copy_mode
	echo gone >"$WS/del"
	set_cmd 'echo agent >/mnt/file; echo new >/app/created; rm /mnt/del; echo $PAPERCLIP_WORKSPACE_REALIZATION_MODE $PAPERCLIP_WORKSPACE_ROOT'
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ]
	wait_for_state "$id" stopped
	cat "$CT_OUT"
	grep -q "copy /mnt" "$CT_OUT"
	# before delete the host is untouched, and the copy exists
	[ "$(cat "$WS/file")" = ws-content ]
	[ ! -e "$WS/created" ]
	[ -e "$WS/del" ]
	[ -n "$(copies_left)" ]
	run rt delete "$id"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$WS/file")" = agent ]
	[ "$(cat "$WS/created")" = new ]
	[ ! -e "$WS/del" ]
	[ -z "$(copies_left)" ]
}

@test "copy realization: a host change during the run is kept, the agent's saved as .clasp-conflict" {
	copy_mode
	set_cmd 'echo agent >/mnt/file'
	id=$(new_id)
	run_d "$id"
	wait_for_state "$id" stopped
	echo host-changed >"$WS/file"
	run rt delete "$id"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$WS/file")" = host-changed ]
	[ "$(cat "$WS/file.clasp-conflict")" = agent ]
	[[ "$output" == *"$WS/file"* ]]
	[[ "$output" == *"file.clasp-conflict"* ]]
}

@test "copy realization: a failed write-back keeps the copy, and a second delete resumes it" {
	copy_mode
	mkdir "$WS/locked"
	set_cmd 'for i in 1 2 3 4 5; do echo a$i >/mnt/f$i; done; echo agent >/mnt/locked/x'
	id=$(new_id)
	run_d "$id"
	wait_for_state "$id" stopped
	chattr +i "$WS/locked" || skip "chattr +i not supported here"
	run rt delete "$id"
	echo "$output"
	[ "$status" -ne 0 ]
	[ -n "$(copies_left)" ]
	[ -e "$CT_ROOT/$id" ]
	chattr -i "$WS/locked"
	run rt delete "$id"
	echo "$output"
	[ "$status" -eq 0 ]
	for i in 1 2 3 4 5; do [ "$(cat "$WS/f$i")" = "a$i" ]; done
	[ "$(cat "$WS/locked/x")" = agent ]
	[ -z "$(copies_left)" ]
}

@test "copy realization: a writable path without a restore mapping is refused up front, no copy made" {
	copy_mode
	mkdir -p "$BATS_TEST_TMPDIR/cache"
	annotate ing.paperclip.fs.extra-paths "[{\"path\":\"$BATS_TEST_TMPDIR/cache\",\"access\":\"rw\"}]"
	id=$(new_id)
	create "$id"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Writable sandbox path \"$BATS_TEST_TMPDIR/cache\" is outside synchronized workspace \"$WS\" and has no outbound restore mapping."* ]]
	assert_no_trace "$id"
	[ -z "$(copies_left)" ]
}

@test "copy realization: a failure after the copy removes it again" {
	copy_mode
	# the alias target does not exist: refused by prepare, after the plan was written
	annotate ing.paperclip.workspace.path-aliases "[{\"path\":\"/app\",\"target\":\"$WS/missing\"}]"
	id=$(new_id)
	create "$id"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"does not exist"* ]]
	assert_no_trace "$id"
	[ -z "$(copies_left)" ]
	[ "$(cat "$WS/file")" = ws-content ]
}

@test "env scrub: host-only secrets removed, workspace variables set" {
	scope_workspace
	update_config '.process.env += ["PAPERCLIPAI_CMD=x", "DATABASE_URL=postgres://s", "PGPASSWORD=s", "JWT_SECRET=s", "PAPERCLIP_API_KEY=s", "PAPERCLIP_RUNTIME_API_URL=http://127.0.0.1:3100", "PAPERCLIP_LISTEN_PORT=3100", "KEEP_ME=1"]'
	in_container 'env | sort'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *PAPERCLIPAI_CMD* ]]
	[[ "$output" != *DATABASE_URL* ]]
	[[ "$output" != *PGPASSWORD* ]]
	[[ "$output" != *JWT_SECRET* ]]
	[[ "$output" != *PAPERCLIP_API_KEY* ]]
	[[ "$output" == *"PAPERCLIP_RUNTIME_API_URL=http://127.0.0.1:3100"* ]]
	[[ "$output" == *"PAPERCLIP_LISTEN_PORT=3100"* ]]
	[[ "$output" == *"KEEP_ME=1"* ]]
	[[ "$output" == *"PAPERCLIP_WORKSPACE_REALIZATION_MODE=in_place"* ]]
	[[ "$output" == *"PAPERCLIP_WORKSPACE_ROOT=/mnt"* ]]
}

@test "without any ing.paperclip key nothing changes" {
	update_config '.process.env += ["PAPERCLIPAI_CMD=x"]'
	in_container 'env; touch /rootfs-write && echo rootfs-write=ok'
	[ "$status" -eq 0 ]
	[[ "$output" == *"PAPERCLIPAI_CMD=x"* ]]
	[[ "$output" == *"rootfs-write=ok"* ]]
}
