#!/usr/bin/env bats
# delete [-f|--force] ID.

load helpers

@test "delete of a stopped container removes it" {
	id=$(new_id)
	set_cmd 'true'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	run rt delete "$id"
	[ "$status" -eq 0 ]
	[ ! -e "$CT_ROOT/$id" ]
	run rt state "$id"
	[ "$status" -ne 0 ]
}

@test "delete of a running container fails and changes nothing" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	pid=$(ct_pid "$id")
	before=$(rt state "$id")
	run rt delete "$id"
	[ "$status" -ne 0 ]
	[ "$(rt state "$id")" = "$before" ]
	[ -d "/proc/$pid" ]
	[ "$(ct_status "$id")" = running ]
}

@test "delete of a created container fails and changes nothing" {
	# runc 1.1.5 fails this: it deletes a created container without --force.
	requires_clasp "runc deletes created containers"
	id=$(new_id)
	set_cmd 'echo ran'
	create "$id"
	run rt delete "$id"
	[ "$status" -ne 0 ]
	[ "$(ct_status "$id")" = created ]
	# It can still be started.
	rt start "$id"
	wait_for_output "$CT_OUT" ran
}

@test "delete --force of a running container kills and removes it" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	pid=$(ct_pid "$id")
	run rt delete --force "$id"
	[ "$status" -eq 0 ]
	[ ! -e "$CT_ROOT/$id" ]
	for _ in $(seq 50); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
	[ ! -d "/proc/$pid" ]
}

@test "delete -f of a created container removes it" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	pid=$(ct_pid "$id")
	run rt delete -f "$id"
	[ "$status" -eq 0 ]
	[ ! -e "$CT_ROOT/$id" ]
	for _ in $(seq 50); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
	[ ! -d "/proc/$pid" ]
}

@test "delete of an unknown container: container does not exist" {
	run rt delete ct-$$-nope
	[ "$status" -ne 0 ]
	[[ "$output" == *"container does not exist"* ]]
}

@test "delete --force of an unknown container fails or succeeds quietly, never crashes" {
	run rt delete --force ct-$$-nope
	[ "$status" -lt 126 ]
}

@test "delete after the init was killed from outside" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	kill -9 "$(ct_pid "$id")"
	wait_for_state "$id" stopped
	run rt delete "$id"
	[ "$status" -eq 0 ]
	[ ! -e "$CT_ROOT/$id" ]
}
