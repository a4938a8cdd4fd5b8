#!/usr/bin/env bats
# Global options: --version, --help, -h for every command, --log, --systemd-cgroup.

load helpers

@test "--version prints the runtime version and the spec version" {
	run rt --version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *version* ]]
	grep -q '^spec: ' <<<"$output"
}

@test "--version: clasp version X, then spec: 1.3.0, then commit:" {
	requires_clasp
	run rt --version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^clasp\ version\ [0-9]+\.[0-9]+\.[0-9]+ ]]
	[ "${lines[1]}" = "spec: 1.3.0" ]
	[[ "${lines[2]}" == commit:* ]]
}

@test "--help lists the commands" {
	run rt --help
	[ "$status" -eq 0 ]
	for c in create start state run kill delete list spec features; do
		grep -qw "$c" <<<"$output" || {
			echo "command $c missing from --help"
			return 1
		}
	done
}

@test "-h and --help work for every command" {
	for c in create start state run kill delete list spec features; do
		run rt "$c" --help
		[ "$status" -eq 0 ] || {
			echo "$c --help: $status $output"
			return 1
		}
		[ -n "$output" ]
		run rt "$c" -h
		[ "$status" -eq 0 ] || {
			echo "$c -h: $status $output"
			return 1
		}
	done
}

@test "an unknown command fails" {
	run rt no-such-command
	[ "$status" -ne 0 ]
}

@test "--log-format json writes JSON lines with level, msg and time" {
	local log=$BATS_TEST_TMPDIR/log.json
	run rt --log "$log" --log-format json state no-such-container
	[ "$status" -ne 0 ]
	[ -s "$log" ]
	while read -r line; do
		jq -e 'has("level") and has("msg") and has("time")' <<<"$line" >/dev/null
	done <"$log"
	grep -q 'container does not exist' "$log"
}

@test "--log FILE in text format gets the error" {
	local log=$BATS_TEST_TMPDIR/log.txt
	run rt --log "$log" --log-format text state no-such-container
	[ "$status" -ne 0 ]
	grep -q 'does not exist' "$log"
}

@test "--debug is accepted" {
	run rt --debug list
	[ "$status" -eq 0 ]
}

@test "--systemd-cgroup is refused clearly while unsupported" {
	requires_clasp
	set_cmd 'true'
	id=$(new_id)
	run rt --systemd-cgroup run --bundle "$BUNDLE" "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"not supported"* ]]
	[ ! -e "$CT_ROOT/$id" ]
}
