#!/usr/bin/env bats
# Hooks: all six kinds, in order, with the state on stdin; failures; timeouts.

load helpers

setup() {
	common_setup
	# startContainer hooks resolve inside the container, so the hook directory is bind-mounted
	# at the same path: one script serves every kind.
	make_bundle --copy
	HOOKDIR=$BATS_TEST_TMPDIR/hooks
	HOOKLOG=$HOOKDIR/log
	mkdir -p "$HOOKDIR"
	: >"$HOOKLOG"
	chmod 666 "$HOOKLOG"
	cat >"$HOOKDIR/hook.sh" <<-HOOK
		#!/bin/sh
		# hook.sh KIND [EXIT] [SLEEP]: log "KIND <state json>" and exit EXIT after SLEEP seconds.
		kind=\$1
		state=\$(cat)
		[ -z "\$3" ] || sleep "\$3"
		echo "\$kind \$state" >>$HOOKLOG
		exit \${2:-0}
	HOOK
	chmod 755 "$HOOKDIR/hook.sh"
	update_config ".mounts += [{\"destination\": \"$HOOKDIR\", \"type\": \"bind\", \"source\": \"$HOOKDIR\", \"options\": [\"bind\"]}]"
}

# add_hook KIND [EXIT] [SLEEP] [TIMEOUT]
add_hook() {
	local args="[\"hook.sh\", \"$1\"${2:+, \"$2\"}${3:+, \"$3\"}]"
	local h="{\"path\": \"$HOOKDIR/hook.sh\", \"args\": $args${4:+, \"timeout\": $4}}"
	update_config ".hooks.$1 = ((.hooks.$1 // []) + [$h])"
}

all_hooks() {
	local k
	for k in prestart createRuntime createContainer startContainer poststart poststop; do add_hook $k; done
}

kinds() { cut -d' ' -f1 "$HOOKLOG" | tr '\n' ' '; }

# hook_state KIND: the state JSON the hook of that kind read.
hook_state() { grep "^$1 " "$HOOKLOG" | head -n1 | cut -d' ' -f2-; }

@test "all six hooks run in order at their lifecycle points" {
	# runc 1.1.5 fails this: it runs poststart hooks during create, before start.
	requires_clasp "runc 1.1.5 runs poststart at create"
	all_hooks
	id=$(new_id)
	set_cmd 'echo user-program >>'"$HOOKLOG"'; sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	[ "$(kinds)" = "prestart createRuntime createContainer " ]
	rt start "$id"
	wait_for_output "$HOOKLOG" user-program
	[ "$(kinds)" = "prestart createRuntime createContainer startContainer user-program poststart " ] ||
		[ "$(kinds)" = "prestart createRuntime createContainer startContainer poststart user-program " ]
	rt kill "$id" KILL
	wait_for_state "$id" stopped
	rt delete "$id"
	[ "$(kinds)" = "prestart createRuntime createContainer startContainer user-program poststart poststop " ] ||
		[ "$(kinds)" = "prestart createRuntime createContainer startContainer poststart user-program poststop " ]
}

@test "each hook gets the state JSON on stdin" {
	all_hooks
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	rt start "$id"
	rt kill "$id" KILL
	wait_for_state "$id" stopped
	rt delete "$id"
	for k in prestart createRuntime createContainer startContainer poststart poststop; do
		hook_state $k | jq -e --arg id "$id" --arg b "$BUNDLE" '.id == $id and .bundle == $b and (.ociVersion | type == "string") and (.status | type == "string")' >/dev/null || {
			echo "$k got: $(hook_state $k)"
			return 1
		}
	done
	# The runtime-namespace hooks see the init's host pid.
	[ "$(hook_state prestart | jq .pid)" -gt 1 ]
	[ "$(hook_state poststop | jq -r .status)" = stopped ]
}

@test "poststart sees status running" {
	# runc 1.1.5 fails this: its poststart hooks run during create and see "created".
	requires_clasp "runc 1.1.5 runs poststart at create"
	add_hook poststart
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	rt start "$id"
	[ "$(hook_state poststart | jq -r .status)" = running ]
}

@test "prestart and createRuntime see the host pid of the init" {
	add_hook prestart
	add_hook createRuntime
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	pid=$(ct_pid "$id")
	[ "$(hook_state prestart | jq .pid)" = "$pid" ]
	[ "$(hook_state createRuntime | jq .pid)" = "$pid" ]
}

@test "poststart runs before start returns" {
	add_hook poststart 0 1
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	rt start "$id"
	# The hook sleeps a second before logging; start must have waited for it.
	grep -q '^poststart ' "$HOOKLOG"
}

@test "poststop runs before delete returns" {
	add_hook poststop 0 1
	id=$(new_id)
	set_cmd 'true'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	rt delete "$id"
	grep -q '^poststop ' "$HOOKLOG"
}

@test "hooks run once per kind each, in config order within a kind" {
	update_config ".hooks.prestart = [
		{\"path\": \"$HOOKDIR/hook.sh\", \"args\": [\"hook.sh\", \"first\"]},
		{\"path\": \"$HOOKDIR/hook.sh\", \"args\": [\"hook.sh\", \"second\"]},
		{\"path\": \"$HOOKDIR/hook.sh\", \"args\": [\"hook.sh\", \"third\"]}]"
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$(kinds)" = "first second third " ]
}

@test "hook path, args and env are honoured" {
	cat >"$HOOKDIR/env.sh" <<-EOS
		#!/bin/sh
		cat >/dev/null
		echo "args=\$* var=\$HOOKVAR" >>$HOOKLOG
	EOS
	chmod 755 "$HOOKDIR/env.sh"
	update_config ".hooks.prestart = [{\"path\": \"$HOOKDIR/env.sh\", \"args\": [\"env.sh\", \"a\", \"b c\"], \"env\": [\"HOOKVAR=v1\"]}]"
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	grep -qx 'args=a b c var=v1' "$HOOKLOG"
}

@test "createContainer runs in the container's namespaces" {
	cat >"$HOOKDIR/ns.sh" <<-EOS
		#!/bin/sh
		cat >/dev/null
		echo "\$(readlink /proc/self/ns/mnt) \$(readlink /proc/self/ns/net)" >>$HOOKLOG
	EOS
	chmod 755 "$HOOKDIR/ns.sh"
	update_config ".hooks.createContainer = [{\"path\": \"$HOOKDIR/ns.sh\"}]"
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	pid=$(ct_pid "$id")
	[ "$(cat "$HOOKLOG")" = "$(readlink /proc/$pid/ns/mnt) $(readlink /proc/$pid/ns/net)" ]
}

@test "prestart runs in the runtime's namespaces" {
	cat >"$HOOKDIR/ns.sh" <<-EOS
		#!/bin/sh
		cat >/dev/null
		echo "\$(readlink /proc/self/ns/mnt) \$(readlink /proc/self/ns/net)" >>$HOOKLOG
	EOS
	chmod 755 "$HOOKDIR/ns.sh"
	update_config ".hooks.prestart = [{\"path\": \"$HOOKDIR/ns.sh\"}]"
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	[ "$(cat "$HOOKLOG")" = "$(ns_host mnt) $(ns_host net)" ]
}

@test "a failing prestart hook fails create and leaves nothing behind" {
	add_hook prestart 1
	add_hook poststop
	id=$(new_id)
	set_cmd 'echo user-program >>'"$HOOKLOG"
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
	refute grep -q user-program "$HOOKLOG"
}

@test "a failing createRuntime hook fails create and leaves nothing behind" {
	add_hook createRuntime 3
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "a failing createContainer hook fails create and leaves nothing behind" {
	add_hook createContainer 3
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "a failing startContainer hook fails start and the program never runs" {
	# runc 1.1.5 fails this: start exits 0 although the hook failed in the container.
	requires_clasp "runc 1.1.5 start exits 0"
	add_hook startContainer 1
	id=$(new_id)
	set_cmd 'echo user-program >>'"$HOOKLOG"
	create "$id"
	[ "$status" -eq 0 ]
	run rt start "$id"
	[ "$status" -ne 0 ]
	sleep 0.2
	refute grep -q user-program "$HOOKLOG"
	[ "$(ct_status "$id")" != running ]
}

@test "a failing poststart hook makes start fail" {
	# runtime.md: "If any poststart hook fails, the runtime MUST generate an error, stop the container".
	# runc 1.1.5 fails this: it runs poststart during create, so create fails instead.
	requires_clasp "runc 1.1.5 runs poststart at create"
	add_hook poststart 1
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	run rt start "$id"
	[ "$status" -ne 0 ]
	wait_for_state "$id" stopped 5
}

@test "a failing poststop hook only warns: delete succeeds" {
	add_hook poststop 1
	id=$(new_id)
	set_cmd 'true'
	create "$id"
	rt start "$id"
	wait_for_state "$id" stopped
	run rt delete "$id"
	[ "$status" -eq 0 ]
	[ ! -e "$CT_ROOT/$id" ]
	grep -q '^poststop ' "$HOOKLOG"
}

@test "a hook that exceeds its timeout fails create" {
	# exec, so that the process the runtime kills is the sleeper itself.
	printf '#!/bin/sh\nexec sleep 30\n' >"$HOOKDIR/slow.sh"
	chmod 755 "$HOOKDIR/slow.sh"
	update_config ".hooks.prestart = [{\"path\": \"$HOOKDIR/slow.sh\", \"timeout\": 1}]"
	id=$(new_id)
	set_cmd true
	SECONDS=0
	create "$id"
	[ "$status" -ne 0 ]
	[ "$SECONDS" -lt 15 ]
	assert_no_trace "$id"
}

@test "a missing hook binary fails create" {
	update_config ".hooks.prestart = [{\"path\": \"$HOOKDIR/no-such-hook\"}]"
	id=$(new_id)
	set_cmd true
	create "$id"
	[ "$status" -ne 0 ]
	assert_no_trace "$id"
}

@test "a hook that exits without reading stdin does not kill the runtime (SIGPIPE)" {
	printf '#!/bin/sh\nexit 0\n' >"$HOOKDIR/quick.sh"
	chmod 755 "$HOOKDIR/quick.sh"
	# Annotations make the state larger than a pipe buffer, so the write cannot succeed.
	head -c 200000 /dev/zero | tr '\0' x >"$BATS_TEST_TMPDIR/big"
	jq --rawfile big "$BATS_TEST_TMPDIR/big" '.annotations = {"org.example.big": $big}' "$BUNDLE/config.json" >"$BUNDLE/c.json"
	mv "$BUNDLE/c.json" "$BUNDLE/config.json"
	update_config ".hooks.prestart = [{\"path\": \"$HOOKDIR/quick.sh\"}] | .hooks.poststart = [{\"path\": \"$HOOKDIR/quick.sh\"}]"
	id=$(new_id)
	set_cmd 'sleep 1000'
	create "$id"
	[ "$status" -eq 0 ]
	run rt start "$id"
	[ "$status" -eq 0 ]
	[ "$(ct_status "$id")" = running ]
}
