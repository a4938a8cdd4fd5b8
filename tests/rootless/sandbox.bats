#!/usr/bin/env bats
# The sandbox annotations as an unprivileged user, the error texts for what a user cannot have,
# and that nothing a rootless run does can write outside the user's own files.

load helpers

rl_ws() {
	WS=$RL_DIR/ws-$BATS_TEST_NUMBER
	rm -rf "$WS"
	mkdir -p "$WS/sub"
	echo orig >"$WS/f"
	chmod 0640 "$WS/f"
	chown -R "$RL_USER:" "$WS"
}

@test "rootless sandbox: fs.scope=workspace with an image rootfs the user owns, and net.scope=deny" {
	rl_ws
	rl_no_sys
	rl_update ".annotations = {\"ing.paperclip.fs.scope\": \"workspace\", \"ing.paperclip.fs.workspace\": \"$WS\",
		\"ing.paperclip.fs.workspace-target\": \"/workspace\", \"ing.paperclip.net.scope\": \"deny\"}"
	rl_cmd 'cat /workspace/f; echo new >/workspace/g; touch /etc/x 2>&1; ls /sys/class/net; nc -w 2 127.0.0.1 22 </dev/null 2>&1 || echo no-connect'
	run rt run -b "$BUNDLE" sb1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *orig* ]]
	[[ "$output" == *"Read-only file system"* ]]
	[[ "$output" == *no-connect* ]]
	[ "$(cat "$WS/g")" = new ]
	[ "$(stat -c %u:%g "$WS/g")" = "$RL_UID:$RL_GID" ]
}

@test "rootless sandbox: fs.scope=workspace with the host-root view" {
	rl_ws
	rl_no_sys
	rl_update ".root.path = \"/\" | .annotations = {\"ing.paperclip.fs.scope\": \"workspace\",
		\"ing.paperclip.fs.workspace\": \"$WS\", \"ing.paperclip.fs.workspace-target\": \"/workspace\"}"
	rl_cmd 'touch /workspace/hr && echo ws-ok; touch /usr/x 2>&1; ls /root 2>&1; ls /home 2>&1; true'
	run rt run -b "$BUNDLE" sb2
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *ws-ok* ]]
	[[ "$output" == *"/usr/x"*"Read-only file system"* ]]
	[ -e "$WS/hr" ]
	[ ! -e /usr/x ]
}

@test "rootless sandbox: net.scope=allowlist through the egress proxy, run as the user" {
	mkdir -p "$RL_DIR/www"
	echo hello-egress >"$RL_DIR/www/index.html"
	port=$((20000 + RANDOM % 20000))
	timeout 60 busybox httpd -f -p "127.0.0.1:$port" -h "$RL_DIR/www" &
	hpid=$!
	sleep 0.3
	rl_no_sys
	rl_update ".annotations = {\"ing.paperclip.net.scope\": \"allowlist\", \"ing.paperclip.net.allowlist\": \"[\\\"127.0.0.1:$port\\\"]\"}"
	rl_cmd "wget -qO- http://127.0.0.1:$port/; wget -qO- http://example.com/ 2>&1; echo; cat /proc/net/tcp | wc -l"
	rt_d run -d -b "$BUNDLE" sb3
	[ "$status" -eq 0 ]
	proxy=$(awk '{ print $1 }' "$RL_RUN/clasp/sb3/egress.pid" 2>/dev/null || true)
	[ -n "$proxy" ] && [ "$(stat -c %u "/proc/$proxy")" = "$RL_UID" ]
	for _ in $(seq 50); do [ "$(rt state sb3 | jq -r .status)" = stopped ] && break; sleep 0.1; done
	kill "$hpid" 2>/dev/null || true
	cat "$CT_OUT"
	grep -q hello-egress "$CT_OUT"
	grep -q "403 Forbidden" "$CT_OUT"
	run rt delete sb3
	[ "$status" -eq 0 ]
}

@test "rootless sandbox: copy realization keeps ownership and modes on the host after write-back" {
	rl_ws
	rl_no_sys
	rl_update ".annotations = {\"ing.paperclip.fs.scope\": \"workspace\", \"ing.paperclip.fs.workspace\": \"$WS\",
		\"ing.paperclip.fs.workspace-target\": \"/workspace\", \"ing.paperclip.workspace.realization\": \"copy\",
		\"ing.paperclip.net.scope\": \"deny\"}"
	rl_cmd 'echo changed >>/workspace/f; echo n >/workspace/sub/new; chmod 0600 /workspace/sub/new; mkdir /workspace/d'
	run rt run -b "$BUNDLE" sb4
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$WS/f")" = "$(printf 'orig\nchanged')" ]
	[ "$(stat -c %u:%g:%a "$WS/f")" = "$RL_UID:$RL_GID:640" ]
	[ "$(stat -c %u:%g:%a "$WS/sub/new")" = "$RL_UID:$RL_GID:600" ]
	[ "$(stat -c %u:%g "$WS/d")" = "$RL_UID:$RL_GID" ]
}

@test "rootless errors: a resource limit without a delegated cgroup explains delegation" {
	rl_update '.linux.resources = {"memory": {"limit": 100000000}}'
	run rt run -b "$BUNDLE" er1
	[ "$status" -ne 0 ]
	[[ "$output" == *"linux.resources.memory.limit: running without root, clasp can set resource limits only in a cgroup v2 subtree delegated to your user"* ]]
	rl_update '.linux.resources = {"pids": {"limit": 100}}'
	run rt run -b "$BUNDLE" er1
	[[ "$output" == *"linux.resources.pids.limit: "*"delegat"* ]]
	[ -z "$(ls "$RL_RUN/clasp")" ]
}

@test "rootless errors: oomScoreAdj below the current value, raised rlimits, host-only sysctls, no user namespace" {
	rl_update '.process.oomScoreAdj = -100'
	run rt run -b "$BUNDLE" er2
	[ "$status" -ne 0 ]
	[[ "$output" == *"process.oomScoreAdj: -100 is below the current value"*"CAP_SYS_RESOURCE"* ]]
	rl_update '.process.oomScoreAdj = 500 | .process.rlimits = [{"type": "RLIMIT_NOFILE", "hard": 4294967295, "soft": 1024}]'
	run rt run -b "$BUNDLE" er2
	[[ "$output" == *"process.rlimits[0]: hard limit 4294967295 is above the current"* ]]
	rl_update '.process.rlimits = [] | .linux.sysctl = {"kernel.hostname": "x"}'
	run rt run -b "$BUNDLE" er2
	[[ "$output" == *'linux.sysctl: "kernel.hostname" cannot be set without root; use the "hostname" field'* ]]
	rl_update '.linux.sysctl = {} | .linux.namespaces |= map(select(.type != "user")) | del(.linux.uidMappings, .linux.gidMappings)'
	run rt run -b "$BUNDLE" er2
	[[ "$output" == *"linux.namespaces: running without root needs a user namespace"* ]]
	[ -z "$(ls "$RL_RUN/clasp")" ]
}

@test "rootless: what is possible works (oomScoreAdj raised, namespaced sysctls)" {
	rl_update '.process.oomScoreAdj = 500 | .linux.sysctl = {"kernel.shmmax": "100000"}'
	rl_cmd 'cat /proc/self/oom_score_adj /proc/sys/kernel/shmmax'
	run rt run -b "$BUNDLE" ok1
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '500\n100000')" ]
}

@test "rootless: no write outside the user's files: /dev/null, /sys/fs/cgroup, a ro cgroup mount" {
	before_null=$(stat -c '%a %u %g %t %T' /dev/null)
	before_cg=$(grep -E ' - (cgroup|cgroup2|tmpfs) ' /proc/self/mountinfo | grep /sys/fs/cgroup | awk '{print $5, $6}' | sort)
	cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	# spec --rootless mounts /sys/fs/cgroup "ro"; ask for every capability the user namespace
	# can give, so the test shows the kernel's limits, not the missing capabilities.
	rl_update '.process.capabilities.bounding += ["CAP_SYS_ADMIN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_CHOWN", "CAP_MKNOD"]
		| .process.capabilities.effective = .process.capabilities.bounding
		| .process.capabilities.permitted = .process.capabilities.bounding'
	rl_cmd 'for d in /sys/fs/cgroup/*/; do mkdir "$d/clasp-rl-escape" 2>&1; echo 1 >"$d/cgroup.procs" 2>&1; done;
		mkdir /sys/fs/cgroup/new 2>&1;
		mount -o remount,rw /sys/fs/cgroup/unified 2>&1; mkdir /sys/fs/cgroup/unified/clasp-rl-escape 2>&1;
		chmod 0600 /dev/null 2>&1; mknod /dev/clasp-null c 1 3 2>&1; echo x >/dev/null; echo done'
	run rt run -b "$BUNDLE" esc1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *done* ]]
	# the ro cgroup mount stayed read-only where writable hierarchies would be reachable
	[[ "$output" == *"/sys/fs/cgroup/new"*"Read-only file system"* ]]
	[[ "$output" == *"unified/clasp-rl-escape"*"Read-only file system"* ]]
	# even after a remount, the host's permissions keep the user out
	[[ "$output" != *"unified/clasp-rl-escape"*"File exists"* ]]
	! find /sys/fs/cgroup -maxdepth 3 -name clasp-rl-escape 2>/dev/null | grep -q .
	[ "$(stat -c '%a %u %g %t %T' /dev/null)" = "$before_null" ]
	after_cg=$(grep -E ' - (cgroup|cgroup2|tmpfs) ' /proc/self/mountinfo | grep /sys/fs/cgroup | awk '{print $5, $6}' | sort)
	[ "$after_cg" = "$before_cg" ]
	[ -n "$cg2" ]
}
