#!/usr/bin/env bats
# --preserve-fds N, LISTEN_FDS pass-through, and every other fd closed before exec.

load helpers

@test "only 0, 1 and 2 reach the container by default" {
	set_cmd 'ls /proc/self/fd'
	id=$(new_id)
	exec 5>"$BATS_TEST_TMPDIR/leak"
	run_fg "$id"
	exec 5>&-
	[ "$status" -eq 0 ]
	# ls itself holds one fd for the directory it reads: 0 1 2 3.
	[ "$(echo $output)" = "0 1 2 3" ]
}

@test "--preserve-fds N passes fds 3..3+N-1" {
	echo from-fd3 >"$BATS_TEST_TMPDIR/f3"
	echo from-fd4 >"$BATS_TEST_TMPDIR/f4"
	set_cmd 'cat <&3; cat <&4; if [ -e /proc/$$/fd/5 ]; then echo fd5-leaked; else echo fd5-closed; fi'
	id=$(new_id)
	run rt run --preserve-fds 2 --bundle "$BUNDLE" "$id" 3<"$BATS_TEST_TMPDIR/f3" 4<"$BATS_TEST_TMPDIR/f4" 5<"$BATS_TEST_TMPDIR/f4" </dev/null
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = from-fd3 ]
	[ "${lines[1]}" = from-fd4 ]
	# fd 5 was not preserved.
	[ "${lines[2]}" = fd5-closed ]
}

@test "create --preserve-fds keeps the fd until start" {
	echo preserved >"$BATS_TEST_TMPDIR/f3"
	set_cmd 'cat <&3'
	id=$(new_id)
	rt create --preserve-fds 1 --bundle "$BUNDLE" "$id" 3<"$BATS_TEST_TMPDIR/f3" </dev/null >"$BATS_TEST_TMPDIR/out" 2>&1
	rt start "$id"
	wait_for_state "$id" stopped
	grep -qx preserved "$BATS_TEST_TMPDIR/out"
}

@test "LISTEN_FDS passes the listen fds through" {
	echo socket-stand-in >"$BATS_TEST_TMPDIR/f3"
	set_cmd 'echo "LISTEN_FDS=$LISTEN_FDS"; cat <&3'
	id=$(new_id)
	# systemd's rule: the fds are for the process whose pid is LISTEN_PID, i.e. the runtime itself.
	run timeout "$RT_TIMEOUT" sh -c 'export LISTEN_PID=$$ LISTEN_FDS=1; exec "$0" --root "$1" run --bundle "$2" "$3" 3<"$4" </dev/null' \
		"$RUNTIME" "$CT_ROOT" "$BUNDLE" "$id" "$BATS_TEST_TMPDIR/f3"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = LISTEN_FDS=1 ]
	[ "${lines[1]}" = socket-stand-in ]
}
