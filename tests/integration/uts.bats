#!/usr/bin/env bats
# hostname and domainname.

load helpers

@test "hostname is set" {
	update_config '.hostname = "box-1"'
	in_container 'hostname; cat /proc/sys/kernel/hostname'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = box-1 ]
	[ "${lines[1]}" = box-1 ]
}

@test "domainname is set" {
	# runc 1.1.5 fails this: it ignores domainname (supported from runc 1.2).
	requires_clasp "runc 1.1.5 ignores domainname"
	update_config '.domainname = "example.test"'
	in_container 'cat /proc/sys/kernel/domainname'
	[ "$status" -eq 0 ]
	[ "$output" = example.test ]
}

@test "the host's hostname is untouched" {
	before=$(hostname)
	update_config '.hostname = "not-the-host"'
	in_container 'hostname'
	[ "$status" -eq 0 ]
	[ "$(hostname)" = "$before" ]
}

@test "hostname without a UTS namespace is refused" {
	update_config '.linux.namespaces |= map(select(.type != "uts")) | .hostname = "nope"'
	id=$(new_id)
	set_cmd 'true'
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
