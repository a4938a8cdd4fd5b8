#!/usr/bin/env bats
# Any failure during create exits non-zero with one clear message and leaves no state directory,
# process, mount or cgroup behind.

load helpers

create_fails_cleanly() {
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ] || {
		echo "create succeeded"
		return 1
	}
	[ -n "$output" ] || {
		echo "no error message"
		return 1
	}
	assert_no_trace "$id"
}

@test "hygiene: config.json that is not JSON" {
	echo '{"ociVersion": "1.0.2", "process": ' >"$BUNDLE/config.json"
	create_fails_cleanly
}

@test "hygiene: config.json of the wrong type" {
	echo '[]' >"$BUNDLE/config.json"
	create_fails_cleanly
}

@test "hygiene: a field of the wrong type" {
	update_config '.process.args = "sh"'
	create_fails_cleanly
}

@test "hygiene: missing ociVersion" {
	# runc 1.1.5 fails this: it does not require ociVersion (REQUIRED in config.md).
	requires_clasp "runc 1.1.5 accepts a config without ociVersion"
	update_config 'del(.ociVersion)'
	create_fails_cleanly
}

@test "hygiene: missing root" {
	update_config 'del(.root)'
	create_fails_cleanly
}

@test "hygiene: missing rootfs directory" {
	update_config '.root.path = "no-such-rootfs"'
	create_fails_cleanly
}

@test "hygiene: rootfs is a file" {
	touch "$BUNDLE/rootfs-file"
	update_config '.root.path = "rootfs-file"'
	create_fails_cleanly
}

@test "hygiene: failing prestart hook" {
	update_config '.hooks.prestart = [{"path": "/bin/false"}]'
	set_cmd 'sleep 1000'
	create_fails_cleanly
}

@test "hygiene: bad mount (unknown filesystem type)" {
	update_config '.mounts += [{"destination": "/mnt", "type": "nosuchfs", "source": "x"}]'
	set_cmd 'sleep 1000'
	create_fails_cleanly
}

@test "hygiene: bad mount (missing bind source)" {
	update_config '.mounts += [{"destination": "/mnt", "type": "bind", "source": "/no/such/source", "options": ["bind"]}]'
	set_cmd 'sleep 1000'
	create_fails_cleanly
}

@test "hygiene: bad mount option" {
	update_config '.mounts += [{"destination": "/mnt", "type": "tmpfs", "source": "tmpfs", "options": ["size=notanumber"]}]'
	set_cmd 'sleep 1000'
	create_fails_cleanly
}

@test "hygiene: missing executable" {
	update_config '.process.args = ["/no/such/program"]'
	create_fails_cleanly
}

@test "hygiene: bad uid mapping" {
	update_config '.linux.namespaces += [{"type": "user"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 0}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
	create_fails_cleanly
}

@test "hygiene: failed run leaves nothing either" {
	update_config '.mounts += [{"destination": "/mnt", "type": "nosuchfs", "source": "x"}]'
	id=$(new_id)
	run rt run --bundle "$BUNDLE" "$id" </dev/null
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "hygiene: the error is one clear message on stderr" {
	requires_clasp
	update_config '.root.path = "no-such-rootfs"'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[ "$(grep -c . "$CT_ERR")" -eq 1 ]
	grep -q 'no-such-rootfs' "$CT_ERR"
}

@test "hygiene: a failed create does not disturb another container" {
	good=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$good"
	update_config '.process.args = ["/no/such/program"]'
	create_fails_cleanly
	[ "$(ct_status "$good")" = running ]
}
