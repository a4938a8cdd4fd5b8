#!/usr/bin/env bats
# root.path, root.readonly, rootfsPropagation, --no-pivot.

load helpers

@test "root.readonly: the rootfs cannot be written" {
	in_container 'touch /should-fail 2>&1; echo rc=$?; awk "\$5 == \"/\" {print \$6}" /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	[ "${lines[1]}" = rc=1 ]
	[[ "${lines[2]}" =~ (^|,)ro(,|$) ]]
	[ ! -e "$SHARED_ROOTFS/should-fail" ]
}

@test "root.readonly false: writes reach the bundle's rootfs" {
	make_bundle --copy
	in_container 'echo written >/hello'
	[ "$status" -eq 0 ]
	[ "$(cat "$BUNDLE/rootfs/hello")" = written ]
}

@test "a relative root.path is relative to the bundle" {
	make_bundle --copy
	update_config '.root.path = "rootfs"'
	cd /
	in_container 'echo relative-root'
	[ "$status" -eq 0 ]
	[ "$output" = relative-root ]
}

@test "the container's root is its rootfs, not the host's" {
	make_bundle --copy
	echo marker-$$ >"$BUNDLE/rootfs/marker"
	in_container 'cat /marker; ls /work 2>&1; true'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "marker-$$" ]
	[[ "${lines[1]}" == *"No such file"* ]]
}

@test "pivot_root: the old root is not reachable" {
	in_container 'awk "{print \$5}" /proc/self/mountinfo; ls /'
	[ "$status" -eq 0 ]
	# No mount point carries a host path, and the host's top-level directories are gone.
	refute grep -qE '^(/tmp/bats|/work|/usr)' <<<"$output"
	refute grep -qx work <<<"$output"
}

@test "--no-pivot: the container still sees only its rootfs" {
	id=$(new_id)
	set_cmd 'ls /; cat /proc/self/mountinfo'
	create "$id" --no-pivot
	[ "$status" -eq 0 ]
	rt start "$id"
	wait_for_state "$id" stopped
	grep -qx bin "$CT_OUT"
	refute grep -q '^work$' "$CT_OUT"
}

propagation_of_root() {
	# Prints the optional fields of the / mount as seen inside.
	in_container 'awk "\$5 == \"/\"" /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	echo "$output"
}

@test "rootfsPropagation private: the root mount is not shared" {
	update_config '.linux.rootfsPropagation = "private"'
	run propagation_of_root
	[ "$status" -eq 0 ]
	refute grep -qE 'shared:|master:' <<<"$output"
}

@test "rootfsPropagation slave: mounts inside do not propagate out" {
	# The host's / is private here, so a slave has no master to show; it must not be shared.
	update_config '.linux.rootfsPropagation = "slave"'
	run propagation_of_root
	[ "$status" -eq 0 ]
	refute grep -q 'shared:' <<<"$output"
}

@test "rootfsPropagation shared: the root mount is shared" {
	# runc 1.1.5 fails this: its root mount ends up private on this host (/ is private).
	requires_clasp "runc leaves the root private"
	update_config '.linux.rootfsPropagation = "shared"'
	run propagation_of_root
	[ "$status" -eq 0 ]
	grep -q 'shared:' <<<"$output"
}

@test "rootfsPropagation unbindable: the root mount is unbindable" {
	# runc 1.1.5 fails this: it cannot bind the rootfs once / is unbindable (EINVAL).
	requires_clasp "runc fails with EINVAL"
	update_config '.linux.rootfsPropagation = "unbindable"'
	run propagation_of_root
	[ "$status" -eq 0 ]
	grep -q 'unbindable' <<<"$output"
}

@test "an invalid rootfsPropagation is refused" {
	update_config '.linux.rootfsPropagation = "sideways"'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
