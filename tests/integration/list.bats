#!/usr/bin/env bats
# list [-q] [--format table|json].

load helpers

@test "list shows nothing for an empty root" {
	run rt list -q
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run rt list --format json
	[ "$status" -eq 0 ]
	[ "$(jq 'length' <<<"${output:-null}")" -eq 0 ]
}

@test "list -q prints the IDs" {
	a=$(new_id)
	b=$(new_id)
	set_cmd 'sleep 1000'
	create "$a"
	run_d "$b"
	run rt list -q
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output")" = "$(printf '%s\n' "$a" "$b" | sort)" ]
}

@test "list --format json has id, pid, status, bundle" {
	a=$(new_id)
	b=$(new_id)
	set_cmd 'sleep 1000'
	create "$a"
	run_d "$b"
	run rt list --format json
	[ "$status" -eq 0 ]
	jq -e --arg a "$a" --arg b "$b" --arg bundle "$BUNDLE" '
		(map(select(.id == $a))[0] | .status == "created" and .pid > 0 and .bundle == $bundle) and
		(map(select(.id == $b))[0] | .status == "running")' <<<"$output"
}

@test "list table has a header and one row per container" {
	a=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$a"
	run rt list
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == ID* ]]
	grep -q "^$a .*running" <<<"$output"
	run rt list --format table
	[ "$status" -eq 0 ]
	grep -q "^$a " <<<"$output"
}

@test "list shows a stopped container as stopped" {
	a=$(new_id)
	set_cmd 'true'
	create "$a"
	rt start "$a"
	wait_for_state "$a" stopped
	run rt list --format json
	[ "$(jq -r --arg a "$a" '.[] | select(.id == $a) | .status' <<<"$output")" = stopped ]
}
