#!/usr/bin/env bats
# create --bundle|-b --pid-file --no-pivot --no-new-keyring ID; IDs; duplicate IDs.

load helpers

@test "create -b leaves a created container" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	rt_bg create -b "$BUNDLE" "$id"
	[ "$status" -eq 0 ]
	[ "$(ct_status "$id")" = created ]
}

@test "create --pid-file writes the init's pid" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id" --pid-file "$BATS_TEST_TMPDIR/pid"
	[ "$status" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/pid")" = "$(ct_pid "$id")" ]
	# Written whole: just digits, no newline required.
	grep -qE '^[0-9]+$' "$BATS_TEST_TMPDIR/pid"
}

@test "create --pid-file with a relative path is relative to the caller's cwd" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	cd "$BATS_TEST_TMPDIR"
	create "$id" --pid-file rel.pid
	[ "$status" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/rel.pid")" = "$(ct_pid "$id")" ]
}

@test "a duplicate ID is refused and the first container is untouched" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	pid=$(ct_pid "$id")
	create "$id"
	[ "$status" -ne 0 ]
	[ "$(ct_status "$id")" = created ]
	[ "$(ct_pid "$id")" = "$pid" ]
}

@test "bad IDs are refused: empty, a/b, .., 1025 bytes" {
	set_cmd 'true'
	long=$(printf 'a%.0s' $(seq 1025))
	for bad in "" "a/b" ".." "$long"; do
		rt_bg create --bundle "$BUNDLE" "$bad"
		[ "$status" -ne 0 ] || {
			echo "ID '${bad:0:20}' was accepted"
			return 1
		}
	done
	[ -z "$(ls -A "$CT_ROOT")" ]
	# Nothing escaped the root either.
	[ ! -e "$(dirname "$CT_ROOT")/b" ]
}

@test "a long ID (200 bytes) with dots, dashes and underscores is accepted" {
	id=ct-$$-$(printf 'b%.0s' $(seq 180))_x.y-z
	echo "$id" >>"$IDS_FILE"
	set_cmd 'true'
	create "$id"
	[ "$status" -eq 0 ]
	rt delete --force "$id"
}

@test "create --no-pivot works" {
	id=$(new_id)
	set_cmd 'echo nopivot; cat /proc/self/mountinfo'
	create "$id" --no-pivot
	[ "$status" -eq 0 ]
	rt start "$id"
	wait_for_state "$id" stopped
	grep -q nopivot "$CT_OUT"
}

@test "create --no-new-keyring keeps the session keyring" {
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id" --no-new-keyring
	[ "$status" -eq 0 ]
	[ "$(ct_status "$id")" = created ]
}

@test "create without a config.json fails cleanly" {
	id=$(new_id)
	rm "$BUNDLE/config.json"
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "create of a nonexistent bundle fails cleanly" {
	id=$(new_id)
	rt_bg create --bundle "$BATS_TEST_TMPDIR/nope" "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
