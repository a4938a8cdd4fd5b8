#!/usr/bin/env bats
# kill [-a|--all] ID [SIGNAL]: names with or without SIG, and numbers.

load helpers

# A container that reports each signal it catches on stdout.
start_trapper() {
	id=$(new_id)
	set_cmd 'for s in HUP INT USR1 USR2 TERM; do trap "echo caught-$s" $s; done; echo ready; while :; do sleep 0.05; done'
	run_d "$id"
	[ "$status" -eq 0 ]
	wait_for_output "$CT_OUT" ready
}

@test "kill accepts signal names with SIG" {
	start_trapper
	rt kill "$id" SIGUSR1
	wait_for_output "$CT_OUT" caught-USR1
}

@test "kill accepts signal names without SIG" {
	start_trapper
	rt kill "$id" USR2
	wait_for_output "$CT_OUT" caught-USR2
	rt kill "$id" HUP
	wait_for_output "$CT_OUT" caught-HUP
}

@test "kill accepts signal numbers" {
	start_trapper
	rt kill "$id" 10
	wait_for_output "$CT_OUT" caught-USR1
	rt kill "$id" 2
	wait_for_output "$CT_OUT" caught-INT
}

@test "kill defaults to SIGTERM" {
	start_trapper
	rt kill "$id"
	wait_for_output "$CT_OUT" caught-TERM
}

@test "kill KILL stops the container" {
	start_trapper
	rt kill "$id" KILL
	wait_for_state "$id" stopped
}

@test "kill of an unknown signal fails and the container keeps running" {
	start_trapper
	run rt kill "$id" NOSUCHSIG
	[ "$status" -ne 0 ]
	run rt kill "$id" 999
	[ "$status" -ne 0 ]
	[ "$(ct_status "$id")" = running ]
}

@test "kill of an unknown container: container does not exist" {
	run rt kill ct-$$-nope KILL
	[ "$status" -ne 0 ]
	[[ "$output" == *"container does not exist"* ]]
}

@test "kill works on a created container" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	run rt kill "$id" KILL
	[ "$status" -eq 0 ]
	wait_for_state "$id" stopped
}

@test "kill --all signals every process of the container" {
	id=$(new_id)
	# No pid namespace: killing the init alone would not take its child along.
	update_config '.linux.namespaces |= map(select(.type != "pid"))'
	set_cmd 'sleep 1000 & echo child=$!; wait'
	run_d "$id"
	wait_for_output "$CT_OUT" child=
	child=$(sed -n 's/^child=//p' "$CT_OUT")
	[ -d "/proc/$child" ]
	run rt kill --all "$id" KILL
	[ "$status" -eq 0 ]
	wait_for_state "$id" stopped
	for _ in $(seq 50); do [ -d "/proc/$child" ] || break; sleep 0.1; done
	[ ! -d "/proc/$child" ] || grep -q '^State:.*Z' "/proc/$child/status"
}

@test "kill of a stopped container fails" {
	id=$(new_id)
	set_cmd 'true'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	run rt kill "$id" KILL
	[ "$status" -ne 0 ]
}
