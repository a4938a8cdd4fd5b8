#!/usr/bin/env bats
# config.md: ociVersion, root, mounts, process, hostname, domainname, hooks, annotations,
# extensibility, valid values.

load ../integration/helpers

@test "config.md root: \"A directory MUST exist at the path declared by the field\"" {
	update_config '.root.path = "/no/such/rootfs"'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config.md root: \"If true then the root filesystem MUST be read-only inside the container\"" {
	in_container 'touch /x 2>/dev/null && echo wrote || echo ro'
	[ "$status" -eq 0 ]
	[ "$output" = ro ]
}

@test "config.md root: readonly \"defaults to false\"" {
	make_bundle --copy
	update_config 'del(.root.readonly)'
	in_container 'touch /x && echo wrote'
	[ "$status" -eq 0 ]
	[ "$output" = wrote ]
}

@test "config.md mounts: \"The runtime MUST mount entries in the listed order\"" {
	make_bundle --copy
	mkdir "$BATS_TEST_TMPDIR/src"
	echo bound >"$BATS_TEST_TMPDIR/src/f"
	update_config ".mounts += [{\"destination\": \"/o\", \"type\": \"tmpfs\", \"source\": \"tmpfs\"},
		{\"destination\": \"/o/inner\", \"type\": \"bind\", \"source\": \"$BATS_TEST_TMPDIR/src\", \"options\": [\"bind\"]}]"
	in_container 'cat /o/inner/f'
	[ "$status" -eq 0 ]
	[ "$output" = bound ]
}

@test "config.md mounts: \"destination ... MUST be an absolute path\" (relative is refused or taken from /)" {
	make_bundle --copy
	update_config '.mounts += [{"destination": "reldest", "type": "tmpfs", "source": "tmpfs"}]'
	id=$(new_id)
	set_cmd 'awk "\$5 == \"/reldest\"" /proc/self/mountinfo'
	create "$id"
	if [ "$status" -eq 0 ]; then
		# "MAY be a relative path, in which case it MUST be interpreted as relative to /"
		rt start "$id"
		wait_for_state "$id" stopped
		grep -q tmpfs "$CT_OUT"
	else
		assert_no_trace "$id"
	fi
}

@test "config.md mounts: Linux option strings that MUST be supported are accepted" {
	make_bundle --copy
	mkdir "$BATS_TEST_TMPDIR/src"
	update_config ".mounts += [
		{\"destination\": \"/m1\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": [\"async\", \"atime\", \"dev\", \"diratime\", \"exec\", \"rw\", \"suid\", \"relatime\", \"lazytime\", \"iversion\"]},
		{\"destination\": \"/m2\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": [\"noatime\", \"nodev\", \"nodiratime\", \"noexec\", \"nosuid\", \"ro\", \"sync\", \"dirsync\", \"nolazytime\", \"noiversion\", \"norelatime\", \"silent\", \"loud\"]},
		{\"destination\": \"/m3\", \"type\": \"tmpfs\", \"source\": \"tmpfs\", \"options\": [\"strictatime\", \"nostrictatime\"]},
		{\"destination\": \"/b1\", \"type\": \"bind\", \"source\": \"$BATS_TEST_TMPDIR/src\", \"options\": [\"bind\", \"private\"]},
		{\"destination\": \"/b2\", \"type\": \"bind\", \"source\": \"$BATS_TEST_TMPDIR/src\", \"options\": [\"rbind\", \"rprivate\"]},
		{\"destination\": \"/b3\", \"type\": \"bind\", \"source\": \"$BATS_TEST_TMPDIR/src\", \"options\": [\"rbind\", \"rslave\"]},
		{\"destination\": \"/b4\", \"type\": \"bind\", \"source\": \"$BATS_TEST_TMPDIR/src\", \"options\": [\"rbind\", \"slave\"]},
		{\"destination\": \"/b5\", \"type\": \"bind\", \"source\": \"$BATS_TEST_TMPDIR/src\", \"options\": [\"rbind\", \"rshared\"]},
		{\"destination\": \"/b6\", \"type\": \"bind\", \"source\": \"$BATS_TEST_TMPDIR/src\", \"options\": [\"rbind\", \"shared\"]},
		{\"destination\": \"/b7\", \"type\": \"bind\", \"source\": \"$BATS_TEST_TMPDIR/src\", \"options\": [\"rbind\", \"unbindable\"]},
		{\"destination\": \"/b8\", \"type\": \"bind\", \"source\": \"$BATS_TEST_TMPDIR/src\", \"options\": [\"rbind\", \"runbindable\"]},
		{\"destination\": \"/b9\", \"type\": \"bind\", \"source\": \"$BATS_TEST_TMPDIR/src\", \"options\": [\"bind\", \"ro\"]}]"
	in_container 'cat /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	line() { awk -v d="$1" '$5 == d' <<<"$output" | tail -n1; }
	[[ "$(line /m2)" =~ \ ro, ]]
	[[ "$(line /m2 | cut -d' ' -f6)" == *noexec* ]]
	[[ "$(line /b5)" == *shared:* ]]
	[[ "$(line /b7)" == *unbindable* ]]
	[[ "$(line /b9 | cut -d' ' -f6)" =~ (^|,)ro(,|$) ]]
}

@test "config.md mounts: the option \"defaults\" (MUST) is accepted" {
	# runc 1.1.5 fails this: it passes "defaults" to the kernel as data (EINVAL).
	requires_clasp "runc 1.1.5 passes defaults as mount data"
	make_bundle --copy
	update_config '.mounts += [{"destination": "/d", "type": "tmpfs", "source": "tmpfs", "options": ["defaults"]}]'
	in_container 'awk "\$5 == \"/d\"" /proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[[ "$output" == *tmpfs* ]]
}

@test "config.md process: \"Runtimes MUST ignore consoleSize if terminal is false or unset\"" {
	update_config '.process.consoleSize = {"height": 10, "width": 10}'
	in_container 'echo ok'
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
}

@test "config.md process: cwd \"This value MUST be an absolute path\"" {
	update_config '.process.cwd = "relative/dir"'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config.md process: cwd is the working directory" {
	update_config '.process.cwd = "/bin"'
	in_container pwd
	[ "$output" = /bin ]
}

@test "config.md process: env is the process environment" {
	update_config '.process.env = ["PATH=/bin", "A=1", "B=two words"]'
	in_container 'echo "$A|$B"'
	[ "$output" = "1|two words" ]
}

@test "config.md process: args[0] is looked up with the container's PATH" {
	update_config '.process.args = ["echo", "via", "path"]'
	id=$(new_id)
	run_fg "$id"
	[ "$output" = "via path" ]
}

@test "config.md rlimits: \"rlim.rlim_cur MUST match ... rlim.rlim_max MUST match the configured value\"" {
	update_config '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 77, "hard": 88}, {"type": "RLIMIT_CORE", "soft": 0, "hard": 1024}]'
	in_container 'ulimit -Sn; ulimit -Hn; grep "^Max core" /proc/self/limits'
	[ "${lines[0]}" = 77 ]
	[ "${lines[1]}" = 88 ]
	[[ "${lines[2]}" =~ Max\ core\ file\ size\ +0\ +1024 ]]
}

@test "config.md rlimits: \"MUST generate an error for any values which cannot be mapped\"" {
	update_config '.process.rlimits = [{"type": "RLIMIT_BOGUS", "soft": 1, "hard": 1}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config.md rlimits: \"duplicated entries with same type, the runtime MUST generate an error\"" {
	update_config '.process.rlimits = [{"type": "RLIMIT_NOFILE", "soft": 10, "hard": 10}, {"type": "RLIMIT_NOFILE", "soft": 20, "hard": 20}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config.md capabilities: \"cannot be granted otherwise MUST be logged as a warning\" (not fatal)" {
	update_config '.process.capabilities.bounding += ["CAP_NOT_A_CAP"] | .process.capabilities.effective += ["CAP_NOT_A_CAP"] | .process.capabilities.permitted += ["CAP_NOT_A_CAP"]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -eq 0 ]
	rt start "$id"
	wait_for_state "$id" stopped
}

@test "config.md capabilities: the configured sets are the process's sets" {
	in_container 'grep -E "^Cap(Bnd|Eff|Prm):" /proc/self/status'
	[ "$status" -eq 0 ]
	for l in "${lines[@]}"; do [[ "$l" == *0000000020000420 ]]; done
}

@test "config.md noNewPrivileges: \"prevents the process from gaining additional privileges\"" {
	in_container 'grep NoNewPrivs /proc/self/status'
	[ "$output" = $'NoNewPrivs:\t1' ]
}

@test "config.md oomScoreAdj: \"If oomScoreAdj is set, the runtime MUST set oom_score_adj\"" {
	update_config '.process.oomScoreAdj = 321'
	in_container 'cat /proc/self/oom_score_adj'
	[ "$output" = 321 ]
}

@test "config.md oomScoreAdj: \"If oomScoreAdj is not set, the runtime MUST NOT change\" it" {
	want=$(cat /proc/self/oom_score_adj)
	in_container 'cat /proc/self/oom_score_adj'
	[ "$output" = "$want" ]
}

@test "config.md user: uid, gid and additionalGids" {
	update_config '.process.user = {"uid": 1000, "gid": 1000, "additionalGids": [10, 20]}'
	in_container 'id -u; id -g; grep ^Groups: /proc/self/status'
	[ "${lines[0]}" = 1000 ]
	[ "${lines[1]}" = 1000 ]
	[ "$(echo ${lines[2]})" = "Groups: 10 20" ]
}

@test "config.md user: umask" {
	update_config '.process.user.umask = 18'
	in_container umask
	[ "$output" = 0022 ]
	update_config '.process.user.umask = 7'
	in_container umask
	[ "$output" = 0007 ]
}

@test "config.md hostname: the container's hostname" {
	update_config '.hostname = "conformance-host"'
	in_container hostname
	[ "$output" = conformance-host ]
}

@test "config.md domainname: the container's NIS domain name" {
	# runc 1.1.5 fails this: it ignores domainname (supported from runc 1.2).
	requires_clasp "runc 1.1.5 ignores domainname"
	update_config '.domainname = "conformance.domain"'
	in_container 'cat /proc/sys/kernel/domainname'
	[ "$output" = conformance.domain ]
}

@test "config.md hooks: \"The state of the container MUST be passed to hooks over stdin\"" {
	update_config ".hooks.prestart = [{\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"cat >$BATS_TEST_TMPDIR/state\"]}]"
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	jq -e --arg id "$id" '.id == $id and .pid == '"$(ct_pid "$id")" "$BATS_TEST_TMPDIR/state"
}

@test "config.md hooks: \"Hooks MUST be called in the listed order\"" {
	update_config ".hooks.prestart = [
		{\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"cat >/dev/null; echo 1 >>$BATS_TEST_TMPDIR/order\"]},
		{\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"cat >/dev/null; echo 2 >>$BATS_TEST_TMPDIR/order\"]}] |
		.hooks.createRuntime = [{\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"cat >/dev/null; echo 3 >>$BATS_TEST_TMPDIR/order\"]}]"
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$(cat "$BATS_TEST_TMPDIR/order" | tr '\n' ' ')" = "1 2 3 " ]
}

@test "config.md hooks: \"The prestart hooks MUST be called before the createRuntime hooks\", createContainer after" {
	for k in createContainer createRuntime prestart; do
		update_config ".hooks.$k = [{\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"cat >/dev/null; echo $k >>$BATS_TEST_TMPDIR/order\"]}]"
	done
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	[ "$(tr '\n' ' ' <"$BATS_TEST_TMPDIR/order")" = "prestart createRuntime createContainer " ]
}

@test "config.md hooks: \"poststart hooks MUST be called after the user-specified process is executed but before start returns\"" {
	# runc 1.1.5 fails this: it runs poststart hooks during create.
	requires_clasp "runc 1.1.5 runs poststart at create"
	update_config ".hooks.poststart = [{\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"cat >/dev/null; sleep 1; echo done >$BATS_TEST_TMPDIR/poststart\"]}]"
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ ! -e "$BATS_TEST_TMPDIR/poststart" ]
	rt start "$id"
	[ "$(cat "$BATS_TEST_TMPDIR/poststart")" = done ]
}

@test "config.md hooks: \"poststop hooks MUST be called after the container is deleted but before delete returns\"" {
	update_config ".hooks.poststop = [{\"path\": \"/bin/sh\", \"args\": [\"sh\", \"-c\", \"cat >/dev/null; sleep 1; echo done >$BATS_TEST_TMPDIR/poststop\"]}]"
	id=$(new_id)
	set_cmd true
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	rt delete "$id"
	[ "$(cat "$BATS_TEST_TMPDIR/poststop")" = done ]
}

@test "config.md hooks: \"timeout is the number of seconds before aborting the hook\"" {
	update_config '.hooks.prestart = [{"path": "/bin/sleep", "args": ["sleep", "30"], "timeout": 1}]'
	id=$(new_id)
	set_cmd true
	SECONDS=0
	create "$id"
	[ "$status" -ne 0 ]
	[ "$SECONDS" -lt 15 ]
	assert_no_trace "$id"
}

@test "config.md hooks: \"If set, timeout MUST be greater than zero\"" {
	update_config '.hooks.prestart = [{"path": "/bin/true", "timeout": 0}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config.md hooks trap: a hook exiting without reading stdin does not kill the runtime" {
	head -c 200000 /dev/zero | tr '\0' y >"$BATS_TEST_TMPDIR/big"
	jq --rawfile big "$BATS_TEST_TMPDIR/big" '.annotations = {"org.example.big": $big} | .hooks.prestart = [{"path": "/bin/true"}]' \
		"$BUNDLE/config.json" >"$BUNDLE/c.json" && mv "$BUNDLE/c.json" "$BUNDLE/config.json"
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	[ "$(ct_status "$id")" = created ]
}

@test "config.md annotations: \"Runtimes MUST handle unknown annotation keys like any other unknown property\"" {
	update_config '.annotations = {"com.example.unknown": "v", "org.opencontainers.image.os": "linux"}'
	in_container 'echo fine'
	[ "$status" -eq 0 ]
	[ "$output" = fine ]
}

@test "config.md extensibility: \"Runtimes MAY log unknown properties but MUST otherwise ignore them\"" {
	update_config '.unknownTopLevel = {"x": 1} | .process.unknownProcessField = true | .linux.unknownLinux = [1, 2] | .root.extra = "y"'
	in_container 'echo fine'
	[ "$status" -eq 0 ]
	[ "$output" = fine ]
}

@test "config.md valid values: \"Runtimes MUST generate an error when invalid or unsupported values are encountered\"" {
	update_config '.linux.namespaces += [{"type": "bogus"}]'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config.md ociVersion: \"MUST be in SemVer v2.0.0 format\"" {
	# runc 1.1.5 fails this: it does not validate ociVersion.
	requires_clasp "runc 1.1.5 does not validate ociVersion"
	update_config '.ociVersion = "not-a-version"'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "config.md: clasp rejects with \"config.json: <JSON path>: <reason>\"" {
	requires_clasp
	update_config '.process.user.uid = "zero"'
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *"config.json: .process.user.uid: "* ]]
}
