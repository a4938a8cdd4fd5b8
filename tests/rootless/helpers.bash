# The rootless suite: every runtime command runs as a throwaway unprivileged user that the suite
# creates (useradd, with /etc/subuid and /etc/subgid ranges) and removes again. bats itself runs
# as root, only to create that user, its /run/user/UID (there is no systemd here), and to check
# the host from outside afterwards.
#   bats -r tests/rootless

REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FIXTURES=$REPO_DIR/tests/fixtures
RUNTIME=${CLASP:-$REPO_DIR/build/clasp}
RT_TIMEOUT=${RT_TIMEOUT:-20}

rl_need_tools() {
	local missing=()
	command -v newuidmap >/dev/null || missing+=(uidmap)
	command -v jq >/dev/null || missing+=(jq)
	command -v useradd >/dev/null || missing+=(passwd)
	if ((${#missing[@]})); then
		DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y "${missing[@]}" >/dev/null
	fi
}

# rl_setup_file: the test user, its runtime directory, and a rootfs it owns (an "image").
rl_setup_file() {
	[ "$(id -u)" = 0 ] || skip "the rootless suite runs as root to create its test user"
	rl_need_tools
	RL_USER=clrl$$
	userdel -r "$RL_USER" >/dev/null 2>&1 || true
	useradd -m -s /bin/sh "$RL_USER"
	# Debian's useradd usually adds the ranges itself; make sure they are there.
	grep -q "^$RL_USER:" /etc/subuid || usermod --add-subuids 500000-565535 "$RL_USER"
	grep -q "^$RL_USER:" /etc/subgid || usermod --add-subgids 500000-565535 "$RL_USER"
	RL_UID=$(id -u "$RL_USER")
	RL_GID=$(id -g "$RL_USER")
	RL_SUBUID=$(awk -F: -v u="$RL_USER" '$1 == u { print $2; exit }' /etc/subuid)
	RL_SUBGID=$(awk -F: -v u="$RL_USER" '$1 == u { print $2; exit }' /etc/subgid)
	RL_RUN=/run/user/$RL_UID
	mkdir -p "$RL_RUN"
	chown "$RL_USER:" "$RL_RUN"
	chmod 0700 "$RL_RUN"
	RL_DIR=$(mktemp -d /tmp/clasp-rootless.XXXXXX)
	chmod 0755 "$RL_DIR"
	timeout 300 "$FIXTURES/make-rootfs.sh" "$RL_DIR/rootfs" >/dev/null
	chown -R "$RL_USER:" "$RL_DIR"
	export RL_USER RL_UID RL_GID RL_SUBUID RL_SUBGID RL_RUN RL_DIR
}

rl_teardown_file() {
	local id pid
	[ -n "${RL_USER:-}" ] || return 0
	for id in $(ls "$RL_RUN/clasp" 2>/dev/null); do
		as_user "$RUNTIME" delete --force "$id" >/dev/null 2>&1 || true
	done
	# Whatever the test user still runs was started by this suite (a proxy, a sleep).
	for pid in $(ps -u "$RL_USER" -o pid= 2>/dev/null); do
		kill -KILL "$pid" 2>/dev/null || true
	done
	sleep 0.2
	userdel -r "$RL_USER" >/dev/null 2>&1 || userdel "$RL_USER" >/dev/null 2>&1 || true
	# userdel drops the subordinate ranges too; make sure.
	sed -i "/^$RL_USER:/d" /etc/subuid /etc/subgid
	rm -rf "${RL_RUN:?}" "${RL_DIR:?}"
}

# as_user CMD...: CMD as the test user, with a clean environment and a timeout.
as_user() {
	timeout "$RT_TIMEOUT" runuser -u "$RL_USER" -- env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME="/home/$RL_USER" XDG_RUNTIME_DIR="$RL_RUN" "$@"
}

# rt ARGS...: the runtime as the test user (default --root, as a user would run it).
rt() { as_user "$RUNTIME" "$@" </dev/null; }

# rt_d ARGS...: a runtime command that leaves a container running (create, run -d): the
# container inherits stdio, so it goes to files; sets status and output (clasp's stderr).
rt_d() {
	local out=$RL_DIR/ct-$BATS_TEST_NUMBER.out err=$RL_DIR/ct-$BATS_TEST_NUMBER.err
	status=0
	as_user "$RUNTIME" "$@" </dev/null >"$out" 2>"$err" || status=$?
	chmod 0644 "$out" "$err" 2>/dev/null || true
	output=$(cat "$err")
	CT_OUT=$out
}

# rl_bundle: a fresh bundle from `clasp spec --rootless`, using the user's rootfs; sets BUNDLE.
rl_bundle() {
	BUNDLE=$RL_DIR/b-$BATS_TEST_NUMBER
	rm -rf "$BUNDLE"
	mkdir -p "$BUNDLE"
	chown "$RL_USER:" "$BUNDLE"
	as_user "$RUNTIME" spec --rootless --bundle "$BUNDLE"
	rl_update ".root.path = \"$RL_DIR/rootfs\" | .process.terminal = false"
}

# rl_update JQ: edit the bundle's config.json.
rl_update() {
	local tmp=$BUNDLE/config.json.tmp
	jq "$1" "$BUNDLE/config.json" >"$tmp"
	mv "$tmp" "$BUNDLE/config.json"
	chown "$RL_USER:" "$BUNDLE/config.json"
}

# rl_cmd SCRIPT: the process runs `sh -c SCRIPT`.
rl_cmd() { rl_update ".process.args = [\"sh\", \"-c\", $(jq -Rn --arg s "$1" '$s')]"; }

# The annotations layer refuses host binds under fs.scope, and a user namespace without its own
# network namespace cannot mount a fresh sysfs: sandbox bundles drop /sys.
rl_no_sys() { rl_update '.mounts |= map(select(.destination | startswith("/sys") | not))'; }

rl_setup() {
	rl_bundle
}

rl_teardown() {
	local id
	for id in $(ls "$RL_RUN/clasp" 2>/dev/null); do
		rt delete --force "$id" >/dev/null 2>&1 || true
	done
	if [ -n "$(ls "$RL_RUN/clasp" 2>/dev/null)" ]; then
		echo "teardown: state left behind in $RL_RUN/clasp" >&2
		return 1
	fi
}

setup_file() { rl_setup_file; }
teardown_file() { rl_teardown_file; }
setup() { rl_setup; }
teardown() { rl_teardown; }
