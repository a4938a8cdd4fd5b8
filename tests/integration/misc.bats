#!/usr/bin/env bats
# noNewPrivileges, oomScoreAdj, sysctl, personality.

load helpers

@test "noNewPrivileges true: NoNewPrivs: 1" {
	in_container 'grep ^NoNewPrivs: /proc/self/status'
	[ "$status" -eq 0 ]
	[ "$output" = $'NoNewPrivs:\t1' ]
}

@test "noNewPrivileges false: NoNewPrivs: 0" {
	update_config '.process.noNewPrivileges = false'
	in_container 'grep ^NoNewPrivs: /proc/self/status'
	[ "$status" -eq 0 ]
	[ "$output" = $'NoNewPrivs:\t0' ]
}

@test "oomScoreAdj positive" {
	update_config '.process.oomScoreAdj = 500'
	in_container 'cat /proc/self/oom_score_adj'
	[ "$status" -eq 0 ]
	[ "$output" = 500 ]
}

@test "oomScoreAdj negative" {
	if ! host_has_cap 24; then
		skip "lowering oom_score_adj needs CAP_SYS_RESOURCE, which this machine does not have"
	fi
	update_config '.process.oomScoreAdj = -500'
	in_container 'cat /proc/self/oom_score_adj'
	[ "$status" -eq 0 ]
	[ "$output" = -500 ]
}

@test "sysctl net.ipv4.ip_forward in a new network namespace" {
	host_before=$(cat /proc/sys/net/ipv4/ip_forward)
	want=$((1 - host_before))
	update_config ".linux.sysctl = {\"net.ipv4.ip_forward\": \"$want\"}"
	in_container 'cat /proc/sys/net/ipv4/ip_forward'
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
	[ "$(cat /proc/sys/net/ipv4/ip_forward)" = "$host_before" ]
}

@test "sysctl kernel.domainname in a new UTS namespace" {
	update_config '.linux.sysctl = {"kernel.domainname": "sysctl.test"}'
	in_container 'cat /proc/sys/kernel/domainname'
	[ "$status" -eq 0 ]
	[ "$output" = sysctl.test ]
	[ "$(cat /proc/sys/kernel/domainname)" != sysctl.test ]
}

@test "sysctl kernel.msgmax in a new IPC namespace" {
	update_config '.linux.sysctl = {"kernel.msgmax": "4321"}'
	in_container 'cat /proc/sys/kernel/msgmax'
	[ "$status" -eq 0 ]
	[ "$output" = 4321 ]
}

@test "a net.* sysctl without a network namespace is refused" {
	update_config '.linux.namespaces |= map(select(.type != "network")) | .linux.sysctl = {"net.ipv4.ip_forward": "1"}'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "an unknown sysctl fails create cleanly" {
	update_config '.linux.sysctl = {"net.ipv4.no_such_knob": "1"}'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "personality LINUX32: uname -m shows i686" {
	# runc 1.1.5 fails this: it ignores linux.personality (supported from runc 1.2).
	requires_clasp "runc 1.1.5 ignores personality"
	update_config '.linux.personality = {"domain": "LINUX32"}'
	in_container 'uname -m'
	[ "$status" -eq 0 ]
	[ "$output" = i686 ]
}

@test "personality LINUX: uname -m is the host's" {
	update_config '.linux.personality = {"domain": "LINUX"}'
	in_container 'uname -m'
	[ "$status" -eq 0 ]
	[ "$output" = "$(uname -m)" ]
}

@test "an unknown personality domain is refused" {
	requires_clasp "runc 1.1.5 ignores personality"
	update_config '.linux.personality = {"domain": "WINDOWS"}'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
