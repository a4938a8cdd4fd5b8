# Common setup for the integration and conformance suites. The suites are runtime-agnostic:
#   bats -r tests/integration tests/conformance            # runs build/clasp
#   CLASP=runc bats -r tests/integration tests/conformance # validates the tests themselves
# Each test file gets a private --root; each test gets its own bundle and unique container IDs,
# and teardown force-deletes every container and fails the test if any state is left behind.

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FIXTURES=$REPO_DIR/tests/fixtures
RUNTIME=${CLASP:-$REPO_DIR/build/clasp}
if [[ $RUNTIME != */* ]]; then
	RUNTIME=$(command -v "$RUNTIME" || echo "$RUNTIME")
fi
# Every runtime command is bounded by this many seconds.
RT_TIMEOUT=${RT_TIMEOUT:-20}

ensure_tools() {
	local missing=()
	command -v jq >/dev/null || missing+=(jq)
	command -v gcc >/dev/null || missing+=(gcc libc6-dev)
	if ((${#missing[@]})); then
		DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y "${missing[@]}" >/dev/null
	fi
}

# The shared, read-only rootfs and the recvtty helper are built once per bats run.
SHARED_DIR=${BATS_RUN_TMPDIR:-${BATS_TMPDIR:-/tmp}}/clasp-shared
SHARED_ROOTFS=$SHARED_DIR/rootfs

build_shared() {
	mkdir -p "$SHARED_DIR"
	(
		flock 9
		if [ ! -e "$SHARED_DIR/.done" ]; then
			ensure_tools
			timeout 300 "$FIXTURES/make-rootfs.sh" "$SHARED_ROOTFS"
			touch "$SHARED_DIR/.done"
		fi
	) 9>"$SHARED_DIR/.lock"
}

# recvtty: the project's build if present, otherwise compiled here.
recvtty_bin() {
	if [ -x "$REPO_DIR/build/helpers/recvtty" ]; then
		echo "$REPO_DIR/build/helpers/recvtty"
		return
	fi
	(
		flock 9
		[ -x "$SHARED_DIR/recvtty" ] || gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
			-D_GNU_SOURCE -o "$SHARED_DIR/recvtty" "$REPO_DIR/tests/helpers/recvtty.c"
	) 9>"$SHARED_DIR/.lock-recvtty"
	echo "$SHARED_DIR/recvtty"
}

is_clasp() {
	if [ -z "${_IS_CLASP:-}" ]; then
		if timeout 5 "$RUNTIME" --version 2>/dev/null | head -n1 | grep -q '^clasp version'; then
			_IS_CLASP=yes
		else
			_IS_CLASP=no
		fi
	fi
	[ "$_IS_CLASP" = yes ]
}

# Skip a test whose assertion is specific to clasp (its own wording or behaviour beyond runc's).
# CLASP_ONLY_RUN=1 runs them anyway, to confirm which ones another runtime really fails.
requires_clasp() {
	[ "${CLASP_ONLY_RUN:-}" = 1 ] && return 0
	is_clasp || skip "clasp-only assertion (runtime is $(basename "$RUNTIME"))${1:+: $1}"
}

is_runc() { [ "$(basename "$RUNTIME")" = runc ]; }

# Suites can call this from their own setup_file.
common_setup_file() {
	build_shared
	export CT_ROOT="$BATS_FILE_TMPDIR/root"
	mkdir -p "$CT_ROOT"
}

setup_file() { common_setup_file; }

common_setup() {
	[ -n "${CT_ROOT:-}" ] || common_setup_file
	[ -x "$RUNTIME" ] || {
		echo "runtime $RUNTIME not found (build it, or set CLASP=runc)" >&2
		return 1
	}
	IDS_FILE=$BATS_TEST_TMPDIR/.ids
	: >"$IDS_FILE"
	BUNDLE=$BATS_TEST_TMPDIR/bundle
	# bats makes its temporary directories 0700; a user namespace's root (a high host uid) must
	# still be able to reach the rootfs and the bundle.
	traversable "$BATS_TEST_TMPDIR" "$SHARED_ROOTFS"
	make_bundle
}

# traversable DIR...: o+x on DIR and its parents, up to (not beyond) /tmp.
traversable() {
	local d
	for d in "$@"; do
		while [ -n "$d" ] && [ "$d" != / ] && [ "$d" != /tmp ] && [ "$d" != "${BATS_TMPDIR:-/tmp}" ]; do
			[ -d "$d" ] && chmod o+x "$d" 2>/dev/null
			d=$(dirname "$d")
		done
	done
	return 0
}

setup() { common_setup; }

common_teardown() {
	local id leftover
	for id in $(cat "$IDS_FILE" 2>/dev/null) $(ls "$CT_ROOT" 2>/dev/null); do
		timeout "$RT_TIMEOUT" "$RUNTIME" --root "$CT_ROOT" delete --force "$id" >/dev/null 2>&1 || true
	done
	for id in $(cat "$IDS_FILE" 2>/dev/null); do
		timeout "$RT_TIMEOUT" "$RUNTIME" --root "$CT_ROOT" delete --force "$id" >/dev/null 2>&1 || true
	done
	# Dot entries are the runtime's shared caches (.seccomp-cache), not containers.
	leftover=$(ls "$CT_ROOT" 2>/dev/null || true)
	if [ -n "$leftover" ]; then
		echo "teardown: state left behind in $CT_ROOT: $leftover" >&2
		rm -rf "${CT_ROOT:?}"/*
		return 1
	fi
	# A private bind of the bundle's rootfs must never be left on the host.
	if grep -qF "$BATS_TEST_TMPDIR" /proc/self/mountinfo; then
		echo "teardown: mounts left behind:" >&2
		grep -F "$BATS_TEST_TMPDIR" /proc/self/mountinfo >&2
		return 1
	fi
}

teardown() { common_teardown; }

# new_id [suffix]: a unique container ID, remembered for teardown.
new_id() {
	# Called as $(new_id), so the sequence lives in the IDs file, not in a variable.
	local seq
	seq=$(($(wc -l <"$IDS_FILE") + 1))
	local id="ct-$$-${BATS_TEST_NUMBER}-${seq}${1:+-$1}"
	echo "$id" >>"$IDS_FILE"
	echo "$id"
}

# make_bundle [--copy] [DIR]: a bundle whose config.json comes from tests/fixtures/config.json.
# By default root.path is the shared rootfs (absolute, readonly); --copy gives the bundle a private
# writable copy at DIR/rootfs for tests that write to the rootfs or create mount points in it.
make_bundle() {
	local copy=no
	if [ "${1:-}" = --copy ]; then
		copy=yes
		shift
	fi
	local dir=${1:-$BUNDLE}
	mkdir -p "$dir"
	if [ $copy = yes ]; then
		rm -rf "$dir/rootfs"
		cp -a "$SHARED_ROOTFS" "$dir/rootfs"
		jq '.root.path = "rootfs" | .root.readonly = false' "$FIXTURES/config.json" >"$dir/config.json"
	else
		jq --arg r "$SHARED_ROOTFS" '.root.path = $r' "$FIXTURES/config.json" >"$dir/config.json"
	fi
}

# update_config 'jq expression' [bundle]
update_config() {
	local dir=${2:-$BUNDLE}
	jq "$1" "$dir/config.json" >"$dir/config.json.new" && mv "$dir/config.json.new" "$dir/config.json"
}

# set_cmd 'shell command': the process runs `sh -c COMMAND`.
set_cmd() {
	local cmd=$1
	update_config "$(printf '.process.args = ["sh", "-c", %s]' "$(jq -Rn --arg c "$cmd" '$c')")" "${2:-$BUNDLE}"
}

# rt ARGS...: the runtime with this file's --root, bounded by a timeout.
rt() {
	timeout --kill-after=5 "$RT_TIMEOUT" "$RUNTIME" --root "$CT_ROOT" "$@"
}

# rt_bg ARGS...: like `run rt`, but the runtime's stdout/stderr go to files, because a container
# created or run detached inherits them and would keep bats' output pipe open. Sets $status and
# $output (stderr then stdout of the runtime, and of the container if it printed meanwhile);
# the files are $RT_OUT and $RT_ERR, which keep collecting the container's output.
rt_bg() {
	RT_OUT=$BATS_TEST_TMPDIR/rt.$((++_RT_SEQ)).out
	RT_ERR=$BATS_TEST_TMPDIR/rt.$_RT_SEQ.err
	status=0
	rt "$@" >"$RT_OUT" 2>"$RT_ERR" </dev/null || status=$?
	output=$(cat "$RT_ERR" "$RT_OUT")
}
_RT_SEQ=0

# create ID [ARGS...]: create from $BUNDLE with the container's stdio going to files.
create() {
	local id=$1
	shift
	rt_bg create --bundle "$BUNDLE" "$@" "$id"
	CT_OUT=$RT_OUT
	CT_ERR=$RT_ERR
}

# run_d ID [ARGS...]: `run -d` from $BUNDLE, stdio to files.
run_d() {
	local id=$1
	shift
	rt_bg run -d --bundle "$BUNDLE" "$@" "$id"
	CT_OUT=$RT_OUT
	CT_ERR=$RT_ERR
}

# run_fg ID [ARGS...]: foreground `run` from $BUNDLE (status and output of the container).
run_fg() {
	local id=$1
	shift
	run rt run --bundle "$BUNDLE" "$@" "$id" </dev/null
}

ct_status() {
	rt state "$1" 2>/dev/null | jq -r .status
}

ct_pid() {
	rt state "$1" 2>/dev/null | jq -r .pid
}

# wait_for_state ID STATE [SECONDS]
wait_for_state() {
	local id=$1 want=$2 secs=${3:-10} i s
	for ((i = 0; i < secs * 20; i++)); do
		s=$(ct_status "$id")
		[ "$s" = "$want" ] && return 0
		sleep 0.05
	done
	echo "container $id is '$s', wanted '$want'" >&2
	return 1
}

# wait_for_file FILE [SECONDS]: until FILE exists and is non-empty.
wait_for_file() {
	local f=$1 secs=${2:-10} i
	for ((i = 0; i < secs * 20; i++)); do
		[ -s "$f" ] && return 0
		sleep 0.05
	done
	echo "timed out waiting for $f" >&2
	return 1
}

# wait_for_output FILE PATTERN [SECONDS]: until FILE contains the fixed string PATTERN.
wait_for_output() {
	local f=$1 p=$2 secs=${3:-10} i
	for ((i = 0; i < secs * 20; i++)); do
		grep -qF -- "$p" "$f" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "timed out waiting for '$p' in $f: $(cat "$f" 2>/dev/null)" >&2
	return 1
}

# in_container 'shell command' [RUN ARGS]: run the command in a fresh container from $BUNDLE
# (foreground `run`); sets $status and $output.
in_container() {
	set_cmd "$1"
	shift
	local id
	id=$(new_id)
	run_fg "$id" "$@"
}

# A host process is "in" the bundle if its root or cwd resolves under it.
procs_in() {
	local dir=$1 p r
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case "$r" in "$dir"*) echo "${p#/proc/}" ;; esac
		r=$(readlink "$p/cwd" 2>/dev/null) || continue
		case "$r" in "$dir"*) echo "${p#/proc/}" ;; esac
	done
}

# assert_no_trace ID: a failed create left nothing: no state, no process, no mount.
assert_no_trace() {
	local id=$1
	[ ! -e "$CT_ROOT/$id" ] || {
		echo "state dir $CT_ROOT/$id left behind" >&2
		return 1
	}
	run rt state "$id"
	[ "$status" -ne 0 ] || {
		echo "state $id still answers: $output" >&2
		return 1
	}
	local procs
	procs=$(procs_in "$BUNDLE")
	[ -z "$procs" ] || {
		echo "processes left in the bundle: $procs" >&2
		return 1
	}
	! grep -qF "$BUNDLE" /proc/self/mountinfo || {
		echo "mount left behind: $(grep -F "$BUNDLE" /proc/self/mountinfo)" >&2
		return 1
	}
	# Read-only look for a cgroup named after the container (runtimes name them after the ID).
	local cg
	cg=$(find /sys/fs/cgroup -maxdepth 4 -type d -name "*$id*" 2>/dev/null | head -n3)
	[ -z "$cg" ] || {
		echo "cgroup left behind: $cg" >&2
		return 1
	}
}

# hex_mask CAP_NUMBER...: the 16-digit hex mask /proc/self/status prints for those capabilities.
hex_mask() {
	local m=0 c
	for c in "$@"; do m=$((m | (1 << c))); done
	printf '%016x\n' "$m"
}

# cap_number NAME: a capability's number from its name (CAP_ prefix optional).
cap_number() {
	local names=(CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP
		LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER SYS_MODULE
		SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE SYS_RESOURCE SYS_TIME
		SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP MAC_OVERRIDE MAC_ADMIN SYSLOG
		WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF CHECKPOINT_RESTORE)
	local n=${1#CAP_} i
	for i in "${!names[@]}"; do
		[ "${names[$i]}" = "$n" ] && {
			echo "$i"
			return
		}
	done
	return 1
}

# The host's own capability bounding set (this machine lacks CAP_SYS_RESOURCE).
host_has_cap() {
	local bnd
	bnd=$(awk '/^CapBnd:/ {print $2}' /proc/self/status)
	(((0x$bnd >> $1) & 1))
}

# ns_host TYPE: the host's /proc/self/ns/TYPE link text, e.g. "pid:[4026531836]".
ns_host() {
	readlink "/proc/self/ns/$1"
}

# refute CMD...: fail if CMD succeeds (a bare `! cmd` does not fail a bats test mid-way).
refute() {
	if "$@"; then
		echo "unexpectedly succeeded: $*" >&2
		return 1
	fi
	return 0
}
