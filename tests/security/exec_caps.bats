#!/usr/bin/env bats
# CVE-2022-29162 class (and moby's CVE-2022-24769): processes start with an empty inheritable
# set unless the config asks for one. runc gave exec'd processes inheritable capabilities; a
# non-root process then gained them by executing a file with inheritable file capabilities.

load ../integration/helpers

exec_works() {
	local out
	out=$(rt exec "$1" true 2>&1) && return 0
	case "$out" in *"not implemented"*) skip "clasp exec is not implemented yet" ;; esac
	echo "exec failed: $out" >&2
	return 1
}

cap_inh() {
	sed -n 's/^CapInh:[[:space:]]*//p' <<<"$1"
}

setup() {
	common_setup
	make_bundle --copy
	# A copy of busybox with inheritable+effective file capabilities for CAP_KILL (in the
	# bounding set): only a process whose own inheritable set holds CAP_KILL gains it.
	# (Named cat so that busybox runs its cat applet.)
	mkdir -p "$BUNDLE/rootfs/opt"
	cp "$BUNDLE/rootfs/bin/busybox" "$BUNDLE/rootfs/opt/cat"
	setcap cap_kill+ei "$BUNDLE/rootfs/opt/cat"
	set_cmd 'sleep 1000'
	ID=$(new_id)
	run_d "$ID"
	[ "$status" -eq 0 ]
	exec_works "$ID"
}

@test "CVE-2022-29162: an exec'd process has CapInh = 0" {
	run rt exec "$ID" cat /proc/self/status
	[ "$status" -eq 0 ]
	[ "$(cap_inh "$output")" = 0000000000000000 ]
}

@test "CVE-2022-29162: an exec'd process with --cap has CapInh = 0" {
	run rt exec --cap CAP_SYS_ADMIN --cap CAP_NET_ADMIN "$ID" cat /proc/self/status
	[ "$status" -eq 0 ]
	[ "$(cap_inh "$output")" = 0000000000000000 ]
}

@test "CVE-2022-29162: an exec'd non-root process has CapInh = 0 and gains nothing from file caps" {
	run rt exec -u 1000:1000 "$ID" cat /proc/self/status
	[ "$status" -eq 0 ]
	[ "$(cap_inh "$output")" = 0000000000000000 ]
	run rt exec -u 1000:1000 "$ID" /opt/cat /proc/self/status
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^CapEff:[[:space:]]*0000000000000000' <<<"$output"
	grep -q '^CapPrm:[[:space:]]*0000000000000000' <<<"$output"
}

@test "CVE-2022-29162: an exec'd process from --process without inheritable has CapInh = 0" {
	jq '.process | .args = ["cat", "/proc/self/status"] | .user = {"uid": 1000, "gid": 1000}' "$BUNDLE/config.json" >"$BATS_TEST_TMPDIR/process.json"
	run rt exec --process "$BATS_TEST_TMPDIR/process.json" "$ID"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cap_inh "$output")" = 0000000000000000 ]
}

@test "CVE-2022-29162: the container's init has CapInh = 0 when the config names none" {
	pid=$(ct_pid "$ID")
	grep -q $'^CapInh:\t0000000000000000' "/proc/$pid/status"
}
