#!/usr/bin/env bats
# CVE-2025-31133 and CVE-2025-52565 class: /dev/null, /dev/console and /dev/pts/N cannot be
# redirected. runc bound the container's own /dev/null over each maskedPaths entry, and the pty
# found by its /dev/pts/N path over /dev/console; an image (or a racing container) that made those
# symlinks to /proc/sys/kernel/core_pattern got that file bound somewhere writable, and a write
# to it ran a program on the host. Each test below uses the image's own /dev (no tmpfs over it),
# plants the symlinks, and checks that the container either is refused or has no mount of
# core_pattern anywhere, that masked paths read empty, and that the host's core_pattern and
# /dev/null are unchanged.

load ../integration/helpers

setup() {
	common_setup
	make_bundle --copy
	ROOTFS=$BUNDLE/rootfs
	# The image's /dev is used as it is.
	update_config '.mounts |= map(select(.destination != "/dev"))'
	mkdir -p "$ROOTFS/dev/pts" "$ROOTFS/dev/shm" "$ROOTFS/dev/mqueue"
	update_config '.linux.maskedPaths += ["/proc/loadavg"]'
	CORE_BEFORE=$(cat /proc/sys/kernel/core_pattern)
	DEVNULL_BEFORE=$(stat -c '%F %t:%T %u:%g %a' /dev/null)
}

teardown() {
	common_teardown
	[ -z "${RECVTTY_PID:-}" ] || kill "$RECVTTY_PID" 2>/dev/null || true
}

# What the container reports: any mount whose root is core_pattern, and the masked file's content.
INSPECT='echo "--- core_pattern mounts:"; awk '"'"'$4 ~ /core_pattern/ || $5 ~ /core_pattern/'"'"' /proc/self/mountinfo
echo "--- console:"; ls -l /dev/console 2>&1; awk '"'"'$5 == "/dev/console"'"'"' /proc/self/mountinfo
echo "--- masked:"; for f in /proc/kcore /proc/loadavg; do [ -e $f ] && echo "$f [$(head -c 64 $f | tr -d "\0")]"; done
echo "--- end"'

host_unchanged() {
	[ "$(cat /proc/sys/kernel/core_pattern)" = "$CORE_BEFORE" ]
	[ "$(stat -c '%F %t:%T %u:%g %a' /dev/null)" = "$DEVNULL_BEFORE" ]
}

# The container was refused, or it shows no core_pattern mount and empty masked files.
assert_not_redirected() {
	echo "status $status"
	echo "$output"
	host_unchanged
	if [ "$status" -ne 0 ] && [[ $output != *"--- end"* ]]; then
		return 0 # refused
	fi
	[[ $output == *"--- end"* ]]
	local mounts
	mounts=$(sed -n '/^--- core_pattern mounts:/,/^--- console:/p' <<<"$output" | sed '1d;$d')
	[ -z "$mounts" ] || {
		echo "core_pattern is mounted in the container: $mounts"
		return 1
	}
	refute grep -q '^/proc/loadavg \[[^]]' <<<"$output"
}

@test "CVE-2025-31133: maskedPaths do not bind an image's /dev/null that links to core_pattern" {
	rm -f "$ROOTFS/dev/null"
	ln -s /proc/sys/kernel/core_pattern "$ROOTFS/dev/null"
	in_container "$INSPECT"
	assert_not_redirected
	# The image's symlink itself was not followed to create anything on the host.
	[ -L "$ROOTFS/dev/null" ] || [ -c "$ROOTFS/dev/null" ] || [ ! -e "$ROOTFS/dev/null" ]
}

@test "CVE-2025-31133: a /dev/null symlink to a host path does not mask with that file" {
	# An absolute link to a host file outside the rootfs, and a relative one climbing out.
	HOSTFILE=$BATS_TEST_TMPDIR/host-secret
	echo host-secret >"$HOSTFILE"
	rm -f "$ROOTFS/dev/null"
	ln -s "../../../../../../../../../..$HOSTFILE" "$ROOTFS/dev/null"
	in_container "$INSPECT; cat /proc/loadavg"
	echo "$output"
	[[ $output != *host-secret* ]]
	[ "$(cat "$HOSTFILE")" = host-secret ]
	host_unchanged
}

# start_recvtty: a console-socket listener (its output, the container's terminal, in $TTY_OUT).
start_recvtty() {
	SOCK=$BATS_TEST_TMPDIR/tty.sock
	TTY_OUT=$BATS_TEST_TMPDIR/tty.out
	timeout 30 "$(recvtty_bin)" "$SOCK" </dev/null >"$TTY_OUT" 2>"$BATS_TEST_TMPDIR/recvtty.err" &
	RECVTTY_PID=$!
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.02; done
	[ -S "$SOCK" ]
}

# run_tty CMD: run -d with a terminal; $output is the runtime's output followed by the terminal's.
run_tty() {
	start_recvtty
	update_config '.process.terminal = true'
	set_cmd "$1; sleep 0.3"
	id=$(new_id)
	run_d "$id" --console-socket "$SOCK"
	local st=$status out=$output
	if [ "$st" -eq 0 ]; then
		wait_for_output "$TTY_OUT" -- "--- end" 10 || true
		wait_for_state "$id" stopped 10 || true
	fi
	status=$st
	output="$out
$(tr -d '\r' <"$TTY_OUT" 2>/dev/null)"
}

@test "CVE-2025-52565: an image's /dev/console symlink to core_pattern is not bound over" {
	ln -s /proc/sys/kernel/core_pattern "$ROOTFS/dev/console"
	run_tty "$INSPECT"
	assert_not_redirected
	if [[ $output == *"--- end"* ]]; then
		# /dev/console is the pty, not what the symlink named.
		grep -A1 -e '--- console:' <<<"$output" | grep -q '^c'
	fi
}

@test "CVE-2025-52565: /dev/pts/N symlinks to core_pattern do not become the console" {
	# (Recent kernels refuse a ptmx node outside a devpts instance with ENOENT, so the container
	# is refused before the console is set up; on any kernel, nothing may be redirected.)
	# No devpts of its own: the image's /dev/pts holds symlinks for every likely pty number,
	# and its ptmx is the host's multiplexer (5:2), so the new pty's path names a symlink.
	update_config '.mounts |= map(select(.destination != "/dev/pts"))'
	for n in $(seq 0 255); do ln -s /proc/sys/kernel/core_pattern "$ROOTFS/dev/pts/$n"; done
	mknod -m 666 "$ROOTFS/dev/ptmx" c 5 2
	mknod -m 666 "$ROOTFS/dev/pts/ptmx" c 5 2
	run_tty "$INSPECT"
	assert_not_redirected
}

@test "CVE-2025-52565: a /dev/console symlink to a host file is not followed" {
	HOSTFILE=$BATS_TEST_TMPDIR/host-file
	echo untouched >"$HOSTFILE"
	before=$(stat -c '%i %s %Y' "$HOSTFILE")
	ln -s "$HOSTFILE" "$ROOTFS/dev/console"
	run_tty 'echo written >/dev/console; echo --- end'
	echo "$output"
	[ "$(cat "$HOSTFILE")" = untouched ]
	[ "$(stat -c '%i %s %Y' "$HOSTFILE")" = "$before" ]
	refute grep -qF "$HOSTFILE" /proc/self/mountinfo
	host_unchanged
}
