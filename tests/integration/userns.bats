#!/usr/bin/env bats
# uid and gid mappings with a user namespace, written by the parent.

load helpers

setup() {
	common_setup
	update_config '.linux.namespaces += [{"type": "user"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 200000, "size": 65536}]'
}

@test "uid_map and gid_map are written" {
	in_container 'cat /proc/self/uid_map; cat /proc/self/gid_map'
	[ "$status" -eq 0 ]
	[ "$(echo ${lines[0]})" = "0 100000 65536" ]
	[ "$(echo ${lines[1]})" = "0 200000 65536" ]
}

@test "the process is root inside and the mapped uid outside" {
	id=$(new_id)
	set_cmd 'id -u; id -g; sleep 1000'
	run_d "$id"
	[ "$status" -eq 0 ]
	wait_for_output "$CT_OUT" 0
	pid=$(ct_pid "$id")
	grep -q $'^Uid:\t100000\t100000\t100000\t100000' "/proc/$pid/status"
	grep -q $'^Gid:\t200000\t200000\t200000\t200000' "/proc/$pid/status"
	[ "$(head -n2 "$CT_OUT" | tr '\n' ' ')" = "0 0 " ]
}

@test "several mapping ranges" {
	update_config '.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 1000}, {"containerID": 1000, "hostID": 300000, "size": 1000}]'
	in_container 'cat /proc/self/uid_map'
	[ "$status" -eq 0 ]
	[ "$(echo ${lines[0]})" = "0 100000 1000" ]
	[ "$(echo ${lines[1]})" = "1000 300000 1000" ]
}

@test "process.user uid inside a user namespace" {
	update_config '.process.user = {"uid": 1000, "gid": 1000}'
	id=$(new_id)
	set_cmd 'id -u; sleep 1000'
	run_d "$id"
	wait_for_output "$CT_OUT" 1000
	pid=$(ct_pid "$id")
	grep -q $'^Uid:\t101000' "/proc/$pid/status"
}

@test "mappings without a user namespace are refused" {
	# runc 1.1.5 fails this: it ignores mappings when there is no user namespace.
	requires_clasp "runc 1.1.5 ignores the mappings"
	update_config '.linux.namespaces |= map(select(.type != "user"))'
	id=$(new_id)
	set_cmd 'true'
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}
