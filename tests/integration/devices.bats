#!/usr/bin/env bats
# Default devices, linux.devices, /dev/fd and /dev/std* symlinks, /dev/ptmx.

load helpers

@test "the default devices exist with the right numbers" {
	in_container 'for d in null zero full random urandom tty; do stat -c "%n %F %t:%T" /dev/$d; done'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "/dev/null character special file 1:3" ]
	[ "${lines[1]}" = "/dev/zero character special file 1:5" ]
	[ "${lines[2]}" = "/dev/full character special file 1:7" ]
	[ "${lines[3]}" = "/dev/random character special file 1:8" ]
	[ "${lines[4]}" = "/dev/urandom character special file 1:9" ]
	[ "${lines[5]}" = "/dev/tty character special file 5:0" ]
}

@test "the default devices work" {
	in_container 'echo x >/dev/null && echo null-ok; head -c 4 /dev/zero | wc -c; head -c 4 /dev/urandom | wc -c; echo x >/dev/full; true'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = null-ok ]
	[ "${lines[1]}" = 4 ]
	[ "${lines[2]}" = 4 ]
	[[ "$output" == *"No space left on device"* ]]
}

@test "the default devices are readable and writable by everyone" {
	in_container 'for d in null zero full random urandom tty; do stat -c "%a" /dev/$d; done'
	[ "$status" -eq 0 ]
	for l in "${lines[@]}"; do [ "$l" = 666 ]; done
}

@test "/dev/fd and /dev/std* symlinks" {
	in_container 'for l in fd stdin stdout stderr; do echo "$l $(readlink /dev/$l)"; done'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "fd /proc/self/fd" ]
	[ "${lines[1]}" = "stdin /proc/self/fd/0" ]
	[ "${lines[2]}" = "stdout /proc/self/fd/1" ]
	[ "${lines[3]}" = "stderr /proc/self/fd/2" ]
}

@test "/dev/ptmx points at the container's devpts" {
	# A symlink to pts/ptmx, or a bind mount of it (config-linux.md allows both).
	in_container 'if [ -L /dev/ptmx ]; then readlink /dev/ptmx; else stat -c "%t:%T" /dev/ptmx; awk "\$5 == \"/dev/ptmx\" {print \$4}" /proc/self/mountinfo; fi'
	[ "$status" -eq 0 ]
	[ "$output" = pts/ptmx ] || [ "$(echo $output)" = "5:2 /ptmx" ]
}

@test "/dev/shm and /dev/mqueue exist" {
	in_container 'test -d /dev/shm && test -d /dev/mqueue && echo ok'
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
}

@test "linux.devices creates a custom node with its mode, uid and gid" {
	# Mode 0660 for uid 1000, and the process runs as 1000, so it may write.
	update_config '.linux.devices = [{"path": "/dev/mynull", "type": "c", "major": 1, "minor": 3, "fileMode": 432, "uid": 1000, "gid": 1000}] | .process.user = {"uid": 1000, "gid": 1000}'
	in_container 'stat -c "%F %t:%T %a %u:%g" /dev/mynull; echo hi >/dev/mynull && echo write-ok'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "character special file 1:3 660 1000:1000" ]
	[ "${lines[1]}" = write-ok ]
}

@test "linux.devices in a subdirectory of /dev" {
	update_config '.linux.devices = [{"path": "/dev/sub/dir/zero", "type": "c", "major": 1, "minor": 5}]'
	in_container 'stat -c "%F %t:%T" /dev/sub/dir/zero'
	[ "$status" -eq 0 ]
	[ "$output" = "character special file 1:5" ]
}

@test "linux.devices fifo" {
	update_config '.linux.devices = [{"path": "/dev/myfifo", "type": "p"}]'
	in_container 'stat -c "%F" /dev/myfifo'
	[ "$status" -eq 0 ]
	[ "$output" = fifo ]
}

@test "no host devices leak into the container's /dev" {
	in_container 'ls /dev'
	[ "$status" -eq 0 ]
	refute grep -qE '^(vda|sda|kmsg|mem|kvm)$' <<<"$output"
}
