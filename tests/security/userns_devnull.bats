#!/usr/bin/env bats
# The host's device nodes keep their owner and mode after user-namespace containers.
# A runtime that creates /dev/null in a user namespace must bind the host's node, and a chown of
# it (to the container's root) would hand the host's /dev/null to an unprivileged uid; the same
# for the other default devices, the console, and linux.devices entries.

load ../integration/helpers

NODES="/dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty /dev/ptmx"

snapshot() {
	local n
	for n in $NODES; do stat -c '%n %u:%g %a %t:%T' "$n"; done
}

setup() {
	common_setup
	BEFORE=$(snapshot)
	update_config '.linux.namespaces += [{"type": "user"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
}

teardown() {
	common_teardown
	[ -z "${RECVTTY_PID:-}" ] || kill "$RECVTTY_PID" 2>/dev/null || true
}

assert_nodes_unchanged() {
	local after
	after=$(snapshot)
	[ "$after" = "$BEFORE" ] || {
		echo "before:"
		echo "$BEFORE"
		echo "after:"
		echo "$after"
		return 1
	}
}

@test "host /dev nodes unchanged after user-namespace containers (tmpfs /dev)" {
	in_container 'ls -ln /dev; chown 0:0 /dev/null /dev/zero 2>/dev/null; chmod 777 /dev/null 2>/dev/null; true'
	echo "$output"
	[ "$status" -eq 0 ]
	assert_nodes_unchanged
}

@test "host /dev nodes unchanged after user-namespace containers (the image's /dev)" {
	make_bundle --copy
	update_config '.linux.namespaces += [{"type": "user"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
		.mounts |= map(select(.destination != "/dev"))'
	chown -R 100000:100000 "$BUNDLE/rootfs"
	mkdir -p "$BUNDLE/rootfs/dev"
	in_container 'ls -ln /dev; chown 0:0 /dev/null; chmod 777 /dev/null 2>/dev/null; true'
	echo "$output"
	assert_nodes_unchanged
}

@test "host /dev nodes unchanged after a user-namespace container with linux.devices and uid/gid" {
	update_config '.linux.devices = [{"path": "/dev/null", "type": "c", "major": 1, "minor": 3, "fileMode": 511, "uid": 1000, "gid": 1000},
		{"path": "/dev/zero", "type": "c", "major": 1, "minor": 5, "fileMode": 384, "uid": 0, "gid": 0}]'
	in_container 'ls -ln /dev/null /dev/zero'
	echo "$output"
	assert_nodes_unchanged
}

@test "host /dev nodes unchanged after a user-namespace container with a terminal" {
	SOCK=$BATS_TEST_TMPDIR/tty.sock
	timeout 30 "$(recvtty_bin)" "$SOCK" </dev/null >"$BATS_TEST_TMPDIR/tty.out" 2>&1 &
	RECVTTY_PID=$!
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.02; done
	update_config '.process.terminal = true'
	set_cmd 'ls -ln /dev/console /dev/null; sleep 0.3'
	id=$(new_id)
	run_d "$id" --console-socket "$SOCK"
	echo "$output"
	wait_for_state "$id" stopped 10 || true
	assert_nodes_unchanged
}

@test "host /dev nodes unchanged after 5 user-namespace containers with different mappings" {
	for base in 100000 165536 231072 296608 362144; do
		update_config ".linux.uidMappings[0].hostID = $base | .linux.gidMappings[0].hostID = $base"
		in_container 'true'
		[ "$status" -eq 0 ]
	done
	assert_nodes_unchanged
}
