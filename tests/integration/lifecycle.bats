#!/usr/bin/env bats
# create -> created, start -> running, exit -> stopped, delete -> gone.

load helpers

@test "lifecycle: created, running, stopped, deleted" {
	id=$(new_id)
	# The process runs until we signal it, so we decide when it exits.
	set_cmd 'trap "exit 0" USR1; while :; do sleep 0.05; done'
	create "$id"
	[ "$status" -eq 0 ]
	[ "$(ct_status "$id")" = created ]
	pid=$(ct_pid "$id")
	[ "$pid" -gt 0 ]
	[ -d "/proc/$pid" ]
	run rt start "$id"
	[ "$status" -eq 0 ]
	[ "$(ct_status "$id")" = running ]
	run rt kill "$id" USR1
	[ "$status" -eq 0 ]
	wait_for_state "$id" stopped
	run rt delete "$id"
	[ "$status" -eq 0 ]
	run rt state "$id"
	[ "$status" -ne 0 ]
	[ ! -e "$CT_ROOT/$id" ]
}

@test "the created process does not run the user program before start" {
	id=$(new_id)
	set_cmd 'echo started'
	create "$id"
	[ "$status" -eq 0 ]
	sleep 0.3
	refute grep -q started "$CT_OUT"
	rt start "$id"
	wait_for_output "$CT_OUT" started
	wait_for_state "$id" stopped
}

@test "state reports stopped as soon as the process exits" {
	id=$(new_id)
	set_cmd 'exit 0'
	create "$id"
	[ "$status" -eq 0 ]
	rt start "$id"
	# No waiting for a reaper: a few polls must already see stopped.
	wait_for_state "$id" stopped 2
}

@test "start of a stopped container fails" {
	id=$(new_id)
	set_cmd 'true'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	run rt start "$id"
	[ "$status" -ne 0 ]
}

@test "start of a running container fails" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	rt start "$id"
	run rt start "$id"
	[ "$status" -ne 0 ]
	[ "$(ct_status "$id")" = running ]
}

@test "the container process inherits create's stdout and stderr" {
	id=$(new_id)
	set_cmd 'echo to-stdout; echo to-stderr >&2'
	create "$id"
	[ "$status" -eq 0 ]
	rt start "$id"
	wait_for_state "$id" stopped
	grep -qx to-stdout "$CT_OUT"
	grep -qx to-stderr "$CT_ERR"
	refute grep -q to-stderr "$CT_OUT"
}

@test "the container process inherits create's stdin" {
	id=$(new_id)
	set_cmd 'read line; echo "got:$line"'
	echo hello-stdin >"$BATS_TEST_TMPDIR/in"
	rt create --bundle "$BUNDLE" "$id" <"$BATS_TEST_TMPDIR/in" >"$BATS_TEST_TMPDIR/out" 2>&1
	rt start "$id"
	wait_for_state "$id" stopped
	grep -qx got:hello-stdin "$BATS_TEST_TMPDIR/out"
}
