#!/usr/bin/env bats
# mounts: bind, rbind, ro bind, tmpfs with size/mode, proc, sysfs, devpts, mqueue, cgroup.

load helpers

setup() {
	common_setup
	make_bundle --copy
	HOSTDIR=$BATS_TEST_TMPDIR/hostdir
	mkdir -p "$HOSTDIR"
	echo host-content >"$HOSTDIR/file"
}

teardown() {
	# The rbind test mounts a tmpfs on the host; take it down before the common checks.
	if mountpoint -q "$HOSTDIR/sub" 2>/dev/null; then umount "$HOSTDIR/sub"; fi
	common_teardown
}

add_mount() { update_config ".mounts += [$1]"; }

# mount_line DEST: the mountinfo line of DEST inside (set by in_container output).
mount_line() {
	awk -v d="$1" '$5 == d' <<<"$output" | tail -n1
}

@test "bind mount of a host directory" {
	add_mount "{\"destination\": \"/data\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"bind\"]}"
	in_container 'cat /data/file; echo from-container >/data/new'
	[ "$status" -eq 0 ]
	[ "$output" = host-content ]
	[ "$(cat "$HOSTDIR/new")" = from-container ]
}

@test "bind mount with type none and a relative source (relative to the bundle)" {
	mkdir "$BUNDLE/rel"
	echo rel-content >"$BUNDLE/rel/f"
	add_mount '{"destination": "/rel", "type": "none", "source": "rel", "options": ["rbind"]}'
	in_container 'cat /rel/f'
	[ "$status" -eq 0 ]
	[ "$output" = rel-content ]
}

@test "bind mount of a single file" {
	add_mount "{\"destination\": \"/etc/hostfile\", \"type\": \"bind\", \"source\": \"$HOSTDIR/file\", \"options\": [\"bind\"]}"
	in_container 'cat /etc/hostfile'
	[ "$status" -eq 0 ]
	[ "$output" = host-content ]
}

@test "bind is not recursive, rbind is" {
	mkdir "$HOSTDIR/sub"
	mount -t tmpfs -o size=1m tmpfs "$HOSTDIR/sub"
	echo in-submount >"$HOSTDIR/sub/f"
	add_mount "{\"destination\": \"/b\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"bind\"]}"
	add_mount "{\"destination\": \"/rb\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"rbind\"]}"
	in_container 'cat /b/sub/f 2>/dev/null || echo not-there; cat /rb/sub/f'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = not-there ]
	[ "${lines[1]}" = in-submount ]
}

@test "ro bind mount cannot be written" {
	add_mount "{\"destination\": \"/ro\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"bind\", \"ro\"]}"
	in_container 'cat /ro/file; touch /ro/x 2>&1; cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = host-content ]
	[[ "${lines[1]}" == *"Read-only file system"* ]]
	[[ "$(mount_line /ro | cut -d' ' -f6)" =~ (^|,)ro(,|$) ]]
	[ ! -e "$HOSTDIR/x" ]
}

@test "bind mount with nosuid, nodev, noexec" {
	add_mount "{\"destination\": \"/flags\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"rbind\", \"nosuid\", \"nodev\", \"noexec\"]}"
	in_container 'cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	opts=$(mount_line /flags | cut -d' ' -f6)
	[[ ",$opts," == *,nosuid,* && ",$opts," == *,nodev,* && ",$opts," == *,noexec,* ]]
}

@test "rro makes a recursive bind read-only all the way down" {
	mkdir "$HOSTDIR/sub"
	mount -t tmpfs -o size=1m tmpfs "$HOSTDIR/sub"
	add_mount "{\"destination\": \"/rro\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"rbind\", \"rro\"]}"
	in_container 'touch /rro/x 2>&1; touch /rro/sub/x 2>&1; true'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"Read-only file system"* ]]
	[[ "${lines[1]}" == *"Read-only file system"* ]]
}

@test "tmpfs with size and mode" {
	add_mount '{"destination": "/scratch", "type": "tmpfs", "source": "tmpfs", "options": ["size=2m", "mode=1770", "nosuid"]}'
	in_container 'stat -c %a /scratch; cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1770 ]
	line=$(mount_line /scratch)
	[[ "$line" == *" - tmpfs "* ]]
	[[ "$line" == *size=2048k* ]]
}

@test "a mount destination that does not exist is created" {
	add_mount '{"destination": "/new/deep/dir", "type": "tmpfs", "source": "tmpfs"}'
	in_container 'cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[ -n "$(mount_line /new/deep/dir)" ]
}

@test "proc mount" {
	in_container 'cat /proc/self/mountinfo; echo pid=$$'
	[ "$status" -eq 0 ]
	[[ "$(mount_line /proc)" == *" - proc "* ]]
	[ "${lines[-1]}" = pid=1 ]
}

@test "sysfs mount, read-only" {
	in_container 'cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	line=$(mount_line /sys)
	[[ "$line" == *" - sysfs "* ]]
	[[ "$(cut -d' ' -f6 <<<"$line")" =~ (^|,)ro(,|$) ]]
}

@test "devpts mount with newinstance and ptmxmode" {
	in_container 'cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	line=$(mount_line /dev/pts)
	[[ "$line" == *" - devpts "* ]]
	[[ "$line" == *ptmxmode=666* ]]
	[[ "$line" == *gid=5* ]]
}

@test "mqueue mount" {
	in_container 'cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[[ "$(mount_line /dev/mqueue)" == *" - mqueue "* ]]
}

@test "cgroup mount (the host is hybrid: v1 hierarchies)" {
	add_mount '{"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}'
	in_container 'cat /proc/self/mountinfo; ls /sys/fs/cgroup'
	[ "$status" -eq 0 ]
	grep -qE ' /sys/fs/cgroup(/[a-z_=,]+)? .* - cgroup2? ' <<<"$output"
	# The memory controller is mounted in some form.
	grep -qx memory <<<"$output" || grep -q ' /sys/fs/cgroup .* - cgroup2 ' <<<"$output"
}

@test "cgroup2 mount type is accepted" {
	add_mount '{"destination": "/sys/fs/cgroup", "type": "cgroup2", "source": "cgroup", "options": ["nosuid", "noexec", "nodev", "ro"]}'
	add_mount '{"destination": "/x", "type": "tmpfs", "source": "tmpfs"}'
	id=$(new_id)
	set_cmd 'grep -q " /sys/fs/cgroup " /proc/self/mountinfo && echo mounted'
	run_fg "$id"
	[ "$status" -eq 0 ]
	[ "$output" = mounted ]
}

@test "mounts are made in order (a later mount covers an earlier one)" {
	add_mount '{"destination": "/layer", "type": "tmpfs", "source": "tmpfs"}'
	add_mount "{\"destination\": \"/layer\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"bind\"]}"
	in_container 'cat /layer/file'
	[ "$status" -eq 0 ]
	[ "$output" = host-content ]
}

@test "a bind mount whose source is missing fails cleanly" {
	add_mount "{\"destination\": \"/x\", \"type\": \"bind\", \"source\": \"$HOSTDIR/missing\", \"options\": [\"bind\"]}"
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "an unknown filesystem type fails cleanly" {
	add_mount '{"destination": "/x", "type": "nosuchfs", "source": "none"}'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "no mount is made on the host" {
	add_mount '{"destination": "/scratch", "type": "tmpfs", "source": "tmpfs"}'
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	[ "$status" -eq 0 ]
	refute grep -qF "$BUNDLE" /proc/self/mountinfo
}
