#!/usr/bin/env bats
# All eight namespaces, each new or joined by path: compare /proc/self/ns/* inside and on the host.

load helpers

# ns_inside TYPE...: prints "TYPE LINK" for each, as seen from inside a new container.
ns_inside() {
	local cmd="" t
	for t in "$@"; do cmd+="echo $t \$(readlink /proc/self/ns/$t); "; done
	in_container "$cmd"
}

add_ns() { update_config ".linux.namespaces += [{\"type\": \"$1\"}]"; }

userns_maps() {
	update_config '.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
}

check_new() {
	# check_new KERNEL_NAME: the container's namespace differs from the host's.
	local line inside
	line=$(grep "^$1 " <<<"$output")
	inside=${line#* }
	[ -n "$inside" ]
	[ "$inside" != "$(ns_host "$1")" ] || {
		echo "$1 namespace is the host's: $inside"
		return 1
	}
}

check_host() {
	local line inside
	line=$(grep "^$1 " <<<"$output")
	inside=${line#* }
	[ "$inside" = "$(ns_host "$1")" ] || {
		echo "$1 namespace is not the host's: $inside vs $(ns_host "$1")"
		return 1
	}
}

@test "default config: new pid, net, ipc, uts, mount; host cgroup, user" {
	ns_inside pid net ipc uts mnt cgroup user
	[ "$status" -eq 0 ]
	for t in pid net ipc uts mnt; do check_new $t; done
	check_host cgroup
	check_host user
}

@test "a namespace left out of the config is the host's" {
	update_config '.linux.namespaces = [{"type": "mount"}] | del(.hostname)'
	ns_inside pid net ipc uts mnt
	[ "$status" -eq 0 ]
	for t in pid net ipc uts; do check_host $t; done
	check_new mnt
}

@test "new cgroup namespace" {
	add_ns cgroup
	ns_inside cgroup
	[ "$status" -eq 0 ]
	check_new cgroup
}

@test "new cgroup namespace: its root is the container's cgroup" {
	add_ns cgroup
	in_container 'cat /proc/self/cgroup'
	[ "$status" -eq 0 ]
	# Every hierarchy the process is in looks like the root from inside.
	while IFS=: read -r _ _ path; do
		[ "$path" = / ] || {
			echo "cgroup path inside is $path"
			return 1
		}
	done <<<"$output"
}

@test "new user namespace (with mappings)" {
	add_ns user
	userns_maps
	ns_inside user
	[ "$status" -eq 0 ]
	check_new user
}

@test "new time namespace" {
	# runc 1.1.5 fails this: it does not know the time namespace (added in runc 1.2).
	requires_clasp "runc 1.1.5 has no time namespace"
	add_ns time
	ns_inside time
	[ "$status" -eq 0 ]
	check_new time
}

@test "the pid namespace makes the process pid 1" {
	in_container 'echo $$'
	[ "$status" -eq 0 ]
	[ "$output" = 1 ]
}

@test "a new network namespace has only loopback" {
	in_container 'ls /sys/class/net'
	[ "$status" -eq 0 ]
	[ "$output" = lo ]
}

# A holder container whose namespaces the next container joins by path.
start_holder() {
	holder=$(new_id holder)
	local saved
	saved=$(cat "$BUNDLE/config.json")
	set_cmd 'hostname holder-uts; echo ready; sleep 1000'
	update_config '.process.capabilities.bounding += ["CAP_SYS_ADMIN"] | .process.capabilities.effective += ["CAP_SYS_ADMIN"] | .process.capabilities.permitted += ["CAP_SYS_ADMIN"]'
	run_d "$holder"
	[ "$status" -eq 0 ]
	wait_for_output "$CT_OUT" ready
	hpid=$(ct_pid "$holder")
	echo "$saved" >"$BUNDLE/config.json"
}

@test "joining namespaces by path: net, ipc, uts, pid" {
	add_ns cgroup
	start_holder
	# No hostname: setting one would overwrite the holder's in the shared UTS namespace.
	update_config 'del(.hostname)'
	update_config ".linux.namespaces = [
		{\"type\": \"mount\"},
		{\"type\": \"network\", \"path\": \"/proc/$hpid/ns/net\"},
		{\"type\": \"ipc\", \"path\": \"/proc/$hpid/ns/ipc\"},
		{\"type\": \"uts\", \"path\": \"/proc/$hpid/ns/uts\"},
		{\"type\": \"pid\", \"path\": \"/proc/$hpid/ns/pid\"},
		{\"type\": \"cgroup\", \"path\": \"/proc/$hpid/ns/cgroup\"}]"
	set_cmd 'for t in net ipc uts pid cgroup; do echo $t $(readlink /proc/self/ns/$t); done; hostname'
	id=$(new_id)
	run_fg "$id"
	[ "$status" -eq 0 ]
	for t in net ipc uts pid cgroup; do
		[ "$(grep "^$t " <<<"$output" | cut -d' ' -f2)" = "$(readlink /proc/$hpid/ns/$t)" ] || {
			echo "$t not joined: $output"
			return 1
		}
	done
	# The UTS namespace is shared, so the holder's hostname shows.
	[ "${lines[5]}" = holder-uts ]
}

@test "joining a user namespace by path" {
	add_ns user
	userns_maps
	start_holder
	# The mappings stay: they match the joined namespace (runc 1.1.5 insists on them).
	update_config ".linux.namespaces = (.linux.namespaces | map(select(.type != \"user\" and .type != \"network\"))) + [{\"type\": \"user\", \"path\": \"/proc/$hpid/ns/user\"}, {\"type\": \"network\", \"path\": \"/proc/$hpid/ns/net\"}]"
	set_cmd 'readlink /proc/self/ns/user; cat /proc/self/uid_map'
	id=$(new_id)
	run_fg "$id"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$(readlink /proc/$hpid/ns/user)" ]
	[ "$(echo ${lines[1]})" = "0 100000 65536" ]
}

@test "joining a time namespace by path" {
	# runc 1.1.5 fails this: no time namespace support.
	requires_clasp "runc 1.1.5 has no time namespace"
	add_ns time
	start_holder
	update_config ".linux.namespaces = (.linux.namespaces | map(select(.type != \"time\"))) + [{\"type\": \"time\", \"path\": \"/proc/$hpid/ns/time\"}]"
	set_cmd 'readlink /proc/self/ns/time'
	id=$(new_id)
	run_fg "$id"
	[ "$status" -eq 0 ]
	[ "$output" = "$(readlink /proc/$hpid/ns/time)" ]
}

@test "a namespace path of the wrong type is refused" {
	update_config '.linux.namespaces |= map(if .type == "network" then .path = "/proc/self/ns/ipc" else . end)'
	set_cmd 'true'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "a nonexistent namespace path is refused" {
	update_config '.linux.namespaces |= map(if .type == "network" then .path = "/nonexistent/ns/net" else . end)'
	set_cmd 'true'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "a duplicated namespace type is refused" {
	update_config '.linux.namespaces += [{"type": "network"}]'
	set_cmd 'true'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "an unknown namespace type is refused" {
	update_config '.linux.namespaces += [{"type": "nett"}]'
	set_cmd 'true'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "clasp names the JSON path of an unknown namespace type" {
	requires_clasp
	update_config '.linux.namespaces += [{"type": "nett"}]'
	set_cmd 'true'
	id=$(new_id)
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *'config.json: .linux.namespaces[5].type'* ]]
}
