#!/usr/bin/env bats
# runtime.md "Lifecycle", steps 1-13.

load ../integration/helpers

@test "Lifecycle step 2: \"the user-specified program MUST NOT be run at this time\"" {
	make_bundle --copy
	id=$(new_id)
	set_cmd 'touch /ran'
	create "$id"
	[ "$status" -eq 0 ]
	sleep 0.3
	[ ! -e "$BUNDLE/rootfs/ran" ]
}

@test "Lifecycle step 2: \"unable to create the environment ... MUST generate an error\"" {
	update_config '.mounts += [{"destination": "/x", "type": "nosuchfs", "source": "x"}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "Lifecycle step 2: \"updates to config.json after this step MUST NOT affect the container\"" {
	id=$(new_id)
	set_cmd 'echo original'
	create "$id"
	set_cmd 'echo changed'
	update_config '.process.env += ["CHANGED=1"]'
	rt start "$id"
	wait_for_state "$id" stopped
	grep -qx original "$CT_OUT"
	refute grep -q changed "$CT_OUT"
}

@test "Lifecycle step 3: \"If any prestart hook fails, ... generate an error, stop the container\"" {
	update_config '.hooks.prestart = [{"path": "/bin/false"}]'
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "Lifecycle step 4: \"If any createRuntime hook fails, ... generate an error\"" {
	update_config '.hooks.createRuntime = [{"path": "/bin/false"}]'
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "Lifecycle step 5: \"If any createContainer hook fails, ... generate an error\"" {
	update_config '.hooks.createContainer = [{"path": "/bin/false"}]'
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "Lifecycle step 7: \"If any startContainer hook fails, ... generate an error, stop the container\"" {
	# runc 1.1.5 fails this: start exits 0 although the startContainer hook failed.
	requires_clasp "runc 1.1.5 start exits 0"
	update_config '.hooks.startContainer = [{"path": "/bin/false"}]'
	id=$(new_id)
	set_cmd 'echo program-ran'
	create "$id"
	[ "$status" -eq 0 ]
	run rt start "$id"
	[ "$status" -ne 0 ]
	refute grep -q program-ran "$CT_OUT"
}

@test "Lifecycle step 8: \"The runtime MUST run the user-specified program\"" {
	id=$(new_id)
	set_cmd 'echo program-ran'
	create "$id"
	rt start "$id"
	wait_for_output "$CT_OUT" program-ran
}

@test "Lifecycle step 9: \"If any poststart hook fails, ... generate an error, stop the container\"" {
	# runc 1.1.5 fails this: it runs poststart hooks during create.
	requires_clasp "runc 1.1.5 runs poststart at create"
	update_config '.hooks.poststart = [{"path": "/bin/false"}]'
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	run rt start "$id"
	[ "$status" -ne 0 ]
	wait_for_state "$id" stopped 5
}

@test "Lifecycle step 13: a failing poststop hook does not fail delete" {
	update_config '.hooks.poststop = [{"path": "/bin/false"}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	run rt delete "$id"
	[ "$status" -eq 0 ]
	assert_no_trace "$id"
}

@test "Lifecycle step 10-12: after the process exits, delete destroys the container" {
	id=$(new_id)
	set_cmd 'exit 7'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	rt delete "$id"
	assert_no_trace "$id"
}

@test "Lifecycle step 13: \"If any poststop hook fails, the runtime MUST log a warning\" and continue" {
	# runc 1.1.5 fails this: it skips the remaining poststop hooks after a failing one.
	requires_clasp "runc 1.1.5 stops at the first failing poststop hook"
	update_config '.hooks.poststop = [{"path": "/bin/false"}, {"path": "/bin/sh", "args": ["sh", "-c", "cat >/dev/null; echo second >'"$BATS_TEST_TMPDIR"'/poststop2"]}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	run rt delete "$id"
	[ "$status" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/poststop2")" = second ]
	assert_no_trace "$id"
}

@test "Lifecycle: created -> running -> stopped -> deleted" {
	id=$(new_id)
	set_cmd 'trap "exit 0" TERM; while :; do sleep 0.05; done'
	create "$id"
	[ "$(ct_status "$id")" = created ]
	rt start "$id"
	[ "$(ct_status "$id")" = running ]
	rt kill "$id" TERM
	wait_for_state "$id" stopped
	rt delete "$id"
	run rt state "$id"
	[ "$status" -ne 0 ]
}

@test "Trap: the container process inherits create's stdout and stderr" {
	id=$(new_id)
	set_cmd 'echo out-line; echo err-line >&2'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	grep -qx out-line "$CT_OUT"
	grep -qx err-line "$CT_ERR"
}
