#!/usr/bin/env bats
# --console-socket: the pty master is sent over SCM_RIGHTS; consoleSize; /dev/console.

load helpers

# start_recvtty: a listener on $SOCK whose output (the container's terminal) goes to $TTY_OUT.
start_recvtty() {
	SOCK=$BATS_TEST_TMPDIR/tty.sock
	TTY_OUT=$BATS_TEST_TMPDIR/tty.out
	local bin
	bin=$(recvtty_bin)
	timeout 30 "$bin" "$SOCK" </dev/null >"$TTY_OUT" 2>"$BATS_TEST_TMPDIR/recvtty.err" &
	RECVTTY_PID=$!
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.02; done
	[ -S "$SOCK" ]
}

teardown() {
	common_teardown
	[ -z "${RECVTTY_PID:-}" ] || kill "$RECVTTY_PID" 2>/dev/null || true
}

@test "run -d --console-socket gives the container a terminal" {
	start_recvtty
	update_config '.process.terminal = true'
	set_cmd 'test -t 0 && test -t 1 && echo is-a-tty; tty; sleep 0.5'
	id=$(new_id)
	run_d "$id" --console-socket "$SOCK"
	[ "$status" -eq 0 ]
	wait_for_output "$TTY_OUT" is-a-tty
	grep -q '/dev/pts/0' "$TTY_OUT"
}

@test "create --console-socket then start" {
	start_recvtty
	update_config '.process.terminal = true'
	set_cmd 'echo via-create; sleep 0.5'
	id=$(new_id)
	create "$id" --console-socket "$SOCK"
	[ "$status" -eq 0 ]
	rt start "$id"
	wait_for_output "$TTY_OUT" via-create
}

@test "consoleSize is honoured" {
	start_recvtty
	update_config '.process.terminal = true | .process.consoleSize = {"height": 37, "width": 101}'
	set_cmd 'stty size; sleep 0.5'
	id=$(new_id)
	run_d "$id" --console-socket "$SOCK"
	[ "$status" -eq 0 ]
	wait_for_output "$TTY_OUT" "37 101"
}

@test "/dev/console is the terminal when there is one" {
	start_recvtty
	update_config '.process.terminal = true'
	set_cmd 'test -c /dev/console && echo console-ok; sleep 0.5'
	id=$(new_id)
	run_d "$id" --console-socket "$SOCK"
	wait_for_output "$TTY_OUT" console-ok
}

@test "input typed into the master reaches the container" {
	SOCK=$BATS_TEST_TMPDIR/tty.sock
	TTY_OUT=$BATS_TEST_TMPDIR/tty.out
	bin=$(recvtty_bin)
	# Keep recvtty's stdin open until we have written a line.
	mkfifo "$BATS_TEST_TMPDIR/in"
	timeout 30 "$bin" "$SOCK" <"$BATS_TEST_TMPDIR/in" >"$TTY_OUT" 2>/dev/null &
	RECVTTY_PID=$!
	exec 7>"$BATS_TEST_TMPDIR/in"
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.02; done
	update_config '.process.terminal = true'
	set_cmd 'read line; echo "typed:$line"'
	id=$(new_id)
	run_d "$id" --console-socket "$SOCK"
	[ "$status" -eq 0 ]
	echo hello-tty >&7
	wait_for_output "$TTY_OUT" typed:hello-tty
	exec 7>&-
}

@test "terminal: true without --console-socket fails for a detached container" {
	update_config '.process.terminal = true'
	set_cmd 'true'
	id=$(new_id)
	run_d "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "--console-socket without terminal: true is refused" {
	start_recvtty
	set_cmd 'true'
	id=$(new_id)
	run_d "$id" --console-socket "$SOCK"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
