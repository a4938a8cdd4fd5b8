#!/usr/bin/env bats
# maskedPaths and readonlyPaths.

load helpers

@test "a masked file reads empty" {
	in_container 'wc -c </proc/keys; wc -c </proc/timer_list'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = 0 ]
}

@test "a masked directory is empty" {
	update_config '.linux.maskedPaths += ["/etc"]'
	in_container 'ls -A /etc | wc -l; ls -A /sys/firmware | wc -l'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = 0 ]
}

@test "a masked path cannot be written" {
	update_config '.linux.maskedPaths += ["/etc"]'
	in_container 'touch /etc/x 2>&1; true'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Read-only file system"* || "$output" == *"Permission denied"* ]]
}

@test "a masked path that does not exist is ignored" {
	update_config '.linux.maskedPaths += ["/no/such/path"]'
	in_container 'echo fine'
	[ "$status" -eq 0 ]
	[ "$output" = fine ]
}

@test "a readonly path cannot be written" {
	in_container 'if echo 1 2>/dev/null >/proc/sys/kernel/domainname; then echo rc=0; else echo rc=1; fi; awk "\$5 == \"/proc/sys\" {print \$6}" /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = rc=1 ]
	[[ "${lines[1]}" =~ (^|,)ro(,|$) ]]
}

@test "a readonly path stays readable" {
	in_container 'cat /proc/sys/kernel/ostype'
	[ "$status" -eq 0 ]
	[ "$output" = Linux ]
}

@test "a readonly path of the rootfs" {
	make_bundle --copy
	update_config '.linux.readonlyPaths += ["/etc"]'
	in_container 'cat /etc/group >/dev/null && echo readable; touch /etc/x 2>&1; true'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = readable ]
	[[ "${lines[1]}" == *"Read-only file system"* ]]
	[ ! -e "$BUNDLE/rootfs/etc/x" ]
}

@test "a readonly path that does not exist is ignored" {
	update_config '.linux.readonlyPaths += ["/no/such/path"]'
	in_container 'echo fine'
	[ "$status" -eq 0 ]
	[ "$output" = fine ]
}
