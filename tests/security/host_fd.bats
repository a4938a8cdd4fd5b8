#!/usr/bin/env bats
# CVE-2024-21626 class ("Leaky Vessels"): no host file descriptor reaches the container.
# runc leaked an fd on the host's /sys/fs/cgroup into its init; a cwd of /proc/self/fd/N then
# left the container's process in a host directory, and ../.. walked the host's filesystem.
# Here: a cwd of /proc/self/fd/N, N = 3..20, is refused by run and by exec, and the container's
# processes (init and exec'd) hold no descriptor beyond stdio.

load ../integration/helpers

exec_works() {
	local out
	out=$(rt exec "$1" true 2>&1) && return 0
	case "$out" in *"not implemented"*) skip "clasp exec is not implemented yet" ;; esac
	echo "exec failed: $out" >&2
	return 1
}

# The fds of the calling shell, other than 0-2 and the directory ls reads.
LIST_FDS='ls -l /proc/self/fd/ | sed -n "s/.* \([0-9][0-9]*\) -> \(.*\)/\1 \2/p" | while read n t; do
	[ "$n" -le 2 ] && continue
	case "$t" in /proc/*/fd) continue ;; esac
	echo "LEAK $n -> $t"
done; echo listed'

@test "CVE-2024-21626: run refuses a cwd of /proc/self/fd/N for N in 3..20" {
	for n in $(seq 3 20); do
		update_config ".process.cwd = \"/proc/self/fd/$n\""
		# If a cwd were accepted, this would show where it led.
		set_cmd 'echo "ESCAPED cwd=$(pwd)"; ls ../../../../ | head -n 5'
		id=$(new_id)
		run_fg "$id"
		if [ "$status" -eq 0 ] || [[ $output == *ESCAPED* ]]; then
			echo "cwd /proc/self/fd/$n was accepted: $output"
			return 1
		fi
		# The full scan (processes, mounts, cgroups) is slow: once, below.
		[ ! -e "$CT_ROOT/$id" ]
	done
	assert_no_trace "$id"
}

@test "CVE-2024-21626: create refuses a cwd of /proc/self/fd/N and leaves nothing behind" {
	for n in 3 4 5 6 7 8; do
		update_config ".process.cwd = \"/proc/self/fd/$n\""
		set_cmd 'pwd'
		id=$(new_id)
		create "$id"
		if [ "$status" -eq 0 ]; then
			rt start "$id" || true
			wait_for_state "$id" stopped || true
			echo "cwd /proc/self/fd/$n was accepted by create: $(cat "$CT_OUT")"
			return 1
		fi
		assert_no_trace "$id"
	done
}

@test "CVE-2024-21626: the container's init holds no fd beyond stdio" {
	# Extra fds open in the caller must not be inherited either.
	exec 7<"$BUNDLE/config.json" 8</sys/fs/cgroup 9</
	set_cmd "$LIST_FDS"
	id=$(new_id)
	run_fg "$id"
	exec 7<&- 8<&- 9<&-
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *listed* ]]
	[[ $output != *LEAK* ]]
}

@test "CVE-2024-21626: a detached init and a createContainer hook hold no fd beyond stdio" {
	make_bundle --copy
	HOOKFDS=$BATS_TEST_TMPDIR/hookfds
	printf '#!/bin/sh\ncat >/dev/null\n%s\n' "$LIST_FDS" >"$BATS_TEST_TMPDIR/hook.sh"
	chmod 755 "$BATS_TEST_TMPDIR/hook.sh"
	update_config ".hooks.createContainer = [{\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"$BATS_TEST_TMPDIR/hook.sh >$HOOKFDS 2>&1\"], \"timeout\": 10}]"
	set_cmd "$LIST_FDS >/tmp/fds 2>&1; sleep 1000"
	id=$(new_id)
	exec 8</sys/fs/cgroup
	run_d "$id"
	exec 8<&-
	[ "$status" -eq 0 ] || {
		echo "$output"
		return 1
	}
	wait_for_output "$BUNDLE/rootfs/tmp/fds" listed
	wait_for_output "$HOOKFDS" listed
	echo "init:"
	cat "$BUNDLE/rootfs/tmp/fds"
	echo "createContainer hook:"
	cat "$HOOKFDS"
	refute grep -q LEAK "$BUNDLE/rootfs/tmp/fds"
	refute grep -q LEAK "$HOOKFDS"
}

@test "CVE-2024-21626: exec refuses a cwd of /proc/self/fd/N for N in 3..20" {
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ]
	exec_works "$id"
	for n in $(seq 3 20); do
		run rt exec --cwd "/proc/self/fd/$n" "$id" sh -c 'echo "ESCAPED cwd=$(pwd)"'
		if [ "$status" -eq 0 ] || [[ $output == *ESCAPED* ]]; then
			echo "exec --cwd /proc/self/fd/$n was accepted: $output"
			return 1
		fi
	done
	# The container survives the refusals.
	[ "$(ct_status "$id")" = running ]
}

@test "CVE-2024-21626: an exec'd process holds no fd beyond stdio" {
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ]
	exec_works "$id"
	exec 8</sys/fs/cgroup 9</
	run rt exec "$id" sh -c "$LIST_FDS"
	exec 8<&- 9<&-
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *listed* ]]
	[[ $output != *LEAK* ]]
}
