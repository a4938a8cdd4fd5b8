#!/usr/bin/env bats
# The user's executable: PATH lookup inside the container, and runc's wording for failures
# (podman maps "no such file or directory" to 127 and "permission denied" to 126).

load helpers

@test "args[0] is looked up in the container's PATH" {
	update_config '.process.args = ["echo", "found-in-path"]'
	id=$(new_id)
	run_fg "$id"
	[ "$status" -eq 0 ]
	[ "$output" = found-in-path ]
}

@test "args[0] with an absolute path" {
	update_config '.process.args = ["/bin/echo", "absolute"]'
	id=$(new_id)
	run_fg "$id"
	[ "$status" -eq 0 ]
	[ "$output" = absolute ]
}

@test "PATH lookup uses the container's env PATH, not the host's" {
	update_config '.process.env = ["PATH=/nonexistent"] | .process.args = ["echo", "x"]'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no such file or directory"* || "$output" == *"not found"* ]]
	assert_no_trace "$id"
}

@test "a missing executable fails at create: no such file or directory" {
	update_config '.process.args = ["/bin/no-such-binary"]'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no such file or directory"* ]]
	assert_no_trace "$id"
}

@test "a missing executable looked up in PATH: no such file or directory" {
	update_config '.process.args = ["no-such-binary"]'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no such file or directory"* || "$output" == *"executable file not found"* ]]
	assert_no_trace "$id"
}

@test "clasp: a missing executable in PATH says no such file or directory" {
	requires_clasp
	update_config '.process.args = ["no-such-binary"]'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no such file or directory"* ]]
}

@test "a dangling symlink as executable: no such file or directory" {
	update_config '.process.args = ["/bin/dangling"]'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no such file or directory"* ]]
	assert_no_trace "$id"
}

@test "a non-executable file: permission denied" {
	update_config '.process.args = ["/bin/notexec"]'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"permission denied"* ]]
	assert_no_trace "$id"
}

@test "a directory as executable: permission denied" {
	update_config '.process.args = ["/etc"]'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"permission denied"* || "$output" == *"is a directory"* ]]
	assert_no_trace "$id"
}

@test "run of a missing executable fails without leaving a container" {
	update_config '.process.args = ["/bin/no-such-binary"]'
	id=$(new_id)
	run rt run --bundle "$BUNDLE" "$id" </dev/null
	[ "$status" -ne 0 ]
	[[ "$output" == *"no such file or directory"* ]]
	assert_no_trace "$id"
}

@test "start of an unknown container: container does not exist" {
	run rt start ct-$$-nope
	[ "$status" -ne 0 ]
	[[ "$output" == *"container does not exist"* ]]
}
