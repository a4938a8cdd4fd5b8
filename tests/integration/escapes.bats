#!/usr/bin/env bats
# Known escapes closed: CVE-2024-21626 (host fd as cwd), symlinks redirecting mounts or devices
# to the host, CVE-2019-5736 (overwriting the runtime binary from inside).

load helpers

@test "a cwd of /proc/self/fd/N is refused (CVE-2024-21626)" {
	for n in 3 4 5 6 7 8 9; do
		update_config ".process.cwd = \"/proc/self/fd/$n\""
		set_cmd 'pwd; ls ..'
		id=$(new_id)
		create "$id"
		if [ "$status" -eq 0 ]; then
			rt start "$id"
			wait_for_state "$id" stopped
			echo "cwd /proc/self/fd/$n was accepted: $(cat "$CT_OUT")"
			return 1
		fi
		assert_no_trace "$id"
	done
}

@test "a symlink in the rootfs cannot redirect a mount to the host" {
	make_bundle --copy
	HOSTDIR=$BATS_TEST_TMPDIR/hostdir
	mkdir "$HOSTDIR"
	rmdir "$BUNDLE/rootfs/mnt"
	ln -s "$HOSTDIR" "$BUNDLE/rootfs/mnt"
	update_config '.mounts += [{"destination": "/mnt/sub", "type": "tmpfs", "source": "tmpfs"}, {"destination": "/mnt", "type": "tmpfs", "source": "tmpfs"}]'
	id=$(new_id)
	set_cmd 'echo x >/mnt/written; sleep 1000'
	run_d "$id"
	# Whether or not the runtime accepted it, nothing reached the host directory.
	[ -z "$(ls -A "$HOSTDIR")" ]
	refute grep -qF "$HOSTDIR" /proc/self/mountinfo
}

@test "a relative symlink climbing out of the rootfs cannot redirect a mount" {
	make_bundle --copy
	HOSTDIR=$BATS_TEST_TMPDIR/hostdir
	mkdir "$HOSTDIR"
	rmdir "$BUNDLE/rootfs/mnt"
	ln -s "../../../../../../../../../../..$HOSTDIR" "$BUNDLE/rootfs/mnt"
	update_config '.mounts += [{"destination": "/mnt/sub", "type": "tmpfs", "source": "tmpfs"}]'
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	[ -z "$(ls -A "$HOSTDIR")" ]
	refute grep -qF "$HOSTDIR" /proc/self/mountinfo
}

@test "a symlink in the rootfs cannot redirect a device node to the host" {
	make_bundle --copy
	HOSTDIR=$BATS_TEST_TMPDIR/hostdir
	mkdir "$HOSTDIR"
	rmdir "$BUNDLE/rootfs/mnt"
	ln -s "$HOSTDIR" "$BUNDLE/rootfs/mnt"
	update_config '.linux.devices = [{"path": "/mnt/evil", "type": "c", "major": 1, "minor": 3}]'
	id=$(new_id)
	set_cmd 'sleep 1000'
	run_d "$id"
	[ -z "$(ls -A "$HOSTDIR")" ]
}

@test "a bind source symlink is resolved on the host, the destination inside the rootfs" {
	make_bundle --copy
	HOSTDIR=$BATS_TEST_TMPDIR/hostdir
	mkdir "$HOSTDIR"
	echo content >"$HOSTDIR/f"
	ln -s /etc "$BUNDLE/rootfs/link-to-etc"
	update_config ".mounts += [{\"destination\": \"/link-to-etc/data\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"bind\"]}]"
	in_container 'cat /etc/data/f'
	[ "$status" -eq 0 ]
	[ "$output" = content ]
	[ ! -e /etc/data ]
}

@test "the runtime binary cannot be overwritten from inside a container (CVE-2019-5736)" {
	# Work on a copy, so that a failure here cannot damage the real binary.
	cp "$RUNTIME" "$BATS_TEST_TMPDIR/rt-copy"
	before=$(sha256sum <"$BATS_TEST_TMPDIR/rt-copy")
	RUNTIME=$BATS_TEST_TMPDIR/rt-copy
	X=$BATS_TEST_TMPDIR/x
	mkdir "$X"
	chmod 777 "$X"
	# Container A: every capability, watching its pid namespace for the next container's init
	# (still the runtime, before exec), holding its exe open, then writing through it after start.
	update_config ".mounts += [{\"destination\": \"/mnt\", \"type\": \"bind\", \"source\": \"$X\", \"options\": [\"bind\"]}]"
	all='["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_DAC_READ_SEARCH","CAP_FOWNER","CAP_FSETID","CAP_KILL","CAP_SETGID","CAP_SETUID","CAP_SETPCAP","CAP_NET_ADMIN","CAP_SYS_CHROOT","CAP_SYS_PTRACE","CAP_SYS_ADMIN","CAP_MKNOD","CAP_AUDIT_WRITE"]'
	update_config ".process.capabilities = {\"bounding\": $all, \"effective\": $all, \"permitted\": $all} | .process.noNewPrivileges = false"
	set_cmd '
		while [ ! -e /mnt/created ]; do sleep 0.05; done
		for p in /proc/[0-9]*; do
			e=$(readlink $p/exe 2>/dev/null) || continue
			case "$e" in
			*/busybox | "") ;;
			*) if command exec 3<$p/exe; then echo "opened $p $e $(tr "\0" " " <$p/cmdline)" >>/mnt/log; break; else echo "cannot open $p $e" >>/mnt/log; fi ;;
			esac
		done
		echo 1 >/mnt/opened
		while [ ! -e /mnt/started ]; do sleep 0.05; done
		sleep 0.3
		if echo PWNED >>/proc/self/fd/3; then echo write-ok >>/mnt/log; else echo write-failed >>/mnt/log; fi
		echo 1 >/mnt/done
		sleep 1000'
	a=$(new_id attacker)
	run_d "$a"
	[ "$status" -eq 0 ]
	apid=$(ct_pid "$a")
	# Container B joins A's pid namespace and waits in created state.
	make_bundle "$BATS_TEST_TMPDIR/b"
	update_config ".linux.namespaces |= map(if .type == \"pid\" then .path = \"/proc/$apid/ns/pid\" else . end)" "$BATS_TEST_TMPDIR/b"
	set_cmd 'sleep 1000' "$BATS_TEST_TMPDIR/b"
	b=$(new_id victim)
	rt_bg create --bundle "$BATS_TEST_TMPDIR/b" "$b"
	[ "$status" -eq 0 ]
	touch "$X/created"
	wait_for_file "$X/opened" || {
		cat "$X/log" "$CT_OUT" "$CT_ERR"
		return 1
	}
	rt start "$b"
	touch "$X/started"
	wait_for_file "$X/done"
	cat "$X/log"
	grep -q '^opened ' "$X/log"
	[ "$(sha256sum <"$BATS_TEST_TMPDIR/rt-copy")" = "$before" ]
	grep -qx write-failed "$X/log"
}
