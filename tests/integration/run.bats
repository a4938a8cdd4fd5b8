#!/usr/bin/env bats
# run [-b] [-d] [--pid-file] [--keep] ID: create + start + wait, passing on the exit status.

load helpers

@test "run passes the exit status on" {
	for code in 0 1 3 42 126 255; do
		in_container "exit $code"
		[ "$status" -eq "$code" ] || {
			echo "exit $code gave $status"
			return 1
		}
	done
}

@test "run returns 128+N for a process killed by signal N" {
	# Without a pid namespace the process is not an init, so it can signal itself to death.
	update_config '.linux.namespaces |= map(select(.type != "pid"))'
	in_container 'kill -KILL $$'
	[ "$status" -eq 137 ]
	in_container 'kill -TERM $$; sleep 5'
	[ "$status" -eq 143 ]
	in_container 'kill -USR1 $$; sleep 5'
	[ "$status" -eq 138 ]
}

@test "run returns 137 when the container init is killed from outside" {
	id=$(new_id)
	set_cmd 'echo up; sleep 1000'
	rt run --bundle "$BUNDLE" "$id" </dev/null >"$BATS_TEST_TMPDIR/out" 2>&1 &
	runpid=$!
	wait_for_output "$BATS_TEST_TMPDIR/out" up
	rt kill "$id" KILL
	st=0
	wait "$runpid" || st=$?
	[ "$st" -eq 137 ]
}

@test "run prints the container's output and deletes the container" {
	in_container 'echo hello from the container'
	[ "$status" -eq 0 ]
	[ "$output" = "hello from the container" ]
	[ -z "$(ls -A "$CT_ROOT")" ]
}

@test "run -b with a relative bundle path" {
	id=$(new_id)
	set_cmd 'echo rel'
	cd "$BATS_TEST_TMPDIR"
	run rt run -b bundle "$id"
	[ "$status" -eq 0 ]
	[ "$output" = rel ]
}

@test "run with the bundle as the current directory (no -b)" {
	id=$(new_id)
	set_cmd 'echo cwd-bundle'
	cd "$BUNDLE"
	run rt run "$id" </dev/null
	[ "$status" -eq 0 ]
	[ "$output" = cwd-bundle ]
}

@test "run -d returns while the container keeps running" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	[ "$status" -eq 0 ]
	[ "$(ct_status "$id")" = running ]
}

@test "run --detach output goes to run's stdout" {
	id=$(new_id)
	set_cmd 'echo detached-out; sleep 1000'
	rt_bg run --detach --bundle "$BUNDLE" "$id"
	[ "$status" -eq 0 ]
	wait_for_output "$RT_OUT" detached-out
}

@test "run --pid-file writes the init's host pid" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id" --pid-file "$BATS_TEST_TMPDIR/pid"
	[ "$status" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/pid")" = "$(ct_pid "$id")" ]
}

@test "run --keep keeps a stopped container" {
	id=$(new_id)
	set_cmd 'exit 3'
	run rt run --keep --bundle "$BUNDLE" "$id" </dev/null
	[ "$status" -eq 3 ]
	[ "$(ct_status "$id")" = stopped ]
	rt delete "$id"
}

@test "run of a duplicate ID is refused and the original is untouched" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	pid=$(ct_pid "$id")
	run rt run --bundle "$BUNDLE" "$id" </dev/null
	[ "$status" -ne 0 ]
	[ "$(ct_status "$id")" = running ]
	[ "$(ct_pid "$id")" = "$pid" ]
}
