#!/usr/bin/env bats
# runtime.md "State" and "Query State".

load ../integration/helpers

@test "runtime.md State: state JSON adheres to the state schema (ociVersion, id, status, pid, bundle)" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	run rt state "$id"
	[ "$status" -eq 0 ]
	jq -e --arg id "$id" --arg b "$BUNDLE" '
		(.ociVersion | test("^[0-9]+\\.[0-9]+\\.[0-9]+")) and .id == $id and
		(.status | IN("creating", "created", "running", "stopped")) and
		(.pid | type == "number") and .bundle == $b' <<<"$output"
}

@test "runtime.md State: \"id ... MUST be unique across all containers on this host\"" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	create "$id"
	[ "$status" -ne 0 ]
	[ "$(rt list -q | grep -cx "$id")" -eq 1 ]
}

@test "runtime.md State: \"created: ... neither exited nor executed the user-specified program\"" {
	id=$(new_id)
	set_cmd 'echo executed'
	create "$id"
	[ "$(ct_status "$id")" = created ]
	sleep 0.3
	refute grep -q executed "$CT_OUT"
	[ "$(ct_status "$id")" = created ]
}

@test "runtime.md State: \"running: the container process has executed the user-specified program\"" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	rt start "$id"
	[ "$(ct_status "$id")" = running ]
	pid=$(ct_pid "$id")
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q '^sleep 1000'
}

@test "runtime.md State: \"stopped: the container process has exited\" (as soon as it has)" {
	id=$(new_id)
	set_cmd 'exit 0'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped 2
}

@test "runtime.md State: \"pid (REQUIRED when status is created or running on Linux)\"" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$(rt state "$id" | jq '.pid > 0')" = true ]
	rt start "$id"
	[ "$(rt state "$id" | jq '.pid > 0')" = true ]
}

@test "runtime.md State: \"bundle ... the absolute path to the container's bundle directory\"" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	cd "$BATS_TEST_TMPDIR"
	rt_bg create --bundle bundle "$id"
	[ "$status" -eq 0 ]
	[ "$(rt state "$id" | jq -r .bundle)" = "$BUNDLE" ]
}

@test "runtime.md State: annotations are reported" {
	id=$(new_id)
	update_config '.annotations = {"org.example.a": "1", "org.example.b": "two"}'
	set_cmd 'sleep 1000'
	create "$id"
	rt state "$id" | jq -e '.annotations["org.example.a"] == "1" and .annotations["org.example.b"] == "two"'
}

@test "runtime.md Query State: \"MUST generate an error if it is not provided the ID\"" {
	run rt state
	[ "$status" -ne 0 ]
}

@test "runtime.md Query State: \"query a container that does not exist MUST generate an error\"" {
	run rt state ct-$$-missing
	[ "$status" -ne 0 ]
	[[ "$output" == *"container does not exist"* ]]
}
