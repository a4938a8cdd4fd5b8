#!/usr/bin/env bats
# Fallbacks for kernels older than this one: clone3 (5.3), openat2 (5.6), the new mount API
# (fsopen/open_tree/move_mount 5.2, mount_setattr 5.12) and pidfd_open (5.3). tests/helpers/enosys
# runs the runtime under a seccomp filter that answers those calls with ENOSYS, as an old kernel
# would; the filter is inherited by the sealed re-exec, the init and the container.

load helpers

NEWMOUNT=fsopen,fsconfig,fsmount,fspick,move_mount,open_tree,mount_setattr
ALL=clone3,openat2,pidfd_open,$NEWMOUNT

# The project's build of the wrapper, or one compiled here.
enosys_bin() {
	local b
	for b in "${CLASP_HELPERS:-}/enosys" "$REPO_DIR/build/helpers/enosys"; do
		[ -x "$b" ] && {
			echo "$b"
			return
		}
	done
	(
		flock 9
		[ -x "$SHARED_DIR/enosys" ] || gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
			-D_GNU_SOURCE -o "$SHARED_DIR/enosys" "$REPO_DIR/tests/helpers/enosys.c" -lseccomp
	) 9>"$SHARED_DIR/.lock-enosys"
	echo "$SHARED_DIR/enosys"
}

setup_file() {
	common_setup_file
	ENOSYS_BIN=$(enosys_bin)
	export ENOSYS_BIN
}

setup() {
	common_setup
	make_bundle --copy
	update_config '.root.readonly = true'
	HOSTDIR=$BATS_TEST_TMPDIR/hostdir
	mkdir -p "$HOSTDIR"
	echo host-content >"$HOSTDIR/file"
}

teardown() {
	if mountpoint -q "$HOSTDIR/sub" 2>/dev/null; then umount "$HOSTDIR/sub"; fi
	common_teardown
}

# rtx CALLS ARGS...: the runtime under the ENOSYS filter for CALLS.
rtx() {
	local calls=$1
	shift
	timeout --kill-after=5 "$RT_TIMEOUT" "$ENOSYS_BIN" "$calls" -- "$RUNTIME" --root "$CT_ROOT" "$@"
}

# runx CALLS ID: a foreground `run` of $BUNDLE under the filter; sets $status and $output.
runx() {
	run rtx "$1" run --bundle "$BUNDLE" "$2" </dev/null
}

# run_dx CALLS ID: `run -d` under the filter, stdio to files (like run_d).
run_dx() {
	local calls=$1 id=$2
	RT_OUT=$BATS_TEST_TMPDIR/rtx.$((++_RT_SEQ)).out
	RT_ERR=$BATS_TEST_TMPDIR/rtx.$_RT_SEQ.err
	status=0
	rtx "$calls" run -d --bundle "$BUNDLE" "$id" >"$RT_OUT" 2>"$RT_ERR" </dev/null || status=$?
	output=$(cat "$RT_ERR" "$RT_OUT")
	CT_OUT=$RT_OUT
}

add_mount() { update_config ".mounts += [$1]"; }

# The mounts of the default config plus cgroup, binds (ro, rbind with flags, a file) and the
# fixture's maskedPaths and readonlyPaths.
full_config() {
	add_mount '{"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup", "options": ["nosuid", "noexec", "nodev", "relatime", "ro"]}'
	add_mount "{\"destination\": \"/ro\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"bind\", \"ro\"]}"
	add_mount "{\"destination\": \"/rb\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"rbind\", \"nosuid\", \"nodev\", \"noexec\"]}"
	add_mount "{\"destination\": \"/etc/hostfile\", \"type\": \"bind\", \"source\": \"$HOSTDIR/file\", \"options\": [\"bind\", \"ro\"]}"
}

# mount_opts DEST: the per-mount options of DEST in the mountinfo in $output.
mount_opts() {
	awk -v d="$1" '$5 == d {print $6}' <<<"$output" | tail -n1
}

# has_opt DEST OPT
has_opt() {
	[[ ",$(mount_opts "$1")," == *",$2,"* ]] || {
		echo "$1: '$2' not in '$(mount_opts "$1")'" >&2
		return 1
	}
}

# Mount point and per-mount options of every line of a mountinfo, in order.
mount_table() {
	awk '$5 ~ /^\// {print $5, $6}' <<<"$1"
}

# check_full_mounts: the effects of full_config, from a container that printed its mountinfo
# after the lines "<cat /ro/file>" and "<error of touch /ro/x>".
check_full_mounts() {
	[ "${lines[0]}" = host-content ]
	[[ "${lines[1]}" == *"Read-only file system"* ]]
	[ ! -e "$HOSTDIR/x" ]
	has_opt / ro
	has_opt /proc rw
	has_opt /dev nosuid
	has_opt /dev/pts noexec
	has_opt /dev/shm nodev
	has_opt /dev/mqueue noexec
	has_opt /sys ro
	has_opt /sys/fs/cgroup ro
	has_opt /sys/fs/cgroup/memory ro
	has_opt /ro ro
	has_opt /rb nosuid
	has_opt /rb nodev
	has_opt /rb noexec
	has_opt /etc/hostfile ro
	has_opt /proc/sys ro
	has_opt /proc/acpi ro
	[ -n "$(mount_opts /proc/keys)" ]
	[ -n "$(mount_opts /sys/firmware)" ]
}

FULL_CMD='cat /ro/file; touch /ro/x 2>&1; [ -z "$(cat /proc/keys)" ] || echo keys-not-masked;
echo 1 2>&1 >/proc/sys/vm/overcommit_memory | grep -q "Read-only" || echo proc-sys-writable;
[ -z "$(ls /proc/acpi)" ] || echo acpi-not-masked; cat /etc/hostfile >/dev/null || echo no-file-bind;
cat /proc/self/mountinfo'

@test "enosys: the named calls fail with ENOSYS, no_new_privs and the filter are set" {
	run "$ENOSYS_BIN" unshare -- unshare -U true
	[ "$status" -ne 0 ]
	[[ "$output" == *"Function not implemented"* ]]
	run "$ENOSYS_BIN" clone3 -- grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status
	[ "$status" -eq 0 ]
	[[ "$output" == *$'NoNewPrivs:\t1'* ]]
	[[ "$output" == *$'Seccomp:\t2'* ]]
	run "$ENOSYS_BIN" no_such_call -- true
	[ "$status" -eq 125 ]
}

@test "clone3 -> ENOSYS: the init gets its namespaces, its cgroup and its exit code" {
	update_config '.linux.namespaces += [{"type": "cgroup"}]'
	set_cmd 'echo pid=$$; cat /proc/self/cgroup; exit 7'
	id=$(new_id)
	runx clone3 "$id"
	[ "$status" -eq 7 ]
	[ "${lines[0]}" = pid=1 ]
	# A cgroup namespace rooted at the container's cgroup, although clone(2) could not place it.
	refute grep -v ':/$' <<<"${output#*$'\n'}"
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_dx clone3 "$id"
	[ "$status" -eq 0 ]
	pid=$(ct_pid "$id")
	[ "$(readlink /proc/$pid/ns/pid)" != "$(ns_host pid)" ]
	[ "$(readlink /proc/$pid/ns/mnt)" != "$(ns_host mnt)" ]
	# Every hierarchy puts the init in the container's own cgroup.
	refute grep -v -e "$id" -e 'name=systemd' "/proc/$pid/cgroup"
}

@test "clone3 -> ENOSYS: clasp exec joins the init's namespaces and cgroup" {
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ]
	pid=$(ct_pid "$id")
	run rtx clone3 exec "$id" sh -c 'for n in mnt pid net; do readlink /proc/self/ns/$n; done; cat /proc/self/cgroup; exit 3'
	[ "$status" -eq 3 ]
	[ "${lines[0]}" = "$(readlink /proc/$pid/ns/mnt)" ]
	[ "${lines[1]}" = "$(readlink /proc/$pid/ns/pid)" ]
	[ "${lines[2]}" = "$(readlink /proc/$pid/ns/net)" ]
	[ "$(printf '%s\n' "${lines[@]:3}")" = "$(cat /proc/$pid/cgroup)" ]
}

@test "openat2 -> ENOSYS: the O_PATH walk keeps symlinked destinations inside the rootfs" {
	rmdir "$BUNDLE/rootfs/mnt"
	ln -s "$HOSTDIR" "$BUNDLE/rootfs/mnt"
	ln -s ../../../../../.. "$BUNDLE/rootfs/up"
	add_mount '{"destination": "/mnt/sub", "type": "tmpfs", "source": "tmpfs"}'
	add_mount '{"destination": "/up/escaped", "type": "tmpfs", "source": "tmpfs"}'
	add_mount "{\"destination\": \"/a/b/c\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"bind\", \"ro\"]}"
	set_cmd 'cat /a/b/c/file; cat /proc/self/mountinfo'
	id=$(new_id)
	runx openat2 "$id"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = host-content ]
	has_opt /a/b/c ro
	# The absolute symlink restarted at the rootfs, the relative one stopped at it.
	[ -n "$(mount_opts "$HOSTDIR/sub")" ]
	[ -n "$(mount_opts /escaped)" ]
	[ -d "$BUNDLE/rootfs$HOSTDIR/sub" ]
	[ -d "$BUNDLE/rootfs/escaped" ]
	[ ! -e "$HOSTDIR/sub" ]
	[ ! -e /escaped ]
	refute grep -qF "$HOSTDIR" /proc/self/mountinfo
}

@test "new mount API -> ENOSYS: the default mounts, cgroup, binds, masked and readonly paths" {
	full_config
	set_cmd "$FULL_CMD"
	id=$(new_id)
	runx "$NEWMOUNT" "$id"
	echo "$output"
	[ "$status" -eq 0 ]
	check_full_mounts
	legacy=$(mount_table "$output")
	# mount(2) was really used: it makes a fresh read-only mount's superblock read-only too,
	# where fsmount(MOUNT_ATTR_RDONLY) leaves the superblock read-write.
	[ "$(awk '$5 == "/proc/acpi" {print $NF}' <<<"$output")" = ro ]
	# The same mounts with the same per-mount flags as with the new mount API.
	set_cmd 'cat /proc/self/mountinfo'
	run_fg "$(new_id)"
	[ "$status" -eq 0 ]
	[ "$(mount_table "$output")" = "$legacy" ]
	[ "$(awk '$5 == "/proc/acpi" {print $NF}' <<<"$output")" = rw ]
}

@test "mount_setattr alone -> ENOSYS (Linux 5.2 to 5.11): mount(2) for everything" {
	full_config
	set_cmd "$FULL_CMD"
	id=$(new_id)
	runx mount_setattr "$id"
	echo "$output"
	[ "$status" -eq 0 ]
	check_full_mounts
}

@test "new mount API -> ENOSYS: tmpcopyup, propagation, a read-only /dev, flags kept on remount" {
	mkdir -p "$BUNDLE/rootfs/opt/seed/sub"
	echo seeded >"$BUNDLE/rootfs/opt/seed/sub/f"
	ln -s sub/f "$BUNDLE/rootfs/opt/seed/link"
	add_mount '{"destination": "/opt/seed", "type": "tmpfs", "source": "tmpfs", "options": ["tmpcopyup", "mode=755"]}'
	add_mount '{"destination": "/shared", "type": "tmpfs", "source": "tmpfs", "options": ["rshared"]}'
	add_mount "{\"destination\": \"/rem\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"rbind\", \"nosuid\"]}"
	add_mount '{"destination": "/rem", "type": "none", "options": ["remount", "bind", "ro"]}'
	update_config '(.mounts[] | select(.destination == "/dev") | .options) += ["ro"]'
	set_cmd 'cat /opt/seed/sub/f /opt/seed/link; touch /opt/seed/new && echo tmp-writable
test -c /dev/null && echo dev-null; touch /dev/x 2>&1; cat /proc/self/mountinfo'
	id=$(new_id)
	runx "$NEWMOUNT" "$id"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = seeded ]
	[ "${lines[1]}" = seeded ]
	[ "${lines[2]}" = tmp-writable ]
	[ ! -e "$BUNDLE/rootfs/opt/seed/new" ]
	[[ "$(awk '$5 == "/shared"' <<<"$output")" == *shared:* ]]
	has_opt /rem ro
	has_opt /rem nosuid
	# /dev is made read-only only after its devices were created in it.
	[ "${lines[3]}" = dev-null ]
	[[ "${lines[4]}" == *"Read-only file system"* ]]
	has_opt /dev ro
}

@test "new mount API -> ENOSYS: rro on a tree with submounts fails with a clear error" {
	requires_clasp "error wording"
	mkdir "$HOSTDIR/sub"
	mount -t tmpfs -o size=1m tmpfs "$HOSTDIR/sub"
	add_mount "{\"destination\": \"/rr\", \"type\": \"bind\", \"source\": \"$HOSTDIR\", \"options\": [\"rbind\", \"rro\"]}"
	set_cmd 'true'
	id=$(new_id)
	runx "$NEWMOUNT" "$id"
	[ "$status" -ne 0 ]
	[[ "$output" == *'"/rr"'*"need mount_setattr (Linux 5.12)"* ]]
	assert_no_trace "$id"
	# Without submounts, rro is plain ro and works.
	umount "$HOSTDIR/sub"
	set_cmd 'touch /rr/x 2>&1; cat /proc/self/mountinfo'
	runx "$NEWMOUNT" "$(new_id)"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *"Read-only file system"* ]]
	has_opt /rr ro
}

@test "new mount API -> ENOSYS in a user namespace: devpts, sysfs, devices bound from the host" {
	traversable "$BUNDLE/rootfs"
	chmod o+rx "$BUNDLE" "$BUNDLE/rootfs"
	update_config '.linux.namespaces += [{"type": "user"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
	set_cmd 'id -u; echo x >/dev/null && echo null-ok; ls /dev/pts/ptmx; cat /proc/self/mountinfo'
	id=$(new_id)
	runx "$NEWMOUNT" "$id"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = null-ok ]
	[ "${lines[2]}" = /dev/pts/ptmx ]
	has_opt /sys ro
	has_opt /dev/pts noexec
	# In a user namespace device nodes are binds of the host's.
	[ -n "$(mount_opts /dev/null)" ]
}

@test "new mount API -> ENOSYS: the console is bound from the pty" {
	SOCK=$BATS_TEST_TMPDIR/tty.sock
	TTY_OUT=$BATS_TEST_TMPDIR/tty.out
	timeout 30 "$(recvtty_bin)" "$SOCK" </dev/null >"$TTY_OUT" 2>/dev/null &
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.02; done
	update_config '.process.terminal = true'
	set_cmd 'test -t 0 && test -c /dev/console && echo console-ok; grep -c " /dev/console " /proc/self/mountinfo; sleep 0.5'
	id=$(new_id)
	status=0
	rtx "$NEWMOUNT" run -d --console-socket "$SOCK" --bundle "$BUNDLE" "$id" </dev/null >/dev/null 2>&1 || status=$?
	[ "$status" -eq 0 ]
	wait_for_output "$TTY_OUT" console-ok
	grep -q '^1' "$TTY_OUT"
}

@test "pidfd_open -> ENOSYS (with clone3, as on Linux 5.2): run, state, exec and delete" {
	calls=pidfd_open,clone3
	set_cmd 'exit 5'
	runx "$calls" "$(new_id)"
	[ "$status" -eq 5 ]
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_dx "$calls" "$id"
	[ "$status" -eq 0 ]
	[ "$(rtx "$calls" state "$id" | jq -r .status)" = running ]
	run rtx "$calls" exec "$id" sh -c 'echo in-exec; exit 4'
	[ "$status" -eq 4 ]
	[ "$output" = in-exec ]
	pid=$(ct_pid "$id")
	run rtx "$calls" delete --force "$id"
	[ "$status" -eq 0 ]
	[ ! -d "/proc/$pid" ] || [ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" = Z ]
	assert_no_trace "$id"
}

@test "pidfd_open -> ENOSYS: kill signals the init" {
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_dx pidfd_open,clone3 "$id"
	[ "$status" -eq 0 ]
	run rtx pidfd_open,clone3 kill "$id" KILL
	[ "$status" -eq 0 ]
	wait_for_state "$id" stopped
}

@test "pidfd_open -> ENOSYS: exec joins user and time namespaces one by one" {
	# The same per-namespace path runs on Linux 5.6 and 5.7, where setns(pidfd) is EINVAL.
	chmod o+rx "$BUNDLE" "$BUNDLE/rootfs"
	update_config '.linux.namespaces += [{"type": "user"}, {"type": "time"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_d "$id"
	[ "$status" -eq 0 ]
	pid=$(ct_pid "$id")
	run rtx pidfd_open exec "$id" sh -c 'for n in user time mnt; do readlink /proc/self/ns/$n; done'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$(readlink /proc/$pid/ns/user)" ]
	[ "${lines[1]}" = "$(readlink /proc/$pid/ns/time)" ]
	[ "${lines[2]}" = "$(readlink /proc/$pid/ns/mnt)" ]
}

@test "everything at once: clone3, openat2, pidfd_open and the new mount API" {
	full_config
	set_cmd "$FULL_CMD"
	id=$(new_id)
	runx "$ALL" "$id"
	echo "$output"
	[ "$status" -eq 0 ]
	check_full_mounts
	set_cmd 'sleep 1000'
	id=$(new_id)
	run_dx "$ALL" "$id"
	[ "$status" -eq 0 ]
	pid=$(ct_pid "$id")
	run rtx "$ALL" exec "$id" sh -c 'readlink /proc/self/ns/mnt; touch /ro/y 2>&1; exit 2'
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "$(readlink /proc/$pid/ns/mnt)" ]
	[[ "${lines[1]}" == *"Read-only file system"* ]]
	run rtx "$ALL" delete --force "$id"
	[ "$status" -eq 0 ]
	assert_no_trace "$id"
}
