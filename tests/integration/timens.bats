#!/usr/bin/env bats
# The time namespace and timeOffsets. runc 1.1.5 fails all of these: it has no time namespace
# support (added in runc 1.2), so they are clasp-only here.

load helpers

setup() {
	common_setup
	requires_clasp "runc 1.1.5 has no time namespace"
	update_config '.linux.namespaces += [{"type": "time"}]'
}

@test "timeOffsets monotonic and boottime are written" {
	update_config '.linux.timeOffsets = {"monotonic": {"secs": 86400, "nanosecs": 0}, "boottime": {"secs": 172800, "nanosecs": 5}}'
	in_container 'cat /proc/self/timens_offsets'
	[ "$status" -eq 0 ]
	grep -qE '^monotonic +86400 +0$' <<<"$output"
	grep -qE '^boottime +172800 +5$' <<<"$output"
}

@test "a boottime offset shows in /proc/uptime" {
	host_up=$(cut -d. -f1 /proc/uptime)
	update_config '.linux.timeOffsets = {"boottime": {"secs": 1000000, "nanosecs": 0}}'
	in_container 'cut -d. -f1 /proc/uptime'
	[ "$status" -eq 0 ]
	[ "$output" -ge $((host_up + 1000000)) ]
	[ "$output" -lt $((host_up + 1000000 + 60)) ]
}

@test "the time namespace applies to the container init itself" {
	update_config '.linux.timeOffsets = {"boottime": {"secs": 1000000, "nanosecs": 0}}'
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	[ "$status" -eq 0 ]
	pid=$(ct_pid "$id")
	[ "$(readlink /proc/$pid/ns/time)" != "$(ns_host time)" ]
	grep -qE '^boottime +1000000 ' "/proc/$pid/timens_offsets"
}

@test "timeOffsets without a time namespace are refused" {
	update_config '.linux.namespaces |= map(select(.type != "time")) | .linux.timeOffsets = {"monotonic": {"secs": 10, "nanosecs": 0}}'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
