#!/usr/bin/env bats
# state ID prints JSON per the state schema.

load helpers

@test "state prints ociVersion, id, status, pid, bundle" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	run rt state "$id"
	[ "$status" -eq 0 ]
	jq -e --arg id "$id" --arg b "$BUNDLE" '
		(.ociVersion | type == "string") and .id == $id and .status == "created" and
		(.pid | type == "number") and .pid > 0 and .bundle == $b' <<<"$output"
}

@test "state pid is the container init as seen from the host" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	rt start "$id"
	pid=$(ct_pid "$id")
	# The init is in its own pid namespace, so it differs from ours.
	[ "$(readlink /proc/"$pid"/ns/pid)" != "$(ns_host pid)" ]
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q sleep
}

@test "state carries the config's annotations" {
	id=$(new_id)
	update_config '.annotations = {"org.example.key": "value"}'
	set_cmd 'sleep 1000'
	create "$id"
	run rt state "$id"
	[ "$(jq -r '.annotations["org.example.key"]' <<<"$output")" = value ]
}

@test "state of a stopped container has status stopped" {
	id=$(new_id)
	set_cmd 'true'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	run rt state "$id"
	[ "$status" -eq 0 ]
	[ "$(jq -r .status <<<"$output")" = stopped ]
}

@test "state of an unknown container: container does not exist" {
	run rt state ct-$$-nope
	[ "$status" -ne 0 ]
	[[ "$output" == *"container does not exist"* ]]
}

@test "state follows the live process, not a stale file (killed from outside)" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	rt start "$id"
	pid=$(ct_pid "$id")
	kill -9 "$pid"
	wait_for_state "$id" stopped 5
}

@test "state.json lives under --root/<id>" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ -d "$CT_ROOT/$id" ]
}

@test "clasp writes <root>/<id>/state.json" {
	requires_clasp
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	jq -e --arg id "$id" '.id == $id' "$CT_ROOT/$id/state.json"
	# Written atomically (temporary file, then rename): no half-written temporary left beside it.
	refute grep -E '^(state\.json\.|\.state|.*\.tmp$)' <<<"$(ls -A "$CT_ROOT/$id")"
}
