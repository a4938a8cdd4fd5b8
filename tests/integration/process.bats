#!/usr/bin/env bats
# process: user (uid, gid, additionalGids, umask), cwd, env, args.

load helpers

@test "process.user uid and gid" {
	update_config '.process.user = {"uid": 1000, "gid": 1001}'
	in_container 'id -u; id -g; grep -E "^(Uid|Gid):" /proc/self/status'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 1000 ]
	[ "${lines[1]}" = 1001 ]
	[[ "${lines[2]}" == $'Uid:\t1000\t1000\t1000\t1000' ]]
	[[ "${lines[3]}" == $'Gid:\t1001\t1001\t1001\t1001' ]]
}

@test "process.user additionalGids" {
	update_config '.process.user = {"uid": 1000, "gid": 1000, "additionalGids": [5, 27, 2000]}'
	in_container 'grep "^Groups:" /proc/self/status'
	[ "$status" -eq 0 ]
	[ "$(echo $output)" = "Groups: 5 27 2000" ]
}

@test "without additionalGids the supplementary groups are empty" {
	update_config '.process.user = {"uid": 1000, "gid": 1000}'
	in_container 'grep "^Groups:" /proc/self/status'
	[ "$status" -eq 0 ]
	[ "$(echo $output)" = "Groups:" ]
}

@test "process.user umask" {
	make_bundle --copy
	update_config '.process.user.umask = 63'
	in_container 'umask; touch /tmp/f; stat -c %a /tmp/f'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0077 ]
	[ "${lines[1]}" = 600 ]
}

@test "the default umask is 0022" {
	in_container 'umask'
	[ "$status" -eq 0 ]
	[ "$output" = 0022 ]
}

@test "process.cwd" {
	update_config '.process.cwd = "/etc"'
	in_container 'pwd'
	[ "$status" -eq 0 ]
	[ "$output" = /etc ]
}

@test "process.cwd that does not exist is created" {
	make_bundle --copy
	update_config '.process.cwd = "/work/dir"'
	in_container 'pwd'
	[ "$status" -eq 0 ]
	[ "$output" = /work/dir ]
}

@test "process.cwd is a relative path: refused" {
	update_config '.process.cwd = "etc"'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "process.env is exactly what the config says" {
	update_config '.process.env = ["PATH=/bin", "FOO=bar baz", "EMPTY="]'
	update_config '.process.args = ["env"]'
	id=$(new_id)
	run_fg "$id"
	[ "$status" -eq 0 ]
	grep -qx 'FOO=bar baz' <<<"$output"
	grep -qx 'EMPTY=' <<<"$output"
	grep -qx 'PATH=/bin' <<<"$output"
	# Nothing of the runtime's own environment leaks in.
	refute grep -q '^BATS_' <<<"$output"
}

@test "HOME is set from the user when the config lacks it" {
	update_config '.process.user = {"uid": 1000, "gid": 1000}'
	in_container 'echo "home=$HOME"'
	[ "$status" -eq 0 ]
	[ "$output" = home=/home/tester ]
}

@test "args are passed verbatim" {
	update_config '.process.args = ["/bin/echo", "a b", "", "$HOME", "*"]'
	id=$(new_id)
	run_fg "$id"
	[ "$status" -eq 0 ]
	[ "$output" = 'a b  $HOME *' ]
}

@test "a negative uid is refused" {
	update_config '.process.user.uid = -1'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "clasp: config errors name the JSON path and the reason" {
	requires_clasp
	update_config '.process.user.uid = -1'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"config.json: .process.user.uid: expected a non-negative integer"* ]]
	# One clear message.
	[ "$(grep -c . "$CT_ERR")" -le 2 ]
}

@test "missing process.args is refused" {
	update_config 'del(.process.args)'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
