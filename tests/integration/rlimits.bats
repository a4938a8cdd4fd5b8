#!/usr/bin/env bats
# process.rlimits. This machine has no CAP_SYS_RESOURCE, so only lowering can be tested.

load helpers

@test "RLIMIT_NOFILE from the default config" {
	in_container 'ulimit -Sn; ulimit -Hn'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1024 ]
	[ "${lines[1]}" = 1024 ]
}

@test "several rlimits, soft below hard" {
	update_config '.process.rlimits = [
		{"type": "RLIMIT_NOFILE", "soft": 100, "hard": 200},
		{"type": "RLIMIT_NPROC", "soft": 500, "hard": 600},
		{"type": "RLIMIT_CORE", "soft": 0, "hard": 0},
		{"type": "RLIMIT_STACK", "soft": 4194304, "hard": 8388608}]'
	in_container 'grep -E "^Max (open files|processes|core file size|stack size)" /proc/self/limits'
	[ "$status" -eq 0 ]
	grep -qE '^Max open files +100 +200 ' <<<"$output"
	grep -qE '^Max processes +500 +600 ' <<<"$output"
	grep -qE '^Max core file size +0 +0 ' <<<"$output"
	grep -qE '^Max stack size +4194304 +8388608 ' <<<"$output"
}

@test "rlimits apply to the process as seen from the host" {
	update_config '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 123, "hard": 456}]'
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	pid=$(ct_pid "$id")
	grep -qE '^Max open files +123 +456 ' "/proc/$pid/limits"
}

@test "raising an rlimit above the runtime's own hard limit" {
	if ! host_has_cap 24; then
		skip "this machine has no CAP_SYS_RESOURCE, so no process can raise a hard limit"
	fi
	hard=$(ulimit -Hn)
	update_config ".process.rlimits = [{\"type\": \"RLIMIT_NOFILE\", \"soft\": $((hard + 1)), \"hard\": $((hard + 1))}]"
	in_container 'ulimit -Hn'
	[ "$status" -eq 0 ]
	[ "$output" = $((hard + 1)) ]
}

@test "an unknown rlimit type is refused" {
	update_config '.process.rlimits = [{"type": "RLIMIT_NOPE", "soft": 1, "hard": 1}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "a duplicated rlimit type is refused" {
	update_config '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 10, "hard": 10}, {"type": "RLIMIT_NOFILE", "soft": 20, "hard": 20}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
