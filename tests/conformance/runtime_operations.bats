#!/usr/bin/env bats
# runtime.md "Operations" (create, start, kill, delete) and "Errors".

load ../integration/helpers

@test "Create: \"MUST generate an error if it is not provided ... the container ID\"" {
	rt_bg create --bundle "$BUNDLE"
	[ "$status" -ne 0 ]
	[ -z "$(ls -A "$CT_ROOT")" ]
}

@test "Create: \"MUST generate an error if it is not provided a path to the bundle\" (no config.json in cwd)" {
	id=$(new_id)
	cd "$BATS_TEST_TMPDIR"
	rt_bg create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "Create: \"ID ... not unique ... MUST generate an error and a new container MUST NOT be created\"" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	pid=$(ct_pid "$id")
	make_bundle "$BATS_TEST_TMPDIR/other"
	set_cmd 'sleep 1000' "$BATS_TEST_TMPDIR/other"
	rt_bg create --bundle "$BATS_TEST_TMPDIR/other" "$id"
	[ "$status" -ne 0 ]
	[ "$(ct_pid "$id")" = "$pid" ]
	[ "$(rt state "$id" | jq -r .bundle)" = "$BUNDLE" ]
}

@test "Create: \"not valid in any other way, ... MUST generate an error\" (bad IDs)" {
	set_cmd true
	for bad in "" "a/b" ".." "$(printf 'x%.0s' $(seq 1025))"; do
		rt_bg create --bundle "$BUNDLE" "$bad"
		[ "$status" -ne 0 ] || {
			echo "accepted '${bad:0:16}'"
			return 1
		}
	done
	[ -z "$(ls -A "$CT_ROOT")" ]
}

@test "Create: \"All of the properties configured in config.json except for process MUST be applied\"" {
	update_config '.hostname = "applied-at-create"'
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	pid=$(ct_pid "$id")
	[ "$(nsenter -t "$pid" -u hostname)" = applied-at-create ]
	[ "$(readlink /proc/$pid/ns/net)" != "$(ns_host net)" ]
}

@test "Create: \"process.args MUST NOT be applied until triggered by the start operation\"" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	pid=$(ct_pid "$id")
	refute grep -q '^sleep' <(tr '\0' ' ' <"/proc/$pid/cmdline")
}

@test "Create: \"If the runtime cannot apply a property ... MUST generate an error\"" {
	update_config '.linux.sysctl = {"no.such.sysctl": "1"}'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "Start: \"MUST generate an error if it is not provided the container ID\"" {
	run rt start
	[ "$status" -ne 0 ]
}

@test "Start: \"start a container that is not created MUST have no effect ... and MUST generate an error\" (running)" {
	id=$(new_id)
	set_cmd 'echo once; sleep 1000'
	create "$id"
	rt start "$id"
	wait_for_output "$CT_OUT" once
	pid=$(ct_pid "$id")
	run rt start "$id"
	[ "$status" -ne 0 ]
	[ "$(ct_pid "$id")" = "$pid" ]
	[ "$(ct_status "$id")" = running ]
	sleep 0.2
	[ "$(grep -c once "$CT_OUT")" -eq 1 ]
}

@test "Start: \"start a container that is not created MUST ... generate an error\" (stopped)" {
	id=$(new_id)
	set_cmd 'echo once'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	run rt start "$id"
	[ "$status" -ne 0 ]
	[ "$(ct_status "$id")" = stopped ]
	[ "$(grep -c once "$CT_OUT")" -eq 1 ]
}

@test "Start: \"This operation MUST run the user-specified program\"" {
	id=$(new_id)
	set_cmd 'echo user-program'
	create "$id"
	rt start "$id"
	wait_for_output "$CT_OUT" user-program
}

@test "Start: \"MUST generate an error if process was not set\"" {
	update_config 'del(.process)'
	id=$(new_id)
	create "$id"
	if [ "$status" -eq 0 ]; then
		run rt start "$id"
		[ "$status" -ne 0 ]
	fi
}

@test "Kill: \"MUST generate an error if it is not provided the container ID\"" {
	run rt kill
	[ "$status" -ne 0 ]
}

@test "Kill: \"neither created nor running MUST have no effect ... and MUST generate an error\"" {
	id=$(new_id)
	set_cmd true
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	run rt kill "$id" KILL
	[ "$status" -ne 0 ]
	[ "$(ct_status "$id")" = stopped ]
}

@test "Kill: \"MUST send the specified signal to the container process\"" {
	id=$(new_id)
	set_cmd 'trap "echo got-usr2" USR2; echo ready; while :; do sleep 0.05; done'
	run_d "$id"
	wait_for_output "$CT_OUT" ready
	rt kill "$id" SIGUSR2
	wait_for_output "$CT_OUT" got-usr2
}

@test "Kill trap: signal names without SIG are accepted" {
	id=$(new_id)
	set_cmd 'trap "echo got-hup" HUP; echo ready; while :; do sleep 0.05; done'
	run_d "$id"
	wait_for_output "$CT_OUT" ready
	rt kill "$id" HUP
	wait_for_output "$CT_OUT" got-hup
}

@test "Kill: a created container can be signalled" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	run rt kill "$id" KILL
	[ "$status" -eq 0 ]
	wait_for_state "$id" stopped
}

@test "Delete: \"MUST generate an error if it is not provided the container ID\"" {
	run rt delete
	[ "$status" -ne 0 ]
}

@test "Delete: \"not stopped MUST have no effect on the container and MUST generate an error\" (running)" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	before=$(rt state "$id")
	run rt delete "$id"
	[ "$status" -ne 0 ]
	[ "$(rt state "$id")" = "$before" ]
	[ -d "/proc/$(ct_pid "$id")" ]
}

@test "Delete: \"not stopped MUST have no effect on the container and MUST generate an error\" (created)" {
	# runc 1.1.5 fails this: it deletes a created container without --force.
	requires_clasp "runc deletes created containers"
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	before=$(rt state "$id")
	run rt delete "$id"
	[ "$status" -ne 0 ]
	[ "$(rt state "$id")" = "$before" ]
}

@test "Delete: \"MUST delete the resources that were created during the create step\"" {
	id=$(new_id)
	set_cmd 'true'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	rt delete "$id"
	assert_no_trace "$id"
}

@test "Delete: \"resources ... not created by this container, MUST NOT be deleted\" (joined netns survives)" {
	holder=$(new_id holder)
	set_cmd 'sleep 1000'
	run_d "$holder"
	hpid=$(ct_pid "$holder")
	hnet=$(readlink /proc/$hpid/ns/net)
	make_bundle "$BATS_TEST_TMPDIR/b"
	update_config ".linux.namespaces |= map(if .type == \"network\" then .path = \"/proc/$hpid/ns/net\" else . end)" "$BATS_TEST_TMPDIR/b"
	set_cmd 'true' "$BATS_TEST_TMPDIR/b"
	id=$(new_id)
	run rt run --bundle "$BATS_TEST_TMPDIR/b" "$id" </dev/null
	[ "$status" -eq 0 ]
	[ "$(ct_status "$holder")" = running ]
	[ "$(readlink /proc/$hpid/ns/net)" = "$hnet" ]
}

@test "Delete: \"Once a container is deleted its ID MAY be used by a subsequent container\"" {
	id=$(new_id)
	set_cmd 'echo first'
	run_fg "$id"
	[ "$output" = first ]
	set_cmd 'echo second'
	run_fg "$id"
	[ "$output" = second ]
}

@test "Errors: \"generating an error MUST leave the state of the environment as if the operation were never attempted\"" {
	make_bundle --copy
	update_config '.mounts += [{"destination": "/tmp/x", "type": "tmpfs", "source": "tmpfs"}, {"destination": "/y", "type": "nosuchfs", "source": "none"}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
