#!/usr/bin/env bats
# config-linux.md and runtime-linux.md.

load ../integration/helpers

ns_of() { in_container "readlink /proc/self/ns/$1"; }

@test "config-linux.md namespaces: \"If path is not specified, the runtime MUST create a new container namespace\"" {
	update_config '.linux.namespaces += [{"type": "cgroup"}]'
	for t in pid net ipc uts mnt cgroup; do
		ns_of $t
		[ "$status" -eq 0 ]
		[ "$output" != "$(ns_host $t)" ] || {
			echo "$t not new"
			return 1
		}
	done
}

@test "config-linux.md namespaces: a new user namespace is created" {
	update_config '.linux.namespaces += [{"type": "user"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
	ns_of user
	[ "$status" -eq 0 ]
	[ "$output" != "$(ns_host user)" ]
}

@test "config-linux.md namespaces: a new time namespace is created" {
	# runc 1.1.5 fails this: no time namespace support.
	requires_clasp "runc 1.1.5 has no time namespace"
	update_config '.linux.namespaces += [{"type": "time"}]'
	ns_of time
	[ "$status" -eq 0 ]
	[ "$output" != "$(ns_host time)" ]
}

@test "config-linux.md namespaces: \"not specified ... the container MUST inherit the runtime namespace\"" {
	update_config '.linux.namespaces = [{"type": "mount"}] | del(.hostname)'
	for t in pid net ipc uts cgroup user time; do
		ns_of $t
		[ "$status" -eq 0 ]
		[ "$output" = "$(ns_host $t)" ] || {
			echo "$t not inherited"
			return 1
		}
	done
}

@test "config-linux.md namespaces: \"The runtime MUST place the container process in the namespace associated with that path\"" {
	holder=$(new_id holder)
	set_cmd 'sleep 1000'
	run_d "$holder"
	hpid=$(ct_pid "$holder")
	update_config "del(.hostname) | .linux.namespaces |= map(if .type == \"network\" or .type == \"ipc\" or .type == \"uts\" then .path = \"/proc/$hpid/ns/\" + (if .type == \"network\" then \"net\" else .type end) else . end)"
	in_container 'for t in net ipc uts; do readlink /proc/self/ns/$t; done'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$(readlink /proc/$hpid/ns/net)" ]
	[ "${lines[1]}" = "$(readlink /proc/$hpid/ns/ipc)" ]
	[ "${lines[2]}" = "$(readlink /proc/$hpid/ns/uts)" ]
}

@test "config-linux.md namespaces: \"MUST generate an error if path is not associated with a namespace of type\"" {
	update_config '.linux.namespaces |= map(if .type == "ipc" then .path = "/proc/self/ns/net" else . end)'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config-linux.md namespaces: \"duplicated namespaces with same type, the runtime MUST generate an error\"" {
	update_config '.linux.namespaces += [{"type": "pid"}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config-linux.md user namespace mappings: uidMappings and gidMappings are applied" {
	update_config '.linux.namespaces += [{"type": "user"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 1000}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 300000, "size": 2000}]'
	in_container 'cat /proc/self/uid_map /proc/self/gid_map'
	[ "$status" -eq 0 ]
	[ "$(echo ${lines[0]})" = "0 100000 1000" ]
	[ "$(echo ${lines[1]})" = "0 300000 2000" ]
}

@test "config.md: uidMappings \"MUST be specified along with gidMappings\"" {
	update_config '.linux.namespaces += [{"type": "user"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config-linux.md devices: \"lists devices that MUST be available in the container\"" {
	update_config '.linux.devices = [{"path": "/dev/custom-zero", "type": "c", "major": 1, "minor": 5, "fileMode": 420, "uid": 0, "gid": 0},
		{"path": "/dev/custom-fifo", "type": "p"}]'
	in_container 'stat -c "%F %t:%T %a" /dev/custom-zero; stat -c %F /dev/custom-fifo'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "character special file 1:5 644" ]
	[ "${lines[1]}" = fifo ]
}

@test "config-linux.md devices: \"a file already exists at path that does not match ..., MUST generate an error\"" {
	# runc 1.1.5 fails this: it replaces the existing file.
	requires_clasp "runc 1.1.5 does not check the existing file"
	make_bundle --copy
	update_config '.mounts |= map(select(.destination != "/dev" and (.destination | startswith("/dev/") | not))) |
		.linux.devices = [{"path": "/etc/passwd", "type": "c", "major": 1, "minor": 3}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config-linux.md default devices: \"the runtime MUST also supply\" null, zero, full, random, urandom, tty, ptmx" {
	in_container 'for d in null zero full random urandom tty; do test -c /dev/$d || echo missing-$d; done; test -e /dev/ptmx || echo missing-ptmx; echo checked'
	[ "$status" -eq 0 ]
	[ "$output" = checked ]
}

@test "config-linux.md default devices: /dev/ptmx is \"a bind-mount or symlink of the container's /dev/pts/ptmx\"" {
	in_container 'if [ -L /dev/ptmx ]; then readlink /dev/ptmx; else stat -c %t:%T /dev/ptmx; fi'
	[ "$status" -eq 0 ]
	[ "$output" = pts/ptmx ] || [ "$output" = "5:2" ]
}

@test "config-linux.md default devices: \"/dev/console is set up if terminal is enabled\"" {
	SOCK=$BATS_TEST_TMPDIR/tty.sock
	bin=$(recvtty_bin)
	timeout 30 "$bin" "$SOCK" </dev/null >"$BATS_TEST_TMPDIR/tty.out" 2>/dev/null &
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.02; done
	update_config '.process.terminal = true'
	set_cmd 'test -c /dev/console && echo console-present; sleep 0.3'
	id=$(new_id)
	run_d "$id" --console-socket "$SOCK"
	[ "$status" -eq 0 ]
	wait_for_output "$BATS_TEST_TMPDIR/tty.out" console-present
}

@test "runtime-linux.md: \"runtimes MUST create the following symlinks\" /dev/fd, /dev/stdin, /dev/stdout, /dev/stderr" {
	in_container 'for l in fd stdin stdout stderr; do readlink /dev/$l; done'
	[ "$status" -eq 0 ]
	[ "$(echo $output)" = "/proc/self/fd /proc/self/fd/0 /proc/self/fd/1 /proc/self/fd/2" ]
}

@test "runtime-linux.md: \"only the stdin, stdout and stderr file descriptors are kept open\"" {
	exec 7</dev/null
	in_container 'for f in /proc/$$/fd/*; do echo ${f##*/}; done'
	exec 7<&-
	[ "$status" -eq 0 ]
	# The shell's own glob may hold one more; nothing from the runtime does.
	[ "$(echo $output)" = "0 1 2" ] || [ "$(echo $output)" = "0 1 2 3" ]
	refute grep -qx 7 <<<"$output"
}

@test "config-linux.md sysctl: \"allows kernel parameters to be modified at runtime for the container\"" {
	update_config '.linux.sysctl = {"net.ipv4.ip_default_ttl": "42", "kernel.shmmni": "1234"}'
	in_container 'cat /proc/sys/net/ipv4/ip_default_ttl /proc/sys/kernel/shmmni'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 42 ]
	[ "${lines[1]}" = 1234 ]
}

@test "config-linux.md maskedPaths: \"will mask over the provided paths ... so that they cannot be read\"" {
	update_config '.linux.maskedPaths = ["/proc/timer_list", "/sys/firmware", "/etc/passwd"]'
	in_container 'wc -c </proc/timer_list; ls -A /sys/firmware | wc -l; wc -c </etc/passwd'
	[ "$status" -eq 0 ]
	[ "$(echo $output)" = "0 0 0" ]
}

@test "config-linux.md readonlyPaths: \"will set the provided paths as readonly\"" {
	make_bundle --copy
	update_config '.linux.readonlyPaths = ["/proc/sys", "/home"]'
	in_container 'touch /home/x 2>/dev/null && echo wrote-home; echo 1 2>/dev/null >/proc/sys/kernel/hostname && echo wrote-proc; echo done'
	[ "$status" -eq 0 ]
	[ "$output" = done ]
}

@test "config-linux.md rootfsPropagation: private" {
	update_config '.linux.rootfsPropagation = "private"'
	in_container 'awk "\$5 == \"/\"" /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	refute grep -qE 'shared:|master:' <<<"$output"
}

@test "config-linux.md rootfsPropagation: shared" {
	# runc 1.1.5 fails this: the root ends up private on this host.
	requires_clasp "runc leaves the root private"
	update_config '.linux.rootfsPropagation = "shared"'
	in_container 'awk "\$5 == \"/\"" /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	grep -q 'shared:' <<<"$output"
}

@test "config-linux.md personality: LINUX32 domain" {
	# runc 1.1.5 fails this: it ignores linux.personality.
	requires_clasp "runc 1.1.5 ignores personality"
	update_config '.linux.personality = {"domain": "LINUX32"}'
	in_container 'uname -m'
	[ "$output" = i686 ]
}

@test "config-linux.md timeOffsets: \"sets the offset for the time namespace\" (monotonic)" {
	# runc 1.1.5 fails this: no time namespace support.
	requires_clasp "runc 1.1.5 has no time namespace"
	update_config '.linux.namespaces += [{"type": "time"}] | .linux.timeOffsets = {"monotonic": {"secs": 7200, "nanosecs": 0}}'
	in_container 'cat /proc/self/timens_offsets'
	[ "$status" -eq 0 ]
	grep -qE '^monotonic +7200 +0$' <<<"$output"
}

@test "config-linux.md mount propagation of rootfs: \"rootfsPropagation\" invalid value is an error" {
	update_config '.linux.rootfsPropagation = "nonsense"'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config-linux.md: a config that cannot be mapped to the kernel fails at create (bad device type)" {
	update_config '.linux.devices = [{"path": "/dev/bad", "type": "z", "major": 1, "minor": 3}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
